"""Diagnostic: MAR against self-masking MNAR, both fitted by the same EM, compared by BIC.

For each table, mask (``bench_impute.py``'s MCAR 30%, MAR, MNAR; its ``mask`` and ``blank``) and
seed, ``bayesnb.impute.mnar_evidence.mnar_evidence`` fits two selection models by ``fit_selection`` on the same
naive model, the same columns and the same variables (every value and every missingness indicator):

- MAR: each missingness node has one probability for all the bins (values) of its column
  (``tied=True``): the missingness does not depend on the value;
- MNAR: one probability per bin (value), shared by the classes (``impute_mnar``'s default).

Both start from the same MAR posterior and run to convergence (``tol=1e-6``). Printed: the
log-likelihood ``log p(x_obs, m | y, theta)`` at each fit's parameters (each fit's EM objective less
its log prior), the EM objectives (log posterior up to one constant), the difference ``dll`` of the
log-likelihoods, ``k`` (the extra selection parameters, ``sum_j (B_j - 1)``), the BIC penalty
``k/2 log n``, the choice (MNAR when ``dll`` exceeds it), and the hidden cells' accuracy
(categorical) and NRMSE (numeric) of each model's fill (``strategy="mean"``).

Usage: ``python benchmarks/probe_mnar_bic.py [--seeds 3]`` (about 30 s).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_impute as BI  # noqa: E402
from probe_mnar_evidence import MASKS, hidden_scores, tables  # noqa: E402

from bayesnb.impute.mnar_evidence import evidence_fits  # noqa: E402
from bayesnb.impute.selfmasking import _complete  # noqa: E402


def compare(Xm, y, seed):
    """``mnar_evidence``'s result and each fit's completed table (``strategy="mean"``)."""
    ev, encoded, _ = evidence_fits(Xm, y)
    rng = np.random.default_rng(seed)
    return ev, {name: _complete(Xm, fit, encoded, None, "mean", rng, 0.0, "value", "probe")
                for name, fit in ev.fits.items() if name in ("MAR", "MNAR")}  # the two this probe scores


def main(argv=None):
    """Print one line per table, mask and seed, then the count of right choices."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print("table | mask | seed | loglik MAR | loglik MNAR | dll | obj MAR | obj MNAR | dobj | k | k/2 log n | "
          "choice | MAR fill acc / NRMSE | MNAR fill acc / NRMSE | chosen fill acc / NRMSE | iters MAR/MNAR | s")
    right = {}
    for name, (X, y) in tables().items():
        for kind in MASKS:
            for seed in range(args.seeds):
                t = time.perf_counter()
                M = BI.mask(X, kind, np.random.default_rng(seed))
                ev, filled = compare(BI.blank(X, M), y, seed)
                (o0, c0, i0), (o1, c1, i1) = ((f.em_objective[-1], f.converged, len(f.em_objective))
                                              for f in (ev.fits["MAR"], ev.fits["MNAR"]))
                l0, l1, k, pen, choice, t0, t1 = (ev.loglik_mar, ev.loglik_mnar, ev.k, ev.penalty, ev.choice,
                                                  filled["MAR"], filled["MNAR"])
                ok = choice == ("MNAR" if kind == "MNAR" else "MAR")
                s0, s1 = hidden_scores(X, M, t0), hidden_scores(X, M, t1)
                sc = s1 if choice == "MNAR" else s0
                right.setdefault((name, kind), []).append((ok, *s0, *sc))
                conv = "" if c0 and c1 else " (not converged)"
                print(f"{name} | {kind} | {seed} | {l0:.1f} | {l1:.1f} | {l1 - l0:.1f} | {o0:.1f} | {o1:.1f} | "
                      f"{o1 - o0:.1f} | {k} | {pen:.1f} | {choice} | {s0[0]:.3f} / {s0[1]:.3f} | "
                      f"{s1[0]:.3f} / {s1[1]:.3f} | {sc[0]:.3f} / {sc[1]:.3f} | {i0}/{i1}{conv} | "
                      f"{time.perf_counter() - t:.1f}", flush=True)
    print("\ntable | mask | right choices (MNAR under the MNAR mask, MAR under MCAR and MAR) | "
          "mean MAR fill acc / NRMSE | mean chosen fill acc / NRMSE")
    for (name, kind), rows in right.items():
        r = np.array(rows, dtype=float)
        m = np.mean(r, axis=0)
        print(f"{name} | {kind} | {int(r[:, 0].sum())}/{len(r)} | {m[1]:.3f} / {m[2]:.3f} | {m[3]:.3f} / {m[4]:.3f}")


if __name__ == "__main__":
    main()
