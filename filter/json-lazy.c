/* json-lazy.c: dlopen json-glib and resolve what ccsift uses of it. */
#define CCSIFT_JSON_IMPL
#include "json-lazy.h"
#include "lazy.h"

#ifndef CCSIFT_JSON_SONAME
#define CCSIFT_JSON_SONAME "libjson-glib-1.0.so"
#endif

ccsift_json_api ccsift_json;
volatile int ccsift_json_loaded;

void ccsift_json_load(void)
{
#define RESOLVE(f) ccsift_json.f = (__typeof__(f) *)ccsift_lazy_symbol(lib, CCSIFT_JSON_SONAME, #f);
	CCSIFT_LAZY_LOAD(ccsift_json_loaded, CCSIFT_JSON_SONAME, CCSIFT_JSON_FUNCS(RESOLVE));
#undef RESOLVE
}

/* What g_autoptr(JsonArray) calls, from json-glib's header. */
void json_array_unref(JsonArray *array)
{
	CCSIFT_JSON(json_array_unref)(array);
}
