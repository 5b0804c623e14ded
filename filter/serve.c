/* serve.c: the wire between ccsift filter and ccsift serve, and the client. */
#define _GNU_SOURCE   /* struct ucred */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "detach.h"
#include "serve.h"

char *serve_socket_path(void)
{
	const char *env = g_getenv("CCSIFT_SOCKET");
	const char *runtime = g_getenv("XDG_RUNTIME_DIR");
	g_autofree char *run_user = NULL;
	struct stat st;

	if (env)
		return *env ? g_strdup(env) : NULL;
	if (runtime && *runtime)
		return g_build_filename(runtime, "ccsift", "filter.sock", NULL);
	run_user = g_strdup_printf("/run/user/%u", (unsigned)getuid());
	if (stat(run_user, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid())
		return g_build_filename(run_user, "ccsift", "filter.sock", NULL);
	return NULL;
}

int serve_private_dir(const char *path)
{
	g_autofree char *dir = g_path_get_dirname(path);
	struct stat st;

	if (g_mkdir_with_parents(dir, 0700) < 0 || stat(dir, &st) < 0 || st.st_uid != getuid() ||
	    (st.st_mode & 077))
		return -1;
	return 0;
}

static void add_path(GPtrArray *c, const char *key, const char *path)
{
	g_autofree char *abs = path ? g_canonicalize_filename(path, NULL) : NULL;

	g_ptr_array_add(c, g_strdup_printf("%s=%s", key, abs ? abs : ""));
}

char *serve_binary(void)
{
	struct stat st;

	if (stat("/proc/self/exe", &st) < 0)
		return g_strdup(SERVE_BINARY_KEY "?");
	return g_strdup_printf(SERVE_BINARY_KEY "%ju:%ju:%jd.%09ld", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
			       (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

GPtrArray *serve_notmuch_configs(void)
{
	const char *config = g_getenv("NOTMUCH_CONFIG"), *profile = g_getenv("NOTMUCH_PROFILE");
	GPtrArray *files = g_ptr_array_new_with_free_func(g_free);

	if (!profile || !*profile)
		profile = NULL;
	if (config && *config) {
		g_ptr_array_add(files, g_strdup(config));
		return files;
	}
	g_ptr_array_add(files, g_build_filename(g_get_user_config_dir(), "notmuch", profile ? profile : "default",
						"config", NULL));
	g_ptr_array_add(files, g_strconcat(g_get_home_dir(), "/.notmuch-config", profile ? "." : "", profile ? profile : "",
					   NULL));
	return files;
}

/* The first of them that is there ("" for none), as a static string. */
static const char *notmuch_config_in_use(void)
{
	static char *in_use;
	g_autoptr(GPtrArray) files = NULL;

	if (in_use)
		return in_use;
	files = serve_notmuch_configs();
	for (guint i = 0; i < files->len; i++)
		if (g_file_test(files->pdata[i], G_FILE_TEST_EXISTS))
			return in_use = g_strdup(files->pdata[i]);
	return in_use = g_strdup("");
}

GPtrArray *serve_context(const common_options *o)
{
	GPtrArray *c = g_ptr_array_new_with_free_func(g_free);

	add_path(c, "config", o->config);
	/* --repo is a clone's path or a configured section's name */
	if (o->repo && g_file_test(o->repo, G_FILE_TEST_IS_DIR))
		add_path(c, "repo", o->repo);
	else
		g_ptr_array_add(c, g_strdup_printf("repo=%s", o->repo ? o->repo : ""));
	add_path(c, "index", o->index);
	for (char **me = o->me; me && *me; me++)
		g_ptr_array_add(c, g_strdup_printf("me=%s", *me));
	g_ptr_array_add(c, g_strdup_printf("as-of=%s", o->as_of ? o->as_of : ""));
	/* unset (below 0): empty, as every option not given */
	if (o->threshold >= 0)
		g_ptr_array_add(c, g_strdup_printf("threshold=%.17g", o->threshold));
	else
		g_ptr_array_add(c, g_strdup("threshold="));
	g_ptr_array_add(c, serve_binary());
	g_ptr_array_add(c, g_strdup_printf("config-dir=%s", g_get_user_config_dir()));
	g_ptr_array_add(c, g_strdup_printf("cache-dir=%s", g_get_user_cache_dir()));
	g_ptr_array_add(c, g_strdup_printf("data-dir=%s", g_get_user_data_dir()));
	/* ~ in the config, and the notmuch config the user's addresses come from */
	g_ptr_array_add(c, g_strdup_printf("home=%s", g_get_home_dir()));
	g_ptr_array_add(c, g_strdup_printf("notmuch-config=%s", notmuch_config_in_use()));
	return c;
}

/* --- the wire --- */

/*
 * All of buf sent (out) or received before deadline (g_get_monotonic_time()
 * microseconds), or -1: a peer that stalls, or doles out a byte at a time,
 * costs at most the time left, not that time per call.
 */
static int transfer_all(int fd, void *buf, size_t len, gboolean out, gint64 deadline)
{
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = out ? POLLOUT : POLLIN };
		gint64 left = deadline - g_get_monotonic_time();
		ssize_t n;
		int ready;

		if (left <= 0)
			return -1;
		ready = poll(&pfd, 1, (int)MIN((left + 999) / 1000, G_MAXINT));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return -1;
		n = out ? send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t len, gint64 deadline)
{
	return transfer_all(fd, (void *)buf, len, TRUE, deadline);
}

static int read_all(int fd, void *buf, size_t len, gint64 deadline)
{
	return transfer_all(fd, buf, len, FALSE, deadline);
}

static gint64 deadline_in(int seconds)
{
	return g_get_monotonic_time() + (gint64)seconds * G_USEC_PER_SEC;
}

static void put_u32(GByteArray *b, guint32 v)
{
	g_byte_array_append(b, (const guint8 *)&v, sizeof(v));
}

static void put_string(GByteArray *b, const char *s, size_t len)
{
	put_u32(b, (guint32)len);
	g_byte_array_append(b, (const guint8 *)s, (guint)len);
}

static int get_u32(int fd, guint32 *v, gint64 deadline)
{
	return read_all(fd, v, sizeof(*v), deadline);
}

/* A string of at most max bytes, NUL-terminated. */
static int get_string(int fd, size_t max, char **out, gint64 deadline)
{
	guint32 len;
	char *s;

	*out = NULL;
	if (get_u32(fd, &len, deadline) < 0 || len > max)
		return -1;
	s = g_malloc(len + 1);
	if (read_all(fd, s, len, deadline) < 0) {
		g_free(s);
		return -1;
	}
	s[len] = '\0';
	*out = s;
	return 0;
}

static int expect_magic(int fd, const char *magic, gint64 deadline)
{
	char buf[32];
	size_t len = strlen(magic);

	return read_all(fd, buf, len, deadline) < 0 || memcmp(buf, magic, len) ? -1 : 0;
}

int serve_read_request(int fd, int timeout_s, GPtrArray **context, GByteArray **raw)
{
	g_autoptr(GPtrArray) c = g_ptr_array_new_with_free_func(g_free);
	gint64 deadline = deadline_in(timeout_s);
	guint32 n, len;

	*context = NULL;
	*raw = NULL;
	if (expect_magic(fd, SERVE_REQUEST_MAGIC, deadline) < 0 || get_u32(fd, &n, deadline) < 0 ||
	    n > SERVE_MAX_CONTEXT)
		return -1;
	for (guint32 i = 0; i < n; i++) {
		char *s;

		if (get_string(fd, SERVE_MAX_STRING, &s, deadline) < 0)
			return -1;
		g_ptr_array_add(c, s);
	}
	if (get_u32(fd, &len, deadline) < 0 || len > CCSIFT_MAX_MESSAGE_SIZE)
		return -1;
	*raw = g_byte_array_sized_new(len);
	g_byte_array_set_size(*raw, len);
	if (read_all(fd, (*raw)->data, len, deadline) < 0) {
		g_clear_pointer(raw, g_byte_array_unref);
		return -1;
	}
	*context = g_steal_pointer(&c);
	return 0;
}

static size_t bounded(const char *s)
{
	return s ? MIN(strlen(s), SERVE_MAX_STRING) : 0;
}

int serve_write_reply(int fd, int timeout_s, int status, const char *verdict, const char *reason,
		      const char *complaint)
{
	g_autoptr(GByteArray) b = g_byte_array_new();

	g_byte_array_append(b, (const guint8 *)SERVE_REPLY_MAGIC, strlen(SERVE_REPLY_MAGIC));
	put_u32(b, (guint32)status);
	put_string(b, verdict ? verdict : "", bounded(verdict));
	put_string(b, reason ? reason : "", bounded(reason));
	put_string(b, complaint ? complaint : "", bounded(complaint));
	return write_all(fd, b->data, b->len, deadline_in(timeout_s));
}

/* --- the client --- */

/* Connected to a server of our own user at path (its pid in *pid);
 * SERVE_ABSENT when nobody listens there, -1 on other failures. */
static int connect_own(const char *path, int timeout_s, pid_t *pid)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = timeout_s };
	struct ucred peer;
	socklen_t peer_len = sizeof(peer);
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	/* the send timeout bounds connect too: a stopped server's backlog fills */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0) {
		close(fd);
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int absent = errno == ENOENT || errno == ECONNREFUSED;

		close(fd);
		return absent ? SERVE_ABSENT : -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) < 0 || peer.uid != getuid()) {
		close(fd);
		return -1;
	}
	if (pid)
		*pid = peer.pid;
	return fd;
}

/*
 * A server that refused us and runs the ccsift installed where ours is
 * before it was installed again (its executable that path, deleted: what
 * make install and dpkg leave a running process of the old file) is told
 * to go. A server makes way itself for a client whose context differs
 * from its own only in the executable; one started before the context
 * had home and notmuch's config in it (e0129f1) does not see that, and
 * refused every delivery after an upgrade while they kept it from ever
 * going idle: no server of the new ccsift could start. Another ccsift
 * installed elsewhere, or a listener that is not ccsift (systemd holding
 * the socket), is left alone.
 */
static void retire_replaced(pid_t pid)
{
	g_autofree char *ours = g_file_read_link("/proc/self/exe", NULL);
	g_autofree char *link = g_strdup_printf("/proc/%d/exe", (int)pid);
	g_autofree char *theirs = g_file_read_link(link, NULL);
	g_autofree char *replaced = ours ? g_strconcat(ours, " (deleted)", NULL) : NULL;

	if (pid > 1 && pid != getpid() && theirs && replaced && strcmp(theirs, replaced) == 0)
		kill(pid, SIGTERM);
}

gboolean serve_listening(const char *path)
{
	int fd = connect_own(path, 1, NULL);

	if (fd < 0)
		return FALSE;
	close(fd);  /* the server reads no request and goes on */
	return TRUE;
}

/* A verdict as a server of ours writes one (verdict_header): a verdict's
 * name, alone or before "; ". Anything else is an answer not to trust. */
static gboolean is_verdict(const char *v)
{
	static const ccsift_verdict all[] = { CCSIFT_VERDICT_UNKNOWN, CCSIFT_VERDICT_NOT_PATCH,
					      CCSIFT_VERDICT_RELEVANT, CCSIFT_VERDICT_LOW };

	for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
		const char *name = ccsift_verdict_name(all[i]);
		size_t n = strlen(name);

		if (strncmp(v, name, n) == 0 && (v[n] == '\0' || v[n] == ';'))
			return TRUE;
	}
	return FALSE;
}

int serve_ask(const char *path, GPtrArray *context, const GByteArray *raw, int timeout_s,
	      char **verdict, char **reason, char **complaint)
{
	g_autoptr(GByteArray) req = g_byte_array_new();
	gint64 deadline = deadline_in(timeout_s);  /* for all of it, however the server stalls */
	guint32 status = SERVE_DECIDED;
	pid_t pid = 0;
	int fd, rc = -1;

	*verdict = *reason = *complaint = NULL;
	if (!path || raw->len > CCSIFT_MAX_MESSAGE_SIZE)
		return -1;
	if ((fd = connect_own(path, timeout_s, &pid)) < 0)
		return fd;
	g_byte_array_append(req, (const guint8 *)SERVE_REQUEST_MAGIC, strlen(SERVE_REQUEST_MAGIC));
	put_u32(req, context->len);
	for (guint i = 0; i < context->len; i++)
		put_string(req, context->pdata[i], strlen(context->pdata[i]));
	put_u32(req, raw->len);
	/* The message goes as it is, not copied into the request. */
	if (write_all(fd, req->data, req->len, deadline) == 0 && write_all(fd, raw->data, raw->len, deadline) == 0 &&
	    expect_magic(fd, SERVE_REPLY_MAGIC, deadline) == 0 && get_u32(fd, &status, deadline) == 0 &&
	    status == SERVE_DECIDED && get_string(fd, SERVE_MAX_STRING, verdict, deadline) == 0 && is_verdict(*verdict) &&
	    get_string(fd, SERVE_MAX_STRING, reason, deadline) == 0 &&
	    get_string(fd, SERVE_MAX_STRING, complaint, deadline) == 0)
		rc = 0;
	close(fd);
	if (status == SERVE_REFUSED)
		retire_replaced(pid);
	if (rc < 0) {
		g_clear_pointer(verdict, g_free);
		g_clear_pointer(reason, g_free);
		g_clear_pointer(complaint, g_free);
	}
	return rc;
}

/* --- starting a server --- */

#define SERVE_LOG_MAX (64 * 1024)

/* The server's command line, from the client's context: the entries that
 * are options, given as they stand there (made absolute; empty: not
 * given), so that the server's own context comes out the same. */
static GPtrArray *server_argv(GPtrArray *context, const char *path, int budget, int idle)
{
	static const char *const options[] = { "config=", "repo=", "index=", "me=", "as-of=", "threshold=" };
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);

	g_ptr_array_add(argv, g_strdup("ccsift"));
	g_ptr_array_add(argv, g_strdup("serve"));
	g_ptr_array_add(argv, g_strdup("--socket"));
	g_ptr_array_add(argv, g_strdup(path));
	g_ptr_array_add(argv, g_strdup_printf("--idle-exit=%d", idle));
	g_ptr_array_add(argv, g_strdup_printf("--time-budget=%d", budget));
	for (guint i = 0; i < context->len; i++) {
		const char *entry = context->pdata[i];

		for (guint k = 0; k < G_N_ELEMENTS(options); k++)
			if (g_str_has_prefix(entry, options[k]) && entry[strlen(options[k])])
				g_ptr_array_add(argv, g_strconcat("--", entry, NULL));
	}
	g_ptr_array_add(argv, NULL);
	return argv;
}

void serve_start(GPtrArray *context, const char *path, int budget, int idle)
{
	g_autoptr(GPtrArray) argv = server_argv(context, path, budget, idle);
	g_autofree char *log = g_strconcat(path, ".log", NULL);
	int fd;

	/* A server would refuse such a directory: start none, at every delivery. */
	if (serve_private_dir(path) < 0 || ccsift_detach() != 0)
		return;
	/* What it has to say (its summary, a decision over the budget) goes
	 * beside its socket, in the directory only the user enters. */
	if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600)) >= 0) {
		struct stat st;

		/* a few lines a server: kept, but not for ever */
		if (fstat(fd, &st) == 0 && st.st_size > SERVE_LOG_MAX && ftruncate(fd, 0) < 0) {
			/* an old log is better than none */
		}
		dup2(fd, 2);
		close(fd);
	}
	if (chdir("/") < 0) {
		/* the options are absolute: the directory does not matter */
	}
	/* The program running now, even if a newer one was installed since:
	 * the client's context names it. */
	execv("/proc/self/exe", (char **)argv->pdata);
	_exit(127);
}
