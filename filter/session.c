/* session.c: options, input and the repository a message is scored against. */
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ccsift.h"
#include "date.h"
#include "decisions.h"
#include "diff.h"
#include "error.h"
#include "history.h"
#include "mail.h"
#include "pipe.h"
#include "training.h"
#include "upkeep.h"

GOptionEntry *option_entries(common_options *o, unsigned which, const GOptionEntry *extra)
{
	const GOptionEntry common[] = {
		{ "config", 0, 0, G_OPTION_ARG_FILENAME, &o->config, "Read settings from FILE", "FILE" },
		{ "repo", 0, 0, G_OPTION_ARG_FILENAME, &o->repo, "The repository (clone) to score against", "DIR" },
		{ "index", 0, 0, G_OPTION_ARG_FILENAME, &o->index, "The index file (default: under $XDG_CACHE_HOME/ccsift)", "FILE" },
		{ "me", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->me, "An identity of the recipient (repeatable)", "EMAIL" },
		{ "as-of", 0, 0, G_OPTION_ARG_STRING, &o->as_of, "Ignore commits at or after DATE (ISO 8601 or @UNIXTIME)", "DATE" },
		{ "threshold", 0, 0, G_OPTION_ARG_DOUBLE, &o->threshold, "Demote below this probability of engagement (0 to 1; default: your own)", "P" },
		{ "json", 0, 0, G_OPTION_ARG_NONE, &o->json, "Print JSON", NULL },
	};
	GArray *entries = g_array_new(TRUE, TRUE, sizeof(GOptionEntry));

	o->threshold = -1;
	/* common[i] is the option of bit i of which */
	for (unsigned i = 0; i < G_N_ELEMENTS(common); i++)
		if (which & (1u << i))
			g_array_append_vals(entries, &common[i], 1);
	for (const GOptionEntry *e = extra; e && e->long_name; e++)
		g_array_append_vals(entries, e, 1);
	return (GOptionEntry *)g_array_free(entries, FALSE);
}

void common_options_clear(common_options *o)
{
	g_free(o->config);
	g_free(o->repo);
	g_free(o->index);
	g_strfreev(o->me);
	g_free(o->as_of);
}

gboolean parse_options(int *argc, char ***argv, const char *usage, const char *summary, GOptionEntry *entries)
{
	g_autoptr(GOptionContext) ctx = g_option_context_new(usage);
	g_autoptr(GError) err = NULL;

	g_option_context_set_summary(ctx, summary);
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, argc, argv, &err)) {
		fprintf(stderr, "%s: %s\n", g_get_prgname() ? g_get_prgname() : "ccsift", err->message);
		return FALSE;
	}
	return TRUE;
}

char *message_over_size(gsize len)
{
	if (len <= CCSIFT_MAX_MESSAGE_SIZE)
		return NULL;
	/* (what is past the limit is not read: its size is not known) */
	return g_strdup_printf("message over the %u-byte limit", CCSIFT_MAX_MESSAGE_SIZE);
}

char *patch_over_files(const ccsift_patch *p)
{
	if (p->files->len <= CCSIFT_MAX_FILES)
		return NULL;
	/* (the parser stops counting at its own bound) */
	return g_strdup_printf("the patch touches %u files%s, over the limit of %u", p->files->len,
			       p->files->len >= CCSIFT_DIFF_MAX_FILES ? " or more" : "", CCSIFT_MAX_FILES);
}

GByteArray *read_message_fd(int fd, const char *name, GError **error)
{
	GByteArray *buf = g_byte_array_new();
	guint8 chunk[65536];
	ssize_t n;

	while (buf->len <= CCSIFT_MAX_MESSAGE_SIZE &&
	       (n = ccsift_pipe_read(fd, chunk, MIN(sizeof(chunk), CCSIFT_MAX_MESSAGE_SIZE + 1 - buf->len))) != 0) {
		if (n < 0) {
			g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "read %s: %s", name,
				    g_strerror(errno));
			g_byte_array_unref(buf);
			return NULL;
		}
		g_byte_array_append(buf, chunk, n);
	}
	return buf;
}

int open_message(const char *file, GError **error)
{
	int fd = 0;

	if (file && strcmp(file, "-") != 0 && (fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "cannot open %s: %s",
			    file, g_strerror(errno));
	return fd;
}

GByteArray *read_message(const char *file, GError **error)
{
	GByteArray *buf;
	int fd = open_message(file, error);

	if (fd < 0)
		return NULL;
	buf = read_message_fd(fd, fd ? file : "stdin", error);
	if (fd > 0)
		close(fd);
	return buf;
}

int session_load_config(session *s, const common_options *o)
{
	int rc;

	if ((rc = ccsift_config_load(&s->cfg, o->config)) < 0)
		return rc;
	ccsift_score_options_init(&s->opts);
	s->opts.threshold = s->cfg->threshold;
	s->opts.to_is_relevant = s->cfg->to_is_relevant;
	s->opts.verdict_only = s->verdict_only;
	/* -1 is "not given" (option_entries): anything else is a probability
	 * or refused, not one that makes every Cc low (5) or none (nan). */
	if (o->threshold != -1 && !(o->threshold >= 0 && o->threshold <= 1))
		return ccsift_error_set(CCSIFT_EINVALID, "--threshold %g: not a probability from 0 to 1", o->threshold);
	if (o->as_of && (rc = ccsift_date_parse(o->as_of, &s->opts.as_of)) < 0)
		return rc;
	/* (0 is "now" to the scorer: git has no history before 1970 to ask about) */
	if (o->as_of && s->opts.as_of <= 0)
		return ccsift_error_set(CCSIFT_EINVALID, "--as-of %s: before 1970-01-01T00:00:01Z", o->as_of);
	if (o->me && *o->me) {
		/* --me replaces the configured identities. */
		s->identities = g_new0(char *, g_strv_length(o->me) + 1);
		for (guint i = 0; o->me[i]; i++)
			if (!(s->identities[i] = ccsift_config_address(o->me[i])))
				return ccsift_error_set(CCSIFT_EINVALID, "--me %s: not an email address", o->me[i]);
	} else {
		s->identities = ccsift_config_identities(s->cfg);
	}
	return 0;
}

/* What is asked of the repository picked for a mail, once its index is open. */
typedef enum {
	CHECK_NONE,
	CHECK_FILES,               /* it has most of the patch's files (repo_affinity) */
	CHECK_LIST,                /* the mail's list is its: it has one the patch changes */
} affinity_check;

/* Is this file in the tree the index describes? A new file counts when its
 * directory is; a diffstat's ".../tail" when some indexed path ends so. */
static gboolean index_knows(ccsift_index *idx, const ccsift_file *f)
{
	g_autofree char *dir = NULL, *full = NULL;

	if (f->truncated)
		return (full = ccsift_index_resolve_tail(idx, f->path, f->partial_tail)) != NULL;
	if (ccsift_index_has_path(idx, f->path) || (f->old_path && ccsift_index_has_path(idx, f->old_path)))
		return TRUE;
	dir = g_path_get_dirname(f->path);
	return f->status == 'A' && strcmp(dir, ".") != 0 && ccsift_index_is_dir(idx, dir);
}

/* Was the patch made against this clone? One of its pre-image blobs, its
 * base commit or the pull request's tip is in the object database. */
static gboolean clone_has_objects(ccsift_repo *repo, const ccsift_patch *patch)
{
	if (patch->base_commit && ccsift_repo_has_object(repo, patch->base_commit))
		return TRUE;
	if (patch->pull_tip && ccsift_repo_has_object(repo, patch->pull_tip))
		return TRUE;
	for (guint i = 0; i < patch->files->len; i++) {
		const ccsift_file *f = patch->files->pdata[i];

		if (f->old_blob && ccsift_repo_has_object(repo, f->old_blob))
			return TRUE;
	}
	return FALSE;
}

/* A clone and its index, asked about a patch's files. */
typedef struct {
	ccsift_repo *repo;         /* NULL: it did not open */
	ccsift_index *idx;         /* NULL: it did not open */
	gboolean borrowed;         /* the session's own */
} clone_view;

/* tag decides many messages: the open repository is asked as it is. What
 * does not open is said in *why (the clone has not been indexed yet, say). */
static void clone_view_open(session *s, const ccsift_repo_config *rc, clone_view *v, GString *why)
{
	g_autofree char *path = NULL;

	*v = (clone_view){ 0 };
	if (s->idx && s->repo_name && strcmp(s->repo_name, rc->name) == 0) {
		*v = (clone_view){ s->repo, s->idx, TRUE };
		return;
	}
	if (ccsift_repo_open_lazy(&v->repo, rc->path, rc->ref) < 0) {
		g_string_append_printf(why, "; [repo %s]: %s", rc->name, ccsift_error_last());
		v->repo = NULL;
		return;
	}
	path = rc->index ? g_strdup(rc->index) : ccsift_index_default_path(ccsift_repo_gitdir(v->repo));
	if (ccsift_index_open(&v->idx, path, CCSIFT_INDEX_READ_ONLY) < 0) {
		g_string_append_printf(why, "; [repo %s]: %s", rc->name, ccsift_error_last());
		v->idx = NULL;
	}
}

static void clone_view_close(clone_view *v)
{
	if (!v->borrowed) {
		ccsift_index_free(v->idx);
		ccsift_repo_free(v->repo);
	}
}

/*
 * Is the patch for this clone, by its files? 0 when not; else a rank, the
 * higher the surer. Most of its paths must be in the index: a patch for
 * another project shares a Makefile or an arch/x86/ with it, rarely more
 * (LKML's x86 patches scored against U-Boot said "you are M: for
 * arch/x86/..."). Failing that, one known object is proof.
 */
static int repo_affinity(session *s, ccsift_repo_config *rc, const ccsift_patch *patch, GString *why)
{
	clone_view v;
	guint known = 0, n = patch->files->len;
	int rank = 0;

	clone_view_open(s, rc, &v, why);
	if (!v.repo)
		return 0;
	for (guint i = 0; v.idx && i < n; i++)
		known += index_knows(v.idx, patch->files->pdata[i]);
	if (known && 2 * known >= n)
		rank = 1 + 2 * known;
	else if (clone_has_objects(v.repo, patch))
		rank = 1 + known;
	clone_view_close(&v);
	return rank;
}

/* A file the patch changes, not one it adds ('?', named by a diffstat
 * alone, is changed: git's summary says "create mode" of a new one). */
static gboolean changes_file(const ccsift_file *f)
{
	return f->status != 'A';
}

/*
 * Mail from a list of this clone's: how surely is it the clone's? A list
 * is shared with other projects (fstests' MAINTAINERS names linux-xfs,
 * where kernel patches go): a patch none of whose changed files the index
 * knows, nor any of its objects the clone, is another project's (0),
 * however many new files it adds. Else twice the number of changed files
 * the index knows, or 1 for a known object alone: a Makefile or a
 * MAINTAINERS every tree has says less than the rest of the patch's files.
 * *changed gets how many files the patch changes (0: it only adds files).
 */
static guint clone_changed_rank(session *s, ccsift_repo_config *rc, const ccsift_patch *patch, guint *changed,
				GString *why)
{
	clone_view v;
	guint known = 0, rank;

	*changed = 0;
	clone_view_open(s, rc, &v, why);
	for (guint i = 0; i < patch->files->len; i++) {
		const ccsift_file *f = patch->files->pdata[i];

		if (!changes_file(f))
			continue;
		(*changed)++;
		known += v.idx && index_knows(v.idx, f);
	}
	rank = *changed && !known && v.repo && clone_has_objects(v.repo, patch) ? 1 : 2 * known;
	clone_view_close(&v);
	return rank;
}

/* Is mail from rc's list, changing these files, rc's? (A patch that only
 * adds files is the list's clone's.) */
static gboolean clone_has_changed_files(session *s, ccsift_repo_config *rc, const ccsift_patch *patch,
					GString *why)
{
	guint changed, rank = clone_changed_rank(s, rc, patch, &changed, why);

	return !changed || rank > 0;
}

/* "a/b.c, c/d.h and 3 more": the patch's files, or only those it changes. */
static void append_files(GString *out, const ccsift_patch *patch, gboolean changed_only)
{
	guint n = 0;

	for (guint i = 0; i < patch->files->len; i++) {
		const ccsift_file *f = patch->files->pdata[i];

		if (changed_only && !changes_file(f))
			continue;
		if (n++ < 3)
			g_string_append_printf(out, "%s%s", n > 1 ? ", " : "", f->path);
	}
	if (n > 3)
		g_string_append_printf(out, " and %u more", n - 3);
}

/* How many [repo]s have a list-id: mail from a list none names is not theirs. */
static guint repos_with_lists(const ccsift_config *cfg)
{
	guint n = 0;

	for (guint i = 0; i < cfg->repos->len; i++)
		n += ((ccsift_repo_config *)cfg->repos->pdata[i])->list_ids != NULL;
	return n;
}

/* Mail for no repository: the reason, the cause first, naming its files
 * and its list. From a list no list-id names, the list is the cause when
 * the repositories with a list-id were not asked (they may well have the
 * files: "no configured repository knows" them was false then). */
static int not_for_any(const session *s, const ccsift_patch *patch, const GString *why)
{
	g_autoptr(GString) msg = g_string_new(NULL);
	guint with_lists = patch->list_id ? repos_with_lists(s->cfg) : 0;

	if (with_lists && with_lists == s->cfg->repos->len) {
		g_string_printf(msg, "mail from %s, a list no [repo]'s list-id names: every [repo] has a list-id and "
				"takes no other list's mail", patch->list_id);
	} else if (with_lists) {
		g_string_printf(msg, "mail from %s, a list no [repo]'s list-id names, and no [repo] without a "
				"list-id knows this patch%s", patch->list_id, patch->files->len ? "'s files: " : "");
		append_files(msg, patch, FALSE);
	} else if (patch->files->len) {
		g_string_append(msg, "no configured repository knows this patch's files: ");
		append_files(msg, patch, FALSE);
	} else {
		g_string_append(msg, "no configured repository knows this patch");
	}
	if (patch->list_id && !with_lists)
		g_string_append_printf(msg, "; its list %s is in no [repo]'s list-id", patch->list_id);
	g_string_append(msg, why->str);
	return ccsift_error_set(CCSIFT_ENOTFOUND, "%s", msg->str);
}

/* "[repo a]", "[repo a] and [repo b]", "[repo a], [repo b] and [repo c]" */
static void append_repo_names(GString *out, GPtrArray *repos)
{
	for (guint i = 0; i < repos->len; i++)
		g_string_append_printf(out, "%s[repo %s]", i == 0 ? "" : i + 1 < repos->len ? ", " : " and ",
				       ((ccsift_repo_config *)repos->pdata[i])->name);
}

/* Mail from the lists of these repositories, for another project: the
 * reason names them and the files. */
static int not_for_list_repos(GPtrArray *repos, const ccsift_patch *patch, const GString *why)
{
	g_autoptr(GString) msg = g_string_new(NULL);

	append_repo_names(msg, repos);
	g_string_append_printf(msg, ", the %s for its list %s, %s none of the files this patch changes: ",
			       repos->len > 1 ? "repositories" : "repository", patch->list_id,
			       repos->len > 1 ? "have" : "has");
	append_files(msg, patch, TRUE);
	g_string_append(msg, why->str);
	return ccsift_error_set(CCSIFT_ENOTFOUND, "%s", msg->str);
}

/* Mail from rc's list for another project. */
static int not_for_list_repo(ccsift_repo_config *rc, const ccsift_patch *patch, const GString *why)
{
	g_autoptr(GPtrArray) one = g_ptr_array_new();

	g_ptr_array_add(one, rc);
	return not_for_list_repos(one, patch, why);
}

/* Does the patch change a file, not only add them? */
static gboolean changes_files(const ccsift_patch *patch)
{
	for (guint i = 0; i < patch->files->len; i++)
		if (changes_file(patch->files->pdata[i]))
			return TRUE;
	return FALSE;
}

/*
 * Of repositories whose trees know as many of the patch's files (fstests
 * and xfsprogs share configure.ac, m4/ and include/builddefs.in; the
 * kernel and U-Boot a Makefile), the first, in file order, whose object
 * database has one of its pre-image blobs, its base commit or the pull
 * request's tip: the patch was made there. Else the first. libgit2 is
 * opened only for such a tie.
 */
static ccsift_repo_config *break_tie(session *s, GPtrArray *tied, const ccsift_patch *patch, GString *why)
{
	for (guint i = 0; tied->len > 1 && i < tied->len; i++) {
		clone_view v;
		gboolean has;

		clone_view_open(s, tied->pdata[i], &v, why);
		has = v.repo && clone_has_objects(v.repo, patch);
		clone_view_close(&v);
		if (has)
			return tied->pdata[i];
	}
	return tied->pdata[0];
}

/*
 * Mail from a list several repositories claim (the kernel's vger lists
 * carry fstests' and xfsprogs' patches): the one whose tree has the most
 * of the files the patch changes (of those with as many, the first with
 * one of its pre-image blobs, else the first in file order); a patch that only adds files, the one with the most of their
 * directories, else the first.
 */
static ccsift_repo_config *pick_list_repo(session *s, GPtrArray *claimants, ccsift_patch *patch)
{
	g_autoptr(GString) why = g_string_new(NULL);
	ccsift_repo_config *best = claimants->pdata[0];
	g_autoptr(GPtrArray) unasked = g_ptr_array_new(), tied = g_ptr_array_new();
	int best_rank = 0;
	guint changed = 0;

	if (!changes_files(patch)) {
		for (guint i = 0; i < claimants->len; i++) {
			int rank = repo_affinity(s, claimants->pdata[i], patch, why);

			if (rank > best_rank)
				best = claimants->pdata[i], best_rank = rank;
		}
		return best;
	}
	/* The one that knows most of the files it changes (one file both
	 * trees have, a Makefile, does not make an xfsprogs patch the
	 * kernel's), the first of those that know as many. */
	best = NULL;
	for (guint i = 0; i < claimants->len; i++) {
		gsize said = why->len;
		guint rank = clone_changed_rank(s, claimants->pdata[i], patch, &changed, why);

		if (why->len > said)  /* its clone or its index did not open */
			g_ptr_array_add(unasked, claimants->pdata[i]);
		if ((int)rank > best_rank)
			g_ptr_array_set_size(tied, 0), best_rank = rank;
		if ((int)rank == best_rank && rank > 0)
			g_ptr_array_add(tied, claimants->pdata[i]);
	}
	if (tied->len)
		best = break_tie(s, tied, patch, why);
	if (!best) {
		not_for_list_repos(claimants, patch, why);
	} else if (unasked->len && best_rank < 2 * (int)changed) {
		/* One that could not be asked (not indexed yet, moved) may
		 * well be the mail's (a kernel patch to fs/xfs/ and a
		 * Makefile, with linux not indexed, went to xfsprogs). */
		g_autoptr(GString) msg = g_string_new(NULL);

		g_string_append(msg, "of the repositories for its list ");
		g_string_append_printf(msg, "%s, ", patch->list_id);
		append_repo_names(msg, unasked);
		g_string_append_printf(msg, " cannot be asked and [repo %s] has only %d of the %u files this patch "
				       "changes: ", best->name, best_rank / 2, changed);
		append_files(msg, patch, TRUE);
		g_string_append(msg, why->str);
		ccsift_error_set(CCSIFT_ENOTFOUND, "%s", msg->str);
		best = NULL;
	}
	return best;
}

/*
 * The repository that decides this mail: one whose list-id names the
 * mail's List-Id and that has a file the patch changes; else, by the
 * patch's files, one of those that do not
 * claim lists (mail from a list no repository claims), or any (mail sent
 * to you, without a List-Id). Mail for none of them is unknown, with a
 * reason that says so. The repository of a list, and a single candidate,
 * are returned with *verify saying what to ask them: session_open asks it
 * once its index is open, not opening it twice for every delivery.
 */
static ccsift_repo_config *pick_repo(session *s, ccsift_patch *patch, affinity_check *verify)
{
	ccsift_repo_config *best = NULL, *only = NULL;
	g_autoptr(GString) why = g_string_new(NULL);
	g_autoptr(GPtrArray) claimants = NULL, tied = g_ptr_array_new();
	int best_rank = 0, candidates = 0;

	*verify = CHECK_NONE;
	if (!patch)  /* no mail (calibrate): the only repository */
		return s->cfg->repos->len == 1 ? s->cfg->repos->pdata[0] : NULL;
	claimants = ccsift_config_repos_for_list(s->cfg, patch->list_id);
	/* Relayed by a list no [repo] claims (a company's list re-sending
	 * linux-xfs): the first list below it that one claims is the mail's. */
	for (char **id = patch->relayed_list_ids; !claimants->len && id && *id; id++) {
		g_ptr_array_unref(claimants);
		if ((claimants = ccsift_config_repos_for_list(s->cfg, *id))->len) {
			g_free(patch->list_id);
			patch->list_id = g_strdup(*id);
		}
	}
	if (claimants->len == 1 || (claimants->len && patch->files->len > CCSIFT_MAX_FILES))
		return *verify = patch->files->len > CCSIFT_MAX_FILES ? CHECK_NONE : CHECK_LIST, claimants->pdata[0];
	if (claimants->len)
		return pick_list_repo(s, claimants, patch);
	for (guint i = 0; i < s->cfg->repos->len; i++) {
		ccsift_repo_config *rc = s->cfg->repos->pdata[i];

		if (!(rc->list_ids && patch->list_id))  /* else only for its lists */
			only = rc, candidates++;
	}
	/* Nothing to compare, or too much (unknown anyway, for its size). */
	if (candidates == 1 && ((!patch->files->len && !patch->pull_tip) || patch->files->len > CCSIFT_MAX_FILES))
		return only;
	if (candidates == 1)
		return *verify = CHECK_FILES, only;
	for (guint i = 0; i < s->cfg->repos->len; i++) {
		ccsift_repo_config *rc = s->cfg->repos->pdata[i];
		int rank;

		if (rc->list_ids && patch->list_id)
			continue;
		rank = repo_affinity(s, rc, patch, why);
		if (rank > best_rank)
			g_ptr_array_set_size(tied, 0), best_rank = rank;
		if (rank == best_rank && rank > 0)
			g_ptr_array_add(tied, rc);
	}
	if (tied->len)
		best = break_tie(s, tied, patch, why);
	if (!best)
		not_for_any(s, patch, why);
	return best;
}

static int update_index(session *s)
{
	ccsift_history_options ho = { .progress = isatty(2) };
	ccsift_history_stats st;
	ccsift_index *w = NULL;
	int rc;

	if ((rc = ccsift_index_open(&w, ccsift_index_path(s->idx), CCSIFT_INDEX_READ_WRITE)) < 0)
		return rc;
	rc = ccsift_upkeep_update(s->repo, w, &ho, &st);
	ccsift_index_free(w);
	return rc;
}

static void close_repo(session *s)
{
	if (s->idx)
		ccsift_index_read_end(s->idx, s->in_snapshot);
	s->in_snapshot = FALSE;
	g_clear_pointer(&s->scorer, ccsift_scorer_free);
	g_clear_pointer(&s->idx, ccsift_index_free);
	g_clear_pointer(&s->repo, ccsift_repo_free);
	g_clear_pointer(&s->repo_name, g_free);
}

/* The repository pick_repo left to check, with its index open. */
static int check_affinity(session *s, ccsift_repo_config *rc, const ccsift_patch *patch, affinity_check verify)
{
	g_autoptr(GString) why = g_string_new(NULL);

	switch (verify) {
	case CHECK_FILES:
		return repo_affinity(s, rc, patch, why) > 0 ? 0 : not_for_any(s, patch, why);
	case CHECK_LIST:
		return clone_has_changed_files(s, rc, patch, why) ? 0 : not_for_list_repo(rc, patch, why);
	default:
		return 0;
	}
}

/* The margins the store holds, with those s->replied_replaced names
 * taken out (one for each) and s->replied_learnt's added. */
static void merge_replied(session *s, GArray *margins)
{
	GArray *replaced = s->replied_replaced && s->repo_name ?
			   g_hash_table_lookup(s->replied_replaced, s->repo_name) : NULL;
	GArray *learnt = s->replied_learnt && s->repo_name ? g_hash_table_lookup(s->replied_learnt, s->repo_name) : NULL;

	for (guint i = 0; replaced && i < replaced->len; i++)
		for (guint j = 0; j < margins->len; j++)
			if (g_array_index(margins, double, j) == g_array_index(replaced, double, i)) {
				g_array_remove_index(margins, j);
				break;
			}
	if (learnt)
		g_array_append_vals(margins, learnt->data, learnt->len);
}

/* The patches the user replied to, as ccsift tag recorded them: their
 * operating point counts them as engaged. No store (no tag run, or only
 * ccsift filter) is nothing learnt; a store that cannot be read is said
 * once and passed over, as the decision must still be made. */
static void learn_replied(session *s)
{
	g_autoptr(GArray) margins = g_array_new(FALSE, FALSE, sizeof(double));
	ccsift_decisions *store = NULL;
	int rc;

	if ((rc = ccsift_decisions_open(&store, NULL, FALSE)) == 0) {
		rc = ccsift_decisions_replied_margins(store, s->repo_name, s->opts.as_of ? s->opts.as_of : G_MAXINT64,
						      margins);
		ccsift_decisions_close(store);
	}
	if (rc < 0 && rc != CCSIFT_ENOTFOUND) {
		fprintf(stderr, "ccsift: %s (your replies are not counted)\n", ccsift_error_last());
		return;
	}
	merge_replied(s, margins);
	ccsift_scorer_set_replied(s->scorer, (const double *)margins->data, margins->len);
}

int session_open(session *s, const common_options *o, ccsift_patch *patch, gboolean update)
{
	const char *path = o->repo, *ref = NULL, *index = o->index;
	g_autofree char *index_path = NULL, *name = NULL;
	ccsift_repo_config *rc = NULL;
	affinity_check verify = CHECK_NONE;
	int err;

	/* --repo naming a configured clone (or its section) means that section. */
	if (path && (rc = ccsift_config_repo_find(s->cfg, path)))
		path = NULL;
	if (!path && !rc && !s->cfg->repos->len)
		return ccsift_error_set(CCSIFT_ENOTFOUND,
					"no repository: give --repo DIR or a [repo NAME] section in the config");
	if (!path && !rc && !(rc = pick_repo(s, patch, &verify)))
		return patch ? CCSIFT_ENOTFOUND : ccsift_error_set(CCSIFT_ENOTFOUND,
			"several repositories are configured: say which with --repo NAME");
	name = rc ? g_strdup(rc->name) : g_path_get_basename(path);
	/* Many messages, one repository: keep it open. */
	if (s->scorer && s->repo_name && strcmp(s->repo_name, name) == 0)
		return check_affinity(s, rc, patch, verify);
	close_repo(s);
	s->repo_name = g_steal_pointer(&name);
	s->opts.threshold = s->cfg->threshold;
	s->opts.always = s->opts.never = NULL;
	if (rc) {
		path = rc->path;
		ref = rc->ref;
		index = index ? index : rc->index;
		if (rc->threshold >= 0)
			s->opts.threshold = rc->threshold;
		s->opts.always = rc->always;
		s->opts.never = rc->never;
	}
	if (o->threshold >= 0)
		s->opts.threshold = o->threshold;
	/* Delivery often needs nothing but the index: open libgit2 only if used. */
	if ((err = update ? ccsift_repo_open(&s->repo, path, ref) : ccsift_repo_open_lazy(&s->repo, path, ref)) < 0)
		return err;
	index_path = index ? g_strdup(index) : ccsift_index_default_path(ccsift_repo_gitdir(s->repo));
	if (rc && !o->index && (err = repo_config_index_clash(s->cfg, rc, index_path)) < 0)
		return err;
	if (update && (err = ccsift_index_open(&s->idx, index_path, CCSIFT_INDEX_READ_WRITE)) == 0) {
		ccsift_index_free(s->idx);
		s->idx = NULL;
		if ((err = ccsift_index_open(&s->idx, index_path, CCSIFT_INDEX_READ_ONLY)) == 0)
			err = update_index(s);
		if (err < 0)
			return err;
		ccsift_index_free(s->idx);
		s->idx = NULL;
	}
	if ((err = ccsift_index_open(&s->idx, index_path, CCSIFT_INDEX_READ_ONLY)) < 0)
		return err;
	if (s->one_snapshot)
		s->in_snapshot = ccsift_index_read_begin(s->idx);
	if ((err = check_affinity(s, rc, patch, verify)) < 0) {
		close_repo(s);  /* no repository is this mail's */
		return err;
	}
	if ((err = ccsift_scorer_new(&s->scorer, s->repo, s->idx, (const char *const *)s->identities)) < 0)
		return err;
	learn_replied(s);
	return 0;
}

/* The index file of a [repo] section: its index, else the default one
 * of its clone; NULL when the clone does not open. */
char *repo_config_index_path(const ccsift_repo_config *rc)
{
	ccsift_repo *repo = NULL;
	char *path;

	if (rc->index)
		return g_canonicalize_filename(rc->index, NULL);
	if (ccsift_repo_open_lazy(&repo, rc->path, rc->ref) < 0)
		return NULL;
	path = ccsift_index_default_path(ccsift_repo_gitdir(repo));
	ccsift_repo_free(repo);
	return path;
}

/*
 * Two sections of one clone on two refs (mainline and a stable branch)
 * have one default index, NAME-HASH of the git directory: each update
 * made it the other ref's history again ("history rewritten"), and mail
 * for one was decided on the other's. The first section, in file order,
 * keeps the file: this says, for a later one, whose it is (NULL: its own).
 */
static const char *ref_of(const ccsift_repo_config *rc)
{
	return rc->ref && *rc->ref ? rc->ref : "HEAD";
}

static const ccsift_repo_config *repo_config_index_owner(const ccsift_config *cfg, const ccsift_repo_config *rc,
							 const char *index)
{
	for (guint i = 0; i < cfg->repos->len && cfg->repos->pdata[i] != rc; i++) {
		const ccsift_repo_config *other = cfg->repos->pdata[i];
		g_autofree char *path = NULL;

		if (strcmp(ref_of(other), ref_of(rc)) == 0)
			continue;
		if ((path = repo_config_index_path(other)) && strcmp(path, index) == 0)
			return other;
	}
	return NULL;
}

/* The error for a section whose index another section's ref fills. */
int repo_config_index_clash(const ccsift_config *cfg, const ccsift_repo_config *rc, const char *index)
{
	g_autofree char *canon = g_canonicalize_filename(index, NULL);
	const ccsift_repo_config *owner = repo_config_index_owner(cfg, rc, canon);

	if (!owner)
		return 0;
	return ccsift_error_set(CCSIFT_EINVALID, "[repo %s] (ref %s) has the index of [repo %s] (ref %s), %s: "
				"give [repo %s] an index = of its own", rc->name, ref_of(rc),
				owner->name, ref_of(owner), canon, rc->name);
}

static int check_index(const char *path, const char *ref, const char *index)
{
	ccsift_repo *repo = NULL;
	ccsift_index *idx = NULL;
	g_autofree char *index_path = NULL;
	int rc;

	if ((rc = ccsift_repo_open_lazy(&repo, path, ref)) < 0)
		return rc;
	index_path = index ? g_strdup(index) : ccsift_index_default_path(ccsift_repo_gitdir(repo));
	rc = ccsift_index_open(&idx, index_path, CCSIFT_INDEX_READ_ONLY);
	ccsift_index_free(idx);
	ccsift_repo_free(repo);
	return rc;
}

int session_check_indexes(session *s, const common_options *o)
{
	ccsift_repo_config *rc = o->repo ? ccsift_config_repo_find(s->cfg, o->repo) : NULL;
	int err = 0;

	if (o->repo && !rc)
		return check_index(o->repo, NULL, o->index);
	if (rc)
		return check_index(rc->path, rc->ref, o->index ? o->index : rc->index);
	if (!s->cfg->repos->len)
		return ccsift_error_set(CCSIFT_ENOTFOUND, "no repository: give --repo DIR or a [repo NAME] section in the config");
	for (guint i = 0; i < s->cfg->repos->len && err == 0; i++) {
		rc = s->cfg->repos->pdata[i];
		err = check_index(rc->path, rc->ref, o->index ? o->index : rc->index);
	}
	return err;
}

gboolean session_upkeep_due(session *s, ccsift_upkeep_target *t)
{
	if (!s->idx || !s->cfg || !ccsift_upkeep_due(s->idx, s->cfg->catch_up, g_get_real_time() / G_USEC_PER_SEC))
		return FALSE;
	t->repo = g_strdup(ccsift_repo_gitdir(s->repo));
	t->ref = g_strdup(ccsift_repo_ref(s->repo));
	t->index = g_strdup(ccsift_index_path(s->idx));
	t->interval = s->cfg->catch_up;
	return TRUE;
}

void session_close(session *s)
{
	close_repo(s);
	ccsift_config_free(s->cfg);
	g_strfreev(s->identities);
	if (s->replied_learnt)
		g_hash_table_unref(s->replied_learnt);
	if (s->replied_replaced)
		g_hash_table_unref(s->replied_replaced);
	memset(s, 0, sizeof(*s));
}

/* --- output --- */

void json_add_int(JsonBuilder *b, const char *key, gint64 value)
{
	json_builder_set_member_name(b, key);
	json_builder_add_int_value(b, value);
}

/* JSON has no NaN or infinity: undefined is null. */
void json_add_double(JsonBuilder *b, const char *key, double value)
{
	json_builder_set_member_name(b, key);
	if (isfinite(value))
		json_builder_add_double_value(b, value);
	else
		json_builder_add_null_value(b);
}

void json_add_bool(JsonBuilder *b, const char *key, gboolean value)
{
	json_builder_set_member_name(b, key);
	json_builder_add_boolean_value(b, value);
}

/* Strings from mail and history may be any bytes: JSON gets valid UTF-8. */
void json_add_string(JsonBuilder *b, const char *key, const char *value)
{
	json_builder_set_member_name(b, key);
	if (!value) {
		json_builder_add_null_value(b);
	} else if (g_utf8_validate(value, -1, NULL)) {
		json_builder_add_string_value(b, value);
	} else {
		g_autofree char *valid = g_utf8_make_valid(value, -1);
		json_builder_add_string_value(b, valid);
	}
}

static void add_addresses(JsonBuilder *b, const char *key, GPtrArray *list)
{
	json_builder_set_member_name(b, key);
	json_builder_begin_array(b);
	for (guint i = 0; i < list->len; i++)
		json_builder_add_string_value(b, ((ccsift_address *)list->pdata[i])->email);
	json_builder_end_array(b);
}

JsonNode *patch_to_json(const ccsift_patch *p)
{
	g_autoptr(JsonBuilder) b = json_builder_new();

	json_builder_begin_object(b);
	json_add_string(b, "kind", ccsift_patch_kind_name(p->kind));
	json_add_string(b, "subject", p->subject_raw);
	json_add_string(b, "title", p->subject.title);
	json_add_string(b, "prefix", p->subject.prefix);
	json_add_string(b, "subsystem", p->subject.subsystem);
	json_add_int(b, "version", p->subject.version);
	json_add_int(b, "number", p->subject.number);
	json_add_int(b, "total", p->subject.total);
	json_add_bool(b, "rfc", p->subject.rfc);
	json_add_bool(b, "resend", p->subject.resend);
	json_add_bool(b, "reply", p->subject.reply);
	json_add_string(b, "from", p->from ? p->from->email : NULL);
	json_add_string(b, "author", p->author ? p->author->email : NULL);
	add_addresses(b, "to", p->to);
	add_addresses(b, "cc", p->cc);
	add_addresses(b, "co_developed_by", p->coauthors);
	json_add_string(b, "message_id", p->message_id);
	json_add_string(b, "in_reply_to", p->in_reply_to);
	json_builder_set_member_name(b, "references");
	json_builder_begin_array(b);
	for (guint i = 0; i < p->references->len; i++)
		json_builder_add_string_value(b, p->references->pdata[i]);
	json_builder_end_array(b);
	json_add_string(b, "list_id", p->list_id);
	json_builder_set_member_name(b, "fixes");
	json_builder_begin_array(b);
	for (guint i = 0; i < p->fixes->len; i++)
		json_builder_add_string_value(b, p->fixes->pdata[i]);
	json_builder_end_array(b);
	json_add_string(b, "base_commit", p->base_commit);
	json_add_string(b, "pull_tip", p->pull_tip);
	json_add_string(b, "change_id", p->change_id);
	json_builder_set_member_name(b, "files");
	json_builder_begin_array(b);
	for (guint i = 0; i < p->files->len; i++) {
		const ccsift_file *f = p->files->pdata[i];
		char status[2] = { f->status, 0 };

		json_builder_begin_object(b);
		json_add_string(b, "status", status);
		json_add_string(b, "path", f->path);
		json_add_string(b, "old_path", f->old_path);
		json_add_int(b, "added", f->added);
		json_add_int(b, "removed", f->removed);
		json_add_string(b, "old_blob", f->old_blob);
		json_add_bool(b, "binary", f->binary);
		json_add_bool(b, "truncated", f->truncated);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
	return json_builder_get_root(b);
}

JsonNode *result_to_json(const ccsift_result *r, const char *repo_name)
{
	g_autoptr(JsonBuilder) b = json_builder_new();

	json_builder_begin_object(b);
	json_add_string(b, "verdict", ccsift_verdict_name(r->verdict));
	json_add_double(b, "score", r->score);
	json_add_double(b, "threshold", r->threshold);
	json_add_string(b, "threshold_source", r->threshold_source);
	json_add_int(b, "threshold_replied", r->threshold_replied);
	json_add_double(b, "evidence_score", r->evidence_score);
	json_add_int(b, "model_version", r->model.version);
	json_add_string(b, "model", r->model.source[0] ? r->model.source : NULL);
	json_add_int(b, "model_until", r->model.until);
	json_add_int(b, "as_of", r->as_of);
	if (r->model.version) {
		int order[CCSIFT_FEATURE_COUNT];
		double c[CCSIFT_FEATURE_COUNT];

		ccsift_result_reasons(r, order, c);
		json_builder_set_member_name(b, "features");
		json_builder_begin_array(b);
		for (int i = 0; i < CCSIFT_FEATURE_COUNT; i++) {
			g_autofree char *words = ccsift_result_reason_words(r, order[i]);

			json_builder_begin_object(b);
			json_add_string(b, "name", ccsift_feature_name(order[i]));
			json_add_double(b, "count", r->features.n[order[i]]);
			json_add_double(b, "value", r->features.x[order[i]]);
			json_add_double(b, "weight", r->model.w[order[i]]);
			json_add_double(b, "contribution", c[order[i]]);
			json_add_string(b, "words", words);
			json_builder_end_object(b);
		}
		json_builder_end_array(b);
	}
	json_add_string(b, "repo", repo_name);
	json_add_string(b, "override", r->override);
	json_add_string(b, "summary", r->summary);
	json_add_int(b, "history", r->history);
	json_add_bool(b, "cc", r->cc);
	json_add_bool(b, "to", r->to);
	json_builder_set_member_name(b, "files");
	json_builder_begin_array(b);
	for (guint i = 0; r->files && i < r->files->len; i++) {
		const ccsift_file_score *f = r->files->pdata[i];

		json_builder_begin_object(b);
		json_add_string(b, "path", f->path);
		json_add_double(b, "score", f->score);
		json_add_double(b, "evidence", f->user);
		json_add_double(b, "share", f->share);
		json_add_int(b, "commits", f->commits);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_set_member_name(b, "reasons");
	json_builder_begin_array(b);
	for (guint i = 0; r->evidence && i < r->evidence->len; i++) {
		const ccsift_evidence *e = r->evidence->pdata[i];
		char date[16];

		json_builder_begin_object(b);
		json_add_string(b, "commit", e->oid);
		json_add_string(b, "subject", e->subject);
		json_add_string(b, "path", e->path);
		json_add_string(b, "via", e->via);
		json_add_string(b, "role", ccsift_role_name(e->role));
		json_add_string(b, "date", ccsift_date_format(e->time, date, sizeof(date)));
		json_add_int(b, "files_in_commit", e->nfiles);
		json_add_int(b, "lines", e->lines);
		json_add_double(b, "weight", e->weight);
		json_add_double(b, "substance", e->substance);
		json_add_double(b, "breadth", e->breadth);
		json_add_double(b, "decay", e->decay);
		json_add_bool(b, "sibling", e->sibling);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
	return json_builder_get_root(b);
}

void print_json(JsonNode *node)
{
	g_autoptr(JsonGenerator) gen = json_generator_new();
	g_autofree char *text = NULL;

	json_generator_set_root(gen, node);
	json_generator_set_pretty(gen, TRUE);
	text = json_generator_to_data(gen, NULL);
	puts(text);
	json_node_unref(node);
}

char *verdict_header(const ccsift_result *r)
{
	char score[G_ASCII_DTOSTR_BUF_SIZE], threshold[G_ASCII_DTOSTR_BUF_SIZE];

	if (r->verdict == CCSIFT_VERDICT_NOT_PATCH || r->verdict == CCSIFT_VERDICT_UNKNOWN)
		return g_strdup(ccsift_verdict_name(r->verdict));
	return g_strdup_printf("%s; score=%s; threshold=%s", ccsift_verdict_name(r->verdict),
			       g_ascii_formatd(score, sizeof(score), "%.3f", r->score),
			       g_ascii_formatd(threshold, sizeof(threshold), "%.3f", r->threshold));
}

int score_message(session *s, const common_options *o, const guint8 *bytes, size_t len,
		  gboolean update, ccsift_patch **patch, ccsift_result **result)
{
	int rc;

	*patch = NULL;
	*result = NULL;
	/* A session kept for many messages (ccsift serve) loads it once. */
	if (!s->cfg && (rc = session_load_config(s, o)) < 0)
		return rc;
	if ((rc = ccsift_mail_parse(patch, (const char *)bytes, len)) < 0)
		return rc;
	if ((*patch)->kind == CCSIFT_KIND_NOT_PATCH) {
		/* No repository needed to say so. */
		ccsift_result *r = g_new0(ccsift_result, 1);

		r->verdict = CCSIFT_VERDICT_NOT_PATCH;
		r->threshold = s->opts.threshold;
		r->summary = g_strdup("no diff, diffstat or pull request in this mail");
		r->evidence = g_ptr_array_new();
		r->files = g_ptr_array_new();
		*result = r;
		return 0;
	}
	if ((rc = session_open(s, o, *patch, update)) < 0)
		return rc;
	return ccsift_score_patch(s->scorer, *patch, &s->opts, result);
}
