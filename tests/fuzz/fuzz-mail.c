/* fuzz-mail.c: libFuzzer harness for ccsift_mail_parse().
 *
 * The bytes are one message as procmail or notmuch would hand it over;
 * every message must parse or be refused, without leaks. No size cap:
 * the one superlinear spot known needs inputs far beyond libFuzzer's few
 * KB, and a timeout here would be a finding, not noise. It is files merged
 * across parts, as ccsift_patch_add_file() scans the list (4 parts of
 * 10,000 diffs, 1.1 MB: 4 s without sanitizers, 83 s with).
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include "mail.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	ccsift_mail_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ccsift_patch *patch = NULL;

	if (ccsift_mail_parse(&patch, (const char *)data, size) < 0) {
		/* refused: nothing may have been handed out */
		if (patch)
			abort();
		return 0;
	}
	/* what the scorer reads first: a file entry always has a path */
	for (guint i = 0; i < patch->files->len; i++) {
		const ccsift_file *f = patch->files->pdata[i];

		if (!f || !f->path)
			abort();
	}
	(void)ccsift_patch_kind_name(patch->kind);
	ccsift_patch_free(patch);
	return 0;
}
