/* A person's operating point (model.h): where their own history moves it. */
#include <math.h>
#include "model.h"

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

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/model/person/no-history", test_no_history_is_the_repository);
	g_test_add_func("/model/person/one-low-engagement", test_one_low_engagement_does_not_decide);
	g_test_add_func("/model/person/several-low-engagements", test_several_low_engagements_do);
	g_test_add_func("/model/person/raise-bounded", test_engaged_high_raises_it_within_bounds);
	g_test_add_func("/model/person/never-engaged", test_never_engaged_moves_up_with_their_cc);
	g_test_add_func("/model/person/no-reference", test_without_reference_the_point_stands_in);
	return g_test_run();
}
