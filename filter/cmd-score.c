/* cmd-score.c: ccsift score [--repo DIR] [--me EMAIL]... [--as-of DATE] [--json] [FILE] */
#include <stdio.h>
#include "ccsift.h"
#include "date.h"
#include "error.h"

static void print_text(const ccsift_result *r, const char *repo)
{
	g_autofree char *header = verdict_header(r);

	printf("verdict: %s\n", header);
	if (repo)
		printf("repo: %s\n", repo);
	printf("reason: %s\n", r->summary);
	if (r->model.version && r->verdict != CCSIFT_VERDICT_NOT_PATCH) {
		char until[16];

		printf("model: %s%s%s, threshold %s\n", r->model.source, r->model.until ? " up to " : "",
		       r->model.until ? ccsift_date_format(r->model.until, until, sizeof(until)) : "",
		       r->threshold_source);
	}
	for (int i = 0; r->model.version && i < CCSIFT_FEATURE_COUNT; i++) {
		g_autofree char *words = ccsift_result_feature_words(r, i);

		printf("feature: %s=%.3f weight=%.3f (%s)\n", ccsift_feature_name(i), r->features.x[i],
		       r->model.w[i], words);
	}
	for (guint i = 0; i < r->files->len; i++) {
		const ccsift_file_score *f = r->files->pdata[i];

		printf("file: %s score=%.3f evidence=%.3f share=%.2f commits=%d\n", f->path, f->score,
		       f->user, f->share, f->commits);
	}
	for (guint i = 0; i < r->evidence->len; i++) {
		const ccsift_evidence *e = r->evidence->pdata[i];
		char date[16];

		printf("evidence: %.12s %s %s %s weight=%.3f (role %.1f, substance %.2f, breadth %.2f, decay %.2f)%s%s%s\n",
		       e->oid, ccsift_date_format(e->time, date, sizeof(date)), ccsift_role_name(e->role),
		       e->path, e->weight, e->role_weight, e->substance, e->breadth, e->decay,
		       e->via ? " via " : "", e->via ? e->via : "", e->treewide ? " tree-wide" : "");
	}
}

int cmd_score(int argc, char **argv)
{
	common_options o = { 0 };
	g_autofree GOptionEntry *entries = option_entries(&o, OPT_SCORING, NULL);
	g_autoptr(GByteArray) raw = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(ccsift_patch) patch = NULL;
	g_autoptr(ccsift_result) result = NULL;
	session s = { 0 };
	int rc;

	if (!parse_options(&argc, &argv, "[FILE]", "Score a patch mail against the recipient's history. "
			   "The index is brought up to date first.", entries))
		return 2;
	if (!(raw = read_message(argc > 1 ? argv[1] : NULL, &err))) {
		fprintf(stderr, "ccsift score: %s\n", err->message);
		return 1;
	}
	rc = score_message(&s, &o, raw->data, raw->len, TRUE, &patch, &result);
	if (rc < 0) {
		fprintf(stderr, "ccsift score: %s\n", ccsift_error_last());
	} else if (o.json) {
		print_json(result_to_json(result, s.repo_name));
	} else {
		print_text(result, s.repo_name);
	}
	session_close(&s);
	common_options_clear(&o);
	return rc < 0 ? 1 : 0;
}
