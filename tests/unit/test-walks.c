/* The walks held in memory (core/walks.h) give, row for row, what the
 * index's walks give: for each person asked about in turn (the roles are
 * theirs, not the first one's), as of any time, with any sibling excepted,
 * from a directory's prefix, and after another connection wrote the index;
 * with the commits indexed oldest first, and newest first (as a walk from
 * the tip indexes them) with some out of order. */
#include <string.h>
#include <glib/gstdio.h>
#include "index.h"
#include "walks.h"
#include "commit-spec.h"

#define T0 ((int64_t)1700000000)
#define DAY ((int64_t)86400)
#define BIG 17000   /* more touches in one directory than its list holds */


/* When the n-th commit indexed was made. */
static int64_t when(int n, gboolean newest_first)
{
	if (newest_first)
		return T0 + (43 - n) * DAY + (n % 7 == 3 ? 2 * DAY : 0);
	return T0 + (n < 40 ? n : n + 1) * DAY;
}

/* drv/ and lib/ files touched by the three people in turns, a rename from
 * lib/ into drv/, and one commit filling big/ past a directory's list. */
static void build(const char *path, gboolean newest_first)
{
	static const char *const files[] = { "drv/a.c", "drv/b.c", "drv/c.c", "lib/x.c", "lib/y.c" };
	ccsift_index *idx = NULL;
	commit_spec c;
	int n = 0;

	g_assert_cmpint(ccsift_index_open(&idx, path, CCSIFT_INDEX_READ_WRITE), ==, 0);
	g_assert_cmpint(ccsift_index_begin(idx), ==, 0);
	for (; n < 40; n++) {
		commit_spec_init(&c, n, when(n, newest_first));
		add_credit(&c, n % 3, CCSIFT_ROLE_AUTHOR);
		if (n % 4 == 0)
			add_credit(&c, (n + 1) % 3, CCSIFT_ROLE_COMMITTER);
		if (n % 3 == 1)
			add_credit(&c, (n + 2) % 3, CCSIFT_ROLE_REVIEWED);
		add_touch(&c, 'M', files[n % 5], NULL, n % 7 ? n : -1);
		if (n % 2)
			add_touch(&c, 'M', files[(n + 2) % 5], NULL, 3);
		commit_spec_add(idx, &c);
	}
	commit_spec_init(&c, n, when(n, newest_first));
	n++;
	add_credit(&c, 1, CCSIFT_ROLE_AUTHOR);
	add_touch(&c, 'R', "drv/d.c", "lib/y.c", 0);
	commit_spec_add(idx, &c);
	commit_spec_init(&c, n, when(n, newest_first));
	n++;
	add_credit(&c, 2, CCSIFT_ROLE_AUTHOR);
	for (int i = 0; i < BIG; i++) {
		g_autofree char *f = g_strdup_printf("big/f%05d.c", i);

		add_touch(&c, 'A', f, NULL, 1);
	}
	commit_spec_add(idx, &c);
	commit_spec_init(&c, n, when(n, newest_first));
	n++;
	add_credit(&c, 0, CCSIFT_ROLE_AUTHOR);
	add_touch(&c, 'M', "big/f00001.c", NULL, 2);
	commit_spec_add(idx, &c);
	g_assert_cmpint(ccsift_index_commit(idx), ==, 0);
	g_assert_cmpint(ccsift_index_finish(idx), ==, 0);
	ccsift_index_free(idx);
}

typedef struct {
	GString *out;
	unsigned left;      /* rows taken before the next one stops the walk */
} collect;

static int take(const ccsift_touch *t, void *payload)
{
	collect *c = payload;

	if (c->left-- == 0)
		return 1;
	g_string_append_printf(c->out, "%" G_GINT64_FORMAT " %s %s %s %s %c %d %d %" G_GINT64_FORMAT
			       " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %d %d %u %d\n",
			       t->cid, t->oid, t->subject ? t->subject : "(null)", t->path,
			       t->old_path ? t->old_path : "-", t->status, t->added, t->removed, t->atime, t->ctime,
			       t->author, t->committer, t->nfiles, t->ntop, t->flags, t->roles);
	return 0;
}

/* take, but of a row no asked person has a role in only what the
 * delivery's sibling walk gives (ccsift_index_foreach_sibling_evidence_for). */
static int take_evidence(const ccsift_touch *t, void *payload)
{
	collect *c = payload;

	if (t->roles != 0)
		return take(t, payload);
	if (c->left-- == 0)
		return 1;
	g_string_append_printf(c->out, "%" G_GINT64_FORMAT " %s %s %c %d %d 0\n", t->cid, t->path,
			       t->old_path ? t->old_path : "-", t->status, t->added, t->removed);
	return 0;
}

/* take, of the rows an asked person has a role in (or may have) only,
 * counting every row: what the scorer keeps of a sibling walk. */
static int take_theirs(const ccsift_touch *t, void *payload)
{
	collect *c = payload;

	if (t->roles != 0)
		return take(t, payload);
	return c->left-- == 0;
}

static GArray *people_of(ccsift_index *idx, unsigned mask)
{
	GArray *people = g_array_new(FALSE, FALSE, sizeof(int64_t));

	for (unsigned i = 0; i < G_N_ELEMENTS(emails); i++) {
		int64_t id = ccsift_index_person_id(idx, emails[i]);

		if (mask & (1u << i))
			g_array_append_val(people, id);
	}
	return people;
}

static void same_credits(ccsift_index *idx, ccsift_walks *w, int64_t cid)
{
	g_autoptr(GArray) a = g_array_new(FALSE, FALSE, sizeof(ccsift_credit));
	g_autoptr(GArray) b = g_array_new(FALSE, FALSE, sizeof(ccsift_credit));

	g_assert_cmpint(ccsift_index_commit_credits(idx, cid, a), ==, 0);
	g_assert_cmpint(ccsift_walks_commit_credits(w, cid, b), ==, 0);
	g_assert_cmpuint(b->len, ==, a->len);
	for (guint i = 0; i < a->len; i++) {
		g_assert_cmpint(g_array_index(b, ccsift_credit, i).person, ==, g_array_index(a, ccsift_credit, i).person);
		g_assert_cmpint(g_array_index(b, ccsift_credit, i).role, ==, g_array_index(a, ccsift_credit, i).role);
	}
}

static void same_path_walk(ccsift_index *idx, ccsift_walks *w, const char *path, int64_t before, GArray *people)
{
	collect a = { g_string_new(NULL), G_MAXUINT }, b = { g_string_new(NULL), G_MAXUINT };

	g_assert_cmpint(ccsift_index_foreach_touch_for(idx, path, before, people, take, &a), ==, 0);
	g_assert_cmpint(ccsift_walks_foreach_touch_for(w, path, before, people, take, &b), ==, 0);
	g_assert_cmpstr(b.out->str, ==, a.out->str);
	/* without people: no roles (-1), as the index's plain walk */
	g_string_truncate(a.out, 0);
	g_string_truncate(b.out, 0);
	g_assert_cmpint(ccsift_index_foreach_touch(idx, path, before, take, &a), ==, 0);
	g_assert_cmpint(ccsift_walks_foreach_touch(w, path, before, take, &b), ==, 0);
	g_assert_cmpstr(b.out->str, ==, a.out->str);
	g_string_free(a.out, TRUE);
	g_string_free(b.out, TRUE);
}

static void same_sibling_walk(ccsift_index *idx, ccsift_walks *w, const char *dir, const char *except,
			      int64_t before, GArray *people, unsigned enough)
{
	collect a = { g_string_new(NULL), enough }, b = { g_string_new(NULL), enough };
	int ra = ccsift_index_foreach_sibling_touch_for(idx, dir, except, before, people, take, &a);
	int rb = ccsift_walks_foreach_sibling_touch_for(w, dir, except, before, people, enough, take, &b);

	g_assert_cmpint(rb, ==, ra);
	g_assert_cmpstr(b.out->str, ==, a.out->str);
	/* The delivery's walk: the same rows in the same order, a commit read
	 * only where an asked person has a role. */
	g_string_truncate(a.out, 0);
	g_string_truncate(b.out, 0);
	a.left = b.left = enough;
	ra = ccsift_index_foreach_sibling_touch_for(idx, dir, except, before, people, take_evidence, &a);
	rb = ccsift_index_foreach_sibling_evidence_for(idx, dir, except, before, people, take_evidence, &b);
	g_assert_cmpint(rb, ==, ra);
	g_assert_cmpstr(b.out->str, ==, a.out->str);
	/* and the walks' own, as of any time: of the same first `enough`
	 * rows, those an asked person has a role in, and no call for the rest */
	g_string_truncate(a.out, 0);
	g_string_truncate(b.out, 0);
	a.left = b.left = enough;
	g_assert_cmpint(ccsift_index_foreach_sibling_evidence_for(idx, dir, except, before, people, take_theirs, &a),
			>=, 0);
	rb = ccsift_walks_foreach_sibling_evidence_for(w, dir, except, before, people, enough, take_evidence, &b);
	g_assert_cmpint(rb, >=, 0);
	g_assert_cmpstr(b.out->str, ==, a.out->str);
	g_string_free(a.out, TRUE);
	g_string_free(b.out, TRUE);
}

static const int64_t befores[] = { T0, T0 + 10 * DAY + 1, T0 + 10 * DAY, T0 + 42 * DAY, G_MAXINT64 };

/* Each person's engagements by area, as of every time. */
static void same_areas(ccsift_index *idx, ccsift_walks *w)
{
	for (unsigned p = 0; p < G_N_ELEMENTS(emails); p++) {
		static const char *const areas[] = { "drv", "lib", "LIB", "lib2", "net", "" };
		int64_t person = ccsift_index_person_id(idx, emails[p]);

		for (unsigned t = 0; t < G_N_ELEMENTS(befores); t++)
			for (unsigned a = 0; a < G_N_ELEMENTS(areas); a++)
				for (int64_t span = 10 * DAY; span <= 365 * DAY; span += 355 * DAY) {
					int64_t before = befores[t] == G_MAXINT64 ? T0 + 60 * DAY : befores[t];

					g_assert_cmpuint(ccsift_walks_count_engaged_in_area(w, person, areas[a],
											before - span, before, 100),
							 ==, ccsift_index_count_engaged_in_area(idx, person, areas[a],
												before - span, before, 100));
					g_assert_cmpuint(ccsift_walks_count_engaged_in_area(w, person, areas[a],
											before - span, before, 2),
							 ==, ccsift_index_count_engaged_in_area(idx, person, areas[a],
												before - span, before, 2));
				}
	}
}

/* The big directory's walks, each of which the index answers by sorting
 * all its rows and asking each person's roles in every one (most of this
 * test's time): nobody asked, Bob (no role there), Carol (who added its
 * files) and Carol with Alice (who changed one since), with no exception
 * and with its own file excepted (a file elsewhere is the drv walks'). */
static gboolean big_case(unsigned mask, const char *except)
{
	return (mask == 0 || mask == 2 || mask == 4 || mask == 5) && (!except || strcmp(except, "big/f00001.c") == 0);
}

/* Every person set, time and exception, in an order that has the walks
 * serve each list to several people and times after reading it once. */
static void same_walks(ccsift_index *idx, ccsift_walks *w)
{
	static const char *const paths[] = { "drv/a.c", "drv/b.c", "drv/d.c", "lib/x.c", "lib/y.c", "big/f00001.c",
					     "none.c" };
	static const char *const excepts[] = { NULL, "drv/a.c", "drv/d.c", "big/f00001.c" };
	static const char *const tails[] = { "a.c", "d.c", "y.c", "00001.c", "f00001.c", "none.c", "v/a.c" };

	for (int64_t cid = 1; cid <= 45; cid++)
		same_credits(idx, w, cid);
	for (unsigned i = 0; i < G_N_ELEMENTS(tails) * 2; i++) {
		g_autofree char *a = ccsift_index_resolve_tail(idx, tails[i / 2], i % 2);
		g_autofree char *b = ccsift_walks_resolve_tail(w, tails[i / 2], i % 2);

		g_assert_cmpstr(b, ==, a);
	}
	same_areas(idx, w);
	for (unsigned mask = 0; mask < 8; mask++) {
		g_autoptr(GArray) people = people_of(idx, mask);

		for (unsigned t = 0; t < G_N_ELEMENTS(befores); t++) {
			for (unsigned p = 0; p < G_N_ELEMENTS(paths); p++)
				same_path_walk(idx, w, paths[p], befores[t], people);
			for (unsigned e = 0; e < G_N_ELEMENTS(excepts); e++) {
				same_sibling_walk(idx, w, "drv", excepts[e], befores[t], people, 4000);
				same_sibling_walk(idx, w, "drv", excepts[e], befores[t], people, 3);
				if (!big_case(mask, excepts[e]))
					continue;
				same_sibling_walk(idx, w, "big", excepts[e], befores[t], people, 4000);
				same_sibling_walk(idx, w, "big", excepts[e], befores[t], people, 2);
			}
		}
	}
}

static void check_walks(gboolean newest_first)
{
	g_autoptr(GError) err = NULL;
	g_autofree char *dir = g_dir_make_tmp("ccsift-walks-XXXXXX", &err);
	g_autofree char *path = g_build_filename(dir, "index.db", NULL);
	ccsift_index *idx = NULL, *writer = NULL;
	ccsift_walks *w, *later, *plain;
	unsigned changes;
	commit_spec c;

	g_assert_no_error(err);
	build(path, newest_first);
	g_assert_cmpint(ccsift_index_open(&idx, path, CCSIFT_INDEX_READ_ONLY), ==, 0);
	/* as a replay holds them (each person's credits and engagements, all
	 * of them or from a time on), and as a delivery does */
	w = ccsift_walks_new(idx, 1u << 20);
	ccsift_walks_hold_people(w, 0);
	later = ccsift_walks_new(idx, 1u << 20);
	ccsift_walks_hold_people(later, T0 + 20 * DAY);
	plain = ccsift_walks_new(idx, 1u << 20);
	changes = ccsift_walks_check(w);
	ccsift_walks_check(later);
	ccsift_walks_check(plain);
	same_walks(idx, w);
	same_areas(idx, later);
	same_walks(idx, plain);
	g_assert_cmpuint(ccsift_walks_check(w), ==, changes);

	/* Another connection adds Bob's review of drv/a.c: the next check
	 * drops what was read, and the walks show it. */
	g_assert_cmpint(ccsift_index_open(&writer, path, CCSIFT_INDEX_READ_WRITE), ==, 0);
	g_assert_cmpint(ccsift_index_begin(writer), ==, 0);
	commit_spec_init(&c, 100, T0 + 44 * DAY);
	add_credit(&c, 0, CCSIFT_ROLE_AUTHOR);
	add_credit(&c, 1, CCSIFT_ROLE_REVIEWED);
	add_touch(&c, 'M', "drv/a.c", NULL, 5);
	commit_spec_add(writer, &c);
	g_assert_cmpint(ccsift_index_commit(writer), ==, 0);
	ccsift_index_free(writer);
	g_assert_cmpuint(ccsift_walks_check(w), !=, changes);
	ccsift_walks_check(later);
	ccsift_walks_check(plain);
	same_walks(idx, w);
	same_areas(idx, later);
	same_walks(idx, plain);

	ccsift_walks_free(w);
	ccsift_walks_free(later);
	ccsift_walks_free(plain);
	ccsift_index_free(idx);
	index_files_remove(path);
	g_rmdir(dir);
}

/* A person who engaged with more commits than the walks hold (a Linux
 * maintainer's) is asked about through the index, and let go cleanly. */
static void test_walks_engaged_too_often_to_hold(void)
{
	g_autoptr(GError) err = NULL;
	g_autofree char *dir = g_dir_make_tmp("ccsift-walks-XXXXXX", &err);
	g_autofree char *path = g_build_filename(dir, "index.db", NULL);
	const int n = 65537 + 10;
	ccsift_index *idx = NULL;
	ccsift_walks *all, *recent;
	commit_spec c;
	int64_t carol;

	g_assert_no_error(err);
	g_assert_cmpint(ccsift_index_open(&idx, path, CCSIFT_INDEX_READ_WRITE), ==, 0);
	g_assert_cmpint(ccsift_index_begin(idx), ==, 0);
	for (int i = 0; i < n; i++) {
		commit_spec_init(&c, i, T0 + i * 600);
		add_credit(&c, i % 2, CCSIFT_ROLE_AUTHOR);
		add_credit(&c, 2, CCSIFT_ROLE_REVIEWED);
		if (i % 4000 == 1)
			add_credit(&c, 3, CCSIFT_ROLE_TESTED);
		add_touch(&c, 'M', i % 2 ? "drv/a.c" : "lib/x.c", NULL, 1);
		commit_spec_add(idx, &c);
	}
	g_assert_cmpint(ccsift_index_commit(idx), ==, 0);
	g_assert_cmpint(ccsift_index_finish(idx), ==, 0);
	carol = ccsift_index_person_id(idx, emails[2]);
	/* all of them, too many; and her last 55 days' 7,900, held */
	all = ccsift_walks_new(idx, 1u << 20);
	ccsift_walks_hold_people(all, 0);
	recent = ccsift_walks_new(idx, 1u << 20);
	ccsift_walks_hold_people(recent, T0 + 400 * DAY);
	ccsift_walks_check(all);
	ccsift_walks_check(recent);
	for (int64_t before = T0 + DAY; before <= T0 + n * 600 + DAY; before += 13 * DAY)
		for (int64_t span = DAY; span <= 365 * DAY; span += 364 * DAY) {
			unsigned want = ccsift_index_count_engaged_in_area(idx, carol, "drv", before - span, before, 100);

			g_assert_cmpuint(ccsift_walks_count_engaged_in_area(all, carol, "drv", before - span, before, 100),
					 ==, want);
			g_assert_cmpuint(ccsift_walks_count_engaged_in_area(recent, carol, "drv", before - span, before,
									    100), ==, want);
			g_assert_cmpuint(ccsift_walks_count_engaged_in_area(recent, carol, "drv", before - span, before,
									    1000), ==,
					 ccsift_index_count_engaged_in_area(idx, carol, "drv", before - span, before,
									    1000));
		}
	g_assert_cmpuint(ccsift_walks_count_engaged_in_area(all, carol, "drv", T0, T0 + 30 * DAY, 100), ==, 100);
	/* her credits, more than a set's roles held (Alice's are held, and
	 * Dave's few, over many commits, without their bits) */
	for (unsigned mask = 1; mask < 16; mask++) {
		g_autoptr(GArray) people = people_of(idx, mask);

		same_path_walk(idx, all, "drv/a.c", T0 + 100 * DAY, people);
		same_path_walk(idx, all, "lib/x.c", G_MAXINT64, people);
	}
	ccsift_walks_free(all);
	ccsift_walks_free(recent);
	ccsift_index_free(idx);
	index_files_remove(path);
	g_rmdir(dir);
}

static void test_walks_as_the_index(void)
{
	check_walks(FALSE);
}

static void test_walks_newest_first(void)
{
	check_walks(TRUE);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/walks/as-the-index", test_walks_as_the_index);
	g_test_add_func("/walks/as-the-index-newest-first", test_walks_newest_first);
	g_test_add_func("/walks/engaged-too-often-to-hold", test_walks_engaged_too_often_to_hold);
	return g_test_run();
}
