/* fuzz-maintainers.c: libFuzzer harness for the MAINTAINERS parser and matcher.
 *
 * Matching is sections x patterns x paths, and N: entries are regular
 * expressions that may backtrack (PCRE's match limit bounds each match,
 * not their sum), as they do for get_maintainer.pl: superlinear by design.
 * The file comes from the user's own tree, so inputs are capped at
 * MAX_TEXT and at a few paths taken from the input.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "maintainers.h"

#define MAX_TEXT (16 * 1024)
#define MAX_PATH 256
#define MAX_INPUT_PATHS 4

static const char *const fixed_paths[] = {
	"Makefile",
	"drivers/net/a.c",
	"drivers/net/ethernet/intel/e1000/e1000_main.c",
	"include/linux/crc32.h",
	"Documentation/",
	"",
};

/* A tree with a few directories, so plain names may turn into dir/ patterns. */
static gboolean is_dir(const char *pattern, void *payload)
{
	static const char *const dirs[] = { "drivers", "drivers/net", "net", "include/linux" };

	for (size_t i = 0; i < G_N_ELEMENTS(dirs); i++)
		if (strcmp(pattern, dirs[i]) == 0)
			return TRUE;
	return FALSE;
}

static void match(const ccsift_maintainers *m, const char *path)
{
	GPtrArray *out = g_ptr_array_new();
	int n = ccsift_maintainers_match(m, path, out);

	if (n < 0 || (guint)n != out->len)
		abort();
	for (guint i = 0; i < out->len; i++) {
		const ccsift_maintainer *p = out->pdata[i];

		/* what get_maintainer.pl prints must be there */
		if ((p->role != 'M' && p->role != 'R') || !p->name || !p->email ||
		    !strchr(p->email, '@') || !p->section)
			abort();
	}
	g_ptr_array_unref(out);
}

/* A path from the input: a line's text after skip bytes, as a C string. */
static char *input_path(const char *line, size_t len, size_t skip)
{
	const char *nul;

	if (skip > len)
		return NULL;
	line += skip;
	len = MIN(len - skip, MAX_PATH);
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if ((nul = memchr(line, '\0', len)))
		len = nul - line;
	return g_strndup(line, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *p = text, *end = text + size;
	ccsift_maintainers *m = NULL;
	int paths = 0;

	if (size > MAX_TEXT)
		return 0;
	if (ccsift_maintainers_parse(&m, text, size, is_dir, NULL) < 0 || !m)
		abort();  /* any text parses */
	for (size_t i = 0; i < G_N_ELEMENTS(fixed_paths); i++)
		match(m, fixed_paths[i]);
	/* the first line, and the first F:/X: values: patterns against themselves */
	while (p < end && paths < MAX_INPUT_PATHS) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = (nl ? nl : end) - p;
		char *path = NULL;

		if (p == text)
			path = input_path(p, n, 0);
		else if (n > 2 && (p[0] == 'F' || p[0] == 'X') && p[1] == ':')
			path = input_path(p, n, 2);
		if (path) {
			match(m, path);
			paths++;
			g_free(path);
		}
		p = nl ? nl + 1 : end;
	}
	(void)ccsift_maintainers_count(m);
	ccsift_maintainers_free(m);
	return 0;
}
