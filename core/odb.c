/* odb.c: what ccsift's object database backends share (odb.h). */
#include <string.h>
#include "odb.h"

int ccsift_odb_add_backend(git_repository *repo, git_odb_backend *b, int priority)
{
	git_odb *odb = NULL;
	int rc = git_repository_odb(&odb, repo);

	if (rc == 0)
		rc = git_odb_add_backend(odb, b, priority);
	git_odb_free(odb);
	return rc;
}

int ccsift_odb_answer(git_odb_backend *b, GBytes *bytes, void **out, size_t *len)
{
	gsize n;
	const void *data = g_bytes_get_data(bytes, &n);

	if (!(*out = git_odb_backend_data_alloc(b, n ? n : 1)))
		return -1;
	memcpy(*out, data, n);
	*len = n;
	return 0;
}
