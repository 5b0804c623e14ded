/* history.c: libgit2 walk, tree diffs (treediff.h), trailers, into the index.
 *
 * Commits are turned into records by worker threads (one git_repository
 * each, as libgit2 wants) and written by one thread, in walk order.
 */
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <unistd.h>
#include "dmarc.h"
#include "error.h"
#include "history.h"
#include "maintainers.h"
#include "pack.h"
#include "sanitizer.h"
#include "treediff.h"

#define BATCH 512
#define TXN_BATCHES 16
/* A first build without a deadline commits more rarely: each commit of a
 * transaction writes to the WAL every page it changed, and the touches'
 * and credits' B-trees take rows all over their keys, so that one batch
 * dirties pages that the next rewrites. Every 65,536 commits rather than
 * 8,192, U-Boot's first build wrote 30% less (the synthetic history's
 * 34% less); a crash loses at most that many (the next run goes on
 * after the rest). */
#define FIRST_BUILD_TXN_BATCHES 128

/* --- commits into records --- */

typedef struct {
	ccsift_commit_record rec;
	GStringChunk *strings;
} record;

static void record_free(record *r)
{
	g_array_unref(r->rec.credits);
	g_array_unref(r->rec.touches);
	g_string_chunk_free(r->strings);
	g_free(r);
}

static const char *keep(record *r, const char *s)
{
	return s ? g_string_chunk_insert(r->strings, s) : NULL;
}

/*
 * A subject as the index keeps it. It is only ever shown, but a hostile
 * commit's summary can be megabytes (a first paragraph of one line), and
 * every walk of its files reads it: a few such commits made an index of
 * hundreds of MB and put every delivery to those files over its budget.
 */
#define SUBJECT_MAX 1024

static const char *keep_subject(record *r, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n <= SUBJECT_MAX)
		return keep(r, s);
	n = SUBJECT_MAX;
	while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;  /* not inside a UTF-8 sequence */
	return g_string_chunk_insert_len(r->strings, s, n);  /* NUL-terminated */
}

static void add_credit(record *r, ccsift_repo *repo, const char *name, const char *email, ccsift_role role)
{
	/* A list's rewrite (dmarc.h) is the person it encodes; the rewritten
	 * address stays as written, an alias of the real one. */
	g_autofree char *real_email = ccsift_dmarc_unwrap_email(email);
	g_autofree char *real_name = real_email ? ccsift_dmarc_unwrap_name(name) : NULL;
	g_autofree char *cname = NULL;
	g_autofree char *cemail = ccsift_repo_canonical(repo, real_name ? real_name : name,
							real_email ? real_email : email, &cname);
	g_autofree char *raw = g_ascii_strdown(email ? email : "", -1);
	ccsift_credit_record cr = { keep(r, cemail), keep(r, cname ? cname : ""), role, keep(r, raw) };

	g_array_append_val(r->rec.credits, cr);
}

/* "Name <email>" or a bare email, from a trailer value. */
/* A name as one line: a trailer folded over lines ("Reviewed-by: Jane\n
 * Doe <jane@...>") is one name to git, and every place that prints it
 * prints one line a person (who --cc feeds git send-email). */
static char *unfold_name(const char *s, size_t n)
{
	GString *out = g_string_sized_new(n);

	for (size_t i = 0; i < n; i++) {
		if (!g_ascii_isspace(s[i]))
			g_string_append_c(out, s[i]);
		else if (out->len && out->str[out->len - 1] != ' ')
			g_string_append_c(out, ' ');
	}
	if (out->len && out->str[out->len - 1] == ' ')
		g_string_truncate(out, out->len - 1);
	return g_string_free(out, FALSE);
}

static gboolean split_address(const char *value, char **name, char **email)
{
	const char *lt = strchr(value, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	if (lt && gt && gt > lt + 1) {
		*email = g_strndup(lt + 1, gt - lt - 1);
		*name = unfold_name(value, lt - value);
	} else if (strchr(value, '@') && !strchr(value, ' ')) {
		*email = g_strdup(value);
		*name = g_strdup("");
	} else {
		return FALSE;
	}
	return strchr(*email, '@') != NULL;
}

/*
 * The trailers of a commit message, as git reads them. libgit2 (1.5) takes
 * any line starting with "---" for the start of a patch and looks for the
 * trailers above it; git does so only where "---" is followed by a blank
 * (format-patch's divider). Underlines ("-------"), scissors ("---8<---")
 * made the index lose the trailers below them (420 commits of git.git,
 * xen, U-Boot and LTP) or credit a paragraph above as trailers. So the
 * message goes to libgit2 cut at git's divider, other such lines defused.
 */
static int message_trailers(git_message_trailer_array *arr, const char *message)
{
	g_autoptr(GString) text = g_string_new(NULL);
	const char *p = message;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p + 1) : strlen(p);

		if (strncmp(p, "---", 3) == 0) {
			if (n == 3 || g_ascii_isspace(p[3]))
				break;
			g_string_append_c(text, '=');  /* not a divider to libgit2 */
			g_string_append_len(text, p + 1, n - 1);
		} else {
			g_string_append_len(text, p, n);
		}
		p += n;
	}
	return git_message_trailers(arr, text->str);
}

/* Credited trailers read of one commit: the most of the eight held-out
 * clones is 39; a commit of a million made a million people and 164 MB
 * of index, and a delivery that met them took a second. */
#define MAX_CREDITS 1000

static void add_trailers(record *r, ccsift_repo *repo, const char *message)
{
	git_message_trailer_array arr = { 0 };
	unsigned credited = 0;

	if (!message || message_trailers(&arr, message) < 0)
		return;
	for (size_t i = 0; i < arr.count && credited < MAX_CREDITS; i++) {
		int role = ccsift_role_from_trailer(arr.trailers[i].key);
		g_autofree char *name = NULL, *email = NULL;

		if (role >= 0 && split_address(arr.trailers[i].value, &name, &email)) {
			add_credit(r, repo, name, email, role);
			credited++;
		}
	}
	git_message_trailer_array_free(&arr);
}

/* The author, unless a list rewrote the mail the commit was applied from
 * (dmarc.h) and left its own address: then the sign-off of the same name. */
static void add_author(record *r, ccsift_repo *repo, git_commit *c)
{
	const git_signature *a = git_commit_author(c);
	g_autofree char *real = ccsift_dmarc_unwrap_name(a->name);
	g_autofree char *encoded = ccsift_dmarc_unwrap_email(a->email);
	git_message_trailer_array arr = { 0 };
	const char *message = git_commit_message(c);

	if (real && !encoded && message && message_trailers(&arr, message) == 0) {
		for (size_t i = 0; i < arr.count; i++) {
			g_autofree char *name = NULL, *email = NULL;

			if (g_ascii_strcasecmp(arr.trailers[i].key, "Signed-off-by") == 0 &&
			    split_address(arr.trailers[i].value, &name, &email) &&
			    ccsift_dmarc_same_name(name, real)) {
				add_credit(r, repo, name, email, CCSIFT_ROLE_AUTHOR);
				git_message_trailer_array_free(&arr);
				return;
			}
		}
		git_message_trailer_array_free(&arr);
	}
	add_credit(r, repo, a->name, a->email, CCSIFT_ROLE_AUTHOR);
}

static unsigned commit_flags(git_commit *c, const char *author_email, GHashTable *ignored)
{
	const char *msg = git_commit_message(c), *subject = git_commit_summary(c);
	unsigned flags = 0;

	if (subject && (g_ascii_strncasecmp(subject, "treewide", 8) == 0 ||
			g_ascii_strncasecmp(subject, "tree-wide", 9) == 0 ||
			strstr(subject, "treewide:") || strstr(subject, "tree-wide:")))
		flags |= CCSIFT_COMMIT_TREEWIDE;
	if (msg && (strstr(msg, "scripts/coccinelle") || strstr(msg, "Coccinelle") ||
		    strstr(msg, "coccinelle") || strstr(msg, "spatch")))
		flags |= CCSIFT_COMMIT_TREEWIDE;
	if (author_email && (strstr(author_email, "[bot]") || g_str_has_prefix(author_email, "bot@") ||
			     strstr(author_email, "-bot@") || strstr(author_email, "noreply")))
		flags |= CCSIFT_COMMIT_BOT;
	if (ignored && g_hash_table_contains(ignored, git_oid_tostr_s(git_commit_id(c))))
		flags |= CCSIFT_COMMIT_IGNORED;
	return flags;
}

/* How many top-level directories (the root counting as one) the touches
 * reach. A project has a few dozen: a list beats hashing every path. */
static int count_top_dirs(GArray *touches)
{
	typedef struct { const char *name; size_t len; } top;
	g_autoptr(GArray) tops = g_array_new(FALSE, FALSE, sizeof(top));

	for (guint i = 0; i < touches->len; i++) {
		const char *p = g_array_index(touches, ccsift_touch_record, i).path;
		const char *slash = strchr(p, '/');
		top t = { p, slash ? (size_t)(slash - p) : 0 };
		guint k = 0;

		while (k < tops->len && !(g_array_index(tops, top, k).len == t.len &&
					  memcmp(g_array_index(tops, top, k).name, p, t.len) == 0))
			k++;
		if (k == tops->len)
			g_array_append_val(tops, t);
	}
	return (int)tops->len;
}

/* What commit c changed, as touch records with new strings. Nothing for a
 * shallow clone's boundary: who wrote and reviewed it is known, what it
 * changed is not (diffed against nothing, it would add every file). */
static int commit_touches(ccsift_repo *repo, git_commit *c, gboolean line_counts, GArray *touches)
{
	const git_oid *oid = git_commit_id(c);
	gboolean has_parent = git_commit_parentcount(c) == 1;
	git_oid parent_tree;
	int rc = 0;

	if (ccsift_repo_is_shallow_boundary(repo, oid))
		return 0;
	if (has_parent && ccsift_repo_commit_tree(repo, git_commit_parent_id(c, 0), &parent_tree) < 0)
		rc = ccsift_error_set(CCSIFT_ENOTFOUND, "missing parent of %s", git_oid_tostr_s(oid));
	else if ((rc = ccsift_treediff(ccsift_repo_git(repo), ccsift_repo_packs(repo),
				       has_parent ? &parent_tree : NULL, git_commit_tree_id(c),
				       line_counts, touches)) < 0) {
		g_autofree char *why = g_strdup(ccsift_error_last());

		rc = ccsift_error_set(rc, "commit %s: %s", git_oid_tostr_s(oid), why);
	}
	return rc;
}

static record *record_new(const git_oid *oid)
{
	record *r = g_new0(record, 1);

	r->strings = g_string_chunk_new(1024);
	r->rec.credits = g_array_new(FALSE, FALSE, sizeof(ccsift_credit_record));
	r->rec.touches = g_array_new(FALSE, FALSE, sizeof(ccsift_touch_record));
	git_oid_tostr(r->rec.oid, sizeof(r->rec.oid), oid);
	return r;
}

/* Commit c's people, through the .mailmap, and the flags that follow from them. */
static void add_people(record *r, ccsift_repo *repo, git_commit *c, GHashTable *ignored)
{
	const git_signature *m = git_commit_committer(c);

	add_author(r, repo, c);
	/* Committing one's own patch is not applying someone else's. */
	add_credit(r, repo, m->name, m->email, CCSIFT_ROLE_COMMITTER);
	if (strcmp(g_array_index(r->rec.credits, ccsift_credit_record, 0).email,
		   g_array_index(r->rec.credits, ccsift_credit_record, 1).email) == 0)
		g_array_remove_index(r->rec.credits, 1);
	add_trailers(r, repo, git_commit_message(c));
	r->rec.flags = commit_flags(c, g_array_index(r->rec.credits, ccsift_credit_record, 0).email, ignored);
}

/* Build the record of one non-merge commit; NULL for merges and on errors. */
static record *commit_record(ccsift_repo *repo, const git_oid *oid, GHashTable *ignored,
			     gboolean line_counts, int *rc)
{
	git_repository *git = ccsift_repo_git(repo);
	git_commit *c = NULL;
	g_autoptr(GArray) touches = g_array_new(FALSE, FALSE, sizeof(ccsift_touch_record));
	const git_signature *a, *m;
	record *r = NULL;

	*rc = 0;
	if (git_commit_lookup(&c, git, oid) < 0) {
		*rc = ccsift_error_set(CCSIFT_ENOTFOUND, "missing commit %s", git_oid_tostr_s(oid));
		return NULL;
	}
	if (git_commit_parentcount(c) > 1)
		goto out;
	if ((*rc = commit_touches(repo, c, line_counts, touches)) < 0)
		goto out;

	r = record_new(oid);
	a = git_commit_author(c);
	m = git_commit_committer(c);
	r->rec.subject = keep_subject(r, git_commit_summary(c));
	r->rec.atime = a->when.time;
	r->rec.ctime = m->when.time;
	add_people(r, repo, c, ignored);
	for (guint i = 0; i < touches->len; i++) {
		ccsift_touch_record *t = &g_array_index(touches, ccsift_touch_record, i);
		ccsift_touch_record k = { t->status, keep(r, t->path), keep(r, t->old_path), t->added, t->removed };

		g_array_append_val(r->rec.touches, k);
	}
	r->rec.nfiles = r->rec.touches->len;
	r->rec.ntop = count_top_dirs(r->rec.touches);
out:
	for (guint i = 0; i < touches->len; i++) {
		g_free((char *)g_array_index(touches, ccsift_touch_record, i).path);
		g_free((char *)g_array_index(touches, ccsift_touch_record, i).old_path);
	}
	git_commit_free(c);
	return r;
}

/* --- the walk ---
 *
 * The revision walk appends commits to oids and opens a batch every BATCH
 * of them; workers take the batches in turn and make their records; the
 * writer stores them in walk order. From scratch the walk runs on a thread
 * of its own while the batches it opened are indexed: it has no index to
 * ask (and a connection must not be shared), and alone it kept a core busy
 * and the other one idle. */

typedef struct {
	GPtrArray *records;   /* record *, or NULL until done */
	gboolean done;
	int rc;
	char *error;
} batch;

typedef struct {
	const char *gitdir;
	const char *ref;
	GArray *oids;         /* git_oid, in walk order */
	GPtrArray *batches;   /* batch *, one per BATCH oids */
	gboolean walking;     /* the walk may still add oids and batches */
	int walk_rc;
	char *walk_error;
	GHashTable *ignored;
	gboolean line_counts;
	guint txn_batches;    /* batches a transaction */
	gint next;            /* next batch to take, atomic */
	guint written;        /* batches the writer has consumed */
	gboolean stop;
	GMutex lock;
	GCond cond;
} walk_state;

static void batch_free(batch *b)
{
	if (b->records)
		g_ptr_array_unref(b->records);
	g_free(b->error);
	g_free(b);
}

/* Batch k, once the walk has opened it; NULL when there is none (the walk
 * ended before it, or failed). Called with the lock held. */
static batch *wait_batch(walk_state *ws, guint k)
{
	while (!ws->stop && ws->walking && k >= ws->batches->len)
		g_cond_wait(&ws->cond, &ws->lock);
	return !ws->stop && k < ws->batches->len ? ws->batches->pdata[k] : NULL;
}

static gpointer worker(gpointer data)
{
	walk_state *ws = data;
	ccsift_repo *repo = NULL;
	int open_rc = ccsift_repo_open(&repo, ws->gitdir, ws->ref);
	ccsift_pack_reader *packs = open_rc == 0 ? ccsift_repo_packs(repo) : NULL;
	g_autoptr(GArray) oids = g_array_new(FALSE, FALSE, sizeof(git_oid));

	if (packs)
		ccsift_pack_reader_cache_for_walk(packs);

	for (;;) {
		guint k = (guint)g_atomic_int_add(&ws->next, 1);
		GPtrArray *records;
		batch *b;
		int rc = open_rc;

		/* Do not run far ahead of the writer: memory stays bounded. */
		g_mutex_lock(&ws->lock);
		while (!ws->stop && k > ws->written + 8)
			g_cond_wait(&ws->cond, &ws->lock);
		if ((b = wait_batch(ws, k)))
			g_array_append_vals(g_array_set_size(oids, 0), &g_array_index(ws->oids, git_oid, k * BATCH),
					    MIN(ws->oids->len - k * BATCH, BATCH));
		g_mutex_unlock(&ws->lock);
		if (!b)
			break;

		records = g_ptr_array_new_with_free_func((GDestroyNotify)record_free);
		for (guint i = 0; rc == 0 && !ws->stop && i < oids->len; i++) {
			record *r = commit_record(repo, &g_array_index(oids, git_oid, i), ws->ignored,
						  ws->line_counts, &rc);

			if (r)
				g_ptr_array_add(records, r);
		}
		g_mutex_lock(&ws->lock);
		b->records = records;
		b->rc = rc;
		b->error = rc ? g_strdup(ccsift_error_last()) : NULL;
		b->done = TRUE;
		g_cond_broadcast(&ws->cond);
		g_mutex_unlock(&ws->lock);
	}
	ccsift_repo_free(repo);
	return NULL;
}

#define IGNORE_REVS ".git-blame-ignore-revs"

static GHashTable *read_ignore_revs(ccsift_repo *repo)
{
	g_autoptr(GBytes) bytes = ccsift_repo_read_file(repo, IGNORE_REVS);
	GHashTable *set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autofree char *text = NULL;
	g_auto(GStrv) lines = NULL;

	if (!bytes)
		return set;
	text = g_strndup(g_bytes_get_data(bytes, NULL), g_bytes_get_size(bytes));
	lines = g_strsplit(text, "\n", -1);
	for (char **l = lines; *l; l++) {
		g_strstrip(*l);
		if (strlen(*l) == 40)
			g_hash_table_add(set, g_ascii_strdown(*l, -1));
	}
	return set;
}

static void progress(const ccsift_history_options *opts, guint done, guint total)
{
	if (!opts || !opts->progress || !total)
		return;
	fprintf(stderr, "\rccsift: indexing commits: %3u%% (%u/%u)", (unsigned)(100ull * done / total),
		done, total);
	if (done == total)
		fputc('\n', stderr);
}

/* Hand the oids walked so far to the workers, a batch per BATCH of them
 * (the rest too when the walk is over). */
static void publish(walk_state *ws, GArray *walked, gboolean last)
{
	g_mutex_lock(&ws->lock);
	g_array_append_vals(ws->oids, walked->data, walked->len);
	while (ws->batches->len * BATCH + (last ? 0 : BATCH - 1) < ws->oids->len)
		g_ptr_array_add(ws->batches, g_new0(batch, 1));
	if (last)
		ws->walking = FALSE;
	g_cond_broadcast(&ws->cond);
	g_mutex_unlock(&ws->lock);
	g_array_set_size(walked, 0);
}

typedef struct {
	walk_state *ws;
	ccsift_repo *repo;
	ccsift_index *idx;    /* NULL: an empty index, nothing to skip */
	const git_oid *tip, *hide;
	GHashTable *all_reachable;  /* every oid walked, when not NULL */
	unsigned walked;      /* how many */
} walk_job;

/*
 * The commit that stopped libgit2's walk: one it cannot read (an author
 * without an email, a date past 64 bits: git log shows it, git fsck
 * rejects it). Searched for only after a walk failed, so that its one line
 * names the commit. FALSE when every commit from tip reads.
 */
static gboolean find_unreadable(ccsift_repo *repo, const git_oid *tip, git_oid *out)
{
	g_autoptr(GHashTable) seen = g_hash_table_new_full(ccsift_oid_hash, ccsift_oid_equal, g_free, NULL);
	g_autoptr(GArray) todo = g_array_new(FALSE, FALSE, sizeof(git_oid));
	gboolean found = FALSE;

	g_array_append_vals(todo, tip, 1);
	while (todo->len && !found) {
		git_oid id = g_array_index(todo, git_oid, todo->len - 1);
		git_commit *c = NULL;
		int rc;

		g_array_set_size(todo, todo->len - 1);
		if (!g_hash_table_add(seen, g_memdup2(&id, sizeof(id))))
			continue;
		/* (libgit2 1.5 leaks the parts it parsed of a commit it refuses) */
		CCSIFT_LEAKS_NOT_OURS(rc = git_commit_lookup(&c, ccsift_repo_git(repo), &id));
		if (rc < 0) {
			*out = id;
			found = TRUE;
		} else if (!ccsift_repo_is_shallow_boundary(repo, &id)) {
			for (unsigned i = 0; i < git_commit_parentcount(c); i++)
				g_array_append_vals(todo, git_commit_parent_id(c, i), 1);
		}
		git_commit_free(c);
	}
	git_error_clear();
	return found;
}

/* Commits to index, in walk order, into ws->oids and ws->batches. */
static int collect(walk_job *j)
{
	g_autoptr(GArray) walked = g_array_new(FALSE, FALSE, sizeof(git_oid));
	git_revwalk *walk;
	git_oid oid;
	int rc = GIT_ITEROVER;  /* stopped before the first: nothing walked, no error */

	if (git_revwalk_new(&walk, ccsift_repo_git(j->repo)) < 0) {
		publish(j->ws, walked, TRUE);
		return ccsift_error_set(CCSIFT_ERROR, "revwalk: %s", git_error_last()->message);
	}
	git_revwalk_sorting(walk, GIT_SORT_NONE);
	git_revwalk_push(walk, j->tip);
	if (j->hide)
		git_revwalk_hide(walk, j->hide);
	while (!j->ws->stop) {
		char hex[41];

		/* (libgit2 1.5 leaks what it parsed of a commit it refuses) */
		CCSIFT_LEAKS_NOT_OURS(rc = git_revwalk_next(&oid, walk));
		if (rc != 0)
			break;
		j->walked++;
		if (j->all_reachable || j->idx)
			git_oid_tostr(hex, sizeof(hex), &oid);
		if (j->all_reachable)
			g_hash_table_add(j->all_reachable, g_strdup(hex));
		/* Already there: a run that stopped before storing its tip. */
		if (j->idx && ccsift_index_has_commit(j->idx, hex))
			continue;
		g_array_append_val(walked, oid);
		if (walked->len == BATCH)
			publish(j->ws, walked, FALSE);
	}
	git_revwalk_free(walk);
	publish(j->ws, walked, TRUE);
	if (!j->ws->stop && rc != GIT_ITEROVER) {
		g_autofree char *why = g_strdup(git_error_last()->message);
		git_oid bad;

		if (find_unreadable(j->repo, j->tip, &bad))
			return ccsift_error_set(CCSIFT_ENOTFOUND,
						"walking history: commit %s cannot be read (%s; git fsck reports it)",
						git_oid_tostr_s(&bad), why);
		return ccsift_error_set(CCSIFT_ENOTFOUND, "walking history: %s", why);
	}
	return 0;
}

static gpointer walker(gpointer data)
{
	walk_job *j = data;
	int rc = collect(j);

	g_mutex_lock(&j->ws->lock);
	j->ws->walk_rc = rc;
	j->ws->walk_error = rc ? g_strdup(ccsift_error_last()) : NULL;
	if (rc)
		j->ws->stop = TRUE;
	g_cond_broadcast(&j->ws->cond);
	g_mutex_unlock(&j->ws->lock);
	return NULL;
}

static int write_batches(walk_state *ws, ccsift_index *idx, const ccsift_history_options *opts,
			 ccsift_history_stats *stats)
{
	gboolean in_txn = FALSE;
	int rc = 0;

	for (guint k = 0; rc == 0; k++) {
		batch *b;
		gboolean last;
		guint done, total;

		g_mutex_lock(&ws->lock);
		while ((b = wait_batch(ws, k)) && !b->done)
			g_cond_wait(&ws->cond, &ws->lock);
		last = !ws->walking && k + 1 >= ws->batches->len;
		g_mutex_unlock(&ws->lock);
		if (!b)
			break;
		/* Past the deadline, stop between transactions: all written is kept. */
		if (k % ws->txn_batches == 0 && opts && opts->deadline && g_get_monotonic_time() > opts->deadline) {
			stats->partial = TRUE;
			g_mutex_lock(&ws->lock);
			ws->stop = TRUE;
			g_cond_broadcast(&ws->cond);
			g_mutex_unlock(&ws->lock);
			break;
		}
		/* A transaction every few batches: readers see progress, fsyncs stay few. */
		if (b->rc)
			rc = ccsift_error_set(b->rc, "%s", b->error);
		else if (!in_txn && (rc = ccsift_index_begin(idx)) == 0)
			in_txn = TRUE;
		for (guint i = 0; rc == 0 && i < b->records->len; i++)
			rc = ccsift_index_add_commit(idx, &((record *)b->records->pdata[i])->rec);
		if (rc == 0) {
			stats->added += b->records->len;
			if (k % ws->txn_batches == ws->txn_batches - 1 || last) {
				rc = ccsift_index_commit(idx);
				in_txn = FALSE;
			}
		} else {
			ccsift_index_rollback(idx);
			in_txn = FALSE;
		}
		g_clear_pointer(&b->records, g_ptr_array_unref);
		g_mutex_lock(&ws->lock);
		ws->written = k + 1;
		if (rc)
			ws->stop = TRUE;
		g_cond_broadcast(&ws->cond);
		/* The walk may still be adding oids: read them under the lock. */
		done = MIN((k + 1) * BATCH, ws->oids->len);
		total = ws->walking ? 0 : ws->oids->len;
		g_mutex_unlock(&ws->lock);
		progress(opts, done, total);
	}
	/* The walk ended after its last batch was done: commit it, unless
	 * the walk failed. */
	if (in_txn && rc == 0 && !ws->walk_rc)
		rc = ccsift_index_commit(idx);
	else if (in_txn)
		ccsift_index_rollback(idx);
	return rc;
}

static int run_workers(walk_job *j, ccsift_index *idx, GHashTable *ignored, const ccsift_history_options *opts,
		       ccsift_history_stats *stats)
{
	walk_state *ws = j->ws;
	int nthreads = opts && opts->threads > 0 ? opts->threads : (int)MAX(1, g_get_num_processors());
	g_autoptr(GPtrArray) threads = g_ptr_array_new();
	GThread *walk_thread = NULL;
	int rc;

	ws->gitdir = ccsift_repo_gitdir(j->repo);
	ws->ref = ccsift_repo_ref(j->repo);
	ws->ignored = ignored;
	/* An index once built with line counts keeps counting: a catch-up
	 * must not leave the newest commits weighing as uncounted ones. */
	{
		g_autofree char *counted = ccsift_index_meta_get(idx, "line-counts");

		ws->line_counts = (opts && opts->line_counts) || (counted && strcmp(counted, "1") == 0);
		if (opts && opts->line_counts && !counted)
			ccsift_index_meta_set(idx, "line-counts", "1");
	}
	/* An index with commits is asked about each one walked: walk first. */
	if (j->idx && (rc = collect(j)) < 0)
		return rc;
	if (!ws->walking) {
		nthreads = MIN(nthreads, (int)MAX(1, ws->batches->len));
	} else {
		/* The revision walk reads every commit: through the packs
		 * read directly too, or libgit2 maps a pack's index a second
		 * time (240 MB of a Linux-sized one). */
		ccsift_repo_packs(j->repo);
		walk_thread = g_thread_new("ccsift-revwalk", walker, j);
	}
	for (int i = 0; i < nthreads; i++)
		g_ptr_array_add(threads, g_thread_new("ccsift-walk", worker, ws));
	rc = write_batches(ws, idx, opts, stats);
	if (rc < 0) {
		g_mutex_lock(&ws->lock);
		ws->stop = TRUE;
		g_cond_broadcast(&ws->cond);
		g_mutex_unlock(&ws->lock);
	}
	if (walk_thread)
		g_thread_join(walk_thread);
	for (guint i = 0; i < threads->len; i++)
		g_thread_join(threads->pdata[i]);
#ifdef __GLIBC__
	/* The workers are gone but their malloc arenas keep what they freed,
	 * and the fit that follows peaks on top of it (28 MB of the 263 MB
	 * peak on a 114k-commit history): give it back. */
	malloc_trim(0);
#endif
	if (rc == 0 && ws->walk_rc)
		rc = ccsift_error_set(ws->walk_rc, "%s", ws->walk_error);
	return rc;
}

/* Is the ignore list at tip another than at the tip indexed before (old:
 * none for a first build, whose every flag is the list's)? */
static gboolean ignore_revs_changed(ccsift_repo *repo, const char *old, const char *tip, gboolean rewritten)
{
	char was[GIT_OID_HEXSZ + 1] = "", now[GIT_OID_HEXSZ + 1] = "";

	if (!old || !*old)
		return FALSE;
	if (rewritten)
		return TRUE;  /* the old tip may be gone, and its list with it */
	ccsift_repo_file_id_at(repo, old, FALSE, IGNORE_REVS, was);
	ccsift_repo_file_id_at(repo, tip, FALSE, IGNORE_REVS, now);
	return strcmp(was, now) != 0;
}

/* The listed commits flagged; when the list changed, those no longer in
 * it unflagged, as a fresh build never flagged them. */
static int mark_ignored(ccsift_index *idx, GHashTable *ignored, gboolean changed)
{
	GHashTableIter it;
	gpointer key;
	int rc = changed ? ccsift_index_clear_flags(idx, CCSIFT_COMMIT_IGNORED, ignored) : 0;

	g_hash_table_iter_init(&it, ignored);
	while (rc >= 0 && g_hash_table_iter_next(&it, &key, NULL))
		rc = ccsift_index_set_flags(idx, key, CCSIFT_COMMIT_IGNORED);
	return rc;
}

static gboolean maintainers_is_dir(const char *pattern, void *payload)
{
	return ccsift_index_is_dir(payload, pattern);
}

/* Is the stored MAINTAINERS resolved against the paths as they are (and
 * stored with its .mailmap aliases: an index from before them is not)? */
static gboolean maintainers_resolved(ccsift_index *idx)
{
	g_autofree char *r = ccsift_index_meta_get(idx, "maintainers-resolved");
	g_autofree char *sections = ccsift_index_meta_get(idx, "maintainers-sections");
	g_autoptr(GHashTable) aliases = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

	return r && strchr(r, '\n') && g_ascii_strtoll(r, NULL, 10) == ccsift_index_paths_top(idx) &&
	       sections && g_ascii_strtoll(sections, NULL, 10) == ccsift_index_paths_top(idx) &&
	       ccsift_index_maintainer_aliases(idx, aliases);
}

struct split {
	ccsift_repo *repo;
	ccsift_index *idx;
	int rc;
};

static void add_section(guint no, const char *text, size_t len, const char *const *emails, void *payload)
{
	struct split *sp = payload;

	(void)len;
	if (sp->rc >= 0)
		sp->rc = ccsift_index_maintainers_add(sp->idx, no, text, emails);
	/* get_maintainer.pl mails an M: or R: address through the .mailmap:
	 * a stale one reaches the person at the address it maps to. */
	for (const char *const *e = emails; sp->rc >= 0 && *e; e++) {
		g_autofree char *canonical = ccsift_repo_canonical_email(sp->repo, NULL, *e);

		if (*canonical && strcmp(canonical, *e) != 0)
			sp->rc = ccsift_index_maintainers_alias(sp->idx, no, *e, canonical);
	}
}

/* The delivery path reads MAINTAINERS from the index, not from the repository. */
static int store_maintainers(ccsift_repo *repo, ccsift_index *idx)
{
	g_autoptr(GBytes) text = ccsift_repo_read_file(repo, "MAINTAINERS");
	g_autofree char *s = NULL, *resolved = NULL, *keyed = NULL;
	struct split split = { repo, idx, 0 };
	int rc;

	if (!text) {
		rc = ccsift_index_meta_delete(idx, "maintainers");
		return rc < 0 ? rc : ccsift_index_meta_delete(idx, "maintainers-resolved");
	}
	s = ccsift_maintainers_text(text);
	if ((rc = ccsift_index_meta_set(idx, "maintainers", s)) < 0)
		return rc;
	/* Its directories resolved against the paths as they are now, and
	 * split into sections, so that a delivery parses only the user's. */
	resolved = ccsift_maintainers_resolve(s, strlen(s), maintainers_is_dir, idx);
	keyed = g_strdup_printf("%" G_GINT64_FORMAT "\n%s", ccsift_index_paths_top(idx), resolved);
	if ((rc = ccsift_index_meta_set(idx, "maintainers-resolved", keyed)) < 0 ||
	    (rc = ccsift_index_maintainers_clear(idx)) < 0)
		return rc;
	ccsift_maintainers_split(resolved, strlen(resolved), add_section, &split);
	if (split.rc < 0)
		return split.rc;
	return ccsift_index_maintainers_done(idx, ccsift_index_paths_top(idx));
}

typedef struct {
	int64_t cid;
	git_oid oid;
} indexed_commit;

static void list_commit(int64_t cid, const char *hex, void *data)
{
	indexed_commit c = { cid };

	if (git_oid_fromstr(&c.oid, hex) == 0)
		g_array_append_val((GArray *)data, c);
}

/*
 * A new .mailmap makes old commits other people's (git log maps all of
 * history through the current one): read every indexed commit's people
 * again, and only them (no tree is read), in one transaction, so that a
 * delivery sees the old people or the new, never half of each.
 */
static int reread_people(ccsift_repo *repo, ccsift_index *idx)
{
	g_autoptr(GArray) commits = g_array_new(FALSE, FALSE, sizeof(indexed_commit));
	g_autoptr(GHashTable) ignored = read_ignore_revs(repo);
	int rc;

	if ((rc = ccsift_index_begin(idx)) < 0)
		return rc;
	if ((rc = ccsift_index_each_commit(idx, list_commit, commits)) < 0 ||
	    (rc = ccsift_index_forget_people(idx)) < 0)
		goto fail;
	/* Newest first: each person's name is their newest credit's. */
	ccsift_index_naming_begin(idx, TRUE);
	for (guint i = 0; i < commits->len; i++) {
		indexed_commit *ic = &g_array_index(commits, indexed_commit, i);
		git_commit *c = NULL;
		record *r;

		/* Gone from a rewritten history: the walk prunes it. */
		if (git_commit_lookup(&c, ccsift_repo_git(repo), &ic->oid) < 0) {
			git_error_clear();
			continue;
		}
		r = record_new(&ic->oid);
		add_people(r, repo, c, ignored);
		rc = ccsift_index_replace_people(idx, ic->cid, &r->rec);
		record_free(r);
		git_commit_free(c);
		if (rc < 0)
			goto fail;
	}
	ccsift_index_naming_end(idx);
	if ((rc = ccsift_index_forget_uncredited(idx)) < 0 ||
	    (rc = ccsift_index_meta_set(idx, "mailmap", ccsift_repo_mailmap_id(repo))) < 0)
		goto fail;
	return ccsift_index_commit(idx);
fail:
	ccsift_index_naming_end(idx);
	ccsift_index_rollback(idx);
	return rc;
}

/*
 * The commits are read as before only while the clone's shallow boundary
 * and its .mailmap stay as they were. Deepened (or cut), the boundary
 * commits were indexed without what they changed, and other commits are
 * the boundary now: empty the index, to index the clone from scratch
 * (returns 1). A new .mailmap, or an index another ccsift kept (adopted:
 * ccsift_index_adopt): every commit's people read again. An index from
 * before the .mailmap was recorded takes the current one as its own.
 */
static int read_anew_if_changed(ccsift_repo *repo, ccsift_index *idx, gboolean adopted)
{
	g_autofree char *shallow = ccsift_index_meta_get(idx, "shallow");
	g_autofree char *mailmap = ccsift_index_meta_get(idx, "mailmap");
	const char *mailmap_now = ccsift_repo_mailmap_id(repo);
	int rc;

	if (g_strcmp0(shallow ? shallow : "", ccsift_repo_shallow_digest(repo)) != 0) {
		if ((rc = ccsift_index_begin(idx)) < 0)
			return rc;
		if ((rc = ccsift_index_forget_commits(idx)) < 0 || (rc = ccsift_index_meta_set(idx, "tip", "")) < 0 ||
		    (rc = ccsift_index_meta_set(idx, "shallow", ccsift_repo_shallow_digest(repo))) < 0 ||
		    (rc = ccsift_index_meta_set(idx, "mailmap", mailmap_now)) < 0) {
			ccsift_index_rollback(idx);
			return rc;
		}
		return (rc = ccsift_index_commit(idx)) < 0 ? rc : 1;
	}
	if (!mailmap && !adopted)
		return ccsift_index_meta_set(idx, "mailmap", mailmap_now);
	return adopted || strcmp(mailmap, mailmap_now) != 0 ? reread_people(repo, idx) : 0;
}

static int update(ccsift_repo *repo, ccsift_index *idx, const ccsift_history_options *opts,
		  ccsift_history_stats *stats)
{
	git_oid tip, old;
	g_autofree char *stored = ccsift_index_meta_get(idx, "tip");
	g_autoptr(GArray) oids = g_array_new(FALSE, FALSE, sizeof(git_oid));
	g_autoptr(GHashTable) reachable = NULL;
	g_autoptr(GHashTable) ignored = NULL;
	ccsift_history_options whole;
	gboolean incremental = FALSE, indexed, adopted;
	int rc;

	memset(stats, 0, sizeof(*stats));
	if ((rc = ccsift_repo_tip(repo, &tip)) < 0)
		return rc;
	git_oid_tostr(stats->tip, sizeof(stats->tip), &tip);
	adopted = ccsift_index_adopt(idx);
	/* (a partial first build has no tip yet, and may be read anew too) */
	if ((rc = read_anew_if_changed(repo, idx, adopted)) < 0)
		return rc;
	if (rc > 0)
		g_clear_pointer(&stored, g_free);
	if (stored && strcmp(stored, stats->tip) == 0) {
		g_autofree char *now = g_strdup_printf("%" G_GINT64_FORMAT, g_get_real_time() / G_USEC_PER_SEC);

		/* Checked and found current: that counts as an update (and an
		 * index from before a derived table gets it). */
		if ((rc = ccsift_index_tip_time_settle(idx)) < 0 || (rc = ccsift_index_forget_stale_fits(idx, FALSE)) < 0 ||
		    (rc = ccsift_index_kept(idx, stored)) < 0 || (rc = ccsift_index_finish(idx)) < 0)
			return rc;
		/* An older ccsift that kept it stored MAINTAINERS without the
		 * .mailmap's aliases (and left this one's as they were). */
		if ((adopted || !maintainers_resolved(idx)) && (rc = store_maintainers(repo, idx)) < 0)
			return rc;
		return ccsift_index_meta_set(idx, "updated", now);
	}
	if (stored && git_oid_fromstr(&old, stored) == 0) {
		int descends;

		/* (libgit2 1.5 leaks what it parsed of a commit it refuses) */
		CCSIFT_LEAKS_NOT_OURS(descends = git_graph_descendant_of(ccsift_repo_git(repo), &tip, &old));
		if (descends == 1)
			incremental = TRUE;
		else
			stats->rewritten = TRUE;
	}
	/* Stopped half way, a rewritten history would be both histories, the
	 * new commits in and the old ones not yet pruned: no deadline. */
	if (stats->rewritten && opts && opts->deadline) {
		whole = *opts;
		whole.deadline = 0;
		opts = &whole;
	}
	ignored = read_ignore_revs(repo);
	indexed = ccsift_index_count(idx, "commits") > 0;
	/* A first build, its derived tables with it (index.h). */
	if (!indexed)
		ccsift_index_set_bulk(idx, TRUE);
	/* Rewritten history: what is no longer reachable goes (an empty
	 * index has nothing to prune). */
	if (!incremental && indexed)
		reachable = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	{
		walk_state ws = { .oids = oids, .batches = g_ptr_array_new_with_free_func((GDestroyNotify)batch_free),
				  .walking = TRUE,
				  .txn_batches = !indexed && !(opts && opts->deadline) ? FIRST_BUILD_TXN_BATCHES
										       : TXN_BATCHES };
		walk_job j = { &ws, repo, indexed ? idx : NULL, &tip,
			       incremental ? &old : NULL, reachable, 0 };

		g_mutex_init(&ws.lock);
		g_cond_init(&ws.cond);
		/* The new commits' names win over the old ones' (a first
		 * build's walk meets the newest first of itself). */
		if (indexed)
			ccsift_index_naming_begin(idx, FALSE);
		rc = run_workers(&j, idx, ignored, opts, stats);
		ccsift_index_naming_end(idx);
		stats->walked = incremental ? oids->len : j.walked;
		g_ptr_array_unref(ws.batches);
		g_free(ws.walk_error);
		g_mutex_clear(&ws.lock);
		g_cond_clear(&ws.cond);
		if (rc < 0)
			return rc;
	}
	if (stats->partial)
		return (rc = ccsift_index_forget_stale_fits(idx, TRUE)) < 0 ? rc : ccsift_index_finish(idx);
	if ((rc = ccsift_index_begin(idx)) < 0)
		return rc;
	if (stats->rewritten && reachable && (rc = ccsift_index_prune(idx, reachable)) >= 0)
		stats->pruned = rc;
	if (rc >= 0)
		rc = mark_ignored(idx, ignored, ignore_revs_changed(repo, stored, stats->tip, stats->rewritten));
	if (rc >= 0)
		rc = ccsift_index_forget_stale_fits(idx, FALSE);
	if (rc >= 0)
		rc = store_maintainers(repo, idx);
	if (rc >= 0)
		rc = ccsift_index_meta_set(idx, "tip", stats->tip);
	if (rc >= 0)
		rc = ccsift_index_kept(idx, stats->tip);
	if (rc >= 0)
		rc = ccsift_index_meta_set(idx, "ref", ccsift_repo_ref(repo));
	if (rc >= 0)
		rc = ccsift_index_meta_set(idx, "shallow", ccsift_repo_shallow_digest(repo));
	if (rc >= 0)
		rc = ccsift_index_meta_set(idx, "mailmap", ccsift_repo_mailmap_id(repo));
	if (rc >= 0)
		rc = ccsift_index_meta_set(idx, "repo", ccsift_repo_gitdir(repo));
	/* After the tip: what it derives is as of the tip (index.h). */
	if (rc >= 0)
		rc = ccsift_index_tip_time_settle(idx);
	if (rc >= 0)
		rc = ccsift_index_finish(idx);
	if (rc >= 0) {
		g_autofree char *now = g_strdup_printf("%" G_GINT64_FORMAT, g_get_real_time() / G_USEC_PER_SEC);

		rc = ccsift_index_meta_set(idx, "updated", now);
	}
	if (rc < 0) {
		ccsift_index_rollback(idx);
		return rc;
	}
	return ccsift_index_commit(idx);
}

int ccsift_history_update(ccsift_repo *repo, ccsift_index *idx, const ccsift_history_options *opts,
			  ccsift_history_stats *stats)
{
	int rc = update(repo, idx, opts, stats), off = ccsift_index_set_bulk(idx, FALSE);

	return rc < 0 ? rc : off < 0 ? off : rc;
}
