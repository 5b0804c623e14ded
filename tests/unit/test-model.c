/* A person's operating point (model.h): where their own history moves it;
 * and a stored model read back: whole, or refused as damaged. */
#include <math.h>
#include <string.h>
#include "error.h"
#include "model.h"
#include "score.h"

/* A repository whose engaged pairs, out of sample, spread evenly over
 * logits -4 .. 2 (60 of them), with its point at -3. */
static void repository(ccsift_model *m, ccsift_model_reference *ref, double *logits)
{
	ccsift_model_prior(m);
	m->threshold = -3.0;
	for (int i = 0; i < 60; i++)
		logits[i] = -4.0 + 6.0 * i / 59;
	ref->logits = logits;
	ref->n = 60;
	ref->engaged = 60;
}

static void test_no_history_is_the_repository(void)
{
	ccsift_model m;
	ccsift_model_reference ref;
	double logits[60];

	repository(&m, &ref, logits);
	g_assert_cmpfloat(ccsift_model_person_threshold(&m, &ref, NULL, 0, 0, 0), ==, -3.0);
}

static void test_one_low_engagement_does_not_decide(void)
{
	ccsift_model m;
	ccsift_model_reference ref;
	double logits[60], one[] = { -8.0 }, point;

	repository(&m, &ref, logits);
	point = ccsift_model_person_threshold(&m, &ref, one, 1, 1, 30);
	/* still about the repository's 5% point, nowhere near -8 */
	g_assert_cmpfloat(point, >, -4.0);
	g_assert_cmpfloat(point, <, -2.5);
}

static void test_several_low_engagements_do(void)
{
	ccsift_model m;
	ccsift_model_reference ref;
	double logits[60], low[] = { -8.0, -7.9, -7.8, -7.7, -7.6, 0, 0, 0 }, point;

	repository(&m, &ref, logits);
	point = ccsift_model_person_threshold(&m, &ref, low, G_N_ELEMENTS(low), G_N_ELEMENTS(low), 40);
	/* at most 4.5% of (8 + 60) may fall under it: 3.06, so the fourth lowest */
	g_assert_cmpfloat(point, ==, -7.7);
}

static void test_engaged_high_raises_it_within_bounds(void)
{
	ccsift_model m;
	ccsift_model_reference ref;
	double logits[60], high[400], point;

	repository(&m, &ref, logits);
	for (int i = 0; i < 400; i++)
		high[i] = 3.0 + i / 100.0;
	point = ccsift_model_person_threshold(&m, &ref, high, 400, 400, 500);
	/* the 4.5% of 460 (20.7) lie among the repository's: the 21st lowest */
	g_assert_cmpfloat(fabs(point - logits[20]), <, 1e-12);
	g_assert_cmpfloat(point, >, -3.0);

	/* however high the repository's engaged scored, at most e^2 above */
	for (int i = 0; i < 60; i++)
		logits[i] = 5.0;
	point = ccsift_model_person_threshold(&m, &ref, high, 400, 400, 500);
	g_assert_cmpfloat(point, ==, -3.0 + 2.0);
}

static void test_never_engaged_moves_up_with_their_cc(void)
{
	ccsift_model m;
	ccsift_model_reference ref;
	double logits[60], few, many;

	repository(&m, &ref, logits);
	few = ccsift_model_person_threshold(&m, &ref, NULL, 0, 0, 5);
	many = ccsift_model_person_threshold(&m, &ref, NULL, 0, 0, 500);
	g_assert_cmpfloat(few, >, -3.0);
	g_assert_cmpfloat(many, >, few);
	g_assert_cmpfloat(many, <=, -1.0);
}

static void test_without_reference_the_point_stands_in(void)
{
	ccsift_model m;
	double one[] = { -8.0 };

	ccsift_model_prior(&m);
	m.threshold = -3.0;
	g_assert_cmpfloat(ccsift_model_person_threshold(&m, NULL, one, 1, 1, 10), ==, -3.0);
}

/* A fitted model as the index stores it, a reference line after it. */
static char *stored_model(void)
{
	ccsift_model m;
	g_autofree char *text = NULL;

	ccsift_model_prior(&m);
	g_strlcpy(m.source, "fit", sizeof(m.source));
	m.since = 1600000000;
	m.until = 1660000000;
	m.threshold = -3.25;
	m.w[CCSIFT_FEATURE_COUNT - 1] = -0.5;
	text = ccsift_model_to_string(&m);
	return g_strconcat(text, "reference 2 -4.5 -1.25\n", NULL);
}

/* text with its line n replaced by with (NULL: dropped). */
static char *edit_line(const char *text, guint n, const char *with)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	GString *out = g_string_new(NULL);

	for (guint i = 0; lines[i]; i++) {
		const char *l = i == n ? with : lines[i];

		if (l)
			g_string_append_printf(out, "%s%s", l, lines[i + 1] ? "\n" : "");
	}
	return g_string_free(out, FALSE);
}

static guint line_of(const char *text, const char *start)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

	for (guint i = 0; lines[i]; i++)
		if (g_str_has_prefix(lines[i], start))
			return i;
	g_assert_not_reached();
}

static void test_stored_model_reads_back(void)
{
	g_autofree char *text = stored_model();
	ccsift_model m;

	g_assert_cmpint(ccsift_model_from_string(&m, text), ==, 0);
	g_assert_cmpfloat(m.threshold, ==, -3.25);
	g_assert_cmpfloat(m.w[CCSIFT_FEATURE_COUNT - 1], ==, -0.5);
	g_assert_cmpint(m.until, ==, 1660000000);
}

/* A line missing would decide with a 0 in its place: a threshold of
 * probability one half, no intercept, a weight gone. */
static void test_every_line_is_needed(void)
{
	g_autofree char *text = stored_model();
	guint n = line_of(text, "reference");

	for (guint i = 0; i < n; i++) {
		g_autofree char *damaged = edit_line(text, i, NULL);
		ccsift_model m;

		g_assert_cmpint(ccsift_model_from_string(&m, damaged), ==, CCSIFT_ECORRUPT);
	}
}

/* The text with the line starting line_start replaced by with reads as rc. */
static void assert_reads_as(const char *text, const char *line_start, const char *with, int rc)
{
	g_autofree char *edited = edit_line(text, line_of(text, line_start), with);
	ccsift_model m;

	g_assert_cmpint(ccsift_model_from_string(&m, edited), ==, rc);
}

static void test_a_line_twice_is_damage(void)
{
	g_autofree char *text = stored_model();

	assert_reads_as(text, "w with_author ", "w files 0.5 1", CCSIFT_ECORRUPT);
	assert_reads_as(text, "intercept ", "threshold -1", CCSIFT_ECORRUPT);
}

static void test_a_line_of_no_kind_is_damage(void)
{
	g_autofree char *text = stored_model();

	assert_reads_as(text, "threshold ", "threshold -3.25 x", CCSIFT_ECORRUPT);
	assert_reads_as(text, "cases ", "casez 10", CCSIFT_ECORRUPT);
}

/* Another version is an upgrade (the prior decides until the next fit);
 * a version line that is not one is damage. */
static void test_version_line(void)
{
	g_autofree char *text = stored_model();

	assert_reads_as(text, "version ", "version 2", CCSIFT_EINVALID);
	assert_reads_as(text, "version ", "version 3x", CCSIFT_ECORRUPT);
}

/* A feature that is not a number makes no fit: the index could not read
 * it back, and every delivery would refuse it. */
static void test_a_feature_not_a_number_makes_no_fit(void)
{
	g_autoptr(GArray) samples = g_array_new(FALSE, TRUE, sizeof(ccsift_sample));
	ccsift_model prior, m;

	ccsift_model_prior(&prior);
	for (int i = 0; i < 200; i++) {
		ccsift_sample x = { .demotable = 1, .engaged = i % 3 == 0, .person = i % 7 };

		for (int f = 0; f < CCSIFT_FEATURE_COUNT; f++)
			x.f.x[f] = (i * (f + 1)) % 5 + x.engaged;
		g_array_append_val(samples, x);
	}
	g_assert_cmpint(ccsift_model_fit(&m, &prior, samples, 25), ==, 0);
	g_array_index(samples, ccsift_sample, 17).f.x[3] = NAN;
	g_assert_cmpint(ccsift_model_fit(&m, &prior, samples, 25), <, 0);
}

/* words is reason_words of feature f at value x (count n), weight w, mean 0.5 */
static char *reason_at(ccsift_feature f, double w, double x, double n)
{
	ccsift_result r = { 0 };

	ccsift_model_prior(&r.model);
	r.model.w[f] = w;
	r.model.mean[f] = 0.5;
	r.features.x[f] = x;
	r.features.n[f] = n;
	return ccsift_result_reason_words(&r, f);
}

static void test_reasons_say_history_under_the_mean(void)
{
	g_autofree char *under = reason_at(CCSIFT_FEATURE_SHARE, 1.0, 0.2, 0.15);
	g_autofree char *over = reason_at(CCSIFT_FEATURE_SHARE, 1.0, 0.8, 0.6);
	g_autofree char *wrote = reason_at(CCSIFT_FEATURE_AUTHORED, 1.0, 0.2, 5);
	g_autofree char *none = reason_at(CCSIFT_FEATURE_AUTHORED, 1.0, 0.0, 0);
	g_autofree char *busy = reason_at(CCSIFT_FEATURE_AUTHORED_365, -1.0, 0.8, 40);

	/* evidence for, under the mean: a term against, said as such */
	g_assert_cmpstr(under, ==, "your share of these files' recent activity is 15% (less than most)");
	g_assert_cmpstr(wrote, ==, "you wrote 5 of the commits to these files (fewer than most)");
	/* evidence for, over the mean, and none at all: the words alone */
	g_assert_cmpstr(over, ==, "your share of these files' recent activity is 60%");
	g_assert_cmpstr(none, ==, "you wrote none of the commits to these files");
	/* where more is less likely */
	g_assert_cmpstr(busy, ==, "you authored 40 commits in the last year (more than most)");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/model/reasons/history-under-the-mean", test_reasons_say_history_under_the_mean);
	g_test_add_func("/model/person/no-history", test_no_history_is_the_repository);
	g_test_add_func("/model/person/one-low-engagement", test_one_low_engagement_does_not_decide);
	g_test_add_func("/model/person/several-low-engagements", test_several_low_engagements_do);
	g_test_add_func("/model/person/raise-bounded", test_engaged_high_raises_it_within_bounds);
	g_test_add_func("/model/person/never-engaged", test_never_engaged_moves_up_with_their_cc);
	g_test_add_func("/model/person/no-reference", test_without_reference_the_point_stands_in);
	g_test_add_func("/model/text/reads-back", test_stored_model_reads_back);
	g_test_add_func("/model/text/every-line-needed", test_every_line_is_needed);
	g_test_add_func("/model/text/a-line-twice", test_a_line_twice_is_damage);
	g_test_add_func("/model/text/a-line-of-no-kind", test_a_line_of_no_kind_is_damage);
	g_test_add_func("/model/text/version", test_version_line);
	g_test_add_func("/model/fit/not-a-number", test_a_feature_not_a_number_makes_no_fit);
	return g_test_run();
}
