/* fuzz-pipe.c: libFuzzer harness for pipe mode, without a repository.
 *
 * The message is parsed as ccsift filter does, and the verdict and reason
 * it would write are made from the parse, with bytes of the input in them
 * (so sanitizing has work to do). Then the promise of pipe.h is checked;
 * a broken one aborts. For input M = [F] R, where F is a leading mbox
 * "From " line (through its '\n') and R the rest, the output must be
 *
 *	F "X-Ccsift: " V EOL ["X-Ccsift-Reason: " W EOL] R'
 *
 *   - V and W are printable ASCII (0x20-0x7e), at most 200 and 400 bytes;
 *     V is the verdict itself when that is already such a line; the
 *     Reason line is there exactly when the reason has anything printable
 *     (control characters other than TAB, CR and LF are dropped).
 *   - EOL is the line ending of R's first line: "\r\n" if it has one,
 *     else "\n" (also when that line has no ending at all).
 *   - R' is R with "Old-" put before each line of R's header block (the
 *     lines before the first bare "\n" line, as procmail sees it) that is a forged
 *     header of ours: "X-Ccsift" then ':', '-', or blanks and ':', in any
 *     case. Other lines starting "X-Ccsift" may be renamed too, as the code
 *     errs on the safe side; nothing else changes.
 *
 * Hence removing our lines and undoing the renames gives M byte for byte,
 * and a recipe matching ^X-Ccsift in the header block so defined sees only
 * our lines. (A "\r\n" line does not end the block: procmail would read
 * on, so a forged header after it must be renamed too.)
 *
 * ccsift filter writes with ccsift_pipe_out_write(): what it writes to a
 * file must be the same bytes as ccsift_pipe_annotate() gives. And a
 * message over the size limit is streamed (ccsift_pipe_stream) from a
 * head read into memory: from any split after R's first line, the same
 * bytes again.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "error.h"
#include "mail.h"
#include "pipe.h"

#define VERDICT_MAX 200
#define REASON_MAX 400

static int out_fd = -1, rest_fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	ccsift_mail_init();
	/* a file in memory for what the filter writes */
	if ((out_fd = memfd_create("fuzz-pipe", 0)) < 0 || (rest_fd = memfd_create("fuzz-pipe-rest", 0)) < 0)
		abort();
	return 0;
}

static void broken(const char *what, const guint8 *out, size_t out_len, size_t at)
{
	fprintf(stderr, "pipe.h promise broken: %s (output byte %zu of %zu)\n", what, at, out_len);
	abort();
}

static gboolean prefix_ci(const guint8 *p, const guint8 *end, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - p) >= n && g_ascii_strncasecmp((const char *)p, s, n) == 0;
}

/* A forged header of ours: one that must be renamed. */
static gboolean must_rename(const guint8 *p, const guint8 *end)
{
	if (!prefix_ci(p, end, "x-ccsift"))
		return FALSE;
	p += 8;
	if (p < end && (*p == ':' || *p == '-'))
		return TRUE;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p < end && *p == ':';
}

static const guint8 *line_end(const guint8 *p, const guint8 *end)
{
	const guint8 *nl = memchr(p, '\n', end - p);

	return nl ? nl + 1 : end;
}

/* Would ccsift_pipe_header_value() keep anything of text? */
static gboolean has_printable(const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if (*p == '\t' || *p == '\r' || *p == '\n' || (*p >= 0x20 && *p != 0x7f))
			return TRUE;
	return FALSE;
}

/* Already one printable ASCII line without double blanks: kept as it is. */
static gboolean is_clean(const char *text, size_t max)
{
	size_t n = strlen(text);

	if (n > max)
		return FALSE;
	for (size_t i = 0; i < n; i++)
		if (text[i] < 0x20 || text[i] > 0x7e || (i && text[i] == ' ' && text[i - 1] == ' '))
			return FALSE;
	return TRUE;
}

/* One inserted line: name, a printable value of at most max bytes, eol. */
static const guint8 *header_line(const guint8 *o, const guint8 *oend, const GByteArray *out,
				 const char *name, size_t max, const char *eol, const char *expect)
{
	const guint8 *v;
	size_t n = strlen(name), e = strlen(eol);

	if ((size_t)(oend - o) < n || memcmp(o, name, n) != 0)
		broken("our header is not where it belongs", out->data, out->len, o - out->data);
	v = o += n;
	while (o < oend && *o >= 0x20 && *o <= 0x7e)
		o++;
	if ((size_t)(o - v) > max)
		broken("header value too long", out->data, out->len, v - out->data);
	if (expect && (strlen(expect) != (size_t)(o - v) || memcmp(v, expect, o - v) != 0))
		broken("a clean value was changed", out->data, out->len, v - out->data);
	if ((size_t)(oend - o) < e || memcmp(o, eol, e) != 0)
		broken("our header is not printable ASCII ending in the message's line ending",
		       out->data, out->len, o - out->data);
	return o + e;
}

static void check(const guint8 *in, size_t len, const GByteArray *out, const char *verdict, const char *reason)
{
	const guint8 *o = out->data, *oend = o + out->len;
	const guint8 *p = in, *end = in + len, *l;
	const char *eol = "\n";
	gboolean in_headers = TRUE;

	/* F: a leading "From " line, copied first */
	if (len >= 5 && memcmp(in, "From ", 5) == 0 && memchr(in, '\n', len)) {
		l = line_end(p, end);
		if ((size_t)(oend - o) < (size_t)(l - p) || memcmp(o, p, l - p) != 0)
			broken("the From line is not first", out->data, out->len, 0);
		o += l - p;
		p = l;
	}
	/* EOL from R's first line */
	l = line_end(p, end);
	if (l - p >= 2 && l[-1] == '\n' && l[-2] == '\r')
		eol = "\r\n";
	o = header_line(o, oend, out, CCSIFT_HEADER ": ", VERDICT_MAX, eol,
			is_clean(verdict, VERDICT_MAX) ? verdict : NULL);
	if (reason && has_printable(reason))
		o = header_line(o, oend, out, CCSIFT_REASON_HEADER ": ", REASON_MAX, eol,
				is_clean(reason, REASON_MAX) ? reason : NULL);

	/* R': R in lockstep, skipping "Old-" where a rename is allowed */
	while (p < end) {
		l = line_end(p, end);
		if (in_headers) {
			if (*p == '\n')
				in_headers = FALSE;
			else if (prefix_ci(p, l, "x-ccsift") && oend - o >= 4 && memcmp(o, "Old-", 4) == 0)
				o += 4;
			else if (must_rename(p, l))
				broken("a forged X-Ccsift header was not renamed", out->data, out->len, o - out->data);
		}
		if (oend - o < l - p || memcmp(o, p, l - p) != 0)
			broken("the input is not copied byte for byte", out->data, out->len, o - out->data);
		o += l - p;
		p = l;
	}
	if (o != oend)
		broken("bytes after the message", out->data, out->len, o - out->data);
}

/* The filter's own writer gives the bytes checked above. */
static void check_written(const guint8 *in, size_t len, const GByteArray *out,
			  const char *verdict, const char *reason)
{
	ccsift_pipe_out *o = ccsift_pipe_out_new(in, len, verdict, reason);
	guint8 *buf = g_malloc(out->len + 1);

	if (ftruncate(out_fd, 0) < 0 || lseek(out_fd, 0, SEEK_SET) < 0 ||
	    ccsift_pipe_out_write(o, out_fd) < 0)
		abort();
	/* one byte more than expected, to see a longer output */
	if (pread(out_fd, buf, out->len + 1, 0) != (ssize_t)out->len ||
	    memcmp(buf, out->data, out->len) != 0)
		broken("ccsift_pipe_out_write() differs from ccsift_pipe_annotate()", out->data, out->len, 0);
	g_free(buf);
	ccsift_pipe_out_free(o);
}

/* Streamed from a split the input chooses, the same bytes. */
static void check_streamed(const guint8 *in, size_t len, const GByteArray *out,
			   const char *verdict, const char *reason)
{
	const guint8 *p = in, *end = in + len, *first;
	guint8 *buf;
	size_t split;

	if (len >= 5 && memcmp(in, "From ", 5) == 0 && memchr(in, '\n', len))
		p = line_end(p, end);
	first = line_end(p, end);
	if (first == end && (first == p || first[-1] != '\n'))
		return;  /* R's first line does not end: it must be in the head (pipe.h) */
	split = (first - in) + (len > 0 ? in[len - 1] : 0) % (end - first + 1);
	buf = g_malloc(out->len + 1);
	if (ftruncate(rest_fd, 0) < 0 || pwrite(rest_fd, in + split, len - split, 0) != (ssize_t)(len - split) ||
	    lseek(rest_fd, 0, SEEK_SET) < 0 || ftruncate(out_fd, 0) < 0 || lseek(out_fd, 0, SEEK_SET) < 0 ||
	    ccsift_pipe_stream(rest_fd, out_fd, in, split, verdict, reason) < 0)
		abort();
	if (pread(out_fd, buf, out->len + 1, 0) != (ssize_t)out->len || memcmp(buf, out->data, out->len) != 0)
		broken("ccsift_pipe_stream() differs from ccsift_pipe_annotate()", out->data, out->len, split);
	g_free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ccsift_patch *patch = NULL;
	char *verdict, *reason = NULL;
	/* raw input bytes into the reason, up to a NUL */
	int raw = (int)MIN(size, 300);
	GByteArray *out;

	if (ccsift_mail_parse(&patch, (const char *)data, size) < 0) {
		verdict = g_strdup("unknown");
		reason = g_strdup_printf("%s: %.*s", ccsift_error_last(), raw, (const char *)data);
	} else {
		const ccsift_file *f = patch->files->len ? patch->files->pdata[0] : NULL;

		/* the verdict gets the Message-ID: input bytes, not always clean */
		verdict = g_strdup_printf("unknown; kind=%s; files=%u; id=%s", ccsift_patch_kind_name(patch->kind),
					  patch->files->len, patch->message_id ? patch->message_id : "");
		/* some messages go out without a reason, as when scoring gives none */
		if (size % 5)
			reason = g_strdup_printf("%s; %s; %.*s", patch->subject_raw ? patch->subject_raw : "",
						 f ? f->path : "", raw, (const char *)data);
		ccsift_patch_free(patch);
	}
	out = ccsift_pipe_annotate(data, size, verdict, reason);
	check(data, size, out, verdict, reason);
	check_written(data, size, out, verdict, reason);
	check_streamed(data, size, out, verdict, reason);
	g_byte_array_unref(out);
	g_free(verdict);
	g_free(reason);
	return 0;
}
