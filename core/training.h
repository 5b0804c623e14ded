/* training.h: fitting the model on the repository's own history.
 *
 * A fit for a time `until` replays a sample of the commits of the two years
 * before it (committed before it too: their trailers must have been
 * visible), each as of its own date, and fits the model (model.h) on who
 * engaged, pulled towards the prior. It is stored in the index with its
 * window and its replayed pairs, from which each person's own operating
 * point comes. Fits are made per period (91 days): a decision as of D uses
 * the newest fit whose until is not after D, so nothing decided as of D
 * ever saw a commit at or after D.
 */
#ifndef CCSIFT_TRAINING_H
#define CCSIFT_TRAINING_H

#include <glib.h>
#include <stdint.h>
#include "eval.h"
#include "index.h"
#include "model.h"
#include "repo.h"

#define CCSIFT_TRAINING_PERIOD (91 * (int64_t)86400)
/* The share of a window's cases (oldest first) the weights are fitted on;
 * the operating point is set on the rest. */
#ifndef CCSIFT_TRAINING_SPLIT
#define CCSIFT_TRAINING_SPLIT 0.7
#endif

typedef struct {
	int64_t window;          /* history fitted on, seconds (two years) */
	unsigned cases;          /* commits replayed (800) */
	double ridge;            /* pull towards the prior, in pairs (25) */
	unsigned min_engaged;    /* engaged pairs needed to fit at all (20) */
	gboolean progress;
	ccsift_eval_options replay;
} ccsift_training_options;

void ccsift_training_options_init(ccsift_training_options *o);

/* The until of the fit that decides as of t: the start of t's period. */
int64_t ccsift_training_until(int64_t t);

/* Replay the window before until: append ccsift_sample to samples and the
 * pairs' persons to persons (may be NULL). */
int ccsift_training_collect(ccsift_repo *repo, ccsift_index *idx, int64_t until,
			    const ccsift_training_options *o, GArray *samples);

/* Fit on samples (towards the prior); with too little history the prior
 * itself, scored. Sets the window and operating point. */
void ccsift_training_fit(ccsift_model *m, GArray *samples, int64_t until, const ccsift_training_options *o);

/* Collect, fit and store the fit for until in writer (READ_WRITE), unless
 * one is stored already. Returns 1 if it made one, 0 if stored, <0. */
int ccsift_training_ensure(ccsift_repo *repo, ccsift_index *writer, int64_t until,
			   const ccsift_training_options *o);

/* Store m (its until) and the scored samples' pairs in writer (READ_WRITE). */
int ccsift_training_store(ccsift_index *writer, const ccsift_model *m, GArray *samples);

/* The repository's reference for a person's point in the fit for until
 * (model.h): the engaged logits of the newer part of its window, sorted,
 * into logits (double); their total, decided by the model or not, in
 * *engaged. From the fit's stored text (text, as ccsift_index_fit_get
 * returned it), which keeps them since they were first computed. */
int ccsift_training_reference(ccsift_index *idx, int64_t until, const char *text, GArray *logits,
			      unsigned *engaged);

/* After an update: the fit that decides as of the index's tip, if missing. */
int ccsift_training_upkeep(ccsift_repo *repo, ccsift_index *writer, gboolean progress);

#endif
