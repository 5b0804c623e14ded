/* training.c: fit the model by replaying the repository's own history. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "error.h"
#include "training.h"
#include "weights.h"

void ccsift_training_options_init(ccsift_training_options *o)
{
	memset(o, 0, sizeof(*o));
	o->window = 730 * (int64_t)86400;
	o->cases = 800;
	o->ridge = 25;
	o->min_engaged = 20;
	ccsift_eval_options_init(&o->replay);
	o->replay.half_life_days = CCSIFT_HALF_LIFE_DAYS;
	/* A fit learns from the pairs whose Fixes: names the addressee's
	 * commit as from any other: they are engaged pairs that often score
	 * low, and a person's point kept clear of them holds better on later
	 * mail. Left out, the held-out engaged demoted rose on the tuning
	 * repositories (xen 4.3% to 5.0%, LTP 3.8% to 4.2%). */
	o->replay.fixes = FALSE;
}

int64_t ccsift_training_until(int64_t t)
{
	return t - ((t % CCSIFT_TRAINING_PERIOD) + CCSIFT_TRAINING_PERIOD) % CCSIFT_TRAINING_PERIOD;
}

static void collect_progress(guint done, guint total, void *payload)
{
	(void)payload;
	if (done % 25 == 0 || done == total)
		fprintf(stderr, "\rccsift: fitting the model for the period: %u/%u cases", done, total);
}

int ccsift_training_collect(ccsift_repo *repo, ccsift_index *idx, int64_t until, const ccsift_training_options *o,
			    GArray *samples)
{
	/* Seeded by the period: the same history gives the same fit. */
	g_autoptr(GArray) commits = ccsift_replay_sample(idx, until - o->window, until, until,
							 (guint32)(until / CCSIFT_TRAINING_PERIOD), o->cases);
	g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, sizeof(ccsift_eval_pair));
	ccsift_model prior;
	int rc;

	ccsift_model_prior(&prior);
	rc = ccsift_replay_commits(repo, idx, &o->replay, commits, &prior, o->progress ? collect_progress : NULL,
				   NULL, pairs);
	if (o->progress && commits->len)
		fputc('\n', stderr);
	/* No fit from evidence read short. */
	if (rc < 0) {
		ccsift_eval_pairs_clear(pairs);
		return rc;
	}
	for (guint i = 0; i < pairs->len; i++) {
		const ccsift_eval_pair *p = &g_array_index(pairs, ccsift_eval_pair, i);
		ccsift_sample x = { .f = p->features, .person = p->person, .time = p->time,
				    .engaged = p->engaged, .demotable = p->demotable };

		g_array_append_val(samples, x);
	}
	ccsift_eval_pairs_clear(pairs);
	return (int)commits->len;
}

static int by_time(gconstpointer a, gconstpointer b)
{
	const ccsift_sample *x = a, *y = b;

	return (x->time > y->time) - (x->time < y->time);
}

static unsigned engaged_in(GArray *samples, guint from, guint to)
{
	unsigned n = 0;

	for (guint i = from; i < to; i++) {
		const ccsift_sample *x = &g_array_index(samples, ccsift_sample, i);

		n += x->engaged && x->demotable;
	}
	return n;
}

/* The weights come from the older part of the window, the operating point
 * from the newer part, scored by them: a point chosen on the pairs a model
 * was fitted on demotes fewer of the engaged than it will on the mail that
 * comes next, and by how much differs from project to project. */
void ccsift_training_fit(ccsift_model *m, GArray *samples, int64_t until, const ccsift_training_options *o)
{
	guint split;
	g_autoptr(GArray) older = NULL, newer = NULL;
	ccsift_model prior;

	ccsift_model_prior(&prior);
	g_array_sort(samples, by_time);
	split = (guint)(samples->len * CCSIFT_TRAINING_SPLIT);
	older = g_array_sized_new(FALSE, FALSE, sizeof(ccsift_sample), split);
	g_array_append_vals(older, samples->data, split);
	newer = g_array_sized_new(FALSE, FALSE, sizeof(ccsift_sample), samples->len - split);
	g_array_append_vals(newer, (ccsift_sample *)samples->data + split, samples->len - split);
	/* Too little history to fit: the prior, with this history's pairs
	 * for the operating points. */
	if (engaged_in(older, 0, older->len) < o->min_engaged || ccsift_model_fit(m, &prior, older, o->ridge) < 0) {
		*m = prior;
		m->pairs = older->len;
		m->engaged = engaged_in(older, 0, older->len);
	}
	m->since = until - o->window;
	m->until = until;
	ccsift_model_score_samples(m, samples);
	ccsift_model_score_samples(m, newer);
	if (engaged_in(newer, 0, newer->len) >= o->min_engaged / 2)
		m->threshold = ccsift_model_operating_point(newer, CCSIFT_MODEL_DEMOTE);
	else if (engaged_in(samples, 0, samples->len) >= o->min_engaged / 2)
		m->threshold = ccsift_model_operating_point(samples, CCSIFT_MODEL_DEMOTE);
	if (!isfinite(m->threshold) || fabs(m->threshold) > CCSIFT_MODEL_BOUND)
		m->threshold = prior.threshold;
}

static int keep_reference(ccsift_index *writer, int64_t until, const char *stored);

int ccsift_training_ensure(ccsift_repo *repo, ccsift_index *writer, int64_t until, const ccsift_training_options *o)
{
	g_autoptr(GArray) samples = g_array_new(FALSE, FALSE, sizeof(ccsift_sample));
	g_autofree char *stored = NULL;
	int64_t found = -1;
	ccsift_model m;
	int rc;

	/* A fit of an older model (other features) is made again. */
	if ((stored = ccsift_index_fit_get(writer, until, &found)) && found == until &&
	    ccsift_model_from_string(&m, stored) == 0)
		return keep_reference(writer, until, stored);
	if ((rc = ccsift_training_collect(repo, writer, until, o, samples)) < 0)
		return rc;
	ccsift_training_fit(&m, samples, until, o);
	m.cases = rc;
	if ((rc = ccsift_training_store(writer, &m, samples)) < 0)
		return rc;
	return 1;
}

static int cmp_logit(gconstpointer a, gconstpointer b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The reference from a fit's pairs (ccsift_fit_pair, oldest first): the
 * engaged of the newer part, the same split as ccsift_training_fit. */
static void reference_of(GArray *pairs, GArray *logits, unsigned *engaged)
{
	*engaged = 0;
	for (guint i = (guint)(pairs->len * CCSIFT_TRAINING_SPLIT); i < pairs->len; i++) {
		const ccsift_fit_pair *p = &g_array_index(pairs, ccsift_fit_pair, i);

		*engaged += p->engaged;
		if (p->engaged && p->demotable)
			g_array_append_val(logits, p->logit);
	}
	g_array_sort(logits, cmp_logit);
}

/* "reference ENGAGED LOGIT...": kept with the fit's text, so that a
 * delivery reads a line instead of every pair of the window. */
static void reference_append(GString *text, GArray *logits, unsigned engaged)
{
	char buf[G_ASCII_DTOSTR_BUF_SIZE];

	g_string_append_printf(text, "reference %u", engaged);
	for (guint i = 0; i < logits->len; i++)
		g_string_append_printf(text, " %s", g_ascii_dtostr(buf, sizeof(buf), g_array_index(logits, double, i)));
	g_string_append_c(text, '\n');
}

/* 1 with the line read, 0 without one, CCSIFT_ECORRUPT when a value of it
 * is not a number in bounds. */
static int reference_parse(const char *text, GArray *logits, unsigned *engaged)
{
	const char *line = text ? strstr(text, "\nreference ") : NULL;
	g_autofree char *copy = NULL;
	g_auto(GStrv) f = NULL;
	guint64 n;

	if (!line)
		return 0;
	copy = g_strndup(line + 1, strcspn(line + 1, "\n"));
	f = g_strsplit(copy, " ", -1);
	if (!f[1] || !g_ascii_string_to_unsigned(f[1], 10, 0, G_MAXUINT, &n, NULL))
		return ccsift_error_set(CCSIFT_ECORRUPT, "stored model: bad reference line");
	*engaged = (unsigned)n;
	for (char **v = f + 2; *v; v++) {
		double l;

		if (!ccsift_model_parse_number(*v, CCSIFT_MODEL_BOUND, &l))
			return ccsift_error_set(CCSIFT_ECORRUPT, "stored model: '%.30s' in the reference line", *v);
		g_array_append_val(logits, l);
	}
	return 1;
}

int ccsift_training_reference(ccsift_index *idx, int64_t until, const char *text, GArray *logits, unsigned *engaged)
{
	g_autoptr(GArray) pairs = NULL;
	int rc;

	if ((rc = reference_parse(text, logits, engaged)) != 0)
		return rc < 0 ? rc : 0;
	/* A fit stored before the line was kept: from its pairs. */
	pairs = g_array_new(FALSE, FALSE, sizeof(ccsift_fit_pair));
	if ((rc = ccsift_index_fit_pairs(idx, until, -1, pairs)) < 0)
		return rc;
	reference_of(pairs, logits, engaged);
	return 0;
}

/*
 * A fit stored before its reference line was kept gets it now, from its
 * pairs (the numbers ccsift_training_reference makes of them, and the line
 * keeps every digit): else each delivery for a person with pairs reads all
 * of the fit's, as many as the history has replayed Cc's (4 ms on a
 * Linux-sized one).
 */
static int keep_reference(ccsift_index *writer, int64_t until, const char *stored)
{
	g_autoptr(GArray) pairs = NULL;
	g_autoptr(GArray) reference = NULL;
	g_autoptr(GString) text = NULL;
	unsigned engaged;
	int rc;

	if (strstr(stored, "\nreference "))
		return 0;
	pairs = g_array_new(FALSE, FALSE, sizeof(ccsift_fit_pair));
	if ((rc = ccsift_index_fit_pairs(writer, until, -1, pairs)) < 0)
		return rc;
	reference = g_array_new(FALSE, FALSE, sizeof(double));
	reference_of(pairs, reference, &engaged);
	text = g_string_new(stored);
	if (text->len && text->str[text->len - 1] != '\n')
		g_string_append_c(text, '\n');
	reference_append(text, reference, engaged);
	return ccsift_index_fit_set_model(writer, until, text->str);
}

int ccsift_training_store(ccsift_index *writer, const ccsift_model *m, GArray *samples)
{
	g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, sizeof(ccsift_fit_pair));
	g_autoptr(GArray) reference = g_array_new(FALSE, FALSE, sizeof(double));
	g_autofree char *model = ccsift_model_to_string(m);
	g_autoptr(GString) text = g_string_new(model);
	unsigned engaged;

	for (guint i = 0; i < samples->len; i++) {
		const ccsift_sample *x = &g_array_index(samples, ccsift_sample, i);
		/* (past the bound a probability is 0 or 1 either way; the index
		 * refuses a pair beyond it as damaged) */
		ccsift_fit_pair p = { x->person, CLAMP(x->logit, -CCSIFT_MODEL_BOUND, CCSIFT_MODEL_BOUND), x->engaged,
				      x->demotable };

		if (x->person >= 0)
			g_array_append_val(pairs, p);
	}
	reference_of(pairs, reference, &engaged);
	reference_append(text, reference, engaged);
	return ccsift_index_fit_store(writer, m->until, text->str, pairs);
}

/* A stored fit's pairs read whole: 0, CCSIFT_ECORRUPT for a pair that is
 * not one, or another error. */
static int check_pairs(ccsift_index *writer, int64_t until)
{
	g_autoptr(GArray) pairs = g_array_new(FALSE, FALSE, sizeof(ccsift_fit_pair));

	return ccsift_index_fit_pairs(writer, until, -1, pairs);
}

/*
 * A fit damaged in the file (a value that is not one, a line missing or
 * twice, a replayed pair that is not one, or stored as another period's)
 * is dropped: deliveries refuse it, and the period a decision needs is
 * fitted again (ensure). Of another version, it is made again when
 * needed, as before.
 */
static int drop_damaged(ccsift_index *writer)
{
	int64_t until, at_most = G_MAXINT64;
	char *text;
	int rc = 0;

	while (rc == 0 && (text = ccsift_index_fit_get(writer, at_most, &until))) {
		g_autoptr(GArray) reference = g_array_new(FALSE, FALSE, sizeof(double));
		ccsift_model m;
		unsigned engaged;
		int parsed = ccsift_model_from_string(&m, text), pairs = 0;

		if (parsed == 0 && (pairs = check_pairs(writer, until)) < 0 && pairs != CCSIFT_ECORRUPT)
			rc = pairs;
		else if (parsed == CCSIFT_ECORRUPT || (parsed == 0 && m.until != until) || pairs == CCSIFT_ECORRUPT ||
			 reference_parse(text, reference, &engaged) < 0)
			rc = ccsift_index_fit_drop(writer, until);
		g_free(text);
		if (until == G_MININT64)
			break;
		at_most = until - 1;
	}
	return rc;
}

int ccsift_training_upkeep(ccsift_repo *repo, ccsift_index *writer, gboolean progress)
{
	int64_t tip = ccsift_index_tip_time(writer);
	ccsift_training_options o;
	int rc;

	if (tip < 0)
		return 0;
	if (drop_damaged(writer) < 0)
		return -1;
	ccsift_training_options_init(&o);
	o.progress = progress;
	/* After a walk of the whole history the map holds most of the index
	 * (52 MB of a 114k-commit history), and the fit peaks on top of it:
	 * an index from scratch used more memory than git log. Without the
	 * map the fit took 1% longer there. train and eval keep it. */
	ccsift_index_unmap(writer);
	/* Read through a first build's cache instead: with the default 2 MB
	 * a fifth of an update's fit was the kernel copying pages in again
	 * (the synthetic history's 2.65 s against 2.1 s, 15 MB more). */
	ccsift_index_set_bulk(writer, TRUE);
	rc = ccsift_training_ensure(repo, writer, ccsift_training_until(tip + 1), &o);
	ccsift_index_set_bulk(writer, FALSE);
	return rc;
}
