/* cmd-config.c: ccsift config check [--config FILE]
 *
 * Validates a config and says, per [repo] section, what it will match and
 * the state of its index: what a user wants to see before trusting ccsift
 * with their mail.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ccsift.h"
#include "date.h"
#include "error.h"
#include "nm.h"
#include "serve.h"
#include "trust.h"
#include "weights.h"

static void print_list(const char *label, char **items, const char *none)
{
	printf("  %-10s", label);
	if (!items || !*items)
		printf("%s", none);
	for (char **i = items; i && *i; i++)
		printf("%s%s", i == items ? "" : "; ", *i);
	putchar('\n');
}

/* One [repo] section: 0 when usable, 1 when not (the clone or its ref
 * missing; an index not built yet is only a warning). */
/* A configured threshold (with what it is), or what stands in for none. */
static void print_threshold(double threshold, const char *whose, const char *automatic)
{
	if (threshold >= 0)
		printf("  %-10s%.3g%s\n", "threshold", threshold, whose);
	else
		printf("  %-10s%s\n", "threshold", automatic);
}

/* When a delivery brings a behind index up: the catch-up looks once per
 * interval after the last check (core/upkeep.c), not at every delivery. */
static char *catch_up_when(int interval, gint64 checked)
{
	gint64 wait = checked + interval - g_get_real_time() / G_USEC_PER_SEC;

	if (interval <= 0)
		return g_strdup("run: ccsift index");
	if (wait <= 0)
		return g_strdup("catches up on the next delivery");
	return g_strdup_printf("catches up on the first delivery in %" G_GINT64_FORMAT " minute%s "
			       "(catch-up = %d), or run: ccsift index", (wait + 59) / 60, wait > 60 ? "s" : "", interval);
}

static int check_repo(const ccsift_config *cfg, const ccsift_repo_config *rc)
{
	ccsift_repo *repo = NULL;
	ccsift_index *idx = NULL;
	ccsift_upkeep_staleness st;
	g_autofree char *index = NULL, *when = NULL;
	git_oid tip;
	char hex[GIT_OID_HEXSZ + 1];
	int bad = 0;

	printf("[repo %s]\n  %-10s%s\n", rc->name, "path", rc->path);
	if (ccsift_repo_open(&repo, rc->path, rc->ref) < 0) {
		printf("  error:    %s\n", ccsift_error_last());
		return 1;
	}
	if (ccsift_repo_tip(repo, &tip) < 0) {
		printf("  error:    %s\n", ccsift_error_last());
		bad = 1;
	} else {
		printf("  %-10s%s at %.12s\n", "ref", ccsift_repo_ref(repo), git_oid_tostr(hex, sizeof(hex), &tip));
	}
	print_list("list-id", rc->list_ids, "(none: mail whose files this clone has)");
	if (rc->threshold >= 0)
		print_threshold(rc->threshold, "", NULL);
	else
		print_threshold(cfg->threshold, " (the user's)",
				"automatic: yours, fitted on this clone (ccsift calibrate shows it)");
	print_list("always", rc->always, "-");
	print_list("never", rc->never, "-");
	index = rc->index ? g_strdup(rc->index) : ccsift_index_default_path(ccsift_repo_gitdir(repo));
	printf("  %-10s%s\n", "index", index);
	if (repo_config_index_clash(cfg, rc, index) < 0) {
		printf("  error:    %s\n", ccsift_error_last());
		bad = 1;
	}
	if (!g_file_test(index, G_FILE_TEST_EXISTS)) {
		/* Not an error in the config: the next step after writing one. */
		printf("  warning:  no index yet (run: ccsift index --repo %s)\n", rc->name);
	} else if (ccsift_index_open(&idx, index, CCSIFT_INDEX_READ_ONLY) < 0) {
		printf("  error:    %s\n", ccsift_error_last());
		bad = 1;
	} else if (ccsift_upkeep_staleness_get(repo, idx, &st) == 0) {
		g_autofree char *next = catch_up_when(cfg->catch_up, st.updated);

		when = st.updated ? ccsift_ago(st.updated) : g_strdup("never");
		if (strcmp(st.tip, st.indexed) == 0)
			printf("  %-10sup to date, checked %s\n", "", when);
		else if (*st.uncounted)
			printf("  %-10sbehind, how far unknown (%s), checked %s\n", "", st.uncounted, when);
		else
			printf("  %-10s%zu commits behind%s, checked %s; %s\n", "", st.behind,
			       st.rewritten ? " (history rewritten)" : "", when, next);
	}
	ccsift_index_free(idx);
	ccsift_repo_free(repo);
	return bad;
}

static void print_repo_names(const ccsift_config *cfg, gboolean with_lists)
{
	int n = 0;

	for (guint i = 0; i < cfg->repos->len; i++) {
		const ccsift_repo_config *rc = cfg->repos->pdata[i];

		if (with_lists || !rc->list_ids)
			printf("%s[repo %s]", n++ ? ", " : "", rc->name);
	}
	printf("%s\n", n ? "" : "unknown: every [repo] has a list-id");
}

/* The sections a list's mail is offered to: "[repo a]", or "[repo a] or
 * [repo b]" where several claim it, in the order they are asked (one that
 * names the list before the globs matching it; the first wins a tie). A glob is matched as
 * a list id itself: "*.vger.kernel.org" by "*.kernel.org" and by itself. */
static void print_list_route(const ccsift_config *cfg, const char *glob)
{
	g_autoptr(GPtrArray) claimants = ccsift_config_repos_for_list(cfg, glob);

	printf("  List-Id %-28s", glob);
	for (guint i = 0; i < claimants->len; i++)
		printf("%s[repo %s]", i == 0 ? " " : i + 1 < claimants->len ? ", " : " or ", ((ccsift_repo_config *)claimants->pdata[i])->name);
	printf("%s\n", claimants->len > 1 ? ": the one with most of the files the patch changes (of equals, the one with its blobs, else the first)" : "");
}

/* Where mail goes, as session.c's pick_repo decides: each list-id glob to
 * its repositories (of several that match a list, the one with most of
 * the files the patch changes), then mail from other lists and mail with no List-Id
 * to the repositories whose tree has the patch's files. */
static void print_routes(const ccsift_config *cfg)
{
	g_autoptr(GHashTable) shown = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	printf("where mail goes:\n");
	for (guint i = 0; i < cfg->repos->len; i++) {
		const ccsift_repo_config *rc = cfg->repos->pdata[i];

		for (char **g = rc->list_ids; g && *g; g++)
			if (g_hash_table_add(shown, g_ascii_strdown(*g, -1)))
				print_list_route(cfg, *g);
	}
	printf("  %-36s by the patch's files: ", "other lists");
	print_repo_names(cfg, FALSE);
	printf("  %-36s by the patch's files: ", "no List-Id (sent to you)");
	print_repo_names(cfg, TRUE);
	printf("  %-36s unknown, never demoted\n", "files no [repo] has");
}

/*
 * The hook an older ccsift installed stays when ccsift is upgraded (it is
 * a copy in notmuch's hook directory), and nothing else said so. One from
 * before --untag (e3f8474) either left new on every message (before
 * 6010a73: each notmuch new decided all mail since ccsift came again,
 * slower by the day) or took new off mail that arrived while it ran,
 * undecided.
 */
static void check_notmuch_hook(void)
{
	g_auto(GStrv) emails = NULL;
	g_autofree char *dir = NULL, *path = NULL, *text = NULL;

	if (!ccsift_nm_user(&emails, &dir) || !dir)
		return;
	path = g_build_filename(dir, "post-new", NULL);
	if (g_file_get_contents(path, &text, NULL, NULL) && strstr(text, CCSIFT_HOOK_MARK) &&
	    !strstr(text, "--untag"))
		printf("warning: %s is an older ccsift's post-new hook: it leaves new on the mail decided, or takes "
		       "it off mail not decided yet (run: ccsift init --notmuch-hook, which replaces it)\n", path);
}

/* A warning, not a failure: mail filtered by procmail needs no new tag. */
static void check_notmuch(void)
{
	g_autofree char *problem = ccsift_nm_new_tags_problem();

	if (problem)
		printf("warning: %s\n", problem);
	check_notmuch_hook();
}

/* Where deliveries ask a ccsift serve, whether one answers there now, and
 * whether a delivery would start one. */
static void print_server(const ccsift_config *cfg)
{
	g_autofree char *path = serve_socket_path();

	if (!path)
		printf("  %-10snone: no socket (CCSIFT_SOCKET empty, or no XDG_RUNTIME_DIR nor /run/user/%u);"
		       " deliveries decide in-process\n", "server", (unsigned)getuid());
	else if (serve_listening(path))
		printf("  %-10slistening at %s\n", "server", path);
	else if (cfg->start_server)
		printf("  %-10snone listening at %s: a delivery starts one, which stays %d idle seconds\n",
		       "server", path, cfg->start_server);
	else
		printf("  %-10snone listening at %s: deliveries start none (start-server = 0)\n", "server", path);
}

static int config_check(int argc, char **argv)
{
	g_autofree char *config = NULL;
	GOptionEntry entries[] = {
		{ "config", 0, 0, G_OPTION_ARG_FILENAME, &config, "Check FILE instead of the default lookup", "FILE" },
		{ NULL }
	};
	ccsift_config *cfg = NULL;
	g_auto(GStrv) ids = NULL;
	int bad = 0;

	g_set_prgname("ccsift config check");
	if (!parse_options(&argc, &argv, "", "Validate the config and say what each [repo] section will match.",
			   entries))
		return 2;
	if (ccsift_config_load(&cfg, config) < 0) {
		fprintf(stderr, "ccsift config: %s\n", ccsift_error_last());
		return 1;
	}
	printf("%s\n", cfg->file ? cfg->file : "no config file: the built-in defaults");
	ids = ccsift_config_identities(cfg);
	printf("[user]\n");
	print_list("you are", ids, "nobody: set email in [user] (or notmuch's user.primary_email)");
	print_threshold(cfg->threshold, "", "automatic, per repository");
	if (cfg->half_life_given)
		printf("warning: half-life is no longer read: the model was fitted with history decaying by half "
		       "in %.0f days, and scores with that\n", CCSIFT_HALF_LIFE_DAYS);
	printf("  %-10s%d seconds%s\n", "catch-up", cfg->catch_up, cfg->catch_up ? "" : " (off)");
	print_server(cfg);
	if (!ids || !*ids)
		bad = 1;
	check_notmuch();
	if (!cfg->repos->len) {
		printf("warning: no [repo] section: every message will be unknown\n");
	}
	for (guint i = 0; i < cfg->repos->len; i++)
		bad |= check_repo(cfg, cfg->repos->pdata[i]);
	if (cfg->repos->len)
		print_routes(cfg);
	printf("%s\n", bad ? "problems found" : "ok");
	ccsift_config_free(cfg);
	return bad;
}

/* ccsift config names [--config FILE]: the [repo] names, one a line, for
 * shell completion of --repo (not in the usage: not for people). Nothing
 * and status 1 when the config does not load. */
static int config_names(int argc, char **argv)
{
	g_autofree char *config = NULL;
	GOptionEntry entries[] = {
		{ "config", 0, 0, G_OPTION_ARG_FILENAME, &config, "Read FILE instead of the default lookup", "FILE" },
		{ NULL }
	};
	ccsift_config *cfg = NULL;

	g_set_prgname("ccsift config names");
	if (!parse_options(&argc, &argv, "", "The [repo] names of the config, one a line.", entries))
		return 2;
	if (ccsift_config_load(&cfg, config) < 0)
		return 1;
	for (guint i = 0; i < cfg->repos->len; i++) {
		const char *name = ((ccsift_repo_config *)cfg->repos->pdata[i])->name;

		/* One name a line, always: a shell reads them line by line. */
		if (!strpbrk(name, "\n\r"))
			printf("%s\n", name);
	}
	ccsift_config_free(cfg);
	return 0;
}

int cmd_config(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "names") == 0)
		return config_names(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "check") == 0)
		return config_check(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: ccsift config check [--config FILE]\n\n"
		       "   check     validate the config and say what each [repo] section will match\n");
		return 0;
	}
	fprintf(stderr, "usage: ccsift config check [--config FILE]\n");
	return 2;
}
