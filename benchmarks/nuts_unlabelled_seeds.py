"""NUTS with unlabelled rows against the exact mixture posterior, over several seeds.

The tiny TAN table of ``tests/test_structure_mcmc_unlabelled.py`` (11 labelled and 5 unlabelled
rows, two binary columns; 400 warmup draws): for each seed, :func:`bayesnb.compare_posteriors`'s
verdict and the three largest |z|. The verdict's family-wise level is 5%, so about one seed in
twenty false-alarms; the test uses one seed and names the rate measured here::

    python benchmarks/nuts_unlabelled_seeds.py [--first 0] [--seeds 18] [--draws 1500]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--seeds", type=int, default=18)
    ap.add_argument("--draws", type=int, default=1500)
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
    import numpy as np

    import bayesnb
    from test_structure_mcmc_unlabelled import _exact_moments, _table

    warnings.simplefilter("ignore")
    X, ys = _table()
    lab = np.array([v is not None for v in ys])
    m = bayesnb.CategoricalNB(structure="tan").fit(X[lab], ys[lab].astype(int))
    names = ["x0", "x1"]
    parents = [tuple(names.index(p) for p in m.structure_[nm]) for nm in names]
    exact = _exact_moments(X, ys, parents)
    alarms = 0
    for seed in range(args.first, args.first + args.seeds):
        mcmc = m.run_mcmc(X, ys, num_warmup=400, num_samples=args.draws, random_state=seed)
        t = bayesnb.compare_posteriors(exact, mcmc, verbose=False, rhat_threshold=1.1)
        alarms += not t.attrs["ok"]
        top = t.reindex(t["z"].abs().sort_values().index[-3:])
        print(f"seed {seed}: {'AGREE' if t.attrs['ok'] else 'DISAGREE'}; largest |z| "
              + ", ".join(f"{e} {z:+.2f}" for e, z in zip(top["element"], top["z"])), flush=True)
    print(f"{alarms} of {args.seeds} seeds DISAGREE at {args.draws} draws")


if __name__ == "__main__":
    main()
