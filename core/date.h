/* date.h: the --as-of argument. */
#ifndef CCSIFT_DATE_H
#define CCSIFT_DATE_H

#include <stdint.h>

/* ISO 8601 ("2025-03-01T12:00:00Z", "2025-03-01" as midnight UTC) or
 * "@UNIXTIME". Returns 0 and sets *out, or CCSIFT_EINVALID. */
int ccsift_date_parse(const char *text, int64_t *out);

/* "2024-05-01" for a Unix time, into buf (at least 11 bytes). */
const char *ccsift_date_format(int64_t t, char *buf, unsigned size);

/* "3 hours ago": how long before now Unix time t was. New string. */
char *ccsift_ago(int64_t t);

#endif
