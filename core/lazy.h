/* lazy.h: load a shared library on first use, not at every start.
 *
 * ccsift runs once per delivered message; most commands need only some of
 * libgit2, GMime and json-glib. Each is opened with dlopen the first time
 * one of its functions is called (git.h, gmime-lazy.h, json-lazy.h list
 * them). A library or symbol that cannot be found stops the process with
 * EX_SOFTWARE and a one-line message: procmail and maildrop then keep the
 * message, as for any other failure of the filter.
 */
#ifndef CCSIFT_LAZY_H
#define CCSIFT_LAZY_H

#include <glib.h>

/* dlopen(soname), or exit(70) with a message. */
void *ccsift_lazy_open(const char *soname);

/* dlsym(lib, name), or exit(70) with a message naming soname. */
void *ccsift_lazy_symbol(void *lib, const char *soname, const char *name);

/* Open soname once, then RESOLVE_ALL (which may use `lib`), then set loaded. */
#define CCSIFT_LAZY_LOAD(loaded, soname, RESOLVE_ALL)                \
	do {                                                          \
		static gsize once_;                                   \
		if (g_once_init_enter(&once_)) {                      \
			void *lib = ccsift_lazy_open(soname);         \
			RESOLVE_ALL                                   \
			(loaded) = 1;                                 \
			g_once_init_leave(&once_, 1);                 \
		}                                                     \
	} while (0)

#endif
