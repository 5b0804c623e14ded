/* fuzz-pack.c: libFuzzer harness for the pack reader (core/pack.c).
 *
 * A repository someone else prepared is hostile input too: its packs are
 * parsed by ccsift itself. The input is a pack's index and the pack: a
 * 4-byte little-endian length of the index, the index, then the pack.
 * Both are written as the only pack of an object store, and every id the
 * index lists (the first 64) is read whole and by its header.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include "pack.h"

#define MAX_IDS 64
#define MAX_OBJECT (1u << 20)

static char *dir;

static void remove_dir(void)
{
	const char *names[] = { "pack/pack-fuzz.idx", "pack/pack-fuzz.pack", "pack", "" };

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		char *path = g_build_filename(dir, names[i], NULL);

		g_remove(path);
		g_free(path);
	}
}

static char *objects_dir(void)
{
	if (!dir) {
		char *tmp = g_dir_make_tmp("ccsift-fuzz-pack-XXXXXX", NULL);
		char *pack = g_build_filename(tmp, "pack", NULL);

		if (!tmp || g_mkdir(pack, 0700) < 0)
			abort();
		g_free(pack);
		dir = tmp;
		atexit(remove_dir);
	}
	return dir;
}

static void write_file(const char *dir, const char *name, const uint8_t *data, size_t len)
{
	char *path = g_build_filename(dir, "pack", name, NULL);

	if (!g_file_set_contents(path, (const char *)data, (gssize)len, NULL))
		abort();
	g_free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = objects_dir();
	ccsift_pack_reader *r;
	uint32_t idx_len;

	if (size < 4)
		return 0;
	idx_len = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
	if (idx_len > size - 4)
		return 0;
	write_file(dir, "pack-fuzz.idx", data + 4, idx_len);
	write_file(dir, "pack-fuzz.pack", data + 4 + idx_len, size - 4 - idx_len);
	if (!(r = ccsift_pack_reader_new(dir)))
		return 0;
	for (size_t i = 0; i < MAX_IDS && 8 + 1024 + (i + 1) * 20 <= idx_len; i++) {
		GBytes *bytes = NULL;
		git_object_t type;
		size_t len;
		git_oid id;

		memcpy(id.id, data + 4 + 8 + 1024 + i * 20, 20);
		if (ccsift_pack_read(r, &id, MAX_OBJECT, &type, &bytes) == 0) {
			if (g_bytes_get_size(bytes) > MAX_OBJECT)
				abort();
			g_bytes_unref(bytes);
		}
		ccsift_pack_read_header(r, &id, &type, &len);
	}
	ccsift_pack_reader_unref(r);
	return 0;
}
