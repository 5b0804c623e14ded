/* git.c: dlopen libgit2 and resolve what ccsift uses of it. */
#define CCSIFT_GIT_IMPL
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib.h>
#include "git.h"

#ifndef CCSIFT_LIBGIT2_SONAME
#define CCSIFT_LIBGIT2_SONAME "libgit2.so"
#endif

ccsift_git_api ccsift_git;
volatile int ccsift_git_loaded;

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "ccsift: cannot load " CCSIFT_LIBGIT2_SONAME ": %s%s\n", what, detail ? detail : "");
	exit(70);  /* EX_SOFTWARE */
}

void ccsift_git_load(void)
{
	static gsize once;

	if (g_once_init_enter(&once)) {
		void *lib = dlopen(CCSIFT_LIBGIT2_SONAME, RTLD_NOW | RTLD_LOCAL);

		if (!lib)
			fail("", dlerror());
#define CCSIFT_GIT_RESOLVE(f) \
		if (!(ccsift_git.f = (__typeof__(f) *)dlsym(lib, #f))) \
			fail("no symbol ", #f);
		CCSIFT_GIT_FUNCS(CCSIFT_GIT_RESOLVE)
		ccsift_git_loaded = 1;
		g_once_init_leave(&once, 1);
	}
}
