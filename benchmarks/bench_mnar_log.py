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
    table, kind, seed, rest = m.groups()
    for part in rest.split("; "):
        name, val = part.rsplit(" ", 1)
        rows.setdefault((name, kind), []).append(float(val))
kinds = list(dict.fromkeys(k for _, k in rows))
first = next(iter(rows))[0]
print("| method | " + " | ".join(f"{k} ({len(rows[(first, k)])} seeds)" for k in kinds) + " |")
for name in dict.fromkeys(n for n, _ in rows):
    print(f"| {name} | " + " | ".join(f"{np.mean(rows[(name, k)]):.3f} ± {np.std(rows[(name, k)]):.3f}" for k in kinds) + " |")
