/* pack.c: objects read straight from a repository's packs (pack.h).
 *
 * The formats are git's Documentation/gitformat-pack.txt: an index of
 * version 2 (a fan-out table, the sorted ids, their CRCs, 31-bit offsets
 * and the 64-bit ones past 2 GiB), and a pack of version 2 or 3 whose
 * entries are a type and size header, then zlib data: a whole object, or a
 * delta against a base named by its offset back (OFS_DELTA) or by its id
 * (REF_DELTA).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zlib.h>
#include "odb.h"
#include "pack.h"

typedef struct {
	const unsigned char *idx, *pack;
	size_t idx_len, pack_len;
	uint32_t count;
	const unsigned char *ids, *offsets, *large;
	size_t nlarge;
} pack_file;

/* A repository's packs, mapped; shared by every reader of the process. */
typedef struct ccsift_packs {
	char *dir;
	int refs;              /* under registry_lock */
	GArray *files;         /* pack_file */
} ccsift_packs;

/* A pack's entry: its header read. */
typedef struct {
	int type;
	size_t off;           /* where the entry is */
	size_t size;          /* of the object, or of the delta data */
	size_t data;          /* where its zlib data starts */
	size_t base;          /* a delta's base entry */
} entry;

/* An object read, in one allocation with its bytes: a walk makes
 * millions and drops most again from the cache, and three allocations an
 * object (its bytes, a GBytes, the cache's record) were an eighth of the
 * walk's time, freeing them from cold memory most of that. */
typedef struct {
	gint refs;
	git_object_t type;
	guint64 key;           /* where it is, while cached */
	GList link;            /* in the cache's LRU */
	size_t size;
	unsigned char data[];  /* size bytes */
} object;

struct ccsift_pack_reader {
	gint refs;
	GMutex lock;           /* uncontended: one thread's, and its libgit2's */
	ccsift_packs *packs;
	z_stream z;            /* for a delta's first bytes */
	struct libdeflate_decompressor *inflater;  /* for whole entries */
	GHashTable *cache;     /* &key -> object */
	GQueue lru;            /* of object, the newest first */
	size_t cached_bytes;
	size_t cache_max;      /* CACHE_MAX, or a walk's (ccsift_pack_reader_cache_for_walk) */
	size_t cache_grow_to;  /* a walk's: how far cache_max may grow; 0 for others */
	guint window_reads;    /* a walk's: objects read since cache_max was last weighed, */
	guint window_steps;    /* entries inflated since (any reader's: counting is cheaper than asking), */
	guint window_evicted;  /* and objects let go since */
	size_t mapped;         /* bytes of the packs read since the last trim */
	struct found *found;   /* FOUND_SLOTS: where ids were found lately */
	GArray *chain;         /* entry: a read's deltas, kept for the next */
	GByteArray *delta;     /* a delta's data, inflated: kept for the next */
};

/* An object is kept if at most this big (libgit2's figure for its delta
 * bases), a reader's cache at most this full: what the next commit of a
 * walk reads again is a few trees, and two workers' 16 MiB each took the
 * peak of an index of LTP over git log's (and a chain longer than git ever
 * writes is refused). */
#define CACHE_ENTRY_MAX (1u << 20)
#define CACHE_MAX (4u << 20)
/* A walk's reader, on a big history: see ccsift_pack_reader_cache_for_walk. */
#define WALK_CACHE_MAX (32u << 20)
#define WALK_CACHE_SHARE 32
/* A walk's reader weighs its cache every so many reads: see grow_cache. */
#define GROW_WINDOW 4096
#define CHAIN_MAX 10000
/* Where an id was found: a walk asks for each tree twice, as a commit's
 * and then as its child's parent's, and finding an id in a big index
 * (its fan-out bucket, then guesses through pages of ids) was a tenth of
 * a walk. Slots by the id's bits, the newest in each. */
struct found {
	git_oid id;
	guint32 pack;          /* + 1: 0 is an empty slot */
	size_t off;
};
#define FOUND_SLOTS (1u << 14)

/* Every so many bytes of the packs read, a reader lets go of the packs'
 * pages it mapped: they stay in the page cache, but not in our resident
 * set, which the walk of a whole history must keep under git log's. */
#define TRIM_EVERY (16u << 20)

enum { OBJ_COMMIT = 1, OBJ_TREE = 2, OBJ_BLOB = 3, OBJ_TAG = 4, OBJ_OFS_DELTA = 6, OBJ_REF_DELTA = 7 };

static gboolean is_delta(int type)
{
	return type == OBJ_OFS_DELTA || type == OBJ_REF_DELTA;
}

static GMutex registry_lock;
static GHashTable *registry;  /* dir -> ccsift_packs */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static const unsigned char *map_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p = MAP_FAILED;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX)
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*len = (size_t)st.st_size;
	return p;
}

/* Map pack-X.idx and pack-X.pack, and check their headers. */
static gboolean pack_file_open(pack_file *f, const char *idx_path)
{
	g_autofree char *pack_path = g_strndup(idx_path, strlen(idx_path) - 4);
	size_t need;

	memset(f, 0, sizeof(*f));
	pack_path = g_realloc(pack_path, strlen(pack_path) + 6);
	strcat(pack_path, ".pack");
	if (!(f->idx = map_file(idx_path, &f->idx_len)))
		return FALSE;
	if (f->idx_len < 8 + 1024 + 40 || memcmp(f->idx, "\377tOc", 4) || be32(f->idx + 4) != 2)
		goto bad;
	f->count = be32(f->idx + 8 + 255 * 4);
	need = 8 + 1024 + (size_t)f->count * (20 + 4 + 4) + 40;
	if (f->count > (1u << 31) || f->idx_len < need || (f->idx_len - need) % 8)
		goto bad;
	f->ids = f->idx + 8 + 1024;
	f->offsets = f->ids + (size_t)f->count * (20 + 4);
	f->large = f->offsets + (size_t)f->count * 4;
	f->nlarge = (f->idx_len - need) / 8;
	if (!(f->pack = map_file(pack_path, &f->pack_len)))
		goto bad;
	if (f->pack_len < 12 + 20 || memcmp(f->pack, "PACK", 4) || (be32(f->pack + 4) != 2 && be32(f->pack + 4) != 3))
		goto bad;
	return TRUE;
bad:
	if (f->idx)
		munmap((void *)f->idx, f->idx_len);
	if (f->pack)
		munmap((void *)f->pack, f->pack_len);
	return FALSE;
}


/* The packs of objects_dir, then of the object stores its
 * info/alternates names (a clone made with --shared or --reference has
 * all of its history there), as git searches them. */
static void add_packs(GArray *files, GHashTable *seen, const char *objects_dir, int depth)
{
	g_autofree char *dir = g_build_filename(objects_dir, "pack", NULL);
	g_auto(GStrv) others = NULL;
	char *real = realpath(objects_dir, NULL);
	GDir *d;
	const char *name;

	if (!real || g_hash_table_contains(seen, real)) {  /* each store once */
		free(real);
		return;
	}
	g_hash_table_add(seen, real);
	d = g_dir_open(dir, 0, NULL);
	while (d && (name = g_dir_read_name(d))) {
		g_autofree char *path = NULL;
		pack_file f;

		if (!g_str_has_prefix(name, "pack-") || !g_str_has_suffix(name, ".idx"))
			continue;
		path = g_build_filename(dir, name, NULL);
		if (pack_file_open(&f, path))
			g_array_append_val(files, f);
	}
	if (d)
		g_dir_close(d);
	if (depth >= CCSIFT_ODB_ALTERNATES_DEPTH)
		return;
	others = ccsift_odb_alternates(objects_dir);
	for (char **o = others; *o; o++)
		add_packs(files, seen, *o, depth + 1);
}

static ccsift_packs *packs_open(const char *objects_dir)
{
	ccsift_packs *p = g_new0(ccsift_packs, 1);

	p->dir = g_strdup(objects_dir);
	p->files = g_array_new(FALSE, FALSE, sizeof(pack_file));
	{
		g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, free, NULL);

		add_packs(p->files, seen, objects_dir, 0);
	}
	return p;
}

static void packs_free(ccsift_packs *p)
{
	for (guint i = 0; i < p->files->len; i++) {
		pack_file *f = &g_array_index(p->files, pack_file, i);

		munmap((void *)f->idx, f->idx_len);
		munmap((void *)f->pack, f->pack_len);
	}
	g_array_unref(p->files);
	g_free(p->dir);
	g_free(p);
}

ccsift_pack_reader *ccsift_pack_reader_new(const char *objects_dir)
{
	ccsift_pack_reader *r;
	ccsift_packs *p;

	g_mutex_lock(&registry_lock);
	if (!registry)
		registry = g_hash_table_new(g_str_hash, g_str_equal);
	if (!(p = g_hash_table_lookup(registry, objects_dir))) {
		p = packs_open(objects_dir);
		g_hash_table_insert(registry, p->dir, p);
	}
	p->refs++;
	g_mutex_unlock(&registry_lock);
	r = g_new0(ccsift_pack_reader, 1);
	r->refs = 1;
	g_mutex_init(&r->lock);
	r->packs = p;
	r->cache_max = CACHE_MAX;
	if (!p->files->len || inflateInit(&r->z) != Z_OK) {
		r->z.state = NULL;
		ccsift_pack_reader_unref(r);
		return NULL;
	}
	if (!(r->inflater = libdeflate_alloc_decompressor())) {
		ccsift_pack_reader_unref(r);
		return NULL;
	}
	r->cache = g_hash_table_new(g_int64_hash, g_int64_equal);
	r->found = g_new0(struct found, FOUND_SLOTS);
	r->chain = g_array_new(FALSE, FALSE, sizeof(entry));
	r->delta = g_byte_array_new();
	return r;
}

static object *object_new(size_t size)
{
	object *o = g_malloc(sizeof(*o) + size);

	o->refs = 1;
	o->size = size;
	o->link = (GList){ .data = o };
	return o;
}

static object *object_ref(object *o)
{
	g_atomic_int_inc(&o->refs);
	return o;
}

/* Atomic: a GBytes over an object may be dropped on another thread. */
static void object_unref(gpointer p)
{
	object *o = p;

	if (g_atomic_int_dec_and_test(&o->refs))
		g_free(o);
}

void ccsift_pack_reader_cache_for_walk(ccsift_pack_reader *r)
{
	size_t packs = 0;

	for (guint i = 0; i < r->packs->files->len; i++)
		packs += g_array_index(r->packs->files, pack_file, i).pack_len;
	g_mutex_lock(&r->lock);
	r->cache_max = CLAMP(packs / WALK_CACHE_SHARE, CACHE_MAX, WALK_CACHE_MAX);
	r->cache_grow_to = WALK_CACHE_MAX;
	g_mutex_unlock(&r->lock);
}

ccsift_pack_reader *ccsift_pack_reader_ref(ccsift_pack_reader *r)
{
	g_atomic_int_inc(&r->refs);
	return r;
}

void ccsift_pack_reader_unref(ccsift_pack_reader *r)
{
	if (!r || !g_atomic_int_dec_and_test(&r->refs))
		return;
	g_mutex_clear(&r->lock);
	if (r->z.state)
		inflateEnd(&r->z);
	if (r->inflater)
		libdeflate_free_decompressor(r->inflater);
	if (r->cache) {
		while (r->lru.head) {
			object *o = r->lru.head->data;

			g_queue_unlink(&r->lru, &o->link);
			object_unref(o);
		}
		g_hash_table_unref(r->cache);
	}
	g_free(r->found);
	if (r->chain)
		g_array_unref(r->chain);
	if (r->delta)
		g_byte_array_unref(r->delta);
	g_mutex_lock(&registry_lock);
	if (--r->packs->refs == 0) {
		g_hash_table_remove(registry, r->packs->dir);
		packs_free(r->packs);
	}
	g_mutex_unlock(&registry_lock);
	g_free(r);
}

/* --- finding an object --- */

/* The first 8 bytes of an id, as a number. */
static uint64_t id_prefix(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* Where in ids[lo, hi) id would be, guessed from the ids at both ends:
 * object ids are uniform, so a guess lands within a few entries where
 * halving takes 15 steps through as many pages of a big index. */
static uint32_t guess(const pack_file *f, uint32_t lo, uint32_t hi, const git_oid *id)
{
	uint64_t first = id_prefix(f->ids + (size_t)lo * 20), last = id_prefix(f->ids + (size_t)(hi - 1) * 20);
	uint64_t want = id_prefix(id->id);

	if (want <= first)
		return lo;
	if (want >= last)
		return hi - 1;
	return lo + (uint32_t)((double)(want - first) / (double)(last - first) * (double)(hi - 1 - lo));
}

/* A few guesses, then halving: a damaged index costs no more than
 * halving alone would. */
#define GUESSES 4

/* Where id is in pack f: its offset, or 0 when it is not there. */
static size_t find_offset(const pack_file *f, const git_oid *id)
{
	const unsigned char *fanout = f->idx + 8;
	uint32_t lo = id->id[0] ? be32(fanout + 4 * (id->id[0] - 1)) : 0, hi = be32(fanout + 4 * id->id[0]);
	unsigned guesses = 0;
	uint64_t off;

	if (hi > f->count || lo > hi)
		return 0;
	while (lo < hi) {
		uint32_t mid = hi - lo > 16 && guesses++ < GUESSES ? guess(f, lo, hi, id) : lo + (hi - lo) / 2;
		int c = memcmp(f->ids + (size_t)mid * 20, id->id, 20);

		if (c == 0) {
			off = be32(f->offsets + (size_t)mid * 4);
			if (off & 0x80000000u) {
				uint32_t k = (uint32_t)off & 0x7fffffffu;

				if (k >= f->nlarge)
					return 0;
				off = (uint64_t)be32(f->large + (size_t)k * 8) << 32 | be32(f->large + (size_t)k * 8 + 4);
			}
			return off >= 12 && off < f->pack_len - 20 ? (size_t)off : 0;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Which pack has id, and where: 0, or -1 if none has it. */
static int locate(ccsift_pack_reader *r, const git_oid *id, guint *k, size_t *off)
{
	struct found *slot = &r->found[(id->id[1] | (guint)id->id[2] << 8) % FOUND_SLOTS];

	if (slot->pack && git_oid_equal(&slot->id, id)) {
		*k = slot->pack - 1;
		*off = slot->off;
		return 0;
	}
	for (guint i = 0; i < r->packs->files->len; i++)
		if ((*off = find_offset(&g_array_index(r->packs->files, pack_file, i), id))) {
			*slot = (struct found){ .id = *id, .pack = i + 1, .off = *off };
			*k = i;
			return 0;
		}
	return -1;
}

/* --- reading an entry --- */

/* The header of the entry at off; FALSE if it does not parse. */
static gboolean read_entry(const pack_file *f, size_t off, entry *e)
{
	const unsigned char *p = f->pack, *end = f->pack + f->pack_len - 20;
	size_t pos = off;
	unsigned shift = 4;
	unsigned c;

	if (pos >= (size_t)(end - p))
		return FALSE;
	c = p[pos++];
	e->type = (c >> 4) & 7;
	e->size = c & 15;
	while (c & 0x80) {
		if (pos >= (size_t)(end - p) || shift > 57)
			return FALSE;
		c = p[pos++];
		e->size |= (size_t)(c & 0x7f) << shift;
		shift += 7;
	}
	if (e->type == OBJ_OFS_DELTA) {
		size_t back;

		if (pos >= (size_t)(end - p))
			return FALSE;
		c = p[pos++];
		back = c & 0x7f;
		while (c & 0x80) {
			if (pos >= (size_t)(end - p) || back >= (SIZE_MAX >> 8))
				return FALSE;
			c = p[pos++];
			back = ((back + 1) << 7) | (c & 0x7f);
		}
		if (back == 0 || back > off - 12)
			return FALSE;
		e->base = off - back;
	} else if (e->type == OBJ_REF_DELTA) {
		git_oid base;

		if ((size_t)(end - p) - pos < 20)
			return FALSE;
		memcpy(base.id, p + pos, 20);
		pos += 20;
		if (!(e->base = find_offset(f, &base)))
			return FALSE;
	} else if (e->type < OBJ_COMMIT || e->type > OBJ_TAG) {
		return FALSE;
	}
	e->off = off;
	e->data = pos;
	return TRUE;
}

/* The entry's zlib data into out, which has room for its size: exactly
 * that many bytes (a stream that makes more or fewer, or whose checksum
 * fails, is refused), or FALSE. */
static gboolean inflate_into(ccsift_pack_reader *r, const pack_file *f, const entry *e, unsigned char *out)
{
	size_t in_len = 0, out_len = 0;

	if (libdeflate_zlib_decompress_ex(r->inflater, f->pack + e->data, f->pack_len - 20 - e->data, out,
					  e->size, &in_len, &out_len) != LIBDEFLATE_SUCCESS ||
	    out_len != e->size)
		return FALSE;
	r->mapped += in_len;
	return TRUE;
}

/* A whole object, or NULL. */
static object *inflate_entry(ccsift_pack_reader *r, const pack_file *f, const entry *e)
{
	object *o = object_new(e->size);

	o->type = (git_object_t)e->type;
	if (inflate_into(r, f, e, o->data))
		return o;
	object_unref(o);
	return NULL;
}

/* A delta's data, in the reader's buffer (valid until the next), or NULL. */
static const unsigned char *inflate_delta(ccsift_pack_reader *r, const pack_file *f, const entry *e)
{
	if (e->size >= G_MAXUINT)
		return NULL;
	g_byte_array_set_size(r->delta, (guint)e->size);
	return inflate_into(r, f, e, r->delta->data) ? r->delta->data : NULL;
}

static size_t delta_size(const unsigned char **p, const unsigned char *end, gboolean *ok)
{
	size_t v = 0;
	unsigned shift = 0, c;

	do {
		if (*p >= end || shift > 57) {
			*ok = FALSE;
			return 0;
		}
		c = *(*p)++;
		v |= (size_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	return v;
}

/* Base with a delta applied, or NULL if the delta does not fit it. */
static object *apply_delta(const object *base, const unsigned char *d, size_t len, size_t max_size)
{
	size_t base_len = base->size, out_len, at = 0;
	const unsigned char *src = base->data, *end = d + len;
	gboolean ok = TRUE;
	object *o;
	unsigned char *out;

	if (delta_size(&d, end, &ok) != base_len || !ok)
		return NULL;
	out_len = delta_size(&d, end, &ok);
	if (!ok || out_len > max_size)
		return NULL;
	o = object_new(out_len);
	o->type = base->type;
	out = o->data;
	while (d < end) {
		unsigned op = *d++;

		if (op & 0x80) {
			size_t from = 0, n = 0;

			for (unsigned i = 0; i < 7; i++) {
				if (!(op & (1u << i)))
					continue;
				if (d >= end)
					goto bad;
				if (i < 4)
					from |= (size_t)*d++ << (8 * i);
				else
					n |= (size_t)*d++ << (8 * (i - 4));
			}
			if (n == 0)
				n = 0x10000;
			if (from > base_len || n > base_len - from || n > out_len - at)
				goto bad;
			memcpy(out + at, src + from, n);
			at += n;
		} else if (op) {
			if (op > (size_t)(end - d) || op > out_len - at)
				goto bad;
			memcpy(out + at, d, op);
			d += op;
			at += op;
		} else {
			goto bad;  /* reserved */
		}
	}
	if (at != out_len)
		goto bad;
	return o;
bad:
	object_unref(o);
	return NULL;
}

/* A delta's first bytes: the sizes of its base and of its result. */
static gboolean delta_result_size(ccsift_pack_reader *r, const pack_file *f, const entry *e, size_t *size)
{
	unsigned char head[32];
	const unsigned char *p = head;
	gboolean ok = TRUE;
	int rc;

	if (inflateReset(&r->z) != Z_OK)
		return FALSE;
	r->z.next_in = (Bytef *)(f->pack + e->data);
	r->z.avail_in = (uInt)MIN(f->pack_len - 20 - e->data, (size_t)G_MAXUINT);
	r->z.next_out = head;
	r->z.avail_out = sizeof(head);
	rc = inflate(&r->z, Z_SYNC_FLUSH);
	if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
		return FALSE;
	delta_size(&p, head + r->z.total_out, &ok);
	*size = delta_size(&p, head + r->z.total_out, &ok);
	return ok;
}

/* --- the cache --- */

/* Pack k's entry at off (no pack is 2^48 bytes). */
static guint64 cache_key(guint k, size_t off)
{
	return (guint64)k << 48 | off;
}

static object *cache_get(ccsift_pack_reader *r, guint64 key)
{
	object *o = g_hash_table_lookup(r->cache, &key);

	if (o && r->lru.head != &o->link) {
		g_queue_unlink(&r->lru, &o->link);
		g_queue_push_head_link(&r->lru, &o->link);
	}
	return o;
}

static void cache_put(ccsift_pack_reader *r, guint64 key, object *o)
{
	if (o->size > CACHE_ENTRY_MAX || g_hash_table_contains(r->cache, &key))
		return;
	while (r->cached_bytes + o->size > r->cache_max && r->lru.tail) {
		object *old = r->lru.tail->data;

		g_queue_unlink(&r->lru, &old->link);
		g_hash_table_remove(r->cache, &old->key);
		r->cached_bytes -= old->size;
		r->window_evicted++;
		object_unref(old);
	}
	o->key = key;
	g_queue_push_head_link(&r->lru, &object_ref(o)->link);
	g_hash_table_insert(r->cache, &o->key, o);
	r->cached_bytes += o->size;
}

/* Only the packs: every object read looks its id up in an index, and
 * mapping a big one's pages anew after each trim was 6% of the walk
 * of a Linux-sized history (git log keeps its indexes mapped too). */
static void trim(ccsift_pack_reader *r)
{
	for (guint i = 0; i < r->packs->files->len; i++) {
		pack_file *f = &g_array_index(r->packs->files, pack_file, i);

		madvise((void *)f->pack, f->pack_len, MADV_DONTNEED);
	}
}

/* --- an object --- */

/* A walk reads each tree and commit twice (as a commit's, then as its
 * child's parent's), a blob once: blobs are kept only as delta bases. */
static gboolean keep(git_object_t type, gboolean is_base)
{
	return is_base || type != GIT_OBJECT_BLOB;
}

/* The object at off in pack number k: its deltas followed back to a whole
 * object (or one cached), then applied forwards. */
static object *read_at(ccsift_pack_reader *r, guint k, size_t off, size_t max_size)
{
	const pack_file *f = &g_array_index(r->packs->files, pack_file, k);
	GArray *chain = g_array_set_size(r->chain, 0);
	object *o = NULL;
	size_t at = off;

	for (;;) {
		entry e;

		if ((o = cache_get(r, cache_key(k, at)))) {
			object_ref(o);
			break;
		}
		if (!read_entry(f, at, &e) || e.size > max_size || chain->len >= CHAIN_MAX)
			return NULL;
		if (!is_delta(e.type)) {
			r->window_steps++;
			if (!(o = inflate_entry(r, f, &e)))
				return NULL;
			if (keep(o->type, chain->len > 0))
				cache_put(r, cache_key(k, at), o);
			break;
		}
		g_array_append_val(chain, e);
		at = e.base;
	}
	for (guint i = chain->len; i-- > 0;) {
		const entry *e = &g_array_index(chain, entry, i);
		const unsigned char *delta = inflate_delta(r, f, e);
		object *next = delta ? apply_delta(o, delta, e->size, max_size) : NULL;

		r->window_steps++;
		object_unref(o);
		if (!(o = next))
			return NULL;
		if (keep(o->type, i > 0))
			cache_put(r, cache_key(k, e->off), o);
	}
	if (r->delta->len > CACHE_ENTRY_MAX) {  /* a big blob's: not kept */
		g_byte_array_unref(r->delta);
		r->delta = g_byte_array_new();
	}
	return o;
}

/* A walk's reader doubles its cache, up to cache_grow_to, while it lets go
 * of objects and inflates a quarter more entries than it reads objects.
 * The synthetic history: 2.1 entries a read with 4 MiB (windows of 1.5 to
 * 3.1), 0.7 with 32. Where a bigger cache did not pay, fewer: LTP 0.6 with
 * 4 MiB and 0.57 with 32; U-Boot windows of 1.0 to 1.1 with 10.9 MiB, and
 * with 32 MiB no faster and 20 MB more. */
static void grow_cache(ccsift_pack_reader *r)
{
	if (++r->window_reads < GROW_WINDOW)
		return;
	if (r->window_evicted && r->window_steps > r->window_reads + r->window_reads / 4)
		r->cache_max = MIN(r->cache_max * 2, r->cache_grow_to);
	r->window_reads = r->window_steps = r->window_evicted = 0;
}

int ccsift_pack_read(ccsift_pack_reader *r, const git_oid *id, size_t max_size, git_object_t *type, GBytes **out)
{
	object *o;
	size_t off;
	guint k;
	int rc = -1;

	*out = NULL;
	g_mutex_lock(&r->lock);
	if (r->mapped > TRIM_EVERY) {
		trim(r);
		r->mapped = 0;
	}
	if (locate(r, id, &k, &off) == 0 && (o = read_at(r, k, off, max_size))) {
		*type = o->type;
		*out = g_bytes_new_with_free_func(o->data, o->size, object_unref, o);
		rc = 0;
	}
	if (r->cache_grow_to)
		grow_cache(r);
	g_mutex_unlock(&r->lock);
	return rc;
}

/* The type and size of the object at off in f. */
static gboolean header_at(ccsift_pack_reader *r, const pack_file *f, size_t off, git_object_t *type, size_t *size)
{
	entry e;

	if (!read_entry(f, off, &e))
		return FALSE;
	if (!is_delta(e.type))
		*size = e.size;
	else if (!delta_result_size(r, f, &e, size))
		return FALSE;
	/* the type is the whole object's at the end of the chain */
	for (unsigned n = 0; is_delta(e.type) && n < CHAIN_MAX; n++)
		if (!read_entry(f, e.base, &e))
			return FALSE;
	if (e.type < OBJ_COMMIT || e.type > OBJ_TAG)
		return FALSE;
	*type = (git_object_t)e.type;
	return TRUE;
}

int ccsift_pack_read_header(ccsift_pack_reader *r, const git_oid *id, git_object_t *type, size_t *size)
{
	size_t off;
	guint k;
	int rc = -1;

	g_mutex_lock(&r->lock);
	if (locate(r, id, &k, &off) == 0 && header_at(r, &g_array_index(r->packs->files, pack_file, k), off, type, size))
		rc = 0;
	g_mutex_unlock(&r->lock);
	return rc;
}

/* --- as a libgit2 object database backend --- */

typedef struct {
	git_odb_backend parent;
	ccsift_pack_reader *reader;
} pack_backend;

/* What libgit2 itself would read: past this, it is libgit2's to refuse. */
#define BACKEND_OBJECT_MAX (64u << 20)

static int backend_read(void **out, size_t *len, git_object_t *type, git_odb_backend *b, const git_oid *oid)
{
	g_autoptr(GBytes) bytes = NULL;

	if (ccsift_pack_read(((pack_backend *)b)->reader, oid, BACKEND_OBJECT_MAX, type, &bytes) < 0)
		return GIT_ENOTFOUND;  /* the next store reads it, or says why not */
	return ccsift_odb_answer(b, bytes, out, len);
}

static int backend_read_header(size_t *len, git_object_t *type, git_odb_backend *b, const git_oid *oid)
{
	return ccsift_pack_read_header(((pack_backend *)b)->reader, oid, type, len) < 0 ? GIT_ENOTFOUND : 0;
}

static void backend_free(git_odb_backend *b)
{
	ccsift_pack_reader_unref(((pack_backend *)b)->reader);
	g_free(b);
}

int ccsift_pack_attach(ccsift_pack_reader *r, git_repository *repo)
{
	pack_backend *b = g_new0(pack_backend, 1);

	git_odb_init_backend(&b->parent, GIT_ODB_BACKEND_VERSION);
	b->parent.read = backend_read;
	b->parent.read_header = backend_read_header;
	b->parent.free = backend_free;
	b->reader = ccsift_pack_reader_ref(r);
	/* After a shallow clone's boundary (100), before the loose (1) and
	 * packed (2) stores. */
	if (ccsift_odb_add_backend(repo, &b->parent, 50) < 0) {
		backend_free(&b->parent);
		git_error_clear();
		return -1;
	}
	return 0;
}

