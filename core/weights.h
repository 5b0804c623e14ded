/* weights.h: the weight of one touch of a file, as evidence sees it.
 *
 * score.c weighs every touch it walks with these; the index (index.c)
 * precomputes the same sums over the touches of hot files at index time.
 * Both must use these very expressions, in the same order, so that a sum
 * read from the index is the sum a walk would make, to the last bit.
 */
#ifndef CCSIFT_WEIGHTS_H
#define CCSIFT_WEIGHTS_H

#include <math.h>
#include <stdint.h>
#include "index.h"

/* The decay of old history (days to half) the model's features are
 * computed with, which the index precomputes for: a fit learns its
 * weights for it, so deliveries, replays and fits all use it (a user's
 * own would move every score off the fit and its points). */
#define CCSIFT_HALF_LIFE_DAYS 730.0

/* Near 0 for tree-wide and bot commits, 1 for focused ones. */
static inline double ccsift_breadth(unsigned flags, int nfiles, int ntop)
{
	double b = 1.0;

	if (flags & (CCSIFT_COMMIT_TREEWIDE | CCSIFT_COMMIT_BOT | CCSIFT_COMMIT_IGNORED))
		return 0.05;
	if (nfiles > 10)
		b = 10.0 / nfiles;
	if (ntop >= 4)
		b *= 0.5;
	return b;
}

/* Halved every half_life_days before now. */
static inline double ccsift_decay(int64_t now, int64_t time, double half_life_days)
{
	double days = ((double)now - (double)time) / 86400.0;   /* a commit of any date: no overflow */

	return days <= 0 ? 1.0 : pow(0.5, days / half_life_days);
}

#endif
