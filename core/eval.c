/* eval.c: replay a repository's history against the scorer; calibrate users. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "error.h"
#include "config.h"
#include "eval.h"
#include "maintainers.h"

#define DAY 86400

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

/* A patch mail for a commit: its files, addressed to `to` and `cc` (emails). */
static ccsift_patch *patch_for(ccsift_index *idx, int64_t cid, GPtrArray *to, GPtrArray *cc)
{
	ccsift_patch *p = ccsift_patch_new();
	g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);

	p->kind = CCSIFT_KIND_PATCH;
	ccsift_index_commit_paths(idx, cid, paths);
	for (guint i = 0; i < paths->len; i++)
		ccsift_patch_add_file(p->files, ccsift_file_new('M', paths->pdata[i], NULL));
	for (guint i = 0; to && i < to->len; i++)
		g_ptr_array_add(p->to, address_new(to->pdata[i]));
	for (guint i = 0; cc && i < cc->len; i++)
		g_ptr_array_add(p->cc, address_new(cc->pdata[i]));
	return p;
}

/* Score one person on one patch; returns the score, sets demotable. A
 * scorer per person is kept in scorers (email -> ccsift_scorer) when given:
 * it caches the person's credits and line counts across cases. */
static double score_person(ccsift_repo *repo, ccsift_index *idx, GHashTable *scorers, ccsift_maintainers *m,
			   ccsift_patch *patch, const char *email, int64_t as_of, double half_life,
			   gboolean *demotable)
{
	const char *ids[] = { email, NULL };
	ccsift_scorer *s = scorers ? g_hash_table_lookup(scorers, email) : NULL;
	ccsift_result *r = NULL;
	ccsift_score_options o;
	double score = 0;

	ccsift_score_options_init(&o);
	o.as_of = as_of;
	o.half_life_days = half_life;
	*demotable = FALSE;
	if (!s) {
		ccsift_scorer_new(&s, repo, idx, ids);
		if (scorers)
			g_hash_table_insert(scorers, g_strdup(email), s);
	}
	ccsift_scorer_set_maintainers(s, m);
	if (ccsift_score_patch(s, patch, &o, &r) == 0) {
		score = r->score;
		*demotable = r->cc && !r->override && r->history > 0;
	}
	ccsift_result_free(r);
	if (!scorers)
		ccsift_scorer_free(s);
	return score;
}

/* --- calibration --- */

void ccsift_calibrate_options_init(ccsift_calibrate_options *o)
{
	o->keep = 0.95;
	o->fallback = CCSIFT_DEFAULT_THRESHOLD;
	o->min_samples = 10;
	o->max_samples = 200;
	o->window = 730 * (int64_t)DAY;
	o->recent = 90 * (int64_t)DAY;
	o->busy = 5;
	o->idle_factor = 10.0;
	o->light_factor = 2.0;
	o->half_life_days = 730;
}

void ccsift_calibration_clear(ccsift_calibration *c)
{
	g_clear_pointer(&c->why, g_free);
	g_clear_pointer(&c->scores, g_array_unref);
}

static int cmp_double(gconstpointer a, gconstpointer b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The user's engaged patches: reviewed, acked, tested, or applied someone else's. */
static void engaged_commits(ccsift_index *idx, GArray *people, int64_t after, int64_t before,
			    unsigned limit, GArray *out)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(g_int64_hash, g_int64_equal);
	g_autoptr(GArray) found = g_array_new(FALSE, FALSE, sizeof(ccsift_commit_info));

	for (guint i = 0; i < people->len; i++) {
		int64_t pid = g_array_index(people, int64_t, i);

		ccsift_index_commits_credited(idx, pid, engaged_roles | 1u << CCSIFT_ROLE_COMMITTER,
					      after, before, limit, found);
	}
	for (guint i = 0; i < found->len; i++) {
		ccsift_commit_info *c = &g_array_index(found, ccsift_commit_info, i);
		gboolean self = FALSE;

		for (guint j = 0; j < people->len; j++)
			self |= c->author == g_array_index(people, int64_t, j);
		if (self || !g_hash_table_add(seen, &c->cid))
			continue;  /* applying one's own patch is not engaging with another's */
		g_array_append_val(out, *c);
	}
}

double ccsift_calibrate_activity(ccsift_index *idx, GArray *people, int64_t as_of,
				 const ccsift_calibrate_options *o, unsigned *recent)
{
	unsigned n = 0;

	for (guint i = 0; i < people->len && n < o->busy; i++)
		n += ccsift_index_count_engagement(idx, g_array_index(people, int64_t, i), as_of - o->recent, as_of,
						   o->busy - n);
	if (recent)
		*recent = n;
	return n >= o->busy ? 1.0 : n ? o->light_factor : o->idle_factor;
}

int ccsift_calibrate(ccsift_repo *repo, ccsift_index *idx, const char *const *identities, int64_t as_of,
		     const ccsift_calibrate_options *o, ccsift_calibration *out)
{
	g_autoptr(GArray) people = g_array_new(FALSE, FALSE, sizeof(int64_t));
	g_autoptr(GArray) engaged = g_array_new(FALSE, FALSE, sizeof(ccsift_commit_info));
	g_autoptr(GPtrArray) cc = g_ptr_array_new_with_free_func(g_free);
	unsigned allowed;
	double factor;

	memset(out, 0, sizeof(*out));
	out->scores = g_array_new(FALSE, FALSE, sizeof(double));
	out->quantile = -1;
	for (const char *const *e = identities; e && *e; e++) {
		g_autofree char *canon = ccsift_repo_canonical_email(repo, NULL, *e);
		int64_t pid = ccsift_index_person_id(idx, canon);

		if (pid >= 0)
			g_array_append_val(people, pid);
		if (!cc->len)
			g_ptr_array_add(cc, g_steal_pointer(&canon));
	}
	if (people->len)
		engaged_commits(idx, people, as_of - o->window, as_of, o->max_samples, engaged);
	out->engaged = MIN(engaged->len, o->max_samples);
	for (guint i = 0; i < out->engaged; i++) {
		ccsift_commit_info *c = &g_array_index(engaged, ccsift_commit_info, i);
		g_autoptr(ccsift_patch) patch = patch_for(idx, c->cid, NULL, cc);
		gboolean demotable;
		double score = score_person(repo, idx, NULL, NULL, patch, cc->pdata[0], MIN(c->atime, c->ctime),
					    o->half_life_days, &demotable);

		if (demotable) {
			g_array_append_val(out->scores, score);
			out->scored++;
		}
	}
	g_array_sort(out->scores, cmp_double);
	factor = ccsift_calibrate_activity(idx, people, as_of, o, &out->recent);
	g_array_sort(out->scores, cmp_double);
	/* Demote at most (1 - keep) of the engaged patches: the rest score at or above t. */
	allowed = (unsigned)floor((1.0 - o->keep) * out->engaged + 1e-9);
	out->threshold = o->fallback;
	if (out->engaged >= o->min_samples) {
		out->quantile = allowed < out->scored ? g_array_index(out->scores, double, allowed) : 1e9;
		out->threshold = MIN(out->quantile, o->fallback);
		out->why = g_strdup_printf("%u engaged patches in the window (%u decided by score): %.3f keeps %.0f%% "
					   "of them relevant", out->engaged, out->scored, out->threshold, o->keep * 100);
	} else {
		out->why = g_strdup_printf("%u engaged patch%s in the window: the default %.2f", out->engaged,
					   out->engaged == 1 ? "" : "es", o->fallback);
	}
	if (factor != 1.0) {
		char *why = g_strdup_printf("%s; %u engagement%s in the last %d days: times %g", out->why, out->recent,
					    out->recent == 1 ? "" : "s", (int)(o->recent / DAY), factor);

		out->threshold *= factor;
		g_free(out->why);
		out->why = why;
	}
	return 0;
}

/* --- the replay --- */

void ccsift_eval_options_init(ccsift_eval_options *o)
{
	memset(o, 0, sizeof(*o));
	o->until = G_MAXINT64;
	o->seed = 1;
	o->threshold = CCSIFT_DEFAULT_THRESHOLD;
	o->half_life_days = 730;
	o->git_window = 365 * (int64_t)DAY;
	o->git_min_percent = 5;
	o->git_max = 5;
}

void ccsift_eval_result_free(ccsift_eval_result *r)
{
	if (!r)
		return;
	for (guint i = 0; i < r->pairs->len; i++)
		g_free(g_array_index(r->pairs, ccsift_eval_pair, i).email);
	g_array_unref(r->pairs);
	g_free(r);
}

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
} signer;

static int by_count(gconstpointer a, gconstpointer b)
{
	const signer *x = a, *y = b;

	return x->count != y->count ? (x->count < y->count ? 1 : -1) : (x->person > y->person) - (x->person < y->person);
}

/* get_maintainer.pl --git: per file, the signers of its commits in the window,
 * at least min_percent of them, at most max, into people (a set). */
static void git_candidates(ccsift_index *idx, const char *path, int64_t before, const ccsift_eval_options *o,
			   GHashTable *people)
{
	window_walk w = { g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL), before - o->git_window, before };
	g_autoptr(GHashTable) counts = g_hash_table_new(g_int64_hash, g_int64_equal);
	g_autoptr(GArray) credits = g_array_new(FALSE, FALSE, sizeof(ccsift_credit));
	g_autoptr(GArray) ranked = g_array_new(FALSE, FALSE, sizeof(signer));
	GHashTableIter it;
	gpointer key, value;
	unsigned total;

	ccsift_index_foreach_touch(idx, path, before, collect_commit, &w);
	total = g_hash_table_size(w.commits);
	g_hash_table_iter_init(&it, w.commits);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		g_autoptr(GHashTable) once = g_hash_table_new(g_int64_hash, g_int64_equal);

		g_array_set_size(credits, 0);
		ccsift_index_commit_credits(idx, *(int64_t *)key, credits);
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
		g_array_append_val(ranked, *(signer *)value);
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

typedef struct {
	GHashTable *by_blob;   /* blob id -> ccsift_maintainers * */
} maintainers_cache;

static gboolean cache_is_dir(const char *pattern, void *payload)
{
	return ccsift_index_is_dir(payload, pattern);
}

static ccsift_maintainers *maintainers_at(ccsift_repo *repo, ccsift_index *idx, maintainers_cache *mc,
					  const char *oid)
{
	char blob[GIT_OID_HEXSZ + 1] = "";
	g_autoptr(GBytes) text = ccsift_repo_read_file_at(repo, oid, TRUE, "MAINTAINERS", blob);
	ccsift_maintainers *m = NULL;

	if (!text)
		return NULL;
	if ((m = g_hash_table_lookup(mc->by_blob, blob)))
		return m;
	if (ccsift_maintainers_parse(&m, g_bytes_get_data(text, NULL), g_bytes_get_size(text), cache_is_dir, idx) < 0)
		return NULL;
	g_hash_table_insert(mc->by_blob, g_strdup(blob), m);
	return m;
}

static void add_email(GPtrArray *list, const char *email)
{
	for (guint i = 0; i < list->len; i++)
		if (strcmp(list->pdata[i], email) == 0)
			return;
	g_ptr_array_add(list, g_strdup(email));
}

/* The threshold a calibrated user would have had at time t: the part from
 * their engaged patches cached per person and quarter (it scores dozens of
 * patches), the part from recent engagement computed at t exactly. */
static double calibrated_threshold(ccsift_repo *repo, ccsift_index *idx, GHashTable *cache, int64_t person,
				   const char *email, int64_t t, const ccsift_eval_options *o)
{
	int64_t quarter = t / (91 * (int64_t)DAY);
	g_autofree char *key = g_strdup_printf("%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT, person, quarter);
	double *base = g_hash_table_lookup(cache, key);
	const char *ids[] = { email, NULL };
	g_autoptr(GArray) people = g_array_new(FALSE, FALSE, sizeof(int64_t));
	ccsift_calibrate_options co;

	ccsift_calibrate_options_init(&co);
	co.fallback = o->threshold;
	co.max_samples = 50;
	co.half_life_days = o->half_life_days;
	if (!base) {
		ccsift_calibration cal;

		co.idle_factor = co.light_factor = 1.0;  /* applied below, at t */
		ccsift_calibrate(repo, idx, ids, quarter * 91 * (int64_t)DAY, &co, &cal);
		base = g_new(double, 1);
		*base = cal.threshold;
		ccsift_calibration_clear(&cal);
		g_hash_table_insert(cache, g_steal_pointer(&key), base);
		ccsift_calibrate_options_init(&co);
	}
	g_array_append_val(people, person);
	return *base * ccsift_calibrate_activity(idx, people, t, &co, NULL);
}

static void run_case(ccsift_repo *repo, ccsift_index *idx, const ccsift_eval_options *o, maintainers_cache *mc,
		     GHashTable *calibration, GHashTable *scorers, const ccsift_commit_info *p,
		     ccsift_eval_result *r)
{
	g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) to = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) cc = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GHashTable) candidates = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	g_autoptr(GHashTable) truth = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	g_autoptr(GArray) credits = g_array_new(FALSE, FALSE, sizeof(ccsift_credit));
	ccsift_maintainers *m = maintainers_at(repo, idx, mc, p->oid);
	g_autoptr(GPtrArray) hits = g_ptr_array_new();
	g_autoptr(ccsift_patch) patch = NULL;
	g_autofree char *author = ccsift_index_person_email(idx, p->author);
	int64_t as_of = MIN(p->atime, p->ctime);  /* the case never sees itself */
	GHashTableIter it;
	gpointer key;

	ccsift_index_commit_paths(idx, p->cid, paths);
	for (guint i = 0; m && i < paths->len; i++) {
		g_ptr_array_set_size(hits, 0);
		ccsift_maintainers_match(m, paths->pdata[i], hits);
		for (guint j = 0; j < hits->len; j++) {
			const ccsift_maintainer *e = hits->pdata[j];

			add_email(e->role == 'M' ? to : cc, e->email);
		}
	}
	for (guint i = 0; i < paths->len; i++)
		git_candidates(idx, paths->pdata[i], as_of, o, candidates);
	g_hash_table_iter_init(&it, candidates);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		g_autofree char *email = ccsift_index_person_email(idx, *(int64_t *)key);

		if (email)
			add_email(cc, email);
	}
	/* The sender is not an addressee; To wins over Cc. */
	for (guint i = cc->len; i-- > 0;) {
		gboolean drop = author && strcmp(cc->pdata[i], author) == 0;

		for (guint j = 0; j < to->len && !drop; j++)
			drop = strcmp(cc->pdata[i], to->pdata[j]) == 0;
		if (drop)
			g_ptr_array_remove_index(cc, i);
	}
	r->sampled++;
	if (!cc->len)
		return;
	r->cases++;
	ccsift_index_commit_credits(idx, p->cid, credits);
	for (guint i = 0; i < credits->len; i++) {
		ccsift_credit *c = &g_array_index(credits, ccsift_credit, i);

		if (((1u << c->role) & engaged_roles) ||
		    (c->role == CCSIFT_ROLE_COMMITTER && p->committer != p->author))
			g_hash_table_add(truth, g_memdup2(&c->person, sizeof(int64_t)));
	}
	patch = patch_for(idx, p->cid, to, cc);
	for (guint i = 0; i < cc->len; i++) {
		ccsift_eval_pair pair = { .cid = p->cid, .time = as_of };
		g_autofree char *canon = g_strdup(cc->pdata[i]);

		g_strlcpy(pair.oid, p->oid, sizeof(pair.oid));
		pair.person = ccsift_index_person_id(idx, canon);
		pair.email = g_strdup(canon);
		pair.engaged = pair.person >= 0 && g_hash_table_contains(truth, &pair.person);
		pair.score = score_person(repo, idx, scorers, m, patch, canon, as_of, o->half_life_days,
					  &pair.demotable);
		pair.threshold = o->calibrated && pair.person >= 0 ?
			calibrated_threshold(repo, idx, calibration, pair.person, canon, as_of, o) : o->threshold;
		g_array_append_val(r->pairs, pair);
	}
}

int ccsift_eval_run(ccsift_repo *repo, ccsift_index *idx, const ccsift_eval_options *o, ccsift_eval_result **out)
{
	g_autoptr(GArray) commits = g_array_new(FALSE, FALSE, sizeof(ccsift_commit_info));
	g_autoptr(GRand) rand = g_rand_new_with_seed(o->seed);
	g_autoptr(GHashTable) calibration = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	g_autoptr(GHashTable) scorers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
							      (GDestroyNotify)ccsift_scorer_free);
	maintainers_cache mc = { g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						      (GDestroyNotify)ccsift_maintainers_free) };
	ccsift_eval_result *r = g_new0(ccsift_eval_result, 1);
	guint n;
	int rc;

	r->pairs = g_array_new(FALSE, FALSE, sizeof(ccsift_eval_pair));
	*out = r;
	if ((rc = ccsift_index_commits_between(idx, o->since, o->until, commits)) < 0)
		goto done;
	/* A seeded shuffle: the same seed samples the same cases. */
	for (guint i = commits->len; i > 1; i--) {
		guint j = g_rand_int_range(rand, 0, i);
		ccsift_commit_info tmp = g_array_index(commits, ccsift_commit_info, i - 1);

		g_array_index(commits, ccsift_commit_info, i - 1) = g_array_index(commits, ccsift_commit_info, j);
		g_array_index(commits, ccsift_commit_info, j) = tmp;
	}
	n = o->sample && o->sample < commits->len ? o->sample : commits->len;
	for (guint i = 0; i < n; i++) {
		run_case(repo, idx, o, &mc, calibration, scorers, &g_array_index(commits, ccsift_commit_info, i), r);
		if (o->progress && (i % 25 == 24 || i + 1 == n))
			fprintf(stderr, "\rccsift: replaying: %u/%u cases", i + 1, n);
	}
	if (o->progress && n)
		fputc('\n', stderr);
	ccsift_index_flush_lines(idx);
done:
	g_hash_table_unref(mc.by_blob);
	return rc;
}

void ccsift_eval_rates(const ccsift_eval_result *r, double t, double *engaged_demoted, double *noise_demoted,
		       unsigned *engaged, unsigned *noise)
{
	unsigned e = 0, n = 0, ed = 0, nd = 0;

	for (guint i = 0; i < r->pairs->len; i++) {
		const ccsift_eval_pair *p = &g_array_index(r->pairs, ccsift_eval_pair, i);
		gboolean low = p->demotable && p->score < (t < 0 ? p->threshold : t);

		if (p->engaged)
			e++, ed += low;
		else
			n++, nd += low;
	}
	*engaged_demoted = e ? (double)ed / e : 0;
	*noise_demoted = n ? (double)nd / n : 0;
	if (engaged)
		*engaged = e;
	if (noise)
		*noise = n;
}

/* A pair's rank: what is never demoted ranks above every score. */
static double rank_of(const ccsift_eval_pair *p)
{
	return p->demotable ? p->score : INFINITY;
}

static int by_rank(gconstpointer a, gconstpointer b)
{
	double x = rank_of(a), y = rank_of(b);

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

		while (j < group->len && by_rank(&g_array_index(group, ccsift_eval_pair, i),
						 &g_array_index(group, ccsift_eval_pair, j)) == 0) {
			if (g_array_index(group, ccsift_eval_pair, j).engaged)
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

double ccsift_eval_auc(const ccsift_eval_result *r, gboolean within_person)
{
	double wins = 0, total = 0;

	if (!within_person) {
		g_autoptr(GArray) all = g_array_copy(r->pairs);
		auc_group(all, &wins, &total);
	} else {
		g_autoptr(GHashTable) groups = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
								     (GDestroyNotify)g_array_unref);
		GHashTableIter it;
		gpointer value;

		for (guint i = 0; i < r->pairs->len; i++) {
			ccsift_eval_pair *p = &g_array_index(r->pairs, ccsift_eval_pair, i);
			GArray *g = g_hash_table_lookup(groups, &p->person);

			if (!g) {
				g = g_array_new(FALSE, FALSE, sizeof(ccsift_eval_pair));
				g_hash_table_insert(groups, &p->person, g);
			}
			g_array_append_val(g, *p);
		}
		g_hash_table_iter_init(&it, groups);
		while (g_hash_table_iter_next(&it, NULL, &value))
			auc_group(value, &wins, &total);
	}
	return total > 0 ? wins / total : 0.5;
}
