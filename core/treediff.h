/* treediff.h: the files one commit changed, from its tree and its parent's. */
#ifndef CCSIFT_TREEDIFF_H
#define CCSIFT_TREEDIFF_H

#include "git.h"
#include "index.h"

/*
 * Append to out a ccsift_touch_record (with new strings) for every file
 * that differs between two trees, either of which may be NULL (everything
 * added, or deleted): A, D, M, T (type change), R (renamed: exact blob
 * matches, then libgit2's similarity when few files are unpaired). With
 * count_lines, lines added and removed ignoring whitespace; -1 otherwise.
 * Returns 0, or a negative ccsift code when a tree cannot be read (the
 * message names the tree).
 */
int ccsift_treediff(git_repository *repo, const git_oid *old_tree, const git_oid *new_tree,
		    gboolean count_lines, GArray *out);

/* Lines added and removed between two blobs (either may be NULL: an added
 * or deleted file), whitespace ignored: the index's measure of a change.
 * The paths (may be NULL) are for libgit2's attributes. 0, or -1. */
int ccsift_treediff_blob_lines(const git_blob *old, const char *old_path, const git_blob *new,
			       const char *new_path, int *added, int *removed);

#endif
