/* sanitizer.h: marks for a CCSIFT_SANITIZE build (filter/sanitizer-options.c).
 *
 * CCSIFT_LEAKS_NOT_OURS(stmt) runs stmt with LeakSanitizer looking away:
 * for calls into libraries that keep memory for good (libnotmuch's config
 * loading keeps two asprintf'd strings; libgit2 1.5's check of a
 * repository's extensions, the match data of each one).  Bracketing the call, rather than
 * a suppression matched against the allocation's stack, lets the build
 * unwind malloc's stacks by frame pointer: several times faster, and a
 * frame-pointer stack stops at the first library built without one.
 */
#ifndef CCSIFT_SANITIZER_H
#define CCSIFT_SANITIZER_H

#ifdef CCSIFT_SANITIZE
#include <sanitizer/lsan_interface.h>
#define CCSIFT_LEAKS_NOT_OURS(stmt) \
	do { __lsan_disable(); stmt; __lsan_enable(); } while (0)
#else
#define CCSIFT_LEAKS_NOT_OURS(stmt) do { stmt; } while (0)
#endif

#endif
