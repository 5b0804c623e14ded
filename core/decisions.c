/* decisions.c: the store of ccsift tag's decisions (see decisions.h). */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include "decisions.h"
#include "model.h"
#include "error.h"
#include "trust.h"

/* Version 2 added margin and replied: what the user's replies teach;
 * version 3 traits: what the thread rules read of the message. */
#define SCHEMA 3

static const char schema[] =
	"BEGIN IMMEDIATE;"
	"CREATE TABLE IF NOT EXISTS decision ("
	" id TEXT PRIMARY KEY, verdict TEXT NOT NULL, own TEXT, was_low INTEGER NOT NULL DEFAULT 0,"
	" score REAL, threshold REAL, reason TEXT, decided INTEGER NOT NULL,"
	" model_version INTEGER, model_until INTEGER, repo TEXT, margin REAL, replied INTEGER,"
	" traits INTEGER) WITHOUT ROWID;"
	"PRAGMA user_version=3;"
	"COMMIT;";

/* Every delivery reads the newest replies: from this, not from every row. */
static const char replied_index[] =
	"CREATE INDEX IF NOT EXISTS decision_replied_margin ON decision (repo, replied, id, margin) WHERE replied > 0;";

/* The columns each upgrade adds, in one transaction (upgrade): stopped
 * half way, a store with a new column and its old version would fail
 * every upgrade after. */
static const char *const upgrade_from_1[] = { "margin REAL", "replied INTEGER", NULL };
static const char *const upgrade_from_2[] = { "traits INTEGER", NULL };

#define COLUMNS_1 "id, verdict, was_low, score, threshold, reason, decided, model_version, model_until, repo, own"
#define COLUMNS_2 COLUMNS_1 ", margin, replied"
#define COLUMNS COLUMNS_2 ", traits"

enum { ST_GET, ST_ALL, ST_PUT, ST_REPLIED, ST_FORGET, ST_FORGET_ALL, ST_COUNT };

static const char *const statements[ST_COUNT] = {
	[ST_GET] = "SELECT " COLUMNS " FROM decision WHERE id = ?1",
	[ST_ALL] = "SELECT " COLUMNS " FROM decision",
	[ST_PUT] = "INSERT INTO decision (" COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) "
		   "ON CONFLICT (id) DO UPDATE SET verdict = excluded.verdict,"
		   " own = excluded.own, was_low = excluded.was_low OR was_low, reason = excluded.reason, decided = excluded.decided,"
		   /* Not scored again (a thread rule moved it): what it rests on stays. */
		   " score = coalesce(excluded.score, score), threshold = coalesce(excluded.threshold, threshold),"
		   " model_version = coalesce(excluded.model_version, model_version),"
		   " model_until = coalesce(excluded.model_until, model_until), repo = coalesce(excluded.repo, repo),"
		   " margin = coalesce(excluded.margin, margin), replied = excluded.replied,"
		   " traits = coalesce(excluded.traits, traits)",
	[ST_FORGET] = "DELETE FROM decision WHERE id = ?1",
	[ST_FORGET_ALL] = "DELETE FROM decision",
	/* The newest CCSIFT_DECISIONS_MAX_REPLIED: work per delivery is bounded. */
	[ST_REPLIED] = "SELECT margin FROM decision WHERE replied > 0 AND replied < ?2 AND typeof(margin) = 'real'"
		       " AND repo = ?1 ORDER BY replied DESC, id DESC LIMIT " G_STRINGIFY(CCSIFT_DECISIONS_MAX_REPLIED),
};

/* A store of version 1 or 2 is read as it is: nothing replied to yet, no traits. */
static const char *const statements_1[ST_COUNT] = {
	[ST_GET] = "SELECT " COLUMNS_1 ", NULL, NULL, NULL FROM decision WHERE id = ?1",
	[ST_ALL] = "SELECT " COLUMNS_1 ", NULL, NULL, NULL FROM decision",
};
static const char *const statements_2[ST_COUNT] = {
	[ST_GET] = "SELECT " COLUMNS_2 ", NULL FROM decision WHERE id = ?1",
	[ST_ALL] = "SELECT " COLUMNS_2 ", NULL FROM decision",
	[ST_REPLIED] = "SELECT margin FROM decision WHERE replied > 0 AND replied < ?2 AND typeof(margin) = 'real'"
		       " AND repo = ?1 ORDER BY replied DESC, id DESC LIMIT " G_STRINGIFY(CCSIFT_DECISIONS_MAX_REPLIED),
};

struct ccsift_decisions {
	sqlite3 *db;
	char *path;
	int version;
	sqlite3_stmt *st[ST_COUNT];
};

void ccsift_decision_free(ccsift_decision *d)
{
	if (!d)
		return;
	g_free(d->id);
	g_free(d->verdict);
	g_free(d->own);
	g_free(d->reason);
	g_free(d->repo);
	g_free(d);
}

char *ccsift_decisions_default_path(void)
{
	return g_build_filename(g_get_user_data_dir(), "ccsift", "decisions.db", NULL);
}

static int db_error(ccsift_decisions *d, const char *what)
{
	int rc = d->db ? sqlite3_errcode(d->db) : SQLITE_NOMEM;

	/* Damaged, it stays so: say what to do (the tags in notmuch stay; a
	 * new store knows the low verdicts from notmuch's properties). */
	if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
		return ccsift_error_set(CCSIFT_ECORRUPT, "decisions %s: cannot %s: %s (move it away: ccsift tag"
					" starts a new one)", d->path, what, sqlite3_errmsg(d->db));
	return ccsift_error_set(CCSIFT_EIO, "decisions %s: cannot %s: %s", d->path, what,
				d->db ? sqlite3_errmsg(d->db) : "out of memory");
}

static int user_version(sqlite3 *db);

/* Does the decision table have column? */
static gboolean has_column(sqlite3 *db, const char *column)
{
	sqlite3_stmt *st = NULL;
	gboolean found = FALSE;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('decision') WHERE name = ?1", -1, &st, NULL))
		return FALSE;
	sqlite3_bind_text(st, 1, column, (int)strcspn(column, " "), SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* The columns added that are not there yet, and the version set: an
 * older ccsift ran its upgrade statement by statement, and one stopped
 * after the first left a column of the next version in a store of this
 * one, where adding it again failed every run after. */
static int add_columns(sqlite3 *db, const char *const *columns, int to)
{
	int rc = SQLITE_OK;

	for (const char *const *c = columns; *c && rc == SQLITE_OK; c++) {
		g_autofree char *sql = g_strdup_printf("ALTER TABLE decision ADD COLUMN %s", *c);

		if (!has_column(db, *c))
			rc = sqlite3_exec(db, sql, 0, 0, 0);
	}
	if (rc == SQLITE_OK) {
		g_autofree char *sql = g_strdup_printf("PRAGMA user_version=%d", to);

		rc = sqlite3_exec(db, sql, 0, 0, 0);
	}
	return rc;
}

/*
 * The store of version from, upgraded to from + 1 by adding columns in
 * one transaction, *version its version after. Another ccsift may have
 * upgraded it while this one waited for the lock (two tag runs after an
 * upgrade): the version is read again inside the transaction. A failure
 * is said as SQLite gave it, before the rollback (which says "not an
 * error").
 */
static int upgrade(ccsift_decisions *d, int from, const char *const *columns, int *version)
{
	int rc;

	if (sqlite3_exec(d->db, "BEGIN IMMEDIATE", 0, 0, 0) != SQLITE_OK)
		return db_error(d, "upgrade");
	if ((user_version(d->db) == from && add_columns(d->db, columns, from + 1) != SQLITE_OK) ||
	    sqlite3_exec(d->db, "COMMIT", 0, 0, 0) != SQLITE_OK) {
		rc = db_error(d, "upgrade");
		sqlite3_exec(d->db, "ROLLBACK", 0, 0, 0);
		return rc;
	}
	*version = user_version(d->db);
	return 0;
}

static int user_version(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int v = -1;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Tables of another program's (ours is decision alone, at version 0). */
static gboolean has_tables(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	gboolean any = FALSE;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name <> 'decision' LIMIT 1", -1, &st,
			       NULL) == SQLITE_OK)
		any = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return any;
}

/* Refuse what would block (a FIFO) or what others could have written. */
static int check_file(const char *path, gboolean writable)
{
	if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		if (!writable)
			return ccsift_error_set(CCSIFT_ENOTFOUND, "no decisions recorded at %s", path);
		return 0;
	}
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
		return ccsift_error_set(CCSIFT_EINVALID, "decisions %s is not a regular file", path);
	return ccsift_trust_check(path, "decisions");
}

int ccsift_decisions_open(ccsift_decisions **out, const char *path, gboolean writable)
{
	ccsift_decisions *d = g_new0(ccsift_decisions, 1);
	int flags = writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	int rc, v;

	*out = NULL;
	d->path = path ? g_strdup(path) : ccsift_decisions_default_path();
	if (writable) {
		g_autofree char *dir = g_path_get_dirname(d->path);

		if (g_mkdir_with_parents(dir, 0700) < 0) {
			rc = ccsift_error_set(CCSIFT_EIO, "cannot create %s: %s", dir, g_strerror(errno));
			goto fail;
		}
	}
	if ((rc = check_file(d->path, writable)) < 0)
		goto fail;
	if (sqlite3_open_v2(d->path, &d->db, flags | SQLITE_OPEN_NOMUTEX, NULL)) {
		rc = db_error(d, "open");
		goto fail;
	}
	/* A tag run holds the write lock for one transaction: wait it out. */
	sqlite3_busy_timeout(d->db, 10000);
	v = user_version(d->db);
	/* Version 0 is a new file, or another program's database: not ours to fill. */
	if (v == 0 && has_tables(d->db)) {
		rc = ccsift_error_set(CCSIFT_EINVALID, "%s is not a ccsift decisions store", d->path);
		goto fail;
	}
	if (writable && v == 0 &&
	    sqlite3_exec(d->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", 0, 0, 0) == SQLITE_OK &&
	    sqlite3_exec(d->db, schema, 0, 0, 0) == SQLITE_OK)
		v = user_version(d->db);
	if (writable && v == 1 && (rc = upgrade(d, 1, upgrade_from_1, &v)) < 0)
		goto fail;
	if (writable && v == 2 && (rc = upgrade(d, 2, upgrade_from_2, &v)) < 0)
		goto fail;
	if (writable && v == SCHEMA && sqlite3_exec(d->db, replied_index, 0, 0, 0) != SQLITE_OK) {
		rc = db_error(d, "index");
		goto fail;
	}
	if (v != SCHEMA && ((v != 1 && v != 2) || writable)) {
		int err = sqlite3_errcode(d->db);

		/* Unreadable for want of room or rights is not "not a store". */
		if (v < 0 && err != SQLITE_NOTADB && err != SQLITE_CORRUPT && err != SQLITE_OK)
			rc = db_error(d, "read");
		else if (v < 0)
			rc = ccsift_error_set(CCSIFT_EINVALID, "%s is not a ccsift decisions store", d->path);
		else if (v > SCHEMA)
			rc = ccsift_error_set(CCSIFT_EINVALID, "decisions %s: version %d, from a newer ccsift", d->path, v);
		else
			rc = db_error(d, "upgrade");
		goto fail;
	}
	d->version = v;
	for (int i = 0; i < ST_COUNT; i++) {
		const char *sql = v == SCHEMA ? statements[i] : v == 2 ? statements_2[i] : statements_1[i];

		if (sql && sqlite3_prepare_v2(d->db, sql, -1, &d->st[i], NULL)) {
			rc = db_error(d, "prepare");
			goto fail;
		}
	}
	*out = d;
	return 0;
fail:
	ccsift_decisions_close(d);
	return rc;
}

void ccsift_decisions_close(ccsift_decisions *d)
{
	if (!d)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(d->st[i]);
	sqlite3_close(d->db);
	g_free(d->path);
	g_free(d);
}

static char *column_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? g_strdup((const char *)s) : NULL;
}

static double column_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_double(st, i);
}

/* The row st is on; the strings are new. */
static void read_row(sqlite3_stmt *st, ccsift_decision *dec)
{
	dec->id = column_text(st, 0);
	dec->verdict = column_text(st, 1);
	dec->was_low = sqlite3_column_int(st, 2) != 0;
	dec->score = column_real(st, 3);
	dec->threshold = column_real(st, 4);
	dec->reason = column_text(st, 5);
	dec->decided = sqlite3_column_int64(st, 6);
	dec->model_version = sqlite3_column_int(st, 7);
	dec->model_until = sqlite3_column_int64(st, 8);
	dec->repo = column_text(st, 9);
	dec->own = column_text(st, 10);
	dec->has_margin = sqlite3_column_type(st, 11) != SQLITE_NULL;
	dec->margin = sqlite3_column_double(st, 11);
	dec->replied = sqlite3_column_int64(st, 12);
	dec->traits = sqlite3_column_type(st, 13) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 13);
}

int ccsift_decisions_get(ccsift_decisions *d, const char *id, ccsift_decision **out)
{
	sqlite3_stmt *st = d->st[ST_GET];
	int rc;

	*out = NULL;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = g_new0(ccsift_decision, 1);
		read_row(st, *out);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(d, "read");
	return rc == SQLITE_ROW;
}

int ccsift_decisions_begin(ccsift_decisions *d)
{
	/* IMMEDIATE: a second writer waits here, not at its first put. */
	return sqlite3_exec(d->db, "BEGIN IMMEDIATE", 0, 0, 0) ? db_error(d, "begin") : 0;
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

int ccsift_decisions_put(ccsift_decisions *d, const ccsift_decision *dec)
{
	sqlite3_stmt *st = d->st[ST_PUT];
	int rc;

	sqlite3_bind_text(st, 1, dec->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, dec->verdict, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, dec->was_low);
	bind_real(st, 4, dec->score);
	bind_real(st, 5, dec->threshold);
	sqlite3_bind_text(st, 6, dec->reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, dec->decided);
	if (dec->model_version) {
		sqlite3_bind_int(st, 8, dec->model_version);
		sqlite3_bind_int64(st, 9, dec->model_until);
	} else {
		sqlite3_bind_null(st, 8);
		sqlite3_bind_null(st, 9);
	}
	sqlite3_bind_text(st, 10, dec->repo, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, dec->own, -1, SQLITE_STATIC);
	if (dec->has_margin)
		sqlite3_bind_double(st, 12, dec->margin);
	if (dec->replied > 0)
		sqlite3_bind_int64(st, 13, dec->replied);
	if (dec->traits >= 0)
		sqlite3_bind_int64(st, 14, dec->traits);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : db_error(d, "write");
}

int ccsift_decisions_forget(ccsift_decisions *d, const char *id)
{
	sqlite3_stmt *st = d->st[id ? ST_FORGET : ST_FORGET_ALL];
	int rc;

	if (!st)
		return ccsift_error_set(CCSIFT_EINVALID, "decisions %s: opened read-only", d->path);
	if (id)
		sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : db_error(d, "write");
}

int ccsift_decisions_commit(ccsift_decisions *d)
{
	return sqlite3_exec(d->db, "COMMIT", 0, 0, 0) ? db_error(d, "commit") : 0;
}

void ccsift_decisions_rollback(ccsift_decisions *d)
{
	sqlite3_exec(d->db, "ROLLBACK", 0, 0, 0);
}

int ccsift_decisions_foreach(ccsift_decisions *d, ccsift_decisions_fn fn, void *data)
{
	sqlite3_stmt *st = d->st[ST_ALL];
	int rc = 0, step;

	while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
		ccsift_decision dec = { 0 };

		read_row(st, &dec);
		rc = fn(&dec, data);
		g_free(dec.id);
		g_free(dec.verdict);
		g_free(dec.own);
		g_free(dec.reason);
		g_free(dec.repo);
	}
	sqlite3_reset(st);
	if (rc == 0 && step != SQLITE_DONE)
		rc = db_error(d, "read");
	return rc;
}

int ccsift_decisions_replied_margins(ccsift_decisions *d, const char *repo, int64_t before, GArray *margins)
{
	sqlite3_stmt *st = d->st[ST_REPLIED];
	int step;

	if (!st || !repo)
		return 0;
	sqlite3_bind_text(st, 1, repo, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, before);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		double margin = sqlite3_column_double(st, 0);

		/* (a margin is a difference of logits: one past the model's
		 * bounds was not written by ccsift tag) */
		if (isfinite(margin) && fabs(margin) <= CCSIFT_MODEL_BOUND)
			g_array_append_val(margins, margin);
	}
	sqlite3_reset(st);
	return step == SQLITE_DONE ? 0 : db_error(d, "read");
}
