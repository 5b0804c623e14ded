/* json-lazy.h: json-glib, loaded when JSON is first written.
 *
 * Only --json output uses json-glib, but linking it makes every process
 * load it and gio with it (gmodule, libmount, libselinux, libblkid, zlib).
 * So it is opened with dlopen on the first call, and the json_* names the
 * commands use are pointers into it, as libgit2's (core/git.h), GMime's
 * (core/gmime-lazy.h) and libnotmuch's (core/nm.h) are. json_array_unref,
 * which g_autoptr(JsonArray) calls from json-glib's own header, is a
 * function of json-lazy.c. Include this, never <json-glib/json-glib.h>.
 */
#ifndef CCSIFT_JSON_LAZY_H
#define CCSIFT_JSON_LAZY_H

#include <json-glib/json-glib.h>

#define CCSIFT_JSON_FUNCS(X) \
	X(json_array_add_element) \
	X(json_array_new) \
	X(json_builder_add_boolean_value) \
	X(json_builder_add_double_value) \
	X(json_builder_add_int_value) \
	X(json_builder_add_null_value) \
	X(json_builder_add_string_value) \
	X(json_builder_begin_array) \
	X(json_builder_begin_object) \
	X(json_builder_end_array) \
	X(json_builder_end_object) \
	X(json_builder_get_root) \
	X(json_builder_new) \
	X(json_builder_set_member_name) \
	X(json_generator_new) \
	X(json_generator_set_pretty) \
	X(json_generator_set_root) \
	X(json_generator_to_data) \
	X(json_node_new) \
	X(json_node_set_array) \
	X(json_node_unref) \
	X(json_node_get_object) \
	X(json_object_new) \
	X(json_object_set_boolean_member) \
	X(json_object_set_double_member) \
	X(json_object_set_int_member) \
	X(json_object_set_object_member) \
	X(json_object_set_string_member) \
	X(json_array_unref)

#define CCSIFT_JSON_POINTER(f) __typeof__(f) *f;
typedef struct {
	CCSIFT_JSON_FUNCS(CCSIFT_JSON_POINTER)
} ccsift_json_api;

extern ccsift_json_api ccsift_json;
extern volatile int ccsift_json_loaded;

/* Load json-glib and resolve every name above; a process that cannot exits
 * with a message (status 70), as it could not have started if linked. */
void ccsift_json_load(void);

#define CCSIFT_JSON(f) ((ccsift_json_loaded ? (void)0 : ccsift_json_load()), ccsift_json.f)

#ifndef CCSIFT_JSON_IMPL
#define json_array_add_element CCSIFT_JSON(json_array_add_element)
#define json_array_new CCSIFT_JSON(json_array_new)
#define json_node_get_object CCSIFT_JSON(json_node_get_object)
#define json_object_new CCSIFT_JSON(json_object_new)
#define json_object_set_boolean_member CCSIFT_JSON(json_object_set_boolean_member)
#define json_object_set_double_member CCSIFT_JSON(json_object_set_double_member)
#define json_object_set_int_member CCSIFT_JSON(json_object_set_int_member)
#define json_object_set_object_member CCSIFT_JSON(json_object_set_object_member)
#define json_object_set_string_member CCSIFT_JSON(json_object_set_string_member)
#define json_builder_add_boolean_value CCSIFT_JSON(json_builder_add_boolean_value)
#define json_builder_add_double_value CCSIFT_JSON(json_builder_add_double_value)
#define json_builder_add_int_value CCSIFT_JSON(json_builder_add_int_value)
#define json_builder_add_null_value CCSIFT_JSON(json_builder_add_null_value)
#define json_builder_add_string_value CCSIFT_JSON(json_builder_add_string_value)
#define json_builder_begin_array CCSIFT_JSON(json_builder_begin_array)
#define json_builder_begin_object CCSIFT_JSON(json_builder_begin_object)
#define json_builder_end_array CCSIFT_JSON(json_builder_end_array)
#define json_builder_end_object CCSIFT_JSON(json_builder_end_object)
#define json_builder_get_root CCSIFT_JSON(json_builder_get_root)
#define json_builder_new CCSIFT_JSON(json_builder_new)
#define json_builder_set_member_name CCSIFT_JSON(json_builder_set_member_name)
#define json_generator_new CCSIFT_JSON(json_generator_new)
#define json_generator_set_pretty CCSIFT_JSON(json_generator_set_pretty)
#define json_generator_set_root CCSIFT_JSON(json_generator_set_root)
#define json_generator_to_data CCSIFT_JSON(json_generator_to_data)
#define json_node_new CCSIFT_JSON(json_node_new)
#define json_node_set_array CCSIFT_JSON(json_node_set_array)
#define json_node_unref CCSIFT_JSON(json_node_unref)
#endif

#endif
