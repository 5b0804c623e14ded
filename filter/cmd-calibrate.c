/* cmd-calibrate.c: ccsift calibrate [--repo DIR] [--me EMAIL]... [--as-of DATE] [--json] [--write]
 * -- a threshold from the user's own review history. */
#include <stdio.h>
#include <time.h>
#include "ccsift.h"
#include "date.h"
#include "error.h"
#include "eval.h"

/* Set threshold in the config: the repo section when one was used, else [user]. */
static int write_threshold(const session *s, const common_options *o, double threshold)
{
	g_autofree char *file = o->config ? g_strdup(o->config) :
		s->cfg->file ? g_strdup(s->cfg->file) : g_build_filename(g_get_user_config_dir(), "ccsift", "config", NULL);
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_autoptr(GError) err = NULL;
	g_autofree char *group = NULL, *dir = g_path_get_dirname(file);

	if (g_file_test(file, G_FILE_TEST_EXISTS) &&
	    !g_key_file_load_from_file(kf, file, G_KEY_FILE_KEEP_COMMENTS, &err))
		return ccsift_error_set(CCSIFT_EINVALID, "%s: %s", file, err->message);
	group = !o->repo && s->repo_name ? g_strconcat("repo ", s->repo_name, NULL) : g_strdup("user");
	g_key_file_set_double(kf, group, "threshold", threshold);
	g_mkdir_with_parents(dir, 0700);
	if (!g_key_file_save_to_file(kf, file, &err))
		return ccsift_error_set(CCSIFT_EIO, "cannot write %s: %s", file, err->message);
	printf("wrote threshold = %g to [%s] of %s\n", threshold, group, file);
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	common_options o = { 0 };
	double keep = 0.95;
	gboolean write = FALSE;
	g_autofree GOptionEntry *common = common_option_entries(&o, TRUE);
	GOptionEntry extra[] = {
		{ "keep", 0, 0, G_OPTION_ARG_DOUBLE, &keep, "Share of your engaged patches to keep relevant (default 0.95)", "F" },
		{ "write", 0, 0, G_OPTION_ARG_NONE, &write, "Write the threshold into the config", NULL },
		{ NULL }
	};
	g_autoptr(GArray) entries = g_array_new(TRUE, TRUE, sizeof(GOptionEntry));
	ccsift_calibrate_options co;
	ccsift_calibration cal = { 0 };
	session s = { 0 };
	int64_t as_of;
	int rc;

	for (GOptionEntry *e = common; e->long_name; e++)
		if (g_strcmp0(e->long_name, "threshold"))
			g_array_append_vals(entries, e, 1);
	g_array_append_vals(entries, extra, G_N_ELEMENTS(extra) - 1);
	if (!parse_options(&argc, &argv, "", "Pick your threshold from your own history: the patches you "
			   "reviewed, acked, tested or applied, each scored as of its own date.",
			   (GOptionEntry *)entries->data))
		return 2;
	ccsift_calibrate_options_init(&co);
	co.keep = keep;
	if ((rc = session_load_config(&s, &o)) == 0 && (rc = session_open(&s, &o, NULL, TRUE)) == 0) {
		as_of = s.opts.as_of ? s.opts.as_of : (int64_t)time(NULL);
		co.fallback = s.opts.threshold;
		co.half_life_days = s.opts.half_life_days;
		if (!s.identities || !*s.identities)
			rc = ccsift_error_set(CCSIFT_EINVALID, "who are you? give --me EMAIL or [user] email");
		else
			rc = ccsift_calibrate(s.repo, s.idx, (const char *const *)s.identities, as_of, &co, &cal);
	}
	if (rc < 0) {
		fprintf(stderr, "ccsift calibrate: %s\n", ccsift_error_last());
	} else if (o.json) {
		g_autoptr(JsonBuilder) b = json_builder_new();

		json_builder_begin_object(b);
		json_add_double(b, "threshold", cal.threshold);
		json_add_int(b, "engaged", cal.engaged);
		json_add_int(b, "scored", cal.scored);
		json_add_int(b, "recent", cal.recent);
		json_add_double(b, "quantile", cal.quantile);
		json_add_string(b, "why", cal.why);
		json_builder_end_object(b);
		print_json(json_builder_get_root(b));
	} else {
		printf("threshold: %.3f\n", cal.threshold);
		printf("why: %s\n", cal.why);
		printf("engaged patches: %u in the last %d days (%u in the last %d), %u decided by score\n",
		       cal.engaged, (int)(co.window / 86400), cal.recent, (int)(co.recent / 86400), cal.scored);
		if (cal.scored) {
			printf("their scores:");
			for (guint i = 0; i < cal.scores->len && i < 20; i++)
				printf(" %.2f", g_array_index(cal.scores, double, i));
			printf("%s\n", cal.scores->len > 20 ? " ..." : "");
		}
	}
	if (rc == 0 && write)
		rc = write_threshold(&s, &o, cal.threshold);
	if (rc < 0 && write)
		fprintf(stderr, "ccsift calibrate: %s\n", ccsift_error_last());
	ccsift_calibration_clear(&cal);
	session_close(&s);
	common_options_clear(&o);
	return rc < 0 ? 1 : 0;
}
