/* shallow.c: boundary commits of a shallow clone, served without parents.
 *
 * The backend comes first among the repository's object stores and knows
 * only the boundary commits: for them it serves the commit as stored, less
 * its "parent" lines; every other object it passes to the stores behind
 * it. The copies are made when it is attached, from an object database of
 * their own (the repository's own would cache the originals).
 */
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include "error.h"
#include "odb.h"
#include "shallow.h"

/* More boundary commits than this is not a clone anyone made by hand;
 * the file is refused past the size of that many lines. */
#define MAX_BOUNDARY 100000
#define MAX_FILE (MAX_BOUNDARY * (GIT_OID_HEXSZ + 1))

struct ccsift_shallow {
	gint refs;
	GHashTable *commits;   /* git_oid * -> GBytes, the commit without parents */
	char *digest;
};

typedef struct {
	git_odb_backend parent;
	ccsift_shallow *shallow;
} shallow_backend;

static ccsift_shallow *shallow_ref(ccsift_shallow *s)
{
	g_atomic_int_inc(&s->refs);
	return s;
}

void ccsift_shallow_unref(ccsift_shallow *s)
{
	if (!s || !g_atomic_int_dec_and_test(&s->refs))
		return;
	g_hash_table_unref(s->commits);
	g_free(s->digest);
	g_free(s);
}

gboolean ccsift_shallow_is_boundary(const ccsift_shallow *s, const git_oid *oid)
{
	return s && g_hash_table_contains(s->commits, oid);
}

const char *ccsift_shallow_digest(const ccsift_shallow *s)
{
	return s ? s->digest : "";
}

/* The commit's header without its parent lines, then the rest as is. */
static GBytes *without_parents(const char *data, size_t len)
{
	GByteArray *out = g_byte_array_sized_new(len);
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(data + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - data) + 1 : len;

		if (end - i == 1) {  /* the blank line: the message follows */
			g_byte_array_append(out, (const guint8 *)data + i, len - i);
			break;
		}
		if (!(end - i > 7 && memcmp(data + i, "parent ", 7) == 0))
			g_byte_array_append(out, (const guint8 *)data + i, end - i);
		i = end;
	}
	return g_byte_array_free_to_bytes(out);
}

static int backend_read(void **out, size_t *len, git_object_t *type, git_odb_backend *b, const git_oid *oid)
{
	GBytes *bytes = g_hash_table_lookup(((shallow_backend *)b)->shallow->commits, oid);

	if (!bytes)
		return GIT_ENOTFOUND;
	*type = GIT_OBJECT_COMMIT;
	return ccsift_odb_answer(b, bytes, out, len);
}

static int backend_read_header(size_t *len, git_object_t *type, git_odb_backend *b, const git_oid *oid)
{
	GBytes *bytes = g_hash_table_lookup(((shallow_backend *)b)->shallow->commits, oid);

	if (!bytes)
		return GIT_ENOTFOUND;
	*len = g_bytes_get_size(bytes);
	*type = GIT_OBJECT_COMMIT;
	return 0;
}

static int backend_exists(git_odb_backend *b, const git_oid *oid)
{
	return g_hash_table_contains(((shallow_backend *)b)->shallow->commits, oid);
}

static void backend_free(git_odb_backend *b)
{
	ccsift_shallow_unref(((shallow_backend *)b)->shallow);
	g_free(b);
}

/* The boundary commits listed in the file, each read as stored. */
static ccsift_shallow *read_boundary(const char *objects, const char *text)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", MAX_BOUNDARY + 1);
	ccsift_shallow *s = g_new0(ccsift_shallow, 1);
	git_odb *odb = NULL;

	s->refs = 1;
	s->commits = g_hash_table_new_full(ccsift_oid_hash, ccsift_oid_equal, g_free, (GDestroyNotify)g_bytes_unref);
	s->digest = g_compute_checksum_for_string(G_CHECKSUM_SHA1, text, -1);
	if (git_odb_open(&odb, objects) < 0) {
		git_error_clear();
		return s;
	}
	for (guint i = 0; lines[i] && i < MAX_BOUNDARY; i++) {
		git_oid oid;
		git_odb_object *obj = NULL;

		g_strstrip(lines[i]);
		if (strlen(lines[i]) != GIT_OID_HEXSZ || git_oid_fromstr(&oid, lines[i]) < 0)
			continue;
		/* A boundary commit the clone lacks is no parent to stop at. */
		if (git_odb_read(&obj, odb, &oid) == 0 && git_odb_object_type(obj) == GIT_OBJECT_COMMIT)
			g_hash_table_insert(s->commits, g_memdup2(&oid, sizeof(oid)),
					    without_parents(git_odb_object_data(obj), git_odb_object_size(obj)));
		git_odb_object_free(obj);
		git_error_clear();
	}
	git_odb_free(odb);
	return s;
}

int ccsift_shallow_attach(git_repository *repo, ccsift_shallow **out)
{
	g_autofree char *file = g_build_filename(git_repository_commondir(repo), "shallow", NULL);
	g_autofree char *objects = g_build_filename(git_repository_commondir(repo), "objects", NULL);
	g_autofree char *text = NULL;
	shallow_backend *b;
	ccsift_shallow *s;

	*out = NULL;
	if (!(text = ccsift_odb_read_small_file(file, MAX_FILE)) || !*text)
		return 0;
	s = read_boundary(objects, text);
	if (g_hash_table_size(s->commits) == 0) {
		ccsift_shallow_unref(s);
		return 0;
	}
	b = g_new0(shallow_backend, 1);
	git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION);
	b->parent.read = backend_read;
	b->parent.read_header = backend_read_header;
	b->parent.exists = backend_exists;
	b->parent.free = backend_free;
	b->shallow = shallow_ref(s);
	/* Before the loose (1) and packed (2) stores. */
	if (ccsift_odb_add_backend(repo, &b->parent, 100) < 0) {
		backend_free(&b->parent);
		ccsift_shallow_unref(s);
		return ccsift_error_set(CCSIFT_ERROR, "shallow clone: %s",
					git_error_last() ? git_error_last()->message : "cannot add its boundary");
	}
	*out = s;
	return 0;
}
