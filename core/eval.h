/* eval.h: the replay benchmark, and per-user calibration.
 *
 * Public history gives a ground truth: a person who put Reviewed-by,
 * Acked-by or Tested-by on a commit, or applied it, engaged with that patch.
 * The replay rebuilds each sampled commit P as a patch mail addressed as
 * get_maintainer.pl --git would at P's parent, scores every Cc'd addressee
 * as of P's author date (no commit at or after it is seen), and compares.
 */
#ifndef CCSIFT_EVAL_H
#define CCSIFT_EVAL_H

#include <glib.h>
#include <stdint.h>
#include "index.h"
#include "repo.h"
#include "score.h"

/* --- calibration --- */

typedef struct {
	double keep;             /* share of the user's engaged patches to keep relevant (0.95) */
	double fallback;         /* threshold when there is too little evidence */
	unsigned min_samples;    /* engaged patches needed to trust the quantile (10) */
	unsigned max_samples;    /* newest engaged patches scored (200) */
	int64_t window;          /* how far back engaged patches count, seconds (2 years) */
	int64_t recent;          /* "recent review activity" window, seconds (90 days) */
	unsigned busy;           /* engagements in it that make a user busy (5) */
	double idle_factor;      /* threshold multiplier with no recent engagement (10) */
	double light_factor;     /* ... with some, fewer than busy (2) */
	double half_life_days;
} ccsift_calibrate_options;

void ccsift_calibrate_options_init(ccsift_calibrate_options *o);

typedef struct {
	double threshold;
	unsigned engaged;        /* engaged patches found in the window */
	unsigned scored;         /* of which scorable (not overridden, with history) */
	unsigned recent;         /* engagements in the recent window, anywhere in the project (up to busy) */
	double quantile;         /* the score that keeps `keep` of them relevant, or -1 */
	char *why;               /* one sentence */
	GArray *scores;          /* double, the scored engaged patches */
} ccsift_calibration;

void ccsift_calibration_clear(ccsift_calibration *c);

/* The threshold factor for recent engagement alone (cheap: one query per
 * identity); recent, if not NULL, gets the count (up to o->busy). */
double ccsift_calibrate_activity(ccsift_index *idx, GArray *people, int64_t as_of,
				 const ccsift_calibrate_options *o, unsigned *recent);

/* The threshold for the person with these identities as of as_of:
 *  - from their engaged patches of the window, each scored as of its own
 *    author date: the threshold that keeps `keep` of them relevant, if that
 *    is lower than the fallback (calibration protects what a user engages
 *    with; it does not demote more of it);
 *  - times idle_factor when they engaged with nothing anywhere in the
 *    project in the recent window, light_factor when with a little:
 *    someone who has stopped reviewing will not review this. On git.git
 *    (eval, 2021-2022) this took noise demoted from 33% to 55% at 5% of
 *    the engaged demoted. */
int ccsift_calibrate(ccsift_repo *repo, ccsift_index *idx, const char *const *identities, int64_t as_of,
		     const ccsift_calibrate_options *o, ccsift_calibration *out);

/* --- the replay --- */

typedef struct {
	int64_t since, until;    /* author time window of sampled commits */
	unsigned sample;         /* 0: all */
	guint32 seed;
	double threshold;
	double half_life_days;
	gboolean calibrated;     /* each addressee's threshold from ccsift_calibrate as of the case */
	gboolean progress;
	int64_t git_window;      /* get_maintainer.pl --git-since: one year */
	double git_min_percent;  /* 5 */
	unsigned git_max;        /* 5 */
} ccsift_eval_options;

void ccsift_eval_options_init(ccsift_eval_options *o);

typedef struct {
	int64_t cid;
	char oid[41];
	int64_t time;            /* P's author time: the as-of of the case */
	int64_t person;
	char *email;
	double score;
	double threshold;        /* the one this pair was judged with */
	gboolean demotable;      /* Cc'd, no override, some history: the score decides */
	gboolean engaged;
} ccsift_eval_pair;

typedef struct {
	unsigned cases;          /* sampled commits with at least one Cc'd addressee */
	unsigned sampled;
	GArray *pairs;           /* ccsift_eval_pair */
} ccsift_eval_result;

void ccsift_eval_result_free(ccsift_eval_result *r);

int ccsift_eval_run(ccsift_repo *repo, ccsift_index *idx, const ccsift_eval_options *o,
		    ccsift_eval_result **out);

/* Shares of engaged and never-engaged pairs demoted at threshold t (t < 0:
 * each pair's own threshold). */
void ccsift_eval_rates(const ccsift_eval_result *r, double t, double *engaged_demoted,
		       double *noise_demoted, unsigned *engaged, unsigned *noise);
/* Area under the curve: the chance an engaged pair outranks a never-engaged
 * one (ties count half); within_person compares pairs of the same addressee. */
double ccsift_eval_auc(const ccsift_eval_result *r, gboolean within_person);

#endif
