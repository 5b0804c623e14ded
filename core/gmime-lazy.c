/* gmime-lazy.c: dlopen GMime and resolve what ccsift uses of it. */
#define CCSIFT_GMIME_IMPL
#include "gmime-lazy.h"
#include "lazy.h"

#ifndef CCSIFT_GMIME_SONAME
#define CCSIFT_GMIME_SONAME "libgmime-3.0.so"
#endif

ccsift_gmime_api ccsift_gmime;
volatile int ccsift_gmime_loaded;

void ccsift_gmime_load(void)
{
#define RESOLVE(f) ccsift_gmime.f = (__typeof__(f) *)ccsift_lazy_symbol(lib, CCSIFT_GMIME_SONAME, #f);
	CCSIFT_LAZY_LOAD(ccsift_gmime_loaded, CCSIFT_GMIME_SONAME, CCSIFT_GMIME_FUNCS(RESOLVE));
#undef RESOLVE
}
