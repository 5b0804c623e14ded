/* diff.h: touched files from the text of a diff or a diffstat.
 *
 * The text is decoded mail body text (UTF-8 or raw bytes; CRLF tolerated).
 * Nothing here opens a file: paths are data.
 */
#ifndef CCSIFT_DIFF_H
#define CCSIFT_DIFF_H

#include <glib.h>
#include "patch.h"

/* Files taken from one call at most, and in the list it adds to: a bound
 * on memory. A list this long may have been cut short. */
#define CCSIFT_DIFF_MAX_FILES 10000

/*
 * Find diffs in text: "diff --git" sections (renames, copies, mode changes,
 * new/deleted files, binary files, "index a..b" blob ids, +/- line counts),
 * plain "diff -u"/"---"/"+++" and "Index:" style diffs. Lines quoted with
 * "> " are not diffs. C-quoted paths are unquoted; the trailing TAB on
 * ---/+++ lines is removed. Files are added to files (ccsift_file *) with
 * ccsift_patch_add_file(). Returns the number of files found, or <0.
 */
int ccsift_diff_parse(const char *text, size_t len, GPtrArray *files);

/*
 * Find a diffstat ("path | 12 +++--", "1 file changed, ..." and the
 * "create mode"/"delete mode"/"rename" summary lines that follow it), as in
 * cover letters and request-pull mails. Paths shortened to ".../tail" are
 * added with truncated set and path = "tail". Returns files found, or <0.
 */
int ccsift_diffstat_parse(const char *text, size_t len, GPtrArray *files);

/* The same into the list of an index, which several calls may share: a
 * mail's parts then cost time linear in their files. */
int ccsift_diff_parse_into(const char *text, size_t len, ccsift_file_index *files);
int ccsift_diffstat_parse_into(const char *text, size_t len, ccsift_file_index *files);

/* Undo git's C quoting of a path ("a\303\251 b\t") into a new string;
 * an unquoted path is copied. Returns NULL on malformed quoting. */
char *ccsift_path_unquote(const char *quoted, size_t len);

#endif
