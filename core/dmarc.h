/* dmarc.h: who really sent it, when a mailing list rewrote the From:.
 *
 * A list relaying mail from a domain with a strict DMARC policy rewrites
 * its From: so that the list's own signature passes. Mailman writes
 * "Wei Gao via ltp <ltp@lists.linux.it>" (and keeps the sender in
 * Reply-To, Cc or X-Original-From); groups.io writes "Doug Flick via
 * groups.io <dougflick=microsoft.com@groups.io>". A commit applied from
 * such mail names the list as its author, every such author becomes one
 * person, and get_maintainer.pl --git Cc's the list as if it were a
 * reviewer. These functions undo the rewrite where it can be undone.
 */
#ifndef CCSIFT_DMARC_H
#define CCSIFT_DMARC_H

#include <glib.h>

/* The address a groups.io rewrite encodes ("local=domain@...groups.io"
 * gives "local@domain"), new string; NULL if email is no such rewrite. */
char *ccsift_dmarc_unwrap_email(const char *email);

/* The sender's own name in a rewritten display name ("Wei Gao via ltp"
 * gives "Wei Gao"), new string; NULL if name says no "via". */
char *ccsift_dmarc_unwrap_name(const char *name);

/* Do two display names name the same person (case and spacing aside)? */
gboolean ccsift_dmarc_same_name(const char *a, const char *b);

#endif
