/* eval.h: the replay of a repository's history.
 *
 * Public history gives a ground truth: a person who put Reviewed-by,
 * Acked-by or Tested-by on a commit, or applied it, engaged with that patch.
 * The replay rebuilds a commit P as a patch mail addressed as
 * get_maintainer.pl --git would at P's parent, and scores every Cc'd
 * addressee as of P's author date (no commit at or after it is seen).
 *
 * The same replay fits the model (training.h) and measures it
 * (ccsift eval): the benchmark and the product share one code path.
 */
#ifndef CCSIFT_EVAL_H
#define CCSIFT_EVAL_H

#include <glib.h>
#include <stdint.h>
#include "index.h"
#include "model.h"
#include "repo.h"
#include "score.h"

typedef struct {
	int64_t since, until;    /* author time window of sampled commits */
	unsigned sample;         /* 0: all */
	guint32 seed;
	double threshold;        /* a probability; < 0: each addressee's own, as shipped */
	double half_life_days;
	gboolean progress;
	int64_t git_window;      /* get_maintainer.pl --git-since: one year */
	double git_min_percent;  /* 5 */
	unsigned git_max;        /* 5 */
	gboolean fixes;          /* the patch carries the commit's Fixes:, as mailed */
} ccsift_eval_options;

void ccsift_eval_options_init(ccsift_eval_options *o);

typedef struct {
	int64_t cid;
	char oid[41];
	int64_t time;            /* P's author time: the as-of of the case */
	int64_t person;
	char *email;
	double score;            /* the probability of engagement */
	double threshold;        /* the one this pair was judged with */
	double evidence_score;   /* model version 1's score, for comparison */
	ccsift_features features;
	int64_t model_until;     /* the fit that judged it (0: the prior) */
	gboolean demotable;      /* Cc'd, no override, some history: the score decides */
	gboolean engaged;
} ccsift_eval_pair;

/* --- one case --- */

typedef struct ccsift_replay ccsift_replay;

/* A replay of cases (ccsift_commit_info) no earlier than those of commits. */
ccsift_replay *ccsift_replay_new(ccsift_repo *repo, ccsift_index *idx, const ccsift_eval_options *o,
				 GArray *commits);
void ccsift_replay_free(ccsift_replay *rp);

/* Replay commit p: append a pair per Cc'd addressee to pairs
 * (ccsift_eval_pair). model NULL decides as shipped (the index's fit for
 * the case's date and each addressee's own operating point); a model
 * given is used as it is, at its own threshold. Returns the number of
 * pairs added, or CCSIFT_EIO once a read of the index failed in this
 * replay (index.h: ccsift_index_take_fault): its pairs are not to be used. */
int ccsift_replay_commit(ccsift_replay *rp, const ccsift_commit_info *p, const ccsift_model *model,
			 GArray *pairs);

/* Called on the caller's thread as cases are done. */
typedef void (*ccsift_replay_progress_fn)(guint done, guint total, void *payload);

/* ccsift_replay_commit of each of commits (ccsift_commit_info) with
 * model, on a few threads; the pairs are those ccsift_replay_commit makes
 * of one case after the other, in the same order. Returns the number of
 * cases with pairs, or CCSIFT_EIO when a read of the index failed. */
int ccsift_replay_commits(ccsift_repo *repo, ccsift_index *idx, const ccsift_eval_options *o, GArray *commits,
			  const ccsift_model *model, ccsift_replay_progress_fn progress, void *payload, GArray *pairs);

void ccsift_eval_pairs_clear(GArray *pairs);

/* Sample non-merge commits authored in [since, until) (committed before
 * `committed_before` when not 0), shuffled by seed, at most n (0: all). */
GArray *ccsift_replay_sample(ccsift_index *idx, int64_t since, int64_t until, int64_t committed_before,
			     guint32 seed, unsigned n);

/* --- the benchmark --- */

typedef struct {
	unsigned cases;          /* sampled commits with at least one Cc'd addressee */
	unsigned sampled;
	GArray *pairs;           /* ccsift_eval_pair */
} ccsift_eval_result;

void ccsift_eval_result_free(ccsift_eval_result *r);

/* Replay a sample of the window as shipped. Fits missing for the periods
 * the cases fall in are made first (training.h) through `writer`, a
 * READ_WRITE handle on the same index (NULL: use what is stored). */
int ccsift_eval_run(ccsift_repo *repo, ccsift_index *idx, ccsift_index *writer, const ccsift_eval_options *o,
		    ccsift_eval_result **out);

/* Shares of engaged and never-engaged pairs demoted at threshold t (t < 0:
 * each pair's own threshold). v1: rank by version 1's evidence score. A
 * share of no pairs is NAN (undefined, not 0), and so is an AUC without an
 * engaged and a never-engaged pair to compare. */
void ccsift_eval_rates(const ccsift_eval_result *r, double t, gboolean v1, double *engaged_demoted,
		       double *noise_demoted, unsigned *engaged, unsigned *noise);
/* Area under the curve: the chance an engaged pair outranks a never-engaged
 * one (ties count half); within_person compares pairs of the same addressee. */
double ccsift_eval_auc(const ccsift_eval_result *r, gboolean within_person, gboolean v1);

#endif
