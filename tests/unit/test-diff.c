/* test-diff.c: diffs and diffstats into touched files. */
#include <string.h>
#include <glib.h>
#include "diff.h"

static GPtrArray *new_files(void)
{
	return g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_file_free);
}

/* Parse text with ccsift_diff_parse and check the returned count. */
static GPtrArray *diff(const char *text, int expect)
{
	GPtrArray *files = new_files();

	g_assert_cmpint(ccsift_diff_parse(text, strlen(text), files), ==, expect);
	g_assert_cmpuint(files->len, ==, expect);
	return files;
}

static GPtrArray *stat(const char *text, int expect)
{
	GPtrArray *files = new_files();

	g_assert_cmpint(ccsift_diffstat_parse(text, strlen(text), files), ==, expect);
	g_assert_cmpuint(files->len, ==, expect);
	return files;
}

static ccsift_file *nth(GPtrArray *files, guint i)
{
	g_assert_cmpuint(i, <, files->len);
	return files->pdata[i];
}

static void check(ccsift_file *f, char status, const char *path, const char *old_path,
		  int added, int removed)
{
	g_assert_cmpint(f->status, ==, status);
	g_assert_cmpstr(f->path, ==, path);
	g_assert_cmpstr(f->old_path, ==, old_path);
	g_assert_cmpint(f->added, ==, added);
	g_assert_cmpint(f->removed, ==, removed);
}

static void test_format_patch(void)
{
	const char *text =
		"Probing can race with the link coming up, so take the lock.\n"
		"\n"
		"Fixes: 0123456789ab (\"net: foo: add driver\")\n"
		"Signed-off-by: A U Thor <author@example.org>\n"
		"---\n"
		" drivers/net/foo.c | 3 ++-\n"
		" include/linux/foo.h | 1 +\n"
		" 2 files changed, 3 insertions(+), 1 deletion(-)\n"
		"\n"
		"diff --git a/drivers/net/foo.c b/drivers/net/foo.c\n"
		"index 3b18e51..a1c2f40 100644\n"
		"--- a/drivers/net/foo.c\n"
		"+++ b/drivers/net/foo.c\n"
		"@@ -10,7 +10,8 @@ static int foo_probe(struct device *dev)\n"
		" \tstruct foo *foo;\n"
		" \tint err;\n"
		" \n"
		"-\terr = foo_link_up(dev);\n"
		"+\tmutex_lock(&foo_lock);\n"
		"+\terr = foo_link_up(dev);\n"
		" \tif (err)\n"
		" \t\treturn err;\n"
		" \n"
		"diff --git a/include/linux/foo.h b/include/linux/foo.h\n"
		"index 0ab12cd..77e0f31 100644\n"
		"--- a/include/linux/foo.h\n"
		"+++ b/include/linux/foo.h\n"
		"@@ -1,3 +1,4 @@\n"
		" #ifndef FOO_H\n"
		" #define FOO_H\n"
		"+extern struct mutex foo_lock;\n"
		" #endif\n"
		"-- \n"
		"2.39.5\n"
		"\n";
	g_autoptr(GPtrArray) files = diff(text, 2);

	check(nth(files, 0), 'M', "drivers/net/foo.c", NULL, 2, 1);
	g_assert_cmpstr(nth(files, 0)->old_blob, ==, "3b18e51");
	g_assert_false(nth(files, 0)->binary);
	g_assert_false(nth(files, 0)->mode_change);
	check(nth(files, 1), 'M', "include/linux/foo.h", NULL, 1, 0);
	g_assert_cmpstr(nth(files, 1)->old_blob, ==, "0ab12cd");
}

static void test_multiple_hunks(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/lib/x.c b/lib/x.c\n"
		"index 1111111..2222222 100644\n"
		"--- a/lib/x.c\n"
		"+++ b/lib/x.c\n"
		"@@ -1,2 +1,2 @@\n"
		"-a\n"
		"+b\n"
		" c\n"
		"@@ -20,3 +20,1 @@ func\n"
		"-d\n"
		"-e\n"
		" f\n"
		"@@ -40 +38,2 @@\n"
		" g\n"
		"+h\n", 1);

	check(nth(files, 0), 'M', "lib/x.c", NULL, 2, 3);
}

static void test_new_file(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/drivers/net/new.c b/drivers/net/new.c\n"
		"new file mode 100644\n"
		"index 0000000..06e567b\n"
		"--- /dev/null\n"
		"+++ b/drivers/net/new.c\n"
		"@@ -0,0 +1,3 @@\n"
		"+1\n"
		"+2\n"
		"+3\n", 1);

	check(nth(files, 0), 'A', "drivers/net/new.c", NULL, 3, 0);
	g_assert_null(nth(files, 0)->old_blob);
}

static void test_deleted_file(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/src/my file.c b/src/my file.c\n"
		"deleted file mode 100644\n"
		"index 7be73ce..0000000\n"
		"--- a/src/my file.c\t\n"
		"+++ /dev/null\n"
		"@@ -1,3 +0,0 @@\n"
		"-a\n"
		"-B\n"
		"-c\n", 1);

	check(nth(files, 0), 'D', "src/my file.c", NULL, 0, 3);
	g_assert_cmpstr(nth(files, 0)->old_blob, ==, "7be73ce");
}

static void test_empty_new_file(void)
{
	/* no ---/+++ lines at all: the diff --git line names the file */
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/empty.txt b/empty.txt\n"
		"new file mode 100644\n"
		"index 0000000..e69de29\n"
		"diff --git a/gone.txt b/gone.txt\n"
		"deleted file mode 100644\n"
		"index e69de29..0000000\n", 2);

	check(nth(files, 0), 'A', "empty.txt", NULL, 0, 0);
	check(nth(files, 1), 'D', "gone.txt", NULL, 0, 0);
	g_assert_cmpstr(nth(files, 1)->old_blob, ==, "e69de29");
}

static void test_rename_pure(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/src/very/long/dir/deep.c b/src/very/long/deep.c\n"
		"similarity index 100%\n"
		"rename from src/very/long/dir/deep.c\n"
		"rename to src/very/long/deep.c\n"
		"diff --git \"a/src/caf\\303\\251 file.c\" \"b/lib/na\\303\\257ve.c\"\n"
		"similarity index 100%\n"
		"rename from \"src/caf\\303\\251 file.c\"\n"
		"rename to \"lib/na\\303\\257ve.c\"\n"
		"-- \n"
		"2.39.5\n", 2);

	check(nth(files, 0), 'R', "src/very/long/deep.c", "src/very/long/dir/deep.c", 0, 0);
	check(nth(files, 1), 'R', "lib/na\303\257ve.c", "src/caf\303\251 file.c", 0, 0);
	g_assert_null(nth(files, 0)->old_blob);
}

static void test_rename_with_edit(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/drivers/net/foo.c b/drivers/net/bar.c\n"
		"similarity index 94%\n"
		"rename from drivers/net/foo.c\n"
		"rename to drivers/net/bar.c\n"
		"index 0ff3bbb..d4de868 100644\n"
		"--- a/drivers/net/foo.c\n"
		"+++ b/drivers/net/bar.c\n"
		"@@ -18,3 +18,4 @@\n"
		" 18\n"
		" 19\n"
		" 20\n"
		"+21\n", 1);

	check(nth(files, 0), 'R', "drivers/net/bar.c", "drivers/net/foo.c", 1, 0);
	g_assert_cmpstr(nth(files, 0)->old_blob, ==, "0ff3bbb");
}

static void test_copy(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/drivers/net/bar.c b/drivers/net/baz.c\n"
		"similarity index 94%\n"
		"copy from drivers/net/bar.c\n"
		"copy to drivers/net/baz.c\n"
		"index d4de868..64cdb22 100644\n"
		"--- a/drivers/net/bar.c\n"
		"+++ b/drivers/net/baz.c\n"
		"@@ -19,3 +19,4 @@\n"
		" 19\n"
		" 20\n"
		" 21\n"
		"+22\n", 1);

	check(nth(files, 0), 'C', "drivers/net/baz.c", "drivers/net/bar.c", 1, 0);
	g_assert_cmpstr(nth(files, 0)->old_blob, ==, "d4de868");
}

static void test_mode_change(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/scripts/run.sh b/scripts/run.sh\n"
		"old mode 100644\n"
		"new mode 100755\n"
		"diff --git a/tools/x.py b/tools/x.py\n"
		"old mode 100755\n"
		"new mode 100644\n"
		"index 1234567..89abcde\n"
		"--- a/tools/x.py\n"
		"+++ b/tools/x.py\n"
		"@@ -1 +1 @@\n"
		"-old\n"
		"+new\n", 2);

	check(nth(files, 0), 'M', "scripts/run.sh", NULL, 0, 0);
	g_assert_true(nth(files, 0)->mode_change);
	check(nth(files, 1), 'M', "tools/x.py", NULL, 1, 1);
	g_assert_true(nth(files, 1)->mode_change);
	g_assert_cmpstr(nth(files, 1)->old_blob, ==, "1234567");
}

static void test_type_change(void)
{
	/* git prints a file -> symlink change as a deletion and an addition */
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/drivers/net/bar.c b/drivers/net/bar.c\n"
		"deleted file mode 100644\n"
		"index d4de868..0000000\n"
		"--- a/drivers/net/bar.c\n"
		"+++ /dev/null\n"
		"@@ -1,2 +0,0 @@\n"
		"-1\n"
		"-2\n"
		"diff --git a/drivers/net/bar.c b/drivers/net/bar.c\n"
		"new file mode 120000\n"
		"index 0000000..5341e06\n"
		"--- /dev/null\n"
		"+++ b/drivers/net/bar.c\n"
		"@@ -0,0 +1 @@\n"
		"+baz.c\n"
		"\\ No newline at end of file\n"
		"diff --git a/link b/link\n"
		"old mode 120000\n"
		"new mode 100644\n", 2);

	check(nth(files, 0), 'T', "drivers/net/bar.c", NULL, 1, 2);
	check(nth(files, 1), 'T', "link", NULL, 0, 0);
	g_assert_true(nth(files, 1)->mode_change);
}

static void test_binary_differ(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/fw/blob.bin b/fw/blob.bin\n"
		"index 1a2b3c4..5d6e7f8 100644\n"
		"Binary files a/fw/blob.bin and b/fw/blob.bin differ\n"
		"diff --git a/img/new.png b/img/new.png\n"
		"new file mode 100644\n"
		"index 0000000..aaaaaaa\n"
		"Binary files /dev/null and b/img/new.png differ\n", 2);

	check(nth(files, 0), 'M', "fw/blob.bin", NULL, -1, -1);
	g_assert_true(nth(files, 0)->binary);
	g_assert_cmpstr(nth(files, 0)->old_blob, ==, "1a2b3c4");
	check(nth(files, 1), 'A', "img/new.png", NULL, -1, -1);
	g_assert_true(nth(files, 1)->binary);
	g_assert_null(nth(files, 1)->old_blob);
}

static void test_binary_patch(void)
{
	/* the base85 lines must not end the section, nor start anything */
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/bin.dat b/bin.dat\n"
		"index bdc955b7b2e610ad5a72302b139a2e6cb325519a..350ed01038bfaa2fda2722ada23a75bdd971bd68 100755\n"
		"GIT binary patch\n"
		"literal 3\n"
		"KcmZQzVg>*J3IGNG\n"
		"\n"
		"literal 2\n"
		"JcmZQz1ONa700IC2\n"
		"\n"
		"diff --git a/src/a.c b/src/a.c\n"
		"index 1111111..2222222 100644\n"
		"--- a/src/a.c\n"
		"+++ b/src/a.c\n"
		"@@ -1 +1 @@\n"
		"-x\n"
		"+y\n", 2);

	check(nth(files, 0), 'M', "bin.dat", NULL, -1, -1);
	g_assert_true(nth(files, 0)->binary);
	g_assert_cmpstr(nth(files, 0)->old_blob, ==, "bdc955b7b2e610ad5a72302b139a2e6cb325519a");
	check(nth(files, 1), 'M', "src/a.c", NULL, 1, 1);
	g_assert_false(nth(files, 1)->binary);
}

static void test_quoted_octal(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git \"a/src/caf\\303\\251 file.c\" \"b/src/caf\\303\\251 file.c\"\n"
		"index 587be6b..b77b4eb 100644\n"
		"--- \"a/src/caf\\303\\251 file.c\"\t\n"
		"+++ \"b/src/caf\\303\\251 file.c\"\t\n"
		"@@ -1 +1,2 @@\n"
		" x\n"
		"+y\n", 1);

	check(nth(files, 0), 'M', "src/caf\303\251 file.c", NULL, 1, 0);
	g_assert_cmpstr(nth(files, 0)->old_blob, ==, "587be6b");
}

static void test_quoted_escapes(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git \"a/odd\\tname\\n\\\"q\\\"\\\\.c\" \"b/odd\\tname\\n\\\"q\\\"\\\\.c\"\n"
		"new file mode 100644\n"
		"index 0000000..1234567\n"
		"--- /dev/null\n"
		"+++ \"b/odd\\tname\\n\\\"q\\\"\\\\.c\"\n"
		"@@ -0,0 +1 @@\n"
		"+x\n"
		"diff --git a/plain.c \"b/na\\303\\257ve.c\"\n"
		"similarity index 100%\n"
		"rename from plain.c\n"
		"rename to \"na\\303\\257ve.c\"\n", 2);

	check(nth(files, 0), 'A', "odd\tname\n\"q\"\\.c", NULL, 1, 0);
	check(nth(files, 1), 'R', "na\303\257ve.c", "plain.c", 0, 0);
}

static void test_space_tab(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/src/my file.c b/src/my file.c\n"
		"index de98044..7be73ce 100644\n"
		"--- a/src/my file.c\t\n"
		"+++ b/src/my file.c\t\n"
		"@@ -1,3 +1,3 @@\n"
		" a\n"
		"-b\n"
		"+B\n"
		" c\n", 1);

	check(nth(files, 0), 'M', "src/my file.c", NULL, 1, 1);
}

static void test_trailing_blanks(void)
{
	/* a mailer turned the TAB after a spaced name into a space */
	g_autoptr(GPtrArray) files = diff(
		"--- a/src/my file.c \n"
		"+++ b/src/my file.c \n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n", 1);

	check(nth(files, 0), 'M', "src/my file.c", NULL, 1, 1);
}

static void test_space_mode_only(void)
{
	/* a space in both names: the diff --git line splits in the middle */
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/my dir/a b.sh b/my dir/a b.sh\n"
		"old mode 100644\n"
		"new mode 100755\n", 1);

	check(nth(files, 0), 'M', "my dir/a b.sh", NULL, 0, 0);
	g_assert_true(nth(files, 0)->mode_change);
}

static void test_crlf(void)
{
	g_autoptr(GPtrArray) files = diff(
		"Subject: fix\r\n"
		"\r\n"
		"diff --git a/src/my file.c b/src/my file.c\r\n"
		"index de98044..7be73ce 100644\r\n"
		"--- a/src/my file.c\t\r\n"
		"+++ b/src/my file.c\t\r\n"
		"@@ -1,3 +1,3 @@\r\n"
		" a\r\n"
		"-b\r\n"
		"+B\r\n"
		" c\r\n"
		"diff --git a/b.c b/b.c\r\n"
		"new file mode 100644\r\n"
		"index 0000000..1111111\r\n"
		"--- /dev/null\r\n"
		"+++ b/b.c\r\n"
		"@@ -0,0 +1 @@\r\n"
		"+x\r\n"
		"-- \r\n"
		"2.39.5\r\n", 2);

	check(nth(files, 0), 'M', "src/my file.c", NULL, 1, 1);
	g_assert_cmpstr(nth(files, 0)->old_blob, ==, "de98044");
	check(nth(files, 1), 'A', "b.c", NULL, 1, 0);
}

static void test_hunk_dashes(void)
{
	/* "-- " and "++" are content here: the hunk header counts say so */
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/doc/mail.txt b/doc/mail.txt\n"
		"index 1111111..2222222 100644\n"
		"--- a/doc/mail.txt\n"
		"+++ b/doc/mail.txt\n"
		"@@ -1,4 +1,4 @@\n"
		" Regards,\n"
		"-- \n"
		"+++\n"
		"--- a/not/a/header\n"
		"++++ b/not/a/header\n"
		" Name\n"
		"diff --git a/x.c b/x.c\n"
		"index 3333333..4444444 100644\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n", 2);

	check(nth(files, 0), 'M', "doc/mail.txt", NULL, 2, 2);
	check(nth(files, 1), 'M', "x.c", NULL, 1, 1);
}

static void test_signature(void)
{
	/* after the last hunk "-- " is a signature: not a removed line */
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/x.c b/x.c\n"
		"index 3333333..4444444 100644\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,2 +1,2 @@\n"
		" a\n"
		"-b\n"
		"+c\n"
		"-- \n"
		"2.39.5\n"
		"\n"
		"--- some prose\n"
		"+++ more prose\n", 1);

	check(nth(files, 0), 'M', "x.c", NULL, 1, 1);
}

static void test_quoted_reply(void)
{
	g_autoptr(GPtrArray) files = diff(
		"On Mon, Jan 1, 2024 at 10:00 A U Thor wrote:\n"
		"> diff --git a/x.c b/x.c\n"
		"> index 3333333..4444444 100644\n"
		"> --- a/x.c\n"
		"> +++ b/x.c\n"
		"> @@ -1,2 +1,2 @@\n"
		">  a\n"
		"> -b\n"
		"> +c\n"
		"\n"
		"Why not c?\n"
		"\n"
		">diff --git a/y.c b/y.c\n"
		">--- a/y.c\n"
		">+++ b/y.c\n"
		">@@ -1 +1 @@\n"
		">-a\n"
		">+b\n", 0);

	g_assert_cmpuint(files->len, ==, 0);
}

static void test_reply_interrupts_hunk(void)
{
	/* a quoted line inside a hunk ends it; nothing quoted is taken */
	g_autoptr(GPtrArray) files = diff(
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,3 +1,3 @@\n"
		" a\n"
		"> --- a/y.c\n"
		"> +++ b/y.c\n"
		"> @@ -1 +1 @@\n", 1);

	check(nth(files, 0), 'M', "x.c", NULL, 0, 0);
}

static void test_plain_diff_u(void)
{
	g_autoptr(GPtrArray) files = diff(
		"Binary files a/fs/b.bin and b/fs/b.bin differ\n"
		"diff -urN a/fs/new.c b/fs/new.c\n"
		"--- a/fs/new.c\t1970-01-01 00:00:00.000000000 +0000\n"
		"+++ b/fs/new.c\t2024-12-03 06:38:55.414638019 +0000\n"
		"@@ -0,0 +1 @@\n"
		"+n\n"
		"diff -urN a/fs/x.c b/fs/x.c\n"
		"--- a/fs/x.c\t2024-12-03 06:38:55.414638019 +0000\n"
		"+++ b/fs/x.c\t2024-12-03 06:38:55.414638019 +0000\n"
		"@@ -1,2 +1,2 @@\n"
		" 1\n"
		"-2\n"
		"+3\n"
		"diff -u linux-orig/fs/y.c linux/fs/y.c\n"
		"--- linux-orig/fs/y.c\t2024-01-01 10:00:00.000000000 +0100\n"
		"+++ linux/fs/y.c\t2024-01-02 10:00:00.000000000 +0100\n"
		"@@ -5,2 +5,3 @@\n"
		" x\n"
		"+y\n"
		" z\n"
		"--- old.c\t2024-01-01 10:00:00\n"
		"+++ new.c\t2024-01-01 10:00:00\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n", 5);

	check(nth(files, 0), 'M', "fs/b.bin", NULL, -1, -1);
	g_assert_true(nth(files, 0)->binary);
	check(nth(files, 1), 'A', "fs/new.c", NULL, 1, 0);
	check(nth(files, 2), 'M', "fs/x.c", NULL, 1, 1);
	check(nth(files, 3), 'M', "fs/y.c", NULL, 1, 0);
	check(nth(files, 4), 'M', "new.c", NULL, 1, 1);
	for (guint i = 0; i < files->len; i++)
		g_assert_null(nth(files, i)->old_blob);
}

static void test_plain_dev_null(void)
{
	g_autoptr(GPtrArray) files = diff(
		"--- /dev/null\n"
		"+++ b/tools/new.sh\n"
		"@@ -0,0 +1,2 @@\n"
		"+#!/bin/sh\n"
		"+exit 0\n"
		"--- a/tools/old.sh\n"
		"+++ /dev/null\n"
		"@@ -1 +0,0 @@\n"
		"-exit 1\n"
		"--- /dev/null\n"
		"+++ top.txt\n"
		"@@ -0,0 +1 @@\n"
		"+x\n", 3);

	check(nth(files, 0), 'A', "tools/new.sh", NULL, 2, 0);
	check(nth(files, 1), 'D', "tools/old.sh", NULL, 0, 1);
	check(nth(files, 2), 'A', "top.txt", NULL, 1, 0);
}

static void test_index_style(void)
{
	g_autoptr(GPtrArray) files = diff(
		"Index: trunk/src/main.c\n"
		"===================================================================\n"
		"--- trunk/src/main.c\t(revision 1234)\n"
		"+++ trunk/src/main.c\t(working copy)\n"
		"@@ -3,3 +3,4 @@\n"
		" a\n"
		"+b\n"
		" c\n"
		" d\n"
		"Index: linux-2.6/fs/ext4/inode.c\n"
		"===================================================================\n"
		"--- linux-2.6.orig/fs/ext4/inode.c\n"
		"+++ linux-2.6/fs/ext4/inode.c\n"
		"@@ -10,2 +10,1 @@\n"
		"-x\n"
		" y\n", 2);

	check(nth(files, 0), 'M', "trunk/src/main.c", NULL, 1, 0);
	check(nth(files, 1), 'M', "fs/ext4/inode.c", NULL, 0, 1);
}

static void test_no_prefix(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git drivers/net/baz.c drivers/net/baz.c\n"
		"new file mode 100644\n"
		"index 0000000..64cdb22\n"
		"--- /dev/null\n"
		"+++ drivers/net/baz.c\n"
		"@@ -0,0 +1 @@\n"
		"+x\n"
		"diff --git a/x.c a/x.c\n"
		"index 1111111..2222222 100644\n"
		"--- a/x.c\n"
		"+++ a/x.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n"
		"diff --git Makefile Makefile\n"
		"old mode 100644\n"
		"new mode 100755\n", 3);

	check(nth(files, 0), 'A', "drivers/net/baz.c", NULL, 1, 0);
	/* with --no-prefix, a top-level directory "a" stays */
	check(nth(files, 1), 'M', "a/x.c", NULL, 1, 1);
	check(nth(files, 2), 'M', "Makefile", NULL, 0, 0);
	g_assert_true(nth(files, 2)->mode_change);
}

static void test_mnemonic_prefix(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git i/kernel/sched.c w/kernel/sched.c\n"
		"index 1111111..2222222 100644\n"
		"--- i/kernel/sched.c\n"
		"+++ w/kernel/sched.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n"
		"diff --git c/mm/new.c o/mm/new.c\n"
		"new file mode 100644\n"
		"index 0000000..3333333\n"
		"--- /dev/null\n"
		"+++ o/mm/new.c\n"
		"@@ -0,0 +1 @@\n"
		"+x\n", 2);

	check(nth(files, 0), 'M', "kernel/sched.c", NULL, 1, 1);
	check(nth(files, 1), 'A', "mm/new.c", NULL, 1, 0);
}

static void test_no_trailing_newline(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/x.c b/x.c\n"
		"index 1111111..2222222 100644\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,2 +1,2 @@\n"
		" a\n"
		"-b\n"
		"+c", 1);

	check(nth(files, 0), 'M', "x.c", NULL, 1, 1);
}

static void test_not_nul_terminated(void)
{
	/* the text ends at len: the rest of the buffer must not be read */
	static const char text[] =
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1 +1,2 @@\n"
		" a\n"
		"+b\n"
		"+c\n";
	size_t len = strlen(text) - strlen("+c\n");
	g_autofree char *buf = g_memdup2(text, len);
	g_autoptr(GPtrArray) files = new_files();

	g_assert_cmpint(ccsift_diff_parse(buf, len, files), ==, 1);
	check(nth(files, 0), 'M', "x.c", NULL, 1, 0);
}

static void test_nul_bytes(void)
{
	static const char text[] =
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,2 +1,2 @@\n"
		" a\0b\n"
		"-\0\n"
		"+\0\0\0\n"
		"--- a/n\0ul.c\n"
		"+++ b/n\0ul.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n"
		"\0diff --git a/y.c b/y.c\n"
		"diff --git a/z.c b/z.c\n"
		"new file mode 100644\n"
		"--- /dev/null\n"
		"+++ b/z.c\n"
		"@@ -0,0 +1 @@\n"
		"+\0";
	g_autoptr(GPtrArray) files = new_files();

	/* a name with a NUL is no path; content with NULs is still content */
	g_assert_cmpint(ccsift_diff_parse(text, sizeof(text) - 1, files), ==, 2);
	check(nth(files, 0), 'M', "x.c", NULL, 1, 1);
	check(nth(files, 1), 'A', "z.c", NULL, 1, 0);
}

static void test_empty(void)
{
	g_autoptr(GPtrArray) files = new_files();

	g_assert_cmpint(ccsift_diff_parse("", 0, files), ==, 0);
	g_assert_cmpint(ccsift_diff_parse(NULL, 0, files), ==, 0);
	g_assert_cmpint(ccsift_diff_parse("\n\n\r\n", 4, files), ==, 0);
	g_assert_cmpint(ccsift_diffstat_parse("", 0, files), ==, 0);
	g_assert_cmpint(ccsift_diffstat_parse(NULL, 0, files), ==, 0);
	g_assert_cmpuint(files->len, ==, 0);
	g_assert_cmpint(ccsift_diff_parse(NULL, 5, files), <, 0);
	g_assert_cmpint(ccsift_diff_parse("x", 1, NULL), <, 0);
}

static void test_prose_dashes(void)
{
	/* "---"/"+++" lines without a hunk are prose, not a diff */
	g_autoptr(GPtrArray) files = diff(
		"Changes since v1:\n"
		"--- dropped the second hunk\n"
		"+++ added a comment\n"
		"and that is all.\n"
		"---\n"
		"--- one\n"
		"+++ two\n"
		"@@ nonsense @@\n"
		"diff --git\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"Binary files differ\n"
		"Binary files  differ\n"
		"Binary files x differ\n", 0);

	g_assert_cmpuint(files->len, ==, 0);
}

static void test_short_hunk(void)
{
	/* a hunk claiming more lines than it has ends at the next header */
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,10 +1,10 @@\n"
		"-a\n"
		"+b\n"
		"diff --git a/y.c b/y.c\n"
		"--- a/y.c\n"
		"+++ b/y.c\n"
		"@@ -1,999999999999999999999 +1,999999999999999999999 @@\n"
		"+b\n", 2);

	check(nth(files, 0), 'M', "x.c", NULL, 1, 1);
	check(nth(files, 1), 'M', "y.c", NULL, 1, 0);
}

static void test_blank_context(void)
{
	/* a mailer ate the space of an empty context line */
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,3 +1,3 @@\n"
		" a\n"
		"\n"
		"-b\n"
		"+c\n"
		"\n"
		"Thanks\n", 1);

	check(nth(files, 0), 'M', "x.c", NULL, 1, 1);
}

static void test_same_path_merged(void)
{
	/* two patches of a series in one text: one entry, counts summed */
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1 +1,2 @@\n"
		" a\n"
		"+b\n"
		"-- \n"
		"2.39.5\n"
		"\n"
		"diff --git a/x.c b/x.c\n"
		"--- a/x.c\n"
		"+++ b/x.c\n"
		"@@ -1,2 +1 @@\n"
		" a\n"
		"-b\n", 1);

	check(nth(files, 0), 'M', "x.c", NULL, 1, 1);
}

/* Deterministic garbage made of diff-ish pieces: no crash, sane results. */
static void test_fuzz(void)
{
	static const char *const pieces[] = {
		"diff --git ", "a/", "b/", "\"", "\\", "\\303", "--- ", "+++ ", "@@ -",
		"@@ -1,2 +1 @@", ",", "1", " ", "\t", "\n", "\r\n", "-- \n", "+", "-",
		"rename from ", "copy to ", "new file mode 100644\n", "old mode ",
		"index 0000..", "GIT binary patch\n", "Binary files ", " and ", " differ",
		" | ", "3 ++-", " 2 files changed", " create mode 100644 ", ".../",
		"{", " => ", "}", "(90%)", " rename ", "/dev/null", "\0", ">",
	};
	GRand *rand = g_rand_new_with_seed(42);

	for (int round = 0; round < 2000; round++) {
		g_autoptr(GPtrArray) files = new_files();
		GString *s = g_string_new(NULL);
		int n = g_rand_int_range(rand, 1, 80);
		int got;

		for (int i = 0; i < n; i++) {
			const char *p = pieces[g_rand_int_range(rand, 0, G_N_ELEMENTS(pieces))];

			g_string_append_len(s, p, *p ? (gssize)strlen(p) : 1);
		}
		got = ccsift_diff_parse(s->str, s->len, files);
		g_assert_cmpint(got, >=, 0);
		got += ccsift_diffstat_parse(s->str, s->len, files);
		g_assert_cmpint(got, >=, (int)files->len);
		for (guint i = 0; i < files->len; i++) {
			ccsift_file *f = files->pdata[i];

			g_assert_nonnull(f->path);
			g_assert_cmpuint(strlen(f->path), >, 0);
			g_assert_nonnull(strchr("ADMRCT?", f->status));
		}
		g_string_free(s, TRUE);
	}
	g_rand_free(rand);
}

/* Hostile shapes that would be quadratic with naive scanning. */
static void test_hostile_sizes(void)
{
	GString *s = g_string_new(NULL);
	g_autoptr(GPtrArray) files = new_files();
	g_autoptr(GTimer) timer = g_timer_new();

	/* many "---" lines that never become a diff */
	for (int i = 0; i < 200000; i++)
		g_string_append(s, "--- x\n");
	/* a diffstat of many truncated tails with one base name */
	for (int i = 0; i < 50000; i++)
		g_string_append(s, " .../deep/name.c | 1 +\n");
	g_string_append(s, " 50000 files changed\n");
	for (int i = 0; i < 50000; i++)
		g_string_append(s, " create mode 100644 other/name.c\n");
	/* one huge header line full of separators */
	g_string_append(s, "diff --git ");
	for (int i = 0; i < 200000; i++)
		g_string_append(s, "a/x ");
	g_string_append(s, "\n");
	/* a huge hunk */
	g_string_append(s, "--- a/big.c\n+++ b/big.c\n@@ -1,1000000000 +1,1000000000 @@\n");
	for (int i = 0; i < 200000; i++)
		g_string_append(s, "+-- \n");

	g_assert_cmpint(ccsift_diff_parse(s->str, s->len, files), ==, 1);
	check(nth(files, 0), 'M', "big.c", NULL, 200000, 0);
	/* all tails are one path; no create line resolves them */
	g_assert_cmpint(ccsift_diffstat_parse(s->str, s->len, files), ==, 1);
	g_assert_cmpuint(files->len, ==, 2);
	g_assert_cmpstr(nth(files, 1)->path, ==, "deep/name.c");
	g_assert_true(nth(files, 1)->truncated);
	/* generous: linear parsing takes well under a second */
	g_assert_cmpfloat(g_timer_elapsed(timer, NULL), <, 20.0);
	g_string_free(s, TRUE);
}

static void test_many_files(void)
{
	/* a flood of sections stops at a bound instead of going quadratic */
	GString *s = g_string_new(NULL);
	g_autoptr(GPtrArray) files = new_files();
	int got;

	for (int i = 0; i < 30000; i++)
		g_string_append_printf(s, "diff --git a/f%d b/f%d\nnew file mode 100644\n", i, i);
	got = ccsift_diff_parse(s->str, s->len, files);
	g_assert_cmpint(got, >, 1000);
	g_assert_cmpint(got, <=, 30000);
	g_assert_cmpuint(files->len, ==, got);
	check(nth(files, 0), 'A', "f0", NULL, 0, 0);
	g_string_free(s, TRUE);
}

/* Diffstats. */

static void test_stat_basic(void)
{
	g_autoptr(GPtrArray) files = stat(
		"Andrew Lunn (2):\n"
		"  net: foo: fix probe\n"
		"\n"
		" drivers/net/foo.c         | 12 ++++++------\n"
		" include/linux/foo.h       |  1 +\n"
		" firmware/foo.bin          | Bin 0 -> 1234 bytes\n"
		" 3 files changed, 7 insertions(+), 6 deletions(-)\n", 3);

	check(nth(files, 0), '?', "drivers/net/foo.c", NULL, 6, 6);
	check(nth(files, 1), '?', "include/linux/foo.h", NULL, 1, 0);
	check(nth(files, 2), '?', "firmware/foo.bin", NULL, -1, -1);
	g_assert_true(nth(files, 2)->binary);
	for (guint i = 0; i < files->len; i++) {
		g_assert_false(nth(files, i)->truncated);
		g_assert_null(nth(files, i)->old_blob);
	}
}

static void test_stat_scaled(void)
{
	/* a scaled graph only tells the total: counts are unknown */
	g_autoptr(GPtrArray) files = stat(
		" lib/big.c | 1200 +++++++++++++++++++++++++-----\n"
		" lib/small.c |    0\n"
		" 2 files changed, 1000 insertions(+), 200 deletions(-)\n", 2);

	check(nth(files, 0), '?', "lib/big.c", NULL, -1, -1);
	check(nth(files, 1), '?', "lib/small.c", NULL, 0, 0);
}

static void test_stat_truncated(void)
{
	g_autoptr(GPtrArray) files = stat(
		" .../name/that/goes/on/and/on/forever/new_file.c     |   7 +++++++\n"
		" .../net/ethernet/intel/ice/ice_main.c | 2 +-\n"
		" 2 files changed, 8 insertions(+), 1 deletion(-)\n"
		" create mode 100644 src/very/long/directory/name/that/goes/on/and/on/forever/new_file.c\n", 2);

	check(nth(files, 0), 'A',
	      "src/very/long/directory/name/that/goes/on/and/on/forever/new_file.c", NULL, 7, 0);
	g_assert_false(nth(files, 0)->truncated);
	check(nth(files, 1), '?', "net/ethernet/intel/ice/ice_main.c", NULL, 1, 1);
	g_assert_true(nth(files, 1)->truncated);
}

static void test_stat_truncated_tail_boundary(void)
{
	/* ".../c.c" is a whole component: "src/abc.c" does not resolve it */
	g_autoptr(GPtrArray) files = stat(
		" .../c.c | 1 +\n"
		" ...ong_name.c | 1 +\n"
		" 2 files changed, 2 insertions(+)\n"
		" create mode 100644 src/abc.c\n"
		" create mode 100644 drivers/a_very_long_name.c\n", 3);

	check(nth(files, 0), '?', "c.c", NULL, 1, 0);
	g_assert_true(nth(files, 0)->truncated);
	check(nth(files, 1), 'A', "drivers/a_very_long_name.c", NULL, 1, 0);
	g_assert_false(nth(files, 1)->truncated);
	check(nth(files, 2), 'A', "src/abc.c", NULL, -1, -1);
}

static void test_stat_brace_rename(void)
{
	g_autoptr(GPtrArray) files = stat(
		" drivers/net/{foo.c => bar.c}                        |   1 +\n"
		" {old => new}/file.c | 2 +-\n"
		" src/{ => sub}/x.c | 0\n"
		" old/path => new/path | 0\n"
		" 4 files changed, 2 insertions(+), 1 deletion(-)\n"
		" rename drivers/net/{foo.c => bar.c} (94%)\n", 4);

	check(nth(files, 0), 'R', "drivers/net/bar.c", "drivers/net/foo.c", 1, 0);
	check(nth(files, 1), 'R', "new/file.c", "old/file.c", 1, 1);
	check(nth(files, 2), 'R', "src/sub/x.c", "src/x.c", 0, 0);
	check(nth(files, 3), 'R', "new/path", "old/path", 0, 0);
}

static void test_stat_brace_rename_braced_names(void)
{
	/* names with braces of their own: git's braces are those after a '/'
	 * (or first) and before one (or last) */
	g_autoptr(GPtrArray) files = stat(
		" {{{c}} => x/{{c}}}/src/a.py | 0\n"
		" tmpl/{{n}.c => {n}2.c}      | 0\n"
		" 2 files changed, 0 insertions(+), 0 deletions(-)\n"
		" rename {{{c}} => x/{{c}}}/src/a.py (100%)\n"
		" rename tmpl/{{n}.c => {n}2.c} (100%)\n", 2);

	check(nth(files, 0), 'R', "x/{{c}}/src/a.py", "{{c}}/src/a.py", 0, 0);
	check(nth(files, 1), 'R', "tmpl/{n}2.c", "tmpl/{n}.c", 0, 0);
}

static void test_stat_rename_mode_change(void)
{
	/* git writes the mode change of a renamed file without its name,
	 * after the rename: the summary goes on past it */
	g_autoptr(GPtrArray) files = stat(
		" a/{x.sh => y.sh} | 0\n"
		" b.c              | 2 +-\n"
		" c/new.c          | 1 +\n"
		" d/old.c          | 1 -\n"
		" 4 files changed, 2 insertions(+), 2 deletions(-)\n"
		" rename a/{x.sh => y.sh} (100%)\n"
		" mode change 100644 => 100755\n"
		" create mode 100644 c/new.c\n"
		" delete mode 100644 d/old.c\n", 4);

	check(nth(files, 0), 'R', "a/y.sh", "a/x.sh", 0, 0);
	g_assert_true(nth(files, 0)->mode_change);
	check(nth(files, 1), '?', "b.c", NULL, 1, 1);
	g_assert_false(nth(files, 1)->mode_change);
	check(nth(files, 2), 'A', "c/new.c", NULL, 1, 0);
	check(nth(files, 3), 'D', "d/old.c", NULL, 0, 1);
}

static void test_stat_summary_lines(void)
{
	/* git's own output for a rename, a copy, a deletion and a mode change */
	g_autoptr(GPtrArray) files = stat(
		"---\n"
		" bin.dat                                             | Bin 2 -> 3 bytes\n"
		" drivers/net/{bar.c => baz.c}                        |   1 +\n"
		" \"src/caf\\303\\251 file.c\" => \"lib/na\\303\\257ve.c\"    |   0\n"
		" src/my file.c                                       |   3 ---\n"
		" .../goes/on/and/on/{forever => }/deep_file_name.c   |   0\n"
		" 5 files changed, 1 insertion(+), 3 deletions(-)\n"
		" mode change 100644 => 100755 bin.dat\n"
		" copy drivers/net/{bar.c => baz.c} (94%)\n"
		" rename \"src/caf\\303\\251 file.c\" => \"lib/na\\303\\257ve.c\" (100%)\n"
		" delete mode 100644 src/my file.c\n"
		" rename src/very/long/directory/name/that/goes/on/and/on/{forever => }/deep_file_name.c (100%)\n"
		"\n"
		"diff --git a/bin.dat b/bin.dat\n", 5);

	check(nth(files, 0), '?', "bin.dat", NULL, -1, -1);
	g_assert_true(nth(files, 0)->binary);
	g_assert_true(nth(files, 0)->mode_change);
	check(nth(files, 1), 'C', "drivers/net/baz.c", "drivers/net/bar.c", 1, 0);
	check(nth(files, 2), 'R', "lib/na\303\257ve.c", "src/caf\303\251 file.c", 0, 0);
	check(nth(files, 3), 'D', "src/my file.c", NULL, 0, 3);
	check(nth(files, 4), 'R', "src/very/long/directory/name/that/goes/on/and/on/deep_file_name.c",
	      "src/very/long/directory/name/that/goes/on/and/on/forever/deep_file_name.c", 0, 0);
	g_assert_false(nth(files, 4)->truncated);
}

static void test_stat_truncated_quoted(void)
{
	/* git cut the opening quote off with the front of the name */
	g_autoptr(GPtrArray) files = stat(
		" bin.dat                   | Bin 2 -> 3 bytes\n"
		" .../na\\303\\257ve.c\"       |   0\n"
		" \"src/caf\\303\\251.c\" | 1 +\n"
		" 3 files changed, 1 insertion(+)\n", 3);

	check(nth(files, 0), '?', "bin.dat", NULL, -1, -1);
	check(nth(files, 1), '?', "na\303\257ve.c", NULL, 0, 0);
	g_assert_true(nth(files, 1)->truncated);
	check(nth(files, 2), '?', "src/caf\303\251.c", NULL, 1, 0);
	g_assert_false(nth(files, 2)->truncated);
}

static void test_stat_prose(void)
{
	g_autoptr(GPtrArray) files = stat(
		"Use cat foo | grep bar to see it.\n"
		"The table:\n"
		" name | 3\n"
		" other | 4 ++\n"
		"\n"
		" 2 files changed, 5 insertions(+)\n"
		"| a | b |\n"
		"|---|---|\n"
		"| 1 | 2 |\n", 0);

	g_assert_cmpuint(files->len, ==, 0);
}

static void test_stat_quoted(void)
{
	g_autoptr(GPtrArray) files = stat(
		"> ---\n"
		">  drivers/net/foo.c | 2 +-\n"
		">  1 file changed, 1 insertion(+), 1 deletion(-)\n"
		">  create mode 100644 drivers/net/foo.c\n"
		"\n"
		" drivers/net/foo.c | 2 +-\n"
		">  1 file changed, 1 insertion(+), 1 deletion(-)\n", 0);

	g_assert_cmpuint(files->len, ==, 0);
}

static void test_stat_two_blocks_crlf(void)
{
	g_autoptr(GPtrArray) files = stat(
		" a.c | 1 +\r\n"
		" 1 file changed, 1 insertion(+)\r\n"
		" create mode 100644 a.c\r\n"
		"\r\n"
		"and later\r\n"
		" b.c | 1 -\r\n"
		" 1 file changed, 1 deletion(-)\r\n"
		" delete mode 100755 b.c", 2);

	check(nth(files, 0), 'A', "a.c", NULL, 1, 0);
	check(nth(files, 1), 'D', "b.c", NULL, 0, 1);
}

static void test_stat_nul(void)
{
	static const char text[] =
		" a\0b.c | 1 +\n"
		" ok.c | 2 ++\n"
		" 2 files changed, 3 insertions(+)\n"
		" create mode 100644 \0x\n";
	g_autoptr(GPtrArray) files = new_files();

	/* the NUL line is not a stat line: the block restarts after it */
	g_assert_cmpint(ccsift_diffstat_parse(text, sizeof(text) - 1, files), ==, 1);
	check(nth(files, 0), '?', "ok.c", NULL, 2, 0);
}

static void test_diff_then_stat_counts(void)
{
	/* a format-patch mail: the diffstat counts the lines of the diff, so
	 * reading both (as a mail is read: diffs, then diffstats) counts them
	 * once; "a.c | 2 +-" is no second change of +1 -1 */
	const char *text =
		"---\n"
		" a.c | 2 +-\n"
		" b.c | 1 +\n"
		" 2 files changed, 2 insertions(+), 1 deletion(-)\n"
		"\n"
		"diff --git a/a.c b/a.c\n"
		"index 1234567..89abcde 100644\n"
		"--- a/a.c\n"
		"+++ b/a.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n"
		"diff --git a/b.c b/b.c\n"
		"index 7654321..edcba98 100644\n"
		"--- a/b.c\n"
		"+++ b/b.c\n"
		"@@ -1 +1,2 @@\n"
		" a\n"
		"+b\n";
	g_autoptr(GPtrArray) files = new_files();

	g_assert_cmpint(ccsift_diff_parse(text, strlen(text), files), ==, 2);
	g_assert_cmpint(ccsift_diffstat_parse(text, strlen(text), files), ==, 2);
	g_assert_cmpuint(files->len, ==, 2);
	check(nth(files, 0), 'M', "a.c", NULL, 1, 1);
	check(nth(files, 1), 'M', "b.c", NULL, 1, 0);
}

static void test_stat_summary_then_diff(void)
{
	/* format-patch --attach: the diffstat (its summary saying "rename")
	 * in the body, the diff in the attachment read after it. The diff's
	 * view is kept, with its pre-image blob and its counts, once. */
	const char *body =
		" a.c => b.c | 2 +-\n"
		" 1 file changed, 1 insertion(+), 1 deletion(-)\n"
		" rename a.c => b.c (90%)\n";
	const char *attachment =
		"diff --git a/a.c b/b.c\n"
		"similarity index 90%\n"
		"rename from a.c\n"
		"rename to b.c\n"
		"index 1234567..89abcde 100644\n"
		"--- a/a.c\n"
		"+++ b/b.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n";
	g_autoptr(GPtrArray) files = new_files();

	g_assert_cmpint(ccsift_diffstat_parse(body, strlen(body), files), ==, 1);
	g_assert_cmpint(ccsift_diff_parse(attachment, strlen(attachment), files), ==, 1);
	g_assert_cmpuint(files->len, ==, 1);
	check(nth(files, 0), 'R', "b.c", "a.c", 1, 1);
	g_assert_cmpstr(nth(files, 0)->old_blob, ==, "1234567");
	g_assert_false(nth(files, 0)->from_stat);
}

static void test_stat_compact_summary(void)
{
	/* git format-patch --cover-letter --compact-summary: the summary
	 * lines' news after the names, which stay the files' names */
	g_autoptr(GPtrArray) files = stat(
		" lib/a.c                  |  2 +-\n"
		" \"lib/caf\\303\\251.c\" (new) | 30 ++\n"
		" lib/new.c (new)          | 30 ++\n"
		" ...ong/path/run.sh (new +x) | 1 +\n"
		" old.c (gone)             | 20 --\n"
		" run.sh (mode +x)         |  0\n"
		" lib/{x.c => y.c} (mode -x) | 0\n"
		" 7 files changed, 63 insertions(+), 21 deletions(-)\n"
		" create mode 100644 \"lib/caf\\303\\251.c\"\n"
		" create mode 100644 lib/new.c\n"
		" create mode 100755 a/long/path/run.sh\n"
		" delete mode 100644 old.c\n"
		" mode change 100644 => 100755 run.sh\n"
		" rename lib/{x.c => y.c} (100%)\n", 7);

	check(nth(files, 0), '?', "lib/a.c", NULL, 1, 1);
	check(nth(files, 1), 'A', "lib/caf\303\251.c", NULL, -1, -1);
	check(nth(files, 2), 'A', "lib/new.c", NULL, -1, -1);
	check(nth(files, 3), 'A', "a/long/path/run.sh", NULL, 1, 0);
	check(nth(files, 4), 'D', "old.c", NULL, -1, -1);
	check(nth(files, 5), '?', "run.sh", NULL, 0, 0);
	g_assert_true(nth(files, 5)->mode_change);
	check(nth(files, 6), 'R', "lib/y.c", "lib/x.c", 0, 0);
	g_assert_true(nth(files, 6)->mode_change);
}

static void test_stat_diff_merge(void)
{
	/* a diffstat then a diff of the same file: the diff's view wins */
	const char *text =
		" .../net/foo.c | 2 +-\n"
		" 1 file changed, 1 insertion(+), 1 deletion(-)\n"
		"\n"
		"diff --git a/drivers/net/foo.c b/drivers/net/foo.c\n"
		"index 1234567..89abcde 100644\n"
		"--- a/drivers/net/foo.c\n"
		"+++ b/drivers/net/foo.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n";
	g_autoptr(GPtrArray) files = new_files();

	g_assert_cmpint(ccsift_diffstat_parse(text, strlen(text), files), ==, 1);
	g_assert_cmpint(ccsift_diff_parse(text, strlen(text), files), ==, 1);
	/* the truncated tail is the same file: one entry, the diff's */
	g_assert_cmpuint(files->len, ==, 1);
	check(nth(files, 0), 'M', "drivers/net/foo.c", NULL, 1, 1);
	g_assert_false(nth(files, 0)->truncated);
	g_assert_cmpstr(nth(files, 0)->old_blob, ==, "1234567");
}

/* git apply collapses "//" and drops "./"; ".." stays as it is (refused). */
static void test_normalised_paths(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git a/drivers//net/foo.c b/drivers//net/foo.c\n"
		"--- a/drivers//net/foo.c\n"
		"+++ b/drivers//net/foo.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n"
		"--- a/./fs//x.c\n"
		"+++ b/./fs//x.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n"
		"--- a/../etc/passwd\n"
		"+++ b/../etc/passwd\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n", 3);

	check(nth(files, 0), 'M', "drivers/net/foo.c", NULL, 1, 1);
	check(nth(files, 1), 'M', "fs/x.c", NULL, 1, 1);
	check(nth(files, 2), 'M', "../etc/passwd", NULL, 1, 1);
}

/* A quoted "" names no file: a deletion of it is no file at all (and
 * never a file with an empty path), and the next section is read. */
static void test_empty_quoted_names(void)
{
	g_autoptr(GPtrArray) files = diff(
		"diff --git \"\" b/gone.c\n"
		"deleted file mode 100644\n"
		"diff --git a/\"\" \"\"\n"
		"rename from \"\"\n"
		"rename to \"\"\n"
		"diff --git a/kept.c b/kept.c\n"
		"--- a/kept.c\n"
		"+++ b/kept.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n", 1);

	check(nth(files, 0), 'M', "kept.c", NULL, 1, 1);
}

/* quilt: a new file keeps no "cifs-2.6/" its modified neighbours lose */
static void test_quilt_new_file(void)
{
	g_autoptr(GPtrArray) files = diff(
		"--- /dev/null\n"
		"+++ cifs-2.6/fs/cifs/fscache.c\n"
		"@@ -0,0 +1 @@\n"
		"+b\n"
		"--- linux-2.6.orig/fs/cifs/file.c\n"
		"+++ cifs-2.6/fs/cifs/file.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n"
		"--- cifs-2.6/fs/cifs/old.c\n"
		"+++ /dev/null\n"
		"@@ -1 +0,0 @@\n"
		"-a\n", 3);

	check(nth(files, 0), 'A', "fs/cifs/fscache.c", NULL, 1, 0);
	check(nth(files, 1), 'M', "fs/cifs/file.c", NULL, 1, 1);
	check(nth(files, 2), 'D', "fs/cifs/old.c", NULL, 0, 1);
}

/* a -p0 patch (both sides under one name) keeps the component on new files */
static void test_p0_new_file(void)
{
	g_autoptr(GPtrArray) files = diff(
		"--- fs/file.c\n"
		"+++ fs/file.c\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n"
		"--- /dev/null\n"
		"+++ fs/new.c\n"
		"@@ -0,0 +1 @@\n"
		"+b\n", 2);

	check(nth(files, 1), 'A', "fs/new.c", NULL, 1, 0);
}

/* mailers leave trailing blanks; git cuts "{a => b}" after the arrow */
static void test_stat_trailing_blanks_and_cut_brace(void)
{
	g_autoptr(GPtrArray) files = stat(
		" include/linux/time.h                   | 2 +-   \n"
		" .../erland-001-a-long-name.patch}      | 0\n"
		" ...ng-dir/{a.c => b.c}                 | 0\n"
		" 3 files changed, 1 insertion(+), 1 deletion(-)   \n"
		" create mode 100644 include/linux/time2.h        \n"
		" mode change 100644 => 100755 scripts/x.sh   \n", 5);

	check(nth(files, 0), '?', "include/linux/time.h", NULL, 1, 1);
	g_assert_cmpstr(nth(files, 1)->path, ==, "erland-001-a-long-name.patch");
	g_assert_true(nth(files, 1)->truncated);
	g_assert_cmpstr(nth(files, 2)->path, ==, "ng-dir/b.c");
	check(nth(files, 3), 'A', "include/linux/time2.h", NULL, -1, -1);
	g_assert_cmpstr(nth(files, 4)->path, ==, "scripts/x.sh");
	g_assert_true(nth(files, 4)->mode_change);
}

/* The file index: tails meet full paths whichever comes first, and a
 * flood of them is merged, not compared pairwise. */
static void test_index_tails(void)
{
	g_autoptr(GPtrArray) files = new_files();
	ccsift_file_index *ix = ccsift_file_index_new(files);
	ccsift_file *t = ccsift_file_new('?', "net/foo.c", NULL);
	ccsift_file *p = ccsift_file_new('?', "ame.c", NULL);

	t->truncated = 1;
	p->truncated = p->partial_tail = 1;
	ccsift_file_index_add(ix, t);
	ccsift_file_index_add(ix, p);
	ccsift_file_index_add(ix, ccsift_file_new('M', "drivers/net/foo.c", NULL));
	ccsift_file_index_add(ix, ccsift_file_new('A', "fs/name.c", NULL));
	g_assert_cmpuint(files->len, ==, 2);
	g_assert_cmpstr(nth(files, 0)->path, ==, "drivers/net/foo.c");
	g_assert_cmpstr(nth(files, 1)->path, ==, "fs/name.c");
	/* and the other way round: a tail of a known path is dropped */
	t = ccsift_file_new('?', "foo.c", NULL);
	t->truncated = 1;
	ccsift_file_index_add(ix, t);
	g_assert_cmpuint(files->len, ==, 2);
	g_assert_true(ccsift_file_index_lookup(ix, "fs/name.c") == nth(files, 1));
	for (int i = 0; i < 100000; i++) {
		t = ccsift_file_new('?', "zzz.c", NULL);
		t->truncated = 1;
		ccsift_file_index_add(ix, t);
	}
	g_assert_cmpuint(files->len, ==, 3);
	ccsift_file_index_free(ix);
}

/* ccsift_path_unquote */

static void check_unquote(const char *in, const char *expect)
{
	g_autofree char *out = ccsift_path_unquote(in, strlen(in));

	g_assert_cmpstr(out, ==, expect);
}

static void test_unquote(void)
{
	g_autofree char *part = NULL;

	check_unquote("plain/path.c", "plain/path.c");
	check_unquote("", "");
	check_unquote("\"src/caf\\303\\251 file.c\"", "src/caf\303\251 file.c");
	check_unquote("\"\\a\\b\\t\\n\\v\\f\\r\\\"\\\\\"", "\a\b\t\n\v\f\r\"\\");
	check_unquote("\"tab\\there\"\ttrailing", "tab\there");
	check_unquote("\"\\101\\102\\103\"", "ABC");
	/* malformed */
	check_unquote("\"unterminated", NULL);
	check_unquote("\"bad \\q escape\"", NULL);
	check_unquote("\"short \\30\"", NULL);
	check_unquote("\"octal \\400\"", NULL);
	check_unquote("\"nul \\000 byte\"", NULL);
	check_unquote("\"ends in backslash\\", NULL);
	check_unquote("\"", NULL);
	/* len is respected */
	part = ccsift_path_unquote("src/a.cGARBAGE", 7);
	g_assert_cmpstr(part, ==, "src/a.c");
	g_clear_pointer(&part, g_free);
	part = ccsift_path_unquote("\"a\\303\"", 5);
	g_assert_null(part);
	g_assert_null(ccsift_path_unquote(NULL, 0));
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);

	g_test_add_func("/diff/format-patch", test_format_patch);
	g_test_add_func("/diff/multiple-hunks", test_multiple_hunks);
	g_test_add_func("/diff/new-file", test_new_file);
	g_test_add_func("/diff/deleted-file", test_deleted_file);
	g_test_add_func("/diff/empty-new-and-deleted", test_empty_new_file);
	g_test_add_func("/diff/rename-pure", test_rename_pure);
	g_test_add_func("/diff/rename-with-edit", test_rename_with_edit);
	g_test_add_func("/diff/copy", test_copy);
	g_test_add_func("/diff/mode-change", test_mode_change);
	g_test_add_func("/diff/type-change", test_type_change);
	g_test_add_func("/diff/binary-differ", test_binary_differ);
	g_test_add_func("/diff/binary-patch", test_binary_patch);
	g_test_add_func("/diff/quoted-octal-path", test_quoted_octal);
	g_test_add_func("/diff/quoted-escapes", test_quoted_escapes);
	g_test_add_func("/diff/space-in-path-tab", test_space_tab);
	g_test_add_func("/diff/trailing-blanks", test_trailing_blanks);
	g_test_add_func("/diff/space-in-path-mode-only", test_space_mode_only);
	g_test_add_func("/diff/crlf", test_crlf);
	g_test_add_func("/diff/hunk-content-dashes", test_hunk_dashes);
	g_test_add_func("/diff/signature", test_signature);
	g_test_add_func("/diff/quoted-reply", test_quoted_reply);
	g_test_add_func("/diff/reply-interrupts-hunk", test_reply_interrupts_hunk);
	g_test_add_func("/diff/plain-diff-u", test_plain_diff_u);
	g_test_add_func("/diff/plain-dev-null", test_plain_dev_null);
	g_test_add_func("/diff/index-style", test_index_style);
	g_test_add_func("/diff/no-prefix", test_no_prefix);
	g_test_add_func("/diff/mnemonic-prefix", test_mnemonic_prefix);
	g_test_add_func("/diff/no-trailing-newline", test_no_trailing_newline);
	g_test_add_func("/diff/not-nul-terminated", test_not_nul_terminated);
	g_test_add_func("/diff/nul-bytes", test_nul_bytes);
	g_test_add_func("/diff/empty", test_empty);
	g_test_add_func("/diff/prose-dashes", test_prose_dashes);
	g_test_add_func("/diff/short-hunk", test_short_hunk);
	g_test_add_func("/diff/blank-context", test_blank_context);
	g_test_add_func("/diff/same-path-merged", test_same_path_merged);
	g_test_add_func("/diff/fuzz", test_fuzz);
	g_test_add_func("/diff/hostile-sizes", test_hostile_sizes);
	g_test_add_func("/diff/many-files", test_many_files);
	g_test_add_func("/diff/normalised-paths", test_normalised_paths);
	g_test_add_func("/diff/empty-quoted-names", test_empty_quoted_names);
	g_test_add_func("/diff/quilt-new-file", test_quilt_new_file);
	g_test_add_func("/diff/p0-new-file", test_p0_new_file);
	g_test_add_func("/diff/index-tails", test_index_tails);

	g_test_add_func("/diffstat/basic", test_stat_basic);
	g_test_add_func("/diffstat/scaled-graph", test_stat_scaled);
	g_test_add_func("/diffstat/truncated-create-mode", test_stat_truncated);
	g_test_add_func("/diffstat/truncated-tail-boundary", test_stat_truncated_tail_boundary);
	g_test_add_func("/diffstat/brace-rename", test_stat_brace_rename);
	g_test_add_func("/diffstat/brace-rename-braced-names", test_stat_brace_rename_braced_names);
	g_test_add_func("/diffstat/summary-lines", test_stat_summary_lines);
	g_test_add_func("/diffstat/rename-mode-change", test_stat_rename_mode_change);
	g_test_add_func("/diffstat/truncated-quoted", test_stat_truncated_quoted);
	g_test_add_func("/diffstat/prose-not-diffstat", test_stat_prose);
	g_test_add_func("/diffstat/quoted-reply", test_stat_quoted);
	g_test_add_func("/diffstat/two-blocks-crlf", test_stat_two_blocks_crlf);
	g_test_add_func("/diffstat/nul-bytes", test_stat_nul);
	g_test_add_func("/diffstat/then-diff", test_stat_diff_merge);
	g_test_add_func("/diffstat/compact-summary", test_stat_compact_summary);
	g_test_add_func("/diffstat/after-diff-counts-once", test_diff_then_stat_counts);
	g_test_add_func("/diffstat/summary-then-diff", test_stat_summary_then_diff);
	g_test_add_func("/diffstat/trailing-blanks-cut-brace", test_stat_trailing_blanks_and_cut_brace);

	g_test_add_func("/diff/path-unquote", test_unquote);

	return g_test_run();
}
