/* nm.c: dlopen libnotmuch and resolve what ccsift uses of it. */
#define CCSIFT_NM_IMPL
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include "error.h"
#include "nm.h"
#include "sanitizer.h"

ccsift_nm_api ccsift_nm;

static int load(void)
{
	void *lib = dlopen("libnotmuch.so.5", RTLD_NOW | RTLD_LOCAL);

	if (!lib)
		return ccsift_error_set(CCSIFT_ENOTFOUND, "cannot load libnotmuch: %s", dlerror());
#define CCSIFT_NM_RESOLVE(f) \
	if (!(ccsift_nm.f = (__typeof__(f) *)dlsym(lib, #f))) \
		return ccsift_error_set(CCSIFT_ENOTFOUND, "libnotmuch lacks %s", #f);
	CCSIFT_NM_FUNCS(CCSIFT_NM_RESOLVE)
	return 0;
}

int ccsift_nm_load(void)
{
	static gsize once;
	static int rc;
	static char message[256];

	if (g_once_init_enter(&once)) {
		if ((rc = load()) < 0)
			g_strlcpy(message, ccsift_error_last(), sizeof(message));
		g_once_init_leave(&once, 1);
	}
	return rc < 0 ? ccsift_error_set(rc, "%s", message) : 0;
}

int ccsift_nm_open(notmuch_database_mode_t mode, notmuch_database_t **db)
{
	char *msg = NULL;
	notmuch_status_t st;
	int rc;

	if ((rc = ccsift_nm_load()) < 0)
		return rc;
	CCSIFT_LEAKS_NOT_OURS(st = ccsift_nm.notmuch_database_open_with_config(NULL, mode, NULL, NULL, db, &msg));
	if (st) {
		/* libnotmuch ends its messages with a newline: one line is ours to print. */
		rc = ccsift_error_set(CCSIFT_EIO, "cannot open the notmuch database: %s",
				      msg ? g_strchomp(msg) : ccsift_nm.notmuch_status_to_string(st));
	}
	free(msg);
	return rc;
}

int ccsift_nm_has_tag(notmuch_message_t *message, const char *tag)
{
	notmuch_tags_t *tags;

	for (tags = ccsift_nm.notmuch_message_get_tags(message); ccsift_nm.notmuch_tags_valid(tags);
	     ccsift_nm.notmuch_tags_move_to_next(tags))
		if (strcmp(ccsift_nm.notmuch_tags_get(tags), tag) == 0)
			return 1;
	return 0;
}

void ccsift_nm_append_quoted(GString *q, const char *text, gssize len)
{
	const char *end = text + (len < 0 ? (gssize)strlen(text) : len);

	for (const char *c = text; c < end; c++) {
		if (*c == '"')
			g_string_append_c(q, '"');
		g_string_append_c(q, *c);
	}
}

void ccsift_nm_append_from(GString *q, char *const *addresses)
{
	g_string_append(q, "(");
	for (char *const *e = addresses; *e; e++) {
		g_string_append(q, e == addresses ? "from:\"" : " OR from:\"");
		ccsift_nm_append_quoted(q, *e, -1);
		g_string_append(q, "\"");
	}
	g_string_append(q, ")");
}

/* The notmuch config, with or without its database (NULL without either). */
static notmuch_status_t load_config(notmuch_database_t **db)
{
	notmuch_status_t st;
	char *msg = NULL;

	CCSIFT_LEAKS_NOT_OURS(st = ccsift_nm.notmuch_database_load_config(NULL, NULL, NULL, db, &msg));
	free(msg);
	return st;
}

gboolean ccsift_nm_user(char ***emails, char **hook_dir)
{
	notmuch_database_t *db = NULL;
	notmuch_config_values_t *vals;
	GPtrArray *out = g_ptr_array_new();
	notmuch_status_t st;
	const char *v;

	*emails = NULL;
	if (hook_dir)
		*hook_dir = NULL;
	if (ccsift_nm_load() < 0)
		return FALSE;  /* no notmuch here */
	st = load_config(&db);
	/* Without a config file notmuch guesses an address: not the user's word. */
	if (!db || (st != NOTMUCH_STATUS_SUCCESS && st != NOTMUCH_STATUS_NO_DATABASE)) {
		if (db)
			ccsift_nm.notmuch_database_destroy(db);
		g_ptr_array_unref(out);
		return FALSE;
	}
	if ((v = ccsift_nm.notmuch_config_get(db, NOTMUCH_CONFIG_PRIMARY_EMAIL)) && *v)
		g_ptr_array_add(out, g_strdup(v));
	vals = ccsift_nm.notmuch_config_get_values(db, NOTMUCH_CONFIG_OTHER_EMAIL);
	for (; vals && ccsift_nm.notmuch_config_values_valid(vals); ccsift_nm.notmuch_config_values_move_to_next(vals))
		if ((v = ccsift_nm.notmuch_config_values_get(vals)) && *v)
			g_ptr_array_add(out, g_strdup(v));
	if (vals)
		ccsift_nm.notmuch_config_values_destroy(vals);
	if (hook_dir && (v = ccsift_nm.notmuch_config_get(db, NOTMUCH_CONFIG_HOOK_DIR)) && *v)
		*hook_dir = g_strdup(v);
	ccsift_nm.notmuch_database_destroy(db);
	g_ptr_array_add(out, NULL);
	*emails = (char **)g_ptr_array_free(out, FALSE);
	return TRUE;
}

/* new.tags of the notmuch config (a new strv), or NULL without one. */
static char **new_tags(void)
{
	notmuch_database_t *db = NULL;
	notmuch_config_values_t *vals;
	GPtrArray *out;
	notmuch_status_t st;

	if (ccsift_nm_load() < 0)
		return NULL;
	st = load_config(&db);
	/* No config file: notmuch is not set up yet, and init says how. */
	if (!db || (st != NOTMUCH_STATUS_SUCCESS && st != NOTMUCH_STATUS_NO_DATABASE)) {
		if (db)
			ccsift_nm.notmuch_database_destroy(db);
		return NULL;
	}
	out = g_ptr_array_new();
	vals = ccsift_nm.notmuch_config_get_values(db, NOTMUCH_CONFIG_NEW_TAGS);
	for (; vals && ccsift_nm.notmuch_config_values_valid(vals); ccsift_nm.notmuch_config_values_move_to_next(vals))
		g_ptr_array_add(out, g_strdup(ccsift_nm.notmuch_config_values_get(vals)));
	if (vals)
		ccsift_nm.notmuch_config_values_destroy(vals);
	ccsift_nm.notmuch_database_destroy(db);
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

char *ccsift_nm_new_tags_problem(void)
{
	g_auto(GStrv) tags = new_tags();
	g_autoptr(GString) fix = g_string_new("notmuch config set new.tags new");
	g_autofree char *now = NULL;

	if (!tags || g_strv_contains((const char *const *)tags, "new"))
		return NULL;
	for (char **t = tags; *t; t++) {
		/* Quoted only where the shell needs it: the line is for pasting. */
		gboolean plain = **t && strspn(*t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					       "0123456789_.,:/@+-=") == strlen(*t);
		g_autofree char *q = plain ? g_strdup(*t) : g_shell_quote(*t);

		g_string_append_printf(fix, " %s", q);
	}
	now = g_strjoinv(";", tags);
	return g_strdup_printf("notmuch's new.tags is \"%s\", without \"new\": ccsift tag (tag:new) will see "
			       "no new mail; run: %s", now, fix->str);
}
