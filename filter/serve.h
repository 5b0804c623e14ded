/* serve.h: ccsift filter's decisions made by a resident `ccsift serve`.
 *
 * Most of a delivery's cost is loading the MIME library and opening the
 * index, not deciding. A resident process that has done both once decides
 * for `ccsift filter` over a Unix socket, as spamd does for spamc. Only the
 * decision crosses the socket: the client keeps the message and writes it
 * out itself, so a server that is absent, refuses, dies or stalls can cost
 * the message nothing; the client then decides in-process, as without one.
 *
 * A server answers only clients of its own user whose context (options,
 * config, cache and data directories) is its own; anything else is
 * refused and decided in-process, so a served verdict is the one the
 * client would have reached by itself.
 *
 * The wire, both ways: a magic line, then strings as a 32-bit length and
 * the bytes. Request: "ccsift-filter 1\n", the number of context strings,
 * the strings, the message. Reply: "ccsift-served 1\n", a status (0
 * decided, 1 refused), the verdict, the reason and the line the decision
 * left for stderr (each possibly empty).
 */
#ifndef CCSIFT_SERVE_H
#define CCSIFT_SERVE_H

#include <glib.h>
#include "ccsift.h"

#define SERVE_REQUEST_MAGIC "ccsift-filter 1\n"
#define SERVE_REPLY_MAGIC "ccsift-served 1\n"
#define SERVE_MAX_CONTEXT 64       /* strings in a context */
#define SERVE_MAX_STRING 4096      /* bytes in a context string, verdict or reason */

enum { SERVE_DECIDED = 0, SERVE_REFUSED = 1 };

/* Where the server listens: $CCSIFT_SOCKET (empty: nowhere, never served),
 * else ccsift/filter.sock in $XDG_RUNTIME_DIR, else in /run/user/UID when
 * that is ours (a mail delivery agent seldom sets XDG_RUNTIME_DIR), else
 * NULL. New string. */
char *serve_socket_path(void);

/* The directory of the socket at path, made if missing: 0 when it is the
 * user's and nobody else's (mode 0700 or less), else -1. */
int serve_private_dir(const char *path);

/* Where notmuch reads its config (the user's addresses) from, in its
 * order: $NOTMUCH_CONFIG alone when set, else
 * $XDG_CONFIG_HOME/notmuch/PROFILE/config and ~/.notmuch-config[.PROFILE]. */
GPtrArray *serve_notmuch_configs(void);

/* What a decision depends on besides the message: the options, made
 * absolute ("name=value" after the long option, empty when not given), the
 * program itself, the user's config, cache and data directories, home,
 * and the notmuch config in use (the first of serve_notmuch_configs there).
 * Client and server compare them string for string. */
GPtrArray *serve_context(const common_options *o);

/* The program's entry in a context: the running executable's device,
 * inode and time, so that a server left running by an older ccsift is not
 * asked by a newer one. New string. */
#define SERVE_BINARY_KEY "binary="
char *serve_binary(void);

/* Client: ask the server at path to decide raw under context. 0 and the
 * three strings (new; complaint "" when nothing was said) when it did;
 * SERVE_ABSENT when nobody listens at path; another value <0 when it
 * refused or failed to answer within timeout_s seconds. Without an answer
 * the client decides in-process. */
#define SERVE_ABSENT (-2)
int serve_ask(const char *path, GPtrArray *context, const GByteArray *raw, int timeout_s,
	      char **verdict, char **reason, char **complaint);

/* Does a server of ours listen at path? (It is asked nothing.) */
gboolean serve_listening(const char *path);

/* Start a server of the client's context (serve_context) at path, detached
 * (detach.h), deciding within budget seconds and exiting after idle seconds
 * without a message. The caller goes on at once: the server makes its
 * socket while the next deliveries decide in-process, and of servers
 * started at once one listens and the others leave. Their stderr is
 * appended to path.log (emptied past 64 KiB). */
void serve_start(GPtrArray *context, const char *path, int budget, int idle);

/* Server side of the wire, on a connected socket: 0 or <0. A request must
 * come whole within timeout_s seconds, a reply go within as many. */
int serve_read_request(int fd, int timeout_s, GPtrArray **context, GByteArray **raw);
int serve_write_reply(int fd, int timeout_s, int status, const char *verdict, const char *reason,
		      const char *complaint);

/* ccsift filter's decision, in-process: the verdict and reason for the
 * headers, and the line for stderr ("" when none). s is used and left open
 * for the next message (ccsift serve) or closed by the caller (filter). */
void filter_decide(session *s, const common_options *o, const GByteArray *raw,
		   char **verdict, char **reason, char **complaint, ccsift_upkeep_target *upkeep, gboolean *due);

#endif
