/* repo.h: the user's clone, opened with libgit2; nothing in it is executed. */
#ifndef CCSIFT_REPO_H
#define CCSIFT_REPO_H

#include "git.h"
#include "pack.h"
#include <glib.h>

typedef struct ccsift_repo ccsift_repo;

/* Call once per process (idempotent). */
void ccsift_repo_init(void);

/* Open the repository at path (a work tree or a git dir); ref NULL means HEAD. */
int ccsift_repo_open(ccsift_repo **out, const char *path, const char *ref);
/* The same, deferring libgit2 (whose start costs milliseconds) to the first
 * call that needs the object database: the delivery path often does not. */
int ccsift_repo_open_lazy(ccsift_repo **out, const char *path, const char *ref);
void ccsift_repo_free(ccsift_repo *repo);
/* Close libgit2's repository, its packs' maps and its object cache, until
 * the next call that needs them opens it again (its mailmap is kept): the
 * pages of a pack that a walk of all history read count in the process's
 * RSS for as long as the pack is mapped. */
void ccsift_repo_release(ccsift_repo *repo);

/* NULL if the repository cannot be opened. */
git_repository *ccsift_repo_git(ccsift_repo *repo);
const char *ccsift_repo_gitdir(ccsift_repo *repo);
const char *ccsift_repo_ref(ccsift_repo *repo);
/* Its packs, read without libgit2's locks (pack.h), by the one thread that
 * uses this repository; NULL when it has none. */
ccsift_pack_reader *ccsift_repo_packs(ccsift_repo *repo);
/* The tree of a commit, without parsing the rest of it. */
int ccsift_repo_commit_tree(ccsift_repo *repo, const git_oid *commit, git_oid *tree);
/* A shallow clone's commits whose parents it lacks (shallow.h): what they
 * changed is unknown. The digest ("" if the clone is not shallow) changes
 * when the clone is deepened. */
gboolean ccsift_repo_is_shallow_boundary(ccsift_repo *repo, const git_oid *oid);
const char *ccsift_repo_shallow_digest(ccsift_repo *repo);

/* The commit the ref names now. */
int ccsift_repo_tip(ccsift_repo *repo, git_oid *out);

/* The canonical (mailmapped, lowercased) email for name/email. New string. */
char *ccsift_repo_canonical_email(ccsift_repo *repo, const char *name, const char *email);
/* Same, also returning the canonical name (new string, may be NULL). */
char *ccsift_repo_canonical(ccsift_repo *repo, const char *name, const char *email, char **name_out);
/* The blob id of the .mailmap those two read (the ref's, when the
 * repository was first opened), "" when there is none: when it changes,
 * old commits map to other people. */
const char *ccsift_repo_mailmap_id(ccsift_repo *repo);

/* A file's content at the ref's tree (MAINTAINERS, .git-blame-ignore-revs),
 * read from the object database, never from the work tree. NULL if absent,
 * not a regular file, or over 16 MiB. */
GBytes *ccsift_repo_read_file(ccsift_repo *repo, const char *path);

/* The message of commit hex (full id), or NULL. */
char *ccsift_repo_commit_message(ccsift_repo *repo, const char *hex);

/* A file's content in the tree of commit hex (or of its first parent when
 * parent is TRUE), and its blob id into blob_hex (41 bytes) if not NULL. */
GBytes *ccsift_repo_read_file_at(ccsift_repo *repo, const char *hex, gboolean parent, const char *path,
				 char *blob_hex);

/* Only the blob id of that file (a regular one) into blob_hex (41 bytes):
 * what a cache of what was read of it asks first. FALSE if there is none. */
gboolean ccsift_repo_file_id_at(ccsift_repo *repo, const char *hex, gboolean parent, const char *path,
				char *blob_hex);

/* Does the object database hold a blob with this (abbreviated) id? */
gboolean ccsift_repo_has_object(ccsift_repo *repo, const char *hex);

/* Lines added and removed in path by commit oid (against its first parent),
 * ignoring whitespace-only changes. Returns 0, or <0 when a blob is missing. */
int ccsift_repo_line_counts(ccsift_repo *repo, const char *oid, const char *path,
			    const char *old_path, int *added, int *removed);

#endif
