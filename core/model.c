/* model.c: the logistic relevance model, its fit and its operating points. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "error.h"
#include "model.h"

static const struct {
	const char *name;
	const char *some;   /* printf format for a count n > 1 */
	const char *none;   /* n == 0 */
	const char *one;    /* n == 1, when it reads differently */
} features[CCSIFT_FEATURE_COUNT] = {
	[CCSIFT_FEATURE_APPLIED] = { "applied", "you applied %s of the patches to these files",
				     "you never applied patches to these files" },
	[CCSIFT_FEATURE_REVIEWED] = { "reviewed", "you reviewed or acked %s of the patches to these files",
				      "you never reviewed patches to these files" },
	[CCSIFT_FEATURE_TESTED] = { "tested", "you tested %s of the patches to these files",
				    "you never tested patches to these files" },
	[CCSIFT_FEATURE_AUTHORED] = { "authored", "you wrote %s of the commits to these files",
				      "you wrote none of the commits to these files" },
	[CCSIFT_FEATURE_SIGNED] = { "signed", "you signed off, reported or suggested %s of the commits to these files",
				    "no sign-off of yours on these files" },
	/* Siblings are walked for each file you have no history on, new or
	 * not: the words must not say the files are new. */
	[CCSIFT_FEATURE_SIBLING] = { "sibling", "%s of your commits are beside the files you have no history on",
				     "none of your commits are beside the files you have no history on",
				     "1 of your commits is beside the files you have no history on" },
	[CCSIFT_FEATURE_SHARE] = { "share", "your share of these files' recent activity is %s%%",
				   "you have no share of these files' recent activity" },
	[CCSIFT_FEATURE_ENGAGED_90] = { "engaged_90", "you reviewed, acked, tested or applied %s patches in the project in the last 90 days",
					"no review from you in the project in the last 90 days",
					"you reviewed, acked, tested or applied 1 patch in the project in the last 90 days" },
	[CCSIFT_FEATURE_ENGAGED_365] = { "engaged_365", "you reviewed, acked, tested or applied %s patches in the project in the last year",
					 "no review from you in the project in the last year",
					 "you reviewed, acked, tested or applied 1 patch in the project in the last year" },
	[CCSIFT_FEATURE_AUTHORED_365] = { "authored_365", "you authored %s commits in the last year",
					  "you authored no commit in the last year",
					  "you authored 1 commit in the last year" },
	/* Engagement, in these four as in engaged_90, is a review, ack or
	 * test, or applying another's patch: a maintainer who applies and
	 * never reviews has not "reviewed" the author's patches. */
	[CCSIFT_FEATURE_WITH_AUTHOR] = { "with_author",
					 "you reviewed, acked, tested or applied %s of the author's patches in the last year",
					 "you reviewed, acked, tested or applied none of the author's patches in the last year" },
	[CCSIFT_FEATURE_AUTHOR_WITH] = { "author_with",
					 "the author reviewed, acked, tested or applied %s of your patches in the last year",
					 "the author reviewed, acked, tested or applied none of your patches in the last year" },
	[CCSIFT_FEATURE_DIRECTORY] = { "directory",
				       "%s of your reviews, acks, tests and patches applied in the last year were in these directories",
				       "none of your reviews, acks, tests and patches applied in the last year were in these directories",
				       "1 of your reviews, acks, tests and patches applied in the last year was in these directories" },
	[CCSIFT_FEATURE_AREA] = { "area",
				  "%s of your reviews, acks, tests and patches applied in the last year were of this subsystem's patches",
				  "none of your reviews, acks, tests and patches applied in the last year were of this subsystem's patches",
				  "1 of your reviews, acks, tests and patches applied in the last year was of this subsystem's patches" },
	[CCSIFT_FEATURE_MAINTAINER] = { "maintainer", "you are listed in MAINTAINERS",
					"you are not listed in MAINTAINERS" },
	[CCSIFT_FEATURE_FILES] = { "files", "the patch touches %s files", "the patch touches no file",
				   "the patch touches 1 file" },
	[CCSIFT_FEATURE_CCS] = { "ccs", "%s others are in Cc", "nobody else is in Cc", "1 other is in Cc" },
};

const char *ccsift_feature_name(ccsift_feature f)
{
	return f < CCSIFT_FEATURE_COUNT ? features[f].name : "?";
}

/* words with every `what` in them said as `as` */
static char *replace_words(char *words, const char *what, const char *as)
{
	g_auto(GStrv) parts = NULL;

	if (!as || !*as || !strstr(words, what))
		return words;
	parts = g_strsplit(words, what, -1);
	g_free(words);
	return g_strjoinv(as, parts);
}

char *ccsift_feature_describe_by(ccsift_feature f, double n, const char *author, const char *area)
{
	char *words = ccsift_feature_describe(f, n);

	if (f == CCSIFT_FEATURE_WITH_AUTHOR || f == CCSIFT_FEATURE_AUTHOR_WITH)
		return replace_words(words, "the author", author);
	if (f == CCSIFT_FEATURE_AREA)
		return replace_words(words, "this subsystem's", area);
	return words;
}

char *ccsift_feature_describe(ccsift_feature f, double n)
{
	char count[32];

	if (f >= CCSIFT_FEATURE_COUNT)
		return g_strdup("?");
	if (n <= 0)
		return g_strdup(features[f].none);
	if (n == 1 && features[f].one)
		return g_strdup(features[f].one);
	if (f == CCSIFT_FEATURE_SHARE)
		snprintf(count, sizeof(count), "%.0f", 100 * n);
	else if (n == floor(n))
		snprintf(count, sizeof(count), "%.0f", n);
	else
		snprintf(count, sizeof(count), "%.1f", n);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	return g_strdup_printf(features[f].some, count);
#pragma GCC diagnostic pop
}

/* Fitted by contrib/eval/fit-prior.sh: the pooled replay of git.git, xen,
 * LTP and EDK II, 800 commits of the two years before 2023-07-01 of each
 * (9,698 Cc'd addressees, 1,897 engaged; fitted again when the replay
 * began to Cc a person once, at one of their addresses). Never U-Boot or
 * DPDK: they are the outside checks. */
static const ccsift_model prior = {
	.version = CCSIFT_MODEL_VERSION,
	.source = "prior",
	.pairs = 9698,
	.engaged = 1897,
	.intercept = -3.7207,
	.w = {
		[CCSIFT_FEATURE_APPLIED] = 0.2023,
		[CCSIFT_FEATURE_REVIEWED] = 0.0000,
		[CCSIFT_FEATURE_TESTED] = 0.0000,
		[CCSIFT_FEATURE_AUTHORED] = 0.1228,
		[CCSIFT_FEATURE_SIGNED] = 0.0000,
		[CCSIFT_FEATURE_SIBLING] = 0.0000,
		[CCSIFT_FEATURE_SHARE] = 2.3538,
		[CCSIFT_FEATURE_ENGAGED_90] = 0.4106,
		[CCSIFT_FEATURE_ENGAGED_365] = 0.0722,
		[CCSIFT_FEATURE_AUTHORED_365] = -0.1279,
		[CCSIFT_FEATURE_WITH_AUTHOR] = 0.1908,
		[CCSIFT_FEATURE_AUTHOR_WITH] = -0.0107,
		[CCSIFT_FEATURE_DIRECTORY] = 0.0168,
		[CCSIFT_FEATURE_AREA] = 0.1896,
		[CCSIFT_FEATURE_MAINTAINER] = 0.0000,
		[CCSIFT_FEATURE_FILES] = -0.4596,
		[CCSIFT_FEATURE_CCS] = -0.0426,
	},
	.mean = {
		[CCSIFT_FEATURE_APPLIED] = 0.3393,
		[CCSIFT_FEATURE_REVIEWED] = 0.5993,
		[CCSIFT_FEATURE_TESTED] = 0.0251,
		[CCSIFT_FEATURE_AUTHORED] = 0.7403,
		[CCSIFT_FEATURE_SIGNED] = 0.1357,
		[CCSIFT_FEATURE_SIBLING] = 0.4951,
		[CCSIFT_FEATURE_SHARE] = 0.3776,
		[CCSIFT_FEATURE_ENGAGED_90] = 2.1576,
		[CCSIFT_FEATURE_ENGAGED_365] = 3.3499,
		[CCSIFT_FEATURE_AUTHORED_365] = 3.3748,
		[CCSIFT_FEATURE_WITH_AUTHOR] = 1.0844,
		[CCSIFT_FEATURE_AUTHOR_WITH] = 0.6283,
		[CCSIFT_FEATURE_DIRECTORY] = 1.5629,
		[CCSIFT_FEATURE_AREA] = 0.9691,
		[CCSIFT_FEATURE_MAINTAINER] = 0.0886,
		[CCSIFT_FEATURE_FILES] = 1.4121,
		[CCSIFT_FEATURE_CCS] = 1.5632,
	},
	.threshold = -3.014,
};

void ccsift_model_prior(ccsift_model *m)
{
	*m = prior;
}

double ccsift_logistic(double logit)
{
	return 1.0 / (1.0 + exp(-logit));
}

double ccsift_logit(double p)
{
	p = CLAMP(p, 1e-9, 1 - 1e-9);
	return log(p / (1 - p));
}

double ccsift_model_logit(const ccsift_model *m, const ccsift_features *f)
{
	double z = m->intercept;

	for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
		z += m->w[i] * f->x[i];
	return z;
}

void ccsift_model_contributions(const ccsift_model *m, const ccsift_features *f, double out[CCSIFT_FEATURE_COUNT])
{
	for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
		out[i] = m->w[i] * (f->x[i] - m->mean[i]);
}

/* --- fitting --- */

#define K (CCSIFT_FEATURE_COUNT + 1)   /* the intercept is parameter 0 */

/* Solve A x = b for a symmetric positive definite A (Cholesky), in place. */
static int solve_spd(double a[K][K], double b[K])
{
	for (int j = 0; j < K; j++) {
		double d = a[j][j];

		for (int k = 0; k < j; k++)
			d -= a[j][k] * a[j][k];
		if (d <= 1e-12)
			return -1;
		a[j][j] = sqrt(d);
		for (int i = j + 1; i < K; i++) {
			double s = a[i][j];

			for (int k = 0; k < j; k++)
				s -= a[i][k] * a[j][k];
			a[i][j] = s / a[j][j];
		}
	}
	for (int i = 0; i < K; i++) {
		for (int k = 0; k < i; k++)
			b[i] -= a[i][k] * b[k];
		b[i] /= a[i][i];
	}
	for (int i = K; i-- > 0;) {
		for (int k = i + 1; k < K; k++)
			b[i] -= a[k][i] * b[k];
		b[i] /= a[i][i];
	}
	return 0;
}

/* History on the files may raise the probability, never lower it: "you
 * wrote this driver" is never a reason to file a patch to it away, and a
 * user reading why would rightly not trust a model that said so. */
static gboolean never_negative(int feature)
{
	return feature <= CCSIFT_FEATURE_SHARE || feature == CCSIFT_FEATURE_AREA ||
	       feature == CCSIFT_FEATURE_MAINTAINER;
}

static void row_of(const ccsift_sample *s, double row[K])
{
	row[0] = 1.0;
	for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
		row[i + 1] = s->f.x[i];
}

static double ridge_of(int i, double ridge)
{
	/* The intercept only lightly: a project's base rate is its own. */
	return i ? ridge : ridge * 0.01;
}

/* log(1 + e^z) without overflow */
static double softplus(double z)
{
	return z > 0 ? z + log1p(exp(-z)) : log1p(exp(z));
}

/* The penalised log-likelihood Newton's method climbs. */
static double objective(GArray *samples, const double beta[K], const double target[K], double ridge)
{
	double ll = 0, row[K];

	for (guint s = 0; s < samples->len; s++) {
		const ccsift_sample *x = &g_array_index(samples, ccsift_sample, s);
		double z = 0;

		if (!x->demotable)
			continue;
		row_of(x, row);
		for (int i = 0; i < K; i++)
			z += beta[i] * row[i];
		/* log p or log (1 - p), computed without overflow */
		ll -= x->engaged ? softplus(-z) : softplus(z);
	}
	for (int i = 0; i < K; i++)
		ll -= 0.5 * ridge_of(i, ridge) * (beta[i] - target[i]) * (beta[i] - target[i]);
	return ll;
}

/* Fit with the parameters not in `free` held at zero. */
static int fit_masked(ccsift_model *m, const ccsift_model *pm, GArray *samples, double ridge, const gboolean free_[K])
{
	double beta[K], target[K];
	unsigned n = 0, engaged = 0;

	beta[0] = target[0] = pm->intercept;
	for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
		beta[i + 1] = target[i + 1] = free_[i + 1] ? pm->w[i] : 0;
	memset(m->mean, 0, sizeof(m->mean));
	for (guint s = 0; s < samples->len; s++) {
		const ccsift_sample *x = &g_array_index(samples, ccsift_sample, s);

		if (!x->demotable)
			continue;
		n++;
		engaged += x->engaged;
		for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
			m->mean[i] += x->f.x[i];
	}
	if (!engaged || engaged == n)
		return ccsift_error_set(CCSIFT_EINVALID, "%u pairs, %u engaged: nothing to fit", n, engaged);
	for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
		m->mean[i] /= n;
	for (int iter = 0; iter < 50; iter++) {
		double h[K][K] = { { 0 } }, g[K] = { 0 }, row[K], step = 0;

		for (guint s = 0; s < samples->len; s++) {
			const ccsift_sample *x = &g_array_index(samples, ccsift_sample, s);
			double z = 0, p, wgt;

			if (!x->demotable)
				continue;
			row_of(x, row);
			for (int i = 0; i < K; i++)
				z += beta[i] * row[i];
			p = ccsift_logistic(z);
			wgt = MAX(p * (1 - p), 1e-10);
			for (int i = 0; i < K; i++) {
				g[i] += (x->engaged - p) * row[i];
				for (int j = 0; j <= i; j++)
					h[i][j] += wgt * row[i] * row[j];
			}
		}
		/* A parameter held at zero: a unit row, no step. */
		for (int i = 0; i < K; i++) {
			if (free_[i])
				continue;
			g[i] = 0;
			for (int j = 0; j < K; j++)
				h[i][j] = h[j][i] = 0;
			h[i][i] = 1;
		}
		/* The ridge pulls every weight towards the prior. */
		for (int i = 0; i < K; i++) {
			double r = ridge_of(i, ridge);

			if (!free_[i])
				continue;
			g[i] -= r * (beta[i] - target[i]);
			h[i][i] += r;
			for (int j = i + 1; j < K; j++)
				h[i][j] = h[j][i];
		}
		if (solve_spd(h, g) < 0)
			return ccsift_error_set(CCSIFT_ERROR, "the fit is singular");
		/* Newton's step, halved until the objective does not fall. */
		{
			double before = objective(samples, beta, target, ridge), t = 1.0, next[K];

			for (int half = 0; half < 30; half++, t /= 2) {
				for (int i = 0; i < K; i++)
					next[i] = beta[i] + t * g[i];
				if (objective(samples, next, target, ridge) >= before - 1e-12)
					break;
			}
			for (int i = 0; i < K; i++) {
				step = MAX(step, fabs(next[i] - beta[i]));
				beta[i] = next[i];
			}
		}
		if (step < 1e-7)
			break;
	}
	/* What the index could not read back is no fit (a feature that was
	 * not a number leaves NaN here, which no test above stops). */
	for (int i = 0; i < K; i++)
		if (!isfinite(beta[i]) || fabs(beta[i]) > CCSIFT_MODEL_BOUND ||
		    (i > 0 && !(fabs(m->mean[i - 1]) <= CCSIFT_FEATURE_BOUND)))
			return ccsift_error_set(CCSIFT_ERROR, "the fit has a weight or a mean out of bounds");
	m->version = CCSIFT_MODEL_VERSION;
	g_strlcpy(m->source, "fit", sizeof(m->source));
	m->intercept = beta[0];
	for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
		m->w[i] = beta[i + 1];
	m->pairs = n;
	m->engaged = engaged;
	return 0;
}

int ccsift_model_fit(ccsift_model *m, const ccsift_model *pm, GArray *samples, double ridge)
{
	gboolean free_[K];
	int rc = 0;

	for (int i = 0; i < K; i++)
		free_[i] = TRUE;
	/* An active set: hold at zero what would come out negative, refit. */
	for (int round = 0; round < K; round++) {
		gboolean again = FALSE;

		if ((rc = fit_masked(m, pm, samples, ridge, free_)) < 0)
			return rc;
		for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
			if (free_[i + 1] && never_negative(i) && m->w[i] < 0)
				free_[i + 1] = FALSE, again = TRUE;
		if (!again)
			break;
	}
	return rc;
}

void ccsift_model_score_samples(const ccsift_model *m, GArray *samples)
{
	for (guint s = 0; s < samples->len; s++) {
		ccsift_sample *x = &g_array_index(samples, ccsift_sample, s);

		x->logit = ccsift_model_logit(m, &x->f);
	}
}

static int cmp_double(gconstpointer a, gconstpointer b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The threshold demoting at most `allowed` of the sorted logits: the
 * (allowed + 1)-th smallest (everything strictly below it is demoted). */
static double keep_above(const double *sorted, unsigned n, unsigned allowed)
{
	if (allowed >= n)
		return sorted[n - 1] + 1.0;
	return sorted[allowed];
}

double ccsift_model_operating_point(GArray *samples, double demote)
{
	g_autoptr(GArray) logits = g_array_new(FALSE, FALSE, sizeof(double));
	unsigned total = 0;

	for (guint s = 0; s < samples->len; s++) {
		const ccsift_sample *x = &g_array_index(samples, ccsift_sample, s);

		if (!x->engaged)
			continue;
		total++;
		if (x->demotable)
			g_array_append_val(logits, x->logit);
	}
	if (!logits->len)
		return -INFINITY;
	g_array_sort(logits, cmp_double);
	return keep_above((double *)logits->data, logits->len, (unsigned)floor(demote * total + 1e-9));
}

/* The person's point is their CCSIFT_MODEL_PERSON_DEMOTE quantile among
 * their engaged pairs and PERSON_PRIOR pseudo-pairs spread like the
 * repository's engaged: the "at most 5% of what they engaged with",
 * shrunk towards the repository as their history thins. Tuned on
 * 2022-07..2023-07 of git.git, xen, LTP and EDK II (contrib/eval/RESULTS.md):
 * the largest share that kept the replays there at 5% at most, chosen again
 * (from 0.05) once the replay Cc'd a person once, not at every address. */
#ifndef CCSIFT_MODEL_PERSON_DEMOTE
#define CCSIFT_MODEL_PERSON_DEMOTE 0.045
#endif
#ifndef PERSON_PRIOR
#define PERSON_PRIOR 60.0
#endif
/* How far above the repository's point a person's may go, in logit units. */
#ifndef PERSON_MAX_RAISE
#define PERSON_MAX_RAISE 2.0
#endif
/* Someone who never engaged: their Cc's, ten to an engagement, against
 * this many towards the repository's point. */
#ifndef PERSON_PRIOR_PAIRS
#define PERSON_PRIOR_PAIRS 10.0
#endif

typedef struct {
	double logit, weight;
} weighted_logit;

static int cmp_weighted(const void *a, const void *b)
{
	const weighted_logit *x = a, *y = b;

	if (x->logit != y->logit)
		return x->logit < y->logit ? -1 : 1;
	return (x->weight > y->weight) - (x->weight < y->weight);
}

double ccsift_model_person_threshold(const ccsift_model *m, const ccsift_model_reference *ref,
				     const double *engaged_logits, unsigned n, unsigned engaged_total,
				     unsigned pairs)
{
	double repo = m->threshold, allowed, seen = 0, point;
	unsigned nref = ref && ref->n ? ref->n : 1, count = 0;
	g_autofree weighted_logit *all = NULL;

	if (!pairs)
		return repo;
	if (!engaged_total) {
		double weight = pairs / 10.0;

		return (weight * (repo + PERSON_MAX_RAISE) + PERSON_PRIOR_PAIRS * repo) / (weight + PERSON_PRIOR_PAIRS);
	}
	all = g_new(weighted_logit, n + nref);
	for (unsigned i = 0; i < n; i++)
		all[count++] = (weighted_logit){ engaged_logits[i], 1.0 };
	if (ref && ref->n)
		for (unsigned i = 0; i < ref->n; i++)
			all[count++] = (weighted_logit){ ref->logits[i], PERSON_PRIOR / MAX(ref->engaged, 1) };
	else
		all[count++] = (weighted_logit){ repo, PERSON_PRIOR };
	qsort(all, count, sizeof(*all), cmp_weighted);
	allowed = CCSIFT_MODEL_PERSON_DEMOTE * (engaged_total + PERSON_PRIOR);
	point = all[count - 1].logit + 1.0;
	for (unsigned i = 0; i < count; i++) {
		if (seen + all[i].weight > allowed + 1e-9) {
			point = all[i].logit;
			break;
		}
		seen += all[i].weight;
	}
	return MIN(point, repo + PERSON_MAX_RAISE);
}

/* --- storage --- */

char *ccsift_model_to_string(const ccsift_model *m)
{
	GString *s = g_string_new(NULL);
	char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];

	g_string_append_printf(s, "version %d\nsource %s\nsince %" G_GINT64_FORMAT "\nuntil %" G_GINT64_FORMAT "\n",
			       m->version, m->source, m->since, m->until);
	g_string_append_printf(s, "cases %u\npairs %u\nengaged %u\n", m->cases, m->pairs, m->engaged);
	g_string_append_printf(s, "intercept %s\nthreshold %s\n", g_ascii_dtostr(a, sizeof(a), m->intercept),
			       g_ascii_dtostr(b, sizeof(b), m->threshold));
	for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
		g_string_append_printf(s, "w %s %s %s\n", features[i].name, g_ascii_dtostr(a, sizeof(a), m->w[i]),
				       g_ascii_dtostr(b, sizeof(b), m->mean[i]));
	return g_string_free(s, FALSE);
}

static int feature_by_name(const char *name)
{
	for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
		if (strcmp(features[i].name, name) == 0)
			return i;
	return -1;
}

gboolean ccsift_model_parse_number(const char *text, double bound, double *out)
{
	char *end;

	if (!text || !*text)
		return FALSE;
	*out = g_ascii_strtod(text, &end);
	return *end == '\0' && isfinite(*out) && fabs(*out) <= bound;
}

static gboolean parse_time(const char *text, int64_t *out)
{
	return g_ascii_string_to_signed(text, 10, G_MININT64, G_MAXINT64, out, NULL);
}

static gboolean parse_count(const char *text, unsigned *out)
{
	guint64 v;

	if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXINT, &v, NULL))
		return FALSE;
	*out = (unsigned)v;
	return TRUE;
}

/* The lines a stored model has once each, besides a weight a feature. */
enum {
	KEY_VERSION, KEY_SOURCE, KEY_SINCE, KEY_UNTIL, KEY_CASES, KEY_PAIRS, KEY_ENGAGED,
	KEY_INTERCEPT, KEY_THRESHOLD, KEY_COUNT
};
static const char *const key_names[KEY_COUNT] = {
	"version", "source", "since", "until", "cases", "pairs", "engaged", "intercept", "threshold",
};

typedef struct {
	guint64 keys;       /* bit k: key_names[k] seen */
	guint64 weights;    /* bit i: feature i's weight seen */
} model_lines_seen;

static int key_by_name(const char *name)
{
	for (int k = 0; k < KEY_COUNT; k++)
		if (strcmp(key_names[k], name) == 0)
			return k;
	return -1;
}

static gboolean parse_key(ccsift_model *m, int key, const char *value)
{
	gint64 v;

	switch (key) {
	case KEY_VERSION:
		if (!g_ascii_string_to_signed(value, 10, 0, G_MAXINT, &v, NULL))
			return FALSE;
		m->version = (int)v;
		return TRUE;
	case KEY_SOURCE:
		return g_strlcpy(m->source, value, sizeof(m->source)) < sizeof(m->source);
	case KEY_SINCE:
		return parse_time(value, &m->since);
	case KEY_UNTIL:
		return parse_time(value, &m->until);
	case KEY_CASES:
		return parse_count(value, &m->cases);
	case KEY_PAIRS:
		return parse_count(value, &m->pairs);
	case KEY_ENGAGED:
		return parse_count(value, &m->engaged);
	case KEY_INTERCEPT:
		return ccsift_model_parse_number(value, CCSIFT_MODEL_BOUND, &m->intercept);
	case KEY_THRESHOLD:
		return ccsift_model_parse_number(value, CCSIFT_MODEL_BOUND, &m->threshold);
	}
	return FALSE;
}

/* One line into m: FALSE when it is not a line of a stored model, its
 * value is not one, or it says again what an earlier line said (a model
 * missing a line would decide with a 0 in its place). */
static gboolean parse_line(ccsift_model *m, char **f, guint n, model_lines_seen *seen)
{
	int k, i;

	if (n == 0 || (n == 1 && !*f[0]) || strcmp(f[0], "reference") == 0)
		return TRUE;  /* the end of the text; the reference (training.c) */
	if (strcmp(f[0], "w") == 0) {
		if (n != 4 || (i = feature_by_name(f[1])) < 0 || seen->weights & (G_GUINT64_CONSTANT(1) << i))
			return FALSE;
		seen->weights |= G_GUINT64_CONSTANT(1) << i;
		return ccsift_model_parse_number(f[2], CCSIFT_MODEL_BOUND, &m->w[i]) &&
		       ccsift_model_parse_number(f[3], CCSIFT_FEATURE_BOUND, &m->mean[i]);
	}
	if (n != 2 || (k = key_by_name(f[0])) < 0 || seen->keys & (G_GUINT64_CONSTANT(1) << k) ||
	    !parse_key(m, k, f[1]))
		return FALSE;
	seen->keys |= G_GUINT64_CONSTANT(1) << k;
	return TRUE;
}

int ccsift_model_from_string(ccsift_model *m, const char *text)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	const char *bad = NULL;
	model_lines_seen seen = { 0 };

	G_STATIC_ASSERT(CCSIFT_FEATURE_COUNT <= 64);
	memset(m, 0, sizeof(*m));
	for (char **l = lines; *l; l++) {
		g_auto(GStrv) f = g_strsplit(*l, " ", 4);

		if (!parse_line(m, f, g_strv_length(f), &seen) && !bad)
			bad = *l;
	}
	/* A model of another version is no model (ccsift was upgraded): its
	 * lines may be other lines. One of this version with a bad line or a
	 * line missing was damaged. */
	if (!(seen.keys & (G_GUINT64_CONSTANT(1) << KEY_VERSION)))
		return ccsift_error_set(CCSIFT_ECORRUPT, "stored model: no version line");
	if (m->version != CCSIFT_MODEL_VERSION)
		return ccsift_error_set(CCSIFT_EINVALID, "stored model is not a version %d model", CCSIFT_MODEL_VERSION);
	if (bad)
		return ccsift_error_set(CCSIFT_ECORRUPT, "stored model: bad line '%.60s'", bad);
	for (int k = 0; k < KEY_COUNT; k++)
		if (!(seen.keys & (G_GUINT64_CONSTANT(1) << k)))
			return ccsift_error_set(CCSIFT_ECORRUPT, "stored model: no %s line", key_names[k]);
	if (seen.weights != (G_GUINT64_CONSTANT(1) << CCSIFT_FEATURE_COUNT) - 1)
		return ccsift_error_set(CCSIFT_ECORRUPT, "stored model: %u of its %d weights",
					(unsigned)__builtin_popcountll(seen.weights), CCSIFT_FEATURE_COUNT);
	if (m->since > m->until)
		return ccsift_error_set(CCSIFT_ECORRUPT, "stored model: its window ends before it begins");
	return 0;
}
