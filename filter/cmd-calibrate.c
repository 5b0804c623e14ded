/* cmd-calibrate.c: ccsift calibrate [--repo DIR] [--me EMAIL]... [--as-of DATE] [--json] [--write]
 * -- the user's own operating point, as filter, tag and score use it when no
 * threshold is configured, for --repo or each configured repository;
 * --write pins it in the config. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "ccsift.h"
#include "date.h"
#include "error.h"
#include "training.h"

/* Is line the header of [group]? A [repo NAME] is named as the config
 * reads it, with the spaces around NAME stripped: "[repo  linux ]" is
 * [repo linux] (a second section appended for it left the name twice,
 * and the config refused). */
static gboolean is_header(const char *line, const char *group)
{
	g_autofree char *t = g_strstrip(g_strdup(line));
	size_t n = strlen(t);

	if (n < 2 || t[0] != '[' || t[n - 1] != ']')
		return FALSE;
	t[n - 1] = '\0';
	if (g_str_has_prefix(group, "repo ") && g_str_has_prefix(t + 1, "repo "))
		return strcmp(g_strstrip(t + 6), group + 5) == 0;
	return strcmp(t + 1, group) == 0;
}

/* Is line "key = ..." (commented: "#key = ...")? */
static gboolean is_key(const char *line, const char *key, gboolean commented)
{
	line += strspn(line, " \t");
	if (commented) {
		if (*line != '#')
			return FALSE;
		line += 1 + strspn(line + 1, " \t");
	}
	if (strncmp(line, key, strlen(key)) != 0)
		return FALSE;
	line += strlen(key);
	return line[strspn(line, " \t")] == '=';
}

/*
 * text with "key = value" in [group], everything else as it was: the user's
 * comments, order and spacing survive (GKeyFile would rewrite them all).
 * The key's line is replaced; else the line goes after a commented-out
 * "#key = ..." of the section, else after the section's last setting;
 * a missing section is appended.
 */
static char *set_key(const char *text, const char *group, const char *key, const char *value)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	g_autofree char *setting = g_strdup_printf("%s = %s", key, value);
	GString *out = g_string_new(NULL);
	int start = -1, last = -1, key_at = -1, comment_at = -1, at, n = g_strv_length(lines);
	gboolean replace;

	for (int i = 0; i < n; i++) {
		const char *l = lines[i] + strspn(lines[i], " \t");

		if (start < 0) {
			if (is_header(l, group))
				start = last = i;
		} else if (*l == '[') {
			break;
		} else if (is_key(l, key, FALSE)) {
			key_at = i;
			break;
		} else if (is_key(l, key, TRUE)) {
			if (comment_at < 0)
				comment_at = i;
		} else if (*l && *l != '#' && *l != ';') {
			last = i;
		}
	}
	replace = key_at >= 0;
	at = replace ? key_at : comment_at >= 0 ? comment_at : last;
	for (int i = 0; i < n; i++) {
		if (i == at && replace) {
			g_string_append(out, setting);
		} else {
			g_string_append(out, lines[i]);
			if (i == at)
				g_string_append_printf(out, "\n%s", setting);
		}
		if (i + 1 < n)
			g_string_append_c(out, '\n');
	}
	if (start < 0) {
		if (out->len && out->str[out->len - 1] != '\n')
			g_string_append_c(out, '\n');
		g_string_append_printf(out, "%s[%s]\n%s\n", out->len ? "\n" : "", group, setting);
	}
	return g_string_free(out, FALSE);
}

/* Set threshold in --config, else the user's config, never the site's: the
 * repo section when one was used, else [user]. A user config that does not
 * exist yet starts as a copy of the config loaded, as the two are not merged. */
static int write_threshold(const session *s, const common_options *o, double threshold)
{
	g_autofree char *file = o->config ? g_strdup(o->config) :
		g_build_filename(g_get_user_config_dir(), "ccsift", "config", NULL);
	const char *from = g_file_test(file, G_FILE_TEST_EXISTS) ? file : s->cfg->file;
	g_autoptr(GError) err = NULL;
	g_autofree char *group = NULL, *dir = g_path_get_dirname(file), *text = NULL, *out = NULL;
	char value[G_ASCII_DTOSTR_BUF_SIZE];
	struct stat st;
	int mode = 0666;  /* less the umask, as any file the user creates */

	if (from && !g_file_get_contents(from, &text, NULL, &err))
		return ccsift_error_set(CCSIFT_EINVALID, "%s: %s", from, err->message);
	if (from == file && stat(file, &st) == 0)
		mode = st.st_mode & 07777;
	/* A configured clone gets its own threshold; another (--repo DIR) the user's. */
	group = s->repo_name && ccsift_config_repo_find(s->cfg, s->repo_name) ?
		g_strconcat("repo ", s->repo_name, NULL) : g_strdup("user");
	out = set_key(text ? text : "", group, "threshold",
		      g_ascii_formatd(value, sizeof(value), "%.3f", threshold));
	g_mkdir_with_parents(dir, 0700);
	if (!g_file_set_contents_full(file, out, -1, G_FILE_SET_CONTENTS_CONSISTENT, mode, &err))
		return ccsift_error_set(CCSIFT_EIO, "cannot write %s: %s", file, err->message);
	printf("wrote threshold = %s to [%s] of %s", value, group, file);
	if (from && from != file)
		printf(" (new, a copy of %s)", from);
	printf("\nMessages already tagged keep their tags until `ccsift tag --query '*'` decides them again.\n");
	return 0;
}

/* session_open finds a configured section by its name. */
static int open_configured(session *s, const common_options *o, ccsift_repo_config *rc)
{
	common_options one = *o;

	one.repo = rc->name;
	return session_open(s, &one, NULL, TRUE);
}

/* The fit for the period is made first if the index has none (and kept). */
static int calibrate(session *s, ccsift_operating_point *op)
{
	int64_t as_of = ccsift_scorer_as_of(s->scorer, &s->opts);
	ccsift_training_options to;
	ccsift_index *w = NULL;
	int rc;

	ccsift_training_options_init(&to);
	to.progress = isatty(2);
	if ((rc = ccsift_index_open(&w, ccsift_index_path(s->idx), CCSIFT_INDEX_READ_WRITE)) == 0)
		rc = ccsift_training_ensure(s->repo, w, ccsift_training_until(as_of), &to);
	ccsift_index_free(w);
	if (rc < 0)
		return rc;
	return ccsift_scorer_operating_point(s->scorer, as_of, op);
}

static JsonNode *to_json(const ccsift_operating_point *op, const char *repo)
{
	g_autoptr(JsonBuilder) b = json_builder_new();
	char date[16];

	json_builder_begin_object(b);
	json_add_string(b, "repo", repo);
	json_add_double(b, "threshold", op->threshold);
	json_add_string(b, "source", op->source);
	json_add_string(b, "model", op->model_until ? "fit" : "prior");
	json_add_string(b, "fitted_until", op->model_until ? ccsift_date_format(op->model_until, date, sizeof(date)) : NULL);
	json_add_int(b, "addressed", op->pairs);
	json_add_int(b, "engaged", op->engaged);
	json_add_int(b, "replied", op->replied);
	json_add_double(b, "repository_threshold", ccsift_logistic(op->model.threshold));
	json_builder_end_object(b);
	return json_builder_get_root(b);
}

static void print_text(const ccsift_operating_point *op, const char *repo)
{
	char since[16], until[16];

	printf("repo: %s\n", repo);
	printf("threshold: %.3f (%s)\n", op->threshold, op->source);
	if (op->model_until)
		printf("model: fitted on %s .. %s (%u cases, %u addressees, %u engaged)\n",
		       ccsift_date_format(op->model.since, since, sizeof(since)),
		       ccsift_date_format(op->model_until, until, sizeof(until)), op->model.cases, op->model.pairs,
		       op->model.engaged);
	else
		printf("model: the prior (too little history here to fit)\n");
	printf("the repository's threshold: %.3f\n", ccsift_logistic(op->model.threshold));
	printf("your addressing history in that window: Cc'd on %u replayed patches, engaged with %u\n",
	       op->pairs, op->engaged);
	printf("patches you replied to or lifted by hand (ccsift tag saw it): %u\n", op->replied);
}

int cmd_calibrate(int argc, char **argv)
{
	common_options o = { 0 };
	gboolean write = FALSE, several;
	GOptionEntry extra[] = {
		{ "write", 0, 0, G_OPTION_ARG_NONE, &write, "Pin the threshold in your config (it is automatic without)", NULL },
		{ NULL }
	};
	g_autofree GOptionEntry *entries = NULL;
	g_autoptr(JsonArray) results = json_array_new();
	session s = { 0 };
	int rc;

	entries = option_entries(&o, OPT_SCORING & ~OPT_THRESHOLD, extra);
	if (!parse_options(&argc, &argv, "", "Show your operating point: the threshold fitted on your own "
			   "addressing history (every replayed patch where get_maintainer.pl --git would have Cc'd "
			   "you, and whether you engaged), which filter, tag and score use when none is configured. "
			   "Without --repo, for each configured repository.", entries))
		return 2;
	if ((rc = session_load_config(&s, &o)) == 0 && (!s.identities || !*s.identities))
		rc = ccsift_error_set(CCSIFT_EINVALID, "who are you? give --me EMAIL or [user] email");
	if (rc < 0) {
		fprintf(stderr, "ccsift calibrate: %s\n", ccsift_error_last());
		goto out;
	}
	several = !o.repo && s.cfg->repos->len > 1;
	for (guint i = 0; i < (several ? s.cfg->repos->len : 1); i++) {
		ccsift_repo_config *repo = several ? s.cfg->repos->pdata[i] : NULL;
		ccsift_operating_point cal = { 0 };
		int err;

		err = repo ? open_configured(&s, &o, repo) : session_open(&s, &o, NULL, TRUE);
		if (err == 0 && (err = calibrate(&s, &cal)) == 0) {
			if (!o.json && several && i > 0)
				printf("\n");
			if (o.json && several)
				json_array_add_element(results, to_json(&cal, s.repo_name));
			else if (o.json)
				print_json(to_json(&cal, s.repo_name));
			else
				print_text(&cal, s.repo_name);
			if (write)
				err = write_threshold(&s, &o, cal.threshold);
		}
		if (err < 0 && repo)
			fprintf(stderr, "ccsift calibrate: [repo %s]: %s\n", repo->name, ccsift_error_last());
		else if (err < 0)
			fprintf(stderr, "ccsift calibrate: %s\n", ccsift_error_last());
		if (err < 0)
			rc = err;
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
