/* upkeep.c: catch the index up with a moved ref, once per interval. */
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <unistd.h>
#include "detach.h"
#include "error.h"
#include "history.h"
#include "repo.h"
#include "sanitizer.h"
#include "upkeep.h"
#include "training.h"

#define META_CHECKED "checked"

/* The last time the index was found current or brought up: a check by the
 * catch-up, or an update by ccsift index. */
static gint64 last_check(ccsift_index *idx)
{
	g_autofree char *checked = ccsift_index_meta_get(idx, META_CHECKED);
	g_autofree char *updated = ccsift_index_meta_get(idx, "updated");

	return MAX(checked ? g_ascii_strtoll(checked, NULL, 10) : 0,
		   updated ? g_ascii_strtoll(updated, NULL, 10) : 0);
}

gboolean ccsift_upkeep_due(ccsift_index *idx, int interval, gint64 now)
{
	return interval > 0 && now - last_check(idx) >= interval;
}

/* Of many processes finding the check due, one records that it checks. */
static gboolean claim(ccsift_index *idx, int interval)
{
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;
	g_autofree char *stamp = g_strdup_printf("%" G_GINT64_FORMAT, now);
	gboolean mine = FALSE;

	if (ccsift_index_begin(idx) < 0)
		return FALSE;
	if (ccsift_upkeep_due(idx, interval, now) && ccsift_index_meta_set(idx, META_CHECKED, stamp) == 0)
		mine = TRUE;
	if (!mine) {
		ccsift_index_rollback(idx);
		return FALSE;
	}
	return ccsift_index_commit(idx) == 0;
}

/*
 * The history and the fit of its newest period, as one change: a delivery
 * meanwhile decides on the index as it was or as it is now, never on a
 * rewritten history half pruned or without its fit (which would be the
 * prior's, a threshold from neither). A first build commits as it goes:
 * nobody decides on it yet, and a deadline keeps what is done.
 */
int ccsift_upkeep_update(ccsift_repo *repo, ccsift_index *idx, const ccsift_history_options *ho,
			 ccsift_history_stats *st)
{
	gboolean whole = ccsift_index_count(idx, "commits") > 0;
	int rc, fitted = 0;

	if (whole && (rc = ccsift_index_begin(idx)) < 0)
		return rc;
	if ((rc = ccsift_history_update(repo, idx, ho, st)) < 0) {
		if (whole)
			ccsift_index_rollback(idx);
		return rc;
	}
	/* The fit reads little of the pack the history was read from. */
	ccsift_repo_release(repo);
	if (!st->partial)
		fitted = ccsift_training_upkeep(repo, idx, ho && ho->progress);
	/* A fit that failed leaves the history updated, as it always did. */
	if (whole && (rc = ccsift_index_commit(idx)) < 0)
		return rc;
	return fitted;
}

int ccsift_upkeep_run(const ccsift_upkeep_target *t)
{
	ccsift_history_options ho = { .deadline = g_get_monotonic_time() + CCSIFT_UPKEEP_BUDGET * G_USEC_PER_SEC };
	ccsift_history_stats st;
	ccsift_index *idx = NULL;
	ccsift_repo *repo = NULL;
	int rc;

	if (!g_file_test(t->index, G_FILE_TEST_IS_REGULAR))
		return ccsift_error_set(CCSIFT_ENOTFOUND, "no index at %s (run: ccsift index)", t->index);
	if ((rc = ccsift_index_open(&idx, t->index, CCSIFT_INDEX_READ_WRITE)) < 0)
		return rc;
	if (!claim(idx, t->interval)) {
		ccsift_index_free(idx);
		return 0;
	}
	if ((rc = ccsift_repo_open(&repo, t->repo, t->ref)) == 0 &&
	    (rc = ccsift_upkeep_update(repo, idx, &ho, &st)) >= 0)
		rc = st.added > 0;
	ccsift_repo_free(repo);
	ccsift_index_free(idx);
	return rc;
}

void ccsift_upkeep_spawn(const ccsift_upkeep_target *t)
{
	if (!g_file_test(t->index, G_FILE_TEST_IS_REGULAR) || ccsift_detach() != 0)
		return;
	if (setpriority(PRIO_PROCESS, 0, 19) < 0) {
		/* not fatal */
	}
	_exit(ccsift_upkeep_run(t) < 0 ? 1 : 0);
}

void ccsift_upkeep_target_clear(ccsift_upkeep_target *t)
{
	g_clear_pointer(&t->repo, g_free);
	g_clear_pointer(&t->ref, g_free);
	g_clear_pointer(&t->index, g_free);
}

int ccsift_upkeep_staleness_get(ccsift_repo *repo, ccsift_index *idx, ccsift_upkeep_staleness *st)
{
	g_autofree char *indexed = ccsift_index_meta_get(idx, "tip");
	git_oid now, then;
	size_t ahead = 0, behind = 0;
	int rc;

	memset(st, 0, sizeof(*st));
	g_strlcpy(st->indexed, indexed ? indexed : "", sizeof(st->indexed));
	st->updated = last_check(idx);
	if ((rc = ccsift_repo_tip(repo, &now)) < 0)
		return rc;
	git_oid_tostr(st->tip, sizeof(st->tip), &now);
	if (!indexed || git_oid_fromstr(&then, indexed) < 0) {
		st->behind = 0;
		return 0;
	}
	/* (libgit2 1.5 leaks a node of its commit list when that fails) */
	CCSIFT_LEAKS_NOT_OURS(rc = git_graph_ahead_behind(&ahead, &behind, ccsift_repo_git(repo), &now, &then));
	if (rc == 0) {
		st->behind = ahead;
		st->rewritten = behind > 0;
	} else {
		/* a commit libgit2 cannot parse (ccsift index stops there too) */
		const git_error *e = git_error_last();

		g_strlcpy(st->uncounted, e && e->message ? e->message : "cannot walk the history",
			  sizeof(st->uncounted));
	}
	return 0;
}
