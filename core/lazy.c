/* lazy.c: the dlopen side of lazy.h. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "lazy.h"

static void G_GNUC_NORETURN fail(const char *soname, const char *what, const char *detail)
{
	fprintf(stderr, "ccsift: cannot load %s: %s%s\n", soname, what, detail ? detail : "");
	exit(70);  /* EX_SOFTWARE */
}

void *ccsift_lazy_open(const char *soname)
{
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!lib)
		fail(soname, "", dlerror());
	return lib;
}

void *ccsift_lazy_symbol(void *lib, const char *soname, const char *name)
{
	void *f = dlsym(lib, name);

	if (!f)
		fail(soname, "no symbol ", name);
	return f;
}
