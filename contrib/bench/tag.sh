#!/bin/bash
# tag.sh [REPO] -- tag N new patch mails: `ccsift tag` against `notmuch tag
# --batch` applying the same changes (the floor) and `afew --tag --new` with
# its default filters (a peer), on the same Maildir, in the same run.
# Target: ccsift tag at most 2x the notmuch floor.
#
# Untimed setup, all under one scratch directory in $TMPDIR:
#   - N patch mails (default 10000) from the newest non-merge commits of REPO
#     that touch 1-3 files: one `git format-patch --stdout --no-walk` call over
#     the chosen commits, split by python3, with a Message-ID, To: the
#     maintainer (the most frequent committer), Cc: the list and up to 4
#     people who touched the files before (as `git log --format=%aE C^ --
#     FILE | head`, computed from one `git log --name-only`), List-Id;
#     consecutive commits by one author become a series (at most 8) with a
#     cover letter (shortlog and merged diffstat), and about one patch in
#     eight gets a reply (some get two) quoting its diff;
#   - the --me identity ([user] email of ccsift, user.primary_email of
#     notmuch, which afew reads too): the MEPICK-th most often Cc'd person;
#   - a notmuch config and database (new.tags=new;inbox;unread, `notmuch new
#     --no-hooks`), and a dump of its tags and properties right after it;
#   - `ccsift index` of REPO (index under the scratch $XDG_CACHE_HOME);
#   - `ccsift tag --dry-run` once: the batch file for the floor;
#   - one untimed `ccsift tag`: its verdicts (counted in its decisions
#     store, $XDG_DATA_HOME/ccsift/decisions.db), and the tags and properties
#     it leaves on the messages it changed, as a `notmuch restore` file.
# Then RUNS rounds (default 3), each timing these, rotating who goes first,
# every run from the same state (`notmuch restore` of the dump, see below),
# wall clock of the whole process:
#   ccsift tag --config CFG              (query tag:new)
#   ccsift tag --config CFG --dry-run    (decides, writes nothing)
#   notmuch tag --batch --input=BATCH    (the floor: the same tag changes)
#   notmuch restore --input=SAME         (the same tags and properties)
#   afew --tag --new                     (the peer, its default filters:
#                                         SpamFilter, KillThreadsFilter,
#                                         ListMailsFilter,
#                                         ArchiveSentMailsFilter, InboxFilter)
# and prints the best and the median seconds of each, the ratio of each to
# the notmuch tag --batch floor (best and median), how many messages each
# changed (tags or properties differ from the dump afterwards; several
# numbers if the runs differ) and the best time per message.
#
# Resetting: `notmuch restore` resets tags, but it rewrites a message's
# properties only when the dump has a property line for it, so a message
# ccsift gave a verdict would keep it (and the next `ccsift tag` would leave
# it alone: a decision stands until it changes). Every message therefore
# gets a property bench.reset=1 before the dump is taken, and the restore
# then drops the ccsift.* properties of every message. A reset restores the
# dump's lines of the messages the last run changed (all of them the first
# time), deletes ccsift's decisions store (a run that finds its decisions
# recorded would rightly change nothing), and is checked: tag:new,
# bench.reset, ccsift.verdict, lowcc counts.
#
# Environment:
#   CCSIFT   the binary (default: build/ccsift of this project)
#   N        mails (default 10000)
#   RUNS     rounds (default 3)
#   ME       the identity (default: picked as above); MEPICK (default 1)
#   SEED     for the mail generator (default 1)
#   KEEP=1   keep the scratch directory
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ccsift=${CCSIFT:-$top/build/ccsift}
n=${N:-10000}
runs=${RUNS:-3}
tmp=${TMPDIR:-/tmp}
repo=${1:-/work/.mirror/git+git/repo}

[ -x "$ccsift" ] || { echo "$0: no ccsift binary at $ccsift (build it, or set CCSIFT)" >&2; exit 1; }
[ $# -le 1 ] || { echo "usage: $0 [REPO]" >&2; exit 2; }
for t in notmuch afew python3 git; do
	command -v $t >/dev/null || { echo "$0: $t is not installed" >&2; exit 1; }
done
git -C "$repo" rev-parse -q --verify HEAD >/dev/null || { echo "$0: no repository at $repo" >&2; exit 1; }
repo=$(cd "$repo" && pwd)
name=$(basename "$repo")
[ "$name" = repo ] && name=$(basename "$(dirname "$repo")")

work=$(mktemp -d "$tmp/ccsift-bench-tag.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
	echo "scratch: $work (kept)" >&2
else
	trap 'rm -rf "$work"' EXIT
fi
mail=$work/mail
mkdir -p "$mail/cur" "$mail/new" "$mail/tmp" "$work/config/ccsift" "$work/config/afew" "$work/cache"
# Everything reads its configuration from the scratch directory only.
export XDG_CONFIG_HOME=$work/config XDG_CACHE_HOME=$work/cache XDG_DATA_HOME=$work/data \
	NOTMUCH_CONFIG=$work/notmuch-config
unset NOTMUCH_DATABASE NOTMUCH_PROFILE MAILDIR

secs() { python3 -c 'import time; print(f"{time.monotonic():.3f}")'; }
since() { python3 -c "import sys, time; print(f'{time.monotonic() - float(sys.argv[1]):.1f}')" "$1"; }

echo "ccsift: $ccsift ($("$ccsift" --version)); $(notmuch --version); afew $(afew --version);" \
	"git $(git --version | cut -d' ' -f3); $(nproc) cores" >&2
echo "repo: $repo ($(git -C "$repo" rev-list --count --no-merges HEAD) non-merge commits)" >&2

# --- the mails ---------------------------------------------------------------
t0=$(secs)
me=$(python3 - "$repo" "$n" "$mail" "${SEED:-1}" "${ME:-}" "${MEPICK:-1}" "$name" <<'EOF'
import collections, email.utils, random, re, subprocess, sys
from datetime import timedelta

repo, n, maildir, seed, me, mepick, name = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5], int(sys.argv[6]), sys.argv[7]
rnd = random.Random(seed)

def git(*args):
    return subprocess.run(["git", "-C", repo, *args], check=True, stdout=subprocess.PIPE).stdout

# One walk over the history: every non-merge commit, newest first, with its files.
log = git("log", "--no-merges", "--format=%x00%H%x01%aE%x01%aN%x01%cE%x01%cN%x01%s", "--name-only", "HEAD")
commits, subject = [], {}
for rec in log.split(b"\0")[1:]:
    head, _, files = rec.partition(b"\n")
    h, ae, an, ce, cn, subj = head.decode("utf-8", "replace").split("\x01", 5)
    subject[h] = subj
    commits.append((h, ae.lower(), an, ce.lower(), cn,
                    [f for f in files.decode("utf-8", "replace").split("\n") if f]))
names = {}
for c in reversed(commits):
    names[c[1]] = c[2]
    names[c[3]] = c[4]
maint = collections.Counter(c[3] for c in commits[:2000]).most_common(1)[0][0]

# Who touched each file before each candidate commit (oldest to newest).
window = min(len(commits), 4 * n)
recent = {}  # file -> distinct authors, most recent first
cc_of = {}
for i in range(len(commits) - 1, -1, -1):
    h, ae, _, _, _, files = commits[i]
    if i < window and 1 <= len(files) <= 3:
        cc = []
        for f in files:
            for a in recent.get(f, ()):
                if a not in cc and a not in (ae, maint):
                    cc.append(a)
        if cc:
            cc_of[h] = cc[:4]
    for f in files:
        lst = recent.setdefault(f, [])
        if ae in lst:
            lst.remove(ae)
        lst.insert(0, ae)
        del lst[6:]

# Units: series (consecutive picked commits by one author, at most 8, with a
# cover letter from 2 on) and replies, until there are n mails.
picked = [c for c in commits[:window] if c[0] in cc_of]
units, total, k = [], 0, 0
while total < n and k < len(picked):
    series = [picked[k]]
    k += 1
    while k < len(picked) and picked[k][1] == series[0][1] and len(series) < 8:
        series.append(picked[k])
        k += 1
    series.reverse()                     # oldest first, as sent
    replies = [(lambda u: 2 if u < 0.03 else 1 if u < 0.12 else 0)(rnd.random()) for _ in series]
    size = len(series) + (len(series) > 1) + sum(replies)
    if total + size > n:                 # the last unit: single patches only
        series, replies = series[: n - total], [0] * min(len(series), n - total)
        units.append((series, replies, False))
        total += len(series)
        break
    units.append((series, replies, len(series) > 1))
    total += size
if total < n:
    sys.exit(f"only {total} mails from {len(picked)} suitable commits: ask for fewer (N)")

if not me:
    ccs = collections.Counter(a for s, _, _ in units for c in s for a in cc_of[c[0]])
    me = ccs.most_common(mepick)[-1][0]

# One format-patch over every chosen commit, split on the mbox From lines.
shas = [c[0] for s, _, _ in units for c in s]
out = subprocess.run(["git", "-C", repo, "-c", "format.thread=false", "-c", "format.coverLetter=false",
                      "-c", "format.signOff=false", "format-patch", "--stdout", "--no-numbered",
                      "--no-attach", "--no-walk", *shas], check=True, stdout=subprocess.PIPE).stdout
patch = {}
for m in re.finditer(rb"^From ([0-9a-f]{40}) Mon Sep 17 00:00:00 2001\n(.*?)(?=^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001\n|\Z)",
                     out, re.M | re.S):
    patch[m.group(1).decode()] = m.group(2)
missing = [h for h in shas if h not in patch]
if missing:
    sys.exit(f"format-patch gave no mail for {len(missing)} commits, e.g. {missing[0]}")

def addr(a):
    return email.utils.formataddr((names.get(a, ""), a), charset="utf-8")

lname = re.sub(r"[^a-z0-9-]", "", name.split("+")[-1].lower()) or "list"
listaddr = f"{lname}@vger.example.org"
listid = f"List-Id: <{lname}.vger.example.org>\n".encode()
counter = [0]

def write(msg):
    counter[0] += 1
    with open(f"{maildir}/cur/{counter[0]:06d}.ccsift-bench:2,", "wb") as f:
        f.write(msg)

def msgid(tag, h):
    return f"<{h[:16]}.{tag}.{counter[0]}@bench.ccsift.invalid>"

def headers(raw):
    head, _, body = raw.partition(b"\n\n")
    return head + b"\n", body

def header(head, field):
    m = re.search(rb"^" + field + rb": ?(.*(?:\n[ \t].*)*)", head, re.M | re.I)
    return m.group(1) if m else b""

def diffstat(series):
    """the diffstat of a cover letter: the patches' diffstats merged"""
    files, ins, dels = {}, 0, 0
    for c in series:
        _, body = headers(patch[c[0]])
        i = body.find(b"\n---\n")
        j = body.find(b"\ndiff --git", i)
        if i < 0 or j < 0:
            continue
        for line in body[i + 5:j].split(b"\n"):
            if b" | " in line:
                path, _, rest = line.partition(b" | ")
                m = re.match(rb"\s*(\d+) ?(\+*)(-*)", rest)
                n0, p0, m0, binary = files.get(path.strip(), (0, 0, 0, b""))
                files[path.strip()] = ((n0 + int(m.group(1)), p0 + len(m.group(2)), m0 + len(m.group(3)), binary)
                                       if m else (n0, p0, m0, rest.strip()))
            elif b" changed" in line:
                m = re.search(rb"(\d+) insertions?\(\+\)", line)
                ins += int(m.group(1)) if m else 0
                m = re.search(rb"(\d+) deletions?\(-\)", line)
                dels += int(m.group(1)) if m else 0
    w = max((len(p) for p in files), default=0)
    def bar(nn, pl, mi, binary):
        if binary and not nn:
            return binary
        scale = min(1.0, 50 / max(1, pl + mi))
        return b"%d %s%s" % (nn, b"+" * round(pl * scale), b"-" * round(mi * scale))
    out = b"".join(b" " + p.ljust(w) + b" | " + bar(*v) + b"\n" for p, v in files.items())
    return out + (f" {len(files)} file{'s' if len(files) != 1 else ''} changed, {ins} insertions(+), "
                  f"{dels} deletions(-)\n").encode()

for series, replies, cover in units:
    k = len(series)
    first_head, _ = headers(patch[series[0][0]])
    date0 = email.utils.parsedate_to_datetime(header(first_head, b"Date").decode())
    author = series[0][1]
    cover_id = None
    if cover:
        cover_id = msgid("cover", series[0][0])
        shortlog = "".join(f"  {subject[c[0]]}\n" for c in series)
        cc = sorted({a for c in series for a in cc_of[c[0]]})[:6]
        write((f"From: {addr(author)}\nDate: {email.utils.format_datetime(date0 - timedelta(minutes=1))}\n"
               f"Subject: [PATCH 0/{k}] A series of {k} patches\nMessage-ID: {cover_id}\n"
               f"To: {addr(maint)}\nCc: {', '.join([listaddr] + [addr(a) for a in cc])}\n"
               f"MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n").encode() + listid
              + f"\nThis series does the following.\n\n{names.get(author, author)} ({k}):\n{shortlog}\n".encode()
              + diffstat(series) + b"\n-- \nbench\n")
    for j, (c, nrep) in enumerate(zip(series, replies), 1):
        head, body = headers(patch[c[0]])
        if k > 1:
            head = re.sub(rb"^Subject: \[PATCH\]", b"Subject: [PATCH %d/%d]" % (j, k), head, count=1, flags=re.M)
        pid = msgid("patch", c[0])
        extra = (f"Message-ID: {pid}\nTo: {addr(maint)}\n"
                 f"Cc: {', '.join([listaddr] + [addr(a) for a in cc_of[c[0]]])}\n")
        if cover_id:
            extra += f"In-Reply-To: {cover_id}\nReferences: {cover_id}\n"
        write(head + extra.encode() + listid + b"\n" + body)
        # Replies: from someone on Cc (or the maintainer), quoting the diff.
        subj = header(head, b"Subject")
        date = email.utils.parsedate_to_datetime(header(head, b"Date").decode())
        diff = body[body.find(b"\ndiff --git") + 1:] if b"\ndiff --git" in body else body
        quoted = b"".join(b"> " + line + b"\n" for line in diff.split(b"\n")[:rnd.randint(6, 24)])
        for r in range(nrep):
            who = rnd.choice(cc_of[c[0]] + [maint])
            refs = f"{cover_id} {pid}" if cover_id else pid
            write((f"From: {addr(who)}\nDate: {email.utils.format_datetime(date + timedelta(hours=r + 1))}\n").encode()
                  + b"Subject: Re: " + subj + b"\n"
                  + (f"Message-ID: {msgid('reply', c[0])}\nIn-Reply-To: {pid}\nReferences: {refs}\n"
                     f"To: {addr(author)}\nCc: {', '.join([listaddr, addr(maint)] + [addr(a) for a in cc_of[c[0]] if a != who])}\n"
                     f"MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n").encode()
                  + listid + b"\n"
                  + f"{addr(author)} writes:\n\n".encode() + quoted
                  + b"\nThis part looks wrong to me; could you explain why it is needed?\n")

npatch = sum(len(s) for s, _, _ in units)
ncover = sum(1 for _, _, c in units if c)
print(f"mails: {counter[0]} ({npatch} patches from {len(set(shas))} commits, "
      f"{ncover} cover letters, {counter[0] - npatch - ncover} replies); To: {maint}; "
      f"{sum(1 for s, _, _ in units for c in s if me in cc_of[c[0]])} patches Cc --me, "
      f"{sum(1 for s, _, _ in units for c in s if c[1] == me)} from --me", file=sys.stderr)
print(me)
EOF
)
echo "generated in $(since "$t0") s; --me $me" >&2

# --- notmuch ----------------------------------------------------------------
cat >"$NOTMUCH_CONFIG" <<EOF
[database]
path=$mail
[user]
name=Bench User
primary_email=$me
[new]
tags=new;inbox;unread;
ignore=
[search]
exclude_tags=deleted;spam;
[maildir]
synchronize_flags=true
EOF
t0=$(secs)
notmuch new --no-hooks --quiet
echo "notmuch new: $(notmuch count '*') messages, $(notmuch count --output=threads '*') threads, $(since "$t0") s" >&2
[ "$(notmuch count tag:new)" = "$n" ] || { echo "$0: notmuch indexed $(notmuch count tag:new) of $n mails" >&2; exit 1; }
# See "Resetting" above.
notmuch search --output=messages '*' | sed 's/^id://' |
	python3 -c 'import sys, urllib.parse
for l in sys.stdin: print("#= " + urllib.parse.quote(l.rstrip("\n"), safe="") + " bench.reset=1")' |
	notmuch restore --accumulate --include=properties
pristine=$work/pristine.dump
notmuch dump --include=tags --include=properties --output="$pristine"
[ "$(notmuch count property:bench.reset=1)" = "$n" ] || { echo "$0: the reset property did not stick" >&2; exit 1; }

# --- ccsift and afew configuration -------------------------------------------
cfg=$XDG_CONFIG_HOME/ccsift/config
printf '[user]\nemail = %s\nnotmuch = false\n[repo %s]\npath = %s\n' "$me" "$name" "$repo" >"$cfg"
t0=$(secs)
"$ccsift" index --config "$cfg" >&2
echo "ccsift index: $(since "$t0") s" >&2
# afew 3.0.1 runs only the filters its config lists (its built-in config
# lists none); this is the default chain its documentation and built-in
# config describe.
printf '[SpamFilter]\n[KillThreadsFilter]\n[ListMailsFilter]\n[ArchiveSentMailsFilter]\n[InboxFilter]\n' \
	>"$XDG_CONFIG_HOME/afew/config"

batch=$work/batch
t0=$(secs)
"$ccsift" tag --config "$cfg" --dry-run >"$batch"
echo "ccsift tag --dry-run: $(wc -l <"$batch") batch lines, $(since "$t0") s" >&2
# nothing changed by the dry run
notmuch dump --include=tags --include=properties | cmp -s - "$pristine" || { echo "$0: ccsift tag --dry-run changed the database" >&2; exit 1; }

python3 - "$runs" "$n" "$work" "$pristine" "$batch" "$ccsift" "$cfg" <<'EOF'
import glob, os, sqlite3, statistics, subprocess, sys, time, urllib.parse

runs, n, work, pristine, batch, ccsift, cfg = int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:]

def sh(*argv, **kw):
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, **kw).stdout.decode()

def count(q):
    return int(sh("notmuch", "count", q))

def dump():
    return sh("notmuch", "dump", "--include=tags", "--include=properties")

def state(text):
    """message id -> (tags, properties, the dump's lines) of a notmuch dump"""
    s = {}
    for line in text.splitlines():
        if line.startswith("#="):
            _, mid, *props = line.split(" ")
            mid = urllib.parse.unquote(mid)
            t, p, lines = s.get(mid, ("", (), []))
            s[mid] = (t, tuple(sorted(props)), lines + [line])
        elif line and not line.startswith("#"):
            tags, _, mid = line.rpartition(" -- id:")
            mid = urllib.parse.unquote(mid)
            t, p, lines = s.get(mid, ("", (), []))
            s[mid] = (" ".join(sorted(tags.split())), p, lines + [line])
    return s

with open(pristine) as f:
    before = state(f.read())

def changed(after):
    return [m for m in set(before) | set(after) if before.get(m, ("", ()))[:2] != after.get(m, ("", ()))[:2]]

def reset(ids=None):
    """back to the dump: all of it, or the lines of the messages ids"""
    if ids is None:
        with open(pristine) as f:
            text = f.read()
    else:
        text = "".join(line + "\n" for m in ids if m in before for line in before[m][2])
    subprocess.run(["notmuch", "restore", "--include=tags", "--include=properties"], input=text.encode(), check=True)
    for f in glob.glob(store + "*"):
        os.unlink(f)
    bad = (count("tag:new"), count("property:bench.reset=1"),
           sum(verdict_counts()) + count("property:ccsift.verdict=low"), count("tag:lowcc"))
    if bad != (n, n, 0, 0):
        sys.exit(f"reset failed: tag:new, bench.reset, ccsift.verdict, lowcc = {bad}")

names = ("low", "relevant", "not-a-patch", "unknown")
store = os.path.join(os.environ["XDG_DATA_HOME"], "ccsift", "decisions.db")
def verdict_counts():
    """ccsift's decisions, from its store (notmuch has only the low ones)"""
    if not os.path.exists(store):
        return (0,) * len(names)
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        got = dict(db.execute("SELECT verdict, count(*) FROM decision GROUP BY verdict"))
    return tuple(got.get(x, 0) for x in names)

def run(argv):
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t1 = time.perf_counter()
    if p.returncode != 0:
        sys.exit(f"{argv[0]} exited with {p.returncode}: {p.stderr.decode(errors='replace')[-2000:]}")
    if p.stderr:
        print(f"{' '.join(argv[:2])} stderr: {p.stderr.decode(errors='replace')[-500:]}", file=sys.stderr)
    return t1 - t0

# Untimed: one ccsift tag run for the verdicts, and the exact tags and
# properties it leaves on the messages it changed, as a restore file: the
# floor for writing everything ccsift writes.
reset()
t = run([ccsift, "tag", "--config", cfg])
if len(changed(state(dump()))) == 0:
    sys.exit("ccsift tag changed nothing")
verdicts = verdict_counts()
lowcc = (count("tag:lowcc"), count("tag:lowcc and tag:inbox"), count("tag:inbox"))
after = state(dump())
same = f"{work}/same.dump"
with open(same, "w") as f:
    for m in changed(after):
        f.write("\n".join(after[m][2]) + "\n")
print(f"untimed ccsift tag: {t:.2f} s; restore file: {len(changed(after))} messages", file=sys.stderr)

tools = [  # name, argv, changes the database
    ("ccsift tag", [ccsift, "tag", "--config", cfg], True),
    ("ccsift tag --dry-run", [ccsift, "tag", "--config", cfg, "--dry-run"], False),
    ("notmuch tag --batch", ["notmuch", "tag", "--batch", f"--input={batch}"], True),
    ("notmuch restore", ["notmuch", "restore", "--include=tags", "--include=properties", f"--input={same}"], True),
    ("afew --tag --new", ["afew", "--tag", "--new"], True),
]
times = {t[0]: [] for t in tools}
nchanged = {t[0]: set() for t in tools}
dirty = None  # the messages the last run changed
for i in range(runs):
    for j in range(len(tools)):
        name, argv, writes = tools[(i + j) % len(tools)]
        if dirty is None or dirty:
            reset(dirty)
        times[name].append(run(argv))
        dirty = changed(state(dump()))
        nchanged[name].add(len(dirty))
        if name == "ccsift tag" and verdict_counts() != verdicts:
            print(f"ccsift tag: verdicts differ between runs: {verdicts} then {verdict_counts()}", file=sys.stderr)
        print(f"  round {i + 1}: {name:<22} {times[name][-1]:7.2f} s", file=sys.stderr)

floor = times["notmuch tag --batch"]
fb, fm = min(floor), statistics.median(floor)
print()
print(f"{'tool':<22} {'best_s':>7} {'median_s':>8} {'x_floor':>8} {'x_floor_med':>11} {'changed':>8} {'ms/msg':>7}")
for name, _, _ in tools:
    v = times[name]
    ch = "/".join(str(c) for c in sorted(nchanged[name]))
    print(f"{name:<22} {min(v):>7.2f} {statistics.median(v):>8.2f} {min(v) / fb:>8.2f} "
          f"{statistics.median(v) / fm:>11.2f} {ch:>8} {min(v) * 1000 / n:>7.3f}")
cb = min(times["ccsift tag"])
print(f"{n} new messages, best of {runs}; x_floor = seconds / notmuch tag --batch's "
      f"(best / median); ms/msg = best / {n}")
print(f"target ccsift tag <= 2x notmuch tag --batch: {'met' if cb <= 2 * fb else 'missed'} ({cb / fb:.2f}x); "
      f"against notmuch restore of the same tags and properties: {cb / min(times['notmuch restore']):.2f}x")
print(f"ccsift verdicts (its decisions store): "
      + ", ".join(f"{x} {c}" for x, c in zip(names, verdicts)) + f" (total {sum(verdicts)}); "
      f"tag:lowcc {lowcc[0]}, of which still tag:inbox {lowcc[1]}; tag:inbox {lowcc[2]}")
EOF
