/* cmd-train.c: ccsift train [--repo DIR] [--as-of DATE] [--force] [--json]
 *                           [--samples-out FILE] [--from-samples FILE...]
 * -- fit the model on the repository's own history (the replay ccsift eval
 * does) and keep it in the index; or fit on saved samples of several
 * repositories, which is how the shipped prior is made. */
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include "ccsift.h"
#include "date.h"
#include "error.h"
#include "training.h"

/* Samples as text: engaged demotable person, then the features. */
static int write_samples(const char *path, GArray *samples)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return ccsift_error_set(CCSIFT_EIO, "cannot write %s", path);
	fprintf(f, "# engaged demotable person");
	for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
		fprintf(f, " %s", ccsift_feature_name(i));
	fputc('\n', f);
	for (guint s = 0; s < samples->len; s++) {
		const ccsift_sample *x = &g_array_index(samples, ccsift_sample, s);

		fprintf(f, "%d %d %" G_GINT64_FORMAT, x->engaged, x->demotable, x->person);
		for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
			fprintf(f, " %.6g", x->f.x[i]);
		fputc('\n', f);
	}
	return fclose(f) ? ccsift_error_set(CCSIFT_EIO, "cannot write %s", path) : 0;
}

static int read_samples(const char *path, GArray *samples)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) lines = NULL;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return ccsift_error_set(CCSIFT_EIO, "cannot read %s", path);
	lines = g_strsplit(text, "\n", -1);
	for (char **l = lines; *l; l++) {
		g_auto(GStrv) f = g_strsplit(*l, " ", -1);
		ccsift_sample x = { 0 };
		guint64 engaged, demotable;
		gboolean ok;

		if (**l == '#' || !**l)
			continue;
		if (g_strv_length(f) != 3 + CCSIFT_FEATURE_COUNT)
			return ccsift_error_set(CCSIFT_EINVALID, "%s: not a samples file of this version", path);
		ok = g_ascii_string_to_unsigned(f[0], 10, 0, 1, &engaged, NULL) &&
		     g_ascii_string_to_unsigned(f[1], 10, 0, 1, &demotable, NULL) &&
		     g_ascii_string_to_signed(f[2], 10, -1, G_MAXINT64, &x.person, NULL);
		for (int i = 0; ok && i < CCSIFT_FEATURE_COUNT; i++)
			ok = ccsift_model_parse_number(f[3 + i], CCSIFT_FEATURE_BOUND, &x.f.x[i]);
		/* One bad number would make every weight one (NaN). */
		if (!ok)
			return ccsift_error_set(CCSIFT_EINVALID, "%s:%d: not a sample (0 or 1, 0 or 1, a person,"
						" %d numbers of at most %g)", path, (int)(l - lines) + 1,
						CCSIFT_FEATURE_COUNT, CCSIFT_FEATURE_BOUND);
		x.engaged = (int)engaged;
		x.demotable = (int)demotable;
		g_array_append_val(samples, x);
	}
	return 0;
}

static void print_model(const ccsift_model *m, gboolean json)
{
	char since[16], until[16];

	if (json) {
		g_autoptr(JsonBuilder) b = json_builder_new();

		json_builder_begin_object(b);
		json_add_string(b, "source", m->source);
		json_add_string(b, "since", m->since ? ccsift_date_format(m->since, since, sizeof(since)) : NULL);
		json_add_string(b, "until", m->until ? ccsift_date_format(m->until, until, sizeof(until)) : NULL);
		json_add_int(b, "cases", m->cases);
		json_add_int(b, "pairs", m->pairs);
		json_add_int(b, "engaged", m->engaged);
		json_add_double(b, "intercept", m->intercept);
		json_add_double(b, "threshold", ccsift_logistic(m->threshold));
		json_builder_set_member_name(b, "weights");
		json_builder_begin_object(b);
		for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
			json_add_double(b, ccsift_feature_name(i), m->w[i]);
		json_builder_end_object(b);
		json_builder_end_object(b);
		print_json(json_builder_get_root(b));
		return;
	}
	if (m->until)
		printf("model: %s on %s .. %s: %u cases, %u addressees decided by it, %u engaged\n", m->source,
		       ccsift_date_format(m->since, since, sizeof(since)),
		       ccsift_date_format(m->until, until, sizeof(until)), m->cases, m->pairs, m->engaged);
	else
		printf("model: %s: %u addressees, %u engaged\n", m->source, m->pairs, m->engaged);
	printf("threshold: %.4f (logit %.3f)\n", ccsift_logistic(m->threshold), m->threshold);
	printf("%-14s %9s %9s\n", "feature", "weight", "mean");
	printf("%-14s %9.4f\n", "(intercept)", m->intercept);
	for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++)
		printf("%-14s %9.4f %9.4f\n", ccsift_feature_name(i), m->w[i], m->mean[i]);
}

static int train_from_samples(char **files, gboolean json)
{
	g_autoptr(GArray) samples = g_array_new(FALSE, FALSE, sizeof(ccsift_sample));
	ccsift_training_options to;
	ccsift_model m;
	int rc;

	for (char **f = files; *f; f++)
		if ((rc = read_samples(*f, samples)) < 0)
			return rc;
	ccsift_training_options_init(&to);
	/* The prior is pulled towards nothing but zero. */
	to.ridge = 1;
	ccsift_model_prior(&m);
	memset(m.w, 0, sizeof(m.w));
	{
		ccsift_model zero = m;

		if ((rc = ccsift_model_fit(&m, &zero, samples, to.ridge)) < 0)
			return rc;
	}
	g_strlcpy(m.source, "pooled", sizeof(m.source));
	ccsift_model_score_samples(&m, samples);
	m.threshold = ccsift_model_operating_point(samples, CCSIFT_MODEL_DEMOTE);
	print_model(&m, json);
	return 0;
}

int cmd_train(int argc, char **argv)
{
	common_options o = { 0 };
	g_autofree char *samples_out = NULL;
	g_auto(GStrv) from = NULL;
	gboolean force = FALSE;
	GOptionEntry extra[] = {
		{ "force", 0, 0, G_OPTION_ARG_NONE, &force, "With --as-of, store the fit too (without --as-of it is always stored)", NULL },
		{ "samples-out", 0, 0, G_OPTION_ARG_FILENAME, &samples_out, "Also write the replayed samples to FILE", "FILE" },
		{ "from-samples", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &from, "Fit on samples files (repeatable) instead of a repository", "FILE" },
		{ NULL }
	};
	g_autofree GOptionEntry *entries = option_entries(&o, OPT_BASIC | OPT_AS_OF, extra);
	g_autoptr(GArray) samples = g_array_new(FALSE, FALSE, sizeof(ccsift_sample));
	ccsift_training_options to;
	ccsift_index *w = NULL;
	session s = { 0 };
	ccsift_model m;
	int64_t as_of, until;
	int rc;

	if (!parse_options(&argc, &argv, "", "Fit the relevance model on the repository's own history, as of "
			   "the index's tip (or --as-of), and keep it in the index. ccsift index does this by "
			   "itself once per period; this shows the fit.", entries))
		return 2;
	if (from) {
		rc = train_from_samples(from, o.json);
		goto out;
	}
	if ((rc = session_load_config(&s, &o)) < 0 || (rc = session_open(&s, &o, NULL, TRUE)) < 0)
		goto out;
	ccsift_training_options_init(&to);
	to.progress = isatty(2);
	as_of = ccsift_scorer_as_of(s.scorer, &s.opts);
	until = ccsift_training_until(as_of);
	if ((rc = ccsift_training_collect(s.repo, s.idx, until, &to, samples)) < 0)
		goto out;
	ccsift_training_fit(&m, samples, until, &to);
	m.cases = rc;
	if (samples_out && (rc = write_samples(samples_out, samples)) < 0)
		goto out;
	if (force || !s.opts.as_of) {
		if ((rc = ccsift_index_open(&w, ccsift_index_path(s.idx), CCSIFT_INDEX_READ_WRITE)) == 0)
			rc = ccsift_training_store(w, &m, samples);
		ccsift_index_free(w);
		if (rc < 0)
			goto out;
	}
	print_model(&m, o.json);
out:
	if (rc < 0)
		fprintf(stderr, "ccsift train: %s\n", ccsift_error_last());
	session_close(&s);
	common_options_clear(&o);
	return rc < 0 ? 1 : 0;
}
