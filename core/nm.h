/* nm.h: libnotmuch, loaded when first needed.
 *
 * Only ccsift tag, explain id: and notmuch identities use notmuch, but
 * linking it makes every process load Xapian and the C++ runtime: about 2 ms
 * on each delivery. So it is opened with dlopen, and the notmuch_* names
 * used in ccsift are pointers into it. Call ccsift_nm_load() before any.
 */
#ifndef CCSIFT_NM_H
#define CCSIFT_NM_H

#include <glib.h>
#include <notmuch.h>

#define CCSIFT_NM_FUNCS(X) \
	X(notmuch_config_get) \
	X(notmuch_config_get_bool) \
	X(notmuch_config_get_values) \
	X(notmuch_config_values_destroy) \
	X(notmuch_config_values_get) \
	X(notmuch_config_values_move_to_next) \
	X(notmuch_config_values_valid) \
	X(notmuch_database_begin_atomic) \
	X(notmuch_database_destroy) \
	X(notmuch_database_end_atomic) \
	X(notmuch_database_find_message) \
	X(notmuch_database_get_revision) \
	X(notmuch_database_load_config) \
	X(notmuch_database_open_with_config) \
	X(notmuch_database_status_string) \
	X(notmuch_message_add_property) \
	X(notmuch_message_add_tag) \
	X(notmuch_message_destroy) \
	X(notmuch_message_freeze) \
	X(notmuch_message_get_date) \
	X(notmuch_message_get_filename) \
	X(notmuch_message_get_header) \
	X(notmuch_message_get_message_id) \
	X(notmuch_message_get_property) \
	X(notmuch_message_get_tags) \
	X(notmuch_message_get_thread_id) \
	X(notmuch_message_remove_all_properties) \
	X(notmuch_message_remove_tag) \
	X(notmuch_message_tags_to_maildir_flags) \
	X(notmuch_message_thaw) \
	X(notmuch_messages_get) \
	X(notmuch_messages_move_to_next) \
	X(notmuch_messages_valid) \
	X(notmuch_query_add_tag_exclude) \
	X(notmuch_query_count_messages) \
	X(notmuch_query_create_with_syntax) \
	X(notmuch_query_destroy) \
	X(notmuch_query_search_messages) \
	X(notmuch_status_to_string) \
	X(notmuch_tags_get) \
	X(notmuch_tags_move_to_next) \
	X(notmuch_tags_valid)

#define CCSIFT_NM_POINTER(f) __typeof__(f) *f;
typedef struct {
	CCSIFT_NM_FUNCS(CCSIFT_NM_POINTER)
} ccsift_nm_api;

extern ccsift_nm_api ccsift_nm;

/* Load libnotmuch; 0, or CCSIFT_ENOTFOUND with a message when it is missing. */
int ccsift_nm_load(void);

/* Open the database notmuch's own configuration names (NOTMUCH_CONFIG,
 * NOTMUCH_PROFILE, ...), loading libnotmuch first; 0, or CCSIFT_EIO with
 * notmuch's message. Opening read-write blocks while another process holds
 * the write lock. */
int ccsift_nm_open(notmuch_database_mode_t mode, notmuch_database_t **db);

/* Does the message carry tag? */
int ccsift_nm_has_tag(notmuch_message_t *message, const char *tag);

/* Append to q len bytes of text (-1: all of it) as the inside of a quoted
 * term or phrase of notmuch's query syntax: its quotes doubled. */
void ccsift_nm_append_quoted(GString *q, const char *text, gssize len);

/* Append to q a query for mail from any of addresses (not empty):
 * (from:"a" OR from:"b"), quotes in them doubled as the query wants. */
void ccsift_nm_append_from(GString *q, char *const *addresses);

/* What notmuch's config says of the user: *emails (user.primary_email, then
 * user.other_email; a new strv) and, if hook_dir is not NULL, its
 * database.hook_dir (new, or NULL). FALSE when there is no notmuch or no
 * notmuch config. */
gboolean ccsift_nm_user(char ***emails, char **hook_dir);

/* ccsift tag decides tag:new, so notmuch's new.tags must contain "new".
 * NULL when it does (or there is no notmuch config: nothing to check);
 * else a new string saying what is wrong and the command that fixes it. */
char *ccsift_nm_new_tags_problem(void);

#ifndef CCSIFT_NM_IMPL
#define notmuch_config_get (ccsift_nm.notmuch_config_get)
#define notmuch_config_get_bool (ccsift_nm.notmuch_config_get_bool)
#define notmuch_config_get_values (ccsift_nm.notmuch_config_get_values)
#define notmuch_config_values_destroy (ccsift_nm.notmuch_config_values_destroy)
#define notmuch_config_values_get (ccsift_nm.notmuch_config_values_get)
#define notmuch_config_values_move_to_next (ccsift_nm.notmuch_config_values_move_to_next)
#define notmuch_config_values_valid (ccsift_nm.notmuch_config_values_valid)
#define notmuch_database_begin_atomic (ccsift_nm.notmuch_database_begin_atomic)
#define notmuch_database_destroy (ccsift_nm.notmuch_database_destroy)
#define notmuch_database_end_atomic (ccsift_nm.notmuch_database_end_atomic)
#define notmuch_database_find_message (ccsift_nm.notmuch_database_find_message)
#define notmuch_database_get_revision (ccsift_nm.notmuch_database_get_revision)
#define notmuch_database_load_config (ccsift_nm.notmuch_database_load_config)
#define notmuch_database_open_with_config (ccsift_nm.notmuch_database_open_with_config)
#define notmuch_database_status_string (ccsift_nm.notmuch_database_status_string)
#define notmuch_message_add_property (ccsift_nm.notmuch_message_add_property)
#define notmuch_message_add_tag (ccsift_nm.notmuch_message_add_tag)
#define notmuch_message_destroy (ccsift_nm.notmuch_message_destroy)
#define notmuch_message_freeze (ccsift_nm.notmuch_message_freeze)
#define notmuch_message_get_date (ccsift_nm.notmuch_message_get_date)
#define notmuch_message_get_filename (ccsift_nm.notmuch_message_get_filename)
#define notmuch_message_get_header (ccsift_nm.notmuch_message_get_header)
#define notmuch_message_get_message_id (ccsift_nm.notmuch_message_get_message_id)
#define notmuch_message_get_property (ccsift_nm.notmuch_message_get_property)
#define notmuch_message_get_tags (ccsift_nm.notmuch_message_get_tags)
#define notmuch_message_get_thread_id (ccsift_nm.notmuch_message_get_thread_id)
#define notmuch_message_remove_all_properties (ccsift_nm.notmuch_message_remove_all_properties)
#define notmuch_message_remove_tag (ccsift_nm.notmuch_message_remove_tag)
#define notmuch_message_tags_to_maildir_flags (ccsift_nm.notmuch_message_tags_to_maildir_flags)
#define notmuch_message_thaw (ccsift_nm.notmuch_message_thaw)
#define notmuch_messages_get (ccsift_nm.notmuch_messages_get)
#define notmuch_messages_move_to_next (ccsift_nm.notmuch_messages_move_to_next)
#define notmuch_messages_valid (ccsift_nm.notmuch_messages_valid)
#define notmuch_query_add_tag_exclude (ccsift_nm.notmuch_query_add_tag_exclude)
#define notmuch_query_count_messages (ccsift_nm.notmuch_query_count_messages)
#define notmuch_query_create_with_syntax (ccsift_nm.notmuch_query_create_with_syntax)
#define notmuch_query_destroy (ccsift_nm.notmuch_query_destroy)
#define notmuch_query_search_messages (ccsift_nm.notmuch_query_search_messages)
#define notmuch_status_to_string (ccsift_nm.notmuch_status_to_string)
#define notmuch_tags_get (ccsift_nm.notmuch_tags_get)
#define notmuch_tags_move_to_next (ccsift_nm.notmuch_tags_move_to_next)
#define notmuch_tags_valid (ccsift_nm.notmuch_tags_valid)
#endif

#endif
