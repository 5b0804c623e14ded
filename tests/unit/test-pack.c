/* Objects read from packs by core/pack.c are libgit2's, byte for byte:
 * every object of a history packed with deltas against offsets and
 * against ids, with chains; what no pack holds, or is bigger than asked,
 * is not read; a header alone is its object's; a clone's alternates are
 * read as its own; in a pack of thousands, every object is found where it
 * is and no id beside one is; an object whose bytes in the pack are
 * damaged is not read at all, and what was read outlives its reader; a
 * walk's reader, keeping more, reads the same. */
#include <string.h>
#include <glib/gstdio.h>
#include "pack.h"
#include "repo.h"

static void git(const char *dir, const char *const *args)
{
	GPtrArray *argv = g_ptr_array_new();
	g_autofree char *err = NULL;
	int status = 0;

	g_ptr_array_add(argv, "git");
	g_ptr_array_add(argv, "-C");
	g_ptr_array_add(argv, (char *)dir);
	for (; *args; args++)
		g_ptr_array_add(argv, (char *)*args);
	g_ptr_array_add(argv, NULL);
	g_assert_true(g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
				   NULL, NULL, NULL, &err, &status, NULL));
	if (!g_spawn_check_wait_status(status, NULL))
		g_error("git %s: %s", ((char **)argv->pdata)[3], err);
	g_ptr_array_free(argv, TRUE);
}

static char *git_out(const char *dir, const char *const *args)
{
	const char *argv[16] = { "git", "-C", dir };
	char *out = NULL;
	int status = 0, n = 3;

	for (; *args && n < 15; args++)
		argv[n++] = *args;
	g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
				   NULL, &out, NULL, &status, NULL));
	g_assert_true(g_spawn_check_wait_status(status, NULL));
	return out;
}

/* A file in thirty versions and a directory of twenty files: deltas. */
static char *make_history(void)
{
	g_autofree char *tmp = g_dir_make_tmp("ccsift-pack-XXXXXX", NULL);
	char *repo = g_build_filename(tmp, "repo", NULL);
	g_autoptr(GString) big = g_string_new(NULL);

	g_assert_cmpint(g_mkdir(repo, 0700), ==, 0);
	git(repo, (const char *[]){ "init", "-q", NULL });
	for (int i = 0; i < 2000; i++)
		g_string_append_printf(big, "line %d of a file that changes a little each time\n", i);
	for (int v = 0; v < 30; v++) {
		g_autofree char *file = g_build_filename(repo, "big.c", NULL);
		g_autofree char *dir = g_build_filename(repo, "dir", NULL);
		g_autofree char *small = g_strdup_printf("%s/f%d.c", dir, v % 20);
		g_autofree char *body = g_strdup_printf("int v = %d;\n", v);
		g_autofree char *msg = g_strdup_printf("version %d", v);

		g_string_append_printf(big, "version %d\n", v);
		g_assert_true(g_file_set_contents(file, big->str, (gssize)big->len, NULL));
		g_mkdir_with_parents(dir, 0700);
		g_assert_true(g_file_set_contents(small, body, -1, NULL));
		git(repo, (const char *[]){ "add", ".", NULL });
		git(repo, (const char *[]){ "-c", "user.name=A U Thor", "-c", "user.email=author@example.org", "commit",
					    "-q", "-m", msg, NULL });
	}
	return repo;
}

/* Every object git lists reads as libgit2 reads it, or the pack has none;
 * with `walk`, through a reader keeping what a walk keeps. */
static void check_every_object(const char *repo, gboolean walk)
{
	g_autofree char *objects = g_build_filename(repo, ".git", "objects", NULL);
	g_autofree char *list = git_out(repo, (const char *[]){ "cat-file", "--batch-all-objects",
								"--batch-check=%(objectname)", NULL });
	g_auto(GStrv) ids = g_strsplit(list, "\n", -1);
	ccsift_pack_reader *r = ccsift_pack_reader_new(objects);
	git_odb *odb = NULL;
	unsigned read = 0;

	g_assert_nonnull(r);
	if (walk)
		ccsift_pack_reader_cache_for_walk(r);
	g_assert_cmpint(git_odb_open(&odb, objects), ==, 0);
	for (char **id = ids; *id && **id; id++) {
		g_autoptr(GBytes) bytes = NULL;
		git_odb_object *obj = NULL;
		git_object_t type;
		size_t size;
		git_oid oid;

		g_assert_cmpint(git_oid_fromstr(&oid, *id), ==, 0);
		g_assert_cmpint(git_odb_read(&obj, odb, &oid), ==, 0);
		g_assert_cmpint(ccsift_pack_read(r, &oid, 1u << 30, &type, &bytes), ==, 0);
		g_assert_cmpint(type, ==, git_odb_object_type(obj));
		g_assert_cmpmem(g_bytes_get_data(bytes, NULL), g_bytes_get_size(bytes), git_odb_object_data(obj),
				git_odb_object_size(obj));
		/* twice: the second from the reader's cache */
		g_clear_pointer(&bytes, g_bytes_unref);
		g_assert_cmpint(ccsift_pack_read(r, &oid, 1u << 30, &type, &bytes), ==, 0);
		g_assert_cmpmem(g_bytes_get_data(bytes, NULL), g_bytes_get_size(bytes), git_odb_object_data(obj),
				git_odb_object_size(obj));
		/* and its header alone */
		g_assert_cmpint(ccsift_pack_read_header(r, &oid, &type, &size), ==, 0);
		g_assert_cmpint(type, ==, git_odb_object_type(obj));
		g_assert_cmpuint(size, ==, git_odb_object_size(obj));
		git_odb_object_free(obj);
		read++;
	}
	g_assert_cmpuint(read, >, 90);
	git_odb_free(odb);
	ccsift_pack_reader_unref(r);
}

static void test_pack_as_libgit2(void)
{
	g_autofree char *repo = make_history();
	g_autofree char *objects = g_build_filename(repo, ".git", "objects", NULL);
	g_autofree char *head = NULL;
	g_autofree char *chains = NULL;
	g_autoptr(GBytes) bytes = NULL;
	ccsift_pack_reader *r;
	git_object_t type;
	git_oid oid;

	/* Loose only: no pack, no reader. */
	g_assert_null(ccsift_pack_reader_new(objects));

	git(repo, (const char *[]){ "repack", "-q", "-a", "-d", "-f", "--depth=50", "--window=50", NULL });
	chains = git_out(repo, (const char *[]){ "count-objects", "-v", NULL });
	g_assert_nonnull(strstr(chains, "in-pack: "));
	check_every_object(repo, FALSE);
	check_every_object(repo, TRUE);

	git(repo, (const char *[]){ "-c", "repack.useDeltaBaseOffset=false", "repack", "-q", "-a", "-d", "-f",
				    "--depth=50", "--window=50", NULL });
	check_every_object(repo, FALSE);

	/* Not in a pack, or bigger than asked: not read. */
	r = ccsift_pack_reader_new(objects);
	g_assert_nonnull(r);
	git_oid_fromstr(&oid, "0123456789012345678901234567890123456789");
	g_assert_cmpint(ccsift_pack_read(r, &oid, 1u << 30, &type, &bytes), <, 0);
	g_assert_null(bytes);
	head = git_out(repo, (const char *[]){ "rev-parse", "HEAD:big.c", NULL });
	g_strstrip(head);
	git_oid_fromstr(&oid, head);
	g_assert_cmpint(ccsift_pack_read(r, &oid, 1000, &type, &bytes), <, 0);
	g_assert_cmpint(ccsift_pack_read(r, &oid, 1u << 30, &type, &bytes), ==, 0);
	g_assert_cmpint(type, ==, GIT_OBJECT_BLOB);
	ccsift_pack_reader_unref(r);
	/* the reader gone (and its cache), the bytes read stay */
	g_assert_cmpuint(g_bytes_get_size(bytes), >, 100000);
	g_assert_cmpmem(g_bytes_get_data(bytes, NULL), 7, "line 0 ", 7);
	g_clear_pointer(&bytes, g_bytes_unref);

	/* A clone with --shared has no object of its own: its history is
	 * read from the packs its objects/info/alternates names. */
	{
		g_autofree char *shared = g_strconcat(repo, "-shared", NULL);
		g_autofree char *shared_objects = g_build_filename(shared, "objects", NULL);

		git(repo, (const char *[]){ "clone", "-q", "--bare", "--shared", repo, shared, NULL });
		r = ccsift_pack_reader_new(shared_objects);
		g_assert_nonnull(r);
		g_assert_cmpint(ccsift_pack_read(r, &oid, 1u << 30, &type, &bytes), ==, 0);
		g_assert_cmpint(type, ==, GIT_OBJECT_BLOB);
		ccsift_pack_reader_unref(r);
	}
	{
		g_autofree char *tmp = g_path_get_dirname(repo);
		const char *rm[] = { "rm", "-rf", tmp, NULL };

		g_spawn_sync(NULL, (char **)rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
	}
}

/* 6,000 files, about 23 objects an id's first byte: the lookup guesses
 * where an id is within its fan-out bucket before it halves. */
static void test_pack_many_objects(void)
{
	g_autofree char *tmp = g_dir_make_tmp("ccsift-pack-XXXXXX", NULL);
	g_autofree char *repo = g_build_filename(tmp, "repo", NULL);
	g_autofree char *objects = g_build_filename(repo, ".git", "objects", NULL);
	g_autofree char *list = NULL;
	g_auto(GStrv) ids = NULL;
	g_autoptr(GHashTable) listed = g_hash_table_new(g_str_hash, g_str_equal);
	ccsift_pack_reader *r;
	unsigned absent = 0;

	g_assert_cmpint(g_mkdir(repo, 0700), ==, 0);
	git(repo, (const char *[]){ "init", "-q", NULL });
	for (int i = 0; i < 6000; i++) {
		g_autofree char *file = g_strdup_printf("%s/f%d", repo, i);
		g_autofree char *body = g_strdup_printf("file number %d\n", i);

		g_assert_true(g_file_set_contents(file, body, -1, NULL));
	}
	git(repo, (const char *[]){ "add", ".", NULL });
	git(repo, (const char *[]){ "-c", "user.name=A U Thor", "-c", "user.email=author@example.org", "commit", "-q",
				    "-m", "many", NULL });
	git(repo, (const char *[]){ "repack", "-q", "-a", "-d", NULL });
	check_every_object(repo, TRUE);

	list = git_out(repo, (const char *[]){ "cat-file", "--batch-all-objects", "--batch-check=%(objectname)", NULL });
	ids = g_strsplit(list, "\n", -1);
	for (char **id = ids; *id && **id; id++)
		g_hash_table_add(listed, *id);
	g_assert_cmpuint(g_hash_table_size(listed), >, 6000);
	r = ccsift_pack_reader_new(objects);
	g_assert_nonnull(r);
	for (char **id = ids; *id && **id; id++) {
		git_oid oid;

		g_assert_cmpint(git_oid_fromstr(&oid, *id), ==, 0);
		/* the ids just below and above it, where no object has them */
		for (int d = -1; d <= 1; d += 2) {
			git_oid near = oid;
			char hex[GIT_OID_HEXSZ + 1];
			g_autoptr(GBytes) bytes = NULL;
			git_object_t type;

			near.id[GIT_OID_RAWSZ - 1] = (unsigned char)(near.id[GIT_OID_RAWSZ - 1] + d);
			if (g_hash_table_contains(listed, git_oid_tostr(hex, sizeof(hex), &near)))
				continue;
			g_assert_cmpint(ccsift_pack_read(r, &near, 1u << 20, &type, &bytes), <, 0);
			absent++;
		}
	}
	g_assert_cmpuint(absent, >, 12000);
	ccsift_pack_reader_unref(r);
	{
		const char *rm[] = { "rm", "-rf", tmp, NULL };

		g_spawn_sync(NULL, (char **)rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
	}
}

/* One byte changed in the middle of a blob's data in the pack: the blob
 * is refused (its checksum fails), never read as other bytes; the
 * commit beside it still reads. */
static void test_pack_damaged(void)
{
	g_autofree char *tmp = g_dir_make_tmp("ccsift-pack-XXXXXX", NULL);
	g_autofree char *repo = g_build_filename(tmp, "repo", NULL);
	g_autofree char *objects = g_build_filename(repo, ".git", "objects", NULL);
	g_autofree char *file = g_build_filename(repo, "text", NULL);
	g_autofree char *blob = NULL, *commit = NULL, *idx = NULL, *listing = NULL, *pack = NULL;
	g_autoptr(GString) text = g_string_new(NULL);
	g_autoptr(GBytes) bytes = NULL;
	g_auto(GStrv) lines = NULL;
	g_autofree char *data = NULL;
	gsize len = 0;
	guint64 off = 0, packed = 0;
	ccsift_pack_reader *r;
	git_object_t type;
	git_oid oid;

	g_assert_cmpint(g_mkdir(repo, 0700), ==, 0);
	git(repo, (const char *[]){ "init", "-q", NULL });
	for (int i = 0; i < 5000; i++)
		g_string_append_printf(text, "line %d: %d\n", i, i * 7919 % 10007);
	g_assert_true(g_file_set_contents(file, text->str, (gssize)text->len, NULL));
	git(repo, (const char *[]){ "add", ".", NULL });
	git(repo, (const char *[]){ "-c", "user.name=A U Thor", "-c", "user.email=author@example.org", "commit", "-q",
				    "-m", "text", NULL });
	/* stored, not compressed: a byte changed is a byte changed, which
	 * only the stream's checksum tells */
	git(repo, (const char *[]){ "-c", "pack.compression=0", "repack", "-q", "-a", "-d", "-f", NULL });
	blob = g_strstrip(git_out(repo, (const char *[]){ "rev-parse", "HEAD:text", NULL }));
	commit = g_strstrip(git_out(repo, (const char *[]){ "rev-parse", "HEAD", NULL }));
	idx = g_strstrip(git_out(repo, (const char *[]){ "rev-parse", "--git-path", "objects/pack", NULL }));
	{
		g_autofree char *dir = g_build_filename(repo, idx, NULL);
		g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
		const char *name;

		while (d && (name = g_dir_read_name(d)))
			if (g_str_has_suffix(name, ".idx")) {
				g_free(idx);
				idx = g_build_filename(dir, name, NULL);
			}
	}
	g_assert_true(g_str_has_suffix(idx, ".idx"));
	/* "id type size size-in-pack offset" for each object */
	listing = git_out(repo, (const char *[]){ "verify-pack", "-v", idx, NULL });
	lines = g_strsplit(listing, "\n", -1);
	for (char **l = lines; *l; l++)
		if (g_str_has_prefix(*l, blob))
			g_assert_cmpint(sscanf(*l + strlen(blob), " blob %*u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
					       &packed, &off), ==, 2);
	g_assert_cmpuint(packed, >, 100);

	pack = g_strndup(idx, strlen(idx) - 4);
	pack = g_realloc(pack, strlen(pack) + 6);
	strcat(pack, ".pack");
	g_assert_true(g_file_get_contents(pack, &data, &len, NULL));
	g_assert_cmpuint(off + packed, <, len);
	data[off + packed / 2] ^= 0x5a;
	g_assert_cmpint(g_chmod(pack, 0644), ==, 0);
	g_assert_true(g_file_set_contents(pack, data, (gssize)len, NULL));

	r = ccsift_pack_reader_new(objects);
	g_assert_nonnull(r);
	git_oid_fromstr(&oid, blob);
	g_assert_cmpint(ccsift_pack_read(r, &oid, 1u << 30, &type, &bytes), <, 0);
	g_assert_null(bytes);
	git_oid_fromstr(&oid, commit);
	g_assert_cmpint(ccsift_pack_read(r, &oid, 1u << 30, &type, &bytes), ==, 0);
	g_assert_cmpint(type, ==, GIT_OBJECT_COMMIT);
	ccsift_pack_reader_unref(r);
	{
		const char *rm[] = { "rm", "-rf", tmp, NULL };

		g_spawn_sync(NULL, (char **)rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	ccsift_repo_init();
	g_test_add_func("/pack/as-libgit2", test_pack_as_libgit2);
	g_test_add_func("/pack/many-objects", test_pack_many_objects);
	g_test_add_func("/pack/damaged", test_pack_damaged);
	return g_test_run();
}
