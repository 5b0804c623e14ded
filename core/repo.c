/* repo.c: libgit2 access to the user's clone. */
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include "error.h"
#include "odb.h"
#include "pack.h"
#include "repo.h"
#include "sanitizer.h"
#include "shallow.h"
#include "treediff.h"

struct ccsift_repo {
	git_repository *git;    /* NULL until needed, for a lazy repository */
	git_mailmap *mailmap;
	char *path;
	char *ref;
	char *gitdir;
	int open_rc;            /* the result of the deferred open */
	gboolean mailmap_loaded; /* kept when the repository is released */
	/* the .mailmap's blob id and how it is read (MAILMAP_READING), ""
	 * when there is none */
	char mailmap_blob[GIT_OID_HEXSZ + 8];
	ccsift_shallow *shallow; /* a shallow clone's boundary, or NULL */
	ccsift_pack_reader *packs; /* its packs read directly, once asked for */
	gboolean packs_opened;
};

/* MiB: a pack's mapping window, and the most mapped at once */
#define CCSIFT_PACK_WINDOW 32
#define CCSIFT_PACK_MAPPED 384

void ccsift_repo_init(void)
{
	static gsize done;

	if (g_once_init_enter(&done)) {
		git_libgit2_init();
		/* The index belongs to the user; the clone may belong to someone else. */
		git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
		/* Extensions that change nothing ccsift reads (objects and refs)
		 * and that libgit2 1.5 refuses to open: a per-worktree config,
		 * which `git sparse-checkout` turns on, and objects another
		 * repository borrows, which only a gc has to mind. */
		{
			static const char *ext[] = { "worktreeconfig", "preciousobjects" };

			git_libgit2_opts(GIT_OPT_SET_EXTENSIONS, ext, G_N_ELEMENTS(ext));
		}
		/* Reading history re-reads the same big trees (a root tree of 500
		 * entries) commit after commit: let the cache keep them, and do not
		 * rehash every object read from our own pack. The trees of the
		 * last few commits are what is read again: 16 MiB (one limit for
		 * every repository of the process) holds them; 128 MiB made the
		 * walk no faster on git.git and 25% slower on the synthetic
		 * history (a bigger map, more pages), and cost 220 MB of RSS. */
		git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, (size_t)1 << 20);
		git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, (ssize_t)16 << 20);
		/* But not commits: the revision walk reads each once, and a full
		 * cache evicts by scanning its map from the start, past every
		 * slot emptied before. At Linux's size that scan and the probes
		 * through the emptied slots were a sixth of a first build's
		 * samples (git_oid_equal 7%), for no hit. */
		git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_COMMIT, (size_t)0);
		git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
		/* Reading every commit and tree touches nearly all of a pack;
		 * mapped in 1 GiB windows with no limit below 8 GiB (libgit2's
		 * defaults) all of it stays in our RSS, 365 MB of U-Boot's 460.
		 * Small windows under a limit keep only what the walk is reading
		 * now mapped; the pages stay in the page cache. Under 192 MiB the
		 * two workers unmapped and mapped windows again all the time
		 * (U-Boot's 351 MiB pack: 15-35% more wall time than 384 MiB);
		 * 384 MiB kept the Linux-shaped history under git log's memory. */
		git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, (size_t)CCSIFT_PACK_WINDOW << 20);
		git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, (size_t)CCSIFT_PACK_MAPPED << 20);
		g_once_init_leave(&done, 1);
	}
}

static int git_fail(int code, const char *what, const char *arg)
{
	const git_error *e = git_error_last();

	return ccsift_error_set(code, "%s %s: %s", what, arg, e && e->message ? e->message : "failed");
}

/* Bigger than any project's (Linux's is 60 KB); past it, no mailmap at all. */
#define MAILMAP_MAX (4 << 20)

/* The entry of path in tree if it is a regular file, or NULL. */
static git_tree_entry *file_entry(git_tree *tree, const char *path)
{
	git_tree_entry *e = NULL;

	if (!tree || git_tree_entry_bypath(&e, tree, path) < 0)
		return NULL;
	if (git_tree_entry_filemode(e) != GIT_FILEMODE_BLOB && git_tree_entry_filemode(e) != GIT_FILEMODE_BLOB_EXECUTABLE)
		g_clear_pointer(&e, git_tree_entry_free);
	return e;
}

/*
 * The content of the regular file at path in tree, if it is at most max
 * bytes (its size asked before it is read: past CCSIFT_TREEDIFF_BLOB_MAX,
 * where Linux's MAINTAINERS is 800 KB, a file is taken as absent, not read
 * whole into memory), and its blob id into blob_hex
 * (41 bytes) if not NULL. NULL otherwise: absent, a directory, a symbolic
 * link (its blob is a path; git refuses a linked .mailmap too), too big.
 */
static GBytes *tree_file(git_repository *git, git_tree *tree, const char *path, size_t max, char *blob_hex)
{
	git_tree_entry *e = file_entry(tree, path);
	git_odb *odb = NULL;
	git_blob *blob = NULL;
	GBytes *bytes = NULL;

	if (!e || git_repository_odb(&odb, git) < 0 || !ccsift_treediff_blob_fits(odb, git_tree_entry_id(e), max) ||
	    git_blob_lookup(&blob, git, git_tree_entry_id(e)) < 0)
		goto out;
	if (blob_hex)
		git_oid_tostr(blob_hex, GIT_OID_HEXSZ + 1, git_tree_entry_id(e));
	bytes = g_bytes_new(git_blob_rawcontent(blob), (gsize)git_blob_rawsize(blob));
out:
	git_error_clear();
	git_blob_free(blob);
	git_odb_free(odb);
	git_tree_entry_free(e);
	return bytes;
}

/* The tree of the ref (new reference), or NULL. */
static git_tree *ref_tree(ccsift_repo *r)
{
	git_object *obj = NULL, *tree = NULL;

	if (git_revparse_single(&obj, r->git, r->ref) == 0)
		git_object_peel(&tree, obj, GIT_OBJECT_TREE);
	git_object_free(obj);
	git_error_clear();
	return (git_tree *)tree;
}

/*
 * The .mailmap blob of the ref's tree, and nothing else.
 * git_mailmap_from_repository would also read the work tree's .mailmap
 * (uncommitted lines would decide whose history is whose) and the files and
 * blobs the clone's config names in mailmap.file and mailmap.blob (a FIFO
 * there blocks every command). NULL when there is none.
 */
/* Added to the blob id: an index that read the same .mailmap another way
 * (its addresses in their case, before) reads its people again. */
#define MAILMAP_READING ":nocase"

/* The .mailmap text with its addresses in lower case: git matches an
 * address without regard to case, libgit2 byte for byte (a commit as
 * Jane@Old.Example was not mapped by a line for jane@old.example). The
 * addresses looked up are lowercased too (ccsift_repo_canonical). */
static char *lower_addresses(GBytes *text)
{
	gsize n;
	const char *in = g_bytes_get_data(text, &n);
	char *out = g_malloc(n + 1);
	gboolean inside = FALSE;

	for (gsize i = 0; i < n; i++) {
		out[i] = inside ? g_ascii_tolower(in[i]) : in[i];
		if (in[i] == '<')
			inside = TRUE;
		else if (in[i] == '>' || in[i] == '\n')
			inside = FALSE;
	}
	out[n] = '\0';
	return out;
}

static git_mailmap *load_mailmap(ccsift_repo *r)
{
	git_tree *tree = ref_tree(r);
	g_autoptr(GBytes) text = tree_file(r->git, tree, ".mailmap", MAILMAP_MAX, r->mailmap_blob);
	g_autofree char *lowered = text ? lower_addresses(text) : NULL;
	git_mailmap *mm = NULL;

	if (!text)
		r->mailmap_blob[0] = '\0';
	else
		g_strlcat(r->mailmap_blob, MAILMAP_READING, sizeof(r->mailmap_blob));
	if (text && git_mailmap_from_buffer(&mm, lowered, g_bytes_get_size(text)) < 0)
		mm = NULL;
	git_error_clear();
	git_tree_free(tree);
	return mm;
}

/*
 * libgit2 reads what the clone's owner put in its git directory, and
 * blocks on it: a config that includes a FIFO, an alternates file or a
 * loose ref that is one, hung every command (a delivery only till its
 * budget). What it reads there must be a regular file or missing (or
 * /dev/null); a config's includes, the alternates' own alternates, and
 * the loose refs the ref is looked up in, too.
 */
static char *guess_gitdir(const char *path);

#define GITDIR_FILE_MAX (4 << 20)
#define INCLUDE_DEPTH 10     /* libgit2's */
#define SYMREF_DEPTH 5       /* "ref: x" followed so far */

/* May libgit2 read path? 1: a regular file (or /dev/null) not checked
 * before, 0: missing or checked already (a config that includes itself
 * ten times, an alternates file naming its own store sixty times, are
 * each one file to check, not 10^10), <0: refused. */
static int gitdir_file_check(const char *path, GHashTable *seen)
{
	GStatBuf st, null;

	if (g_stat(path, &st) < 0)
		return 0;
	/* include.path = /dev/null: git reads nothing there, nor does libgit2 */
	if (!S_ISREG(st.st_mode) &&
	    !(S_ISCHR(st.st_mode) && g_stat("/dev/null", &null) == 0 && st.st_rdev == null.st_rdev))
		return ccsift_error_set(CCSIFT_ENOTFOUND, "cannot open repository: %s is not a regular file", path);
	if (!seen)
		return 1;
	return g_hash_table_add(seen, g_strdup_printf("%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino));
}

/* A section header's name ("include", "includeIf" of [includeIf "x"]);
 * *rest is what follows the header on its line. */
static gboolean include_section(const char *line, const char **rest)
{
	const char *end = line + 1 + strcspn(line + 1, " \t\"]");
	size_t n = end - (line + 1);
	const char *close = strchr(line, ']');

	*rest = close ? close + 1 : line + strlen(line);
	return (n == 7 && g_ascii_strncasecmp(line + 1, "include", 7) == 0) ||
	       (n == 9 && g_ascii_strncasecmp(line + 1, "includeIf", 9) == 0);
}

/* A config value as git reads it, from just after its '=': quotes joined
 * and dropped, escapes, a comment (';', '#') outside quotes ending it, a
 * backslash at the end of a line going on to the next; *next is moved
 * past the lines it took. */
static char *config_value(const char *p, char **next)
{
	GString *v = g_string_new(NULL);
	gboolean quoted = FALSE;
	size_t keep = 0;   /* the value without its trailing blanks outside quotes */

	p += strspn(p, " \t");
	for (; *p; p++) {
		if (*p == '\\' && p[1] == '\n') {   /* a continued line */
			p++;
			continue;
		}
		if (*p == '\n' || (!quoted && (*p == ';' || *p == '#')))
			break;
		if (*p == '"') {
			quoted = !quoted;
			keep = v->len;
			continue;
		}
		if (*p == '\\' && p[1]) {
			p++;
			g_string_append_c(v, *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'b' ? '\b' : *p);
			keep = v->len;
			continue;
		}
		g_string_append_c(v, *p);
		if (quoted || (*p != ' ' && *p != '\t'))
			keep = v->len;
	}
	g_string_truncate(v, keep);
	*next = (char *)p;
	return g_string_free(v, FALSE);
}

/* An include's path as git takes it: "~/" the home, relative to the file. */
static char *include_target(const char *file, const char *v)
{
	g_autofree char *dir = NULL;

	if (!*v)
		return NULL;
	if (g_str_has_prefix(v, "~/"))
		return g_build_filename(g_get_home_dir(), v + 2, NULL);
	if (g_path_is_absolute(v))
		return g_strdup(v);
	dir = g_path_get_dirname(file);
	return g_build_filename(dir, v, NULL);
}

static int config_check(const char *file, int depth, GHashTable *seen)
{
	g_autofree char *text = NULL;
	gboolean include = FALSE;
	int rc;

	if ((rc = gitdir_file_check(file, seen)) <= 0 || depth >= INCLUDE_DEPTH ||
	    !(text = ccsift_odb_read_small_file(file, GITDIR_FILE_MAX)))
		return rc < 0 ? rc : 0;
	for (char *line = text, *next; line && *line; line = next) {
		const char *key;
		g_autofree char *value = NULL, *target = NULL;

		key = line + strspn(line, " \t");
		if (*key == '[')
			include = include_section(key, &key);
		key += strspn(key, " \t");
		if (!include || g_ascii_strncasecmp(key, "path", 4) != 0 || key[4 + strspn(key + 4, " \t")] != '=') {
			next = strchr(line, '\n');
			next = next ? next + 1 : NULL;
			continue;
		}
		value = config_value(strchr(key, '=') + 1, &next);
		next = strchr(next, '\n');   /* past a comment, if one ended the value */
		next = next ? next + 1 : NULL;
		if ((target = include_target(file, value)) && (rc = config_check(target, depth + 1, seen)) < 0)
			return rc;
	}
	return 0;
}

static int alternates_check(const char *objects, int depth, GHashTable *seen)
{
	g_autofree char *file = g_build_filename(objects, "info", "alternates", NULL);
	g_auto(GStrv) others = NULL;
	int rc;

	if ((rc = gitdir_file_check(file, seen)) <= 0)
		return rc;
	others = ccsift_odb_alternates(objects);
	for (char **o = others; *o && depth + 1 < CCSIFT_ODB_ALTERNATES_DEPTH; o++)
		if ((rc = alternates_check(*o, depth + 1, seen)) < 0)
			return rc;
	return 0;
}

/* The loose files a ref name can be read from, as git looks it up
 * ("x": refs/x, refs/tags/x, refs/heads/x, refs/remotes/x, and its HEAD),
 * and where a symbolic ref ("ref: refs/heads/main") leads, a few deep. */
static int ref_check(const char *gitdir, const char *common, const char *name, int depth)
{
	static const char *const rules[] = { "%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s",
					     "refs/remotes/%s/HEAD" };
	int rc;

	if (!name || !*name || strstr(name, "..") || depth >= SYMREF_DEPTH)
		return 0;
	for (size_t i = 0; i < G_N_ELEMENTS(rules); i++) {
		g_autofree char *ref = g_strdup_printf(rules[i], name);
		/* HEAD and the like are the worktree's; refs/ are shared */
		g_autofree char *path = g_build_filename(g_str_has_prefix(ref, "refs/") ? common : gitdir, ref, NULL);
		g_autofree char *text = NULL;

		if ((rc = gitdir_file_check(path, NULL)) < 0)
			return rc;
		if (rc > 0 && (text = ccsift_odb_read_small_file(path, 4096)) && g_str_has_prefix(text, "ref:") &&
		    (rc = ref_check(gitdir, common, g_strstrip(text + 4), depth + 1)) < 0)
			return rc;
	}
	return 0;
}

static int gitdir_check(const char *gitdir, const char *ref)
{
	/* the first two in the worktree's git directory, the rest in the common one */
	static const char *const files[] = { "HEAD", "commondir", "packed-refs", "shallow" };
	g_autofree char *commondir_file = g_build_filename(gitdir, "commondir", NULL);
	g_autofree char *common = ccsift_odb_read_small_file(commondir_file, 4096 + 16);
	g_autofree char *common_path = NULL, *config = NULL, *objects = NULL;
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	const char *dir = gitdir;
	int rc;

	if (common && *g_strstrip(common))
		dir = common_path = g_path_is_absolute(common) ? g_strdup(common) : g_build_filename(gitdir, common, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
		g_autofree char *path = g_build_filename(i < 2 ? gitdir : dir, files[i], NULL);

		if ((rc = gitdir_file_check(path, NULL)) < 0)
			return rc;
	}
	config = g_build_filename(dir, "config", NULL);
	objects = g_build_filename(dir, "objects", NULL);
	if ((rc = config_check(config, 0, seen)) < 0 || (rc = alternates_check(objects, 0, seen)) < 0)
		return rc;
	return ref_check(gitdir, dir, ref, 0);
}

static int open_now(ccsift_repo *r)
{
	git_oid tip;
	int rc;

	ccsift_repo_init();
	{
		g_autofree char *guess = r->gitdir ? NULL : guess_gitdir(r->path);

		if ((rc = gitdir_check(r->gitdir ? r->gitdir : guess, r->ref)) < 0)
			return rc;
	}
	/* libgit2 1.5 leaks the match data of each extensions.* key it
	 * checks (a sparse checkout's worktreeConfig, SHA-256's objectformat). */
	CCSIFT_LEAKS_NOT_OURS(rc = git_repository_open_ext(&r->git, r->path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL));
	if (rc < 0)
		return git_fail(CCSIFT_ENOTFOUND, "cannot open repository", r->path);
	g_clear_pointer(&r->shallow, ccsift_shallow_unref);
	if (ccsift_shallow_attach(r->git, &r->shallow) < 0)
		return CCSIFT_ERROR;
	g_free(r->gitdir);
	r->gitdir = g_strdup(git_repository_path(r->git));
	if (ccsift_repo_tip(r, &tip) < 0) {
		/* libgit2's reason: a missing ref, or a tip it cannot parse or read */
		g_autofree char *why = g_strdup(ccsift_error_last());

		return ccsift_error_set(CCSIFT_ENOTFOUND, "%s: %s", r->path, why);
	}
	if (!r->mailmap_loaded)
		r->mailmap = load_mailmap(r);
	r->mailmap_loaded = TRUE;
	return 0;
}

/* Open the repository on first use; returns <0 if it cannot be opened. */
static int ensure_open(ccsift_repo *r)
{
	if (!r->git && r->open_rc == 0 && (r->open_rc = open_now(r)) < 0) {
		git_repository_free(r->git);
		r->git = NULL;
	}
	return r->git ? 0 : r->open_rc ? r->open_rc : CCSIFT_ENOTFOUND;
}

static ccsift_repo *repo_new(const char *path, const char *ref)
{
	ccsift_repo *r = g_new0(ccsift_repo, 1);

	r->path = g_strdup(path);
	r->ref = g_strdup(ref && *ref ? ref : "HEAD");
	return r;
}

int ccsift_repo_open(ccsift_repo **out, const char *path, const char *ref)
{
	ccsift_repo *r = repo_new(path, ref);
	int rc;

	*out = NULL;
	if ((rc = ensure_open(r)) < 0) {
		ccsift_repo_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* Where git keeps a work tree's repository, without libgit2: "DIR/.git" (a
 * directory, or a file saying "gitdir: X"), or DIR itself when bare. */
static char *guess_gitdir(const char *path)
{
	g_autofree char *dotgit = g_build_filename(path, ".git", NULL);
	g_autofree char *text = NULL;

	if (g_file_test(dotgit, G_FILE_TEST_IS_DIR))
		return g_steal_pointer(&dotgit);
	/* (a gitdir line is a path: a page holds it) */
	if ((text = ccsift_odb_read_small_file(dotgit, 4096 + 16)) && g_str_has_prefix(text, "gitdir: ")) {
		g_autofree char *dir = g_strstrip(g_strdup(text + 8));

		return g_path_is_absolute(dir) ? g_steal_pointer(&dir) : g_build_filename(path, dir, NULL);
	}
	return g_strdup(path);
}

int ccsift_repo_open_lazy(ccsift_repo **out, const char *path, const char *ref)
{
	ccsift_repo *r;
	g_autofree char *head = NULL;

	*out = NULL;
	r = repo_new(path, ref);
	r->gitdir = guess_gitdir(path);
	head = g_build_filename(r->gitdir, "HEAD", NULL);
	if (!g_file_test(head, G_FILE_TEST_EXISTS)) {
		ccsift_repo_free(r);
		return ccsift_error_set(CCSIFT_ENOTFOUND, "cannot open repository %s: not a git repository", path);
	}
	*out = r;
	return 0;
}

void ccsift_repo_release(ccsift_repo *r)
{
	if (!r || !r->git)
		return;
	g_clear_pointer(&r->packs, ccsift_pack_reader_unref);
	r->packs_opened = FALSE;
	git_repository_free(r->git);
	r->git = NULL;
}

void ccsift_repo_free(ccsift_repo *r)
{
	if (!r)
		return;
	/* A lazy repository never opened has nothing of libgit2's to free:
	 * do not load libgit2 (git.h) to free NULL. */
	if (r->mailmap)
		git_mailmap_free(r->mailmap);
	if (r->git)
		git_repository_free(r->git);
	ccsift_shallow_unref(r->shallow);
	ccsift_pack_reader_unref(r->packs);
	g_free(r->path);
	g_free(r->ref);
	g_free(r->gitdir);
	g_free(r);
}

git_repository *ccsift_repo_git(ccsift_repo *r) { return ensure_open(r) == 0 ? r->git : NULL; }
const char *ccsift_repo_gitdir(ccsift_repo *r) { return r->gitdir; }

ccsift_pack_reader *ccsift_repo_packs(ccsift_repo *r)
{
	if (!r->packs_opened && ensure_open(r) == 0) {
		g_autofree char *objects = g_build_filename(git_repository_commondir(r->git), "objects", NULL);

		r->packs = ccsift_pack_reader_new(objects);
		r->packs_opened = TRUE;
		if (r->packs)
			ccsift_pack_attach(r->packs, r->git);
	}
	return r->packs;
}

int ccsift_repo_commit_tree(ccsift_repo *r, const git_oid *commit, git_oid *tree)
{
	ccsift_pack_reader *packs = ccsift_repo_packs(r);
	g_autoptr(GBytes) bytes = NULL;
	git_commit *c = NULL;
	git_object_t type;

	/* Every commit object starts "tree <hex id>\n". */
	if (packs && ccsift_pack_read(packs, commit, 1u << 20, &type, &bytes) == 0 && type == GIT_OBJECT_COMMIT) {
		size_t len;
		const char *p = g_bytes_get_data(bytes, &len);

		if (len > 5 + GIT_OID_HEXSZ && memcmp(p, "tree ", 5) == 0 && p[5 + GIT_OID_HEXSZ] == '\n' &&
		    git_oid_fromstrn(tree, p + 5, GIT_OID_HEXSZ) == 0)
			return 0;
	}
	if (!r->git || git_commit_lookup(&c, r->git, commit) < 0)
		return ccsift_error_set(CCSIFT_ENOTFOUND, "missing commit %s", git_oid_tostr_s(commit));
	git_oid_cpy(tree, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}
const char *ccsift_repo_ref(ccsift_repo *r) { return r->ref; }

gboolean ccsift_repo_is_shallow_boundary(ccsift_repo *r, const git_oid *oid)
{
	return ensure_open(r) == 0 && ccsift_shallow_is_boundary(r->shallow, oid);
}

const char *ccsift_repo_shallow_digest(ccsift_repo *r)
{
	return ensure_open(r) == 0 ? ccsift_shallow_digest(r->shallow) : "";
}

int ccsift_repo_tip(ccsift_repo *r, git_oid *out)
{
	git_object *obj = NULL, *commit = NULL;
	int rc;

	if ((rc = ensure_open(r)) < 0)
		return rc;
	/* (libgit2 1.5 leaks what it parsed of a commit it cannot read whole) */
	CCSIFT_LEAKS_NOT_OURS(rc = git_revparse_single(&obj, r->git, r->ref));
	if (rc < 0)
		return git_fail(CCSIFT_ENOTFOUND, "cannot resolve", r->ref);
	rc = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc < 0)
		return git_fail(CCSIFT_ENOTFOUND, "not a commit:", r->ref);
	git_oid_cpy(out, git_object_id(commit));
	git_object_free(commit);
	return 0;
}

const char *ccsift_repo_mailmap_id(ccsift_repo *r)
{
	return ensure_open(r) == 0 ? r->mailmap_blob : "";
}

char *ccsift_repo_canonical(ccsift_repo *r, const char *name, const char *email, char **name_out)
{
	g_autofree char *lower = g_ascii_strdown(email ? email : "", -1);
	const char *rn = name, *re = lower;

	/* (lower case, as the .mailmap's addresses are read: load_mailmap) */
	if (r && ensure_open(r) == 0 && r->mailmap)
		git_mailmap_resolve(&rn, &re, r->mailmap, name ? name : "", lower);
	if (name_out)
		*name_out = g_strdup(rn);
	return g_ascii_strdown(re ? re : "", -1);
}

char *ccsift_repo_canonical_email(ccsift_repo *r, const char *name, const char *email)
{
	return ccsift_repo_canonical(r, name, email, NULL);
}

GBytes *ccsift_repo_read_file(ccsift_repo *r, const char *path)
{
	git_tree *tree;
	GBytes *bytes;

	if (ensure_open(r) < 0)
		return NULL;
	tree = ref_tree(r);
	bytes = tree_file(r->git, tree, path, CCSIFT_TREEDIFF_BLOB_MAX, NULL);
	git_tree_free(tree);
	return bytes;
}

/* The id of the blob at path in tree into *id; FALSE if there is none
 * (absent, or not a blob). */
static gboolean blob_id_at(git_tree *tree, const char *path, git_oid *id)
{
	git_tree_entry *e = NULL;
	gboolean found;

	if (!tree || git_tree_entry_bypath(&e, tree, path) < 0)
		return FALSE;
	if ((found = git_tree_entry_type(e) == GIT_OBJECT_BLOB))
		git_oid_cpy(id, git_tree_entry_id(e));
	git_tree_entry_free(e);
	return found;
}

/* Two path lookups and one blob diff: a tree diff would expand whole trees. */
int ccsift_repo_line_counts(ccsift_repo *r, const char *hex, const char *path,
			    const char *old_path, int *added, int *removed)
{
	git_oid oid, old, new;
	git_commit *c = NULL, *parent = NULL;
	git_tree *t = NULL, *pt = NULL;
	gboolean has_old, has_new;
	int rc;

	if ((rc = ensure_open(r)) < 0)
		return rc;
	rc = CCSIFT_ENOTFOUND;
	if (git_oid_fromstr(&oid, hex) < 0 || git_commit_lookup(&c, r->git, &oid) < 0 || git_commit_tree(&t, c) < 0)
		goto out;
	if (git_commit_parentcount(c) > 0 &&
	    (git_commit_parent(&parent, c, 0) < 0 || git_commit_tree(&pt, parent) < 0))
		goto out;
	has_new = blob_id_at(t, path, &new);
	has_old = blob_id_at(pt, old_path ? old_path : path, &old);
	/* A blob a partial clone lacks, or one too big to count: not counted. */
	if (ccsift_treediff_blob_lines(r->git, has_old ? &old : NULL, old_path ? old_path : path,
				       has_new ? &new : NULL, path, added, removed) == 0)
		rc = 0;
	else
		rc = ccsift_error_set(CCSIFT_ENOTFOUND, "cannot count the lines of %s in %s", path, hex);
out:
	git_error_clear();
	git_tree_free(pt);
	git_tree_free(t);
	git_commit_free(parent);
	git_commit_free(c);
	return rc;
}

gboolean ccsift_repo_has_object(ccsift_repo *r, const char *hex)
{
	git_odb *odb = NULL;
	git_oid oid, full;
	size_t len = strlen(hex);
	gboolean found = FALSE;

	if (len < 7 || len > GIT_OID_HEXSZ || ensure_open(r) < 0 || git_oid_fromstrn(&oid, hex, len) < 0)
		return FALSE;
	if (git_repository_odb(&odb, r->git) < 0)
		return FALSE;
	found = git_odb_exists_prefix(&full, odb, &oid, len) == 0;
	git_odb_free(odb);
	git_error_clear();
	return found;
}

char *ccsift_repo_commit_message(ccsift_repo *r, const char *hex)
{
	git_oid oid;
	git_commit *c = NULL;
	char *message = NULL;

	if (ensure_open(r) == 0 && git_oid_fromstr(&oid, hex) == 0 && git_commit_lookup(&c, r->git, &oid) == 0)
		message = g_strdup(git_commit_message(c));
	git_error_clear();
	git_commit_free(c);
	return message;
}

/* The tree of commit hex, or of its first parent; NULL if there is none. */
static git_tree *tree_at(ccsift_repo *r, const char *hex, gboolean parent)
{
	git_oid oid;
	git_commit *c = NULL, *p = NULL;
	git_tree *t = NULL;

	if (ensure_open(r) < 0 || git_oid_fromstr(&oid, hex) < 0 || git_commit_lookup(&c, r->git, &oid) < 0)
		goto out;
	if (parent && git_commit_parent(&p, c, 0) < 0)
		goto out;
	git_commit_tree(&t, p ? p : c);
out:
	git_error_clear();
	git_commit_free(p);
	git_commit_free(c);
	return t;
}

GBytes *ccsift_repo_read_file_at(ccsift_repo *r, const char *hex, gboolean parent, const char *path,
				 char *blob_hex)
{
	git_tree *t = tree_at(r, hex, parent);
	GBytes *bytes = t ? tree_file(r->git, t, path, CCSIFT_TREEDIFF_BLOB_MAX, blob_hex) : NULL;

	git_tree_free(t);
	return bytes;
}

gboolean ccsift_repo_file_id_at(ccsift_repo *r, const char *hex, gboolean parent, const char *path, char *blob_hex)
{
	git_tree *t = tree_at(r, hex, parent);
	git_tree_entry *e = file_entry(t, path);

	if (e)
		git_oid_tostr(blob_hex, GIT_OID_HEXSZ + 1, git_tree_entry_id(e));
	git_error_clear();
	git_tree_entry_free(e);
	git_tree_free(t);
	return e != NULL;
}
