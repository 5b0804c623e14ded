/* mail.c: from mail bytes to a ccsift_patch, with GMime doing the MIME. */
#include <string.h>
#include "gmime-lazy.h"
#include "diff.h"
#include "dmarc.h"
#include "error.h"
#include "mail.h"
#include "prescan.h"

/* A mail past the bounds of prescan.h is refused before GMime sees it,
 * so its verdict is unknown. */
#define MAX_REFERENCES 1000     /* the first ones suffice for threading */

void ccsift_mail_init(void)
{
	static gsize done;

	if (g_once_init_enter(&done)) {
		g_mime_init();
		g_once_init_leave(&done, 1);
	}
}

static ccsift_address *address_new(const char *name, const char *email)
{
	ccsift_address *a = g_new0(ccsift_address, 1);

	a->name = name && *name ? g_strdup(name) : NULL;
	a->email = g_ascii_strdown(email ? email : "", -1);
	return a;
}

static void add_addresses(GPtrArray *out, InternetAddressList *list)
{
	int n = list ? internet_address_list_length(list) : 0;

	for (int i = 0; i < n; i++) {
		InternetAddress *ia = internet_address_list_get_address(list, i);

		if (INTERNET_ADDRESS_IS_GROUP(ia)) {
			add_addresses(out, internet_address_group_get_members(INTERNET_ADDRESS_GROUP(ia)));
		} else if (INTERNET_ADDRESS_IS_MAILBOX(ia)) {
			const char *addr = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia));

			if (addr && strchr(addr, '@'))
				g_ptr_array_add(out, address_new(internet_address_get_name(ia), addr));
		}
	}
}

/* The first mailbox of a list, or NULL. */
static ccsift_address *first_address(InternetAddressList *list)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_address_free);

	add_addresses(all, list);
	return all->len ? g_ptr_array_steal_index(all, 0) : NULL;
}

/* The mailbox in list that the rewritten name names, or NULL. */
static ccsift_address *named_in(InternetAddressList *list, const char *name)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_address_free);

	add_addresses(all, list);
	for (guint i = 0; i < all->len; i++) {
		ccsift_address *a = all->pdata[i];

		if (ccsift_dmarc_same_name(a->name, name))
			return g_ptr_array_steal_index(all, i);
	}
	return NULL;
}

/* Who sent it, when a list rewrote From: for DMARC (dmarc.h): groups.io
 * keeps the address in the rewrite; mailman keeps it in X-Original-From,
 * or in Reply-To or Cc under the same name. NULL: no rewrite, or one that
 * left no trace in the headers (then *name_only gets the sender's name, for
 * the body's sign-off). */
static ccsift_address *unwrapped_sender(const ccsift_address *from, GMimeMessage *msg, char **name_only)
{
	g_autofree char *email = ccsift_dmarc_unwrap_email(from->email);
	g_autofree char *name = ccsift_dmarc_unwrap_name(from->name);
	ccsift_address *real = NULL;
	const char *v;

	if (email)
		return address_new(name ? name : from->name, email);
	if (!name)
		return NULL;
	if ((v = g_mime_object_get_header(GMIME_OBJECT(msg), "X-Original-From"))) {
		InternetAddressList *l = internet_address_list_parse(NULL, v);

		if (l) {
			real = first_address(l);
			g_object_unref(l);
		}
	}
	if (!real)
		real = named_in(g_mime_message_get_reply_to(msg), name);
	if (!real)
		real = named_in(g_mime_message_get_cc(msg), name);
	if (!real)
		*name_only = g_steal_pointer(&name);
	return real;
}

static char *strip_angles(const char *id)
{
	if (!id)
		return NULL;
	return g_mime_utils_decode_message_id(id);
}

/* A header's raw value: message ids need no decoding, nor a copy. */
static const char *raw_header(GMimeObject *obj, const char *name)
{
	GMimeHeader *h = g_mime_header_list_get_header(g_mime_object_get_header_list(obj), name);

	return h ? g_mime_header_get_raw_value(h) : NULL;
}

/*
 * The list id of a List-Id value (RFC 2919: [phrase] "<" id ">", comments
 * anywhere): the first <...> outside quoted strings and comments, its
 * spaces and folding removed. A description may hold "<" in quotes, a
 * comment after the id may hold one ("<linux-xfs.vger.kernel.org> (XFS
 * <dev>)" was the list "dev"). Without brackets, the value without its
 * comments; nothing (an empty List-Id) is no list, not a list "".
 */
static char *list_id_of(const char *v)
{
	GString *out = g_string_new(NULL);
	int depth = 0;
	gboolean quoted = FALSE, in_id = FALSE, found = FALSE;

	for (const char *c = v; *c && !found; c++) {
		if (*c == '\\' && (quoted || depth) && c[1]) {
			c++;
		} else if (quoted) {
			quoted = *c != '"';
		} else if (depth) {
			depth += *c == '(' ? 1 : *c == ')' ? -1 : 0;
		} else if (in_id) {
			if (*c == '>')
				found = TRUE;
			else if (!g_ascii_isspace(*c))
				g_string_append_c(out, *c);
		} else if (*c == '"') {
			quoted = TRUE;
		} else if (*c == '(') {
			depth = 1;
		} else if (*c == '<') {
			in_id = TRUE;
		}
	}
	if (!found) {
		/* No <id>: the value itself, its comments left out. */
		g_string_truncate(out, 0);
		depth = 0;
		for (const char *c = v; *c; c++) {
			if (*c == '(')
				depth++;
			else if (*c == ')' && depth)
				depth--;
			else if (!depth && *c != '\r' && *c != '\n')
				g_string_append_c(out, *c);
		}
		g_strstrip(out->str);
		out->len = strlen(out->str);
	}
	if (!out->len) {
		g_string_free(out, TRUE);
		return NULL;
	}
	return g_string_free(out, FALSE);
}

/* At most this many List-Id headers are read (relays of relays). */
#define MAX_LIST_IDS 8

/* The first List-Id into p->list_id, those below it (a relay list that
 * re-sends another list's mail adds its own on top and keeps the
 * original's) into p->relayed_list_ids. */
static void read_list_ids(ccsift_patch *p, GMimeObject *obj)
{
	GMimeHeaderList *headers = g_mime_object_get_header_list(obj);
	GPtrArray *more = NULL;
	int n = g_mime_header_list_get_count(headers), found = 0;

	for (int i = 0; i < n && found < MAX_LIST_IDS; i++) {
		GMimeHeader *h = g_mime_header_list_get_header_at(headers, i);
		char *id;

		if (g_ascii_strcasecmp(g_mime_header_get_name(h), "List-Id") != 0)
			continue;
		id = list_id_of(g_mime_header_get_raw_value(h));
		if (found++ == 0) {
			p->list_id = id;
		} else if (id) {
			if (!more)
				more = g_ptr_array_new();
			g_ptr_array_add(more, id);
		}
	}
	if (more) {
		g_ptr_array_add(more, NULL);
		p->relayed_list_ids = (char **)g_ptr_array_free(more, FALSE);
	}
}

/* The References value up to its MAX_REFERENCES-th id. */
static char *first_references(const char *v)
{
	const char *end = v;

	for (int n = 0; n < MAX_REFERENCES && (end = strchr(end, '>')); n++)
		end++;
	return end ? g_strndup(v, end - v) : g_strdup(v);
}

/* The headers into p; *signoff_of gets the name whose sign-off names the
 * sender (unwrapped_sender), or stays NULL. */
static void read_headers(ccsift_patch *p, GMimeMessage *msg, char **signoff_of)
{
	GMimeObject *obj = GMIME_OBJECT(msg);
	ccsift_address *real;
	const char *v;

	p->subject_raw = g_strdup(g_mime_message_get_subject(msg));
	ccsift_subject_parse(&p->subject, p->subject_raw);
	p->message_id = g_strdup(g_mime_message_get_message_id(msg));
	p->in_reply_to = strip_angles(g_mime_object_get_header(obj, "In-Reply-To"));

	if ((v = raw_header(obj, "References"))) {
		g_autofree char *first = first_references(v);
		GMimeReferences *refs = g_mime_references_parse(NULL, first);

		for (int i = 0; refs && i < g_mime_references_length(refs); i++)
			g_ptr_array_add(p->references, g_strdup(g_mime_references_get_message_id(refs, i)));
		if (refs)
			g_mime_references_free(refs);
	}
	read_list_ids(p, obj);

	add_addresses(p->to, g_mime_message_get_to(msg));
	add_addresses(p->cc, g_mime_message_get_cc(msg));
	p->from = first_address(g_mime_message_get_from(msg));
	if (p->from && (real = unwrapped_sender(p->from, msg, signoff_of))) {
		ccsift_address_free(p->from);
		p->from = real;
	}
}

/* Is this part one that may carry a patch? */
static gboolean part_may_carry_patch(GMimePart *part)
{
	GMimeContentType *ct = g_mime_object_get_content_type(GMIME_OBJECT(part));
	const char *filename = g_mime_part_get_filename(part);

	if (filename && (g_str_has_suffix(filename, ".patch") || g_str_has_suffix(filename, ".diff")))
		return TRUE;
	if (!ct)
		return TRUE;
	if (g_mime_content_type_is_type(ct, "text", "html"))
		return FALSE;
	if (g_mime_content_type_is_type(ct, "text", "*"))
		return TRUE;
	/* application/octet-stream without a telling name: sniff it. */
	return g_mime_content_type_is_type(ct, "application", "octet-stream") ||
	       g_mime_content_type_is_type(ct, "application", "x-patch") ||
	       g_mime_content_type_is_type(ct, "application", "x-diff");
}

/* The decoded content of a part (base64 and QP undone), as bytes. */
static GByteArray *part_content(GMimePart *part)
{
	GMimeDataWrapper *dw = g_mime_part_get_content(part);
	GMimeStream *mem;
	GByteArray *ba;

	if (!dw)
		return NULL;
	mem = g_mime_stream_mem_new();
	if (g_mime_data_wrapper_write_to_stream(dw, mem) < 0) {
		g_object_unref(mem);
		return NULL;
	}
	/* Take the stream's bytes rather than copy them. */
	ba = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(mem));
	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(mem), FALSE);
	g_object_unref(mem);
	return ba;
}

/* Find "Key: value" at the start of a line; returns a copy of the first word of value. */
static char *find_line_value(const char *text, size_t len, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		size_t n = (eol ? eol : end) - p;

		if (n > klen && g_ascii_strncasecmp(p, key, klen) == 0) {
			const char *v = p + klen, *ve = p + n;

			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			const char *w = v;
			while (w < ve && !g_ascii_isspace(*w) && *w != ':')
				w++;
			if (w > v)
				return g_strndup(v, w - v);
		}
		p = eol ? eol + 1 : end;
	}
	return NULL;
}

/* The address of the first "Signed-off-by:" line of text under name. */
static ccsift_address *signoff_named(const char *text, size_t len, const char *name)
{
	const char *q = text, *end = text + len;
	ccsift_address *found = NULL;

	while (q < end && !found) {
		const char *eol = memchr(q, '\n', end - q);
		size_t n = (eol ? eol : end) - q;

		if (n > 14 && n < 998 && g_ascii_strncasecmp(q, "Signed-off-by:", 14) == 0) {
			g_autofree char *value = g_strndup(q + 14, n - 14);
			InternetAddressList *l = internet_address_list_parse(NULL, value);

			if (l) {
				found = first_address(l);
				g_object_unref(l);
			}
			if (found && !ccsift_dmarc_same_name(found->name, name))
				g_clear_pointer(&found, ccsift_address_free);
		}
		q = eol ? eol + 1 : end;
	}
	return found;
}

/* Co-developed-by: lines read a part, at most: a patch names a few. */
#define MAX_COAUTHORS 64

/* The co-authors of Co-developed-by: lines (the kernel's trailer for
 * whoever wrote a patch with its author: they wrote it too). */
static void read_coauthors(ccsift_patch *p, const char *text, size_t len)
{
	const char *q = text, *end = text + len;
	unsigned lines = 0;

	/* (lines, not co-authors: a flood of lines naming no one is read once) */
	while (q < end && lines < MAX_COAUTHORS) {
		const char *eol = memchr(q, '\n', end - q);
		size_t n = (eol ? eol : end) - q;

		if (n > 16 && n < 998 && g_ascii_strncasecmp(q, "Co-developed-by:", 16) == 0) {
			g_autofree char *value = g_strndup(q + 16, n - 16);
			InternetAddressList *l = internet_address_list_parse(NULL, value);
			ccsift_address *a = l ? first_address(l) : NULL;

			lines++;

			if (a)
				g_ptr_array_add(p->coauthors, a);
			if (l)
				g_object_unref(l);
		}
		q = eol ? eol + 1 : end;
	}
}

static void read_markers(ccsift_patch *p, const char *text, size_t len, gboolean *pull)
{
	char *v;

	ccsift_patch_read_fixes(p, text, len);
	read_coauthors(p, text, len);
	if (!p->base_commit && (v = find_line_value(text, len, "base-commit:"))) {
		if (ccsift_patch_is_commit_id(v))
			p->base_commit = v;
		else
			g_free(v);
	}
	if (!p->change_id)
		p->change_id = find_line_value(text, len, "change-id:");
	if (g_strstr_len(text, len, "are available in the Git repository at:") ||
	    g_strstr_len(text, len, "are available in the git repository at:")) {
		*pull = TRUE;
		if (!p->base_commit)
			p->base_commit = find_line_value(text, len, "The following changes since commit");
		if (!p->pull_tip)
			p->pull_tip = find_line_value(text, len, "for you to fetch changes up to");
	}
}

typedef struct {
	ccsift_patch *patch;
	ccsift_file_index *files;   /* of patch->files, and of patch->quoted_files */
	ccsift_file_index *quoted;
	gboolean cover;             /* the subject says [PATCH 0/N] */
	ccsift_file_index *cover_diffs; /* of cover_diff_list: what a cover's diffs touch */
	GPtrArray *cover_diff_list;
	int cover_diff_files;
	int diff_files;
	int stat_files;
	gboolean pull;
	gboolean body_seen;
	char *signoff_of;  /* a list's rewrite left the sender only in the body */
} scan_state;

/* The diff a reply quotes: lines starting with '>', one level unquoted. */
static void scan_quoted(scan_state *st, const char *text, size_t len)
{
	g_autoptr(GString) unquoted = g_string_new(NULL);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		const char *next = eol ? eol + 1 : end;

		if (*p == '>') {
			p++;
			if (p < next && *p == ' ')
				p++;
			g_string_append_len(unquoted, p, next - p);
		}
		p = next;
	}
	if (unquoted->len)
		ccsift_diff_parse_into(unquoted->str, unquoted->len, st->quoted);
}

/* A list's rewrite that kept the sender nowhere in the headers: the
 * sign-off of the same name, as for the commit applied from it
 * (history.c), so that mail and index name the same person. */
static void unwrap_by_signoff(scan_state *st, const char *text, size_t len)
{
	ccsift_address *real = signoff_named(text, len, st->signoff_of);

	if (real) {
		ccsift_address_free(st->patch->from);
		st->patch->from = real;
		g_clear_pointer(&st->signoff_of, g_free);
	}
}

static void scan_text(scan_state *st, const char *text, size_t len)
{
	int n;

	scan_quoted(st, text, len);
	read_markers(st->patch, text, len, &st->pull);
	if (st->signoff_of)
		unwrap_by_signoff(st, text, len);
	if (st->cover) {
		if ((n = ccsift_diff_parse_into(text, len, st->cover_diffs)) > 0)
			st->cover_diff_files += n;
	} else if ((n = ccsift_diff_parse_into(text, len, st->files)) > 0) {
		st->diff_files += n;
	}
	if ((n = ccsift_diffstat_parse_into(text, len, st->files)) > 0)
		st->stat_files += n;
}

/* git format-patch writes "From: author" as the body's first line when
 * someone else sends the patch; git am takes the author from it. */
static void read_inbody_from(ccsift_patch *p, const char *text, size_t len)
{
	const char *q = text, *end = text + len, *eol;
	g_autofree char *line = NULL;
	InternetAddressList *l;

	while (q < end && (*q == '\n' || *q == '\r'))
		q++;
	if (end - q < 6 || strncmp(q, "From:", 5) != 0)
		return;
	eol = memchr(q, '\n', end - q);
	if ((eol ? eol : end) - q > 998)  /* RFC 5322's longest line */
		return;
	line = g_strndup(q + 5, (eol ? eol : end) - q - 5);
	if ((l = internet_address_list_parse(NULL, line))) {
		p->author = first_address(l);
		g_object_unref(l);
	}
}

static void scan_part(scan_state *st, GMimePart *part)
{
	g_autoptr(GByteArray) bytes = NULL;

	if (!part_may_carry_patch(part))
		return;
	/* an empty part's array has no data at all: NULL + 0 is undefined */
	if (!(bytes = part_content(part)) || !bytes->len)
		return;
	if (!st->body_seen) {
		st->body_seen = TRUE;
		read_inbody_from(st->patch, (const char *)bytes->data, bytes->len);
	}
	scan_text(st, (const char *)bytes->data, bytes->len);
}

static void scan_object(scan_state *st, GMimeObject *obj, int depth)
{
	if (depth > 8 || !obj)
		return;
	if (GMIME_IS_PART(obj)) {
		scan_part(st, GMIME_PART(obj));
	} else if (GMIME_IS_MESSAGE_PART(obj)) {
		GMimeMessage *inner = g_mime_message_part_get_message(GMIME_MESSAGE_PART(obj));

		if (inner)
			scan_object(st, g_mime_message_get_mime_part(inner), depth + 1);
	} else if (GMIME_IS_MULTIPART(obj)) {
		GMimeMultipart *mp = GMIME_MULTIPART(obj);
		int n = g_mime_multipart_get_count(mp);

		/* multipart/alternative: the plain text is enough. */
		for (int i = 0; i < n; i++)
			scan_object(st, g_mime_multipart_get_part(mp, i), depth + 1);
	}
}

/* In a mail with a diff, the diff says which files the patch touches: a
 * name only a diffstat gave is a diffstat the message quotes, or a line
 * of the patch's own diffstat that matched no diff (cut inside " => ", a
 * shortened name too common to place). */
static void drop_stat_only(GPtrArray *files)
{
	for (guint i = files->len; i-- > 0;)
		if (((ccsift_file *)files->pdata[i])->from_stat)
			g_ptr_array_remove_index(files, i);
}

static gboolean cover_subject(const ccsift_patch *p)
{
	return p->subject.number == 0 && p->subject.total > 0 && !p->subject.reply;
}

/*
 * A cover letter's diffstat is its series: a diff it carries is the
 * interdiff of a new version (format-patch --interdiff, which indents it
 * only in a patch), whose files are those changed since the last version,
 * one the series no longer touches among them. A cover without a
 * diffstat has nothing better than its diffs.
 */
static void cover_diffs_finish(scan_state *st)
{
	if (!st->cover)
		return;
	ccsift_file_index_free(st->cover_diffs);
	if (!st->stat_files) {
		gsize n = 0;
		gpointer *files = g_ptr_array_steal(st->cover_diff_list, &n);

		for (gsize i = 0; i < n; i++)
			ccsift_file_index_add(st->files, files[i]);
		g_free(files);
		st->diff_files += st->cover_diff_files;
	}
	g_ptr_array_unref(st->cover_diff_list);
}

static ccsift_patch_kind decide_kind(const ccsift_patch *p, const scan_state *st)
{
	if (st->pull)
		return CCSIFT_KIND_PULL;
	if (st->diff_files > 0)
		return CCSIFT_KIND_PATCH;
	if (cover_subject(p))
		return CCSIFT_KIND_COVER;
	if (st->stat_files > 0 && !p->subject.reply)
		return CCSIFT_KIND_COVER;
	return CCSIFT_KIND_NOT_PATCH;
}

int ccsift_mail_parse(ccsift_patch **out, const char *bytes, size_t len)
{
	/* The stream reads the caller's bytes in place: parts refer to spans
	 * of it, so a message is held in memory once. */
	GByteArray *in = g_byte_array_new_take((guint8 *)(len ? bytes : ""), len);
	GMimeStream *stream;
	GMimeParser *parser;
	GMimeMessage *msg;
	scan_state st = { 0 };

	*out = NULL;
	ccsift_mail_init();
	if (ccsift_prescan(len ? bytes : "", len) < 0) {
		g_byte_array_free(in, FALSE);
		return CCSIFT_ELIMIT;
	}
	stream = g_mime_stream_mem_new_with_byte_array(in);
	g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(stream), FALSE);
	parser = g_mime_parser_new_with_stream(stream);
	g_mime_parser_set_format(parser, GMIME_FORMAT_MESSAGE);
	msg = g_mime_parser_construct_message(parser, NULL);
	g_object_unref(parser);
	if (!msg) {
		g_object_unref(stream);
		g_byte_array_free(in, FALSE);
		return ccsift_error_set(CCSIFT_EINVALID, "not a mail message");
	}

	st.patch = ccsift_patch_new();
	read_headers(st.patch, msg, &st.signoff_of);
	st.files = ccsift_file_index_new(st.patch->files);
	st.quoted = ccsift_file_index_new(st.patch->quoted_files);
	/* (only a cover's diffs are read aside: cover_diffs_finish) */
	if ((st.cover = cover_subject(st.patch))) {
		st.cover_diff_list = g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_file_free);
		st.cover_diffs = ccsift_file_index_new(st.cover_diff_list);
	}
	scan_object(&st, g_mime_message_get_mime_part(msg), 0);
	cover_diffs_finish(&st);
	ccsift_file_index_free(st.files);
	ccsift_file_index_free(st.quoted);
	g_free(st.signoff_of);
	st.patch->kind = decide_kind(st.patch, &st);
	if (st.patch->kind == CCSIFT_KIND_NOT_PATCH)
		g_ptr_array_set_size(st.patch->files, 0);
	if (st.patch->kind == CCSIFT_KIND_PATCH)
		drop_stat_only(st.patch->files);
	g_object_unref(msg);
	g_object_unref(stream);
	g_byte_array_free(in, FALSE);
	*out = st.patch;
	return CCSIFT_OK;
}
