/* score.h: is this patch worth the recipient's attention?
 *
 * The scorer gathers evidence as of a time D (nothing at or after D is
 * seen): for the recipient's identities and each touched file (following
 * renames, as git log --follow does), every commit crediting them,
 *
 *   evidence(c, f) = substance x breadth x decay     (per role)
 *
 * with history on sibling files at a discount; and what they did lately
 * anywhere in the project. The model (model.h) turns that into the
 * probability that they engage with the patch; the verdict compares it
 * with their own operating point, fitted on their addressing history
 * (training.h), or a configured threshold.
 *
 * Overrides (MAINTAINERS M:/R:, To:, Fixes: naming the user's commit,
 * per-path rules) make a patch relevant whatever the score. Nothing is
 * demoted for lack of history: someone put the user on Cc for a reason.
 *
 * Line counts come from the index only (ccsift index --lines): a verdict
 * never depends on what a cache happens to hold.
 */
#ifndef CCSIFT_SCORE_H
#define CCSIFT_SCORE_H

#include <glib.h>
#include <stdint.h>
#include "index.h"
#include "model.h"
#include "patch.h"
#include "repo.h"

typedef enum {
	CCSIFT_VERDICT_UNKNOWN,    /* no decision could be made: nothing is demoted */
	CCSIFT_VERDICT_NOT_PATCH,
	CCSIFT_VERDICT_RELEVANT,
	CCSIFT_VERDICT_LOW,
} ccsift_verdict;

const char *ccsift_verdict_name(ccsift_verdict v);

typedef struct {
	double threshold;       /* a probability: low below it; < 0: the user's own (automatic) */
	double half_life_days;
	int64_t as_of;          /* ignore commits with committer time at or after; 0: now */
	const ccsift_model *model;  /* NULL: the index's fit for as_of, else the prior */
	gboolean count_lines;   /* count lines the index lacks from the repository (slow) */
	gboolean to_is_relevant;
	gboolean require_cc;    /* low only when an identity is in Cc (default TRUE) */
	char **always;          /* path globs: relevant */
	char **never;           /* path globs: history there does not count */
	gboolean verdict_only;  /* nothing shows the evidence: its oid and subject may be NULL */
} ccsift_score_options;

void ccsift_score_options_init(ccsift_score_options *opts);

/* One commit that counted, and how much; it and its strings are its
 * result's (ccsift_result.store). */
typedef struct {
	char *oid;
	char *subject;
	char *path;          /* the file as the patch names it */
	char *via;           /* the name the commit touched (a rename's old name, a sibling), or NULL */
	ccsift_role role;
	int64_t time;        /* committer time */
	int nfiles;
	int lines;           /* -1 unknown (blob missing, or past the per-message budget) */
	int64_t cid;
	char status;         /* how the commit touched the file */
	char *touched_old;   /* a rename's source, for line counts */
	unsigned file;       /* index into ccsift_result.files */
	unsigned roles;      /* every role of the user's on the commit (bit set) */
	double role_weight, substance, breadth, decay, weight;
	unsigned sibling : 1;
	unsigned treewide : 1;
} ccsift_evidence;

typedef struct {
	char *path;
	double user;         /* the user's evidence */
	double total;        /* all activity (breadth x decay of every commit) */
	double share;
	double user_raw;     /* the user's commits, breadth x decay only (for share) */
	double score;        /* user evidence after the hotness factor */
	int commits;         /* commits on the file (all authors) */
} ccsift_file_score;

typedef struct ccsift_evidence_store ccsift_evidence_store;

typedef struct {
	ccsift_verdict verdict;
	double score;         /* the probability of engagement */
	double threshold;     /* the probability under which the patch is low */
	const char *threshold_source;  /* "configured", "yours", "the repository's", "the prior's" */
	unsigned threshold_replied;    /* "yours": patches you replied to, counted in it */
	double evidence_score;/* version 1's sum of weighted evidence (ccsift who) */
	ccsift_features features;
	unsigned bounded;     /* 1 << feature: its count stopped at a bound, the count is n or more */
	ccsift_model model;   /* the model that decided */
	int64_t as_of;
	char *override;       /* why the patch is relevant whatever the score, or NULL */
	char *summary;        /* one line for the X-Ccsift-Reason header */
	char *author;         /* the patch's author, as words name them, or NULL */
	char *area;           /* its subject's subsystem's first word ("net"), or NULL */
	GPtrArray *evidence;  /* ccsift_evidence *, heaviest first */
	ccsift_evidence_store *store;  /* what the evidence is in, or NULL */
	GPtrArray *files;     /* ccsift_file_score * */
	int history;          /* commits crediting the user on these files (any weight) */
	gboolean cc, to;      /* how the user was addressed */
} ccsift_result;

void ccsift_result_free(ccsift_result *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ccsift_result, ccsift_result_free)

typedef struct ccsift_scorer ccsift_scorer;

/* repo may be NULL (no line counts, no MAINTAINERS); identities are emails. */
int ccsift_scorer_new(ccsift_scorer **out, ccsift_repo *repo, ccsift_index *idx,
		      const char *const *identities);
void ccsift_scorer_free(ccsift_scorer *s);

/* Use m (borrowed) as the MAINTAINERS file instead of the ref's: the
 * replay benchmark needs the file as it was at each patch's parent. */
struct ccsift_maintainers;
void ccsift_scorer_set_maintainers(ccsift_scorer *s, struct ccsift_maintainers *m);

/* Serve this scorer's walks of the index from w (borrowed), which other
 * scorers share: the replay's addressees of one commit walk the same files. */
struct ccsift_walks;
void ccsift_scorer_share_walks(ccsift_scorer *s, struct ccsift_walks *w);

/* Resolve ".../tail" paths of a diffstat against the index, in place. */
void ccsift_scorer_resolve_paths(ccsift_scorer *s, ccsift_patch *patch);

int ccsift_score_patch(ccsift_scorer *s, ccsift_patch *patch, const ccsift_score_options *opts,
		       ccsift_result **out);

/* The user's operating point as of a time: the threshold the verdict uses
 * when none is configured, and what it came from. */
typedef struct {
	double threshold;        /* a probability */
	const char *source;      /* "yours", "the repository's", "the prior's" */
	int64_t model_until;     /* the fit's until, 0 for the prior */
	unsigned pairs, engaged; /* the user's replayed addressings in the fit */
	unsigned replied;        /* patches they replied to, from ccsift tag's store */
	ccsift_model model;
} ccsift_operating_point;

/* <0 when the stored fit is damaged (CCSIFT_ECORRUPT). */
int ccsift_scorer_operating_point(ccsift_scorer *s, int64_t as_of, ccsift_operating_point *out);

/* The user's engagement that git does not record: for each patch thread
 * they wrote in, its best patch's logit less the repository's point that
 * decided it (core/decisions.h). They count with the user's replayed
 * engaged pairs in their operating point. Copied. */
void ccsift_scorer_set_replied(ccsift_scorer *s, const double *margins, unsigned n);

/* A feature of r in words. New string. */
char *ccsift_result_feature_words(const ccsift_result *r, int feature);
/* The same, and whether r is above or below most people where that is
 * what counted. New string. */
char *ccsift_result_reason_words(const ccsift_result *r, int feature);

/* The time a decision is made as of: opts->as_of, else the index's tip. */
int64_t ccsift_scorer_as_of(ccsift_scorer *s, const ccsift_score_options *opts);

/* The model's features in the order they pushed towards r's verdict, and
 * each one's contribution to the logit (against the training mean). */
void ccsift_result_reasons(const ccsift_result *r, int order[CCSIFT_FEATURE_COUNT],
			   double contribution[CCSIFT_FEATURE_COUNT]);

#endif
