/* gobject-lazy.c: the three GObject functions ccsift's own code calls.
 *
 * GObject comes with GMime and json-glib, both opened when first used
 * (gmime-lazy.h, json-lazy.h). Linking it as well made every process (a
 * served delivery's client, ccsift --version) relocate it and libffi and
 * start its type system, a third of what --version cost. Every object these
 * are called on was made by one of those libraries, so GObject is loaded by
 * then: they forward to it. mail.c calls them through GMime's type macros
 * and g_object_unref; the g_autoptr cleanups of json-glib's headers call
 * g_object_unref too.
 */
#include <glib-object.h>
#include "lazy.h"

#ifndef CCSIFT_GOBJECT_SONAME
#define CCSIFT_GOBJECT_SONAME "libgobject-2.0.so.0"
#endif

static struct {
	void (*object_unref)(gpointer object);
	GTypeInstance *(*check_instance_cast)(GTypeInstance *instance, GType iface_type);
	gboolean (*check_instance_is_a)(GTypeInstance *instance, GType iface_type);
} gobject;
static volatile int gobject_loaded;

static void gobject_load(void)
{
#define RESOLVE(field, name) gobject.field = (__typeof__(gobject.field))ccsift_lazy_symbol(lib, CCSIFT_GOBJECT_SONAME, name);
	CCSIFT_LAZY_LOAD(gobject_loaded, CCSIFT_GOBJECT_SONAME,
			 RESOLVE(object_unref, "g_object_unref")
			 RESOLVE(check_instance_cast, "g_type_check_instance_cast")
			 RESOLVE(check_instance_is_a, "g_type_check_instance_is_a"));
#undef RESOLVE
}

void g_object_unref(gpointer object)
{
	if (!gobject_loaded)
		gobject_load();
	gobject.object_unref(object);
}

GTypeInstance *g_type_check_instance_cast(GTypeInstance *instance, GType iface_type)
{
	if (!gobject_loaded)
		gobject_load();
	return gobject.check_instance_cast(instance, iface_type);
}

gboolean g_type_check_instance_is_a(GTypeInstance *instance, GType iface_type)
{
	if (!gobject_loaded)
		gobject_load();
	return gobject.check_instance_is_a(instance, iface_type);
}
