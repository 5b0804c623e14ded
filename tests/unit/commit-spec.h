/* commit-spec.h: commits made up for a test index, row by row, as a
 * walk of a history would give them, and the index's files removed after
 * (tests/unit/test-*.c). */
#ifndef CCSIFT_TEST_COMMIT_SPEC_H
#define CCSIFT_TEST_COMMIT_SPEC_H
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>
#include "index.h"

static const char *const emails[] = { "alice@example.org", "bob@example.org", "carol@example.org",
				      "dave@example.org" };

typedef struct {
	ccsift_commit_record rec;
	GStringChunk *strings;
} commit_spec;

static inline void add_credit(commit_spec *c, int who, ccsift_role role)
{
	ccsift_credit_record cr = { emails[who], emails[who], role, emails[who] };

	g_array_append_val(c->rec.credits, cr);
}

static inline void add_touch(commit_spec *c, char status, const char *path, const char *old, int lines)
{
	ccsift_touch_record t = { status, g_string_chunk_insert(c->strings, path),
				  old ? g_string_chunk_insert(c->strings, old) : NULL, lines, lines >= 0 ? 1 : -1 };

	g_array_append_val(c->rec.touches, t);
}

static inline void commit_spec_init(commit_spec *c, int n, int64_t time)
{
	memset(c, 0, sizeof(*c));
	c->strings = g_string_chunk_new(256);
	g_snprintf(c->rec.oid, sizeof(c->rec.oid), "%040x", n + 1);
	static const char *const subjects[] = { NULL, "drv: a change", "Lib/x: another", "drv/sub: more",
						"DRV: loud", "[PATCH] drv: kept", "lib2: not lib" };

	c->rec.subject = subjects[n % 7] ? g_string_chunk_insert(c->strings, subjects[n % 7]) : NULL;
	c->rec.atime = c->rec.ctime = time;
	c->rec.credits = g_array_new(FALSE, FALSE, sizeof(ccsift_credit_record));
	c->rec.touches = g_array_new(FALSE, FALSE, sizeof(ccsift_touch_record));
}

static inline void commit_spec_add(ccsift_index *idx, commit_spec *c)
{
	c->rec.nfiles = c->rec.touches->len;
	c->rec.ntop = 1;
	g_assert_cmpint(ccsift_index_add_commit(idx, &c->rec), ==, 0);
	g_array_unref(c->rec.credits);
	g_array_unref(c->rec.touches);
	g_string_chunk_free(c->strings);
}

/* A test index's files gone: the database, its WAL, shared memory and lock. */
static inline void index_files_remove(const char *path)
{
	for (const char *const *suffix = (const char *const[]){ "", "-wal", "-shm", ".lock", NULL }; *suffix; suffix++) {
		g_autofree char *p = g_strconcat(path, *suffix, NULL);

		g_unlink(p);
	}
}

#endif
