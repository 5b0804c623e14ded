/* sanitizer-options.c: defaults for a CCSIFT_SANITIZE build.
 *
 * Compiled in rather than set in the environment because procmail and
 * maildrop start their filters with an environment of their own: the
 * tests that run ccsift under them must still fail on a report.
 */
#ifdef CCSIFT_SANITIZE
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);

/* intercept_tls_get_addr=0: with it, GCC 12's LeakSanitizer on Debian 12's
 * glibc records a bogus range for the dynamic TLS of a dlopen'd library
 * (libgit2's) and its tracer dies on it at exit ("Tracer caught signal 11"),
 * depending on nothing but the heap's layout. */
const char *__asan_default_options(void)
{
	return "detect_leaks=1:abort_on_error=0:exitcode=86:intercept_tls_get_addr=0";
}

const char *__ubsan_default_options(void)
{
	return "print_stacktrace=1:halt_on_error=1";
}

#endif
