/* nm.c: dlopen libnotmuch and resolve what ccsift uses of it. */
#define CCSIFT_NM_IMPL
#include <dlfcn.h>
#include <glib.h>
#include "error.h"
#include "nm.h"

ccsift_nm_api ccsift_nm;

static int load(void)
{
	void *lib = dlopen("libnotmuch.so.5", RTLD_NOW | RTLD_LOCAL);

	if (!lib)
		return ccsift_error_set(CCSIFT_ENOTFOUND, "cannot load libnotmuch: %s", dlerror());
#define CCSIFT_NM_RESOLVE(f) \
	if (!(ccsift_nm.f = (__typeof__(f) *)dlsym(lib, #f))) \
		return ccsift_error_set(CCSIFT_ENOTFOUND, "libnotmuch lacks %s", #f);
	CCSIFT_NM_FUNCS(CCSIFT_NM_RESOLVE)
	return 0;
}

int ccsift_nm_load(void)
{
	static gsize once;
	static int rc;
	static char message[256];

	if (g_once_init_enter(&once)) {
		if ((rc = load()) < 0)
			g_strlcpy(message, ccsift_error_last(), sizeof(message));
		g_once_init_leave(&once, 1);
	}
	return rc < 0 ? ccsift_error_set(rc, "%s", message) : 0;
}
