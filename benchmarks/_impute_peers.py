"""Peer imputers for ``bench_impute.py`` (issue 27): missForest, miceforest, HyperImpute, IterativeImputer.

Every peer receives the blanked table and the label as one more, always observed, column (the
``+y`` of ``bench_impute.py``), and is told which columns are categorical by their dtype (a column
that is not numeric is categorical) wherever its interface lets it be told:

- ``missForest``: Stekhoven & Buehlmann (2012), Algorithm 1, written here with scikit-learn's random
  forests, because the PyPI package ``MissForest`` 4.2.3 is not that algorithm (its default
  learners are LightGBM with linear trees, its stopping rule differs, it declares none of its
  dependencies, and its wheel installs a stray top-level ``__init__.py``). As the R package
  ``missForest``: mean / most-frequent initial fill; columns in increasing order of missing
  cells; per column a forest of 100 trees with ``floor(sqrt(d))`` candidate columns per split
  (terminal nodes of at least 5 rows for regression, 1 for classification) fitted on the rows
  where it is observed and predicting the others; at most 10 iterations; stop when the change
  between successive imputations (``sum (new - old)^2 / sum new^2`` over the numeric columns,
  share of changed missing cells over the categorical ones) has stopped decreasing for every
  variable type, returning the previous imputation. One deviation: scikit-learn's trees split on
  ordinal codes of categorical predictors, not on subsets of their levels as R's randomForest.
- ``miceforest`` (LightGBM chained equations, mean matching): ``ImputationKernel`` with its
  defaults and one dataset, 5 iterations of ``mice``; categorical columns as pandas ``category``.
- ``miceforest(min_data_in_leaf=20)`` (only when named): the same with LightGBM's own default
  ``min_data_in_leaf=20`` in place of miceforest's 1, as miceforest's warning advises when a
  column has very rare categories. With its defaults miceforest fails on the census table: a
  LightGBM probability of exactly 0 or 1 makes ``miceforest.utils.logodds`` divide by zero, which
  NumPy answers with ``inf`` (not the ``ZeroDivisionError`` that function catches to explain
  itself), and mean matching then raises ``ValueError: data must be finite``.
- ``HyperImpute``: ``Imputers().get("hyperimpute")`` with its defaults. Not in the ``bench`` extra
  and not run by default: its latest release (0.1.17, 2023) installs and imports with the
  project's pins but fails on its first column with scikit-learn >= 1.8 (``TypeError:
  LogisticRegression.__init__() got an unexpected keyword argument 'multi_class'``, from
  ``hyperimpute/plugins/prediction/classifiers/plugin_logistic_regression.py``), and it pulls in
  torch, TensorFlow and Jupyter. It runs in another environment (scikit-learn 1.7.2; how it was
  built: docs/benchmarks.md) with ``bench_impute.py --hyperimpute-python PYTHON``: the blanked
  table goes to ``_hyperimpute_run.py`` under that Python through files in a temporary folder
  (:func:`run_external`), so this environment never imports it; ``--peers HyperImpute`` without
  it imports hyperimpute here (an environment where it works). It has no way to be told which
  columns are categorical: it treats a column with fewer than 5 distinct values
  (``class_threshold``) as categorical and any other as continuous, so categorical columns are
  given to it as integer codes and its output is rounded and clipped to a valid code.
  ``bench_impute.py --hyperimpute-options JSON`` passes keyword arguments to its plugin instead
  (e.g. a ``class_threshold`` above the categorical columns' level counts, so that they are
  classified; docs/benchmarks.md).
- ``IterativeImputer(BayesianRidge)`` / ``IterativeImputer(ExtraTrees)``: scikit-learn's
  defaults (``max_iter=10``; ``ExtraTreesRegressor(n_estimators=20)`` to keep it affordable) on
  standardised numeric columns and one-hot categorical columns (a missing category: a missing
  row of its one-hot block), decoded by the largest one-hot value.

A peer that is not installed is skipped with a message that says so and how to install it; one
that raises is skipped with its error printed. Every peer runs on one thread (miceforest's
LightGBM is told ``num_threads=1``, the forests ``n_jobs=1``), as bayesnb does.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.ensemble import ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor
from sklearn.experimental import enable_iterative_imputer  # noqa: F401
from sklearn.impute import IterativeImputer
from sklearn.linear_model import BayesianRidge

LABEL = "__label__"
INSTALL = "pip install -e .[bench]"
INSTALL_HYPERIMPUTE = ("pip install hyperimpute 'scikit-learn<1.8' in another environment and pass "
                       "--hyperimpute-python PYTHON (docs/benchmarks.md)")
MICEFOREST_LEAF = "miceforest(min_data_in_leaf=20)"
PEERS = ("missForest", "miceforest", "HyperImpute", "Iterative(BayesianRidge)", "Iterative(ExtraTrees)", MICEFOREST_LEAF)
DEFAULT_PEERS = tuple(p for p in PEERS if p not in ("HyperImpute", MICEFOREST_LEAF))  # see the module docstring
HYPERIMPUTE_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_hyperimpute_run.py")
HYPERIMPUTE_PYTHON = None  # set by bench_impute.py --hyperimpute-python: run HyperImpute in that Python
HYPERIMPUTE_OPTIONS = {}  # set by bench_impute.py --hyperimpute-options: keyword arguments of its plugin
_skipped = set()


def onehot_frame(Xm, cats, nums, y=None):
    """Standardised numerics and one-hot categoricals (NaN rows where missing), and their layout.

    Parameters
    ----------
    Xm : DataFrame of shape (n, d)
        Table with missing cells.
    cats, nums : list of str
        Its categorical and numeric columns.
    y : array-like of shape (n,), optional
        Labels, appended one-hot (always observed).

    Returns
    -------
    A : ndarray of shape (n, width)
    layout : list of (column, "num" or "cat", (mean, sd) or levels)
    """
    parts, layout = [], []
    for c in nums:
        v = Xm[c].to_numpy(dtype=float)
        mu, sd = np.nanmean(v), np.nanstd(v) or 1.0
        parts.append(((v - mu) / sd)[:, None])
        layout.append((c, "num", (mu, sd)))
    for c in cats:
        levels = sorted(Xm[c].dropna().unique().tolist(), key=str)
        v = Xm[c].to_numpy(dtype=object)
        oh = np.array([[float(x == lv) for lv in levels] for x in v])
        oh[pd.isna(v)] = np.nan
        parts.append(oh)
        layout.append((c, "cat", levels))
    if y is not None:
        parts.append(np.eye(len(np.unique(y)))[np.unique(y, return_inverse=True)[1]])
    return np.hstack(parts), layout


def from_onehot(A, layout, index):
    """Invert :func:`onehot_frame` (a categorical cell: the level with the largest one-hot value)."""
    out, k = {}, 0
    for c, kind, info in layout:
        if kind == "num":
            out[c] = A[:, k] * info[1] + info[0]
            k += 1
        else:
            out[c] = np.asarray(info, dtype=object)[np.argmax(A[:, k:k + len(info)], axis=1)]
            k += len(info)
    return pd.DataFrame(out, index=index)


def _codes(Xm, cats):
    """Categorical columns as float codes (NaN where missing) and their levels."""
    Z, levels = Xm.copy(), {}
    for c in cats:
        lv = sorted(Xm[c].dropna().unique().tolist(), key=str)
        levels[c] = np.asarray(lv, dtype=object)
        Z[c] = Xm[c].map({v: float(i) for i, v in enumerate(lv)}).astype(float)
    return Z.astype(float), levels


def _decode(Z, levels, columns):
    out = Z[columns].copy()
    for c, lv in levels.items():
        if c in out.columns:
            idx = np.clip(np.rint(Z[c].to_numpy(dtype=float)), 0, len(lv) - 1).astype(int)
            out[c] = lv[idx]
    return out


def missforest(Xm, cats, seed, n_estimators=100, max_iter=10):
    """missForest (Stekhoven & Buehlmann 2012) with scikit-learn forests; see the module docstring.

    Parameters
    ----------
    Xm : DataFrame of shape (n, d)
        Table with missing cells; a column not in ``cats`` is numeric.
    cats : list of str
        Categorical columns.
    seed : int
        Random state of the forests.
    n_estimators, max_iter : int
        Trees per forest (100) and most iterations (10), the R package's defaults.

    Returns
    -------
    DataFrame of shape (n, d)
        The imputed table (categorical cells as their original values).
    """
    Z, levels = _codes(Xm, cats)
    miss = Z.isna().to_numpy()
    X = Z.to_numpy(dtype=float).copy()
    is_cat = np.array([c in levels for c in Z.columns])
    for j in range(X.shape[1]):
        col = X[~miss[:, j], j]
        fill = pd.Series(col).mode().iloc[0] if is_cat[j] else col.mean()
        X[miss[:, j], j] = fill
    order = [j for j in np.argsort(miss.sum(0), kind="stable") if miss[:, j].any()]
    mtry = max(1, min(int(np.sqrt(X.shape[1])), X.shape[1] - 1))
    num = ~is_cat
    present = np.array([miss[:, num].any(), miss[:, is_cat].any()])  # variable types with missing cells
    conv_old, conv_new, it, previous = np.full(2, np.inf), np.zeros(2), 0, X
    while np.any((conv_new < conv_old)[present]) and it < max_iter:  # R's stopCriterion
        if it:
            conv_old = conv_new
        previous = X.copy()
        for j in order:
            rest = np.delete(np.arange(X.shape[1]), j)
            obs = ~miss[:, j]
            Forest = RandomForestClassifier if is_cat[j] else RandomForestRegressor
            f = Forest(n_estimators=n_estimators, max_features=mtry, min_samples_leaf=1 if is_cat[j] else 5,
                       random_state=seed + it, n_jobs=1)
            f.fit(X[np.ix_(obs, rest)], X[obs, j])
            X[miss[:, j], j] = f.predict(X[np.ix_(miss[:, j], rest)])
        it += 1
        conv_new = np.array([
            np.sum((X[:, num] - previous[:, num]) ** 2) / np.sum(X[:, num] ** 2) if present[0] else 0.0,
            np.sum((X[:, is_cat] != previous[:, is_cat]) & miss[:, is_cat]) / miss[:, is_cat].sum()
            if present[1] else 0.0])
    if it < max_iter:
        X = previous  # stopped because the change grew: the previous imputation, as R's missForest
    return _decode(pd.DataFrame(X, columns=Z.columns, index=Xm.index), levels, list(Xm.columns))


def miceforest_impute(Xm, cats, seed, iterations=5, **lgb_params):
    """miceforest's ``ImputationKernel`` (defaults, one dataset) after ``iterations`` of ``mice``.

    ``lgb_params`` (e.g. ``min_data_in_leaf=20``) go to every LightGBM model through ``mice``.
    """
    import miceforest as mf

    Z = Xm.copy()
    for c in cats:
        Z[c] = Z[c].astype("category")
    kernel = mf.ImputationKernel(Z.reset_index(drop=True), num_datasets=1, random_state=seed)
    kernel.mice(iterations, num_threads=1, **lgb_params)  # one thread, as every method here (OpenMP spins on a shared machine)
    out = kernel.complete_data(dataset=0)
    out.index = Xm.index
    for c in cats:
        out[c] = out[c].astype(object)
    return out


def run_external(python, script, Z, seed, timeout=None, options=None):
    """Impute the float table ``Z`` with ``script`` run by another Python, exchanging files.

    ``Z`` is written to a temporary folder as ``in.npy`` (float, NaN where missing) with
    ``meta.json`` (``columns``, ``seed``, and ``options`` when given); ``python script in.npy meta.json
    out.npy`` runs with
    this process's environment variables (``OMP_NUM_THREADS`` included) and must write
    ``out.npy``, a float matrix of ``Z``'s shape. The folder is removed afterwards.

    Parameters
    ----------
    python : str
        The other environment's Python executable.
    script : str
        Path of the script (e.g. ``_hyperimpute_run.py``).
    Z : DataFrame of shape (n, d)
        Float table (categorical columns as codes), NaN where missing.
    seed : int
        Passed to the script in ``meta.json``.
    timeout : float, optional
        Seconds before the subprocess is stopped.
    options : dict, optional
        Keyword arguments for the peer (JSON), passed in ``meta.json`` as ``options``.

    Returns
    -------
    DataFrame of shape (n, d)
        The script's imputed table, with ``Z``'s columns and index.

    Raises
    ------
    RuntimeError
        If the script exits with an error (its last stderr lines are quoted), writes no
        ``out.npy``, or writes one of another shape or with missing cells.
    """
    with tempfile.TemporaryDirectory(prefix="bench_impute_peer_") as tmp:
        paths = [os.path.join(tmp, f) for f in ("in.npy", "meta.json", "out.npy")]
        np.save(paths[0], Z.to_numpy(dtype=float), allow_pickle=False)
        with open(paths[1], "w") as f:
            json.dump({"columns": [str(c) for c in Z.columns], "seed": int(seed)}
                      | ({"options": dict(options)} if options else {}), f)
        run = subprocess.run([python, script, *paths], capture_output=True, text=True, timeout=timeout)
        if run.returncode != 0:
            tail = "\n".join(run.stderr.strip().splitlines()[-5:])
            raise RuntimeError(f"{os.path.basename(script)} under {python} exited with {run.returncode}: {tail}")
        if not os.path.exists(paths[2]):
            raise RuntimeError(f"{os.path.basename(script)} under {python} wrote no imputed table")
        out = np.load(paths[2], allow_pickle=False)
    if out.shape != Z.shape or not np.isfinite(out).all():
        raise RuntimeError(f"{os.path.basename(script)} returned a table of shape {out.shape} with "
                           f"{int(np.sum(~np.isfinite(out)))} missing cells; expected {Z.shape}, all filled")
    return pd.DataFrame(out, columns=Z.columns, index=Z.index)


def hyperimpute_impute(Xm, cats, seed, python=None):
    """HyperImpute with its defaults, or :data:`HYPERIMPUTE_OPTIONS` (categorical columns as codes; see the module
    docstring).

    Parameters
    ----------
    Xm : DataFrame of shape (n, d)
        Table with missing cells; a column not in ``cats`` is numeric.
    cats : list of str
        Categorical columns.
    seed : int
        HyperImpute's ``random_state``.
    python : str, optional
        A Python executable whose environment has hyperimpute: it runs in that process through
        ``_hyperimpute_run.py`` (:func:`run_external`) and this one never imports it. Default
        (None): :data:`HYPERIMPUTE_PYTHON` if set, else hyperimpute is imported here.

    Returns
    -------
    DataFrame of shape (n, d)
        The imputed table (categorical cells rounded and clipped to a valid code, as their values).
    """
    Z, levels = _codes(Xm, cats)
    python = python or HYPERIMPUTE_PYTHON
    if python:
        out = run_external(python, HYPERIMPUTE_SCRIPT, Z, seed, options=HYPERIMPUTE_OPTIONS)
    else:
        from hyperimpute.plugins.imputers import Imputers

        plugin = Imputers().get("hyperimpute", random_state=seed, **HYPERIMPUTE_OPTIONS)
        out = plugin.fit_transform(Z.reset_index(drop=True))
        out.columns, out.index = Z.columns, Xm.index
    return _decode(out, levels, list(Xm.columns))


def iterative(Xm, cats, nums, y, seed, estimator):
    """scikit-learn's IterativeImputer with ``estimator`` on the one-hot table (label one-hot)."""
    A, layout = onehot_frame(Xm, cats, nums, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning of max_iter
        A = IterativeImputer(estimator, random_state=seed).fit_transform(A)
    return from_onehot(A, layout, Xm.index)[list(Xm.columns)]


def _with_label(Xm, y):
    Z = Xm.copy()
    Z[LABEL] = np.asarray(y).astype(str).astype(object)
    return Z


def peer_methods(Xm, cats, nums, y, seed, only=None):
    """Run the peers on ``Xm`` with the label as an observed column.

    Parameters
    ----------
    Xm : DataFrame
        Blanked table.
    cats, nums : list of str
        Categorical (non-numeric dtype) and numeric columns of ``Xm``.
    y : array-like of shape (n,)
        Labels (always observed).
    seed : int
    only : iterable of str, optional
        Names from :data:`PEERS` to run (default :data:`DEFAULT_PEERS`).

    Returns
    -------
    dict
        ``"<peer> +y"`` -> (imputed DataFrame with ``Xm``'s columns, seconds).
    """
    Zy, catsy = _with_label(Xm, y), cats + [LABEL]
    runs = {
        "missForest": lambda: missforest(Zy, catsy, seed),
        "miceforest": lambda: miceforest_impute(Zy, catsy, seed),
        MICEFOREST_LEAF: lambda: miceforest_impute(Zy, catsy, seed, min_data_in_leaf=20),
        "HyperImpute": lambda: hyperimpute_impute(Zy, catsy, seed),
        "Iterative(BayesianRidge)": lambda: iterative(Xm, cats, nums, y, seed, BayesianRidge()),
        "Iterative(ExtraTrees)": lambda: iterative(Xm, cats, nums, y, seed,
                                                   ExtraTreesRegressor(n_estimators=20, random_state=seed)),
    }
    res = {}
    for name in only or DEFAULT_PEERS:
        t = time.perf_counter()
        try:
            F = runs[name]()
        except ImportError as e:
            if name not in _skipped:
                how = INSTALL_HYPERIMPUTE if name == "HyperImpute" else f"install the peers with `{INSTALL}`"
                print(f"  ({name} skipped: it is not installed ({e}); {how})")
                _skipped.add(name)
            continue
        except Exception as e:  # a peer broken by this environment: say so, go on with the others
            print(f"  ({name} failed and is left out: {type(e).__name__}: {e})")
            continue
        res[f"{name} +y"] = (F[list(Xm.columns)], time.perf_counter() - t)
    return res
