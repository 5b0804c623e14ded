/* The pipe-mode output: input bytes plus our headers, nothing else. */
#include <string.h>
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

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/pipe/lf", test_lf);
	g_test_add_func("/pipe/crlf", test_crlf);
	g_test_add_func("/pipe/mbox-from-line", test_mbox_from_line_stays_first);
	g_test_add_func("/pipe/forged-headers", test_forged_headers_are_renamed);
	g_test_add_func("/pipe/header-value", test_header_values_are_one_ascii_line);
	g_test_add_func("/pipe/odd-inputs", test_odd_inputs);
	return g_test_run();
}
