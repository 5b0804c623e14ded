/* prescan.h: is a mail within the bounds GMime may be given?
 *
 * GMime's parser builds the whole MIME tree and parses every address
 * header of every message in it while constructing, recursively for
 * groups, multiparts and message/rfc822 parts: a hostile mail could exhaust
 * the stack or take gigabytes. ccsift_prescan reads the raw bytes first, in
 * linear time, and refuses a mail past a bound (CCSIFT_ELIMIT, with the
 * bound in the message) before GMime sees it. Each bound is far beyond any
 * real patch mail.
 *
 * Which lines GMime will read as header fields depends on the very MIME
 * structure being checked, so every line of the mail that GMime could take
 * for a field is counted as one: a superset, never an estimate that a
 * crafted mail can get under.
 */
#ifndef CCSIFT_PRESCAN_H
#define CCSIFT_PRESCAN_H

#include <stddef.h>

/* 0, or CCSIFT_ELIMIT with the error set. GMime must be initialised
 * (ccsift_mail_init): Content-Type fields are read by its own parser. */
int ccsift_prescan(const char *text, size_t len);

#endif
