/* cmd-index.c: ccsift index [--repo DIR] [--status] -- build or update the index. */
#include <stdio.h>
#include <unistd.h>
#include "ccsift.h"
#include "error.h"
#include "history.h"

static int print_status(const char *name, const char *path)
{
	ccsift_index *idx = NULL;
	g_autofree char *tip = NULL, *ref = NULL;

	if (ccsift_index_open(&idx, path, CCSIFT_INDEX_READ_ONLY) < 0) {
		printf("%s: %s\n", name, ccsift_error_last());
		return 1;
	}
	tip = ccsift_index_meta_get(idx, "tip");
	ref = ccsift_index_meta_get(idx, "ref");
	printf("%s: %s\n  ref %s at %s\n  %" G_GINT64_FORMAT " commits, %" G_GINT64_FORMAT " people, %"
	       G_GINT64_FORMAT " paths\n", name, path, ref ? ref : "?", tip ? tip : "?",
	       ccsift_index_count(idx, "commits"), ccsift_index_count(idx, "people"),
	       ccsift_index_count(idx, "paths"));
	ccsift_index_free(idx);
	return 0;
}

static gboolean line_counts;

static int index_one(const char *name, const char *path, const char *ref, const char *index, gboolean status)
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
		rc = print_status(name, index_path);
		goto out;
	}
	if ((rc = ccsift_index_open(&idx, index_path, CCSIFT_INDEX_READ_WRITE)) < 0)
		goto out;
	if ((rc = ccsift_history_update(repo, idx, &ho, &st)) < 0)
		goto out;
	printf("%s: %s at %.12s: %u commits added%s", name, index_path, st.tip, st.added,
	       st.rewritten ? ", history rewritten" : "");
	if (st.pruned)
		printf(", %u pruned", st.pruned);
	putchar('\n');
out:
	if (rc < 0)
		fprintf(stderr, "ccsift index: %s\n", ccsift_error_last());
	ccsift_index_free(idx);
	ccsift_repo_free(repo);
	return rc < 0 ? 1 : 0;
}

int cmd_index(int argc, char **argv)
{
	common_options o = { 0 };
	gboolean status = FALSE;
	g_autofree GOptionEntry *common = common_option_entries(&o, FALSE);
	GOptionEntry extra[] = {
		{ "status", 0, 0, G_OPTION_ARG_NONE, &status, "Tell what is indexed instead of updating", NULL },
		{ "lines", 0, 0, G_OPTION_ARG_NONE, &line_counts, "Count the lines of every change now, as git log --numstat "
		  "does (slower; otherwise counted when first needed)", NULL },
		{ NULL }
	};
	g_autoptr(GArray) entries = g_array_new(TRUE, TRUE, sizeof(GOptionEntry));
	ccsift_config *cfg = NULL;
	int rc = 0;

	for (GOptionEntry *e = common; e->long_name; e++)
		g_array_append_val(entries, *e);
	g_array_append_vals(entries, extra, G_N_ELEMENTS(extra) - 1);
	if (!parse_options(&argc, &argv, "", "Build or update the history index of a repository "
			   "(--repo, or every [repo] of the config).", (GOptionEntry *)entries->data))
		return 2;
	if (o.repo) {
		g_autofree char *name = g_path_get_basename(o.repo);
		rc = index_one(name, o.repo, NULL, o.index, status);
	} else if (ccsift_config_load(&cfg, o.config) < 0) {
		fprintf(stderr, "ccsift index: %s\n", ccsift_error_last());
		rc = 1;
	} else if (!cfg->repos->len) {
		fprintf(stderr, "ccsift index: no repository: give --repo DIR or a [repo NAME] section in %s\n",
			cfg->file ? cfg->file : "the config");
		rc = 1;
	} else {
		for (guint i = 0; i < cfg->repos->len; i++) {
			ccsift_repo_config *r = cfg->repos->pdata[i];
			rc |= index_one(r->name, r->path, r->ref, r->index, status);
		}
	}
	ccsift_config_free(cfg);
	common_options_clear(&o);
	return rc;
}
