/* patch.h: what a mail says about a change, whatever shape it came in. */
#ifndef CCSIFT_PATCH_H
#define CCSIFT_PATCH_H

#include <glib.h>
#include <stddef.h>

typedef enum {
	CCSIFT_KIND_NOT_PATCH,  /* ordinary mail, or a reply quoting a diff */
	CCSIFT_KIND_PATCH,      /* carries a diff (inline or attached) */
	CCSIFT_KIND_COVER,      /* [PATCH 0/N]: diffstat, no diff */
	CCSIFT_KIND_PULL,       /* git request-pull */
} ccsift_patch_kind;

const char *ccsift_patch_kind_name(ccsift_patch_kind kind);

/* One touched file. */
typedef struct {
	char *path;       /* the post-image path; the old path for deletions */
	char *old_path;   /* renames and copies only, else NULL */
	char status;      /* A D M R C T, or '?' when only a diffstat names it */
	int added;        /* lines, -1 when unknown */
	int removed;
	char *old_blob;   /* abbreviated pre-image blob id from "index a..b", or NULL */
	unsigned binary : 1;
	unsigned mode_change : 1;
	unsigned truncated : 1;  /* diffstat ".../tail": path is the tail only */
	unsigned partial_tail : 1; /* "...ame.c": the cut fell inside a name */
	unsigned from_stat : 1;  /* named by a diffstat, and by no diff yet */
} ccsift_file;

ccsift_file *ccsift_file_new(char status, const char *path, const char *old_path);
void ccsift_file_free(ccsift_file *file);

typedef struct {
	char *name;   /* may be NULL */
	char *email;  /* lowercased */
} ccsift_address;

void ccsift_address_free(ccsift_address *a);

/* Subject tags: "[RFC PATCH v3 2/5]" and friends. */
typedef struct {
	char *prefix;    /* the bracket text, e.g. "RFC PATCH v3 2/5", or NULL */
	char *subsystem; /* "net: phy" from "net: phy: fix ...", or NULL */
	char *area;      /* the subsystem's first word in lower case ("net"), or NULL */
	char *title;     /* subject without Re:, tags and brackets */
	int version;     /* 1 unless vN */
	int number;      /* N of N/M, -1 if none */
	int total;       /* M of N/M, -1 if none */
	unsigned rfc : 1;
	unsigned resend : 1;
	unsigned reply : 1;  /* Re:/Aw:/Sv: */
} ccsift_subject;

typedef struct {
	ccsift_patch_kind kind;
	char *subject_raw;
	ccsift_subject subject;
	char *message_id;     /* without <> */
	char *in_reply_to;    /* without <>, or NULL */
	GPtrArray *references;/* char *, without <> */
	char *list_id;        /* the id inside <>, or the raw value */
	char **relayed_list_ids; /* the ids of the List-Id headers below the first
	                          * (a relay list keeps the original's), or NULL */
	ccsift_address *from;  /* the sender, a list's DMARC rewrite undone (dmarc.h) */
	ccsift_address *author;/* an in-body From: (as git am takes it), or NULL: the sender */
	GPtrArray *coauthors; /* ccsift_address *, named by Co-developed-by: */
	GPtrArray *to;        /* ccsift_address * */
	GPtrArray *cc;        /* ccsift_address * */
	GPtrArray *files;     /* ccsift_file *, unique by path */
	GPtrArray *quoted_files; /* ccsift_file *, from diffs quoted with "> " (replies) */
	GPtrArray *fixes;     /* char *, commit ids named by Fixes: */
	char *base_commit;    /* base-commit: or request-pull "since commit", or NULL */
	char *pull_tip;       /* request-pull "up to" commit, or NULL */
	char *change_id;      /* b4 change-id, or NULL */
} ccsift_patch;

ccsift_patch *ccsift_patch_new(void);
/* Who wrote the change: the author, else the sender; NULL if neither. */
const ccsift_address *ccsift_patch_author(const ccsift_patch *patch);
void ccsift_patch_free(ccsift_patch *patch);

/* Is s a commit id as trailers write it (7 to 64 hex digits)? */
gboolean ccsift_patch_is_commit_id(const char *s);

/* The commits named by Fixes: lines of text (a mail body or a commit
 * message), added to patch->fixes. */
void ccsift_patch_read_fixes(ccsift_patch *patch, const char *text, size_t len);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ccsift_patch, ccsift_patch_free)

/*
 * Add a file, merging with an entry of the same path (diff beats diffstat;
 * a truncated diffstat tail gives way to the full path it ends). This one
 * is linear in the files known: to add many, use a ccsift_file_index.
 */
void ccsift_patch_add_file(GPtrArray *files, ccsift_file *file);

/* A file list with its paths hashed: adding a file costs O(1) (amortised). */
typedef struct ccsift_file_index ccsift_file_index;

/* Index files (which must not change behind the index's back but through it). */
ccsift_file_index *ccsift_file_index_new(GPtrArray *files);
void ccsift_file_index_free(ccsift_file_index *ix);
GPtrArray *ccsift_file_index_files(ccsift_file_index *ix);
/* The entry of a full (not truncated) path, or NULL. */
ccsift_file *ccsift_file_index_lookup(ccsift_file_index *ix, const char *path);
/* ccsift_patch_add_file() through the index; takes file. */
void ccsift_file_index_add(ccsift_file_index *ix, ccsift_file *file);

/* Parse the subject line into its tags. */
void ccsift_subject_parse(ccsift_subject *out, const char *subject);
void ccsift_subject_clear(ccsift_subject *subject);
/* The length of a title's area, its first word when ':' or '/' follows it
 * (3, "net", in "net: phy: fix x" and "net/sched: fix y"), or 0. A commit's
 * subject and a patch's title are of one area when theirs are the same
 * but for ASCII case. */
size_t ccsift_subject_area(const char *title);

#endif
