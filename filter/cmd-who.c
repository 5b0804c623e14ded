/* cmd-who.c: ccsift who [--repo DIR] [--substantive] [--min-evidence E] [--cc | --json] [PATCH]
 * -- the sending side: who has history on these files, and is it substantive?
 * Usable as: git send-email --cc-cmd='ccsift who --repo . --substantive --cc' */
#include <stdio.h>
#include <string.h>
#include "ccsift.h"
#include "error.h"
#include "mail.h"

typedef struct {
	int64_t person;
	char *email;
	char *name;
	double score;
	int history;
	char *override;
	char *summary;
	ccsift_verdict verdict;  /* what their own ccsift would make of the mail */
} candidate;

static void candidate_free(candidate *c)
{
	g_free(c->email);
	g_free(c->name);
	g_free(c->override);
	g_free(c->summary);
	g_free(c);
}

static int by_score(gconstpointer a, gconstpointer b)
{
	const candidate *x = *(candidate *const *)a, *y = *(candidate *const *)b;

	if (!!x->override != !!y->override)
		return x->override ? -1 : 1;
	return x->score < y->score ? 1 : x->score > y->score ? -1 : strcmp(x->email, y->email);
}

/* Weighted evidence (role x substance x breadth x decay, summed) that
 * marks history as substantive: a focused, non-trivial commit or two. */
#define SUBSTANTIVE 1.0

static gboolean is_substantive(const candidate *c, double threshold)
{
	return c->override || c->score >= threshold;
}

/* What the text shows, as a JSON array of objects. */
static JsonNode *to_json(GPtrArray *candidates, double threshold, gboolean substantive)
{
	g_autoptr(JsonBuilder) b = json_builder_new();

	json_builder_begin_array(b);
	for (guint i = 0; i < candidates->len; i++) {
		const candidate *c = candidates->pdata[i];
		gboolean sub = is_substantive(c, threshold);

		if (substantive && !sub)
			continue;
		json_builder_begin_object(b);
		json_add_string(b, "name", c->name && *c->name ? c->name : NULL);
		json_add_string(b, "email", c->email);
		json_add_double(b, "score", c->score);
		json_add_bool(b, "substantive", sub);
		json_add_string(b, "verdict", ccsift_verdict_name(c->verdict));
		json_add_string(b, "reason", c->override ? c->override : c->summary);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	return json_builder_get_root(b);
}

typedef struct {
	ccsift_index *idx;
	GHashTable *people;   /* person id set */
	GArray *credits;
} collect_state;

static int collect(const ccsift_touch *t, void *payload)
{
	collect_state *cs = payload;

	g_array_set_size(cs->credits, 0);
	ccsift_index_commit_credits(cs->idx, t->cid, cs->credits);
	for (guint i = 0; i < cs->credits->len; i++) {
		ccsift_credit *c = &g_array_index(cs->credits, ccsift_credit, i);

		if (c->role != CCSIFT_ROLE_SIGNED && c->role != CCSIFT_ROLE_REPORTED && c->role != CCSIFT_ROLE_SUGGESTED)
			g_hash_table_add(cs->people, g_memdup2(&c->person, sizeof(int64_t)));
	}
	return 0;
}

/*
 * Score person as if Cc'd on patch, as their own ccsift would: at their
 * own operating point, without the rules of the sender's config. The
 * sender's threshold said "low for them: 12% likely, under 90%", and an
 * always rule of theirs made everyone relevant and substantive: every
 * person of the history Cc'd by --cc-cmd.
 */
static candidate *score_candidate(session *s, ccsift_patch *patch, int64_t person)
{
	candidate *c = g_new0(candidate, 1);
	const char *ids[2] = { NULL, NULL };
	ccsift_scorer *scorer = NULL;
	ccsift_result *r = NULL;
	ccsift_address *me = g_new0(ccsift_address, 1);
	ccsift_score_options theirs = s->opts;

	c->person = person;
	c->email = ccsift_index_person_email(s->idx, person);
	c->name = ccsift_index_person_name(s->idx, person);
	ids[0] = c->email;
	me->email = g_strdup(c->email);
	g_ptr_array_add(patch->cc, me);
	ccsift_scorer_new(&scorer, s->repo, s->idx, ids);
	/* The sender's question is about substance: count what the index lacks. */
	theirs.count_lines = TRUE;
	theirs.threshold = CCSIFT_DEFAULT_THRESHOLD;
	theirs.always = theirs.never = NULL;
	if (ccsift_score_patch(scorer, patch, &theirs, &r) == 0) {
		c->score = r->evidence_score;
		c->history = r->history;
		c->override = r->override && !strstr(r->override, "To:") ? g_strdup(r->override) : NULL;
		c->summary = g_strdup(r->summary);
		c->verdict = r->verdict;
	} else {
		c->verdict = CCSIFT_VERDICT_UNKNOWN;
	}
	ccsift_result_free(r);
	ccsift_scorer_free(scorer);
	g_ptr_array_remove(patch->cc, me);
	return c;
}

int cmd_who(int argc, char **argv)
{
	common_options o = { 0 };
	gboolean substantive = FALSE, cc_only = FALSE;
	double min_evidence = SUBSTANTIVE;
	GOptionEntry extra[] = {
		{ "min-evidence", 0, 0, G_OPTION_ARG_DOUBLE, &min_evidence,
		  "Evidence that makes history substantive (default 1.0: a focused, non-trivial commit or two)", "E" },
		{ "substantive", 0, 0, G_OPTION_ARG_NONE, &substantive, "Only people whose history here is substantive", NULL },
		{ "cc", 0, 0, G_OPTION_ARG_NONE, &cc_only, "Print only \"Name <email>\" lines (for git send-email --cc-cmd)", NULL },
		{ NULL }
	};
	g_autofree GOptionEntry *entries = NULL;
	g_autoptr(GByteArray) raw = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(ccsift_patch) patch = NULL;
	g_autoptr(GPtrArray) candidates = g_ptr_array_new_with_free_func((GDestroyNotify)candidate_free);
	g_autoptr(GHashTable) people = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	session s = { 0 };
	int rc;

	entries = option_entries(&o, OPT_SCORING & ~(OPT_ME | OPT_THRESHOLD), extra);
	if (!parse_options(&argc, &argv, "[PATCH]", "List the people with history on a patch's files, with their "
			   "score, role and reasons; mark whose history is substantive.", entries))
		return 2;
	if (cc_only && o.json) {
		fprintf(stderr, "ccsift who: --cc and --json do not go together\n");
		return 2;
	}
	if (!(raw = read_message(argc > 1 ? argv[1] : NULL, &err))) {
		fprintf(stderr, "ccsift who: %s\n", err->message);
		return 1;
	}
	if ((rc = session_load_config(&s, &o)) == 0 && (rc = ccsift_mail_parse(&patch, (const char *)raw->data, raw->len)) == 0 &&
	    (rc = session_open(&s, &o, patch, TRUE)) == 0) {
		collect_state cs = { s.idx, people, g_array_new(FALSE, FALSE, sizeof(ccsift_credit)) };
		GHashTableIter it;
		gpointer key;
		int64_t before = s.opts.as_of ? s.opts.as_of : G_MAXINT64;

		ccsift_scorer_resolve_paths(s.scorer, patch);
		g_ptr_array_set_size(patch->to, 0);
		g_ptr_array_set_size(patch->cc, 0);
		for (guint i = 0; i < patch->files->len; i++) {
			ccsift_file *f = patch->files->pdata[i];

			ccsift_index_foreach_touch(s.idx, f->path, before, collect, &cs);
			if (f->old_path)
				ccsift_index_foreach_touch(s.idx, f->old_path, before, collect, &cs);
		}
		g_array_unref(cs.credits);
		g_hash_table_iter_init(&it, people);
		while (g_hash_table_iter_next(&it, &key, NULL))
			g_ptr_array_add(candidates, score_candidate(&s, patch, *(int64_t *)key));
		g_ptr_array_sort(candidates, by_score);
	}
	if (rc < 0) {
		fprintf(stderr, "ccsift who: %s\n", ccsift_error_last());
	} else if (o.json) {
		print_json(to_json(candidates, min_evidence, substantive));
	} else {
		for (guint i = 0; i < candidates->len; i++) {
			candidate *c = candidates->pdata[i];
			gboolean sub = is_substantive(c, min_evidence);

			if (substantive && !sub)
				continue;
			/* names and addresses are the repository's: one line, no escapes */
			ccsift_printable(c->name);
			ccsift_printable(c->email);
			if (cc_only) {
				printf("%s%s<%s>\n", c->name && *c->name ? c->name : "", c->name && *c->name ? " " : "", c->email);
				continue;
			}
			/* Substance is the history's; the verdict is the model's at
			 * their operating point, and the two may disagree. */
			printf("%6.2f %-11s %s <%s>\n       %s for them: %s\n", c->score, sub ? "substantive" : "trivial",
			       c->name && *c->name ? c->name : "", c->email, ccsift_verdict_name(c->verdict),
			       c->override ? ccsift_printable(c->override) : c->summary ? ccsift_printable(c->summary) :
			       "no decision could be made");
		}
	}
	session_close(&s);
	common_options_clear(&o);
	return rc < 0 ? 1 : 0;
}
