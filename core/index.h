/* index.h: the history index, one SQLite file per repository.
 *
 * One writer (ccsift index, or a catch-up), many concurrent readers (every
 * delivery), in WAL mode. It covers every author of the repository, so one
 * index serves all users of a mail host. Emails are stored mailmapped and
 * lowercased, a mailing list's DMARC rewrite undone (dmarc.h); times are
 * Unix seconds.
 */
#ifndef CCSIFT_INDEX_H
#define CCSIFT_INDEX_H

#include <glib.h>
#include <stdint.h>

typedef struct ccsift_index ccsift_index;

/* 5: authors whose mail a list rewrote for DMARC are the people it came from.
 * 6: trailers below a line of dashes ("-------") are read, as git reads them.
 * 7: the commits' ids indexed apart from the table, after a first build's walk. */
#define CCSIFT_INDEX_SCHEMA 7

typedef enum {
	CCSIFT_INDEX_READ_ONLY = 0,
	CCSIFT_INDEX_READ_WRITE = 1,  /* create if missing, rebuild on a schema change */
} ccsift_index_mode;

/* How a person is credited by a commit. */
typedef enum {
	CCSIFT_ROLE_AUTHOR,
	CCSIFT_ROLE_COMMITTER,   /* applied it: only when the committer is not the author */
	CCSIFT_ROLE_REVIEWED,
	CCSIFT_ROLE_ACKED,
	CCSIFT_ROLE_TESTED,
	CCSIFT_ROLE_SIGNED,      /* Signed-off-by somewhere in the chain */
	CCSIFT_ROLE_CODEVELOPED,
	CCSIFT_ROLE_REPORTED,
	CCSIFT_ROLE_SUGGESTED,
	CCSIFT_ROLE_COUNT
} ccsift_role;

const char *ccsift_role_name(ccsift_role role);
/* The role for a trailer key ("Reviewed-by"), or -1. */
int ccsift_role_from_trailer(const char *key);

/* Commit flags: evidence that a commit is not focused work on its files. */
enum {
	CCSIFT_COMMIT_TREEWIDE = 1 << 0,  /* "treewide:" subject, Coccinelle, spatch */
	CCSIFT_COMMIT_BOT = 1 << 1,       /* authored by a bot */
	CCSIFT_COMMIT_IGNORED = 1 << 2,   /* listed in .git-blame-ignore-revs */
};

/* Default location: $XDG_CACHE_HOME/ccsift/<name>-<hash of gitdir>.db */
char *ccsift_index_default_path(const char *gitdir);

/* Refuses, with a one-line reason, what is not a regular file (a FIFO, as on
 * a hung filesystem), files and directories others can write (trust.h),
 * and, for READ_WRITE, a directory that would make a refused index.
 * READ_ONLY reads an index on a read-only mount (no -shm) as immutable.
 * READ_WRITE is one writer at a time: it waits CCSIFT_INDEX_LOCK_WAIT
 * seconds for another, then fails with CCSIFT_EBUSY. */
#define CCSIFT_INDEX_LOCK_WAIT 30
int ccsift_index_open(ccsift_index **out, const char *path, ccsift_index_mode mode);
/* READ_WRITE, waiting lock_wait seconds (0: not at all) for another writer. */
int ccsift_index_open_writer(ccsift_index **out, const char *path, int lock_wait);
/* The version of the index a writer found and dropped, being another
 * ccsift's (its tables gone, to be built anew), or 0. */
int ccsift_index_dropped_version(ccsift_index *idx);
void ccsift_index_free(ccsift_index *idx);
/* Read the file through SQLite's page cache from now on, not through a
 * map: every page a map has touched counts in the process's RSS. */
void ccsift_index_unmap(ccsift_index *idx);
/* A first build rewrites the same B-tree pages batch after batch, and a
 * fit reads the same pages case after case: while bulk is on, the writer
 * keeps up to 16 MiB of them (SQLite's 2 MB cache read each back from the
 * WAL or the file) and checkpoints the WAL every 64 MiB, not 4, and
 * ccsift_index_add_commit holds a commit's credits and touches until its
 * transaction commits (ccsift_index_commit, or ccsift_index_finish before
 * it reads them), to write them in key order. Off gives back what it had
 * before, and writes rows still held into their open transaction: 0, or
 * negative if that failed (the transaction is then rolled back). */
int ccsift_index_set_bulk(ccsift_index *idx, gboolean bulk);
const char *ccsift_index_path(const ccsift_index *idx);

/* meta: "tip", "ref", "repo", "maintainers" (the file at the tip),
 * "maintainers-resolved" (ccsift_index_paths_top, a newline, and the file
 * as ccsift_maintainers_resolve gives it against this index). Returned strings are new. */
char *ccsift_index_meta_get(ccsift_index *idx, const char *key);
int ccsift_index_meta_set(ccsift_index *idx, const char *key, const char *value);
int ccsift_index_meta_delete(ccsift_index *idx, const char *key);

/* --- writing (READ_WRITE only) --- */

typedef struct {
	char status;            /* A D M R C T */
	const char *path;
	const char *old_path;   /* R and C */
	int added, removed;     /* lines, -1 when not counted */
} ccsift_touch_record;

typedef struct {
	const char *email;      /* canonical: mailmapped, lowercased */
	const char *name;
	ccsift_role role;
	const char *raw_email;  /* as written in the commit, lowercased */
} ccsift_credit_record;

typedef struct {
	char oid[41];
	const char *subject;
	int64_t atime, ctime;    /* author and committer time */
	unsigned flags;
	int nfiles, ntop;        /* files touched, distinct top-level directories */
	GArray *credits;         /* ccsift_credit_record, author and committer first */
	GArray *touches;         /* ccsift_touch_record */
} ccsift_commit_record;

/* BEGIN IMMEDIATE; within a transaction begun, a savepoint */
int ccsift_index_begin(ccsift_index *idx);
/* Build what a bulk load left for later (secondary indexes); idempotent. */
int ccsift_index_finish(ccsift_index *idx);
int ccsift_index_commit(ccsift_index *idx);
/* Has idx begun writing what it has not committed (what only it sees)? */
gboolean ccsift_index_writing(ccsift_index *idx);
void ccsift_index_rollback(ccsift_index *idx);
int ccsift_index_add_commit(ccsift_index *idx, const ccsift_commit_record *rec);
/* Every indexed commit, newest first (committer time; as a walk from the tip
 * meets them, but for clocks that went back), then in the order added. */
int ccsift_index_each_commit(ccsift_index *idx, void (*fn)(int64_t cid, const char *oid, void *data), void *data);
/* A new .mailmap: ccsift_index_forget_people drops the aliases and what
 * derives from the people (engagement, fits: ccsift_index_finish makes them
 * anew); then commit cid's people (author, committer, credits) and flags
 * become rec's, whose touches are not read. Inside a transaction. */
int ccsift_index_replace_people(ccsift_index *idx, int64_t cid, const ccsift_commit_record *rec);
int ccsift_index_forget_people(ccsift_index *idx);
/* Then the people no credit names any more go, as a fresh build has none
 * (their ids may come back: what derives from them was dropped). */
int ccsift_index_forget_uncredited(ccsift_index *idx);
/* Between these, a person takes the name of the first credit of theirs
 * added or replaced, as a fresh build (whose walk meets the newest first)
 * stores it: an update's if its commit is no older than those indexed
 * before (anew FALSE), or re-reading every commit newest first (anew TRUE)
 * whatever it is. A rename that changes namesakes drops the fits.
 * Without them (a first build) a person keeps the first name added. */
void ccsift_index_naming_begin(ccsift_index *idx, gboolean anew);
void ccsift_index_naming_end(ccsift_index *idx);
gboolean ccsift_index_has_commit(ccsift_index *idx, const char *oid);
/* Remove commits whose oid is not in keep (a set of hex oids), and the paths
 * and people only they named. Returns how many. */
int ccsift_index_prune(ccsift_index *idx, GHashTable *keep);

/* Every commit, with its touches, credits, people and paths, and what
 * derives from them (a shallow clone deepened is indexed again from
 * nothing). Inside a transaction. */
int ccsift_index_forget_commits(ccsift_index *idx);
int ccsift_index_set_flags(ccsift_index *idx, const char *oid, unsigned flags);
/* flag (one bit) cleared from every commit whose oid is not in keep (a set
 * of hex oids): a commit taken out of .git-blame-ignore-revs. */
int ccsift_index_clear_flags(ccsift_index *idx, unsigned flag, GHashTable *keep);
/* The fits of periods ending after the oldest committer time of the
 * commits added or flagged otherwise (here, or by a run that stopped half
 * way) are dropped, with their pairs, to be fitted anew; or, later TRUE
 * (a run stopped half way, which fits nothing), left for the run that
 * ends the update. */
int ccsift_index_forget_stale_fits(ccsift_index *idx, gboolean later);
/* Before an update: did another ccsift keep the index since this one
 * kept it up to the stored tip (or ever)? Then its fits are stale, all of
 * them, and the caller reads every commit's people again. After the
 * update: kept by this ccsift up to tip. */
gboolean ccsift_index_adopt(ccsift_index *idx);
int ccsift_index_kept(ccsift_index *idx, const char *tip);

/* --- reading --- */

typedef struct {
	int64_t cid;            /* the commit's row id in this index */
	const char *oid;        /* hex, borrowed for the callback's duration */
	const char *subject;    /* NULL, and oid, from the credited walk */
	int64_t atime, ctime;
	int64_t author, committer;  /* person ids */
	int nfiles, ntop;
	unsigned flags;
	char status;
	const char *path;
	const char *old_path;   /* or NULL */
	int added, removed;     /* -1 until filled in */
	int roles;              /* the asked people's role bits (the _for walks), else -1 */
} ccsift_touch;

/* Return non-zero from the callback to stop; that value is returned. */
typedef int (*ccsift_touch_fn)(const ccsift_touch *t, void *payload);

/* Every touch of path by a commit with committer time before `before`. */
int ccsift_index_foreach_touch(ccsift_index *idx, const char *path, int64_t before,
			       ccsift_touch_fn fn, void *payload);
/* Every touch of a file directly inside dir ("" is the top) other than `except`. */
int ccsift_index_foreach_sibling_touch(ccsift_index *idx, const char *dir, const char *except,
				       int64_t before, ccsift_touch_fn fn, void *payload);

/* The same walks, each touch with the role bits (1 << role, OR'ed) of the
 * people (person ids) in t->roles: one point lookup per touch. */
int ccsift_index_foreach_touch_for(ccsift_index *idx, const char *path, int64_t before, GArray *people,
				   ccsift_touch_fn fn, void *payload);
int ccsift_index_foreach_sibling_touch_for(ccsift_index *idx, const char *dir, const char *except,
					   int64_t before, GArray *people, ccsift_touch_fn fn, void *payload);
/* The sibling walk as a delivery takes it: the rows of
 * ccsift_index_foreach_sibling_touch_for in its order, but a row none of
 * the people has a role in carries only cid, path, old_path, status, line
 * counts and roles (0): the commit is read for the rows that are
 * evidence only. As of a time some indexed commits are not before, or
 * for no people, it is ccsift_index_foreach_sibling_touch_for. */
int ccsift_index_foreach_sibling_evidence_for(ccsift_index *idx, const char *dir, const char *except,
					      int64_t before, GArray *people, ccsift_touch_fn fn, void *payload);

/* A replay's sibling walks, held in memory (walks.h): every touch of a file
 * directly inside dir, in the order of ccsift_index_foreach_sibling_touch,
 * each with only cid, path, old_path, status and line counts (no time, no
 * commit: ccsift_index_commit_times, ccsift_index_commit_read); roles -1.
 * Reading each row's commit was nine tenths of reading a directory. */
int ccsift_index_foreach_sibling_row(ccsift_index *idx, const char *dir, ccsift_touch_fn fn, void *payload);
/* Every commit's committer time, by its row id (0 where there is none);
 * NULL on error. */
GArray *ccsift_index_commit_times(ccsift_index *idx);
/* Commit cid's columns (no touch's: path NULL, roles -1) to fn; 1 if
 * there is none, negative on error. */
int ccsift_index_commit_read(ccsift_index *idx, int64_t cid, ccsift_touch_fn fn, void *payload);

/* For a hot path (touched by many commits), what a walk of all its touches
 * before as_of would sum with this half-life (breadth x decay, weights.h)
 * and count, precomputed by ccsift_index_finish as of the indexed tip.
 * FALSE (nothing set) unless that is exactly what is stored: another
 * as_of or half-life, a path renamed before as_of, a cold path, or an
 * index not brought up to date by this version. */
gboolean ccsift_index_path_totals(ccsift_index *idx, const char *path, int64_t as_of, double half_life,
				  double *total, int *commits);
/* Where ccsift_index_path_totals said TRUE: the touches of path before
 * `before` by commits crediting one of people (person ids), in the order
 * of ccsift_index_foreach_touch_for, with their role bits; none other.
 * What a scorer reads of them only: no atime, author or committer (0),
 * no oid or subject (NULL: ccsift_index_commit_text). */
int ccsift_index_foreach_credited_touch(ccsift_index *idx, const char *path, int64_t before, GArray *people,
					ccsift_touch_fn fn, void *payload);

/* One read transaction around many queries of a reader (one snapshot, and
 * no locking per statement). Returns whether it began one: pass that to
 * ccsift_index_read_end. */
gboolean ccsift_index_read_begin(ccsift_index *idx);
/* ccsift_index_read_begin on any connection, the writer's too: for a run
 * of reads between its writes, which then take no WAL read lock each. */
gboolean ccsift_index_snapshot_begin(ccsift_index *idx);
/* Changes when another connection commits to the index (PRAGMA data_version). */
int64_t ccsift_index_data_version(ccsift_index *idx);
void ccsift_index_read_end(ccsift_index *idx, gboolean began);

typedef struct {
	int64_t person;
	ccsift_role role;
} ccsift_credit;

/* Credits of one commit, into out (ccsift_credit). */
int ccsift_index_commit_credits(ccsift_index *idx, int64_t cid, GArray *out);
/* Roles of person on commit cid, as a bit set (1 << role); 0 if none. */
unsigned ccsift_index_person_roles(ccsift_index *idx, int64_t cid, int64_t person);

/* Every credit of person: cid (int64_t *, new) -> role bit set, OR'ed into roles
 * (a table made with g_int64_hash, g_int64_equal, g_free). */
int ccsift_index_person_credits(ccsift_index *idx, int64_t person, GHashTable *roles);
/* Every credit of person, a commit once a role, in no set order; fn's
 * non-zero return stops the walk and is returned. */
typedef int (*ccsift_person_credit_fn)(int64_t cid, int role, void *payload);
int ccsift_index_foreach_person_credit(ccsift_index *idx, int64_t person, ccsift_person_credit_fn fn,
					void *payload);

/* How often person engaged with others' patches (Reviewed-by, Acked-by,
 * Tested-by, or applied someone else's commit) with committer time in
 * [after, before); counting stops at limit. */
int ccsift_index_count_engagement(ccsift_index *idx, int64_t person, int64_t after, int64_t before,
				  unsigned limit);

/* Person id for a (mailmapped, any case) email, or -1. */
int64_t ccsift_index_person_id(ccsift_index *idx, const char *email);
/* The canonical email for email as some commit wrote it (the repository's
 * .mailmap applied at index time), or NULL if no commit wrote it so. */
char *ccsift_index_alias(ccsift_index *idx, const char *email);

/* Every email that ccsift_index_alias maps to canonical, into out (new strings). */
int ccsift_index_aliases_of(ccsift_index *idx, const char *canonical, GPtrArray *out);

/* Email of a person id, new string, or NULL. */
char *ccsift_index_person_email(ccsift_index *idx, int64_t person);
char *ccsift_index_person_name(ccsift_index *idx, int64_t person);

/* Everyone of person's name, themselves included, in id order, into out
 * (int64_t): the addresses get_maintainer.pl takes for one person (it
 * deduplicates by name), for a name of two words at least shared by at
 * most 32 addresses; else person alone. None for person < 0. */
int ccsift_index_namesakes(ccsift_index *idx, int64_t person, GArray *out);
/* What person's namesakes share (their name, case-folded: it does not
 * depend on the order a history was indexed in), a new string; NULL when
 * they have none (ccsift_index_namesakes gives person alone). */
char *ccsift_index_namesake_key(ccsift_index *idx, int64_t person);

/* The hex id and subject of the commit of row id cid (new strings): 0, or
 * CCSIFT_ENOTFOUND (both NULL). */
int ccsift_index_commit_text(ccsift_index *idx, int64_t cid, char **oid, char **subject);
/* A commit by (abbreviated) hex id: fills cid and author, returns 0 or CCSIFT_ENOTFOUND. */
int ccsift_index_find_commit(ccsift_index *idx, const char *hex, int64_t *cid, int64_t *author);

/* The indexed path ending in "/tail" (or in "tail" when partial: the cut
 * fell inside a name), most recently touched. New string or NULL. */
char *ccsift_index_resolve_tail(ccsift_index *idx, const char *tail, gboolean partial);
/* Has any commit touched exactly this path? */
gboolean ccsift_index_has_path(ccsift_index *idx, const char *path);
/* MAINTAINERS split into sections (ccsift_maintainers_split of the
 * resolved text), with who each names, for ccsift_index_maintainers_naming:
 * replace them all (READ_WRITE; key: ccsift_index_paths_top when resolved). */
int ccsift_index_maintainers_clear(ccsift_index *idx);
int ccsift_index_maintainers_add(ccsift_index *idx, unsigned no, const char *text, const char *const *emails);
/* Section no lists email, which the .mailmap makes canonical: found by
 * ccsift_index_maintainers_naming under canonical too. */
int ccsift_index_maintainers_alias(ccsift_index *idx, unsigned no, const char *email, const char *canonical);
int ccsift_index_maintainers_done(ccsift_index *idx, int64_t key);
/* The addresses of M: and R: lines the .mailmap maps to another, each to
 * that one, into out (email -> canonical, new strings); FALSE when the
 * index has none stored (made before they were). */
gboolean ccsift_index_maintainer_aliases(ccsift_index *idx, GHashTable *out);
/* The text of every section naming one of emails (a set), in the file's
 * order; NULL unless stored for the paths as they are. New string. */
char *ccsift_index_maintainers_naming(ccsift_index *idx, GHashTable *emails);

/* The greatest row id of paths (paths are only ever added): what
 * ccsift_index_is_dir answers cannot have changed while it stays. */
int64_t ccsift_index_paths_top(ccsift_index *idx);
/* Is there any indexed path below dir/ ? */
gboolean ccsift_index_is_dir(ccsift_index *idx, const char *dir);

/* Cache line counts of one touch (best effort: ignored when read-only or busy). */
void ccsift_index_cache_lines(ccsift_index *idx, int64_t cid, const char *path, int added, int removed);
/* Write cached line counts, if the index is writable. */
void ccsift_index_flush_lines(ccsift_index *idx);

/* A commit as the replay benchmark and calibration see it. */
typedef struct {
	int64_t cid;
	char oid[41];
	int64_t atime, ctime;
	int64_t author, committer;
	int nfiles;
} ccsift_commit_info;

/* Non-merge commits with author time in [since, until), into out (ccsift_commit_info). */
int ccsift_index_commits_between(ccsift_index *idx, int64_t since, int64_t until, GArray *out);
/* Commits crediting person with a role in roles (bit set), committer time in
 * [after, before), newest first, at most limit, into out (ccsift_commit_info). */
int ccsift_index_commits_credited(ccsift_index *idx, int64_t person, unsigned roles, int64_t after,
				  int64_t before, unsigned limit, GArray *out);
/* The paths a commit touched into paths, and the rename source of each (or
 * NULL) into sources, at the same index (new strings). */
int ccsift_index_commit_paths(ccsift_index *idx, int64_t cid, GPtrArray *paths, GPtrArray *sources);

/* --- what a person did lately (the model's person features) --- */

typedef struct {
	unsigned engaged_90, engaged_365;  /* reviewed, acked, tested, applied others' commits */
	unsigned authored_365;
	unsigned with_author;              /* ... of which the author's commits */
} ccsift_activity;

/* Over the year of committer time before `before`; author may be -1. */
int ccsift_index_person_activity(ccsift_index *idx, int64_t person, int64_t author, int64_t before,
				 ccsift_activity *out);
/* Commits by `author` that `person` engaged with in [after, before). */
unsigned ccsift_index_count_engaged_with(ccsift_index *idx, int64_t person, int64_t author, int64_t after,
					 int64_t before);
/* Commits touching a path directly in one of dirs that person engaged
 * with in [after, before), counting up to limit. */
unsigned ccsift_index_count_engaged_in_dirs(ccsift_index *idx, int64_t person, GPtrArray *dirs, int64_t after,
					    int64_t before, unsigned limit);
/* Commits whose subject is of area ("net" for "net: phy: ..." and
 * "net/sched: ...") that person engaged with in [after, before), counting
 * up to limit. */
unsigned ccsift_index_count_engaged_in_area(ccsift_index *idx, int64_t person, const char *area, int64_t after,
					    int64_t before, unsigned limit);
/* Every commit person engaged with, committed at or after since, as
 * ccsift_index_count_engaged_in_area counts them: its committer time and
 * subject (borrowed for the call). */
typedef int (*ccsift_engaged_fn)(int64_t ctime, const char *subject, void *payload);
int ccsift_index_foreach_engaged(ccsift_index *idx, int64_t person, int64_t since, ccsift_engaged_fn fn,
				 void *payload);
/* Do the year tables answer counts over [after, before): a year before
 * the indexed tip, a row a person? */
gboolean ccsift_index_year_answers(ccsift_index *idx, int64_t after, int64_t before);
/* The time the indexed history is as of (activity is measured from it), or
 * -1: its newest committer time that the clock which indexed it could have
 * seen (a commit dated in the future is a wrong clock). */
int64_t ccsift_index_tip_time(ccsift_index *idx);
/* Fix that time for the tip the index names now, by the clock now, once:
 * an update that moved the tip (or found it unmoved) calls it before what
 * it derives as of that time; a run stopped half way does not (its newest
 * commits are not the history's). */
int ccsift_index_tip_time_settle(ccsift_index *idx);
/* The newest indexed commit with committer time before `before` (its id, a
 * new string), or NULL. */
char *ccsift_index_commit_before(ccsift_index *idx, int64_t before);

/* --- fitted models (training.h) --- */

typedef struct {
	int64_t person;
	double logit;
	gboolean engaged, demotable;
} ccsift_fit_pair;

/* The stored model with the greatest until <= at_most (new string, and
 * *until set), or NULL. */
char *ccsift_index_fit_get(ccsift_index *idx, int64_t at_most, int64_t *until);
/* Store a model and its replayed pairs (READ_WRITE), replacing any for until. */
int ccsift_index_fit_store(ccsift_index *idx, int64_t until, const char *model, GArray *pairs);
/* Replace the text of the stored model for until (READ_WRITE), its pairs kept. */
int ccsift_index_fit_set_model(ccsift_index *idx, int64_t until, const char *model);
/* The fit for until and its pairs, gone. */
int ccsift_index_fit_drop(ccsift_index *idx, int64_t until);
/* Whether a read failed since the last call (SQLite's error in the middle
 * of a walk or a count, a statement that would not prepare): the counts
 * the readers gave since may be short, or 0 for no reason. 0, or
 * CCSIFT_EIO with the first failure's message; cleared either way. */
int ccsift_index_take_fault(ccsift_index *idx);

/* The replayed pairs of person (all, if person < 0) in the fit for until, oldest
 * first, into out (ccsift_fit_pair). */
int ccsift_index_fit_pairs(ccsift_index *idx, int64_t until, int64_t person, GArray *out);

/* Every page of the index read (PRAGMA quick_check): 0, or CCSIFT_ECORRUPT
 * naming the first fault. Reads the whole file: for `ccsift index` when
 * it has nothing else to do, not for a delivery. */
int ccsift_index_check(ccsift_index *idx);
/* Counts for `ccsift index --status`. */
int64_t ccsift_index_count(ccsift_index *idx, const char *table);

#endif
