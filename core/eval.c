/* eval.c: replay a repository's history against the scorer. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "error.h"
#include "config.h"
#include "eval.h"
#include "maintainers.h"
#include "training.h"
#include "walks.h"
#include "weights.h"

#define DAY 86400
/* What the replay's walks hold (ccsift_walks_new): all of git.git's history
 * (60,000 commits) and more, and a bigger history's room grows with it, as
 * git log's does: at Linux's size (1.16 M commits) a fit in 1 M units
 * dropped them 12 times and read them again (22.3 s, 372 MB, against
 * 12.1 s and 513 MB with 4 M). */
#define REPLAY_WALKS (1u << 20)
#define REPLAY_WALKS_PER_COMMIT 4
/* Threads of ccsift_replay_commits at most: each holds its own walks. */
#define REPLAY_THREADS 2

static const unsigned engaged_roles = 1u << CCSIFT_ROLE_REVIEWED | 1u << CCSIFT_ROLE_ACKED |
				      1u << CCSIFT_ROLE_TESTED;
/* get_maintainer.pl counts these signatures as "commit_signer". */
static const unsigned signer_roles = 1u << CCSIFT_ROLE_AUTHOR | 1u << CCSIFT_ROLE_SIGNED |
				     1u << CCSIFT_ROLE_REVIEWED | 1u << CCSIFT_ROLE_ACKED;

static ccsift_address *address_new(const char *email)
{
	ccsift_address *a = g_new0(ccsift_address, 1);

	a->email = g_strdup(email);
	return a;
}

/* A patch mail for a commit: its subject, its files (a rename one file,
 * as git format-patch mails it) and its Fixes: (the mail carries the
 * message, and a Fixes: naming the addressee's commit overrides the
 * score), from its author, addressed to `to` and `cc` (emails). */
static ccsift_patch *patch_for(ccsift_repo *repo, ccsift_index *idx, const ccsift_commit_info *c, GPtrArray *paths,
			       GPtrArray *sources, gboolean fixes, const char *author, GPtrArray *to, GPtrArray *cc)
{
	ccsift_patch *p = ccsift_patch_new();
	g_autofree char *message = fixes ? ccsift_repo_commit_message(repo, c->oid) : NULL;
	g_autofree char *oid = NULL, *subject = NULL;
	g_autoptr(GHashTable) seen = NULL;

	p->kind = CCSIFT_KIND_PATCH;
	if (ccsift_index_commit_text(idx, c->cid, &oid, &subject) == 0 && subject)
		ccsift_subject_parse(&p->subject, subject);
	if (author)
		p->from = address_new(author);
	if (message)
		ccsift_patch_read_fixes(p, message, strlen(message));
	/* Each path once, as ccsift_patch_add_file keeps them, without its
	 * scan of every file before (a commit of 200,000 files replayed for
	 * minutes). */
	seen = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = 0; i < paths->len; i++)
		if (g_hash_table_add(seen, paths->pdata[i]))
			g_ptr_array_add(p->files, ccsift_file_new(sources->pdata[i] ? 'R' : 'M', paths->pdata[i],
								  sources->pdata[i]));
	for (guint i = 0; to && i < to->len; i++)
		g_ptr_array_add(p->to, address_new(to->pdata[i]));
	for (guint i = 0; cc && i < cc->len; i++)
		g_ptr_array_add(p->cc, address_new(cc->pdata[i]));
	return p;
}

/* --- the replay --- */

void ccsift_eval_options_init(ccsift_eval_options *o)
{
	memset(o, 0, sizeof(*o));
	o->until = G_MAXINT64;
	o->seed = 1;
	o->threshold = -1;
	o->half_life_days = CCSIFT_HALF_LIFE_DAYS;
	o->git_window = 365 * (int64_t)DAY;
	o->git_min_percent = 5;
	o->git_max = 5;
	o->fixes = TRUE;
}

void ccsift_eval_pairs_clear(GArray *pairs)
{
	for (guint i = 0; i < pairs->len; i++)
		g_free(g_array_index(pairs, ccsift_eval_pair, i).email);
	g_array_set_size(pairs, 0);
}

void ccsift_eval_result_free(ccsift_eval_result *r)
{
	if (!r)
		return;
	ccsift_eval_pairs_clear(r->pairs);
	g_array_unref(r->pairs);
	g_free(r);
}

typedef struct {
	GHashTable *by_blob;   /* blob id -> ccsift_maintainers * */
} maintainers_cache;

struct ccsift_replay {
	ccsift_repo *repo;
	ccsift_index *idx;
	ccsift_eval_options o;
	maintainers_cache mc;
	GHashTable *scorers;    /* email -> ccsift_scorer *: caches the person's credits */
	ccsift_walks *walks;    /* every scorer's walks: a case's addressees, and the
				   cases on the same files, read each file once */
	GHashTable *emails;     /* person id -> email, asked for every signer of every case */
	GHashTable *people;     /* email -> the person they are (person_key) */
	char *fault;            /* the first read of the index that failed (index.h) */
};

typedef struct {
	GHashTable *commits;   /* cid set, the file's commits in the window */
	int64_t since, before;
} window_walk;

static int collect_commit(const ccsift_touch *t, void *payload)
{
	window_walk *w = payload;

	if (t->ctime >= w->since)
		g_hash_table_add(w->commits, g_memdup2(&t->cid, sizeof(t->cid)));
	return 0;
}

typedef struct {
	int64_t person;
	unsigned count;
	const char *email;
} signer;

/* Borrowed from the replay: a person's email does not change during it. */
static const char *person_email(ccsift_replay *rp, int64_t person)
{
	char *email = g_hash_table_lookup(rp->emails, &person);

	if (!email && (email = ccsift_index_person_email(rp->idx, person)))
		g_hash_table_insert(rp->emails, g_memdup2(&person, sizeof(person)), email);
	return email;
}

/* Ties go by email, not by person id: ids depend on the order a history
 * was indexed in, and a replay must not change when later commits do. */
static int by_count(gconstpointer a, gconstpointer b)
{
	const signer *x = a, *y = b;

	return x->count != y->count ? (x->count < y->count ? 1 : -1) : g_strcmp0(x->email, y->email);
}

/* get_maintainer.pl --git: per file, the signers of its commits in the window,
 * at least min_percent of them, at most max, into people (a set). */
static void git_candidates(ccsift_replay *rp, const char *path, int64_t before, GHashTable *people)
{
	const ccsift_eval_options *o = &rp->o;
	window_walk w = { g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL), before - o->git_window, before };
	g_autoptr(GHashTable) counts = g_hash_table_new(g_int64_hash, g_int64_equal);
	g_autoptr(GArray) credits = g_array_new(FALSE, FALSE, sizeof(ccsift_credit));
	g_autoptr(GArray) ranked = g_array_new(FALSE, FALSE, sizeof(signer));
	GHashTableIter it;
	gpointer key, value;
	unsigned total;

	ccsift_walks_foreach_touch(rp->walks, path, before, collect_commit, &w);
	total = g_hash_table_size(w.commits);
	g_hash_table_iter_init(&it, w.commits);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		g_autoptr(GHashTable) once = g_hash_table_new(g_int64_hash, g_int64_equal);

		g_array_set_size(credits, 0);
		ccsift_walks_commit_credits(rp->walks, *(int64_t *)key, credits);
		for (guint i = 0; i < credits->len; i++) {
			ccsift_credit *c = &g_array_index(credits, ccsift_credit, i);

			if (!((1u << c->role) & signer_roles) || !g_hash_table_add(once, &c->person))
				continue;
			signer *s = g_hash_table_lookup(counts, &c->person);
			if (!s) {
				s = g_new0(signer, 1);
				s->person = c->person;
				g_hash_table_insert(counts, &s->person, s);
			}
			s->count++;
		}
	}
	g_hash_table_iter_init(&it, counts);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		signer *s = value;

		s->email = person_email(rp, s->person);
		g_array_append_val(ranked, *s);
		g_free(value);
	}
	g_array_sort(ranked, by_count);
	for (guint i = 0; i < ranked->len && i < o->git_max; i++) {
		signer *s = &g_array_index(ranked, signer, i);

		if (100.0 * s->count / total < o->git_min_percent)
			break;
		g_hash_table_add(people, g_memdup2(&s->person, sizeof(int64_t)));
	}
	g_hash_table_unref(w.commits);
}

static gboolean cache_is_dir(const char *pattern, void *payload)
{
	return ccsift_index_is_dir(payload, pattern);
}

static ccsift_maintainers *maintainers_at(ccsift_repo *repo, ccsift_index *idx, maintainers_cache *mc,
					  const char *oid)
{
	char blob[GIT_OID_HEXSZ + 1] = "";
	g_autoptr(GBytes) text = NULL;
	ccsift_maintainers *m = NULL;

	/* The file's id first: most cases share a version already parsed,
	 * and reading a big MAINTAINERS for each was a tenth of a fit. */
	if (ccsift_repo_file_id_at(repo, oid, TRUE, "MAINTAINERS", blob) &&
	    (m = g_hash_table_lookup(mc->by_blob, blob)))
		return m;
	if (!(text = ccsift_repo_read_file_at(repo, oid, TRUE, "MAINTAINERS", blob)))
		return NULL;
	if ((m = g_hash_table_lookup(mc->by_blob, blob)))
		return m;
	if (ccsift_maintainers_parse(&m, g_bytes_get_data(text, NULL), g_bytes_get_size(text), cache_is_dir, idx) < 0)
		return NULL;
	g_hash_table_insert(mc->by_blob, g_strdup(blob), m);
	return m;
}

/* Who an address is, as get_maintainer.pl dedupes its list: everyone
 * of one full name is one person (a reviewer at work who applies from
 * kernel.org), anyone else their address. Borrowed from the replay. */
static const char *person_key(ccsift_replay *rp, const char *email)
{
	char *key = g_hash_table_lookup(rp->people, email);

	if (!key) {
		g_autofree char *name = ccsift_index_namesake_key(rp->idx, ccsift_index_person_id(rp->idx, email));

		key = name ? g_strconcat("name ", name, NULL) : g_strconcat("address ", email, NULL);
		g_hash_table_insert(rp->people, g_strdup(email), key);
	}
	return key;
}

static void add_email(GPtrArray *list, const char *email)
{
	for (guint i = 0; i < list->len; i++)
		if (strcmp(list->pdata[i], email) == 0)
			return;
	g_ptr_array_add(list, g_strdup(email));
}

static int by_email(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned replay_walks_room(ccsift_index *idx)
{
	int64_t commits = ccsift_index_count(idx, "commits");

	return (unsigned)CLAMP(commits * REPLAY_WALKS_PER_COMMIT, REPLAY_WALKS, G_MAXUINT / 2);
}

/* The earliest time a replay of commits asks about a person's
 * engagement: a year (the area's) before its earliest case. */
static int64_t engaged_since(GArray *commits)
{
	int64_t first = G_MAXINT64;

	for (guint i = 0; i < commits->len; i++) {
		const ccsift_commit_info *c = &g_array_index(commits, ccsift_commit_info, i);

		first = MIN(first, MIN(c->atime, c->ctime));
	}
	return commits->len ? first - 365 * DAY : 0;
}

ccsift_replay *ccsift_replay_new(ccsift_repo *repo, ccsift_index *idx, const ccsift_eval_options *o,
				 GArray *commits)
{
	ccsift_replay *rp = g_new0(ccsift_replay, 1);

	rp->repo = repo;
	rp->idx = idx;
	rp->o = *o;
	rp->mc.by_blob = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       (GDestroyNotify)ccsift_maintainers_free);
	rp->scorers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)ccsift_scorer_free);
	rp->walks = ccsift_walks_new(idx, replay_walks_room(idx));
	ccsift_walks_hold_people(rp->walks, engaged_since(commits));
	rp->emails = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	rp->people = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	return rp;
}

void ccsift_replay_free(ccsift_replay *rp)
{
	if (!rp)
		return;
	/* Scorers borrow the maintainers and the walks: free them first. */
	g_hash_table_unref(rp->scorers);
	ccsift_walks_free(rp->walks);
	g_hash_table_unref(rp->emails);
	g_hash_table_unref(rp->people);
	g_hash_table_unref(rp->mc.by_blob);
	g_free(rp->fault);
	g_free(rp);
}

static void score_pair(ccsift_replay *rp, ccsift_maintainers *m, ccsift_patch *patch, const ccsift_model *model,
		       ccsift_eval_pair *pair)
{
	const char *ids[] = { pair->email, NULL };
	ccsift_scorer *s = g_hash_table_lookup(rp->scorers, pair->email);
	g_autoptr(ccsift_result) r = NULL;
	ccsift_score_options so;
	int rc;

	ccsift_score_options_init(&so);
	so.as_of = pair->time;
	so.half_life_days = rp->o.half_life_days;
	so.model = model;
	so.threshold = rp->o.threshold;
	if (!s) {
		ccsift_scorer_new(&s, rp->repo, rp->idx, ids);
		ccsift_scorer_share_walks(s, rp->walks);
		g_hash_table_insert(rp->scorers, g_strdup(pair->email), s);
	}
	ccsift_scorer_set_maintainers(s, m);
	if ((rc = ccsift_score_patch(s, patch, &so, &r)) < 0) {
		/* Evidence read short (index.h): the replay fails, not the pair alone. */
		if (rc == CCSIFT_EIO && !rp->fault)
			rp->fault = g_strdup(ccsift_error_last());
		return;
	}
	pair->score = r->score;
	pair->threshold = r->threshold;
	pair->evidence_score = r->evidence_score;
	pair->features = r->features;
	pair->model_until = r->model.until;
	pair->demotable = r->cc && !r->override && r->history > 0;
}

static int replay_commit(ccsift_replay *rp, const ccsift_commit_info *p, const ccsift_model *model, GArray *pairs)
{
	ccsift_index *idx = rp->idx;
	g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) names = g_ptr_array_new();  /* of both */
	g_autoptr(GPtrArray) to = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) cc = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GHashTable) candidates = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	g_autoptr(GHashTable) truth = g_hash_table_new(g_str_hash, g_str_equal);  /* person_key */
	g_autoptr(GHashTable) addressed = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GArray) credits = g_array_new(FALSE, FALSE, sizeof(ccsift_credit));
	ccsift_maintainers *m = maintainers_at(rp->repo, idx, &rp->mc, p->oid);
	g_autoptr(GPtrArray) hits = g_ptr_array_new();
	g_autoptr(ccsift_patch) patch = NULL;
	g_autofree char *author = ccsift_index_person_email(idx, p->author);
	int64_t as_of = MIN(p->atime, p->ctime);  /* the case never sees itself */
	GHashTableIter it;
	gpointer key;

	ccsift_index_commit_paths(idx, p->cid, paths, sources);
	/* get_maintainer.pl addresses a rename for both of its names */
	for (guint i = 0; i < paths->len; i++) {
		g_ptr_array_add(names, paths->pdata[i]);
		if (sources->pdata[i])
			g_ptr_array_add(names, sources->pdata[i]);
	}
	for (guint i = 0; m && i < names->len; i++) {
		g_ptr_array_set_size(hits, 0);
		ccsift_maintainers_match(m, names->pdata[i], hits);
		for (guint j = 0; j < hits->len; j++) {
			const ccsift_maintainer *e = hits->pdata[j];

			add_email(e->role == 'M' ? to : cc, e->email);
		}
	}
	for (guint i = 0; i < names->len; i++)
		git_candidates(rp, names->pdata[i], as_of, candidates);
	g_hash_table_iter_init(&it, candidates);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		g_autofree char *email = ccsift_index_person_email(idx, *(int64_t *)key);

		if (email)
			add_email(cc, email);
	}
	/* Sorted, so that the same case gives the same pairs in the same order. */
	g_ptr_array_sort(cc, by_email);
	/* The sender is not an addressee; To wins over Cc; a person is Cc'd
	 * once, at the first of their addresses. */
	if (author)
		g_hash_table_add(addressed, (char *)person_key(rp, author));
	for (guint i = 0; i < to->len; i++)
		g_hash_table_add(addressed, (char *)person_key(rp, to->pdata[i]));
	for (guint i = 0; i < cc->len;) {
		const char *who = person_key(rp, cc->pdata[i]);

		if (g_hash_table_contains(addressed, who)) {
			g_ptr_array_remove_index(cc, i);
			continue;
		}
		g_hash_table_add(addressed, (char *)who);
		i++;
	}
	if (!cc->len)
		return 0;
	ccsift_index_commit_credits(idx, p->cid, credits);
	for (guint i = 0; i < credits->len; i++) {
		ccsift_credit *c = &g_array_index(credits, ccsift_credit, i);
		const char *email = person_email(rp, c->person);

		if (email && (((1u << c->role) & engaged_roles) ||
			      (c->role == CCSIFT_ROLE_COMMITTER && p->committer != p->author)))
			g_hash_table_add(truth, (char *)person_key(rp, email));
	}
	patch = patch_for(rp->repo, idx, p, paths, sources, rp->o.fixes, author, to, cc);
	for (guint i = 0; i < cc->len; i++) {
		ccsift_eval_pair pair = { .cid = p->cid, .time = as_of };

		g_strlcpy(pair.oid, p->oid, sizeof(pair.oid));
		pair.email = g_strdup(cc->pdata[i]);
		pair.person = ccsift_index_person_id(idx, pair.email);
		pair.engaged = g_hash_table_contains(truth, person_key(rp, pair.email));
		score_pair(rp, m, patch, model, &pair);
		g_array_append_val(pairs, pair);
	}
	return (int)cc->len;
}

/* One read transaction a case: on the writer (ccsift index, train) each of
 * its thousands of statements took and dropped a WAL read lock otherwise. */
int ccsift_replay_commit(ccsift_replay *rp, const ccsift_commit_info *p, const ccsift_model *model, GArray *pairs)
{
	gboolean began = ccsift_index_snapshot_begin(rp->idx);
	int rc = replay_commit(rp, p, model, pairs);

	ccsift_index_read_end(rp->idx, began);
	return rp->fault ? ccsift_error_set(CCSIFT_EIO, "%s", rp->fault) : rc;
}

/* --- many cases, on threads ---
 *
 * Each thread replays with its own repository, connection and replay (none
 * of them may be shared across threads), taking the next case as it is
 * free. A case's pairs do not depend on the cases a replay did before (its
 * walks and scorers only cache what the index says), so they are the same
 * whichever thread replays it; they are put back in the cases' order. */

typedef struct {
	/* The caller's repository may reopen (and so reallocate its names)
	 * while the threads start: they open theirs from copies. */
	char *gitdir, *ref, *index_path;
	const ccsift_eval_options *o;
	const ccsift_model *model;
	GArray *commits;       /* ccsift_commit_info */
	GArray **pairs;        /* each case's ccsift_eval_pair */
	gint next;             /* the next case to take, atomic */
	gint done;             /* cases replayed, atomic */
	gpointer fault;        /* the first replay's fault (char *), atomic */
} replay_job;

static void replay_cases(replay_job *j, ccsift_repo *repo, ccsift_index *idx, gboolean report,
			 ccsift_replay_progress_fn progress, void *payload)
{
	ccsift_replay *rp = ccsift_replay_new(repo, idx, j->o, j->commits);
	guint i;

	while ((i = (guint)g_atomic_int_add(&j->next, 1)) < j->commits->len) {
		ccsift_replay_commit(rp, &g_array_index(j->commits, ccsift_commit_info, i), j->model, j->pairs[i]);
		if ((guint)g_atomic_int_add(&j->done, 1) + 1 < j->commits->len && report && progress)
			progress((guint)g_atomic_int_get(&j->done), j->commits->len, payload);
	}
	if (rp->fault && g_atomic_pointer_compare_and_exchange(&j->fault, NULL, rp->fault))
		rp->fault = NULL;  /* the job's now */
	ccsift_replay_free(rp);
}

static gpointer replay_thread(gpointer data)
{
	replay_job *j = data;
	ccsift_repo *repo = NULL;
	ccsift_index *idx = NULL;

	/* Failing to open either leaves the cases to the other threads. */
	if (ccsift_repo_open_lazy(&repo, j->gitdir, j->ref) == 0 &&
	    ccsift_index_open(&idx, j->index_path, CCSIFT_INDEX_READ_ONLY) == 0)
		replay_cases(j, repo, idx, FALSE, NULL, NULL);
	ccsift_index_free(idx);
	ccsift_repo_free(repo);
	return NULL;
}

int ccsift_replay_commits(ccsift_repo *repo, ccsift_index *idx, const ccsift_eval_options *o, GArray *commits,
			  const ccsift_model *model, ccsift_replay_progress_fn progress, void *payload, GArray *pairs)
{
	replay_job j = { g_strdup(ccsift_repo_gitdir(repo)), g_strdup(ccsift_repo_ref(repo)),
			 g_strdup(ccsift_index_path(idx)), o, model, commits, g_new0(GArray *, MAX(commits->len, 1)), 0, 0 };
	guint nthreads = MIN(MIN(g_get_num_processors(), REPLAY_THREADS), MAX(commits->len, 1));
	g_autoptr(GPtrArray) threads = g_ptr_array_new();

	/* Within an update not yet committed (the history and its fit, one
	 * change), other connections would replay the index as it was. */
	if (ccsift_index_writing(idx))
		nthreads = 1;
	unsigned cases = 0;

	for (guint i = 0; i < commits->len; i++)
		j.pairs[i] = g_array_new(FALSE, FALSE, sizeof(ccsift_eval_pair));
	for (guint i = 1; i < nthreads; i++)
		g_ptr_array_add(threads, g_thread_new("ccsift-replay", replay_thread, &j));
	/* This thread too, on the caller's repository and connection. */
	replay_cases(&j, repo, idx, TRUE, progress, payload);
	for (guint i = 0; i < threads->len; i++)
		g_thread_join(threads->pdata[i]);
	if (progress && commits->len)
		progress(commits->len, commits->len, payload);
	for (guint i = 0; i < commits->len; i++) {
		cases += j.pairs[i]->len > 0;
		g_array_append_vals(pairs, j.pairs[i]->data, j.pairs[i]->len);  /* takes the emails */
		g_array_unref(j.pairs[i]);
	}
	g_free(j.pairs);
	g_free(j.gitdir);
	g_free(j.ref);
	g_free(j.index_path);
	if (j.fault) {
		g_autofree char *fault = j.fault;

		return ccsift_error_set(CCSIFT_EIO, "%s", fault);
	}
	return (int)cases;
}

GArray *ccsift_replay_sample(ccsift_index *idx, int64_t since, int64_t until, int64_t committed_before,
			     guint32 seed, unsigned n)
{
	GArray *commits = g_array_new(FALSE, FALSE, sizeof(ccsift_commit_info));
	g_autoptr(GRand) rand = g_rand_new_with_seed(seed);

	if (ccsift_index_commits_between(idx, since, until, commits) < 0)
		return commits;
	for (guint i = commits->len; committed_before && i-- > 0;)
		if (g_array_index(commits, ccsift_commit_info, i).ctime >= committed_before)
			g_array_remove_index(commits, i);
	/* A seeded shuffle: the same seed samples the same cases. */
	for (guint i = commits->len; i > 1; i--) {
		guint j = g_rand_int_range(rand, 0, i);
		ccsift_commit_info tmp = g_array_index(commits, ccsift_commit_info, i - 1);

		g_array_index(commits, ccsift_commit_info, i - 1) = g_array_index(commits, ccsift_commit_info, j);
		g_array_index(commits, ccsift_commit_info, j) = tmp;
	}
	if (n && n < commits->len)
		g_array_set_size(commits, n);
	return commits;
}

/* Fits for every period the cases fall in, made before any case is decided. */
static int ensure_fits(ccsift_repo *repo, ccsift_index *writer, GArray *commits, const ccsift_eval_options *o)
{
	g_autoptr(GHashTable) done = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	ccsift_training_options to;

	ccsift_training_options_init(&to);
	to.replay.half_life_days = o->half_life_days;
	to.progress = o->progress;
	for (guint i = 0; i < commits->len; i++) {
		const ccsift_commit_info *c = &g_array_index(commits, ccsift_commit_info, i);
		int64_t until = ccsift_training_until(MIN(c->atime, c->ctime));
		int rc;

		if (!g_hash_table_add(done, g_memdup2(&until, sizeof(until))))
			continue;
		if ((rc = ccsift_training_ensure(repo, writer, until, &to)) < 0)
			return rc;
	}
	return 0;
}

int ccsift_eval_run(ccsift_repo *repo, ccsift_index *idx, ccsift_index *writer, const ccsift_eval_options *o,
		    ccsift_eval_result **out)
{
	g_autoptr(GArray) commits = ccsift_replay_sample(idx, o->since, o->until, 0, o->seed, o->sample);
	ccsift_replay *rp;
	ccsift_eval_result *r = g_new0(ccsift_eval_result, 1);
	int rc = 0;

	r->pairs = g_array_new(FALSE, FALSE, sizeof(ccsift_eval_pair));
	*out = r;
	if (writer && (rc = ensure_fits(repo, writer, commits, o)) < 0)
		return rc;
	rp = ccsift_replay_new(repo, idx, o, commits);
	for (guint i = 0; rc == 0 && i < commits->len; i++) {
		int n = ccsift_replay_commit(rp, &g_array_index(commits, ccsift_commit_info, i), NULL, r->pairs);

		r->sampled++;
		if (n < 0)
			rc = n;
		else if (n > 0)
			r->cases++;
		if (o->progress && (i % 25 == 24 || i + 1 == commits->len))
			fprintf(stderr, "\rccsift: replaying: %u/%u cases", i + 1, commits->len);
	}
	if (o->progress && commits->len)
		fputc('\n', stderr);
	ccsift_replay_free(rp);
	return rc;
}

void ccsift_eval_rates(const ccsift_eval_result *r, double t, gboolean v1, double *engaged_demoted,
		       double *noise_demoted, unsigned *engaged, unsigned *noise)
{
	unsigned e = 0, n = 0, ed = 0, nd = 0;

	for (guint i = 0; i < r->pairs->len; i++) {
		const ccsift_eval_pair *p = &g_array_index(r->pairs, ccsift_eval_pair, i);
		double score = v1 ? p->evidence_score : p->score;
		gboolean low = p->demotable && score < (t < 0 ? p->threshold : t);

		if (p->engaged)
			e++, ed += low;
		else
			n++, nd += low;
	}
	*engaged_demoted = e ? (double)ed / e : NAN;
	*noise_demoted = n ? (double)nd / n : NAN;
	if (engaged)
		*engaged = e;
	if (noise)
		*noise = n;
}

/* A pair's rank: what is never demoted ranks above every score. The
 * version 1 score is stored in the rank's place for its AUC. */
typedef struct {
	double rank;
	int64_t person;
	gboolean engaged;
} ranked;

static int by_rank(gconstpointer a, gconstpointer b)
{
	double x = ((const ranked *)a)->rank, y = ((const ranked *)b)->rank;

	return x < y ? -1 : x > y;
}

/* Mann-Whitney over one group of pairs: adds wins (ties half) and comparisons. */
static void auc_group(GArray *group, double *wins, double *total)
{
	double engaged_below = 0, noise_below = 0;

	g_array_sort(group, by_rank);
	for (guint i = 0; i < group->len;) {
		guint j = i;
		double e = 0, n = 0;

		while (j < group->len && by_rank(&g_array_index(group, ranked, i),
						 &g_array_index(group, ranked, j)) == 0) {
			if (g_array_index(group, ranked, j).engaged)
				e++;
			else
				n++;
			j++;
		}
		*wins += e * noise_below + 0.5 * e * n;
		engaged_below += e;
		noise_below += n;
		i = j;
	}
	*total += engaged_below * noise_below;
}

double ccsift_eval_auc(const ccsift_eval_result *r, gboolean within_person, gboolean v1)
{
	g_autoptr(GHashTable) groups = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
							     (GDestroyNotify)g_array_unref);
	double wins = 0, total = 0;
	GHashTableIter it;
	gpointer value;

	for (guint i = 0; i < r->pairs->len; i++) {
		const ccsift_eval_pair *p = &g_array_index(r->pairs, ccsift_eval_pair, i);
		ranked x = { p->demotable ? (v1 ? p->evidence_score : p->score) : INFINITY, p->person, p->engaged };
		int64_t key = within_person ? p->person : 0;
		GArray *g = g_hash_table_lookup(groups, &key);

		if (!g) {
			g = g_array_new(FALSE, FALSE, sizeof(ranked));
			g_hash_table_insert(groups, g_memdup2(&key, sizeof(key)), g);
		}
		g_array_append_val(g, x);
	}
	g_hash_table_iter_init(&it, groups);
	while (g_hash_table_iter_next(&it, NULL, &value))
		auc_group(value, &wins, &total);
	return total > 0 ? wins / total : NAN;
}
