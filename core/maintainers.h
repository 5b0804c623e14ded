/* maintainers.h: the MAINTAINERS file, with get_maintainer.pl's semantics.
 *
 * F: patterns match as get_maintainer.pl does: '*' and '?' are globs, a
 * pattern naming a directory (trailing '/', or a directory in the tree as
 * told by the is_dir callback) matches everything below it, any other
 * pattern matches only at the same depth. X: excludes, N: is a regular
 * expression matched anywhere in the path. K: is ignored (content, not path).
 */
#ifndef CCSIFT_MAINTAINERS_H
#define CCSIFT_MAINTAINERS_H

#include <glib.h>

typedef struct ccsift_maintainers ccsift_maintainers;

/* Is pattern (no trailing '/') a directory in the tree? May be NULL. */
typedef gboolean (*ccsift_is_dir_fn)(const char *pattern, void *payload);

typedef struct {
	char role;          /* 'M' maintainer, 'R' designated reviewer */
	const char *name;   /* owned by the ccsift_maintainers; may be "" */
	const char *email;  /* lowercased, owned by the ccsift_maintainers */
	const char *section;/* the section title, e.g. "NETWORKING DRIVERS" */
} ccsift_maintainer;

/* Parse the file's text. Returns 0, or <0 (see error.h). */
/* The file's bytes as text: a NUL, which would end it there, read as a
 * blank, as get_maintainer.pl reads on past it. */
char *ccsift_maintainers_text(GBytes *blob);

int ccsift_maintainers_parse(ccsift_maintainers **out, const char *text, size_t len,
			     ccsift_is_dir_fn is_dir, void *payload);
void ccsift_maintainers_free(ccsift_maintainers *m);

/* The text with every F:/X: value that ccsift_maintainers_parse would ask
 * is_dir about, and that is_dir says is a directory, given its trailing
 * '/' (and without trailing blanks): parsed with is_dir NULL, it gives
 * what text gives with is_dir. The index keeps it, so that a delivery does
 * not ask the index about hundreds of patterns. New string. */
char *ccsift_maintainers_resolve(const char *text, size_t len, ccsift_is_dir_fn is_dir, void *payload);

/* Append to out (ccsift_maintainer *, borrowed) every M:/R: entry of every
 * section whose F:/N: match path and no X: excludes it. Returns the number added. */
int ccsift_maintainers_match(const ccsift_maintainers *m, const char *path, GPtrArray *out);

/* Section no (from 0, in the file's order) as text that parses to that one
 * section (its title line, or an empty line, and its tagged lines), with
 * the emails of its M: and R: entries (lowercased, NULL-terminated). */
typedef void (*ccsift_maintainers_section_fn)(guint no, const char *text, size_t len, const char *const *emails,
					      void *payload);
/* Every section of text, in order: parsing the texts of any of them, in
 * their order, gives those sections as the whole text gives them (with the
 * is_dir it was resolved with, if any: ccsift_maintainers_resolve). */
void ccsift_maintainers_split(const char *text, size_t len, ccsift_maintainers_section_fn fn, void *payload);

typedef gboolean (*ccsift_maintainer_fn)(const ccsift_maintainer *entry, void *payload);

/* The first entry ccsift_maintainers_match would append for path for which
 * want says TRUE, or NULL; sections with no such entry are not matched
 * (nor their regexes compiled). */
const ccsift_maintainer *ccsift_maintainers_first(const ccsift_maintainers *m, const char *path,
						  ccsift_maintainer_fn want, void *payload);

/* The sections of m with an entry want says TRUE of, each with the first
 * such entry: ccsift_maintainers_first on it answers as on m for any path,
 * without asking want again (a replay asks it of every file of thousands
 * of patches). It borrows m, which must outlive it. */
typedef struct ccsift_maintainers_selection ccsift_maintainers_selection;
ccsift_maintainers_selection *ccsift_maintainers_select(const ccsift_maintainers *m, ccsift_maintainer_fn want,
							void *payload);
const ccsift_maintainer *ccsift_maintainers_selection_first(const ccsift_maintainers_selection *sel,
							     const char *path);
void ccsift_maintainers_selection_free(ccsift_maintainers_selection *sel);

/* Is email an M: or R: of any section? */
gboolean ccsift_maintainers_lists(const ccsift_maintainers *m, const char *email);
/* Number of sections parsed. */
unsigned ccsift_maintainers_count(const ccsift_maintainers *m);

#endif
