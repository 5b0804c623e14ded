/* config.c: GKeyFile settings with errors that say where. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nm.h"
#include "config.h"
#include "trust.h"
#include "error.h"
#include "score.h"

ccsift_config *ccsift_config_new_default(void)
{
	ccsift_config *cfg = g_new0(ccsift_config, 1);

	cfg->use_notmuch = TRUE;
	cfg->threshold = CCSIFT_DEFAULT_THRESHOLD;
	cfg->to_is_relevant = TRUE;
	cfg->catch_up = CCSIFT_DEFAULT_CATCH_UP;
	cfg->start_server = CCSIFT_DEFAULT_START_SERVER;
	cfg->repos = g_ptr_array_new();
	cfg->tag_ops[CCSIFT_VERDICT_LOW] = g_strsplit("+lowcc -inbox", " ", -1);
	for (int v = 0; v < 4; v++)
		if (!cfg->tag_ops[v])
			cfg->tag_ops[v] = g_new0(char *, 1);
	cfg->lock_timeout = 30;
	return cfg;
}

static void repo_config_free(ccsift_repo_config *r)
{
	g_free(r->name);
	g_free(r->path);
	g_free(r->ref);
	g_free(r->index);
	g_strfreev(r->list_ids);
	g_strfreev(r->always);
	g_strfreev(r->never);
	g_free(r);
}

void ccsift_config_free(ccsift_config *cfg)
{
	if (!cfg)
		return;
	g_free(cfg->file);
	g_strfreev(cfg->emails);
	for (guint i = 0; i < cfg->repos->len; i++)
		repo_config_free(cfg->repos->pdata[i]);
	g_ptr_array_unref(cfg->repos);
	for (int v = 0; v < 4; v++)
		g_strfreev(cfg->tag_ops[v]);
	g_free(cfg);
}

/* The line of "key =" inside [group], for error messages; 0 if unknown. */
static int line_of(const char *text, const char *group, const char *key)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	gboolean in_group = group == NULL;

	for (int i = 0; lines[i]; i++) {
		char *l = g_strstrip(lines[i]);

		if (l[0] == '[') {
			g_autofree char *g = g_strndup(l + 1, strcspn(l + 1, "]"));
			in_group = group && strcmp(g, group) == 0;
			if (!key && in_group)
				return i + 1;
		} else if (in_group && key && g_str_has_prefix(l, key)) {
			const char *rest = l + strlen(key);

			while (*rest == ' ' || *rest == '\t')
				rest++;
			if (*rest == '=')
				return i + 1;
		} else if (!group && !key && strstr(text, l)) {
			return 0;
		}
	}
	return 0;
}

typedef struct {
	const char *file;
	const char *text;
	GKeyFile *kf;
	int rc;
} loader;

static void fail(loader *ld, const char *group, const char *key, const char *what)
{
	if (ld->rc)
		return;
	ld->rc = ccsift_error_set(CCSIFT_EINVALID, "%s:%d: [%s] %s: %s", ld->file,
				  line_of(ld->text, group, key), group, key, what);
}

static double get_double(loader *ld, const char *group, const char *key, double dflt, double min, double max)
{
	g_autofree char *raw = g_key_file_get_value(ld->kf, group, key, NULL);
	char *end;
	double v;

	if (!raw)
		return dflt;
	v = g_ascii_strtod(g_strstrip(raw), &end);
	/* Written so that NaN, for which every comparison is false, fails too. */
	if (end == raw || *end || !(v >= min && v <= max)) {
		g_autofree char *msg = g_strdup_printf("'%s' is not a number from %g to %g", raw, min, max);
		fail(ld, group, key, msg);
		return dflt;
	}
	return v;
}

/*
 * threshold: a probability under 1. At 1 every Cc'd patch is low whatever
 * its score, which nobody means; but `ccsift init` of model version 1
 * wrote "threshold = 1.0", its default score threshold, and such a config
 * read as a probability demoted all of its user's mail without a word.
 */
static double get_threshold(loader *ld, const char *group, double dflt)
{
	double v = get_double(ld, group, "threshold", dflt, 0, 1);

	if (v < 1)
		return v;
	fail(ld, group, "threshold", "1 demotes every patch; a threshold is a probability under 1 "
	     "(1.0 is the score threshold ccsift init wrote before model version 2: remove the line "
	     "for your own)");
	return dflt;
}

static gboolean get_bool(loader *ld, const char *group, const char *key, gboolean dflt)
{
	g_autoptr(GError) err = NULL;
	gboolean v;

	if (!g_key_file_has_key(ld->kf, group, key, NULL))
		return dflt;
	v = g_key_file_get_boolean(ld->kf, group, key, &err);
	if (err) {
		fail(ld, group, key, "expected true or false");
		return dflt;
	}
	return v;
}

static char **get_list(loader *ld, const char *group, const char *key)
{
	char **v = g_key_file_get_string_list(ld->kf, group, key, NULL, NULL);

	for (char **p = v; p && *p; p++)
		g_strstrip(*p);
	return v;
}

/* Is the name before an <address> a name, and no more? Nothing but
 * space after the '>', and no other address before the '<' outside a
 * quoted name: "Jane <j@x>, k@y" is two addresses, and one was dropped. */
static gboolean name_only(const char *value, const char *lt, const char *gt)
{
	gboolean quoted = FALSE;

	for (const char *c = gt + 1; *c; c++)
		if (!g_ascii_isspace(*c))
			return FALSE;
	for (const char *c = value; c < lt; c++) {
		if (*c == '"')
			quoted = !quoted;
		else if (*c == '\\' && quoted && c[1])
			c++;
		else if (!quoted && strchr("<>@", *c))
			return FALSE;
	}
	return TRUE;
}

/* (Not GMime's address parser: commands that never load GMime read the
 * config, index and config check among them, and a value is one address,
 * not a header: "Typo, Carol <c@x>" is Carol's, where a header's parser
 * reads two.) */
char *ccsift_config_address(const char *value)
{
	const char *lt = strrchr(value, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	g_autofree char *a = lt && gt ? g_strndup(lt + 1, gt - lt - 1) : g_strdup(value);
	const char *at;

	if (lt && gt && !name_only(value, lt, gt))
		return NULL;
	g_strstrip(a);
	at = strchr(a, '@');
	if (!at || at == a || !at[1] || strchr(at + 1, '@') || a[strcspn(a, " \t<>\",;")])
		return NULL;
	return g_ascii_strdown(a, -1);
}

/* The addresses of email, each as mail and history carry it: "Jane Doe
 * <jane@example.org>", as git and mail write one, is jane@example.org
 * (taken whole, it was an identity no mail or commit has, and every
 * patch was "not on Cc"); what is no address at all is refused. */
static char **get_emails(loader *ld, const char *group)
{
	char **v = get_list(ld, group, "email");

	for (char **p = v; p && *p; p++) {
		char *a = **p ? ccsift_config_address(*p) : g_strdup("");  /* "a@b;;c@d" */

		if (!a) {
			g_autofree char *msg = g_strdup_printf("'%s' is not an email address (such as jane@example.org)",
							       *p);
			fail(ld, group, "email", msg);
			break;
		}
		g_free(*p);
		*p = a;
	}
	return v;
}

static char *get_path(loader *ld, const char *group, const char *key)
{
	g_autofree char *v = g_key_file_get_string(ld->kf, group, key, NULL);

	if (!v)
		return NULL;
	g_strstrip(v);
	if (v[0] == '~' && (v[1] == '/' || !v[1]))
		return g_build_filename(g_get_home_dir(), v + 1, NULL);
	/* Relative to the config's directory, as git's include.path: the same
	 * clone wherever a command runs (a server started elsewhere, cron). */
	if (*v && !g_path_is_absolute(v)) {
		g_autofree char *cwd = g_get_current_dir();
		g_autofree char *dir = g_path_get_dirname(ld->file);
		g_autofree char *base = g_canonicalize_filename(dir, cwd);

		return g_canonicalize_filename(v, base);
	}
	return g_steal_pointer(&v);
}

static const char *const user_keys[] = { "email", "notmuch", "threshold", "half-life", "to-is-relevant",
					  "catch-up", "start-server", NULL };
static const char *const notmuch_keys[] = { "low", "relevant", "not-a-patch", "unknown", "lock-timeout",
					    "trust-filter-header", NULL };
static const char *const repo_keys[] = { "path", "ref", "index", "list-id", "threshold", "always", "never", NULL };

/* Levenshtein distance of two short keys, as git's "did you mean". */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t n = strlen(b);
	g_autofree unsigned *row = g_new(unsigned, n + 1);

	for (size_t j = 0; j <= n; j++)
		row[j] = j;
	for (size_t i = 1; a[i - 1]; i++) {
		unsigned diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= n; j++) {
			unsigned up = row[j];

			row[j] = MIN(MIN(row[j] + 1, row[j - 1] + 1), diag + (a[i - 1] != b[j - 1]));
			diag = up;
		}
	}
	return row[n];
}

/* The known key nearest a misspelt one, if near enough to be meant. */
static const char *nearest_key(const char *key, const char *const *known)
{
	const char *best = NULL;
	unsigned best_d = 3;

	if (strlen(key) > 64)
		return NULL;
	for (const char *const *k = known; *k; k++) {
		unsigned d = edit_distance(key, *k);

		if (d < best_d)
			best = *k, best_d = d;
	}
	return best;
}

static void check_keys(loader *ld, const char *group, const char *const *known)
{
	g_auto(GStrv) keys = g_key_file_get_keys(ld->kf, group, NULL, NULL);

	for (char **k = keys; k && *k; k++) {
		const char *near;
		g_autofree char *msg = NULL;

		if (g_strv_contains(known, *k))
			continue;
		near = nearest_key(*k, known);
		msg = near ? g_strdup_printf("unknown key; did you mean '%s'?", near) : g_strdup("unknown key");
		fail(ld, group, *k, msg);
	}
}

/*
 * list-id: List-Id globs. A list's address, as MAINTAINERS' L: lines and
 * mail clients show it (linux-xfs@vger.kernel.org), or an id in its
 * brackets (<u-boot.lists.denx.de>), is taken for the id it names
 * (linux-xfs.vger.kernel.org), as init does: no List-Id has an "@" or a
 * bracket, and such a glob matched no mail, every message of the list
 * unknown. A space or a "#" cannot be in one either: a comment after the
 * value is part of it, and is refused, as it matched nothing.
 */
static char **get_list_ids(loader *ld, const char *group)
{
	char **v = get_list(ld, group, "list-id");

	for (char **p = v; p && *p; p++) {
		char *g = *p, *at;
		size_t n = strlen(g);

		if (n >= 2 && g[0] == '<' && g[n - 1] == '>') {
			memmove(g, g + 1, n - 2);
			g[n - 2] = '\0';
		}
		if ((at = strchr(g, '@')) && !strchr(at + 1, '@'))
			*at = '.';
		if (!*g || g[strcspn(g, " \t#<>@\"")]) {
			g_autofree char *msg = g_strdup_printf("'%s' is not a List-Id glob (such as "
							       "u-boot.lists.denx.de or *.vger.kernel.org; a "
							       "comment is a line of its own)", g);
			fail(ld, group, "list-id", msg);
			break;
		}
	}
	return v;
}

static void load_repo(loader *ld, ccsift_config *cfg, const char *group)
{
	ccsift_repo_config *r = g_new0(ccsift_repo_config, 1);

	r->name = g_strstrip(g_strdup(group + 4));
	r->path = get_path(ld, group, "path");
	if ((r->ref = g_key_file_get_string(ld->kf, group, "ref", NULL)))
		g_strstrip(r->ref);
	r->index = get_path(ld, group, "index");
	r->list_ids = get_list_ids(ld, group);
	r->always = get_list(ld, group, "always");
	r->never = get_list(ld, group, "never");
	r->threshold = get_threshold(ld, group, -1);
	check_keys(ld, group, repo_keys);
	if (!r->path)
		fail(ld, group, "path", "missing: where is the clone?");
	g_ptr_array_add(cfg->repos, r);
}

/* "+lowcc -inbox": tag operations, each a sign and a tag. */
static char **get_tag_ops(loader *ld, const char *group, const char *key, char **dflt)
{
	g_autofree char *raw = g_key_file_get_value(ld->kf, group, key, NULL);
	g_auto(GStrv) words = NULL;
	GPtrArray *ops;

	if (!raw)
		return dflt;
	words = g_strsplit_set(g_strstrip(raw), " \t", -1);
	ops = g_ptr_array_new();
	for (char **w = words; *w; w++) {
		if (!**w)
			continue;
		if ((**w != '+' && **w != '-') || !(*w)[1] || strlen(*w) > 200) {
			fail(ld, group, key, "expected tag operations such as +lowcc -inbox");
			break;
		}
		g_ptr_array_add(ops, g_strdup(*w));
	}
	g_ptr_array_add(ops, NULL);
	g_strfreev(dflt);
	return (char **)g_ptr_array_free(ops, FALSE);
}

static void load_notmuch(loader *ld, ccsift_config *cfg, const char *group)
{
	static const char *const verdict_keys[4] = { "unknown", "not-a-patch", "relevant", "low" };

	for (int v = 0; v < 4; v++)
		cfg->tag_ops[v] = get_tag_ops(ld, group, verdict_keys[v], cfg->tag_ops[v]);
	cfg->lock_timeout = (int)get_double(ld, group, "lock-timeout", 30, 0, 86400);
	cfg->trust_filter_header = get_bool(ld, group, "trust-filter-header", FALSE);
	check_keys(ld, group, notmuch_keys);
}

/*
 * Two [repo] sections of one name: GKeyFile makes one of them, the keys of
 * the second replacing the first's (two clones named after their last
 * component, ~/src/linux and ~/stable/linux, left one). An error, naming
 * both lines; "[repo linux ]" is the same name, as load_repo strips it.
 */
static int check_repo_names(const char *file, const char *text)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (int i = 0; lines[i]; i++) {
		char *l = lines[i];
		g_autofree char *name = NULL;
		gpointer first;

		while (*l == ' ' || *l == '\t')
			l++;
		if (*l != '[' || !g_str_has_prefix(l + 1, "repo ") || !strchr(l, ']'))
			continue;
		name = g_strndup(l + 6, strchr(l, ']') - (l + 6));
		g_strstrip(name);
		if ((first = g_hash_table_lookup(seen, name)))
			return ccsift_error_set(CCSIFT_EINVALID, "%s:%d: [repo %s] again (first at line %d): "
						"give each [repo] a name of its own", file, i + 1, name,
						GPOINTER_TO_INT(first));
		g_hash_table_insert(seen, g_steal_pointer(&name), GINT_TO_POINTER(i + 1));
	}
	return 0;
}

static int parse(ccsift_config *cfg, const char *file, const char *text, size_t len)
{
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_autoptr(GError) err = NULL;
	g_auto(GStrv) groups = NULL;
	loader ld = { file, text, kf, 0 };
	int rc;

	if (!g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, &err))
		return ccsift_error_set(CCSIFT_EINVALID, "%s: %s", file, err->message);
	if ((rc = check_repo_names(file, text)) < 0)
		return rc;
	groups = g_key_file_get_groups(kf, NULL);
	for (char **g = groups; *g; g++) {
		if (strcmp(*g, "user") == 0) {
			cfg->emails = get_emails(&ld, *g);
			cfg->use_notmuch = get_bool(&ld, *g, "notmuch", TRUE);
			cfg->threshold = get_threshold(&ld, *g, CCSIFT_DEFAULT_THRESHOLD);
			/* Checked as ever, no longer used: the model owns its decay. */
			cfg->half_life_given = get_double(&ld, *g, "half-life", -1, 1, 36500) >= 0;
			cfg->to_is_relevant = get_bool(&ld, *g, "to-is-relevant", TRUE);
			cfg->catch_up = (int)get_double(&ld, *g, "catch-up", CCSIFT_DEFAULT_CATCH_UP, 0, 86400 * 7);
			cfg->start_server = (int)get_double(&ld, *g, "start-server", CCSIFT_DEFAULT_START_SERVER,
							    0, 1000000);
			check_keys(&ld, *g, user_keys);
		} else if (strcmp(*g, "notmuch") == 0) {
			load_notmuch(&ld, cfg, *g);
		} else if (g_str_has_prefix(*g, "repo ") && (*g)[5]) {
			load_repo(&ld, cfg, *g);
		} else {
			ld.rc = ccsift_error_set(CCSIFT_EINVALID, "%s:%d: unknown section [%s]"
						 " (expected [user], [notmuch] or [repo NAME])",
						 file, line_of(text, *g, NULL), *g);
		}
		if (ld.rc)
			break;
	}
	return ld.rc;
}

int ccsift_config_load(ccsift_config **out, const char *path)
{
	g_autofree char *user = g_build_filename(g_get_user_config_dir(), "ccsift", "config", NULL);
	const char *file = path;
	g_autofree char *text = NULL;
	g_autoptr(GError) err = NULL;
	ccsift_config *cfg = ccsift_config_new_default();
	gsize len;
	int rc;

	*out = NULL;
	if (!file)
		file = g_file_test(user, G_FILE_TEST_EXISTS) ? user :
		       g_file_test("/etc/ccsift/config", G_FILE_TEST_EXISTS) ? "/etc/ccsift/config" : NULL;
	if (!file) {
		*out = cfg;
		return 0;
	}
	if (g_file_test(file, G_FILE_TEST_EXISTS) && (rc = ccsift_trust_check(file, "config")) < 0) {
		ccsift_config_free(cfg);
		return rc;
	}
	if (!g_file_get_contents(file, &text, &len, &err)) {
		ccsift_config_free(cfg);
		return ccsift_error_set(CCSIFT_ENOTFOUND, "cannot read config %s: %s", file, err->message);
	}
	if ((rc = parse(cfg, file, text, len)) < 0) {
		ccsift_config_free(cfg);
		return rc;
	}
	cfg->file = g_strdup(file);
	*out = cfg;
	return 0;
}

static void add_unique(GPtrArray *out, const char *email)
{
	g_autofree char *lower = NULL;

	if (!email || !*email)
		return;
	lower = g_ascii_strdown(email, -1);
	for (guint i = 0; i < out->len; i++)
		if (strcmp(out->pdata[i], lower) == 0)
			return;
	g_ptr_array_add(out, g_steal_pointer(&lower));
}

/* notmuch's user.primary_email and user.other_email, through libnotmuch. */
static void add_notmuch_identities(GPtrArray *out)
{
	g_auto(GStrv) emails = NULL;

	ccsift_nm_user(&emails, NULL);
	for (char **e = emails; e && *e; e++)
		add_unique(out, *e);
}

char **ccsift_config_identities(const ccsift_config *cfg)
{
	GPtrArray *out = g_ptr_array_new();

	for (char **e = cfg->emails; e && *e; e++)
		add_unique(out, *e);
	if (cfg->use_notmuch)
		add_notmuch_identities(out);
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

/* The section named name_or_path, else the first whose clone is there. A
 * name first: in ~/src, --repo linux is [repo linux], not a [repo next]
 * earlier in the file whose path is ~/src/linux. */
ccsift_repo_config *ccsift_config_repo_find(const ccsift_config *cfg, const char *name_or_path)
{
	g_autofree char *want = NULL;

	for (guint i = 0; i < cfg->repos->len; i++) {
		ccsift_repo_config *r = cfg->repos->pdata[i];

		if (strcmp(r->name, name_or_path) == 0)
			return r;
	}
	if (!(want = realpath(name_or_path, NULL)))
		return NULL;
	for (guint i = 0; i < cfg->repos->len; i++) {
		ccsift_repo_config *r = cfg->repos->pdata[i];
		g_autofree char *have = realpath(r->path, NULL);

		if (have && strcmp(have, want) == 0)
			return r;
	}
	return NULL;
}

/* How r's list-id globs take id: 2 when one names it as it is, 1 when one
 * matches it as a glob, 0 when none does. */
static int list_match(const ccsift_repo_config *r, const char *id)
{
	int how = 0;

	for (char **g = r->list_ids; g && *g; g++) {
		g_autofree char *glob = g_ascii_strdown(*g, -1);

		if (strcmp(glob, id) == 0)
			return 2;
		if (g_pattern_match_simple(glob, id))
			how = 1;
	}
	return how;
}

GPtrArray *ccsift_config_repos_for_list(const ccsift_config *cfg, const char *list_id)
{
	GPtrArray *found = g_ptr_array_new();
	g_autofree char *id = NULL;
	guint named = 0;

	if (!list_id)
		return found;
	/* Domain names know no case: "U-Boot.lists.denx.de" is u-boot's list. */
	id = g_ascii_strdown(list_id, -1);
	for (guint i = 0; i < cfg->repos->len; i++) {
		ccsift_repo_config *r = cfg->repos->pdata[i];
		int how = list_match(r, id);

		/* A section naming the list itself comes before the globs
		 * that also match it ([repo fstests] fstests.vger.kernel.org
		 * before [repo linux] *.vger.kernel.org): of equals, the first
		 * is taken, and the one that names the list meant it. */
		if (how == 2)
			g_ptr_array_insert(found, named++, r);
		else if (how == 1)
			g_ptr_array_add(found, r);
	}
	return found;
}
