/* maintainers.c: the MAINTAINERS file, with get_maintainer.pl's semantics.
 *
 * Like get_maintainer.pl, blank and '#' lines are dropped, a section is a
 * run of "X:" lines and its title is the untagged line before the run; the
 * preamble is whatever comes before the first tagged line.
 *
 * F:/X: patterns are what the script turns into regexes: '.' literal, '*'
 * ".*", '?' ".". Almost all of them use nothing else, so they are kept as
 * globs and matched without a regex engine; the rare pattern that relies
 * on other regex syntax is compiled with PCRE2, as perl would read it.
 *
 * The file comes from the repository, which may be hostile: a regex like
 * ^(a|aa)+$ backtracks exponentially. GRegex sets no match limit of its own
 * (PCRE2's default is ten million steps, about 60 ms, per path and regex),
 * so regexes are PCRE2's directly, with a small match and depth limit: a
 * match that needs more is no match. Real N: and F: regexes need a few
 * hundred steps on a path.
 *
 * Regexes are compiled (and JIT-compiled) when first matched: a delivery
 * that asks only about the sections naming the user (ccsift_maintainers_first)
 * compiles only theirs. Where the file has more regexes than the bound,
 * they are compiled as they are parsed, as before, so that the same ones
 * are refused.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>
#include "error.h"
#include "maintainers.h"

char *ccsift_maintainers_text(GBytes *blob)
{
	gsize n;
	const char *data = g_bytes_get_data(blob, &n);
	char *s = g_malloc(n + 1);

	for (gsize i = 0; i < n; i++)
		s[i] = data[i] ? data[i] : ' ';
	s[n] = '\0';
	return s;
}

/* Steps (backtracking points) one regex may take on one path, and its
 * nesting depth: a hostile regex costs at most that per path. */
#define RX_MATCH_LIMIT 20000
#define RX_DEPTH_LIMIT 1000
/* Regexes longer than this, or past this many, are not compiled. */
#define RX_MAX_LENGTH 512
#define RX_MAX_COUNT 4096

/* A regex, compiled on first use: once is the code, or 1 when it cannot be. */
struct regex {
	const char *src;
	uint32_t options;
	gsize once;
};

struct pattern {
	const char *glob;	/* '*' and '?' globs; NULL when rx is set */
	int rx;			/* "^pattern" with the script's conversion: in regexes[], or -1 */
	int slashes;		/* '/' in the pattern, for the depth rule */
	gboolean dir;		/* ends in '/': everything below matches */
};

/* Entries of a section are contiguous ranges of the shared arrays. */
struct section {
	const char *title;
	guint f_start, f_end;	/* files[] */
	guint x_start, x_end;	/* excludes[] */
	guint n_start, n_end;	/* nregexes[] */
	guint p_start, p_end;	/* people[] */
};

struct ccsift_maintainers {
	GStringChunk *strings;
	GArray *sections;	/* struct section */
	GArray *files;		/* struct pattern, F: */
	GArray *excludes;	/* struct pattern, X: */
	GArray *regexes;	/* struct regex, F:/X:/N:, in the file's order */
	GArray *nregexes;	/* guint, N: (index in regexes) */
	GArray *people;		/* ccsift_maintainer, M: and R: */
	unsigned nregex;	/* compiled so far (eagerly) */
	pcre2_match_context *mctx;	/* the limits; read-only once made */
};

/* Perl's m/$value/ (with /x for N:); NULL when bad or too long. */
static pcre2_code *rx_compile(const char *re, uint32_t options)
{
	int err;
	PCRE2_SIZE off;
	pcre2_code *code;

	if (strlen(re) > RX_MAX_LENGTH)
		return NULL;
	code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, options, &err, &off, NULL);
	/* The JIT honours the match limit too; without it, the interpreter does. */
	if (code)
		pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
	return code;
}

/* Regex i, compiled by the first thread that asks; NULL when it cannot be. */
static const pcre2_code *rx_get(const ccsift_maintainers *m, guint i)
{
	struct regex *r = &g_array_index(m->regexes, struct regex, i);

	if (g_once_init_enter(&r->once)) {
		pcre2_code *code = rx_compile(r->src, r->options);

		g_once_init_leave(&r->once, code ? (gsize)code : 1);
	}
	return r->once == 1 ? NULL : (const pcre2_code *)r->once;
}

/* A regex to compile when first used; its index in regexes. */
static int rx_add(ccsift_maintainers *m, const char *re, uint32_t options)
{
	struct regex r = { g_string_chunk_insert(m->strings, re), options, 0 };

	g_array_append_val(m->regexes, r);
	return m->regexes->len - 1;
}

/* More regexes than the bound: compile them all now, in the file's order,
 * refusing those past the bound (what counts is how many compiled). */
static void rx_compile_all(ccsift_maintainers *m)
{
	for (guint i = 0; i < m->regexes->len; i++) {
		struct regex *r = &g_array_index(m->regexes, struct regex, i);
		pcre2_code *code = m->nregex < RX_MAX_COUNT ? rx_compile(r->src, r->options) : NULL;

		m->nregex += code != NULL;
		r->once = code ? (gsize)code : 1;
	}
}

/* Past the limits, PCRE2 gives up: not a match. Match data of its own, so
 * that threads may share the parsed file. A regex that cannot compile
 * matches nothing. */
static gboolean rx_match(const ccsift_maintainers *m, guint i, const char *s)
{
	const pcre2_code *re = rx_get(m, i);
	pcre2_match_data *md;
	int rc;

	if (!re)
		return FALSE;
	md = pcre2_match_data_create(1, NULL);
	rc = md ? pcre2_match(re, (PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, 0, 0, md, m->mctx) : -1;
	pcre2_match_data_free(md);
	return rc >= 0;
}

/* Perl's \s, which the script's "^([A-Z]):\s*(.*)" skips. */
static gboolean is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
	       c == '\f' || c == '\v';
}

static gboolean is_tagged(const char *line, size_t len)
{
	return len >= 2 && line[0] >= 'A' && line[0] <= 'Z' && line[1] == ':';
}

static gboolean is_blank_or_comment(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && is_space(line[i]))
		i++;
	return i == len || line[i] == '#';
}

static int count_slashes(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

/* Does a prefix of s match the glob? This is "s =~ m@^pattern@" for the
 * converted pattern: '*' is ".*" and '?' is ".", neither matching '\n' as
 * perl's '.' does not. One backtrack point suffices for '*'-only globs. */
static gboolean glob_prefix(const char *p, const char *s)
{
	const char *star_p = NULL, *star_s = NULL;

	for (;;) {
		if (!*p)
			return TRUE;
		if (*p == '*') {
			star_p = ++p;
			star_s = s;
			continue;
		}
		if (*s && *s != '\n' && (*p == '?' || *p == *s)) {
			p++;
			s++;
			continue;
		}
		/* Moving the star on only consumes more: no use at the end. */
		if (!*s)
			return FALSE;
		if (star_p && *star_s && *star_s != '\n') {
			p = star_p;
			s = ++star_s;
			continue;
		}
		return FALSE;
	}
}

/* Characters that still mean regex syntax after the script's conversion. */
static gboolean needs_regex(const char *value)
{
	return strpbrk(value, "\\^$|()[]{}+") != NULL;
}

/* The script's conversion: '.' -> "\.", '*' -> ".*", '?' -> ".". */
static char *perl_regex(const char *value)
{
	GString *re = g_string_new("^");

	for (; *value; value++) {
		switch (*value) {
		case '.': g_string_append(re, "\\."); break;
		case '*': g_string_append(re, ".*"); break;
		case '?': g_string_append_c(re, '.'); break;
		default: g_string_append_c(re, *value); break;
		}
	}
	return g_string_free(re, FALSE);
}

/* An F: or X: value into a pattern; FALSE to skip it (empty, bad regex). */
static gboolean pattern_init(ccsift_maintainers *m, struct pattern *p, const char *value,
			     ccsift_is_dir_fn is_dir, void *payload)
{
	size_t len = strlen(value);
	char *text;

	/* An empty pattern would match every top-level file: a typo, not intent. */
	if (!len)
		return FALSE;
	/* The script asks the tree (-d) whether a plain name is a directory. */
	if (value[len - 1] != '/' && !strpbrk(value, "*?") && is_dir &&
	    is_dir(value, payload))
		text = g_strconcat(value, "/", NULL);
	else
		text = g_strdup(value);

	memset(p, 0, sizeof(*p));
	p->rx = -1;
	p->slashes = count_slashes(text);
	p->dir = text[strlen(text) - 1] == '/';
	if (needs_regex(text)) {
		char *re = perl_regex(text);

		/* One that does not compile matches nothing, as if it were not there. */
		p->rx = rx_add(m, re, 0);
		g_free(re);
	} else {
		p->glob = g_string_chunk_insert(m->strings, text);
	}
	g_free(text);
	return TRUE;
}

static gboolean pattern_match(const ccsift_maintainers *m, const struct pattern *p, const char *path,
			      int slashes)
{
	/* Not a directory: only files at the pattern's own depth. */
	if (!p->dir && p->slashes != slashes)
		return FALSE;
	if (p->rx >= 0)
		return rx_match(m, p->rx, path);
	return glob_prefix(p->glob, path);
}

/* parse_email(): "Name <addr>", "<addr>" or a bare address. The name loses
 * surrounding blanks and quotes; FALSE when there is no address at all. */
static gboolean parse_email(const char *value, char **name, char **email)
{
	const char *lt = strchr(value, '<'), *gt, *at, *start, *end;

	if (lt && (gt = strchr(lt + 1, '>')) && memchr(lt + 1, '@', gt - lt - 1)) {
		*name = g_strndup(value, lt - value);
		*email = g_strndup(lt + 1, gt - lt - 1);
	} else if ((at = strchr(value, '@'))) {
		for (start = at; start > value && !is_space(start[-1]); start--)
			;
		for (end = at; *end && !is_space(*end); end++)
			;
		*name = g_strdup("");
		*email = g_strndup(start, end - start);
	} else {
		return FALSE;
	}
	g_strstrip(*name);
	if (**name == '"')
		memmove(*name, *name + 1, strlen(*name));
	if (**name && (*name)[strlen(*name) - 1] == '"')
		(*name)[strlen(*name) - 1] = '\0';
	g_strstrip(*email);
	if (!strchr(*email, '@') || **email == '@') {
		g_free(*name);
		g_free(*email);
		return FALSE;
	}
	return TRUE;
}

/* Into m->strings as they come, not shared (insert_const): nothing
 * compares them by pointer, and hashing each cost a third of the parse. */
static void add_person(ccsift_maintainers *m, struct section *s, char role, const char *value)
{
	ccsift_maintainer p;
	char *name, *email, *lower;

	if (!parse_email(value, &name, &email))
		return;
	lower = g_string_chunk_insert(m->strings, email);
	for (char *c = lower; *c; c++)
		*c = g_ascii_tolower(*c);
	p.role = role;
	p.name = g_string_chunk_insert(m->strings, name);
	p.email = lower;
	p.section = s->title;
	g_array_append_val(m->people, p);
	s->p_end = m->people->len;
	g_free(name);
	g_free(email);
}

static void add_regex(ccsift_maintainers *m, struct section *s, const char *value)
{
	guint i;

	/* Perl's m/$value/x; an empty one would reuse the last match. */
	if (!*value)
		return;
	i = rx_add(m, value, PCRE2_EXTENDED);
	g_array_append_val(m->nregexes, i);
	s->n_end = m->nregexes->len;
}

static void add_pattern(ccsift_maintainers *m, struct section *s, char type, const char *value,
			ccsift_is_dir_fn is_dir, void *payload)
{
	GArray *a = type == 'F' ? m->files : m->excludes;
	struct pattern p;

	if (!pattern_init(m, &p, value, is_dir, payload))
		return;
	g_array_append_val(a, p);
	if (type == 'F')
		s->f_end = a->len;
	else
		s->x_end = a->len;
}

/* A tagged line, already without its trailing blanks. */
static void add_entry(ccsift_maintainers *m, struct section *s, const char *line, size_t len,
		      ccsift_is_dir_fn is_dir, void *payload)
{
	size_t i = 2;
	char *value;

	while (i < len && is_space(line[i]))
		i++;
	value = g_strndup(line + i, len - i);
	switch (line[0]) {
	case 'M':
	case 'R':
		add_person(m, s, line[0], value);
		break;
	case 'F':
	case 'X':
		add_pattern(m, s, line[0], value, is_dir, payload);
		break;
	case 'N':
		add_regex(m, s, value);
		break;
	}
	g_free(value);
}

static struct section *section_new(ccsift_maintainers *m, const char *title, size_t len)
{
	struct section s = { 0 };

	s.title = g_string_chunk_insert_len(m->strings, title ? title : "", title ? len : 0);
	s.f_start = s.f_end = m->files->len;
	s.x_start = s.x_end = m->excludes->len;
	s.n_start = s.n_end = m->nregexes->len;
	s.p_start = s.p_end = m->people->len;
	g_array_append_val(m->sections, s);
	return &g_array_index(m->sections, struct section, m->sections->len - 1);
}

static void regex_clear(gpointer data)
{
	struct regex *r = data;

	if (r->once > 1)
		pcre2_code_free((pcre2_code *)r->once);
}

static ccsift_maintainers *maintainers_new(void)
{
	ccsift_maintainers *m = g_new0(ccsift_maintainers, 1);

	m->strings = g_string_chunk_new(64 * 1024);
	m->sections = g_array_new(FALSE, TRUE, sizeof(struct section));
	m->files = g_array_new(FALSE, TRUE, sizeof(struct pattern));
	m->excludes = g_array_new(FALSE, TRUE, sizeof(struct pattern));
	m->regexes = g_array_new(FALSE, TRUE, sizeof(struct regex));
	g_array_set_clear_func(m->regexes, regex_clear);
	m->nregexes = g_array_new(FALSE, TRUE, sizeof(guint));
	m->people = g_array_new(FALSE, TRUE, sizeof(ccsift_maintainer));
	m->mctx = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(m->mctx, RX_MATCH_LIMIT);
	pcre2_set_depth_limit(m->mctx, RX_DEPTH_LIMIT);
	return m;
}

int ccsift_maintainers_parse(ccsift_maintainers **out, const char *text, size_t len,
			     ccsift_is_dir_fn is_dir, void *payload)
{
	const char *p = text, *end;
	const char *title = NULL;
	size_t title_len = 0;
	struct section *cur = NULL;
	ccsift_maintainers *m;

	if (!out)
		return ccsift_error_set(CCSIFT_EINVALID, "maintainers: no output pointer");
	*out = NULL;
	if (!text)
		return ccsift_error_set(CCSIFT_EINVALID, "maintainers: no text");
	/* only now: NULL + len is undefined */
	end = text + len;

	m = maintainers_new();
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *line = p;
		size_t n = (nl ? nl : end) - p;

		p = nl ? nl + 1 : end;
		/* Trailing blanks (and CR) would end up inside patterns. */
		while (n && is_space(line[n - 1]))
			n--;
		if (is_blank_or_comment(line, n))
			continue;
		if (!is_tagged(line, n)) {
			/* The latest untagged line titles the next run. */
			title = line;
			title_len = n;
			cur = NULL;
			continue;
		}
		if (!cur)
			cur = section_new(m, title, title_len);
		add_entry(m, cur, line, n, is_dir, payload);
	}
	if (m->regexes->len > RX_MAX_COUNT)
		rx_compile_all(m);
	*out = m;
	return CCSIFT_OK;
}

/* The lines as ccsift_maintainers_parse reads them, and the condition of
 * pattern_init under which it asks is_dir. */
char *ccsift_maintainers_resolve(const char *text, size_t len, ccsift_is_dir_fn is_dir, void *payload)
{
	GString *out = g_string_sized_new(len + 64);
	const char *p = text, *end = text ? text + len : NULL;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *line = p;
		size_t full = (nl ? nl + 1 : end) - p, n = (nl ? nl : end) - p, i = 2;

		p = nl ? nl + 1 : end;
		while (n && is_space(line[n - 1]))
			n--;
		if (is_blank_or_comment(line, n) || !is_tagged(line, n) || (line[0] != 'F' && line[0] != 'X')) {
			g_string_append_len(out, line, full);
			continue;
		}
		while (i < n && is_space(line[i]))
			i++;
		if (i < n && line[n - 1] != '/' && is_dir) {
			g_autofree char *value = g_strndup(line + i, n - i);

			if (!strpbrk(value, "*?") && is_dir(value, payload)) {
				g_string_append_len(out, line, n);
				g_string_append(out, "/\n");
				continue;
			}
		}
		g_string_append_len(out, line, full);
	}
	return g_string_free(out, FALSE);
}

/* The sections as ccsift_maintainers_parse makes them: a title line (or
 * none) and the run of tagged lines after it, with the emails of its M:
 * and R: lines as add_person stores them. */
void ccsift_maintainers_split(const char *text, size_t len, ccsift_maintainers_section_fn fn, void *payload)
{
	const char *p = text, *end = text ? text + len : NULL, *title = NULL;
	size_t title_len = 0;
	GString *cur = NULL;
	GPtrArray *emails = g_ptr_array_new_with_free_func(g_free);
	guint no = 0;

	for (;;) {
		const char *nl = p && p < end ? memchr(p, '\n', end - p) : NULL;
		const char *line = p;
		size_t n = p && p < end ? (size_t)((nl ? nl : end) - p) : 0;
		gboolean more = p && p < end;

		if (more) {
			p = nl ? nl + 1 : end;
			while (n && is_space(line[n - 1]))
				n--;
			if (is_blank_or_comment(line, n))
				continue;
		}
		if (!more || !is_tagged(line, n)) {
			if (cur) {
				g_ptr_array_add(emails, NULL);
				fn(no++, cur->str, cur->len, (const char *const *)emails->pdata, payload);
				g_string_free(cur, TRUE);
				cur = NULL;
				g_ptr_array_set_size(emails, 0);
			}
			if (!more)
				break;
			title = line;
			title_len = n;
			continue;
		}
		if (!cur) {
			cur = g_string_new(NULL);
			/* A run with no title before it: a blank line stands for none. */
			g_string_append_len(cur, title ? title : "", title ? title_len : 0);
			g_string_append_c(cur, '\n');
		}
		g_string_append_len(cur, line, n);
		g_string_append_c(cur, '\n');
		if (line[0] == 'M' || line[0] == 'R') {
			size_t i = 2;
			char *value, *name, *email;

			while (i < n && is_space(line[i]))
				i++;
			value = g_strndup(line + i, n - i);
			if (parse_email(value, &name, &email)) {
				g_ptr_array_add(emails, g_ascii_strdown(email, -1));
				g_free(name);
				g_free(email);
			}
			g_free(value);
		}
	}
	g_ptr_array_unref(emails);
}

void ccsift_maintainers_free(ccsift_maintainers *m)
{
	if (!m)
		return;
	g_array_unref(m->sections);
	g_array_unref(m->files);
	g_array_unref(m->excludes);
	g_array_unref(m->regexes);
	g_array_unref(m->nregexes);
	g_array_unref(m->people);
	pcre2_match_context_free(m->mctx);
	g_string_chunk_free(m->strings);
	g_free(m);
}

static gboolean any_pattern(const ccsift_maintainers *m, const GArray *a, guint from, guint to,
			    const char *path, int slashes)
{
	for (guint i = from; i < to; i++)
		if (pattern_match(m, &g_array_index(a, struct pattern, i), path, slashes))
			return TRUE;
	return FALSE;
}

static gboolean any_regex(const ccsift_maintainers *m, guint from, guint to, const char *path)
{
	for (guint i = from; i < to; i++)
		if (rx_match(m, g_array_index(m->nregexes, guint, i), path))
			return TRUE;
	return FALSE;
}

/* F: or N: includes the path and no X: excludes it. */
static gboolean section_matches(const ccsift_maintainers *m, const struct section *s,
				const char *path, int slashes)
{
	if (!any_pattern(m, m->files, s->f_start, s->f_end, path, slashes) &&
	    !any_regex(m, s->n_start, s->n_end, path))
		return FALSE;
	return !any_pattern(m, m->excludes, s->x_start, s->x_end, path, slashes);
}

int ccsift_maintainers_match(const ccsift_maintainers *m, const char *path, GPtrArray *out)
{
	int slashes, added = 0;

	if (!m || !path || !out)
		return ccsift_error_set(CCSIFT_EINVALID, "maintainers: bad match arguments");
	slashes = count_slashes(path);
	for (guint i = 0; i < m->sections->len; i++) {
		const struct section *s = &g_array_index(m->sections, struct section, i);

		/* Sections without M:/R: have nothing to add. */
		if (s->p_start == s->p_end || !section_matches(m, s, path, slashes))
			continue;
		for (guint j = s->p_start; j < s->p_end; j++, added++)
			g_ptr_array_add(out, &g_array_index(m->people, ccsift_maintainer, j));
	}
	return added;
}

/* The first entry of section s that want says TRUE of, or NULL. */
static const ccsift_maintainer *first_wanted(const ccsift_maintainers *m, const struct section *s,
					     ccsift_maintainer_fn want, void *payload)
{
	for (guint j = s->p_start; j < s->p_end; j++)
		if (want(&g_array_index(m->people, ccsift_maintainer, j), payload))
			return &g_array_index(m->people, ccsift_maintainer, j);
	return NULL;
}

const ccsift_maintainer *ccsift_maintainers_first(const ccsift_maintainers *m, const char *path,
						  ccsift_maintainer_fn want, void *payload)
{
	int slashes;

	if (!m || !path || !want)
		return NULL;
	slashes = count_slashes(path);
	for (guint i = 0; i < m->sections->len; i++) {
		const struct section *s = &g_array_index(m->sections, struct section, i);
		const ccsift_maintainer *first = first_wanted(m, s, want, payload);

		if (first && section_matches(m, s, path, slashes))
			return first;
	}
	return NULL;
}

struct ccsift_maintainers_selection {
	const ccsift_maintainers *m;
	GArray *picks;  /* struct pick, in the file's order */
};

struct pick {
	guint section;
	const ccsift_maintainer *first;
};

ccsift_maintainers_selection *ccsift_maintainers_select(const ccsift_maintainers *m, ccsift_maintainer_fn want,
							void *payload)
{
	ccsift_maintainers_selection *sel = g_new0(ccsift_maintainers_selection, 1);

	sel->m = m;
	sel->picks = g_array_new(FALSE, FALSE, sizeof(struct pick));
	for (guint i = 0; m && want && i < m->sections->len; i++) {
		struct pick p = { i, first_wanted(m, &g_array_index(m->sections, struct section, i), want, payload) };

		if (p.first)
			g_array_append_val(sel->picks, p);
	}
	return sel;
}

const ccsift_maintainer *ccsift_maintainers_selection_first(const ccsift_maintainers_selection *sel,
							     const char *path)
{
	int slashes;

	if (!sel || !sel->picks->len || !path)
		return NULL;
	slashes = count_slashes(path);
	for (guint i = 0; i < sel->picks->len; i++) {
		const struct pick *p = &g_array_index(sel->picks, struct pick, i);

		if (section_matches(sel->m, &g_array_index(sel->m->sections, struct section, p->section), path,
				    slashes))
			return p->first;
	}
	return NULL;
}

void ccsift_maintainers_selection_free(ccsift_maintainers_selection *sel)
{
	if (!sel)
		return;
	g_array_unref(sel->picks);
	g_free(sel);
}

unsigned ccsift_maintainers_count(const ccsift_maintainers *m)
{
	return m ? m->sections->len : 0;
}

gboolean ccsift_maintainers_lists(const ccsift_maintainers *m, const char *email)
{
	for (guint i = 0; m && email && i < m->people->len; i++)
		if (g_ascii_strcasecmp(g_array_index(m->people, ccsift_maintainer, i).email, email) == 0)
			return TRUE;
	return FALSE;
}
