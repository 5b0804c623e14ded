/* pipe.h: the message as it goes out of pipe mode.
 *
 * The output is the input, byte for byte, plus our header lines, inserted
 * after a leading mbox "From " line (procmail passes it; it must survive)
 * and before the first header, with the message's own line ending. X-Ccsift
 * headers already in the input's header block are not ours to trust: they
 * are renamed to Old-X-Ccsift... so recipes matching ^X-Ccsift: see only
 * ours. The header block is what procmail takes for one: up to the first
 * line that is a bare "\n" (in a CRLF message, the whole message).
 */
#ifndef CCSIFT_PIPE_H
#define CCSIFT_PIPE_H

#include <glib.h>

#define CCSIFT_HEADER "X-Ccsift"
#define CCSIFT_REASON_HEADER "X-Ccsift-Reason"

/* Make a header value safe: printable ASCII, one line, at most max bytes. */
char *ccsift_pipe_header_value(const char *text, size_t max);

/* The annotated message as pieces: our header lines and spans of msg, which
 * is not copied and must outlive it. So a message costs its own size once,
 * however often it is prepared for output. */
typedef struct ccsift_pipe_out ccsift_pipe_out;

ccsift_pipe_out *ccsift_pipe_out_new(const guint8 *msg, size_t len, const char *verdict, const char *reason);
/* Write it all to fd: 0, or -1 with errno. Only write(2): safe in a signal
 * handler. */
int ccsift_pipe_out_write(const ccsift_pipe_out *o, int fd);
void ccsift_pipe_out_free(ccsift_pipe_out *o);

/* read(2) of the input: again after EINTR, and after waiting when the
 * descriptor is non-blocking and has nothing yet. */
ssize_t ccsift_pipe_read(int fd, void *buf, size_t len);

/* The annotated message when only its first len bytes (head) are read and
 * the rest is still to be read from in: head as ccsift_pipe_out_new does,
 * then the rest copied from in to out as it comes, forged headers of ours
 * renamed while the top header block lasts. Memory: head, and 64 KiB. The
 * first line must be whole in head (the line ending of our lines is its,
 * and an mbox "From " line stays first). 0, or -1 with errno (a read or a
 * write failed). */
int ccsift_pipe_stream(int in, int out, const guint8 *head, size_t len, const char *verdict, const char *reason);

/* The same, as one copy (tests, fuzzing). The annotated message: verdict goes into X-Ccsift, reason (may be NULL)
 * into X-Ccsift-Reason. Both are sanitized here. */
GByteArray *ccsift_pipe_annotate(const guint8 *msg, size_t len, const char *verdict, const char *reason);

#endif
