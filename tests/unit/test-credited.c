/* A hot file's credited touches (ccsift_index_foreach_credited_touch): for
 * a person under several addresses, every commit crediting any of them
 * once, in commit order, with the roles of all; the same however many
 * addresses there are, past the number read one arm each and merged. */
#include <string.h>
#include <glib/gstdio.h>
#include "index.h"
#include "commit-spec.h"

#define T0 ((int64_t)1700000000)
#define DAY ((int64_t)86400)
#define COMMITS 240   /* a hot file: HOT_TOUCHES (200) or more */

static int collect(const ccsift_touch *t, void *payload)
{
	g_string_append_printf(payload, "%" G_GINT64_FORMAT ":%u\n", t->cid, t->roles);
	return 0;
}

static char *credited(ccsift_index *idx, GArray *people)
{
	GString *out = g_string_new(NULL);

	g_assert_cmpint(ccsift_index_foreach_credited_touch(idx, "drv/hot.c", T0 + 1000 * DAY, people, collect, out),
			==, 0);
	return g_string_free(out, FALSE);
}

static void test_addresses_merged(void)
{
	g_autofree char *dir = g_dir_make_tmp("ccsift-credited-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "index.db", NULL);
	g_autoptr(GArray) two = g_array_new(FALSE, FALSE, sizeof(int64_t));
	g_autoptr(GArray) many = NULL;
	g_autofree char *one = NULL, *merged = NULL, *sorted = NULL;
	ccsift_index *idx = NULL;
	int64_t alice, bob;

	g_assert_cmpint(ccsift_index_open(&idx, path, CCSIFT_INDEX_READ_WRITE), ==, 0);
	g_assert_cmpint(ccsift_index_begin(idx), ==, 0);
	for (int n = 0; n < COMMITS; n++) {
		commit_spec c;

		commit_spec_init(&c, n, T0 + n * DAY);
		add_credit(&c, n % 4, CCSIFT_ROLE_AUTHOR);
		add_credit(&c, (n + 1) % 4, CCSIFT_ROLE_COMMITTER);
		if (n % 3 == 0)
			add_credit(&c, (n + 2) % 4, CCSIFT_ROLE_REVIEWED);
		add_touch(&c, 'M', "drv/hot.c", NULL, 1);
		commit_spec_add(idx, &c);
	}
	g_assert_cmpint(ccsift_index_finish(idx), ==, 0);
	g_assert_cmpint(ccsift_index_commit(idx), ==, 0);
	alice = ccsift_index_person_id(idx, emails[0]);
	bob = ccsift_index_person_id(idx, emails[1]);
	g_assert_cmpint(alice, >, 0);
	g_assert_cmpint(bob, >, 0);

	/* Alice alone: a commit a line (author, committer, reviewer) */
	g_array_append_val(two, alice);
	one = credited(idx, two);
	g_assert_cmpuint(strlen(one), >, 0);
	/* Alice and Bob as one person: each commit once, both their roles */
	g_array_append_val(two, bob);
	merged = credited(idx, two);
	{
		g_auto(GStrv) lines = g_strsplit(merged, "\n", -1);
		g_auto(GStrv) alone = g_strsplit(one, "\n", -1);
		int64_t last = 0;
		guint both = 0;

		/* n % 4 == 0: Alice wrote it, Bob applied it; one line */
		for (char **l = lines; *l && **l; l++) {
			int64_t cid = g_ascii_strtoll(*l, NULL, 10);
			unsigned roles = (unsigned)g_ascii_strtoull(strchr(*l, ':') + 1, NULL, 10);

			g_assert_cmpint(cid, >, last);
			last = cid;
			if (roles == (1u << CCSIFT_ROLE_AUTHOR | 1u << CCSIFT_ROLE_COMMITTER))
				both++;
		}
		g_assert_cmpuint(both, ==, COMMITS / 4);
		g_assert_cmpuint(g_strv_length(lines), >, g_strv_length(alone));
	}
	/* past the arms, the same */
	many = g_array_copy(two);
	for (int64_t i = 0; i < 70; i++) {
		int64_t nobody = 1000000 + i;

		g_array_append_val(many, nobody);
	}
	sorted = credited(idx, many);
	g_assert_cmpstr(sorted, ==, merged);
	ccsift_index_free(idx);
	index_files_remove(path);
	g_rmdir(dir);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/credited/addresses-merged", test_addresses_merged);
	return g_test_run();
}
