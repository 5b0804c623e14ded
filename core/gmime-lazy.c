/* gmime-lazy.c: dlopen GMime and resolve what ccsift uses of it. */
#define CCSIFT_GMIME_IMPL
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib.h>
#include "gmime-lazy.h"

#ifndef CCSIFT_GMIME_SONAME
#define CCSIFT_GMIME_SONAME "libgmime-3.0.so"
#endif

ccsift_gmime_api ccsift_gmime;
volatile int ccsift_gmime_loaded;

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "ccsift: cannot load " CCSIFT_GMIME_SONAME ": %s%s\n", what, detail ? detail : "");
	exit(70);  /* EX_SOFTWARE */
}

void ccsift_gmime_load(void)
{
	static gsize once;

	if (g_once_init_enter(&once)) {
		void *lib = dlopen(CCSIFT_GMIME_SONAME, RTLD_NOW | RTLD_LOCAL);

		if (!lib)
			fail("", dlerror());
#define CCSIFT_GMIME_RESOLVE(f) \
		if (!(ccsift_gmime.f = (__typeof__(f) *)dlsym(lib, #f))) \
			fail("no symbol ", #f);
		CCSIFT_GMIME_FUNCS(CCSIFT_GMIME_RESOLVE)
		ccsift_gmime_loaded = 1;
		g_once_init_leave(&once, 1);
	}
}
