/* Subject tags, as patch series are named on mailing lists. */
#include "patch.h"

static void test_rfc_version_number(void)
{
	ccsift_subject s = { 0 };

	ccsift_subject_parse(&s, "[RFC PATCH v3 2/5] net: phy: fix the link");
	g_assert_cmpstr(s.prefix, ==, "RFC PATCH v3 2/5");
	g_assert_true(s.rfc);
	g_assert_cmpint(s.version, ==, 3);
	g_assert_cmpint(s.number, ==, 2);
	g_assert_cmpint(s.total, ==, 5);
	g_assert_cmpstr(s.subsystem, ==, "net: phy");
	g_assert_cmpstr(s.title, ==, "net: phy: fix the link");
	g_assert_false(s.reply);
	ccsift_subject_clear(&s);
}

static void test_resend_and_tree(void)
{
	ccsift_subject s = { 0 };

	ccsift_subject_parse(&s, "[PATCH RESEND net-next] [v2] mm: fix");
	g_assert_true(s.resend);
	g_assert_cmpint(s.version, ==, 2);
	g_assert_cmpint(s.number, ==, -1);
	g_assert_cmpstr(s.prefix, ==, "PATCH RESEND net-next v2");
	g_assert_cmpstr(s.subsystem, ==, "mm");
	ccsift_subject_clear(&s);
}

static void test_reply_and_cover(void)
{
	ccsift_subject s = { 0 };

	ccsift_subject_parse(&s, "Re: AW: [PATCH 0/12] Add the thing");
	g_assert_true(s.reply);
	g_assert_cmpint(s.number, ==, 0);
	g_assert_cmpint(s.total, ==, 12);
	g_assert_null(s.subsystem);
	g_assert_cmpstr(s.title, ==, "Add the thing");
	ccsift_subject_clear(&s);
	ccsift_subject_parse(&s, NULL);
	g_assert_cmpstr(s.title, ==, "");
	g_assert_null(s.prefix);
	ccsift_subject_clear(&s);
}

/* A title's area is its first word when ':' or '/' follows: what
 * `git log --oneline` shows a subsystem as, at its coarsest. */
static void test_area(void)
{
	g_assert_cmpuint(ccsift_subject_area("net: phy: fix the link"), ==, 3);
	g_assert_cmpuint(ccsift_subject_area("net/sched: fix y"), ==, 3);
	g_assert_cmpuint(ccsift_subject_area("x86/nmi: Don't configure EvtSel"), ==, 3);
	g_assert_cmpuint(ccsift_subject_area("MdeModulePkg: Fix NULL tests"), ==, 12);
	g_assert_cmpuint(ccsift_subject_area("Revert \"net: phy: x\""), ==, 0);
	g_assert_cmpuint(ccsift_subject_area("fix the thing"), ==, 0);
	g_assert_cmpuint(ccsift_subject_area(": nothing before"), ==, 0);
	g_assert_cmpuint(ccsift_subject_area("net"), ==, 0);
	g_assert_cmpuint(ccsift_subject_area(""), ==, 0);
	g_assert_cmpuint(ccsift_subject_area(NULL), ==, 0);
}

/* A parsed subject has an area only with a subsystem ("word: "). */
static void test_parsed_area(void)
{
	static const struct {
		const char *subject, *area;
	} cases[] = {
		{ "[PATCH v2 1/3] Net: phy: fix the link", "net" },
		{ "[PATCH] x86/nmi: Don't configure EvtSel", "x86" },
		{ "[PATCH] MdeModulePkg:Fix NULL tests", NULL },
		{ "[PATCH] fix the thing", NULL },
		{ "Re: [PATCH] : nothing before", NULL },
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		ccsift_subject s = { 0 };

		ccsift_subject_parse(&s, cases[i].subject);
		g_assert_cmpstr(s.area, ==, cases[i].area);
		ccsift_subject_clear(&s);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/subject/rfc-version-number", test_rfc_version_number);
	g_test_add_func("/subject/resend-and-tree", test_resend_and_tree);
	g_test_add_func("/subject/reply-and-cover", test_reply_and_cover);
	g_test_add_func("/subject/area", test_area);
	g_test_add_func("/subject/parsed-area", test_parsed_area);
	return g_test_run();
}
