"""benchmarks/bench_impute.py and _impute_peers.py (issue 27): the MAR mask blanks by another column,
the written-out missForest imputes as the algorithm says, the share of fills outside the observed
values counts what it says, and a peer that is not installed is skipped with the install command."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

import _impute_peers as peers
import bench_impute as bench


def _table(n, rng):
    z = rng.normal(size=n)
    return pd.DataFrame({"a": np.where(z > 0, "hi", "lo").astype(object),
                         "b": 2.0 * z + rng.normal(scale=0.1, size=n),
                         "c": rng.normal(size=n),
                         "d": rng.choice(np.array(["p", "q", "r"], dtype=object), size=n),
                         "e": z + rng.normal(scale=0.1, size=n)})


def test_mar_mask_is_driven_by_a_column_that_is_never_blanked():
    rng = np.random.default_rng(0)
    X = _table(4000, rng)
    X.loc[:9, "c"] = np.nan  # the driver: the column with the fewest missing cells, the first of the tied
    assert bench.mar_driver(X) == "a"
    M = bench.mask(X, "MAR", rng)
    assert not M[:, 0].any() and not (M & X.isna().to_numpy()).any()
    high = (X["a"] == X["a"].mode().iloc[0]).to_numpy()
    rates = M[:, 1:].mean(axis=0)
    assert np.all(np.abs(M[high, 1:].mean(axis=0) - 0.45) < 0.05)
    assert np.all(np.abs(M[~high, 1:].mean(axis=0) - 0.15) < 0.05)
    assert np.all(np.abs(rates - 0.3) < 0.05)
    self_masked = bench.mask(X, "MNAR", np.random.default_rng(0))  # MNAR: by the cell's own value
    above = (X["b"] > X["b"].median()).to_numpy()
    assert abs(self_masked[above, 1].mean() - 0.45) < 0.05 and abs(self_masked[~above, 1].mean() - 0.15) < 0.05


def test_missforest_fills_every_cell_from_the_other_columns():
    rng = np.random.default_rng(1)
    X = _table(300, rng)
    M = bench.mask(X, "MCAR 30%", rng)
    Xm = bench.blank(X, M)
    F = peers.missforest(Xm, ["a", "d"], seed=0, n_estimators=20)  # b, e and a all follow z
    assert not F.isna().any().any() and list(F.columns) == list(X.columns)
    observed = ~M
    for j, c in enumerate(X.columns):
        assert (F[c].to_numpy()[observed[:, j]] == X[c].to_numpy()[observed[:, j]]).all()
    assert set(F["d"]) <= {"p", "q", "r"} and set(F["a"]) <= {"hi", "lo"}
    # b is about 2 e and a is the sign of both: the forests do far better than the mean / mode fill
    hidden_b, hidden_a = M[:, 1], M[:, 0]
    err = np.sqrt(np.mean((F["b"].to_numpy()[hidden_b] - X["b"].to_numpy()[hidden_b]) ** 2))
    assert err < 0.5 * X["b"].std()
    assert (F["a"].to_numpy()[hidden_a] == X["a"].to_numpy()[hidden_a]).mean() > 0.8


def test_outside_share_counts_fills_no_observed_cell_has():
    X = pd.DataFrame({"n": [1.0, 2.0, 3.0, 4.0], "k": np.array(["x", "y", "x", "y"], dtype=object)})
    M = np.array([[False, False], [False, False], [True, True], [True, True]])
    F = pd.DataFrame({"n": [1.0, 2.0, 2.0, 1.5], "k": np.array(["x", "y", "x", "z"], dtype=object)})
    assert bench.outside_share(X, F, M, ["n"]) == 2 / 4  # 1.5 and "z"


def test_a_peer_not_installed_is_skipped_with_the_install_command(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "miceforest", None)  # import miceforest raises ImportError
    monkeypatch.setattr(peers, "_skipped", set())
    X = _table(60, np.random.default_rng(2))
    Xm = bench.blank(X, bench.mask(X, "MCAR 10%", np.random.default_rng(3)))
    out = peers.peer_methods(Xm, ["a", "d"], ["b", "c", "e"], np.zeros(60, dtype=int), 0,
                             ["miceforest", "Iterative(BayesianRidge)"])
    assert list(out) == ["Iterative(BayesianRidge) +y"]
    said = capsys.readouterr().out
    assert "miceforest skipped: it is not installed" in said and "pip install -e .[bench]" in said


def test_public_tables_are_read_from_a_folder_with_uci_missing_marks(tmp_path):
    rng = np.random.default_rng(0)
    n = 40
    frame = pd.DataFrame({"age": rng.integers(18, 90, n).astype(str), "grade": rng.integers(1, 4, n),
                          "colour": rng.choice(["red", "blue"], n), "label": rng.choice(["+", "-"], n)})
    frame.loc[3, "age"], frame.loc[5, "colour"] = "?", "?"
    frame.to_csv(tmp_path / "crx.csv", index=False)
    (tmp_path / "notes.txt").write_text("not a table")
    out = bench.tables(True, data_dir=str(tmp_path), adult_rows=30)
    X, y = out["crx"]
    assert list(X.columns) == ["age", "grade", "colour"] and len(X) == len(y) == 30  # subsampled, label apart
    assert X["age"].dtype == float and X["grade"].dtype == object  # > 10 distinct numbers: numeric; codes: categorical
    full = bench.tables(True, data_dir=str(tmp_path), adult_rows=n)["crx"][0]
    assert np.isnan(full.loc[3, "age"]) and pd.isna(full.loc[5, "colour"])  # "?" is a missing cell
    assert set(y) <= {"+", "-"} and {"house votes", "penguins"} <= set(out)
