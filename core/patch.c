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

static void address_free(ccsift_address *a)
{
	g_free(a->name);
	g_free(a->email);
	g_free(a);
}

ccsift_patch *ccsift_patch_new(void)
{
	ccsift_patch *p = g_new0(ccsift_patch, 1);

	p->references = g_ptr_array_new_with_free_func(g_free);
	p->to = g_ptr_array_new_with_free_func((GDestroyNotify)address_free);
	p->cc = g_ptr_array_new_with_free_func((GDestroyNotify)address_free);
	p->files = g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_file_free);
	p->quoted_files = g_ptr_array_new_with_free_func((GDestroyNotify)ccsift_file_free);
	p->fixes = g_ptr_array_new_with_free_func(g_free);
	p->subject.number = p->subject.total = -1;
	p->subject.version = 1;
	return p;
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
	if (p->from)
		address_free(p->from);
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

/* Does full name the file a diffstat shortened to tail? */
static gboolean tail_matches(const ccsift_file *tail, const char *full)
{
	size_t n = strlen(tail->path), m = strlen(full);

	if (m < n || strcmp(full + m - n, tail->path) != 0)
		return FALSE;
	return tail->partial_tail || m == n || full[m - n - 1] == '/';
}

/* A diff's view of a file is better than a diffstat's; keep one entry per path. */
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
		if (old->status == '?' && file->status != '?') {
			files->pdata[i] = file;
			ccsift_file_free(old);
		} else {
			if (file->added > 0 && old->added >= 0)
				old->added += file->added;
			if (file->removed > 0 && old->removed >= 0)
				old->removed += file->removed;
			ccsift_file_free(file);
		}
		return;
	}
	g_ptr_array_add(files, file);
}

void ccsift_subject_clear(ccsift_subject *s)
{
	g_clear_pointer(&s->prefix, g_free);
	g_clear_pointer(&s->subsystem, g_free);
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

void ccsift_subject_parse(ccsift_subject *out, const char *subject)
{
	gboolean reply = FALSE, is_patch_tag = FALSE;
	GString *prefix = g_string_new(NULL);
	const char *s = subject ? subject : "";

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
}
