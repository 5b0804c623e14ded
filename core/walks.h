/* walks.h: the index's touch walks, read once and served from memory.
 *
 * A scorer walks each touched file's history, and the files around it,
 * once per person and decision: the replay of a commit asks it for each
 * of its addressees, and ccsift tag for each message naming the file.
 * What a walk returns does not depend on the person or the time asked
 * about, apart from the role bits and the rows at or after the time: this
 * keeps every touch of a path (or of a directory's files) once, in the
 * index's order, with each commit's credits, and gives any person's walk as
 * of any time from it, row for row what the index would have given.
 *
 * Memory is bounded: past a cap everything is dropped and read again; a
 * path with more touches than a list holds is walked in the index, and a
 * directory's list keeps a prefix, which serves a walk only when the
 * caller stops within it.
 */
#ifndef CCSIFT_WALKS_H
#define CCSIFT_WALKS_H

#include <glib.h>
#include <stdint.h>
#include "index.h"

typedef struct ccsift_walks ccsift_walks;

/* Past max_units rows, commits and credits held (about 40 bytes each),
 * everything is dropped and read again as asked for. */
ccsift_walks *ccsift_walks_new(ccsift_index *idx, unsigned max_units);
void ccsift_walks_free(ccsift_walks *w);

/* Drop everything if the index changed under it (another process wrote
 * it) since the last call: a walk never serves rows of an older snapshot.
 * Returns how many times that happened: when it changes, what a caller
 * made from earlier walks is stale too. */
unsigned ccsift_walks_check(ccsift_walks *w);

/* ccsift_index_foreach_touch_for, the same rows in the same order. */
int ccsift_walks_foreach_touch_for(ccsift_walks *w, const char *path, int64_t before, GArray *people,
				   ccsift_touch_fn fn, void *payload);

/* ccsift_index_foreach_touch and ccsift_index_commit_credits. */
int ccsift_walks_foreach_touch(ccsift_walks *w, const char *path, int64_t before, ccsift_touch_fn fn,
			       void *payload);
int ccsift_walks_commit_credits(ccsift_walks *w, int64_t cid, GArray *out);

/* ccsift_index_resolve_tail: a series' cover letters and replies repeat
 * the diffstat's shortened paths, and each is a scan of every path. */
char *ccsift_walks_resolve_tail(ccsift_walks *w, const char *tail, gboolean partial);

/* ccsift_index_foreach_sibling_touch_for; fn takes at most `enough` rows
 * (it returns non-zero on the next one), which is what lets a directory's
 * prefix serve the walk. */
int ccsift_walks_foreach_sibling_touch_for(ccsift_walks *w, const char *dir, const char *except, int64_t before,
					   GArray *people, unsigned enough, ccsift_touch_fn fn, void *payload);
/* The walk of ccsift_index_foreach_sibling_evidence_for, at any time, but
 * of its first `enough` rows only those one of the people has a role in
 * (or may have: roles -1), each with its commit; the walk ends there. What
 * fn makes of it is the same when it counts the rows the index gives and
 * stops after `enough`, as the scorer does. */
int ccsift_walks_foreach_sibling_evidence_for(ccsift_walks *w, const char *dir, const char *except,
					      int64_t before, GArray *people, unsigned enough, ccsift_touch_fn fn,
					      void *payload);

/* A replay asks about each addressee in turn, as of many times: hold,
 * for each set of people asked about, the commits crediting them and
 * their roles, and each person's engagements committed at or after since
 * (the earliest time the replay asks about; the index answers for an
 * earlier one), each read once. Not for a delivery, which asks about one
 * user as of the tip, where the index's derived tables answer, and would
 * read the user's history again after every write to the index. */
void ccsift_walks_hold_people(ccsift_walks *w, int64_t since);

/* ccsift_index_count_engaged_in_area: a replay asks it of each addressee
 * as of each case, and each asking scanned the person's year. */
unsigned ccsift_walks_count_engaged_in_area(ccsift_walks *w, int64_t person, const char *area, int64_t after,
					    int64_t before, unsigned limit);

#endif
