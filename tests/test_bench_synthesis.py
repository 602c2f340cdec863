"""benchmarks/bench_synthesis.py and synthesis_breakdown.py: the census split, the table, the bars, the breakdown."""

from __future__ import annotations

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
            "alpha_precision": 0.96, "beta_recall": 0.99, "dcr_share": 0.5, "fit_s": 100.0, "sample_s": 2.0}
    sdv = {**base, "method": "SDV CTGAN", "column_shapes": 0.9, "column_pair_trends": 0.8, "detection_logistic": 0.6,
           "detection_gbm": 0.01, "efficacy_auc": 0.5, "tstr": 0.75, "alpha_precision": 0.9, "beta_recall": 0.995,
           "dcr_share": 0.52, "fit_s": 50.0, "sample_s": 1.0}
    return pd.DataFrame([{**base, "method": "Synthesizer"}, sdv])


def test_ratios_are_to_the_default_synthesizer_and_bars_name_what_is_not_beaten():
    res = bench.with_ratios(_rows())
    assert res.fit_ratio.tolist() == [1.0, 0.5] and res.sample_ratio.tolist() == [1.0, 0.5]
    table = bench.markdown(_rows())
    assert table.splitlines()[0].startswith("| data | method | shape | trend |") and "| 0.50 |" in table
    text = bench.bars(_rows())
    assert "shape holds" in text and "trend MISSED" in text and "AUC holds" in text and "fit MISSED" in text
    assert "not beaten: beta_recall vs SDV CTGAN" in text


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
