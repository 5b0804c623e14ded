/* odb.h: what ccsift's object database backends for libgit2 share
 * (a shallow clone's boundary, shallow.c; the packs read directly, pack.c). */
#ifndef CCSIFT_ODB_H
#define CCSIFT_ODB_H

#include "git.h"

/* Add b to repo's object database at priority (libgit2's loose and packed
 * stores are 1 and 2: higher is asked first). 0, or negative (b is not
 * added; the caller frees it). */
int ccsift_odb_add_backend(git_repository *repo, git_odb_backend *b, int priority);

/* A backend's read answered with a copy of bytes, in the buffer libgit2
 * takes: 0, or -1 if it cannot be had. */
int ccsift_odb_answer(git_odb_backend *b, GBytes *bytes, void **out, size_t *len);

/* A small file of the repository's (objects/info/alternates, shallow, a
 * ".git" file), which whoever owns the clone chose: its text (NUL ended,
 * a new string), or NULL when it is not a regular file of at most max
 * bytes. A FIFO does not block, /dev/zero is not read. */
char *ccsift_odb_read_small_file(const char *path, gsize max);

/* git's limit on alternates of alternates (and a bound on a cycle). */
#define CCSIFT_ODB_ALTERNATES_DEPTH 5
/* The object stores objects_dir/info/alternates names, each a path (a
 * relative one resolved against objects_dir), comments and quoted paths
 * left out (libgit2's); NULL-ended, never NULL. */
char **ccsift_odb_alternates(const char *objects_dir);

#endif
