/* decisions.h: what ccsift tag decided, per message, in ccsift's own store.
 *
 * Writing three notmuch properties on every message made tagging 30x
 * slower than notmuch tag --batch: each is a Xapian document update. The
 * whole decision lives here instead, in one small SQLite file keyed by
 * Message-ID ($XDG_DATA_HOME/ccsift/decisions.db; WAL, so explain and stats
 * read while a tag run writes), and notmuch gets a property only where a
 * search needs one (ccsift tag writes ccsift.verdict on low messages and on
 * messages whose verdict changed).
 *
 * The store is refused, like the index, when another user can write it: it
 * says which of our mail was demoted and why.
 */
#ifndef CCSIFT_DECISIONS_H
#define CCSIFT_DECISIONS_H

#include <glib.h>
#include <stdint.h>

typedef struct ccsift_decisions ccsift_decisions;

typedef struct {
	char *id;               /* the Message-ID as notmuch has it, without <> */
	char *verdict;          /* "low", "relevant", "not-a-patch", "unknown" */
	char *own;              /* the message's own, before the thread's rules */
	gboolean was_low;       /* it was low once, and lifted since */
	double score;           /* the probability of engagement; < 0: not scored */
	double threshold;       /* the threshold it was held to; < 0: none */
	char *reason;           /* one line: the thread rule, or the score's summary */
	int64_t decided;        /* when (unix seconds) */
	int model_version;      /* 0: not scored */
	int64_t model_until;    /* the fit's until; 0 for the prior */
	char *repo;             /* the [repo] it was scored against, or NULL */
	/* Its logit less the repository's point, where the model decided it
	 * (the user on Cc, no override): comparable across fits. */
	gboolean has_margin;
	double margin;
	/* When the user wrote in its thread, for the patch of the thread that
	 * scored best (one per thread); 0 otherwise. */
	int64_t replied;
	/* What the thread rules read of the message (ccsift_thread_message_traits),
	 * kept from the last run that read it; -1: none (a put leaves the earlier). */
	int64_t traits;
} ccsift_decision;

void ccsift_decision_free(ccsift_decision *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ccsift_decision, ccsift_decision_free)

/* $XDG_DATA_HOME/ccsift/decisions.db (new string). */
char *ccsift_decisions_default_path(void);

/* Open the store at path (NULL: the default). Writable: create it and its
 * directory (0700) when missing. Read-only: CCSIFT_ENOTFOUND when missing.
 * CCSIFT_EINVALID when another user can write it or it is not a regular
 * file. */
int ccsift_decisions_open(ccsift_decisions **out, const char *path, gboolean writable);
void ccsift_decisions_close(ccsift_decisions *d);

/* The decision recorded for id: 1 and *out (free it), 0 when none, < 0. */
int ccsift_decisions_get(ccsift_decisions *d, const char *id, ccsift_decision **out);

/* Record decisions in one transaction: begin, put each, then commit or
 * roll back. A put replaces an earlier decision for the id, but was_low
 * stays set once set, and a score, threshold, model or repo it lacks (not
 * scored again: a thread rule moved it) stays the earlier one's. begin
 * waits for another writer for a few seconds. */
int ccsift_decisions_begin(ccsift_decisions *d);
int ccsift_decisions_put(ccsift_decisions *d, const ccsift_decision *dec);
int ccsift_decisions_commit(ccsift_decisions *d);
/* Forget the decision for id (NULL: every decision), within a transaction. */
int ccsift_decisions_forget(ccsift_decisions *d, const char *id);
void ccsift_decisions_rollback(ccsift_decisions *d);

/* Call fn on every recorded decision (the fields are valid during the call
 * only); stops at and returns fn's first non-zero value. */
typedef int (*ccsift_decisions_fn)(const ccsift_decision *dec, void *data);
int ccsift_decisions_foreach(ccsift_decisions *d, ccsift_decisions_fn fn, void *data);

/* The margins of the patches the user replied to (one per thread) that
 * were scored against repo, replied to before `before`, the newest
 * CCSIFT_DECISIONS_MAX_REPLIED: the user's own engagement, which a review
 * by mail leaves out of git. */
#define CCSIFT_DECISIONS_MAX_REPLIED 1000
int ccsift_decisions_replied_margins(ccsift_decisions *d, const char *repo, int64_t before, GArray *margins);

#endif
