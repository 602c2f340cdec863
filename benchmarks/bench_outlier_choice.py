"""Choosing the detector's density model by held-out log-likelihood of the training rows (issue 31, novelty).

A novelty detector may pick its density estimator from its normal rows alone: cross-validation on
them is how one chooses a density. This script measures what that rule would give. On
``bench_outliers.py``'s splits, for each task set (a novelty class, or an injected task), every
candidate model is scored by its mean held-out ``log p(x)`` per training row (5-fold
cross-validation on the training rows only, no outlier seen; the model's own density, without the
detector's range tails, which are not a density), and by the AUC of its detector on the scored rows.
``chosen`` is the AUC of the candidate with the highest held-out ``log p(x)`` in that set; ``1se`` the
one-standard-error rule among the nested structures ``naive`` < ``tan`` < ``kdb``: the simplest whose
mean held-out ``log p(x)`` is within one standard error (of the per-row paired differences) of the
best of the three (Breiman's parsimony rule, which prefers the structure that explains less).

Candidates (each fitted on the training rows as one class):

- ``auto``: the default, ``NaiveBayes(structure="auto", auto_cv=False, edge_score="hierarchical")``;
- ``naive``: ``NaiveBayes()``; ``tan``: ``NaiveBayes(structure="tan", edge_score="hierarchical")``;
  ``kdb``: ``NaiveBayes(structure="kdb", edge_score="hierarchical")`` (``k=2``);
- ``latent``: a latent-class model, a mixture of naive-Bayes components (``NaiveBayes().fit_latent_class(X,
  n_components="auto", search_n_init=1, random_state=0)``: the number of components by held-out
  likelihood of hidden cells), scored by its ``log p(x)`` (a row a component family cannot hold:
  ``-inf``); no range tails;
- ``auto-3bins``, ``auto-10bins``: the default with 3 or 10 quantile bins for a numeric parent's states
  instead of ``bayesnb.structure.bins.N_BINS = 5`` (set for the fit only; tables with numeric columns);
- ``mvn``: the numeric columns jointly, a multivariate normal with a Normal-Inverse-Wishart prior
  (:func:`bayesnb.impute.mvn.fit_niw_em`, the ``"mvn"`` configuration of ``impute_table``: each column
  standardised, a right-skewed non-negative one on ``log(x + c)``, the Jacobian counted), scored by
  its posterior predictive (a multivariate t over each row's observed cells), times the naive
  model of the categorical columns; no range tails. Only on tables with numeric columns.

The AUCs of IsolationForest (``random_state`` = seed) are beside them. Mean over seeds, then over
the task's sets (novelty: the classes). Also printed: how often each candidate is chosen, and
the fit time of the choice (5 folds x candidates + the final fit) against the default's fit.

Run:  python benchmarks/bench_outlier_choice.py [--tables ...] [--tasks novelty assembled] [--seeds 3]
      python benchmarks/bench_outlier_choice.py --data-dir DIR --rows 3000
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from bench_outliers import TASKS, _numeric, _ranked, load_tables, outlier_scores, print_progress, table_means, task_sets
from scipy.stats import multivariate_t
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold

from bayesnb import NaiveBayes, NBOutlierDetector
from bayesnb.inference.em import latent_log_px
from bayesnb.impute.mvn import fit_niw_em, log_shift

CANDIDATES = ("auto", "naive", "tan", "kdb", "latent", "mvn", "auto-3bins", "auto-10bins")
#: the nested structures, simplest first, among which the one-standard-error rule chooses
NESTED = ("naive", "tan", "kdb")


class _Bins:
    """A detector whose fit runs with ``N_BINS`` quantile bins per numeric parent (the benchmark's probe of
    the structure's binning; the package's value is a module constant)."""

    def __init__(self, n_bins):
        self.n_bins, self.det = n_bins, NBOutlierDetector(statistic="density")

    def fit(self, X):
        from bayesnb.structure import bins, engine
        saved = bins.N_BINS
        bins.N_BINS = engine.N_BINS = self.n_bins
        try:
            self.det.fit(X)
        finally:
            bins.N_BINS = engine.N_BINS = saved
        self.estimator_ = self.det.estimator_
        return self

    def score_samples(self, X):
        return self.det.score_samples(X)


class LatentDetector:
    """``log p(x)`` under a latent-class mixture of naive components fitted on the rows as one class."""

    def fit(self, X):
        self.model = NaiveBayes().fit(X, np.zeros(len(X), dtype=int))
        self.fit_ = self.model.fit_latent_class(X, n_components="auto", search_n_init=1, random_state=0)
        return self

    def _log_px(self, X):
        return latent_log_px(self.fit_, self.model._encode_blocks(X, self.model.posterior_)[0], np.zeros(len(X), int))

    def score_samples(self, X):
        try:
            return self._log_px(X)
        except ValueError:  # a value outside a family's support refuses the call: row by row, such a row -inf
            out = np.empty(len(X))
            for i in range(len(X)):
                try:
                    out[i] = self._log_px(X.iloc[[i]])[0]
                except ValueError:
                    out[i] = -np.inf
            return out


class MVNDetector:
    """Multivariate t posterior predictive (NIW) of the numeric columns x naive model of the others."""

    def fit(self, X):
        self.num = _numeric(X)
        self.cat = [c for c in X.columns if c not in self.num]
        Z = X[self.num].to_numpy(dtype=float).copy()
        self.shift = [log_shift(Z[:, j], start="smallest") for j in range(Z.shape[1])]  # as recorded
        Z = self._log(Z)[0]
        self.mu, self.sd = np.nanmean(Z, axis=0), np.nanstd(Z, axis=0)
        self.sd[~(self.sd > 0)] = 1.0
        fit = fit_niw_em((Z - self.mu) / self.sd)
        p = Z.shape[1]
        self.df = fit.nu - p + 1
        self.loc, self.shape = fit.mean, fit.psi * (fit.kappa + 1) / (fit.kappa * self.df)
        self.naive = NaiveBayes().fit(X[self.cat], np.zeros(len(X), dtype=int)) if self.cat else None
        return self

    def _log(self, Z):
        jac = np.zeros(len(Z))
        with np.errstate(invalid="ignore", divide="ignore"):
            for j, c in enumerate(self.shift):
                if c is not None:
                    jac -= np.log(Z[:, j] + c)
                    Z[:, j] = np.log(Z[:, j] + c)
        return Z, jac

    def score_samples(self, X):
        Z, jac = self._log(X[self.num].to_numpy(dtype=float).copy())
        Z = (Z - self.mu) / self.sd
        out = np.where(np.isnan(Z), 0.0, -np.log(self.sd)).sum(axis=1) + jac
        observed = ~np.isnan(Z)
        for pattern in np.unique(observed, axis=0):
            rows, o = (observed == pattern).all(axis=1), np.flatnonzero(pattern)
            if o.size:
                dist = multivariate_t(self.loc[o], self.shape[np.ix_(o, o)], df=self.df)
                out[rows] += np.atleast_1d(dist.logpdf(Z[np.ix_(rows, o)]))
        out = np.where(np.isfinite(out), out, -np.inf)  # a log-scale column below its shift: impossible
        return out + (self.naive.score_samples(X[self.cat]) if self.naive is not None else 0.0)


def make(name):
    """An unfitted detector: ``fit(X)`` then ``score_samples``; ``density(det, X)`` its model's log p(x)."""
    if name == "mvn":
        return MVNDetector()
    if name == "latent":
        return LatentDetector()
    if name.endswith("bins"):
        return _Bins(int(name[len("auto-"):-len("bins")]))
    model = {"auto": None, "naive": NaiveBayes(), "tan": NaiveBayes(structure="tan", edge_score="hierarchical"),
             "kdb": NaiveBayes(structure="kdb", edge_score="hierarchical")}[name]
    return NBOutlierDetector(model, statistic="density")


def density(det, X):
    return det.score_samples(X) if isinstance(det, (MVNDetector, LatentDetector)) else det.estimator_.score_samples(X)


def heldout(name, train, folds=5):
    """Held-out log p(x) of each training row (5-fold CV on the training rows only)."""
    scores = np.empty(len(train))
    for a, c in KFold(folds, shuffle=True, random_state=0).split(train):
        scores[c] = density(make(name).fit(train.iloc[a].reset_index(drop=True)), train.iloc[c])
    return np.where(np.isnan(scores), -np.inf, scores)  # a row the candidate cannot score counts against it


def one_se(held):
    """The simplest of ``NESTED`` whose mean held-out log p(x) is within one standard error (of the paired
    per-row differences) of the best one's."""
    best = max(NESTED, key=lambda n: held[n].mean())
    for n in NESTED:
        d = held[best] - held[n]
        if d.mean() <= d.std(ddof=1) / np.sqrt(len(d)):
            return n
    return best


def run(tables, tasks, seeds, candidates=CANDIDATES):
    """One record per task set: each candidate's held-out log p(x) (``ll_``), fit time and AUC, IForest's
    AUC, the candidates the two rules choose and their AUCs."""
    rows = []
    for table, (X, y) in tables.items():
        names = [c for c in candidates if c in (*NESTED, "auto", "latent") or _numeric(X)]
        for task in tasks:
            for seed in range(seeds):
                rng = np.random.default_rng([seed, TASKS.index(task), len(X)])
                for k, (train, scored, outlier) in enumerate(task_sets(task, X, y, rng)):
                    rec = {"table": table, "task": task, "seed": seed, "set": k}
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        t0 = time.perf_counter()
                        held = {n: heldout(n, train) for n in names}
                        choose = time.perf_counter() - t0
                        rec |= {f"ll_{n}": float(np.mean(v)) for n, v in held.items()}
                        for n in names:
                            t0 = time.perf_counter()
                            det = make(n).fit(train)
                            rec[f"fit_{n}"] = time.perf_counter() - t0
                            rec[f"auc_{n}"] = roc_auc_score(outlier, -_ranked(det.score_samples(scored)))
                        rec["auc_IForest"] = roc_auc_score(outlier, outlier_scores("IForest", train, scored, seed))
                    rec["chosen"] = max(names, key=lambda n: rec[f"ll_{n}"])
                    rec["auc_chosen"] = rec[f"auc_{rec['chosen']}"]
                    rec["chosen_1se"] = one_se(held) if set(NESTED) <= set(held) else "auto"
                    rec["auc_1se"] = rec[f"auc_{rec['chosen_1se']}"]
                    rec["slowdown"] = (choose + rec[f"fit_{rec['chosen']}"]) / rec["fit_auto"]
                    rows.append(rec)
            print_progress(rows, table, task)
    return pd.DataFrame(rows)


def report(res):
    for task, g in res.groupby("task", sort=False):
        per_table = table_means(g)
        cols = [c for c in per_table.columns if c.startswith("auc_")]
        lls = [c for c in per_table.columns if c.startswith("ll_")]
        nested = set(NESTED) <= {c[3:] for c in lls}  # the 1-SE rule ran (else "1se" is the default's copy)
        table = per_table[cols].rename(columns=lambda c: c[4:]).drop(columns=[] if nested else ["1se"])
        table.loc["mean"] = table.mean()
        print(f"\n{task}: AUC (mean over seeds and sets)")
        print(table.round(3).to_string())
        print(f"{task}: held-out log p(x) per training row (nats)")
        print(per_table[lls].rename(columns=lambda c: c[3:]).round(2).to_string())
        for rule in ("chosen", "chosen_1se") if nested else ("chosen",):
            counts = g.groupby("table", sort=False)[rule].value_counts().unstack(fill_value=0)
            print(f"{task}: times each candidate was chosen ({rule})\n{counts.to_string()}")
        print(f"{task}: fit time of the choice / the default's fit: median {g['slowdown'].median():.1f}x")
        for rule in ("auto", "chosen", "1se") if nested else ("auto", "chosen"):
            print(f"{task}, mean of {len(per_table)}: {rule} {table.loc['mean', rule]:.3f} vs IForest "
                  f"{table.loc['mean', 'IForest']:.3f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["votes", "penguins", "cancer", "wine"])
    parser.add_argument("--tasks", nargs="+", default=["novelty", "assembled"], choices=TASKS)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--candidates", nargs="+", default=list(CANDIDATES), choices=CANDIDATES,
                        help="models to choose among (auto, the default, is always one)")
    parser.add_argument("--data-dir", default=None, help="folder with adult.data and/or NAME.csv (label last)")
    parser.add_argument("--rows", type=int, default=3000)
    args = parser.parse_args(argv)
    tables, notes = load_tables(args.tables, args.data_dir, args.rows)
    for note in notes:
        print(f"note: {note}")
    print(f"load before: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} CPUs)")
    start = time.perf_counter()
    res = run(tables, args.tasks, args.seeds, ["auto", *[c for c in args.candidates if c != "auto"]])
    print(f"{args.seeds} seed(s), {time.perf_counter() - start:.0f} s")
    report(res)
    print(f"\nload after: {os.getloadavg()[0]:.2f}")
    return res


if __name__ == "__main__":
    main()
