/* date.c: dates through GLib's ISO 8601 parser. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include "date.h"
#include "error.h"

int ccsift_date_parse(const char *text, int64_t *out)
{
	g_autoptr(GTimeZone) utc = g_time_zone_new_utc();
	g_autoptr(GDateTime) dt = NULL;
	char *end;

	if (!text || !*text)
		return ccsift_error_set(CCSIFT_EINVALID, "empty date");
	if (text[0] == '@') {
		long long v;

		errno = 0;
		v = strtoll(text + 1, &end, 10);
		if (end == text + 1 || *end || errno == ERANGE)
			return ccsift_error_set(CCSIFT_EINVALID, "bad date '%s': expected @UNIXTIME", text);
		*out = v;
		return 0;
	}
	dt = g_date_time_new_from_iso8601(text, utc);
	if (!dt && strlen(text) == 10) {
		g_autofree char *full = g_strconcat(text, "T00:00:00Z", NULL);
		dt = g_date_time_new_from_iso8601(full, utc);
	}
	if (!dt)
		return ccsift_error_set(CCSIFT_EINVALID,
					"bad date '%s': expected ISO 8601 (2025-03-01T12:00:00Z) or @UNIXTIME", text);
	*out = g_date_time_to_unix(dt);
	return 0;
}

const char *ccsift_date_format(int64_t t, char *buf, unsigned size)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(t);
	g_autofree char *s = dt ? g_date_time_format(dt, "%Y-%m-%d") : g_strdup("?");

	g_strlcpy(buf, s, size);
	return buf;
}

char *ccsift_ago(int64_t t)
{
	int64_t d = g_get_real_time() / G_USEC_PER_SEC - t;

	if (d < 120)
		return g_strdup_printf("%" G_GINT64_FORMAT " seconds ago", (gint64)d);
	if (d < 7200)
		return g_strdup_printf("%" G_GINT64_FORMAT " minutes ago", (gint64)(d / 60));
	if (d < 2 * 86400)
		return g_strdup_printf("%" G_GINT64_FORMAT " hours ago", (gint64)(d / 3600));
	return g_strdup_printf("%" G_GINT64_FORMAT " days ago", (gint64)(d / 86400));
}
