/* gmime-lazy.h: GMime, loaded when a mail is first parsed.
 *
 * Only the commands that read mail need GMime, and linking it makes every
 * process load and relocate it and what it links (GPGME, libassuan,
 * libgpg-error, libidn2, libunistring): ccsift --version paid for them. So
 * it is opened with dlopen on the first call, and the GMime names mail.c
 * uses (its type macros call the *_get_type functions) are pointers into
 * it, as libgit2's (git.h) and libnotmuch's (nm.h) are. Include this
 * instead of <gmime/gmime.h>.
 */
#ifndef CCSIFT_GMIME_LAZY_H
#define CCSIFT_GMIME_LAZY_H

#include <gmime/gmime.h>

#define CCSIFT_GMIME_FUNCS(X) \
	X(g_mime_content_type_get_parameter) \
	X(g_mime_content_type_is_type) \
	X(g_mime_content_type_parse) \
	X(g_mime_data_wrapper_write_to_stream) \
	X(g_mime_header_get_name) \
	X(g_mime_header_get_raw_value) \
	X(g_mime_header_list_get_count) \
	X(g_mime_header_list_get_header) \
	X(g_mime_header_list_get_header_at) \
	X(g_mime_init) \
	X(g_mime_message_get_cc) \
	X(g_mime_message_get_reply_to) \
	X(g_mime_message_get_from) \
	X(g_mime_message_get_message_id) \
	X(g_mime_message_get_mime_part) \
	X(g_mime_message_get_subject) \
	X(g_mime_message_get_to) \
	X(g_mime_message_part_get_message) \
	X(g_mime_multipart_get_count) \
	X(g_mime_multipart_get_part) \
	X(g_mime_object_get_content_type) \
	X(g_mime_object_get_header) \
	X(g_mime_object_get_header_list) \
	X(g_mime_parser_construct_message) \
	X(g_mime_parser_new_with_stream) \
	X(g_mime_parser_set_format) \
	X(g_mime_part_get_content) \
	X(g_mime_part_get_filename) \
	X(g_mime_references_free) \
	X(g_mime_references_get_message_id) \
	X(g_mime_references_length) \
	X(g_mime_references_parse) \
	X(g_mime_stream_mem_get_byte_array) \
	X(g_mime_stream_mem_new) \
	X(g_mime_stream_mem_new_with_byte_array) \
	X(g_mime_stream_mem_set_owner) \
	X(g_mime_utils_decode_message_id) \
	X(internet_address_get_name) \
	X(internet_address_group_get_members) \
	X(internet_address_list_get_address) \
	X(internet_address_list_length) \
	X(internet_address_list_parse) \
	X(internet_address_mailbox_get_addr) \
	X(g_mime_message_part_get_type) \
	X(g_mime_multipart_get_type) \
	X(g_mime_part_get_type) \
	X(g_mime_object_get_type) \
	X(g_mime_stream_mem_get_type) \
	X(internet_address_group_get_type) \
	X(internet_address_mailbox_get_type)

#define CCSIFT_GMIME_POINTER(f) __typeof__(f) *f;
typedef struct {
	CCSIFT_GMIME_FUNCS(CCSIFT_GMIME_POINTER)
} ccsift_gmime_api;

extern ccsift_gmime_api ccsift_gmime;
extern volatile int ccsift_gmime_loaded;

/* Load GMime and resolve every name above; a process that cannot exits
 * with a message (status 70), as it could not have started if linked. */
void ccsift_gmime_load(void);

#define CCSIFT_GMIME(f) ((ccsift_gmime_loaded ? (void)0 : ccsift_gmime_load()), ccsift_gmime.f)

#ifndef CCSIFT_GMIME_IMPL
#define g_mime_content_type_get_parameter CCSIFT_GMIME(g_mime_content_type_get_parameter)
#define g_mime_content_type_is_type CCSIFT_GMIME(g_mime_content_type_is_type)
#define g_mime_content_type_parse CCSIFT_GMIME(g_mime_content_type_parse)
#define g_mime_data_wrapper_write_to_stream CCSIFT_GMIME(g_mime_data_wrapper_write_to_stream)
#define g_mime_header_get_name CCSIFT_GMIME(g_mime_header_get_name)
#define g_mime_header_get_raw_value CCSIFT_GMIME(g_mime_header_get_raw_value)
#define g_mime_header_list_get_count CCSIFT_GMIME(g_mime_header_list_get_count)
#define g_mime_header_list_get_header CCSIFT_GMIME(g_mime_header_list_get_header)
#define g_mime_header_list_get_header_at CCSIFT_GMIME(g_mime_header_list_get_header_at)
#define g_mime_init CCSIFT_GMIME(g_mime_init)
#define g_mime_message_get_cc CCSIFT_GMIME(g_mime_message_get_cc)
#define g_mime_message_get_reply_to CCSIFT_GMIME(g_mime_message_get_reply_to)
#define g_mime_message_get_from CCSIFT_GMIME(g_mime_message_get_from)
#define g_mime_message_get_message_id CCSIFT_GMIME(g_mime_message_get_message_id)
#define g_mime_message_get_mime_part CCSIFT_GMIME(g_mime_message_get_mime_part)
#define g_mime_message_get_subject CCSIFT_GMIME(g_mime_message_get_subject)
#define g_mime_message_get_to CCSIFT_GMIME(g_mime_message_get_to)
#define g_mime_message_part_get_message CCSIFT_GMIME(g_mime_message_part_get_message)
#define g_mime_multipart_get_count CCSIFT_GMIME(g_mime_multipart_get_count)
#define g_mime_multipart_get_part CCSIFT_GMIME(g_mime_multipart_get_part)
#define g_mime_object_get_content_type CCSIFT_GMIME(g_mime_object_get_content_type)
#define g_mime_object_get_header CCSIFT_GMIME(g_mime_object_get_header)
#define g_mime_object_get_header_list CCSIFT_GMIME(g_mime_object_get_header_list)
#define g_mime_parser_construct_message CCSIFT_GMIME(g_mime_parser_construct_message)
#define g_mime_parser_new_with_stream CCSIFT_GMIME(g_mime_parser_new_with_stream)
#define g_mime_parser_set_format CCSIFT_GMIME(g_mime_parser_set_format)
#define g_mime_part_get_content CCSIFT_GMIME(g_mime_part_get_content)
#define g_mime_part_get_filename CCSIFT_GMIME(g_mime_part_get_filename)
#define g_mime_references_free CCSIFT_GMIME(g_mime_references_free)
#define g_mime_references_get_message_id CCSIFT_GMIME(g_mime_references_get_message_id)
#define g_mime_references_length CCSIFT_GMIME(g_mime_references_length)
#define g_mime_references_parse CCSIFT_GMIME(g_mime_references_parse)
#define g_mime_stream_mem_get_byte_array CCSIFT_GMIME(g_mime_stream_mem_get_byte_array)
#define g_mime_stream_mem_new CCSIFT_GMIME(g_mime_stream_mem_new)
#define g_mime_stream_mem_new_with_byte_array CCSIFT_GMIME(g_mime_stream_mem_new_with_byte_array)
#define g_mime_stream_mem_set_owner CCSIFT_GMIME(g_mime_stream_mem_set_owner)
#define g_mime_utils_decode_message_id CCSIFT_GMIME(g_mime_utils_decode_message_id)
#define internet_address_get_name CCSIFT_GMIME(internet_address_get_name)
#define internet_address_group_get_members CCSIFT_GMIME(internet_address_group_get_members)
#define internet_address_list_get_address CCSIFT_GMIME(internet_address_list_get_address)
#define internet_address_list_length CCSIFT_GMIME(internet_address_list_length)
#define internet_address_list_parse CCSIFT_GMIME(internet_address_list_parse)
#define internet_address_mailbox_get_addr CCSIFT_GMIME(internet_address_mailbox_get_addr)
#define g_mime_message_part_get_type CCSIFT_GMIME(g_mime_message_part_get_type)
#define g_mime_multipart_get_type CCSIFT_GMIME(g_mime_multipart_get_type)
#define g_mime_part_get_type CCSIFT_GMIME(g_mime_part_get_type)
#define g_mime_object_get_type CCSIFT_GMIME(g_mime_object_get_type)
#define g_mime_stream_mem_get_type CCSIFT_GMIME(g_mime_stream_mem_get_type)
#define internet_address_group_get_type CCSIFT_GMIME(internet_address_group_get_type)
#define internet_address_mailbox_get_type CCSIFT_GMIME(internet_address_mailbox_get_type)
#endif

#endif
