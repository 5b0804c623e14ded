/* ccsift.h: what the subcommands share. One file per subcommand, as git's builtin/. */
#ifndef CCSIFT_BUILTIN_H
#define CCSIFT_BUILTIN_H

#include <glib.h>
#include "json-lazy.h"
#include "config.h"
#include "index.h"
#include "patch.h"
#include "repo.h"
#include "score.h"
#include "upkeep.h"

int cmd_filter(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_score(int argc, char **argv);
int cmd_parse(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_who(int argc, char **argv);
int cmd_tag(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_train(int argc, char **argv);

/* Options every scoring command takes. */
typedef struct {
	char *config;
	char *repo;
	char *index;
	char **me;
	char *as_of;
	double threshold;     /* < 0: from the config */
	gboolean json;
} common_options;

/* The options common_options holds, as bits of option_entries' which. */
enum {
	OPT_CONFIG = 1 << 0,
	OPT_REPO = 1 << 1,
	OPT_INDEX = 1 << 2,
	OPT_ME = 1 << 3,
	OPT_AS_OF = 1 << 4,
	OPT_THRESHOLD = 1 << 5,
	OPT_JSON = 1 << 6,
	OPT_BASIC = OPT_CONFIG | OPT_REPO | OPT_INDEX | OPT_JSON,
	OPT_SCORING = OPT_BASIC | OPT_ME | OPT_AS_OF | OPT_THRESHOLD,
};

/* GOptionEntry rows: the common options in which, then extra (terminated,
 * may be NULL); terminated. Free with g_free. */
GOptionEntry *option_entries(common_options *o, unsigned which, const GOptionEntry *extra);
void common_options_clear(common_options *o);

/* Parse argv with entries; prints usage errors. Returns FALSE on error. */
gboolean parse_options(int *argc, char ***argv, const char *usage, const char *summary, GOptionEntry *entries);

/* Bounds on the work per message, for ccsift filter and ccsift tag: past
 * them a message is unknown, with the reason these return (new strings;
 * NULL within bounds). */
#define CCSIFT_MAX_MESSAGE_SIZE (64u << 20)
#define CCSIFT_MAX_FILES 5000
char *message_over_size(gsize len);
char *patch_over_files(const ccsift_patch *p);

/* Read a message from fd (name says which, in a failure's message): all of
 * it, up to one byte over CCSIFT_MAX_MESSAGE_SIZE (which says it is over
 * the limit: the rest is left in fd). NULL and a message on failure. */
GByteArray *read_message_fd(int fd, const char *name, GError **error);
/* The descriptor to read a message from: file ("-" or NULL is stdin, 0),
 * or -1 and a message. */
int open_message(const char *file, GError **error);
/* The same of a file ("-" or NULL is stdin). */
GByteArray *read_message(const char *file, GError **error);

/* A repository with its index and scorer, ready for one message. */
typedef struct {
	ccsift_config *cfg;
	ccsift_repo *repo;
	ccsift_index *idx;
	ccsift_scorer *scorer;
	ccsift_score_options opts;
	char **identities;
	char *repo_name;
	/* One message per process (filter): one read transaction from the
	 * index's opening to its closing, not one per statement around it. */
	gboolean one_snapshot;
	gboolean in_snapshot;
	/* Only the verdict is shown (filter): the scorer's verdict_only. */
	gboolean verdict_only;
	/* Replies this process has found that the store does not hold yet
	 * (ccsift tag's messages, before it records them): per repository
	 * name, a GArray of margins to count, and of stored margins they
	 * replace. NULL: none. */
	GHashTable *replied_learnt, *replied_replaced;
} session;

/* Load the config (common_options.config or the default) into s. */
int session_load_config(session *s, const common_options *o);
/* Pick the repository for patch (--repo, List-Id, or by its files), open
 * it and its index, and make the scorer. update: bring the index up to date
 * first (never on the delivery path). */
int session_open(session *s, const common_options *o, ccsift_patch *patch, gboolean update);
void session_close(session *s);
/* Can the repository and index of every message be opened (--repo, or each
 * configured one)? 0, or the first error. */
int session_check_indexes(session *s, const common_options *o);
/* The index file of a [repo] section (NULL: its clone does not open), and
 * whether a section earlier in the file on another ref has it: an error. */
char *repo_config_index_path(const ccsift_repo_config *rc);
int repo_config_index_clash(const ccsift_config *cfg, const ccsift_repo_config *rc, const char *index);
/* Where s's index should catch up with its ref, if a check is due now:
 * TRUE and t filled. */
gboolean session_upkeep_due(session *s, ccsift_upkeep_target *t);

/* Load the config (unless s holds it already), parse the message and score it. */
int score_message(session *s, const common_options *o, const guint8 *bytes, size_t len,
		  gboolean update, ccsift_patch **patch, ccsift_result **result);

/* JSON members; strings are made valid UTF-8. */
void json_add_string(JsonBuilder *b, const char *key, const char *value);
void json_add_int(JsonBuilder *b, const char *key, gint64 value);
void json_add_double(JsonBuilder *b, const char *key, double value);
void json_add_bool(JsonBuilder *b, const char *key, gboolean value);

/* Output shared by score, explain and filter. */
JsonNode *patch_to_json(const ccsift_patch *patch);
JsonNode *result_to_json(const ccsift_result *r, const char *repo_name);
void print_json(JsonNode *node);
/* "low; score=0.12; threshold=0.50" */
char *verdict_header(const ccsift_result *r);

/* A line every notmuch post-new hook of ccsift's has had: one found in
 * notmuch's hook directory is ours (init replaces it, config check reads
 * it). */
#define CCSIFT_HOOK_MARK "a notmuch post-new hook that marks low-relevance"

#endif
