"""bayesnb.synthetic_report and ``bayesnb evaluate-synthetic``: metrics checked against scipy and
by construction (identical tables, one shuffled column, one shifted column), bad input, the CLI."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp
from scipy.stats.contingency import association, crosstab

from conftest import run_docs_snippets

from bayesnb import SyntheticReport, synthetic_report
from bayesnb.synth import metrics as sm
from bayesnb.cli import main
from bayesnb.datasets import load_house_votes, load_penguins


def mixed(n=300, seed=0):
    """A mixed table with dependence: b follows a, x follows a, k integer, some missing cells."""
    rng = np.random.default_rng(seed)
    a = rng.choice(["p", "q", "r"], n)
    b = np.where(rng.random(n) < 0.8, a, rng.choice(["p", "q", "r"], n)).astype(object)
    b[rng.random(n) < 0.05] = None
    x = np.where(a == "p", 0.0, 2.0) + rng.normal(size=n)
    x[rng.random(n) < 0.05] = np.nan
    k = rng.poisson(3 + 2 * (a == "q"), n)
    y = np.where(x > 1, "hi", "lo")
    return pd.DataFrame({"a": a, "b": b, "x": x, "k": k, "y": y})


def test_identical_tables_are_perfect():
    df = mixed()
    r = synthetic_report(df, df.copy(), random_state=0)
    assert isinstance(r, SyntheticReport)
    assert (r.columns["value"] == 0).all() and (r.pairs["abs_diff"] == 0).all()
    s = r.summary
    assert s["mean_tvd"] == 0 and s["mean_ks"] == 0 and s["mean_abs_cramers_v_diff"] == 0
    assert s["pmse"] < 1e-8 and s["pmse_ratio"] < 1
    assert list(r.columns["kind"]) == ["categorical", "categorical", "numeric", "numeric", "categorical"]
    assert (r.columns.loc[r.columns.kind == "numeric", ["out_of_range", "non_integer"]] == 0).all().all()
    assert "synthetic-data report" in str(r) and "pMSE" in str(r) and repr(r) == str(r)


def test_shuffled_column_keeps_its_marginal_but_loses_its_pairs():
    df = mixed()
    syn = df.copy()
    syn["b"] = np.random.default_rng(1).permutation(syn["b"].to_numpy())
    r = synthetic_report(df, syn)
    cols = r.columns.set_index("column")["value"]
    assert cols["b"] == 0  # the same values, reordered
    p = r.pairs
    with_b = p[(p.a == "b") | (p.b == "b")]
    assert with_b.set_index("a").loc["a", "abs_diff"] > 0.5  # V(a, b) ~ 0.8 real, ~0 shuffled
    assert (p.loc[(p.a != "b") & (p.b != "b"), "abs_diff"] == 0).all()
    assert r.summary["pmse"] < 1e-8  # a main-effects propensity model sees only the marginals


def test_shifted_numeric_raises_ks_and_out_of_range():
    df = mixed()
    syn = df.copy()
    syn["x"] = syn["x"] + 1.5
    syn["k"] = syn["k"] + 0.5
    r = synthetic_report(df, syn).columns.set_index("column")
    assert r.loc["x", "value"] > 0.3 and r.loc["a", "value"] == 0
    assert r.loc["x", "out_of_range"] > 0 and r.loc["x", "non_integer"] == 0  # x is real-valued
    assert r.loc["k", "non_integer"] == len(df)  # k is integer in the real table


def test_metrics_match_scipy_on_tiny_data():
    rng = np.random.default_rng(3)
    real = pd.DataFrame({"c": rng.choice(list("uvw"), 12), "d": rng.choice(list("st"), 12),
                         "x": rng.normal(size=12)})
    syn = pd.DataFrame({"c": rng.choice(list("uvw"), 9), "d": rng.choice(list("st"), 9),
                        "x": rng.normal(0.5, 1, size=9)})
    r = synthetic_report(real, syn, bins=3)
    cols = r.columns.set_index("column")["value"]
    assert cols["x"] == pytest.approx(ks_2samp(real["x"], syn["x"]).statistic)
    p = real["c"].value_counts(normalize=True)
    q = syn["c"].value_counts(normalize=True)
    assert cols["c"] == pytest.approx(0.5 * p.sub(q, fill_value=0).abs().sum())
    pair = r.pairs.set_index(["a", "b"])
    for df, col in ((real, "cramers_v_real"), (syn, "cramers_v_synthetic")):
        table = crosstab(df["c"], df["d"]).count
        assert pair.loc[("c", "d"), col] == pytest.approx(association(table, method="cramer"))
        # x binned at the real data's tertiles
        edges = np.quantile(real["x"], [1 / 3, 2 / 3])
        xb = np.searchsorted(edges, df["x"], side="right")
        table = crosstab(df["c"], xb).count
        assert pair.loc[("c", "x"), col] == pytest.approx(association(table, method="cramer"))


def test_pmse_matches_its_definition():
    from sklearn.linear_model import LogisticRegression

    df = mixed(120)
    syn = mixed(80, seed=5)
    r = synthetic_report(df, syn)
    Z = np.vstack([pd.get_dummies(pd.concat([df, syn])[["a", "y"]], drop_first=True).to_numpy(float)])
    both = pd.concat([df, syn], ignore_index=True)
    b = pd.get_dummies(both["b"].fillna("<m>"), drop_first=True).to_numpy(float)
    num = []
    for c in ("x", "k"):
        v = both[c].to_numpy(float)
        m = np.isnan(v)
        z = np.where(m, 0.0, (v - np.nanmean(v)) / np.nanstd(v))
        num += [z[:, None]] + ([m[:, None].astype(float)] if m.any() else [])
    Z = np.hstack([Z, b] + num)
    label = np.r_[np.zeros(len(df)), np.ones(len(syn))]
    prob = LogisticRegression(C=np.inf, tol=1e-10, max_iter=5000).fit(Z, label).predict_proba(Z)[:, 1]
    c = len(syn) / 200
    assert r.summary["pmse"] == pytest.approx(np.mean((prob - c) ** 2), rel=1e-4)
    k = Z.shape[1] + 1
    assert r.summary["pmse_null"] == pytest.approx((k - 1) * (1 - c) ** 2 * c / 200)


def test_tstr_equals_trtr_when_synthetic_is_the_real_training_set():
    df = load_house_votes()
    train, test = df.iloc[::2], df.iloc[1::2]
    r = synthetic_report(train, train.copy(), target="party", real_test=test, random_state=0, metrics=())
    assert r.summary["tstr"] == r.summary["trtr"] > 0.85 and r.summary["n_test"] == len(test)
    assert r.summary["efficacy_auc"] == r.summary["efficacy_auc_real"] > 0.9
    held = synthetic_report(df, df.sample(frac=1, random_state=0), target="party", random_state=0, metrics=())
    assert held.summary["n_test"] == round(0.3 * len(df) + 0.5)


def test_arrays_and_column_order():
    df = mixed(60)
    r1 = synthetic_report(df, df[["y", "k", "x", "b", "a"]])
    assert r1.summary["mean_tvd"] == 0 and r1.summary["mean_ks"] == 0
    r2 = synthetic_report(df, df.to_numpy())  # an array takes the frame's column names
    assert list(r2.columns["column"]) == list(df.columns)
    r3 = synthetic_report(np.arange(20.0).reshape(10, 2), np.arange(20.0).reshape(10, 2) + 1)
    assert list(r3.columns["column"]) == ["x0", "x1"] and r3.summary["mean_ks"] > 0


def test_bad_input():
    df = mixed(40)
    with pytest.raises(ValueError, match=r"same columns.*lacks \['x'\]"):
        synthetic_report(df, df.drop(columns="x"))
    with pytest.raises(ValueError, match="target 'nope' is not a column"):
        synthetic_report(df, df, target="nope")
    with pytest.raises(ValueError, match="has 3 columns; expected 5"):
        synthetic_report(df, np.zeros((4, 3)))
    with pytest.raises(ValueError, match="2-d array"):
        synthetic_report(np.zeros(5), np.zeros(5))
    with pytest.raises(ValueError, match="numeric in the real table but synthetic holds non-numbers"):
        synthetic_report(df, df.assign(x="text"))
    with pytest.raises(ValueError, match="bins must be an integer >= 2"):
        synthetic_report(df, df, bins=1)
    with pytest.raises(ValueError, match="target 'y' has 1 missing"):
        synthetic_report(df, df.assign(y=[None] + list(df["y"][1:])), target="y", real_test=df)
    with pytest.raises(ValueError, match="no observed value in the synthetic"):
        synthetic_report(df, df.assign(x=np.nan))


def test_penguins_input_is_not_modified():
    df = load_penguins()
    before = df.copy()
    syn = df.sample(frac=1, replace=True, random_state=1)
    r = synthetic_report(df, syn, random_state=0)
    pd.testing.assert_frame_equal(df, before)
    assert r.summary["mean_ks"] < 0.15 and np.isfinite(r.to_frame()["value"]).all()


def test_plot_returns_figures():
    pytest.importorskip("matplotlib")
    df = mixed(50)
    fig1, fig2 = synthetic_report(df, mixed(50, seed=2)).plot()
    assert len(fig1.axes) == 1 and len(fig2.axes) == 6
    import matplotlib.pyplot as plt

    plt.close(fig1)
    plt.close(fig2)


def test_cli_evaluate_synthetic(tmp_path, capsys):
    df = load_house_votes()
    df.iloc[::2].to_csv(tmp_path / "real.csv", index=False)
    df.iloc[1::2].to_csv(tmp_path / "test.csv", index=False)
    df.iloc[::2].to_csv(tmp_path / "syn.csv", index=False)
    args = ["evaluate-synthetic", tmp_path / "real.csv", tmp_path / "syn.csv", "--target", "party", "--real-test",
            tmp_path / "test.csv"]
    assert main([str(a) for a in args + ["-o", tmp_path / "rep.csv"]]) == 0
    out = capsys.readouterr().out
    assert "mean TVD 0.0000" in out and "TSTR accuracy" in out and "column shapes 1.0000" in out
    assert "DCR share" in out and "detection (C2ST" in out and "efficacy: ROC AUC" in out
    table = pd.read_csv(tmp_path / "rep.csv")
    assert set(table["section"]) == {"summary", "column", "pair"}
    assert main([str(a) for a in args + ["--json"]]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["summary"]["tstr"] == rep["summary"]["trtr"] and len(rep["pairs"]) == 136
    assert rep["summary"]["column_pair_trends"] == 1 and rep["summary"]["dcr_share"] > 0.5
    # usage errors: one line, status 2, no traceback
    for bad, msg in (([tmp_path / "real.csv", tmp_path / "nope.csv"], "nope.csv"),
                     ([tmp_path / "real.csv", tmp_path / "syn.csv", "--target", "zz"], "no column 'zz'"),
                     ([tmp_path / "real.csv", tmp_path / "syn.csv", "-o", tmp_path / "syn.csv"], "syn.csv"),
                     (["-", "-"], "stdin"), ([tmp_path / "real.csv", tmp_path / "syn.csv", "--bins", "1"], "--bins"),
                     ([tmp_path / "real.csv", tmp_path / "test.csv", "--real-test", tmp_path / "test.csv"],
                      "--real-test needs --target")):
        assert main(["evaluate-synthetic", *map(str, bad)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("bayesnb evaluate-synthetic: error:") and msg in err[0]


@pytest.mark.slow
def test_docs_page_snippets_run():
    """The report's Python blocks of docs/synthetic.md, and the pooling of synthetic tables after them, run as
    pasted and print what the page shows (the Synthesizer's block, above them, is run by tests/test_readme.py)."""
    assert run_docs_snippets("synthetic.md", heading="## House votes") == 3


@pytest.mark.slow
def test_pmse_null_is_for_synthetic_rows_from_the_fitted_model():
    """Snoke et al.'s null expectation (k-1)(1-c)^2 c/N holds for rows drawn from a correct model
    fitted to the real rows (plug-in); two independent samples of one distribution give
    1/(1-c) = 2 times it (equal sizes), as the docstring says. (The metric functions directly: fast.)"""
    rng = np.random.default_rng(0)

    def ratio(real, synthetic):
        value, k = sm.pmse([("numeric", a, b) for a, b in zip(real.T, synthetic.T)], len(real), len(synthetic))
        assert k == 9
        return value / sm.pmse_null(k, len(real), len(synthetic))

    plug, independent = [], []
    for _ in range(40):
        real = rng.normal(size=(200, 8))
        plug.append(ratio(real, rng.multivariate_normal(real.mean(0), np.cov(real.T), size=200)))
        independent.append(ratio(real, rng.normal(size=(200, 8))))
    assert 0.8 < np.mean(plug) < 1.25
    assert 1.6 < np.mean(independent) < 2.5
