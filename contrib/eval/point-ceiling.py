#!/usr/bin/python3
"""point-ceiling.py EVAL.json...: what no choice of operating point can beat.

For each `ccsift eval --json` run, on its demotable pairs: the noise demoted
as shipped (each addressee at their own point), and two oracles that choose
their points on the very pairs they are scored on, which nothing shipped can
do:

  one threshold   the single score threshold demoting the most noise while
                  at most 5% of all the engaged pairs are demoted;
  per person      each addressee's own threshold demoting the most of their
                  noise while at most 5% (rounded down) of their engaged
                  pairs are demoted, as issue 10 asks of a person's point.

If an oracle stays under a target, no rule for choosing points reaches it
with these scores: only a model that ranks better can.
"""
import collections
import json
import math
import sys


def best_cut(pairs, allowed):
    """Noise and engaged below the best threshold with at most `allowed`
    engaged below it (every pair below the threshold is demoted)."""
    best = (0, 0)
    engaged = noise = 0
    ranked = sorted(pairs, key=lambda p: p['score'])
    for i, p in enumerate(ranked):
        engaged += p['engaged']
        noise += not p['engaged']
        # a threshold can only fall between two different scores
        if i + 1 < len(ranked) and ranked[i + 1]['score'] == p['score']:
            continue
        if engaged <= allowed and noise > best[0]:
            best = (noise, engaged)
    return best


def main():
    for path in sys.argv[1:]:
        run = json.load(open(path))
        pairs = [p for p in run['pairs'] if p.get('demotable', True)]
        engaged = sum(p['engaged'] for p in pairs)
        noise = len(pairs) - engaged
        if not engaged or not noise:
            print(f'{path}: no engaged or no noise pairs')
            continue
        shipped_e = sum(1 for p in pairs if p['engaged'] and p['score'] < p['threshold'])
        shipped_n = sum(1 for p in pairs if not p['engaged'] and p['score'] < p['threshold'])
        one_n, _ = best_cut(pairs, 0.05 * engaged)
        by_person = collections.defaultdict(list)
        for p in pairs:
            by_person[p['email']].append(p)
        each_n = each_e = 0
        for own in by_person.values():
            n, e = best_cut(own, math.floor(0.05 * sum(p['engaged'] for p in own)))
            each_n += n
            each_e += e
        print(f'{path}: {engaged} engaged, {noise} noise pairs; shipped {100 * shipped_e / engaged:.1f}% / '
              f'{100 * shipped_n / noise:.1f}%; oracle, one threshold: {100 * one_n / noise:.1f}% of the noise; '
              f'oracle, each person at most 5% of theirs: {100 * each_n / noise:.1f}% '
              f'(engaged {100 * each_e / engaged:.1f}%)')


if __name__ == '__main__':
    main()
