/* patch.c: the patch data model and subject tags. */
#include <stdio.h>
#include <string.h>
#include "patch.h"

const char *ccsift_patch_kind_name(ccsift_patch_kind kind)
{
	switch (kind) {
	case CCSIFT_KIND_PATCH: return "patch";
	case CCSIFT_KIND_COVER: return "cover";
	case CCSIFT_KIND_PULL: return "pull";
	case CCSIFT_KIND_NOT_PATCH: break;
	}
	return "not-a-patch";
}

ccsift_file *ccsift_file_new(char status, const char *path, const char *old_path)
{
	ccsift_file *f = g_new0(ccsift_file, 1);

	f->status = status;
	f->path = g_strdup(path);
	f->old_path = g_strdup(old_path);
	f->added = f->removed = -1;
	return f;
}

void ccsift_file_free(ccsift_file *f)
{
	if (!f)
		return;
	g_free(f->path);
	g_free(f->old_path);
	g_free(f->old_blob);
	g_free(f);
}

void ccsift_address_free(ccsift_address *a)
{
	if (!a)
		return;
	g_free(a->name);
	g_free(a->email);
	g_free(a);
}

ccsift_patch *ccsift_patch_new(void)
{
	ccsift_patch *p = g_new0(ccsift_patch, 1);

	p->references = g_ptr_array_new_with_free_func(g_free);
	p->to = g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_address_free);
	p->cc = g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_address_free);
	p->files = g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_file_free);
	p->quoted_files = g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_file_free);
	p->fixes = g_ptr_array_new_with_free_func(g_free);
	p->coauthors = g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_address_free);
	p->subject.number = p->subject.total = -1;
	p->subject.version = 1;
	return p;
}

const ccsift_address *ccsift_patch_author(const ccsift_patch *p)
{
	return p->author ? p->author : p->from;
}

gboolean ccsift_patch_is_commit_id(const char *s)
{
	size_t n = strlen(s);

	if (n < 7 || n > 64)
		return FALSE;
	for (size_t i = 0; i < n; i++)
		if (!g_ascii_isxdigit(s[i]))
			return FALSE;
	return TRUE;
}

void ccsift_patch_read_fixes(ccsift_patch *p, const char *text, size_t len)
{
	const char *q = text, *end = text + len;

	while (q < end) {
		const char *eol = memchr(q, '\n', end - q);
		size_t n = (eol ? eol : end) - q;

		if (n > 7 && g_ascii_strncasecmp(q, "Fixes:", 6) == 0) {
			g_autofree char *line = g_strndup(q + 6, n - 6);
			g_auto(GStrv) w = g_strsplit(g_strstrip(line), " ", 2);

			if (w[0] && ccsift_patch_is_commit_id(w[0]))
				g_ptr_array_add(p->fixes, g_ascii_strdown(w[0], -1));
		}
		q = eol ? eol + 1 : end;
	}
}

void ccsift_patch_free(ccsift_patch *p)
{
	if (!p)
		return;
	g_free(p->subject_raw);
	ccsift_subject_clear(&p->subject);
	g_free(p->message_id);
	g_free(p->in_reply_to);
	g_ptr_array_unref(p->references);
	g_free(p->list_id);
	g_strfreev(p->relayed_list_ids);
	ccsift_address_free(p->from);
	ccsift_address_free(p->author);
	g_ptr_array_unref(p->coauthors);
	g_ptr_array_unref(p->to);
	g_ptr_array_unref(p->cc);
	g_ptr_array_unref(p->files);
	g_ptr_array_unref(p->quoted_files);
	g_ptr_array_unref(p->fixes);
	g_free(p->base_commit);
	g_free(p->pull_tip);
	g_free(p->change_id);
	g_free(p);
}

/*
 * Lookups into a file list, so that adding n files costs O(n) whatever the
 * mail: a flood of diffstat lines must not compare every path with every
 * other. The tables hold positions in the list (plus one, as pointers), so
 * an entry replaced in place needs no update; a list entry that no longer
 * fits its table is dropped when met.
 */
#define MAX_CANDIDATES 64

struct ccsift_file_index {
	GPtrArray *files;
	GHashTable *full;     /* path -> position, for entries not truncated */
	GHashTable *by_base;  /* base name of a full path -> GPtrArray of positions */
	GHashTable *by_end;   /* last 4 bytes of a full path -> GPtrArray of positions */
	GHashTable *tail;     /* tail -> position of a truncated entry */
	GHashTable *tails;    /* base name of a tail ("" if cut inside it) -> GPtrArray of positions */
};

#define POS(i) GUINT_TO_POINTER((i) + 1)
#define AT(p) (GPOINTER_TO_UINT(p) - 1)

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Is the last component of a truncated tail whole ("/x/y.c", "x/y.c")? */
static gboolean whole_base(const ccsift_file *tail)
{
	return !tail->partial_tail || strchr(tail->path, '/');
}

static const char *end_key(const char *path)
{
	size_t n = strlen(path);

	return path + (n > 4 ? n - 4 : 0);
}

static void list_add(GHashTable *t, const char *key, guint at)
{
	GPtrArray *list = g_hash_table_lookup(t, key);

	if (!list) {
		list = g_ptr_array_new();
		g_hash_table_insert(t, g_strdup(key), list);
	}
	g_ptr_array_add(list, POS(at));
}

static void index_insert(ccsift_file_index *ix, guint at)
{
	ccsift_file *f = ix->files->pdata[at];

	if (f->truncated) {
		if (!g_hash_table_contains(ix->tail, f->path))
			g_hash_table_insert(ix->tail, g_strdup(f->path), POS(at));
		list_add(ix->tails, whole_base(f) ? base_name(f->path) : "", at);
		return;
	}
	if (!g_hash_table_contains(ix->full, f->path))
		g_hash_table_insert(ix->full, g_strdup(f->path), POS(at));
	list_add(ix->by_base, base_name(f->path), at);
	list_add(ix->by_end, end_key(f->path), at);
}

ccsift_file_index *ccsift_file_index_new(GPtrArray *files)
{
	ccsift_file_index *ix = g_new0(ccsift_file_index, 1);

	ix->files = g_ptr_array_ref(files);
	ix->full = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	ix->by_base = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
	ix->by_end = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
	ix->tail = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	ix->tails = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_ptr_array_unref);
	for (guint i = 0; i < files->len; i++)
		index_insert(ix, i);
	return ix;
}

void ccsift_file_index_free(ccsift_file_index *ix)
{
	if (!ix)
		return;
	g_hash_table_unref(ix->full);
	g_hash_table_unref(ix->by_base);
	g_hash_table_unref(ix->by_end);
	g_hash_table_unref(ix->tail);
	g_hash_table_unref(ix->tails);
	g_ptr_array_unref(ix->files);
	g_free(ix);
}

GPtrArray *ccsift_file_index_files(ccsift_file_index *ix)
{
	return ix->files;
}

/* The entry at a table's position, if it is still of the table's kind. */
static ccsift_file *entry_at(ccsift_file_index *ix, gpointer pos, gboolean truncated)
{
	ccsift_file *f;

	if (!pos || AT(pos) >= ix->files->len)
		return NULL;
	f = ix->files->pdata[AT(pos)];
	return !f->truncated == !truncated ? f : NULL;
}

ccsift_file *ccsift_file_index_lookup(ccsift_file_index *ix, const char *path)
{
	return entry_at(ix, g_hash_table_lookup(ix->full, path), FALSE);
}

/* Does full name the file a diffstat shortened to tail? */
static gboolean tail_matches(const ccsift_file *tail, const char *full)
{
	size_t n = strlen(tail->path), m = strlen(full);

	if (m < n || strcmp(full + m - n, tail->path) != 0)
		return FALSE;
	return tail->partial_tail || m == n || full[m - n - 1] == '/';
}

/*
 * The position of the first of list (of truncated entries if truncated)
 * where tail ends full: one of them is the list's entry. At most
 * MAX_CANDIDATES are tried; entries gone from the table's kind are dropped.
 */
static gpointer first_match(ccsift_file_index *ix, GPtrArray *list, gboolean truncated,
			    const ccsift_file *tail, const char *full)
{
	for (guint i = 0, tries = 0; list && i < list->len && tries < MAX_CANDIDATES;) {
		ccsift_file *f = entry_at(ix, list->pdata[i], truncated);

		if (!f) {
			g_ptr_array_remove_index_fast(list, i);
			continue;
		}
		if (tail_matches(tail ? tail : f, full ? full : f->path))
			return list->pdata[i];
		i++, tries++;
	}
	return NULL;
}

/* A full entry whose path the truncated tail ends. */
static gboolean full_for_tail(ccsift_file_index *ix, const ccsift_file *tail)
{
	GPtrArray *list;

	if (whole_base(tail))
		list = g_hash_table_lookup(ix->by_base, base_name(tail->path));
	else  /* "...ame.c": cut inside the name, any path ending so */
		list = strlen(tail->path) >= 4 ? g_hash_table_lookup(ix->by_end, end_key(tail->path)) : NULL;
	return first_match(ix, list, FALSE, tail, NULL) != NULL;
}

/* The position of a truncated entry whose tail ends the full path. */
static gpointer tail_for_full(ccsift_file_index *ix, const char *path)
{
	gpointer at = first_match(ix, g_hash_table_lookup(ix->tails, base_name(path)), TRUE, NULL, path);

	return at ? at : first_match(ix, g_hash_table_lookup(ix->tails, ""), TRUE, NULL, path);
}

static void merge_counts(ccsift_file *old, ccsift_file *file)
{
	old->from_stat &= file->from_stat;
	if (file->added > 0 && old->added >= 0)
		old->added += file->added;
	if (file->removed > 0 && old->removed >= 0)
		old->removed += file->removed;
	ccsift_file_free(file);
}

/*
 * Should file, of the same path as old, take its place? A diff's view of a
 * file beats a diffstat's, whatever the summary line said (a diffstat in
 * the body and the diff in an attachment come in that order); a diffstat's
 * status beats its '?'. Otherwise the two are merged, if both are diffs
 * (two patches of a series in one mail), or file is dropped: the lines a
 * diffstat counts are those of a diff the mail also has.
 */
static gboolean takes_place(const ccsift_file *old, const ccsift_file *file)
{
	return (old->from_stat && !file->from_stat) || (old->status == '?' && file->status != '?');
}

static void merge_same_path(ccsift_file *old, ccsift_file *file)
{
	if (file->from_stat)
		ccsift_file_free(file);
	else
		merge_counts(old, file);
}

/* file takes the place of the entry at pos. */
static void index_replace(ccsift_file_index *ix, gpointer pos, ccsift_file *file)
{
	ccsift_file *old = ix->files->pdata[AT(pos)];
	gboolean was_truncated = old->truncated;

	if (was_truncated && g_hash_table_lookup(ix->tail, old->path) == pos)
		g_hash_table_remove(ix->tail, old->path);
	ix->files->pdata[AT(pos)] = file;
	ccsift_file_free(old);
	/* a full entry gives way only to one of its own path: the tables hold */
	if (was_truncated)
		index_insert(ix, AT(pos));
}

static void index_append(ccsift_file_index *ix, ccsift_file *file)
{
	g_ptr_array_add(ix->files, file);
	index_insert(ix, ix->files->len - 1);
}

/* A diff's view of a file is better than a diffstat's; keep one entry per path. */
void ccsift_file_index_add(ccsift_file_index *ix, ccsift_file *file)
{
	ccsift_file *old;
	gpointer pos;

	if (file->truncated) {
		if (full_for_tail(ix, file))
			ccsift_file_free(file);
		else if ((old = entry_at(ix, g_hash_table_lookup(ix->tail, file->path), TRUE)))
			merge_counts(old, file);
		else
			index_append(ix, file);
		return;
	}
	if ((pos = g_hash_table_lookup(ix->full, file->path)) && (old = entry_at(ix, pos, FALSE))) {
		if (takes_place(old, file))
			index_replace(ix, pos, file);
		else
			merge_same_path(old, file);
	} else if ((pos = tail_for_full(ix, file->path))) {
		index_replace(ix, pos, file);
	} else {
		index_append(ix, file);
	}
}

/* One file, by a scan of the list: fine for a few (eval's commits); a
 * mail's files go through a ccsift_file_index. */
void ccsift_patch_add_file(GPtrArray *files, ccsift_file *file)
{
	for (guint i = 0; i < files->len; i++) {
		ccsift_file *old = files->pdata[i];

		if (file->truncated && !old->truncated && tail_matches(file, old->path)) {
			ccsift_file_free(file);
			return;
		}
		if (old->truncated && !file->truncated && tail_matches(old, file->path)) {
			files->pdata[i] = file;
			ccsift_file_free(old);
			return;
		}
		if (strcmp(old->path, file->path) != 0)
			continue;
		if (takes_place(old, file)) {
			files->pdata[i] = file;
			ccsift_file_free(old);
		} else {
			merge_same_path(old, file);
		}
		return;
	}
	g_ptr_array_add(files, file);
}

void ccsift_subject_clear(ccsift_subject *s)
{
	g_clear_pointer(&s->prefix, g_free);
	g_clear_pointer(&s->subsystem, g_free);
	g_clear_pointer(&s->area, g_free);
	g_clear_pointer(&s->title, g_free);
}

static const char *skip_reply_prefix(const char *s, gboolean *reply)
{
	static const char *const prefixes[] = { "re:", "aw:", "sv:", "antw:", "fwd:", "fw:" };

	for (;;) {
		gboolean found = FALSE;

		while (g_ascii_isspace(*s))
			s++;
		for (size_t i = 0; i < G_N_ELEMENTS(prefixes); i++) {
			size_t n = strlen(prefixes[i]);

			if (g_ascii_strncasecmp(s, prefixes[i], n) == 0) {
				if (prefixes[i][0] != 'f')
					*reply = TRUE;
				s += n;
				found = TRUE;
			}
		}
		if (!found)
			return s;
	}
}

/* Read one bracket's words: PATCH, RFC, RESEND, vN, N/M; others are ignored. */
static void parse_bracket(ccsift_subject *out, const char *text, gboolean *is_patch_tag)
{
	g_auto(GStrv) words = g_strsplit_set(text, " \t,", -1);

	for (char **w = words; *w; w++) {
		int a, b;
		char tail;

		if (!**w)
			continue;
		if (g_ascii_strcasecmp(*w, "PATCH") == 0 || g_ascii_strcasecmp(*w, "PULL") == 0 ||
		    g_ascii_strcasecmp(*w, "GIT") == 0)
			*is_patch_tag = TRUE;
		else if (g_ascii_strcasecmp(*w, "RFC") == 0)
			out->rfc = 1, *is_patch_tag = TRUE;
		else if (g_ascii_strcasecmp(*w, "RESEND") == 0)
			out->resend = 1;
		else if ((**w == 'v' || **w == 'V') && sscanf(*w + 1, "%d%c", &a, &tail) == 1 && a > 0)
			out->version = a;
		else if (sscanf(*w, "%d/%d%c", &a, &b, &tail) == 2 && a >= 0 && b > 0)
			out->number = a, out->total = b;
	}
}

size_t ccsift_subject_area(const char *title)
{
	size_t n = title ? strcspn(title, ":/ ") : 0;

	return n && (title[n] == ':' || title[n] == '/') ? n : 0;
}

void ccsift_subject_parse(ccsift_subject *out, const char *subject)
{
	gboolean reply = FALSE, is_patch_tag = FALSE;
	GString *prefix = g_string_new(NULL);
	const char *s = subject ? subject : "";
	size_t n;

	ccsift_subject_clear(out);
	out->version = 1;
	out->number = out->total = -1;
	out->rfc = out->resend = 0;

	s = skip_reply_prefix(s, &reply);
	while (*s == '[') {
		const char *end = strchr(s, ']');
		g_autofree char *inner = NULL;

		if (!end)
			break;
		inner = g_strndup(s + 1, end - s - 1);
		parse_bracket(out, inner, &is_patch_tag);
		if (prefix->len)
			g_string_append_c(prefix, ' ');
		g_string_append(prefix, inner);
		s = skip_reply_prefix(end + 1, &reply);
	}
	out->reply = reply;
	out->prefix = prefix->len ? g_string_free(prefix, FALSE) : (g_string_free(prefix, TRUE), NULL);
	out->title = g_strstrip(g_strdup(s));

	/* "net: phy: fix x" has subsystem "net: phy": every "word: " run before the summary. */
	const char *last = NULL;
	for (const char *p = out->title; *p; p++) {
		if (p[0] == ':' && p[1] == ' ')
			last = p;
		else if (p[0] == ' ' && (p == out->title || p[-1] != ':'))
			break;
	}
	if (last)
		out->subsystem = g_strndup(out->title, last - out->title);
	/* Only a title with a subsystem ("MdeModulePkg: Fix x", not
	 * "MdeModulePkg:Fix x") has an area: the rule the model's area feature
	 * was chosen with (contrib/eval/RESULTS.md); its history counts every
	 * commit of the area (ccsift_subject_area). */
	if (out->subsystem && (n = ccsift_subject_area(out->title)))
		out->area = g_ascii_strdown(out->title, (gssize)n);
}
