/* The decisions store: what a put keeps of an earlier decision, and what
 * the store refuses. */
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include "decisions.h"
#include "error.h"

static void remove_tree(const char *path)
{
	GDir *dir = g_dir_open(path, 0, NULL);
	const char *name;

	while (dir && (name = g_dir_read_name(dir))) {
		g_autofree char *child = g_build_filename(path, name, NULL);

		if (g_file_test(child, G_FILE_TEST_IS_DIR) && !g_file_test(child, G_FILE_TEST_IS_SYMLINK))
			remove_tree(child);
		else
			g_unlink(child);
	}
	if (dir)
		g_dir_close(dir);
	g_rmdir(path);
}

static void remove_tree_and_free(gpointer path)
{
	remove_tree(path);
	g_free(path);
}

/* A directory of the test's own, removed when the test ends. (GLib's
 * G_TEST_OPTION_ISOLATE_DIRS would do it, but leaks under LeakSanitizer.) */
static char *tmp_dir(void)
{
	g_autoptr(GError) err = NULL;
	char *dir = g_dir_make_tmp("ccsift-decisions-XXXXXX", &err);

	g_assert_no_error(err);
	g_test_queue_destroy(remove_tree_and_free, g_strdup(dir));
	return dir;
}

static void put_one(ccsift_decisions *d, const ccsift_decision *dec)
{
	g_assert_cmpint(ccsift_decisions_begin(d), ==, 0);
	g_assert_cmpint(ccsift_decisions_put(d, dec), ==, 0);
	g_assert_cmpint(ccsift_decisions_commit(d), ==, 0);
}

static void test_lifted_keeps_what_it_rests_on(void)
{
	g_autofree char *dir = tmp_dir();
	g_autofree char *path = g_build_filename(dir, "sub", "decisions.db", NULL);
	ccsift_decisions *d = NULL;
	g_autoptr(ccsift_decision) got = NULL;
	ccsift_decision low = { .id = "a@x", .verdict = "low", .own = "low", .score = 0.03, .threshold = 0.05,
				.reason = "scored", .decided = 100, .model_version = 2, .model_until = 50, .repo = "demo" };
	/* Lifted by a thread rule: not scored again, so no score, model or repo. */
	ccsift_decision lifted = { .id = "a@x", .verdict = "relevant", .own = "low", .was_low = TRUE, .score = -1,
				   .threshold = -1, .reason = "you wrote in this thread", .decided = 200 };
	ccsift_decision again = { .id = "a@x", .verdict = "low", .own = "low", .score = 0.02, .threshold = 0.05,
				  .reason = "scored", .decided = 300, .model_version = 2, .model_until = 60 };
	struct stat st;

	g_assert_cmpint(ccsift_decisions_open(&d, path, TRUE), ==, 0);
	g_assert_cmpint(ccsift_decisions_get(d, "a@x", &got), ==, 0);
	put_one(d, &low);
	put_one(d, &lifted);
	g_assert_cmpint(ccsift_decisions_get(d, "a@x", &got), ==, 1);
	g_assert_cmpstr(got->verdict, ==, "relevant");
	g_assert_cmpstr(got->reason, ==, "you wrote in this thread");
	g_assert_true(got->was_low);
	g_assert_cmpfloat_with_epsilon(got->score, 0.03, 1e-9);
	g_assert_cmpint(got->model_until, ==, 50);
	g_assert_cmpstr(got->repo, ==, "demo");
	g_clear_pointer(&got, ccsift_decision_free);
	/* Low again: was_low stays, the new score and fit replace the old. */
	put_one(d, &again);
	g_assert_cmpint(ccsift_decisions_get(d, "a@x", &got), ==, 1);
	g_assert_true(got->was_low);
	g_assert_cmpfloat_with_epsilon(got->score, 0.02, 1e-9);
	g_assert_cmpint(got->model_until, ==, 60);
	g_assert_cmpint(got->decided, ==, 300);
	ccsift_decisions_close(d);
	g_autofree char *sub = g_path_get_dirname(path);
	g_assert_cmpint(stat(sub, &st), ==, 0);
	g_assert_cmpint(st.st_mode & 0777, ==, 0700);
}

static void test_refused(void)
{
	g_autofree char *dir = tmp_dir();
	g_autofree char *path = g_build_filename(dir, "decisions.db", NULL);
	g_autofree char *missing = g_build_filename(dir, "none.db", NULL);
	ccsift_decisions *d = NULL;

	/* Read-only: no store is "nothing recorded", and nothing is created. */
	g_assert_cmpint(ccsift_decisions_open(&d, missing, FALSE), ==, CCSIFT_ENOTFOUND);
	g_assert_false(g_file_test(missing, G_FILE_TEST_EXISTS));
	g_assert_cmpint(ccsift_decisions_open(&d, path, TRUE), ==, 0);
	ccsift_decisions_close(d);
	g_assert_cmpint(g_chmod(path, 0666), ==, 0);
	g_assert_cmpint(ccsift_decisions_open(&d, path, FALSE), ==, CCSIFT_EINVALID);
	g_assert_nonnull(strstr(ccsift_error_last(), "writable by everyone"));
	g_assert_null(d);
}

static void assert_margins(ccsift_decisions *d, const char *repo, int64_t before, unsigned n, const double *want)
{
	g_autoptr(GArray) got = g_array_new(FALSE, FALSE, sizeof(double));

	g_assert_cmpint(ccsift_decisions_replied_margins(d, repo, before, got), ==, 0);
	g_assert_cmpuint(got->len, ==, n);
	for (unsigned i = 0; i < n; i++)
		g_assert_cmpfloat_with_epsilon(g_array_index(got, double, i), want[i], 1e-9);
}

/* A patch's margin stays when a thread rule moves it; replied is what the
 * latest put says (the thread's best patch moves when a better one comes). */
static void test_replied_margins(void)
{
	g_autofree char *dir = tmp_dir();
	g_autofree char *path = g_build_filename(dir, "decisions.db", NULL);
	ccsift_decisions *d = NULL;
	g_autoptr(ccsift_decision) got = NULL;
	ccsift_decision a = { .id = "a@x", .verdict = "low", .own = "low", .score = 0.01, .threshold = 0.05,
			      .decided = 100, .repo = "demo", .has_margin = TRUE, .margin = -1.5 };
	ccsift_decision b = { .id = "b@x", .verdict = "relevant", .own = "relevant", .score = 0.2, .threshold = 0.05,
			      .decided = 100, .repo = "demo", .has_margin = TRUE, .margin = 0.5 };
	ccsift_decision other = { .id = "c@x", .verdict = "low", .own = "low", .score = 0.01, .threshold = 0.05,
				  .decided = 100, .repo = "other", .has_margin = TRUE, .margin = -2, .replied = 150 };
	/* Lifted by the user's reply: not scored again, and replied to. */
	ccsift_decision a_replied = { .id = "a@x", .verdict = "relevant", .own = "low", .was_low = TRUE, .score = -1,
				      .threshold = -1, .decided = 200, .replied = 150 };
	const double one[] = { -1.5 }, both[] = { 0.5, -1.5 };  /* newest reply first */

	g_assert_cmpint(ccsift_decisions_open(&d, path, TRUE), ==, 0);
	put_one(d, &a);
	put_one(d, &b);
	put_one(d, &other);
	assert_margins(d, "demo", 1000, 0, NULL);
	put_one(d, &a_replied);
	g_assert_cmpint(ccsift_decisions_get(d, "a@x", &got), ==, 1);
	g_assert_true(got->has_margin);
	g_assert_cmpfloat_with_epsilon(got->margin, -1.5, 1e-9);
	g_assert_cmpint(got->replied, ==, 150);
	assert_margins(d, "demo", 1000, 1, one);
	/* Only replies before the time asked about. */
	assert_margins(d, "demo", 150, 0, NULL);
	b.replied = 160;
	put_one(d, &b);
	assert_margins(d, "demo", 1000, 2, both);
	/* The thread's best moved to b: a is no longer the one replied to. */
	a_replied.replied = 0;
	put_one(d, &a_replied);
	assert_margins(d, "demo", 1000, 1, both);
	ccsift_decisions_close(d);
}

/* However many threads the user wrote in, a delivery reads the newest
 * CCSIFT_DECISIONS_MAX_REPLIED. */
static void test_replied_bounded(void)
{
	g_autofree char *dir = tmp_dir();
	g_autofree char *path = g_build_filename(dir, "decisions.db", NULL);
	g_autoptr(GArray) got = g_array_new(FALSE, FALSE, sizeof(double));
	ccsift_decisions *d = NULL;

	g_assert_cmpint(ccsift_decisions_open(&d, path, TRUE), ==, 0);
	g_assert_cmpint(ccsift_decisions_begin(d), ==, 0);
	for (int i = 0; i <= CCSIFT_DECISIONS_MAX_REPLIED; i++) {
		g_autofree char *id = g_strdup_printf("%d@x", i);
		ccsift_decision dec = { .id = id, .verdict = "relevant", .own = "low", .score = 0.01,
					.threshold = 0.05, .decided = 100, .repo = "demo", .has_margin = TRUE,
					.margin = -i, .replied = 1000 + i };

		g_assert_cmpint(ccsift_decisions_put(d, &dec), ==, 0);
	}
	g_assert_cmpint(ccsift_decisions_commit(d), ==, 0);
	g_assert_cmpint(ccsift_decisions_replied_margins(d, "demo", G_MAXINT64, got), ==, 0);
	g_assert_cmpuint(got->len, ==, CCSIFT_DECISIONS_MAX_REPLIED);
	/* The oldest reply (margin 0) is the one left out. */
	g_assert_cmpfloat(g_array_index(got, double, 0), ==, -CCSIFT_DECISIONS_MAX_REPLIED);
	g_assert_cmpfloat(g_array_index(got, double, got->len - 1), ==, -1);
	ccsift_decisions_close(d);
}

/* A store as a ccsift of its version 1 left it, with one decision. */
static void make_version_1(const char *path)
{
	sqlite3 *db = NULL;

	g_assert_cmpint(sqlite3_open(path, &db), ==, SQLITE_OK);
	g_assert_cmpint(sqlite3_exec(db, "PRAGMA journal_mode=WAL;"
				     "CREATE TABLE decision (id TEXT PRIMARY KEY, verdict TEXT NOT NULL, own TEXT,"
				     " was_low INTEGER NOT NULL DEFAULT 0, score REAL, threshold REAL, reason TEXT,"
				     " decided INTEGER NOT NULL, model_version INTEGER, model_until INTEGER, repo TEXT)"
				     " WITHOUT ROWID; INSERT INTO decision VALUES ('a@x', 'low', 'low', 0, 0.01, 0.05,"
				     " 'scored', 100, 2, 50, 'demo'); PRAGMA user_version=1;", 0, 0, 0), ==, SQLITE_OK);
	sqlite3_close(db);
}

/* A store of an older ccsift: read as it is, upgraded when written. */
static void test_version_1(void)
{
	g_autofree char *dir = tmp_dir();
	g_autofree char *path = g_build_filename(dir, "decisions.db", NULL);
	g_autoptr(ccsift_decision) got = NULL;
	ccsift_decisions *d = NULL;

	make_version_1(path);
	g_assert_cmpint(ccsift_decisions_open(&d, path, FALSE), ==, 0);
	g_assert_cmpint(ccsift_decisions_get(d, "a@x", &got), ==, 1);
	g_assert_cmpstr(got->verdict, ==, "low");
	g_assert_false(got->has_margin);
	assert_margins(d, "demo", 1000, 0, NULL);
	ccsift_decisions_close(d);
	g_clear_pointer(&got, ccsift_decision_free);
	g_assert_cmpint(ccsift_decisions_open(&d, path, TRUE), ==, 0);
	g_assert_cmpint(ccsift_decisions_get(d, "a@x", &got), ==, 1);
	g_assert_cmpstr(got->repo, ==, "demo");
	g_assert_cmpint(got->traits, ==, -1);
	ccsift_decisions_close(d);
}

/* make_version_1's store, upgraded by a writable open: its decision kept,
 * with nothing of what later versions add. */
static void assert_upgraded_version_1(const char *path)
{
	g_autoptr(ccsift_decision) got = NULL;
	ccsift_decisions *d = NULL;

	g_assert_cmpint(ccsift_decisions_open(&d, path, TRUE), ==, 0);
	g_assert_cmpint(ccsift_decisions_get(d, "a@x", &got), ==, 1);
	g_assert_cmpstr(got->verdict, ==, "low");
	g_assert_false(got->has_margin);
	g_assert_cmpint(got->traits, ==, -1);
	ccsift_decisions_close(d);
}

static gpointer open_writable(gpointer path)
{
	ccsift_decisions *d = NULL;
	int rc = ccsift_decisions_open(&d, path, TRUE);

	ccsift_decisions_close(d);
	return GINT_TO_POINTER(rc);
}

/* Two ccsift tag runs after an upgrade: the one that waited for the lock
 * finds the store upgraded by the other (its columns there already), and
 * goes on from that version. */
static void test_upgraded_meanwhile(void)
{
	g_autofree char *dir = tmp_dir();
	g_autofree char *path = g_build_filename(dir, "decisions.db", NULL);
	sqlite3 *other = NULL;
	GThread *waiting;

	make_version_1(path);
	g_assert_cmpint(sqlite3_open(path, &other), ==, SQLITE_OK);
	g_assert_cmpint(sqlite3_exec(other, "BEGIN IMMEDIATE;"
				     "ALTER TABLE decision ADD COLUMN margin REAL;"
				     "ALTER TABLE decision ADD COLUMN replied INTEGER;"
				     "PRAGMA user_version=2;", 0, 0, 0), ==, SQLITE_OK);
	waiting = g_thread_new("open", open_writable, path);
	g_usleep(300 * 1000);  /* (it waits for the lock, up to 10 s) */
	g_assert_cmpint(sqlite3_exec(other, "COMMIT", 0, 0, 0), ==, SQLITE_OK);
	sqlite3_close(other);
	g_assert_cmpint(GPOINTER_TO_INT(g_thread_join(waiting)), ==, 0);
	assert_upgraded_version_1(path);
}

/* A store an older ccsift's upgrade left half way, statement by statement:
 * version 1, with the first column of version 2 added. It is upgraded,
 * not refused by every run after as "cannot upgrade: not an error". */
static void test_half_upgraded(void)
{
	g_autofree char *dir = tmp_dir();
	g_autofree char *path = g_build_filename(dir, "decisions.db", NULL);
	sqlite3 *db = NULL;

	make_version_1(path);
	g_assert_cmpint(sqlite3_open(path, &db), ==, SQLITE_OK);
	g_assert_cmpint(sqlite3_exec(db, "ALTER TABLE decision ADD COLUMN margin REAL", 0, 0, 0), ==, SQLITE_OK);
	sqlite3_close(db);
	assert_upgraded_version_1(path);
}

/* Traits are kept from the last put that had them. */
static void test_traits_kept(void)
{
	g_autofree char *dir = tmp_dir();
	g_autofree char *path = g_build_filename(dir, "decisions.db", NULL);
	g_autoptr(ccsift_decision) got = NULL;
	ccsift_decision read = { .id = "a@x", .verdict = "low", .own = "low", .score = -1, .threshold = -1,
				 .decided = 100, .traits = 0x10301 };
	ccsift_decision unread = { .id = "a@x", .verdict = "relevant", .own = "low", .score = -1,
				   .threshold = -1, .decided = 200, .traits = -1 };
	ccsift_decisions *d = NULL;

	g_assert_cmpint(ccsift_decisions_open(&d, path, TRUE), ==, 0);
	put_one(d, &read);
	put_one(d, &unread);
	g_assert_cmpint(ccsift_decisions_get(d, "a@x", &got), ==, 1);
	g_assert_cmpstr(got->verdict, ==, "relevant");
	g_assert_cmpint(got->traits, ==, 0x10301);
	ccsift_decisions_close(d);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/decisions/lifted-keeps-what-it-rests-on", test_lifted_keeps_what_it_rests_on);
	g_test_add_func("/decisions/refused", test_refused);
	g_test_add_func("/decisions/replied-margins", test_replied_margins);
	g_test_add_func("/decisions/replied-bounded", test_replied_bounded);
	g_test_add_func("/decisions/version-1", test_version_1);
	g_test_add_func("/decisions/upgraded-meanwhile", test_upgraded_meanwhile);
	g_test_add_func("/decisions/half-upgraded", test_half_upgraded);
	g_test_add_func("/decisions/traits-kept", test_traits_kept);
	return g_test_run();
}
