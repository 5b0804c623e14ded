/* The last error's message (error.h). */
#include <string.h>
#include <glib.h>
#include "error.h"

/* A message longer than the buffer, of characters of width w bytes after
 * an ASCII prefix of p bytes: whatever is kept is whole characters. */
static void check_cut(const char *ch, size_t p)
{
	g_autoptr(GString) long_text = g_string_new(NULL);
	const char *got;

	g_string_append_len(long_text, "xxx", p);
	while (long_text->len < 2000)
		g_string_append(long_text, ch);
	g_assert_cmpint(ccsift_error_set(-7, "subject: %s", long_text->str), ==, -7);
	got = ccsift_error_last();
	g_assert_true(g_str_has_prefix(got, "subject: "));
	g_assert_true(g_utf8_validate(got, -1, NULL));
	g_assert_cmpuint(strlen(got), >, 400);
	g_assert_cmpuint(strlen(got), <, 512);
}

static void test_cut_message_is_whole_characters(void)
{
	for (size_t p = 0; p < 4; p++) {
		check_cut("\xc3\xa9", p);            /* é */
		check_cut("\xe2\x82\xac", p);        /* € */
		check_cut("\xf0\x9f\x90\xa7", p);    /* penguin */
	}
}

static void test_short_message_is_kept(void)
{
	ccsift_error_set(-1, "cannot open %s", "d\xc3\xa9p\xc3\xb4t");
	g_assert_cmpstr(ccsift_error_last(), ==, "cannot open d\xc3\xa9p\xc3\xb4t");
	ccsift_error_clear();
	g_assert_cmpstr(ccsift_error_last(), ==, "no error");
}

/* Bytes that are not UTF-8 to begin with are the caller's: left alone. */
static void test_invalid_bytes_are_not_cut_away(void)
{
	ccsift_error_set(-1, "subject: %s", "a\xff" "b");
	g_assert_cmpstr(ccsift_error_last(), ==, "subject: a\xff" "b");
}

/* A path or subject from a mail goes into messages, and a message is one
 * line on stderr: no newline, carriage return or escape sequence of its. */
static void test_control_characters_are_not_printed(void)
{
	ccsift_error_set(CCSIFT_EINVALID, "bad file %s", "evil\nsecond line\r\033[31mred\177");
	g_assert_cmpstr(ccsift_error_last(), ==, "bad file evil?second line??[31mred?");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/error/cut-message-is-whole-characters", test_cut_message_is_whole_characters);
	g_test_add_func("/error/short-message-is-kept", test_short_message_is_kept);
	g_test_add_func("/error/invalid-bytes-are-not-cut-away", test_invalid_bytes_are_not_cut_away);
	g_test_add_func("/error/control-characters-are-not-printed", test_control_characters_are_not_printed);
	return g_test_run();
}
