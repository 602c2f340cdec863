"""benchmarks/bench_synthesis.py and synthesis_breakdown.py: the census split, the table, the bars, the breakdown."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import bench_synthesis as bench
import synthesis_breakdown as breakdown
from bayesnb import synthetic_report


def _fake_adult(path, n=600, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        rows.append([int(rng.integers(17, 90)), "?" if i % 50 == 0 else rng.choice(["Private", "State-gov"]),
                     int(rng.integers(10_000, 500_000)), "Bachelors", 13, "Never-married",
                     rng.choice(["Sales", "Tech-support"]), "Not-in-family", "White", rng.choice(["Male", "Female"]),
                     0, 0, 40, "United-States", ">50K" if rng.random() < 0.25 else "<=50K"])
    pd.DataFrame(rows).to_csv(path, header=False, index=False)


def test_census_holdout_has_tabdiffs_test_share_stratified_and_question_marks_as_a_category(tmp_path):
    _fake_adult(tmp_path / "adult.data")
    train, test, note = bench.census_tables(tmp_path / "adult.data", None, 0, keep_missing=False)
    assert len(train) + len(test) == 600 and abs(len(test) / 600 - 16281 / 48842) < 0.01
    share = lambda d: (d[bench.TARGET] == ">50K").mean()
    assert abs(share(train) - share(test)) < 0.02  # stratified by income
    assert (train.workclass == "?").any() and not train.isna().any().any()
    assert "seed 0" in note and "TabSyn" in note
    train2, _, _ = bench.census_tables(tmp_path / "adult.data", None, 0, keep_missing=True)
    assert train2.workclass.isna().any() and (train2.index == train.index).all()
    t, h, note = bench.census_tables(tmp_path / "adult.data", tmp_path / "adult.data", 0, keep_missing=False)
    assert len(t) == len(h) == 600 and "UCI split" in note


def _rows():
    base = {"data": "census", "seed": 0, "info": "", "note": "", "column_shapes": 0.99, "column_pair_trends": 0.97,
            "detection_logistic": 0.98, "detection_gbm": 0.6, "efficacy_auc": 0.914, "tstr": 0.86,
            "alpha_precision": 0.96, "beta_recall": 0.99, "alpha_precision_integrated": 0.98,
            "beta_recall_integrated": 0.45, "dcr_share": 0.5, "fit_s": 100.0, "sample_s": 2.0}
    sdv = {**base, "method": "SDV CTGAN", "column_shapes": 0.9, "column_pair_trends": 0.8, "detection_logistic": 0.6,
           "detection_gbm": 0.01, "efficacy_auc": 0.5, "tstr": 0.75, "alpha_precision": 0.9, "beta_recall": 0.995,
           "alpha_precision_integrated": 0.7, "beta_recall_integrated": 0.47, "dcr_share": 0.52, "fit_s": 50.0,
           "sample_s": 1.0}
    return pd.DataFrame([{**base, "method": "Synthesizer"}, sdv])


def test_ratios_are_to_the_default_synthesizer_and_bars_name_what_is_not_beaten():
    res = bench.with_ratios(_rows())
    assert res.fit_ratio.tolist() == [1.0, 0.5] and res.sample_ratio.tolist() == [1.0, 0.5]
    table = bench.markdown(_rows())
    assert table.splitlines()[0].startswith("| data | method | shape | trend |") and "| 0.50 |" in table
    text = bench.bars(_rows())
    assert "shape holds" in text and "trend MISSED" in text and "AUC holds" in text and "fit MISSED" in text
    assert "not beaten: beta_recall_integrated vs SDV CTGAN (0.470 vs 0.450)" in text
    assert "k-NN forms (not in the bar) where a peer scores higher: beta_recall vs SDV CTGAN (0.995 vs 0.990)" in text
    assert "alpha_precision_integrated" not in text  # won: not listed


def test_breakdown_shares_add_up():
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"a": rng.choice(list("xyz"), 300), "b": rng.choice(list("uv"), 300),
                         "c": rng.normal(size=300), "d": rng.normal(size=300)})
    syn = real.sample(frac=1.0, random_state=1).reset_index(drop=True)
    syn["c"] = syn["c"] + 0.3
    rep = synthetic_report(real, syn, metrics=())
    out = breakdown.breakdown(rep.columns, rep.pairs)
    assert abs(out["shape gap num %"] + out["shape gap cat %"] - 100) < 1e-9
    gaps = [v for k, v in out.items() if k.startswith("trend gap") and not k.startswith("trend gap in")]
    assert abs(sum(gaps) - 100) < 1e-9 and abs(out["shape"] - rep.summary["column_shapes"]) < 1e-12


def test_reference_row_scores_the_real_test_rows_without_efficacy_or_dcr(tmp_path):
    _fake_adult(tmp_path / "adult.data")
    train, test, _ = bench.census_tables(tmp_path / "adult.data", None, 0, keep_missing=False)
    s, _ = bench.score(train, test, test, bench.TARGET, 500, 0, reference=True)
    assert s.get("efficacy_auc") is None and s.get("tstr") is None and s["dcr_share"] is None
    assert 0 < s["alpha_precision"] <= 1 and 0 < s["beta_recall"] <= 1 and s["detection_gbm"] is not None
    full, _ = bench.score(train, test, test, bench.TARGET, 500, 0)  # without the flag, efficacy is computed
    assert full["efficacy_auc"] is not None


def test_copula_peer_keeps_integer_dtypes_and_seen_categories(tmp_path):
    _fake_adult(tmp_path / "adult.data")
    train, _, _ = bench.census_tables(tmp_path / "adult.data", None, 0, keep_missing=False)
    with warnings.catch_warnings():  # constant columns of the fake table: NaN correlations (as the bench, ignored)
        warnings.simplefilter("ignore", RuntimeWarning)
        sample, _ = bench.fit_copula(train, bench.TARGET, 0)
        syn = sample(300, 1)
    assert list(syn.columns) == list(train.columns) and (syn.dtypes == train.dtypes).all()
    assert set(syn.workclass) <= set(train.workclass)
    assert bench.COPULA in bench.methods(["default"], None, [], copula=True)
    assert bench.COPULA not in bench.methods(["default"], None, [], copula=False)


def test_neural_peers_at_other_epochs_are_named_with_them():
    names = [bench.sdv_name(k, 30) for k in ("GaussianCopula", "CTGAN", "TVAE")]
    assert names == ["SDV GaussianCopula", "SDV CTGAN (30 epochs)", "SDV TVAE (30 epochs)"]
    assert bench.sdv_name("CTGAN", None) == "SDV CTGAN"


def test_bars_count_lower_is_better_metrics_ties_and_the_copula_and_quote_the_reference():
    rows = _rows()
    rows["unseen_category_pairs"] = [0.008, 0.02]
    rows["out_of_range"] = [0, 0]
    cop = {**rows.iloc[0].to_dict(), "method": bench.COPULA, "unseen_category_pairs": 0.001, "out_of_range": 0,
           "beta_recall": 0.5, "alpha_precision": 0.3}
    ref = {**rows.iloc[0].to_dict(), "method": bench.REFERENCE, "beta_recall": 0.97, "efficacy_auc": np.nan}
    text = bench.bars(pd.concat([rows, pd.DataFrame([cop, ref])], ignore_index=True))
    assert "unseen_category_pairs vs Gaussian copula (empirical) (0.001 vs 0.008" in text
    assert "unseen_category_pairs vs SDV CTGAN" not in text  # CTGAN's 0.02 is worse
    assert "beta_recall vs SDV CTGAN (0.995 vs 0.990; real holdout 0.970)" in text
    assert "tied: " in text and "out_of_range vs SDV CTGAN (0.000)" in text
    assert text.count("  real holdout") == 0 and text.count("  Synthesizer:") == 1  # the reference is no row


def test_csv_rows_are_appended_under_the_files_header(tmp_path):
    csv = str(tmp_path / "out.csv")
    bench.append_csv({"method": "Synthesizer", "efficacy_auc": 0.9, "alpha_precision": 0.98}, csv)
    bench.append_csv({"method": bench.REFERENCE, "alpha_precision": 0.986}, csv)  # no efficacy
    back = pd.read_csv(csv)
    assert back.alpha_precision.tolist() == [0.98, 0.986] and back.efficacy_auc.isna().tolist() == [False, True]


def test_a_folder_of_public_tables_is_split_as_the_bundled_ones(tmp_path):
    rng = np.random.default_rng(0)
    n = 100
    pd.DataFrame({"amount": rng.gamma(2.0, 50.0, n).round(2), "kind": rng.choice(["x", "y", "?"], n),
                  "ok": rng.choice(["+", "-"], n)}).to_csv(tmp_path / "credit.csv", index=False)
    train, test, target = bench.folder_tables(tmp_path, None, 0)["credit"]
    assert target == "ok" and len(train) == 70 and len(test) == 30 and list(train.columns) == ["amount", "kind", "ok"]
    assert train["kind"].isna().any() and "?" not in set(train["kind"].dropna())  # "?" is a missing cell
    assert abs((train["ok"] == "+").mean() - (test["ok"] == "+").mean()) < 0.05  # stratified by the target
