/* model.h: relevance model version 3, a fitted logistic model.
 *
 * The scorer (score.h) gathers evidence about one person and one patch
 * as of a time D: their history on the touched files per role, their own
 * recent engagement anywhere in the project, their engagement with the
 * author, and the patch's shape. The model turns that evidence into the
 * probability that the person will review, ack, test or apply the patch:
 *
 *   p = 1 / (1 + exp(-(w0 + sum_i w_i x_i)))
 *
 * The weights are data. They are fitted by replaying the repository's own
 * history (training.h), with a ridge pulling them towards a prior fitted on
 * several public repositories, so that a short history gives the prior and
 * a long one its own culture. Each term w_i (x_i - mean_i) is a sentence
 * in an explanation.
 */
#ifndef CCSIFT_MODEL_H
#define CCSIFT_MODEL_H

#include <glib.h>
#include <stdint.h>

#define CCSIFT_MODEL_VERSION 3

typedef enum {
	/* the person's history on the touched files (as git log --follow finds it) */
	CCSIFT_FEATURE_APPLIED,       /* committed others' patches there */
	CCSIFT_FEATURE_REVIEWED,      /* Reviewed-by, Acked-by there */
	CCSIFT_FEATURE_TESTED,        /* Tested-by there */
	CCSIFT_FEATURE_AUTHORED,      /* authored, co-developed there */
	CCSIFT_FEATURE_SIGNED,        /* Signed-off-by, Reported-by, Suggested-by there */
	CCSIFT_FEATURE_SIBLING,       /* any role, on files beside new ones */
	CCSIFT_FEATURE_SHARE,         /* their share of the files' activity */
	/* the person, anywhere in the project */
	CCSIFT_FEATURE_ENGAGED_90,    /* engagements in the last 90 days */
	CCSIFT_FEATURE_ENGAGED_365,   /* ... in the last year */
	CCSIFT_FEATURE_AUTHORED_365,  /* commits authored in the last year */
	CCSIFT_FEATURE_WITH_AUTHOR,   /* engagements with this author's patches, last year */
	CCSIFT_FEATURE_AUTHOR_WITH,   /* the author's with theirs, last year */
	CCSIFT_FEATURE_DIRECTORY,     /* engagements on the patch's directories, last year */
	CCSIFT_FEATURE_AREA,          /* engagements on patches of its subject's area ("net:"), last year */
	CCSIFT_FEATURE_MAINTAINER,    /* listed as M: or R: anywhere in MAINTAINERS */
	/* the patch */
	CCSIFT_FEATURE_FILES,         /* files it touches */
	CCSIFT_FEATURE_CCS,           /* addressees in Cc */
	CCSIFT_FEATURE_COUNT
} ccsift_feature;

/* The model's inputs for one person and one patch. x is what the model
 * reads (mostly log(1 + count)); n is the count behind it, for words. */
typedef struct {
	double x[CCSIFT_FEATURE_COUNT];
	double n[CCSIFT_FEATURE_COUNT];
} ccsift_features;

/* Short stable name ("engaged_90"), for JSON and the stored model. */
const char *ccsift_feature_name(ccsift_feature f);
/* The feature in words for a count n, from the person's point of view:
 * "you reviewed, acked, tested or applied 3 of the author's patches in the
 * last year". New string. */
char *ccsift_feature_describe(ccsift_feature f, double n);
/* The same, naming the patch's author and its subject's area where the
 * words speak of them ("you reviewed, acked, tested or applied 3 of Jane
 * Doe's patches", "5 of your reviews, acks, tests and patches applied ...
 * were of net patches"); NULL: "the author", "this subsystem's". */
char *ccsift_feature_describe_by(ccsift_feature f, double n, const char *author, const char *area);

typedef struct {
	int version;
	char source[16];         /* "prior" or "fit" */
	int64_t since, until;    /* the window it was fitted on (0, 0 for the prior) */
	unsigned cases, pairs, engaged;
	double intercept;
	double w[CCSIFT_FEATURE_COUNT];
	double mean[CCSIFT_FEATURE_COUNT];   /* the training mean, the reference of an explanation */
	double threshold;        /* logit: the repository's default operating point */
} ccsift_model;

/* The prior, fitted on public repositories (contrib/eval/RESULTS.md). */
void ccsift_model_prior(ccsift_model *m);

double ccsift_model_logit(const ccsift_model *m, const ccsift_features *f);
double ccsift_logistic(double logit);
double ccsift_logit(double p);

/* Contribution of each feature to the logit against the training mean. */
void ccsift_model_contributions(const ccsift_model *m, const ccsift_features *f,
				double out[CCSIFT_FEATURE_COUNT]);

/* --- fitting --- */

/* One replayed addressee: what was known as of the case, and whether they
 * engaged. Only pairs the model decides (Cc'd, no override) are fitted;
 * the rest count in the engaged total of an operating point. */
typedef struct {
	ccsift_features f;
	int64_t person;
	int64_t time;            /* the case's as-of */
	double logit;            /* filled by ccsift_model_score_samples */
	unsigned engaged : 1;
	unsigned demotable : 1;
} ccsift_sample;

/* Maximum likelihood with a ridge of strength `ridge` (in samples) towards
 * prior's weights: Newton's method (IRLS). Sets w, intercept, mean, pairs,
 * engaged; the caller sets the window. Returns 0, or <0 if the samples
 * hold no engaged or no unengaged pair. */
int ccsift_model_fit(ccsift_model *m, const ccsift_model *prior, GArray *samples, double ridge);

void ccsift_model_score_samples(const ccsift_model *m, GArray *samples);

/* The logit under which at most `demote` of the engaged samples (of all
 * engaged, decided by the model or not) fall. Samples must be scored. */
double ccsift_model_operating_point(GArray *samples, double demote);

/* What the repository's engaged pairs look like to a fit: the engaged
 * pairs of the newer part of its window, scored by weights fitted on the
 * older part (training.h). */
typedef struct {
	const double *logits;    /* the ones the model decides, sorted */
	unsigned n;
	unsigned engaged;        /* all of them, decided by the model or not */
} ccsift_model_reference;

/* A person's own operating point: the logit under which at most
 * CCSIFT_MODEL_PERSON_DEMOTE of their engaged pairs fall, counting with
 * them 60 pairs drawn from the repository's engaged
 * (ref). A thin history gives about the repository's point; one engagement
 * that scored low does not decide all of a person's mail, several do.
 * engaged_logits are the person's engaged pairs the model decides,
 * engaged_total all their engaged pairs, pairs all their pairs. */
double ccsift_model_person_threshold(const ccsift_model *m, const ccsift_model_reference *ref,
				     const double *engaged_logits, unsigned n, unsigned engaged_total,
				     unsigned pairs);

/* The share of engaged pairs a threshold may demote: under the 5% the
 * project promises, with room for a later window to differ. */
#ifndef CCSIFT_MODEL_DEMOTE
#define CCSIFT_MODEL_DEMOTE 0.035
#endif

/* As text (one "key value" per line) for the index, and back. Back, a
 * model of another version is CCSIFT_EINVALID (a ccsift upgraded: the fit
 * is made again by the next ccsift index); a value that is not one, or
 * out of bounds, CCSIFT_ECORRUPT (the file was damaged). */
char *ccsift_model_to_string(const ccsift_model *m);
int ccsift_model_from_string(ccsift_model *m, const char *text);

/* Bounds of what a fit can hold: weights, intercept and threshold (logits;
 * fits with their ridge stay under 10), and features and their means. */
#define CCSIFT_MODEL_BOUND 1000.0
#define CCSIFT_FEATURE_BOUND 1e6

/* text, all of it, as a finite number of at most bound in magnitude. */
gboolean ccsift_model_parse_number(const char *text, double bound, double *out);

#endif
