/* walks.c: the index's touch walks, read once and served from memory. */
#include <string.h>
#include "patch.h"
#include "walks.h"

/* A path's touches held in one list; a longer history is walked in the
 * index each time, as before. */
#define MAX_PATH_ROWS 65536
/* A directory's prefix: the sibling walk takes 4,000 touches at most, so
 * that many and a margin are read first; more (up to the most a prefix
 * holds) only when they do not hold the walk, as for a replay as of long
 * ago or a file with most of the directory's touches. */
#define DIR_ROWS_MARGIN 1024
#define MAX_DIR_ROWS 16384
/* A person's engagements held for the area feature; a busier one's year
 * is counted in the index each time, as before. */
#define MAX_ENGAGED_ROWS 65536
/* A set of people's roles held by commit; a busier set's are read from
 * each commit's credits, as before. */
#define MAX_CREDITED_ROLES 65536

typedef struct {
	int64_t cid;              /* first: the key of commits */
	char oid[41];
	const char *subject;      /* in strings, or NULL */
	int64_t atime, ctime;
	int64_t author, committer;
	int nfiles, ntop;
	unsigned flags;
	const GArray *credits;    /* in credits, once asked for: a lookup less a row */
	unsigned roles_asked;     /* the asked people's generation roles is for, 0: none */
	int roles;
} commit;

typedef struct {
	commit *c;                /* NULL until wanted, in a replay's directory (row_commit) */
	int64_t cid, ctime;       /* c's: a row others' commit is skipped by is read without it */
	const char *path;         /* in strings */
	const char *old_path;     /* in strings, or NULL */
	int added, removed;
	char status;
} row;

/* The commits crediting a set of people: a directory's rows are mostly
 * other people's, and this says so without reading the commit or its
 * credits (three cache misses a row, where a replay serves tens of
 * millions of rows). Up to MAX_CREDITED_ROLES credits, a table by commit
 * id with their roles; a busier set's, a bit a commit id (a bitmap of
 * every id for each set asked about had the replay's walks full, and
 * dropping all they held, 89 times in a fit at Linux scale). */
typedef struct {
	guint64 *slots;           /* mask + 1, open addressing, 0 empty; NULL: the bits */
	gsize mask;
	guint64 *bits;
	gsize words;
	GArray *roles;            /* guint64, while read; NULL: too many */
} credited;

/* A commit id and the people's roles on it (1 << role, OR'ed), in a word:
 * never 0, a role is a bit. */
#define ROLE_BITS 16
G_STATIC_ASSERT(CCSIFT_ROLE_COUNT <= ROLE_BITS);

static guint64 credited_role(int64_t cid, unsigned roles)
{
	return (guint64)cid << ROLE_BITS | roles;
}

static int64_t credited_role_cid(guint64 r)
{
	return (int64_t)(r >> ROLE_BITS);
}

typedef struct {
	GArray *rows;             /* row, in the index's order */
	gboolean complete;        /* every row, not a prefix */
} list;

/* One commit a person engaged with: when, and its subject's area in
 * lower case (in strings: the same area is the same pointer), or NULL. */
typedef struct {
	int64_t ctime;
	const char *area;
} engaged;

struct ccsift_walks {
	ccsift_index *idx;
	int64_t version;          /* the index's data version the lists are of */
	unsigned changes;         /* times the version changed */
	GHashTable *paths;        /* path -> list * (NULL: too long to hold) */
	GHashTable *dirs;         /* dir -> list * */
	GHashTable *commits;      /* cid -> commit * */
	GHashTable *credits;      /* cid -> GArray of ccsift_credit, read when first asked for */
	GHashTable *tails;        /* "%tail" or "/tail" -> the path it resolved to, or NULL */
	GHashTable *engaged;      /* person -> GArray of engaged by time (NULL: too many to hold) */
	GStringChunk *strings;
	GArray *asked;            /* the people the commits' roles are for */
	unsigned asked_generation; /* bumped when asked changes */
	GHashTable *credited;     /* people (GBytes of their ids) -> credited * */
	const credited *asked_credited;  /* asked's, or NULL: not held */
	gboolean asked_read;      /* asked_credited is asked's (since the last clear) */
	gboolean per_person;      /* ccsift_walks_hold_people */
	GArray *ctimes;           /* a replay's: commit times by id (NULL: unread) */
	int64_t engaged_since;    /* engagements held from this committer time on */
	unsigned units;           /* what it holds, in about 40 bytes: rows, commits, credits, bits */
	unsigned max_units;
};

static void credited_free(credited *c)
{
	g_free(c->slots);
	g_free(c->bits);
	if (c->roles)
		g_array_unref(c->roles);
	g_free(c);
}

/* (NULL: a person engaged too often to hold) */
static void engaged_free(GArray *rows)
{
	if (rows)
		g_array_unref(rows);
}

static void list_free(list *l)
{
	if (!l)
		return;
	g_array_unref(l->rows);
	g_free(l);
}

ccsift_walks *ccsift_walks_new(ccsift_index *idx, unsigned max_units)
{
	ccsift_walks *w = g_new0(ccsift_walks, 1);

	w->idx = idx;
	w->max_units = max_units;
	w->version = ccsift_index_data_version(idx);
	w->paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)list_free);
	w->dirs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)list_free);
	w->commits = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	w->credits = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, (GDestroyNotify)g_array_unref);
	w->tails = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	w->engaged = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, (GDestroyNotify)engaged_free);
	w->strings = g_string_chunk_new(64 << 10);
	w->asked = g_array_new(FALSE, FALSE, sizeof(int64_t));
	w->credited = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref,
					    (GDestroyNotify)credited_free);
	return w;
}

void ccsift_walks_free(ccsift_walks *w)
{
	if (!w)
		return;
	g_hash_table_unref(w->paths);
	g_hash_table_unref(w->dirs);
	g_hash_table_unref(w->commits);
	g_hash_table_unref(w->credits);
	g_hash_table_unref(w->tails);
	g_hash_table_unref(w->engaged);
	g_string_chunk_free(w->strings);
	g_array_unref(w->asked);
	g_hash_table_unref(w->credited);
	if (w->ctimes)
		g_array_unref(w->ctimes);
	g_free(w);
}

/* Lists point into the commits and strings: all go together. */
static void clear(ccsift_walks *w)
{
	g_hash_table_remove_all(w->paths);
	g_hash_table_remove_all(w->dirs);
	g_hash_table_remove_all(w->commits);
	g_hash_table_remove_all(w->credits);
	g_hash_table_remove_all(w->tails);
	g_hash_table_remove_all(w->engaged);
	g_hash_table_remove_all(w->credited);
	w->asked_credited = NULL;
	w->asked_read = FALSE;
	g_string_chunk_clear(w->strings);
	w->units = 0;
}

unsigned ccsift_walks_check(ccsift_walks *w)
{
	int64_t version = ccsift_index_data_version(w->idx);

	if (version != w->version) {
		clear(w);
		g_clear_pointer(&w->ctimes, g_array_unref);
		w->changes++;
	}
	w->version = version;
	return w->changes;
}

static const char *keep(ccsift_walks *w, const char *s)
{
	return s ? g_string_chunk_insert_const(w->strings, s) : NULL;
}

/* --- reading a list from the index --- */

typedef struct {
	ccsift_walks *w;
	list *l;
	guint max;
} loading;

static commit *commit_of(ccsift_walks *w, const ccsift_touch *t)
{
	commit *c = g_hash_table_lookup(w->commits, &t->cid);

	if (c)
		return c;
	c = g_new0(commit, 1);
	c->cid = t->cid;
	g_strlcpy(c->oid, t->oid ? t->oid : "", sizeof(c->oid));
	c->subject = keep(w, t->subject);
	c->atime = t->atime;
	c->ctime = t->ctime;
	c->author = t->author;
	c->committer = t->committer;
	c->nfiles = t->nfiles;
	c->ntop = t->ntop;
	c->flags = t->flags;
	g_hash_table_insert(w->commits, &c->cid, c);
	w->units++;
	return c;
}

static int add_row(const ccsift_touch *t, void *payload)
{
	loading *ld = payload;
	row r;

	if (ld->l->rows->len >= ld->max)
		return 1;
	r = (row){ commit_of(ld->w, t), t->cid, t->ctime, keep(ld->w, t->path), keep(ld->w, t->old_path), t->added,
		   t->removed, t->status };
	g_array_append_val(ld->l->rows, r);
	return 0;
}

/* A replay's directory row: its commit's time, the commit itself only
 * once a walk wants more than whether it is theirs (row_commit). A
 * replay serves tens of thousands of rows of a directory for each one
 * that is an addressee's, and reading every row's commit with it was
 * most of reading the directory. */
static int add_bare_row(const ccsift_touch *t, void *payload)
{
	loading *ld = payload;
	const GArray *ctimes = ld->w->ctimes;
	row r;

	if (ld->l->rows->len >= ld->max)
		return 1;
	if (t->cid < 0 || (guint64)t->cid >= ctimes->len)
		return -1;  /* a commit newer than the times: the index changed */
	r = (row){ NULL, t->cid, g_array_index(ctimes, int64_t, t->cid), keep(ld->w, t->path),
		   keep(ld->w, t->old_path), t->added, t->removed, t->status };
	g_array_append_val(ld->l->rows, r);
	return 0;
}

static int foreach_dir_row(ccsift_walks *w, const char *dir, loading *ld)
{
	if (w->per_person && !w->ctimes)
		w->ctimes = ccsift_index_commit_times(w->idx);
	if (w->ctimes)
		return ccsift_index_foreach_sibling_row(w->idx, dir, add_bare_row, ld);
	return ccsift_index_foreach_sibling_touch(w->idx, dir, "", G_MAXINT64, add_row, ld);
}

static list *load(ccsift_walks *w, const char *key, gboolean dir, guint max)
{
	loading ld = { w, g_new0(list, 1), max };
	list *old;
	int rc;

	if (w->units >= w->max_units)
		clear(w);
	ld.l->rows = g_array_new(FALSE, FALSE, sizeof(row));
	/* The index's statements with no time bound: the same plan, so the
	 * same order, of which a walk as of any time is a subsequence. */
	if (dir)
		rc = foreach_dir_row(w, key, &ld);
	else
		rc = ccsift_index_foreach_touch(w->idx, key, G_MAXINT64, add_row, &ld);
	if (rc < 0 || (!dir && rc)) {
		/* Unreadable, or a path too long to hold: left to the index. */
		list_free(ld.l);
		ld.l = NULL;
	} else {
		ld.l->complete = rc == 0;
		w->units += ld.l->rows->len;
	}
	/* A longer prefix replaces a shorter one. */
	if ((old = g_hash_table_lookup(dir ? w->dirs : w->paths, key)))
		w->units -= MIN(w->units, old->rows->len);
	g_hash_table_insert(dir ? w->dirs : w->paths, g_strdup(key), ld.l);
	return ld.l;
}

static list *lookup(ccsift_walks *w, const char *key, gboolean dir, guint max)
{
	GHashTable *table = dir ? w->dirs : w->paths;
	gpointer l;

	if (g_hash_table_lookup_extended(table, key, NULL, &l))
		return l;
	return load(w, key, dir, max);
}

/* --- serving a walk --- */

static int read_commit(const ccsift_touch *t, void *w)
{
	commit_of(w, t);
	return 0;
}

/* r's commit, read now if its row was read without it; NULL when the
 * index cannot say. Never dropped while a walk is served. */
static commit *row_commit(ccsift_walks *w, row *r)
{
	if (!r->c && !(r->c = g_hash_table_lookup(w->commits, &r->cid)) &&
	    ccsift_index_commit_read(w->idx, r->cid, read_commit, w) == 0)
		r->c = g_hash_table_lookup(w->commits, &r->cid);
	return r->c;
}

/* Never dropped while a walk is served (only a load drops). */
static const GArray *credits_of(ccsift_walks *w, int64_t cid)
{
	GArray *credits = g_hash_table_lookup(w->credits, &cid);

	if (!credits) {
		credits = g_array_new(FALSE, FALSE, sizeof(ccsift_credit));
		ccsift_index_commit_credits(w->idx, cid, credits);
		g_hash_table_insert(w->credits, g_memdup2(&cid, sizeof(cid)), credits);
		w->units += 1 + credits->len;
	}
	return credits;
}

int ccsift_walks_commit_credits(ccsift_walks *w, int64_t cid, GArray *out)
{
	const GArray *credits = credits_of(w, cid);

	g_array_append_vals(out, credits->data, credits->len);
	return 0;
}

static void credited_bit(credited *c, int64_t cid)
{
	gsize word = (gsize)cid / 64;

	if (word >= c->words) {
		gsize words = MAX(word + 1, c->words * 2);

		c->bits = g_renew(guint64, c->bits, words);
		memset(c->bits + c->words, 0, (words - c->words) * sizeof(guint64));
		c->words = words;
	}
	c->bits[word] |= (guint64)1 << (cid % 64);
}

static gboolean credited_has_bit(const credited *c, int64_t cid)
{
	return cid >= 0 && (gsize)cid / 64 < c->words && (c->bits[cid / 64] >> (cid % 64) & 1);
}

static void credited_bits_of_roles(credited *c)
{
	for (guint i = 0; i < c->roles->len; i++)
		credited_bit(c, credited_role_cid(g_array_index(c->roles, guint64, i)));
}

static int credited_set(int64_t cid, int role, void *payload)
{
	credited *c = payload;

	if (cid < 0 || role < 0 || role >= ROLE_BITS)
		return 0;
	if (c->roles && c->roles->len < MAX_CREDITED_ROLES) {
		guint64 r = credited_role(cid, 1u << role);

		g_array_append_val(c->roles, r);
		return 0;
	}
	if (c->roles) {
		credited_bits_of_roles(c);
		g_clear_pointer(&c->roles, g_array_unref);
	}
	credited_bit(c, cid);
	return 0;
}

static gsize credited_slot(const credited *c, int64_t cid)
{
	return (gsize)(((guint64)cid * G_GUINT64_CONSTANT(0x9e3779b97f4a7c15)) >> 32) & c->mask;
}

/* The roles read, one slot a commit (several credits OR'ed), at most
 * three quarters full; and the bits where they take no more room (a small
 * history's: a bit tells most rows apart faster than a probe). */
static void credited_index(credited *c)
{
	gsize size = 8;
	int64_t top = 0;

	while (size * 3 < 4 * (gsize)c->roles->len)
		size *= 2;
	c->mask = size - 1;
	c->slots = g_new0(guint64, size);
	for (guint i = 0; i < c->roles->len; i++) {
		guint64 r = g_array_index(c->roles, guint64, i);
		int64_t cid = credited_role_cid(r);
		gsize k = credited_slot(c, cid);

		while (c->slots[k] && credited_role_cid(c->slots[k]) != cid)
			k = (k + 1) & c->mask;
		c->slots[k] |= r;
		top = MAX(top, cid);
	}
	if ((gsize)top / 64 < size)
		credited_bits_of_roles(c);
	g_clear_pointer(&c->roles, g_array_unref);
}

/* The people's roles on commit cid; -1: they may have some, not held. */
static int credited_roles(const credited *c, int64_t cid)
{
	if (c->bits && !credited_has_bit(c, cid))
		return 0;
	if (!c->slots)
		return -1;  /* too many to hold: the commit's credits say */
	for (gsize k = credited_slot(c, cid); c->slots[k]; k = (k + 1) & c->mask)
		if (credited_role_cid(c->slots[k]) == cid)
			return (int)(c->slots[k] & ((1u << ROLE_BITS) - 1));
	return 0;
}

static credited *credited_read(ccsift_walks *w, const GArray *people)
{
	credited *c = g_new0(credited, 1);

	c->roles = g_array_new(FALSE, FALSE, sizeof(guint64));
	for (guint i = 0; i < people->len; i++)
		if (ccsift_index_foreach_person_credit(w->idx, g_array_index(people, int64_t, i), credited_set, c) < 0) {
			credited_free(c);
			return NULL;
		}
	if (c->roles)
		credited_index(c);
	w->units += 1 + (unsigned)(c->words / 5) + (unsigned)((c->slots ? c->mask + 1 : 0) / 5);
	return c;
}

/* The people a walk asks about are those of the last one, nearly always
 * (one scorer's identities): each commit's roles for them are kept, and
 * the commits crediting them; a replay asks for each addressee in turn,
 * and keeps each set's. */
static void ask_for(ccsift_walks *w, const GArray *people)
{
	g_autoptr(GBytes) key = NULL;
	credited *c;

	if (!w->asked_generation || people->len != w->asked->len ||
	    (people->len && memcmp(people->data, w->asked->data, people->len * sizeof(int64_t)) != 0)) {
		g_array_set_size(w->asked, 0);
		g_array_append_vals(w->asked, people->data, people->len);
		w->asked_generation++;
		w->asked_read = FALSE;
	}
	if (w->asked_read)
		return;
	w->asked_read = TRUE;
	w->asked_credited = NULL;
	if (!w->per_person)
		return;
	key = g_bytes_new(people->data, people->len * sizeof(int64_t));
	if (!(c = g_hash_table_lookup(w->credited, key)) && (c = credited_read(w, people)))
		g_hash_table_insert(w->credited, g_steal_pointer(&key), c);
	w->asked_credited = c;
}

void ccsift_walks_hold_people(ccsift_walks *w, int64_t since)
{
	w->per_person = TRUE;
	w->engaged_since = since;
}

/* What the index's walk gives in t->roles: the people's roles OR'ed.
 * people is w->asked (ask_for). */
static int roles_of(ccsift_walks *w, commit *c, GArray *people)
{
	const GArray *credits;
	unsigned roles = 0;

	if (c->roles_asked == w->asked_generation)
		return c->roles;
	credits = c->credits ? c->credits : (c->credits = credits_of(w, c->cid));
	for (guint i = 0; i < credits->len; i++) {
		const ccsift_credit *cr = &g_array_index(credits, ccsift_credit, i);

		for (guint j = 0; j < people->len; j++)
			if (cr->person == g_array_index(people, int64_t, j))
				roles |= 1u << cr->role;
	}
	c->roles_asked = w->asked_generation;
	c->roles = (int)roles;
	return (int)roles;
}

/* The asked people's roles on r's commit: from the bits and the roles the
 * walks hold for them, else from the commit's credits. */
static int row_roles(ccsift_walks *w, row *r, GArray *people)
{
	commit *c;
	int roles;

	if (w->asked_credited && (roles = credited_roles(w->asked_credited, r->cid)) >= 0)
		return roles;
	return (c = row_commit(w, r)) ? roles_of(w, c, people) : -1;
}

/* except is in strings (keep), as every row's path: the same text is the
 * same pointer. */
static gboolean wanted(const row *r, const char *except, int64_t before)
{
	return r->ctime < before && (!except || r->path != except);
}

/* The rows of l before `before` (but except), each as the index gives it;
 * with `evidence`, the first `enough` of them, and of those only the rows
 * one of the people has a role in (or may have): a directory's rows are
 * nearly all other people's, and a call for each was most of serving it. */
static int serve(ccsift_walks *w, list *l, const char *except, int64_t before, GArray *people,
		 gboolean evidence, unsigned enough, ccsift_touch_fn fn, void *payload)
{
	unsigned taken = 0;

	if (people)
		ask_for(w, people);
	for (guint i = 0; i < l->rows->len; i++) {
		row *r = &g_array_index(l->rows, row, i);
		const commit *c;
		ccsift_touch t;
		int roles = -1, rc;

		if (!wanted(r, except, before))
			continue;
		if (evidence && ++taken > enough)
			break;
		if (people)
			roles = row_roles(w, r, people);
		if (evidence && roles == 0)
			continue;
		if (!(c = row_commit(w, r)))
			return -1;
		t = (ccsift_touch){
			.cid = c->cid, .oid = c->oid, .subject = c->subject, .atime = c->atime, .ctime = c->ctime,
			.author = c->author, .committer = c->committer, .nfiles = c->nfiles, .ntop = c->ntop,
			.flags = c->flags, .status = r->status, .path = r->path, .old_path = r->old_path,
			.added = r->added, .removed = r->removed, .roles = roles,
		};
		if ((rc = fn(&t, payload)) != 0)
			return rc;
	}
	return 0;
}

int ccsift_walks_foreach_touch_for(ccsift_walks *w, const char *path, int64_t before, GArray *people,
				   ccsift_touch_fn fn, void *payload)
{
	list *l = lookup(w, path, FALSE, MAX_PATH_ROWS);

	if (!l)
		return ccsift_index_foreach_touch_for(w->idx, path, before, people, fn, payload);
	return serve(w, l, NULL, before, people, FALSE, 0, fn, payload);
}

int ccsift_walks_foreach_touch(ccsift_walks *w, const char *path, int64_t before, ccsift_touch_fn fn,
			       void *payload)
{
	list *l = lookup(w, path, FALSE, MAX_PATH_ROWS);

	if (!l)
		return ccsift_index_foreach_touch(w->idx, path, before, fn, payload);
	return serve(w, l, NULL, before, NULL, FALSE, 0, fn, payload);
}

/* Does a prefix hold every row the walk takes, and the one it stops at? */
static gboolean holds(const list *l, const char *except, int64_t before, unsigned enough)
{
	unsigned n = 0;

	if (l->complete)
		return TRUE;
	for (guint i = 0; i < l->rows->len && n <= enough; i++)
		n += wanted(&g_array_index(l->rows, row, i), except, before);
	return n > enough;
}

static int siblings(ccsift_walks *w, const char *dir, const char *except, int64_t before, GArray *people,
		    unsigned enough, gboolean evidence, ccsift_touch_fn fn, void *payload)
{
	list *l = lookup(w, dir, TRUE, MIN(enough + DIR_ROWS_MARGIN, MAX_DIR_ROWS));
	const char *other = keep(w, except ? except : "");

	if (l && !holds(l, other, before, enough) && l->rows->len < MAX_DIR_ROWS) {
		/* (a load may clear the strings other is in) */
		l = load(w, dir, TRUE, MAX_DIR_ROWS);
		other = keep(w, except ? except : "");
	}
	if (!l || !holds(l, other, before, enough))
		return evidence ? ccsift_index_foreach_sibling_evidence_for(w->idx, dir, except, before, people, fn,
									     payload)
				: ccsift_index_foreach_sibling_touch_for(w->idx, dir, except, before, people, fn, payload);
	return serve(w, l, other, before, people, evidence, enough, fn, payload);
}

int ccsift_walks_foreach_sibling_touch_for(ccsift_walks *w, const char *dir, const char *except, int64_t before,
					   GArray *people, unsigned enough, ccsift_touch_fn fn, void *payload)
{
	return siblings(w, dir, except, before, people, enough, FALSE, fn, payload);
}

int ccsift_walks_foreach_sibling_evidence_for(ccsift_walks *w, const char *dir, const char *except,
					      int64_t before, GArray *people, unsigned enough, ccsift_touch_fn fn,
					      void *payload)
{
	return siblings(w, dir, except, before, people, enough, TRUE, fn, payload);
}

char *ccsift_walks_resolve_tail(ccsift_walks *w, const char *tail, gboolean partial)
{
	g_autofree char *key = g_strconcat(partial ? "%" : "/", tail, NULL);
	gpointer found;

	if (!g_hash_table_lookup_extended(w->tails, key, NULL, &found)) {
		if (w->units >= w->max_units)
			clear(w);
		found = ccsift_index_resolve_tail(w->idx, tail, partial);
		g_hash_table_insert(w->tails, g_steal_pointer(&key), found);
		w->units++;
	}
	return g_strdup(found);
}

/* --- a person's engagements by area --- */

typedef struct {
	ccsift_walks *w;
	GArray *rows;
} engaged_loading;

static const char *area_key(ccsift_walks *w, const char *area, size_t len)
{
	g_autofree char *lower = g_ascii_strdown(area, (gssize)len);

	return keep(w, lower);
}

static int add_engaged(int64_t ctime, const char *subject, void *payload)
{
	engaged_loading *ld = payload;
	size_t len = subject ? ccsift_subject_area(subject) : 0;
	engaged e = { ctime, len ? area_key(ld->w, subject, len) : NULL };

	if (ld->rows->len >= MAX_ENGAGED_ROWS)
		return 1;
	g_array_append_val(ld->rows, e);
	return 0;
}

static int by_ctime(gconstpointer a, gconstpointer b)
{
	const engaged *x = a, *y = b;

	return (x->ctime > y->ctime) - (x->ctime < y->ctime);
}

/* The person's engagements by time, or NULL: unreadable or too many. */
static GArray *engaged_of(ccsift_walks *w, int64_t person)
{
	engaged_loading ld = { w, NULL };
	gpointer found;

	if (g_hash_table_lookup_extended(w->engaged, &person, NULL, &found))
		return found;
	if (w->units >= w->max_units)
		clear(w);
	ld.rows = g_array_new(FALSE, FALSE, sizeof(engaged));
	if (ccsift_index_foreach_engaged(w->idx, person, w->engaged_since, add_engaged, &ld) != 0) {
		g_array_unref(ld.rows);
		ld.rows = NULL;
	} else {
		g_array_sort(ld.rows, by_ctime);
		w->units += 1 + ld.rows->len / 2;
	}
	g_hash_table_insert(w->engaged, g_memdup2(&person, sizeof(person)), ld.rows);
	return ld.rows;
}

static guint first_at(GArray *rows, int64_t t)
{
	guint lo = 0, hi = rows->len;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (g_array_index(rows, engaged, mid).ctime < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

unsigned ccsift_walks_count_engaged_in_area(ccsift_walks *w, int64_t person, const char *area, int64_t after,
					    int64_t before, unsigned limit)
{
	size_t len = area ? strlen(area) : 0;
	const char *key;
	GArray *rows;
	unsigned n = 0;

	if (!len || !limit)
		return 0;
	/* As of the tip the index's year tables say it in a row. */
	if (!w->per_person || after < w->engaged_since || ccsift_index_year_answers(w->idx, after, before) ||
	    !(rows = engaged_of(w, person)))
		return ccsift_index_count_engaged_in_area(w->idx, person, area, after, before, limit);
	key = area_key(w, area, len);
	for (guint i = first_at(rows, after); i < rows->len && n < limit; i++) {
		const engaged *e = &g_array_index(rows, engaged, i);

		if (e->ctime >= before)
			break;
		n += e->area == key;
	}
	return n;
}
