/* git.c: dlopen libgit2 and resolve what ccsift uses of it. */
#define CCSIFT_GIT_IMPL
#include "git.h"
#include "lazy.h"

#ifndef CCSIFT_LIBGIT2_SONAME
#define CCSIFT_LIBGIT2_SONAME "libgit2.so"
#endif

ccsift_git_api ccsift_git;
volatile int ccsift_git_loaded;

void ccsift_git_load(void)
{
#define RESOLVE(f) ccsift_git.f = (__typeof__(f) *)ccsift_lazy_symbol(lib, CCSIFT_LIBGIT2_SONAME, #f);
	CCSIFT_LAZY_LOAD(ccsift_git_loaded, CCSIFT_LIBGIT2_SONAME, CCSIFT_GIT_FUNCS(RESOLVE));
#undef RESOLVE
}
