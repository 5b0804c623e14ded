#!/usr/bin/env python3
# synthetic-linux.py COMMITS SEED: a git fast-import stream of a Linux-shaped
# history on stdout (make-synthetic-repo.sh runs it with SHAPE=linux).
import bisect, itertools, random, sys

# Linux-shaped history (make-synthetic-repo.sh SHAPE=linux): FILES files in
# DIRS directories, a MAINTAINERS of SECTIONS sections touched by thousands
# of commits, a few hot files each touched by ~2% of the commits, and
# reviewer-heavy trailers.
N = int(sys.argv[1])
rnd = random.Random(int(sys.argv[2]))
NDIRS, NFILES, NSECT, NPEOPLE = 5000, 80000, 3000, 6000
out = sys.stdout.buffer
w = out.write

def cum(weights):
    return list(itertools.accumulate(weights))
def pick(cw):
    return bisect.bisect_left(cw, rnd.random() * cw[-1])

# --- people: Zipf-like activity ------------------------------------------
FIRST = ("Alice Andrew Anna Arnd Bart Ben Carlos Chen Chris Claudia Dan David Dmitry Elena "
         "Emil Eric Fabio Felix Frank Gabriel Greg Hannah Hiroshi Igor Ingo Ivan Jakub James "
         "Jan Jason Jens Jiri Joe Johannes John Jonas Jose Julia Kai Karen Kees Laura Lei "
         "Lukas Marc Maria Mark Martin Matthew Michal Mika Nadia Neil Nikolay Olga Oliver "
         "Pablo Paolo Patrick Paul Pedro Peter Petr Pierre Rafael Rahul Ravi Rene Richard "
         "Robert Roman Ruth Sam Sara Sebastian Sergey Simon Sofia Stefan Steven Takashi "
         "Thomas Tim Tomas Uwe Vincent Vladimir Wei Will Xin Yann Yuki Zhang").split()
FIRST += ["José", "Łukasz", "Jürgen", "Zoë", "Søren", "Bjørn", "François"]
LAST = ("Adams Anderson Bauer Becker Bianchi Brown Carter Chen Costa Davis Dubois Evans "
        "Fischer Garcia Gupta Hansen Hoffmann Huang Ivanov Jackson Jensen Kim Klein Kowalski "
        "Kumar Lambert Larsen Lee Li Lin Liu Lopez Martin Meyer Miller Moreau Murphy Nakamura "
        "Nguyen Novak Olsen Park Patel Petrov Popescu Quinn Rossi Russo Sato Schmidt Schulz "
        "Silva Singh Smith Suzuki Tanaka Taylor Torres Wagner Walker Wang Weber Wilson Wolf "
        "Wright Wu Xu Yamamoto Yang Zhao").split()
LAST += ["Müller", "Šimek", "Gonçalves", "O'Brien"]
DOMAINS = ("gmail.com kernel.org redhat.com intel.com suse.de google.com linaro.org arm.com "
           "amd.com nvidia.com ibm.com oracle.com huawei.com collabora.com bootlin.com "
           "samsung.com linux.dev").split()
TZ = [b"+0000", b"+0100", b"+0200", b"-0500", b"-0700", b"-0800", b"+0530", b"+0800", b"+0900"]
ASCII = str.maketrans({"é": "e", "Ł": "L", "ł": "l", "ü": "u", "ë": "e", "ø": "o", "ç": "c",
                       "Š": "S", "š": "s", "'": "", " ": ""})
people, seen = [], set()
while len(people) < NPEOPLE:
    f, l = rnd.choice(FIRST), rnd.choice(LAST)
    e = f"{f.translate(ASCII).lower()}.{l.translate(ASCII).lower()}{len(people) if (f, l) in seen else ''}@{rnd.choice(DOMAINS)}"
    seen.add((f, l))
    people.append((f"{f} {l}".encode(), e.encode(), rnd.choice(TZ)))
pcw = cum([1.0 / (i + 1) ** 1.0 for i in range(NPEOPLE)])
TOPDOG = 0      # the busiest person: applies a large share of everything

# --- the tree: 5,000 directories, 80,000 files -----------------------------
TOP = ("arch block crypto drivers fs include kernel lib mm net sound tools security "
       "Documentation scripts init ipc virt samples certs").split()
TOPW = [3, 0.3, 0.3, 10, 3, 2, 1, 0.5, 0.6, 3, 1.5, 1.5, 0.4, 1.5, 0.5, 0.1, 0.1, 0.2, 0.1, 0.1]
WORDS = ("alloc buf bus cache clk conf core ctl ctx dev dma drv err event fifo frame gpio hash "
         "hw init io irq list lock map mem msg mux node ops pci phy pm pool port power queue "
         "reg reset ring rx sched sg slab spi stat sync sys table task timer tx uart usb util "
         "vm wq xfer").split()
tcw = cum(TOPW)
dirs, dset = [], set()
while len(dirs) < NDIRS:
    t = TOP[pick(tcw)]
    depth = rnd.choice((1, 2, 2, 3))
    d = t + "".join("/" + rnd.choice(WORDS) + (str(rnd.randint(0, 40)) if k else "") for k in range(depth))
    if d not in dset:
        dset.add(d); dirs.append(d)
rnd.shuffle(dirs)
dcw = cum([1.0 / (i + 1) ** 0.8 for i in range(NDIRS)])
dir_files, taken = {}, set()
per = NFILES // NDIRS
for i, d in enumerate(dirs):
    fs = []
    for _ in range(rnd.randint(per // 3, per * 5 // 3)):
        while True:
            p = f"{d}/{rnd.choice(WORDS)}_{rnd.choice(WORDS)}{rnd.randint(0, 99)}.{rnd.choice('ccccch')}"
            if p not in taken:
                taken.add(p); fs.append(p); break
    dir_files[d] = fs
HOT = ["include/linux/hot_common.h", "Makefile", "arch/x86/Kconfig", "drivers/core/hot_bus.c",
       "include/linux/hot_device.h", "kernel/hot_sched.c"]
HOTP = [0.020, 0.018, 0.012, 0.010, 0.008, 0.006]   # per commit
for h in HOT:
    taken.add(h)

# --- MAINTAINERS: 3,000 sections over the directories ----------------------
sections = []
for s in range(NSECT):
    d = dirs[s % NDIRS] if s < NDIRS else rnd.choice(dirs)
    ms = sorted({pick(pcw) % 800 for _ in range(rnd.choice((1, 1, 2)))})
    rs = sorted({rnd.randrange(NPEOPLE // 4) for _ in range(rnd.choice((0, 1, 2, 3)))})
    sections.append((f"{d.upper().replace('/', ' ')} SUPPORT {s}", d, ms, rs))
sections.sort()
dir_sect = {}
for i, (_, d, ms, rs) in enumerate(sections):
    dir_sect.setdefault(d, i)
sect_rev = [0] * NSECT

def maintainers_text():
    parts = ["List of maintainers\n===================\n\n"]
    for i, (title, d, ms, rs) in enumerate(sections):
        parts.append(title + "\n")
        for m in ms:
            n, e, _ = people[m]
            parts.append(f"M:\t{n.decode()} <{e.decode()}>\n")
        for r in rs:
            n, e, _ = people[r]
            parts.append(f"R:\t{n.decode()} <{e.decode()}>\n")
        parts.append(f"L:\tlist{i % 97}@vger.kernel.org\nS:\t{'Maintained' if sect_rev[i] % 3 else 'Supported'}\n"
                     f"F:\t{d}/\n")
        if i % 60 == 0:
            parts.append(f"N:\t{d.rsplit('/', 1)[-1].rstrip('0123456789')}\n")
        parts.append("\n")
    return "".join(parts).encode()

def content(p, r):
    return b"/* SPDX-License-Identifier: GPL-2.0 */\n/* %s */\nint f_r%d(void);\n" % (p.encode(), r)

rev = {}
def M(p):
    rev[p] = rev.get(p, 0) + 1
    c = maintainers_text() if p == "MAINTAINERS" else content(p, rev[p])
    w(b"M 100644 inline %s\ndata %d\n%s\n" % (p.encode(), len(c), c))

T0, SPAN = 1113000000, 20 * 365 * 86400      # 2005 to 2025
step = SPAN / N
now = float(T0)
mark = ncommits = nmerges = 0

def ident(i, t):
    n, e, tz = people[i]
    return b"%s <%s> %d %s" % (n, e, int(t), tz)

SUBJ = ("fix null pointer dereference in %s", "fix the error path in %s", "fix a race in %s",
        "add missing lock in %s", "constify %s", "remove unused %s", "fix memory leak in %s",
        "add support for %s", "add bounds check in %s", "convert %s to the new API",
        "document %s", "rework %s", "fix off-by-one in %s", "simplify %s", "use %s helper")

def commit(ref, subject, author, committer, trailers, files, parents, maint=False):
    global mark, now, ncommits
    now += step * rnd.uniform(0.2, 1.8)
    mark += 1
    msg = [subject.encode(), b"", b"Some explanation of the change.", b""]
    for kind, i in trailers:
        n, e, _ = people[i]
        msg.append(b"%s: %s <%s>" % (kind, n, e))
    m = b"\n".join(msg) + b"\n"
    w(b"commit %s\nmark :%d\nauthor %s\ncommitter %s\ndata %d\n%s\n" %
      (ref, mark, ident(author, now - rnd.uniform(0, 20 * 86400)), ident(committer, now), len(m), m))
    for k, p in enumerate(parents):
        w(b"%s :%d\n" % (b"from" if k == 0 else b"merge", p))
    for p in files:
        M(p)
    w(b"\n")
    ncommits += 1
    return mark

# initial import: 60% of the directories, the hot files, MAINTAINERS
live_dirs = [d for d in dirs if rnd.random() < 0.6]
pending = [d for d in dirs if d not in set(live_dirs)]
rnd.shuffle(pending)
init_files = [p for d in live_dirs for p in dir_files[d]] + HOT + ["MAINTAINERS"]
main = commit(b"refs/heads/main", "Initial import", TOPDOG, TOPDOG, [], init_files, ())
live_set = set(live_dirs)
import_every = max(1, int(N * 0.9 / max(1, len(pending))))
lcw = cum([1.0 / (i + 1) ** 0.6 for i in range(len(live_dirs))])
hotcw = list(itertools.accumulate(HOTP))

def sect_of(d):
    return dir_sect.get(d)

def people_for(d):
    s = sect_of(d)
    if s is None:
        return [pick(pcw) % 800], []
    return sections[s][2], sections[s][3]

topic = 0
while ncommits < N:
    k = ncommits
    if pending and k % import_every == 0:
        d = pending.pop()
        live_dirs.append(d)
        lcw.append(lcw[-1] + 1.0 / len(live_dirs) ** 0.6)
        files = dir_files[d]
        a = pick(pcw)
        main = commit(b"refs/heads/main", f"{d}: add driver", a, TOPDOG,
                      [(b"Signed-off-by", a), (b"Signed-off-by", TOPDOG)], files, (main,))
        continue
    if k % 2000 == 1000:        # tree-wide: 300 files
        d = None
        files = rnd.sample([p for dd in rnd.sample(live_dirs, 150) for p in dir_files[dd][:2]], 300)
        a = pick(pcw)
        main = commit(b"refs/heads/main", f"treewide: convert {rnd.choice(WORDS)}_{rnd.choice(WORDS)}() users",
                      a, TOPDOG, [(b"Signed-off-by", a), (b"Signed-off-by", TOPDOG)], files, (main,))
        continue
    d = live_dirs[pick(lcw)]
    ms, rs = people_for(d)
    fs = dir_files[d]
    files = rnd.sample(fs, min(len(fs), rnd.choice((1, 1, 1, 2, 2, 3))))
    x = rnd.random()
    if x < hotcw[-1]:
        files.append(HOT[bisect.bisect_left(hotcw, x)])
    if rnd.random() < 0.003:
        files.append("MAINTAINERS")
    a = pick(pcw) if rnd.random() < 0.5 else rnd.randrange(NPEOPLE)
    mnt = ms[0] if ms else TOPDOG
    committer = TOPDOG if rnd.random() < 0.25 else mnt
    tr = [(b"Signed-off-by", a)]
    # reviewer-heavy: the section's R: people, the maintainers, others
    for r in rs:
        if rnd.random() < 0.45:
            tr.append((b"Reviewed-by", r))
    if rnd.random() < 0.35:
        tr.append((b"Reviewed-by", pick(pcw)))
    if rnd.random() < 0.15:
        tr.append((b"Acked-by", rnd.choice(ms) if ms else pick(pcw)))
    if rnd.random() < 0.10:
        tr.append((b"Tested-by", rnd.randrange(NPEOPLE)))
    if rnd.random() < 0.05:
        tr.append((b"Reported-by", rnd.randrange(NPEOPLE)))
    if committer != a:
        tr.append((b"Signed-off-by", committer))
    subj = f"{d.rsplit('/', 1)[-1]}: {rnd.choice(SUBJ) % files[0].rsplit('/', 1)[1].split('.')[0]}"
    if rnd.random() < 0.04 and N - ncommits > 6:
        # a topic branch, merged
        topic += 1
        parent = main
        for _ in range(rnd.randint(2, 4)):
            parent = commit(b"refs/heads/topic", subj, a, committer, tr, files, (parent,))
        main = commit(b"refs/heads/main", f"Merge branch '{d.rsplit('/', 1)[-1]}-{topic}'", committer,
                      TOPDOG, [(b"Signed-off-by", TOPDOG)], [], (main, parent))
        nmerges += 1
        continue
    main = commit(b"refs/heads/main", subj, a, committer, tr, files, (main,))

w(b"done\n")
out.flush()
print(f"generated {ncommits} commits ({nmerges} merges), {len(dirs)} directories, "
      f"{sum(len(v) for v in dir_files.values())} files, {NSECT} MAINTAINERS sections", file=sys.stderr)
