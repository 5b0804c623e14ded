/* The pipe-mode output: input bytes plus our headers, nothing else. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "pipe.h"

static char *annotate(const char *in, const char *verdict, const char *reason)
{
	GByteArray *out = ccsift_pipe_annotate((const guint8 *)in, strlen(in), verdict, reason);

	g_byte_array_append(out, (const guint8 *)"", 1);
	return (char *)g_byte_array_free(out, FALSE);
}

static void test_lf(void)
{
	g_autofree char *out = annotate("From: a@b\nSubject: x\n\nbody\n", "low; score=0.10; threshold=0.50", "why");

	g_assert_cmpstr(out, ==, "X-Ccsift: low; score=0.10; threshold=0.50\nX-Ccsift-Reason: why\n"
				 "From: a@b\nSubject: x\n\nbody\n");
}

static void test_crlf(void)
{
	g_autofree char *out = annotate("From: a@b\r\nSubject: x\r\n\r\nbody\r\n", "unknown", NULL);

	g_assert_cmpstr(out, ==, "X-Ccsift: unknown\r\nFrom: a@b\r\nSubject: x\r\n\r\nbody\r\n");
}

static void test_mbox_from_line_stays_first(void)
{
	g_autofree char *out = annotate("From 123abc Mon Sep 17 00:00:00 2001\nFrom: a@b\n\nx\n", "relevant", "r");

	g_assert_true(g_str_has_prefix(out, "From 123abc Mon Sep 17 00:00:00 2001\nX-Ccsift: relevant\n"));
	g_assert_true(g_str_has_suffix(out, "X-Ccsift-Reason: r\nFrom: a@b\n\nx\n"));
}

static void test_forged_headers_are_renamed(void)
{
	g_autofree char *out = annotate("X-Ccsift: low\nx-ccsift-reason: forged\n folded\nFrom: a@b\n\n"
					"X-Ccsift: in the body stays\n", "relevant", NULL);

	g_assert_cmpstr(out, ==, "X-Ccsift: relevant\nOld-X-Ccsift: low\nOld-x-ccsift-reason: forged\n folded\n"
				 "From: a@b\n\nX-Ccsift: in the body stays\n");
}

static void test_header_values_are_one_ascii_line(void)
{
	g_autofree char *v = ccsift_pipe_header_value("caf\xc3\xa9\r\nX-Evil: 1\tend", 100);

	g_assert_cmpstr(v, ==, "caf? X-Evil: 1 end");
	g_autofree char *cut = ccsift_pipe_header_value("abcdef", 3);
	g_assert_cmpstr(cut, ==, "abc");
}

static void test_odd_inputs(void)
{
	g_autofree char *empty = annotate("", "unknown", NULL);
	g_autofree char *no_newline = annotate("Subject: x", "unknown", NULL);
	GByteArray *nul = ccsift_pipe_annotate((const guint8 *)"A: b\n\n\0\0x", 9, "unknown", NULL);

	g_assert_cmpstr(empty, ==, "X-Ccsift: unknown\n");
	g_assert_cmpstr(no_newline, ==, "X-Ccsift: unknown\nSubject: x");
	g_assert_cmpuint(nul->len, ==, strlen("X-Ccsift: unknown\n") + 9);
	g_assert_cmpmem(nul->data + nul->len - 9, 9, "A: b\n\n\0\0x", 9);
	g_byte_array_unref(nul);
}

/* msg streamed with only its first len bytes read: through a file for the
 * rest and one for the output, read back. */
static GByteArray *streamed(const char *msg, size_t len, const char *verdict, const char *reason)
{
	FILE *rest = tmpfile(), *out = tmpfile();
	GByteArray *got = g_byte_array_new();
	guint8 buf[4096];
	size_t n;

	g_assert_nonnull(rest);
	g_assert_nonnull(out);
	fwrite(msg + len, 1, strlen(msg) - len, rest);
	fflush(rest);
	rewind(rest);
	g_assert_cmpint(ccsift_pipe_stream(fileno(rest), fileno(out), (const guint8 *)msg, len, verdict, reason), ==, 0);
	rewind(out);
	while ((n = fread(buf, 1, sizeof(buf), out)) > 0)
		g_byte_array_append(got, buf, n);
	fclose(rest);
	fclose(out);
	return got;
}

/* However little of a message was read, streaming the rest gives the
 * bytes the whole would: forged lines of ours renamed up to the end of
 * the top header block (split inside one, or inside its first 9 bytes),
 * nothing after it. */
static void test_stream_is_annotate_at_every_split(void)
{
	static const char *const msgs[] = {
		"From 1 Mon\nX-Ccsift: low\nSubject: x\nx-ccsift-reason: f\n folded\nX-CcsiftX: kept\n\n"
		"X-Ccsift: in the body stays\nbody\n",
		"Subject: x\r\nX-Ccsift: low\r\n\r\nX-Ccsift: all one block for procmail\r\n",
		"X-Ccsift:\nX\n\nX-Ccsift: b\n",
		"Subject: unended\nX-Ccsift: x",
		"X-Ccsift",
	};

	for (guint m = 0; m < G_N_ELEMENTS(msgs); m++) {
		const char *msg = msgs[m];
		GByteArray *whole = ccsift_pipe_annotate((const guint8 *)msg, strlen(msg), "unknown", "too big");

		/* (the first line is read whole: pipe.h) */
		const char *nl = strchr(msg, '\n');
		size_t first = nl ? (size_t)(nl - msg) + 1 : strlen(msg);

		for (size_t len = first; len <= strlen(msg); len++) {
			GByteArray *got = streamed(msg, len, "unknown", "too big");

			if (got->len != whole->len || memcmp(got->data, whole->data, got->len) != 0)
				g_error("message %u split at %zu: got '%.*s'", m, len, (int)got->len, got->data);
			g_byte_array_unref(got);
		}
		g_byte_array_unref(whole);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/pipe/lf", test_lf);
	g_test_add_func("/pipe/crlf", test_crlf);
	g_test_add_func("/pipe/mbox-from-line", test_mbox_from_line_stays_first);
	g_test_add_func("/pipe/forged-headers", test_forged_headers_are_renamed);
	g_test_add_func("/pipe/header-value", test_header_values_are_one_ascii_line);
	g_test_add_func("/pipe/odd-inputs", test_odd_inputs);
	g_test_add_func("/pipe/stream-at-every-split", test_stream_is_annotate_at_every_split);
	return g_test_run();
}
