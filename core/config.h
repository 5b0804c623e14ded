/* config.h: the user's settings, a GKeyFile.
 *
 *   $XDG_CONFIG_HOME/ccsift/config, else /etc/ccsift/config (site default)
 *
 *   [user]
 *   email = me@example.org; me@work.example   (added to notmuch's identities)
 *   notmuch = true          (read user.primary_email/other_email from notmuch)
 *   threshold = 0.1        (optional: a fixed probability; default automatic)
 *   half-life = 730         (days)
 *   to-is-relevant = true
 *   catch-up = 900          (seconds between checks whether a ref moved; 0: never)
 *   start-server = 600      (a delivery that finds no ccsift serve starts one, which
 *                            exits after this many idle seconds; 0: never start one)
 *
 *   [repo linux]
 *   path = ~/src/linux
 *   ref = origin/master
 *   index = ~/.cache/ccsift/linux.db   (optional)
 *   list-id = *.vger.kernel.org; linux-mips.*
 *   threshold = 0.05
 *   always = drivers/net/phy*
 *   never = Documentation*
 *
 *   [notmuch]
 *   low = +lowcc -inbox     (tag operations per verdict of ccsift tag)
 *   relevant =
 *   not-a-patch =
 *   unknown =
 *   lock-timeout = 30       (seconds to wait for the database's write lock)
 *   trust-filter-header = false  (take X-Ccsift from ccsift filter on this host)
 */
#ifndef CCSIFT_CONFIG_H
#define CCSIFT_CONFIG_H

#include <glib.h>

typedef struct {
	char *name;
	char *path;
	char *ref;        /* NULL: HEAD */
	char *index;      /* NULL: the default location */
	char **list_ids;  /* globs; NULL: pick by the files the patch names */
	double threshold; /* < 0: the user's */
	char **always;    /* path globs that make a patch relevant */
	char **never;     /* path globs whose history never counts */
} ccsift_repo_config;

typedef struct {
	char *file;            /* the file loaded, or NULL for built-in defaults */
	char **emails;         /* configured identities */
	gboolean use_notmuch;
	double threshold;
	gboolean half_life_given;  /* half-life set: read no more (weights.h), said by config check */
	gboolean to_is_relevant;
	int catch_up;          /* seconds; 0: the index is kept up by hand or timer */
	int start_server;      /* idle seconds of a server a delivery starts; 0: none */
	GPtrArray *repos;      /* ccsift_repo_config * */
	/* [notmuch] */
	char **tag_ops[4];     /* per ccsift_verdict: "+tag"/"-tag" words */
	int lock_timeout;
	gboolean trust_filter_header;
} ccsift_config;

/* A threshold is a probability of engagement; < 0 means automatic: each
 * user's own operating point, fitted on their history (training.h). */
#define CCSIFT_DEFAULT_THRESHOLD -1.0
#define CCSIFT_DEFAULT_CATCH_UP 900
#define CCSIFT_DEFAULT_START_SERVER 600

/* Load path, or the default locations when path is NULL (a missing default
 * file gives the built-in defaults). Errors name the file, line and key. */
int ccsift_config_load(ccsift_config **out, const char *path);
ccsift_config *ccsift_config_new_default(void);
void ccsift_config_free(ccsift_config *cfg);

/* The address value gives ("Jane Doe <jane@example.org>" or a bare one),
 * lowercased; NULL when it holds none, or more than one. New string. */
char *ccsift_config_address(const char *value);

/* The identities: configured ones plus notmuch's when use_notmuch. New strv. */
char **ccsift_config_identities(const ccsift_config *cfg);

/* The repo section named name_or_path, or whose path is that directory. */
ccsift_repo_config *ccsift_config_repo_find(const ccsift_config *cfg, const char *name_or_path);

/* The repo sections whose list-id globs match list_id: those that name it
 * as it is first, then those whose glob matches it, each in file order
 * (none: an empty array). A list is often shared: the kernel's vger lists
 * carry fstests' and xfsprogs' patches too. */
GPtrArray *ccsift_config_repos_for_list(const ccsift_config *cfg, const char *list_id);

#endif
