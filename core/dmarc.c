/* dmarc.c: undoing mailing lists' DMARC rewrites of From:. */
#include <string.h>
#include "dmarc.h"

char *ccsift_dmarc_unwrap_email(const char *email)
{
	const char *at = email ? strrchr(email, '@') : NULL, *eq;
	const char *host;

	if (!at)
		return NULL;
	host = at + 1;
	if (g_ascii_strcasecmp(host, "groups.io") != 0 && !g_str_has_suffix(host, ".groups.io"))
		return NULL;
	/* The last '=' splits local part from domain: "a=b=example.com" is
	 * "a=b@example.com". The domain needs a dot and no more '='s. */
	for (eq = at; eq > email && eq[-1] != '='; eq--)
		;
	if (eq == email || eq - 1 == email || at - eq < 3 || !memchr(eq, '.', at - eq) || eq[0] == '.' ||
	    at[-1] == '.')
		return NULL;
	return g_strdup_printf("%.*s@%.*s", (int)(eq - 1 - email), email, (int)(at - eq), eq);
}

char *ccsift_dmarc_unwrap_name(const char *name)
{
	const char *via = NULL, *p;

	if (!name)
		return NULL;
	/* The last " via ": "Jane Via via ltp" is Jane Via. */
	for (p = name; (p = strstr(p, " via ")); p++)
		via = p;
	if (!via || via == name || !via[5] || strchr(via + 5, ' '))
		return NULL;
	return g_strstrip(g_strndup(name, via - name));
}

static int by_word(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Its words, lowercased and sorted: "Wei  Gao", "wei gao" and "Gao, Wei"
 * agree. Letters and digits make words; anything else parts them. */
static char *name_key(const char *s)
{
	g_autoptr(GPtrArray) words = g_ptr_array_new_with_free_func(g_free);
	GString *w = g_string_new(NULL);

	for (;; s++) {
		if (s && *s && (g_ascii_isalnum(*s) || (unsigned char)*s >= 0x80)) {
			g_string_append_c(w, g_ascii_tolower(*s));
			continue;
		}
		if (w->len)
			g_ptr_array_add(words, g_strdup(w->str));
		g_string_truncate(w, 0);
		if (!s || !*s)
			break;
	}
	g_string_free(w, TRUE);
	g_ptr_array_sort(words, by_word);
	g_ptr_array_add(words, NULL);
	return g_strjoinv(" ", (char **)words->pdata);
}

gboolean ccsift_dmarc_same_name(const char *a, const char *b)
{
	g_autofree char *ka = name_key(a), *kb = name_key(b);

	return *ka && strcmp(ka, kb) == 0;
}
