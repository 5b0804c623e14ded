/* cmd-tag.c: ccsift tag [--query Q] [--dry-run] [--lock-timeout S] [--time-budget S]
 * -- for a notmuch post-new hook: score new messages, decide per thread,
 * tag them, and record the decision in ccsift's store (core/decisions.h).
 *
 * notmuch gets only what a search needs: the tag changes, and the property
 * ccsift.verdict on low messages and on messages whose verdict changed
 * (with ccsift.was=low on those lifted out of low). Every message notmuch
 * writes is a Xapian document update; recording score and reason there on
 * every message made tagging 30x slower than notmuch tag --batch.
 *
 * Reading and scoring happen with the database open read-only; the write
 * lock is taken only to apply the decided changes, for a bounded time.
 * Debian's libnotmuch blocks on the lock with no timeout, so an alarm ends
 * the wait: nothing has been written at that point, and undecided messages
 * are found again by the next run.
 *
 * --undo takes back what earlier runs did to the messages of the query.
 *
 * Each message is decided under the bounds of ccsift filter (time budget,
 * 64 MiB, 5000 files), in a child process: one hostile mail that takes too
 * long, or crashes a library, costs that child, never the run.
 */
#define _GNU_SOURCE   /* strcasestr */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "nm.h"
#include "ccsift.h"
#include "decisions.h"
#include "error.h"
#include "mail.h"
#include "thread.h"

#define EX_TEMPFAIL 75
#define BATCH 500
#define TIME_BUDGET 2          /* seconds per decision, as for ccsift filter */
/* What of a subject goes into a query: a version's title is found by its
 * start, and a hostile subject of 300,000 words made a 5 GB query. */
#define MAX_TITLE_WORDS 32
#define MAX_TITLE_BYTES 512

typedef struct {
	char *id;
	char *file;
	guint thread;              /* which affected thread it belongs to */
	ccsift_thread_message tm;
	int stored;                /* the verdict recorded by an earlier run, or -1 */
	int stored_own;            /* its own verdict then, before the thread's rules */
	gint64 stored_traits;      /* what the thread's rules read of it then, or -1 */
	gboolean parsed;           /* this run read it: tm's traits are its own */
	gboolean stale;            /* its thread grew since it was read: left to the next run */
	gboolean stored_property;  /* notmuch carries a ccsift.verdict for it */
	gboolean was_low_property; /* no store row, and ccsift.was=low: lifted before the store */
	double score;              /* < 0: not scored */
	double threshold;
	gboolean has_margin;       /* the model decided it: margin is its logit less the repository's point */
	double margin;
	gint64 date;
	gint64 replied;            /* the user wrote in its thread, and it is the thread's best patch */
	gint64 stored_replied;
	gboolean maybe_mine;       /* maybe a reply of the user's (maybe_my_reply) */
	gboolean stored_has_margin; /* the store's margin and repository, as decide_own may change them */
	double stored_margin;
	char *stored_repo;
	int model_version;
	gint64 model_until;
	char *reason;
	char *repo;                /* the repository it was scored against */
	char *not_removed;         /* demoted: the tags its low operations found absent, or NULL */
	GPtrArray *add, *remove;   /* tag changes */
} message;

static void message_free(message *m)
{
	g_free(m->id);
	g_free(m->file);
	g_free(m->reason);
	g_free(m->repo);
	g_free(m->not_removed);
	g_free(m->stored_repo);
	g_ptr_array_unref(m->add);
	g_ptr_array_unref(m->remove);
	g_free(m);
}

static int verdict_from_name(const char *name)
{
	for (int v = 0; v < 4; v++)
		if (name && strcmp(name, ccsift_verdict_name(v)) == 0)
			return v;
	return -1;
}

typedef struct {
	common_options o;
	session s;
	notmuch_database_t *db;
	GPtrArray *messages;       /* message *, every message of the affected threads */
	GHashTable *selected;      /* ids matched by the query */
	GPtrArray *thread_ids;     /* the affected threads' ids, by message->thread */
	char **identities;
	ccsift_decisions *store;   /* NULL: none yet (a dry run) */
	gint64 now;                /* when this run decided */
	unsigned long revision;    /* of the database as it was read */
	int time_budget;           /* seconds per message */
	int jobs;                  /* deciding children: 1, 2, or 0 for the default */
	char *untag;               /* removed from the selected messages (--untag), or NULL */
	ccsift_upkeep_target upkeep;
	gboolean upkeep_due;
	GMutex lock;               /* the children's records are read by threads of their own */
	GCond progress;            /* a range moved on, or its child ended */
} tagger;

static gboolean is_me(tagger *t, GPtrArray *addresses)
{
	for (guint i = 0; i < addresses->len; i++) {
		const char *email = ((ccsift_address *)addresses->pdata[i])->email;

		for (char **e = t->identities; e && *e; e++)
			if (g_ascii_strcasecmp(*e, email) == 0)
				return TRUE;
	}
	return FALSE;
}

/* Score the files a reply quotes, as if the user were Cc'd on them. */
static gboolean quotes_relevant(tagger *t, ccsift_patch *p)
{
	g_autoptr(ccsift_patch) q = NULL;
	g_autoptr(ccsift_result) r = NULL;
	ccsift_address *me;

	if (!p->quoted_files->len || !t->identities || !*t->identities)
		return FALSE;
	q = ccsift_patch_new();
	q->kind = CCSIFT_KIND_PATCH;
	for (guint i = 0; i < p->quoted_files->len; i++) {
		ccsift_file *f = p->quoted_files->pdata[i];
		ccsift_patch_add_file(q->files, ccsift_file_new(f->status, f->path, f->old_path));
	}
	me = g_new0(ccsift_address, 1);
	me->email = g_strdup(t->identities[0]);
	g_ptr_array_add(q->cc, me);
	if (session_open(&t->s, &t->o, q, FALSE) < 0 || ccsift_score_patch(t->s.scorer, q, &t->s.opts, &r) < 0)
		return FALSE;
	/* Relevant by an override or by history; not merely for having none. */
	return r->verdict == CCSIFT_VERDICT_RELEVANT && (r->override || r->history > 0);
}

/* The start of title as the inside of a quoted phrase: at most
 * MAX_TITLE_WORDS whole words in MAX_TITLE_BYTES. How many went in. */
static unsigned append_title_phrase(GString *q, const char *title)
{
	const char *c = title, *end = title;
	unsigned words = 0;

	while (*c && words < MAX_TITLE_WORDS) {
		const char *word;

		while (*c && g_ascii_isspace(*c))
			c++;
		for (word = c; *c && !g_ascii_isspace(*c) && c - title <= MAX_TITLE_BYTES; c++)
			;
		if (c == word || c - title > MAX_TITLE_BYTES)
			break;
		end = c;
		words++;
	}
	ccsift_nm_append_quoted(q, title, end - title);
	return words;
}

/* Do two titles read the same, case and runs of white space aside? */
static gboolean same_title(const char *a, const char *b)
{
	while (*a && *b) {
		if (g_ascii_isspace(*a) && g_ascii_isspace(*b)) {
			while (g_ascii_isspace(*a))
				a++;
			while (g_ascii_isspace(*b))
				b++;
		} else if (g_ascii_tolower(*a++) != g_ascii_tolower(*b++)) {
			return FALSE;
		}
	}
	return !*a && !*b;
}

/* How many of the user's messages a phrase search reads, at most, for one
 * whose subject has the very title (the phrase also finds longer ones). */
#define MAX_TITLE_MATCHES 50

/* Did the user reply to an earlier version of this series? */
static gboolean engaged_before(tagger *t, ccsift_patch *p)
{
	g_autoptr(GString) q = g_string_new(NULL);
	notmuch_query_t *query = NULL;
	notmuch_messages_t *ms = NULL;
	gboolean found = FALSE;
	unsigned read = 0;

	if ((p->subject.version <= 1 && !p->change_id) || !p->subject.title || !*p->subject.title ||
	    !t->identities || !*t->identities)
		return FALSE;
	ccsift_nm_append_from(q, t->identities);
	g_string_append(q, " AND subject:\"");
	if (!append_title_phrase(q, p->subject.title))
		return FALSE;
	g_string_append(q, "\"");
	if (notmuch_query_create_with_syntax(t->db, q->str, NOTMUCH_QUERY_SYNTAX_XAPIAN, &query))
		return FALSE;
	if (notmuch_query_search_messages(query, &ms) == 0) {
		for (; !found && read < MAX_TITLE_MATCHES && notmuch_messages_valid(ms);
		     notmuch_messages_move_to_next(ms), read++) {
			notmuch_message_t *nm = notmuch_messages_get(ms);
			ccsift_subject theirs = { 0 };

			ccsift_subject_parse(&theirs, notmuch_message_get_header(nm, "subject"));
			found = theirs.title && same_title(theirs.title, p->subject.title);
			ccsift_subject_clear(&theirs);
			notmuch_message_destroy(nm);
		}
	}
	notmuch_query_destroy(query);
	return found;
}

/* The verdict an X-Ccsift header of ccsift filter gives, or -1. */
static int filter_header_verdict(const GByteArray *raw)
{
	const char *p = (const char *)raw->data, *end = p + raw->len;

	if (raw->len >= 5 && memcmp(p, "From ", 5) == 0) {
		const char *nl = memchr(p, '\n', end - p);
		p = nl ? nl + 1 : end;
	}
	if (end - p > 10 && g_ascii_strncasecmp(p, "X-Ccsift: ", 10) == 0) {
		const char *word = p + 10, *stop = word;
		g_autofree char *name = NULL;

		/* (the file's bytes, not a string: no NUL ends them) */
		while (stop < end && *stop != ';' && *stop != '\r' && *stop != '\n')
			stop++;
		name = g_strndup(word, stop - word);
		return verdict_from_name(name);
	}
	return -1;
}

static void decide_own(tagger *t, message *m)
{
	g_autoptr(GByteArray) raw = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(ccsift_patch) p = NULL;
	g_autoptr(ccsift_result) r = NULL;
	int v;

	m->tm.verdict = CCSIFT_VERDICT_UNKNOWN;
	m->tm.version = 1;
	m->tm.number = -1;
	if (!m->file) {
		m->reason = g_strdup("the message has no file");  /* never read stdin instead */
		return;
	}
	if (!(raw = read_message(m->file, &err))) {
		m->reason = g_strdup(err->message);
		return;
	}
	if ((m->reason = message_over_size(raw->len)))
		return;
	if (ccsift_mail_parse(&p, (const char *)raw->data, raw->len) < 0) {
		m->reason = g_strdup(ccsift_error_last());
		return;
	}
	m->parsed = TRUE;
	m->tm.kind = p->kind;
	m->tm.version = p->subject.version;
	m->tm.number = p->subject.number;
	m->tm.reply = p->kind == CCSIFT_KIND_NOT_PATCH;
	m->tm.no_files = p->files->len == 0;
	m->tm.from_me = p->from && t->identities && g_strv_contains((const char *const *)t->identities, p->from->email);
	m->tm.to_me = is_me(t, p->to);
	/* The thread's rules read these of every message, decided before or not. */
	m->tm.quotes_relevant = m->tm.reply && quotes_relevant(t, p);
	m->tm.engaged_before = p->kind != CCSIFT_KIND_NOT_PATCH && engaged_before(t, p);
	if (m->stored_own >= 0 && !g_hash_table_contains(t->selected, m->id)) {
		m->tm.verdict = m->stored_own;  /* decided by an earlier run */
		return;
	}
	if (t->s.cfg->trust_filter_header && (v = filter_header_verdict(raw)) >= 0) {
		m->tm.verdict = v;
		m->reason = g_strdup("X-Ccsift header of ccsift filter");
		return;
	}
	if (p->kind == CCSIFT_KIND_NOT_PATCH) {
		m->tm.verdict = CCSIFT_VERDICT_NOT_PATCH;
		m->reason = g_strdup("no diff, diffstat or pull request");
		return;
	}
	if ((m->reason = patch_over_files(p)))
		return;
	if (session_open(&t->s, &t->o, p, FALSE) < 0 || ccsift_score_patch(t->s.scorer, p, &t->s.opts, &r) < 0) {
		m->reason = g_strdup(ccsift_error_last());
		return;
	}
	m->tm.verdict = r->verdict;
	m->repo = g_strdup(t->s.repo_name);
	m->score = r->score;
	/* Where the model decided, as eval's pairs: what a reply teaches. */
	m->has_margin = r->cc && !r->override && r->history > 0;
	m->margin = m->has_margin ? ccsift_logit(r->score) - r->model.threshold : 0;
	m->threshold = r->threshold;
	m->model_version = r->model.version;
	m->model_until = r->model.until;
	m->reason = g_strdup(r->summary);
}

/* The verdict of an earlier run: from the store, else from the property
 * an older ccsift wrote on every message. */
static void load_stored(tagger *t, message *m, notmuch_message_t *nm)
{
	g_autoptr(ccsift_decision) dec = NULL;
	const char *property = NULL;

	notmuch_message_get_property(nm, "ccsift.verdict", &property);
	m->stored_property = property != NULL;
	/* A row whose verdict is no verdict (edited, damaged) is no decision:
	 * the property notmuch keeps says what was done. */
	if (t->store && ccsift_decisions_get(t->store, m->id, &dec) > 0 && verdict_from_name(dec->verdict) < 0)
		g_clear_pointer(&dec, ccsift_decision_free);
	if (dec) {
		m->stored = verdict_from_name(dec->verdict);
		m->has_margin = dec->has_margin;
		m->margin = dec->margin;
		m->stored_replied = m->replied = dec->replied;
		m->stored_has_margin = dec->has_margin;
		m->stored_margin = dec->margin;
		m->stored_repo = g_strdup(dec->repo);
		/* What notmuch carries is what the tags were planned from: a
		 * database rebuilt since (notmuch new from scratch), or restored
		 * from a backup, lost or changed it. A low verdict always left
		 * the property, which only ccsift's --undo removes: without it,
		 * the low tags are to be applied again, not taken for the user's. */
		if (property && verdict_from_name(property) >= 0)
			m->stored = verdict_from_name(property);
		else if (!property && m->stored == (int)CCSIFT_VERDICT_LOW)
			m->stored = -1;
	} else {
		const char *was = NULL;

		m->stored = verdict_from_name(property);
		/* A ccsift from before the store (950df85) said only in notmuch
		 * that it had lifted a low message: stats counts it demoted. */
		notmuch_message_get_property(nm, "ccsift.was", &was);
		m->was_low_property = was && strcmp(was, "low") == 0;
	}
	/* The thread's rules start from the message's own verdict: a reply
	 * that inherited low is not low of itself once the thread is lifted. */
	m->stored_own = dec && dec->own ? verdict_from_name(dec->own) : m->stored;
	m->stored_traits = dec ? dec->traits : -1;
}

/* Does a From: header name one of the user's addresses? Any case, and
 * "xme@example.org" for "me@example.org" too: a message it says no of is
 * not the user's; one it says yes of is parsed to be sure. */
static gboolean names_me(const tagger *t, const char *from)
{
	for (char **e = t->identities; from && e && *e; e++)
		if (**e && strcasestr(from, *e))
			return TRUE;
	return FALSE;
}

/* Might the message be a reply of the user's, by what notmuch keeps of
 * its headers: from one of their addresses, and a reply by its subject
 * or no patch by its tags (the user's own patches are not replies). */
static gboolean maybe_my_reply(const tagger *t, notmuch_message_t *nm)
{
	ccsift_subject subject = { 0 };
	gboolean reply;

	if (!names_me(t, notmuch_message_get_header(nm, "from")))
		return FALSE;
	ccsift_subject_parse(&subject, notmuch_message_get_header(nm, "subject"));
	reply = subject.reply || !subject.prefix;
	ccsift_subject_clear(&subject);
	return reply;
}

/* The tags the low operations found absent when they demoted the message
 * (ccsift.not-removed: an archived message's inbox, or one new.tags does
 * not give, to be given by a later step of the hook); an empty strv for
 * none. */
static char **not_removed_by_low(notmuch_message_t *nm)
{
	const char *absent = NULL;

	notmuch_message_get_property(nm, "ccsift.not-removed", &absent);
	return g_strsplit(absent ? absent : "", " ", -1);
}

/*
 * Did the user take this message out of the low pile by hand? Demoted (its
 * ccsift.verdict low), and its tags no longer what the low operations made
 * them (lowcc taken off, inbox put back: notmuch-search's tagging does a
 * whole thread), or so found by an earlier run (ccsift.lifted). That is
 * their engagement with its thread, as a reply of theirs would be. A tag
 * the low operations did not remove, not being there, is no sign when it
 * comes: afew's InboxFilter, after ccsift in the hook, gives every new
 * message its inbox, and each low one was taken for lifted.
 */
static gboolean lifted_by_hand(const tagger *t, const message *m, notmuch_message_t *nm)
{
	const char *mark = NULL;

	if (notmuch_message_get_property(nm, "ccsift.lifted", &mark) == 0 && mark)
		return TRUE;
	if (!m->stored_property || m->stored != (int)CCSIFT_VERDICT_LOW)
		return FALSE;
	for (char **op = t->s.cfg->tag_ops[CCSIFT_VERDICT_LOW]; *op; op++) {
		g_auto(GStrv) absent = NULL;

		if ((**op == '+') == ccsift_nm_has_tag(nm, *op + 1))
			continue;
		if (**op == '+' || !g_strv_contains((const char *const *)(absent = not_removed_by_low(nm)), *op + 1))
			return TRUE;
	}
	return FALSE;
}

/* A message as notmuch has it: a Xapian document's terms read once. */
static message *message_load(tagger *t, notmuch_message_t *nm)
{
	message *m = g_new0(message, 1);

	m->id = g_strdup(notmuch_message_get_message_id(nm));
	m->file = g_strdup(notmuch_message_get_filename(nm));
	m->date = notmuch_message_get_date(nm);
	m->tm.id = m->id;
	m->tm.verdict = CCSIFT_VERDICT_UNKNOWN;
	m->tm.version = 1;
	m->tm.number = -1;
	m->score = m->threshold = -1;
	m->maybe_mine = maybe_my_reply(t, nm);
	m->add = g_ptr_array_new_with_free_func(g_free);
	m->remove = g_ptr_array_new_with_free_func(g_free);
	load_stored(t, m, nm);
	m->tm.lifted = lifted_by_hand(t, m, nm);
	return m;
}

/* Every message of the thread, however many: the thread rules need them all
 * (a reply of the user's as the 1001st message lifts the whole thread). The
 * work per message is bounded when it is decided. The messages the query
 * selected are in selected (by id), loaded already: the thread's query
 * finds them by the Message-ID notmuch keeps as a value, not its terms. */
static void load_thread(tagger *t, const char *thread_id, guint thread, GHashTable *selected)
{
	g_autofree char *q = g_strdup_printf("thread:%s", thread_id);
	notmuch_query_t *query = NULL;
	notmuch_messages_t *ms = NULL;

	if (notmuch_query_create_with_syntax(t->db, q, NOTMUCH_QUERY_SYNTAX_XAPIAN, &query) ||
	    notmuch_query_search_messages(query, &ms)) {
		if (query)
			notmuch_query_destroy(query);
		return;
	}
	for (; notmuch_messages_valid(ms); notmuch_messages_move_to_next(ms)) {
		notmuch_message_t *nm = notmuch_messages_get(ms);
		const char *id = notmuch_message_get_header(nm, "message-id");
		message *m = NULL;

		if (!id || !g_hash_table_steal_extended(selected, id, NULL, (gpointer *)&m))
			m = message_load(t, nm);
		m->thread = thread;
		g_ptr_array_add(t->messages, m);
		notmuch_message_destroy(nm);
	}
	notmuch_query_destroy(query);
}

/* --- deciding in a child, a message at a time ---
 *
 * The child decides messages from a given one on, each under an alarm whose
 * default action ends it, and sends each result down a pipe. When it ends
 * early, the message it was on is unknown (over the time budget, or the
 * library's crash), and a new child goes on from the next. */

enum { RECORD_MESSAGE = 'M', RECORD_UPKEEP = 'U' };

static void put_int(GString *b, int v)
{
	g_string_append_len(b, (const char *)&v, sizeof(v));
}

static void put_double(GString *b, double v)
{
	g_string_append_len(b, (const char *)&v, sizeof(v));
}

static void put_i64(GString *b, gint64 v)
{
	g_string_append_len(b, (const char *)&v, sizeof(v));
}

static void put_str(GString *b, const char *s)
{
	put_int(b, s ? (int)strlen(s) : -1);
	if (s)
		g_string_append(b, s);
}

static int write_all(int fd, const GString *b)
{
	for (gsize off = 0; off < b->len;) {
		ssize_t n = write(fd, b->str + off, b->len - off);

		if (n < 0 && errno != EINTR)
			return -1;
		off += n > 0 ? (gsize)n : 0;
	}
	return 0;
}

static int send_message(int fd, guint i, const message *m)
{
	g_autoptr(GString) b = g_string_new(NULL);

	put_int(b, RECORD_MESSAGE);
	put_int(b, (int)i);
	put_int(b, m->tm.verdict);
	put_int(b, m->parsed);
	put_i64(b, ccsift_thread_message_traits(&m->tm));
	put_double(b, m->score);
	put_double(b, m->threshold);
	put_int(b, m->has_margin);
	put_double(b, m->margin);
	put_int(b, m->model_version);
	put_i64(b, m->model_until);
	put_str(b, m->reason);
	put_str(b, m->repo);
	return write_all(fd, b);
}

/* The index to catch up with, known only where a repository was opened. */
static int send_upkeep(int fd, tagger *t)
{
	g_autoptr(GString) b = g_string_new(NULL);
	ccsift_upkeep_target u = { 0 };

	if (!session_upkeep_due(&t->s, &u))
		return 0;
	put_int(b, RECORD_UPKEEP);
	put_str(b, u.repo);
	put_str(b, u.ref);
	put_str(b, u.index);
	put_int(b, u.interval);
	ccsift_upkeep_target_clear(&u);
	return write_all(fd, b);
}

static G_GNUC_NORETURN void decide_from(tagger *t, guint from, guint end, int fd)
{
	/* One read transaction on each index for all of the child's messages,
	 * as ccsift filter has for its one: no lock taken and dropped around
	 * each statement, and every message decided on one state of the index. */
	t->s.one_snapshot = TRUE;
	signal(SIGALRM, SIG_DFL);
	for (guint i = from; i < end; i++) {
		alarm((unsigned)t->time_budget);
		decide_own(t, t->messages->pdata[i]);
		alarm(0);
		if (send_message(fd, i, t->messages->pdata[i]) < 0)
			_exit(1);
	}
	_exit(send_upkeep(fd, t) < 0 ? 1 : 0);
}

static gboolean get_int(FILE *in, int *v)
{
	return fread(v, sizeof(*v), 1, in) == 1;
}

static gboolean get_double(FILE *in, double *v)
{
	return fread(v, sizeof(*v), 1, in) == 1;
}

static gboolean get_i64(FILE *in, gint64 *v)
{
	return fread(v, sizeof(*v), 1, in) == 1;
}

static gboolean get_str(FILE *in, char **s)
{
	int n;

	*s = NULL;
	if (!get_int(in, &n) || n > (64 << 20))
		return FALSE;
	if (n < 0)
		return TRUE;
	*s = g_malloc(n + 1);
	(*s)[n] = 0;
	return fread(*s, 1, n, in) == (size_t)n;
}

/* One record from a child deciding messages [lo, hi) into t: the index of
 * the message it was for, -1 for another record, -2 at the end. An index
 * outside [lo, hi) is a broken record, never another range's message (each
 * range is read by its own thread). */
static int receive(tagger *t, FILE *in, guint lo, guint hi)
{
	int type, i, verdict, parsed;
	gint64 traits;
	message *m;

	if (!get_int(in, &type))
		return -2;
	if (type == RECORD_UPKEEP) {
		ccsift_upkeep_target u = { 0 };
		gboolean ok = get_str(in, &u.repo) && get_str(in, &u.ref) && get_str(in, &u.index) &&
			      get_int(in, &u.interval);

		g_mutex_lock(&t->lock);
		ccsift_upkeep_target_clear(&t->upkeep);
		t->upkeep = u;
		t->upkeep_due = ok;
		g_mutex_unlock(&t->lock);
		return ok ? -1 : -2;
	}
	if (type != RECORD_MESSAGE || !get_int(in, &i) || i < 0 || (guint)i < lo || (guint)i >= hi)
		return -2;
	if (!get_int(in, &verdict) || !get_int(in, &parsed) || !get_i64(in, &traits))
		return -2;
	m = t->messages->pdata[i];
	m->tm.verdict = verdict;
	m->parsed = parsed;
	ccsift_thread_message_set_traits(&m->tm, traits);
	if (!get_double(in, &m->score) || !get_double(in, &m->threshold) || !get_int(in, &m->has_margin) ||
	    !get_double(in, &m->margin) || !get_int(in, &m->model_version) ||
	    !get_i64(in, &m->model_until) || !get_str(in, &m->reason) || !get_str(in, &m->repo))
		return -2;
	return i;
}

static char *child_failure(tagger *t, int status)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		return g_strdup_printf("over the time budget of %d s", t->time_budget);
	if (WIFSIGNALED(status))
		return g_strdup_printf("deciding it failed: %s", g_strsignal(WTERMSIG(status)));
	return g_strdup_printf("deciding it failed (exit status %d)", WEXITSTATUS(status));
}

/* Messages [next, end) of t, decided by one child at a time. */
typedef struct {
	tagger *t;
	guint next, end;           /* next: under t->lock while its records are read */
	pid_t pid;
	FILE *in;                  /* the child's records */
	int status;                /* how it ended */
	gboolean collected;        /* its first child ended (under t->lock) */
	guint finished;            /* the messages before it are tagged */
	guint thread_end;          /* where the thread at finished ends, once found */
} range;

static gboolean range_start(range *r)
{
	int fds[2];

	r->pid = -1;
	if (pipe(fds) < 0)
		return FALSE;
	if ((r->pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return FALSE;
	}
	if (r->pid == 0) {
		close(fds[0]);
		decide_from(r->t, r->next, r->end, fds[1]);
	}
	close(fds[1]);
	if (!(r->in = fdopen(fds[0], "r")))
		close(fds[0]);
	return TRUE;
}

/* The child's records, then its end. */
static void range_collect(range *r)
{
	tagger *t = r->t;
	int i;

	while (r->in && (i = receive(t, r->in, r->next, r->end)) != -2)
		if (i >= 0) {
			g_mutex_lock(&t->lock);
			r->next = (guint)i + 1;
			g_cond_signal(&t->progress);
			g_mutex_unlock(&t->lock);
		}
	if (r->in)
		fclose(r->in);
	r->in = NULL;
	while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
		;
	g_mutex_lock(&t->lock);
	r->collected = TRUE;
	g_cond_signal(&t->progress);
	g_mutex_unlock(&t->lock);
}

static gpointer range_collect_thread(gpointer r)
{
	range_collect(r);
	return NULL;
}

/* The child ended before the range did: the message it was on is unknown. */
static void range_fail(range *r)
{
	message *m = r->t->messages->pdata[r->next++];

	/* Nothing of a record cut short counts. */
	m->tm.verdict = CCSIFT_VERDICT_UNKNOWN;
	g_clear_pointer(&m->repo, g_free);
	m->score = m->threshold = -1;
	m->has_margin = FALSE;
	m->model_version = 0;
	m->model_until = 0;
	g_free(m->reason);
	m->reason = child_failure(r->t, r->status);
}

/* The rest of the range, a new child going on after each one that ended
 * early. */
static void decide_range(range *r)
{
	while (r->next < r->end) {
		if (!range_start(r))
			break;
		range_collect(r);
		if (r->next < r->end)
			range_fail(r);
	}
	/* No child at all: the rest stay unknown, and say so. */
	for (; r->next < r->end; r->next++) {
		message *m = r->t->messages->pdata[r->next];

		m->reason = g_strdup_printf("cannot start deciding: %s", g_strerror(errno));
	}
}

/* Where a second child starts: half way, at the start of a thread (its
 * messages name the same files, which one child's walks then hold). By
 * default a small batch is not worth a second child's start (the index,
 * the model), nor is a machine with one processor. */
#define MIN_SPLIT 256

static guint split_point(const tagger *t)
{
	guint i = t->messages->len / 2;

	if (t->jobs == 1 || t->messages->len < 2 ||
	    (t->jobs == 0 && (t->messages->len < MIN_SPLIT || g_get_num_processors() < 2)))
		return t->messages->len;
	while (i < t->messages->len &&
	       ((message *)t->messages->pdata[i])->thread == ((message *)t->messages->pdata[i - 1])->thread)
		i++;
	return i;
}

/* A message that cannot be decided now keeps the verdict it had: a missing
 * file or a broken index must not undo every earlier decision. One that
 * could not be read at all (renamed since notmuch saw it, or crashing a
 * library) also counts for its thread as it did: a reply of the user's
 * still lifts the thread. */
static void keep_earlier(message *m)
{
	if (m->tm.verdict != CCSIFT_VERDICT_UNKNOWN || m->stored_own <= (int)CCSIFT_VERDICT_UNKNOWN)
		return;
	m->tm.verdict = m->stored_own;
	if (!m->parsed && m->stored_traits >= 0)
		ccsift_thread_message_set_traits(&m->tm, m->stored_traits);
}

/* The changes that take message from its current tags to the final verdict's. */
static void plan(tagger *t, message *m, notmuch_message_t *nm)
{
	char **low = t->s.cfg->tag_ops[CCSIFT_VERDICT_LOW];
	char **ops = t->s.cfg->tag_ops[m->tm.final];
	g_auto(GStrv) not_removed = NULL;
	g_autoptr(GHashTable) want = g_hash_table_new(g_str_hash, g_str_equal);  /* tag -> "+" or "-" */

	/* A decision stands until it changes: what the user did to the
	 * message's tags since is theirs, and so are a message's they lifted. */
	if (m->stored == (int)m->tm.final || m->tm.lifted)
		return;
	/* Undo what an earlier low verdict did: a tag it would have removed
	 * but found absent (an archived message's inbox) is not its to give
	 * back. */
	if (m->stored == (int)CCSIFT_VERDICT_LOW && m->tm.final != CCSIFT_VERDICT_LOW) {
		for (char **op = low; *op; op++)
			g_hash_table_insert(want, *op + 1, **op == '+' ? "-" : "+");
		not_removed = not_removed_by_low(nm);
		for (char **tag = not_removed; *tag; tag++)
			if (g_strcmp0(g_hash_table_lookup(want, *tag), "+") == 0)
				g_hash_table_remove(want, *tag);
	}
	for (char **op = ops; *op; op++)
		g_hash_table_insert(want, *op + 1, **op == '+' ? "+" : "-");
	GHashTableIter it;
	gpointer tag, sign;

	g_hash_table_iter_init(&it, want);
	while (g_hash_table_iter_next(&it, &tag, &sign)) {
		gboolean present = ccsift_nm_has_tag(nm, tag);

		if (*(char *)sign == '+' && !present)
			g_ptr_array_add(m->add, g_strdup(tag));
		else if (*(char *)sign == '-' && present)
			g_ptr_array_add(m->remove, g_strdup(tag));
		else if (*(char *)sign == '-' && m->tm.final == CCSIFT_VERDICT_LOW) {
			char *more = g_strjoin(" ", m->not_removed ? m->not_removed : tag, m->not_removed ? tag : NULL, NULL);

			g_free(m->not_removed);
			m->not_removed = more;
		}
	}
	g_ptr_array_sort(m->add, (GCompareFunc)g_strcmp0);
	g_ptr_array_sort(m->remove, (GCompareFunc)g_strcmp0);
}

static gboolean decided_anew(const message *m)
{
	return m->stored != (int)m->tm.final;
}

/* Does notmuch need the verdict as a property? Where a search needs it:
 * on low messages, and where it changed (ccsift stats counts a lifted low
 * message; `property:ccsift.verdict=relevant` finds what was moved). */
static gboolean wants_property(const message *m)
{
	return decided_anew(m) && (m->tm.final == CCSIFT_VERDICT_LOW || m->stored >= 0 || m->stored_property);
}

/* --untag: the selected messages shed the tag with their other changes,
 * in the same transaction; mail that arrived since the query keeps it for
 * the next run (a hook's separate `notmuch tag -new -- tag:new` took it off
 * mail never decided). */
static void plan_untag(tagger *t, message *m, notmuch_message_t *nm)
{
	if (!t->untag || !g_hash_table_contains(t->selected, m->id) || !ccsift_nm_has_tag(nm, t->untag))
		return;
	for (guint i = 0; i < m->remove->len; i++)
		if (strcmp(m->remove->pdata[i], t->untag) == 0)
			return;
	g_ptr_array_add(m->remove, g_strdup(t->untag));
	g_ptr_array_sort(m->remove, (GCompareFunc)g_strcmp0);
}

static gboolean changes(const message *m)
{
	return !m->stale && (m->add->len || m->remove->len || wants_property(m));
}

/* A query term for one message id, as notmuch tag --batch reads it (Xapian
 * boolean term quoting); NULL for an id no batch line can hold. */
static char *id_term(const char *id)
{
	GString *s;

	if (id[strcspn(id, "\r\n")])
		return NULL;
	s = g_string_new("id:\"");
	ccsift_nm_append_quoted(s, id, -1);
	g_string_append_c(s, '"');
	return g_string_free(s, FALSE);
}

/* sign and tag as notmuch tag --batch reads them: the tag hex-encoded (%NN)
 * but for the characters notmuch dump leaves alone, and a leading + or -
 * always (notmuch refuses "+-tag" as a tag starting with '-'). */
static void append_batch_tag(GString *line, char sign, const char *tag)
{
	g_string_append_c(line, sign);
	for (const char *c = tag; *c; c++) {
		if (g_ascii_isalnum(*c) || strchr("_@=.,", *c) || (c != tag && (*c == '-' || *c == '+')))
			g_string_append_c(line, *c);
		else
			g_string_append_printf(line, "%%%02x", (unsigned char)*c);
	}
	g_string_append_c(line, ' ');
}

static void print_batch_line(const message *m)
{
	g_autofree char *term = id_term(m->id);
	g_autoptr(GString) line = g_string_new(NULL);

	for (guint i = 0; i < m->add->len; i++)
		append_batch_tag(line, '+', m->add->pdata[i]);
	for (guint i = 0; i < m->remove->len; i++)
		append_batch_tag(line, '-', m->remove->pdata[i]);
	if (!line->len)
		return;
	if (!term)
		fprintf(stderr, "ccsift tag: message id with a line break, left out of the batch lines\n");
	else
		printf("%s-- %s\n", line->str, term);
}

static const char *alarm_message = "ccsift tag: the notmuch database is locked by another process; "
				   "gave up waiting, nothing was tagged; the next run catches up\n";

static void on_alarm(int sig)
{
	(void)sig;
	/* Still inside the blocking open: nothing was written. */
	if (write(2, alarm_message, strlen(alarm_message)) < 0) {
	}
	_exit(EX_TEMPFAIL);
}

static int open_for_writing(tagger *t, notmuch_database_t **db)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int rc;

	sigaction(SIGALRM, &sa, NULL);
	alarm(t->s.cfg->lock_timeout > 0 ? (unsigned)t->s.cfg->lock_timeout : 1);
	rc = ccsift_nm_open(NOTMUCH_DATABASE_MODE_READ_WRITE, db);
	alarm(0);
	return rc;
}

static void write_properties(const message *m, notmuch_message_t *nm)
{
	/* Older ccsift wrote these on every message: a changed one sheds them. */
	notmuch_message_remove_all_properties(nm, "ccsift.verdict");
	notmuch_message_remove_all_properties(nm, "ccsift.score");
	notmuch_message_remove_all_properties(nm, "ccsift.reason");
	notmuch_message_remove_all_properties(nm, "ccsift.repo");
	/* It was demoted: ccsift stats still counts it so when the user
	 * lifted it by writing in its thread. Low again, it is just low. */
	notmuch_message_remove_all_properties(nm, "ccsift.not-removed");
	if (m->tm.final == CCSIFT_VERDICT_LOW)
		notmuch_message_remove_all_properties(nm, "ccsift.was");
	else if (m->stored == (int)CCSIFT_VERDICT_LOW)
		notmuch_message_add_property(nm, "ccsift.was", "low");
	/* Demoted, a tag of the low operations' to remove it did not have:
	 * lifted, it does not get it back. */
	if (m->tm.final == CCSIFT_VERDICT_LOW && m->not_removed)
		notmuch_message_add_property(nm, "ccsift.not-removed", m->not_removed);
	/* Lifted by the user's hand: the next runs know it by this, the
	 * verdict being relevant from now on. */
	if (m->tm.lifted)
		notmuch_message_add_property(nm, "ccsift.lifted", "by-hand");
	notmuch_message_add_property(nm, "ccsift.verdict", ccsift_verdict_name(m->tm.final));
}

static int tag_one(notmuch_database_t *db, const message *m, gboolean sync)
{
	notmuch_message_t *nm = NULL;

	/* Removed since it was read (notmuch new ran while we waited for
	 * the lock): nothing to tag, and the batch goes on. */
	if (notmuch_database_find_message(db, m->id, &nm) || !nm)
		return 0;
	notmuch_message_freeze(nm);
	for (guint j = 0; j < m->add->len; j++)
		notmuch_message_add_tag(nm, m->add->pdata[j]);
	for (guint j = 0; j < m->remove->len; j++)
		notmuch_message_remove_tag(nm, m->remove->pdata[j]);
	if (wants_property(m))
		write_properties(m, nm);
	notmuch_message_thaw(nm);
	if (sync)
		notmuch_message_tags_to_maildir_flags(nm);
	notmuch_message_destroy(nm);
	return 0;
}

static int record(tagger *t, const message *m)
{
	ccsift_decision dec = {
		.id = m->id,
		.verdict = (char *)ccsift_verdict_name(m->tm.final),
		.own = (char *)ccsift_verdict_name(m->tm.verdict),
		.was_low = m->was_low_property ||
			   (m->stored == (int)CCSIFT_VERDICT_LOW && m->tm.final != CCSIFT_VERDICT_LOW),
		.score = m->score,
		.threshold = m->score >= 0 ? m->threshold : -1,
		.reason = (char *)(m->tm.why ? m->tm.why : m->reason),
		.decided = t->now,
		.model_version = m->score >= 0 ? m->model_version : 0,
		.model_until = m->model_until,
		.repo = m->repo,
		.has_margin = m->has_margin,
		.margin = m->margin,
		.replied = m->replied,
		.traits = m->parsed ? ccsift_thread_message_traits(&m->tm) : -1,
	};

	return ccsift_decisions_put(t->store, &dec);
}

/* Every new decision into the store, in one transaction left open until
 * notmuch has committed its part: a run that fails there records nothing,
 * and the next run decides and tags those messages again. */
static int record_all(tagger *t)
{
	if (ccsift_decisions_begin(t->store) < 0)
		return -1;
	for (guint i = 0; i < t->messages->len; i++) {
		message *m = t->messages->pdata[i];

		/* Its own verdict and traits too: the next run's thread rules start there. */
		if (!m->stale && (decided_anew(m) || m->stored_own != (int)m->tm.verdict || m->replied != m->stored_replied ||
		     (m->parsed && ccsift_thread_message_traits(&m->tm) != m->stored_traits)) &&
		    record(t, m) < 0) {
			ccsift_decisions_rollback(t->store);
			return -1;
		}
	}
	return 0;
}

/*
 * notmuch has the run's tags but the store not its decisions (a full disk
 * at the store's commit): the messages that shed --untag get it back, so
 * that the next run decides and records them (the tags they have are then
 * no change). Else they would never be recorded: not selected again.
 */
static void untag_put_back(tagger *t, notmuch_database_t *db)
{
	g_autofree char *why = g_strdup(ccsift_error_last());
	guint put_back = 0;

	if (!t->untag)
		return;
	for (guint i = 0; i < t->messages->len; i++) {
		message *m = t->messages->pdata[i];
		notmuch_message_t *nm = NULL;

		for (guint j = 0; j < m->remove->len; j++)
			if (strcmp(m->remove->pdata[j], t->untag) == 0 &&
			    !notmuch_database_find_message(db, m->id, &nm) && nm) {
				put_back += notmuch_message_add_tag(nm, t->untag) == NOTMUCH_STATUS_SUCCESS;
				notmuch_message_destroy(nm);
				break;
			}
	}
	ccsift_error_set(CCSIFT_EIO, "%s; %u messages keep %s for the next run", why, put_back, t->untag);
}

static void untag_undone(tagger *t)
{
	notmuch_database_t *db = NULL;

	if (!t->untag || open_for_writing(t, &db) < 0)
		return;
	untag_put_back(t, db);
	notmuch_database_destroy(db);
}

/* The tags written while the children decide: the database open for
 * writing, the changes in transactions of BATCH messages. */
typedef struct {
	notmuch_database_t *db;    /* NULL: a dry run, or it could not be opened */
	char *error;               /* why not, then */
	notmuch_bool_t sync;       /* maildir flags follow the tags */
	gboolean changed;          /* another process wrote since the database was read */
	guint done;                /* messages changed */
	int rc;
} writer;

/* The notmuch lock before the store's: two runs then wait for each other
 * there, never each holding the lock the other waits for. */
static void writer_open(tagger *t, writer *w)
{
	const char *uuid = NULL;

	if (open_for_writing(t, &w->db) < 0) {
		w->db = NULL;
		w->error = g_strdup(ccsift_error_last());
		w->rc = -1;
		return;
	}
	notmuch_config_get_bool(w->db, NOTMUCH_CONFIG_SYNC_MAILDIR_FLAGS, &w->sync);
	w->changed = notmuch_database_get_revision(w->db, &uuid) != t->revision;
}

static void write_changes(writer *w, tagger *t, guint start, guint end)
{
	for (guint i = start; i < end && w->rc == 0; i++) {
		message *m = t->messages->pdata[i];

		if (!changes(m))
			continue;
		if (w->done++ % BATCH == 0 && notmuch_database_begin_atomic(w->db))
			w->rc = -1;
		tag_one(w->db, m, w->sync);
		if (w->done % BATCH == 0 && notmuch_database_end_atomic(w->db))
			w->rc = -1;
	}
}

/* The decisions into the store (its transaction left open), notmuch's
 * commit, then the store's: a run that fails before notmuch commits
 * records nothing, and the next run decides and tags those messages
 * again. */
static int writer_close(tagger *t, writer *w)
{
	int rc = w->rc;

	if (!w->db)
		return ccsift_error_set(CCSIFT_EIO, "%s", w->error ? w->error : "the notmuch database is not open");
	if (w->done % BATCH != 0 && notmuch_database_end_atomic(w->db))
		rc = -1;
	if (rc < 0) {
		ccsift_error_set(CCSIFT_EIO, "tagging failed: %s", notmuch_database_status_string(w->db));
	} else if (!t->store || record_all(t) < 0) {
		/* The tags are written: the messages must come back. */
		untag_put_back(t, w->db);
		notmuch_database_destroy(w->db);
		w->db = NULL;
		return -1;
	}
	if (notmuch_database_destroy(w->db) && rc == 0)
		rc = ccsift_error_set(CCSIFT_EIO, "cannot commit the notmuch database");
	w->db = NULL;
	if (rc < 0 && t->store)
		ccsift_decisions_rollback(t->store);
	else if (rc == 0 && (rc = ccsift_decisions_commit(t->store)) < 0)
		untag_undone(t);
	return rc;
}

/* prefix"value" to q, as Xapian's query parser reads a boolean term:
 * value quoted, its quotes doubled. */
static void append_term(GString *q, const char *prefix, const char *head, const char *value)
{
	g_string_append_printf(q, "%s\"%s", prefix, head);
	ccsift_nm_append_quoted(q, value, -1);
	g_string_append_c(q, '"');
}

/* A notmuch query of the low messages the user lifted by hand since the
 * last run (lifted_by_hand's test, as terms): one of the low verdict's tag
 * operations undone, and no ccsift.lifted yet. NULL when low has none. */
static char *lifted_query(const tagger *t)
{
	GString *q = g_string_new("property:ccsift.verdict=low AND NOT property:ccsift.lifted=by-hand AND (");
	char **op = t->s.cfg->tag_ops[CCSIFT_VERDICT_LOW];

	if (!op || !*op)
		return g_string_free(q, TRUE), NULL;
	for (; *op; op++) {
		if (**op == '+') {
			append_term(q, "NOT tag:", "", *op + 1);
		} else {
			/* (not one the low operations found absent, when the
			 * property names that tag alone: not_removed_by_low) */
			append_term(q, "(tag:", "", *op + 1);
			append_term(q, " AND NOT property:", "ccsift.not-removed=", *op + 1);
			g_string_append_c(q, ')');
		}
		g_string_append(q, op[1] ? " OR " : ")");
	}
	return g_string_free(q, FALSE);
}

/* The threads where the user lifted a message by hand, after the query's:
 * a lift is engagement with the thread (mark_replied), learnt when it is
 * made, not only when the thread next gets mail. Their messages are read,
 * not selected: what the query did not ask for is decided, not untagged. */
static void add_lifted_threads(tagger *t, GHashTable *seen)
{
	g_autofree char *query_string = lifted_query(t);
	notmuch_query_t *q = NULL;
	notmuch_messages_t *ms = NULL;

	if (!query_string || notmuch_query_create_with_syntax(t->db, query_string, NOTMUCH_QUERY_SYNTAX_XAPIAN, &q))
		return;
	if (notmuch_query_search_messages(q, &ms) == NOTMUCH_STATUS_SUCCESS) {
		for (; notmuch_messages_valid(ms); notmuch_messages_move_to_next(ms)) {
			notmuch_message_t *nm = notmuch_messages_get(ms);
			const char *thread = notmuch_message_get_thread_id(nm);

			if (thread && !g_hash_table_contains(seen, thread)) {
				g_ptr_array_add(t->thread_ids, g_strdup(thread));
				g_hash_table_add(seen, t->thread_ids->pdata[t->thread_ids->len - 1]);
			}
			notmuch_message_destroy(nm);
		}
	}
	notmuch_query_destroy(q);
}

static int select_messages(tagger *t, const char *query_string)
{
	notmuch_query_t *q = NULL;
	notmuch_messages_t *ms = NULL;
	notmuch_config_values_t *ex;
	const char *uuid = NULL;
	GPtrArray *threads = t->thread_ids;
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);  /* of threads' ids */
	/* id -> message, loaded and not yet in its thread */
	g_autoptr(GHashTable) loaded = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
							     (GDestroyNotify)message_free);

	if (notmuch_query_create_with_syntax(t->db, query_string, NOTMUCH_QUERY_SYNTAX_XAPIAN, &q))
		return ccsift_error_set(CCSIFT_EINVALID, "bad query: %s", query_string);
	t->revision = notmuch_database_get_revision(t->db, &uuid);
	/* The library does not apply search.exclude_tags: the CLI does, so do we. */
	for (ex = notmuch_config_get_values(t->db, NOTMUCH_CONFIG_EXCLUDE_TAGS);
	     ex && notmuch_config_values_valid(ex); notmuch_config_values_move_to_next(ex))
		notmuch_query_add_tag_exclude(q, notmuch_config_values_get(ex));
	if (notmuch_query_search_messages(q, &ms)) {
		notmuch_query_destroy(q);
		return ccsift_error_set(CCSIFT_EIO, "search failed: %s", query_string);
	}
	for (; notmuch_messages_valid(ms); notmuch_messages_move_to_next(ms)) {
		notmuch_message_t *nm = notmuch_messages_get(ms);
		const char *thread = notmuch_message_get_thread_id(nm);
		message *m = message_load(t, nm);

		g_hash_table_add(t->selected, g_strdup(m->id));
		g_hash_table_replace(loaded, m->id, m);
		if (thread && !g_hash_table_contains(seen, thread)) {
			g_ptr_array_add(threads, g_strdup(thread));
			g_hash_table_add(seen, threads->pdata[threads->len - 1]);
		}
		notmuch_message_destroy(nm);
	}
	notmuch_query_destroy(q);
	add_lifted_threads(t, seen);
	for (guint i = 0; i < threads->len; i++)
		load_thread(t, threads->pdata[i], i, loaded);
	return 0;
}

/* The store of decisions; a dry run only reads it, and may find none. */
static int open_store(tagger *t, gboolean dry_run)
{
	int rc = ccsift_decisions_open(&t->store, NULL, !dry_run);

	return rc == CCSIFT_ENOTFOUND && dry_run ? 0 : rc;
}

/* One line for a person at a terminal (or --verbose): what the query's
 * messages came to, how many messages changed, how long it took. */
static void print_summary(const tagger *t, gboolean dry_run, gint64 started)
{
	unsigned n[4] = { 0 }, selected = 0, changed = 0;
	double seconds = (g_get_monotonic_time() - started) / 1e6;

	for (guint i = 0; i < t->messages->len; i++) {
		const message *m = t->messages->pdata[i];

		changed += changes(m);
		if (!g_hash_table_contains(t->selected, m->id))
			continue;
		selected++;
		if (m->tm.final < G_N_ELEMENTS(n))
			n[m->tm.final]++;
	}
	fprintf(stderr, "ccsift tag: %u decided: %u low, %u relevant, %u not a patch, %u unknown; "
		"%u message%s %s (%.1f s)\n", selected, n[CCSIFT_VERDICT_LOW], n[CCSIFT_VERDICT_RELEVANT],
		n[CCSIFT_VERDICT_NOT_PATCH], n[CCSIFT_VERDICT_UNKNOWN], changed, changed == 1 ? "" : "s",
		dry_run ? "would change" : "changed", seconds);
}

/* The user wrote in the thread of messages [start, end), or took a low
 * message of it out of the low pile by hand (telling ccsift it was wrong,
 * as plainly as a reply): the patch that scored best of those they had
 * seen then is one engagement the replay cannot see, and the thread is
 * lifted out of low only if every patch was low, so the best patch is the
 * one that decided it. */
static void mark_replied(tagger *t, guint start, guint end)
{
	gint64 last_reply = 0;
	message *best = NULL;

	for (guint i = start; i < end; i++) {
		const message *m = t->messages->pdata[i];

		if ((m->tm.from_me && m->tm.reply) || m->tm.lifted)
			last_reply = MAX(last_reply, m->date);
	}
	for (guint i = start; i < end && last_reply; i++) {
		message *m = t->messages->pdata[i];

		if (m->has_margin && !m->tm.from_me && m->date <= last_reply && (!best || m->margin > best->margin))
			best = m;
	}
	for (guint i = start; i < end; i++) {
		message *m = t->messages->pdata[i];

		m->replied = m == best ? last_reply : 0;
	}
}

/* The rules of thread.h over the own verdicts of one thread's messages. */
static void decide_thread(tagger *t, guint start, guint end)
{
	g_autoptr(GPtrArray) group = g_ptr_array_new();

	for (guint i = start; i < end; i++)
		g_ptr_array_add(group, &((message *)t->messages->pdata[i])->tm);
	ccsift_thread_decide(group);
	mark_replied(t, start, end);
}

/* Has the message tags to change? Not when its verdict stands, or its
 * tag operations are none, and --untag does not select it: its tags are
 * not read (a Xapian document's terms each, most of a run's messages). */
static gboolean may_change_tags(const tagger *t, const message *m)
{
	if (t->untag && g_hash_table_contains(t->selected, m->id))
		return TRUE;
	if (m->stored == (int)m->tm.final || m->tm.lifted)
		return FALSE;
	return *t->s.cfg->tag_ops[m->tm.final] || m->stored == (int)CCSIFT_VERDICT_LOW;
}

/*
 * Another run of ccsift tag wrote since this one read the database (two
 * notmuch new close together, each running the hook): the verdicts it
 * wrote are what the tags now carry, and the changes are planned from
 * them. Else a thread it demoted as this one found the user's reply in
 * it kept its low tags: lifted from no verdict, nothing seemed to change.
 */
static void refresh_stored(message *m, notmuch_message_t *nm)
{
	const char *property = NULL;

	if (notmuch_message_get_property(nm, "ccsift.verdict", &property) == 0 && verdict_from_name(property) >= 0) {
		m->stored = verdict_from_name(property);
		m->stored_property = TRUE;
	}
}

/*
 * Another process wrote since the database was read: has the thread of
 * messages [start, end) more messages now (a reply of the user's, which
 * another run of the hook has decided already), or another id? Then what
 * this run decided of it is out of date, and it is left as it is: its
 * messages keep --untag's tag for the next run, which decides them again.
 */
static gboolean thread_grew(tagger *t, notmuch_database_t *db, guint start, guint end)
{
	g_autofree char *q = g_strdup_printf("thread:%s",
		(char *)t->thread_ids->pdata[((message *)t->messages->pdata[start])->thread]);
	notmuch_query_t *query = NULL;
	unsigned count = 0;

	if (notmuch_query_create_with_syntax(db, q, NOTMUCH_QUERY_SYNTAX_XAPIAN, &query) ||
	    notmuch_query_count_messages(query, &count))
		count = 0;
	if (query)
		notmuch_query_destroy(query);
	if (count > 0 && count <= end - start)
		return FALSE;
	for (guint i = start; i < end; i++)
		((message *)t->messages->pdata[i])->stale = TRUE;
	return TRUE;
}

/* The changes, planned against the tags the messages have now. */
static void plan_changes(tagger *t, notmuch_database_t *db, gboolean changed, guint start, guint end)
{
	for (guint i = start; i < end; i++) {
		message *m = t->messages->pdata[i];
		notmuch_message_t *nm = NULL;

		if (!changed && !may_change_tags(t, m))
			continue;
		if (notmuch_database_find_message(db, m->id, &nm) || !nm)
			continue;
		if (changed)
			refresh_stored(m, nm);
		if (may_change_tags(t, m)) {
			plan(t, m, nm);
			plan_untag(t, m, nm);
		}
		notmuch_message_destroy(nm);
	}
}

/* One thread's messages [start, end), every one decided: the thread's
 * rules, then the changes, written at once (a dry run, with no writer's
 * database, plans against the one it read). */
static void finish_thread(tagger *t, writer *w, guint start, guint end)
{
	for (guint i = start; i < end; i++) {
		message *m = t->messages->pdata[i];

		keep_earlier(m);
		/* Never decided, and its file gone since notmuch saw it (renamed
		 * by a program syncing flags): not unknown for good, but left with
		 * --untag's tag for the run after notmuch new has seen the rename. */
		if (!m->parsed && m->tm.verdict == CCSIFT_VERDICT_UNKNOWN && m->stored < 0 && m->stored_own < 0 &&
		    m->file && access(m->file, F_OK) < 0 && errno == ENOENT)
			m->stale = TRUE;
	}
	decide_thread(t, start, end);
	if (w->db && w->changed && thread_grew(t, w->db, start, end))
		return;
	plan_changes(t, w->db ? w->db : t->db, w->db && w->changed, start, end);
	if (w->db)
		write_changes(w, t, start, end);
}

/* The threads of r whose messages are all before decided. A thread's end
 * is found once, not at each of its messages' records. */
static void finish_decided(tagger *t, writer *w, range *r, guint decided)
{
	while (r->finished < r->end) {
		if (r->thread_end <= r->finished) {
			guint thread = ((message *)t->messages->pdata[r->finished])->thread;

			r->thread_end = r->finished + 1;
			while (r->thread_end < r->end && ((message *)t->messages->pdata[r->thread_end])->thread == thread)
				r->thread_end++;
		}
		if (r->thread_end > decided)
			return;
		finish_thread(t, w, r->finished, r->thread_end);
		r->finished = r->thread_end;
	}
}

/* Each thread finished as soon as its last message is decided: notmuch
 * writes on one processor while the children decide on the others. */
static void finish_while_deciding(tagger *t, writer *w, range r[2])
{
	guint acted[2] = { G_MAXUINT, G_MAXUINT };

	g_mutex_lock(&t->lock);
	for (;;) {
		guint decided[2];
		gboolean moved = FALSE, collecting = FALSE;

		for (guint k = 0; k < 2; k++) {
			decided[k] = r[k].next;
			moved |= decided[k] != acted[k];
			collecting |= !r[k].collected;
		}
		if (!moved && !collecting)
			break;
		if (!moved) {
			g_cond_wait(&t->progress, &t->lock);
			continue;
		}
		g_mutex_unlock(&t->lock);
		for (guint k = 0; k < 2; k++)
			finish_decided(t, w, &r[k], acted[k] = decided[k]);
		g_mutex_lock(&t->lock);
	}
	g_mutex_unlock(&t->lock);
}

/* Two children, each deciding half of the messages (what a message's
 * verdict is does not depend on which child decided it, or after what),
 * and the threads finished as they come; writing opens the notmuch
 * database for writing once the children run. */
static void decide_and_finish(tagger *t, writer *w, gboolean writing)
{
	guint split = split_point(t);
	range r[2] = { { t, 0, split, -1 }, { t, split, t->messages->len, -1 } };
	GThread *collector[2] = { NULL, NULL };

	g_mutex_init(&t->lock);
	g_cond_init(&t->progress);
	fflush(NULL);  /* nothing buffered twice */
	/* Only this thread forks, and not while another runs. */
	for (guint k = 0; k < 2; k++) {
		r[k].finished = r[k].next;
		r[k].collected = !(r[k].next < r[k].end && range_start(&r[k]));
	}
	/* After the forks: no child holds the database open for writing. */
	if (writing)
		writer_open(t, w);
	/* Both read at once: a child blocks on a full pipe. */
	for (guint k = 0; k < 2; k++)
		if (!r[k].collected)
			collector[k] = g_thread_new("tag-collect", range_collect_thread, &r[k]);
	finish_while_deciding(t, w, r);
	for (guint k = 0; k < 2; k++)
		if (collector[k]) {
			g_thread_join(collector[k]);
			if (r[k].next < r[k].end)
				range_fail(&r[k]);
		}
	/* After a child that ended early, the rest one child at a time. */
	for (guint k = 0; k < 2; k++) {
		decide_range(&r[k]);
		finish_decided(t, w, &r[k], r[k].end);
	}
	g_cond_clear(&t->progress);
	g_mutex_clear(&t->lock);
}

/* --- undo ---
 *
 * What ccsift tag did, taken back from the messages of a query: the tag
 * operations of each one's verdict reversed (+lowcc -inbox: -lowcc
 * +inbox), ccsift's properties removed, its decision forgotten. The
 * notmuch CLI cannot remove properties but by dump and restore, and a new
 * store learns the low verdicts from them: removing the store undoes
 * nothing. */

typedef struct {
	guint undone, low;
} undo_counts;

static void undo_one(tagger *t, notmuch_message_t *nm, int verdict)
{
	static const char *const properties[] = { "ccsift.verdict", "ccsift.was", "ccsift.not-removed",
						  "ccsift.lifted", "ccsift.score", "ccsift.reason", "ccsift.repo" };

	notmuch_message_freeze(nm);
	for (char **op = verdict >= 0 ? t->s.cfg->tag_ops[verdict] : NULL; op && *op; op++) {
		if (**op == '+')
			notmuch_message_remove_tag(nm, *op + 1);
		else
			notmuch_message_add_tag(nm, *op + 1);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(properties); i++)
		notmuch_message_remove_all_properties(nm, properties[i]);
	notmuch_message_thaw(nm);
}

/* The message's verdict by ccsift: its decision, else the property an
 * older ccsift (or a lost store) left; -2 when ccsift never touched it. */
static int undo_verdict(tagger *t, notmuch_message_t *nm, gboolean *decided)
{
	g_autoptr(ccsift_decision) dec = NULL;
	const char *property = NULL, *was = NULL;

	*decided = t->store && ccsift_decisions_get(t->store, notmuch_message_get_message_id(nm), &dec) > 0;
	notmuch_message_get_property(nm, "ccsift.verdict", &property);
	notmuch_message_get_property(nm, "ccsift.was", &was);
	if (dec)
		return verdict_from_name(dec->verdict);
	return property ? verdict_from_name(property) : was ? -1 : -2;
}

static int undo_messages(tagger *t, notmuch_database_t *db, const char *query, undo_counts *n)
{
	notmuch_query_t *q = NULL;
	notmuch_messages_t *ms = NULL;
	guint batch = 0;

	if (notmuch_query_create_with_syntax(db, query, NOTMUCH_QUERY_SYNTAX_XAPIAN, &q))
		return ccsift_error_set(CCSIFT_EINVALID, "bad query: %s", query);
	if (notmuch_query_search_messages(q, &ms)) {
		notmuch_query_destroy(q);
		return ccsift_error_set(CCSIFT_EIO, "search failed: %s", query);
	}
	for (; notmuch_messages_valid(ms); notmuch_messages_move_to_next(ms)) {
		notmuch_message_t *nm = notmuch_messages_get(ms);
		gboolean decided;
		int verdict = undo_verdict(t, nm, &decided);

		if (verdict > -2) {
			if (batch++ % BATCH == 0)
				notmuch_database_begin_atomic(db);
			undo_one(t, nm, verdict);
			if (batch % BATCH == 0)
				notmuch_database_end_atomic(db);
			n->undone++;
			n->low += verdict == CCSIFT_VERDICT_LOW;
		}
		if (decided && ccsift_decisions_forget(t->store, notmuch_message_get_message_id(nm)) < 0) {
			notmuch_message_destroy(nm);
			notmuch_query_destroy(q);
			return -1;
		}
		notmuch_message_destroy(nm);
	}
	if (batch % BATCH != 0)
		notmuch_database_end_atomic(db);
	notmuch_query_destroy(q);
	return 0;
}

/* Undo the messages of query (NULL: every message, and every decision,
 * those of mail since deleted too); notmuch commits first, then the store,
 * as a run that tags. */
static int undo(tagger *t, const char *query)
{
	notmuch_database_t *db = NULL;
	undo_counts n = { 0 };
	int rc;

	if (open_store(t, FALSE) < 0 || ccsift_decisions_begin(t->store) < 0)
		return -1;
	if (open_for_writing(t, &db) < 0) {
		ccsift_decisions_rollback(t->store);
		return -1;
	}
	rc = undo_messages(t, db, query ? query : "*", &n);
	if (rc == 0 && !query)
		rc = ccsift_decisions_forget(t->store, NULL);
	if (notmuch_database_destroy(db) && rc == 0)
		rc = ccsift_error_set(CCSIFT_EIO, "cannot commit the notmuch database");
	if (rc < 0) {
		ccsift_decisions_rollback(t->store);
		return rc;
	}
	if ((rc = ccsift_decisions_commit(t->store)) < 0)
		return rc;
	printf("ccsift tag --undo: %u message%s as before ccsift (%u had been low)\n", n.undone,
	       n.undone == 1 ? "" : "s", n.low);
	return 0;
}

static void add_margin(GHashTable **table, const char *repo, double margin)
{
	GArray *a;

	if (!repo)
		return;
	if (!*table)
		*table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_array_unref);
	if (!(a = g_hash_table_lookup(*table, repo)))
		g_hash_table_insert(*table, g_strdup(repo), a = g_array_new(FALSE, FALSE, sizeof(double)));
	g_array_append_val(a, margin);
}

/* A message as select_messages loaded it, undecided. */
static message *message_copy_loaded(const message *m)
{
	message *c = g_memdup2(m, sizeof(*m));

	c->id = g_strdup(m->id);
	c->file = g_strdup(m->file);
	c->stored_repo = g_strdup(m->stored_repo);
	c->tm.id = c->id;
	c->reason = c->repo = NULL;
	c->not_removed = NULL;
	c->add = g_ptr_array_new_with_free_func(g_free);
	c->remove = g_ptr_array_new_with_free_func(g_free);
	return c;
}

/* Copies of the messages of the threads where the user may have replied,
 * or lifted a message by hand.
 * (Not a notmuch thread:{from:...} query: that reads every message the
 * user ever sent, at every run of the hook.) */
static GPtrArray *threads_with_mine(const tagger *t)
{
	g_autoptr(GHashTable) mine = g_hash_table_new(g_direct_hash, g_direct_equal);
	GPtrArray *kept = g_ptr_array_new_with_free_func((GDestroyNotify)message_free);

	for (guint i = 0; i < t->messages->len; i++) {
		const message *m = t->messages->pdata[i];

		if (m->maybe_mine || m->tm.lifted)
			g_hash_table_add(mine, GUINT_TO_POINTER(m->thread + 1));
	}
	for (guint i = 0; i < t->messages->len; i++) {
		const message *m = t->messages->pdata[i];

		if (g_hash_table_contains(mine, GUINT_TO_POINTER(m->thread + 1)))
			g_ptr_array_add(kept, message_copy_loaded(m));
	}
	return kept;
}

/*
 * The user's replies among the messages to decide, learnt before any is
 * decided. A reply counts toward the user's point (the patch it answered
 * is one they engaged with), and the store holds it only once a run has
 * recorded it: a first `--query '*'` would decide everything without the
 * replies it holds, and a second, the same, would lift what the first
 * demoted. So the threads where the user wrote are decided first, with
 * nothing written, and the replies found there are what the deciding
 * children count, beside the store's, as a later run would. Copies are
 * decided: the messages stay as loaded, for the run that follows.
 */
static void learn_replies(tagger *t)
{
	GPtrArray *selected = t->messages;
	writer none = { 0 };

	if (!t->identities || !*t->identities)
		return;
	t->messages = threads_with_mine(t);
	if (t->messages->len)
		decide_and_finish(t, &none, FALSE);
	for (guint i = 0; i < t->messages->len; i++) {
		const message *m = t->messages->pdata[i];

		if (m->replied == m->stored_replied)
			continue;
		if (m->stored_replied > 0 && m->stored_has_margin)
			add_margin(&t->s.replied_replaced, m->stored_repo, m->stored_margin);
		if (m->replied > 0 && m->has_margin)
			add_margin(&t->s.replied_learnt, m->repo ? m->repo : m->stored_repo, m->margin);
	}
	g_ptr_array_unref(t->messages);
	t->messages = selected;
}

int cmd_tag(int argc, char **argv)
{
	tagger t = { 0 };
	writer w = { 0 };
	g_autofree char *query = NULL, *untag = NULL;
	gboolean dry_run = FALSE, verbose = FALSE, undo_all = FALSE;
	int lock_timeout = -1;
	gint64 started = g_get_monotonic_time();
	GOptionEntry extra[] = {
		{ "query", 0, 0, G_OPTION_ARG_STRING, &query, "The messages to decide (default: tag:new)", "Q" },
		{ "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run, "Print the changes as notmuch tag --batch lines", NULL },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Print a one-line summary on stderr (the default "
		  "when stderr is a terminal)", NULL },
		{ "lock-timeout", 0, 0, G_OPTION_ARG_INT, &lock_timeout, "Seconds to wait for the write lock (default 30)", "S" },
		{ "time-budget", 0, 0, G_OPTION_ARG_INT, &t.time_budget, "Seconds deciding a message may take before it is "
		  "unknown (default 2; 1 to 3600)", "S" },
		{ "jobs", 'j', 0, G_OPTION_ARG_INT, &t.jobs, "Processes deciding at once, 1 or 2 (default: 2 for "
		  "256 messages or more on a machine with more than one processor)", "N" },
		{ "untag", 0, 0, G_OPTION_ARG_STRING, &untag, "Remove TAG from the messages the query selected, "
		  "with the other changes (the post-new hook's new)", "TAG" },
		{ "undo", 0, 0, G_OPTION_ARG_NONE, &undo_all, "Take back what ccsift tag did to the messages of "
		  "--query (default: all, and forget every decision)", NULL },
		{ NULL }
	};
	g_autofree GOptionEntry *entries = NULL;
	int rc = 0;

	t.time_budget = TIME_BUDGET;
	t.s.verdict_only = TRUE;  /* tags and a reason: no evidence is shown */
	entries = option_entries(&t.o, OPT_BASIC & ~OPT_JSON, extra);
	if (!parse_options(&argc, &argv, "", "Decide and tag new messages in the notmuch database "
			   "(for a post-new hook).", entries))
		return 2;
	if (t.jobs < 0 || t.jobs > 2) {
		fprintf(stderr, "ccsift tag: --jobs %d is not 1 or 2\n", t.jobs);
		return 2;
	}
	if (untag && !*untag) {
		fprintf(stderr, "ccsift tag: --untag needs a tag\n");
		return 2;
	}
	t.untag = untag;
	if (t.time_budget < 1 || t.time_budget > 3600) {
		fprintf(stderr, "ccsift tag: --time-budget %d is not from 1 to 3600 seconds\n", t.time_budget);
		return 2;
	}
	/* A missing or broken index would make every message unknown: say so
	 * once, and tag nothing, rather than quietly deciding nothing. */
	if (ccsift_nm_load() < 0 || session_load_config(&t.s, &t.o) < 0 ||
	    (!undo_all && session_check_indexes(&t.s, &t.o) < 0)) {
		fprintf(stderr, "ccsift tag: %s\n", ccsift_error_last());
		session_close(&t.s);
		common_options_clear(&t.o);
		return 1;
	}
	if (lock_timeout >= 0)
		t.s.cfg->lock_timeout = lock_timeout;
	t.identities = t.s.identities;
	t.messages = g_ptr_array_new_with_free_func((GDestroyNotify)message_free);
	t.selected = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	t.thread_ids = g_ptr_array_new_with_free_func(g_free);
	t.now = (gint64)time(NULL);
	if (undo_all) {
		if (dry_run || untag) {
			fprintf(stderr, "ccsift tag: --undo takes neither --dry-run nor --untag\n");
			rc = 2;
		} else if (undo(&t, query) < 0) {
			fprintf(stderr, "ccsift tag: %s\n", ccsift_error_last());
			rc = 1;
		}
		goto out;
	}
	if (open_store(&t, dry_run) < 0 || ccsift_nm_open(NOTMUCH_DATABASE_MODE_READ_ONLY, &t.db) < 0) {
		fprintf(stderr, "ccsift tag: %s\n", ccsift_error_last());
		rc = 1;
		goto out;
	}
	if (select_messages(&t, query ? query : "tag:new") < 0) {
		fprintf(stderr, "ccsift tag: %s\n", ccsift_error_last());
		rc = 1;
		goto out;
	}
	/* The deciding children are forks that open the store themselves
	 * (the user's replies): SQLite must not find ours open in them (see
	 * ccsift_upkeep_spawn), so it is closed across the forks. */
	g_clear_pointer(&t.store, ccsift_decisions_close);
	learn_replies(&t);
	decide_and_finish(&t, &w, !dry_run);
	/* A run that wrote tags and cannot open the store is writer_close's to
	 * undo (it finds no store): the messages that shed --untag come back. */
	if (open_store(&t, dry_run) < 0 && dry_run) {
		fprintf(stderr, "ccsift tag: %s\n", ccsift_error_last());
		rc = 1;
		goto out;
	}
	if (dry_run) {
		for (guint i = 0; i < t.messages->len; i++)
			print_batch_line(t.messages->pdata[i]);
	} else if (writer_close(&t, &w) < 0) {
		fprintf(stderr, "ccsift tag: %s\n", ccsift_error_last());
		rc = 1;
	}
	if (rc == 0 && (verbose || isatty(STDERR_FILENO)))
		print_summary(&t, dry_run, started);
out:
	if (t.db)
		notmuch_database_destroy(t.db);
	g_ptr_array_unref(t.messages);
	g_hash_table_unref(t.selected);
	g_ptr_array_unref(t.thread_ids);
	ccsift_decisions_close(t.store);
	session_close(&t.s);
	/* notmuch new waits for its hook: catch up in the background (a fork,
	 * so with no index of ours open: see ccsift_upkeep_spawn). */
	if (rc == 0 && !dry_run && t.upkeep_due)
		ccsift_upkeep_spawn(&t.upkeep);
	ccsift_upkeep_target_clear(&t.upkeep);
	g_free(w.error);
	common_options_clear(&t.o);
	return rc;
}
