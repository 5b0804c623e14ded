/* diff.c: touched files from the text of a diff or a diffstat.
 *
 * The text comes from strangers: it may lack a final NUL, contain NULs and
 * be arbitrarily large. Everything works on (pointer, length) spans of one
 * line, and each line is looked at a bounded number of times, so parsing is
 * linear in the input.
 */
#include <string.h>
#include "diff.h"

/* (Adding is O(1) through a ccsift_file_index.) */
#define MAX_FILES CCSIFT_DIFF_MAX_FILES

/* The longest line names are read from (diff.c's parse_line). */
#define MAX_NAMES_LINE (2 * 4096 + 64)

/* How many lookalike candidates a diffstat summary line may examine. */
#define MAX_CANDIDATES 64

typedef struct {
	const char *p;
	size_t len;
} span;

static span span_make(const char *p, size_t len)
{
	span s = { p, len };

	return s;
}

static span span_skip(span s, size_t n)
{
	n = MIN(n, s.len);
	return span_make(s.p + n, s.len - n);
}

static gboolean span_starts(span s, const char *prefix)
{
	size_t n = strlen(prefix);

	return s.len >= n && memcmp(s.p, prefix, n) == 0;
}

static gboolean span_ends(span s, const char *suffix)
{
	size_t n = strlen(suffix);

	return s.len >= n && memcmp(s.p + s.len - n, suffix, n) == 0;
}

static gboolean span_is(span s, const char *str)
{
	return s.len == strlen(str) && memcmp(s.p, str, s.len) == 0;
}

static gboolean span_eq(span a, span b)
{
	return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
}

/* Offset of needle in s, or -1. Needles are short constants. */
static gssize span_find(span s, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; n && i + n <= s.len; i++)
		if (s.p[i] == needle[0] && memcmp(s.p + i, needle, n) == 0)
			return i;
	return -1;
}

static gssize span_rfind_char(span s, char c)
{
	for (size_t i = s.len; i > 0; i--)
		if (s.p[i - 1] == c)
			return i - 1;
	return -1;
}

static span span_ltrim(span s)
{
	while (s.len && (s.p[0] == ' ' || s.p[0] == '\t'))
		s = span_skip(s, 1);
	return s;
}

static span span_rtrim(span s)
{
	while (s.len && (s.p[s.len - 1] == ' ' || s.p[s.len - 1] == '\t'))
		s.len--;
	return s;
}

/* Read a decimal number, saturating so hostile counts cannot overflow. */
static gboolean span_number(span *s, long *out)
{
	long n = 0;
	size_t i = 0;

	while (i < s->len && g_ascii_isdigit(s->p[i])) {
		if (n < (1L << 30))
			n = n * 10 + (s->p[i] - '0');
		i++;
	}
	if (!i)
		return FALSE;
	*s = span_skip(*s, i);
	*out = MIN(n, 1L << 30);
	return TRUE;
}

static gboolean span_octal(span *s, unsigned *out)
{
	unsigned n = 0;
	size_t i = 0;

	while (i < s->len && s->p[i] >= '0' && s->p[i] <= '7') {
		if (n < 01000000)
			n = n * 8 + (s->p[i] - '0');
		i++;
	}
	if (!i)
		return FALSE;
	*s = span_skip(*s, i);
	*out = n;
	return TRUE;
}

typedef struct {
	const char *text;
	size_t len;
	size_t pos;
} line_reader;

/* The next line without its "\n"; "\r" left by CRLF bodies is dropped too. */
static gboolean next_line(line_reader *r, span *line)
{
	const char *start, *nl;
	size_t left;

	if (r->pos >= r->len)
		return FALSE;
	start = r->text + r->pos;
	left = r->len - r->pos;
	nl = memchr(start, '\n', left);
	*line = span_make(start, nl ? (size_t)(nl - start) : left);
	r->pos += nl ? line->len + 1 : left;
	while (line->len && line->p[line->len - 1] == '\r')
		line->len--;
	return TRUE;
}

/*
 * Decode a C-quoted string starting at s.p[0] == '"'. *end is set past the
 * closing quote. NUL (raw or "\000") cannot be part of a C string, so it
 * makes the quoting malformed like a bad escape or a missing quote.
 */
static char *unquote_span(span s, size_t *end)
{
	GString *out;

	if (!s.len || s.p[0] != '"')
		return NULL;
	out = g_string_sized_new(s.len);
	for (size_t i = 1; i < s.len; i++) {
		unsigned char c = s.p[i];

		if (c == '"') {
			if (end)
				*end = i + 1;
			return g_string_free(out, FALSE);
		}
		if (!c)
			break;
		if (c != '\\') {
			g_string_append_c(out, c);
			continue;
		}
		if (++i >= s.len)
			break;
		switch ((c = s.p[i])) {
		case 'a': c = '\a'; break;
		case 'b': c = '\b'; break;
		case 't': c = '\t'; break;
		case 'n': c = '\n'; break;
		case 'v': c = '\v'; break;
		case 'f': c = '\f'; break;
		case 'r': c = '\r'; break;
		case '"':
		case '\\':
			break;
		case '0': case '1': case '2': case '3':
			if (i + 2 >= s.len || s.p[i + 1] < '0' || s.p[i + 1] > '7' ||
			    s.p[i + 2] < '0' || s.p[i + 2] > '7')
				goto malformed;
			c = (c - '0') << 6 | (s.p[i + 1] - '0') << 3 | (s.p[i + 2] - '0');
			if (!c)
				goto malformed;
			i += 2;
			break;
		default:
			goto malformed;
		}
		g_string_append_c(out, c);
	}
malformed:
	g_string_free(out, TRUE);
	return NULL;
}

char *ccsift_path_unquote(const char *quoted, size_t len)
{
	if (!quoted)
		return NULL;
	if (len && quoted[0] == '"')
		return unquote_span(span_make(quoted, len), NULL);
	return g_strndup(quoted, len);
}

/*
 * Where one call puts its files: counts distinct paths (a series may touch
 * a file twice) and bounds the number of ccsift_patch_add_file() calls.
 */
typedef struct {
	GPtrArray *files;
	ccsift_file_index *index;
	gboolean own_index;
	GHashTable *seen;  /* paths added by this call */
	int adds;
} file_sink;

/* Into the files of index, or of files through an index made for the call. */
static void sink_init(file_sink *k, GPtrArray *files, ccsift_file_index *index)
{
	k->own_index = !index;
	k->index = index ? index : ccsift_file_index_new(files);
	k->files = ccsift_file_index_files(k->index);
	k->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	k->adds = 0;
}

/* Takes f; FALSE when over the bound and f was dropped. The bound holds
 * for the patch too, whatever number of parts feed it. */
static gboolean sink_add(file_sink *k, ccsift_file *f)
{
	if (k->adds >= MAX_FILES || k->files->len >= MAX_FILES) {
		ccsift_file_free(f);
		return FALSE;
	}
	k->adds++;
	if (!g_hash_table_contains(k->seen, f->path))
		g_hash_table_add(k->seen, g_strdup(f->path));
	ccsift_file_index_add(k->index, f);
	return TRUE;
}

static int sink_finish(file_sink *k)
{
	int n = g_hash_table_size(k->seen);

	g_hash_table_unref(k->seen);
	if (k->own_index)
		ccsift_file_index_free(k->index);
	return n;
}

/* A path from raw bytes: empty names and embedded NULs are not paths. */
static char *path_dup(span s)
{
	if (!s.len || memchr(s.p, '\0', s.len))
		return NULL;
	return g_strndup(s.p, s.len);
}

/* A whole name: C-quoted (anything after the quote is ignored) or plain. */
static char *name_token(span s)
{
	char *name;

	if (!s.len || s.p[0] != '"')
		return path_dup(s);
	name = unquote_span(s, NULL);
	if (name && !*name)
		g_clear_pointer(&name, g_free);
	return name;
}

/* Does s match pattern, where 'd' is a digit, 'a' a letter, '_' a space or
 * a digit (day of month) and anything else itself? Returns the length. */
static size_t match_shape(const char *s, size_t len, const char *pattern)
{
	size_t i = 0;

	for (; pattern[i]; i++) {
		char c = i < len ? s[i] : '\0';

		if (i >= len || (pattern[i] == 'd' ? !g_ascii_isdigit(c) : pattern[i] == 'a' ? !g_ascii_isalpha(c) :
				 pattern[i] == '_' ? !(c == ' ' || g_ascii_isdigit(c)) : c != pattern[i]))
			return 0;
	}
	return i;
}

/* Is s, to its end, the date diff writes after a name: "2009-12-24
 * 15:48:06.000000000 +0900" (diff -u), "Thu Dec 24 15:48:06 2009" (older)? */
static gboolean is_diff_date(span s)
{
	size_t n = match_shape(s.p, s.len, "dddd-dd-dd dd:dd:dd");

	if (n) {
		if (n < s.len && s.p[n] == '.')
			for (n++; n < s.len && g_ascii_isdigit(s.p[n]); n++)
				;
		if (n + 6 == s.len && s.p[n] == ' ' && (s.p[n + 1] == '+' || s.p[n + 1] == '-') &&
		    match_shape(s.p + n + 2, 4, "dddd"))
			n = s.len;
		return n == s.len;
	}
	return s.len == 24 && match_shape(s.p, s.len, "aaa aaa _d dd:dd:dd dddd") == 24;
}

/* Where the date after a name starts when blanks, not a TAB, part them (a
 * mailer turned the TAB into spaces): git apply takes the name without it. */
static gssize date_after_blanks(span s)
{
	for (size_t i = 1; i + 1 < s.len; i++)
		if (s.p[i] == ' ' && s.p[i + 1] != ' ' && is_diff_date(span_skip(s, i + 1)))
			return (gssize)i + 1;
	return -1;
}

/*
 * The name on a "---"/"+++" line: C-quoted, or up to a TAB (git appends one
 * to names containing a space; diff -u puts the date after it) or to a
 * date after blanks. *rest gets what follows the name.
 */
static char *line_name(span s, span *rest)
{
	gssize tab;
	size_t end;
	char *name;

	if (s.len && s.p[0] == '"') {
		name = unquote_span(s, &end);
		*rest = span_ltrim(span_skip(s, name ? end : s.len));
		if (name && !*name)
			g_clear_pointer(&name, g_free);
		return name;
	}
	tab = span_find(s, "\t");
	if (tab < 0) {
		/* without the TAB, trailing blanks are a mailer's, not the name's */
		s = span_rtrim(s);
		tab = date_after_blanks(s);
		*rest = tab < 0 ? span_make(s.p + s.len, 0) : span_skip(s, tab);
		return path_dup(tab < 0 ? s : span_rtrim(span_make(s.p, tab)));
	}
	*rest = span_skip(s, tab + 1);
	return path_dup(span_make(s.p, tab));
}

/* Index just past the first path component ("a/" -> 2), or 0 without one. */
static size_t component_len(const char *path)
{
	const char *slash = strchr(path, '/');

	return slash && slash > path ? (size_t)(slash - path + 1) : 0;
}

static size_t span_component_len(span s)
{
	for (size_t i = 1; i < s.len; i++)
		if (s.p[i] == '/')
			return i + 1;
	return 0;
}

/* Do two header names denote one file, perhaps under different prefixes? */
static gboolean same_file(span a, span b)
{
	size_t ca, cb;

	if (span_eq(a, b))
		return TRUE;
	ca = span_component_len(a);
	cb = span_component_len(b);
	return ca && cb && span_eq(span_skip(a, ca), span_skip(b, cb));
}

/*
 * Split "A<sep>B" ("a/x b/x" on a diff --git line, "a/x and b/x" on a
 * Binary files line). Either name may be C-quoted. Plain names may contain
 * the separator, so prefer the split where both sides name one file: the
 * middle (equal prefixes), else one of the first few separators. Each try
 * is linear and the tries are bounded.
 */
static gboolean split_names(span s, const char *sep, char **first, char **second)
{
	size_t seplen = strlen(sep), end = 0;
	char quoted_sep[16];
	gssize at;
	int tries = 0;

	*first = *second = NULL;
	if (s.len && s.p[0] == '"') {
		*first = unquote_span(s, &end);
		s = span_skip(s, end);
		if (!*first || !span_starts(s, sep))
			goto fail;
		*second = name_token(span_skip(s, seplen));
		goto done;
	}

	/* A plain name never contains a quote: a quoted second starts at sep + '"'. */
	g_snprintf(quoted_sep, sizeof(quoted_sep), "%s\"", sep);
	at = span_find(s, quoted_sep);
	if (at >= 0) {
		*first = path_dup(span_make(s.p, at));
		*second = name_token(span_skip(s, at + seplen));
		goto done;
	}

	at = -1;
	if (s.len > seplen && (s.len - seplen) % 2 == 0) {
		size_t mid = (s.len - seplen) / 2;

		if (memcmp(s.p + mid, sep, seplen) == 0 &&
		    same_file(span_make(s.p, mid), span_skip(s, mid + seplen)))
			at = mid;
	}
	for (size_t i = 0; at < 0 && tries < 16 && i + seplen <= s.len; i++) {
		if (memcmp(s.p + i, sep, seplen) != 0)
			continue;
		if (same_file(span_make(s.p, i), span_skip(s, i + seplen)))
			at = i;
		tries++;
	}
	if (at < 0)
		at = span_find(s, sep);
	if (at < 0)
		return FALSE;
	*first = path_dup(span_make(s.p, at));
	*second = path_dup(span_skip(s, at + seplen));
done:
	if (*first && *second)
		return TRUE;
fail:
	g_clear_pointer(first, g_free);
	g_clear_pointer(second, g_free);
	return FALSE;
}

/*
 * Prefixes of a diff without a usable "diff --git" line. Like patch -p1,
 * strip the first component when both sides have one and they differ
 * ("a/x" "b/x", "linux.orig/fs/x.c" "linux/fs/x.c"). With one side only
 * (a new or deleted file: "--- /dev/null", "+++ cifs-2.6/fs/x.c") do what
 * the other files of the patch did (*strip: -1 unknown yet, 0 or 1), and
 * else strip one component as git apply does (-p1): a quilt patch must not
 * keep "cifs-2.6/" on its new files only.
 */
static void guess_prefixes(const char *old, const char *new, int *strip, char **a_pre, char **b_pre)
{
	const char *one = old ? old : new;
	size_t c;

	if (old && new) {
		size_t ca = component_len(old), cb = component_len(new);

		if (ca && cb && (ca != cb || memcmp(old, new, ca) != 0)) {
			*a_pre = g_strndup(old, ca);
			*b_pre = g_strndup(new, cb);
			*strip = 1;
		} else if (ca && cb) {
			*strip = 0;
		}
		return;
	}
	if (!one || *strip == 0 || !(c = component_len(one)))
		return;
	if (old)
		*a_pre = g_strndup(old, c);
	else
		*b_pre = g_strndup(new, c);
}

/*
 * Prefixes from the "diff --git" names: equal names mean --no-prefix;
 * names agreeing after their first component show the prefixes (a/ b/,
 * i/ w/, c/ o/...). Differing names are a rename: trust one-letter ones.
 */
static void git_prefixes(const char *a, const char *b, char **a_pre, char **b_pre)
{
	size_t ca = component_len(a), cb = component_len(b);

	if (strcmp(a, b) == 0 || !ca || !cb)
		return;
	if (strcmp(a + ca, b + cb) == 0 || (ca == 2 && cb == 2)) {
		*a_pre = g_strndup(a, ca);
		*b_pre = g_strndup(b, cb);
	}
}

static gboolean lacks_prefix(const char *name, const char *prefix)
{
	return name && prefix && strncmp(name, prefix, strlen(prefix)) != 0;
}

static char *strip_prefix(const char *name, const char *prefix)
{
	size_t n = prefix ? strlen(prefix) : 0;

	if (!name)
		return NULL;
	if (n && strncmp(name, prefix, n) == 0 && name[n])
		return g_strdup(name + n);
	return g_strdup(name);
}

/* One file's section of a diff, as far as it has been read. */
typedef struct {
	gboolean git;
	char *git_a, *git_b;      /* names on the "diff --git" line */
	char *minus, *plus;       /* names on the ---/+++ lines */
	gboolean minus_none;      /* "--- /dev/null", or diff -N's epoch date */
	gboolean plus_none;
	char *from, *to;          /* "rename from/to", "copy from/to" */
	char kind;                /* 'R' or 'C' with from/to */
	char *old_blob;
	gboolean new_file, deleted, binary, in_binary, mode_change;
	unsigned old_mode, new_mode;
	int added, removed;
} section;

static void section_clear(section *s)
{
	g_free(s->git_a);
	g_free(s->git_b);
	g_free(s->minus);
	g_free(s->plus);
	g_free(s->from);
	g_free(s->to);
	g_free(s->old_blob);
	memset(s, 0, sizeof(*s));
}

/* A file that does not exist on one side: /dev/null, or diff -N's epoch. */
static gboolean epoch_date(span rest)
{
	/* diff -N writes the epoch in local time: 1970-01-01 01:00:00 +0100 east of UTC. */
	return span_starts(rest, "1970-01-01 ") || span_starts(rest, "1969-12-31 ");
}

static void set_side(char **name, gboolean *none, span s)
{
	span rest;
	char *n = line_name(s, &rest);

	g_free(*name);
	*name = NULL;
	*none = FALSE;
	if (!n)
		return;
	if (strcmp(n, "/dev/null") == 0) {
		*none = TRUE;
		g_free(n);
		return;
	}
	*none = epoch_date(rest);
	*name = n;
}

static void set_name(char **dst, span s)
{
	g_free(*dst);
	*dst = name_token(s);
}

/* "index abc123..def456 100644": keep the pre-image id unless it is zeros. */
static void set_blob(section *s, span l)
{
	gssize dots = span_find(l, "..");
	gboolean zeros = TRUE;

	if (dots < 4 || dots > 64)
		return;
	for (gssize i = 0; i < dots; i++) {
		if (!g_ascii_isxdigit(l.p[i]))
			return;
		if (l.p[i] != '0')
			zeros = FALSE;
	}
	g_free(s->old_blob);
	s->old_blob = zeros ? NULL : g_ascii_strdown(l.p, dots);
}

/*
 * A path as git apply reads it: "//" collapsed, "./" components dropped.
 * A path with a ".." component or a control character is left as it is:
 * git refuses it, and it names no file in the index. An empty one is no
 * name (NULL).
 */
static void normalise_path(char **path)
{
	GString *out;
	const char *p;

	if (!*path)
		return;
	if (!**path) {
		g_clear_pointer(path, g_free);
		return;
	}
	for (p = *path; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return;
	out = g_string_new(**path == '/' ? "/" : "");
	for (p = *path; *p;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			g_string_free(out, TRUE);
			return;
		}
		if (n && !(n == 1 && p[0] == '.')) {
			if (out->len && out->str[out->len - 1] != '/')
				g_string_append_c(out, '/');
			g_string_append_len(out, p, n);
		}
		p += n + (slash != NULL);
	}
	if (!out->len || (out->len == 1 && out->str[0] == '/')) {
		g_string_free(out, TRUE);
		return;
	}
	g_free(*path);
	*path = g_string_free(out, FALSE);
}

static ccsift_file *section_file(section *s, int *strip)
{
	g_autofree char *a_pre = NULL, *b_pre = NULL, *old = NULL, *new = NULL;
	const char *path;
	char status = 'M';
	ccsift_file *f;

	normalise_path(&s->git_a);
	normalise_path(&s->git_b);
	normalise_path(&s->minus);
	normalise_path(&s->plus);
	normalise_path(&s->from);
	normalise_path(&s->to);
	if (s->git && s->git_a && s->git_b)
		git_prefixes(s->git_a, s->git_b, &a_pre, &b_pre);
	/* no diff --git line, or one the ---/+++ lines disagree with */
	if (!s->git_a || !s->git_b ||
	    lacks_prefix(s->minus, a_pre) || lacks_prefix(s->plus, b_pre)) {
		g_clear_pointer(&a_pre, g_free);
		g_clear_pointer(&b_pre, g_free);
		guess_prefixes(s->minus, s->plus, strip, &a_pre, &b_pre);
	}

	if (s->from && s->to) {
		/* rename/copy lines carry no prefix and are always complete */
		old = g_strdup(s->from);
		new = g_strdup(s->to);
		status = s->kind;
	} else {
		old = strip_prefix(s->minus, a_pre);
		new = strip_prefix(s->plus, b_pre);
		/* no ---/+++: mode change, binary, empty file */
		if (!old && !new && s->git_a && s->git_b) {
			old = strip_prefix(s->git_a, a_pre);
			new = strip_prefix(s->git_b, b_pre);
		}
		if (s->new_file || (s->minus_none && new))
			status = 'A';
		else if (s->deleted || (s->plus_none && old))
			status = 'D';
		else if (s->mode_change && ((s->old_mode ^ s->new_mode) & 0170000))
			status = 'T';
	}

	path = status == 'D' && old ? old : new ? new : old;
	if (!path)
		return NULL;
	f = ccsift_file_new(status, path, status == 'R' || status == 'C' ? old : NULL);
	f->binary = s->binary;
	f->mode_change = s->mode_change;
	/* like --numstat: binary files have no line counts */
	f->added = s->binary ? -1 : s->added;
	f->removed = s->binary ? -1 : s->removed;
	f->old_blob = g_steal_pointer(&s->old_blob);
	return f;
}

typedef enum {
	S_NONE,     /* outside any diff */
	S_HEADER,   /* the extended header after "diff --git" */
	S_HUNK,     /* inside a hunk, lines left to read */
	S_BETWEEN,  /* after a hunk: another one, or the end of the file */
} parse_state;

typedef struct {
	file_sink sink;
	parse_state state;
	section sec;
	long old_left, new_left;
	ccsift_file *last_deleted;  /* the entry of the file just deleted */
	int strip;                  /* components the patch's plain diffs strip, -1 unknown */
} parser;

static void emit(parser *ps, ccsift_file *f)
{
	ccsift_file *del = ps->last_deleted;
	g_autofree char *deleted_path = NULL;

	ps->last_deleted = NULL;
	/* git shows a type change (file <-> symlink) as a deletion and an addition */
	if (del && f->status == 'A' && strcmp(del->path, f->path) == 0) {
		del->status = 'T';
		del->added = MAX(del->added, 0) + MAX(f->added, 0);
		del->removed = MAX(del->removed, 0) + MAX(f->removed, 0);
		ccsift_file_free(f);
		return;
	}
	if (f->status == 'D')
		deleted_path = g_strdup(f->path);
	if (!sink_add(&ps->sink, f))
		return;
	/* f may have been merged away: keep whatever entry holds the path */
	if (deleted_path) {
		del = ccsift_file_index_lookup(ps->sink.index, deleted_path);
		if (del && del->status == 'D')
			ps->last_deleted = del;
	}
}

static void flush(parser *ps)
{
	ccsift_file *f;

	if (ps->state != S_NONE) {
		f = section_file(&ps->sec, &ps->strip);
		if (f)
			emit(ps, f);
	}
	section_clear(&ps->sec);
	ps->state = S_NONE;
}

/* lead "start[,n]": n, which defaults to 1. */
static gboolean parse_range(span *l, const char *lead, long *n)
{
	long start;

	if (!span_starts(*l, lead))
		return FALSE;
	*l = span_skip(*l, strlen(lead));
	*n = 1;
	if (!span_number(l, &start))
		return FALSE;
	return !span_starts(*l, ",") || (*l = span_skip(*l, 1), span_number(l, n));
}

/* "@@ -a[,b] +c[,d] @@": b and d. */
static gboolean parse_hunk_header(span l, long *old_n, long *new_n)
{
	return parse_range(&l, "@@ -", old_n) && parse_range(&l, " +", new_n) && span_starts(l, " @@");
}

static gboolean start_hunk(parser *ps, span l)
{
	if (!parse_hunk_header(l, &ps->old_left, &ps->new_left))
		return FALSE;
	ps->state = ps->old_left || ps->new_left ? S_HUNK : S_BETWEEN;
	return TRUE;
}

static void start_git(parser *ps, span names)
{
	flush(ps);
	ps->sec.git = TRUE;
	split_names(names, " ", &ps->sec.git_a, &ps->sec.git_b);
	ps->state = S_HEADER;
}

/*
 * A plain diff (diff -u, Index:, quilt) is recognised by "--- ", "+++ " and
 * a hunk header on consecutive lines, so a stray "--- " in prose is not one.
 */
static gboolean start_plain(parser *ps, line_reader *r, span minus)
{
	line_reader peek = *r;
	span plus, hunk;
	size_t after_plus;
	long a, b;

	if (!next_line(&peek, &plus) || !span_starts(plus, "+++ "))
		return FALSE;
	after_plus = peek.pos;
	if (!next_line(&peek, &hunk) || !parse_hunk_header(hunk, &a, &b))
		return FALSE;
	flush(ps);
	set_side(&ps->sec.minus, &ps->sec.minus_none, span_skip(minus, 4));
	set_side(&ps->sec.plus, &ps->sec.plus_none, span_skip(plus, 4));
	/* the "+++ " line is consumed; the hunk header comes next */
	r->pos = after_plus;
	ps->state = S_BETWEEN;
	return TRUE;
}

/* "Binary files a/x and b/x differ" from diff -urN: a file without hunks. */
static void plain_binary(parser *ps, span l)
{
	g_autofree char *a = NULL, *b = NULL;
	section *s = &ps->sec;

	/* "Binary files differ": prefix and suffix share a space */
	if (l.len < strlen("Binary files ") + strlen(" differ") || !span_ends(l, " differ"))
		return;
	l = span_skip(l, strlen("Binary files "));
	l.len -= strlen(" differ");
	if (!split_names(l, " and ", &a, &b))
		return;
	flush(ps);
	s->minus_none = strcmp(a, "/dev/null") == 0;
	s->plus_none = strcmp(b, "/dev/null") == 0;
	s->minus = s->minus_none ? NULL : g_steal_pointer(&a);
	s->plus = s->plus_none ? NULL : g_steal_pointer(&b);
	s->binary = TRUE;
	ps->state = S_BETWEEN;
	flush(ps);
}

/* The lines of a "GIT binary patch": "literal N", "delta N", base85, blank. */
static gboolean binary_data_line(span l)
{
	static const char base85[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

	if (!l.len || span_starts(l, "literal ") || span_starts(l, "delta "))
		return TRUE;
	if (!g_ascii_isalpha(l.p[0]))
		return FALSE;
	for (size_t i = 0; i < l.len; i++)
		if (!l.p[i] || !strchr(base85, l.p[i]))
			return FALSE;
	return TRUE;
}

/* One line of git's extended header; FALSE if it is not one. */
static gboolean git_header_line(section *s, span l)
{
	span v;

	if (span_starts(l, "old mode ")) {
		v = span_skip(l, 9);
		span_octal(&v, &s->old_mode);
	} else if (span_starts(l, "new mode ")) {
		v = span_skip(l, 9);
		span_octal(&v, &s->new_mode);
		s->mode_change = TRUE;
	} else if (span_starts(l, "deleted file mode ")) {
		s->deleted = TRUE;
	} else if (span_starts(l, "new file mode ")) {
		s->new_file = TRUE;
	} else if (span_starts(l, "similarity index ") ||
		   span_starts(l, "dissimilarity index ")) {
		/* nothing to keep */
	} else if (span_starts(l, "rename from ") || span_starts(l, "rename old ")) {
		set_name(&s->from, span_skip(l, span_starts(l, "rename from ") ? 12 : 11));
		s->kind = 'R';
	} else if (span_starts(l, "rename to ") || span_starts(l, "rename new ")) {
		set_name(&s->to, span_skip(l, span_starts(l, "rename to ") ? 10 : 11));
		s->kind = 'R';
	} else if (span_starts(l, "copy from ")) {
		set_name(&s->from, span_skip(l, 10));
		s->kind = 'C';
	} else if (span_starts(l, "copy to ")) {
		set_name(&s->to, span_skip(l, 8));
		s->kind = 'C';
	} else if (span_starts(l, "index ")) {
		set_blob(s, span_skip(l, 6));
	} else if (span_starts(l, "--- ")) {
		set_side(&s->minus, &s->minus_none, span_skip(l, 4));
	} else if (span_starts(l, "+++ ")) {
		set_side(&s->plus, &s->plus_none, span_skip(l, 4));
	} else if (span_starts(l, "Binary files ")) {
		s->binary = TRUE;
	} else if (span_is(l, "GIT binary patch")) {
		s->binary = s->in_binary = TRUE;
	} else {
		return FALSE;
	}
	return TRUE;
}

/*
 * Each handler returns FALSE when the line ended the current state and must
 * be looked at again; that always lands in S_NONE, which takes every line.
 */
static gboolean none_line(parser *ps, line_reader *r, span l)
{
	if (l.len && l.p[0] == '>')
		return TRUE;  /* a reply quoting a patch is not a patch */
	if (span_starts(l, "diff --git "))
		start_git(ps, span_skip(l, 11));
	else if (span_starts(l, "--- "))
		start_plain(ps, r, l);
	else if (span_starts(l, "Binary files "))
		plain_binary(ps, l);
	return TRUE;
}

static gboolean header_line(parser *ps, span l)
{
	if (span_starts(l, "diff --git ")) {
		start_git(ps, span_skip(l, 11));
		return TRUE;
	}
	if (span_starts(l, "@@ -") && start_hunk(ps, l))
		return TRUE;
	if (git_header_line(&ps->sec, l))
		return TRUE;
	if (ps->sec.in_binary && binary_data_line(l))
		return TRUE;
	flush(ps);
	return FALSE;
}

/*
 * Hunk lines are counted against the header's lengths, so "-- " or "++"
 * inside a hunk is content, while "-- " after the last one is the start
 * of a signature and ends the file.
 */
static gboolean hunk_line(parser *ps, span l)
{
	section *s = &ps->sec;
	/* an empty line is context whose lone space a mailer ate */
	char c = l.len ? l.p[0] : ' ';

	switch (c) {
	case ' ':
		if (!ps->old_left || !ps->new_left)
			goto end;
		ps->old_left--;
		ps->new_left--;
		break;
	case '-':
		if (!ps->old_left)
			goto end;
		ps->old_left--;
		s->removed++;
		break;
	case '+':
		if (!ps->new_left)
			goto end;
		ps->new_left--;
		s->added++;
		break;
	case '\\':
		return TRUE;  /* "\ No newline at end of file" */
	default:
		goto end;
	}
	if (!ps->old_left && !ps->new_left)
		ps->state = S_BETWEEN;
	return TRUE;
end:
	ps->state = S_BETWEEN;
	return FALSE;
}

static gboolean between_line(parser *ps, span l)
{
	if (span_starts(l, "@@ -") && start_hunk(ps, l))
		return TRUE;
	if (l.len && l.p[0] == '\\')
		return TRUE;
	flush(ps);
	return FALSE;
}

static gboolean parse_line(parser *ps, line_reader *r, span l)
{
	/* No "diff --git", "---", rename or hunk header line is this long: two
	 * names of PATH_MAX and room. Such a line ends a header and is skipped,
	 * rather than copied into names no tree can have (a line of 20 MB of
	 * "diff --git a/x b/x " took 130 MB). A hunk counts it as content. */
	if (l.len > MAX_NAMES_LINE && ps->state != S_HUNK) {
		flush(ps);
		return TRUE;
	}
	switch (ps->state) {
	case S_HEADER:
		return header_line(ps, l);
	case S_HUNK:
		return hunk_line(ps, l);
	case S_BETWEEN:
		return between_line(ps, l);
	case S_NONE:
		break;
	}
	return none_line(ps, r, l);
}

static int diff_parse(const char *text, size_t len, GPtrArray *files, ccsift_file_index *index)
{
	parser ps = { .state = S_NONE, .strip = -1 };
	line_reader r = { text, len, 0 };
	span l;

	if ((!files && !index) || (!text && len))
		return -1;
	sink_init(&ps.sink, files, index);
	while (next_line(&r, &l))
		while (!parse_line(&ps, &r, l))
			;
	flush(&ps);
	return sink_finish(&ps.sink);
}

int ccsift_diff_parse(const char *text, size_t len, GPtrArray *files)
{
	return diff_parse(text, len, files, NULL);
}

int ccsift_diff_parse_into(const char *text, size_t len, ccsift_file_index *files)
{
	return diff_parse(text, len, NULL, files);
}

/* Diffstats. */

typedef struct {
	ccsift_file *file;
	gboolean at_slash;  /* a truncated tail starts at a path component */
} stat_entry;

/*
 * The lines of one diffstat, kept until its "N files changed" line proves
 * it is one, and while the summary lines after it fix statuses and paths.
 */
typedef struct {
	GPtrArray *entries;   /* stat_entry * */
	GHashTable *by_path;  /* full path -> stat_entry * */
	GHashTable *by_tail;  /* base name of a truncated tail ("" if cut) -> GPtrArray */
	stat_entry *renamed;  /* the last rename or copy line's: a mode change without a name */
} stat_block;

static void stat_entry_free(stat_entry *e)
{
	ccsift_file_free(e->file);
	g_free(e);
}

static void block_init(stat_block *b)
{
	b->entries = g_ptr_array_new_with_free_func((GDestroyNotify)stat_entry_free);
	b->by_path = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	b->by_tail = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					   (GDestroyNotify)g_ptr_array_unref);
	b->renamed = NULL;
}

/* Called for every line that is not part of a diffstat: keep it cheap. */
static void block_reset(stat_block *b)
{
	if (!b->entries->len)
		return;  /* entries are the only way into the tables */
	b->renamed = NULL;
	g_hash_table_remove_all(b->by_path);
	g_hash_table_remove_all(b->by_tail);
	g_ptr_array_set_size(b->entries, 0);
}

static void block_free(stat_block *b)
{
	g_hash_table_unref(b->by_path);
	g_hash_table_unref(b->by_tail);
	g_ptr_array_unref(b->entries);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void block_add(stat_block *b, stat_entry *e)
{
	ccsift_file *f = e->file;

	if (b->entries->len >= MAX_FILES) {
		stat_entry_free(e);
		return;
	}
	g_ptr_array_add(b->entries, e);
	if (f->truncated) {
		const char *key = e->at_slash ? base_name(f->path) : "";
		GPtrArray *list = g_hash_table_lookup(b->by_tail, key);

		if (!list) {
			list = g_ptr_array_new();
			g_hash_table_insert(b->by_tail, g_strdup(key), list);
		}
		g_ptr_array_add(list, e);
	} else if (!g_hash_table_contains(b->by_path, f->path)) {
		g_hash_table_insert(b->by_path, g_strdup(f->path), e);
	}
}

static gboolean tail_matches(const char *path, const stat_entry *e)
{
	/* strnlen: a hostile tail may be far longer than the path it is tried on */
	size_t lp = strlen(path), lt = strnlen(e->file->path, lp + 1);

	if (lt > lp || memcmp(path + lp - lt, e->file->path, lt) != 0)
		return FALSE;
	return !e->at_slash || lt == lp || path[lp - lt - 1] == '/';
}

/* A truncated entry whose tail ends path, now known to be its full name. */
static stat_entry *resolve_tail(stat_block *b, const char *key, const char *path)
{
	GPtrArray *list = g_hash_table_lookup(b->by_tail, key);

	for (guint i = 0; list && i < list->len && i < MAX_CANDIDATES; i++) {
		stat_entry *e = list->pdata[i];

		if (!tail_matches(path, e))
			continue;
		g_ptr_array_remove_index_fast(list, i);
		g_free(e->file->path);
		e->file->path = g_strdup(path);
		e->file->truncated = 0;
		if (!g_hash_table_contains(b->by_path, path))
			g_hash_table_insert(b->by_path, g_strdup(path), e);
		return e;
	}
	return NULL;
}

/* The entry for a full path from a summary line, or a new one. */
static stat_entry *block_find(stat_block *b, const char *path)
{
	stat_entry *e = g_hash_table_lookup(b->by_path, path);

	if (!e)
		e = resolve_tail(b, base_name(path), path);
	if (!e)
		e = resolve_tail(b, "", path);
	if (!e && b->entries->len < MAX_FILES) {
		e = g_new0(stat_entry, 1);
		e->file = ccsift_file_new('?', path, NULL);
		block_add(b, e);
	}
	return e;
}

static void block_commit(stat_block *b, file_sink *sink)
{
	for (guint i = 0; i < b->entries->len; i++) {
		stat_entry *e = b->entries->pdata[i];

		e->file->from_stat = 1;
		if (!sink_add(sink, g_steal_pointer(&e->file)))
			break;
	}
	block_reset(b);
}

/* "pre{a => b}post" side: avoid the "//" of "dir/{ => sub}/x.c". */
static char *join_rename(span pre, span mid, span post)
{
	if (!mid.len && span_starts(post, "/") && (!pre.len || pre.p[pre.len - 1] == '/'))
		post = span_skip(post, 1);
	return g_strdup_printf("%.*s%.*s%.*s", (int)pre.len, pre.p, (int)mid.len, mid.p,
			       (int)post.len, post.p);
}

/*
 * The braces of git's "pre{a => b}post" (pprint_rename()): pre is empty or
 * ends with '/', post is empty or starts with '/'. A name may have braces
 * of its own ("tmpl/{name}.c"): those are where git puts none. Without
 * one where git puts it (a cut name), the nearest brace.
 */
static gssize rename_open(span s, gssize arrow)
{
	for (gssize i = arrow - 1; i >= 0; i--)
		if (s.p[i] == '{' && (i == 0 || s.p[i - 1] == '/'))
			return i;
	return span_rfind_char(span_make(s.p, arrow), '{');
}

static gssize rename_close(span s, gssize arrow)
{
	gssize first = -1;

	for (gssize i = arrow + 4; i < (gssize)s.len; i++) {
		if (s.p[i] != '}')
			continue;
		if (i + 1 == (gssize)s.len || s.p[i + 1] == '/')
			return i;
		if (first < 0)
			first = i;
	}
	return first;
}

/*
 * A diffstat name: "path", "\"quoted\"", "old => new", "\"old\" => \"new\"",
 * or "dir/{old => new}/file". A tail truncated inside the braces has lost
 * its "{": the brace is then taken to be at the start.
 */
static gboolean stat_names(span s, char **path, char **old)
{
	gssize arrow, open, close;
	size_t end;

	*path = *old = NULL;
	if (memchr(s.p, '\0', s.len))
		return FALSE;  /* no path has a NUL: not a diffstat line */
	if (s.len && s.p[0] == '"') {
		char *first = unquote_span(s, &end);

		s = span_skip(s, first ? end : s.len);
		if (first && !s.len) {
			*path = first;
		} else if (first && span_starts(s, " => ")) {
			*old = first;
			*path = name_token(span_skip(s, 4));
		} else {
			g_free(first);
		}
		goto done;
	}
	arrow = span_find(s, " => ");
	if (arrow < 0) {
		*path = path_dup(s);
		goto done;
	}
	close = rename_close(s, arrow);
	if (close < 0) {
		*old = path_dup(span_make(s.p, arrow));
		*path = name_token(span_skip(s, arrow + 4));
		goto done;
	}
	open = rename_open(s, arrow);
	{
		span pre = span_make(s.p, open < 0 ? 0 : open);
		span a = open < 0 ? span_make(s.p, arrow) : span_make(s.p + open + 1, arrow - open - 1);
		span b = span_make(s.p + arrow + 4, close - arrow - 4);
		span post = span_skip(s, close + 1);

		*old = join_rename(pre, a, post);
		*path = join_rename(pre, b, post);
	}
done:
	if (*path && **path && (!*old || **old))
		return TRUE;
	g_clear_pointer(path, g_free);
	g_clear_pointer(old, g_free);
	return FALSE;
}

/* Right of the '|': "12 ++++------", "0", "Bin 0 -> 1234 bytes", "Bin". */
static gboolean stat_counts(span s, ccsift_file *f)
{
	long n, plus = 0, minus = 0;

	s = span_ltrim(s);
	if (span_is(s, "Bin") || span_starts(s, "Bin ")) {
		f->binary = 1;
		return TRUE;
	}
	if (span_is(span_rtrim(s), "Unmerged"))
		return TRUE;
	if (!span_number(&s, &n))
		return FALSE;
	s = span_ltrim(s);
	for (; s.len && s.p[0] == '+'; s = span_skip(s, 1))
		plus++;
	for (; s.len && s.p[0] == '-'; s = span_skip(s, 1))
		minus++;
	if (span_rtrim(s).len)
		return FALSE;
	/* the graph is scaled down for big changes: then only the sum is known */
	if (plus + minus == n) {
		f->added = plus;
		f->removed = minus;
	}
	return TRUE;
}

/*
 * The note --compact-summary puts after a name: " (new)", " (gone)",
 * " (mode +x)"... (git's get_compact_summary), what the summary lines
 * would say. Cut from name; *status gets 'A' or 'D' for new and gone
 * files, *mode_change is set for a change of mode.
 */
static span compact_summary(span name, char *status, gboolean *mode_change)
{
	static const struct {
		const char *note;
		char status;
	} notes[] = {
		{ " (new)", 'A' }, { " (new +x)", 'A' }, { " (new +l)", 'A' }, { " (gone)", 'D' },
		{ " (mode +x)", 0 }, { " (mode -x)", 0 }, { " (mode +l)", 0 }, { " (mode -l)", 0 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(notes); i++) {
		size_t n = strlen(notes[i].note);

		if (name.len > n && span_ends(name, notes[i].note)) {
			*status = notes[i].status;
			*mode_change = !notes[i].status;
			return span_make(name.p, name.len - n);
		}
	}
	return name;
}

/* " path | 12 +++---": NULL unless the line has that shape. */
static stat_entry *stat_line(span l)
{
	g_autofree char *path = NULL, *old = NULL;
	gboolean truncated = FALSE, at_slash = FALSE, mode_change = FALSE;
	ccsift_file probe = { .added = -1, .removed = -1 };
	char status = 0;
	gssize bar;
	span name;
	stat_entry *e;

	l = span_ltrim(l);
	if (!l.len || l.p[0] == '>')
		return NULL;
	bar = span_rfind_char(l, '|');
	if (bar <= 0 || !stat_counts(span_skip(l, bar + 1), &probe))
		return NULL;
	name = compact_summary(span_rtrim(span_make(l.p, bar)), &status, &mode_change);
	if (span_starts(name, "...")) {
		/* git cut the front: ".../tail/name.c", or "...ame.c" */
		truncated = TRUE;
		name = span_skip(name, 3);
		at_slash = span_starts(name, "/");
		name = span_skip(name, at_slash);
	}
	if (truncated && span_find(name, "{") < 0 && span_find(name, "}") >= 0) {
		/* the cut fell inside "{a => b}": the tail of b (what is left of
		 * the arrow and a before it dropped), then post */
		gssize close = span_find(name, "}"), arrow;
		span b = span_make(name.p, close);
		g_autofree char *joined = NULL;

		while ((arrow = span_find(b, "=> ")) >= 0)
			b = span_skip(b, arrow + 3);
		if (span_starts(b, "> "))
			b = span_skip(b, 2);
		b = span_ltrim(b);
		joined = g_strdup_printf("%.*s%.*s", (int)b.len, b.p, (int)(name.len - close - 1), name.p + close + 1);
		path = path_dup(span_make(joined, strlen(joined)));
	} else if (truncated && span_ends(name, "\"") && !span_starts(name, "\"") &&
	    span_find(name, " => ") < 0) {
		/* the opening quote was cut off with the front */
		g_autoptr(GString) requoted = g_string_new("\"");

		g_string_append_len(requoted, name.p, name.len);
		path = name_token(span_make(requoted->str, requoted->len));
	} else if (!stat_names(name, &path, &old)) {
		return NULL;
	}
	if (!path)
		return NULL;
	e = g_new0(stat_entry, 1);
	e->file = ccsift_file_new(old ? 'R' : status ? status : '?', path, old);
	e->file->mode_change = mode_change;
	e->file->added = probe.added;
	e->file->removed = probe.removed;
	e->file->binary = probe.binary;
	e->file->truncated = truncated;
	e->file->partial_tail = truncated && !at_slash;
	e->at_slash = at_slash;
	return e;
}

/* " 3 files changed, 10 insertions(+), 2 deletions(-)" */
static gboolean stat_total(span l)
{
	long n;

	l = span_ltrim(l);
	return span_number(&l, &n) &&
	       (span_starts(l, " file changed") || span_starts(l, " files changed"));
}

/* "create mode 100644 path", "delete mode 100644 path" */
static gboolean summary_mode(stat_block *b, span s, char status)
{
	g_autofree char *path = NULL;
	unsigned mode;
	stat_entry *e;

	if (!span_octal(&s, &mode) || !span_starts(s, " "))
		return FALSE;
	/* trailing blanks are a mailer's, not the name's */
	path = name_token(span_rtrim(span_skip(s, 1)));
	if (!path)
		return FALSE;
	e = block_find(b, path);
	if (e)
		e->file->status = status;
	return TRUE;
}

/* "mode change 100644 => 100755 path"; without the path after a rename,
 * copy or rewrite line, whose file's mode changed (git's show_mode_change()) */
static gboolean summary_mode_change(stat_block *b, span s)
{
	g_autofree char *path = NULL;
	unsigned from, to;
	stat_entry *e;

	if (!span_octal(&s, &from) || !span_starts(s, " => "))
		return FALSE;
	s = span_skip(s, 4);
	if (!span_octal(&s, &to))
		return FALSE;
	if (!s.len) {
		if (b->renamed)
			b->renamed->file->mode_change = 1;
		return TRUE;
	}
	if (!span_starts(s, " "))
		return FALSE;
	path = name_token(span_rtrim(span_skip(s, 1)));
	if (!path)
		return FALSE;
	e = block_find(b, path);
	if (e)
		e->file->mode_change = 1;
	return TRUE;
}

/* "rename a/{b => c}/d (90%)", "copy x => y (75%)" */
static gboolean summary_rename(stat_block *b, span s, char status)
{
	g_autofree char *path = NULL, *old = NULL;
	gssize paren = -1;
	stat_entry *e;

	s = span_rtrim(s);
	if (span_ends(s, "%)"))
		for (gssize i = s.len - 2; i > 0 && paren < 0; i--)
			if (s.p[i] == '(' && s.p[i - 1] == ' ')
				paren = i - 1;
	if (paren <= 0 || !stat_names(span_make(s.p, paren), &path, &old) || !old)
		return FALSE;
	e = block_find(b, path);
	if (e) {
		e->file->status = status;
		g_free(e->file->old_path);
		e->file->old_path = g_steal_pointer(&old);
	}
	b->renamed = e;
	return TRUE;
}

/* The lines git puts after the total; FALSE for anything else. */
static gboolean stat_summary_line(stat_block *b, span l)
{
	l = span_rtrim(span_ltrim(l));
	if (span_starts(l, "create mode "))
		return summary_mode(b, span_skip(l, 12), 'A');
	if (span_starts(l, "delete mode "))
		return summary_mode(b, span_skip(l, 12), 'D');
	if (span_starts(l, "mode change "))
		return summary_mode_change(b, span_skip(l, 12));
	if (span_starts(l, "rename "))
		return summary_rename(b, span_skip(l, 7), 'R');
	if (span_starts(l, "copy "))
		return summary_rename(b, span_skip(l, 5), 'C');
	if (span_starts(l, "rewrite ")) {
		b->renamed = NULL;  /* a mode change after it is the rewritten file's */
		return span_ends(l, "%)");
	}
	return FALSE;
}

static int diffstat_parse(const char *text, size_t len, GPtrArray *files, ccsift_file_index *index)
{
	line_reader r = { text, len, 0 };
	gboolean in_summary = FALSE;
	file_sink sink;
	stat_block b;
	span l;

	if ((!files && !index) || (!text && len))
		return -1;
	sink_init(&sink, files, index);
	block_init(&b);
	while (next_line(&r, &l)) {
		stat_entry *e;

		if (in_summary) {
			if (stat_summary_line(&b, l))
				continue;
			block_commit(&b, &sink);
			in_summary = FALSE;
		}
		e = stat_line(l);
		if (e)
			block_add(&b, e);
		else if (b.entries->len && stat_total(l))
			in_summary = TRUE;
		else
			block_reset(&b);  /* prose, not a diffstat */
	}
	if (in_summary)
		block_commit(&b, &sink);
	block_free(&b);
	return sink_finish(&sink);
}

int ccsift_diffstat_parse(const char *text, size_t len, GPtrArray *files)
{
	return diffstat_parse(text, len, files, NULL);
}

int ccsift_diffstat_parse_into(const char *text, size_t len, ccsift_file_index *files)
{
	return diffstat_parse(text, len, NULL, files);
}
