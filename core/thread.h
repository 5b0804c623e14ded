/* thread.h: one verdict per series, and what replies inherit.
 *
 * Given every message of a thread with its own verdict, decide the final
 * ones: a series (cover letter and numbered patches of one version) is low
 * only if every patch in it is low, and the cover follows it (also a cover
 * that names no file and so has no verdict of its own); replies in a
 * low thread stay low unless addressed To the user or quoting a file where
 * the user is relevant; a message from the user makes nothing in the thread
 * low, nor does a message of it the user took out of the low pile by hand;
 * a new version of a series the user engaged with is relevant.
 */
#ifndef CCSIFT_THREAD_H
#define CCSIFT_THREAD_H

#include <glib.h>
#include <stdint.h>
#include "patch.h"
#include "score.h"

typedef struct {
	const char *id;
	ccsift_verdict verdict;     /* the message's own */
	ccsift_patch_kind kind;
	int version;
	int number;                 /* N of [PATCH N/M], -1 if none */
	gboolean reply;             /* a reply that carries no patch of its own */
	gboolean from_me;
	gboolean to_me;
	gboolean quotes_relevant;   /* quotes a diff of a file where the user is relevant */
	gboolean engaged_before;    /* the user replied to an earlier version of this series */
	gboolean no_files;          /* names no file (a cover letter without a diffstat) */
	gboolean lifted;            /* demoted, and the user undid its low tags by hand */
	ccsift_verdict final;       /* out */
	const char *why;            /* out: why final differs from verdict, or NULL */
} ccsift_thread_message;

/* What the rules read of m besides its verdict (kind, version, number and
 * the flags) as one number, for a store to keep: a message that cannot be
 * read again (renamed, gone, crashing a library) still counts as it did.
 * Set back into m by ccsift_thread_message_set_traits. */
int64_t ccsift_thread_message_traits(const ccsift_thread_message *m);
void ccsift_thread_message_set_traits(ccsift_thread_message *m, int64_t traits);

/* Decide final (and why) for every message (ccsift_thread_message *). */
void ccsift_thread_decide(GPtrArray *messages);

#endif
