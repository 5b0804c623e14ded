/* cmd-init.c: ccsift init [--repo DIR]... [--config FILE] [--force] [--dry-run]
 *             ccsift init --notmuch-hook
 *
 * Writes a commented config for the current user and says what to do next:
 * the procmail and maildrop lines are printed for the user to add where
 * they want them. --notmuch-hook installs notmuch's post-new hook, naming
 * this ccsift: notmuch runs hooks with its own PATH, which an editor started
 * from a desktop session may not share with the shell ccsift was found in.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "ccsift.h"
#include "date.h"
#include "error.h"
#include "maintainers.h"
#include "nm.h"
#include "post-new-hook.h"

#ifndef CCSIFT_BINDIR
#define CCSIFT_BINDIR "/usr/bin"
#endif
#ifndef CCSIFT_EXAMPLES_DIR
#define CCSIFT_EXAMPLES_DIR "/usr/share/doc/ccsift/examples"
#endif

/* Where kernel-style developers keep their clones. */
static const char *const clone_dirs[] = { "src", "git", "work", "code", "projects", "dev", "kernel", ".", NULL };

typedef struct {
	GPtrArray *emails;     /* char *, lowercased, unique */
	gboolean notmuch;      /* a notmuch config was found */
	char *hook_dir;        /* notmuch's database.hook_dir */
	GPtrArray *repos;      /* char *: clones to configure */
	GPtrArray *maybe;      /* char *: clones found, left commented out */
} init_state;

/* An identity, as the config takes it (ccsift_config_address): one that
 * is none ("a@x, b@y" in git's user.email) is left out, as the config
 * written would be refused by every command. */
static void add_email(init_state *st, const char *email)
{
	g_autofree char *lower = NULL;

	if (!email || !(lower = ccsift_config_address(email)))
		return;
	for (guint i = 0; i < st->emails->len; i++)
		if (strcmp(st->emails->pdata[i], lower) == 0)
			return;
	g_ptr_array_add(st->emails, g_steal_pointer(&lower));
}

static void read_git_identity(init_state *st)
{
	git_config *cfg = NULL;
	git_buf buf = { 0 };

	ccsift_repo_init();
	if (git_config_open_default(&cfg) < 0)
		return;
	if (git_config_get_string_buf(&buf, cfg, "user.email") == 0)
		add_email(st, buf.ptr);
	git_buf_dispose(&buf);
	git_config_free(cfg);
}

/* user.email as the clone sees it: its own config, or an includeIf of the
 * global one for its directory, gives many a work address for the one clone
 * (the address their commits there carry, which the global one is not). */
static void read_clone_identity(init_state *st, const char *path)
{
	ccsift_repo *repo = NULL;
	git_config *cfg = NULL;
	git_buf buf = { 0 };

	if (ccsift_repo_open(&repo, path, NULL) < 0)
		return;
	if (git_repository_config_snapshot(&cfg, ccsift_repo_git(repo)) == 0 &&
	    git_config_get_string_buf(&buf, cfg, "user.email") == 0)
		add_email(st, buf.ptr);
	git_buf_dispose(&buf);
	git_config_free(cfg);
	ccsift_repo_free(repo);
}

static void read_notmuch(init_state *st)
{
	g_auto(GStrv) emails = NULL;

	st->notmuch = ccsift_nm_user(&emails, &st->hook_dir) && emails && *emails;
	for (char **e = emails; e && *e; e++)
		add_email(st, *e);
}

static gboolean is_clone(const char *dir)
{
	g_autofree char *dotgit = g_build_filename(dir, ".git", NULL);

	return g_file_test(dotgit, G_FILE_TEST_EXISTS);
}

/* Clones in the usual places that have a MAINTAINERS file: the projects
 * where get_maintainer.pl Cc's people. */
static void find_clones(init_state *st)
{
	const char *home = g_get_home_dir();

	for (const char *const *d = clone_dirs; *d; d++) {
		g_autofree char *parent = g_build_filename(home, *d, NULL);
		g_autoptr(GDir) dir = g_dir_open(parent, 0, NULL);
		const char *name;

		while (dir && (name = g_dir_read_name(dir))) {
			g_autofree char *path = g_build_filename(parent, name, NULL);
			g_autofree char *maint = g_build_filename(path, "MAINTAINERS", NULL);

			if (name[0] != '.' && is_clone(path) && g_file_test(maint, G_FILE_TEST_IS_REGULAR) &&
			    !g_ptr_array_find_with_equal_func(st->maybe, path, g_str_equal, NULL))
				g_ptr_array_add(st->maybe, g_steal_pointer(&path));
		}
	}
}

static gboolean ask(const char *question)
{
	char answer[16] = "";

	fprintf(stderr, "%s [Y/n] ", question);
	if (!fgets(answer, sizeof(answer), stdin))
		return FALSE;
	return answer[0] == '\n' || answer[0] == 'y' || answer[0] == 'Y';
}

/* The ref a fetch moves: the remote's default branch, else HEAD. */
static char *upstream_ref(const char *path)
{
	ccsift_repo *repo = NULL;
	git_reference *ref = NULL;
	char *out = NULL;

	if (ccsift_repo_open(&repo, path, NULL) < 0)
		return NULL;
	if (git_reference_lookup(&ref, ccsift_repo_git(repo), "refs/remotes/origin/HEAD") == 0 &&
	    git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC &&
	    g_str_has_prefix(git_reference_symbolic_target(ref), "refs/remotes/"))
		out = g_strdup(git_reference_symbolic_target(ref) + strlen("refs/remotes/"));
	git_reference_free(ref);
	ccsift_repo_free(repo);
	return out;
}

/* A list address MAINTAINERS names, as the List-Id its mail carries:
 * "u-boot@lists.denx.de" is "u-boot.lists.denx.de" (RFC 2919, as mailman,
 * mlmmj and vger write it). The file is the repository's, not the user's:
 * only plain addresses get into the config, nothing that could end the
 * line or the value. NULL if it is not one. */
static char *list_id_of(const char *value)
{
	g_autofree char *addr = g_strndup(value, strcspn(value, " \t"));
	const char *at = strchr(addr, '@');

	if (!at || at == addr || !at[1] || strchr(at + 1, '@'))
		return NULL;
	for (const char *c = addr; *c; c++)
		if (!g_ascii_isalnum(*c) && !strchr("._+-@", *c))
			return NULL;
	*strchr(addr, '@') = '.';
	return g_ascii_strdown(addr, -1);
}

static gint by_count(gconstpointer a, gconstpointer b, gpointer counts)
{
	guint ca = GPOINTER_TO_UINT(g_hash_table_lookup(counts, *(char **)a));
	guint cb = GPOINTER_TO_UINT(g_hash_table_lookup(counts, *(char **)b));

	return ca > cb ? -1 : ca < cb;
}

/* The List-Ids of the lists in MAINTAINERS' L: lines at the ref, the most
 * named first: mail from them is this clone's. NULL when there are none. */
static GPtrArray *maintainers_lists(ccsift_repo *repo)
{
	g_autoptr(GBytes) blob = ccsift_repo_read_file(repo, "MAINTAINERS");
	g_autoptr(GHashTable) counts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autofree char *copy = NULL;
	g_auto(GStrv) lines = NULL;
	GPtrArray *ids;

	if (!blob)
		return NULL;
	copy = ccsift_maintainers_text(blob);
	lines = g_strsplit(copy, "\n", -1);
	ids = g_ptr_array_new();
	for (char **l = lines; *l; l++) {
		g_autofree char *id = NULL;
		guint n;

		if (strncmp(*l, "L:", 2) != 0 || !(id = list_id_of(*l + 2 + strspn(*l + 2, " \t"))))
			continue;
		n = GPOINTER_TO_UINT(g_hash_table_lookup(counts, id));
		if (!n)
			g_ptr_array_add(ids, g_strdup(id));
		g_hash_table_insert(counts, g_steal_pointer(&id), GUINT_TO_POINTER(n + 1));
	}
	g_ptr_array_sort_with_data(ids, by_count, counts);
	g_ptr_array_set_free_func(ids, g_free);
	if (!ids->len)
		g_clear_pointer(&ids, g_ptr_array_unref);
	return ids;
}

/*
 * The [repo] name of the clone at path: the last component of its path
 * (of its work tree for a ".git"), else, when an earlier section has that
 * name (~/src/linux and ~/stable/linux), the last two joined by a dash,
 * else with a number: two sections of one name are refused (GKeyFile
 * would make them one, the first clone gone).
 */
static char *repo_name(const char *path, GHashTable *used)
{
	g_autofree char *base = g_path_get_basename(path);
	g_autofree char *dir = g_path_get_dirname(path);
	g_autofree char *parent = NULL;
	char *name;

	if (strcmp(base, ".git") == 0 && strcmp(dir, "/") != 0 && strcmp(dir, ".") != 0) {
		g_autofree char *up = g_path_get_dirname(dir);

		g_free(base);
		base = g_path_get_basename(dir);
		g_free(dir);
		dir = g_steal_pointer(&up);
	}
	parent = g_path_get_basename(dir);
	name = g_strdup(base);
	if (g_hash_table_contains(used, name) && strcmp(parent, "/") != 0 && strcmp(parent, ".") != 0) {
		g_free(name);
		name = g_strdup_printf("%s-%s", parent, base);
	}
	for (int n = 2; g_hash_table_contains(used, name); n++) {
		g_free(name);
		name = g_strdup_printf("%s-%d", base, n);
	}
	g_hash_table_add(used, g_strdup(name));
	return name;
}

static void write_repo(GString *c, const char *path, const char *name, gboolean active)
{
	const char *hash = active ? "" : "#";
	g_autofree char *ref = upstream_ref(path);
	g_autoptr(GPtrArray) lists = NULL;
	ccsift_repo *repo = NULL;

	if (ccsift_repo_open(&repo, path, ref) == 0)
		lists = maintainers_lists(repo);
	ccsift_repo_free(repo);
	g_string_append_printf(c, "\n%s[repo %s]\n%spath = %s\n", hash, name, hash, path);
	if (ref)
		g_string_append_printf(c, "# What `git fetch` moves; your work tree's HEAD may be a topic branch.\n"
				       "%sref = %s\n", hash, ref);
	else
		g_string_append(c, "# The ref to read (default: HEAD), best the one `git fetch` moves.\n"
				   "#ref = origin/master\n");
	if (lists) {
		/* What pick_repo in session.c does, as ccsift-config(5) says it. */
		g_string_append_printf(c, "# Mail from these lists (the L: lines of its MAINTAINERS) is for this\n"
				       "# clone when it has a file the patch changes; mail from other lists\n"
				       "# never is, mail sent to you (no List-Id) when it has the patch's files.\n"
				       "%slist-id = ", hash);
		for (guint i = 0; i < lists->len; i++)
			g_string_append_printf(c, "%s%s", i ? "; " : "", (char *)lists->pdata[i]);
		g_string_append_c(c, '\n');
	} else {
		g_string_append(c, "# Mail from these lists (List-Id globs) is for this clone; without it,\n"
				   "# mail whose files this clone has.\n#list-id = *.lists.example.org\n");
	}
	g_string_append(c, "# Demote below this probability here (default: [user] threshold, or yours).\n"
			   "#threshold = 0.05\n"
			   "# Patches to these paths are always relevant; history on these never counts.\n"
			   "#always = drivers/net/phy/*\n#never = Documentation/*\n");
}

/* A section for each clone of clones not written yet (one given twice is
 * one section), named apart from those written. */
static void write_repos(GString *c, GPtrArray *clones, gboolean active, GHashTable *paths, GHashTable *used)
{
	for (guint i = 0; i < clones->len; i++) {
		g_autofree char *name = NULL;

		if (!g_hash_table_add(paths, clones->pdata[i]))
			continue;
		name = repo_name(clones->pdata[i], used);
		write_repo(c, clones->pdata[i], name, active);
	}
}

static char *make_config(init_state *st)
{
	GString *c = g_string_new(NULL);
	g_autoptr(GHashTable) used = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable) paths = g_hash_table_new(g_str_hash, g_str_equal);
	char today[16];

	g_string_append_printf(c, "# ccsift configuration; see ccsift-config(5).\n"
			       "# Written by `ccsift init` on %s. Check it with `ccsift config check`.\n\n[user]\n",
			       ccsift_date_format(g_get_real_time() / G_USEC_PER_SEC, today, sizeof(today)));
	g_string_append(c, "# Your addresses as git history knows them (from git config user.email,\n"
			   "# each clone's own too, and notmuch's user.primary_email and\n"
			   "# user.other_email).\n");
	if (st->emails->len) {
		g_string_append(c, "email = ");
		for (guint i = 0; i < st->emails->len; i++)
			g_string_append_printf(c, "%s%s", i ? "; " : "", (char *)st->emails->pdata[i]);
		g_string_append_c(c, '\n');
	} else {
		g_string_append(c, "# none found: add yours\nemail = you@example.org\n");
	}
	g_string_append_printf(c, "# Also use notmuch's identities at run time.\nnotmuch = %s\n",
			       st->notmuch ? "true" : "false");
	g_string_append(c, "# Demote Cc'd patches less likely than this (a probability) to get your\n"
			"# review. Without it, your own operating point, fitted on your history:\n"
			"# `ccsift calibrate` shows it, `ccsift calibrate --write` pins it here.\n"
			"#threshold = 0.05\n");
	g_string_append_printf(c, "# Seconds between checks that a clone's ref moved (its index then catches up).\n"
			       "catch-up = %d\n", CCSIFT_DEFAULT_CATCH_UP);
	g_string_append_printf(c, "# A delivery that finds no ccsift serve starts one, which decides the next\n"
			       "# ones in a fraction of the time and exits after this many idle seconds\n"
			       "# (0: never start one).\nstart-server = %d\n", CCSIFT_DEFAULT_START_SERVER);
	write_repos(c, st->repos, TRUE, paths, used);
	if (st->maybe->len)
		g_string_append(c, "\n# Clones found that you did not choose; uncomment to use.\n");
	write_repos(c, st->maybe, FALSE, paths, used);
	if (!st->repos->len && !st->maybe->len)
		g_string_append(c, "\n# No clone found: add one.\n# [repo linux]\n# path = ~/src/linux\n");
	g_string_append(c, "\n[notmuch]\n# Tags `ccsift tag` sets per verdict.\nlow = +lowcc -inbox\n"
			   "# Seconds to wait for the database's write lock.\nlock-timeout = 30\n");
	return g_string_free(c, FALSE);
}

static int write_config(const char *path, const char *text)
{
	g_autofree char *dir = g_path_get_dirname(path);
	g_autoptr(GError) err = NULL;

	if (g_mkdir_with_parents(dir, 0700) < 0)
		return ccsift_error_set(CCSIFT_EIO, "cannot create %s: %s", dir, g_strerror(errno));
	/* Mode 0666 less the umask, as any file the user creates. */
	if (!g_file_set_contents_full(path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0666, &err))
		return ccsift_error_set(CCSIFT_EIO, "%s", err->message);
	return 0;
}

/* This ccsift, by its absolute path: procmail's PATH is
 * $HOME/bin:/usr/local/bin:/usr/bin:/bin and maildrop's /bin:/usr/bin:/usr/local/bin,
 * so an install under another prefix is not found there and every message
 * is deferred. */
static char *this_program(void)
{
	g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);

	if (self && g_path_is_absolute(self) && !g_str_has_suffix(self, " (deleted)"))
		return g_steal_pointer(&self);
	return g_build_filename(CCSIFT_BINDIR, "ccsift", NULL);
}

/* The installed recipes, next to this ccsift: `cmake --install --prefix P`
 * puts them under P whatever prefix the build was configured with. */
static char *examples_dir(const char *self)
{
#ifdef CCSIFT_EXAMPLES_FROM_BINDIR
	g_autofree char *bindir = g_path_get_dirname(self);
	g_autofree char *near = g_build_filename(bindir, CCSIFT_EXAMPLES_FROM_BINDIR, NULL);
	g_autofree char *canonical = g_canonicalize_filename(near, NULL);

	if (g_file_test(canonical, G_FILE_TEST_IS_DIR))
		return g_steal_pointer(&canonical);
#endif
	return g_strdup(CCSIFT_EXAMPLES_DIR);
}

/* The line of the hook that names the ccsift it runs. */
#define HOOK_CCSIFT_LINE "CCSIFT=${CCSIFT:-ccsift}\n"

/* The shipped hook, running self unless the environment names another ccsift. */
static char *hook_text(const char *self)
{
	const char *at = strstr(notmuch_post_new_hook, HOOK_CCSIFT_LINE);
	g_autofree char *quoted = g_shell_quote(self);

	g_assert(at);  /* contrib/notmuch/post-new keeps the line */
	return g_strdup_printf("%.*sCCSIFT=${CCSIFT:-%s}\n%s", (int)(at - notmuch_post_new_hook), notmuch_post_new_hook,
			       quoted, at + strlen(HOOK_CCSIFT_LINE));
}

/* Install the hook in notmuch's hook directory. Another post-new hook
 * there is the user's: it stays, and they are told how to call ours. */
static int install_notmuch_hook(const char *self)
{
	g_auto(GStrv) emails = NULL;
	g_autofree char *dir = NULL, *path = NULL, *text = hook_text(self), *old = NULL;
	g_autoptr(GError) err = NULL;

	if (!ccsift_nm_user(&emails, &dir) || !dir)
		return ccsift_error_set(CCSIFT_ENOTFOUND, "notmuch has no hook directory yet: run notmuch setup "
					"and a first notmuch new, then this again");
	path = g_build_filename(dir, "post-new", NULL);
	if (g_file_get_contents(path, &old, NULL, NULL) && !strstr(old, CCSIFT_HOOK_MARK))
		return ccsift_error_set(CCSIFT_EINVALID, "%s is a hook of your own: keep it and run ccsift's from it "
					"(see the comment in contrib/notmuch/post-new), or move it away", path);
	if (old && strcmp(old, text) == 0) {
		printf("%s is installed and runs %s.\n", path, self);
		return 0;
	}
	if (g_mkdir_with_parents(dir, 0755) < 0)
		return ccsift_error_set(CCSIFT_EIO, "cannot create %s: %s", dir, g_strerror(errno));
	if (!g_file_set_contents_full(path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0755, &err))
		return ccsift_error_set(CCSIFT_EIO, "%s", err->message);
	printf("Installed %s: after each notmuch new, %s tag decides the new mail.\n", path, self);
	return 0;
}

/* The hook decides tag:new: say now when notmuch will never set it, and
 * how to decide the mail notmuch already has. */
static void print_notmuch_setup(void)
{
	g_autofree char *problem = ccsift_nm_new_tags_problem();

	if (problem)
		printf("  Before the notmuch hook: %s\n", problem);
	printf("  Mail already in notmuch: ccsift tag --query '*' decides it once (the hook then takes new mail).\n");
}

static void print_next_steps(const init_state *st, const char *path)
{
	g_autofree char *self = this_program();
	g_autofree char *examples = examples_dir(self);
	g_autofree char *check = g_strdup_printf("ccsift config check%s%s", path ? " --config " : "", path ? path : "");

	printf("Next:\n"
	       "  1. %-32s what each [repo] will match\n"
	       "  2. %-32s index every clone (minutes for a big one)\n"
	       "  3. %-32s the threshold fitted for you (automatic; nothing to set)\n"
	       "  4. filter mail through ccsift, one of:\n"
	       "     ~/.procmailrc:  CCSIFT=%s\n"
	       "                     INCLUDERC=%s/procmailrc\n"
	       "     ~/.mailfilter:  CCSIFT=\"%s\"\n"
	       "                     include \"%s/maildrop-filter\"\n"
	       "     notmuch:        %s init --notmuch-hook%s\n"
	       "  5. systemctl --user enable --now ccsift-index.timer   (optional: hourly index updates)\n",
	       check, "ccsift index", "ccsift calibrate", self, examples, self, examples, self,
	       st->hook_dir ? "" : "   (after a first notmuch new)");
	print_notmuch_setup();
}

int cmd_init(int argc, char **argv)
{
	g_auto(GStrv) repos = NULL;
	g_autofree char *config = NULL, *text = NULL, *path = NULL;
	gboolean force = FALSE, dry_run = FALSE, notmuch_hook = FALSE;
	GOptionEntry entries[] = {
		{ "notmuch-hook", 0, 0, G_OPTION_ARG_NONE, &notmuch_hook, "Install notmuch's post-new hook, "
		  "running this ccsift, and nothing else", NULL },
		{ "repo", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &repos, "A clone to configure (repeatable)", "DIR" },
		{ "config", 0, 0, G_OPTION_ARG_FILENAME, &config, "Write FILE instead of $XDG_CONFIG_HOME/ccsift/config", "FILE" },
		{ "force", 0, 0, G_OPTION_ARG_NONE, &force, "Overwrite an existing config", NULL },
		{ "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run, "Print the config instead of writing it", NULL },
		{ NULL }
	};
	init_state st = { 0 };
	int rc = 0;

	if (!parse_options(&argc, &argv, "", "Write a commented config for you and print the lines to add "
			   "for procmail or maildrop; with --notmuch-hook, install notmuch's post-new hook.", entries))
		return 2;
	if (notmuch_hook) {
		g_autofree char *self = this_program();

		if (repos || config || force || dry_run) {
			fprintf(stderr, "ccsift init: --notmuch-hook takes no other option\n");
			return 2;
		}
		if (install_notmuch_hook(self) < 0) {
			fprintf(stderr, "ccsift init: %s\n", ccsift_error_last());
			return 1;
		}
		return 0;
	}
	path = config ? g_strdup(config) : g_build_filename(g_get_user_config_dir(), "ccsift", "config", NULL);
	if (!dry_run && !force && g_file_test(path, G_FILE_TEST_EXISTS)) {
		fprintf(stderr, "ccsift init: %s exists; --force overwrites it, --dry-run shows what would be written\n", path);
		return 1;
	}
	st.emails = g_ptr_array_new_with_free_func(g_free);
	st.repos = g_ptr_array_new_with_free_func(g_free);
	st.maybe = g_ptr_array_new_with_free_func(g_free);
	read_git_identity(&st);
	read_notmuch(&st);
	for (char **r = repos; r && *r; r++) {
		g_autofree char *abs = g_canonicalize_filename(*r, NULL);

		if (!is_clone(abs) && !g_str_has_suffix(abs, ".git")) {
			fprintf(stderr, "ccsift init: %s is not a git clone\n", *r);
			rc = 1;
			goto out;
		}
		g_ptr_array_add(st.repos, g_steal_pointer(&abs));
	}
	if (!repos) {
		find_clones(&st);
		/* On a terminal, ask; otherwise leave them commented out. */
		for (guint i = 0; isatty(0) && isatty(2) && i < st.maybe->len;) {
			g_autofree char *q = g_strdup_printf("Use %s?", (char *)st.maybe->pdata[i]);

			if (ask(q))
				g_ptr_array_add(st.repos, g_ptr_array_steal_index(st.maybe, i));
			else
				i++;
		}
	}
	for (guint i = 0; i < st.repos->len; i++)
		read_clone_identity(&st, st.repos->pdata[i]);
	text = make_config(&st);
	if (dry_run) {
		fputs(text, stdout);
		goto out;
	}
	if (write_config(path, text) < 0) {
		fprintf(stderr, "ccsift init: %s\n", ccsift_error_last());
		rc = 1;
		goto out;
	}
	printf("Wrote %s: %u identit%s, %u clone%s%s.\n", path, st.emails->len, st.emails->len == 1 ? "y" : "ies",
	       st.repos->len, st.repos->len == 1 ? "" : "s",
	       st.maybe->len ? " (more found, commented out)" : "");
	print_next_steps(&st, config);
out:
	g_ptr_array_unref(st.emails);
	g_ptr_array_unref(st.repos);
	g_ptr_array_unref(st.maybe);
	g_free(st.hook_dir);
	return rc;
}
