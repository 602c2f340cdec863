"""Diagnostic: MAR against self-masking MNAR, both fitted by the same EM, compared by BIC.

For each table, mask (``bench_impute.py``'s MCAR 30%, MAR, MNAR; its ``mask`` and ``blank``) and
seed, fits two selection models by ``fit_selection`` (through ``impute_mnar``'s ``_fit``) on the same
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
from scipy.special import logsumexp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_impute as BI  # noqa: E402
from probe_mnar_evidence import MASKS, hidden_scores, tables  # noqa: E402

from bayesnb.generative.mnar import state_posterior_mnar  # noqa: E402
from bayesnb.impute.selfmasking import _complete, _fit  # noqa: E402
from bayesnb.inference.em import allowed_states  # noqa: E402


def loglik(fit, encoded, codes):
    """``log p(x_obs, m | y, theta)`` summed over the rows, at the fit's parameters."""
    allowed = allowed_states(fit.group, codes)
    rel, row = state_posterior_mnar(fit.posterior, encoded, fit.columns, fit.selection, allowed=allowed)
    return float((logsumexp(rel, axis=1) + row).sum())


def compare(Xm, y, seed):
    """The two fits' log-likelihoods, objectives, k, n, convergence and completed tables."""
    out = {}
    for name, tied in (("MAR", True), ("MNAR", False)):
        rng = np.random.default_rng(seed)
        model, encoded, fit, codes, _ = _fit(Xm, y, "probe", estimator=None, n_bins=5, alpha=1.0, tol=1e-6,
                                             max_iter=200, by_class=False, n_components=1, rng=rng, tied=tied)
        table = _complete(Xm, fit, encoded, None, "mean", rng, 0.0, "value", "probe")
        out[name] = (loglik(fit, encoded, codes), fit.em_objective[-1], fit.converged, len(fit.em_objective), table,
                     sum(r.shape[1] - 1 for r in fit.selection))
    return out


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
                r = compare(BI.blank(X, M), y, seed)
                (l0, o0, c0, i0, t0, _), (l1, o1, c1, i1, t1, k) = r["MAR"], r["MNAR"]
                pen = 0.5 * k * np.log(X.shape[0])
                choice = "MNAR" if l1 - l0 > pen else "MAR"
                ok = choice == ("MNAR" if kind == "MNAR" else "MAR")
                right.setdefault((name, kind), []).append(ok)
                s0, s1 = hidden_scores(X, M, t0), hidden_scores(X, M, t1)
                sc = s1 if choice == "MNAR" else s0
                conv = "" if c0 and c1 else " (not converged)"
                print(f"{name} | {kind} | {seed} | {l0:.1f} | {l1:.1f} | {l1 - l0:.1f} | {o0:.1f} | {o1:.1f} | "
                      f"{o1 - o0:.1f} | {k} | {pen:.1f} | {choice} | {s0[0]:.3f} / {s0[1]:.3f} | "
                      f"{s1[0]:.3f} / {s1[1]:.3f} | {sc[0]:.3f} / {sc[1]:.3f} | {i0}/{i1}{conv} | "
                      f"{time.perf_counter() - t:.1f}", flush=True)
    print("\nright choices (MNAR under the MNAR mask, MAR under MCAR and MAR):")
    for (name, kind), oks in right.items():
        print(f"{name} | {kind} | {sum(oks)}/{len(oks)}")


if __name__ == "__main__":
    main()
