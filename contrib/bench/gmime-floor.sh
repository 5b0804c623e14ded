#!/bin/bash
# gmime-floor.sh [MSG] -- what loading GMime costs a delivery, against `cat`.
#
# Issue 12 asks for a delivery at most 3x `cat` of the same message. Any
# filter that parses the mail with Debian's GMime pays for loading it first.
# This builds four small programs in $TMPDIR and times each process (stdin
# from MSG, default: a generated patch mail) RUNS times (default 300),
# interleaved with `cat` and `ccsift --version`, rotating who goes first:
#
#   glib       linked with GLib and GObject as ccsift is, does nothing
#   load       the same, then dlopen("libgmime-3.0.so.0") and g_mime_init(),
#              as ccsift's delivery does (core/gmime-lazy.c)
#   parse      linked with GMime, parses MSG and reads its Cc
#   static     `parse` linked with Debian's static GMime, GIO, GObject and
#              GLib (gpgme, libmount and libunistring ship no static
#              library and stay shared); skipped if it does not link
#
# Prints the median and p90 in ms and the ratio of medians to cat's.
# Environment: CCSIFT, RUNS, TMPDIR, CC.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ccsift=${CCSIFT:-$top/build/ccsift}
runs=${RUNS:-300}
tmp=${TMPDIR:-/tmp}
cc=${CC:-cc}

work=$(mktemp -d "$tmp/ccsift-bench-gmime.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ $# -ge 1 ]; then
	msg=$1
else
	msg=$work/msg.eml
	{
		printf 'From: A U Thor <author@example.com>\nTo: list@lists.example.org\n'
		printf 'Cc: Some One <some.one@example.com>, me@example.com\n'
		printf 'Subject: [PATCH] Makefile: fix a thing\nMessage-ID: <1@example.com>\n\n'
		printf 'Signed-off-by: A U Thor <author@example.com>\n---\n'
		printf ' Makefile | 2 +-\n 1 file changed\n\n'
		printf 'diff --git a/Makefile b/Makefile\n--- a/Makefile\n+++ b/Makefile\n'
		printf '@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n'
	} >"$msg"
fi

cat >"$work/floor.c" <<'EOF'
#include <dlfcn.h>
#include <glib-object.h>
#ifdef PARSE
#include <gmime/gmime.h>
#endif

int main(void)
{
#if defined(LOAD)
	void *lib = dlopen("libgmime-3.0.so.0", RTLD_NOW | RTLD_LOCAL);
	void (*init)(void) = lib ? (void (*)(void))dlsym(lib, "g_mime_init") : NULL;

	if (!init)
		return 1;
	init();
#elif defined(PARSE)
	g_mime_init();
	GMimeStream *in = g_mime_stream_fs_new(0);
	GMimeParser *parser = g_mime_parser_new_with_stream(in);
	GMimeMessage *m = g_mime_parser_construct_message(parser, NULL);

	if (!m || internet_address_list_length(g_mime_message_get_cc(m)) < 1)
		return 1;
#else
	if (g_type_from_name("GObject") == 0)
		return 1;
#endif
	return 0;
}
EOF

gobj=$(pkg-config --cflags --libs gobject-2.0)
gm_cflags=$(pkg-config --cflags gmime-3.0)
$cc -O2 "$work/floor.c" -o "$work/glib" $gobj
$cc -O2 -DLOAD "$work/floor.c" -o "$work/load" $gobj -ldl
$cc -O2 -DPARSE "$work/floor.c" -o "$work/parse" $gm_cflags $(pkg-config --libs gmime-3.0)
lib=$(pkg-config --variable=libdir gmime-3.0)  # the multiarch directory
progs=(glib load parse)
if $cc -O2 -DPARSE "$work/floor.c" -o "$work/static" $gm_cflags -Wl,--gc-sections \
	-Wl,-Bstatic -lgmime-3.0 -lgio-2.0 -lgobject-2.0 -lgmodule-2.0 -lglib-2.0 \
	-lpcre2-8 -lffi -lz -lidn2 -Wl,-Bdynamic \
	"$lib/libgpgme.so.11" "$lib/libgpg-error.so.0" "$lib/libunistring.so.2" \
	"$lib/libmount.so.1" "$lib/libselinux.so.1" -lm -pthread 2>"$work/static.log"; then
	progs+=(static)
else
	echo "static: does not link here ($(grep -m1 -o 'cannot find.*\|undefined reference.*' "$work/static.log" || echo see the linker)); skipped" >&2
fi
for p in "${progs[@]}"; do
	"$work/$p" <"$msg" || { echo "$0: $p failed on $msg" >&2; exit 1; }
done

echo "$(nproc) cores; $runs runs; message $(wc -c <"$msg") bytes; ccsift $("$ccsift" --version)" >&2
python3 - "$runs" "$msg" "$work" "$ccsift" "${progs[@]}" <<'EOF'
import math, statistics, subprocess, sys, time

runs, msg, work, ccsift, progs = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
cmds = [("cat", ["cat"])] + [(p, [f"{work}/{p}"]) for p in progs] + [("ccsift --version", [ccsift, "--version"])]

def once(argv):
    with open(msg, "rb") as f:
        t0 = time.perf_counter()
        subprocess.run(argv, stdin=f, stdout=subprocess.DEVNULL, check=True)
        return (time.perf_counter() - t0) * 1000.0

for _ in range(10):
    for _, argv in cmds:
        once(argv)
t = {n: [] for n, _ in cmds}
for i in range(runs):
    for j in range(len(cmds)):
        n, argv = cmds[(i + j) % len(cmds)]
        t[n].append(once(argv))

def pct(v, p):
    return sorted(v)[max(0, math.ceil(p / 100.0 * len(v)) - 1)]

cat = statistics.median(t["cat"])
print(f"{'':<18} {'median':>8} {'p90':>8} {'x cat':>7}")
for n, _ in cmds:
    m = statistics.median(t[n])
    print(f"{n:<18} {m:>8.2f} {pct(t[n], 90):>8.2f} {m / cat:>7.2f}")
print(f"loading GMime (load - glib): {statistics.median(t['load']) - statistics.median(t['glib']):.2f} ms"
      f" = {(statistics.median(t['load']) - statistics.median(t['glib'])) / cat:.2f}x cat")
EOF
