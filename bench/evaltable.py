#!/usr/bin/env python3
"""Print bench/eval.sh's table: retrieval per set and category, the block,
and DESIGN's quality targets.

Usage: evaltable.py [--budget N] OUT NAME=DATA_DIR [NAME=DATA_DIR ...]

OUT/NAME holds what eval.sh wrote for a set: score.json (score.py --json
for cairn, okapi and fts5-porter), and block.json and foreign.json
(context_quality.py's lines) when the block was measured. DATA_DIR is the
set's folder, read for the names of its categories.
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True

SYSTEMS = ["cairn", "okapi", "fts5-porter"]
METRICS = ["hit@1", "MRR@10", "R@10"]

# DESIGN's quality budgets. On every set: hit@1 and MRR@10 at least the
# better plain baseline + MARGIN, R@10 above both baselines. Per set:
# least values of cairn's own figures, and the block's.
MARGIN = 0.05
FLOORS = {"locomo": {"hit@1": 0.42, "MRR@10": 0.54, "R@10": 0.78}}
BLOCK = {"locomo": 0.75, "beam": 0.55}
FALSE_FIRE = 0.10


def category_names(data):
    names = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop",
             5: "adversarial"}
    path = os.path.join(data, "queries.jsonl")
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                q = json.loads(line)
                if q.get("category_name"):
                    names[int(q["category"])] = q["category_name"]
    return names


def read_json_line(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        text = f.read().strip()
    return json.loads(text.splitlines()[-1]) if text else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=int, default=600)
    ap.add_argument("out")
    ap.add_argument("sets", nargs="+")
    a = ap.parse_args()

    rows, blocks, targets = [], [], []
    for spec in a.sets:
        name, _, data = spec.partition("=")
        score = json.load(open(os.path.join(a.out, name, "score.json"), encoding="utf-8"))
        groups = {s: score[s]["groups"] for s in SYSTEMS}
        names = category_names(data)
        # overall first, then the categories in order of their number
        order = sorted(groups["cairn"], key=lambda g: (g != "overall", 0 if g == "overall" else int(g.split()[0])))
        for g in order:
            if g == "overall":
                label = "overall"
            else:
                num = int(g.split()[0])
                label = "%d %s" % (num, names.get(num, "?"))
                if num == 5 and "adversarial" in g:
                    label += " *"
            vals = [groups[s].get(g, {}) for s in SYSTEMS]
            rows.append((name, label, vals[0].get("n", 0),
                         [[v.get(m, 0.0) for v in vals] for m in METRICS]))
        ov = {s: groups[s]["overall"] for s in SYSTEMS}
        best = {m: max(ov["okapi"][m], ov["fts5-porter"][m]) for m in METRICS}
        for m in ("hit@1", "MRR@10"):
            targets.append(("%s %s ≥ better baseline + %.2f" % (name, m, MARGIN),
                            ov["cairn"][m], best[m] + MARGIN, ov["cairn"][m] >= best[m] + MARGIN - 1e-9))
        targets.append(("%s R@10 > both baselines" % name, ov["cairn"]["R@10"], best["R@10"],
                        ov["cairn"]["R@10"] > best["R@10"]))
        for m, least in FLOORS.get(name, {}).items():
            targets.append(("%s %s ≥ %.2f" % (name, m, least), ov["cairn"][m], least,
                            ov["cairn"][m] >= least - 1e-9))
        own = read_json_line(os.path.join(a.out, name, "block.json"))
        foreign = read_json_line(os.path.join(a.out, name, "foreign.json"))
        if own and foreign:
            blocks.append((name, own, foreign))
            if name in BLOCK:
                targets.append(("%s answer-in-block ≥ %.2f" % (name, BLOCK[name]),
                                own["answer_in_block"], BLOCK[name],
                                own["answer_in_block"] >= BLOCK[name] - 1e-9))
            targets.append(("%s false-fire ≤ %.2f" % (name, FALSE_FIRE), foreign["false_fire"],
                            FALSE_FIRE, foreign["false_fire"] <= FALSE_FIRE + 1e-9))

    short = {"cairn": "cairn", "okapi": "okapi", "fts5-porter": "porter"}
    lw = max([len("group")] + [len(r[1]) for r in rows])
    sw = max([len("set")] + [len(r[0]) for r in rows])
    head1 = "%-*s  %-*s  %4s" % (sw, "", lw, "", "") + "".join(
        "  %-20s" % m for m in METRICS)
    head2 = "%-*s  %-*s  %4s" % (sw, "set", lw, "group", "n") + "".join(
        "  " + " ".join("%6s" % short[s] for s in SYSTEMS) for _ in METRICS)
    print("# retrieval, dev split: cairn beside Okapi BM25 and SQLite FTS5-porter")
    print(head1)
    print(head2)
    print("-" * len(head2))
    last = None
    for name, label, n, vals in rows:
        print("%-*s  %-*s  %4d" % (sw, name if name != last else "", lw, label, n) + "".join(
            "  " + " ".join("%6.3f" % x for x in v) for v in vals))
        last = name
    if any(r[1].endswith(" *") for r in rows):
        print("* category 5 (adversarial) is reported alone and left out of 'overall'.")
    if blocks:
        print()
        print("# the context block, %d tokens (context_quality.py)" % a.budget)
        print("%-*s  %4s  %15s  %10s  %13s  %12s" % (sw, "set", "n", "answer-in-block", "false-fire",
                                                   "tokens median", "items median"))
        for name, own, foreign in blocks:
            print("%-*s  %4d  %15.3f  %10.3f  %13g  %12g" % (
                sw, name, own["n"], own["answer_in_block"], foreign["false_fire"],
                own["tokens_median"], own["items_median"]))
    print()
    met = sum(1 for t in targets if t[3])
    print("# targets: %d of %d met" % (met, len(targets)))
    tw = max(len(t[0]) for t in targets)
    for label, got, bound, ok in targets:
        print("%-*s  %6.3f  (%6.3f)  %s" % (tw, label, got, bound, "met" if ok else "MISSED"))


if __name__ == "__main__":
    main()
