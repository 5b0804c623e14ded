/* prescan.c: the bounds a mail must keep before GMime parses it. */
#include <string.h>
#include "gmime-lazy.h"
#include "error.h"
#include "prescan.h"

#define MAX_PARTS 1000           /* boundary lines, nested messages, boundaries */
#define MAX_ADDRESSES 10000      /* in one address header */
#define MAX_MAIL_ADDRESSES 20000 /* in all of a mail's: GMime keeps every one */
#define MAX_GROUPS 64            /* "g: h: ...": GMime recurses on each */
#define MAX_PARAMS 1000          /* of one Content-Type or Content-Disposition */
#define MAX_MAIL_PARAMS 10000    /* of all of a mail's */
#define MAX_FIELD_SIZE (2u << 20)
/* Subject fields, in all of a mail's messages: GMime decodes each into
 * words, some 60 bytes a word (a 2 MB subject of one-letter words took
 * 134 MB). A real subject is under 1 KiB. */
#define MAX_MAIL_SUBJECT (64u << 10)

typedef struct {
	GHashTable *boundaries;  /* of every Content-Type field, as GMime reads them */
	GString *content_type;   /* the Content-Type field being read, unfolded */
	int parts;               /* boundary lines and message/... types */
	int addresses, params;   /* in the mail's address and parameter fields so far */
	size_t subject;          /* bytes of the mail's Subject fields so far */
	/* the header field being read, with its continuation lines */
	enum { F_NONE, F_OTHER, F_ADDRESS, F_PARAMS, F_CONTENT_TYPE, F_SUBJECT } field;
	size_t field_size;
	int colons, commas, semicolons;
} prescan;

static gboolean is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* GMime's test for a field name's end (gmime-parser.c, header_buffer_parse). */
static gboolean is_ctrl(char c)
{
	return (unsigned char)c < 32 || c == 127;
}

static gboolean add_part(prescan *ps)
{
	return ++ps->parts <= MAX_PARTS;
}

/* A Content-Type read as GMime will: its boundary and whether a message follows. */
static int content_type_end(prescan *ps)
{
	GMimeContentType *ct = g_mime_content_type_parse(NULL, ps->content_type->str);
	const char *boundary = g_mime_content_type_get_parameter(ct, "boundary");
	int rc = 0;

	if (boundary && *boundary) {
		/* as boundary_line reads a line: without trailing white space
		 * (so a boundary of nothing else is "") */
		g_hash_table_add(ps->boundaries, g_strchomp(g_strdup(boundary)));
		if (g_hash_table_size(ps->boundaries) > MAX_PARTS)
			rc = ccsift_error_set(CCSIFT_ELIMIT, "the mail declares over %d MIME boundaries", MAX_PARTS);
	}
	if (rc == 0 && g_mime_content_type_is_type(ct, "message", "*") && !add_part(ps))
		rc = ccsift_error_set(CCSIFT_ELIMIT, "the mail has over %d MIME parts", MAX_PARTS);
	g_object_unref(ct);
	return rc;
}

static int field_end(prescan *ps)
{
	int rc = 0;

	if (ps->field == F_NONE)
		return 0;
	if (ps->field_size > MAX_FIELD_SIZE) {
		rc = ccsift_error_set(CCSIFT_ELIMIT, "a header field of over %u bytes", MAX_FIELD_SIZE);
	} else if (ps->field == F_ADDRESS) {
		/* Every ':' and ',' counts, quoted or not: GMime recovers from an
		 * unclosed quote, an encoded word or a comment that a lighter
		 * reading would take to hide the rest of the field. */
		ps->addresses += ps->commas + 1;
		if (ps->colons > MAX_GROUPS)
			rc = ccsift_error_set(CCSIFT_ELIMIT, "an address header of over %d groups", MAX_GROUPS);
		else if (ps->commas >= MAX_ADDRESSES)
			rc = ccsift_error_set(CCSIFT_ELIMIT, "an address header of over %d addresses", MAX_ADDRESSES);
		else if (ps->addresses > MAX_MAIL_ADDRESSES)
			rc = ccsift_error_set(CCSIFT_ELIMIT, "address headers of over %d addresses in all",
					      MAX_MAIL_ADDRESSES);
	} else if (ps->field == F_SUBJECT) {
		ps->subject += ps->field_size;
		if (ps->subject > MAX_MAIL_SUBJECT)
			rc = ccsift_error_set(CCSIFT_ELIMIT, "subjects of over %u bytes in all", MAX_MAIL_SUBJECT);
	} else if (ps->field == F_PARAMS || ps->field == F_CONTENT_TYPE) {
		ps->params += ps->semicolons + 1;
		if (ps->semicolons > MAX_PARAMS)
			rc = ccsift_error_set(CCSIFT_ELIMIT, "a header of over %d parameters", MAX_PARAMS);
		else if (ps->params > MAX_MAIL_PARAMS)
			rc = ccsift_error_set(CCSIFT_ELIMIT, "headers of over %d parameters in all", MAX_MAIL_PARAMS);
		else if (ps->field == F_CONTENT_TYPE)
			rc = content_type_end(ps);
	}
	ps->field = F_NONE;
	ps->field_size = 0;
	ps->colons = ps->commas = ps->semicolons = 0;
	g_string_truncate(ps->content_type, 0);
	return rc;
}

/* A field's first line: "name:" with blanks allowed before the colon, as
 * GMime allows them. Returns where its value starts, or NULL for a line
 * that is no field. */
static const char *field_start(prescan *ps, const char *p, const char *end)
{
	static const char *const address[] = { "from", "to", "cc", "bcc", "sender", "reply-to",
						"x-original-from" };
	const char *q = p, *name_end;
	size_t n;

	while (q < end && *q != ':' && !is_blank(*q) && !is_ctrl(*q))
		q++;
	name_end = q;
	while (q < end && is_blank(*q))
		q++;
	if (q == end || *q != ':' || name_end == p)
		return NULL;
	n = name_end - p;
	ps->field = F_OTHER;
	for (size_t i = 0; i < G_N_ELEMENTS(address); i++)
		if (n == strlen(address[i]) && g_ascii_strncasecmp(p, address[i], n) == 0)
			ps->field = F_ADDRESS;
	if (n == 19 && g_ascii_strncasecmp(p, "content-disposition", n) == 0)
		ps->field = F_PARAMS;
	if (n == 12 && g_ascii_strncasecmp(p, "content-type", n) == 0)
		ps->field = F_CONTENT_TYPE;
	if (n == 7 && g_ascii_strncasecmp(p, "subject", n) == 0)
		ps->field = F_SUBJECT;
	return q + 1;
}

/* One line of the mail, without its "\n", read as a field or a part of one. */
static int field_line(prescan *ps, const char *p, size_t n)
{
	const char *end = p + n;
	int rc;

	if (n && is_blank(p[0]) && ps->field != F_NONE) {
		/* a continuation line */
	} else if ((rc = field_end(ps)) < 0) {
		return rc;
	} else if (!(p = field_start(ps, p, end))) {
		return 0;
	}
	ps->field_size += n + 1;
	if (ps->field_size > MAX_FIELD_SIZE)
		return field_end(ps);
	for (const char *c = p; c < end; c++) {
		ps->colons += *c == ':';
		ps->commas += *c == ',';
		ps->semicolons += *c == ';';
	}
	if (ps->field == F_CONTENT_TYPE) {
		if (end > p && end[-1] == '\r')
			end--;
		if (ps->content_type->len)
			g_string_append_c(ps->content_type, '\n');
		g_string_append_len(ps->content_type, p, end - p);
	}
	return 0;
}

/* "--boundary" or "--boundary--", with trailing white space (GMime's
 * is_boundary allows some). */
static gboolean boundary_line(prescan *ps, const char *p, size_t n)
{
	g_autofree char *b = NULL;

	while (n && g_ascii_isspace(p[n - 1]))
		n--;
	if (n < 2 || p[0] != '-' || p[1] != '-' || memchr(p, '\0', n))
		return FALSE;
	b = g_strndup(p + 2, n - 2);
	if (g_hash_table_contains(ps->boundaries, b))
		return TRUE;
	if (n < 4 || p[n - 1] != '-' || p[n - 2] != '-')
		return FALSE;
	b[n - 4] = '\0';
	return g_hash_table_contains(ps->boundaries, b);
}

typedef int (*line_fn)(prescan *ps, const char *p, size_t n);

static int each_line(prescan *ps, const char *text, size_t len, line_fn fn)
{
	const char *p = text, *end = text + len;
	int rc = 0;

	while (rc == 0 && p < end) {
		const char *nl = memchr(p, '\n', end - p);

		rc = fn(ps, p, (nl ? nl : end) - p);
		p = nl ? nl + 1 : end;
	}
	return rc;
}

static int part_line(prescan *ps, const char *p, size_t n)
{
	if (boundary_line(ps, p, n) && !add_part(ps))
		return ccsift_error_set(CCSIFT_ELIMIT, "the mail has over %d MIME parts", MAX_PARTS);
	return 0;
}

/*
 * Two linear passes: every field, with the boundaries its Content-Type
 * fields declare; then the lines that are one of those boundaries.
 */
int ccsift_prescan(const char *text, size_t len)
{
	prescan ps = { 0 };
	int rc;

	ps.boundaries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	ps.content_type = g_string_new(NULL);
	rc = each_line(&ps, text, len, field_line);
	if (rc == 0)
		rc = field_end(&ps);
	if (rc == 0 && g_hash_table_size(ps.boundaries))
		rc = each_line(&ps, text, len, part_line);
	g_hash_table_unref(ps.boundaries);
	g_string_free(ps.content_type, TRUE);
	return rc;
}
