"""Census synthesis with the hierarchy's top at the all-classes context (the default) or at the class level.

``alpha="hierarchical"`` centres each context's Dirichlet on its parent context up to the
all-classes context (:func:`bayesnb.structure.hierarchical.hierarchical_prior`, ``root="all"``).
This script fits the census ``Synthesizer`` (``latent=None``: the structure the default chooses
there, k-DB) at seeds 0 and 1 with that hierarchy, or with ``root="class"`` patched in, and prints
the synthetic-data report's shape, trend, gradient-boosting C2ST and efficacy AUC, on the split of
``bench_synthesis.py`` (docs/synthetic.md, "Census after the all-classes hierarchy ...")::

    .venv/bin/python benchmarks/census_root_check.py adult.data all
    .venv/bin/python benchmarks/census_root_check.py adult.data class
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_synthesis  # noqa: E402

import bayesnb.families._categorical_encoding as enc  # noqa: E402
from bayesnb import Synthesizer, synthetic_report  # noqa: E402
from bayesnb.structure import hierarchical  # noqa: E402

KEYS = ("column_shapes", "column_pair_trends", "detection_gbm", "efficacy_auc")


def main(argv=None):
    """Print one line per seed: the top level, the seed, the structure chosen, the scores and the seconds."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[1] not in ("all", "class"):
        sys.exit("usage: census_root_check.py ADULT_DATA all|class")
    data, top = argv
    train, test, _ = bench_synthesis.census_tables(data, None, 0, False)
    if top == "class":
        original = hierarchical.hierarchical_prior
        enc.hierarchical_prior = lambda counts, alpha_root=1.0, root="class": original(counts, alpha_root, root="class")
    for seed in (0, 1):
        start = time.time()
        synth = Synthesizer(target="income", latent=None, random_state=seed).fit(train)
        rows = synth.sample(len(train), random_state=seed)
        summary = synthetic_report(train, rows, target="income", real_test=test, max_rows=5000,
                                   random_state=seed).summary
        scores = {k: round(float(summary[k]), 4) for k in KEYS}
        print(top, seed, synth.chosen_, scores, f"{time.time() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main()
