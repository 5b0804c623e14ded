#!/usr/bin/python3
"""Offline check: would each busy person's own weights rank their mail better?

usage: try-person-weights.py EVAL.json...

The pairs of a `ccsift eval --json` (the decided ones) are split in time; for
every person with at least 60 pairs and 10 engagements in the older half, a
logistic correction on top of the shipped model's logit (the pair's score, an
offset) is fitted on that person's older pairs alone, over the same features
(log1p, standardised, ridge LAMBDA in 10, 30, 100), and the newer half reports
the person's AUC with the shipped score and with the corrected one. A lead
would be a correction that ranks the busy maintainers' mail better on every
tuning window.
"""
import json, math, sys, collections
import numpy as np


def logit(p):
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def auc(pos, neg):
    if not pos or not neg:
        return float("nan")
    s = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg)
    return s / len(pos) / len(neg)


def fit(X, y, offset, lam):
    w = np.zeros(X.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-(offset + X @ w)))
        H = X.T @ (X * (p * (1 - p))[:, None]) + lam * np.eye(len(w))
        w += np.linalg.solve(H, X.T @ (y - p) - lam * w)
    return w


for path in sys.argv[1:]:
    pairs = sorted((p for p in json.load(open(path))["pairs"] if p["demotable"]), key=lambda p: p["time"])
    names = list(pairs[0]["features"])
    old, new = pairs[: len(pairs) // 2], pairs[len(pairs) // 2:]
    by_person = collections.defaultdict(list)
    for p in old:
        by_person[p["email"]].append(p)
    feats = lambda ps: np.array([[math.log1p(max(p["features"][k], 0)) for k in names] for p in ps])
    for lam in (10.0, 30.0, 100.0):
        print(f"{path} ridge {lam:g}")
        for who, mine in by_person.items():
            later = [p for p in new if p["email"] == who]
            if len(mine) < 60 or sum(p["engaged"] for p in mine) < 10:
                continue
            if not any(p["engaged"] for p in later) or all(p["engaged"] for p in later):
                continue
            X = feats(mine)
            mu, sd = X.mean(0), X.std(0) + 1e-9
            w = fit((X - mu) / sd, np.array([p["engaged"] for p in mine], float),
                    np.array([logit(p["score"]) for p in mine]), lam)
            shipped = np.array([logit(p["score"]) for p in later])
            own = shipped + ((feats(later) - mu) / sd) @ w
            eng = [p["engaged"] for p in later]
            split = lambda z: ([z[i] for i in range(len(z)) if eng[i]], [z[i] for i in range(len(z)) if not eng[i]])
            print(f"  {who[:30]:30s} pairs {len(mine):4d} / {len(later):4d}  AUC shipped {auc(*split(shipped)):.3f}"
                  f"  own weights {auc(*split(own)):.3f}")
