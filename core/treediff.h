/* treediff.h: the files one commit changed, from its tree and its parent's. */
#ifndef CCSIFT_TREEDIFF_H
#define CCSIFT_TREEDIFF_H

#include "git.h"
#include "index.h"
#include "pack.h"

/*
 * Append to out a ccsift_touch_record (with new strings) for every file
 * that differs between two trees, either of which may be NULL (everything
 * added, or deleted): A, D, M, T (type change), R (renamed: exact blob
 * matches, then libgit2's similarity when few files are unpaired). With
 * count_lines, lines added and removed ignoring whitespace; -1 otherwise.
 * Returns 0, or a negative ccsift code when a tree cannot be read (the
 * message names the tree). Trees are read from packs (may be NULL) where
 * they are, through libgit2 otherwise.
 */
int ccsift_treediff(git_repository *repo, ccsift_pack_reader *packs, const git_oid *old_tree,
		    const git_oid *new_tree, gboolean count_lines, GArray *out);

/* Files bigger than this are never read whole: their lines are not
 * counted and they are not compared for renames (git does neither past
 * core.bigFileThreshold); reading one whole, twice, is what it costs. */
#define CCSIFT_TREEDIFF_BLOB_MAX (16u << 20)
/* Nor are two blobs' lines counted past this many lines between them: the
 * diff holds some 135 bytes a line (a rewrite of a file of two million
 * short lines took 540 MB and 35 s), and a count that big says "a lot"
 * whatever its value. */
#define CCSIFT_TREEDIFF_LINES_MAX 1000000

/* Is id a blob of at most max bytes? Its size is asked, not read. */
gboolean ccsift_treediff_blob_fits(git_odb *odb, const git_oid *id, size_t max);

/* Lines added and removed between two blobs, given by id (NULL or zero: an
 * added or deleted file), whitespace ignored: the index's measure of a
 * change. The paths (may be NULL) are for libgit2's attributes. 0, or -1
 * when a blob is missing (a partial clone) or too big. */
int ccsift_treediff_blob_lines(git_repository *repo, const git_oid *old_id, const char *old_path,
			       const git_oid *new_id, const char *new_path, int *added, int *removed);

#endif
