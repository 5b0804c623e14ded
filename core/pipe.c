/* pipe.c: insert our headers into the raw bytes; never re-serialise. */
#include <string.h>
#include "pipe.h"

char *ccsift_pipe_header_value(const char *text, size_t max)
{
	GString *s = g_string_new(NULL);

	for (const char *p = text ? text : ""; *p && s->len < max; p++) {
		unsigned char c = *p;

		if (c == '\t' || c == '\r' || c == '\n')
			c = ' ';
		if (c >= 0x20 && c < 0x7f && !(c == ' ' && s->len && s->str[s->len - 1] == ' '))
			g_string_append_c(s, c);
		else if (c >= 0x80 && (s->len == 0 || s->str[s->len - 1] != '?'))
			g_string_append_c(s, '?');
	}
	return g_string_free(s, FALSE);
}

static const guint8 *line_end(const guint8 *p, const guint8 *end)
{
	const guint8 *nl = memchr(p, '\n', end - p);

	return nl ? nl + 1 : end;
}

static gboolean is_ours(const guint8 *p, const guint8 *end)
{
	static const char name[] = "x-ccsift";
	size_t n = sizeof(name) - 1;

	if ((size_t)(end - p) <= n || g_ascii_strncasecmp((const char *)p, name, n) != 0)
		return FALSE;
	return p[n] == ':' || p[n] == '-' || p[n] == ' ' || p[n] == '\t';
}

GByteArray *ccsift_pipe_annotate(const guint8 *msg, size_t len, const char *verdict, const char *reason)
{
	const guint8 *p = msg, *end = msg + len, *l;
	GByteArray *out = g_byte_array_sized_new(len + 512);
	g_autofree char *v = ccsift_pipe_header_value(verdict, 200);
	g_autofree char *r = reason ? ccsift_pipe_header_value(reason, 400) : NULL;
	const char *eol = "\n";
	gboolean in_headers = TRUE;

	/* A leading mbox "From " line stays first. */
	if (len >= 5 && memcmp(p, "From ", 5) == 0) {
		l = line_end(p, end);
		g_byte_array_append(out, p, l - p);
		p = l;
	}
	/* The message's own line ending, from its first line. */
	l = line_end(p, end);
	if (l - p >= 2 && l[-1] == '\n' && l[-2] == '\r')
		eol = "\r\n";
	g_byte_array_append(out, (const guint8 *)CCSIFT_HEADER ": ", strlen(CCSIFT_HEADER) + 2);
	g_byte_array_append(out, (const guint8 *)v, strlen(v));
	g_byte_array_append(out, (const guint8 *)eol, strlen(eol));
	if (r && *r) {
		g_byte_array_append(out, (const guint8 *)CCSIFT_REASON_HEADER ": ", strlen(CCSIFT_REASON_HEADER) + 2);
		g_byte_array_append(out, (const guint8 *)r, strlen(r));
		g_byte_array_append(out, (const guint8 *)eol, strlen(eol));
	}
	/* Copy the rest, renaming forged headers of ours in the top header block. */
	while (p < end) {
		l = line_end(p, end);
		if (in_headers) {
			if (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n'))
				in_headers = FALSE;
			else if (is_ours(p, l))
				g_byte_array_append(out, (const guint8 *)"Old-", 4);
		}
		g_byte_array_append(out, p, l - p);
		p = l;
	}
	return out;
}
