/* cmd-filter.c: ccsift filter [--config F] [FILE] -- pipe mode.
 *
 * A message in, the same bytes plus X-Ccsift headers out. Whatever goes
 * wrong inside, the message goes through (X-Ccsift: unknown) and the exit
 * status is 0; 75 (EX_TEMPFAIL) only when the input could not be read,
 * the output not written or an option was bad, so that procmail or maildrop
 * keeps the message.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "ccsift.h"
#include "error.h"
#include "pipe.h"
#include "serve.h"

#define EX_TEMPFAIL 75
#define TIME_BUDGET 2   /* seconds per decision, by default */

void filter_decide(session *s, const common_options *o, const GByteArray *raw,
		   char **verdict, char **reason, char **complaint, ccsift_upkeep_target *upkeep, gboolean *due)
{
	g_autoptr(ccsift_patch) patch = NULL;
	g_autoptr(ccsift_result) result = NULL;

	/* (a message over the size limit never gets here: cmd_filter passes
	 * it through, and a server refuses it) */
	*complaint = NULL;
	if (score_message(s, o, raw->data, raw->len, FALSE, &patch, &result) < 0) {
		*verdict = g_strdup("unknown");
		*reason = g_strdup(ccsift_error_last());
		*complaint = g_strdup_printf("ccsift filter: %s", ccsift_error_last());
	} else if ((*reason = patch_over_files(patch))) {
		*verdict = g_strdup("unknown");
	} else {
		*verdict = verdict_header(result);
		*reason = g_strdup(result->summary);
	}
	if (!*complaint)
		*complaint = g_strdup("");
	*due = session_upkeep_due(s, upkeep);
}

/* Decided by the resident ccsift serve at path (NULL: none asked), else
 * here. Either way the same verdict: a server answers only our context.
 * *start: the idle seconds of a server to start once the message is out,
 * when none listened and the config asks for one (0: none). */
static void decide(const common_options *o, const GByteArray *raw, const char *path, GPtrArray *context,
		   int budget, char **verdict, char **reason, ccsift_upkeep_target *upkeep, gboolean *due,
		   int *start)
{
	g_autofree char *complaint = NULL;
	session s = { .one_snapshot = TRUE, .verdict_only = TRUE };
	/* Half the budget to the server: a stalled one leaves time to decide here. */
	int asked = path ? serve_ask(path, context, raw, MAX(1, budget / 2), verdict, reason, &complaint) : -1;

	*start = 0;
	if (asked < 0) {
		filter_decide(&s, o, raw, verdict, reason, &complaint, upkeep, due);
		/* Only a server that will decide as well as this is worth a start. */
		if (asked == SERVE_ABSENT && s.cfg && !*complaint)
			*start = s.cfg->start_server;
		session_close(&s);
	}
	if (*complaint)
		fprintf(stderr, "%s\n", complaint);
}

/*
 * Past the time budget, or when deciding crashes (in GMime, libgit2, SQLite
 * or here), the message goes out as it came, marked unknown: a delivery
 * that dies by a signal is retried and then bounced by the MTA, and the
 * mail is lost. The outputs for those cases are made before deciding, so a
 * handler only writes, on a stack of its own (a stack overflow is one of
 * the crashes).
 */
static ccsift_pipe_out *over_budget, *crashed;

static void pass_through(const ccsift_pipe_out *out, const char *msg, size_t len)
{
	ssize_t ignored = write(2, msg, len);

	(void)ignored;
	if (ccsift_pipe_out_write(out, 1) < 0)
		_exit(EX_TEMPFAIL);
	_exit(close(1) < 0 ? EX_TEMPFAIL : 0);
}

static void on_time_budget(int sig)
{
	static const char msg[] = "ccsift filter: over the time budget; passed through as unknown\n";

	(void)sig;
	pass_through(over_budget, msg, sizeof(msg) - 1);
}

static void on_crash(int sig)
{
	static const char msg[] = "ccsift filter: crashed deciding; passed through as unknown\n";

	(void)sig;
	pass_through(crashed, msg, sizeof(msg) - 1);
}

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

/* The sanitizers' builds keep their own handlers: they report the crash. */
static void catch_crashes(gboolean on)
{
#ifndef CCSIFT_SANITIZE
	static char stack[1 << 16];
	stack_t ss = { .ss_sp = stack, .ss_size = sizeof(stack) };
	struct sigaction sa = { .sa_handler = on ? on_crash : SIG_DFL, .sa_flags = SA_ONSTACK | SA_RESETHAND };

	if (on)
		sigaltstack(&ss, NULL);
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGALRM);
	for (size_t i = 0; i < G_N_ELEMENTS(crash_signals); i++)
		sigaction(crash_signals[i], &sa, NULL);
#else
	(void)on;
	(void)crash_signals;
	(void)on_crash;
#endif
}

static int pass_over_size(int in, const GByteArray *head, const char *reason)
{
	if (ccsift_pipe_stream(in, 1, head->data, head->len, "unknown", reason) < 0 || close(1) < 0) {
		fprintf(stderr, "ccsift filter: cannot pass the message through: %s\n", g_strerror(errno));
		return EX_TEMPFAIL;
	}
	return 0;
}

int cmd_filter(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_time_budget };
	common_options o = { 0 };
	g_autofree GOptionEntry *entries = NULL;
	g_autoptr(GByteArray) raw = NULL;
	ccsift_pipe_out *out;
	ccsift_upkeep_target upkeep = { 0 };
	gboolean due = FALSE;
	int rc = 0, start = 0, in = 0;
	g_autoptr(GError) err = NULL;
	g_autofree char *verdict = NULL, *reason = NULL, *path = NULL;
	g_autoptr(GPtrArray) context = NULL;
	int budget = TIME_BUDGET;
	gboolean no_server = FALSE;
	GOptionEntry extra[] = {
		{ "time-budget", 0, 0, G_OPTION_ARG_INT, &budget, "Seconds a decision may take before the message "
		  "goes out as unknown (default 2; 1 to 3600)", "S" },
		{ "no-server", 0, 0, G_OPTION_ARG_NONE, &no_server, "Decide here, even when a ccsift serve of "
		  "yours is listening", NULL },
		{ NULL }
	};

	/* A closed reader must come back as EPIPE, not kill us silently. */
	signal(SIGPIPE, SIG_IGN);
	/* One output format, the message: no --json. */
	entries = option_entries(&o, OPT_SCORING & ~OPT_JSON, extra);
	if (!parse_options(&argc, &argv, "[FILE]", "Pipe mode: copy a message from stdin (or FILE) to stdout, "
			   "adding X-Ccsift and X-Ccsift-Reason headers.", entries)) {
		return EX_TEMPFAIL;
	}
	if (budget < 1 || budget > 3600) {
		fprintf(stderr, "ccsift filter: --time-budget %d is not from 1 to 3600 seconds\n", budget);
		return EX_TEMPFAIL;
	}
	if ((in = open_message(argc > 1 ? argv[1] : NULL, &err)) < 0 ||
	    !(raw = read_message_fd(in, in ? argv[1] : "stdin", &err))) {
		fprintf(stderr, "ccsift filter: %s\n", err->message);
		return EX_TEMPFAIL;
	}
	/* Over the limit nothing is decided, and the rest is not held: it goes
	 * out as it comes in (a message of gigabytes costs 64 MiB). */
	if ((reason = message_over_size(raw->len))) {
		rc = pass_over_size(in, raw, reason);
		common_options_clear(&o);
		return rc;
	}
	over_budget = ccsift_pipe_out_new(raw->data, raw->len, "unknown", "over the time budget of ccsift filter");
	crashed = ccsift_pipe_out_new(raw->data, raw->len, "unknown", "ccsift filter crashed deciding");
	sigaction(SIGALRM, &sa, NULL);
	catch_crashes(TRUE);
	alarm(budget);
	if (!no_server && (path = serve_socket_path()))
		context = serve_context(&o);
	decide(&o, raw, path, context, budget, &verdict, &reason, &upkeep, &due, &start);
	alarm(0);
	catch_crashes(FALSE);
	out = ccsift_pipe_out_new(raw->data, raw->len, verdict, reason);
	if (ccsift_pipe_out_write(out, 1) < 0 || close(1) < 0) {
		fprintf(stderr, "ccsift filter: cannot write the message: %s\n", g_strerror(errno));
		rc = EX_TEMPFAIL;
	}
	ccsift_pipe_out_free(out);
	ccsift_pipe_out_free(over_budget);
	ccsift_pipe_out_free(crashed);
	/* The message is out: now the index may catch up with a moved ref. */
	if (due && rc == 0)
		ccsift_upkeep_spawn(&upkeep);
	/* No server listened: start one for the deliveries that follow. */
	if (start && rc == 0)
		serve_start(context, path, budget, start);
	ccsift_upkeep_target_clear(&upkeep);
	common_options_clear(&o);
	return rc;
}
