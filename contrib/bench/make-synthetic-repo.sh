#!/bin/sh
# make-synthetic-repo.sh DIR [COMMITS]
#
# Generate a bare git repository with COMMITS commits (default 120000) for
# benchmarking, fast: a python3 generator writes a git fast-import stream.
#
# The history is shaped like a large C project:
#   - ~20,000 small files in ~200 directories nested 2-3 deep; the tree grows
#     from ~2,000 files (first commit) by importing whole directories and
#     adding single files now and then;
#   - most commits touch 1-3 files of one directory, every ~1,500th is a
#     tree-wide commit touching 200 files, every ~400th renames a file,
#     every ~250th deletes one;
#   - ~5% of the commits are merges of short topic branches (2-4 commits);
#   - ~500 authors with realistic (partly non-ASCII) names and emails, each
#     directory with a few regulars, activity skewed (Zipf-like);
#   - dates increasing over 10 years from 2015-01-01;
#   - messages "subsystem: subject", a body, Signed-off-by and sometimes
#     Reviewed-by / Acked-by / Tested-by / Reported-by / Cc trailers.
# It is deterministic (fixed seed), so runs are comparable.
#
# SHAPE=linux generates a Linux-shaped history instead (synthetic-linux.py;
# default 1,200,000 commits): 80,000 files in 5,000 directories (60% in the
# first commit, the rest added over time), a MAINTAINERS of 3,000 sections
# (M:, R:, L:, S:, F:, some N:) rewritten by about 0.3% of the commits, six
# hot files each touched by 0.6-2% of the commits (20,000+ at full size), a
# 300-file tree-wide commit every 2,000, ~4% topic merges, 6,000 people with
# Zipf-like activity, one of whom (the busiest) applies a quarter of all
# commits, and reviewer-heavy trailers (the section's R: people, Reviewed-by
# on about half the commits, Acked-by, Tested-by, Reported-by), 20 years.
#
# Environment: SHAPE (default: the small tree above; linux), SEED (default 1), REPACK=0 to keep fast-import's packs as they
# are (default: `git repack -ad`, which reuses the deltas fast-import made),
# PYTHON (default python3).
set -eu

usage() { echo "usage: $0 DIR [COMMITS]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
dir=$1
shape=${SHAPE:-}
case $shape in ''|linux) ;; *) echo "$0: unknown SHAPE $shape" >&2; exit 2 ;; esac
if [ "$shape" = linux ]; then commits=${2:-1200000}; else commits=${2:-120000}; fi
case $commits in ''|*[!0-9]*) usage ;; esac
[ "$commits" -ge 10 ] || { echo "$0: COMMITS must be at least 10" >&2; exit 2; }
if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
	echo "$0: $dir exists and is not empty" >&2
	exit 1
fi

PYTHON=${PYTHON:-python3}
start=$(date +%s)
git init -q --bare "$dir"
git -C "$dir" symbolic-ref HEAD refs/heads/main
# Keep git from packing or gc'ing behind our back while we time things.
git -C "$dir" config gc.auto 0

gen=$(mktemp "${TMPDIR:-/tmp}/ccsift-synth.XXXXXX.py")
trap 'rm -f "$gen"' EXIT
cat >"$gen" <<'EOF'
import random, sys

N = int(sys.argv[1])
rnd = random.Random(int(sys.argv[2]))
out = sys.stdout.buffer
w = out.write

# --- people -------------------------------------------------------------
FIRST = ("Alice Andrew Anna Arnd Bart Ben Carlos Chen Chris Claudia Dan David "
         "Dmitry Elena Emil Eric Fabio Felix Frank Gabriel Greg Hannah Hiroshi "
         "Igor Ingo Ivan Jakub James Jan Jason Jens Jiri Joe Johannes John Jonas "
         "Jose Julia Junio Kai Karen Kees Laura Lei Linus Lukas Marc Maria Mark "
         "Martin Matthew Michal Mika Nadia Neil Nikolay Olga Oliver Pablo Paolo "
         "Patrick Paul Pedro Peter Petr Philippe Pierre Rafael Rahul Ravi Rene "
         "Richard Robert Roman Ruth Sam Sara Sebastian Sergey Shuah Simon Sofia "
         "Stefan Steven Sudeep Takashi Taylor Thomas Tim Tomas Uwe Vincent "
         "Vladimir Wei Will Xin Yann Yuki Zhang").split()
FIRST += ["José", "Łukasz", "Jürgen", "Zoë", "Søren", "Ángel", "Bjørn", "François"]
LAST = ("Adams Anderson Bauer Becker Bianchi Brown Carter Chen Costa Davis Dubois "
        "Edwards Evans Fischer Garcia Gonzalez Gupta Hansen Hartmann Hoffmann Huang "
        "Ivanov Jackson Jensen Johnson Kim Klein Kowalski Kumar Lambert Larsen Lee "
        "Lehmann Li Lin Liu Lopez Martin Meyer Miller Moreau Murphy Nakamura Nguyen "
        "Novak Olsen Park Patel Petrov Popescu Quinn Rossi Russo Sato Schmidt "
        "Schneider Schulz Silva Singh Smith Suzuki Tanaka Taylor Thompson Torres "
        "Wagner Walker Wang Weber Williams Wilson Wolf Wright Wu Xu Yamamoto Yang "
        "Zhao Zimmermann").split()
LAST += ["Müller", "Nowaczyński", "Šimek", "Gonçalves", "O'Brien", "van der Berg"]
DOMAINS = ("gmail.com kernel.org redhat.com intel.com suse.de suse.com google.com "
           "linaro.org arm.com amd.com nvidia.com ibm.com oracle.com huawei.com "
           "collabora.com bootlin.com samsung.com microsoft.com meta.com "
           "linux.dev posteo.de fastmail.com example.org").split()
TZ = ["+0000", "+0100", "+0200", "-0500", "-0700", "-0800", "+0530", "+0800", "+0900", "-0300"]
ASCII = str.maketrans({"é": "e", "Ł": "L", "ł": "l", "ü": "u", "ë": "e", "ø": "o",
                       "Á": "A", "ç": "c", "ń": "n", "ý": "y", "Š": "S", "š": "s",
                       "'": "", " ": ""})

def mkemail(f, l, d):
    f, l = f.translate(ASCII).lower(), l.translate(ASCII).lower()
    return rnd.choice([f"{f}.{l}", f"{f}{l}", f"{f[0]}{l}", f"{f}", f"{l}.{f}"]) + "@" + d

people, seen, emails = [], set(), set()
while len(people) < 500:
    f, l = rnd.choice(FIRST), rnd.choice(LAST)
    if (f, l) in seen:
        continue
    e = mkemail(f, l, rnd.choice(DOMAINS))
    if e in emails:
        continue
    seen.add((f, l)); emails.add(e)
    people.append((f"{f} {l}".encode(), e.encode(), rnd.choice(TZ).encode()))
# Zipf-like activity: person i has weight 1/(i+1)^0.9 (shuffled identities).
rnd.shuffle(people)
pw = [1.0 / (i + 1) ** 0.9 for i in range(len(people))]

# --- the tree -----------------------------------------------------------
TOP = "arch block crypto drivers fs kernel lib mm net sound tools security".split()
SUB = ("core bus char clk dma gpu hid i2c iio input irq media mfd misc mmc mtd "
       "nvme pci phy power pwm regulator rtc scsi spi staging thermal tty usb "
       "video watchdog ext4 btrfs xfs nfs ipv4 ipv6 bpf sched time trace crypto "
       "codecs soc perf mm vm").split()
LEAF = "common host dev util test pm debug hw fw legacy".split()
WORDS = ("alloc buf bus cache clk conf core ctl ctx dev dma drv err event fifo "
         "frame gpio hash hw init io irq list lock map mem msg mux node ops pci "
         "phy pm pool port power queue reg reset ring rx sched sg slab spi stat "
         "sync sys table task timer tx uart usb util vm wq xfer").split()

dirs = []
for t in TOP:
    for s in rnd.sample(SUB, rnd.randint(6, 10)):
        if rnd.random() < 0.55:
            for l in rnd.sample(LEAF, rnd.randint(2, 5)):
                dirs.append(f"{t}/{s}/{l}")
        else:
            dirs.append(f"{t}/{s}")
dirs = sorted(set(dirs))
rnd.shuffle(dirs)
dirs = dirs[:200]

def new_name(d, taken):
    while True:
        n = f"{d}/{rnd.choice(WORDS)}_{rnd.choice(WORDS)}{rnd.choice(['', '', str(rnd.randint(1, 99))])}.{rnd.choice('cccch')}"
        if n not in taken:
            taken.add(n)
            return n

taken = set()
dir_files = {d: [new_name(d, taken) for _ in range(rnd.randint(50, 150))] for d in dirs}
total_files = sum(len(v) for v in dir_files.values())
dir_regulars = {d: rnd.sample(range(len(people)), rnd.randint(3, 8)) for d in dirs}
top_maint = {t: rnd.sample(range(60), 2) for t in TOP}   # among the most active
dw = [1.0 / (i + 1) ** 0.7 for i in range(len(dirs))]     # hot and cold dirs

live_dirs = dirs[:20]          # imported in the first commit (~2,000 files)
pending = dirs[20:]
live = set()                   # paths in the tree
rev = {}                       # path -> revision counter (content)

def content(p, r):
    fn = p.rsplit("/", 1)[1].split(".")[0]
    return (f"/* SPDX-License-Identifier: GPL-2.0 */\n/* {p} */\n"
            f"#include \"{fn}.h\"\nint {fn}_r{r}(void);\n").encode()

def M(p):
    rev[p] = rev.get(p, 0) + 1
    c = content(p, rev[p])
    w(b"M 100644 inline %s\ndata %d\n%s\n" % (p.encode(), len(c), c))

# --- dates: 10 years, increasing ----------------------------------------
T0, SPAN = 1420070400, 10 * 365 * 86400
step = SPAN / N
now = float(T0)

SUBJECTS = ("fix null pointer dereference in %s_init", "fix the error path in %s_probe",
            "fix a race between %s and reset", "add missing lock in %s_xfer",
            "constify %s_ops", "remove unused %s helper", "fix memory leak in %s_alloc",
            "add support for new %s hardware", "add bounds check in %s_read",
            "convert %s to the new API", "document %s in kernel-doc",
            "rework %s timeout handling", "fix off-by-one in %s_parse",
            "add %s debugfs entries", "simplify %s_remove", "use %s_get() helper",
            "drop redundant %s check", "avoid sleeping in %s atomic context")
FILLER = ("The current code does not handle this case correctly.",
          "This was found by static analysis.", "No functional change intended.",
          "Tested on real hardware and in QEMU.", "This matches what the other drivers do.",
          "Reported by the CI bots on the mailing list.", "Split out of a larger series.",
          "Without this the device fails to come back after suspend.")

mark = 0
main_mark = None
ncommits = 0
nmerges = 0

def ident(i, t):
    n, e, tz = people[i]
    return b"%s <%s> %d %s" % (n, e, int(t), tz)

def trailer(kind, i):
    n, e, _ = people[i]
    return b"%s: %s <%s>\n" % (kind, n, e)

def commit(ref, subject, body_lines, author, committer, others, changes, parents=()):
    """changes: callable emitting file commands."""
    global mark, now, ncommits
    now += step * rnd.uniform(0.2, 1.8)
    mark += 1
    msg = subject.encode() + b"\n"
    if body_lines:
        msg += b"\n" + "\n".join(body_lines).encode() + b"\n"
    tr = trailer(b"Signed-off-by", author)
    for kind, i in others:
        tr += trailer(kind, i)
    if committer != author:
        tr += trailer(b"Signed-off-by", committer)
    msg += b"\n" + tr
    w(b"commit %s\nmark :%d\n" % (ref, mark))
    w(b"author %s\ncommitter %s\n" % (ident(author, now - rnd.uniform(0, 5 * 86400)),
                                       ident(committer, now)))
    w(b"data %d\n%s\n" % (len(msg), msg))
    for i, p in enumerate(parents):
        w(b"%s :%d\n" % (b"from" if i == 0 else b"merge", p))
    changes()
    w(b"\n")
    ncommits += 1
    return mark

def pick_person():
    return rnd.choices(range(len(people)), pw)[0]

def pick_author(d):
    return rnd.choice(dir_regulars[d]) if rnd.random() < 0.75 else pick_person()

def pick_committer(d, author):
    m = top_maint[d.split("/")[0]]
    return author if author in m or rnd.random() < 0.15 else rnd.choice(m)

def extra_trailers(author):
    t = []
    for kind, p in ((b"Reviewed-by", 0.3), (b"Acked-by", 0.1), (b"Tested-by", 0.08),
                    (b"Reported-by", 0.05), (b"Cc", 0.1)):
        if rnd.random() < p:
            t.append((kind, pick_person()))
    return t

def subject_for(d, files):
    fn = files[0].rsplit("/", 1)[1].split(".")[0].split("_")[0]
    prefix = d if rnd.random() < 0.5 else ": ".join(d.split("/")[-2:])
    return f"{prefix}: {rnd.choice(SUBJECTS) % fn}"

def body():
    return rnd.sample(FILLER, rnd.randint(1, 3))

# --- first commit: the initial import -----------------------------------
def initial():
    for d in live_dirs:
        for p in dir_files[d]:
            live.add(p); M(p)
main_mark = commit(b"refs/heads/main", "Initial import", ["Import the existing tree."],
                   0, 0, [], initial)

import_every = max(1, int(N * 0.9 / max(1, len(pending))))
topic_no = 0
while ncommits < N:
    k = ncommits
    left = N - ncommits
    r = rnd.random()
    ld = [d for d in live_dirs]
    if pending and k % import_every == 0:
        d = pending.pop(0)
        live_dirs.append(d)
        a = pick_author(d)
        def imp(d=d):
            for p in dir_files[d]:
                live.add(p); M(p)
        main_mark = commit(b"refs/heads/main", f"{d}: new driver", body(), a,
                           pick_committer(d, a), extra_trailers(a), imp, (main_mark,))
    elif k % 1500 == 750 and left > 1:
        sample = rnd.sample(sorted(live), min(200, len(live)))
        a = pick_person()
        def tw(sample=sample):
            for p in sample:
                M(p)
        main_mark = commit(b"refs/heads/main",
                           f"treewide: {rnd.choice(['replace', 'remove', 'convert'])} "
                           f"{rnd.choice(WORDS)}_{rnd.choice(WORDS)}() users",
                           body(), a, a, extra_trailers(a), tw, (main_mark,))
    elif r < 0.06 and left >= 6:
        # A topic branch of 2-4 commits on one directory, merged with --no-ff.
        topic_no += 1
        d = rnd.choices(live_dirs, dw[:len(live_dirs)])[0]
        a = pick_author(d)
        c = pick_committer(d, a)
        touched = {}
        parent = main_mark
        for _ in range(rnd.randint(2, 4)):
            files = rnd.sample(dir_files[d], min(len(dir_files[d]), rnd.choice((1, 1, 2, 3))))
            files = [p for p in files if p in live] or [sorted(live)[0]]
            def ch(files=files):
                for p in files:
                    M(p)
                    touched[p] = rev[p]
            parent = commit(b"refs/heads/topic", subject_for(d, files), body(), a, c,
                            extra_trailers(a), ch, (parent,))
        def mg():
            for p, rv in touched.items():
                cc = content(p, rv)
                w(b"M 100644 inline %s\ndata %d\n%s\n" % (p.encode(), len(cc), cc))
        n, e, _ = people[a]
        name = "".join(x[0] for x in n.decode().split()).lower()
        main_mark = commit(b"refs/heads/main",
                           f"Merge branch '{name}/{d.split('/')[-1]}-{topic_no}'",
                           [], c, c, [], mg, (main_mark, parent))
        nmerges += 1
    elif r < 0.0625:
        # Rename a file within its directory.
        d = rnd.choice(live_dirs)
        old = rnd.choice(dir_files[d])
        if old not in live:
            continue
        new = new_name(d, taken)
        dir_files[d][dir_files[d].index(old)] = new
        live.discard(old); live.add(new)
        rev[new] = rev.pop(old, 0)
        a = pick_author(d)
        def rn(old=old, new=new):
            w(b"R %s %s\n" % (old.encode(), new.encode()))
        main_mark = commit(b"refs/heads/main",
                           f"{d}: rename {old.rsplit('/', 1)[1]} to {new.rsplit('/', 1)[1]}",
                           body(), a, pick_committer(d, a), extra_trailers(a), rn, (main_mark,))
    elif r < 0.0665:
        # Delete a file.
        d = rnd.choice(live_dirs)
        old = rnd.choice(dir_files[d])
        if old not in live or len(dir_files[d]) < 10:
            continue
        dir_files[d].remove(old)
        live.discard(old)
        a = pick_author(d)
        def dl(old=old):
            w(b"D %s\n" % old.encode())
        main_mark = commit(b"refs/heads/main", f"{d}: remove unused {old.rsplit('/', 1)[1]}",
                           body(), a, pick_committer(d, a), extra_trailers(a), dl, (main_mark,))
    else:
        d = rnd.choices(live_dirs, dw[:len(live_dirs)])[0]
        n = rnd.choices((1, 2, 3), (60, 25, 15))[0]
        files = rnd.sample(dir_files[d], min(n, len(dir_files[d])))
        if rnd.random() < 0.02:             # a new file
            p = new_name(d, taken)
            dir_files[d].append(p)
            live.add(p)
            files.append(p)
        if rnd.random() < 0.08:             # and a header elsewhere
            d2 = rnd.choice(live_dirs)
            files.append(rnd.choice(dir_files[d2]))
        files = [p for p in dict.fromkeys(files) if p in live]
        if not files:
            continue
        a = pick_author(d)
        def ch(files=files):
            for p in files:
                M(p)
        main_mark = commit(b"refs/heads/main", subject_for(d, files), body(), a,
                           pick_committer(d, a), extra_trailers(a), ch, (main_mark,))

w(b"done\n")
out.flush()
print(f"generated {ncommits} commits ({nmerges} merges), {len(live)} files in "
      f"{len(live_dirs)} directories, {len(people)} people", file=sys.stderr)
EOF

script=$gen
if [ "$shape" = linux ]; then
	script=$(cd "$(dirname "$0")" && pwd)/synthetic-linux.py
fi
echo "generating $commits commits${shape:+ ($shape shape)} into $dir ..." >&2
PYTHONHASHSEED=0 "$PYTHON" "$script" "$commits" "${SEED:-1}" |
	git -C "$dir" fast-import --quiet --done --active-branches=4
git -C "$dir" update-ref -d refs/heads/topic 2>/dev/null || true
t1=$(date +%s)
echo "fast-import done in $((t1 - start)) s" >&2

if [ "${REPACK:-1}" != 0 ]; then
	# -d without -f: reuse fast-import's deltas, so this stays cheap.
	git -C "$dir" repack -adq
	echo "repack -ad done in $(($(date +%s) - t1)) s" >&2
fi
git -C "$dir" count-objects -vH | sed -n 's/^size-pack: /pack size: /p' >&2
echo "$dir: $(git -C "$dir" rev-list --count HEAD) commits," \
	"$(git -C "$dir" rev-list --count --no-merges HEAD) non-merge," \
	"$(git -C "$dir" ls-tree -r --name-only HEAD | wc -l) files at HEAD," \
	"$(($(date +%s) - start)) s" >&2
