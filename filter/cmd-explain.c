/* cmd-explain.c: ccsift explain [FILE | id:MSGID | mid:MSGID | thread:ID] -- the verdict, in sentences. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "nm.h"
#include "ccsift.h"
#include "date.h"
#include "decisions.h"
#include "error.h"
#include "mail.h"

/* The file of a message in the notmuch database, by its id (no "id:"). */
static char *message_file(notmuch_database_t *db, const char *id)
{
	notmuch_message_t *m = NULL;
	char *path = NULL;

	if (notmuch_database_find_message(db, id, &m) == NOTMUCH_STATUS_SUCCESS && m) {
		path = g_strdup(notmuch_message_get_filename(m));
		notmuch_message_destroy(m);
		if (!path)
			ccsift_error_set(CCSIFT_ENOTFOUND, "message id:%s has no file", id);
	} else {
		ccsift_error_set(CCSIFT_ENOTFOUND, "no message id:%s in the notmuch database", id);
	}
	return path;
}

static gboolean is_patch_file(const char *file)
{
	g_autoptr(GByteArray) raw = read_message(file, NULL);
	g_autoptr(ccsift_patch) p = NULL;

	return raw && ccsift_mail_parse(&p, (const char *)raw->data, raw->len) == 0 &&
	       p->kind != CCSIFT_KIND_NOT_PATCH;
}

/* A thread's newest message that is a patch: a thread is a series and its
 * replies, and the newest patch is the version on the table. */
static char *thread_file(notmuch_database_t *db, const char *thread, char **id)
{
	g_autofree char *q = g_strconcat("thread:", thread, NULL);
	notmuch_query_t *query = NULL;
	notmuch_messages_t *ms = NULL;
	char *best = NULL;
	time_t best_date = 0;

	if (!*thread || strspn(thread, "0123456789abcdef") != strlen(thread)) {
		ccsift_error_set(CCSIFT_EINVALID, "thread:%s: a thread id is hex digits, as notmuch search prints it",
				 thread);
		return NULL;
	}
	if (notmuch_query_create_with_syntax(db, q, NOTMUCH_QUERY_SYNTAX_XAPIAN, &query) ||
	    notmuch_query_search_messages(query, &ms)) {
		ccsift_error_set(CCSIFT_EIO, "cannot search thread:%s", thread);
		goto out;
	}
	for (; notmuch_messages_valid(ms); notmuch_messages_move_to_next(ms)) {
		notmuch_message_t *m = notmuch_messages_get(ms);
		const char *file = notmuch_message_get_filename(m);
		time_t date = notmuch_message_get_date(m);

		if (file && (!best || date >= best_date) && is_patch_file(file)) {
			g_free(best), g_free(*id);
			best = g_strdup(file), *id = g_strdup(notmuch_message_get_message_id(m));
			best_date = date;
		}
		notmuch_message_destroy(m);
	}
	if (!best)
		ccsift_error_set(CCSIFT_ENOTFOUND, "no patch in thread:%s", thread);
out:
	if (query)
		notmuch_query_destroy(query);
	return best;
}

/*
 * The message id an id:MSGID or mid:MSGID argument names, as notmuch reads
 * it: quoted ("a@b", with "" for a quote inside, as notmuch dump and ccsift
 * tag --dry-run write it) or not; mid:<a@b> as a References header writes
 * it. New string, or NULL for another argument.
 */
static char *message_id_of(const char *arg)
{
	gboolean mid = g_str_has_prefix(arg, "mid:");
	const char *v;
	size_t n;
	GString *id;

	if (!mid && !g_str_has_prefix(arg, "id:"))
		return NULL;
	v = arg + (mid ? 4 : 3);
	n = strlen(v);
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		id = g_string_sized_new(n);
		for (const char *c = v + 1; c < v + n - 1; c++) {
			if (c[0] == '"' && c[1] == '"')
				c++;
			g_string_append_c(id, *c);
		}
	} else {
		id = g_string_new(v);
	}
	if (mid && id->len >= 2 && id->str[0] == '<' && id->str[id->len - 1] == '>') {
		g_string_truncate(id, id->len - 1);
		g_string_erase(id, 0, 1);
	}
	return g_string_free(id, FALSE);
}

/* The file of id:MSGID or mid:MSGID (notmuch's two spellings), or of the
 * newest patch of thread:ID (said on stdout, as it was a choice). */
static char *notmuch_file(const char *query)
{
	notmuch_database_t *db = NULL;
	g_autofree char *id = NULL;
	char *path = NULL;

	if (ccsift_nm_open(NOTMUCH_DATABASE_MODE_READ_ONLY, &db) < 0)
		return NULL;
	if (g_str_has_prefix(query, "thread:")) {
		if ((path = thread_file(db, query + 7, &id)))
			printf("The newest patch of %s: id:%s\n", query, ccsift_printable(id));
	} else if ((id = message_id_of(query))) {
		path = message_file(db, id);
	}
	notmuch_database_destroy(db);
	return path;
}

static const char *role_phrase(ccsift_role role)
{
	switch (role) {
	case CCSIFT_ROLE_AUTHOR: return "wrote";
	case CCSIFT_ROLE_COMMITTER: return "applied";
	case CCSIFT_ROLE_REVIEWED: return "reviewed";
	case CCSIFT_ROLE_ACKED: return "acked";
	case CCSIFT_ROLE_TESTED: return "tested";
	case CCSIFT_ROLE_SIGNED: return "signed off";
	case CCSIFT_ROLE_CODEVELOPED: return "co-developed";
	case CCSIFT_ROLE_REPORTED: return "reported the bug behind";
	default: return "suggested";
	}
}

/* Under this a commit moved nothing: tree-wide, trivial or long ago. */
#define NEGLIGIBLE_WEIGHT 0.01

/* One commit of the user's, with the patch's files it touched. */
typedef struct {
	const ccsift_evidence *first;  /* the heaviest row: oid, subject, date, role */
	GPtrArray *rows;               /* const ccsift_evidence *, one per file */
	double weight;
	int lines;                     /* -1 when any row's count is unknown */
} commit_group;

static void group_free(commit_group *g)
{
	g_ptr_array_unref(g->rows);
	g_free(g);
}

static gint by_weight(gconstpointer a, gconstpointer b)
{
	const commit_group *x = *(commit_group **)a, *y = *(commit_group **)b;

	return x->weight > y->weight ? -1 : x->weight < y->weight;
}

/* The evidence comes one row per (commit, file): one group per commit,
 * the heaviest first. */
static GPtrArray *group_by_commit(const GPtrArray *evidence)
{
	GPtrArray *groups = g_ptr_array_new_with_free_func((GDestroyNotify)group_free);
	g_autoptr(GHashTable) by_oid = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint i = 0; i < evidence->len; i++) {
		const ccsift_evidence *e = evidence->pdata[i];
		commit_group *g = g_hash_table_lookup(by_oid, e->oid);

		if (!g) {
			g = g_new0(commit_group, 1);
			g->first = e;
			g->rows = g_ptr_array_new();
			g_ptr_array_add(groups, g);
			g_hash_table_insert(by_oid, e->oid, g);
		}
		if (e->weight > g->first->weight)
			g->first = e;
		g_ptr_array_add(g->rows, (gpointer)e);
		g->weight += e->weight;
		g->lines = g->rows->len == 1 ? e->lines : (g->lines < 0 || e->lines < 0 ? -1 : g->lines + e->lines);
	}
	g_ptr_array_sort(groups, by_weight);
	return groups;
}

/* The files the commit touched, each once: "a.c and b.c (next to c.c)". */
static void print_files(const commit_group *g)
{
	g_autoptr(GHashTable) said = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GPtrArray) rows = g_ptr_array_new();

	for (guint i = 0; i < g->rows->len; i++) {
		const ccsift_evidence *e = g->rows->pdata[i];
		const char *name = e->via ? e->via : e->path;

		/* A file of the patch itself wins over the same file as a sibling. */
		if (!e->via)
			g_hash_table_insert(said, (gpointer)name, (gpointer)e);
		else if (!g_hash_table_contains(said, name))
			g_hash_table_insert(said, (gpointer)name, (gpointer)e);
	}
	for (guint i = 0; i < g->rows->len; i++) {
		const ccsift_evidence *e = g->rows->pdata[i];

		if (g_hash_table_lookup(said, e->via ? e->via : e->path) == e)
			g_ptr_array_add(rows, (gpointer)e);
	}
	for (guint i = 0; i < rows->len; i++) {
		const ccsift_evidence *e = rows->pdata[i];
		g_autofree char *path = ccsift_printable(g_strdup(e->path));
		g_autofree char *via = ccsift_printable(g_strdup(e->via));

		printf("%s", !i ? "" : i + 1 == rows->len ? " and " : ", ");
		if (e->sibling)
			printf("%s (next to %s)", via, path);
		else if (e->via)
			printf("%s (the earlier name of %s)", via, path);
		else
			printf("%s", path);
	}
}

static void explain_commit(const commit_group *g)
{
	const ccsift_evidence *e = g->first;
	g_autofree char *subject = ccsift_printable(g_strdup(e->subject ? e->subject : ""));
	char date[16];

	printf("  - You %s %.12s \"%s\" (%s), ", role_phrase(e->role), e->oid, subject,
	       ccsift_date_format(e->time, date, sizeof(date)));
	if (e->treewide)
		printf("a tree-wide change of %d file%s", e->nfiles, e->nfiles == 1 ? "" : "s");
	else
		printf("a %d-file commit", e->nfiles);
	if (g->lines >= 0)
		printf(" changing %d line%s in ", g->lines, g->lines == 1 ? "" : "s");
	else
		printf(" touching ");
	print_files(g);
	printf(". Weight %.2f.\n", g->weight);
}

/* One line per commit that moved the score; the ones that weigh nothing
 * (tree-wide conversions, long ago) are counted, not listed, unless they
 * are all there is: then they are the reason. */
static void explain_history(const ccsift_result *r)
{
	g_autoptr(GPtrArray) groups = group_by_commit(r->evidence);
	guint heavy = 0, shown = 0, max;

	while (heavy < groups->len && ((commit_group *)groups->pdata[heavy])->weight >= NEGLIGIBLE_WEIGHT)
		heavy++;
	max = heavy ? MIN(heavy, 10) : MIN(groups->len, 3);
	printf("Your history on the files it touches (%u commit%s):\n", groups->len, groups->len == 1 ? "" : "s");
	for (; shown < max; shown++)
		explain_commit(groups->pdata[shown]);
	if (heavy > shown)
		printf("  ... and %u more, each weighing less.\n", heavy - shown);
	if (heavy && groups->len > heavy)
		printf("  %u commit%s weighing under %.2f (tree-wide, trivial or long ago) left out.\n",
		       groups->len - heavy, groups->len - heavy == 1 ? "" : "s", NEGLIGIBLE_WEIGHT);
	else if (groups->len > shown)
		printf("  ... and %u more, each weighing less.\n", groups->len - shown);
}

/* The model's largest terms, the verdict's way first, in words. */
static void explain_model(const ccsift_result *r)
{
	int order[CCSIFT_FEATURE_COUNT];
	double c[CCSIFT_FEATURE_COUNT];
	char until[16];

	ccsift_result_reasons(r, order, c);
	if (r->model.until && strcmp(r->model.source, "prior") != 0)
		printf("The model was fitted on this repository's history up to %s; what moved the score most:\n",
		       ccsift_date_format(r->model.until, until, sizeof(until)));
	else
		printf("The model is the prior (too little history here to fit); what moved the score most:\n");
	for (int i = 0, said = 0; i < CCSIFT_FEATURE_COUNT && said < 5; i++) {
		g_autofree char *words = ccsift_result_reason_words(r, order[i]);

		if (fabs(c[order[i]]) < 0.05)
			continue;
		printf("  %s %s (%+.2f)\n", c[order[i]] < 0 ? "-" : "+", words, c[order[i]]);
		said++;
	}
}

/* "under your threshold", "under the repository's threshold" */
static const char *whose(const ccsift_result *r)
{
	return !r->threshold_source || strcmp(r->threshold_source, "yours") == 0 ? "your" : r->threshold_source;
}

/* The subject as the first line: text, whatever the mail encoded in it. */
static void print_subject(const ccsift_patch *p)
{
	g_autofree char *subject = ccsift_printable(g_strdup(p->subject_raw ? p->subject_raw : "(no subject)"));

	printf("%s\n", subject);
}

static void explain(const ccsift_patch *p, const ccsift_result *r, const char *repo)
{
	g_autofree char *summary = ccsift_printable(g_strdup(r->summary));
	g_autofree char *override = ccsift_printable(g_strdup(r->override));

	print_subject(p);
	switch (r->verdict) {
	case CCSIFT_VERDICT_NOT_PATCH:
		printf("This mail is not a patch: it carries no diff, diffstat or pull request.\n");
		return;
	case CCSIFT_VERDICT_UNKNOWN:
		printf("No decision: %s. Nothing is demoted.\n", summary);
		return;
	case CCSIFT_VERDICT_LOW:
		printf("Low relevance: %.0f%% likely that you engage, under %s threshold %.0f%%", 100 * r->score,
		       whose(r), 100 * r->threshold);
		break;
	case CCSIFT_VERDICT_RELEVANT:
		printf("Relevant: ");
		if (r->override)
			printf("%s", override);
		else if (!r->cc)
			printf("you are not on Cc, so it is not demoted");
		else if (!r->history)
			printf("no history of yours on these files was found, and someone put you on Cc");
		else
			printf("%.0f%% likely that you engage, at or over %s threshold %.0f%%", 100 * r->score,
			       whose(r), 100 * r->threshold);
		break;
	}
	printf(" (repository %s).\n", repo ? repo : "?");
	if (!r->override && r->cc && r->history && r->threshold_replied)
		printf("Your threshold counts %u patch%s you replied to or lifted by hand as engaged.\n",
		       r->threshold_replied,
		       r->threshold_replied == 1 ? "" : "es");
	if (!r->override && r->cc && r->history)
		explain_model(r);
	if (!r->evidence->len) {
		printf("You have no commits, reviews or sign-offs on the files it touches.\n");
		return;
	}
	explain_history(r);
}

/* --- what ccsift tag decided, from its store --- */

/* The decision ccsift tag recorded for id, or NULL: none, no store (none
 * decided yet), or a store that cannot be read, which is said in one line
 * (a damaged store is not "nothing decided"). */
static ccsift_decision *recorded_decision(const char *id)
{
	ccsift_decisions *store = NULL;
	ccsift_decision *dec = NULL;
	int rc;

	if (!id)
		return NULL;
	if ((rc = ccsift_decisions_open(&store, NULL, FALSE)) == 0)
		rc = ccsift_decisions_get(store, id, &dec);
	if (rc < 0 && rc != CCSIFT_ENOTFOUND)
		fprintf(stderr, "ccsift explain: what ccsift tag decided is not known: %s\n", ccsift_error_last());
	ccsift_decisions_close(store);
	return dec;
}

static void print_recorded(const ccsift_decision *dec)
{
	g_autoptr(GDateTime) when = g_date_time_new_from_unix_utc(dec->decided);
	g_autofree char *at = when ? g_date_time_format(when, "%Y-%m-%d %H:%M UTC") : g_strdup("?");
	char until[16];

	printf("Decided by ccsift tag at %s: %s", at, dec->verdict);
	if (dec->score >= 0)
		printf(", %.0f%% likely that you engage, threshold %.0f%%", 100 * dec->score, 100 * dec->threshold);
	printf(" (repository %s", dec->repo ? dec->repo : "?");
	if (dec->model_version && dec->model_until)
		printf(", model version %d fitted up to %s", dec->model_version,
		       ccsift_date_format(dec->model_until, until, sizeof(until)));
	else if (dec->model_version)
		printf(", model version %d, the prior", dec->model_version);
	printf(").\n");
	if (dec->reason) {
		g_autofree char *reason = ccsift_printable(g_strdup(dec->reason));

		printf("Why: %s.\n", reason);
	}
	if (dec->was_low && g_strcmp0(dec->verdict, ccsift_verdict_name(CCSIFT_VERDICT_LOW)) != 0)
		printf("It was low before; the verdict was lifted since.\n");
}

/* ": the WHAT moved from A% to B%", with as many decimals as it takes
 * for A and B to differ (at most two: 1.4% to 0.6%, not 1% to 1%). */
static void print_moved(const char *what, double from, double to)
{
	int decimals = 0;

	while (decimals < 2 && round(100 * from * pow(10, decimals)) == round(100 * to * pow(10, decimals)))
		decimals++;
	printf(": the %s moved from %.*f%% to %.*f%%", what, decimals, 100 * from, decimals, 100 * to);
}

/* The recorded decision first; then whether scoring it now agrees. The
 * explanation that follows is of the verdict now. */
static void explain_recorded(const ccsift_decision *dec, const ccsift_result *now)
{
	const char *verdict = ccsift_verdict_name(now->verdict);

	print_recorded(dec);
	if (strcmp(dec->verdict, verdict) == 0) {
		printf("Scored again now, it is the same: %s. Why:\n\n", verdict);
		return;
	}
	printf("Scored again now, on its own, it would be %s", verdict);
	if (dec->score >= 0 && now->verdict >= CCSIFT_VERDICT_RELEVANT && fabs(now->score - dec->score) >= 0.005)
		print_moved("score", dec->score, now->score);
	else if (dec->threshold >= 0 && now->verdict >= CCSIFT_VERDICT_RELEVANT &&
		 fabs(now->threshold - dec->threshold) >= 0.005)
		print_moved("threshold", dec->threshold, now->threshold);
	else if (dec->score >= 0)
		printf(": the score is the same, the rules for its thread decided it");
	if (dec->model_version && (now->model.version != dec->model_version || now->model.until != dec->model_until))
		printf(" (the model was refitted since)");
	printf(". Why, now:\n\n");
}

static void add_recorded_json(JsonNode *root, const ccsift_decision *dec)
{
	JsonObject *o = json_object_new();

	json_object_set_string_member(o, "verdict", dec->verdict);
	if (dec->score >= 0) {
		json_object_set_double_member(o, "score", dec->score);
		json_object_set_double_member(o, "threshold", dec->threshold);
	}
	json_object_set_string_member(o, "reason", dec->reason);
	json_object_set_int_member(o, "decided", dec->decided);
	json_object_set_int_member(o, "model_version", dec->model_version);
	json_object_set_int_member(o, "model_until", dec->model_until);
	json_object_set_string_member(o, "repo", dec->repo);
	json_object_set_boolean_member(o, "was_low", dec->was_low);
	json_object_set_object_member(json_node_get_object(root), "recorded", o);
}

int cmd_explain(int argc, char **argv)
{
	common_options o = { 0 };
	g_autofree GOptionEntry *entries = option_entries(&o, OPT_SCORING, NULL);
	g_autoptr(GByteArray) raw = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(ccsift_patch) patch = NULL;
	g_autoptr(ccsift_result) result = NULL;
	g_autofree char *file = NULL;
	g_autoptr(ccsift_decision) recorded = NULL;
	session s = { 0 };
	int rc;

	if (!parse_options(&argc, &argv, "[FILE | id:MSGID | mid:MSGID | thread:ID]", "Explain the verdict on a mail in sentences, "
			   "with the commits behind it: first what ccsift tag recorded, if it did. thread:ID explains "
			   "the newest patch of the thread.", entries))
		return 2;
	if (argc > 1 && (g_str_has_prefix(argv[1], "id:") || g_str_has_prefix(argv[1], "mid:") ||
			 g_str_has_prefix(argv[1], "thread:"))) {
		g_autofree char *id = message_id_of(argv[1]);

		if (id)
			recorded = recorded_decision(id);
		if (!(file = notmuch_file(argv[1]))) {
			fprintf(stderr, "ccsift explain: %s\n", ccsift_error_last());
			rc = -1;
			goto out;
		}
	} else if (argc > 1) {
		file = g_strdup(argv[1]);
	}
	if (!(raw = read_message(file, &err))) {
		fprintf(stderr, "ccsift explain: %s\n", err->message);
		rc = -1;
		goto out;
	}
	rc = score_message(&s, &o, raw->data, raw->len, FALSE, &patch, &result);
	if (rc < 0 && patch && !s.repo_name && !o.json) {
		/* No repository is for this mail: a verdict (unknown), not a failure. */
		print_subject(patch);
		printf("No decision: %s. Nothing is demoted.\n", ccsift_error_last());
		rc = 0;
	} else if (rc < 0)
		fprintf(stderr, "ccsift explain: %s\n", ccsift_error_last());
	else if (o.json) {
		JsonNode *root = result_to_json(result, s.repo_name);

		if (recorded)
			add_recorded_json(root, recorded);
		print_json(root);
	} else {
		if (recorded)
			explain_recorded(recorded, result);
		explain(patch, result, s.repo_name);
	}
	session_close(&s);
out:
	common_options_clear(&o);
	return rc < 0 ? 1 : 0;
}
