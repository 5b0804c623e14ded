/* pipe.h: the message as it goes out of pipe mode.
 *
 * The output is the input, byte for byte, plus our header lines, inserted
 * after a leading mbox "From " line (procmail passes it; it must survive)
 * and before the first header, with the message's own line ending. X-Ccsift
 * headers already in the input's header block are not ours to trust: they
 * are renamed to Old-X-Ccsift... so recipes matching ^X-Ccsift: see only
 * ours.
 */
#ifndef CCSIFT_PIPE_H
#define CCSIFT_PIPE_H

#include <glib.h>

#define CCSIFT_HEADER "X-Ccsift"
#define CCSIFT_REASON_HEADER "X-Ccsift-Reason"

/* Make a header value safe: printable ASCII, one line, at most max bytes. */
char *ccsift_pipe_header_value(const char *text, size_t max);

/* The annotated message: verdict goes into X-Ccsift, reason (may be NULL)
 * into X-Ccsift-Reason. Both are sanitized here. */
GByteArray *ccsift_pipe_annotate(const guint8 *msg, size_t len, const char *verdict, const char *reason);

#endif
