#!/usr/bin/python3
"""Offline check: does the shipped model miss interactions of its own features?

usage: try-interactions.py EVAL.json

The pairs of a `ccsift eval --json` run, ordered by time; on the older half
a correction of the shipped logit (the pair's score, an offset) is fitted
by ridge-regularised logistic regression over the pair's features (log(1 +
x), standardised): mode 0 none (the shipped model), 1 the features again,
2 also every product of two, 3 also their squares. The newer half reports
the AUC, the AUC within person and the noise demoted when one threshold
keeps 95% of the engaged, as try-features.py does.
"""
import json, sys, math, itertools, collections, bisect
import numpy as np
ev = json.load(open(sys.argv[1])); pairs = [p for p in ev["pairs"]]
pairs.sort(key=lambda p: p["time"])
names = sorted(pairs[0]["features"].keys())
def row(p):
    f = p["features"]; x = [math.log1p(max(0.0, f[n])) if n not in ("share",) else f[n] for n in names]
    return x
X = np.array([row(p) for p in pairs]); y = np.array([1.0 if p["engaged"] else 0.0 for p in pairs])
dem = np.array([p["demotable"] for p in pairs])
s = np.clip(np.array([p["score"] for p in pairs]), 1e-9, 1 - 1e-9); off = np.log(s / (1 - s))
mu = X.mean(0); sd = X.std(0) + 1e-9; Z = (X - mu) / sd
def expand(Z, mode):
    cols = [np.ones(len(Z))]
    if mode >= 1: cols += [Z[:, i] for i in range(Z.shape[1])]
    if mode >= 2: cols += [Z[:, i] * Z[:, j] for i, j in itertools.combinations(range(Z.shape[1]), 2)]
    if mode >= 3: cols += [Z[:, i] ** 2 for i in range(Z.shape[1])]
    return np.stack(cols, 1)
def fit(F, y, off, ridge):
    w = np.zeros(F.shape[1])
    for _ in range(40):
        z = off + F @ w; pr = 1 / (1 + np.exp(-z))
        g = F.T @ (y - pr) - ridge * w
        H = (F * (pr * (1 - pr))[:, None]).T @ F + ridge * np.eye(len(w))
        w += np.linalg.solve(H, g)
    return w
def auc(y, sc):
    pos = sc[y == 1]; neg = np.sort(sc[y == 0])
    if len(pos) == 0 or len(neg) == 0: return float('nan')
    lo = np.searchsorted(neg, pos, 'left'); hi = np.searchsorted(neg, pos, 'right')
    return (lo + 0.5 * (hi - lo)).sum() / (len(pos) * len(neg))
def within(ps, y, sc):
    by = collections.defaultdict(list)
    for p, yy, ss in zip(ps, y, sc): by[p["email"]].append((yy, ss))
    num = den = 0
    for v in by.values():
        yy = np.array([a for a, _ in v]); ss = np.array([b for _, b in v])
        P = yy.sum(); N = len(yy) - P
        if P and N: num += auc(yy, ss) * P * N; den += P * N
    return num / den
def op(y, dem, sc, d=0.05):
    es = np.sort(sc[(y == 1) & dem]); k = int(d * y.sum())
    thr = es[k] if k < len(es) else np.inf
    return ((y == 0) & dem & (sc < thr)).sum() / max(1, (y == 0).sum())
half = len(pairs) // 2
tr = slice(0, half); te = slice(half, None)
for mode in (0, 1, 2, 3):
    for ridge in (1.0, 10.0, 100.0):
        F = expand(Z, mode)
        w = fit(F[tr][dem[tr]], y[tr][dem[tr]], off[tr][dem[tr]], ridge)
        sc = off[te] + F[te] @ w
        print("mode %d ridge %5.0f auc %.3f within %.3f noise@5%% %.1f%%" % (mode, ridge, auc(y[te], sc), within(pairs[half:], y[te], sc), 100 * op(y[te], dem[te], sc)))
        if mode == 0: break
