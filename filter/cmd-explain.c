/* cmd-explain.c: ccsift explain [FILE | id:MSGID] -- the verdict, in sentences. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "nm.h"
#include "ccsift.h"
#include "date.h"
#include "decisions.h"
#include "error.h"

/* The file of a message in the notmuch database, by id:MSGID. */
static char *notmuch_file(const char *query)
{
	notmuch_database_t *db = NULL;
	notmuch_message_t *m = NULL;
	char *path = NULL;

	if (ccsift_nm_open(NOTMUCH_DATABASE_MODE_READ_ONLY, &db) < 0)
		return NULL;
	if (notmuch_database_find_message(db, query + 3, &m) == NOTMUCH_STATUS_SUCCESS && m) {
		path = g_strdup(notmuch_message_get_filename(m));
		notmuch_message_destroy(m);
		if (!path)
			ccsift_error_set(CCSIFT_ENOTFOUND, "message %s has no file", query);
	} else {
		ccsift_error_set(CCSIFT_ENOTFOUND, "no message %s in the notmuch database", query);
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

static void explain_evidence(const ccsift_evidence *e)
{
	char date[16];

	printf("  - You %s %.12s \"%s\" (%s), ", role_phrase(e->role), e->oid, e->subject ? e->subject : "",
	       ccsift_date_format(e->time, date, sizeof(date)));
	if (e->sibling)
		printf("which touched %s, next to %s; ", e->via, e->path);
	else if (e->via)
		printf("which touched %s, the earlier name of %s; ", e->via, e->path);
	if (e->treewide)
		printf("a tree-wide change of %d file%s", e->nfiles, e->nfiles == 1 ? "" : "s");
	else
		printf("a %d-file commit", e->nfiles);
	if (e->lines >= 0)
		printf(" changing %d line%s here", e->lines, e->lines == 1 ? "" : "s");
	printf(". Weight %.2f.\n", e->weight);
}

/* The model's largest terms, the verdict's way first, in words. */
static void explain_model(const ccsift_result *r)
{
	int order[CCSIFT_FEATURE_COUNT];
	double c[CCSIFT_FEATURE_COUNT];
	char until[16];

	ccsift_result_reasons(r, order, c);
	if (r->model.until)
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

static void explain(const ccsift_patch *p, const ccsift_result *r, const char *repo)
{
	printf("%s\n", p->subject_raw ? p->subject_raw : "(no subject)");
	switch (r->verdict) {
	case CCSIFT_VERDICT_NOT_PATCH:
		printf("This mail is not a patch: it carries no diff, diffstat or pull request.\n");
		return;
	case CCSIFT_VERDICT_UNKNOWN:
		printf("No decision: %s. Nothing is demoted.\n", r->summary);
		return;
	case CCSIFT_VERDICT_LOW:
		printf("Low relevance: %.0f%% likely that you engage, under %s threshold %.0f%%", 100 * r->score,
		       whose(r), 100 * r->threshold);
		break;
	case CCSIFT_VERDICT_RELEVANT:
		printf("Relevant: ");
		if (r->override)
			printf("%s", r->override);
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
	if (!r->override && r->cc && r->history)
		explain_model(r);
	if (!r->evidence->len) {
		printf("You have no commits, reviews or sign-offs on the files it touches.\n");
		return;
	}
	printf("Your history on the files it touches (%d commit%s):\n", r->history, r->history == 1 ? "" : "s");
	for (guint i = 0; i < r->evidence->len && i < 10; i++)
		explain_evidence(r->evidence->pdata[i]);
	if (r->evidence->len > 10)
		printf("  ... and %u more, each weighing less.\n", r->evidence->len - 10);
}

/* --- what ccsift tag decided, from its store --- */

/* The message id of an id:MSGID or mid:MSGID argument, or NULL. */
static const char *message_id_of(const char *arg)
{
	if (g_str_has_prefix(arg, "id:"))
		return arg + 3;
	if (g_str_has_prefix(arg, "mid:"))
		return arg + 4;
	return NULL;
}

/* The decision ccsift tag recorded for id, or NULL (none, or no store). */
static ccsift_decision *recorded_decision(const char *id)
{
	ccsift_decisions *store = NULL;
	ccsift_decision *dec = NULL;

	if (!id || ccsift_decisions_open(&store, NULL, FALSE) < 0)
		return NULL;
	ccsift_decisions_get(store, id, &dec);
	ccsift_decisions_close(store);
	return dec;
}

static void print_recorded(const ccsift_decision *dec)
{
	g_autoptr(GDateTime) when = g_date_time_new_from_unix_utc(dec->decided);
	g_autofree char *at = g_date_time_format(when, "%Y-%m-%d %H:%M UTC");
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
	if (dec->reason)
		printf("Why: %s.\n", dec->reason);
	if (dec->was_low)
		printf("It was low before; the verdict was lifted since.\n");
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
		printf(": the score moved from %.0f%% to %.0f%%", 100 * dec->score, 100 * now->score);
	else if (dec->threshold >= 0 && now->verdict >= CCSIFT_VERDICT_RELEVANT &&
		 fabs(now->threshold - dec->threshold) >= 0.005)
		printf(": the threshold moved from %.0f%% to %.0f%%", 100 * dec->threshold, 100 * now->threshold);
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

	if (!parse_options(&argc, &argv, "[FILE | id:MSGID | mid:MSGID]", "Explain the verdict on a mail in sentences, "
			   "with the commits behind it.", entries))
		return 2;
	if (argc > 1 && message_id_of(argv[1])) {
		g_autofree char *id = g_strconcat("id:", message_id_of(argv[1]), NULL);

		recorded = recorded_decision(id + 3);
		if (!(file = notmuch_file(id))) {
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
	if (rc < 0)
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
