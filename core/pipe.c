/* pipe.c: insert our headers into the raw bytes; never re-serialise. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
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
	const guint8 *nl = p < end ? memchr(p, '\n', end - p) : NULL;

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

struct ccsift_pipe_out {
	char *ours;     /* our header lines */
	GArray *spans;  /* struct iovec: into the input, ours, or a constant */
};

static void add_span(GArray *spans, const void *p, size_t len)
{
	struct iovec v = { .iov_base = (void *)p, .iov_len = len };

	if (len)
		g_array_append_val(spans, v);
}

/* Only write(2): safe in a signal handler. */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* ccsift_pipe_out_new, and whether msg's top header block is still open
 * at its end (no bare "\n" line in it). */
static ccsift_pipe_out *pipe_out_new(const guint8 *msg, size_t len, const char *verdict, const char *reason,
				     gboolean *headers_open)
{
	static const char old[] = "Old-";
	ccsift_pipe_out *o = g_new0(ccsift_pipe_out, 1);
	const guint8 *p = msg, *end = msg + len, *l, *from;
	g_autofree char *v = ccsift_pipe_header_value(verdict, 200);
	g_autofree char *r = reason ? ccsift_pipe_header_value(reason, 400) : NULL;
	const char *eol = "\n";
	gboolean in_headers = TRUE;

	o->spans = g_array_new(FALSE, FALSE, sizeof(struct iovec));
	/* A leading mbox "From " line stays first; unended, it is no line to follow. */
	if (len >= 5 && memcmp(p, "From ", 5) == 0 && memchr(p, '\n', len)) {
		l = line_end(p, end);
		add_span(o->spans, p, l - p);
		p = l;
	}
	/* The message's own line ending, from its first line. */
	l = line_end(p, end);
	if (l - p >= 2 && l[-1] == '\n' && l[-2] == '\r')
		eol = "\r\n";
	o->ours = r && *r ? g_strdup_printf(CCSIFT_HEADER ": %s%s" CCSIFT_REASON_HEADER ": %s%s", v, eol, r, eol)
			  : g_strdup_printf(CCSIFT_HEADER ": %s%s", v, eol);
	add_span(o->spans, o->ours, strlen(o->ours));
	/* The rest as it is, but forged headers of ours in the top header
	 * block are renamed. The block ends where procmail ends it, at a bare
	 * "\n" line: a "\r\n" line in an LF message, or the blank line of a
	 * CRLF message, does not end it for procmail, whose ^X-Ccsift recipes
	 * would match a forged line after it. */
	for (from = p; in_headers && p < end; p = l) {
		l = line_end(p, end);
		if (*p == '\n') {
			in_headers = FALSE;
		} else if (is_ours(p, l)) {
			add_span(o->spans, from, p - from);
			add_span(o->spans, old, sizeof(old) - 1);
			from = p;
		}
	}
	add_span(o->spans, from, end - from);
	if (headers_open)
		*headers_open = in_headers;
	return o;
}

ccsift_pipe_out *ccsift_pipe_out_new(const guint8 *msg, size_t len, const char *verdict, const char *reason)
{
	return pipe_out_new(msg, len, verdict, reason, NULL);
}

/* What is left of a header block, read from in and written to out as it
 * comes: only the start of each line is held (a line of ours is known by
 * its first 9 bytes), so a line of any length costs nothing. */
typedef struct {
	int out;
	gboolean in_headers, line_start;
	guint8 head[9];
	size_t held;
} header_stream;

/* Write the held start of a line, renamed if it is one of ours. */
static int release_head(header_stream *h)
{
	static const char old[] = "Old-";

	if (h->held && h->head[0] == '\n')
		h->in_headers = FALSE;
	else if (is_ours(h->head, h->head + h->held) && write_all(h->out, old, sizeof(old) - 1) < 0)
		return -1;
	if (write_all(h->out, h->head, h->held) < 0)
		return -1;
	h->line_start = h->held && h->head[h->held - 1] == '\n';
	h->held = 0;
	return 0;
}

static int stream_chunk(header_stream *h, const guint8 *p, size_t n)
{
	const guint8 *end = p + n;

	while (p < end) {
		if (!h->in_headers)
			return write_all(h->out, p, end - p);
		if (h->line_start) {
			/* up to 9 bytes, or the line's end */
			while (p < end && h->held < sizeof(h->head)) {
				h->head[h->held++] = *p++;
				if (h->head[h->held - 1] == '\n')
					break;
			}
			if ((h->held == sizeof(h->head) || h->head[h->held - 1] == '\n') && release_head(h) < 0)
				return -1;
		} else {
			const guint8 *nl = memchr(p, '\n', end - p), *to = nl ? nl + 1 : end;

			if (write_all(h->out, p, to - p) < 0)
				return -1;
			h->line_start = nl != NULL;
			p = to;
		}
	}
	return 0;
}

ssize_t ccsift_pipe_read(int fd, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(fd, buf, len);
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (n >= 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK))
			return n;
		/* (a delivery agent may hand over its pipe non-blocking) */
		if (errno != EINTR && poll(&p, 1, -1) < 0)
			return -1;
	}
}

int ccsift_pipe_stream(int in, int out, const guint8 *head, size_t len, const char *verdict, const char *reason)
{
	header_stream h = { .out = out, .line_start = TRUE };
	size_t whole = len;
	ccsift_pipe_out *o;
	guint8 buf[65536];
	int rc;

	/* The head up to its last whole line; the rest goes through the stream. */
	while (whole && head[whole - 1] != '\n')
		whole--;
	o = pipe_out_new(head, whole, verdict, reason, &h.in_headers);
	rc = ccsift_pipe_out_write(o, out);
	ccsift_pipe_out_free(o);
	if (rc < 0 || stream_chunk(&h, head + whole, len - whole) < 0)
		return -1;
	for (;;) {
		ssize_t n = ccsift_pipe_read(in, buf, sizeof(buf));

		if (n < 0)
			return -1;
		if (n == 0)
			break;
		if (stream_chunk(&h, buf, n) < 0)
			return -1;
	}
	/* A last line shorter than 9 bytes, unended. */
	return h.held ? release_head(&h) : 0;
}

int ccsift_pipe_out_write(const ccsift_pipe_out *o, int fd)
{
	for (guint i = 0; i < o->spans->len; i++) {
		const struct iovec *v = &g_array_index(o->spans, struct iovec, i);

		if (write_all(fd, v->iov_base, v->iov_len) < 0)
			return -1;
	}
	return 0;
}

void ccsift_pipe_out_free(ccsift_pipe_out *o)
{
	if (!o)
		return;
	g_array_unref(o->spans);
	g_free(o->ours);
	g_free(o);
}

GByteArray *ccsift_pipe_annotate(const guint8 *msg, size_t len, const char *verdict, const char *reason)
{
	ccsift_pipe_out *o = ccsift_pipe_out_new(msg, len, verdict, reason);
	GByteArray *out = g_byte_array_sized_new(len + 512);

	for (guint i = 0; i < o->spans->len; i++) {
		const struct iovec *v = &g_array_index(o->spans, struct iovec, i);

		g_byte_array_append(out, v->iov_base, v->iov_len);
	}
	ccsift_pipe_out_free(o);
	return out;
}
