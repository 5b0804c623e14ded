/* cmd-stats.c: ccsift stats [--since DATE] [--until DATE] [--plot FILE.svg] [--json]
 * -- over the notmuch database: how much mail ccsift tag demoted, per list
 * and per repository, and how much of it the user opened or replied to
 * anyway. That share is how a user sees whether the threshold is right.
 *
 * The decisions come from ccsift tag's store (core/decisions.h), the
 * messages' dates, threads, lists and tags from notmuch. Demoted is what
 * was decided low, and what the user lifted out of the low pile by writing
 * in its thread: ccsift tag then makes the thread relevant and remembers
 * that it was low. Opened is no "unread"
 * tag; answered is the "replied" tag (notmuch takes it from the maildir R
 * flag) or a message from one of the user's identities in the same thread,
 * dated after it. Windows are by message date, counted back from now (or
 * --until). Every other decision (not a patch, unknown) counts only in the
 * volume of mail: "all".
 *
 * The advice on the threshold is about patches, the unit the threshold
 * decides (a probability per patch) and ccsift tag counts a reply in: of
 * the patches the threshold itself scored low (not the cover letter and
 * the replies that follow them), the ones replied to, one per thread the
 * user answered, as ccsift tag and calibrate count it. Counting every
 * message of an answered thread made one reply to a two-patch series
 * "4 of 4 demoted". A demoted message that was not scored (a reply in a
 * low thread) counts under its thread's repository.
 *
 * The picture has a bar per week (per month over more than 26 weeks) from
 * --since (default: 12 weeks back) to --until (default: now): all the mail
 * decided, split into relevant, demoted (replied to, opened, neither) and
 * the rest.
 *
 * When no decision is recorded for any message of the database (no `ccsift
 * tag` run yet, or mail delivered by `ccsift filter` and notmuch insert,
 * which records none), stats says so and what to do, instead of zeros.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "nm.h"
#include "ccsift.h"
#include "date.h"
#include "decisions.h"
#include "error.h"
#include "svg.h"
#include "thread.h"

#define DAY (24 * 60 * 60)
#define WEEKS 12               /* in the picture, by default */
#define MAX_WEEKS 26           /* past that, a bar per month */
#define TOO_HIGH 0.05          /* replied anyway above this share of demoted */

enum { WEEK, MONTH, TOTAL, WINDOWS };
static const char *const window_names[WINDOWS] = { "week", "month", "total" };
static const int window_days[WINDOWS] = { 7, 30, 0 };

typedef struct {
	unsigned relevant, demoted, opened;
	unsigned answered;         /* demoted, in a thread the user wrote in after it */
	unsigned engaged;          /* opened or answered */
	unsigned patches;          /* demoted that the threshold scored low itself */
	unsigned replied;          /* of those, the one per answered thread */
	unsigned other;            /* not a patch, or undecided */
} tally;

typedef struct {
	char *name;
	tally w[WINDOWS];
} row;

/* What one decided message tells. */
typedef struct {
	gint64 date;
	gboolean demoted, opened, answered;
	gboolean patch, replied;   /* a demoted patch; the one replied to in its thread */
	gboolean other;            /* not a patch, unknown */
} fact;

/* A decided message as notmuch has it now. */
typedef struct {
	char *thread, *list, *repo;
	gint64 date;
	gboolean low, was_low, relevant, opened, replied;
	gboolean scored_low;       /* a patch the threshold put under itself */
	gboolean marked;           /* ccsift tag counted it as the one the user replied to */
	double margin;
	gboolean answered;         /* the user wrote in its thread after it (collect) */
	gboolean other;
} decided;

typedef struct {
	gint64 now;                /* the end of the windows: now, or --until */
	char *since;               /* as given, or NULL: all time */
	gint64 since_time;
	char *until;               /* as given, or NULL: up to now */
	gint64 until_time;
	char **identities;
	notmuch_database_t *db;
	GPtrArray *decided;        /* decided * */
	GHashTable *low_threads;   /* thread ids with demoted mail */
	GHashTable *mine;          /* thread id -> gint64 *: the user's latest message in it */
	GHashTable *replied;       /* thread id -> decided *: the patch replied to in it */
	GHashTable *thread_repo;   /* thread id -> the repository its patches were scored against */
	row all;
	GHashTable *lists, *repos; /* name -> row * */
	gboolean months;           /* the picture's bars: months, else weeks */
	int periods;
	gint64 *period_start;      /* [periods + 1]: the bars' bounds */
	tally *period;             /* [periods], [0] the oldest */
	gboolean no_store;         /* ccsift tag never ran */
	unsigned recorded;         /* decisions in the store */
	unsigned found;            /* of messages notmuch has */
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
	if (f->other) {
		t->other++;
		return;
	}
	if (!f->demoted) {
		t->relevant++;
		return;
	}
	t->demoted++;
	t->opened += f->opened;
	t->answered += f->answered;
	t->engaged += f->opened || f->answered;
	t->patches += f->patch;
	t->replied += f->replied;
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
	g_autoptr(GString) q = g_string_new(NULL);
	notmuch_query_t *query;
	notmuch_messages_t *ms;

	if (!st->identities || !*st->identities)
		return 0;
	ccsift_nm_append_from(q, st->identities);
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

static unsigned all_of(const tally *t)
{
	return t->relevant + t->demoted + t->other;
}

/* The bars: weeks from the start, or calendar months (UTC) over a longer
 * range; the last may be cut short by the end. */
static void make_periods(stats *st)
{
	gint64 end = st->now, start = st->since ? st->since_time : end - (gint64)WEEKS * 7 * DAY;
	GArray *bounds = g_array_new(FALSE, FALSE, sizeof(gint64));

	st->months = end - start > (gint64)MAX_WEEKS * 7 * DAY;
	if (!st->months) {
		for (gint64 t = start; t < end; t += 7 * DAY)
			g_array_append_val(bounds, t);
	} else {
		g_autoptr(GDateTime) first = g_date_time_new_from_unix_utc(start);
		g_autoptr(GDateTime) month = g_date_time_new_utc(g_date_time_get_year(first),
								  g_date_time_get_month(first), 1, 0, 0, 0);

		for (gint64 t = start; t < end;) {
			g_autoptr(GDateTime) next = g_date_time_add_months(month, 1);

			g_array_append_val(bounds, t);
			t = g_date_time_to_unix(next);
			g_date_time_unref(month);
			month = g_steal_pointer(&next);
		}
	}
	g_array_append_val(bounds, end);
	st->periods = bounds->len - 1;
	st->period_start = (gint64 *)g_array_free(bounds, FALSE);
	st->period = g_new0(tally, MAX(st->periods, 1));
}

static void count_period(stats *st, const fact *f)
{
	gint64 date = f->date;

	if (st->periods < 1)
		return;
	/* Mail dated in the future is this week's, unless there is an --until. */
	if (!st->until && date >= st->now)
		date = st->now - 1;
	for (int i = 0; i < st->periods; i++)
		if (date >= st->period_start[i] && date < st->period_start[i + 1]) {
			add(&st->period[i], f);
			return;
		}
}

static void decided_free(decided *d)
{
	g_free(d->thread);
	g_free(d->list);
	g_free(d->repo);
	g_free(d);
}

/* Did the threshold itself put it low? Its own verdict, before the thread's
 * rules, and not a cover letter (a series' patches are scored each; its
 * cover sums them up). An older store without traits: every own low. */
static gboolean scored_low(const ccsift_decision *dec)
{
	ccsift_thread_message tm = { 0 };

	if (g_strcmp0(dec->own ? dec->own : dec->verdict, "low") != 0)
		return FALSE;
	if (dec->traits < 0)
		return TRUE;
	ccsift_thread_message_set_traits(&tm, dec->traits);
	return tm.kind != CCSIFT_KIND_COVER;
}

/* One decision of the store, with what notmuch knows of its message now. */
static int take(const ccsift_decision *dec, void *data)
{
	stats *st = data;
	notmuch_message_t *m = NULL;
	gboolean low = g_strcmp0(dec->verdict, "low") == 0;
	const char *thread;
	decided *d;

	st->recorded++;
	/* Deleted since: nothing to tell of it. */
	if (notmuch_database_find_message(st->db, dec->id, &m) || !m)
		return 0;
	st->found++;
	d = g_new0(decided, 1);
	d->date = notmuch_message_get_date(m);
	/* What the threshold decided between is low, relevant and lifted; the
	 * rest counts in the volume only. */
	d->other = !low && !dec->was_low && g_strcmp0(dec->verdict, "relevant") != 0;
	if ((st->since && d->date < st->since_time) || (st->until && d->date >= st->until_time)) {
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
	d->scored_low = scored_low(dec);
	d->marked = dec->replied > 0;
	d->margin = dec->has_margin ? dec->margin : -G_MAXDOUBLE;
	if (thread && (low || dec->was_low))
		g_hash_table_add(st->low_threads, g_strdup(thread));
	if (thread && dec->repo && !g_hash_table_contains(st->thread_repo, thread))
		g_hash_table_insert(st->thread_repo, g_strdup(thread), g_strdup(dec->repo));
	g_ptr_array_add(st->decided, d);
	notmuch_message_destroy(m);
	return 0;
}

/* Demoted: low, or lifted by the user's writing in its thread (lifted by a
 * later patch of its series, not by the user, it is relevant). */
static gboolean demoted(const decided *d)
{
	return d->low || (d->was_low && d->answered);
}

/* The user answered a thread: one engagement, as ccsift tag counts it (the
 * patch it marked), or else the best scored of the demoted patches the user
 * had seen. One reply is one reply, however many messages the thread has. */
static void pick_replied(stats *st)
{
	for (guint i = 0; i < st->decided->len; i++) {
		decided *d = st->decided->pdata[i], *best;

		if (!d->thread || d->other || !d->answered || !d->scored_low || !demoted(d))
			continue;
		best = g_hash_table_lookup(st->replied, d->thread);
		if (!best || (d->marked && !best->marked) || (d->marked == best->marked && d->margin > best->margin))
			g_hash_table_insert(st->replied, g_strdup(d->thread), d);
	}
}

/* A demoted message nobody scored (a reply in a low thread inherits low) is
 * of its thread's repository. */
static const char *repo_of(stats *st, const decided *d)
{
	const char *repo = d->repo ? d->repo : d->thread ? g_hash_table_lookup(st->thread_repo, d->thread) : NULL;

	return repo ? repo : "(none recorded)";
}

static void count_message(stats *st, const decided *d)
{
	fact f = { .date = d->date, .opened = d->opened, .other = d->other };

	/* Volume: the windows and the bars, not the lists and repositories
	 * (those are of what the threshold decided). */
	if (f.other) {
		count(st, &st->all, &f);
		count_period(st, &f);
		return;
	}
	f.answered = d->answered;
	f.demoted = demoted(d);
	if (!f.demoted && !d->relevant)
		return;
	f.patch = f.demoted && d->scored_low;
	f.replied = f.patch && d->thread && g_hash_table_lookup(st->replied, d->thread) == d;
	count(st, &st->all, &f);
	count(st, row_of(st->lists, d->list), &f);
	count(st, row_of(st->repos, repo_of(st, d)), &f);
	count_period(st, &f);
}

/* Answered: the replied tag, a later message of the user's in the thread,
 * or ccsift tag's record of the user's reply. */
static void find_answered(stats *st)
{
	for (guint i = 0; i < st->decided->len; i++) {
		decided *d = st->decided->pdata[i];
		const gint64 *mine = d->thread ? g_hash_table_lookup(st->mine, d->thread) : NULL;

		d->answered = d->replied || d->marked || (mine && *mine > d->date);
	}
}

/* Nothing decided yet is no error: stats says why (no_note). */
static int collect(stats *st)
{
	ccsift_decisions *store = NULL;
	int rc = ccsift_decisions_open(&store, NULL, FALSE);

	if (rc == CCSIFT_ENOTFOUND) {
		st->no_store = TRUE;
		return 0;
	}
	if (rc < 0)
		return rc;
	rc = ccsift_decisions_foreach(store, take, st);
	ccsift_decisions_close(store);
	if (rc < 0 || find_mine(st) < 0)
		return -1;
	find_answered(st);
	pick_replied(st);
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

/* One line of factual advice on the threshold, from the replied-anyway
 * share of the demoted patches (the threshold is a probability per patch);
 * it says what it cannot know: a demoted message nobody opened tells
 * nothing of whether it deserved to be. */
#define FEW_READ 20
static char *advice(const tally *t, gboolean *too_high)
{
	double share = ratio(t->replied, t->patches);

	*too_high = t->patches && share > TOO_HIGH;
	if (!t->demoted)
		return g_strdup("Nothing demoted yet: no advice on the threshold.");
	if (*too_high)
		return g_strdup_printf("You replied to or lifted %u of %u demoted patches (%.1f%%; one a thread), over %.0f%%: "
				       "the threshold looks too high for you. An automatic one comes down as your "
				       "replies add up (`ccsift calibrate` shows it); a configured one stays where "
				       "it is.", t->replied, t->patches, 100 * share, 100 * TOO_HIGH);
	if (!t->engaged)
		return g_strdup_printf("You have opened none of the %u demoted yet: whether the threshold is right "
				       "shows only in what you read of them (notmuch search tag:lowcc and "
				       "tag:unread): no advice yet.", t->demoted);
	if (t->engaged < FEW_READ)
		return g_strdup_printf("You replied to or lifted %u of %u demoted patches (%.1f%%; one a thread), at most "
				       "%.0f%%, but opened only %u of the %u demoted: too few to tell whether the "
				       "threshold is right; so far nothing says it is too high.", t->replied,
				       t->patches, 100 * share, 100 * TOO_HIGH, t->engaged, t->demoted);
	return g_strdup_printf("You replied to or lifted %u of %u demoted patches (%.1f%%; one a thread), at most %.0f%%, "
			       "and opened %u of the %u demoted: the threshold looks right.", t->replied,
			       t->patches, 100 * share, 100 * TOO_HIGH, t->engaged, t->demoted);
}

/* Why there are no numbers, and what to do; NULL when there are. */
static char *no_decisions_note(stats *st, char **low_ops)
{
	g_autoptr(GString) q = g_string_new(NULL), why = g_string_new(NULL);
	g_autofree char *path = ccsift_decisions_default_path();
	unsigned tagged = 0;

	if (st->found)
		return NULL;
	for (char **op = low_ops; op && *op; op++)
		if (**op == '+')
			g_string_append_printf(q, "%stag:\"%s\"", q->len ? " OR " : "", *op + 1);
	if (q->len) {
		notmuch_query_t *query = NULL;

		if (notmuch_query_create_with_syntax(st->db, q->str, NOTMUCH_QUERY_SYNTAX_XAPIAN, &query) == 0) {
			notmuch_query_count_messages(query, &tagged);
			notmuch_query_destroy(query);
		}
	}
	if (st->no_store)
		g_string_printf(why, "No decision of `ccsift tag` is recorded: %s does not exist.", path);
	else if (!st->recorded)
		g_string_printf(why, "No decision of `ccsift tag` is recorded: %s is empty.", path);
	else
		g_string_printf(why, "None of the %u decisions recorded in %s is of a message in this notmuch "
				"database.", st->recorded, path);
	g_string_append(why, " stats counts what `ccsift tag` decided and recorded there, so it has nothing "
			"to count; zeros would say nothing.");
	if (tagged)
		g_string_append_printf(why, " %u message%s carry the low tag (%s) all the same: mail delivered by "
				       "`ccsift filter` and `notmuch insert` (contrib/notmuch/procmailrc-insert) "
				       "is tagged but no decision is recorded for it.", tagged,
				       tagged == 1 ? "" : "s", q->str);
	g_string_append(why, " To fill it: `ccsift tag --query '*'` once decides the mail already in the "
			"database and records it, and the post-new hook (contrib/notmuch/post-new) does the same "
			"for new mail; then run stats again.");
	return g_string_free(g_steal_pointer(&why), FALSE);
}

/* --- terminal --- */

static void print_percent(unsigned part, unsigned whole)
{
	if (whole)
		printf(" %7.0f%%", 100.0 * part / whole);
	else
		printf(" %8s", "-");
}

/* share, opened, engaged, patches, replied */
static void print_engagement(const tally *t)
{
	print_percent(t->demoted, t->demoted + t->relevant);
	printf(" %8u", t->opened);
	print_percent(t->engaged, t->demoted);
	printf(" %8u %8u\n", t->patches, t->replied);
}

static void print_rows(const char *title, GPtrArray *rows)
{
	int width = strlen(title);

	for (guint i = 0; i < rows->len; i++)
		width = MAX(width, (int)strlen(((row *)rows->pdata[i])->name));
	width = MIN(width, 48);
	printf("\n%-*s %6s %6s %6s %8s %8s %8s %8s %8s\n", width, title, "week", "month", "total", "share",
	       "opened", "engaged", "patches", "replied");
	for (guint i = 0; i < rows->len; i++) {
		const row *r = rows->pdata[i];
		const tally *t = &r->w[TOTAL];
		/* (a list's id is the mail's: text, as anything of a mail printed) */
		g_autofree char *name = ccsift_printable(g_strdup(r->name));

		printf("%-*s %6u %6u %6u", width, name, r->w[WEEK].demoted, r->w[MONTH].demoted, t->demoted);
		print_engagement(t);
	}
}

static void print_text(stats *st, const char *note)
{
	g_autoptr(GPtrArray) lists = sorted(st->lists), repos = sorted(st->repos);
	g_autofree char *total = st->since ? g_strdup_printf("since %s", st->since) : g_strdup("all time");
	g_autofree char *week = st->until ? g_strdup_printf("7 days to %s", st->until) : g_strdup("last 7 days");
	g_autofree char *month = st->until ? g_strdup_printf("30 days to %s", st->until) : g_strdup("last 30 days");
	const char *labels[WINDOWS] = { week, month, total };
	int width = MAX(MAX(12, (int)strlen(total)), (int)strlen(month));
	g_autofree char *line = NULL;
	char now[16];
	gboolean too_high;

	if (note) {
		printf("%s\n", note);
		return;
	}
	printf("Mail ccsift tag decided, by message date (%s %s):\n\n", st->until ? "until" : "now",
	       ccsift_date_format(st->now, now, sizeof(now)));
	printf("%-*s %8s %8s %8s %8s %8s %8s %8s %8s\n", width, "", "all", "relevant", "demoted", "share", "opened",
	       "engaged", "patches", "replied");
	for (int w = 0; w < WINDOWS; w++) {
		const tally *t = &st->all.w[w];

		printf("%-*s %8u %8u %8u", width, labels[w], all_of(t), t->relevant, t->demoted);
		print_engagement(t);
	}
	printf("(all: every message decided, patches or not; share: demoted of relevant and demoted;\n"
	       " engaged: opened, or answered in its thread, of demoted; patches: the demoted the\n"
	       " threshold scored low itself, not cover letters or replies; replied: of those, the\n"
	       " one per thread you answered, as ccsift tag counts your replies)\n");
	print_rows("list", lists);
	print_rows("repository", repos);
	line = advice(&st->all.w[TOTAL], &too_high);
	printf("\n%s\n", line);
}

/* --- JSON --- */

/* A tally's counts, as members of the object being built. */
static void json_tally_counts(JsonBuilder *b, const tally *t)
{
	json_add_int(b, "all", all_of(t));
	json_add_int(b, "relevant", t->relevant);
	json_add_int(b, "other", t->other);
	json_add_int(b, "demoted", t->demoted);
	json_add_int(b, "opened", t->opened);
	json_add_int(b, "answered", t->answered);
	json_add_int(b, "engaged", t->engaged);
	json_add_int(b, "patches", t->patches);
	json_add_int(b, "replied", t->replied);
}

static void json_tally(JsonBuilder *b, const char *key, const tally *t)
{
	json_builder_set_member_name(b, key);
	json_builder_begin_object(b);
	json_tally_counts(b, t);
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

static JsonNode *to_json(stats *st, const char *note)
{
	g_autoptr(JsonBuilder) b = json_builder_new();
	g_autofree char *line = NULL;
	gboolean too_high;
	char date[16];

	line = advice(&st->all.w[TOTAL], &too_high);
	json_builder_begin_object(b);
	json_add_int(b, "now", st->now);
	json_add_string(b, "since", st->since);
	json_add_string(b, "until", st->until);
	json_add_int(b, "decisions_recorded", st->recorded);
	json_add_int(b, "decisions_found", st->found);
	json_add_string(b, "note", note);
	json_builder_set_member_name(b, "windows");
	json_builder_begin_object(b);
	for (int w = 0; w < WINDOWS; w++)
		json_tally(b, window_names[w], &st->all.w[w]);
	json_builder_end_object(b);
	json_rows(b, "lists", st->lists);
	json_rows(b, "repos", st->repos);
	/* The picture's bars. */
	json_add_string(b, "period", st->months ? "month" : "week");
	json_builder_set_member_name(b, st->months ? "months" : "weeks");
	json_builder_begin_array(b);
	for (int i = 0; i < st->periods; i++) {
		const tally *t = &st->period[i];

		json_builder_begin_object(b);
		json_add_string(b, "start", ccsift_date_format(st->period_start[i], date, sizeof(date)));
		json_tally_counts(b, t);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_add_double(b, "replied_share", ratio(st->all.w[TOTAL].replied, st->all.w[TOTAL].patches));
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

/* All the mail decided per week (or month), stacked: demoted and answered
 * anyway (in its thread), opened, neither; relevant; not a patch or
 * undecided. Messages: the picture is of the mail. */
static int write_svg(const char *path, const stats *st)
{
	static const char *const fills[] = { "#c0392b", "#f0a030", "#9db4cc", "#7fb07f", "#d8d8d8" };
	static const char *const names[] = { "demoted, answered anyway", "demoted, opened", "demoted, not opened",
					     "relevant", "not a patch, or undecided" };
	const int width = 760, height = 440, left = 60, right = 24, top = 104, bottom = 64;
	const char *unit = st->months ? "month" : "week";
	g_autofree char *title = g_strdup_printf("ccsift stats: mail decided per %s, and what you did with the demoted",
						 unit);
	ccsift_svg *s = ccsift_svg_open(path, width, height, left, right, top, bottom, title);
	unsigned max = 1, step, top_value, every, all = 0, demoted = 0, engaged = 0;
	double slot, label_w;
	char from[16], to[16];

	if (!s)
		return -1;
	for (int i = 0; i < st->periods; i++) {
		max = MAX(max, all_of(&st->period[i]));
		all += all_of(&st->period[i]);
		demoted += st->period[i].demoted;
		engaged += st->period[i].engaged;
	}
	{
		g_autofree char *sub = NULL;

		ccsift_date_format(st->period_start[0], from, sizeof(from));
		ccsift_date_format(st->period_start[st->periods] - 1, to, sizeof(to));
		sub = g_strdup_printf("%s to %s (UTC): %u decided, %u demoted (%.0f%%), %u of them opened or "
				      "replied to", from, to, all, demoted, 100.0 * ratio(demoted, all), engaged);
		ccsift_svg_text(s, left, 44, NULL, sub);
	}
	ccsift_svg_legend_across(s, left, 56, G_N_ELEMENTS(names), fills, names);
	step = grid_step(max);
	top_value = (max + step - 1) / step * step;
	for (unsigned v = 0; v <= top_value; v += step) {
		char label[16];

		snprintf(label, sizeof(label), "%u", v);
		ccsift_svg_grid_y(s, (double)v / top_value, label);
	}
	ccsift_svg_axis_titles(s, st->months ? "month (UTC)" : "week starting (UTC)", "messages");
	slot = ccsift_svg_x(s, 1.0 / st->periods) - ccsift_svg_x(s, 0);
	/* Dates with their year, as many as fit side by side. */
	label_w = ccsift_svg_text_width(st->months ? "2026-11" : "2026-11-02", 12) + 8;
	every = MAX(1, (unsigned)(label_w / slot) + (fmod(label_w, slot) > 0));
	for (int i = 0; i < st->periods; i++) {
		const tally *t = &st->period[i];
		unsigned parts[] = { t->answered, t->engaged - t->answered, t->demoted - t->engaged, t->relevant, t->other };
		double x = ccsift_svg_x(s, (double)i / st->periods) + slot * 0.15, base = 0;
		char date[16];

		ccsift_date_format(st->period_start[i], date, sizeof(date));
		if (st->months)
			date[7] = '\0';
		fprintf(s->f, "<g class=\"%s\"><title>%s %s: %u decided: %u relevant, %u demoted, %u opened, "
			"%u answered anyway, %u not a patch or undecided</title>\n", unit,
			st->months ? "month" : "from", date, all_of(t), t->relevant, t->demoted, t->opened,
			t->answered, t->other);
		for (size_t p = 0; p < G_N_ELEMENTS(parts); p++) {
			if (!parts[p])
				continue;
			ccsift_svg_rect(s, x, ccsift_svg_y(s, (base + parts[p]) / top_value), slot * 0.7,
					ccsift_svg_y(s, base / top_value) - ccsift_svg_y(s, (base + parts[p]) / top_value),
					fills[p], NULL);
			base += parts[p];
		}
		fprintf(s->f, "</g>\n");
		if (i % every == 0) {
			double cx = MIN(x + slot * 0.35, width - 4 - ccsift_svg_text_width(date, 12) / 2);

			ccsift_svg_text(s, cx, s->height - s->bottom + 16, "class=\"date\" text-anchor=\"middle\"", date);
		}
	}
	return ccsift_svg_close(s);
}

/* --- the command --- */

static void stats_clear(stats *st)
{
	if (st->db)
		notmuch_database_destroy(st->db);
	g_clear_pointer(&st->mine, g_hash_table_unref);
	g_clear_pointer(&st->replied, g_hash_table_unref);
	g_clear_pointer(&st->thread_repo, g_hash_table_unref);
	g_clear_pointer(&st->decided, g_ptr_array_unref);
	g_clear_pointer(&st->low_threads, g_hash_table_unref);
	g_clear_pointer(&st->lists, g_hash_table_unref);
	g_clear_pointer(&st->repos, g_hash_table_unref);
	g_clear_pointer(&st->period_start, g_free);
	g_clear_pointer(&st->period, g_free);
}

int cmd_stats(int argc, char **argv)
{
	common_options o = { 0 };
	stats st = { 0 };
	session s = { 0 };
	g_autofree char *since = NULL, *until = NULL, *plot = NULL, *note = NULL;
	GOptionEntry extra[] = {
		{ "since", 0, 0, G_OPTION_ARG_STRING, &since, "Only mail dated at or after DATE", "DATE" },
		{ "until", 0, 0, G_OPTION_ARG_STRING, &until, "Only mail dated before DATE (default: now)", "DATE" },
		{ "plot", 0, 0, G_OPTION_ARG_FILENAME, &plot, "Write the mail decided per week (per month over more "
		  "than 26 weeks) from --since (default: 12 weeks back) to --until as an SVG picture", "FILE" },
		{ NULL }
	};
	g_autofree GOptionEntry *entries = NULL;
	int rc = 0;

	entries = option_entries(&o, OPT_CONFIG | OPT_JSON, extra);
	if (!parse_options(&argc, &argv, "", "How much mail ccsift tag demoted, per list and per repository, "
			   "and how much of it you opened or replied to anyway.", entries))
		return 2;
	if ((since && ccsift_date_parse(since, &st.since_time) < 0) ||
	    (until && ccsift_date_parse(until, &st.until_time) < 0)) {
		fprintf(stderr, "ccsift stats: %s\n", ccsift_error_last());
		return 2;
	}
	if (since && until && st.since_time >= st.until_time) {
		fprintf(stderr, "ccsift stats: --since %s is not before --until %s\n", since, until);
		return 2;
	}
	st.since = since;
	st.until = until;
	st.now = until ? st.until_time : time(NULL);
	if (since && !until && st.since_time >= st.now) {
		fprintf(stderr, "ccsift stats: --since %s is in the future\n", since);
		return 2;
	}
	make_periods(&st);
	st.mine = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	st.replied = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	st.thread_repo = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
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
	note = no_decisions_note(&st, s.cfg ? s.cfg->tag_ops[CCSIFT_VERDICT_LOW] : NULL);
	if (o.json)
		print_json(to_json(&st, note));
	else
		print_text(&st, note);
	if (plot && note) {
		fprintf(stderr, "ccsift stats: nothing to draw, %s not written\n", plot);
	} else if (plot && write_svg(plot, &st) < 0) {
		fprintf(stderr, "ccsift stats: cannot write %s\n", plot);
		rc = -1;
	}
out:
	stats_clear(&st);
	session_close(&s);
	common_options_clear(&o);
	return rc < 0 ? 1 : 0;
}
