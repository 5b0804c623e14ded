/* A first build (bulk on) holds its credits and touches until each
 * transaction commits, and writes them in key order: the tables must come
 * out as an update writing each row at once leaves them, duplicates
 * resolved the same way (the first row of a key stays), a rolled-back
 * transaction's rows gone, and a committed transaction's rows readable
 * before the next one commits. */
#include <string.h>
#include <sqlite3.h>
#include <glib/gstdio.h>
#include "index.h"
#include "commit-spec.h"

#define T0 ((int64_t)1700000000)
#define DAY ((int64_t)86400)

/* Commit number n of the history: people and files in turns, with a
 * credit given twice, a path touched twice (its first status and counts
 * are the ones kept) and a rename. */
static void add_commit(ccsift_index *idx, int n)
{
	static const char *const files[] = { "drv/a.c", "drv/b.c", "lib/x.c", "lib/y.c", "doc/z.txt" };
	commit_spec c;

	commit_spec_init(&c, n, T0 + (1000 - n) * DAY);
	add_credit(&c, n % 4, CCSIFT_ROLE_AUTHOR);
	add_credit(&c, (n + 1) % 4, CCSIFT_ROLE_COMMITTER);
	if (n % 3 == 0)
		add_credit(&c, (n + 2) % 4, CCSIFT_ROLE_REVIEWED);
	if (n % 5 == 0)
		add_credit(&c, (n + 2) % 4, CCSIFT_ROLE_REVIEWED);
	add_touch(&c, 'M', files[n % 5], NULL, n % 7 ? n : -1);
	if (n % 4 == 1)
		add_touch(&c, 'A', files[n % 5], NULL, 99);
	if (n % 6 == 2)
		add_touch(&c, 'R', files[(n + 3) % 5], files[(n + 1) % 5], 0);
	commit_spec_add(idx, &c);
}

static char *dump(const char *path, const char *sql)
{
	GString *out = g_string_new(NULL);
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;

	g_assert_cmpint(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
	g_assert_cmpint(sqlite3_prepare_v2(db, sql, -1, &s, NULL), ==, SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(s); i++)
			g_string_append_printf(out, "%s%s", i ? "|" : "",
					       sqlite3_column_type(s, i) == SQLITE_NULL ? "NULL"
										: (const char *)sqlite3_column_text(s, i));
		g_string_append_c(out, '\n');
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
	return g_string_free(out, FALSE);
}

#define CREDITS "SELECT p.email, c.oid, r.role FROM credits r JOIN people p ON p.id = r.person" \
		" JOIN commits c ON c.id = r.cid ORDER BY 1, 2, 3"
#define TOUCHES "SELECT p.path, c.oid, t.status, o.path, t.added, t.removed FROM touches t" \
		" JOIN paths p ON p.id = t.path JOIN commits c ON c.id = t.cid" \
		" LEFT JOIN paths o ON o.id = t.old_path ORDER BY 1, 2"

/* 300 commits in three transactions, a fourth of 50 rolled back between
 * the first and the second; bulk turned off in the last before it
 * commits. */
static void build(const char *path, gboolean bulk)
{
	ccsift_index *idx = NULL;
	int n = 0;

	g_assert_cmpint(ccsift_index_open(&idx, path, CCSIFT_INDEX_READ_WRITE), ==, 0);
	ccsift_index_set_bulk(idx, bulk);
	for (int txn = 0; txn < 4; txn++) {
		g_assert_cmpint(ccsift_index_begin(idx), ==, 0);
		for (int i = 0; i < (txn == 1 ? 50 : 100); i++)
			add_commit(idx, txn == 1 ? 10000 + i : n++);
		if (txn == 1) {
			ccsift_index_rollback(idx);
			continue;
		}
		/* bulk off with rows held: they go into the open transaction */
		if (txn == 3)
			ccsift_index_set_bulk(idx, FALSE);
		g_assert_cmpint(ccsift_index_commit(idx), ==, 0);
		if (txn == 0) {
			/* what one transaction committed is there before the next */
			g_autofree char *credits = dump(path, "SELECT count(*) FROM credits");
			g_autofree char *touches = dump(path, "SELECT count(*) FROM touches");

			g_assert_cmpint(atoi(credits), >, 200);
			g_assert_cmpint(atoi(touches), >, 100);
		}
	}
	g_assert_cmpint(ccsift_index_begin(idx), ==, 0);
	g_assert_cmpint(ccsift_index_finish(idx), ==, 0);
	g_assert_cmpint(ccsift_index_commit(idx), ==, 0);
	ccsift_index_free(idx);
}

static void test_bulk_same_rows(void)
{
	g_autofree char *dir = g_dir_make_tmp("ccsift-load-XXXXXX", NULL);
	g_autofree char *a = g_build_filename(dir, "bulk.db", NULL);
	g_autofree char *b = g_build_filename(dir, "each.db", NULL);

	build(a, TRUE);
	build(b, FALSE);
	for (const char *const *q = (const char *const[]){ CREDITS, TOUCHES, "SELECT count(*) FROM commits",
							     "SELECT * FROM engagement ORDER BY 1, 2, 3", NULL };
	     *q; q++) {
		g_autofree char *x = dump(a, *q);
		g_autofree char *y = dump(b, *q);

		g_assert_cmpstr(x, ==, y);
		g_assert_cmpuint(strlen(x), >, 0);
	}
	{
		/* the rolled-back commits left nothing, the first of a twice-touched path stayed */
		g_autofree char *gone = dump(a, "SELECT count(*) FROM commits WHERE oid >= printf('%040x', 10001)");
		g_autofree char *first = dump(a, "SELECT t.status, t.added FROM touches t JOIN commits c ON c.id = t.cid"
						 " WHERE c.oid = printf('%040x', 2)");
		g_autofree char *orphans = dump(a, "SELECT count(*) FROM touches WHERE cid NOT IN (SELECT id FROM commits)");

		g_assert_cmpstr(gone, ==, "0\n");
		g_assert_cmpstr(first, ==, "M|1\n");
		g_assert_cmpstr(orphans, ==, "0\n");
	}
	index_files_remove(a);
	index_files_remove(b);
	g_rmdir(dir);
}

/* The engagement table a first build makes is what the credits say: one
 * row a person and commit, 1 if they engaged (reviewed, acked, tested, or
 * applied another's patch), 2 if they wrote it. Among the commits: a
 * person who applied their own patch (a second address of theirs), one
 * who reviewed their own, credits given twice, other roles (signed,
 * reported), and commits of one time, whose rows go by commit. */
#define ENGAGEMENT_FROM_CREDITS \
	"SELECT r.person, c.ctime, r.cid, c.author," \
	" max(CASE WHEN r.role IN (2, 3, 4) OR (r.role = 1 AND c.author <> r.person) THEN 1 ELSE 0 END)" \
	" | (max(r.role = 0) << 1) AS f FROM credits r JOIN commits c ON c.id = r.cid" \
	" GROUP BY r.person, r.cid HAVING f <> 0 ORDER BY 1, 2, 3"

static void test_engagement_at_once(void)
{
	g_autofree char *dir = g_dir_make_tmp("ccsift-load-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "index.db", NULL);
	ccsift_index *idx = NULL;

	g_assert_cmpint(ccsift_index_open(&idx, path, CCSIFT_INDEX_READ_WRITE), ==, 0);
	ccsift_index_set_bulk(idx, TRUE);
	g_assert_cmpint(ccsift_index_begin(idx), ==, 0);
	for (int n = 0; n < 120; n++) {
		commit_spec c;

		commit_spec_init(&c, n, T0 + (200 - n / 3) * DAY);
		add_credit(&c, n % 4, CCSIFT_ROLE_AUTHOR);
		if (n % 5 == 1) {
			/* applied by its author under another address */
			ccsift_credit_record cr = { emails[n % 4], emails[n % 4], CCSIFT_ROLE_COMMITTER, "other@example.org" };

			g_array_append_val(c.rec.credits, cr);
		} else {
			add_credit(&c, (n + 1) % 4, CCSIFT_ROLE_COMMITTER);
		}
		if (n % 7 == 2)
			add_credit(&c, n % 4, CCSIFT_ROLE_REVIEWED);
		add_credit(&c, (n + 2) % 4, n % 3 == 0 ? CCSIFT_ROLE_TESTED : CCSIFT_ROLE_SIGNED);
		if (n % 4 == 3)
			add_credit(&c, (n + 2) % 4, CCSIFT_ROLE_ACKED);
		add_credit(&c, (n + 3) % 4, n % 2 ? CCSIFT_ROLE_REPORTED : CCSIFT_ROLE_REVIEWED);
		add_touch(&c, 'M', n % 2 ? "drv/a.c" : "lib/x.c", NULL, 1);
		commit_spec_add(idx, &c);
	}
	g_assert_cmpint(ccsift_index_commit(idx), ==, 0);
	g_assert_cmpint(ccsift_index_begin(idx), ==, 0);
	g_assert_cmpint(ccsift_index_finish(idx), ==, 0);
	g_assert_cmpint(ccsift_index_commit(idx), ==, 0);
	ccsift_index_free(idx);
	{
		g_autofree char *want = dump(path, ENGAGEMENT_FROM_CREDITS);
		g_autofree char *got = dump(path, "SELECT * FROM engagement ORDER BY 1, 2, 3");
		g_autofree char *own = dump(path, "SELECT count(*) FROM engagement e WHERE e.flags = 2 AND EXISTS"
						  " (SELECT 1 FROM credits r WHERE r.cid = e.cid AND r.person = e.person"
						  " AND r.role = 1)");

		g_assert_cmpstr(got, ==, want);
		g_assert_cmpuint(strlen(got), >, 0);
		/* applying one's own patch is not engaging with it */
		g_assert_cmpint(atoi(own), >, 0);
	}
	index_files_remove(path);
	g_rmdir(dir);
}

/* Rows still held when bulk goes off belong to the transaction left open:
 * if writing them fails, that transaction is rolled back, the caller told,
 * and what committed before stays. (A trigger refusing acked credits is
 * what makes the write fail.) */
static void add_plain_commits(ccsift_index *idx, int from, int n, gboolean acked)
{
	for (int i = from; i < from + n; i++) {
		commit_spec c;

		commit_spec_init(&c, i, T0 + (500 - i) * DAY);
		add_credit(&c, i % 4, CCSIFT_ROLE_AUTHOR);
		add_credit(&c, (i + 1) % 4, acked && i == from + 2 ? CCSIFT_ROLE_ACKED : CCSIFT_ROLE_REVIEWED);
		add_touch(&c, 'M', "drv/a.c", NULL, 1);
		commit_spec_add(idx, &c);
	}
}

static void test_bulk_off_write_fails(void)
{
	g_autofree char *dir = g_dir_make_tmp("ccsift-load-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "index.db", NULL);
	ccsift_index *idx = NULL;
	sqlite3 *db = NULL;

	g_assert_cmpint(ccsift_index_open(&idx, path, CCSIFT_INDEX_READ_WRITE), ==, 0);
	ccsift_index_free(idx);
	g_assert_cmpint(sqlite3_open(path, &db), ==, SQLITE_OK);
	g_assert_cmpint(sqlite3_exec(db, "CREATE TRIGGER refuse BEFORE INSERT ON credits WHEN NEW.role = 3"
				     " BEGIN SELECT RAISE(ABORT, 'refused'); END", 0, 0, 0), ==, SQLITE_OK);
	sqlite3_close(db);

	g_assert_cmpint(ccsift_index_open(&idx, path, CCSIFT_INDEX_READ_WRITE), ==, 0);
	ccsift_index_set_bulk(idx, TRUE);
	g_assert_cmpint(ccsift_index_begin(idx), ==, 0);
	add_plain_commits(idx, 0, 10, FALSE);
	g_assert_cmpint(ccsift_index_commit(idx), ==, 0);
	g_assert_cmpint(ccsift_index_begin(idx), ==, 0);
	add_plain_commits(idx, 10, 10, TRUE);
	g_assert_cmpint(ccsift_index_set_bulk(idx, FALSE), <, 0);
	g_assert_false(ccsift_index_writing(idx));
	/* still usable, row by row now */
	g_assert_cmpint(ccsift_index_begin(idx), ==, 0);
	add_plain_commits(idx, 20, 1, FALSE);
	g_assert_cmpint(ccsift_index_commit(idx), ==, 0);
	ccsift_index_free(idx);
	{
		g_autofree char *commits = dump(path, "SELECT count(*) FROM commits");
		g_autofree char *credits = dump(path, "SELECT count(*) FROM credits");
		g_autofree char *touches = dump(path, "SELECT count(*) FROM touches");

		g_assert_cmpstr(commits, ==, "11\n");
		g_assert_cmpstr(credits, ==, "22\n");
		g_assert_cmpstr(touches, ==, "11\n");
	}
	index_files_remove(path);
	g_rmdir(dir);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/index/bulk-load-same-rows", test_bulk_same_rows);
	g_test_add_func("/index/engagement-at-once", test_engagement_at_once);
	g_test_add_func("/index/bulk-off-write-fails", test_bulk_off_write_fails);
	return g_test_run();
}
