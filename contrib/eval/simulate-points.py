#!/usr/bin/env python3
"""Replay operating-point rules offline, from what `ccsift eval` kept.

    simulate-points.py INDEX.db EVAL.json [--P 60] [--demote 0.045]
                       [--max-raise 2] [--prior-pairs 10]

EVAL.json is `ccsift eval --json` run on INDEX.db: each pair has its score,
its person (email), the until of the fit that decided it and whether it
engaged. The fits and their replayed pairs are in the index (`fits`,
`fit_pairs`). That is all a rule for a person's operating point needs, so
rules can be compared in seconds instead of by replaying history again.

It first recomputes every pair's threshold with the rule as shipped
(core/model.c, ccsift_model_person_threshold) and says how many differ
from the eval's (none should), then prints engaged and noise demoted for
the rule with the given settings. Used to choose the shipped settings on
the tuning window (contrib/eval/RESULTS.md); never on U-Boot or DPDK.
"""
import argparse, collections, json, math, sqlite3

SPLIT = 0.7   # CCSIFT_TRAINING_SPLIT


def logit(p):
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


def load(db_path, eval_path):
    db = sqlite3.connect(db_path)
    db.text_factory = lambda b: b.decode("utf-8", "replace")   # old commits' broken names
    ids = dict(db.execute("SELECT email, id FROM people"))
    fits = {}
    for until, text in db.execute("SELECT until, model FROM fits"):
        thr = next(float(l.split()[1]) for l in text.splitlines() if l.startswith("threshold "))
        rows = db.execute("SELECT person, logit, engaged, demotable FROM fit_pairs"
                          " WHERE until = ? ORDER BY rowid", (until,)).fetchall()
        by_person = collections.defaultdict(list)
        for p, l, e, d in rows:
            by_person[p].append((l, e, d))
        newer = rows[int(len(rows) * SPLIT):]
        ref = sorted(l for p, l, e, d in newer if e and d)
        fits[until] = dict(threshold=thr, pairs=by_person, ref=ref,
                           ref_engaged=sum(1 for p, l, e, d in newer if e))
    pairs = []
    for p in json.load(open(eval_path))["pairs"]:
        pairs.append(dict(person=ids.get(p["email"]), logit=logit(p["score"]), engaged=p["engaged"],
                          demotable=p["demotable"], until=p["model_until"],
                          threshold=logit(p["threshold"]) if p["threshold"] > 0 else None))
    return fits, pairs


def person_point(fit, own, P, demote, max_raise, prior_pairs):
    """ccsift_model_person_threshold, in Python."""
    repo = fit["threshold"]
    if not own:
        return repo
    engaged_total = sum(1 for l, e, d in own if e)
    if not engaged_total:
        weight = len(own) / 10.0
        return (weight * (repo + max_raise) + prior_pairs * repo) / (weight + prior_pairs)
    items = [(l, 1.0) for l, e, d in own if e and d]
    if fit["ref"]:
        items += [(l, P / max(fit["ref_engaged"], 1)) for l in fit["ref"]]
    else:
        items.append((repo, P))
    items.sort()
    allowed, seen, point = demote * (engaged_total + P), 0.0, items[-1][0] + 1.0
    for l, w in items:
        if seen + w > allowed + 1e-9:
            point = l
            break
        seen += w
    return min(point, repo + max_raise)


def rates(fits, pairs, **rule):
    ed = en = nd = nn = 0
    for p in pairs:
        fit = fits.get(p["until"])
        if fit is None or p["person"] is None:
            thr = p["threshold"] if p["threshold"] is not None else -math.inf
        else:
            thr = person_point(fit, fit["pairs"].get(p["person"], []), **rule)
        demoted = p["demotable"] and p["logit"] < thr
        if p["engaged"]:
            en, ed = en + 1, ed + demoted
        else:
            nn, nd = nn + 1, nd + demoted
    return ed / max(en, 1), nd / max(nn, 1), en, nn


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("index")
    ap.add_argument("eval_json")
    ap.add_argument("--P", type=float, default=60.0)
    ap.add_argument("--demote", type=float, default=0.045)
    ap.add_argument("--max-raise", type=float, default=2.0)
    ap.add_argument("--prior-pairs", type=float, default=10.0)
    a = ap.parse_args()
    fits, pairs = load(a.index, a.eval_json)
    shipped = dict(P=60.0, demote=0.045, max_raise=2.0, prior_pairs=10.0)
    differ = sum(1 for p in pairs if p["person"] is not None and p["until"] in fits and p["threshold"] is not None
                 and abs(person_point(fits[p["until"]], fits[p["until"]]["pairs"].get(p["person"], []), **shipped)
                         - p["threshold"]) > 1e-6)
    print(f"pairs {len(pairs)}; thresholds that differ from the eval's under the shipped rule: {differ}")
    ed, nd, en, nn = rates(fits, pairs, P=a.P, demote=a.demote, max_raise=a.max_raise, prior_pairs=a.prior_pairs)
    print(f"P={a.P:g} demote={a.demote:g} max-raise={a.max_raise:g} prior-pairs={a.prior_pairs:g}: "
          f"engaged demoted {100 * ed:.1f}% of {en}, noise demoted {100 * nd:.1f}% of {nn}")


if __name__ == "__main__":
    main()
