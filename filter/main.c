/* main.c: dispatch to one file per subcommand. */
#include <stdio.h>
#include <string.h>
#include <locale.h>
#include "ccsift.h"

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "filter", cmd_filter, "pipe mode: a message in, the same bytes plus X-Ccsift headers out" },
	{ "serve", cmd_serve, "decide for ccsift filter from a resident process, over a Unix socket" },
	{ "tag", cmd_tag, "notmuch post-new mode: decide new messages per thread and tag them" },
	{ "score", cmd_score, "score a patch mail for the given identities" },
	{ "explain", cmd_explain, "the verdict on a mail, in sentences, with the commits" },
	{ "parse", cmd_parse, "what was extracted from a mail" },
	{ "index", cmd_index, "build or update the history index of a repository" },
	{ "who", cmd_who, "sender side: who has substantive history on a patch's files" },
	{ "eval", cmd_eval, "the replay benchmark: does ccsift demote the right mail?" },
	{ "train", cmd_train, "fit the relevance model on the repository's own history" },
	{ "calibrate", cmd_calibrate, "your own threshold, fitted on your addressing history" },
	{ "init", cmd_init, "write a commented config for you and say what to do next" },
	{ "config", cmd_config, "config check: validate the config, say what each repo will match" },
	{ "stats", cmd_stats, "notmuch: how much was demoted, and how much you read or answered anyway" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: ccsift <command> [options]\n\n");
	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
		fprintf(out, "   %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'ccsift <command> --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ccsift %s\n", CCSIFT_VERSION);
		return 0;
	}
	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			/* GOptionContext's "Usage: PRGNAME [OPTION…]" says the whole command. */
			g_autofree char *prgname = g_strconcat("ccsift ", commands[i].name, NULL);

			g_set_prgname(prgname);
			return commands[i].fn(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "ccsift: '%s' is not a command\n", argv[1]);
	usage(stderr);
	return 2;
}
