/* score.h: is this patch worth the recipient's attention?
 *
 * Model version 1 (DESIGN.md): for the recipient's identities and each
 * touched file (following renames, as git log --follow does),
 *
 *   evidence(c, f) = role x substance x breadth x decay
 *
 * summed per file, weighed down on hot files (the user's share of all
 * activity there), with history on sibling files at a discount. Overrides
 * (MAINTAINERS M:/R:, To:, Fixes: naming the user's commit, per-path
 * rules) make a patch relevant whatever the score. Nothing is demoted for
 * lack of history: someone put the user on Cc for a reason.
 *
 * The user's own recent engagement anywhere in the project, the strongest
 * single predictor, is not in the score: it sets the user's threshold
 * (ccsift calibrate, eval.h).
 */
#ifndef CCSIFT_SCORE_H
#define CCSIFT_SCORE_H

#include <glib.h>
#include <stdint.h>
#include "index.h"
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
	double threshold;       /* low below this */
	double half_life_days;
	int64_t as_of;          /* ignore commits with committer time at or after; 0: now */
	gboolean to_is_relevant;
	gboolean require_cc;    /* low only when an identity is in Cc (default TRUE) */
	char **always;          /* path globs: relevant */
	char **never;           /* path globs: history there does not count */
} ccsift_score_options;

void ccsift_score_options_init(ccsift_score_options *opts);

/* One commit that counted, and how much. */
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

typedef struct {
	ccsift_verdict verdict;
	double score;
	double threshold;
	char *override;       /* why the patch is relevant whatever the score, or NULL */
	char *summary;        /* one line for the X-Ccsift-Reason header */
	GPtrArray *evidence;  /* ccsift_evidence *, heaviest first */
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

/* Resolve ".../tail" paths of a diffstat against the index, in place. */
void ccsift_scorer_resolve_paths(ccsift_scorer *s, ccsift_patch *patch);

int ccsift_score_patch(ccsift_scorer *s, ccsift_patch *patch, const ccsift_score_options *opts,
		       ccsift_result **out);

#endif
