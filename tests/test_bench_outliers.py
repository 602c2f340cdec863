"""benchmarks/bench_outliers.py: its corruptions do what they say, its ECOD/COPOD/AVF rank an
extreme row first (and equal PyOD's where PyOD is installed), and a small run reports the bar."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bench_outliers as bench

from bayesnb import NaiveBayes, NBOutlierDetector
from bayesnb.datasets import load_penguins


@pytest.fixture(scope="module")
def penguins():
    return bench.load_tables(["penguins"], None, 0)[0]["penguins"]


def test_corruptions(penguins):
    X, _ = penguins
    rng = np.random.default_rng(0)
    train, test = X.iloc[:200].reset_index(drop=True), X.iloc[200:].reset_index(drop=True)
    numeric = bench._numeric(test)
    swapped, changed = bench.corrupt("swap-num", test, train, rng)
    assert changed.sum() > 0.9 * len(test)
    differs = (swapped[numeric] != test[numeric]) & test[numeric].notna()
    assert (differs.sum(axis=1)[changed] == 2).all() and (differs.sum(axis=1)[~changed] == 0).all()
    np.testing.assert_allclose(np.sort(swapped[numeric].to_numpy(), axis=1)[changed],
                               np.sort(test[numeric].to_numpy(), axis=1)[changed])  # the same values, moved
    far, changed = bench.corrupt("out-of-range", test, train, rng)
    outside = (far[numeric] > train[numeric].max()) | (far[numeric] < train[numeric].min())
    moved = (far[numeric].ne(test[numeric]) & far[numeric].notna()).to_numpy()
    assert changed.all() and (moved.sum(axis=1) == 1).all() and outside.to_numpy()[moved].all()
    whole = [c for c in numeric if (train[c].dropna() % 1 == 0).all()]  # flipper length, body mass, year
    assert whole and (far[whole] % 1 == 0).where(far[whole].notna(), True).all().all()  # no fraction wins
    mixed, changed = bench.corrupt("assembled", test, train, rng)
    for c in X.columns:  # every column keeps its values, only the rows are reassembled
        assert sorted(mixed[c].dropna().astype(str)) == sorted(test[c].dropna().astype(str))
    assert changed.mean() > 0.9


def test_baseline_scores_rank_an_extreme_row_first():
    rng = np.random.default_rng(1)
    train = rng.normal(size=(200, 4))
    scored = np.vstack([rng.normal(size=(50, 4)), [[6.0, -6.0, 0.0, 6.0]]])
    for score in (bench.ecod_scores, bench.copod_scores):
        s = score(train, scored)
        assert s.shape == (51,) and s.argmax() == 50, score.__name__
    frame = pd.DataFrame({"a": rng.choice(["x", "y"], 200, p=[0.95, 0.05]), "b": rng.normal(size=200)})
    odd = pd.DataFrame({"a": ["x", "y", "z"], "b": [0.0, 0.0, 0.0]})
    assert np.argsort(bench.avf_scores(frame, odd)).tolist() == [0, 1, 2]


@pytest.mark.parametrize("name", ["ECOD", "COPOD"])
def test_baselines_equal_pyod(name):
    cls = bench._pyod(name)
    if cls is None:
        pytest.skip("pyod not installed (pip install bayesnb[bench])")
    rng = np.random.default_rng(2)
    train, scored = rng.gamma(2.0, size=(100, 3)), rng.gamma(2.0, size=(30, 3))
    mine = bench.ecod_scores(train, scored) if name == "ECOD" else bench.copod_scores(train, scored)
    np.testing.assert_allclose(mine, cls().fit(train).decision_function(scored))


def test_small_run_reports_the_bar(capsys):
    results = bench.main(["--tables", "penguins", "--tasks", "novelty", "out-of-range", "--detectors", "NB", "IForest",
                          "LOF", "--seeds", "1"])
    assert set(results["task"]) == {"novelty", "out-of-range"} and set(results["detector"]) == {"NB", "IForest", "LOF"}
    assert results["auc"].between(0, 1).all() and results["ap"].between(0, 1).all()
    out = capsys.readouterr().out
    assert "| novelty | penguins |" in out and "bar, novelty: NB" in out and "bar, out-of-range: NB" in out
    assert "load before:" in out and "no --data-dir" in out


def test_data_dir_with_adult_data_alone_adds_the_census_table(tmp_path):
    """The outlier benchmark reads only UCI's adult.data (its 70/30 splits are its own), so adult.test
    need not be there; ``--rows`` subsamples it."""
    rng = np.random.default_rng(0)
    lines = [f"{20 + i % 50}, Private, {10000 + i}, HS-grad, 9, Never-married, Sales, Own-child, White, "
             f"{'Male' if i % 2 else 'Female'}, 0, {'?' if i % 7 == 0 else 0}, 40, United-States, "
             f"{'>50K' if rng.random() < 0.3 else '<=50K'}" for i in range(60)]
    (tmp_path / "adult.data").write_text("\n".join(lines) + "\n", encoding="ascii")
    tables, notes = bench.load_tables([], tmp_path, 50)
    X, y = tables["adult"]
    assert X.shape == (50, 14) and set(y) <= {">50K", "<=50K"} and not any("census" in n for n in notes)
    assert X["capital-loss"].isna().any() and X["age"].dtype == np.float64


def test_structures_script_reports_heldout_and_auc_per_model():
    """benchmarks/bench_outlier_structures.py: per table and model, the held-out log density of the normal
    rows and the novelty AUC on bench_outliers' splits (the same splits for every model)."""
    import bench_outlier_structures as structures

    tables = {"penguins": bench.load_tables(["penguins"], None, 0)[0]["penguins"]}
    res = structures.run(tables, 1)
    species = sorted(tables["penguins"][1].unique())
    assert sorted(zip(res["model"], res["normal"])) == sorted((m, k) for m in structures.MODELS for k in species)
    assert np.isfinite(res["heldout"]).all() and res["auc"].between(0.5, 1.0).all()
    # the richer model of the columns is the denser on held-out normal rows (why held-out likelihood
    # cannot pick naive for novelty)
    held = res.groupby("model")["heldout"].mean()
    assert held["tan"] > held["naive"]


def test_ensemble_script_blends_standardised_scores(penguins):
    """benchmarks/bench_outlier_ensemble.py: ``w=0`` is the default detector itself (standardising keeps
    its ranking), and every blend is an AUC on the same split."""
    import bench_outlier_ensemble as ensemble
    from sklearn.metrics import roc_auc_score

    from bayesnb import NBOutlierDetector

    res = ensemble.run({"penguins": penguins}, ["assembled"], 1)
    assert {k[2] for k in res} == {f"w={w:g}" for w in ensemble.WEIGHTS} | {"min"}
    assert all(0.0 <= v <= 1.0 for v in res.values())
    X, y = penguins
    rng = np.random.default_rng([0, bench.TASKS.index("assembled"), len(X)])
    ((train, scored, outlier),) = bench.task_sets("assembled", X, y, rng)
    default = roc_auc_score(outlier, -bench._ranked(NBOutlierDetector().fit(train).score_samples(scored)))
    assert res["assembled", "penguins", "w=0"] == pytest.approx(default, abs=1e-12)


def test_candidate_nb_max_is_the_larger_standardised_surprise(capsys):
    """``NB-max`` (named only): per row the larger of the default's and the naive model's ``-log p(x)`` as a
    z-score against its own training rows; reported with a bar line of its own."""
    X = load_penguins().drop(columns="species").dropna()
    train, scored = X.iloc[:200], X.iloc[200:]
    got = bench.outlier_scores("NB-max", train, scored, 0)
    parts = []
    for det in (NBOutlierDetector(statistic="density").fit(train),
                NBOutlierDetector(NaiveBayes(), statistic="density").fit(train)):
        ref = -det.score_samples(train)
        parts.append((-det.score_samples(scored) - np.median(ref)) / ref.std())
    np.testing.assert_allclose(got, np.maximum(*parts), rtol=1e-12)
    bench.main(["--tables", "penguins", "--tasks", "novelty", "--detectors", "NB", "NB-max", "IForest", "--seeds", "1"])
    out = capsys.readouterr().out
    assert "bar, novelty: NB " in out and "bar, novelty: NB-max " in out
