"""Mean ± sd over seeds of bench_mnar.py's per-seed lines, for a run cut before it printed its table.

Run:  python benchmarks/bench_mnar_log.py LOG      (LOG: bench_mnar.py's standard output)
"""

import re
import sys

import numpy as np

rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s+(.+?) \| (self [^|]+?) \| seed (\d+) \| C=\S+ \| (.*)", line)
    if not m:
        continue
    table, kind, _, rest = m.groups()
    for part in rest.split("; "):
        name, val = part.rsplit(" ", 1)
        rows.setdefault(table, {}).setdefault((name, kind), []).append(float(val))
for table, by in rows.items():
    kinds = list(dict.fromkeys(k for _, k in by))
    first = next(iter(by))[0]
    print(f"\n### {table}\n")
    print("| method | " + " | ".join(f"{k} ({len(by[(first, k)])} seeds)" for k in kinds) + " |")
    print("|---" * (len(kinds) + 1) + "|")
    for name in dict.fromkeys(n for n, _ in by):
        print(f"| {name} | " + " | ".join(f"{np.mean(by[(name, k)]):.3f} ± {np.std(by[(name, k)]):.3f}"
                                          for k in kinds) + " |")
