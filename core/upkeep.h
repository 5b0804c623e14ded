/* upkeep.h: an index that follows its ref without the user thinking of it.
 *
 * After `git fetch` the ref moves and the index lags behind. ccsift catches
 * up on its own: at most once per interval (the time of the last check is
 * kept in the index, so one of many concurrent deliveries claims it), for a
 * bounded time (what is written is kept; the next catch-up goes on from
 * there; a rewritten history is followed to the end), at low priority, and never while a message waits: ccsift filter
 * starts it detached after the message is written.
 */
#ifndef CCSIFT_UPKEEP_H
#define CCSIFT_UPKEEP_H

#include <glib.h>
#include "history.h"
#include "index.h"
#include "repo.h"

/* Seconds a catch-up may run before it stops, keeping its work. */
#define CCSIFT_UPKEEP_BUDGET 120

typedef struct {
	char *repo;     /* the clone */
	char *ref;      /* NULL: HEAD */
	char *index;    /* the index file */
	int interval;   /* seconds between checks */
} ccsift_upkeep_target;

/* Is a check of idx due at now (unix seconds)? Reads the index only. */
gboolean ccsift_upkeep_due(ccsift_index *idx, int interval, gint64 now);

/* Claim the check (FALSE when another process did, or it is not due) and
 * bring the index up to its ref for at most CCSIFT_UPKEEP_BUDGET seconds.
 * 1 when commits were added, 0 when there was nothing to do, <0 on error. */
int ccsift_upkeep_run(const ccsift_upkeep_target *t);

/* Run it in a detached process (its own session, no inherited stdio, niced)
 * and return at once. Only for an index that exists: building one is the
 * user's `ccsift index`. The caller must have no connection to the index
 * open: the process is a fork, and SQLite's knowledge of open files and
 * their locks is per process (the catch-up would wait on them forever). */
void ccsift_upkeep_spawn(const ccsift_upkeep_target *t);

/* Bring idx up to repo's ref (ccsift_history_update) and make the fit of
 * its newest period (ccsift_training_upkeep), as one change when the index
 * has commits already. 1 when a fit was made, 0 when none was needed, <0 on
 * error (a fit that failed leaves the history updated). */
int ccsift_upkeep_update(ccsift_repo *repo, ccsift_index *idx, const ccsift_history_options *ho,
			 ccsift_history_stats *st);

void ccsift_upkeep_target_clear(ccsift_upkeep_target *t);

/* How stale an index is. */
typedef struct {
	char indexed[41];  /* the tip indexed up to ("" if none) */
	char tip[41];      /* the commit the ref names now ("" if unknown) */
	size_t behind;     /* commits on the ref that are not indexed */
	char uncounted[160];/* why behind could not be counted ("" if it was) */
	gboolean rewritten;/* the indexed tip is no longer on the ref */
	gint64 updated;    /* unix time last updated or found current; 0: never */
} ccsift_upkeep_staleness;

/* Fill st for idx against repo's ref. 0, or <0 when the ref cannot be read. */
int ccsift_upkeep_staleness_get(ccsift_repo *repo, ccsift_index *idx, ccsift_upkeep_staleness *st);

#endif
