/* index.c: the SQLite store behind index.h. */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>
#include "error.h"
#include "index.h"
#include "model.h"
#include "patch.h"
#include "trust.h"
#include "weights.h"

static const char *const role_names[CCSIFT_ROLE_COUNT] = {
	"author", "committer", "reviewer", "acker", "tester",
	"signer", "co-developer", "reporter", "suggester",
};

const char *ccsift_role_name(ccsift_role role)
{
	return role < CCSIFT_ROLE_COUNT ? role_names[role] : "?";
}

int ccsift_role_from_trailer(const char *key)
{
	static const struct { const char *key; ccsift_role role; } map[] = {
		{ "Reviewed-by", CCSIFT_ROLE_REVIEWED },
		{ "Acked-by", CCSIFT_ROLE_ACKED },
		{ "Tested-by", CCSIFT_ROLE_TESTED },
		{ "Signed-off-by", CCSIFT_ROLE_SIGNED },
		{ "Co-developed-by", CCSIFT_ROLE_CODEVELOPED },
		{ "Reported-by", CCSIFT_ROLE_REPORTED },
		{ "Suggested-by", CCSIFT_ROLE_SUGGESTED },
		{ "Helped-by", CCSIFT_ROLE_SUGGESTED },
		{ "Mentored-by", CCSIFT_ROLE_REVIEWED },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(map); i++)
		if (g_ascii_strcasecmp(key, map[i].key) == 0)
			return map[i].role;
	return -1;
}

/* meta key: engagement rows are made for commits up to this row id */
#define ENGAGEMENT_META "engagement-cid"
/* meta key: engaged_dirs rows are made for commits up to this row id */
#define ENGAGED_DIRS_META "engaged-dirs-cid"
/* meta key: a first build made engaged_dirs rows of commits from this
 * committer time on (none: all); an older count walks the engagements.
 * Four years before the tip: a delivery asks about the last year, a fit
 * about the three before its quarter (its two-year window, a year
 * before each case), and at Linux's size the rest of the history was
 * two thirds of the table (7 of 10.8 s of a first build's). */
#define ENGAGED_DIRS_SINCE_META "engaged-dirs-since"
#define ENGAGED_DIRS_YEARS 4
/* meta keys: hot_paths and hot_credits cover commits up to this row id;
 * hot_paths' sums are those as of "<as_of> <row id>" (hot_credits took
 * the place of hot_touches, which copied five columns nothing read: an
 * index with the old mark and table has them dropped and made anew) */
#define HOT_META "hot-credits-cid"
#define HOT_META_OLD "hot-touches-cid"
#define HOT_TOTALS_META "hot-totals"
/* meta key: person_year, person_author_year and person_area_year are as of
 * "<as_of> <row id>" (a new name when a table joined them: an index whose
 * mark is older has not made the new one) */
#define YEAR_META "person-year-area"
/* meta key: "<tip> <time>", the time the history up to tip is as of
 * (ccsift_index_tip_time) */
#define TIP_TIME_META "tip-time"
/* A commit dated more than this past the clock that indexed it is taken
 * for a wrong clock, not for the newest history. */
#define TIP_TIME_SLACK (2 * (int64_t)86400)
/* meta key: the oldest committer time of the commits an update stopped
 * half way added or flagged otherwise, whose fits the run that ends it
 * drops (ccsift_index_forget_stale_fits) */
#define FITS_STALE_META "fits-stale-since"
/* meta key: the tip up to which this ccsift kept the index by its rules
 * (ccsift_index_adopt) */
#define KEPT_META "kept-at"

enum {
	ST_PERSON_GET, ST_PERSON_ADD, ST_PATH_GET, ST_PATH_ADD, ST_COMMIT_ADD, ST_COMMIT_HAS,
	ST_TOUCH_ADD, ST_CREDIT_ADD, ST_TOUCHES, ST_SIBLINGS, ST_CREDITS, ST_ROLES,
	ST_LINES_SET, ST_ALIAS_ADD, ST_ALIAS_GET, ST_COMMIT_TEXT,
	/* Asked at every decision; prepared when first used, by a writer too
	 * (the derived tables they read may not exist yet when it opens). */
	ST_DATA_VERSION, ST_TIP_TIME, ST_TIP_OWN_TIME, ST_NEWEST_TIME, ST_DIR_ENGAGED, ST_HOT_TOTALS, ST_YEAR, ST_YEAR_WITH,
	ST_YEAR_AREA,
	ST_NAMESAKES, ST_SIBLING_ROWS, ST_COMMIT_ROW,
	/* a replay's, as of times the year tables are not for */
	ST_ACTIVITY, ST_ENGAGED_WITH, ST_ENGAGED_AREA, ST_ENGAGED_SUBJECTS,
	/* a new .mailmap's (ccsift_index_replace_people) */
	ST_CREDITS_FORGET, ST_COMMIT_PEOPLE,
	ST_COUNT
};

static const char *const statements[ST_COUNT] = {
	[ST_PERSON_GET] = "SELECT id FROM people WHERE email = ?1",
	[ST_PERSON_ADD] = "INSERT INTO people(email, name) VALUES (?1, ?2)",
	[ST_PATH_GET] = "SELECT id FROM paths WHERE path = ?1",
	[ST_PATH_ADD] = "INSERT INTO paths(path, dir) VALUES (?1, ?2)",
	[ST_COMMIT_ADD] = "INSERT INTO commits(oid, author, committer, atime, ctime, subject, nfiles, ntop, flags)"
			  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_COMMIT_HAS] = "SELECT 1 FROM commits WHERE oid = ?1",
	[ST_TOUCH_ADD] = "INSERT OR IGNORE INTO touches(path, cid, status, old_path, added, removed)"
			 " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_CREDIT_ADD] = "INSERT OR IGNORE INTO credits(person, cid, role) VALUES (?1, ?2, ?3)",
	[ST_TOUCHES] = "SELECT c.id, c.oid, c.subject, c.atime, c.ctime, c.author, c.committer, c.nfiles,"
		       " c.ntop, c.flags, t.status, p.path, o.path, t.added, t.removed"
		       " FROM paths p JOIN touches t ON t.path = p.id JOIN commits c ON c.id = t.cid"
		       " LEFT JOIN paths o ON o.id = t.old_path"
		       " WHERE p.path = ?1 AND c.ctime < ?2",
	[ST_SIBLINGS] = "SELECT c.id, c.oid, c.subject, c.atime, c.ctime, c.author, c.committer, c.nfiles,"
			" c.ntop, c.flags, t.status, p.path, o.path, t.added, t.removed"
			" FROM paths p JOIN touches t ON t.path = p.id JOIN commits c ON c.id = t.cid"
			" LEFT JOIN paths o ON o.id = t.old_path"
			" WHERE p.dir = ?1 AND p.path <> ?2 AND c.ctime < ?3",
	[ST_CREDITS] = "SELECT person, role FROM credits WHERE cid = ?1",
	[ST_ROLES] = "SELECT role FROM credits WHERE person = ?1 AND cid = ?2",
	[ST_LINES_SET] = "UPDATE touches SET added = ?3, removed = ?4"
			 " WHERE cid = ?1 AND path = (SELECT id FROM paths WHERE path = ?2)",
	[ST_ALIAS_ADD] = "INSERT OR IGNORE INTO aliases(email, canonical) VALUES (?1, ?2)",
	[ST_ALIAS_GET] = "SELECT canonical FROM aliases WHERE email = ?1",
	[ST_COMMIT_TEXT] = "SELECT oid, subject FROM commits WHERE id = ?1",
	[ST_DATA_VERSION] = "PRAGMA data_version",
	[ST_TIP_TIME] = "SELECT max(ctime) FROM commits WHERE ctime <= ?1",
	[ST_TIP_OWN_TIME] = "SELECT ctime FROM commits WHERE oid = ?1",
	[ST_NEWEST_TIME] = "SELECT max(ctime) FROM commits",
	[ST_DIR_ENGAGED] = "SELECT e.cid FROM dirs d JOIN engaged_dirs e"
			   " ON e.person = ?1 AND e.dir = d.id AND e.ctime >= ?3 AND e.ctime < ?4"
			   " WHERE d.dir = ?2 ORDER BY e.ctime DESC LIMIT ?5",
	[ST_HOT_TOTALS] = "SELECT h.as_of, h.half_life, h.total, h.commits, h.renames"
			  " FROM paths p JOIN hot_paths h ON h.path = p.id WHERE p.path = ?1",
	[ST_YEAR] = "SELECT authored, engaged, engaged_90 FROM person_year WHERE person = ?1",
	[ST_YEAR_WITH] = "SELECT n FROM person_author_year WHERE person = ?1 AND author = ?2",
	[ST_YEAR_AREA] = "SELECT n FROM person_area_year WHERE person = ?1 AND area = ?2",
	[ST_NAMESAKES] = "SELECT id FROM people WHERE name = ?1 COLLATE NOCASE ORDER BY id LIMIT ?2",
	/* ST_SIBLINGS without the commits: the same plan over paths and
	 * touches, so the same order (ccsift_index_foreach_sibling_evidence_for) */
	[ST_SIBLING_ROWS] = "SELECT t.cid, t.status, p.path, o.path, t.added, t.removed"
			    " FROM paths p JOIN touches t ON t.path = p.id"
			    " LEFT JOIN paths o ON o.id = t.old_path"
			    " WHERE p.dir = ?1 AND p.path <> ?2",
	[ST_COMMIT_ROW] = "SELECT oid, subject, atime, ctime, author, committer, nfiles, ntop, flags"
			  " FROM commits WHERE id = ?1",
	[ST_ACTIVITY] = "SELECT ctime, author, flags FROM engagement WHERE person = ?1 AND ctime >= ?2 AND ctime < ?3",
	[ST_ENGAGED_WITH] = "SELECT count(*) FROM engagement WHERE person = ?1 AND ctime >= ?3 AND ctime < ?4"
			    " AND author = ?2 AND (flags & 1) <> 0",
	[ST_ENGAGED_AREA] = "SELECT c.subject FROM engagement e JOIN commits c ON c.id = e.cid"
			    " WHERE e.person = ?1 AND e.ctime >= ?2 AND e.ctime < ?3 AND (e.flags & 1) <> 0",
	[ST_ENGAGED_SUBJECTS] = "SELECT e.ctime, c.subject FROM engagement e JOIN commits c ON c.id = e.cid"
				" WHERE e.person = ?1 AND e.ctime >= ?2 AND (e.flags & 1) <> 0",
	[ST_CREDITS_FORGET] = "DELETE FROM credits WHERE cid = ?1",
	[ST_COMMIT_PEOPLE] = "UPDATE commits SET author = ?2, committer = ?3, flags = ?4 WHERE id = ?1",
};

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT);"
	"CREATE TABLE IF NOT EXISTS people(id INTEGER PRIMARY KEY, email TEXT UNIQUE NOT NULL, name TEXT);"
	"CREATE TABLE IF NOT EXISTS paths(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, dir TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS commits(id INTEGER PRIMARY KEY, oid TEXT NOT NULL,"
	"  author INTEGER, committer INTEGER, atime INTEGER, ctime INTEGER, subject TEXT,"
	"  nfiles INTEGER, ntop INTEGER, flags INTEGER);"
	"CREATE TABLE IF NOT EXISTS touches(path INTEGER, cid INTEGER, status TEXT, old_path INTEGER,"
	"  added INTEGER, removed INTEGER, PRIMARY KEY(path, cid)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS credits(person INTEGER, cid INTEGER, role INTEGER,"
	"  PRIMARY KEY(person, cid, role)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS aliases(email TEXT PRIMARY KEY, canonical TEXT NOT NULL) WITHOUT ROWID;"
	/* Models fitted by replay (training.h), each on the history before `until`,
	 * and the replayed pairs behind it, from which each person's operating
	 * point comes. */
	"CREATE TABLE IF NOT EXISTS fits(until INTEGER PRIMARY KEY, model TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS fit_pairs(until INTEGER, person INTEGER, logit REAL, engaged INTEGER,"
	"  demotable INTEGER);"
	"CREATE INDEX IF NOT EXISTS fit_pairs_person ON fit_pairs(until, person);";

/*
 * Secondary indexes: built after a first bulk load, which is faster. The
 * commits by id among them: a walk inserts commits in its order, which is
 * no order of their ids, and an index kept up to date as it went was most
 * of the writer's page reads and writes at Linux's size (its commits into
 * an empty table: 18.7 s so, 1.6 s without and 1.6 s to index them after).
 */
#define OID_INDEX "CREATE UNIQUE INDEX IF NOT EXISTS commits_oid ON commits(oid);"

static const char secondary_indexes[] =
	OID_INDEX
	"CREATE INDEX IF NOT EXISTS paths_dir ON paths(dir);"
	"CREATE INDEX IF NOT EXISTS commits_ctime ON commits(ctime);"
	"CREATE INDEX IF NOT EXISTS touches_cid ON touches(cid);"
	"CREATE INDEX IF NOT EXISTS credits_cid ON credits(cid);"
	"CREATE INDEX IF NOT EXISTS aliases_canonical ON aliases(canonical);"
	"CREATE INDEX IF NOT EXISTS people_name ON people(name COLLATE NOCASE);";

typedef struct {
	int64_t cid;
	char *path;
	int added, removed;
} pending_lines;

/* A first build's credits and touches, held until their transaction
 * commits and then written in their tables' key order (held_rows_write):
 * added as the walk goes, each commit's went all over both B-trees, and
 * at Linux's size the writer spilled and read back their pages more than
 * it inserted. g_array_sort is stable: of two rows with one key the
 * first stays, as INSERT OR IGNORE kept it. */
typedef struct {
	int64_t person, cid;
	int role;
} held_credit;

typedef struct {
	int64_t path, cid, old_path;  /* old_path 0: none */
	int added, removed;           /* -1: not counted */
	char status;
} held_touch;

struct ccsift_index {
	sqlite3 *db;
	char *path;
	ccsift_index_mode mode;
	int lock_fd;         /* the writer's lock on path.lock, or -1 */
	int depth;           /* transactions begun and not ended (ccsift_index_begin) */
	gboolean bulk;       /* ccsift_index_set_bulk, and what it gives back */
	int cache_size, wal_autocheckpoint;
	sqlite3_stmt *st[ST_COUNT];
	GHashTable *people;  /* email -> id, writer cache */
	GHashTable *paths;   /* path -> id, writer cache */
	/* the people an update has named so far (ccsift_index_naming_begin;
	 * NULL: a first build, whose first credit of each is the name) */
	GHashTable *named;
	gboolean naming_anew;  /* re-reading every commit, newest first */
	/* the oldest committer time of a commit added or flagged otherwise
	 * since the fits were last seen to (G_MAXINT64: none): the fits of
	 * periods after it could have seen it (ccsift_index_forget_stale_fits) */
	int64_t changed_since;
	int dropped_version;  /* the user_version of tables dropped on opening, or 0 */
	GArray *pending;     /* pending_lines */
	GArray *held_credits, *held_touches;  /* while bulk is on */
	/* the walks with the roles of some people (ccsift_index_foreach_touch_for) */
	sqlite3_stmt *walk_st[3];
	guint walk_n[3];
	sqlite3_stmt *is_dir_st;
	/* the walk of a hot path's credited touches (ccsift_index_foreach_credited_touch) */
	sqlite3_stmt *credited_st;
	guint credited_n;
	/* asked many times a decision: prepared once */
	sqlite3_stmt *meta_st, *top_st[2];
	/* the first read that failed since ccsift_index_take_fault (NULL: none) */
	char *fault;
};

static int db_error(ccsift_index *idx, const char *what)
{
	int rc = sqlite3_errcode(idx->db);

	return ccsift_error_set(rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? CCSIFT_EBUSY :
				rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB ? CCSIFT_ECORRUPT : CCSIFT_ERROR,
				"index %s: %s: %s", idx->path, what, sqlite3_errmsg(idx->db));
}

char *ccsift_index_default_path(const char *gitdir)
{
	g_autofree char *canon = g_canonicalize_filename(gitdir, NULL);
	g_autofree char *hash = g_compute_checksum_for_string(G_CHECKSUM_SHA1, canon, -1);
	g_autofree char *trimmed = g_strdup(canon);
	g_autofree char *base = NULL;
	size_t n = strlen(trimmed);

	/* "/src/linux/.git" is named after "linux". */
	if (n > 5 && strcmp(trimmed + n - 5, "/.git") == 0)
		trimmed[n - 5] = '\0';
	base = g_path_get_basename(trimmed);
	hash[10] = '\0';
	return g_strdup_printf("%s/ccsift/%s-%s.db", g_get_user_cache_dir(), base, hash);
}

/* A read that failed: its counts are cut short, or 0 for no reason, and a
 * decision made on them would be wrong without a word. The first is kept
 * for ccsift_index_take_fault. */
static void note_fault(ccsift_index *idx, const char *what)
{
	if (!idx->fault)
		idx->fault = g_strdup_printf("%s: %s", what, sqlite3_errmsg(idx->db));
}

/* A read's step: TRUE for a row, FALSE at the end or on an error (noted). */
static gboolean row(ccsift_index *idx, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		return TRUE;
	if (rc != SQLITE_DONE)
		note_fault(idx, "read");
	return FALSE;
}

int ccsift_index_take_fault(ccsift_index *idx)
{
	g_autofree char *fault = g_steal_pointer(&idx->fault);

	return fault ? ccsift_error_set(CCSIFT_EIO, "index %s: %s", idx->path, fault) : 0;
}

/* Statement i, prepared on first use (NULL if it cannot be: noted). */
static sqlite3_stmt *stmt(ccsift_index *idx, int i)
{
	if (!idx->st[i] && sqlite3_prepare_v3(idx->db, statements[i], -1, SQLITE_PREPARE_PERSISTENT, &idx->st[i], NULL)) {
		note_fault(idx, "prepare");
		db_error(idx, "prepare");
		return NULL;
	}
	return idx->st[i];
}

/* A writer's statements now; a reader's (a delivery uses two or three of
 * them, and preparing all cost more than its queries) when first used. */
static int prepare(ccsift_index *idx)
{
	for (int i = 0; i < ST_COUNT; i++)
		if (((idx->mode == CCSIFT_INDEX_READ_WRITE && i < ST_DATA_VERSION) || i == ST_PERSON_GET ||
		     i == ST_ALIAS_GET) && !stmt(idx, i))
			return -1;
	return 0;
}

/* PRAGMA name's value into *v (-1 when unread); returns SQLite's result. */
static int read_pragma(ccsift_index *idx, const char *name, int *v)
{
	g_autofree char *sql = g_strconcat("PRAGMA ", name, NULL);
	sqlite3_stmt *s;
	int rc;

	*v = -1;
	if ((rc = sqlite3_prepare_v2(idx->db, sql, -1, &s, NULL)) != SQLITE_OK)
		return rc;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*v = sqlite3_column_int(s, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc;
}

static int user_version(ccsift_index *idx)
{
	int v;

	read_pragma(idx, "user_version", &v);
	return v;
}

void ccsift_index_unmap(ccsift_index *idx)
{
	sqlite3_exec(idx->db, "PRAGMA mmap_size=0", 0, 0, 0);
}

static int held_rows_write(ccsift_index *idx);

/* Empty arrays for held rows, in place of any (and of the room they took). */
static void held_rows_new(ccsift_index *idx)
{
	g_clear_pointer(&idx->held_credits, g_array_unref);
	g_clear_pointer(&idx->held_touches, g_array_unref);
	idx->held_credits = g_array_new(FALSE, FALSE, sizeof(held_credit));
	idx->held_touches = g_array_new(FALSE, FALSE, sizeof(held_touch));
}

int ccsift_index_set_bulk(ccsift_index *idx, gboolean bulk)
{
	g_autofree char *sql = NULL;
	int rc = 0;

	if (bulk == idx->bulk)
		return 0;
	/* (unread, there would be nothing to give back: left as it is) */
	if (bulk && (read_pragma(idx, "cache_size", &idx->cache_size) != SQLITE_OK ||
		     read_pragma(idx, "wal_autocheckpoint", &idx->wal_autocheckpoint) != SQLITE_OK))
		return 0;
	sql = g_strdup_printf("PRAGMA cache_size=%d; PRAGMA wal_autocheckpoint=%d", bulk ? -16384 : idx->cache_size,
			      bulk ? 16384 : idx->wal_autocheckpoint);
	sqlite3_exec(idx->db, sql, 0, 0, 0);
	idx->bulk = bulk;
	if (!bulk) {
		/* A first build's transactions have written what they held
		 * (rows still held belong to one not ended: written into it,
		 * as row by row they would have been; failing that, it is
		 * rolled back, as a commit that fails is, and the caller told);
		 * the room they took is not kept through the fit that follows. */
		if ((idx->held_credits->len || idx->held_touches->len) && (rc = held_rows_write(idx)) < 0 &&
		    idx->depth)
			ccsift_index_rollback(idx);
		held_rows_new(idx);
	}
	return rc;
}

static int setup_writer(ccsift_index *idx)
{
	int v = user_version(idx);

	if (sqlite3_exec(idx->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", 0, 0, 0))
		return db_error(idx, "set WAL mode");
	/* index, train and eval replay thousands of commits through the
	 * same tables: map the file rather than copy each page in through
	 * a 2 MB cache (a fifth of a fit's time was the kernel's copying).
	 * Delivery's reader keeps its bounded cache (setup_reader). */
	sqlite3_exec(idx->db, "PRAGMA mmap_size=2147483648", 0, 0, 0);
	if (v != 0 && v != CCSIFT_INDEX_SCHEMA) {
		/* An index of another version is a cache: start afresh. */
		idx->dropped_version = v;
		if (sqlite3_exec(idx->db, "DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS people;"
			"DROP TABLE IF EXISTS paths; DROP TABLE IF EXISTS commits;"
			"DROP TABLE IF EXISTS touches; DROP TABLE IF EXISTS credits;"
			"DROP TABLE IF EXISTS aliases; DROP TABLE IF EXISTS fits;"
			"DROP TABLE IF EXISTS fit_pairs;", 0, 0, 0))
			return db_error(idx, "drop old schema");
	}
	if (sqlite3_exec(idx->db, schema, 0, 0, 0))
		return db_error(idx, "create schema");
	/* An empty index is about to be filled in bulk: indexes come after. */
	if (ccsift_index_count(idx, "commits") > 0 && sqlite3_exec(idx->db, secondary_indexes, 0, 0, 0))
		return db_error(idx, "create indexes");
	/* (set only when it changes: every write is a transaction to sync) */
	if (v != CCSIFT_INDEX_SCHEMA &&
	    sqlite3_exec(idx->db, "PRAGMA user_version=" G_STRINGIFY(CCSIFT_INDEX_SCHEMA), 0, 0, 0))
		return db_error(idx, "set version");
	return 0;
}

int ccsift_index_dropped_version(ccsift_index *idx)
{
	return idx->dropped_version;
}

/*
 * Only a regular file can be an index: sqlite3 would wait forever opening a
 * FIFO, which is what a hung filesystem looks like too. The -wal and -shm
 * files likewise, when they exist. stat(), not open(): closing a descriptor
 * of the file would drop the POSIX locks SQLite holds on it in this process.
 */
static int check_regular(const char *path)
{
	static const char *const suffixes[] = { "", "-wal", "-shm" };

	for (size_t i = 0; i < G_N_ELEMENTS(suffixes); i++) {
		g_autofree char *f = g_strconcat(path, suffixes[i], NULL);
		struct stat st;

		if (stat(f, &st) == 0 && !S_ISREG(st.st_mode))
			return ccsift_error_set(CCSIFT_EINVALID, "index %s is not a regular file", f);
	}
	return 0;
}

/*
 * One writer at a time: a second `ccsift index` would interleave its batches
 * with the first one's and fail on "database is locked". An flock on a file
 * of its own, next to the index (never the index itself: see above), held
 * until ccsift_index_free; waits up to wait seconds for another writer.
 */
static int lock_writer(ccsift_index *idx, int wait)
{
	g_autofree char *lock = g_strconcat(idx->path, ".lock", NULL);
	gint64 until = g_get_monotonic_time() + (gint64)wait * G_USEC_PER_SEC;
	struct stat st;

	idx->lock_fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);
	if (idx->lock_fd < 0)
		return ccsift_error_set(CCSIFT_EIO, "cannot open %s: %s", lock, g_strerror(errno));
	if (fstat(idx->lock_fd, &st) < 0 || !S_ISREG(st.st_mode))
		return ccsift_error_set(CCSIFT_EINVALID, "index lock %s is not a regular file", lock);
	while (flock(idx->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return ccsift_error_set(CCSIFT_EIO, "cannot lock %s: %s", lock, g_strerror(errno));
		if (g_get_monotonic_time() >= until)
			return ccsift_error_set(CCSIFT_EBUSY, "another ccsift index is updating %s", idx->path);
		g_usleep(50 * 1000);
	}
	return 0;
}

/*
 * An intact index on a read-only mount (or in a directory this user may not
 * write) has no -shm, and SQLite can make none, so WAL mode cannot be read
 * the usual way. Nobody can write it there either: read it as immutable,
 * unless a -wal holds changes that an immutable read would miss.
 */
static gboolean needs_immutable(const char *path)
{
	g_autofree char *dir = g_path_get_dirname(path);
	g_autofree char *shm = g_strconcat(path, "-shm", NULL);
	g_autofree char *wal = g_strconcat(path, "-wal", NULL);
	struct stat st;

	/* A -shm we cannot write is as good as none: nobody here set it up. */
	if (access(dir, W_OK) == 0 || (lstat(shm, &st) == 0 && access(shm, W_OK) == 0))
		return FALSE;
	return lstat(wal, &st) < 0 ? errno == ENOENT : st.st_size == 0;
}

/* SQLite counts every allocation under a global mutex for statistics
 * ccsift never reads; off before its first use (a no-op after). */
static void sqlite_setup(void)
{
	static gsize done;

	if (g_once_init_enter(&done)) {
		sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
		g_once_init_leave(&done, 1);
	}
}

static int open_db(ccsift_index *idx, int flags, gboolean immutable)
{
	g_autofree char *uri = NULL;

	sqlite_setup();

	if (immutable) {
		g_autofree char *escaped = g_uri_escape_string(idx->path, "/", FALSE);

		uri = g_strconcat("file:", escaped, "?immutable=1", NULL);
		flags |= SQLITE_OPEN_URI;
	}
	if (sqlite3_open_v2(uri ? uri : idx->path, &idx->db, flags | SQLITE_OPEN_NOMUTEX, NULL))
		return db_error(idx, "open");
	sqlite3_busy_timeout(idx->db, 2000);
	sqlite3_extended_result_codes(idx->db, 0);
	return 0;
}

static int setup_reader(ccsift_index *idx)
{
	int v, rc = read_pragma(idx, "user_version", &v);

	if ((rc == SQLITE_CANTOPEN || rc == SQLITE_READONLY) && needs_immutable(idx->path)) {
		sqlite3_close(idx->db);
		idx->db = NULL;
		if ((rc = open_db(idx, SQLITE_OPEN_READONLY, TRUE)) < 0)
			return rc;
		rc = read_pragma(idx, "user_version", &v);
	}
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		return ccsift_error_set(CCSIFT_EBUSY, "index %s is locked by another process", idx->path);
	if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
		return ccsift_error_set(CCSIFT_EINVALID, "%s is not a ccsift index", idx->path);
	if (rc != SQLITE_OK)
		return db_error(idx, "read");
	if (v != CCSIFT_INDEX_SCHEMA)
		return ccsift_error_set(CCSIFT_ENOTFOUND, "index %s has another version (run: ccsift index)",
					idx->path);
	sqlite3_exec(idx->db, "PRAGMA query_only=1", 0, 0, 0);
	/* Through a bounded cache, not a map: every page of a map a decision
	 * touches counts in the process's RSS (51 MB on U-Boot); the kernel's
	 * page cache keeps the file warm either way. */
	sqlite3_exec(idx->db, "PRAGMA mmap_size=0; PRAGMA cache_size=-8192", 0, 0, 0);
	return 0;
}

static int open_index(ccsift_index **out, const char *path, ccsift_index_mode mode, int lock_wait)
{
	ccsift_index *idx = g_new0(ccsift_index, 1);
	int rc;

	*out = NULL;
	idx->path = g_strdup(path);
	idx->mode = mode;
	idx->lock_fd = -1;
	idx->changed_since = G_MAXINT64;
	idx->pending = g_array_new(FALSE, FALSE, sizeof(pending_lines));
	held_rows_new(idx);
	if (mode == CCSIFT_INDEX_READ_WRITE) {
		g_autofree char *dir = g_path_get_dirname(path);

		if (g_mkdir_with_parents(dir, 0700) < 0) {
			rc = ccsift_error_set(CCSIFT_EIO, "cannot create %s: %s", dir, g_strerror(errno));
			goto fail;
		}
		/* Before creating anything that the next run would refuse. */
		if ((rc = ccsift_trust_check_dir(dir, "index", path)) < 0)
			goto fail;
	} else if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		rc = ccsift_error_set(CCSIFT_ENOTFOUND, "no index at %s (run: ccsift index)", path);
		goto fail;
	}
	if ((rc = check_regular(path)) < 0)
		goto fail;
	if (g_file_test(path, G_FILE_TEST_EXISTS) && (rc = ccsift_trust_check(path, "index")) < 0)
		goto fail;
	if (mode == CCSIFT_INDEX_READ_WRITE && (rc = lock_writer(idx, lock_wait)) < 0)
		goto fail;
	if ((rc = open_db(idx, mode == CCSIFT_INDEX_READ_WRITE ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
							   : SQLITE_OPEN_READONLY, FALSE)) < 0)
		goto fail;
	if ((rc = mode == CCSIFT_INDEX_READ_WRITE ? setup_writer(idx) : setup_reader(idx)) < 0)
		goto fail;
	if ((rc = prepare(idx)) < 0)
		goto fail;
	idx->people = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	idx->paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	*out = idx;
	return 0;
fail:
	ccsift_index_free(idx);
	return rc;
}

int ccsift_index_open(ccsift_index **out, const char *path, ccsift_index_mode mode)
{
	return open_index(out, path, mode, CCSIFT_INDEX_LOCK_WAIT);
}

int ccsift_index_open_writer(ccsift_index **out, const char *path, int lock_wait)
{
	return open_index(out, path, CCSIFT_INDEX_READ_WRITE, lock_wait);
}

void ccsift_index_free(ccsift_index *idx)
{
	if (!idx)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(idx->st[i]);
	for (int i = 0; i < 3; i++)
		sqlite3_finalize(idx->walk_st[i]);
	sqlite3_finalize(idx->is_dir_st);
	sqlite3_finalize(idx->credited_st);
	sqlite3_finalize(idx->meta_st);
	sqlite3_finalize(idx->top_st[0]);
	sqlite3_finalize(idx->top_st[1]);
	g_free(idx->fault);
	if (idx->db)
		sqlite3_close(idx->db);
	/* After SQLite's last descriptor: closing ours releases the lock. */
	if (idx->lock_fd >= 0)
		close(idx->lock_fd);
	for (guint i = 0; i < idx->pending->len; i++)
		g_free(g_array_index(idx->pending, pending_lines, i).path);
	g_array_unref(idx->pending);
	g_array_unref(idx->held_credits);
	g_array_unref(idx->held_touches);
	if (idx->people)
		g_hash_table_unref(idx->people);
	if (idx->paths)
		g_hash_table_unref(idx->paths);
	if (idx->named)
		g_hash_table_unref(idx->named);
	g_free(idx->path);
	g_free(idx);
}

const char *ccsift_index_path(const ccsift_index *idx)
{
	return idx->path;
}

char *ccsift_index_meta_get(ccsift_index *idx, const char *key)
{
	sqlite3_stmt *s = idx->meta_st;
	char *v = NULL;

	if (!s && sqlite3_prepare_v3(idx->db, "SELECT v FROM meta WHERE k = ?1", -1, SQLITE_PREPARE_PERSISTENT,
				     &idx->meta_st, NULL))
		return NULL;
	s = idx->meta_st;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	if (row(idx, s) && sqlite3_column_text(s, 0))
		v = g_strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return v;
}

int ccsift_index_meta_set(ccsift_index *idx, const char *key, const char *value)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(idx->db, "INSERT OR REPLACE INTO meta(k, v) VALUES (?1, ?2)", -1, &s, NULL))
		return db_error(idx, "meta");
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, value, -1, SQLITE_STATIC);
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : db_error(idx, "meta");
	sqlite3_finalize(s);
	return rc;
}

int ccsift_index_meta_delete(ccsift_index *idx, const char *key)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(idx->db, "DELETE FROM meta WHERE k = ?1", -1, &s, NULL))
		return db_error(idx, "meta");
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : db_error(idx, "meta");
	sqlite3_finalize(s);
	return rc;
}

static void held_rows_drop(ccsift_index *idx);
static int engagement_update(ccsift_index *idx);
static int64_t max_commit_id(ccsift_index *idx);
static int64_t meta_int(ccsift_index *idx, const char *key);
static int meta_set_int(ccsift_index *idx, const char *key, int64_t value);
static int engaged_dirs_update(ccsift_index *idx);
static gboolean engaged_dirs_ready(ccsift_index *idx, int64_t after);
static unsigned engaged_dirs_count(ccsift_index *idx, int64_t person, GPtrArray *dirs, int64_t after,
				   int64_t before, unsigned limit);
static int hot_update(ccsift_index *idx);
static int year_update(ccsift_index *idx);
static gboolean year_ready(ccsift_index *idx, int64_t as_of);
static int year_activity(ccsift_index *idx, int64_t person, int64_t author, ccsift_activity *out);
static unsigned year_with(ccsift_index *idx, int64_t person, int64_t author);
static unsigned year_area(ccsift_index *idx, int64_t person, const char *area);

int ccsift_index_finish(ccsift_index *idx)
{
	int rc;

	if ((rc = held_rows_write(idx)) < 0)
		return rc;
	if (sqlite3_exec(idx->db, secondary_indexes, 0, 0, 0))
		return db_error(idx, "create indexes");
	if ((rc = engagement_update(idx)) < 0 || (rc = engaged_dirs_update(idx)) < 0 ||
	    (rc = hot_update(idx)) < 0)
		return rc;
	return year_update(idx);
}

/* An inner transaction is a savepoint: a caller can make several
 * changes that commit on their own elsewhere (the history, then its fit)
 * one change that readers see whole. */
int ccsift_index_begin(ccsift_index *idx)
{
	if (sqlite3_exec(idx->db, idx->depth ? "SAVEPOINT inner" : "BEGIN IMMEDIATE", 0, 0, 0))
		return db_error(idx, "begin");
	idx->depth++;
	return 0;
}

gboolean ccsift_index_writing(ccsift_index *idx)
{
	return idx->depth > 0;
}

int ccsift_index_commit(ccsift_index *idx)
{
	int rc = 0;

	if ((rc = held_rows_write(idx)) < 0) {
		ccsift_index_rollback(idx);
		return rc;
	}
	if (sqlite3_exec(idx->db, idx->depth > 1 ? "RELEASE inner" : "COMMIT", 0, 0, 0)) {
		/* Not left open: the caller goes on as after a rollback. */
		rc = db_error(idx, "commit");
		ccsift_index_rollback(idx);
		return rc;
	}
	idx->depth--;
	return rc;
}

void ccsift_index_rollback(ccsift_index *idx)
{
	held_rows_drop(idx);
	sqlite3_exec(idx->db, idx->depth > 1 ? "ROLLBACK TO inner; RELEASE inner" : "ROLLBACK", 0, 0, 0);
	if (idx->depth)
		idx->depth--;
	/* Cached ids may name rows that are gone now. */
	g_hash_table_remove_all(idx->people);
	g_hash_table_remove_all(idx->paths);
	if (idx->named)
		g_hash_table_remove_all(idx->named);
}

static int step_done(ccsift_index *idx, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? 0 : db_error(idx, what);
}

/* Look up or insert a row keyed by text, through a cache. */
static int64_t intern(ccsift_index *idx, GHashTable *cache, int get, int add,
		      const char *key, const char *extra)
{
	gpointer v;
	sqlite3_stmt *s = idx->st[get];
	int64_t id = -1;

	if (g_hash_table_lookup_extended(cache, key, NULL, &v))
		return (int64_t)(intptr_t)v;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	if (row(idx, s))
		id = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (id < 0) {
		s = idx->st[add];
		sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 2, extra, -1, SQLITE_STATIC);
		if (step_done(idx, s, "insert") < 0)
			return -1;
		id = sqlite3_last_insert_rowid(idx->db);
	}
	g_hash_table_insert(cache, g_strdup(key), (gpointer)(intptr_t)id);
	return id;
}

static int exec_id_text(ccsift_index *idx, const char *sql, int64_t id, const char *text, const char *what);

/* The committer time of the newest commit that credits person (-1: none). */
static int64_t newest_credit(ccsift_index *idx, int64_t person)
{
	sqlite3_stmt *s;
	int64_t t = -1;

	if (sqlite3_prepare_v2(idx->db, "SELECT max(c.ctime) FROM credits r JOIN commits c ON c.id = r.cid"
			       " WHERE r.person = ?1", -1, &s, NULL))
		return G_MAXINT64;
	sqlite3_bind_int64(s, 1, person);
	if (row(idx, s) && sqlite3_column_type(s, 0) != SQLITE_NULL)
		t = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return t;
}

/*
 * A fresh build names a person after the first of their credits its walk
 * from the tip meets, the newest (a walk goes by committer time). An
 * update meets a person's new credits after their old ones: the first
 * one it meets renames them, unless an older commit of the update's (a
 * side branch merged late) is all it brings. A stored fit keeps the
 * namesakes it was made with, as it keeps the history it saw: at Linux's
 * size, where names vary from commit to commit, dropping the fits at a
 * rename made every update of 1,000 commits fit anew (1.75 s to 9.41 s).
 */
static int person_name(ccsift_index *idx, int64_t id, const char *name, int64_t ctime)
{
	g_autofree char *stored = NULL;

	if (!idx->named || !g_hash_table_add(idx->named, g_memdup2(&id, sizeof(id))))
		return 0;
	stored = ccsift_index_person_name(idx, id);
	if (!stored || strcmp(stored, name) == 0 || (!idx->naming_anew && newest_credit(idx, id) > ctime))
		return 0;
	return exec_id_text(idx, "UPDATE people SET name = ?2 WHERE id = ?1", id, name, "rename");
}

static int64_t person_intern(ccsift_index *idx, const char *email, const char *name, int64_t ctime)
{
	g_autofree char *lower = g_ascii_strdown(email ? email : "", -1);
	int64_t id = intern(idx, idx->people, ST_PERSON_GET, ST_PERSON_ADD, lower, name ? name : "");

	return id < 0 || person_name(idx, id, name ? name : "", ctime) < 0 ? -1 : id;
}

void ccsift_index_naming_begin(ccsift_index *idx, gboolean anew)
{
	idx->named = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	idx->naming_anew = anew;
}

void ccsift_index_naming_end(ccsift_index *idx)
{
	g_clear_pointer(&idx->named, g_hash_table_unref);
}

static int64_t path_intern(ccsift_index *idx, const char *path)
{
	gpointer v;
	const char *slash;
	g_autofree char *dir = NULL;

	/* Known paths are most of them: their directory is cut only for a new one. */
	if (g_hash_table_lookup_extended(idx->paths, path, NULL, &v))
		return (int64_t)(intptr_t)v;
	slash = strrchr(path, '/');
	dir = slash ? g_strndup(path, slash - path) : g_strdup("");
	return intern(idx, idx->paths, ST_PATH_GET, ST_PATH_ADD, path, dir);
}

/* Does the prepared statement st, given key, return a row? */
static gboolean has_row(ccsift_index *idx, int st, const char *key)
{
	sqlite3_stmt *s = stmt(idx, st);
	gboolean found;

	if (!s)
		return FALSE;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	found = row(idx, s);
	sqlite3_reset(s);
	return found;
}

gboolean ccsift_index_has_commit(ccsift_index *idx, const char *oid)
{
	return has_row(idx, ST_COMMIT_HAS, oid);
}

/* The person of each credit of rec into people, and the author and committer. */
static int intern_people(ccsift_index *idx, const ccsift_commit_record *rec, int64_t *people,
			 int64_t *author, int64_t *committer)
{
	const ccsift_credit_record *cr = (const ccsift_credit_record *)rec->credits->data;

	*author = *committer = -1;
	for (guint i = 0; i < rec->credits->len; i++) {
		int64_t id = people[i] = person_intern(idx, cr[i].email, cr[i].name, rec->ctime);

		if (id < 0)
			return -1;
		if (cr[i].role == CCSIFT_ROLE_AUTHOR && *author < 0)
			*author = id;
		if (cr[i].role == CCSIFT_ROLE_COMMITTER && *committer < 0)
			*committer = id;
	}
	if (*committer < 0)
		*committer = *author;
	return 0;
}

/* --- credits and touches, now or held (held_credit) --- */

static int credit_step(ccsift_index *idx, const held_credit *c)
{
	sqlite3_stmt *s = idx->st[ST_CREDIT_ADD];

	sqlite3_bind_int64(s, 1, c->person);
	sqlite3_bind_int64(s, 2, c->cid);
	sqlite3_bind_int(s, 3, c->role);
	return step_done(idx, s, "add credit");
}

static int touch_step(ccsift_index *idx, const held_touch *t)
{
	sqlite3_stmt *s = idx->st[ST_TOUCH_ADD];
	char status[2] = { t->status, 0 };

	sqlite3_bind_int64(s, 1, t->path);
	sqlite3_bind_int64(s, 2, t->cid);
	sqlite3_bind_text(s, 3, status, 1, SQLITE_TRANSIENT);
	if (t->old_path)
		sqlite3_bind_int64(s, 4, t->old_path);
	if (t->added >= 0) {
		sqlite3_bind_int(s, 5, t->added);
		sqlite3_bind_int(s, 6, t->removed);
	}
	return step_done(idx, s, "add touch");
}

/* Rows held at most (a transaction of a first build holds 65,536
 * commits, about 500,000 rows at Linux's size): written early, in two
 * runs, they keep their order, the first run's rows going first. */
#define HELD_MAX (1u << 22)

static int hold_row(ccsift_index *idx, GArray *rows, gconstpointer row)
{
	g_array_append_vals(rows, row, 1);
	return rows->len < HELD_MAX ? 0 : held_rows_write(idx);
}

static int credit_write(ccsift_index *idx, const held_credit *c)
{
	return idx->bulk ? hold_row(idx, idx->held_credits, c) : credit_step(idx, c);
}

static int touch_write(ccsift_index *idx, const held_touch *t)
{
	return idx->bulk ? hold_row(idx, idx->held_touches, t) : touch_step(idx, t);
}

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

static int credit_order(gconstpointer pa, gconstpointer pb)
{
	const held_credit *a = pa, *b = pb;

	if (a->person != b->person)
		return CMP(a->person, b->person);
	if (a->cid != b->cid)
		return CMP(a->cid, b->cid);
	return CMP(a->role, b->role);
}

static int touch_order(gconstpointer pa, gconstpointer pb)
{
	const held_touch *a = pa, *b = pb;

	if (a->path != b->path)
		return CMP(a->path, b->path);
	return CMP(a->cid, b->cid);
}

#undef CMP

static void held_rows_drop(ccsift_index *idx)
{
	g_array_set_size(idx->held_credits, 0);
	g_array_set_size(idx->held_touches, 0);
}

/* Before the transaction that holds them commits, or anything reads the
 * tables: in key order, each B-tree page is read and written once. */
static int held_rows_write(ccsift_index *idx)
{
	GArray *c = idx->held_credits, *t = idx->held_touches;
	int rc = 0;

	g_array_sort(c, credit_order);
	g_array_sort(t, touch_order);
	for (guint i = 0; rc == 0 && i < c->len; i++)
		rc = credit_step(idx, &g_array_index(c, held_credit, i));
	for (guint i = 0; rc == 0 && i < t->len; i++)
		rc = touch_step(idx, &g_array_index(t, held_touch, i));
	held_rows_drop(idx);
	return rc;
}

/* rec's credits of commit cid, and the addresses they were written as. */
static int add_credits(ccsift_index *idx, int64_t cid, const ccsift_commit_record *rec, const int64_t *people)
{
	const ccsift_credit_record *cr = (const ccsift_credit_record *)rec->credits->data;
	sqlite3_stmt *s;

	for (guint i = 0; i < rec->credits->len; i++) {
		if (cr[i].raw_email && strcmp(cr[i].raw_email, cr[i].email) != 0) {
			s = idx->st[ST_ALIAS_ADD];
			sqlite3_bind_text(s, 1, cr[i].raw_email, -1, SQLITE_STATIC);
			sqlite3_bind_text(s, 2, cr[i].email, -1, SQLITE_STATIC);
			if (step_done(idx, s, "add alias") < 0)
				return -1;
		}
		if (credit_write(idx, &(held_credit){ people[i], cid, cr[i].role }) < 0)
			return -1;
	}
	return 0;
}

int ccsift_index_add_commit(ccsift_index *idx, const ccsift_commit_record *rec)
{
	sqlite3_stmt *s = idx->st[ST_COMMIT_ADD];
	g_autofree int64_t *people = g_new(int64_t, rec->credits->len);
	int64_t author, committer, cid;

	if (intern_people(idx, rec, people, &author, &committer) < 0)
		return -1;
	sqlite3_bind_text(s, 1, rec->oid, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, author);
	sqlite3_bind_int64(s, 3, committer);
	sqlite3_bind_int64(s, 4, rec->atime);
	sqlite3_bind_int64(s, 5, rec->ctime);
	sqlite3_bind_text(s, 6, rec->subject, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 7, rec->nfiles);
	sqlite3_bind_int(s, 8, rec->ntop);
	sqlite3_bind_int(s, 9, rec->flags);
	if (step_done(idx, s, "add commit") < 0)
		return -1;
	cid = sqlite3_last_insert_rowid(idx->db);
	idx->changed_since = MIN(idx->changed_since, rec->ctime);
	if (add_credits(idx, cid, rec, people) < 0)
		return -1;
	for (guint i = 0; i < rec->touches->len; i++) {
		const ccsift_touch_record *t = &g_array_index(rec->touches, ccsift_touch_record, i);
		int64_t pid = path_intern(idx, t->path);
		held_touch h = { pid, cid, 0, -1, -1, t->status };

		if (pid < 0 || (t->old_path && (h.old_path = path_intern(idx, t->old_path)) < 0))
			return -1;
		if (t->added >= 0 && t->removed >= 0) {
			h.added = t->added;
			h.removed = t->removed;
		}
		if (touch_write(idx, &h) < 0)
			return -1;
	}
	return 0;
}

static int flags_changed(ccsift_index *idx);

int ccsift_index_set_flags(ccsift_index *idx, const char *oid, unsigned flags)
{
	sqlite3_stmt *s;
	int rc;

	/* (after a first build's walk, before finish: not a scan a commit) */
	if (sqlite3_exec(idx->db, OID_INDEX, 0, 0, 0) ||
	    sqlite3_prepare_v2(idx->db, "UPDATE commits SET flags = flags | ?2 WHERE oid = ?1 AND (flags & ?2) <> ?2", -1, &s, NULL))
		return db_error(idx, "flags");
	sqlite3_bind_text(s, 1, oid, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, flags);
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : db_error(idx, "flags");
	sqlite3_finalize(s);
	if (!rc && sqlite3_changes(idx->db) > 0) {
		sqlite3_stmt *t = stmt(idx, ST_TIP_OWN_TIME);  /* the commit's ctime */

		if (t) {
			sqlite3_bind_text(t, 1, oid, -1, SQLITE_STATIC);
			if (row(idx, t))
				idx->changed_since = MIN(idx->changed_since, sqlite3_column_int64(t, 0));
			sqlite3_reset(t);
		}
		rc = flags_changed(idx);
	}
	return rc;
}

/* hot_credits copy the flags, and the hot paths' sums weigh by them:
 * made anew (finish). */
static int flags_changed(ccsift_index *idx)
{
	int rc = ccsift_index_meta_delete(idx, HOT_TOTALS_META);

	return rc < 0 ? rc : ccsift_index_meta_delete(idx, HOT_META);
}

int ccsift_index_clear_flags(ccsift_index *idx, unsigned flag, GHashTable *keep)
{
	g_autoptr(GArray) cleared = g_array_new(FALSE, FALSE, sizeof(int64_t));
	sqlite3_stmt *s;
	int rc = 0;

	/* (a scan of the commits: asked only when the list changed) */
	if (sqlite3_prepare_v2(idx->db, "SELECT id, oid, ctime FROM commits WHERE flags & ?1", -1, &s, NULL))
		return db_error(idx, "flags");
	sqlite3_bind_int(s, 1, flag);
	while (row(idx, s)) {
		int64_t id = sqlite3_column_int64(s, 0);

		if (!g_hash_table_contains(keep, sqlite3_column_text(s, 1))) {
			g_array_append_val(cleared, id);
			idx->changed_since = MIN(idx->changed_since, sqlite3_column_int64(s, 2));
		}
	}
	sqlite3_finalize(s);
	if (!cleared->len)
		return 0;
	if (sqlite3_prepare_v2(idx->db, "UPDATE commits SET flags = flags & ~?2 WHERE id = ?1", -1, &s, NULL))
		return db_error(idx, "flags");
	for (guint i = 0; i < cleared->len && !rc; i++) {
		sqlite3_bind_int64(s, 1, g_array_index(cleared, int64_t, i));
		sqlite3_bind_int(s, 2, flag);
		if (sqlite3_step(s) != SQLITE_DONE)
			rc = db_error(idx, "flags");
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return rc < 0 ? rc : flags_changed(idx);
}

/*
 * A fit of the period before `until` replays the commits committed before
 * it (its cases, and the history each is decided on: ccsift_replay_sample,
 * the walks' ctime < as_of). A commit added or flagged otherwise that was
 * committed before a stored fit's until (a side branch merged late, an
 * ignore list fetched later) would be in a fresh index's fit and is not in
 * that one: it goes, with its pairs, and the period is fitted anew when
 * asked (ccsift_training_ensure). A fetch of newer commits leaves every
 * fit as it was. An update stopped half way fits nothing: it leaves the
 * fits to the run that ends it, which drops them and fits anew in one
 * change, so that no delivery meanwhile goes without its period's fit.
 */
static int exec2(ccsift_index *idx, const char *sql, int64_t a, int64_t b, const char *what);

int ccsift_index_forget_stale_fits(ccsift_index *idx, gboolean later)
{
	g_autofree char *left = ccsift_index_meta_get(idx, FITS_STALE_META);
	int64_t since = MIN(idx->changed_since, left ? g_ascii_strtoll(left, NULL, 10) : G_MAXINT64);
	int rc;

	if (since == G_MAXINT64)
		return 0;
	idx->changed_since = G_MAXINT64;
	/* (an index without fits, as a first build, has nothing to leave) */
	if (later)
		return ccsift_index_count(idx, "fits") > 0 ? meta_set_int(idx, FITS_STALE_META, since) : 0;
	if ((rc = exec2(idx, "DELETE FROM fits WHERE until > ?1", since, 0, "forget fits")) < 0 ||
	    (rc = exec2(idx, "DELETE FROM fit_pairs WHERE until > ?1", since, 0, "forget fits")) < 0)
		return rc;
	return left ? ccsift_index_meta_delete(idx, FITS_STALE_META) : 0;
}

/*
 * An index another ccsift kept is not known to follow this one's rules
 * for an update (each rule is one that a fresh build follows anyway):
 * before 6c280de a fit stayed as it was when late commits came into its
 * period; before c259f7e a person kept the first name an update met, and
 * before 9280d24 an identity a .mailmap took back stayed. An older ccsift
 * run on the index after this one (a downgrade) may have done so again.
 * Unless this ccsift kept it up to the stored tip, the update that adopts
 * it drops its fits (the newest period is fitted anew in it) and reads
 * every commit's people again (history.c). Without that, an upgrade kept
 * them for good, deciding as no fresh index would (a patch 1% likely for
 * a reviewer whom the late commits showed reviewing).
 */
gboolean ccsift_index_adopt(ccsift_index *idx)
{
	g_autofree char *tip = ccsift_index_meta_get(idx, "tip");
	g_autofree char *kept = ccsift_index_meta_get(idx, KEPT_META);

	if (!tip || !*tip || g_strcmp0(tip, kept) == 0)
		return FALSE;
	if (ccsift_index_count(idx, "fits") > 0)
		idx->changed_since = G_MININT64;
	return TRUE;
}

int ccsift_index_kept(ccsift_index *idx, const char *tip)
{
	return ccsift_index_meta_set(idx, KEPT_META, tip);
}

/* Models fitted on a history that is no more are no models, and row ids
 * of commits may come back: what derives from them is made anew (finish). */
static int forget_derived(ccsift_index *idx)
{
	if (sqlite3_exec(idx->db, "DELETE FROM fits; DELETE FROM fit_pairs;", 0, 0, 0))
		return db_error(idx, "prune");
	if (ccsift_index_meta_delete(idx, ENGAGEMENT_META) < 0 || ccsift_index_meta_delete(idx, ENGAGED_DIRS_META) < 0 ||
	    ccsift_index_meta_delete(idx, HOT_META) < 0 || ccsift_index_meta_delete(idx, HOT_TOTALS_META) < 0 ||
	    ccsift_index_meta_delete(idx, YEAR_META) < 0)
		return -1;
	return 0;
}

/* The paths only pruned commits touched (or renamed from) go, as a fresh
 * build has none: MAINTAINERS' patterns are resolved against them, and a
 * driver's directory taken back by a force-push stayed a directory ("you
 * are M: for drivers/newdrv/core.c"). Of the pruned commits' paths, those
 * no touch names (one scan of the touches for their old paths). */
static int forget_untouched_paths(ccsift_index *idx)
{
	if (sqlite3_exec(idx->db, "DELETE FROM paths WHERE id IN (SELECT id FROM temp.pruned_paths p"
			 "  WHERE NOT EXISTS (SELECT 1 FROM touches t WHERE t.path = p.id))"
			 " AND id NOT IN (SELECT old_path FROM touches WHERE old_path IS NOT NULL);"
			 "DROP TABLE temp.pruned_paths;", 0, 0, 0))
		return db_error(idx, "prune paths");
	g_hash_table_remove_all(idx->paths);
	return 0;
}

int ccsift_index_prune(ccsift_index *idx, GHashTable *keep)
{
	static const char *const del[] = {
		"INSERT OR IGNORE INTO temp.pruned_paths SELECT path FROM touches WHERE cid = ?1",
		"INSERT OR IGNORE INTO temp.pruned_paths SELECT old_path FROM touches WHERE cid = ?1"
		" AND old_path IS NOT NULL",
		"DELETE FROM touches WHERE cid = ?1",
		"DELETE FROM credits WHERE cid = ?1",
		"DELETE FROM commits WHERE id = ?1",
	};
	sqlite3_stmt *s;
	g_autoptr(GArray) gone = g_array_new(FALSE, FALSE, sizeof(int64_t));
	int rc = 0;

	if (sqlite3_prepare_v2(idx->db, "SELECT id, oid FROM commits", -1, &s, NULL))
		return db_error(idx, "prune");
	while (row(idx, s)) {
		if (!g_hash_table_contains(keep, sqlite3_column_text(s, 1))) {
			int64_t id = sqlite3_column_int64(s, 0);
			g_array_append_val(gone, id);
		}
	}
	sqlite3_finalize(s);
	if (gone->len && sqlite3_exec(idx->db, "CREATE TEMP TABLE IF NOT EXISTS pruned_paths(id INTEGER PRIMARY KEY);"
				      "DELETE FROM temp.pruned_paths;", 0, 0, 0))
		return db_error(idx, "prune");
	for (size_t j = 0; j < G_N_ELEMENTS(del) && gone->len && !rc; j++) {
		sqlite3_stmt *d;

		if (sqlite3_prepare_v2(idx->db, del[j], -1, &d, NULL))
			return db_error(idx, "prune");
		for (guint i = 0; i < gone->len && !rc; i++) {
			sqlite3_bind_int64(d, 1, g_array_index(gone, int64_t, i));
			if (sqlite3_step(d) != SQLITE_DONE)
				rc = db_error(idx, "prune");
			sqlite3_reset(d);
		}
		sqlite3_finalize(d);
	}
	if (!rc && gone->len && (rc = forget_untouched_paths(idx)) == 0 &&
	    (rc = ccsift_index_forget_uncredited(idx)) == 0)
		rc = forget_derived(idx);
	return rc < 0 ? rc : (int)gone->len;
}

int ccsift_index_forget_commits(ccsift_index *idx)
{
	/* The people and paths too: the build that follows makes them as a
	 * first one (names, and no path of a commit gone). */
	if (sqlite3_exec(idx->db, "DELETE FROM touches; DELETE FROM credits; DELETE FROM commits; DELETE FROM aliases;"
			 " DELETE FROM people; DELETE FROM paths;", 0, 0, 0))
		return db_error(idx, "forget");
	g_hash_table_remove_all(idx->people);
	g_hash_table_remove_all(idx->paths);
	return forget_derived(idx);
}

int ccsift_index_each_commit(ccsift_index *idx, void (*fn)(int64_t cid, const char *oid, void *data), void *data)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(idx->db, "SELECT id, oid FROM commits ORDER BY ctime DESC, id", -1, &s, NULL))
		return db_error(idx, "list commits");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		fn(sqlite3_column_int64(s, 0), (const char *)sqlite3_column_text(s, 1), data);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : db_error(idx, "list commits");
}

int ccsift_index_replace_people(ccsift_index *idx, int64_t cid, const ccsift_commit_record *rec)
{
	g_autofree int64_t *people = g_new(int64_t, rec->credits->len);
	sqlite3_stmt *forget = stmt(idx, ST_CREDITS_FORGET), *set = stmt(idx, ST_COMMIT_PEOPLE);
	int64_t author, committer;

	if (!forget || !set)
		return -1;
	sqlite3_bind_int64(forget, 1, cid);
	if (step_done(idx, forget, "forget credits") < 0 || intern_people(idx, rec, people, &author, &committer) < 0)
		return -1;
	sqlite3_bind_int64(set, 1, cid);
	sqlite3_bind_int64(set, 2, author);
	sqlite3_bind_int64(set, 3, committer);
	sqlite3_bind_int(set, 4, rec->flags);
	if (step_done(idx, set, "set people") < 0)
		return -1;
	return add_credits(idx, cid, rec, people);
}

int ccsift_index_forget_people(ccsift_index *idx)
{
	if (sqlite3_exec(idx->db, "DELETE FROM aliases;", 0, 0, 0))
		return db_error(idx, "forget people");
	return forget_derived(idx);
}

/* A person is made by a credit, and a fresh build has nobody else: one
 * no credit names any more (a .mailmap's identity taken back) would
 * still be a namesake, and lend its name's history to an address. (The
 * credits' key leads with the person: a lookup each.) */
int ccsift_index_forget_uncredited(ccsift_index *idx)
{
	if (sqlite3_exec(idx->db, "DELETE FROM people WHERE NOT EXISTS"
			 " (SELECT 1 FROM credits r WHERE r.person = people.id)", 0, 0, 0))
		return db_error(idx, "forget people");
	if (sqlite3_changes(idx->db) > 0)
		g_hash_table_remove_all(idx->people);
	return 0;
}

/* A commit's columns from first on, as ST_COMMIT_ROW gives them. */
static void commit_columns(sqlite3_stmt *s, int first, ccsift_touch *t)
{
	t->oid = (const char *)sqlite3_column_text(s, first);
	t->subject = (const char *)sqlite3_column_text(s, first + 1);
	t->atime = sqlite3_column_int64(s, first + 2);
	t->ctime = sqlite3_column_int64(s, first + 3);
	t->author = sqlite3_column_int64(s, first + 4);
	t->committer = sqlite3_column_int64(s, first + 5);
	t->nfiles = sqlite3_column_int(s, first + 6);
	t->ntop = sqlite3_column_int(s, first + 7);
	t->flags = sqlite3_column_int(s, first + 8);
}

/* A touch's columns from first on: status, path, old path, lines. */
static void touch_columns(sqlite3_stmt *s, int first, ccsift_touch *t)
{
	t->status = sqlite3_column_text(s, first) ? sqlite3_column_text(s, first)[0] : 'M';
	t->path = (const char *)sqlite3_column_text(s, first + 1);
	t->old_path = (const char *)sqlite3_column_text(s, first + 2);
	t->added = sqlite3_column_type(s, first + 3) == SQLITE_NULL ? -1 : sqlite3_column_int(s, first + 3);
	t->removed = sqlite3_column_type(s, first + 4) == SQLITE_NULL ? -1 : sqlite3_column_int(s, first + 4);
}

/* Step s to its end, or until fn says stop. Its rows are the commit id,
 * the commit's columns, the touch's and the roles if asked (ST_TOUCHES,
 * ST_SIBLINGS). With commit (ST_COMMIT_ROW) they are the id, the touch's
 * and the roles (ST_SIBLING_ROWS): the commit is read for a row with
 * roles only, the rest carry none of it. */
static int run_touches(ccsift_index *idx, sqlite3_stmt *s, sqlite3_stmt *commit, ccsift_touch_fn fn,
		       void *payload)
{
	int touch = commit ? 1 : 10, rc = 0, step;

	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		ccsift_touch t = {
			.cid = sqlite3_column_int64(s, 0),
			.roles = sqlite3_column_count(s) > touch + 5 ? sqlite3_column_int(s, touch + 5) : -1,
		};

		touch_columns(s, touch, &t);
		if (!commit) {
			commit_columns(s, 1, &t);
		} else if (t.roles) {
			sqlite3_bind_int64(commit, 1, t.cid);
			if (sqlite3_step(commit) != SQLITE_ROW) {
				rc = db_error(idx, "read a commit");
				break;
			}
			commit_columns(commit, 0, &t);
		}
		rc = fn(&t, payload);
		if (commit)
			sqlite3_reset(commit);  /* after fn: its texts are the row's */
		if (rc != 0)
			break;
	}
	if (rc == 0 && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = db_error(idx, "read touches");
	if (commit)
		sqlite3_reset(commit);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc;
}

int ccsift_index_foreach_touch(ccsift_index *idx, const char *path, int64_t before,
			       ccsift_touch_fn fn, void *payload)
{
	sqlite3_stmt *s = stmt(idx, ST_TOUCHES);

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, before);
	return run_touches(idx, s, NULL, fn, payload);
}

int ccsift_index_foreach_sibling_touch(ccsift_index *idx, const char *dir, const char *except,
				       int64_t before, ccsift_touch_fn fn, void *payload)
{
	sqlite3_stmt *s = stmt(idx, ST_SIBLINGS);

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, except ? except : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, before);
	return run_touches(idx, s, NULL, fn, payload);
}

/* ST_TOUCHES or ST_SIBLINGS (which = 0, 1) with one more column: the role
 * bits of the people, by a point lookup in credits' primary key. Prepared
 * once per number of people. */
static sqlite3_stmt *walk_for(ccsift_index *idx, int which, GArray *people)
{
	static const int base_of[] = { ST_TOUCHES, ST_SIBLINGS, ST_SIBLING_ROWS };
	static const int first_of[] = { 3, 4, 3 };
	g_autoptr(GString) sql = NULL;
	const char *base = statements[base_of[which]], *from = strstr(base, " FROM ");
	const char *cid = which == 2 ? "t.cid" : "c.id";
	int first = first_of[which];

	if (idx->walk_st[which] && idx->walk_n[which] == people->len)
		return idx->walk_st[which];
	g_clear_pointer(&idx->walk_st[which], sqlite3_finalize);
	sql = g_string_new_len(base, from - base);
	/* A person has a role once per commit (the primary key): the sum of
	 * their 1 << role is the OR; several people's are OR'ed. */
	g_string_append(sql, ", 0");
	for (guint i = 0; i < people->len; i++)
		g_string_append_printf(sql, " | coalesce((SELECT sum(1 << r.role) FROM credits r"
				       " WHERE r.person = ?%u AND r.cid = %s), 0)", first + i, cid);
	g_string_append(sql, from);
	if (sqlite3_prepare_v3(idx->db, sql->str, -1, SQLITE_PREPARE_PERSISTENT, &idx->walk_st[which], NULL)) {
		db_error(idx, "prepare walk");
		return NULL;
	}
	idx->walk_n[which] = people->len;
	return idx->walk_st[which];
}

static void bind_people(sqlite3_stmt *s, int first, GArray *people)
{
	for (guint i = 0; i < people->len; i++)
		sqlite3_bind_int64(s, first + i, g_array_index(people, int64_t, i));
}

int ccsift_index_foreach_touch_for(ccsift_index *idx, const char *path, int64_t before, GArray *people,
				   ccsift_touch_fn fn, void *payload)
{
	sqlite3_stmt *s = walk_for(idx, 0, people);

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, before);
	bind_people(s, 3, people);
	return run_touches(idx, s, NULL, fn, payload);
}

int ccsift_index_foreach_sibling_touch_for(ccsift_index *idx, const char *dir, const char *except,
					   int64_t before, GArray *people, ccsift_touch_fn fn, void *payload)
{
	sqlite3_stmt *s = walk_for(idx, 1, people);

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, except ? except : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, before);
	bind_people(s, 4, people);
	return run_touches(idx, s, NULL, fn, payload);
}

/* The newest committer time indexed, -1 when none (or unread). */
static int64_t newest_time(ccsift_index *idx)
{
	sqlite3_stmt *s = stmt(idx, ST_NEWEST_TIME);
	int64_t t = -1;

	if (!s)
		return t;
	if (row(idx, s) && sqlite3_column_type(s, 0) != SQLITE_NULL)
		t = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return t;
}

int ccsift_index_foreach_sibling_evidence_for(ccsift_index *idx, const char *dir, const char *except,
					      int64_t before, GArray *people, ccsift_touch_fn fn, void *payload)
{
	sqlite3_stmt *s, *commit;
	int64_t newest;

	/* As of a time some commits are not before, rows drop out by time:
	 * that takes every row's commit. */
	if (!people->len || (newest = newest_time(idx)) < 0 || before <= newest)
		return ccsift_index_foreach_sibling_touch_for(idx, dir, except, before, people, fn, payload);
	if (!(s = walk_for(idx, 2, people)) || !(commit = stmt(idx, ST_COMMIT_ROW)))
		return -1;
	sqlite3_bind_text(s, 1, dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, except ? except : "", -1, SQLITE_STATIC);
	bind_people(s, 3, people);
	return run_touches(idx, s, commit, fn, payload);
}

int ccsift_index_foreach_sibling_row(ccsift_index *idx, const char *dir, ccsift_touch_fn fn, void *payload)
{
	sqlite3_stmt *s = stmt(idx, ST_SIBLING_ROWS);
	int rc = 0, step;

	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, dir, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, "", -1, SQLITE_STATIC);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		ccsift_touch t = { .cid = sqlite3_column_int64(s, 0), .roles = -1 };

		touch_columns(s, 1, &t);
		if ((rc = fn(&t, payload)) != 0)
			break;
	}
	if (rc == 0 && step != SQLITE_DONE)
		rc = db_error(idx, "read touches");
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc;
}

GArray *ccsift_index_commit_times(ccsift_index *idx)
{
	int64_t top = max_commit_id(idx);
	GArray *times;
	sqlite3_stmt *s;
	int step;

	if (top < 0 || top >= G_MAXUINT || sqlite3_prepare_v2(idx->db, "SELECT id, ctime FROM commits", -1, &s, NULL)) {
		db_error(idx, "read commit times");
		return NULL;
	}
	times = g_array_set_size(g_array_sized_new(FALSE, TRUE, sizeof(int64_t), (guint)top + 1), (guint)top + 1);
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);

		if (id >= 0 && id <= top)
			g_array_index(times, int64_t, id) = sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	if (step != SQLITE_DONE) {
		db_error(idx, "read commit times");
		g_array_unref(times);
		return NULL;
	}
	return times;
}

int ccsift_index_commit_read(ccsift_index *idx, int64_t cid, ccsift_touch_fn fn, void *payload)
{
	sqlite3_stmt *s = stmt(idx, ST_COMMIT_ROW);
	ccsift_touch t = { .cid = cid, .roles = -1, .added = -1, .removed = -1 };
	int rc, step;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, cid);
	if ((step = sqlite3_step(s)) == SQLITE_ROW) {
		commit_columns(s, 0, &t);
		rc = fn(&t, payload);
	} else {
		rc = step == SQLITE_DONE ? 1 : db_error(idx, "read a commit");
	}
	sqlite3_reset(s);
	return rc;
}

gboolean ccsift_index_read_begin(ccsift_index *idx)
{
	if (idx->mode != CCSIFT_INDEX_READ_ONLY || !sqlite3_get_autocommit(idx->db))
		return FALSE;
	return sqlite3_exec(idx->db, "BEGIN", 0, 0, 0) == SQLITE_OK;
}

gboolean ccsift_index_snapshot_begin(ccsift_index *idx)
{
	if (!sqlite3_get_autocommit(idx->db))
		return FALSE;
	return sqlite3_exec(idx->db, "BEGIN", 0, 0, 0) == SQLITE_OK;
}

int64_t ccsift_index_data_version(ccsift_index *idx)
{
	sqlite3_stmt *s = stmt(idx, ST_DATA_VERSION);
	int64_t v = -1;

	if (!s)
		return -1;
	if (row(idx, s))
		v = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return v;
}

void ccsift_index_read_end(ccsift_index *idx, gboolean began)
{
	if (began && !sqlite3_get_autocommit(idx->db))
		sqlite3_exec(idx->db, "COMMIT", 0, 0, 0);
}

int ccsift_index_commit_credits(ccsift_index *idx, int64_t cid, GArray *out)
{
	sqlite3_stmt *s = stmt(idx, ST_CREDITS);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, cid);
	while (row(idx, s)) {
		ccsift_credit c = { sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1) };
		g_array_append_val(out, c);
	}
	sqlite3_reset(s);
	return 0;
}

int ccsift_index_foreach_person_credit(ccsift_index *idx, int64_t person, ccsift_person_credit_fn fn,
					void *payload)
{
	sqlite3_stmt *s;
	int rc = 0, step;

	if (sqlite3_prepare_v2(idx->db, "SELECT cid, role FROM credits WHERE person = ?1", -1, &s, NULL))
		return db_error(idx, "credits");
	sqlite3_bind_int64(s, 1, person);
	while ((step = sqlite3_step(s)) == SQLITE_ROW)
		if ((rc = fn(sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1), payload)) != 0)
			break;
	if (rc == 0 && step != SQLITE_DONE)
		rc = db_error(idx, "credits");
	sqlite3_finalize(s);
	return rc;
}

static int add_role(int64_t cid, int role, void *roles)
{
	unsigned bits = GPOINTER_TO_UINT(g_hash_table_lookup(roles, &cid));

	g_hash_table_insert(roles, g_memdup2(&cid, sizeof(cid)), GUINT_TO_POINTER(bits | 1u << role));
	return 0;
}

int ccsift_index_person_credits(ccsift_index *idx, int64_t person, GHashTable *roles)
{
	return ccsift_index_foreach_person_credit(idx, person, add_role, roles);
}

unsigned ccsift_index_person_roles(ccsift_index *idx, int64_t cid, int64_t person)
{
	sqlite3_stmt *s = stmt(idx, ST_ROLES);
	unsigned roles = 0;

	if (!s)
		return 0;
	sqlite3_bind_int64(s, 1, person);
	sqlite3_bind_int64(s, 2, cid);
	while (row(idx, s))
		roles |= 1u << sqlite3_column_int(s, 0);
	sqlite3_reset(s);
	return roles;
}

static char *query_text(ccsift_index *idx, const char *sql, int64_t id, const char *text)
{
	sqlite3_stmt *s;
	char *v = NULL;

	if (sqlite3_prepare_v2(idx->db, sql, -1, &s, NULL))
		return NULL;
	if (text)
		sqlite3_bind_text(s, 1, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(s, 1, id);
	if (row(idx, s) && sqlite3_column_text(s, 0))
		v = g_strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return v;
}

int ccsift_index_count_engagement(ccsift_index *idx, int64_t person, int64_t after, int64_t before,
				  unsigned limit)
{
	sqlite3_stmt *s;
	int n = 0;

	/* From the commits of the window: a busy person has more credits than a window has commits. */
	if (sqlite3_prepare_v2(idx->db, "SELECT 1 FROM commits c JOIN credits r ON r.person = ?1 AND r.cid = c.id"
			       " WHERE c.ctime >= ?2 AND c.ctime < ?3"
			       " AND (r.role IN (2, 3, 4) OR (r.role = 1 AND c.author <> ?1)) LIMIT ?4", -1, &s, NULL))
		return db_error(idx, "engagement");
	sqlite3_bind_int64(s, 1, person);
	sqlite3_bind_int64(s, 2, after);
	sqlite3_bind_int64(s, 3, before);
	sqlite3_bind_int64(s, 4, limit);
	while (row(idx, s))
		n++;
	sqlite3_finalize(s);
	return n;
}

int64_t ccsift_index_person_id(ccsift_index *idx, const char *email)
{
	g_autofree char *lower = g_ascii_strdown(email, -1);
	sqlite3_stmt *s = idx->st[ST_PERSON_GET];
	int64_t id = -1;

	sqlite3_bind_text(s, 1, lower, -1, SQLITE_STATIC);
	if (row(idx, s))
		id = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return id;
}

char *ccsift_index_alias(ccsift_index *idx, const char *email)
{
	g_autofree char *lower = g_ascii_strdown(email, -1);
	sqlite3_stmt *s = idx->st[ST_ALIAS_GET];
	char *v = NULL;

	sqlite3_bind_text(s, 1, lower, -1, SQLITE_STATIC);
	if (row(idx, s))
		v = g_strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_reset(s);
	return v;
}

int ccsift_index_aliases_of(ccsift_index *idx, const char *canonical, GPtrArray *out)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(idx->db, "SELECT email FROM aliases WHERE canonical = ?1", -1, &s, NULL))
		return db_error(idx, "aliases");
	sqlite3_bind_text(s, 1, canonical, -1, SQLITE_STATIC);
	while (row(idx, s))
		g_ptr_array_add(out, g_strdup((const char *)sqlite3_column_text(s, 0)));
	sqlite3_finalize(s);
	return 0;
}

char *ccsift_index_person_email(ccsift_index *idx, int64_t person)
{
	return query_text(idx, "SELECT email FROM people WHERE id = ?1", person, NULL);
}

char *ccsift_index_person_name(ccsift_index *idx, int64_t person)
{
	return query_text(idx, "SELECT name FROM people WHERE id = ?1", person, NULL);
}

#define NAMESAKES_MAX 32

/* A name that says who someone is: two words at least, no address. */
static gboolean full_name(const char *name)
{
	unsigned words = 0;
	gboolean in_word = FALSE;

	if (!name || strchr(name, '@'))
		return FALSE;
	for (const char *c = name; *c; c++) {
		gboolean space = g_ascii_isspace(*c);

		words += !space && !in_word;
		in_word = !space;
	}
	return words >= 2;
}

/* ccsift_index_namesakes, and the name they share (NULL when it is not a
 * full name, or shared by too many). */
static int namesakes(ccsift_index *idx, int64_t person, GArray *out, char **shared)
{
	g_autofree char *name = person >= 0 ? ccsift_index_person_name(idx, person) : NULL;
	sqlite3_stmt *s;

	g_array_set_size(out, 0);
	*shared = NULL;
	if (person < 0)
		return 0;
	if (full_name(name) && (s = stmt(idx, ST_NAMESAKES))) {
		sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_int(s, 2, NAMESAKES_MAX + 1);
		while (row(idx, s)) {
			int64_t id = sqlite3_column_int64(s, 0);

			g_array_append_val(out, id);
		}
		sqlite3_reset(s);
	}
	/* More addresses than anyone has (xen's busiest name: 15) is a name
	 * many share ("Your Name"), not a person: and a scorer's work grows
	 * with the addresses it is given. */
	if (out->len > NAMESAKES_MAX)
		g_array_set_size(out, 0);
	if (!out->len)
		g_array_append_val(out, person);
	else
		*shared = g_steal_pointer(&name);
	return 0;
}

int ccsift_index_namesakes(ccsift_index *idx, int64_t person, GArray *out)
{
	g_autofree char *name = NULL;

	return namesakes(idx, person, out, &name);
}

char *ccsift_index_namesake_key(ccsift_index *idx, int64_t person)
{
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	g_autofree char *name = NULL;

	if (namesakes(idx, person, ids, &name) < 0 || ids->len < 2)
		return NULL;
	return g_ascii_strdown(name, -1);
}

int ccsift_index_commit_text(ccsift_index *idx, int64_t cid, char **oid, char **subject)
{
	sqlite3_stmt *s = stmt(idx, ST_COMMIT_TEXT);
	int rc = CCSIFT_ENOTFOUND;

	*oid = *subject = NULL;
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, cid);
	if (row(idx, s)) {
		*oid = g_strdup((const char *)sqlite3_column_text(s, 0));
		*subject = g_strdup((const char *)sqlite3_column_text(s, 1));
		rc = 0;
	}
	sqlite3_reset(s);
	return rc;
}

int ccsift_index_find_commit(ccsift_index *idx, const char *hex, int64_t *cid, int64_t *author)
{
	sqlite3_stmt *s;
	g_autofree char *lo = g_ascii_strdown(hex, -1);
	g_autofree char *hi = g_strconcat(lo, "g", NULL);
	int rc = CCSIFT_ENOTFOUND, rows = 0;

	if (strlen(lo) < 7)
		return rc;
	if (sqlite3_prepare_v2(idx->db, "SELECT id, author FROM commits WHERE oid >= ?1 AND oid < ?2 LIMIT 2",
			       -1, &s, NULL))
		return db_error(idx, "find commit");
	sqlite3_bind_text(s, 1, lo, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, hi, -1, SQLITE_STATIC);
	while (row(idx, s)) {
		*cid = sqlite3_column_int64(s, 0);
		*author = sqlite3_column_int64(s, 1);
		rows++;
	}
	sqlite3_finalize(s);
	if (rows == 1)
		rc = 0;
	return rc;
}

char *ccsift_index_commit_before(ccsift_index *idx, int64_t before)
{
	sqlite3_stmt *s;
	char *oid = NULL;

	/* Through commits_ctime; asked once per --as-of, never on a delivery
	 * of the present. */
	if (sqlite3_prepare_v2(idx->db, "SELECT oid FROM commits WHERE ctime < ?1 ORDER BY ctime DESC, id DESC LIMIT 1",
			       -1, &s, NULL))
		return NULL;
	sqlite3_bind_int64(s, 1, before);
	if (row(idx, s))
		oid = g_strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return oid;
}

char *ccsift_index_resolve_tail(ccsift_index *idx, const char *tail, gboolean partial)
{
	g_autofree char *pattern = NULL;
	g_autoptr(GString) escaped = g_string_new(NULL);
	sqlite3_stmt *s;
	char *found = NULL;

	for (const char *p = tail; *p; p++) {
		if (*p == '%' || *p == '_' || *p == '\\')
			g_string_append_c(escaped, '\\');
		g_string_append_c(escaped, *p);
	}
	pattern = g_strconcat(partial ? "%" : "%/", escaped->str, NULL);
	/* Most recently touched wins: the diffstat was made against a recent
	 * tree; a tie goes to the lowest commit and path ids, the order the
	 * planner's scan of touches_cid once gave it. The paths are matched
	 * first (CROSS JOIN fixes the order): left to itself the planner read
	 * every touch and looked each one's path up, 30x slower. */
	if (sqlite3_prepare_v2(idx->db,
			       "SELECT p.path FROM paths p CROSS JOIN touches t ON t.path = p.id"
			       " CROSS JOIN commits c ON c.id = t.cid"
			       " WHERE (p.path LIKE ?1 ESCAPE '\\' OR p.path = ?2)"
			       " ORDER BY c.ctime DESC, t.cid, t.path LIMIT 1", -1, &s, NULL))
		return NULL;
	sqlite3_bind_text(s, 1, pattern, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, tail, -1, SQLITE_STATIC);
	if (row(idx, s))
		found = g_strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return found;
}

gboolean ccsift_index_has_path(ccsift_index *idx, const char *path)
{
	return has_row(idx, ST_PATH_GET, path);
}

#define MAINTAINERS_META "maintainers-sections"

int ccsift_index_maintainers_clear(ccsift_index *idx)
{
	if (sqlite3_exec(idx->db,
			 "CREATE TABLE IF NOT EXISTS maintainer_sections(no INTEGER PRIMARY KEY, text TEXT NOT NULL);"
			 "CREATE TABLE IF NOT EXISTS maintainer_emails(email TEXT, no INTEGER,"
			 "  PRIMARY KEY(email, no)) WITHOUT ROWID;"
			 "CREATE TABLE IF NOT EXISTS maintainer_aliases(email TEXT PRIMARY KEY,"
			 "  canonical TEXT NOT NULL) WITHOUT ROWID;"
			 "DELETE FROM maintainer_sections; DELETE FROM maintainer_emails;"
			 "DELETE FROM maintainer_aliases;", 0, 0, 0))
		return db_error(idx, "maintainers");
	return ccsift_index_meta_delete(idx, MAINTAINERS_META);
}

int ccsift_index_maintainers_add(ccsift_index *idx, unsigned no, const char *text, const char *const *emails)
{
	sqlite3_stmt *s, *e;
	int rc = 0;

	if (sqlite3_prepare_v2(idx->db, "INSERT INTO maintainer_sections(no, text) VALUES (?1, ?2)", -1, &s, NULL))
		return db_error(idx, "maintainers");
	if (sqlite3_prepare_v2(idx->db, "INSERT OR IGNORE INTO maintainer_emails(email, no) VALUES (?1, ?2)",
			       -1, &e, NULL)) {
		sqlite3_finalize(s);
		return db_error(idx, "maintainers");
	}
	sqlite3_bind_int64(s, 1, no);
	sqlite3_bind_text(s, 2, text, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = db_error(idx, "maintainers");
	for (const char *const *m = emails; !rc && *m; m++) {
		sqlite3_bind_text(e, 1, *m, -1, SQLITE_STATIC);
		sqlite3_bind_int64(e, 2, no);
		if (sqlite3_step(e) != SQLITE_DONE)
			rc = db_error(idx, "maintainers");
		sqlite3_reset(e);
	}
	sqlite3_finalize(s);
	sqlite3_finalize(e);
	return rc;
}

int ccsift_index_maintainers_alias(ccsift_index *idx, unsigned no, const char *email, const char *canonical)
{
	sqlite3_stmt *e, *a;
	int rc = 0;

	if (sqlite3_prepare_v2(idx->db, "INSERT OR IGNORE INTO maintainer_emails(email, no) VALUES (?1, ?2)",
			       -1, &e, NULL))
		return db_error(idx, "maintainers");
	if (sqlite3_prepare_v2(idx->db, "INSERT OR IGNORE INTO maintainer_aliases(email, canonical) VALUES (?1, ?2)",
			       -1, &a, NULL)) {
		sqlite3_finalize(e);
		return db_error(idx, "maintainers");
	}
	sqlite3_bind_text(e, 1, canonical, -1, SQLITE_STATIC);
	sqlite3_bind_int64(e, 2, no);
	sqlite3_bind_text(a, 1, email, -1, SQLITE_STATIC);
	sqlite3_bind_text(a, 2, canonical, -1, SQLITE_STATIC);
	if (sqlite3_step(e) != SQLITE_DONE || sqlite3_step(a) != SQLITE_DONE)
		rc = db_error(idx, "maintainers");
	sqlite3_finalize(e);
	sqlite3_finalize(a);
	return rc;
}

gboolean ccsift_index_maintainer_aliases(ccsift_index *idx, GHashTable *out)
{
	sqlite3_stmt *s;

	/* (an index from before the table: none, until it is stored again) */
	if (sqlite3_prepare_v2(idx->db, "SELECT email, canonical FROM maintainer_aliases", -1, &s, NULL))
		return FALSE;
	while (row(idx, s))
		g_hash_table_insert(out, g_strdup((const char *)sqlite3_column_text(s, 0)),
				    g_strdup((const char *)sqlite3_column_text(s, 1)));
	sqlite3_finalize(s);
	return TRUE;
}

int ccsift_index_maintainers_done(ccsift_index *idx, int64_t key)
{
	return meta_set_int(idx, MAINTAINERS_META, key);
}

static int by_uint(gconstpointer a, gconstpointer b)
{
	guint x = *(const guint *)a, y = *(const guint *)b;

	return x < y ? -1 : x > y;
}

char *ccsift_index_maintainers_naming(ccsift_index *idx, GHashTable *emails)
{
	g_autoptr(GArray) nos = g_array_new(FALSE, FALSE, sizeof(guint));
	g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);
	GString *out;
	sqlite3_stmt *s, *t;
	GHashTableIter it;
	gpointer email;

	if (meta_int(idx, MAINTAINERS_META) != ccsift_index_paths_top(idx) ||
	    sqlite3_prepare_v2(idx->db, "SELECT no FROM maintainer_emails WHERE email = ?1", -1, &s, NULL))
		return NULL;
	g_hash_table_iter_init(&it, emails);
	while (g_hash_table_iter_next(&it, &email, NULL)) {
		g_autofree char *lower = g_ascii_strdown(email, -1);
		const char *both[] = { email, lower };
		int variants = strcmp(email, lower) ? 2 : 1;  /* the same rows twice otherwise */

		for (int k = 0; k < variants; k++) {
			sqlite3_bind_text(s, 1, both[k], -1, SQLITE_STATIC);
			while (row(idx, s)) {
				guint no = sqlite3_column_int(s, 0);

				if (g_hash_table_add(seen, GUINT_TO_POINTER(no + 1)))
					g_array_append_val(nos, no);
			}
			sqlite3_reset(s);
		}
	}
	sqlite3_finalize(s);
	g_array_sort(nos, by_uint);
	if (sqlite3_prepare_v2(idx->db, "SELECT text FROM maintainer_sections WHERE no = ?1", -1, &t, NULL))
		return NULL;
	out = g_string_new(NULL);
	for (guint i = 0; i < nos->len; i++) {
		sqlite3_bind_int64(t, 1, g_array_index(nos, guint, i));
		if (row(idx, t))
			g_string_append(out, (const char *)sqlite3_column_text(t, 0));
		sqlite3_reset(t);
	}
	sqlite3_finalize(t);
	return g_string_free(out, FALSE);
}

static int64_t max_id(ccsift_index *idx, int which);

int64_t ccsift_index_paths_top(ccsift_index *idx)
{
	return max_id(idx, 1);
}

gboolean ccsift_index_is_dir(ccsift_index *idx, const char *dir)
{
	sqlite3_stmt *s = idx->is_dir_st;
	g_autofree char *lo = g_strconcat(dir, "/", NULL);
	g_autofree char *hi = g_strconcat(dir, "0", NULL);  /* '0' follows '/' */
	gboolean found = FALSE;

	/* Asked once per MAINTAINERS pattern (thousands): prepared once. */
	if (!s && sqlite3_prepare_v3(idx->db, "SELECT 1 FROM paths WHERE path >= ?1 AND path < ?2 LIMIT 1",
				     -1, SQLITE_PREPARE_PERSISTENT, &idx->is_dir_st, NULL))
		return FALSE;
	s = idx->is_dir_st;
	sqlite3_bind_text(s, 1, lo, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, hi, -1, SQLITE_STATIC);
	found = row(idx, s);
	sqlite3_reset(s);
	return found;
}

void ccsift_index_cache_lines(ccsift_index *idx, int64_t cid, const char *path, int added, int removed)
{
	pending_lines p = { cid, g_strdup(path), added, removed };

	g_array_append_val(idx->pending, p);
	if (idx->mode == CCSIFT_INDEX_READ_WRITE && idx->pending->len >= 1024)
		ccsift_index_flush_lines(idx);
}

static void write_lines(ccsift_index *idx, sqlite3 *db, sqlite3_stmt *s, sqlite3_stmt *hot)
{
	for (guint i = 0; i < idx->pending->len; i++) {
		pending_lines *p = &g_array_index(idx->pending, pending_lines, i);

		for (sqlite3_stmt *u = s; u; u = u == s ? hot : NULL) {
			sqlite3_bind_int64(u, 1, p->cid);
			sqlite3_bind_text(u, 2, p->path, -1, SQLITE_STATIC);
			sqlite3_bind_int(u, 3, p->added);
			sqlite3_bind_int(u, 4, p->removed);
			sqlite3_step(u);
			sqlite3_reset(u);
		}
	}
}

void ccsift_index_flush_lines(ccsift_index *idx)
{
	sqlite3 *db = idx->db;
	sqlite3_stmt *s = NULL;
	gboolean own = FALSE;

	if (!idx->pending->len)
		return;
	if (idx->mode == CCSIFT_INDEX_READ_ONLY) {
		/* A reader writes the cache only if that costs no waiting. */
		if (sqlite3_open_v2(idx->path, &db, SQLITE_OPEN_READWRITE, NULL)) {
			sqlite3_close(db);
			goto out;
		}
		own = TRUE;
		sqlite3_busy_timeout(db, 50);
	}
	if (sqlite3_prepare_v2(db, statements[ST_LINES_SET], -1, &s, NULL) == SQLITE_OK) {
		gboolean in_txn = !sqlite3_get_autocommit(db);
		sqlite3_stmt *hot = NULL;

		/* hot_credits copies the counts: kept in step (none before it exists). */
		if (sqlite3_prepare_v2(db, "UPDATE hot_credits SET added = ?3, removed = ?4"
				       " WHERE path = (SELECT id FROM paths WHERE path = ?2) AND cid = ?1",
				       -1, &hot, NULL) != SQLITE_OK)
			hot = NULL;
		if (in_txn || sqlite3_exec(db, "BEGIN IMMEDIATE", 0, 0, 0) == SQLITE_OK) {
			write_lines(idx, db, s, hot);
			if (!in_txn && sqlite3_exec(db, "COMMIT", 0, 0, 0))
				sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
		}
		sqlite3_finalize(hot);
		sqlite3_finalize(s);
	}
	if (own)
		sqlite3_close(db);
out:
	for (guint i = 0; i < idx->pending->len; i++)
		g_free(g_array_index(idx->pending, pending_lines, i).path);
	g_array_set_size(idx->pending, 0);
}

int64_t ccsift_index_count(ccsift_index *idx, const char *table)
{
	g_autofree char *sql = g_strdup_printf("SELECT count(*) FROM %s", table);
	sqlite3_stmt *s;
	int64_t n = -1;

	if (sqlite3_prepare_v2(idx->db, sql, -1, &s, NULL))
		return -1;
	if (row(idx, s))
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

int ccsift_index_check(ccsift_index *idx)
{
	sqlite3_stmt *s;
	g_autofree char *first = NULL;
	int rc;

	if (sqlite3_prepare_v2(idx->db, "PRAGMA quick_check(1)", -1, &s, NULL))
		return db_error(idx, "check");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		first = g_strdup((const char *)sqlite3_column_text(s, 0));
	else if (rc != SQLITE_DONE)
		rc = db_error(idx, "check");
	sqlite3_finalize(s);
	if (rc < 0)
		return rc;
	/* "*** in database main ***\nPage 18: ...": the fault is the last line */
	if (first && strcmp(first, "ok") != 0)
		return ccsift_error_set(CCSIFT_ECORRUPT, "index %s: damaged: %.100s", idx->path,
					strrchr(first, '\n') ? strrchr(first, '\n') + 1 : first);
	return 0;
}

static void read_commit_info(sqlite3_stmt *s, GArray *out)
{
	ccsift_commit_info c = {
		.cid = sqlite3_column_int64(s, 0),
		.atime = sqlite3_column_int64(s, 2),
		.ctime = sqlite3_column_int64(s, 3),
		.author = sqlite3_column_int64(s, 4),
		.committer = sqlite3_column_int64(s, 5),
		.nfiles = sqlite3_column_int(s, 6),
	};

	g_strlcpy(c.oid, (const char *)sqlite3_column_text(s, 1), sizeof(c.oid));
	g_array_append_val(out, c);
}

int ccsift_index_commits_between(ccsift_index *idx, int64_t since, int64_t until, GArray *out)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(idx->db, "SELECT id, oid, atime, ctime, author, committer, nfiles FROM commits"
			       " WHERE atime >= ?1 AND atime < ?2 ORDER BY id", -1, &s, NULL))
		return db_error(idx, "commits");
	sqlite3_bind_int64(s, 1, since);
	sqlite3_bind_int64(s, 2, until);
	while (row(idx, s))
		read_commit_info(s, out);
	sqlite3_finalize(s);
	return 0;
}

int ccsift_index_commits_credited(ccsift_index *idx, int64_t person, unsigned roles, int64_t after,
				  int64_t before, unsigned limit, GArray *out)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(idx->db, "SELECT DISTINCT c.id, c.oid, c.atime, c.ctime, c.author, c.committer,"
			       " c.nfiles FROM credits r JOIN commits c ON c.id = r.cid"
			       " WHERE r.person = ?1 AND ((1 << r.role) & ?2) != 0"
			       " AND c.ctime >= ?3 AND c.ctime < ?4 ORDER BY c.ctime DESC LIMIT ?5", -1, &s, NULL))
		return db_error(idx, "credited");
	sqlite3_bind_int64(s, 1, person);
	sqlite3_bind_int64(s, 2, roles);
	sqlite3_bind_int64(s, 3, after);
	sqlite3_bind_int64(s, 4, before);
	sqlite3_bind_int64(s, 5, limit);
	while (row(idx, s))
		read_commit_info(s, out);
	sqlite3_finalize(s);
	return 0;
}

int ccsift_index_commit_paths(ccsift_index *idx, int64_t cid, GPtrArray *paths, GPtrArray *sources)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(idx->db, "SELECT p.path, o.path FROM touches t JOIN paths p ON p.id = t.path"
			       " LEFT JOIN paths o ON o.id = t.old_path WHERE t.cid = ?1", -1, &s, NULL))
		return db_error(idx, "paths");
	sqlite3_bind_int64(s, 1, cid);
	while (row(idx, s)) {
		g_ptr_array_add(paths, g_strdup((const char *)sqlite3_column_text(s, 0)));
		g_ptr_array_add(sources, g_strdup((const char *)sqlite3_column_text(s, 1)));
	}
	sqlite3_finalize(s);
	return 0;
}

/* --- what a person did lately, for the model (model.h) --- */

#define ENGAGED_SQL "(r.role IN (2, 3, 4) OR (r.role = 1 AND c.author <> r.person))"
/* The roles ENGAGED_SQL or authoring can hold (0-4), for the engagement
 * table and the year's counts: said before the join, the credits of other
 * roles (Signed-off-by, Reported-by, ...: two fifths of them at Linux's
 * size) are not joined to their commits for nothing. */
#define ENGAGEMENT_ROLES_SQL "r.role <= 4"
/* A person's flags on a commit, over its credits r joined to c grouped by
 * person and commit: 1 engaged (ENGAGED_SQL), 2 wrote it. */
#define ENGAGEMENT_FLAGS_SQL "max(CASE WHEN " ENGAGED_SQL " THEN 1 ELSE 0 END) | (max(r.role = 0) << 1)"
G_STATIC_ASSERT(CCSIFT_ROLE_AUTHOR == 0 && CCSIFT_ROLE_COMMITTER == 1 && CCSIFT_ROLE_REVIEWED == 2 &&
		CCSIFT_ROLE_ACKED == 3 && CCSIFT_ROLE_TESTED == 4);

/* engagement: one row per person and commit they engaged with (ENGAGED_SQL,
 * flag 1) or wrote (flag 2), keyed by person and committer time, so that a
 * person's year is one range of rows however busy they are. Derived from
 * credits and commits by ccsift_index_finish, for the commits with row ids
 * above the ENGAGEMENT_META mark, in the key's order: row ids run from the
 * newest commit, and inserted in that order each row went before the last,
 * which at Linux's size spilled and re-read most of the table's pages (19.7
 * s against 5.6). prune drops the mark (made anew). A reader uses it only
 * if the mark covers every commit. */
static const char engagement_schema[] =
	"CREATE TABLE IF NOT EXISTS engagement(person INTEGER, ctime INTEGER, cid INTEGER, author INTEGER,"
	"  flags INTEGER NOT NULL, PRIMARY KEY(person, ctime, cid)) WITHOUT ROWID;";

/* The greatest row id of commits (which = 0) or paths (1). */
static int64_t max_id(ccsift_index *idx, int which)
{
	static const char *const sql[2] = {
		"SELECT coalesce(max(id), 0) FROM commits", "SELECT coalesce(max(id), 0) FROM paths",
	};
	int64_t top = -1;

	if (!idx->top_st[which] &&
	    sqlite3_prepare_v3(idx->db, sql[which], -1, SQLITE_PREPARE_PERSISTENT, &idx->top_st[which], NULL))
		return -1;
	if (row(idx, idx->top_st[which]))
		top = sqlite3_column_int64(idx->top_st[which], 0);
	sqlite3_reset(idx->top_st[which]);
	return top;
}

static int64_t max_commit_id(ccsift_index *idx)
{
	return max_id(idx, 0);
}

static int engagement_update(ccsift_index *idx)
{
	g_autofree char *mark = ccsift_index_meta_get(idx, ENGAGEMENT_META);
	int64_t from = mark ? g_ascii_strtoll(mark, NULL, 10) : 0, top;
	sqlite3_stmt *s;
	char buf[32];
	int rc;

	if (sqlite3_exec(idx->db, engagement_schema, 0, 0, 0))
		return db_error(idx, "engagement");
	if (!mark && sqlite3_exec(idx->db, "DELETE FROM engagement", 0, 0, 0))
		return db_error(idx, "engagement");
	if ((top = max_commit_id(idx)) < 0)
		return db_error(idx, "engagement");
	if (mark && top <= from)
		return 0;
	if (sqlite3_prepare_v2(idx->db, "INSERT OR REPLACE INTO engagement(person, ctime, cid, author, flags)"
			       " SELECT r.person, c.ctime, r.cid, c.author,"
			       "  " ENGAGEMENT_FLAGS_SQL " AS f"
			       " FROM credits r JOIN commits c ON c.id = r.cid WHERE r.cid > ?1 AND r.cid <= ?2"
			       "  AND " ENGAGEMENT_ROLES_SQL
			       " GROUP BY r.person, r.cid HAVING f <> 0 ORDER BY 1, 2, 3", -1, &s, NULL))
		return db_error(idx, "engagement");
	sqlite3_bind_int64(s, 1, from);
	sqlite3_bind_int64(s, 2, top);
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : db_error(idx, "engagement");
	sqlite3_finalize(s);
	if (rc < 0)
		return rc;
	g_snprintf(buf, sizeof(buf), "%" G_GINT64_FORMAT, top);
	return ccsift_index_meta_set(idx, ENGAGEMENT_META, buf);
}

/* Does the engagement table cover every commit of this snapshot? */
static gboolean engagement_ready(ccsift_index *idx)
{
	g_autofree char *mark = ccsift_index_meta_get(idx, ENGAGEMENT_META);
	int64_t top;

	return mark && (top = max_commit_id(idx)) >= 0 && g_ascii_strtoll(mark, NULL, 10) >= top;
}

/* The engagement table's statement i, kept; an index from before the
 * table asks the credits the same (sql), prepared for this once. */
static sqlite3_stmt *engagement_stmt(ccsift_index *idx, int i, const char *sql)
{
	sqlite3_stmt *s = NULL;

	if (engagement_ready(idx))
		return stmt(idx, i);
	if (sqlite3_prepare_v2(idx->db, sql, -1, &s, NULL) != SQLITE_OK)
		note_fault(idx, "prepare");
	return s;
}

static void engagement_stmt_done(ccsift_index *idx, int i, sqlite3_stmt *s)
{
	if (s != idx->st[i]) {
		sqlite3_finalize(s);
		return;
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

/* One engagement of the year before `before`, committed at ctime, by author `by`. */
static void count_engaged(ccsift_activity *out, int64_t ctime, int64_t by, int64_t author, int64_t before)
{
	out->engaged_365++;
	out->engaged_90 += ctime >= before - 90 * (int64_t)86400;
	out->with_author += author >= 0 && by == author;
}

static int person_activity_engagement(ccsift_index *idx, int64_t person, int64_t author, int64_t before,
				      ccsift_activity *out)
{
	sqlite3_stmt *s = stmt(idx, ST_ACTIVITY);

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, person);
	sqlite3_bind_int64(s, 2, before - 365 * (int64_t)86400);
	sqlite3_bind_int64(s, 3, before);
	while (row(idx, s)) {
		int64_t ctime = sqlite3_column_int64(s, 0), by = sqlite3_column_int64(s, 1);
		int flags = sqlite3_column_int(s, 2);

		out->authored_365 += (flags & 2) != 0;
		if (flags & 1)
			count_engaged(out, ctime, by, author, before);
	}
	sqlite3_reset(s);
	return 0;
}

int ccsift_index_person_activity(ccsift_index *idx, int64_t person, int64_t author, int64_t before,
				 ccsift_activity *out)
{
	sqlite3_stmt *s;
	int64_t last = -1;

	memset(out, 0, sizeof(*out));
	if (year_ready(idx, before))
		return year_activity(idx, person, author, out);
	if (engagement_ready(idx))
		return person_activity_engagement(idx, person, author, before, out);
	/* One pass over the person's credits of the year, newest commit rows
	 * grouped by cid (the primary key's order). */
	if (sqlite3_prepare_v2(idx->db, "SELECT r.cid, r.role, c.author, c.ctime, " ENGAGED_SQL
			       " FROM credits r JOIN commits c ON c.id = r.cid"
			       " WHERE r.person = ?1 AND c.ctime >= ?2 AND c.ctime < ?3", -1, &s, NULL))
		return db_error(idx, "activity");
	sqlite3_bind_int64(s, 1, person);
	sqlite3_bind_int64(s, 2, before - 365 * (int64_t)86400);
	sqlite3_bind_int64(s, 3, before);
	while (row(idx, s)) {
		int64_t cid = sqlite3_column_int64(s, 0);
		int role = sqlite3_column_int(s, 1);
		int64_t by = sqlite3_column_int64(s, 2), ctime = sqlite3_column_int64(s, 3);

		if (role == CCSIFT_ROLE_AUTHOR)
			out->authored_365++;
		if (!sqlite3_column_int(s, 4) || cid == last)
			continue;
		last = cid;
		count_engaged(out, ctime, by, author, before);
	}
	sqlite3_finalize(s);
	return 0;
}

unsigned ccsift_index_count_engaged_with(ccsift_index *idx, int64_t person, int64_t author, int64_t after,
					 int64_t before)
{
	sqlite3_stmt *s;
	unsigned n = 0;

	if (ccsift_index_year_answers(idx, after, before))
		return year_with(idx, person, author);
	if (!(s = engagement_stmt(idx, ST_ENGAGED_WITH,
				  "SELECT count(DISTINCT r.cid) FROM credits r JOIN commits c ON c.id = r.cid"
				  " WHERE r.person = ?1 AND c.author = ?2 AND c.ctime >= ?3 AND c.ctime < ?4"
				  " AND " ENGAGED_SQL)))
		return 0;
	sqlite3_bind_int64(s, 1, person);
	sqlite3_bind_int64(s, 2, author);
	sqlite3_bind_int64(s, 3, after);
	sqlite3_bind_int64(s, 4, before);
	if (row(idx, s))
		n = sqlite3_column_int(s, 0);
	engagement_stmt_done(idx, ST_ENGAGED_WITH, s);
	return n;
}

/* count_engaged_in_dirs from the engagement table: the ids of the paths in
 * dirs, then each engaged commit of the window, newest first, until one of
 * its paths (touches' cid index, which holds the path) is one of them. */
static unsigned engaged_in_dirs(ccsift_index *idx, int64_t person, GPtrArray *dirs, int64_t after,
				int64_t before, unsigned limit)
{
	g_autoptr(GHashTable) paths = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	sqlite3_stmt *s = NULL, *t = NULL;
	unsigned n = 0;

	if (sqlite3_prepare_v2(idx->db, "SELECT id FROM paths WHERE dir = ?1", -1, &s, NULL))
		return 0;
	for (guint i = 0; i < dirs->len; i++) {
		sqlite3_bind_text(s, 1, dirs->pdata[i], -1, SQLITE_STATIC);
		while (row(idx, s)) {
			int64_t id = sqlite3_column_int64(s, 0);

			g_hash_table_add(paths, g_memdup2(&id, sizeof(id)));
		}
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	if (!g_hash_table_size(paths) || !limit)
		return 0;
	if (sqlite3_prepare_v2(idx->db, "SELECT cid FROM engagement WHERE person = ?1 AND ctime >= ?2 AND ctime < ?3"
			       " AND (flags & 1) <> 0 ORDER BY ctime DESC", -1, &s, NULL) ||
	    sqlite3_prepare_v2(idx->db, "SELECT path FROM touches WHERE cid = ?1", -1, &t, NULL)) {
		sqlite3_finalize(s);
		return 0;
	}
	sqlite3_bind_int64(s, 1, person);
	sqlite3_bind_int64(s, 2, after);
	sqlite3_bind_int64(s, 3, before);
	while (n < limit && row(idx, s)) {
		sqlite3_bind_int64(t, 1, sqlite3_column_int64(s, 0));
		while (row(idx, t)) {
			int64_t path = sqlite3_column_int64(t, 0);

			if (g_hash_table_contains(paths, &path)) {
				n++;
				break;
			}
		}
		sqlite3_reset(t);
	}
	sqlite3_finalize(t);
	sqlite3_finalize(s);
	return n;
}

unsigned ccsift_index_count_engaged_in_dirs(ccsift_index *idx, int64_t person, GPtrArray *dirs, int64_t after,
					    int64_t before, unsigned limit)
{
	g_autoptr(GString) list = g_string_new("[");
	sqlite3_stmt *s;
	unsigned n = 0;

	for (guint i = 0; i < dirs->len; i++) {
		g_autofree char *q = g_strescape(dirs->pdata[i], NULL);

		g_string_append_printf(list, "%s\"%s\"", i ? "," : "", q);
	}
	g_string_append_c(list, ']');
	if (engaged_dirs_ready(idx, after))
		return engaged_dirs_count(idx, person, dirs, after, before, limit);
	if (engagement_ready(idx))
		return engaged_in_dirs(idx, person, dirs, after, before, limit);
	if (sqlite3_prepare_v2(idx->db,
			       "SELECT count(*) FROM (SELECT DISTINCT r.cid FROM credits r"
			       " JOIN commits c ON c.id = r.cid JOIN touches t ON t.cid = r.cid"
			       " JOIN paths p ON p.id = t.path"
			       " WHERE r.person = ?1 AND c.ctime >= ?2 AND c.ctime < ?3 AND " ENGAGED_SQL
			       " AND p.dir IN (SELECT value FROM json_each(?4)) LIMIT ?5)", -1, &s, NULL))
		return 0;
	sqlite3_bind_int64(s, 1, person);
	sqlite3_bind_int64(s, 2, after);
	sqlite3_bind_int64(s, 3, before);
	sqlite3_bind_text(s, 4, list->str, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 5, limit);
	if (row(idx, s))
		n = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return n;
}

/* Is a commit's subject of area (len bytes, lower case)? */
static gboolean subject_in_area(const char *subject, const char *area, size_t len)
{
	return ccsift_subject_area(subject) == len && g_ascii_strncasecmp(subject, area, len) == 0;
}

int ccsift_index_foreach_engaged(ccsift_index *idx, int64_t person, int64_t since, ccsift_engaged_fn fn,
				 void *payload)
{
	sqlite3_stmt *s;
	int rc = 0, step;

	if (!(s = engagement_stmt(idx, ST_ENGAGED_SUBJECTS,
				  "SELECT DISTINCT c.ctime, c.subject, c.id FROM credits r JOIN commits c ON c.id = r.cid"
				  " WHERE r.person = ?1 AND c.ctime >= ?2 AND " ENGAGED_SQL)))
		return db_error(idx, "engagement");
	sqlite3_bind_int64(s, 1, person);
	sqlite3_bind_int64(s, 2, since);
	while ((step = sqlite3_step(s)) == SQLITE_ROW)
		if ((rc = fn(sqlite3_column_int64(s, 0), (const char *)sqlite3_column_text(s, 1), payload)) != 0)
			break;
	if (rc == 0 && step != SQLITE_DONE)
		rc = db_error(idx, "engagement");
	engagement_stmt_done(idx, ST_ENGAGED_SUBJECTS, s);
	return rc;
}

gboolean ccsift_index_year_answers(ccsift_index *idx, int64_t after, int64_t before)
{
	return before - after == 365 * (int64_t)86400 && year_ready(idx, before);
}

unsigned ccsift_index_count_engaged_in_area(ccsift_index *idx, int64_t person, const char *area, int64_t after,
					    int64_t before, unsigned limit)
{
	size_t len = area ? strlen(area) : 0;
	sqlite3_stmt *s;
	unsigned n = 0;

	if (!len || !limit)
		return 0;
	if (ccsift_index_year_answers(idx, after, before))
		return MIN(year_area(idx, person, area), limit);
	if (!(s = engagement_stmt(idx, ST_ENGAGED_AREA,
				  "SELECT DISTINCT c.subject, c.id FROM credits r JOIN commits c ON c.id = r.cid"
				  " WHERE r.person = ?1 AND c.ctime >= ?2 AND c.ctime < ?3 AND " ENGAGED_SQL)))
		return 0;
	sqlite3_bind_int64(s, 1, person);
	sqlite3_bind_int64(s, 2, after);
	sqlite3_bind_int64(s, 3, before);
	while (n < limit && row(idx, s))
		n += subject_in_area((const char *)sqlite3_column_text(s, 0), area, len);
	engagement_stmt_done(idx, ST_ENGAGED_AREA, s);
	return n;
}

/* --- derived tables for the delivery path ---
 *
 * engaged_dirs: one row per person, directory (dirs' id) and commit they
 * engaged with (ENGAGED_SQL) touching a file directly in it: the directory
 * feature reads at most `limit` rows per directory of the patch.
 *
 * hot_paths and hot_credits: for each path touched by HOT_TOUCHES commits
 * or more, the sum of breadth x decay over its touches as of the indexed
 * tip (the time a delivery scores at) with the default half-life, and
 * every (person, commit) credit on it with what the walk reads of the
 * commit and the touch, so that a delivery reads only the user's own
 * touches of a hot file, one range of rows, not all of them. Line counts
 * cached later (ccsift_index_cache_lines) are written to both; a commit's
 * flags changing makes them anew. A reader uses them only when they cover every commit and were
 * made for its very as_of and half-life; otherwise it walks as before. */
#define HOT_TOUCHES 200

static const char derived_schema[] =
	"CREATE TABLE IF NOT EXISTS dirs(id INTEGER PRIMARY KEY, dir TEXT UNIQUE NOT NULL);"
	"CREATE TABLE IF NOT EXISTS engaged_dirs(person INTEGER, dir INTEGER, ctime INTEGER, cid INTEGER,"
	"  PRIMARY KEY(person, dir, ctime, cid)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS hot_paths(path INTEGER PRIMARY KEY, as_of INTEGER, half_life REAL,"
	"  total REAL, commits INTEGER, renames INTEGER);"
	"CREATE TABLE IF NOT EXISTS hot_credits(path INTEGER, person INTEGER, cid INTEGER, roles INTEGER NOT NULL,"
	"  ctime INTEGER, nfiles INTEGER, ntop INTEGER, flags INTEGER,"
	"  status TEXT, old_path INTEGER, added INTEGER, removed INTEGER,"
	"  PRIMARY KEY(path, person, cid)) WITHOUT ROWID;";

static int64_t meta_int(ccsift_index *idx, const char *key)
{
	g_autofree char *v = ccsift_index_meta_get(idx, key);

	return v ? g_ascii_strtoll(v, NULL, 10) : -1;
}

static int meta_set_int(ccsift_index *idx, const char *key, int64_t value)
{
	char buf[32];

	g_snprintf(buf, sizeof(buf), "%" G_GINT64_FORMAT, value);
	return ccsift_index_meta_set(idx, key, buf);
}

/* Run sql with ?1 = a, ?2 = b to completion. */
/* sql with ?1 an id and ?2 a text, run once. */
static int exec_id_text(ccsift_index *idx, const char *sql, int64_t id, const char *text, const char *what)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(idx->db, sql, -1, &s, NULL))
		return db_error(idx, what);
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_text(s, 2, text, -1, SQLITE_STATIC);
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : db_error(idx, what);
	sqlite3_finalize(s);
	return rc;
}

static int exec2(ccsift_index *idx, const char *sql, int64_t a, int64_t b, const char *what)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(idx->db, sql, -1, &s, NULL))
		return db_error(idx, what);
	if (sqlite3_bind_parameter_count(s) >= 1)
		sqlite3_bind_int64(s, 1, a);
	if (sqlite3_bind_parameter_count(s) >= 2)
		sqlite3_bind_int64(s, 2, b);
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : db_error(idx, what);
	sqlite3_finalize(s);
	return rc;
}

static int64_t engaged_dirs_since(ccsift_index *idx)
{
	g_autofree char *since = ccsift_index_meta_get(idx, ENGAGED_DIRS_SINCE_META);

	return since ? g_ascii_strtoll(since, NULL, 10) : G_MININT64;
}

/* From scratch: the years before the tip's last ENGAGED_DIRS_YEARS are
 * left out (none without a tip, as in a partial first build). */
static int engaged_dirs_set_since(ccsift_index *idx)
{
	int64_t tip = ccsift_index_tip_time(idx);

	if (tip < 0)
		return ccsift_index_meta_delete(idx, ENGAGED_DIRS_SINCE_META);
	return meta_set_int(idx, ENGAGED_DIRS_SINCE_META, tip - ENGAGED_DIRS_YEARS * 365 * (int64_t)86400);
}

static int engaged_dirs_update(ccsift_index *idx)
{
	int64_t from = meta_int(idx, ENGAGED_DIRS_META), top;
	int rc;

	if (sqlite3_exec(idx->db, derived_schema, 0, 0, 0))
		return db_error(idx, "derived tables");
	if ((top = max_commit_id(idx)) < 0)
		return db_error(idx, "engaged dirs");
	if (from >= 0 && top <= from)
		return 0;
	if (from < 0 && ((rc = exec2(idx, "DELETE FROM engaged_dirs", 0, 0, "engaged dirs")) < 0 ||
			 (rc = engaged_dirs_set_since(idx)) < 0))
		return rc;
	/* The directories of the new commits' files: a few commits' through
	 * their touches; all of them path by path (at Linux's size 0.1 s
	 * against 1.6 s through every touch). */
	if ((rc = exec2(idx, from < 0 ? "INSERT OR IGNORE INTO dirs(dir) SELECT DISTINCT p.dir FROM paths p"
					" WHERE EXISTS (SELECT 1 FROM touches t WHERE t.path = p.id"
					"  AND t.cid > ?1 AND t.cid <= ?2)"
				      : "INSERT OR IGNORE INTO dirs(dir) SELECT DISTINCT p.dir FROM touches t"
					" JOIN paths p ON p.id = t.path WHERE t.cid > ?1 AND t.cid <= ?2",
			MAX(from, 0), top, "dirs")) < 0)
		return rc;
	/* Each commit's directories once, not once a file and a person (a
	 * third faster); in the key's order, so the inserts append. */
	if (from < 0)
		/* All of it since the horizon: the engagement table (finish
		 * made it first) holds each engaged person and commit once, in
		 * the person's order; each engaged commit's touches are found
		 * by their index and each path's directory is looked up once
		 * (at Linux's size the select 2.1 s against 6.2 s reading every
		 * touch, and a fifth of the rows). */
		rc = exec2(idx, "INSERT OR IGNORE INTO engaged_dirs(person, dir, ctime, cid)"
			   " WITH pd AS MATERIALIZED (SELECT p.id AS path, d.id AS dir FROM paths p"
			   "   JOIN dirs d ON d.dir = p.dir),"
			   " ec AS MATERIALIZED (SELECT DISTINCT cid FROM engagement WHERE ctime >= ?1 AND flags & 1),"
			   " cd AS (SELECT DISTINCT t.cid, pd.dir FROM ec JOIN touches t ON t.cid = ec.cid"
			   "   JOIN pd ON pd.path = t.path WHERE t.cid <= ?2)"
			   " SELECT e.person, cd.dir, e.ctime, e.cid FROM engagement e JOIN cd ON cd.cid = e.cid"
			   " WHERE e.flags & 1 AND e.ctime >= ?1 ORDER BY 1, 2, 3, 4",
			   engaged_dirs_since(idx), top, "engaged dirs");
	else
		/* A few new commits: theirs, by row id (the engagement table
		 * has no such index). */
		rc = exec2(idx, "INSERT OR IGNORE INTO engaged_dirs(person, dir, ctime, cid)"
			   " WITH e AS (SELECT DISTINCT r.person, r.cid, c.ctime FROM credits r"
			   "   JOIN commits c ON c.id = r.cid WHERE r.cid > ?1 AND r.cid <= ?2 AND " ENGAGED_SQL "),"
			   " cd AS (SELECT DISTINCT t.cid, p.dir FROM touches t JOIN paths p ON p.id = t.path"
			   "   WHERE t.cid IN (SELECT cid FROM e))"
			   " SELECT e.person, d.id, e.ctime, e.cid FROM e JOIN cd ON cd.cid = e.cid"
			   " JOIN dirs d ON d.dir = cd.dir ORDER BY 1, 2, 3, 4",
			   from, top, "engaged dirs");
	if (rc < 0)
		return rc;
	return meta_set_int(idx, ENGAGED_DIRS_META, top);
}

/* Does engaged_dirs cover every commit of this snapshot, from after on? */
static gboolean engaged_dirs_ready(ccsift_index *idx, int64_t after)
{
	int64_t mark = meta_int(idx, ENGAGED_DIRS_META), top = max_commit_id(idx);

	return mark >= 0 && top >= 0 && mark >= top && after >= engaged_dirs_since(idx);
}

/* count_engaged_in_dirs from engaged_dirs: at most limit commits per
 * directory, newest first; their union, up to limit, is the count the
 * walk of the person's engaged commits would make. */
static unsigned engaged_dirs_count(ccsift_index *idx, int64_t person, GPtrArray *dirs, int64_t after,
				   int64_t before, unsigned limit)
{
	g_autoptr(GHashTable) cids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	sqlite3_stmt *s = NULL;

	if (!limit || !(s = stmt(idx, ST_DIR_ENGAGED)))
		return 0;
	for (guint i = 0; i < dirs->len && g_hash_table_size(cids) < limit; i++) {
		sqlite3_bind_int64(s, 1, person);
		sqlite3_bind_text(s, 2, dirs->pdata[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 3, after);
		sqlite3_bind_int64(s, 4, before);
		sqlite3_bind_int64(s, 5, limit);
		while (row(idx, s)) {
			int64_t cid = sqlite3_column_int64(s, 0);

			g_hash_table_add(cids, g_memdup2(&cid, sizeof(cid)));
		}
		sqlite3_reset(s);
	}
	return MIN(limit, g_hash_table_size(cids));
}

/* The sums of every hot path as of as_of, over commits up to top. */
static int hot_totals(ccsift_index *idx, int64_t as_of, int64_t top)
{
	sqlite3_stmt *paths = NULL, *walk = NULL, *upd = NULL;
	g_autofree char *key = g_strdup_printf("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, as_of, top);
	g_autofree char *stored = ccsift_index_meta_get(idx, HOT_TOTALS_META);
	int rc = 0;

	if (stored && strcmp(stored, key) == 0)
		return 0;
	if (sqlite3_prepare_v2(idx->db, "SELECT path FROM hot_paths", -1, &paths, NULL) ||
	    /* the order of ST_TOUCHES: touches' primary key, (path, cid) */
	    sqlite3_prepare_v2(idx->db, "SELECT c.ctime, c.nfiles, c.ntop, c.flags, t.status, t.old_path"
			       " FROM touches t JOIN commits c ON c.id = t.cid"
			       " WHERE t.path = ?1 AND c.ctime < ?2 ORDER BY t.cid", -1, &walk, NULL) ||
	    sqlite3_prepare_v2(idx->db, "UPDATE hot_paths SET as_of = ?2, half_life = ?3, total = ?4,"
			       " commits = ?5, renames = ?6 WHERE path = ?1", -1, &upd, NULL)) {
		rc = db_error(idx, "hot totals");
		goto out;
	}
	while (!rc && row(idx, paths)) {
		int64_t path = sqlite3_column_int64(paths, 0);
		double total = 0;
		int64_t commits = 0, renames = 0;

		sqlite3_bind_int64(walk, 1, path);
		sqlite3_bind_int64(walk, 2, as_of);
		while (row(idx, walk)) {
			/* as on_touch in score.c adds them */
			double base = ccsift_breadth(sqlite3_column_int(walk, 3), sqlite3_column_int(walk, 1),
						     sqlite3_column_int(walk, 2)) *
				      ccsift_decay(as_of, sqlite3_column_int64(walk, 0), CCSIFT_HALF_LIFE_DAYS);
			const unsigned char *status = sqlite3_column_text(walk, 4);

			total += base;
			commits++;
			renames += status && status[0] == 'R' && sqlite3_column_type(walk, 5) != SQLITE_NULL;
		}
		sqlite3_reset(walk);
		sqlite3_bind_int64(upd, 1, path);
		sqlite3_bind_int64(upd, 2, as_of);
		sqlite3_bind_double(upd, 3, CCSIFT_HALF_LIFE_DAYS);
		sqlite3_bind_double(upd, 4, total);
		sqlite3_bind_int64(upd, 5, commits);
		sqlite3_bind_int64(upd, 6, renames);
		if (sqlite3_step(upd) != SQLITE_DONE)
			rc = db_error(idx, "hot totals");
		sqlite3_reset(upd);
	}
	if (!rc)
		rc = ccsift_index_meta_set(idx, HOT_TOTALS_META, key);
out:
	sqlite3_finalize(paths);
	sqlite3_finalize(walk);
	sqlite3_finalize(upd);
	return rc;
}

#define PATH_CREDITS_SQL \
	"INSERT OR IGNORE INTO hot_credits(path, person, cid, roles, ctime, nfiles, ntop, flags," \
	"  status, old_path, added, removed)" \
	" SELECT t.path, r.person, r.cid, sum(1 << r.role), c.ctime, c.nfiles, c.ntop, c.flags," \
	"  t.status, t.old_path, t.added, t.removed" \
	" FROM touches t JOIN credits r ON r.cid = t.cid JOIN commits c ON c.id = t.cid"

static int hot_update(ccsift_index *idx)
{
	int64_t from = meta_int(idx, HOT_META), top, as_of;
	g_autoptr(GArray) fresh = g_array_new(FALSE, FALSE, sizeof(int64_t));
	sqlite3_stmt *s;
	int rc;

	if ((top = max_commit_id(idx)) < 0)
		return db_error(idx, "hot paths");
	if (from < 0 && ((rc = exec2(idx, "DELETE FROM hot_paths", 0, 0, "hot paths")) < 0 ||
			 (rc = exec2(idx, "DELETE FROM hot_credits", 0, 0, "hot paths")) < 0 ||
			 (rc = exec2(idx, "DROP TABLE IF EXISTS hot_touches", 0, 0, "hot paths")) < 0 ||
			 (rc = ccsift_index_meta_delete(idx, HOT_META_OLD)) < 0 ||
			 (rc = ccsift_index_meta_delete(idx, HOT_TOTALS_META)) < 0))
		return rc;
	from = MAX(from, 0);
	if (top > from) {
		/* Paths of the new commits that are hot now and were not; when
		 * every commit is new, every hot path, in one pass over the
		 * touches' key (0.09 s against 0.88 s at Linux's size). */
		if (sqlite3_prepare_v2(idx->db, from == 0 ? "SELECT path FROM touches WHERE cid <= ?2"
							    " GROUP BY path HAVING count(*) >= " G_STRINGIFY(HOT_TOUCHES)
							  : "SELECT t.path FROM touches t WHERE t.path IN"
							    " (SELECT DISTINCT path FROM touches WHERE cid > ?1 AND cid <= ?2)"
							    " AND t.path NOT IN (SELECT path FROM hot_paths)"
							    " GROUP BY t.path HAVING count(*) >= " G_STRINGIFY(HOT_TOUCHES),
				       -1, &s, NULL))
			return db_error(idx, "hot paths");
		sqlite3_bind_int64(s, 1, from);
		sqlite3_bind_int64(s, 2, top);
		while (row(idx, s)) {
			int64_t path = sqlite3_column_int64(s, 0);

			g_array_append_val(fresh, path);
		}
		sqlite3_finalize(s);
		/* The new commits' credits on paths already hot, then every
		 * credit on the paths that just became hot. */
		if ((rc = exec2(idx, PATH_CREDITS_SQL " WHERE t.cid > ?1 AND t.cid <= ?2"
				" AND t.path IN (SELECT path FROM hot_paths) GROUP BY t.path, r.person, r.cid",
				from, top, "hot paths")) < 0)
			return rc;
		for (guint i = 0; i < fresh->len; i++)
			if ((rc = exec2(idx, PATH_CREDITS_SQL " WHERE t.path = ?1 AND t.cid <= ?2"
					" GROUP BY t.path, r.person, r.cid",
					g_array_index(fresh, int64_t, i), top, "hot paths")) < 0 ||
			    (rc = exec2(idx, "INSERT INTO hot_paths(path) VALUES (?1)",
					g_array_index(fresh, int64_t, i), 0, "hot paths")) < 0)
				return rc;
		if ((rc = meta_set_int(idx, HOT_META, top)) < 0)
			return rc;
	}
	/* As of the indexed tip, the time a delivery scores at. */
	if ((as_of = ccsift_index_tip_time(idx)) < 0)
		return 0;
	return hot_totals(idx, as_of + 1, top);
}

/* Are the hot paths' sums made as of as_of over every commit? */
static gboolean hot_totals_current(ccsift_index *idx, int64_t as_of)
{
	g_autofree char *key = g_strdup_printf("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, as_of,
					       max_commit_id(idx));
	g_autofree char *stored = NULL;

	return meta_int(idx, HOT_META) >= 0 && (stored = ccsift_index_meta_get(idx, HOT_TOTALS_META)) &&
	       strcmp(stored, key) == 0;
}

gboolean ccsift_index_path_totals(ccsift_index *idx, const char *path, int64_t as_of, double half_life,
				  double *total, int *commits)
{
	sqlite3_stmt *s;
	double sum = 0;
	int n = 0;
	gboolean ok = FALSE;

	/* The path's row first: most paths are not hot, and a replay's as_of
	 * is never the tip's (the marks are two more reads a file). */
	if (!(s = stmt(idx, ST_HOT_TOTALS)))
		return FALSE;
	sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
	if (row(idx, s) && sqlite3_column_int64(s, 0) == as_of &&
	    sqlite3_column_double(s, 1) == half_life && sqlite3_column_int64(s, 4) == 0) {
		sum = sqlite3_column_double(s, 2);
		n = sqlite3_column_int(s, 3);
		ok = TRUE;
	}
	sqlite3_reset(s);
	if (!ok || !hot_totals_current(idx, as_of))
		return FALSE;
	*total = sum;
	*commits = n;
	return TRUE;
}

/* A row of credited_walk, its person to follow (one, or IN a list). */
#define CREDITED_ROW \
	"SELECT pc.cid, pc.ctime, pc.nfiles, pc.ntop, pc.flags, pc.status, o.path, pc.added, pc.removed," \
	" pc.roles FROM paths p JOIN hot_credits pc ON pc.path = p.id LEFT JOIN paths o ON o.id = pc.old_path" \
	" WHERE p.path = ?1 AND pc.ctime < ?2 AND pc.person "
/* (SQLite's limit on a compound's arms is far above) */
#define CREDITED_ARMS 64

/* The touches of a hot path by commits crediting people, in the order of
 * the full walk (cid): only the columns the scorer reads (run_credited),
 * each of them costs every row. Not the commit's id and subject either:
 * only what is shown needs them. A commit crediting two of the people (a
 * user under two addresses) is two rows, one after the other: run_credited
 * makes them one touch with both people's roles (an aggregate in SQL cost
 * a quarter of a busy maintainer's delivery). */
static sqlite3_stmt *credited_walk(ccsift_index *idx, GArray *people)
{
	g_autoptr(GString) sql = NULL;

	if (idx->credited_st && idx->credited_n == people->len)
		return idx->credited_st;
	g_clear_pointer(&idx->credited_st, sqlite3_finalize);
	/* One arm a person, each in commit order by the key, merged by
	 * SQLite (MERGE (UNION ALL)): with "person IN (...)" it sorted every
	 * row, the busiest person's thousands on a hot file, whenever they
	 * had two addresses. Past CREDITED_ARMS people, the sort. */
	sql = g_string_new(NULL);
	if (people->len > CREDITED_ARMS) {
		g_string_append(sql, CREDITED_ROW "IN (");
		for (guint i = 0; i < people->len; i++)
			g_string_append_printf(sql, "%s?%u", i ? ", " : "", 3 + i);
		g_string_append(sql, ")");
	} else {
		for (guint i = 0; i < people->len; i++)
			g_string_append_printf(sql, "%s" CREDITED_ROW "= ?%u", i ? " UNION ALL " : "", 3 + i);
	}
	g_string_append(sql, " ORDER BY 1");
	if (sqlite3_prepare_v3(idx->db, sql->str, -1, SQLITE_PREPARE_PERSISTENT, &idx->credited_st, NULL)) {
		db_error(idx, "prepare credited walk");
		return NULL;
	}
	idx->credited_n = people->len;
	return idx->credited_st;
}

/* run_touches for credited_walk's columns: the path is the one asked; the
 * rows of one commit are one touch, their roles OR'ed. */
static int run_credited(ccsift_index *idx, sqlite3_stmt *s, const char *path, ccsift_touch_fn fn, void *payload)
{
	g_autofree char *old_path = NULL;  /* the pending touch's: the row's goes at the next step */
	ccsift_touch t = { 0 };
	gboolean pending = FALSE;
	int rc = 0, step;

	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		const char *status = (const char *)sqlite3_column_text(s, 5);
		int64_t cid = sqlite3_column_int64(s, 0);

		if (pending && cid == t.cid) {
			t.roles |= sqlite3_column_int(s, 9);
			continue;
		}
		if (pending && (rc = fn(&t, payload)) != 0)
			break;
		g_free(old_path);
		old_path = g_strdup((const char *)sqlite3_column_text(s, 6));
		t = (ccsift_touch){
			.cid = cid,
			.ctime = sqlite3_column_int64(s, 1),
			.nfiles = sqlite3_column_int(s, 2),
			.ntop = sqlite3_column_int(s, 3),
			.flags = sqlite3_column_int(s, 4),
			.status = status ? status[0] : 'M',
			.path = path,
			.old_path = old_path,
			.added = sqlite3_column_type(s, 7) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 7),
			.removed = sqlite3_column_type(s, 8) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 8),
			.roles = sqlite3_column_int(s, 9),
		};
		pending = TRUE;
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		rc = db_error(idx, "read credited touches");
	else if (step == SQLITE_DONE && pending)
		rc = fn(&t, payload);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc;
}

int ccsift_index_foreach_credited_touch(ccsift_index *idx, const char *path, int64_t before, GArray *people,
					ccsift_touch_fn fn, void *payload)
{
	sqlite3_stmt *s;

	if (!people->len)
		return 0;
	if (!(s = credited_walk(idx, people)))
		return -1;
	sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, before);
	bind_people(s, 3, people);
	return run_credited(idx, s, path, fn, payload);
}

/* --- a person's year as of the indexed tip ---
 *
 * person_year, person_author_year and person_area_year: for every
 * person, what ccsift_index_person_activity counts over the year before the
 * tip's as_of (tip + 1 s, the time a delivery scores at), per author how
 * many of their commits the person engaged with, and per subject area
 * (subject_area) how many of the commits of that area; remade when the tip
 * moves, from that year's commits and their credits (the engagement
 * table's rule). A reader uses them only for that very as_of and row id
 * mark. */
static const char year_schema[] =
	"CREATE TABLE IF NOT EXISTS person_year(person INTEGER PRIMARY KEY, authored INTEGER NOT NULL,"
	"  engaged INTEGER NOT NULL, engaged_90 INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS person_author_year(person INTEGER, author INTEGER, n INTEGER NOT NULL,"
	"  PRIMARY KEY(person, author)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS person_area_year(person INTEGER, area TEXT, n INTEGER NOT NULL,"
	"  PRIMARY KEY(person, area)) WITHOUT ROWID;";

/* subject_area(subject): a commit's area in lower case (ccsift_subject_area),
 * or NULL. */
static void subject_area_sql(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *subject = (const char *)sqlite3_value_text(argv[0]);
	size_t n = ccsift_subject_area(subject);

	(void)argc;
	if (n)
		sqlite3_result_text(ctx, g_ascii_strdown(subject, (gssize)n), -1, g_free);
	else
		sqlite3_result_null(ctx);
}

#define YEAR_ROWS \
	"(SELECT r.person AS person, c.id AS cid, c.ctime AS ctime, c.author AS author," \
	"  " ENGAGEMENT_FLAGS_SQL " AS f" \
	" FROM commits c JOIN credits r ON r.cid = c.id WHERE c.ctime >= ?1 - 365 * 86400 AND c.ctime < ?1" \
	"  AND " ENGAGEMENT_ROLES_SQL \
	" GROUP BY r.person, c.id HAVING f <> 0)"

static int year_update(ccsift_index *idx)
{
	int64_t tip = ccsift_index_tip_time(idx), top = max_commit_id(idx), as_of;
	g_autofree char *key = NULL, *stored = NULL;
	int rc;

	if (sqlite3_exec(idx->db, year_schema, 0, 0, 0))
		return db_error(idx, "person year");
	if (tip < 0 || top < 0)
		return 0;
	as_of = tip + 1;
	key = g_strdup_printf("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, as_of, top);
	if ((stored = ccsift_index_meta_get(idx, YEAR_META)) && strcmp(stored, key) == 0)
		return 0;
	if (sqlite3_create_function(idx->db, "subject_area", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				    subject_area_sql, NULL, NULL))
		return db_error(idx, "person year");
	if ((rc = exec2(idx, "DELETE FROM person_year", 0, 0, "person year")) < 0 ||
	    (rc = exec2(idx, "DELETE FROM person_author_year", 0, 0, "person year")) < 0 ||
	    (rc = exec2(idx, "DELETE FROM person_area_year", 0, 0, "person year")) < 0 ||
	    (rc = exec2(idx, "INSERT INTO person_year(person, authored, engaged, engaged_90)"
			" SELECT person, sum((f & 2) <> 0), sum(f & 1), sum((f & 1) AND ctime >= ?1 - 90 * 86400)"
			" FROM " YEAR_ROWS " GROUP BY person", as_of, 0, "person year")) < 0 ||
	    (rc = exec2(idx, "INSERT INTO person_author_year(person, author, n)"
			" SELECT person, author, count(*) FROM " YEAR_ROWS " WHERE (f & 1) <> 0"
			" GROUP BY person, author", as_of, 0, "person year")) < 0 ||
	    (rc = exec2(idx, "INSERT INTO person_area_year(person, area, n)"
			" SELECT y.person, subject_area(c.subject) AS a, count(*) FROM " YEAR_ROWS " y"
			" JOIN commits c ON c.id = y.cid WHERE (y.f & 1) <> 0 AND a IS NOT NULL"
			" GROUP BY 1, 2", as_of, 0, "person year")) < 0)
		return rc;
	/* the mark's name before person_area_year, left by an older ccsift */
	if ((rc = ccsift_index_meta_delete(idx, "person-year")) < 0)
		return rc;
	return ccsift_index_meta_set(idx, YEAR_META, key);
}

/* Is person_year the year before as_of of every commit? */
static gboolean year_ready(ccsift_index *idx, int64_t as_of)
{
	g_autofree char *stored = ccsift_index_meta_get(idx, YEAR_META);
	g_autofree char *key = NULL;

	if (!stored)
		return FALSE;
	key = g_strdup_printf("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, as_of, max_commit_id(idx));
	return strcmp(stored, key) == 0;
}

static unsigned year_with(ccsift_index *idx, int64_t person, int64_t author)
{
	sqlite3_stmt *s;
	unsigned n = 0;

	if (!(s = stmt(idx, ST_YEAR_WITH)))
		return 0;
	sqlite3_bind_int64(s, 1, person);
	sqlite3_bind_int64(s, 2, author);
	if (row(idx, s))
		n = sqlite3_column_int(s, 0);
	sqlite3_reset(s);
	return n;
}

static unsigned year_area(ccsift_index *idx, int64_t person, const char *area)
{
	g_autofree char *lower = g_ascii_strdown(area, -1);
	sqlite3_stmt *s;
	unsigned n = 0;

	if (!(s = stmt(idx, ST_YEAR_AREA)))
		return 0;
	sqlite3_bind_int64(s, 1, person);
	sqlite3_bind_text(s, 2, lower, -1, SQLITE_STATIC);
	if (row(idx, s))
		n = sqlite3_column_int(s, 0);
	sqlite3_reset(s);
	return n;
}

static int year_activity(ccsift_index *idx, int64_t person, int64_t author, ccsift_activity *out)
{
	sqlite3_stmt *s;

	if (!(s = stmt(idx, ST_YEAR)))
		return db_error(idx, "activity");
	sqlite3_bind_int64(s, 1, person);
	if (row(idx, s)) {
		out->authored_365 = sqlite3_column_int(s, 0);
		out->engaged_365 = sqlite3_column_int(s, 1);
		out->engaged_90 = sqlite3_column_int(s, 2);
	}
	sqlite3_reset(s);
	if (author >= 0 && out->engaged_365)
		out->with_author = year_with(idx, person, author);
	return 0;
}

/*
 * The newest committer time of the history, as a clock at `clock` can
 * have seen it: not the tip's own, which one wrong clock makes 1970 (all
 * history in the future, none of it counted) or 9999 (all of it decayed
 * away), and which a merge at the tip does not even have indexed.
 */
static int64_t tip_time_at(ccsift_index *idx, int64_t clock)
{
	sqlite3_stmt *s = stmt(idx, ST_TIP_TIME);
	int64_t t = -1;

	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, clock > G_MAXINT64 - TIP_TIME_SLACK ? G_MAXINT64 : clock + TIP_TIME_SLACK);
	if (row(idx, s) && sqlite3_column_type(s, 0) != SQLITE_NULL)
		t = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return t;
}

/* The stored time, if it is the one of the tip "tip" names: "<oid> <time>". */
static gboolean tip_time_stored(ccsift_index *idx, const char *tip, int64_t *t)
{
	g_autofree char *v = ccsift_index_meta_get(idx, TIP_TIME_META);
	size_t n = strlen(tip);
	char *end;

	if (!v || strncmp(v, tip, n) != 0 || v[n] != ' ')
		return FALSE;
	*t = g_ascii_strtoll(v + n + 1, &end, 10);
	return end > v + n + 1 && !*end;
}

int ccsift_index_tip_time_settle(ccsift_index *idx)
{
	g_autofree char *tip = ccsift_index_meta_get(idx, "tip");
	g_autofree char *v = NULL;
	int64_t t;
	int rc;

	if (!tip || !*tip)
		return ccsift_index_meta_delete(idx, TIP_TIME_META);
	if (tip_time_stored(idx, tip, &t))
		return 0;  /* the same tip, the same time, whatever the clock says now */
	if ((t = tip_time_at(idx, g_get_real_time() / G_USEC_PER_SEC)) < 0) {
		if ((rc = ccsift_index_take_fault(idx)) < 0)
			return rc;
		return ccsift_index_meta_delete(idx, TIP_TIME_META);
	}
	v = g_strdup_printf("%s %" G_GINT64_FORMAT, tip, t);
	return ccsift_index_meta_set(idx, TIP_TIME_META, v);
}

int64_t ccsift_index_tip_time(ccsift_index *idx)
{
	g_autofree char *tip = ccsift_index_meta_get(idx, "tip");
	int64_t t, clock = g_get_real_time() / G_USEC_PER_SEC;
	sqlite3_stmt *s;

	if (!tip || !*tip)
		return -1;
	if (tip_time_stored(idx, tip, &t))
		return t;
	/* An index from before the key, until an update settles it: the
	 * tip's own time as then, unless it is from the future. */
	if (!(s = stmt(idx, ST_TIP_OWN_TIME)))
		return -1;
	sqlite3_bind_text(s, 1, tip, -1, SQLITE_STATIC);
	t = row(idx, s) ? sqlite3_column_int64(s, 0) : -1;
	sqlite3_reset(s);
	if (t >= 0 && t <= clock + TIP_TIME_SLACK)
		return t;
	return tip_time_at(idx, clock);
}

/* --- fitted models --- */

char *ccsift_index_fit_get(ccsift_index *idx, int64_t at_most, int64_t *until)
{
	sqlite3_stmt *s;
	char *text = NULL;

	if (sqlite3_prepare_v2(idx->db, "SELECT until, model FROM fits WHERE until <= ?1 ORDER BY until DESC LIMIT 1",
			       -1, &s, NULL))
		return NULL;  /* an index from before fits: no table */
	sqlite3_bind_int64(s, 1, at_most);
	if (row(idx, s)) {
		*until = sqlite3_column_int64(s, 0);
		text = g_strdup(sqlite3_column_text(s, 1) ? (const char *)sqlite3_column_text(s, 1) : "");
	}
	sqlite3_finalize(s);
	return text;
}

/* The rows of table (fits or fit_pairs) for the fit of until, deleted. */
static int delete_fit_rows(ccsift_index *idx, const char *table, int64_t until)
{
	g_autofree char *sql = g_strdup_printf("DELETE FROM %s WHERE until = ?1", table);
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(idx->db, sql, -1, &s, NULL))
		return db_error(idx, "delete fit");
	sqlite3_bind_int64(s, 1, until);
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : db_error(idx, "delete fit");
	sqlite3_finalize(s);
	return rc;
}

int ccsift_index_fit_store(ccsift_index *idx, int64_t until, const char *model, GArray *pairs)
{
	sqlite3_stmt *s = NULL;
	int rc;

	if ((rc = ccsift_index_begin(idx)) < 0)
		return rc;
	if ((rc = delete_fit_rows(idx, "fit_pairs", until)) < 0) {
		ccsift_index_rollback(idx);
		return rc;
	}
	if (sqlite3_prepare_v2(idx->db, "INSERT OR REPLACE INTO fits(until, model) VALUES (?1, ?2)", -1, &s, NULL))
		goto fail;
	sqlite3_bind_int64(s, 1, until);
	sqlite3_bind_text(s, 2, model, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(idx->db, "INSERT INTO fit_pairs(until, person, logit, engaged, demotable)"
			       " VALUES (?1, ?2, ?3, ?4, ?5)", -1, &s, NULL))
		goto fail;
	for (guint i = 0; i < pairs->len; i++) {
		const ccsift_fit_pair *p = &g_array_index(pairs, ccsift_fit_pair, i);

		sqlite3_bind_int64(s, 1, until);
		sqlite3_bind_int64(s, 2, p->person);
		sqlite3_bind_double(s, 3, p->logit);
		sqlite3_bind_int(s, 4, p->engaged);
		sqlite3_bind_int(s, 5, p->demotable);
		if (sqlite3_step(s) != SQLITE_DONE)
			goto fail;
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return ccsift_index_commit(idx);
fail:
	rc = db_error(idx, "store fit");
	sqlite3_finalize(s);
	ccsift_index_rollback(idx);
	return rc;
}

int ccsift_index_fit_set_model(ccsift_index *idx, int64_t until, const char *model)
{
	return exec_id_text(idx, "UPDATE fits SET model = ?2 WHERE until = ?1", until, model, "store fit");
}

int ccsift_index_fit_drop(ccsift_index *idx, int64_t until)
{
	int rc;

	if ((rc = ccsift_index_begin(idx)) < 0)
		return rc;
	if ((rc = delete_fit_rows(idx, "fits", until)) < 0 || (rc = delete_fit_rows(idx, "fit_pairs", until)) < 0) {
		ccsift_index_rollback(idx);
		return rc;
	}
	return ccsift_index_commit(idx);
}

/* A stored pair as a fit wrote it: a logit within a model's bounds, two
 * flags. Anything else was damaged, and a person's point read from it
 * could fall anywhere (a logit of -1e300 keeps everything of theirs). */
static gboolean fit_pair_row(sqlite3_stmt *s, ccsift_fit_pair *p)
{
	int type = sqlite3_column_type(s, 0);

	p->person = sqlite3_column_int64(s, 3);
	p->logit = sqlite3_column_double(s, 0);
	p->engaged = sqlite3_column_int(s, 1);
	p->demotable = sqlite3_column_int(s, 2);
	return (type == SQLITE_FLOAT || type == SQLITE_INTEGER) && isfinite(p->logit) &&
	       fabs(p->logit) <= CCSIFT_MODEL_BOUND && sqlite3_column_type(s, 1) == SQLITE_INTEGER &&
	       sqlite3_column_type(s, 2) == SQLITE_INTEGER && (p->engaged & ~1) == 0 && (p->demotable & ~1) == 0;
}

int ccsift_index_fit_pairs(ccsift_index *idx, int64_t until, int64_t person, GArray *out)
{
	sqlite3_stmt *s;
	int rc;

	/* Stored oldest first: rowid order is the window's order. */
	const char *sql = person < 0 ? "SELECT logit, engaged, demotable, person FROM fit_pairs"
				       " WHERE until = ?1 ORDER BY rowid"
				     : "SELECT logit, engaged, demotable, person FROM fit_pairs"
				       " WHERE until = ?1 AND person = ?2 ORDER BY rowid";

	if (sqlite3_prepare_v2(idx->db, sql, -1, &s, NULL))
		return db_error(idx, "fit pairs");
	sqlite3_bind_int64(s, 1, until);
	if (person >= 0)
		sqlite3_bind_int64(s, 2, person);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		ccsift_fit_pair p;

		if (!fit_pair_row(s, &p)) {
			sqlite3_finalize(s);
			return ccsift_error_set(CCSIFT_ECORRUPT, "stored model: a replayed pair that is not one");
		}
		g_array_append_val(out, p);
	}
	/* Some of the pairs are not the pairs: an error, as none would be. */
	rc = rc == SQLITE_DONE ? 0 : db_error(idx, "fit pairs");
	sqlite3_finalize(s);
	return rc;
}
