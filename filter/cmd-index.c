/* cmd-index.c: ccsift index [--repo DIR|NAME | --all] [--status] [--lock-timeout S] -- build or update the index. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ccsift.h"
#include "error.h"
#include "date.h"
#include "history.h"
#include "upkeep.h"

/* What is indexed, and how far the ref has moved since. */
static int print_status(const char *name, ccsift_repo *repo, const char *path)
{
	ccsift_index *idx = NULL;
	ccsift_upkeep_staleness st;
	g_autofree char *when = NULL;
	gboolean current;

	if (ccsift_index_open(&idx, path, CCSIFT_INDEX_READ_ONLY) < 0) {
		printf("%s: %s\n", name, ccsift_error_last());
		return 1;
	}
	ccsift_upkeep_staleness_get(repo, idx, &st);
	current = *st.tip && strcmp(st.tip, st.indexed) == 0;
	printf("%s: %s\n", name, path);
	printf("  ref %s at %.12s; indexed up to %.12s", ccsift_repo_ref(repo), st.tip, *st.indexed ? st.indexed : "?");
	if (current)
		printf(": up to date\n");
	else if (*st.tip && *st.indexed && *st.uncounted)
		printf(": behind, how far unknown (%s)\n", st.uncounted);
	else if (*st.tip && *st.indexed)
		printf(": %zu commits behind%s\n", st.behind, st.rewritten ? " (history rewritten)" : "");
	else
		printf("\n");
	when = st.updated ? ccsift_ago(st.updated) : g_strdup("never");
	printf("  checked %s\n", when);
	printf("  %" G_GINT64_FORMAT " commits, %" G_GINT64_FORMAT " people, %" G_GINT64_FORMAT " paths\n",
	       ccsift_index_count(idx, "commits"), ccsift_index_count(idx, "people"),
	       ccsift_index_count(idx, "paths"));
	ccsift_index_free(idx);
	return current ? 0 : 3;
}

static gboolean line_counts;
static int lock_timeout = CCSIFT_INDEX_LOCK_WAIT;

/* The index file and SQLite's beside it, gone (one line if not). */
static int remove_index(const char *path)
{
	static const char *const suffixes[] = { "", "-wal", "-shm" };

	for (size_t i = 0; i < G_N_ELEMENTS(suffixes); i++) {
		g_autofree char *file = g_strconcat(path, suffixes[i], NULL);

		if (unlink(file) < 0 && errno != ENOENT) {
			fprintf(stderr, "ccsift index: cannot remove %s: %s\n", file, g_strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int index_one(const char *name, const char *path, const char *ref, const char *index, gboolean status,
		     gboolean rebuilt)
{
	ccsift_repo *repo = NULL;
	ccsift_index *idx = NULL;
	g_autofree char *index_path = NULL;
	ccsift_history_options ho = { .progress = isatty(2), .line_counts = line_counts };
	ccsift_history_stats st;
	int rc;

	if ((rc = ccsift_repo_open(&repo, path, ref)) < 0)
		goto out;
	index_path = index ? g_strdup(index) : ccsift_index_default_path(ccsift_repo_gitdir(repo));
	if (status) {
		rc = print_status(name, repo, index_path);
		ccsift_repo_free(repo);
		return rc;
	}
	if ((rc = ccsift_index_open_writer(&idx, index_path, lock_timeout)) == CCSIFT_EBUSY) {
		/* It brings the index up to the ref as it found it: not an error. */
		fprintf(stderr, "ccsift index: %s; skipped\n", ccsift_error_last());
		ccsift_repo_free(repo);
		return 0;
	}
	/* Said as for a damaged one: "N commits added" alone read as an update. */
	if (rc == 0 && ccsift_index_dropped_version(idx))
		fprintf(stderr, "ccsift index: %s had index version %d, another ccsift's (this one's is %d); "
			"building it anew\n", index_path, ccsift_index_dropped_version(idx), CCSIFT_INDEX_SCHEMA);
	if (rc == 0)
		rc = ccsift_upkeep_update(repo, idx, &ho, &st);
	/* Damage in a table no update reads (a derived one, say) would stay
	 * until a delivery ran into it, and the delivery asks for this very
	 * command: with nothing new to add, every page is read. */
	if (rc == 0 && !st.added && !st.rewritten && !st.pruned)
		rc = ccsift_index_check(idx);
	if (rc == CCSIFT_ECORRUPT && !rebuilt) {
		/* The index is a cache of the history: a damaged one is built anew
		 * (the decisions of ccsift tag are kept elsewhere). */
		fprintf(stderr, "ccsift index: %s; building it anew\n", ccsift_error_last());
		g_clear_pointer(&idx, ccsift_index_free);
		ccsift_repo_free(repo);
		return remove_index(index_path) < 0 ? 1 : index_one(name, path, ref, index, status, TRUE);
	}
	if (rc < 0)
		goto out;
	printf("%s: %s at %.12s: %u commits added%s", name, index_path, st.tip, st.added,
	       st.rewritten ? ", history rewritten" : "");
	if (st.pruned)
		printf(", %u pruned", st.pruned);
	putchar('\n');
	if (rc > 0)
		printf("%s: the relevance model fitted on this history\n", name);
out:
	if (rc < 0)
		fprintf(stderr, "ccsift index: %s\n", ccsift_error_last());
	ccsift_index_free(idx);
	ccsift_repo_free(repo);
	return rc < 0 ? 1 : 0;
}

/* A configured clone: its section says which ref and index. One whose
 * index another section fills from another ref is refused (each update
 * made the file the other ref's history again). */
static int index_section(const ccsift_config *cfg, const ccsift_repo_config *r, const char *index, gboolean status)
{
	g_autofree char *path = index ? NULL : repo_config_index_path(r);

	if (path && repo_config_index_clash(cfg, r, path) < 0) {
		fprintf(stderr, "ccsift index: %s\n", ccsift_error_last());
		return 1;
	}
	return index_one(r->name, r->path, r->ref, index ? index : r->index, status, FALSE);
}

int cmd_index(int argc, char **argv)
{
	common_options o = { 0 };
	gboolean status = FALSE, all = FALSE;
	GOptionEntry extra[] = {
		{ "all", 0, 0, G_OPTION_ARG_NONE, &all, "Every [repo] of the config (the default without --repo)", NULL },
		{ "status", 0, 0, G_OPTION_ARG_NONE, &status, "Tell what is indexed and how far the ref has moved "
		  "since, instead of updating (exit 3 when behind)", NULL },
		{ "lines", 0, 0, G_OPTION_ARG_NONE, &line_counts, "Count the lines of every change, as git log --numstat does, now and in every later update (slower; without it a change weighs as half substantive)", NULL },
		{ "lock-timeout", 0, 0, G_OPTION_ARG_INT, &lock_timeout, "Seconds to wait for another ccsift index "
		  "updating the same index before skipping it (default 30)", "S" },
		{ NULL }
	};
	g_autofree GOptionEntry *entries = NULL;
	ccsift_config *cfg = NULL;
	ccsift_repo_config *section = NULL;
	int rc = 0;

	entries = option_entries(&o, OPT_BASIC, extra);
	if (!parse_options(&argc, &argv, "", "Build or update the history index of a repository "
			   "(--repo DIR or NAME, or every [repo] of the config).", entries))
		return 2;
	if (all && o.repo) {
		fprintf(stderr, "ccsift index: --all and --repo exclude each other\n");
		return 2;
	}
	if (lock_timeout < 0 || lock_timeout > 86400) {
		fprintf(stderr, "ccsift index: --lock-timeout %d is not from 0 to 86400 seconds\n", lock_timeout);
		return 2;
	}
	if (o.index && !o.repo) {
		fprintf(stderr, "ccsift index: --index needs --repo: which repository goes into it?\n");
		return 2;
	}
	if (ccsift_config_load(&cfg, o.config) < 0) {
		fprintf(stderr, "ccsift index: %s\n", ccsift_error_last());
		rc = 1;
	} else if (o.repo && (section = ccsift_config_repo_find(cfg, o.repo))) {
		/* A configured clone: its section says which ref and index. */
		rc = index_section(cfg, section, o.index, status);
	} else if (o.repo) {
		g_autofree char *name = g_path_get_basename(o.repo);
		rc = index_one(name, o.repo, NULL, o.index, status, FALSE);
	} else if (!cfg->repos->len) {
		fprintf(stderr, "ccsift index: no repository: give --repo DIR or a [repo NAME] section in %s\n",
			cfg->file ? cfg->file : "the config");
		rc = 1;
	} else {
		for (guint i = 0; i < cfg->repos->len; i++) {
			ccsift_repo_config *r = cfg->repos->pdata[i];
			int one = index_section(cfg, r, NULL, status);

			rc = MAX(rc, one);
		}
	}
	ccsift_config_free(cfg);
	common_options_clear(&o);
	return rc;
}
