#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "error.h"

static _Thread_local char last_message[512];

/* Cut to the buffer, a message must not end inside a UTF-8 sequence (a
 * subject, a name, a path): the line it is printed as would not be text. */
static void cut_whole(char *s, size_t len)
{
	size_t lead = len, need;

	while (lead > 0 && ((unsigned char)s[lead - 1] & 0xc0) == 0x80)
		lead--;
	if (lead-- == 0)
		return;
	need = (unsigned char)s[lead] >= 0xf0 ? 4 : (unsigned char)s[lead] >= 0xe0 ? 3 :
	       (unsigned char)s[lead] >= 0xc0 ? 2 : 1;
	if (len - lead < need)
		s[lead] = '\0';
}

int ccsift_error_set(int code, const char *fmt, ...)
{
	char message[sizeof(last_message)];
	va_list ap;
	int n;

	/* Formatted apart: the message may wrap the last one (ccsift_error_last()). */
	va_start(ap, fmt);
	n = vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(message))
		cut_whole(message, sizeof(message) - 1);
	/* A message is one line of text whatever a mail put in it (a path
	 * from a patch quoting "\n" or "\033[31m"): stderr is a log line. */
	ccsift_printable(message);
	memcpy(last_message, message, sizeof(message));
	return code;
}

const char *ccsift_error_last(void)
{
	return last_message[0] ? last_message : "no error";
}

void ccsift_error_clear(void)
{
	last_message[0] = '\0';
}

char *ccsift_printable(char *s)
{
	for (char *c = s; c && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return s;
}
