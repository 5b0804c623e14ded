/* json-lazy.c: dlopen json-glib and resolve what ccsift uses of it. */
#define CCSIFT_JSON_IMPL
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib.h>
#include "json-lazy.h"

#ifndef CCSIFT_JSON_SONAME
#define CCSIFT_JSON_SONAME "libjson-glib-1.0.so"
#endif

ccsift_json_api ccsift_json;
volatile int ccsift_json_loaded;

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "ccsift: cannot load " CCSIFT_JSON_SONAME ": %s%s\n", what, detail ? detail : "");
	exit(70);  /* EX_SOFTWARE */
}

void ccsift_json_load(void)
{
	static gsize once;

	if (g_once_init_enter(&once)) {
		void *lib = dlopen(CCSIFT_JSON_SONAME, RTLD_NOW | RTLD_LOCAL);

		if (!lib)
			fail("", dlerror());
#define CCSIFT_JSON_RESOLVE(f) \
		if (!(ccsift_json.f = (__typeof__(f) *)dlsym(lib, #f))) \
			fail("no symbol ", #f);
		CCSIFT_JSON_FUNCS(CCSIFT_JSON_RESOLVE)
		ccsift_json_loaded = 1;
		g_once_init_leave(&once, 1);
	}
}

/* What g_autoptr(JsonArray) calls, from json-glib's header. */
void json_array_unref(JsonArray *array)
{
	CCSIFT_JSON(json_array_unref)(array);
}
