#include <stdarg.h>
#include <stdio.h>
#include "error.h"

static _Thread_local char last_message[512];

int ccsift_error_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_message, sizeof(last_message), fmt, ap);
	va_end(ap);
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
