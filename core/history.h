/* history.h: walk a repository's commits into the index. */
#ifndef CCSIFT_HISTORY_H
#define CCSIFT_HISTORY_H

#include "index.h"
#include "repo.h"

typedef struct {
	gboolean progress;   /* draw a progress line on stderr (callers check isatty) */
	int threads;         /* tree-diff workers; 0 picks one per core */
	gboolean line_counts;/* count lines of every touch now (as git log --numstat),
				instead of lazily when scoring */
	gint64 deadline;     /* g_get_monotonic_time() past which to stop, keeping
				what is written; the next update goes on (0: none) */
} ccsift_history_options;

typedef struct {
	unsigned walked;     /* commits reachable from the ref */
	unsigned added;      /* non-merge commits newly indexed */
	unsigned pruned;     /* commits dropped because history was rewritten */
	gboolean rewritten;
	gboolean partial;    /* stopped at the deadline: the tip is not stored */
	char tip[41];
} ccsift_history_stats;

/*
 * Bring the index up to date with the repository's ref: every non-merge
 * commit reachable from it, incrementally from the stored tip. Rewritten
 * history (the stored tip is no longer an ancestor) is handled by indexing
 * what is missing and pruning what is no longer reachable.
 */
int ccsift_history_update(ccsift_repo *repo, ccsift_index *idx,
			  const ccsift_history_options *opts, ccsift_history_stats *stats);

#endif
