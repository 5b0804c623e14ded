/* Series and thread rules (thread.h). */
#include <string.h>
#include "thread.h"

static ccsift_thread_message *msg(GPtrArray *all, ccsift_patch_kind kind, int version, int number,
				  ccsift_verdict verdict)
{
	ccsift_thread_message *m = g_new0(ccsift_thread_message, 1);

	m->kind = kind;
	m->version = version;
	m->number = number;
	m->verdict = verdict;
	m->reply = kind == CCSIFT_KIND_NOT_PATCH;
	g_ptr_array_add(all, m);
	return m;
}

#define LOW CCSIFT_VERDICT_LOW
#define REL CCSIFT_VERDICT_RELEVANT
#define NAP CCSIFT_VERDICT_NOT_PATCH

static void test_series_low_only_if_every_patch_is(void)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
	ccsift_thread_message *cover = msg(all, CCSIFT_KIND_COVER, 1, 0, REL);
	ccsift_thread_message *p1 = msg(all, CCSIFT_KIND_PATCH, 1, 1, LOW);
	ccsift_thread_message *p2 = msg(all, CCSIFT_KIND_PATCH, 1, 2, LOW);

	ccsift_thread_decide(all);
	g_assert_cmpint(cover->final, ==, LOW);
	g_assert_cmpint(p1->final, ==, LOW);
	g_assert_cmpint(p2->final, ==, LOW);

	/* a patch arriving later that concerns the user lifts the whole series */
	ccsift_thread_message *p3 = msg(all, CCSIFT_KIND_PATCH, 1, 3, REL);
	ccsift_thread_decide(all);
	g_assert_cmpint(cover->final, ==, REL);
	g_assert_cmpint(p1->final, ==, REL);
	g_assert_cmpstr(p1->why, ==, "another patch of its series is relevant");
	g_assert_cmpint(p3->final, ==, REL);
}

/* A cover letter without a diffstat names no files and has no verdict of its
 * own (unknown): it follows its patches, low only when they all are. */
static void test_a_cover_without_files_follows_its_series(void)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
	ccsift_thread_message *cover = msg(all, CCSIFT_KIND_COVER, 1, 0, CCSIFT_VERDICT_UNKNOWN);
	ccsift_thread_message *alone = msg(all, CCSIFT_KIND_COVER, 2, 0, CCSIFT_VERDICT_UNKNOWN);

	cover->no_files = alone->no_files = TRUE;
	msg(all, CCSIFT_KIND_PATCH, 1, 1, LOW);
	msg(all, CCSIFT_KIND_PATCH, 1, 2, LOW);
	ccsift_thread_decide(all);
	g_assert_cmpint(cover->final, ==, LOW);
	g_assert_cmpstr(cover->why, ==, "every patch of its series is low");
	/* no patches of its own version yet: still no decision */
	g_assert_cmpint(alone->final, ==, CCSIFT_VERDICT_UNKNOWN);

	msg(all, CCSIFT_KIND_PATCH, 1, 3, REL);
	ccsift_thread_decide(all);
	g_assert_cmpint(cover->final, ==, REL);

	/* an unknown cover that does name files (an error deciding it) is never demoted */
	g_autoptr(GPtrArray) other = g_ptr_array_new_with_free_func(g_free);
	ccsift_thread_message *failed = msg(other, CCSIFT_KIND_COVER, 1, 0, CCSIFT_VERDICT_UNKNOWN);
	msg(other, CCSIFT_KIND_PATCH, 1, 1, LOW);
	ccsift_thread_decide(other);
	g_assert_cmpint(failed->final, ==, CCSIFT_VERDICT_UNKNOWN);
}

static void test_replies_follow_a_low_thread_unless_addressed(void)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
	msg(all, CCSIFT_KIND_PATCH, 1, -1, LOW);
	ccsift_thread_message *reply = msg(all, CCSIFT_KIND_NOT_PATCH, 1, -1, NAP);
	ccsift_thread_message *to_me = msg(all, CCSIFT_KIND_NOT_PATCH, 1, -1, NAP);
	ccsift_thread_message *quoting = msg(all, CCSIFT_KIND_NOT_PATCH, 1, -1, NAP);

	to_me->to_me = TRUE;
	quoting->quotes_relevant = TRUE;
	ccsift_thread_decide(all);
	g_assert_cmpint(reply->final, ==, LOW);
	g_assert_cmpint(to_me->final, ==, NAP);
	g_assert_cmpint(quoting->final, ==, NAP);
}

static void test_a_message_from_the_user_lifts_the_thread(void)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
	ccsift_thread_message *p = msg(all, CCSIFT_KIND_PATCH, 1, -1, LOW);
	ccsift_thread_message *mine = msg(all, CCSIFT_KIND_NOT_PATCH, 1, -1, NAP);
	ccsift_thread_message *other = msg(all, CCSIFT_KIND_NOT_PATCH, 1, -1, NAP);

	mine->from_me = TRUE;
	ccsift_thread_decide(all);
	g_assert_cmpint(p->final, ==, REL);
	g_assert_cmpstr(p->why, ==, "you wrote in this thread");
	g_assert_cmpint(other->final, ==, NAP);
}

static void test_a_message_the_user_lifted_lifts_the_thread(void)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
	ccsift_thread_message *lifted = msg(all, CCSIFT_KIND_PATCH, 1, 1, LOW);
	ccsift_thread_message *p = msg(all, CCSIFT_KIND_PATCH, 1, 2, LOW);
	ccsift_thread_message *reply = msg(all, CCSIFT_KIND_NOT_PATCH, 1, -1, NAP);

	lifted->lifted = TRUE;
	ccsift_thread_decide(all);
	g_assert_cmpint(lifted->final, ==, REL);
	g_assert_cmpint(p->final, ==, REL);
	g_assert_cmpstr(p->why, ==, "you took a message of this thread out of the low pile");
	g_assert_cmpint(reply->final, ==, NAP);
	lifted->lifted = FALSE;
	ccsift_thread_decide(all);
	g_assert_cmpint(p->final, ==, LOW);
	g_assert_cmpint(reply->final, ==, LOW);
}

static void test_new_version_of_an_engaged_series(void)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
	ccsift_thread_message *p = msg(all, CCSIFT_KIND_PATCH, 2, 1, LOW);

	p->engaged_before = TRUE;
	ccsift_thread_decide(all);
	g_assert_cmpint(p->final, ==, REL);
	g_assert_cmpstr(p->why, ==, "you engaged with an earlier version of this series");
}

static void test_versions_are_separate_series_and_unknown_is_never_low(void)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
	ccsift_thread_message *v1 = msg(all, CCSIFT_KIND_PATCH, 1, 1, LOW);
	ccsift_thread_message *v2 = msg(all, CCSIFT_KIND_PATCH, 2, 1, REL);
	ccsift_thread_message *unknown = msg(all, CCSIFT_KIND_PATCH, 1, 2, CCSIFT_VERDICT_UNKNOWN);

	ccsift_thread_decide(all);
	g_assert_cmpint(v2->final, ==, REL);
	g_assert_cmpint(v1->final, ==, REL);  /* its series holds a patch with no decision */
	g_assert_cmpint(unknown->final, ==, CCSIFT_VERDICT_UNKNOWN);
}

/* What a store keeps of a message gives back the same message to the rules. */
static void test_traits_round_trip(void)
{
	ccsift_thread_message a = { .kind = CCSIFT_KIND_PATCH, .version = 3, .number = 12, .from_me = TRUE,
				    .quotes_relevant = TRUE, .no_files = TRUE };
	ccsift_thread_message b = { .kind = CCSIFT_KIND_NOT_PATCH, .version = 1, .number = -1, .reply = TRUE,
				    .to_me = TRUE, .engaged_before = TRUE };
	ccsift_thread_message got;

	memset(&got, 0xff, sizeof(got));
	ccsift_thread_message_set_traits(&got, ccsift_thread_message_traits(&a));
	g_assert_cmpint(got.kind, ==, CCSIFT_KIND_PATCH);
	g_assert_cmpint(got.version, ==, 3);
	g_assert_cmpint(got.number, ==, 12);
	g_assert_true(got.from_me && got.quotes_relevant && got.no_files);
	g_assert_false(got.reply || got.to_me || got.engaged_before);
	ccsift_thread_message_set_traits(&got, ccsift_thread_message_traits(&b));
	g_assert_cmpint(got.kind, ==, CCSIFT_KIND_NOT_PATCH);
	g_assert_cmpint(got.number, ==, -1);
	g_assert_true(got.reply && got.to_me && got.engaged_before);
	g_assert_false(got.from_me || got.quotes_relevant || got.no_files);
	g_assert_cmpint(ccsift_thread_message_traits(&a), >=, 0);
	g_assert_cmpint(ccsift_thread_message_traits(&b), !=, ccsift_thread_message_traits(&a));
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/thread/series-low-only-if-every-patch-is", test_series_low_only_if_every_patch_is);
	g_test_add_func("/thread/cover-without-files", test_a_cover_without_files_follows_its_series);
	g_test_add_func("/thread/replies-follow-a-low-thread", test_replies_follow_a_low_thread_unless_addressed);
	g_test_add_func("/thread/message-from-user", test_a_message_from_the_user_lifts_the_thread);
	g_test_add_func("/thread/lifted-by-user", test_a_message_the_user_lifted_lifts_the_thread);
	g_test_add_func("/thread/new-version", test_new_version_of_an_engaged_series);
	g_test_add_func("/thread/traits-round-trip", test_traits_round_trip);
	g_test_add_func("/thread/versions-and-unknown", test_versions_are_separate_series_and_unknown_is_never_low);
	return g_test_run();
}
