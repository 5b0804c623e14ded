/* treediff.c: the files one commit changed, from its tree and its parent's.
 *
 * libgit2 1.5's git_diff_tree_to_tree expands every subtree, and even
 * git_tree_lookup parses every entry of a tree into an array before one is
 * compared. Here trees are read raw from the object database and their
 * entries compared in place, recursing only into subtrees whose ids
 * differ: O(changes), and no copy of an entry (on U-Boot the walk's tree
 * diffs took 40% less CPU than through git_tree).
 */
#include <string.h>
#include "error.h"
#include "treediff.h"

typedef struct {
	char status;
	char *path;
	char *old_path;
	git_oid old_id, new_id;
	int added, removed;
} change;

static void change_clear(change *c)
{
	g_free(c->path);
	g_free(c->old_path);
}

/* --- trees, raw ---
 *
 * A tree object is a sequence of "<octal mode> <name>\0<20-byte id>", in
 * git's order (a subtree's name sorts as if it ended in '/'). The entry
 * points into the object's data; names are NUL-terminated there. */

typedef struct {
	GBytes *bytes;
	git_oid tree_id;
	const unsigned char *pos, *end;
	/* the current entry */
	unsigned mode;            /* as libgit2 normalizes it (tree.c) */
	gboolean is_tree;
	const char *name;
	size_t len;
	git_oid id;
	gboolean at_end;
} raw_tree;

static unsigned normalize_mode(unsigned mode)
{
	if ((mode & 0170000) == GIT_FILEMODE_TREE)
		return GIT_FILEMODE_TREE;
	if (mode & 0100)
		return GIT_FILEMODE_BLOB_EXECUTABLE;
	if ((mode & 0170000) == GIT_FILEMODE_COMMIT)
		return GIT_FILEMODE_COMMIT;
	if ((mode & 0170000) == GIT_FILEMODE_LINK)
		return GIT_FILEMODE_LINK;
	return GIT_FILEMODE_BLOB;
}

static int broken(const raw_tree *t)
{
	return ccsift_error_set(CCSIFT_ERROR, "broken tree %s", git_oid_tostr_s(&t->tree_id));
}

/* Step to the next entry: 0, or negative if the tree is malformed. */
static int raw_tree_next(raw_tree *t)
{
	const unsigned char *p = t->pos, *nul;
	unsigned mode = 0;

	if (p == t->end) {
		t->at_end = TRUE;
		return 0;
	}
	while (p < t->end && *p >= '0' && *p <= '7' && mode <= 0xffff)
		mode = mode * 8 + (unsigned)(*p++ - '0');
	if (p == t->pos || mode > 0xffff || p == t->end || *p++ != ' ')
		return broken(t);
	nul = memchr(p, 0, (size_t)(t->end - p));
	if (!nul || nul == p || t->end - (nul + 1) < GIT_OID_RAWSZ)
		return broken(t);
	t->mode = normalize_mode(mode);
	t->is_tree = (mode & 0170000) == GIT_FILEMODE_TREE;
	t->name = (const char *)p;
	t->len = (size_t)(nul - p);
	memcpy(t->id.id, nul + 1, GIT_OID_RAWSZ);
	t->pos = nul + 1 + GIT_OID_RAWSZ;
	return 0;
}

/* Object id, from the packs where they have it, else from libgit2. */
static int read_object(git_odb *odb, ccsift_pack_reader *packs, const git_oid *id, git_object_t *type,
		       GBytes **out)
{
	git_odb_object *obj;

	if (packs && ccsift_pack_read(packs, id, CCSIFT_TREEDIFF_BLOB_MAX, type, out) == 0)
		return 0;
	if (git_odb_read(&obj, odb, id) < 0)
		return -1;
	*type = git_odb_object_type(obj);
	*out = g_bytes_new_with_free_func(git_odb_object_data(obj), git_odb_object_size(obj),
					  (GDestroyNotify)git_odb_object_free, obj);
	return 0;
}

/* Open tree id (NULL: an empty tree) at its first entry. */
static int raw_tree_open(git_odb *odb, ccsift_pack_reader *packs, const git_oid *id, raw_tree *t)
{
	git_object_t type;
	size_t len;

	memset(t, 0, sizeof(*t));
	t->at_end = TRUE;
	if (!id)
		return 0;
	t->tree_id = *id;
	if (read_object(odb, packs, id, &type, &t->bytes) < 0)
		return ccsift_error_set(CCSIFT_ENOTFOUND, "missing tree %s", git_oid_tostr_s(id));
	if (type != GIT_OBJECT_TREE)
		return ccsift_error_set(CCSIFT_ERROR, "%s is not a tree", git_oid_tostr_s(id));
	t->pos = g_bytes_get_data(t->bytes, &len);
	t->end = t->pos + len;
	t->at_end = FALSE;
	return raw_tree_next(t);
}

static void raw_tree_close(raw_tree *t)
{
	if (t->bytes)
		g_bytes_unref(t->bytes);
}

/* Git tree order, between two current entries. */
static int raw_tree_cmp(const raw_tree *a, const raw_tree *b)
{
	size_t n = MIN(a->len, b->len);
	int c = memcmp(a->name, b->name, n);
	unsigned char ca, cb;

	if (c)
		return c;
	ca = a->len > n ? (unsigned char)a->name[n] : a->is_tree ? '/' : 0;
	cb = b->len > n ? (unsigned char)b->name[n] : b->is_tree ? '/' : 0;
	return (int)ca - (int)cb;
}

/* --- the diff --- */

/* One tree diff: where it reads, the path so far, what it found. */
typedef struct {
	git_odb *odb;
	ccsift_pack_reader *packs;
	GString *prefix;
	GArray *out;          /* change */
	int depth;
} tree_diff;

/* git refuses trees nested deeper (core.maxTreeDepth); so do we, before
 * the recursion below runs out of stack. */
#define MAX_TREE_DEPTH 4096

static void add_change(tree_diff *d, char status, const raw_tree *old, const raw_tree *new)
{
	const raw_tree *e = new ? new : old;
	change c = { status, NULL, NULL };

	c.path = g_malloc(d->prefix->len + e->len + 1);
	memcpy(c.path, d->prefix->str, d->prefix->len);
	memcpy(c.path + d->prefix->len, e->name, e->len + 1);
	c.added = c.removed = -1;
	if (old)
		c.old_id = old->id;
	if (new)
		c.new_id = new->id;
	g_array_append_val(d->out, c);
}

static int diff_trees(tree_diff *d, const git_oid *a, const git_oid *b);

/* The current entry of one side, or of both: recurse into trees, record files. */
static int diff_entries(tree_diff *d, const raw_tree *old, const raw_tree *new)
{
	size_t len = d->prefix->len;
	const raw_tree *e = new ? new : old;
	int rc;

	if (!(old && old->is_tree) && !(new && new->is_tree)) {
		if (!old)
			add_change(d, 'A', NULL, new);
		else if (!new)
			add_change(d, 'D', old, NULL);
		else if ((old->mode & 0170000) != (new->mode & 0170000))
			add_change(d, 'T', old, new);
		else
			add_change(d, 'M', old, new);
		return 0;
	}
	if (d->depth >= MAX_TREE_DEPTH)
		return ccsift_error_set(CCSIFT_ERROR, "trees nested deeper than %d", MAX_TREE_DEPTH);
	g_string_append_len(d->prefix, e->name, (gssize)e->len);
	g_string_append_c(d->prefix, '/');
	d->depth++;
	rc = diff_trees(d, old ? &old->id : NULL, new ? &new->id : NULL);
	d->depth--;
	g_string_truncate(d->prefix, len);
	return rc;
}

static int diff_trees(tree_diff *d, const git_oid *a, const git_oid *b)
{
	raw_tree ta, tb;
	int rc = raw_tree_open(d->odb, d->packs, a, &ta);

	if (rc == 0)
		rc = raw_tree_open(d->odb, d->packs, b, &tb);
	else
		memset(&tb, 0, sizeof(tb));
	while (rc == 0 && (!ta.at_end || !tb.at_end)) {
		int c = ta.at_end ? 1 : tb.at_end ? -1 : raw_tree_cmp(&ta, &tb);

		if (c < 0) {
			rc = diff_entries(d, &ta, NULL);
			if (rc == 0)
				rc = raw_tree_next(&ta);
		} else if (c > 0) {
			rc = diff_entries(d, NULL, &tb);
			if (rc == 0)
				rc = raw_tree_next(&tb);
		} else {
			if (!git_oid_equal(&ta.id, &tb.id) || ta.mode != tb.mode)
				rc = diff_entries(d, &ta, &tb);
			if (rc == 0)
				rc = raw_tree_next(&ta);
			if (rc == 0)
				rc = raw_tree_next(&tb);
		}
	}
	raw_tree_close(&ta);
	raw_tree_close(&tb);
	return rc;
}

/* --- renames and line counts --- */

static void mark_rename(change *add, change *del)
{
	add->status = 'R';
	add->old_path = g_strdup(del->path);
	add->old_id = del->old_id;
	del->status = 'x';  /* folded into the rename */
}

static change *find_by_path(GArray *changes, const char *path, char status)
{
	for (guint i = 0; i < changes->len; i++) {
		change *c = &g_array_index(changes, change, i);

		if (c->status == status && strcmp(c->path, path) == 0)
			return c;
	}
	return NULL;
}

/* Inexact renames: libgit2's similarity on the few unpaired files only. */
static void find_similar(git_repository *repo, const git_oid *old_tree, const git_oid *new_tree,
			 GArray *changes, GPtrArray *paths)
{
	git_diff_options o;
	git_diff_find_options fo;
	git_diff *diff = NULL;
	git_tree *a = NULL, *b = NULL;

	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH | GIT_DIFF_SKIP_BINARY_CHECK;
	o.pathspec.strings = (char **)paths->pdata;
	o.pathspec.count = paths->len;
	git_diff_find_options_init(&fo, GIT_DIFF_FIND_OPTIONS_VERSION);
	fo.flags = GIT_DIFF_FIND_RENAMES;
	if ((old_tree && git_tree_lookup(&a, repo, old_tree) < 0) ||
	    (new_tree && git_tree_lookup(&b, repo, new_tree) < 0) ||
	    git_diff_tree_to_tree(&diff, repo, a, b, &o) < 0 || git_diff_find_similar(diff, &fo) < 0) {
		git_diff_free(diff);  /* missing blobs: keep them as A and D */
		git_tree_free(a);
		git_tree_free(b);
		git_error_clear();
		return;
	}
	for (size_t i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		change *add, *del;

		if (d->status != GIT_DELTA_RENAMED)
			continue;
		add = find_by_path(changes, d->new_file.path, 'A');
		del = find_by_path(changes, d->old_file.path, 'D');
		if (add && del)
			mark_rename(add, del);
	}
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
}

/* Each addition paired with the first deletion of the same blob not yet
 * paired, in the changes' order. By blob id: a commit that moves a tree of
 * 100,000 files compared every addition with every deletion. */
static void pair_exact(GArray *changes)
{
	g_autoptr(GHashTable) deleted = NULL;  /* blob id -> GQueue of change * */

	for (guint i = 0; i < changes->len; i++) {
		change *del = &g_array_index(changes, change, i);
		GQueue *q;

		if (del->status != 'D')
			continue;
		if (!deleted)
			deleted = g_hash_table_new_full(ccsift_oid_hash, ccsift_oid_equal, NULL, (GDestroyNotify)g_queue_free);
		if (!(q = g_hash_table_lookup(deleted, &del->old_id)))
			g_hash_table_insert(deleted, &del->old_id, q = g_queue_new());
		g_queue_push_tail(q, del);
	}
	for (guint i = 0; deleted && i < changes->len; i++) {
		change *add = &g_array_index(changes, change, i);
		GQueue *q;

		if (add->status == 'A' && (q = g_hash_table_lookup(deleted, &add->new_id)) && !g_queue_is_empty(q))
			mark_rename(add, g_queue_pop_head(q));
	}
}

gboolean ccsift_treediff_blob_fits(git_odb *odb, const git_oid *id, size_t max)
{
	size_t size;
	git_object_t type;

	return git_odb_read_header(&size, &type, odb, id) == 0 && type == GIT_OBJECT_BLOB && size <= max;
}

/* Can blob id be read whole (similarity, line counts)? */
static gboolean readable_whole(git_odb *odb, const git_oid *id)
{
	return ccsift_treediff_blob_fits(odb, id, CCSIFT_TREEDIFF_BLOB_MAX);
}

/* Pair deletions with additions: exact blob matches first, then by
 * similarity when few are left (and none too big to read whole): at most
 * 32 of each, where git's diff.renameLimit is 1,000. Every pair is a
 * similarity of two blobs read whole, in the walk of every commit; the
 * README says what a tree-wide rename of more loses. */
static void find_renames(git_repository *repo, git_odb *odb, const git_oid *a, const git_oid *b,
			 GArray *changes)
{
	g_autoptr(GPtrArray) paths = g_ptr_array_new();
	guint adds = 0, dels = 0;

	pair_exact(changes);
	for (guint i = 0; i < changes->len; i++) {
		adds += g_array_index(changes, change, i).status == 'A';
		dels += g_array_index(changes, change, i).status == 'D';
	}
	if (!adds || !dels || adds > 32 || dels > 32)
		return;
	for (guint i = 0; i < changes->len; i++) {
		change *c = &g_array_index(changes, change, i);

		if (c->status == 'A' || c->status == 'D') {
			if (readable_whole(odb, c->status == 'A' ? &c->new_id : &c->old_id))
				g_ptr_array_add(paths, c->path);
			git_error_clear();
		}
	}
	if (paths->len)
		find_similar(repo, a, b, changes, paths);
}

/* Blob id (absent when NULL or zero) into *b; 0, or -1 if it cannot be
 * read or is too big to count. */
static int lines_blob(git_repository *repo, git_odb *odb, const git_oid *id, git_blob **b)
{
	*b = NULL;
	if (!id || git_oid_is_zero(id))
		return 0;
	if (!readable_whole(odb, id))
		return -1;
	return git_blob_lookup(b, repo, id) < 0 ? -1 : 0;
}

static size_t blob_lines(const git_blob *b)
{
	const char *p = b ? git_blob_rawcontent(b) : NULL, *end = p ? p + git_blob_rawsize(b) : NULL;
	size_t n = 0;

	for (; p && p < end && (p = memchr(p, '\n', end - p)); p++)
		n++;
	return n;
}

int ccsift_treediff_blob_lines(git_repository *repo, const git_oid *old_id, const char *old_path,
			       const git_oid *new_id, const char *new_path, int *added, int *removed)
{
	git_odb *odb = NULL;
	git_blob *old = NULL, *new = NULL;
	git_patch *patch = NULL;
	git_diff_options o;
	size_t ctx, adds, dels;
	int rc = -1;

	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.flags |= GIT_DIFF_IGNORE_WHITESPACE | GIT_DIFF_FORCE_TEXT;
	o.context_lines = 0;
	if (git_repository_odb(&odb, repo) == 0 && lines_blob(repo, odb, old_id, &old) == 0 &&
	    lines_blob(repo, odb, new_id, &new) == 0 &&
	    blob_lines(old) + blob_lines(new) <= CCSIFT_TREEDIFF_LINES_MAX &&
	    git_patch_from_blobs(&patch, old, old_path, new, new_path, &o) == 0 &&
	    git_patch_line_stats(&ctx, &adds, &dels, patch) == 0) {
		*added = (int)adds;
		*removed = (int)dels;
		rc = 0;
	}
	git_error_clear();  /* a missing blob costs the count, not the index */
	git_patch_free(patch);
	git_blob_free(old);
	git_blob_free(new);
	git_odb_free(odb);
	return rc;
}

int ccsift_treediff(git_repository *repo, ccsift_pack_reader *packs, const git_oid *old_tree,
		    const git_oid *new_tree, gboolean count_lines_too, GArray *out)
{
	g_autoptr(GString) prefix = g_string_new(NULL);
	g_autoptr(GArray) changes = g_array_new(FALSE, FALSE, sizeof(change));
	tree_diff d = { NULL, packs, prefix, changes, 0 };
	int rc = 0;

	if (git_repository_odb(&d.odb, repo) < 0)
		return ccsift_error_set(CCSIFT_ERROR, "object database: %s",
					git_error_last() ? git_error_last()->message : "cannot open");
	if (!(old_tree && new_tree && git_oid_equal(old_tree, new_tree)))
		rc = diff_trees(&d, old_tree, new_tree);
	if (rc == 0)
		find_renames(repo, d.odb, old_tree, new_tree, changes);
	git_odb_free(d.odb);
	for (guint i = 0; i < changes->len; i++) {
		change *c = &g_array_index(changes, change, i);
		ccsift_touch_record t;

		if (c->status == 'x') {  /* folded into a rename */
			change_clear(c);
			continue;
		}
		if (count_lines_too)
			ccsift_treediff_blob_lines(repo, &c->old_id, NULL, &c->new_id, NULL, &c->added, &c->removed);
		t = (ccsift_touch_record){ c->status, c->path, c->old_path, c->added, c->removed };
		g_array_append_val(out, t);  /* takes the strings */
	}
	return rc < 0 ? rc : 0;
}
