/* git.h: libgit2, loaded when first needed.
 *
 * Most deliveries never open the repository (the index has what they need),
 * but linking libgit2 makes every process load and relocate it and what it
 * links (mbedTLS, libssh2, Kerberos, http-parser): about 2 ms before any
 * work. So it is opened with dlopen on the first call, and the git_* names
 * used in ccsift are pointers into it, as libnotmuch's are (nm.h). Include
 * this (repo.h does), never <git2.h> alone.
 */
#ifndef CCSIFT_GIT_H
#define CCSIFT_GIT_H

#include <string.h>
#include <glib.h>
#include <git2.h>
#include <git2/sys/odb_backend.h>

/* A git_oid as a GHashTable key: its bytes are a hash already. */
static inline guint ccsift_oid_hash(gconstpointer p)
{
	guint h;

	memcpy(&h, ((const git_oid *)p)->id, sizeof(h));
	return h;
}

static inline gboolean ccsift_oid_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(((const git_oid *)a)->id, ((const git_oid *)b)->id, GIT_OID_RAWSZ) == 0;
}

#define CCSIFT_GIT_FUNCS(X) \
	X(git_blob_free) \
	X(git_blob_lookup) \
	X(git_blob_rawcontent) \
	X(git_blob_rawsize) \
	X(git_buf_dispose) \
	X(git_commit_author) \
	X(git_commit_committer) \
	X(git_commit_free) \
	X(git_commit_id) \
	X(git_commit_lookup) \
	X(git_commit_message) \
	X(git_commit_parent) \
	X(git_commit_parent_id) \
	X(git_commit_parentcount) \
	X(git_commit_summary) \
	X(git_commit_tree) \
	X(git_commit_tree_id) \
	X(git_config_free) \
	X(git_config_get_string_buf) \
	X(git_config_open_default) \
	X(git_diff_find_options_init) \
	X(git_diff_find_similar) \
	X(git_diff_free) \
	X(git_diff_get_delta) \
	X(git_diff_num_deltas) \
	X(git_diff_options_init) \
	X(git_diff_tree_to_tree) \
	X(git_error_clear) \
	X(git_error_last) \
	X(git_graph_ahead_behind) \
	X(git_graph_descendant_of) \
	X(git_libgit2_init) \
	X(git_libgit2_opts) \
	X(git_mailmap_free) \
	X(git_mailmap_from_buffer) \
	X(git_mailmap_from_repository) \
	X(git_mailmap_resolve) \
	X(git_message_trailer_array_free) \
	X(git_message_trailers) \
	X(git_object_free) \
	X(git_object_id) \
	X(git_object_peel) \
	X(git_object_type) \
	X(git_odb_exists_prefix) \
	X(git_odb_free) \
	X(git_odb_read_header) \
	X(git_odb_add_backend) \
	X(git_odb_backend_data_alloc) \
	X(git_odb_init_backend) \
	X(git_odb_object_data) \
	X(git_odb_object_free) \
	X(git_odb_object_size) \
	X(git_odb_object_type) \
	X(git_odb_open) \
	X(git_odb_read) \
	X(git_oid_cpy) \
	X(git_oid_equal) \
	X(git_oid_fromstr) \
	X(git_oid_fromstrn) \
	X(git_oid_is_zero) \
	X(git_oid_tostr) \
	X(git_oid_tostr_s) \
	X(git_patch_free) \
	X(git_patch_from_blobs) \
	X(git_patch_line_stats) \
	X(git_reference_free) \
	X(git_reference_lookup) \
	X(git_reference_symbolic_target) \
	X(git_reference_type) \
	X(git_repository_commondir) \
	X(git_repository_config_snapshot) \
	X(git_repository_free) \
	X(git_repository_odb) \
	X(git_repository_open_ext) \
	X(git_repository_path) \
	X(git_revparse_single) \
	X(git_revwalk_free) \
	X(git_revwalk_hide) \
	X(git_revwalk_new) \
	X(git_revwalk_next) \
	X(git_revwalk_push) \
	X(git_revwalk_sorting) \
	X(git_tree_entry_byindex) \
	X(git_tree_entry_bypath) \
	X(git_tree_entry_filemode) \
	X(git_tree_entry_free) \
	X(git_tree_entry_id) \
	X(git_tree_entry_name) \
	X(git_tree_entry_type) \
	X(git_tree_entrycount) \
	X(git_tree_free) \
	X(git_tree_lookup)

#define CCSIFT_GIT_POINTER(f) __typeof__(f) *f;
typedef struct {
	CCSIFT_GIT_FUNCS(CCSIFT_GIT_POINTER)
} ccsift_git_api;

extern ccsift_git_api ccsift_git;
extern volatile int ccsift_git_loaded;

/* Load libgit2 and resolve every name above; a process that cannot exits
 * with a message (status 70), as it could not have started if linked. */
void ccsift_git_load(void);

#define CCSIFT_GIT(f) ((ccsift_git_loaded ? (void)0 : ccsift_git_load()), ccsift_git.f)

#ifndef CCSIFT_GIT_IMPL
#define git_blob_free CCSIFT_GIT(git_blob_free)
#define git_blob_lookup CCSIFT_GIT(git_blob_lookup)
#define git_blob_rawcontent CCSIFT_GIT(git_blob_rawcontent)
#define git_blob_rawsize CCSIFT_GIT(git_blob_rawsize)
#define git_buf_dispose CCSIFT_GIT(git_buf_dispose)
#define git_commit_author CCSIFT_GIT(git_commit_author)
#define git_commit_committer CCSIFT_GIT(git_commit_committer)
#define git_commit_free CCSIFT_GIT(git_commit_free)
#define git_commit_id CCSIFT_GIT(git_commit_id)
#define git_commit_lookup CCSIFT_GIT(git_commit_lookup)
#define git_commit_message CCSIFT_GIT(git_commit_message)
#define git_commit_parent CCSIFT_GIT(git_commit_parent)
#define git_commit_parent_id CCSIFT_GIT(git_commit_parent_id)
#define git_commit_parentcount CCSIFT_GIT(git_commit_parentcount)
#define git_commit_summary CCSIFT_GIT(git_commit_summary)
#define git_commit_tree CCSIFT_GIT(git_commit_tree)
#define git_commit_tree_id CCSIFT_GIT(git_commit_tree_id)
#define git_config_free CCSIFT_GIT(git_config_free)
#define git_config_get_string_buf CCSIFT_GIT(git_config_get_string_buf)
#define git_config_open_default CCSIFT_GIT(git_config_open_default)
#define git_diff_find_options_init CCSIFT_GIT(git_diff_find_options_init)
#define git_diff_find_similar CCSIFT_GIT(git_diff_find_similar)
#define git_diff_free CCSIFT_GIT(git_diff_free)
#define git_diff_get_delta CCSIFT_GIT(git_diff_get_delta)
#define git_diff_num_deltas CCSIFT_GIT(git_diff_num_deltas)
#define git_diff_options_init CCSIFT_GIT(git_diff_options_init)
#define git_diff_tree_to_tree CCSIFT_GIT(git_diff_tree_to_tree)
#define git_error_clear CCSIFT_GIT(git_error_clear)
#define git_error_last CCSIFT_GIT(git_error_last)
#define git_graph_ahead_behind CCSIFT_GIT(git_graph_ahead_behind)
#define git_graph_descendant_of CCSIFT_GIT(git_graph_descendant_of)
#define git_libgit2_init CCSIFT_GIT(git_libgit2_init)
#define git_libgit2_opts CCSIFT_GIT(git_libgit2_opts)
#define git_mailmap_free CCSIFT_GIT(git_mailmap_free)
#define git_mailmap_from_buffer CCSIFT_GIT(git_mailmap_from_buffer)
#define git_mailmap_from_repository CCSIFT_GIT(git_mailmap_from_repository)
#define git_mailmap_resolve CCSIFT_GIT(git_mailmap_resolve)
#define git_message_trailer_array_free CCSIFT_GIT(git_message_trailer_array_free)
#define git_message_trailers CCSIFT_GIT(git_message_trailers)
#define git_object_free CCSIFT_GIT(git_object_free)
#define git_object_id CCSIFT_GIT(git_object_id)
#define git_object_peel CCSIFT_GIT(git_object_peel)
#define git_object_type CCSIFT_GIT(git_object_type)
#define git_odb_exists_prefix CCSIFT_GIT(git_odb_exists_prefix)
#define git_odb_free CCSIFT_GIT(git_odb_free)
#define git_odb_read_header CCSIFT_GIT(git_odb_read_header)
#define git_odb_add_backend CCSIFT_GIT(git_odb_add_backend)
#define git_odb_backend_data_alloc CCSIFT_GIT(git_odb_backend_data_alloc)
#define git_odb_init_backend CCSIFT_GIT(git_odb_init_backend)
#define git_odb_object_data CCSIFT_GIT(git_odb_object_data)
#define git_odb_object_free CCSIFT_GIT(git_odb_object_free)
#define git_odb_object_size CCSIFT_GIT(git_odb_object_size)
#define git_odb_object_type CCSIFT_GIT(git_odb_object_type)
#define git_odb_open CCSIFT_GIT(git_odb_open)
#define git_odb_read CCSIFT_GIT(git_odb_read)
#define git_oid_cpy CCSIFT_GIT(git_oid_cpy)
#define git_oid_equal CCSIFT_GIT(git_oid_equal)
#define git_oid_fromstr CCSIFT_GIT(git_oid_fromstr)
#define git_oid_fromstrn CCSIFT_GIT(git_oid_fromstrn)
#define git_oid_is_zero CCSIFT_GIT(git_oid_is_zero)
#define git_oid_tostr CCSIFT_GIT(git_oid_tostr)
#define git_oid_tostr_s CCSIFT_GIT(git_oid_tostr_s)
#define git_patch_free CCSIFT_GIT(git_patch_free)
#define git_patch_from_blobs CCSIFT_GIT(git_patch_from_blobs)
#define git_patch_line_stats CCSIFT_GIT(git_patch_line_stats)
#define git_reference_free CCSIFT_GIT(git_reference_free)
#define git_reference_lookup CCSIFT_GIT(git_reference_lookup)
#define git_reference_symbolic_target CCSIFT_GIT(git_reference_symbolic_target)
#define git_reference_type CCSIFT_GIT(git_reference_type)
#define git_repository_commondir CCSIFT_GIT(git_repository_commondir)
#define git_repository_config_snapshot CCSIFT_GIT(git_repository_config_snapshot)
#define git_repository_free CCSIFT_GIT(git_repository_free)
#define git_repository_odb CCSIFT_GIT(git_repository_odb)
#define git_repository_open_ext CCSIFT_GIT(git_repository_open_ext)
#define git_repository_path CCSIFT_GIT(git_repository_path)
#define git_revparse_single CCSIFT_GIT(git_revparse_single)
#define git_revwalk_free CCSIFT_GIT(git_revwalk_free)
#define git_revwalk_hide CCSIFT_GIT(git_revwalk_hide)
#define git_revwalk_new CCSIFT_GIT(git_revwalk_new)
#define git_revwalk_next CCSIFT_GIT(git_revwalk_next)
#define git_revwalk_push CCSIFT_GIT(git_revwalk_push)
#define git_revwalk_sorting CCSIFT_GIT(git_revwalk_sorting)
#define git_tree_entry_byindex CCSIFT_GIT(git_tree_entry_byindex)
#define git_tree_entry_bypath CCSIFT_GIT(git_tree_entry_bypath)
#define git_tree_entry_filemode CCSIFT_GIT(git_tree_entry_filemode)
#define git_tree_entry_free CCSIFT_GIT(git_tree_entry_free)
#define git_tree_entry_id CCSIFT_GIT(git_tree_entry_id)
#define git_tree_entry_name CCSIFT_GIT(git_tree_entry_name)
#define git_tree_entry_type CCSIFT_GIT(git_tree_entry_type)
#define git_tree_entrycount CCSIFT_GIT(git_tree_entrycount)
#define git_tree_free CCSIFT_GIT(git_tree_free)
#define git_tree_lookup CCSIFT_GIT(git_tree_lookup)
#endif

#endif
