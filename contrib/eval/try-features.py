#!/usr/bin/python3
"""Offline check of candidate features on the pairs of a `ccsift eval --json`.

usage: try-features.py INDEX.db EVAL.json [REPO]

Each candidate is computed from the index (as of each pair's case time, from
commits before it), added to the shipped model's logit (the pair's score, an
offset), and fitted by ridge-regularised logistic regression on the older
half of the pairs; the newer half reports the AUC, the AUC within person and
the noise demoted when one threshold keeps 95% (96.5%) of the engaged. A
candidate worth building raises the last on every tuning window.

  last5, last20   share of the last 5 / 20 commits to the patch's files the
                  person engaged with; last5n the count (log)
  afrac           share of the author's commits of the last year the person
                  engaged with; anew the author has none; alog their number
  e7, e30         the person's engagements in the last 7 / 30 days (log)
  rate90          their engagements of the last 90 days per project commit
  idle            days since their last engagement (log, at most a year)
  pfxn, pfxr      engagements with commits of the patch's subject prefix
                  ("net: phy:") in the last year: count (log), share;
                  pfx0: none of at least three
  samedom         the person's mail domain is the author's (not the author)
  domn, domfrac   engagements with commits of the last year by the author's
                  mail domain: count (log), share of that domain's commits
  domo            the same count, other authors of the domain only (log)
  aeng, deng      how many people engaged with each of the author's (their
                  mail domain's) commits of the last year, on average
                  (log, smoothed towards the project's mean)
  feng            the same over the last 20 commits to the patch's files
  rel, relc       the pair's logit less the highest of the case's other
                  Cc's (relc: held to -3..3); top: it is the highest
  nabove          how many of the case's other Cc's score higher (log)
  washare, owa    the person's engagements with the author's patches (the
                  shipped with_author) as a share of all the case's Cc's;
                  the highest of the others (log); watop: theirs is the most
  ncc             how many of the case's addressees were Cc'd (log)
  kindn, kindr    engagements in the last year with commits touching a file
                  of the kind of one of the patch's (its extension, or its
                  name without one: ".c", ".sh", "Makefile"): count (log),
                  share of those commits
  par1n, par1r    the same for the directories above the patch's files'
  top3n, top3r    the same for their first three path components
  addn, addr      the same for commits that add a file, when the patch
                  does (that do not, when it does not)
  h2, h4          when the patch was written: the share of the person's
                  activity of the year (commits authored, at their author
                  time; committed, at their commit time) within 2 / 4 hours
                  of its time of day (UTC), smoothed towards a uniform day
  work, night     the patch written in the person's working hours (8-18)
                  or at night (22-6), their most common time zone's
  tzd, tzs        (with REPO: time zones are not in the index) the distance
                  of the author's zone from the person's most common one,
                  over 12 hours; the same zone
  ser, ser1       the author's commits within an hour of the patch's
                  (a series; log); the patch alone
  a7, a30, a90    the person's engagements with the author's commits of the
                  last 7 / 30 / 90 days (log): who took up the author's
                  series last week
  aidle           days since the person last engaged with one of the
                  author's commits (log, at most a year)
  alast5          share of the author's last 5 commits the person engaged
                  with
  fidle           days since the person last engaged with a commit to one
                  of the patch's files (log, at most a year)
  fix, doc, add,  its subject's words: "fix"; "doc", "typo", "comment",
  cleanup         "spelling"; "add", "new", "introduce", "support";
                  "clean", "remove", "drop", "unused", "refactor", "simplif"
  stokl, stokm    what the patch is about, from its subject's words (lower
                  case, trailing digits dropped: "fanotify14" is
                  "fanotify"; three letters or more): the person's share of
                  the year's commits with each word, over their share of all
                  the year's commits (smoothed by 3 commits of it), its log
                  averaged over the words by their rarity (stokl), the
                  highest (stokm); stokn the count of the person's
                  engagements with commits sharing a word the year's
                  commits have at most 5% of (log)
  ptokl, ptokm,   the same for the words of the patch's file paths
  ptokn           ("testcases/kernel/syscalls/fanotify/fanotify14.c":
                  testcases, kernel, syscalls, fanotify, c)
"""
import json, math, sqlite3, sys, collections, bisect
import numpy as np
import subprocess

db = sqlite3.connect(sys.argv[1]); db.text_factory = lambda b: b.decode("utf-8", "replace")
import re
ev = json.load(open(sys.argv[2]))
pairs = ev["pairs"]
id_of = {e: i for i, e in db.execute("SELECT id, email FROM people")}
al = dict(db.execute("SELECT email, canonical FROM aliases"))
def pid(e):
    return id_of.get(al.get(e, e))
cinfo = {}
pfx_of = {}
def pfx(s):
    m = re.match(r'([^:]{1,60}):', s or '')
    return m.group(1).strip().lower() if m else None
subj_of = {}
zone = {}                                  # oid -> (author's, committer's) UTC offset, minutes
if len(sys.argv) > 3:
    log = subprocess.run(["git", "--git-dir", sys.argv[3], "log", "--all", "--no-merges", "--format=%H %ad %cd",
                          "--date=raw"], capture_output=True, text=True).stdout
    minutes = lambda z: (-1 if z[0] == "-" else 1) * (int(z[1:3]) * 60 + int(z[3:5]))
    for line in log.splitlines():
        h, _, az, _, cz = line.split()
        zone[h] = (minutes(az), minutes(cz))
by_author_time = collections.defaultdict(list)   # author -> sorted author times
acts = collections.defaultdict(list)              # person -> sorted (time, UTC minute of day, zone)
for cid, oid, a, c, at, ct, subj in db.execute("SELECT id, oid, author, committer, atime, ctime, subject FROM commits"):
    cinfo[oid] = (cid, a, ct); pfx_of[cid] = pfx(subj); subj_of[cid] = (subj or "").lower()
    by_author_time[a].append(at)
    az, cz = zone.get(oid, (None, None))
    acts[a].append((at, (at // 60) % 1440, az))
    if c != a: acts[c].append((ct, (ct // 60) % 1440, cz))
atime_of = dict(db.execute("SELECT id, atime FROM commits"))
for v in by_author_time.values(): v.sort()
for v in acts.values(): v.sort(key=lambda x: x[0])
def circ(a, b, m=1440):
    d = abs(a - b) % m
    return min(d, m - d)
ctime_of = {v[0]: v[2] for v in cinfo.values()}
author_of = {v[0]: v[1] for v in cinfo.values()}
engs = collections.defaultdict(set)        # cid -> engaged persons
peng = collections.defaultdict(list)       # person -> sorted ctimes of engagements
for person, ct, cid, fl in db.execute("SELECT person, ctime, cid, flags FROM engagement WHERE flags & 1 ORDER BY ctime"):
    engs[cid].add(person); peng[person].append(ct)
path_name = dict(db.execute("SELECT id, path FROM paths"))
import os.path
def kind_of(path):
    b = os.path.basename(path)
    return os.path.splitext(b)[1].lower() or b
def parent_of(path, up):
    d = os.path.dirname(path)
    for _ in range(up):
        d = os.path.dirname(d)
    return d
def top3(path):
    return "/".join(path.split("/")[:3][:max(1, len(path.split("/")) - 1)])
by_path = collections.defaultdict(list)    # path -> [(ctime, cid)]
files_of = collections.defaultdict(list)
for path, cid in db.execute("SELECT path, cid FROM touches"):
    files_of[cid].append(path)
    if cid in ctime_of: by_path[path].append((ctime_of[cid], cid))
for v in by_path.values(): v.sort()
by_key = {k: collections.defaultdict(set) for k in ("kind", "par1", "top3")}
for cid, paths in files_of.items():
    for pth in paths:
        nm = path_name.get(pth, "")
        by_key["kind"][kind_of(nm)].add(cid)
        by_key["par1"][parent_of(nm, 1)].add(cid)
        by_key["top3"][top3(nm)].add(cid)
by_key_sorted = {k: {kk: sorted((ctime_of[c], c) for c in vv if c in ctime_of) for kk, vv in d.items()} for k, d in by_key.items()}
adds = set(c for c, st in db.execute("SELECT cid, status FROM touches WHERE status = 'A'"))
by_adds = {True: sorted((ctime_of[c], c) for c in ctime_of if c in adds), False: sorted((ctime_of[c], c) for c in ctime_of if c not in adds)}
def keyed(kind, keys, per, t):
    cids = set()
    for kk in keys:
        cids.update(year_before(by_key_sorted[kind].get(kk, []), t))
    ne = sum(1 for c in cids if per in engs.get(c, ()))
    return math.log1p(ne), (ne + 0.0) / (len(cids) + 2.0)
by_pfx = collections.defaultdict(list)
for cid, pf in pfx_of.items():
    if pf: by_pfx[pf].append((ctime_of[cid], cid))
for v in by_pfx.values(): v.sort()
def words(text):
    return set(w.rstrip("0123456789_") for w in re.findall(r"[a-z_][a-z0-9_]*", (text or "").lower())
               if len(w.rstrip("0123456789_")) >= 3)
by_stok = collections.defaultdict(list)     # word -> sorted [(ctime, cid)]
by_ptok = collections.defaultdict(list)
ptoks_of = {}
for cid, sj in subj_of.items():
    for w in words(sj): by_stok[w].append((ctime_of[cid], cid))
for cid, paths in files_of.items():
    if cid not in ctime_of: continue
    ws = set()
    for pth in paths: ws |= words(path_name.get(pth, "").replace("/", " ").replace(".", " ").replace("-", " "))
    ptoks_of[cid] = ws
    for w in ws: by_ptok[w].append((ctime_of[cid], cid))
for d in (by_stok, by_ptok):
    for v in d.values(): v.sort()
def token_lift(index, ws, per, t, base_e, base_n):
    """Rarity-weighted mean and max of log(the person's smoothed share of
    the year's commits with each word / their share of all), and their
    engagements with commits sharing a rare word."""
    if not per or not ws or base_n == 0: return 0.0, 0.0, 0.0
    base = (base_e + 0.5) / (base_n + 1.0)
    tot = wsum = 0.0; best = None; rare = set()
    for w in ws:
        yr = year_before(index.get(w, []), t)
        if not yr: continue
        e = sum(1 for c in yr if per in engs.get(c, ()))
        lift = math.log((e + 3.0 * base) / (len(yr) + 3.0) / base)
        idf = math.log(base_n / len(yr) + 1.0)
        tot += idf * lift; wsum += idf
        best = lift if best is None else max(best, lift)
        if len(yr) <= 0.05 * base_n: rare.update(c for c in yr if per in engs.get(c, ()))
    return (tot / wsum if wsum else 0.0), (best or 0.0), math.log1p(len(rare))
by_author = collections.defaultdict(list)
for cid, a in author_of.items(): by_author[a].append((ctime_of[cid], cid))
for v in by_author.values(): v.sort()
allc = sorted(ctime_of.values())
email_of = {i: e for e, i in id_of.items()}
def dom(person):
    e = email_of.get(person) or ''
    return e.rsplit('@', 1)[1].lower() if '@' in e else None
by_dom = collections.defaultdict(list)
for cid, a in author_of.items():
    d = dom(a)
    if d: by_dom[d].append((ctime_of[cid], cid))
for v in by_dom.values(): v.sort()
D = 86400; Y = 365 * D

def lastk(person, files, t, k):
    seen = set(); hit = 0
    cands = []
    for f in files:
        v = by_path.get(f, [])
        i = bisect.bisect_left(v, (t, -1))
        cands.extend(v[max(0, i - k):i])
    cands.sort(reverse=True)
    n = 0
    for ct, cid in cands:
        if cid in seen: continue
        seen.add(cid); n += 1
        if person in engs.get(cid, ()): hit += 1
        if n >= k: break
    return hit, n

def year_before(v, t):
    """The commit ids of v (sorted (ctime, cid) pairs) in the year before t."""
    return [c for _, c in v[bisect.bisect_left(v, (t - Y, -1)):bisect.bisect_left(v, (t, -1))]]
def engagers(cids):
    """People engaged, summed over the commits cids, and how many commits."""
    return sum(len(engs.get(c, ())) for c in cids), len(cids)
allcid = sorted((ct, c) for c, ct in ctime_of.items())
mean_of_day = {}
def project_mean(t):
    """People engaged per commit of the project's year before t's day."""
    day = t // D
    if day not in mean_of_day:
        s, n = engagers(year_before(allcid, t))
        mean_of_day[day] = s / n if n else 1.0
    return mean_of_day[day]
def smoothed(s, n, m, k=3.0):
    """log(1 + the mean s / n), k commits of the project's mean m added."""
    return math.log1p((s + k * m) / (n + k))
rows = []
for p in pairs:
    if p["commit"] not in cinfo: continue
    cid, a, _ = cinfo[p["commit"]]
    t = p["time"]; per = pid(p["email"])
    files = files_of.get(cid, [])
    h5, n5 = lastk(per, files, t, 5) if per else (0, 0)
    h20, n20 = lastk(per, files, t, 20) if per else (0, 0)
    author_year = year_before(by_author.get(a, []), t)
    na = len(author_year); nwith = sum(1 for c in author_year if per in engs.get(c, ()))
    pe = peng.get(per, []); e30 = bisect.bisect_left(pe, t) - bisect.bisect_left(pe, t - 30 * D)
    e7 = bisect.bisect_left(pe, t) - bisect.bisect_left(pe, t - 7 * D)
    e90 = bisect.bisect_left(pe, t) - bisect.bisect_left(pe, t - 90 * D)
    proj90 = bisect.bisect_left(allc, t) - bisect.bisect_left(allc, t - 90 * D)
    last = pe[bisect.bisect_left(pe, t) - 1] if bisect.bisect_left(pe, t) else None
    idle = min(365.0, (t - last) / D) if last else 365.0
    pf = pfx_of.get(cid); np_ = ne_ = 0
    if pf and per:
        pfx_year = year_before(by_pfx[pf], t)
        np_ = len(pfx_year); ne_ = sum(1 for c in pfx_year if per in engs.get(c, ()))
    ad = dom(a)
    dom_year = year_before(by_dom[ad], t) if ad else []
    ed = sum(1 for c in dom_year if per and per in engs.get(c, ()))
    eo = sum(1 for c in dom_year if per and per in engs.get(c, ()) and author_of[c] != a)
    sd = 1.0 if (ad and per and per != a and dom(per) == ad) else 0.0
    pm = project_mean(t)
    aeng = smoothed(*engagers(author_year), pm)
    deng = smoothed(*engagers(dom_year), pm)
    recent = set()
    for f in files:
        v = by_path.get(f, []); i6 = bisect.bisect_left(v, (t, -1)); recent.update(v[max(0, i6 - 20):i6])
    feng = smoothed(*engagers([c for _, c in sorted(recent, reverse=True)[:20]]), pm)
    names = [path_name.get(x, "") for x in files]
    kn, kr = keyed("kind", set(kind_of(n) for n in names), per, t) if per else (0.0, 0.0)
    pn, pr_ = keyed("par1", set(parent_of(n, 1) for n in names), per, t) if per else (0.0, 0.0)
    tn, tr = keyed("top3", set(top3(n) for n in names), per, t) if per else (0.0, 0.0)
    ya = year_before(by_adds[cid in adds], t)
    nad = sum(1 for c in ya if per in engs.get(c, ())) if per else 0
    # when it was written, against when the person is active
    at = atime_of[cid]; mday = (at // 60) % 1440
    ya_ = acts.get(per, []); ya_ = ya_[bisect.bisect_left(ya_, (t - Y,)):bisect.bisect_left(ya_, (t,))]
    n2 = sum(1 for e in ya_ if circ(e[1], mday) <= 120); n4 = sum(1 for e in ya_ if circ(e[1], mday) <= 240)
    zones = collections.Counter(e[2] for e in ya_ if e[2] is not None)
    pz = zones.most_common(1)[0][0] if zones else None
    az_ = zone.get(p["commit"], (None, None))[0]
    tzd = circ(pz, az_) / 720.0 if pz is not None and az_ is not None else 0.5
    local = ((mday + (pz or 0)) % 1440) / 60.0
    va = by_author_time.get(a, [])
    nser = bisect.bisect_right(va, at + 3600) - bisect.bisect_left(va, at - 3600)
    sj = subj_of.get(cid, "")
    # the person and this author lately
    av = by_author.get(a, []); ai = bisect.bisect_left(av, (t, -1))
    def with_author_since(days):
        return sum(1 for _, c in av[bisect.bisect_left(av, (t - days * D, -1)):ai] if per and per in engs.get(c, ()))
    lastwith = next((ct for ct, c in reversed(av[:ai]) if per and per in engs.get(c, ())), None)
    al5 = av[max(0, ai - 5):ai]
    lastfile = None
    for f in files:
        v = by_path.get(f, []); fi = bisect.bisect_left(v, (t, -1))
        for ct, c in reversed(v[max(0, fi - 200):fi]):
            if per and per in engs.get(c, ()):
                lastfile = max(lastfile or 0, ct); break
    yall = year_before(allcid, t)
    base_e = sum(1 for c in yall if per and per in engs.get(c, ()))
    stokl, stokm, stokn = token_lift(by_stok, words(sj), per, t, base_e, len(yall))
    ptokl, ptokm, ptokn = token_lift(by_ptok, ptoks_of.get(cid, set()), per, t, base_e, len(yall))
    s = min(max(p["score"], 1e-9), 1 - 1e-9)
    rows.append(dict(stokl=stokl, stokm=stokm, stokn=stokn, ptokl=ptokl, ptokm=ptokm, ptokn=ptokn, h2=(n2 + 5 / 24) / (len(ya_) + 1.0), h4=(n4 + 9 / 24) / (len(ya_) + 1.0),
        work=1.0 if pz is not None and 8 <= local < 18 else 0.0,
        night=1.0 if pz is not None and (local >= 22 or local < 6) else 0.0,
        tzd=tzd, tzs=1.0 if tzd == 0 else 0.0, ser=math.log1p(nser), ser1=1.0 if nser <= 1 else 0.0,
        fix=1.0 if re.search(r"\bfix", sj) else 0.0,
        doc=1.0 if re.search(r"\b(doc|typo|comment|spelling)", sj) else 0.0,
        add=1.0 if re.search(r"\b(add|new|introduce|support)", sj) else 0.0,
        cleanup=1.0 if re.search(r"\b(clean|remove|drop|unused|refactor|simplif)", sj) else 0.0,
        a7=math.log1p(with_author_since(7)), a30=math.log1p(with_author_since(30)), a90=math.log1p(with_author_since(90)),
        aidle=math.log1p(min(365.0, (t - lastwith) / D) if lastwith else 365.0),
        alast5=sum(1 for _, c in al5 if per and per in engs.get(c, ())) / (len(al5) + 1.0),
        fidle=math.log1p(min(365.0, (t - lastfile) / D) if lastfile else 365.0),commit=p["commit"], wa=p["features"]["with_author"], t=t, person=p["email"], y=1 if p["engaged"] else 0, dem=p["demotable"],
        off=math.log(s / (1 - s)), thr=p["threshold"],
        last5=h5 / n5 if n5 else 0.0, last5n=math.log1p(h5), last20=h20 / n20 if n20 else 0.0,
        afrac=(nwith + 0.0) / (na + 2.0), anew=1.0 if na == 0 else 0.0, alog=math.log1p(na),
        e30=math.log1p(e30), rate90=e90 / max(1, proj90), idle=math.log1p(idle), e7=math.log1p(e7), pfxn=math.log1p(ne_), pfxr=(ne_ + 0.0) / (np_ + 2.0), pfx0=1.0 if (pf and np_ >= 3 and ne_ == 0) else 0.0,
        samedom=sd, domn=math.log1p(ed), domfrac=(ed + 0.0) / (len(dom_year) + 2.0), domo=math.log1p(eo), aeng=aeng, deng=deng, feng=feng,
        kindn=kn, kindr=kr, par1n=pn, par1r=pr_, top3n=tn, top3r=tr, addn=math.log1p(nad), addr=(nad + 0.0) / (len(ya) + 2.0)))
# Who else the case Cc'd: whether another of them is likelier to take it up.
by_case = collections.defaultdict(list)
for r in rows: by_case[r["commit"]].append(r)
for case in by_case.values():
    for r in case:
        others = [o for o in case if o is not r]
        best = max((o["off"] for o in others), default=None)
        r["rel"] = r["off"] - best if best is not None else 0.0
        r["relc"] = max(-3.0, min(3.0, r["rel"]))
        r["top"] = 1.0 if best is None or r["off"] >= best else 0.0
        r["nabove"] = math.log1p(sum(1 for o in others if o["off"] > r["off"]))
        r["washare"] = r["wa"] / (sum(o["wa"] for o in case) + 1.0)
        r["owa"] = math.log1p(max((o["wa"] for o in others), default=0.0))
        r["watop"] = 1.0 if r["wa"] > 0 and all(r["wa"] >= o["wa"] for o in others) else 0.0
        r["ncc"] = math.log1p(len(case))
rows.sort(key=lambda r: r["t"])
half = len(rows) // 2
train, test = rows[:half], rows[half:]

def fit(rs, names, iters=30, ridge=1.0):
    X = np.array([[1.0] + [r[n] for n in names] for r in rs if r["dem"]])
    y = np.array([r["y"] for r in rs if r["dem"]], float)
    off = np.array([r["off"] for r in rs if r["dem"]])
    w = np.zeros(X.shape[1])
    for _ in range(iters):
        z = off + X @ w; pr = 1 / (1 + np.exp(-z))
        g = X.T @ (y - pr) - ridge * w
        H = (X * (pr * (1 - pr))[:, None]).T @ X + ridge * np.eye(len(w))
        w += np.linalg.solve(H, g)
    return w

def score(rs, names, w):
    return [r["off"] + w[0] + sum(wi * r[n] for wi, n in zip(w[1:], names)) for r in rs]

def auc(ys, ss):
    pos = [s for y, s in zip(ys, ss) if y]; negs = sorted(s for y, s in zip(ys, ss) if not y)
    if not pos or not negs: return None
    tot = 0.0
    for s in pos:
        lo = bisect.bisect_left(negs, s); hi = bisect.bisect_right(negs, s)
        tot += lo + 0.5 * (hi - lo)
    return tot / (len(pos) * len(negs))

def within(rs, ss):
    by = collections.defaultdict(list)
    for r, s in zip(rs, ss): by[r["person"]].append((r["y"], s))
    num = den = 0.0
    for v in by.values():
        pos = sum(1 for y, _ in v if y); neg = len(v) - pos
        if pos and neg:
            num += auc([y for y, _ in v], [s for _, s in v]) * pos * neg; den += pos * neg
    return num / den if den else 0

def op(rs, ss, demote=0.05):
    eng_total = sum(r["y"] for r in rs)
    es = sorted(s for r, s in zip(rs, ss) if r["y"] and r["dem"])
    k = int(demote * eng_total)
    thr = es[k] if k < len(es) else float("inf")
    noise = sum(1 for r in rs if not r["y"])
    return sum(1 for r, s in zip(rs, ss) if not r["y"] and r["dem"] and s < thr) / max(1, noise)

cands = [[], ["aeng"], ["deng"], ["feng"], ["aeng", "feng"], ["aeng", "deng", "feng"], ["samedom"], ["domn"], ["domfrac"], ["domo"], ["samedom", "domfrac"], ["samedom", "domo"], ["e7"], ["e7", "idle"], ["e7", "alog", "anew"], ["alog", "anew", "pfxr"], ["pfxn"], ["pfxr"], ["pfx0"], ["pfxn", "pfxr"], ["last5"], ["last5n"], ["last20"], ["afrac"], ["anew"], ["alog"], ["e30"], ["rate90"], ["idle"],
         ["last5", "afrac"], ["last5", "afrac", "e30"], ["last20", "afrac", "rate90"],
         ["rel"], ["relc"], ["top"], ["nabove"], ["washare"], ["owa"], ["watop"], ["relc", "top"],
         ["washare", "owa"], ["relc", "washare", "owa"], ["ncc"],
         ["kindn"], ["kindr"], ["kindn", "kindr"], ["par1n"], ["par1r"], ["top3n"], ["top3r"], ["addn"], ["addr"],
         ["kindr", "par1r"], ["kindr", "addr"],
         ["h2"], ["h4"], ["work"], ["night"], ["work", "night"], ["ser"], ["ser1"],
         ["fix"], ["doc"], ["add"], ["cleanup"], ["fix", "doc", "add", "cleanup"],
         ["a7"], ["a30"], ["a90"], ["aidle"], ["alast5"], ["fidle"], ["a7", "a30"], ["aidle", "alast5"], ["aidle", "fidle"]]
cands += [["stokl"], ["stokm"], ["stokn"], ["stokl", "stokm"], ["ptokl"], ["ptokm"], ["ptokn"], ["ptokl", "ptokm"],
          ["stokl", "ptokl"], ["stokl", "stokn"], ["stokl", "ptokl", "stokn", "ptokn"]]
if os.environ.get("ONLY"):                  # ONLY=stokl,ptokl: the rows with these
    cands = [[]] + [c for c in cands if any(n in c for n in os.environ["ONLY"].split(","))]
if zone:
    cands += [["tzd"], ["tzs"], ["h4", "tzs"]]
for names in cands:
    w = fit(train, names)
    ss = score(test, names, w)
    ys = [r["y"] for r in test]
    print("%-24s w=%-34s auc %.3f within %.3f noise@5%% %.1f%% @3.5%% %.1f%%" % (
        "+".join(names) or "offset", " ".join("%.2f" % x for x in w), auc(ys, ss), within(test, ss),
        100 * op(test, ss), 100 * op(test, ss, 0.035)))
