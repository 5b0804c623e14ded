/* odb.c: what ccsift's object database backends share (odb.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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

char *ccsift_odb_read_small_file(const char *path, gsize max)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *text = NULL;
	gsize got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (guint64)st.st_size > max)
		goto out;
	text = g_malloc((gsize)st.st_size + 1);
	while (got < (gsize)st.st_size) {  /* a file that shrank meanwhile: what is there */
		ssize_t n = read(fd, text + got, (gsize)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (gsize)n;
	}
	text[got] = '\0';
out:
	close(fd);
	return text;
}

char **ccsift_odb_alternates(const char *objects_dir)
{
	g_autofree char *file = g_build_filename(objects_dir, "info", "alternates", NULL);
	g_autofree char *text = ccsift_odb_read_small_file(file, 1 << 20);   /* a few paths */
	GPtrArray *out = g_ptr_array_new();

	for (char *line = text, *next; line && *line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		g_strstrip(line);
		if (!*line || *line == '#' || *line == '"')
			continue;
		g_ptr_array_add(out, g_path_is_absolute(line) ? g_strdup(line) : g_build_filename(objects_dir, line, NULL));
	}
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}
