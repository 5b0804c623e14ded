/* cmd-calibrate.c: ccsift calibrate [--repo DIR] [--me EMAIL]... [--as-of DATE] [--json] [--write]
 * -- a threshold from the user's own review history, for --repo or each
 * configured repository. */
#include <stdio.h>
#include <time.h>
#include "ccsift.h"
#include "date.h"
#include "error.h"
#include "eval.h"

/* Set threshold in --config, else the user's config, never the site's: the
 * repo section when one was used, else [user]. A user config that does not
 * exist yet starts as a copy of the config loaded, as the two are not merged. */
static int write_threshold(const session *s, const common_options *o, double threshold)
{
	g_autofree char *file = o->config ? g_strdup(o->config) :
		g_build_filename(g_get_user_config_dir(), "ccsift", "config", NULL);
	const char *from = g_file_test(file, G_FILE_TEST_EXISTS) ? file : s->cfg->file;
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_autoptr(GError) err = NULL;
	g_autofree char *group = NULL, *dir = g_path_get_dirname(file);

	if (from && !g_key_file_load_from_file(kf, from, G_KEY_FILE_KEEP_COMMENTS, &err))
		return ccsift_error_set(CCSIFT_EINVALID, "%s: %s", from, err->message);
	/* A configured clone gets its own threshold; another (--repo DIR) the user's. */
	group = s->repo_name && ccsift_config_repo_find(s->cfg, s->repo_name) ?
		g_strconcat("repo ", s->repo_name, NULL) : g_strdup("user");
	g_key_file_set_double(kf, group, "threshold", threshold);
	g_mkdir_with_parents(dir, 0700);
	if (!g_key_file_save_to_file(kf, file, &err))
		return ccsift_error_set(CCSIFT_EIO, "cannot write %s: %s", file, err->message);
	printf("wrote threshold = %g to [%s] of %s", threshold, group, file);
	if (from && from != file)
		printf(" (new, a copy of %s)", from);
	printf("\n");
	return 0;
}

/* session_open finds a configured section by its name. */
static int open_configured(session *s, const common_options *o, ccsift_repo_config *rc)
{
	common_options one = *o;

	one.repo = rc->name;
	return session_open(s, &one, NULL, TRUE);
}

static int calibrate(session *s, ccsift_calibrate_options *co, ccsift_calibration *cal)
{
	int64_t as_of = s->opts.as_of ? s->opts.as_of : (int64_t)time(NULL);

	co->fallback = s->opts.threshold;
	co->half_life_days = s->opts.half_life_days;
	return ccsift_calibrate(s->repo, s->idx, (const char *const *)s->identities, as_of, co, cal);
}

static JsonNode *to_json(const ccsift_calibration *cal, const char *repo)
{
	g_autoptr(JsonBuilder) b = json_builder_new();

	json_builder_begin_object(b);
	json_add_string(b, "repo", repo);
	json_add_double(b, "threshold", cal->threshold);
	json_add_int(b, "engaged", cal->engaged);
	json_add_int(b, "scored", cal->scored);
	json_add_int(b, "recent", cal->recent);
	json_add_double(b, "quantile", cal->quantile);
	json_add_string(b, "why", cal->why);
	json_builder_end_object(b);
	return json_builder_get_root(b);
}

static void print_text(const ccsift_calibration *cal, const ccsift_calibrate_options *co, const char *repo)
{
	printf("repo: %s\n", repo);
	printf("threshold: %.3f\n", cal->threshold);
	printf("why: %s\n", cal->why);
	printf("engaged patches: %u in the last %d days (%u in the last %d), %u decided by score\n",
	       cal->engaged, (int)(co->window / 86400), cal->recent, (int)(co->recent / 86400), cal->scored);
	if (cal->scored) {
		printf("their scores:");
		for (guint i = 0; i < cal->scores->len && i < 20; i++)
			printf(" %.2f", g_array_index(cal->scores, double, i));
		printf("%s\n", cal->scores->len > 20 ? " ..." : "");
	}
}

int cmd_calibrate(int argc, char **argv)
{
	common_options o = { 0 };
	double keep = 0.95;
	gboolean write = FALSE, several;
	GOptionEntry extra[] = {
		{ "keep", 0, 0, G_OPTION_ARG_DOUBLE, &keep, "Share of your engaged patches to keep relevant (default 0.95)", "F" },
		{ "write", 0, 0, G_OPTION_ARG_NONE, &write, "Write the threshold into your config", NULL },
		{ NULL }
	};
	g_autofree GOptionEntry *entries = NULL;
	g_autoptr(JsonArray) results = json_array_new();
	ccsift_calibrate_options co;
	session s = { 0 };
	int rc;

	entries = option_entries(&o, OPT_SCORING & ~OPT_THRESHOLD, extra);
	if (!parse_options(&argc, &argv, "", "Pick your threshold from your own history: the patches you "
			   "reviewed, acked, tested or applied, each scored as of its own date. Without --repo, "
			   "for each configured repository.", entries))
		return 2;
	ccsift_calibrate_options_init(&co);
	co.keep = keep;
	if ((rc = session_load_config(&s, &o)) == 0 && (!s.identities || !*s.identities))
		rc = ccsift_error_set(CCSIFT_EINVALID, "who are you? give --me EMAIL or [user] email");
	if (rc < 0) {
		fprintf(stderr, "ccsift calibrate: %s\n", ccsift_error_last());
		goto out;
	}
	several = !o.repo && s.cfg->repos->len > 1;
	for (guint i = 0; i < (several ? s.cfg->repos->len : 1); i++) {
		ccsift_repo_config *repo = several ? s.cfg->repos->pdata[i] : NULL;
		ccsift_calibration cal = { 0 };
		int err;

		err = repo ? open_configured(&s, &o, repo) : session_open(&s, &o, NULL, TRUE);
		if (err == 0 && (err = calibrate(&s, &co, &cal)) == 0) {
			if (!o.json && several && i > 0)
				printf("\n");
			if (o.json && several)
				json_array_add_element(results, to_json(&cal, s.repo_name));
			else if (o.json)
				print_json(to_json(&cal, s.repo_name));
			else
				print_text(&cal, &co, s.repo_name);
			if (write)
				err = write_threshold(&s, &o, cal.threshold);
		}
		if (err < 0 && repo)
			fprintf(stderr, "ccsift calibrate: [repo %s]: %s\n", repo->name, ccsift_error_last());
		else if (err < 0)
			fprintf(stderr, "ccsift calibrate: %s\n", ccsift_error_last());
		if (err < 0)
			rc = err;
		ccsift_calibration_clear(&cal);
	}
	if (o.json && several) {
		JsonNode *node = json_node_new(JSON_NODE_ARRAY);

		json_node_set_array(node, results);
		print_json(node);
	}
out:
	session_close(&s);
	common_options_clear(&o);
	return rc < 0 ? 1 : 0;
}
