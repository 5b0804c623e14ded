/* cmd-parse.c: ccsift parse [--json] [FILE] -- what was extracted from a mail. */
#include <stdio.h>
#include "ccsift.h"
#include "error.h"
#include "mail.h"

/* "name: value", the value as text whatever the mail put in it. */
static void field(const char *name, const char *value)
{
	g_autofree char *v = ccsift_printable(g_strdup(value));

	printf("%s: %s\n", name, v);
}

static void print_file(const ccsift_file *f)
{
	g_autofree char *path = ccsift_printable(g_strdup(f->path));
	g_autofree char *old_path = ccsift_printable(g_strdup(f->old_path));

	if (old_path)
		printf("file: %c %s => %s\n", f->status, old_path, path);
	else
		printf("file: %c %s%s\n", f->status, !f->truncated ? "" : f->partial_tail ? "..." : ".../", path);
}

static void print_text(const ccsift_patch *p)
{
	printf("kind: %s\n", ccsift_patch_kind_name(p->kind));
	if (p->subject_raw)
		field("subject", p->subject_raw);
	if (p->subject.prefix)
		field("prefix", p->subject.prefix);
	if (p->subject.subsystem)
		field("subsystem", p->subject.subsystem);
	printf("version: %d\n", p->subject.version);
	if (p->subject.number >= 0)
		printf("number: %d/%d\n", p->subject.number, p->subject.total);
	if (p->subject.rfc || p->subject.resend || p->subject.reply)
		printf("flags:%s%s%s\n", p->subject.rfc ? " rfc" : "", p->subject.resend ? " resend" : "",
		       p->subject.reply ? " reply" : "");
	if (p->from)
		field("from", p->from->email);
	if (p->author)
		field("author", p->author->email);
	for (guint i = 0; i < p->coauthors->len; i++)
		field("co-developed-by", ((ccsift_address *)p->coauthors->pdata[i])->email);
	for (guint i = 0; i < p->to->len; i++)
		field("to", ((ccsift_address *)p->to->pdata[i])->email);
	for (guint i = 0; i < p->cc->len; i++)
		field("cc", ((ccsift_address *)p->cc->pdata[i])->email);
	if (p->message_id)
		field("message-id", p->message_id);
	if (p->in_reply_to)
		field("in-reply-to", p->in_reply_to);
	if (p->list_id)
		field("list-id", p->list_id);
	for (guint i = 0; i < p->fixes->len; i++)
		field("fixes", p->fixes->pdata[i]);
	if (p->base_commit)
		field("base-commit", p->base_commit);
	if (p->pull_tip)
		field("pull-tip", p->pull_tip);
	if (p->change_id)
		field("change-id", p->change_id);
	for (guint i = 0; i < p->files->len; i++)
		print_file(p->files->pdata[i]);
	for (guint i = 0; i < p->files->len; i++) {
		const ccsift_file *f = p->files->pdata[i];
		g_autofree char *path = ccsift_printable(g_strdup(f->path));

		if (f->old_blob)
			printf("blob: %s %s\n", f->old_blob, path);
	}
}

/* Diffstat paths shortened to .../tail, resolved against the repository's index. */
static int resolve_paths(session *s, const common_options *o, ccsift_patch *patch)
{
	int rc;

	if ((rc = session_load_config(s, o)) < 0 || (rc = session_open(s, o, patch, FALSE)) < 0)
		return rc;
	ccsift_scorer_resolve_paths(s->scorer, patch);
	return 0;
}

int cmd_parse(int argc, char **argv)
{
	common_options o = { 0 };
	g_autofree GOptionEntry *entries = option_entries(&o, OPT_BASIC, NULL);
	g_autoptr(GByteArray) raw = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(ccsift_patch) patch = NULL;
	session s = { 0 };
	int rc = 0;

	if (!parse_options(&argc, &argv, "[FILE]", "Print what ccsift extracts from a mail. With --repo, "
			   "diffstat paths shortened to .../tail are resolved against its index.", entries))
		return 2;
	if (!(raw = read_message(argc > 1 ? argv[1] : NULL, &err))) {
		fprintf(stderr, "ccsift parse: %s\n", err->message);
		return 1;
	}
	if (ccsift_mail_parse(&patch, (const char *)raw->data, raw->len) < 0) {
		fprintf(stderr, "ccsift parse: %s\n", ccsift_error_last());
		return 1;
	}
	if (o.repo && (rc = resolve_paths(&s, &o, patch)) < 0)
		fprintf(stderr, "ccsift parse: %s\n", ccsift_error_last());
	else if (o.json)
		print_json(patch_to_json(patch));
	else
		print_text(patch);
	session_close(&s);
	common_options_clear(&o);
	return rc < 0 ? 1 : 0;
}
