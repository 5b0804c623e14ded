/* mail.h: a patch mail, parsed with GMime from bytes in memory. */
#ifndef CCSIFT_MAIL_H
#define CCSIFT_MAIL_H

#include <stddef.h>
#include "patch.h"

/* Call once per process before parsing (idempotent). */
void ccsift_mail_init(void);

/*
 * Parse one message (RFC 5322, an optional leading mbox "From " line,
 * LF or CRLF) into *out. Every message parses: one that carries no diff,
 * diffstat or pull request comes back as CCSIFT_KIND_NOT_PATCH. Returns
 * 0, or <0 when the bytes are not a message at all (see error.h).
 */
int ccsift_mail_parse(ccsift_patch **out, const char *bytes, size_t len);

#endif
