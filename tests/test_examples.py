"""Every example script runs with small arguments, prints its results and saves its figures.

The scripts run in this process as ``__main__`` (``runpy``, their folder first on ``sys.path``, as
``python examples/NAME.py`` has it), which saves a fresh interpreter's imports per example; the Dask
example, whose cluster starts worker processes, runs as a real ``python examples/dask_fit.py``,
which also checks that a script runs from the shell on its own.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import runpy
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import DASK_WORKER_START, SHARED, run_python

pytestmark = pytest.mark.e2e

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_script(name, *args):
    """Run ``python examples/NAME ARGS`` in this process, from the examples' folder, warnings
    ignored and figures drawn with Agg; returns what it printed (a failing script raises).
    The process-wide settings a script may change (pandas' display float format, as
    multiple_imputation.py sets it, NumPy's print options, matplotlib's rcParams) are restored."""
    import matplotlib
    import matplotlib.pyplot as plt
    import pandas as pd

    matplotlib.use("Agg")
    out, argv, path, cwd = io.StringIO(), sys.argv, list(sys.path), os.getcwd()
    sys.argv, sys.path[:0] = [str(EXAMPLES / name), *map(str, args)], [str(EXAMPLES)]
    try:
        os.chdir(EXAMPLES)
        with warnings.catch_warnings(), contextlib.redirect_stdout(out), matplotlib.rc_context(), \
                np.printoptions(**np.get_printoptions()), \
                pd.option_context("display.float_format", pd.get_option("display.float_format")):
            warnings.simplefilter("ignore")
            try:
                runpy.run_path(str(EXAMPLES / name), run_name="__main__")
            except SystemExit as stop:
                assert stop.code in (None, 0), (name, stop.code, out.getvalue()[-3000:])
    finally:
        sys.argv, sys.path[:] = argv, path
        os.chdir(cwd)
        plt.close("all")
    return out.getvalue()


def run_example(name, tmp_path, *extra):
    return run_script(name, "--quick", "--out", tmp_path, *extra)


def test_play_tennis_reproduces_the_lecture(tmp_path):
    out = run_example("play_tennis.py", tmp_path)
    assert "P(Yes) * prod_j P(x_j | Yes) = 0.0053" in out
    assert "P(No) * prod_j P(x_j | No) = 0.0206" in out
    assert "= 1/18" in out and "= 1/6" in out and "1/6 needs m = 5" in out
    assert "No: mean 23.88, sigma 6.34" in out and "Yes: mean 21.64, sigma 2.22" in out
    assert "No: mean 23.88, sigma 7.09" in out and "Yes: mean 21.64, sigma 2.35" in out
    assert (tmp_path / "play_tennis_conditionals.png").exists()


def test_gaussian_vs_logistic(tmp_path):
    out = run_example("gaussian_vs_logistic.py", tmp_path)
    assert "test accuracy" in out and "linear classifier" in out
    assert (tmp_path / "gaussian_vs_logistic.png").exists()


def test_mixed_table(tmp_path):
    out = run_example("mixed_table.py", tmp_path)
    assert "loaded model predicts identically: True" in out
    assert (tmp_path / "mixed_table_conditionals.png").exists()


def test_synthetic_data(tmp_path):
    out = run_example("synthetic_data.py", tmp_path)
    assert "435 synthetic members; parties: democrat" in out
    tstr, real = map(float, re.search(r"train on synthetic, test on real: accuracy ([0-9.]+) "
                                      r"\(train on real, test on real: ([0-9.]+)\)", out).groups())
    assert 0.8 < tstr <= 1.0 and 0.85 < real <= 1.0, out  # synthetic rows carry the real signal


def test_text_20news(tmp_path):
    if not (SHARED / "20news-bydate.jsonl.gz").exists():
        pytest.skip(f"20news-bydate.jsonl.gz not in {SHARED}")
    out = run_example("text_20news.py", tmp_path, "--data", str(SHARED))
    assert "bayesnb MultinomialNB alpha=0.01" in out and "sklearn MultinomialNB" in out
    assert (tmp_path / "text_20news.png").exists()


def test_imputation_house_votes(tmp_path):
    out = run_example("imputation_house_votes.py", tmp_path, "--seeds", "1")  # (--quick alone: 2)
    assert "Imputation of 20% hidden observed votes, 1 seeds" in out
    for method in ("most frequent", "KNNImputer (k=5)", "IterativeImputer", "bayesnb NB",
                   "bayesnb latent-class (auto)"):
        assert f"  {method} " in out
    assert "latent-class components chosen per seed:" in out
    assert "Party prediction, repeated stratified 5-fold CV (232/435 complete rows)" in out
    assert "bayesnb CategoricalNB, missing left in" in out
    assert (tmp_path / "imputation_house_votes.png").exists()


def test_small_is_an_alias_of_quick(tmp_path):
    out = run_script("outliers.py", "--small", "--out", tmp_path, "--data", tmp_path)
    assert "(1 seed(s), mean +- sd)" in out and (tmp_path / "outliers_roc.png").exists()
    for name in ("imputation_house_votes.py", "semisupervised_20news.py"):
        out = run_script(name, "--help")  # argparse prints the help and exits 0
        assert all(o in out for o in ("--quick", "--small", "--out")), name


def test_outliers_without_sms_runs_house_votes_and_says_why(tmp_path):
    empty = tmp_path / "no-data"
    empty.mkdir()
    out = run_example("outliers.py", tmp_path, "--data", str(empty))
    assert "House votes: train on democrats, ROC AUC for republicans (1 seed(s)" in out
    assert "bayesnb CategoricalNB -log p(x) (missing marginalised)" in out
    assert "sklearn IsolationForest (y=1, n=0, missing=0.5)" in out
    assert f"SMS spam part skipped: {empty / 'SMSSpamCollection.tsv'} not found" in out
    assert (tmp_path / "outliers_roc.png").exists()


def test_outliers_sms(tmp_path):
    if not (SHARED / "SMSSpamCollection.tsv").exists():
        pytest.skip(f"SMSSpamCollection.tsv not in {SHARED}")
    out = run_example("outliers.py", tmp_path, "--data", str(SHARED))
    assert "SMS spam: train on ham, ROC AUC for spam (1 seed(s)" in out and "skipped" not in out
    assert "bayesnb MultinomialNB  -log p(x)" in out and "sklearn IsolationForest (counts)" in out
    assert (tmp_path / "outliers_roc.png").exists()


def test_semisupervised_20news(tmp_path):
    if not (SHARED / "20news-bydate.jsonl.gz").exists():
        pytest.skip(f"20news-bydate.jsonl.gz not in {SHARED}")
    out = run_example("semisupervised_20news.py", tmp_path, "--data", str(SHARED))
    assert "20 Newsgroups: 11314 train / 7532 test documents, 10000 words" in out
    assert "labelled only" in out and "+ unlabelled (w=1)" in out
    rows = {int(line.split()[0]): line.split() for line in out.splitlines()
            if line.strip()[:1].isdigit() and "+-" in line}
    assert set(rows) == {3, 10}
    for m, (_, sup, em1, em01, _iters) in rows.items():  # the unlabelled rows help with few labels
        assert float(em1.split("+-")[0]) > float(sup.split("+-")[0]), rows[m]
    assert "all 11314 labels:" in out
    assert (tmp_path / "semisupervised_20news.png").exists()


def test_mcmc_house_votes(tmp_path):
    out = run_example("mcmc_house_votes.py", tmp_path)
    assert "NUTS (300 warmup + 1500 draws)" in out
    verdict = next(line for line in out.splitlines() if "66 parameters" in line)
    assert verdict.startswith(("AGREE", "DISAGREE")) and "0 divergences" in verdict
    assert "p(republican | votes) for the least certain members" in out
    assert "physician-fee-freeze=" in out
    assert (tmp_path / "house_votes_exact_vs_nuts.png").exists()


def test_multiple_imputation(tmp_path):
    out = run_example("multiple_imputation.py", tmp_path)
    assert "Complete data (333 penguins): OLS of body_mass_g" in out
    assert "Multiple imputation, m = 5 tables of naive-Bayes draws, pooled with bayesnb.pool" in out
    assert "tables of latent-class (" in out
    for name in ("intercept", "flipper_length_mm", "sex=male"):
        assert name in out
    lines = {line.split(":")[0].strip(): float(line.split(":")[1]) for line in out.splitlines()
             if line.startswith(("  multiple imputation,", "  complete cases:"))}
    assert len(lines) == 3 and all(np.isfinite(v) and v >= 0 for v in lines.values())
    import pandas as pd

    assert pd.get_option("display.float_format") is None  # its global setting did not leak into this process


@pytest.mark.slow  # a 2-process LocalCluster whose workers import bayesnb: ~25 s of CPU
def test_dask_fit_agrees_with_in_memory(tmp_path):
    pytest.importorskip("dask.distributed", reason="dask is an optional extra: pip install 'bayesnb[dask]'")
    have_news = (SHARED / "20news-bydate.jsonl.gz").exists()
    # its cluster's workers start as the suite's do (conftest.DASK_WORKER_START: ~2 s sooner than spawned)
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONWARNINGS="ignore",
               DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD=DASK_WORKER_START)
    r = run_python([EXAMPLES / "dask_fit.py", "--quick", "--out", tmp_path,
                    "--data", SHARED if have_news else tmp_path], env=env, cwd=str(EXAMPLES))
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout
    assert "cluster: 2 workers" in out
    assert out.count("identical predictions: True") == (2 if have_news else 1), out
    assert "20 Newsgroups" in out and ("in 4 sparse chunks" in out if have_news else "SKIPPED" in out)
    assert "50,000 rows x 8 columns in 5 partitions" in out and "peak memory after the table" in out
