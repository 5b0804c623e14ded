/* cmd-stats.c: ccsift stats [--since DATE] [--plot FILE.svg] [--json]
 * -- over the notmuch database: how much mail ccsift tag demoted, per list
 * and per repository, and how much of it the user opened or replied to
 * anyway. That share is how a user sees whether the threshold is right.
 *
 * The decisions come from ccsift tag's store (core/decisions.h), the
 * messages' dates, threads, lists and tags from notmuch. Demoted is what
 * was decided low, and what the user lifted out of the low pile by writing
 * in its thread: ccsift tag then makes the thread relevant and remembers
 * that it was low. Opened is no "unread"
 * tag; replied is the "replied" tag (notmuch takes it from the maildir R
 * flag) or a message from one of the user's identities in the same thread,
 * dated after it. Windows are by message date, counted back from now.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "nm.h"
#include "ccsift.h"
#include "date.h"
#include "decisions.h"
#include "error.h"
#include "svg.h"

#define DAY (24 * 60 * 60)
#define WEEKS 12               /* in the picture */
#define TOO_HIGH 0.05          /* replied anyway above this share of demoted */

enum { WEEK, MONTH, TOTAL, WINDOWS };
static const char *const window_names[WINDOWS] = { "week", "month", "total" };
static const int window_days[WINDOWS] = { 7, 30, 0 };

typedef struct {
	unsigned relevant, demoted, opened, replied;
	unsigned engaged;          /* opened or replied */
} tally;

typedef struct {
	char *name;
	tally w[WINDOWS];
} row;

/* What one decided message tells. */
typedef struct {
	gint64 date;
	gboolean demoted, opened, replied;
} fact;

/* A decided message as notmuch has it now. */
typedef struct {
	char *thread, *list, *repo;
	gint64 date;
	gboolean low, was_low, relevant, opened, replied;
} decided;

typedef struct {
	gint64 now;
	char *since;               /* as given, or NULL: all time */
	gint64 since_time;
	char **identities;
	notmuch_database_t *db;
	GPtrArray *decided;        /* decided * */
	GHashTable *low_threads;   /* thread ids with demoted mail */
	GHashTable *mine;          /* thread id -> gint64 *: the user's latest message in it */
	row all;
	GHashTable *lists, *repos; /* name -> row * */
	tally weeks[WEEKS];        /* [0] the oldest */
} stats;

static void row_free(row *r)
{
	g_free(r->name);
	g_free(r);
}

static double ratio(unsigned part, unsigned whole)
{
	return whole ? (double)part / whole : 0;
}

static void add(tally *t, const fact *f)
{
	if (!f->demoted) {
		t->relevant++;
		return;
	}
	t->demoted++;
	t->opened += f->opened;
	t->replied += f->replied;
	t->engaged += f->opened || f->replied;
}

static void count(stats *st, row *r, const fact *f)
{
	for (int w = 0; w < WINDOWS; w++)
		if (!window_days[w] || f->date >= st->now - (gint64)window_days[w] * DAY)
			add(&r->w[w], f);
}

static row *row_of(GHashTable *rows, const char *name)
{
	row *r = g_hash_table_lookup(rows, name);

	if (!r) {
		r = g_new0(row, 1);
		r->name = g_strdup(name);
		g_hash_table_insert(rows, r->name, r);
	}
	return r;
}

/* The id inside List-Id's <...>, as the filter reads it (core/mail.c). */
static char *list_name(const char *header)
{
	const char *lt = header ? strchr(header, '<') : NULL, *gt = lt ? strchr(lt, '>') : NULL;
	char *name = lt && gt ? g_strndup(lt + 1, gt - lt - 1) : g_strdup(header ? header : "");

	g_strstrip(name);
	if (!*name) {
		g_free(name);
		return g_strdup("(no list)");
	}
	return name;
}

static notmuch_messages_t *search(stats *st, const char *q, notmuch_query_t **query)
{
	notmuch_messages_t *ms = NULL;

	if (notmuch_query_create_with_syntax(st->db, q, NOTMUCH_QUERY_SYNTAX_XAPIAN, query)) {
		ccsift_error_set(CCSIFT_EINVALID, "bad query: %s", q);
		return NULL;
	}
	if (notmuch_query_search_messages(*query, &ms)) {
		notmuch_query_destroy(*query);
		ccsift_error_set(CCSIFT_EIO, "search failed: %s", q);
		return NULL;
	}
	return ms;
}

/* The user's latest message in every thread with demoted mail: a reply
 * dated after a demoted message was written having seen it. */
static int find_mine(stats *st)
{
	g_autoptr(GString) q = g_string_new("(");
	notmuch_query_t *query;
	notmuch_messages_t *ms;

	if (!st->identities || !*st->identities)
		return 0;
	for (char **e = st->identities; *e; e++) {
		g_string_append_printf(q, "%sfrom:\"", e == st->identities ? "" : " OR ");
		for (const char *c = *e; *c; c++) {
			if (*c == '"')
				g_string_append_c(q, '"');
			g_string_append_c(q, *c);
		}
		g_string_append_c(q, '"');
	}
	g_string_append(q, ")");
	if (!(ms = search(st, q->str, &query)))
		return -1;
	for (; notmuch_messages_valid(ms); notmuch_messages_move_to_next(ms)) {
		notmuch_message_t *m = notmuch_messages_get(ms);
		const char *thread = notmuch_message_get_thread_id(m);
		gint64 date = notmuch_message_get_date(m), *latest;

		if (thread && g_hash_table_contains(st->low_threads, thread) &&
		    (!(latest = g_hash_table_lookup(st->mine, thread)) || *latest < date))
			g_hash_table_insert(st->mine, g_strdup(thread), g_memdup2(&date, sizeof(date)));
		notmuch_message_destroy(m);
	}
	notmuch_query_destroy(query);
	return 0;
}

static void count_week(stats *st, const fact *f)
{
	gint64 age = MAX(st->now - f->date, 0) / (7 * DAY);

	if (f->demoted && age < WEEKS)
		add(&st->weeks[WEEKS - 1 - age], f);
}

static void decided_free(decided *d)
{
	g_free(d->thread);
	g_free(d->list);
	g_free(d->repo);
	g_free(d);
}

/* One decision of the store, with what notmuch knows of its message now. */
static int take(const ccsift_decision *dec, void *data)
{
	stats *st = data;
	notmuch_message_t *m = NULL;
	gboolean low = g_strcmp0(dec->verdict, "low") == 0;
	const char *thread;
	decided *d;

	/* Only what the threshold decided between: low, relevant, lifted. */
	if (!low && !dec->was_low && g_strcmp0(dec->verdict, "relevant") != 0)
		return 0;
	/* Deleted since: nothing to tell of it. */
	if (notmuch_database_find_message(st->db, dec->id, &m) || !m)
		return 0;
	d = g_new0(decided, 1);
	d->date = notmuch_message_get_date(m);
	if (st->since && d->date < st->since_time) {
		notmuch_message_destroy(m);
		g_free(d);
		return 0;
	}
	thread = notmuch_message_get_thread_id(m);
	d->thread = g_strdup(thread);
	d->list = list_name(notmuch_message_get_header(m, "List-Id"));
	d->repo = g_strdup(dec->repo);
	d->low = low;
	d->was_low = dec->was_low;
	d->relevant = g_strcmp0(dec->verdict, "relevant") == 0;
	d->opened = !ccsift_nm_has_tag(m, "unread");
	d->replied = ccsift_nm_has_tag(m, "replied");
	if (thread && (low || dec->was_low))
		g_hash_table_add(st->low_threads, g_strdup(thread));
	g_ptr_array_add(st->decided, d);
	notmuch_message_destroy(m);
	return 0;
}

static void count_message(stats *st, const decided *d)
{
	const gint64 *mine = d->thread ? g_hash_table_lookup(st->mine, d->thread) : NULL;
	fact f = { .date = d->date, .opened = d->opened };

	f.replied = d->replied || (mine && *mine > f.date);
	f.demoted = d->low || (d->was_low && f.replied);
	/* Lifted by a later patch of its series, not by the user: relevant. */
	if (!f.demoted && !d->relevant)
		return;
	count(st, &st->all, &f);
	count(st, row_of(st->lists, d->list), &f);
	count(st, row_of(st->repos, d->repo ? d->repo : "(unknown)"), &f);
	count_week(st, &f);
}

/* Nothing decided yet is no error: the tables say so with zeros. */
static int collect(stats *st)
{
	ccsift_decisions *store = NULL;
	int rc = ccsift_decisions_open(&store, NULL, FALSE);

	if (rc == CCSIFT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return rc;
	rc = ccsift_decisions_foreach(store, take, st);
	ccsift_decisions_close(store);
	if (rc < 0 || find_mine(st) < 0)
		return -1;
	for (guint i = 0; i < st->decided->len; i++)
		count_message(st, st->decided->pdata[i]);
	return 0;
}

static gint by_demoted(gconstpointer a, gconstpointer b)
{
	const row *x = *(row *const *)a, *y = *(row *const *)b;

	if (x->w[TOTAL].demoted != y->w[TOTAL].demoted)
		return x->w[TOTAL].demoted > y->w[TOTAL].demoted ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The rows, most demoted first. */
static GPtrArray *sorted(GHashTable *rows)
{
	GPtrArray *out = g_ptr_array_new();
	GHashTableIter it;
	gpointer r;

	g_hash_table_iter_init(&it, rows);
	while (g_hash_table_iter_next(&it, NULL, &r))
		g_ptr_array_add(out, r);
	g_ptr_array_sort(out, by_demoted);
	return out;
}

/* One line of factual advice on the threshold, from the replied-anyway share. */
static char *advice(const tally *t, gboolean *too_high)
{
	double share = ratio(t->replied, t->demoted);

	*too_high = t->demoted && share > TOO_HIGH;
	if (!t->demoted)
		return g_strdup("Nothing demoted yet: no advice on the threshold.");
	if (*too_high)
		return g_strdup_printf("You replied to %u of %u demoted (%.1f%%), over %.0f%%: the threshold "
				       "looks too high for you; `ccsift calibrate` picks one from your history.",
				       t->replied, t->demoted, 100 * share, 100 * TOO_HIGH);
	return g_strdup_printf("You replied to %u of %u demoted (%.1f%%), at most %.0f%%: the threshold "
			       "looks right.", t->replied, t->demoted, 100 * share, 100 * TOO_HIGH);
}

/* --- terminal --- */

static void print_percent(unsigned part, unsigned whole)
{
	if (whole)
		printf(" %7.0f%%", 100.0 * part / whole);
	else
		printf(" %8s", "-");
}

static void print_rows(const char *title, GPtrArray *rows)
{
	int width = strlen(title);

	for (guint i = 0; i < rows->len; i++)
		width = MAX(width, (int)strlen(((row *)rows->pdata[i])->name));
	width = MIN(width, 48);
	printf("\n%-*s %6s %6s %6s %8s %8s %8s %8s\n", width, title, "week", "month", "total", "share",
	       "opened", "replied", "engaged");
	for (guint i = 0; i < rows->len; i++) {
		const row *r = rows->pdata[i];
		const tally *t = &r->w[TOTAL];

		printf("%-*s %6u %6u %6u", width, r->name, r->w[WEEK].demoted, r->w[MONTH].demoted, t->demoted);
		print_percent(t->demoted, t->demoted + t->relevant);
		printf(" %8u %8u", t->opened, t->replied);
		print_percent(t->engaged, t->demoted);
		printf("\n");
	}
}

static void print_text(stats *st)
{
	g_autoptr(GPtrArray) lists = sorted(st->lists), repos = sorted(st->repos);
	g_autofree char *total = st->since ? g_strdup_printf("since %s", st->since) : g_strdup("all time");
	const char *labels[WINDOWS] = { "last 7 days", "last 30 days", total };
	int width = MAX(12, (int)strlen(total));
	g_autofree char *line = NULL;
	char now[16];
	gboolean too_high;

	printf("Mail ccsift tag decided, by message date (now %s):\n\n",
	       ccsift_date_format(st->now, now, sizeof(now)));
	printf("%-*s %8s %8s %8s %8s %8s %8s\n", width, "", "relevant", "demoted", "share", "opened", "replied", "engaged");
	for (int w = 0; w < WINDOWS; w++) {
		const tally *t = &st->all.w[w];

		printf("%-*s %8u %8u", width, labels[w], t->relevant, t->demoted);
		print_percent(t->demoted, t->demoted + t->relevant);
		printf(" %8u %8u", t->opened, t->replied);
		print_percent(t->engaged, t->demoted);
		printf("\n");
	}
	printf("(share: demoted of decided; engaged: opened or replied to anyway, of demoted)\n");
	print_rows("list", lists);
	print_rows("repository", repos);
	line = advice(&st->all.w[TOTAL], &too_high);
	printf("\n%s\n", line);
}

/* --- JSON --- */

static void json_tally(JsonBuilder *b, const char *key, const tally *t)
{
	json_builder_set_member_name(b, key);
	json_builder_begin_object(b);
	json_add_int(b, "relevant", t->relevant);
	json_add_int(b, "demoted", t->demoted);
	json_add_int(b, "opened", t->opened);
	json_add_int(b, "replied", t->replied);
	json_add_int(b, "engaged", t->engaged);
	json_add_double(b, "share_demoted", ratio(t->demoted, t->demoted + t->relevant));
	json_add_double(b, "engaged_rate", ratio(t->engaged, t->demoted));
	json_builder_end_object(b);
}

static void json_rows(JsonBuilder *b, const char *key, GHashTable *rows)
{
	g_autoptr(GPtrArray) sorted_rows = sorted(rows);

	json_builder_set_member_name(b, key);
	json_builder_begin_array(b);
	for (guint i = 0; i < sorted_rows->len; i++) {
		const row *r = sorted_rows->pdata[i];

		json_builder_begin_object(b);
		json_add_string(b, "name", r->name);
		for (int w = 0; w < WINDOWS; w++)
			json_tally(b, window_names[w], &r->w[w]);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
}

static gint64 week_start(const stats *st, int i)
{
	return st->now - (gint64)(WEEKS - i) * 7 * DAY;
}

static JsonNode *to_json(stats *st)
{
	g_autoptr(JsonBuilder) b = json_builder_new();
	g_autofree char *line = NULL;
	gboolean too_high;
	char date[16];

	line = advice(&st->all.w[TOTAL], &too_high);
	json_builder_begin_object(b);
	json_add_int(b, "now", st->now);
	json_add_string(b, "since", st->since);
	json_builder_set_member_name(b, "windows");
	json_builder_begin_object(b);
	for (int w = 0; w < WINDOWS; w++)
		json_tally(b, window_names[w], &st->all.w[w]);
	json_builder_end_object(b);
	json_rows(b, "lists", st->lists);
	json_rows(b, "repos", st->repos);
	json_builder_set_member_name(b, "weeks");
	json_builder_begin_array(b);
	for (int i = 0; i < WEEKS; i++) {
		const tally *t = &st->weeks[i];

		json_builder_begin_object(b);
		json_add_string(b, "start", ccsift_date_format(week_start(st, i), date, sizeof(date)));
		json_add_int(b, "demoted", t->demoted);
		json_add_int(b, "opened", t->opened);
		json_add_int(b, "replied", t->replied);
		json_add_int(b, "engaged", t->engaged);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_add_double(b, "replied_share", ratio(st->all.w[TOTAL].replied, st->all.w[TOTAL].demoted));
	json_add_bool(b, "threshold_too_high", too_high);
	json_add_string(b, "advice", line);
	json_builder_end_object(b);
	return json_builder_get_root(b);
}

/* --- picture --- */

/* A round step for about five grid lines up to max. */
static unsigned grid_step(unsigned max)
{
	unsigned step = 1;

	for (;;) {
		if (max <= 5 * step)
			return step;
		if (max <= 10 * step)
			return 2 * step;
		if (max <= 25 * step)
			return 5 * step;
		step *= 10;
	}
}

/* Demoted per week, stacked: replied to anyway, opened, neither. */
static int write_svg(const char *path, const stats *st)
{
	static const char *const fills[] = { "#c0392b", "#f0a030", "#9db4cc" };
	static const char *const names[] = { "replied to anyway", "opened, not replied to", "not opened" };
	ccsift_svg *s = ccsift_svg_open(path, 760, 400, 60, 160, 40, 60,
					"ccsift stats: demoted mail per week, and what you did with it");
	unsigned max = 1, step, top;
	double slot;

	if (!s)
		return -1;
	for (int i = 0; i < WEEKS; i++)
		max = MAX(max, st->weeks[i].demoted);
	step = grid_step(max);
	top = (max + step - 1) / step * step;
	for (unsigned v = 0; v <= top; v += step) {
		char label[16];

		snprintf(label, sizeof(label), "%u", v);
		ccsift_svg_grid_y(s, (double)v / top, label);
	}
	ccsift_svg_axis_titles(s, "week starting (UTC)", "demoted messages");
	slot = ccsift_svg_x(s, 1.0 / WEEKS) - ccsift_svg_x(s, 0);
	for (int i = 0; i < WEEKS; i++) {
		const tally *t = &st->weeks[i];
		unsigned parts[] = { t->replied, t->engaged - t->replied, t->demoted - t->engaged };
		double x = ccsift_svg_x(s, (double)i / WEEKS) + slot * 0.15, base = 0;
		char date[16];

		ccsift_date_format(week_start(st, i), date, sizeof(date));
		fprintf(s->f, "<g class=\"week\"><title>from %s: %u demoted, %u opened, %u replied to anyway</title>\n",
			date, t->demoted, t->opened, t->replied);
		for (size_t p = 0; p < G_N_ELEMENTS(parts); p++) {
			if (!parts[p])
				continue;
			ccsift_svg_rect(s, x, ccsift_svg_y(s, (base + parts[p]) / top), slot * 0.7,
					ccsift_svg_y(s, base / top) - ccsift_svg_y(s, (base + parts[p]) / top),
					fills[p], NULL);
			base += parts[p];
		}
		fprintf(s->f, "</g>\n");
		ccsift_svg_text(s, x + slot * 0.35, s->height - s->bottom + 16, "text-anchor=\"middle\"", date + 5);
	}
	for (size_t p = 0; p < G_N_ELEMENTS(names); p++)
		ccsift_svg_legend(s, p, fills[p], names[p]);
	return ccsift_svg_close(s);
}

/* --- the command --- */

static void stats_clear(stats *st)
{
	if (st->db)
		notmuch_database_destroy(st->db);
	g_clear_pointer(&st->mine, g_hash_table_unref);
	g_clear_pointer(&st->decided, g_ptr_array_unref);
	g_clear_pointer(&st->low_threads, g_hash_table_unref);
	g_clear_pointer(&st->lists, g_hash_table_unref);
	g_clear_pointer(&st->repos, g_hash_table_unref);
}

int cmd_stats(int argc, char **argv)
{
	common_options o = { 0 };
	stats st = { 0 };
	session s = { 0 };
	g_autofree char *since = NULL, *plot = NULL;
	GOptionEntry extra[] = {
		{ "since", 0, 0, G_OPTION_ARG_STRING, &since, "Only mail dated at or after DATE", "DATE" },
		{ "plot", 0, 0, G_OPTION_ARG_FILENAME, &plot, "Write demoted mail per week as an SVG picture", "FILE" },
		{ NULL }
	};
	g_autofree GOptionEntry *entries = NULL;
	int rc = 0;

	entries = option_entries(&o, OPT_CONFIG | OPT_JSON, extra);
	if (!parse_options(&argc, &argv, "", "How much mail ccsift tag demoted, per list and per repository, "
			   "and how much of it you opened or replied to anyway.", entries))
		return 2;
	if (since && ccsift_date_parse(since, &st.since_time) < 0) {
		fprintf(stderr, "ccsift stats: %s\n", ccsift_error_last());
		return 2;
	}
	st.since = since;
	st.now = time(NULL);
	st.mine = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	st.decided = g_ptr_array_new_with_free_func((GDestroyNotify)decided_free);
	st.low_threads = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	st.lists = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)row_free);
	st.repos = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)row_free);
	if (session_load_config(&s, &o) == 0 && ccsift_nm_open(NOTMUCH_DATABASE_MODE_READ_ONLY, &st.db) == 0) {
		st.identities = s.identities;
		rc = collect(&st);
	} else {
		rc = -1;
	}
	if (rc < 0) {
		fprintf(stderr, "ccsift stats: %s\n", ccsift_error_last());
		goto out;
	}
	if (o.json)
		print_json(to_json(&st));
	else
		print_text(&st);
	if (plot && write_svg(plot, &st) < 0) {
		fprintf(stderr, "ccsift stats: cannot write %s\n", plot);
		rc = -1;
	}
out:
	stats_clear(&st);
	session_close(&s);
	common_options_clear(&o);
	return rc < 0 ? 1 : 0;
}
