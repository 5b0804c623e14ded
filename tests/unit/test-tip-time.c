/* The time an index's history is as of (ccsift_index_tip_time): the
 * newest commit a clock could have seen, fixed for the tip it was settled
 * for; commits a run stopped half way added do not move it, nor does the
 * clock of a later update that found the tip where it was. */
#include <unistd.h>
#include <glib/gstdio.h>
#include "index.h"
#include "commit-spec.h"

#define T0 ((int64_t)1700000000)
#define DAY ((int64_t)86400)

static void add(ccsift_index *idx, int n, int64_t time)
{
	commit_spec c;

	commit_spec_init(&c, n, time);
	add_credit(&c, n % 3, CCSIFT_ROLE_AUTHOR);
	add_touch(&c, 'M', "drv/a.c", NULL, 1);
	commit_spec_add(idx, &c);
}

/* The oid commit_spec gives the n-th commit. */
static char *oid_of(int n)
{
	return g_strdup_printf("%040x", n + 1);
}

static ccsift_index *fresh(char **path)
{
	ccsift_index *idx = NULL;

	g_autofree char *name = g_strdup_printf("ccsift-test-tip-time-%d.db", (int)getpid());

	*path = g_build_filename(g_get_tmp_dir(), name, NULL);
	index_files_remove(*path);
	g_assert_cmpint(ccsift_index_open(&idx, *path, CCSIFT_INDEX_READ_WRITE), ==, 0);
	return idx;
}

static void test_tip_time_stopped_half_way(void)
{
	g_autofree char *path = NULL, *tip = oid_of(9);
	ccsift_index *idx = fresh(&path);

	for (int n = 0; n < 10; n++)
		add(idx, n, T0 + n * DAY);
	g_assert_cmpint(ccsift_index_meta_set(idx, "tip", tip), ==, 0);
	g_assert_cmpint(ccsift_index_tip_time_settle(idx), ==, 0);
	g_assert_cmpint(ccsift_index_finish(idx), ==, 0);
	g_assert_cmpint(ccsift_index_tip_time(idx), ==, T0 + 9 * DAY);
	/* A catch-up stopped at its deadline: the newest of the fetched
	 * commits in, the older ones not yet, the tip not moved. */
	for (int n = 19; n >= 15; n--)
		add(idx, n, T0 + (n + 100) * DAY);
	g_assert_cmpint(ccsift_index_finish(idx), ==, 0);
	g_assert_cmpint(ccsift_index_tip_time(idx), ==, T0 + 9 * DAY);
	/* An update that finds the tip where it was settles nothing anew. */
	g_assert_cmpint(ccsift_index_tip_time_settle(idx), ==, 0);
	g_assert_cmpint(ccsift_index_tip_time(idx), ==, T0 + 9 * DAY);
	ccsift_index_free(idx);
	index_files_remove(path);
}

static void test_tip_time_wrong_clocks(void)
{
	g_autofree char *path = NULL, *tip = oid_of(11);
	ccsift_index *idx = fresh(&path);

	for (int n = 0; n < 10; n++)
		add(idx, n, T0 + n * DAY);
	add(idx, 10, 253402300799);   /* 9999-12-31, on a side branch */
	add(idx, 11, 1);              /* the tip, committed in 1970 */
	g_assert_cmpint(ccsift_index_meta_set(idx, "tip", tip), ==, 0);
	g_assert_cmpint(ccsift_index_tip_time_settle(idx), ==, 0);
	g_assert_cmpint(ccsift_index_tip_time(idx), ==, T0 + 9 * DAY);
	ccsift_index_free(idx);
	index_files_remove(path);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tip-time/stopped-half-way", test_tip_time_stopped_half_way);
	g_test_add_func("/tip-time/wrong-clocks", test_tip_time_wrong_clocks);
	return g_test_run();
}
