/* error.h: negative error codes with a retrievable message, as libgit2 does. */
#ifndef CCSIFT_ERROR_H
#define CCSIFT_ERROR_H

enum {
	CCSIFT_OK = 0,
	CCSIFT_ERROR = -1,      /* generic failure; see ccsift_error_last() */
	CCSIFT_ENOTFOUND = -3,  /* repository, index, file or object missing */
	CCSIFT_EINVALID = -4,   /* bad input: config, date, mail */
	CCSIFT_EBUSY = -5,      /* index locked by a writer */
	CCSIFT_EIO = -6,        /* read or write failed */
	CCSIFT_ELIMIT = -7,     /* a bound on the work per message was hit */
	CCSIFT_ECORRUPT = -8,   /* stored data damaged (a fit in the index) */
};

/* Record the message for the last error of this thread; returns code. */
int ccsift_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The message of the last error on this thread, never NULL. */
const char *ccsift_error_last(void);

void ccsift_error_clear(void);

/* Control characters of s (a subject, a path, a name from a mail) made
 * '?', so that it prints as text on one line: no newline of its own, no
 * terminal escape. Returns s. */
char *ccsift_printable(char *s);

#endif
