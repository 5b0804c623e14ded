/* pack.h: objects read straight from a repository's packs, without locks.
 *
 * libgit2 1.5 keeps one git_pack_file per pack for the whole process and
 * takes its mutexes (and one global mutex for its map windows) several
 * times for every object it reads: indexing a history, the two tree-diff
 * workers and the revision walk spent more of their time waiting on those
 * locks than inflating objects. Here a repository's packs are mapped once
 * per process and read by any number of threads, each with a reader of its
 * own (its zlib stream and its cache of delta bases).
 *
 * Only what git's pack format version 2 says, checked at every step: an
 * object this cannot read (loose, a version 1 index, a pack that does not
 * parse) is not found here, and the caller reads it through libgit2,
 * which says what is wrong with it. The packs of the object stores named
 * in objects/info/alternates are read as the repository's own.
 */
#ifndef CCSIFT_PACK_H
#define CCSIFT_PACK_H

#include "git.h"

/* One thread's reader of a repository's packs (mapped once per process). */
typedef struct ccsift_pack_reader ccsift_pack_reader;

/* The packs in objects_dir/pack (the same ones for every caller naming the
 * same directory, until the last reader is freed). NULL when it has none. */
ccsift_pack_reader *ccsift_pack_reader_new(const char *objects_dir);
ccsift_pack_reader *ccsift_pack_reader_ref(ccsift_pack_reader *r);

/*
 * Let r keep more of what it read: a walk of a whole history reads each
 * tree again as the next commit's parent's, and the bases of its deltas
 * again and again. r starts with a 32nd of the packs' size, between 4 and
 * 32 MiB (at Linux's size 4 MiB made the walk a fifth slower), and doubles
 * it, up to 32 MiB, while it lets go of objects and inflates a quarter
 * more pack entries than it reads objects: it walks back through deltas
 * to bases it let go (the synthetic history's many small trees: a sixth
 * of a first build's CPU). Where that is not so, a bigger cache serves
 * nothing more (LTP, U-Boot) and costs memory: on LTP it took the build's
 * peak over git log's. git log's delta-base cache is 96 MiB. Not for a
 * delivery, whose reader must stay small.
 */
void ccsift_pack_reader_cache_for_walk(ccsift_pack_reader *r);
void ccsift_pack_reader_unref(ccsift_pack_reader *r);

/*
 * Let libgit2 read repo's objects (git_commit_lookup, git_odb_read, ...)
 * through r too, ahead of its own stores and behind a shallow clone's
 * boundary: what the thread reads either way is read and cached once.
 * 0, or negative when the object database cannot take it (nothing
 * changes then).
 */
int ccsift_pack_attach(ccsift_pack_reader *r, git_repository *repo);

/*
 * Object id, whole, if a pack has it and it is at most max_size bytes:
 * 0, its type and its bytes (a reference the caller drops). Negative when
 * it is not found here, too big, or cannot be read (the caller asks
 * libgit2, which reports why).
 */
int ccsift_pack_read(ccsift_pack_reader *r, const git_oid *id, size_t max_size, git_object_t *type,
		     GBytes **out);

/* Only the type and size of object id (a delta's first bytes inflated). */
int ccsift_pack_read_header(ccsift_pack_reader *r, const git_oid *id, git_object_t *type, size_t *size);

#endif
