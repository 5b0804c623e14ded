/* score.c: evidence from the index, overrides, verdict. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "date.h"
#include "error.h"
#include "maintainers.h"
#include "config.h"
#include "score.h"
#include "training.h"
#include "walks.h"
#include "weights.h"

#define SIBLING_DISCOUNT 0.3
#define MAX_RENAME_HOPS 8
#define MAX_SIBLING_TOUCHES 4000
/* Evidence a scorer remembers across decisions (file_history) before it
 * forgets all of it: a run over many mails stays within a few MiB. */
#define MAX_REMEMBERED 65536
/* What a scorer's own walks hold (ccsift_walks_new), as the replay's: all
 * of git.git's history, about 16 MiB more than one decision. A quarter of
 * it was dropped and read again twice in 10,000 mails, a sixth of the
 * run's time. */
#define BATCH_WALKS (1u << 20)
/* Files scored per patch: the bound on a message's files (ccsift.h). */
#define MAX_FILES 5000
/* Directories asked about the user's reviews there. */
#define MAX_DIRS 16
#define DAY ((int64_t)86400)

/* Tuned with ccsift eval on git.git (2021-2022; reported on 2023-2025):
 * applying and reviewing patches to a file predict engaging with the next
 * one; having authored them predicts little (DESIGN.md's U-Boot figures
 * say the same). Version 1 had author 1.0, committer 0.7, review 0.6:
 * 29% of the noise demoted at 5% of the engaged; these, 57%. */
static const double role_weight[CCSIFT_ROLE_COUNT] = {
	[CCSIFT_ROLE_AUTHOR] = 0.4,
	[CCSIFT_ROLE_COMMITTER] = 1.5,
	[CCSIFT_ROLE_REVIEWED] = 1.0,
	[CCSIFT_ROLE_ACKED] = 1.0,
	[CCSIFT_ROLE_TESTED] = 0.6,
	[CCSIFT_ROLE_SIGNED] = 0.3,
	[CCSIFT_ROLE_CODEVELOPED] = 0.4,
	[CCSIFT_ROLE_REPORTED] = 0.2,
	[CCSIFT_ROLE_SUGGESTED] = 0.2,
};

const char *ccsift_verdict_name(ccsift_verdict v)
{
	switch (v) {
	case CCSIFT_VERDICT_NOT_PATCH: return "not-a-patch";
	case CCSIFT_VERDICT_RELEVANT: return "relevant";
	case CCSIFT_VERDICT_LOW: return "low";
	case CCSIFT_VERDICT_UNKNOWN: break;
	}
	return "unknown";
}

void ccsift_score_options_init(ccsift_score_options *o)
{
	memset(o, 0, sizeof(*o));
	o->threshold = -1;
	o->half_life_days = CCSIFT_HALF_LIFE_DAYS;
	o->to_is_relevant = TRUE;
	o->require_cc = TRUE;
}

struct ccsift_scorer {
	ccsift_repo *repo;
	ccsift_index *idx;
	GArray *people;            /* int64_t person ids of the identities */
	GHashTable *emails;        /* identities, raw and canonical, lowercased */
	GHashTable *me;            /* every email is_me says TRUE of (made when needed) */
	ccsift_maintainers *maintainers;
	gboolean maintainers_loaded;
	gboolean maintainers_borrowed;
	/* the tip's, from the index: its M:/R: addresses the .mailmap maps
	 * to another (email -> canonical), or NULL */
	GHashTable *maintainer_aliases;
	/* of maintainers, made when first asked: the sections naming the
	 * user, and whether any section lists one of the identities (-1:
	 * not asked yet); a replay asks for every pair of every case */
	ccsift_maintainers_selection *mine;
	/* the --as-of that maintainers were read as of, when before the tip */
	int64_t maintainers_as_of;
	int listed;
	/* the model for as_of, and the user's operating point in it */
	int64_t model_as_of;
	ccsift_model model;
	gboolean model_fitted;
	int64_t model_until;
	double person_threshold;   /* logit */
	const char *person_source;
	unsigned person_pairs, person_engaged;
	GArray *replied;           /* margins of the patches the user replied to */
	GHashTable *roles;         /* cid -> the identities' role bits, loaded once */
	unsigned role_queries;     /* asked one commit at a time so far */
	GHashTable *histories;     /* path -> file_history */
	unsigned remembered;       /* evidence items in histories */
	ccsift_walks *walks;       /* the index's walks, held for many decisions */
	gboolean walks_borrowed;
	unsigned walks_changes;    /* ccsift_walks_check's count histories are of */
	unsigned decisions;        /* patches scored so far */
};

/* The canonical email as the index knows it; the repository's .mailmap only
 * for an identity no commit ever wrote (that opens libgit2). */
static char *canonical_identity(ccsift_scorer *s, const char *email)
{
	char *canon = ccsift_index_alias(s->idx, email);

	if (canon)
		return canon;
	if (ccsift_index_person_id(s->idx, email) >= 0 || !s->repo)
		return g_ascii_strdown(email, -1);
	return ccsift_repo_canonical_email(s->repo, NULL, email);
}

static void add_person(ccsift_scorer *s, int64_t id)
{
	for (guint i = 0; i < s->people->len; i++)
		if (g_array_index(s->people, int64_t, i) == id)
			return;
	g_array_append_val(s->people, id);
}

/* An address, and the person behind it under every address of their name
 * (as get_maintainer.pl counts them): a maintainer who reviews from work
 * and applies from kernel.org has both histories. */
static void add_identity(ccsift_scorer *s, const char *email)
{
	g_autofree char *canon = canonical_identity(s, email);
	g_autoptr(GArray) namesakes = g_array_new(FALSE, FALSE, sizeof(int64_t));

	g_hash_table_add(s->emails, g_ascii_strdown(email, -1));
	g_hash_table_add(s->emails, g_strdup(canon));
	ccsift_index_namesakes(s->idx, ccsift_index_person_id(s->idx, canon), namesakes);
	for (guint i = 0; i < namesakes->len; i++) {
		int64_t id = g_array_index(namesakes, int64_t, i);
		char *other = ccsift_index_person_email(s->idx, id);

		add_person(s, id);
		if (other)
			g_hash_table_add(s->emails, other);
	}
}

int ccsift_scorer_new(ccsift_scorer **out, ccsift_repo *repo, ccsift_index *idx,
		      const char *const *identities)
{
	g_autofree char *tip = ccsift_index_meta_get(idx, "tip");
	ccsift_scorer *s;

	/* A first build not yet done (or stopped: killed, a full disk) holds a
	 * part of the history: a verdict from it would be wrong quietly. */
	if (!tip || !*tip)
		return ccsift_error_set(CCSIFT_ENOTFOUND, "the index %s is not built yet, or its first build"
					" stopped half way (run: ccsift index)", ccsift_index_path(idx));
	s = g_new0(ccsift_scorer, 1);
	s->repo = repo;
	s->idx = idx;
	s->people = g_array_new(FALSE, FALSE, sizeof(int64_t));
	s->emails = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	s->model_as_of = -1;
	s->listed = -1;
	for (const char *const *e = identities; e && *e; e++)
		add_identity(s, *e);
	*out = s;
	return 0;
}

void ccsift_scorer_free(ccsift_scorer *s)
{
	if (!s)
		return;
	g_array_unref(s->people);
	g_hash_table_unref(s->emails);
	if (s->me)
		g_hash_table_unref(s->me);
	if (s->roles)
		g_hash_table_unref(s->roles);
	if (s->histories)
		g_hash_table_unref(s->histories);
	if (s->replied)
		g_array_unref(s->replied);
	if (!s->walks_borrowed)
		ccsift_walks_free(s->walks);
	ccsift_maintainers_selection_free(s->mine);
	if (!s->maintainers_borrowed)
		ccsift_maintainers_free(s->maintainers);
	if (s->maintainer_aliases)
		g_hash_table_unref(s->maintainer_aliases);
	g_free(s);
}

/* m in place of the maintainers, and what was asked of them forgotten. */
static void maintainers_replace(ccsift_scorer *s, ccsift_maintainers *m, gboolean borrowed)
{
	g_clear_pointer(&s->mine, ccsift_maintainers_selection_free);
	g_clear_pointer(&s->maintainer_aliases, g_hash_table_unref);
	s->listed = -1;
	if (!s->maintainers_borrowed)
		ccsift_maintainers_free(s->maintainers);
	s->maintainers = m;
	s->maintainers_loaded = TRUE;
	s->maintainers_borrowed = borrowed;
}

void ccsift_scorer_set_maintainers(ccsift_scorer *s, ccsift_maintainers *m)
{
	if (s->maintainers_loaded && m == s->maintainers)
		return;
	maintainers_replace(s, m, TRUE);
}

void ccsift_scorer_share_walks(ccsift_scorer *s, ccsift_walks *w)
{
	if (!s->walks_borrowed)
		ccsift_walks_free(s->walks);
	s->walks = w;
	s->walks_borrowed = TRUE;
}

static char *resolve_tail(ccsift_scorer *s, const ccsift_file *f)
{
	if (s->walks)
		return ccsift_walks_resolve_tail(s->walks, f->path, f->partial_tail);
	return ccsift_index_resolve_tail(s->idx, f->path, f->partial_tail);
}

void ccsift_scorer_resolve_paths(ccsift_scorer *s, ccsift_patch *patch)
{
	for (guint i = 0; i < patch->files->len; i++) {
		ccsift_file *f = patch->files->pdata[i];
		char *full;

		if (!f->truncated || !(full = resolve_tail(s, f)))
			continue;
		g_free(f->path);
		f->path = full;
		f->truncated = 0;
	}
}

/* Where a result's (or a remembered history's) evidence lives: its
 * pieces in blocks, their strings in a string chunk. A hot file gives
 * thousands of pieces, and a malloc for each piece and each of its
 * strings cost more than reading them from the index. */
#define PIECES_BLOCK 256
#define STRINGS_BLOCK 16384

struct ccsift_evidence_store {
	GStringChunk *strings;
	GPtrArray *blocks;        /* of PIECES_BLOCK pieces */
	guint used;               /* pieces given out of the last block */
};

static ccsift_evidence_store *store_new(void)
{
	ccsift_evidence_store *st = g_new0(ccsift_evidence_store, 1);

	st->strings = g_string_chunk_new(STRINGS_BLOCK);
	st->blocks = g_ptr_array_new_with_free_func(g_free);
	st->used = PIECES_BLOCK;
	return st;
}

static void store_free(ccsift_evidence_store *st)
{
	if (!st)
		return;
	g_string_chunk_free(st->strings);
	g_ptr_array_unref(st->blocks);
	g_free(st);
}

/* A piece of evidence, zeroed. */
static ccsift_evidence *store_piece(ccsift_evidence_store *st)
{
	ccsift_evidence *e;

	if (st->used == PIECES_BLOCK) {
		g_ptr_array_add(st->blocks, g_new(ccsift_evidence, PIECES_BLOCK));
		st->used = 0;
	}
	e = (ccsift_evidence *)g_ptr_array_index(st->blocks, st->blocks->len - 1) + st->used++;
	memset(e, 0, sizeof(*e));
	return e;
}

static char *keep(ccsift_evidence_store *st, const char *s)
{
	return s ? g_string_chunk_insert(st->strings, s) : NULL;
}

static void file_score_free(ccsift_file_score *f)
{
	g_free(f->path);
	g_free(f);
}

void ccsift_result_free(ccsift_result *r)
{
	if (!r)
		return;
	g_free(r->override);
	g_free(r->summary);
	g_free(r->author);
	g_free(r->area);
	g_ptr_array_unref(r->evidence);
	g_ptr_array_unref(r->files);
	store_free(r->store);
	g_free(r);
}

/* --- one file --- */

typedef struct {
	ccsift_scorer *s;
	const ccsift_score_options *o;
	int64_t now;
	ccsift_result *r;
	ccsift_file_score *fs;
	unsigned file;            /* index of fs in r->files */
	char *path;               /* fs->path, in r->store */
	unsigned found;           /* evidence items for this file */
	const char *via;          /* old name being walked, or NULL */
	gboolean sibling;
	gboolean credited_only;   /* the walk gives the user's touches only (totals known) */
	unsigned sibling_touches;
	GArray *cids;             /* cids counted under the file's own name */
	GHashTable *seen;         /* all cids counted, once an earlier name is walked */
	GHashTable *sibling_seen; /* cid -> its sibling evidence, for the whole patch */
	GPtrArray *renames;       /* queued (old name, before) as "before\told" */
} file_walk;

/* Is this the first touch of commit cid for the file? A name's touches
 * are one a commit: only from the first earlier name on is a set asked
 * (a set insert a touch was a tenth of a fit's time). */
static gboolean first_touch(file_walk *w, int64_t cid)
{
	if (!w->via) {
		g_array_append_val(w->cids, cid);
		return TRUE;
	}
	if (!w->seen) {
		w->seen = g_hash_table_new(g_direct_hash, g_direct_equal);
		for (guint i = 0; i < w->cids->len; i++)
			g_hash_table_add(w->seen, GINT_TO_POINTER((gint)g_array_index(w->cids, int64_t, i)));
	}
	return g_hash_table_add(w->seen, GINT_TO_POINTER((gint)cid));
}

static double breadth_of(const ccsift_touch *t)
{
	return ccsift_breadth(t->flags, t->nfiles, t->ntop);
}

static double decay_of(const file_walk *w, int64_t time)
{
	return ccsift_decay(w->now, time, w->o->half_life_days);
}

/* Count a touch's lines from the repository (ccsift who only: a verdict
 * never depends on what was counted before; the index's counts are those
 * of ccsift index --lines). */
static int count_lines(ccsift_scorer *s, const ccsift_evidence *e)
{
	const char *touched = e->via ? e->via : e->path;
	int added, removed;

	if (!s->repo || ccsift_repo_line_counts(s->repo, e->oid, touched, e->touched_old, &added, &removed) < 0)
		return -1;
	return added + removed;
}

static double substance_of(char status, int lines)
{
	if (lines < 0)
		return 0.5;         /* not counted: neither trivial nor substantive */
	if (lines == 0)
		return status == 'R' || status == 'C' ? 0.1 : 0.0;  /* rename, mode or whitespace */
	return MIN(1.0, lines / 10.0);
}

static ccsift_role best_role(unsigned roles)
{
	ccsift_role best = CCSIFT_ROLE_COUNT;

	for (int r = 0; r < CCSIFT_ROLE_COUNT; r++)
		if ((roles & (1u << r)) && (best == CCSIFT_ROLE_COUNT || role_weight[r] > role_weight[best]))
			best = r;
	return best;
}

/* A few commits are cheapest asked one at a time; past that (hot files have
 * thousands), load every credit of the identities once and look up. */
static unsigned user_roles(ccsift_scorer *s, int64_t cid)
{
	if (!s->roles && s->role_queries < 256) {
		unsigned roles = 0;

		s->role_queries++;
		for (guint i = 0; i < s->people->len; i++)
			roles |= ccsift_index_person_roles(s->idx, cid, g_array_index(s->people, int64_t, i));
		return roles;
	}
	if (!s->roles) {
		s->roles = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
		for (guint i = 0; i < s->people->len; i++)
			ccsift_index_person_credits(s->idx, g_array_index(s->people, int64_t, i), s->roles);
	}
	return GPOINTER_TO_UINT(g_hash_table_lookup(s->roles, &cid));
}

static int on_touch(const ccsift_touch *t, void *payload)
{
	file_walk *w = payload;
	double breadth, decay, base;
	unsigned roles;
	ccsift_role role;
	ccsift_evidence *e;

	if (w->sibling && ++w->sibling_touches > MAX_SIBLING_TOUCHES)
		return 1;
	/* Most of a directory is other people's: not worth a pow() each. */
	if (w->sibling && t->roles == 0)
		return 0;
	breadth = breadth_of(t);
	decay = decay_of(w, t->ctime);
	base = breadth * decay;
	if (!w->sibling && !w->credited_only) {
		if (!first_touch(w, t->cid))
			return 0;
		w->fs->total += base;
		w->fs->commits++;
		if (t->status == 'R' && t->old_path)
			g_ptr_array_add(w->renames, g_strdup_printf("%" G_GINT64_FORMAT "\t%s", t->ctime, t->old_path));
	}
	if (!(roles = t->roles >= 0 ? (unsigned)t->roles : user_roles(w->s, t->cid)))
		return 0;
	/* A commit is one piece of sibling evidence however many siblings it
	 * touched: the touch kept is the one of most substance, then of the
	 * first path, whatever order the index gives them in. */
	if (w->sibling && (e = g_hash_table_lookup(w->sibling_seen, GINT_TO_POINTER((gint)t->cid)))) {
		int lines = t->added >= 0 && t->removed >= 0 ? t->added + t->removed : -1;
		double a = substance_of(t->status, lines), b = substance_of(e->status, e->lines);

		if (a > b || (a == b && strcmp(t->path, e->via) < 0)) {
			e->via = keep(w->r->store, t->path);
			e->status = t->status;
			e->touched_old = t->status == 'R' ? keep(w->r->store, t->old_path) : NULL;
			e->lines = lines;
			e->file = w->file;
			e->path = w->path;
		}
		return 0;
	}
	role = best_role(roles);
	e = store_piece(w->r->store);
	e->oid = keep(w->r->store, t->oid);
	e->cid = t->cid;
	e->subject = keep(w->r->store, t->subject);
	e->path = w->path;
	e->via = w->sibling || w->via ? keep(w->r->store, t->path) : NULL;
	e->status = t->status;
	e->touched_old = t->status == 'R' ? keep(w->r->store, t->old_path) : NULL;
	e->file = w->file;
	e->roles = roles;
	e->role = role;
	e->time = t->ctime;
	e->nfiles = t->nfiles;
	e->lines = t->added >= 0 && t->removed >= 0 ? t->added + t->removed : -1;
	e->role_weight = role_weight[role];
	e->breadth = breadth;
	e->decay = decay;
	e->sibling = w->sibling;
	e->treewide = !!(t->flags & CCSIFT_COMMIT_TREEWIDE);
	/* The weight without substance, until line counts are known. */
	e->weight = e->role_weight * e->breadth * e->decay * (w->sibling ? SIBLING_DISCOUNT : 1);
	if (!w->sibling)
		w->fs->user_raw += base;
	else
		g_hash_table_insert(w->sibling_seen, GINT_TO_POINTER((gint)t->cid), e);
	w->found++;
	w->r->history++;
	g_ptr_array_add(w->r->evidence, e);
	return 0;
}

/* --- evidence, heaviest first ---
 *
 * A hot file's evidence (thousands of pieces) is sorted twice a decision,
 * and the sums over it are made in that order, to the last bit: the sort
 * must be stable, as g_qsort_with_data's merge sort is. */

/* Heavier first; as heavy, by commit id when by_oid (the order shown),
 * else in the order they came. */
static gint heavier_first(gconstpointer a, gconstpointer b, gpointer by_oid)
{
	const ccsift_evidence *x = *(ccsift_evidence *const *)a, *y = *(ccsift_evidence *const *)b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return by_oid ? strcmp(x->oid, y->oid) : 0;
}

/* Are pieces[0, n) in that order already? The second sort's are, where
 * the pieces' substance is all alike: a look at each neighbour costs a
 * tenth of a sort. */
static gboolean in_order(gpointer *pieces, guint n, gboolean by_oid)
{
	for (guint i = 1; i < n; i++)
		if (heavier_first(&pieces[i - 1], &pieces[i], GINT_TO_POINTER(by_oid)) > 0)
			return FALSE;
	return TRUE;
}

static void sort_heaviest_first(gpointer *pieces, guint n, gboolean by_oid)
{
	if (n < 2 || in_order(pieces, n, by_oid))
		return;
	g_qsort_with_data(pieces, (gint)n, sizeof(*pieces), heavier_first, GINT_TO_POINTER(by_oid));
}

/* A piece's commit id and subject, where its walk (the credited one) did
 * not give them. */
static void describe(ccsift_scorer *s, ccsift_evidence_store *st, ccsift_evidence *e)
{
	g_autofree char *oid = NULL, *subject = NULL;

	if (e->oid)
		return;
	ccsift_index_commit_text(s->idx, e->cid, &oid, &subject);
	e->oid = keep(st, oid ? oid : "");
	e->subject = keep(st, subject);
}

/* Heaviest first, and as heavy by commit id (the order shown): only the
 * pieces of a tie need their commit ids read. */
static void sort_for_showing(ccsift_scorer *s, ccsift_result *r)
{
	gpointer *pieces = r->evidence->pdata;
	guint n = r->evidence->len;

	sort_heaviest_first(pieces, n, FALSE);
	for (guint i = 0, j; i < n; i = j) {
		double w = ((ccsift_evidence *)pieces[i])->weight;

		for (j = i + 1; j < n && ((ccsift_evidence *)pieces[j])->weight == w; j++)
			describe(s, r->store, pieces[j]);
		if (j - i > 1) {
			describe(s, r->store, pieces[i]);
			sort_heaviest_first(pieces + i, j - i, TRUE);
		}
	}
}

/* The weights with substance, and each file's score weighed by the user's
 * share of it (version 1's sum, still what ccsift who ranks by). */
static void apply_substance(ccsift_scorer *s, const ccsift_score_options *o, ccsift_result *r)
{
	sort_heaviest_first(r->evidence->pdata, r->evidence->len, FALSE);
	for (guint i = 0; i < r->evidence->len; i++) {
		ccsift_evidence *e = r->evidence->pdata[i];
		ccsift_file_score *fs = r->files->pdata[e->file];

		if (e->lines < 0 && o->count_lines) {
			describe(s, r->store, e);
			e->lines = count_lines(s, e);
		}
		e->substance = substance_of(e->status, e->lines);
		e->weight *= e->substance;
		fs->user += e->weight;
	}
	for (guint i = 0; i < r->files->len; i++) {
		ccsift_file_score *fs = r->files->pdata[i];

		/* Hot files (a common header) say less about the user: weigh by share. */
		fs->score = fs->total > 0 ? fs->user * (0.5 + 0.5 * MIN(1.0, 3 * fs->share)) : fs->user;
		r->evidence_score += fs->score;
	}
}

static gboolean matches_any(char **globs, const char *path)
{
	for (char **g = globs; g && *g; g++)
		if (g_pattern_match_simple(*g, path))
			return TRUE;
	return FALSE;
}

/* A file's own history as one walk found it, before line counts: the
 * messages of a series, its cover and its replies name the same files, and
 * a scorer deciding many messages as of one time walks each file once. */
typedef struct {
	int64_t now;
	double half_life_days;
	double total, user_raw;
	int commits;
	GPtrArray *evidence;      /* ccsift_evidence *, copies */
	ccsift_evidence_store *store;  /* theirs */
} file_history;

static void file_history_free(file_history *h)
{
	g_ptr_array_unref(h->evidence);
	store_free(h->store);
	g_free(h);
}

static ccsift_evidence *evidence_copy(const ccsift_evidence *e, ccsift_evidence_store *st)
{
	ccsift_evidence *c = store_piece(st);

	*c = *e;
	c->oid = keep(st, e->oid);
	c->subject = keep(st, e->subject);
	c->path = g_string_chunk_insert_const(st->strings, e->path);
	c->via = keep(st, e->via);
	c->touched_old = keep(st, e->touched_old);
	return c;
}

/* The index's walks, from memory when the scorer holds them. */
static void walk_touches(ccsift_scorer *s, const char *path, int64_t before, file_walk *w)
{
	if (s->walks)
		ccsift_walks_foreach_touch_for(s->walks, path, before, s->people, on_touch, w);
	else
		ccsift_index_foreach_touch_for(s->idx, path, before, s->people, on_touch, w);
}

static void walk_siblings(ccsift_scorer *s, const char *dir, const char *path, int64_t before, file_walk *w)
{
	if (s->walks)
		ccsift_walks_foreach_sibling_evidence_for(s->walks, dir, path, before, s->people, MAX_SIBLING_TOUCHES,
							  on_touch, w);
	else
		ccsift_index_foreach_sibling_evidence_for(s->idx, dir, path, before, s->people, on_touch, w);
}

/* The file under its earlier names, as git log --follow finds them. */
static void walk_history(file_walk *w, const char *path, int64_t now)
{
	int64_t before = now;
	const char *name = path;

	/* A hot file never renamed: its sum over everyone's touches comes
	 * from the index, and only the user's own touches are walked. */
	if (ccsift_index_path_totals(w->s->idx, path, now, w->o->half_life_days, &w->fs->total, &w->fs->commits)) {
		w->via = NULL;
		w->credited_only = TRUE;
		ccsift_index_foreach_credited_touch(w->s->idx, path, now, w->s->people, on_touch, w);
		w->credited_only = FALSE;
		return;
	}
	for (int hop = 0; hop <= MAX_RENAME_HOPS; hop++) {
		guint queued = w->renames->len;

		w->via = hop ? name : NULL;
		walk_touches(w->s, name, before, w);
		if (w->renames->len == queued)
			break;
		{
			const char *entry = w->renames->pdata[queued];
			before = g_ascii_strtoll(entry, NULL, 10);
			name = strchr(entry, '\t') + 1;
		}
	}
}

static void remember_history(ccsift_scorer *s, const ccsift_score_options *o, int64_t now,
			     const ccsift_file_score *fs, ccsift_result *r, guint first)
{
	file_history *h = g_new0(file_history, 1);

	h->now = now;
	h->half_life_days = o->half_life_days;
	h->total = fs->total;
	h->user_raw = fs->user_raw;
	h->commits = fs->commits;
	h->evidence = g_ptr_array_new();
	h->store = store_new();
	for (guint i = first; i < r->evidence->len; i++)
		g_ptr_array_add(h->evidence, evidence_copy(r->evidence->pdata[i], h->store));
	if (!s->histories)
		s->histories = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)file_history_free);
	if (s->remembered > MAX_REMEMBERED) {
		g_hash_table_remove_all(s->histories);
		s->remembered = 0;
	}
	s->remembered += 1 + h->evidence->len;
	g_hash_table_insert(s->histories, g_strdup(fs->path), h);
}

static gboolean recall_history(ccsift_scorer *s, const ccsift_score_options *o, int64_t now,
			       ccsift_file_score *fs, ccsift_result *r, unsigned file, unsigned *found)
{
	file_history *h = s->histories ? g_hash_table_lookup(s->histories, fs->path) : NULL;

	if (!h || h->now != now || h->half_life_days != o->half_life_days)
		return FALSE;
	fs->total = h->total;
	fs->user_raw = h->user_raw;
	fs->commits = h->commits;
	for (guint i = 0; i < h->evidence->len; i++) {
		ccsift_evidence *e = evidence_copy(h->evidence->pdata[i], r->store);

		e->file = file;
		g_ptr_array_add(r->evidence, e);
	}
	r->history += h->evidence->len;
	*found = h->evidence->len;
	return TRUE;
}

static ccsift_file_score *score_file(ccsift_scorer *s, const ccsift_score_options *o, int64_t now,
				     ccsift_result *r, const char *path, GHashTable *sibling_dirs,
				     GHashTable *sibling_seen)
{
	ccsift_file_score *fs = g_new0(ccsift_file_score, 1);
	file_walk w = { s, o, now, r, fs, r->files->len };
	g_autofree char *dir = g_path_get_dirname(path);
	guint first = r->evidence->len;

	fs->path = g_strdup(path);
	w.path = keep(r->store, path);
	w.cids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	w.sibling_seen = sibling_seen;
	w.renames = g_ptr_array_new_with_free_func(g_free);
	if (!recall_history(s, o, now, fs, r, w.file, &w.found)) {
		walk_history(&w, path, now);
		/* Not for the first patch: a delivery scores one (and the copies
		 * of a busy file's evidence cost more than its walk from the
		 * index's sums); a second patch is the sign of a batch. Nor
		 * for one person of a replay (shared walks): each case is as of
		 * another time, and the copies were never asked for again. */
		if (s->decisions && !s->walks_borrowed)
			remember_history(s, o, now, fs, r, first);
	}
	/* Sibling history once per directory: several new files in one
	 * directory are not several pieces of evidence. */
	if (w.found == 0 && strcmp(dir, ".") != 0 && g_hash_table_add(sibling_dirs, g_strdup(dir))) {
		w.sibling = TRUE;
		w.via = NULL;
		walk_siblings(s, dir, path, now, &w);
	}
	fs->share = fs->total > 0 ? MIN(1.0, fs->user_raw / fs->total) : 0;
	g_array_unref(w.cids);
	if (w.seen)
		g_hash_table_unref(w.seen);
	g_ptr_array_unref(w.renames);
	return fs;
}

/* --- overrides --- */

static gboolean is_me(ccsift_scorer *s, const char *email)
{
	g_autofree char *canon = NULL;

	if (!email)
		return FALSE;
	if (g_hash_table_contains(s->emails, email))
		return TRUE;
	canon = ccsift_index_alias(s->idx, email);
	return canon && g_hash_table_contains(s->emails, canon);
}

static gboolean addressed(ccsift_scorer *s, GPtrArray *list)
{
	for (guint i = 0; i < list->len; i++)
		if (is_me(s, ((ccsift_address *)list->pdata[i])->email))
			return TRUE;
	return FALSE;
}

static gboolean maintainers_is_dir(const char *pattern, void *payload)
{
	return ccsift_index_is_dir(payload, pattern);
}

static GHashTable *me_set(ccsift_scorer *s);

static ccsift_maintainers *maintainers(ccsift_scorer *s)
{
	if (!s->maintainers_loaded) {
		g_autofree char *resolved = ccsift_index_meta_get(s->idx, "maintainers-resolved");
		const char *nl = resolved ? strchr(resolved, '\n') : NULL;
		g_autofree char *text = NULL;

		s->maintainers_loaded = TRUE;
		/* Resolved at index time against the same paths: no is_dir. And
		 * what is asked of it (maintainer_override, listed_in_maintainers)
		 * only concerns the sections naming the user: only those. */
		if (nl && g_ascii_strtoll(resolved, NULL, 10) == ccsift_index_paths_top(s->idx)) {
			g_autofree char *mine = ccsift_index_maintainers_naming(s->idx, me_set(s));

			s->maintainer_aliases = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
			ccsift_index_maintainer_aliases(s->idx, s->maintainer_aliases);

			if (mine)
				ccsift_maintainers_parse(&s->maintainers, mine, strlen(mine), NULL, NULL);
			else
				ccsift_maintainers_parse(&s->maintainers, nl + 1, strlen(nl + 1), NULL, NULL);
			return s->maintainers;
		}
		if ((text = ccsift_index_meta_get(s->idx, "maintainers")))
			ccsift_maintainers_parse(&s->maintainers, text, strlen(text), maintainers_is_dir, s->idx);
	}
	return s->maintainers;
}

/*
 * As of a time before the index's tip (--as-of), MAINTAINERS as it was in
 * the tree of the newest commit before it, as the replay reads it (eval.c):
 * the tip's names people who were no M: or R: then, and misses others.
 */
static void maintainers_as_of(ccsift_scorer *s, const ccsift_score_options *o, int64_t now)
{
	g_autofree char *oid = NULL;
	g_autoptr(GBytes) text = NULL;
	ccsift_maintainers *m = NULL;
	int64_t tip;

	if (!o->as_of || s->maintainers_borrowed || !s->repo || s->maintainers_as_of == now)
		return;
	if ((tip = ccsift_index_tip_time(s->idx)) < 0 || now > tip) {
		if (s->maintainers_as_of) {  /* the tip's again, from the index */
			maintainers_replace(s, NULL, FALSE);
			s->maintainers_loaded = FALSE;
			s->maintainers_as_of = 0;
		}
		return;
	}
	if ((oid = ccsift_index_commit_before(s->idx, now)))
		text = ccsift_repo_read_file_at(s->repo, oid, FALSE, "MAINTAINERS", NULL);
	if (text && ccsift_maintainers_parse(&m, g_bytes_get_data(text, NULL), g_bytes_get_size(text),
					     maintainers_is_dir, s->idx) < 0)
		m = NULL;
	maintainers_replace(s, m, FALSE);
	s->maintainers_as_of = now;
}

/* is_me of every email at once: the identities, and every email the
 * index maps to one of them (ccsift_index_alias). */
static GHashTable *me_set(ccsift_scorer *s)
{
	if (!s->me) {
		g_autoptr(GPtrArray) aliases = g_ptr_array_new_with_free_func(g_free);
		GHashTableIter it;
		gpointer email;

		s->me = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		g_hash_table_iter_init(&it, s->emails);
		while (g_hash_table_iter_next(&it, &email, NULL)) {
			g_hash_table_add(s->me, g_strdup(email));
			ccsift_index_aliases_of(s->idx, email, aliases);
		}
		for (guint i = 0; i < aliases->len; i++)
			g_hash_table_add(s->me, g_strdup(aliases->pdata[i]));
	}
	return s->me;
}

/* An M: or R: line of the user's: one of their addresses, or (in the
 * tip's MAINTAINERS) one the .mailmap maps to theirs, as get_maintainer.pl
 * maps it before mailing. */
static gboolean is_me_listed(const ccsift_maintainer *e, void *payload)
{
	ccsift_scorer *s = payload;
	const char *canonical;

	if (!e->email)
		return FALSE;
	if (g_hash_table_contains(me_set(s), e->email))
		return TRUE;
	canonical = s->maintainer_aliases ? g_hash_table_lookup(s->maintainer_aliases, e->email) : NULL;
	return canonical && g_hash_table_contains(me_set(s), canonical);
}

/* The first M:/R: entry naming the user of the first file's sections (in
 * ccsift_maintainers_match's order): only the sections naming the user
 * are matched against the files. */
static char *maintainer_override(ccsift_scorer *s, ccsift_patch *patch)
{
	ccsift_maintainers *m = maintainers(s);

	if (!m)
		return NULL;
	if (!s->mine)
		s->mine = ccsift_maintainers_select(m, is_me_listed, s);
	for (guint i = 0; i < patch->files->len; i++) {
		ccsift_file *f = patch->files->pdata[i];
		const ccsift_maintainer *e = ccsift_maintainers_selection_first(s->mine, f->path);

		if (e)
			return g_strdup_printf("you are %s: for %s in MAINTAINERS (%s)",
					       e->role == 'M' ? "M" : "R", f->path, e->section);
	}
	return NULL;
}

static char *fixes_override(ccsift_scorer *s, ccsift_patch *patch)
{
	for (guint i = 0; i < patch->fixes->len; i++) {
		int64_t cid, author;

		if (ccsift_index_find_commit(s->idx, patch->fixes->pdata[i], &cid, &author) < 0)
			continue;
		for (guint j = 0; j < s->people->len; j++)
			if (g_array_index(s->people, int64_t, j) == author)
				return g_strdup_printf("Fixes: %s names your commit", (char *)patch->fixes->pdata[i]);
	}
	return NULL;
}

/* A patch of the user's own (its author, or a co-author by its
 * Co-developed-by:), or one they sent: someone resending it (a
 * maintainer's series, a stable backport with the in-body From:) Cc's the
 * authors, the people sure to care. */
static char *author_override(ccsift_scorer *s, ccsift_patch *patch)
{
	const ccsift_address *author = ccsift_patch_author(patch);

	if (author && is_me(s, author->email))
		return g_strdup_printf("you wrote this patch (%s)", author->email);
	for (guint i = 0; i < patch->coauthors->len; i++) {
		const ccsift_address *co = patch->coauthors->pdata[i];

		if (is_me(s, co->email))
			return g_strdup_printf("you co-developed this patch (%s)", co->email);
	}
	if (patch->from && patch->from != author && is_me(s, patch->from->email))
		return g_strdup_printf("you sent this patch (%s)", patch->from->email);
	return NULL;
}

static char *path_override(const ccsift_score_options *o, ccsift_patch *patch)
{
	for (guint i = 0; i < patch->files->len; i++) {
		ccsift_file *f = patch->files->pdata[i];

		for (char **g = o->always; g && *g; g++)
			if (g_pattern_match_simple(*g, f->path))
				return g_strdup_printf("%s matches your rule always = %s", f->path, *g);
	}
	return NULL;
}

/* --- the verdict --- */

/* --- the model's inputs --- */

/* Count commit cid for feature in f's words: once, however many of the
 * patch's files (one evidence row each) it touched. */
static void count_commit(GHashTable *counted, int64_t cid, ccsift_feature feature, ccsift_features *f)
{
	gpointer key = (gpointer)(gintptr)cid;
	unsigned done = GPOINTER_TO_UINT(g_hash_table_lookup(counted, key));

	if (done & (1u << feature))
		return;
	g_hash_table_insert(counted, key, GUINT_TO_POINTER(done | 1u << feature));
	f->n[feature]++;
}

/* The sums are over the rows, one per (commit, file): a commit weighs in
 * each file it changed. The counts said in words are of commits. */
static void file_features(const ccsift_result *r, ccsift_features *f)
{
	double sum[CCSIFT_FEATURE_COUNT] = { 0 };
	g_autoptr(GHashTable) counted = g_hash_table_new(g_direct_hash, g_direct_equal);
	const unsigned applied = 1u << CCSIFT_ROLE_COMMITTER;
	const unsigned reviewed = 1u << CCSIFT_ROLE_REVIEWED | 1u << CCSIFT_ROLE_ACKED;
	const unsigned tested = 1u << CCSIFT_ROLE_TESTED;
	const unsigned authored = 1u << CCSIFT_ROLE_AUTHOR | 1u << CCSIFT_ROLE_CODEVELOPED;
	const unsigned signed_ = 1u << CCSIFT_ROLE_SIGNED | 1u << CCSIFT_ROLE_REPORTED | 1u << CCSIFT_ROLE_SUGGESTED;

	for (guint i = 0; i < r->evidence->len; i++) {
		const ccsift_evidence *e = r->evidence->pdata[i];
		double base = e->substance * e->breadth * e->decay;

		if (e->sibling) {
			sum[CCSIFT_FEATURE_SIBLING] += base, count_commit(counted, e->cid, CCSIFT_FEATURE_SIBLING, f);
			continue;
		}
		if (e->roles & applied)
			sum[CCSIFT_FEATURE_APPLIED] += base, count_commit(counted, e->cid, CCSIFT_FEATURE_APPLIED, f);
		if (e->roles & reviewed)
			sum[CCSIFT_FEATURE_REVIEWED] += base, count_commit(counted, e->cid, CCSIFT_FEATURE_REVIEWED, f);
		if (e->roles & tested)
			sum[CCSIFT_FEATURE_TESTED] += base, count_commit(counted, e->cid, CCSIFT_FEATURE_TESTED, f);
		if (e->roles & authored)
			sum[CCSIFT_FEATURE_AUTHORED] += base, count_commit(counted, e->cid, CCSIFT_FEATURE_AUTHORED, f);
		/* One's own sign-off as author or committer says nothing more. */
		else if ((e->roles & signed_) && !(e->roles & applied))
			sum[CCSIFT_FEATURE_SIGNED] += base, count_commit(counted, e->cid, CCSIFT_FEATURE_SIGNED, f);
	}
	for (int i = CCSIFT_FEATURE_APPLIED; i <= CCSIFT_FEATURE_SIBLING; i++)
		f->x[i] = log1p(sum[i]);
	for (guint i = 0; i < r->files->len; i++) {
		const ccsift_file_score *fs = r->files->pdata[i];

		f->n[CCSIFT_FEATURE_SHARE] = MAX(f->n[CCSIFT_FEATURE_SHARE], fs->share);
	}
	f->x[CCSIFT_FEATURE_SHARE] = f->n[CCSIFT_FEATURE_SHARE];
}

static int64_t author_of(ccsift_scorer *s, const ccsift_patch *patch)
{
	const ccsift_address *a = ccsift_patch_author(patch);
	g_autofree char *canon = NULL;

	if (!a || !a->email)
		return -1;
	canon = ccsift_index_alias(s->idx, a->email);
	return ccsift_index_person_id(s->idx, canon ? canon : a->email);
}

/* The author's name for a reason header: the mail's own words, so one
 * line of printable text and not too long; else their address. */
static char *author_words(const ccsift_address *a)
{
	const char *src = a && a->name && *a->name ? a->name : a ? a->email : NULL;
	g_autofree char *valid = NULL;
	unsigned chars = 0;
	GString *out;

	if (!src || !*src)
		return NULL;
	valid = g_utf8_make_valid(src, -1);
	out = g_string_new(NULL);
	for (const char *p = valid; *p && chars < 60; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (c == '"')
			continue;
		if (g_unichar_iscntrl(c) || g_unichar_isspace(c)) {
			if (out->len && out->str[out->len - 1] != ' ') {
				g_string_append_c(out, ' ');
				chars++;
			}
			continue;
		}
		g_string_append_unichar(out, c);
		chars++;
	}
	g_strstrip(out->str);
	if (!*out->str) {
		g_string_free(out, TRUE);
		return NULL;
	}
	return g_string_free(out, FALSE);
}

static GPtrArray *patch_dirs(const ccsift_patch *patch)
{
	GPtrArray *dirs = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint i = 0; i < patch->files->len && dirs->len < MAX_DIRS; i++) {
		const ccsift_file *f = patch->files->pdata[i];
		const char *slash = strrchr(f->path, '/');
		char *dir = slash ? g_strndup(f->path, slash - f->path) : g_strdup("");

		/* g_hash_table_add would put this copy in the old one's place */
		if (g_hash_table_contains(seen, dir)) {
			g_free(dir);
			continue;
		}
		g_hash_table_add(seen, dir);
		g_ptr_array_add(dirs, dir);
	}
	return dirs;
}

static gboolean listed_in_maintainers(ccsift_scorer *s)
{
	ccsift_maintainers *m = maintainers(s);
	GHashTableIter it;
	gpointer email;

	if (!m)
		return FALSE;
	if (s->listed >= 0)
		return s->listed;
	s->listed = FALSE;
	g_hash_table_iter_init(&it, s->emails);
	while (g_hash_table_iter_next(&it, &email, NULL) && !s->listed)
		s->listed = ccsift_maintainers_lists(m, email);
	return s->listed;
}

/* The directory and area counts stop at this many a person: the model
 * reads a hundred as a lot, and a maintainer's thousands cost a walk each. */
#define ENGAGED_COUNT_BOUND 100

/* count of feature, which stops at ENGAGED_COUNT_BOUND: said "at least" when it did. */
static void add_bounded(ccsift_features *f, unsigned *bounded, ccsift_feature feature, unsigned count)
{
	f->n[feature] += count;
	if (count >= ENGAGED_COUNT_BOUND)
		*bounded |= 1u << feature;
}

static void person_features(ccsift_scorer *s, const ccsift_patch *patch, const char *area, int64_t now,
			    ccsift_features *f, unsigned *bounded)
{
	int64_t author = author_of(s, patch);
	g_autoptr(GPtrArray) dirs = patch_dirs(patch);
	unsigned ccs = patch->cc->len;

	for (guint i = 0; i < s->people->len; i++) {
		int64_t p = g_array_index(s->people, int64_t, i);
		ccsift_activity a;

		if (ccsift_index_person_activity(s->idx, p, author, now, &a) < 0)
			continue;
		f->n[CCSIFT_FEATURE_ENGAGED_90] += a.engaged_90;
		f->n[CCSIFT_FEATURE_ENGAGED_365] += a.engaged_365;
		f->n[CCSIFT_FEATURE_AUTHORED_365] += a.authored_365;
		if (author >= 0 && author != p) {
			f->n[CCSIFT_FEATURE_WITH_AUTHOR] += a.with_author;
			f->n[CCSIFT_FEATURE_AUTHOR_WITH] +=
				ccsift_index_count_engaged_with(s->idx, author, p, now - 365 * DAY, now);
		}
		if (!a.engaged_365)
			continue;
		add_bounded(f, bounded, CCSIFT_FEATURE_DIRECTORY,
			    ccsift_index_count_engaged_in_dirs(s->idx, p, dirs, now - 365 * DAY, now,
							       ENGAGED_COUNT_BOUND));
		add_bounded(f, bounded, CCSIFT_FEATURE_AREA,
			    s->walks ? ccsift_walks_count_engaged_in_area(s->walks, p, area, now - 365 * DAY, now,
									  ENGAGED_COUNT_BOUND)
				     : ccsift_index_count_engaged_in_area(s->idx, p, area, now - 365 * DAY, now,
									  ENGAGED_COUNT_BOUND));
	}
	f->n[CCSIFT_FEATURE_MAINTAINER] = listed_in_maintainers(s);
	f->n[CCSIFT_FEATURE_FILES] = patch->files->len;
	for (guint i = 0; i < patch->cc->len; i++)
		ccs -= is_me(s, ((ccsift_address *)patch->cc->pdata[i])->email) ? 1 : 0;
	f->n[CCSIFT_FEATURE_CCS] = ccs;
	for (int i = CCSIFT_FEATURE_ENGAGED_90; i < CCSIFT_FEATURE_COUNT; i++)
		f->x[i] = i == CCSIFT_FEATURE_MAINTAINER ? f->n[i] : log1p(f->n[i]);
}

/* --- the model and the user's operating point --- */

/* The model fitted on the history before `now` (the newest stored fit not
 * after it), else the prior; and the user's own point in it. */
static unsigned replied_count(const ccsift_scorer *s)
{
	return s->replied ? s->replied->len : 0;
}

/* A damaged fit is an error, not the prior: a verdict then would be one
 * nobody fitted, and the next ccsift index makes the fit again. */
static int damaged_fit(ccsift_scorer *s)
{
	char date[16];

	return ccsift_error_set(CCSIFT_ECORRUPT, "the index's fit of %s is damaged (run: ccsift index): %s",
				ccsift_date_format(s->model_until, date, sizeof(date)), ccsift_error_last());
}

/* The stored fit in text: ok (0), of another version (CCSIFT_EINVALID, the
 * next ccsift index makes it again: the prior decides meanwhile, as on an
 * index too young for a fit), or damaged (CCSIFT_ECORRUPT). */
static int read_fit(ccsift_scorer *s, const char *text)
{
	char date[16];
	int rc = ccsift_model_from_string(&s->model, text);

	if (rc == 0 && s->model.until != s->model_until)
		rc = ccsift_error_set(CCSIFT_ECORRUPT, "stored model: fitted until %s, stored as another period's",
				      ccsift_date_format(s->model.until, date, sizeof(date)));
	return rc == CCSIFT_ECORRUPT ? damaged_fit(s) : rc;
}

static int load_model(ccsift_scorer *s, int64_t now)
{
	int rc = 0;

	g_autofree char *text = NULL;
	g_autoptr(GArray) pairs = NULL;
	g_autoptr(GArray) engaged = NULL;
	g_autoptr(GArray) reference = NULL;
	ccsift_model_reference ref = { 0 };
	unsigned engaged_total = 0, replied = replied_count(s);

	if (s->model_as_of == now)
		return 0;
	s->model_as_of = -1;  /* until it is all read */
	s->model_fitted = FALSE;
	s->model_until = 0;
	text = ccsift_index_fit_get(s->idx, now, &s->model_until);
	if (text && (rc = read_fit(s, text)) == CCSIFT_ECORRUPT)
		return rc;
	if (text && rc == 0)
		s->model_fitted = TRUE;
	else
		ccsift_model_prior(&s->model);
	s->person_threshold = s->model.threshold;
	s->person_source = s->model_fitted ? "the repository's" : "the prior's";
	s->person_pairs = s->person_engaged = 0;
	pairs = g_array_new(FALSE, FALSE, sizeof(ccsift_fit_pair));
	engaged = g_array_new(FALSE, FALSE, sizeof(double));
	for (guint i = 0; s->model_fitted && i < s->people->len; i++)
		if ((rc = ccsift_index_fit_pairs(s->idx, s->model_until, g_array_index(s->people, int64_t, i), pairs)) < 0)
			return rc == CCSIFT_ECORRUPT ? damaged_fit(s) : rc;
	for (guint i = 0; i < pairs->len; i++) {
		const ccsift_fit_pair *p = &g_array_index(pairs, ccsift_fit_pair, i);

		engaged_total += p->engaged;
		if (p->engaged && p->demotable)
			g_array_append_val(engaged, p->logit);
	}
	s->person_pairs = pairs->len;
	s->person_engaged = engaged_total;
	/* A review by mail leaves no trailer for the replay to see: the
	 * patches the user replied to are engaged pairs too, placed against
	 * this model's point as they stood against the one that decided them. */
	for (unsigned i = 0; i < replied; i++) {
		/* A hair under, so that a patch scoring exactly as one the user
		 * replied to is kept whatever the rounding of the sum. */
		double logit = s->model.threshold + g_array_index(s->replied, double, i) - 1e-9;

		g_array_append_val(engaged, logit);
	}
	if (!pairs->len && !replied) {
		s->model_as_of = now;
		return 0;
	}
	reference = g_array_new(FALSE, FALSE, sizeof(double));
	if (s->model_fitted && (rc = ccsift_training_reference(s->idx, s->model_until, text, reference, &ref.engaged)) < 0)
		return rc == CCSIFT_ECORRUPT ? damaged_fit(s) : rc;
	ref.logits = (const double *)reference->data;
	ref.n = reference->len;
	s->person_threshold = ccsift_model_person_threshold(&s->model, &ref, (double *)engaged->data, engaged->len,
							    engaged_total + replied, pairs->len + replied);
	s->person_source = "yours";
	s->model_as_of = now;
	return 0;
}

void ccsift_scorer_set_replied(ccsift_scorer *s, const double *margins, unsigned n)
{
	if (!s->replied)
		s->replied = g_array_new(FALSE, FALSE, sizeof(double));
	g_array_set_size(s->replied, 0);
	g_array_append_vals(s->replied, margins, n);
	s->model_as_of = -1;  /* the point is made again */
}

int ccsift_scorer_operating_point(ccsift_scorer *s, int64_t as_of, ccsift_operating_point *out)
{
	int rc = load_model(s, as_of);

	if (rc < 0)
		return rc;
	out->threshold = ccsift_logistic(s->person_threshold);
	out->source = s->person_source;
	out->model_until = s->model_fitted ? s->model_until : 0;
	out->pairs = s->person_pairs;
	out->engaged = s->person_engaged;
	out->replied = replied_count(s);
	out->model = s->model;
	return 0;
}

static int apply_model(ccsift_scorer *s, const ccsift_score_options *o, int64_t now, ccsift_result *r)
{
	double logit, z;
	int rc;

	if (o->model) {
		r->model = *o->model;
		r->threshold_source = "the model's";
		logit = o->model->threshold;
	} else {
		if ((rc = load_model(s, now)) < 0)
			return rc;
		r->model = s->model;
		r->threshold_source = s->person_source;
		r->threshold_replied = replied_count(s);
		logit = s->person_threshold;
	}
	r->threshold = ccsift_logistic(logit);
	if (o->threshold >= 0) {
		r->threshold = o->threshold;
		r->threshold_source = "configured";
		r->threshold_replied = 0;
	}
	/* Bounded weights and features give a number: this is the last guard. */
	if (!isfinite(z = ccsift_model_logit(&r->model, &r->features)) || !isfinite(logit))
		return ccsift_error_set(CCSIFT_ECORRUPT, "the model's score is not a number");
	r->score = ccsift_logistic(z);
	return 0;
}

/* --- the verdict --- */

static int by_contribution(gconstpointer a, gconstpointer b, gpointer data)
{
	const double *c = data;
	int x = *(const int *)a, y = *(const int *)b;

	return c[x] < c[y] ? -1 : c[x] > c[y] ? 1 : x - y;
}

/* The features ordered by how much they pushed towards the verdict. */
void ccsift_result_reasons(const ccsift_result *r, int order[CCSIFT_FEATURE_COUNT],
			   double contribution[CCSIFT_FEATURE_COUNT])
{
	double key[CCSIFT_FEATURE_COUNT];

	ccsift_model_contributions(&r->model, &r->features, contribution);
	for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++) {
		order[i] = i;
		key[i] = r->verdict == CCSIFT_VERDICT_LOW ? contribution[i] : -contribution[i];
	}
	g_qsort_with_data(order, CCSIFT_FEATURE_COUNT, sizeof(int), by_contribution, key);
}

char *ccsift_result_feature_words(const ccsift_result *r, int feature)
{
	char *words = ccsift_feature_describe_by(feature, r->features.n[feature], r->author, r->area);
	char *out;

	/* (the words of a bounded count begin with it) */
	if (!(r->bounded & (1u << feature)))
		return words;
	out = g_strconcat("at least ", words, NULL);
	g_free(words);
	return out;
}

char *ccsift_result_reason_words(const ccsift_result *r, int feature)
{
	char *words = ccsift_result_feature_words(r, feature);
	const char *than;
	char *out;

	/* Where the count alone reads the wrong way, say it compares with
	 * the rest: "you authored 2 commits" lowering the odds where more is
	 * less likely, or "your share of these files is 15%", evidence for,
	 * lowering them for being under the fit's mean. */
	if (!r->features.n[feature] || r->features.x[feature] == r->model.mean[feature] ||
	    r->model.w[feature] == 0 || (r->model.w[feature] > 0 && r->features.x[feature] > r->model.mean[feature]))
		return words;
	if (r->features.x[feature] > r->model.mean[feature])
		than = "more than most";
	else
		than = feature == CCSIFT_FEATURE_SHARE ? "less than most" : "fewer than most";
	out = g_strdup_printf("%s (%s)", words, than);
	g_free(words);
	return out;
}

static char *summarize(const ccsift_result *r)
{
	int order[CCSIFT_FEATURE_COUNT];
	double c[CCSIFT_FEATURE_COUNT];
	GString *out;

	if (r->override)
		return g_strdup(r->override);
	if (!r->history && r->cc)
		return g_strdup("no history of yours on these files: someone put you on Cc for a reason");
	/* Only Cc's are demoted: the model's odds are not why it is relevant. */
	if (!r->cc && r->verdict == CCSIFT_VERDICT_RELEVANT)
		return g_strdup_printf("you are not on Cc, so it is not demoted (%.0f%% likely to engage)",
				       100 * r->score);
	out = g_string_new(NULL);
	g_string_append_printf(out, "%.0f%% likely to engage, %s %.0f%%", 100 * r->score,
			       r->verdict == CCSIFT_VERDICT_LOW ? "under" : "at or over", 100 * r->threshold);
	ccsift_result_reasons(r, order, c);
	for (int i = 0, said = 0; i < CCSIFT_FEATURE_COUNT && said < 2; i++) {
		g_autofree char *words = NULL;

		/* Only what moved it the verdict's way, by a visible amount. */
		if (fabs(c[order[i]]) < 0.05 || (r->verdict == CCSIFT_VERDICT_LOW) != (c[order[i]] < 0))
			break;
		words = ccsift_result_reason_words(r, order[i]);
		g_string_append_printf(out, "%s%s", said++ ? "; " : ": ", words);
	}
	return g_string_free(out, FALSE);
}

static void decide(ccsift_result *r, const ccsift_score_options *o)
{
	if (r->override) {
		r->verdict = CCSIFT_VERDICT_RELEVANT;
	} else if (r->to && o->to_is_relevant) {
		r->override = g_strdup("you are in To:");
		r->verdict = CCSIFT_VERDICT_RELEVANT;
	} else if (o->require_cc && !r->cc) {
		r->verdict = CCSIFT_VERDICT_RELEVANT;
	} else if (r->history == 0) {
		/* Someone put the user on Cc on purpose, or history is out of sight. */
		r->verdict = CCSIFT_VERDICT_RELEVANT;
	} else {
		r->verdict = r->score < r->threshold ? CCSIFT_VERDICT_LOW : CCSIFT_VERDICT_RELEVANT;
	}
}

int64_t ccsift_scorer_as_of(ccsift_scorer *s, const ccsift_score_options *o)
{
	int64_t tip;

	if (o->as_of)
		return o->as_of;
	/* Activity is measured from the history the index holds, not the
	 * wall clock: a clone fetched months ago is judged as of its tip. */
	if ((tip = ccsift_index_tip_time(s->idx)) > 0)
		return tip + 1;
	return (int64_t)time(NULL);
}

static int score_patch(ccsift_scorer *s, ccsift_patch *patch, const ccsift_score_options *o,
		       ccsift_result **out)
{
	ccsift_result *r = g_new0(ccsift_result, 1);
	int64_t now = ccsift_scorer_as_of(s, o);
	int rc;
	g_autoptr(GHashTable) sibling_dirs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable) sibling_seen = g_hash_table_new(g_direct_hash, g_direct_equal);

	r->evidence = g_ptr_array_new();
	r->store = store_new();
	r->files = g_ptr_array_new_with_free_func((GDestroyNotify)file_score_free);
	r->threshold = o->threshold;
	r->as_of = now;
	*out = r;
	if (patch->kind == CCSIFT_KIND_NOT_PATCH) {
		r->verdict = CCSIFT_VERDICT_NOT_PATCH;
		r->summary = g_strdup("no diff, diffstat or pull request in this mail");
		return 0;
	}
	ccsift_scorer_resolve_paths(s, patch);
	if (!patch->files->len) {
		r->verdict = CCSIFT_VERDICT_UNKNOWN;
		r->summary = g_strdup("the patch names no files");
		return 0;
	}
	r->to = addressed(s, patch->to);
	r->cc = addressed(s, patch->cc);
	for (guint i = 0; i < patch->files->len && r->files->len < MAX_FILES; i++) {
		ccsift_file *f = patch->files->pdata[i];
		const char *names[2] = { f->path, f->old_path };

		for (int n = 0; n < 2; n++) {
			ccsift_file_score *fs;

			if (!names[n] || (n == 1 && strcmp(names[1], names[0]) == 0) || matches_any(o->never, names[n]))
				continue;
			fs = score_file(s, o, now, r, names[n], sibling_dirs, sibling_seen);
			g_ptr_array_add(r->files, fs);
		}
	}
	apply_substance(s, o, r);
	sort_for_showing(s, r);
	for (guint i = 0; !o->verdict_only && i < r->evidence->len; i++)
		describe(s, r->store, r->evidence->pdata[i]);
	file_features(r, &r->features);
	maintainers_as_of(s, o, now);
	r->area = g_strdup(patch->subject.area);
	person_features(s, patch, r->area, now, &r->features, &r->bounded);
	r->author = author_words(ccsift_patch_author(patch));
	if ((rc = apply_model(s, o, now, r)) < 0) {
		*out = NULL;
		ccsift_result_free(r);
		return rc;
	}
	r->override = path_override(o, patch);
	if (!r->override)
		r->override = author_override(s, patch);
	if (!r->override)
		r->override = maintainer_override(s, patch);
	if (!r->override)
		r->override = fixes_override(s, patch);
	decide(r, o);
	r->summary = summarize(r);
	return 0;
}

/* From the second decision on (the sign of a batch, as for file_history),
 * walks are read once and served from memory; a decision that follows a
 * write by another process forgets what came before it. */
static void hold_walks(ccsift_scorer *s)
{
	unsigned changes;

	if (!s->walks && s->decisions)
		s->walks = ccsift_walks_new(s->idx, BATCH_WALKS);
	if (!s->walks || (changes = ccsift_walks_check(s->walks)) == s->walks_changes)
		return;
	s->walks_changes = changes;
	if (s->histories)
		g_hash_table_remove_all(s->histories);
	s->remembered = 0;
}

/* One read transaction for the whole decision: one snapshot of the index,
 * and no lock taken and dropped around each of its hundreds of statements. */
int ccsift_score_patch(ccsift_scorer *s, ccsift_patch *patch, const ccsift_score_options *o,
		       ccsift_result **out)
{
	gboolean began = ccsift_index_read_begin(s->idx);
	int rc;

	/* (a failure before this decision is not its) */
	ccsift_index_take_fault(s->idx);
	hold_walks(s);
	rc = score_patch(s, patch, o, out);
	/* Evidence read short is no evidence: no verdict from it. */
	if (rc >= 0 && (rc = ccsift_index_take_fault(s->idx)) < 0)
		g_clear_pointer(out, ccsift_result_free);

	s->decisions++;
	ccsift_index_read_end(s->idx, began);
	return rc;
}
