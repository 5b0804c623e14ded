/* fuzz-diff.c: libFuzzer harness for the diff and diffstat parsers.
 *
 * The bytes are decoded body text, as ccsift_mail_parse() passes it: no
 * final NUL, maybe NULs inside. No size cap: diff.c reads each line a
 * bounded number of times, and MAX_FILES bounds the one quadratic part
 * (ccsift_patch_add_file() keeping paths unique).
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"

static void check_files(GPtrArray *files, int n)
{
	if (n < 0)
		abort();
	for (guint i = 0; i < files->len; i++) {
		const ccsift_file *f = files->pdata[i];

		/* a path is a non-empty C string (NULs are refused) */
		if (!f || !f->path || !*f->path)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	GPtrArray *files = g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_file_free);
	GPtrArray *stat = g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_file_free);
	char *path;

	check_files(files, ccsift_diff_parse(text, size, files));
	check_files(stat, ccsift_diffstat_parse(text, size, stat));
	/* both into one array, as mail.c does for a body */
	check_files(files, ccsift_diffstat_parse(text, size, files));
	g_ptr_array_unref(files);
	g_ptr_array_unref(stat);

	path = ccsift_path_unquote(text, size);
	/* an unquoted path is copied as a C string: up to a NUL */
	if (size && text[0] != '"') {
		size_t n = strnlen(text, size);

		if (!path || memcmp(path, text, n) != 0 || path[n])
			abort();
	}
	g_free(path);
	return 0;
}
