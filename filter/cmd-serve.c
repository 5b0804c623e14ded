/* cmd-serve.c: ccsift serve -- decide for ccsift filter from a resident process.
 *
 * It loads the MIME library and opens the index once, then answers
 * ccsift filter over a Unix socket (serve.h), one message at a time, with
 * the session kept open between them as ccsift tag keeps it. The session
 * starts again whenever the config, the index or the decisions store has
 * changed on disk since the last message, so that a served verdict is the
 * one an in-process ccsift filter would reach. A decision past the time
 * budget ends the server (the client decides in-process; socket activation
 * starts a fresh one).
 *
 * The socket is the one systemd passes (LISTEN_FDS, ccsift-filter.socket),
 * or one it makes itself in a directory only the user can enter.
 */
#define _GNU_SOURCE   /* struct ucred */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "ccsift.h"
#include "decisions.h"
#include "error.h"
#include "mail.h"
#include "serve.h"

#define SD_LISTEN_FDS_START 3
/* Seconds a client may take to send its whole message (it has it all in
 * memory: 64 MiB goes in well under one), and to take the reply: while
 * one client stalls the next ones wait, and then decide by themselves. */
#define READ_TIMEOUT 3
/* A session's caches (SQLite's pages, the scorer's people and files) grow
 * with every new file and person it meets: once they take this much private
 * memory the session starts again, and the server stays under 30 MB. */
#define SESSION_GROWTH_KIB (14 * 1024)

typedef struct {
	common_options o;
	GPtrArray *context;     /* what a client's must equal */
	session s;
	GPtrArray *config_files; /* what any session reads and never writes */
	GPtrArray *store_files; /* the decisions store, which a session may touch */
	GPtrArray *index_files; /* the open session's index, once it has one */
	char *watched_index;    /* the index they were listed for ("" none) */
	char *seen;             /* their state when the session last read them */
	int budget;
	unsigned decided, refused;
	unsigned sessions;      /* opened: 1 + restarts, when anything changed */
	unsigned long base_kib; /* private memory before any session */
} server;

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static void on_time_budget(int sig)
{
	static const char msg[] = "ccsift serve: a decision went over the time budget; exiting\n";
	ssize_t ignored;

	(void)sig;
	ignored = write(2, msg, sizeof(msg) - 1);
	(void)ignored;
	_exit(70);
}

/* The socket systemd passed, if it passed us one. */
static int systemd_socket(void)
{
	const char *pid = g_getenv("LISTEN_PID"), *fds = g_getenv("LISTEN_FDS");

	if (!pid || !fds || strtol(pid, NULL, 10) != (long)getpid() || strtol(fds, NULL, 10) < 1)
		return -1;
	g_unsetenv("LISTEN_PID");
	g_unsetenv("LISTEN_FDS");
	g_unsetenv("LISTEN_FDNAMES");
	return SD_LISTEN_FDS_START;
}

/* Bind and listen at path, unless a server listens there already. */
static int bind_unless_live(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	g_autofree char *tmp = g_strdup_printf("%s.%d", path, (int)getpid());
	struct stat st;
	int fd;

	if (strlen(tmp) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "ccsift serve: the socket path %s is too long\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		fprintf(stderr, "ccsift serve: another server is listening at %s\n", path);
		close(fd);
		return -1;
	}
	/* Bound and listening under a name of its own, then renamed into place:
	 * a client never finds a socket that refuses it. */
	strcpy(sa.sun_path, tmp);
	unlink(tmp);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 64) < 0 ||
	    (lstat(path, &st) == 0 && !S_ISSOCK(st.st_mode) && (errno = EEXIST)) || rename(tmp, path) < 0) {
		fprintf(stderr, "ccsift serve: cannot listen at %s: %s\n", path, g_strerror(errno));
		unlink(tmp);
		close(fd);
		return -1;
	}
	return fd;
}

/* Listen at path, in a directory of ours that nobody else can enter. A
 * socket file left by a server that died is replaced; a live one is not.
 * Servers starting at once (deliveries start them) take turns at path.lock:
 * the first listens, the others find it listening and leave. bound: the
 * socket file, as made. */
static int listen_at(const char *path, struct stat *bound)
{
	g_autofree char *lock = g_strconcat(path, ".lock", NULL);
	int fd, lfd;

	if (serve_private_dir(path) < 0) {
		g_autofree char *dir = g_path_get_dirname(path);

		fprintf(stderr, "ccsift serve: %s must be a directory of yours that only you can enter\n", dir);
		return -1;
	}
	if ((lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0 || flock(lfd, LOCK_EX) < 0) {
		fprintf(stderr, "ccsift serve: cannot lock %s: %s\n", lock, g_strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	if ((fd = bind_unless_live(path)) >= 0 && lstat(path, bound) < 0) {
		close(fd);
		fd = -1;
	}
	close(lfd);
	return fd;
}

/* Remove the socket at path if it is still ours (ours: as it was when
 * bound): a server started after ours was removed may have put its own
 * there. Under path.lock, which starting servers take. */
static void unlink_own(const char *path, const struct stat *ours)
{
	g_autofree char *lock = g_strconcat(path, ".lock", NULL);
	struct stat there;
	int lock_fd = open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);

	if (lock_fd >= 0)
		flock(lock_fd, LOCK_EX);
	if (lstat(path, &there) == 0 && there.st_dev == ours->st_dev && there.st_ino == ours->st_ino)
		unlink(path);
	if (lock_fd >= 0)
		close(lock_fd);
}

/* --- keeping the session true to the files --- */

/* A file a session reads, its -wal (for SQLite's) and its directory (whose
 * mode the trust checks read). */
static void add_watched(GPtrArray *w, const char *path, gboolean wal)
{
	g_autofree char *dir = g_path_get_dirname(path);

	g_ptr_array_add(w, g_strdup(path));
	if (wal)
		g_ptr_array_add(w, g_strconcat(path, "-wal", NULL));
	g_ptr_array_add(w, g_strconcat(dir, "/", NULL));
}

/* The configs any session reads (ours, notmuch's), known before one opens. */
static GPtrArray *config_files(server *sv)
{
	GPtrArray *w = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *user = g_build_filename(g_get_user_config_dir(), "ccsift", "config", NULL);
	g_autoptr(GPtrArray) notmuch = serve_notmuch_configs();

	if (sv->o.config) {
		add_watched(w, sv->o.config, FALSE);
	} else {
		add_watched(w, user, FALSE);
		add_watched(w, "/etc/ccsift/config", FALSE);
	}
	for (guint i = 0; i < notmuch->len; i++)
		add_watched(w, notmuch->pdata[i], FALSE);
	return w;
}

static GPtrArray *store_files(void)
{
	GPtrArray *w = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *store = ccsift_decisions_default_path();

	add_watched(w, store, TRUE);
	return w;
}

/*
 * What a change to each file changes (and, for the trust checks, its owner
 * and mode); of a directory (a path ending in /) its owner and mode only:
 * its times change with every file made in it, as the index's -wal.
 */
static char *state_of(GPtrArray *files)
{
	GString *key = g_string_new(NULL);
	struct stat st;

	for (guint i = 0; files && i < files->len; i++) {
		const char *path = files->pdata[i];

		if (stat(path, &st) < 0)
			g_string_append(key, "-;");
		else if (g_str_has_suffix(path, "/"))
			g_string_append_printf(key, "%ju:%ju:%o:%u;", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
					       (unsigned)st.st_mode, (unsigned)st.st_uid);
		else
			g_string_append_printf(key, "%ju:%ju:%jd:%ld.%09ld:%o:%u;", (uintmax_t)st.st_dev,
					       (uintmax_t)st.st_ino, (intmax_t)st.st_size, (long)st.st_mtim.tv_sec,
					       st.st_mtim.tv_nsec, (unsigned)st.st_mode, (unsigned)st.st_uid);
	}
	return g_string_free(key, FALSE);
}

static void restart_session(server *sv)
{
	session_close(&sv->s);
	sv->s = (session){ .verdict_only = TRUE };
	g_clear_pointer(&sv->index_files, g_ptr_array_unref);
	g_clear_pointer(&sv->watched_index, g_free);
	g_clear_pointer(&sv->seen, g_free);
}

/* Private (anonymous) memory of this process in KiB, 0 if unknown. */
static unsigned long private_kib(void)
{
	unsigned long size, resident, shared;
	FILE *f = fopen("/proc/self/statm", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%lu %lu %lu", &size, &resident, &shared);
	fclose(f);
	return n == 3 && resident > shared ? (resident - shared) * (unsigned long)(sysconf(_SC_PAGESIZE) / 1024) : 0;
}

/* --- one client --- */

static gboolean same_strings(GPtrArray *a, GPtrArray *b)
{
	if (a->len != b->len)
		return FALSE;
	for (guint i = 0; i < a->len; i++)
		if (strcmp(a->pdata[i], b->pdata[i]))
			return FALSE;
	return TRUE;
}

/* The state of the databases a session reads (and may write: SQLite makes
 * a -wal, a first sight of a file counts its lines into the index). */
static char *databases_state(server *sv)
{
	g_autofree char *store = state_of(sv->store_files);
	g_autofree char *index = state_of(sv->index_files);

	return g_strconcat(store, index, NULL);
}

static void decide(server *sv, const GByteArray *raw, char **verdict, char **reason, char **complaint,
		   ccsift_upkeep_target *upkeep, gboolean *due)
{
	/* The configs as they were before deciding: one changed while a new
	 * session read it is read again with the next message. */
	g_autofree char *configs = state_of(sv->config_files);
	g_autofree char *databases = databases_state(sv);
	g_autofree char *before = g_strconcat(configs, databases, NULL);
	const char *index;
	gboolean began = FALSE;

	if (sv->seen && strcmp(before, sv->seen))
		restart_session(sv);
	if (!sv->seen)
		sv->sessions++;
	/* Each message its own read transaction: never a snapshot held between
	 * messages, which would keep the index's writer from checkpointing. */
	if (sv->s.idx)
		began = ccsift_index_read_begin(sv->s.idx);
	filter_decide(&sv->s, &sv->o, raw, verdict, reason, complaint, upkeep, due);
	if (sv->s.idx)
		ccsift_index_read_end(sv->s.idx, began);
	if (**complaint) {
		/* Whatever failed may have left the session half open. */
		restart_session(sv);
		return;
	}
	index = sv->s.idx ? ccsift_index_path(sv->s.idx) : "";
	if (!sv->seen || strcmp(index, sv->watched_index)) {
		/* A new session, or another repository's index: the databases
		 * as its opening left them (each message reads them in a
		 * transaction of its own). */
		g_clear_pointer(&sv->index_files, g_ptr_array_unref);
		sv->index_files = g_ptr_array_new_with_free_func(g_free);
		if (*index)
			add_watched(sv->index_files, index, TRUE);
		g_free(sv->watched_index);
		sv->watched_index = g_strdup(index);
		g_free(databases);
		databases = databases_state(sv);
		g_free(before);
		before = g_strconcat(configs, databases, NULL);
	}
	g_free(sv->seen);
	sv->seen = g_steal_pointer(&before);
	if (private_kib() > sv->base_kib + SESSION_GROWTH_KIB) {
		restart_session(sv);
		/* what the session freed goes back to the system, not to a later one */
		malloc_trim(0);
	}
}

/* Does the client run another executable than ours, in our context
 * otherwise? Then ccsift was installed again under us. */
static gboolean newer_program(GPtrArray *theirs, GPtrArray *ours)
{
	guint differ = 0;
	gboolean binary = FALSE;

	if (theirs->len != ours->len)
		return FALSE;
	for (guint i = 0; i < ours->len; i++) {
		if (strcmp(theirs->pdata[i], ours->pdata[i]) == 0)
			continue;
		differ++;
		binary = g_str_has_prefix(ours->pdata[i], SERVE_BINARY_KEY);
	}
	return differ == 1 && binary;
}

/* Answer the client on fd. due: the index should catch up (after fd is
 * closed, so that the catch-up holds no client's connection). */
static void serve_one(server *sv, int fd, ccsift_upkeep_target *upkeep, gboolean *due)
{
	struct ucred peer;
	socklen_t peer_len = sizeof(peer);
	g_autoptr(GPtrArray) context = NULL;
	g_autoptr(GByteArray) raw = NULL;
	g_autofree char *verdict = NULL, *reason = NULL, *complaint = NULL;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) < 0 || peer.uid != getuid())
		return;
	if (serve_read_request(fd, READ_TIMEOUT, &context, &raw) < 0)
		return;
	if (!same_strings(context, sv->context)) {
		sv->refused++;
		serve_write_reply(fd, READ_TIMEOUT, SERVE_REFUSED, NULL, NULL, NULL);
		if (newer_program(context, sv->context)) {
			/* ccsift was upgraded: make way for the new one (socket
			 * activation starts it with the next delivery). */
			fprintf(stderr, "ccsift serve: a client runs another ccsift binary; exiting\n");
			stopping = 1;
		}
		return;
	}
	alarm((unsigned)sv->budget);
	decide(sv, raw, &verdict, &reason, &complaint, upkeep, due);
	alarm(0);
	sv->decided++;
	if (*complaint)
		fprintf(stderr, "%s\n", complaint);
	serve_write_reply(fd, READ_TIMEOUT, SERVE_DECIDED, verdict, reason, complaint);
}

/* How long poll may wait for a client: what is left of the idle seconds
 * since the last decision (0: none), or for ever (-1) without a limit. */
static int idle_left_ms(int idle, gint64 last_decided)
{
	gint64 left = last_decided + (gint64)idle * G_USEC_PER_SEC - g_get_monotonic_time();

	if (!idle)
		return -1;
	return left > 0 ? (int)MIN((left + 999) / 1000, G_MAXINT) : 0;
}

int cmd_serve(int argc, char **argv)
{
	server sv = { .budget = 2, .s = { .verdict_only = TRUE } };
	g_autofree GOptionEntry *entries = NULL;
	g_autofree char *path = NULL;
	char *socket_opt = NULL;
	int idle = 0, max_messages = 0, lfd;
	gint64 last_decided;
	struct stat bound;      /* our socket file, as bound */
	gboolean own_socket;
	struct sigaction stop = { .sa_handler = on_stop }, budget = { .sa_handler = on_time_budget };
	GOptionEntry extra[] = {
		{ "socket", 0, 0, G_OPTION_ARG_FILENAME, &socket_opt, "Listen at PATH (default: $CCSIFT_SOCKET, "
		  "else $XDG_RUNTIME_DIR/ccsift/filter.sock)", "PATH" },
		{ "time-budget", 0, 0, G_OPTION_ARG_INT, &sv.budget, "Seconds a decision may take before the server "
		  "exits (default 2; 1 to 3600)", "S" },
		{ "idle-exit", 0, 0, G_OPTION_ARG_INT, &idle, "Exit after S seconds without a message (default 0: never)", "S" },
		{ "max-messages", 0, 0, G_OPTION_ARG_INT, &max_messages, "Exit after N messages (default 0: no limit)", "N" },
		{ NULL }
	};

	signal(SIGPIPE, SIG_IGN);
	entries = option_entries(&sv.o, OPT_SCORING & ~OPT_JSON, extra);
	if (!parse_options(&argc, &argv, "", "Decide for ccsift filter from a resident process: ccsift filter "
			   "asks it over a Unix socket, and decides by itself when no server of yours answers.", entries))
		return 2;
	if (sv.budget < 1 || sv.budget > 3600 || idle < 0 || idle > 1000000 || max_messages < 0) {
		fprintf(stderr, "ccsift serve: --time-budget is 1 to 3600 seconds, --idle-exit 0 to 1000000, "
			"--max-messages not negative\n");
		return 2;
	}
	path = socket_opt ? g_strdup(socket_opt) : serve_socket_path();
	own_socket = (lfd = systemd_socket()) < 0;
	if (own_socket) {
		if (!path) {
			fprintf(stderr, "ccsift serve: nowhere to listen: give --socket PATH or set XDG_RUNTIME_DIR\n");
			return 2;
		}
		if ((lfd = listen_at(path, &bound)) < 0)
			return 1;
	}
	sv.context = serve_context(&sv.o);
	sv.config_files = config_files(&sv);
	sv.store_files = store_files();
	ccsift_mail_init();
	sv.base_kib = private_kib();
	sigaction(SIGTERM, &stop, NULL);
	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGALRM, &budget, NULL);
	/* Idle means nothing decided: a server whose context no client has
	 * any more (a notmuch config made since) refuses them all, and must
	 * not be kept alive by them, in the way of one that would decide. */
	last_decided = g_get_monotonic_time();
	while (!stopping && (!max_messages || sv.decided + sv.refused < (unsigned)max_messages)) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		ccsift_upkeep_target upkeep = { 0 };
		gboolean due = FALSE;
		int wait_ms = idle_left_ms(idle, last_decided);
		int n = wait_ms ? poll(&p, 1, wait_ms) : 0, fd;
		unsigned decided = sv.decided;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;  /* idle, or the socket failed */
		if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0)
			continue;
		serve_one(&sv, fd, &upkeep, &due);
		close(fd);
		if (sv.decided != decided)
			last_decided = g_get_monotonic_time();
		if (due) {
			/* The catch-up is a fork of this process, and SQLite keeps
			 * what it knows of an open file per process: with our index
			 * open it would wait forever on locks it thinks it holds. */
			restart_session(&sv);
			ccsift_upkeep_spawn(&upkeep);
		}
		ccsift_upkeep_target_clear(&upkeep);
	}
	fprintf(stderr, "ccsift serve: %u messages decided in %u sessions, %u refused (another context)\n",
		sv.decided, sv.sessions, sv.refused);
	if (own_socket) {
		close(lfd);
		unlink_own(path, &bound);
	}
	restart_session(&sv);
	g_ptr_array_unref(sv.config_files);
	g_ptr_array_unref(sv.store_files);
	g_ptr_array_unref(sv.context);
	common_options_clear(&sv.o);
	g_free(socket_opt);
	return 0;
}
