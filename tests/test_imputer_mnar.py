"""Imputer(missingness=): self-masking missingness tested by BIC and, where it wins, filled from its model
(missingness="auto", the default), kept through fit, impute, draws, the model file and the CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesnb import Imputer, impute_table
from bayesnb.cli import main
from bayesnb.impute.configs import clearly_worse
from helpers import assert_damaged_file_refused, edit_meta as _edit_meta
from helpers import self_masked_blank as _blank, two_valued_table as _table

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CONFIGS = ("naive", "latent")


def _accuracy(X, M, filled):
    return float(np.mean(filled.to_numpy()[M] == X.to_numpy()[M]))


@pytest.fixture(scope="module")
def self_masked():
    X, y = _table()
    Xm, M = _blank(X, True)
    return X, y, Xm, M


@pytest.fixture(scope="module")
def fitted(self_masked):
    _, y, Xm, _ = self_masked
    return Imputer(configurations=CONFIGS, label_given=True, random_state=0, missingness="auto").fit(Xm, y)


def test_self_masking_is_found_and_its_fills_beat_the_mar_fills(self_masked, fitted):
    X, y, Xm, M = self_masked
    assert fitted.missingness_["choice"] == "MNAR"
    ev = fitted.missingness_
    assert ev["loglik_mnar"] - ev["loglik_mar"] > ev["penalty"] == pytest.approx(0.5 * ev["k"] * np.log(len(X)))
    assert ev["loglik_mnar"] - ev["loglik_mar_state"] > -0.5 * ev["k_state"] * np.log(len(X))
    assert set(fitted.chosen_.values()) == {"mnar"} and fitted.draw_configuration_ == "mnar"
    auto = fitted.impute(Xm, y)
    mar = Imputer(configurations=CONFIGS, label_given=True, random_state=0, missingness="mar").fit(Xm, y)
    assert mar.missingness_ is None and "mnar" not in mar.chosen_.values()
    assert _accuracy(X, M, auto) > _accuracy(X, M, mar.impute(Xm, y)) + 0.05
    # the hidden truth is mostly "a"; the MAR fills give it to fewer cells than the self-masking fills
    assert np.mean(auto.to_numpy()[M] == "a") > np.mean(mar.impute(Xm, y).to_numpy()[M] == "a")
    assert Imputer().missingness == "auto"  # the default (docs/mnar.md)
    res = impute_table(Xm, y, configurations=CONFIGS, label_given=True, random_state=0, missingness="auto")
    assert set(res.chosen.values()) == {"mnar"} and res.table.notna().all().all()


def test_missing_at_random_keeps_the_mar_imputation_exactly():
    X, y = _table(seed=3)
    Xm, _ = _blank(X, False)
    auto = Imputer(configurations=CONFIGS, random_state=0, missingness="auto").fit(Xm, y)
    mar = Imputer(configurations=CONFIGS, random_state=0, missingness="mar").fit(Xm, y)
    assert auto.missingness_["choice"] == "MAR" and "mnar" not in auto.models_
    pd.testing.assert_frame_equal(auto.impute(Xm, y, random_state=2), mar.impute(Xm, y, random_state=2))


def test_mnar_forces_the_self_masking_model_without_the_test():
    X, y = _table(seed=3)
    Xm, _ = _blank(X, False)
    imp = Imputer(configurations="naive", random_state=0, missingness="mnar").fit(Xm, y)
    assert imp.missingness_["choice"] == "MAR"  # the test is still reported
    assert set(imp.chosen_.values()) == {"mnar"} and imp.impute(Xm, y).notna().all().all()


def test_saved_imputer_with_the_self_masking_model_fills_identically(self_masked, fitted, tmp_path):
    _, y, Xm, _ = self_masked
    path = tmp_path / "imputer.bnb"
    fitted.save(path)
    again = Imputer.load(path)
    assert again.missingness_ == fitted.missingness_ and again.chosen_ == fitted.chosen_
    pd.testing.assert_frame_equal(again.impute(Xm, y, random_state=1), fitted.impute(Xm, y, random_state=1))
    # new rows (a few) are read through the same bins: their fills are the whole table's
    pd.testing.assert_frame_equal(again.impute(Xm.iloc[:9], y[:9]), fitted.impute(Xm, y).iloc[:9])
    draws = again.impute(Xm, y, strategy="draw", n_imputations=3, random_state=0)
    assert len(draws) == 3 and all(t.notna().all().all() for t in draws)
    assert not draws[0].equals(draws[1])


@pytest.mark.parametrize("change, match", [
    (lambda m: m["fitted"]["models"]["mnar"]["columns"][0].__setitem__(2, 99), "names no column"),
    (lambda m: m["fitted"]["models"]["mnar"].update(alpha=-1.0), "alpha"),
    (lambda m: m["fitted"]["models"]["mnar"].update(columns=[]), "at least one"),
    (lambda m: m["fitted"].update(missingness=None), "only when its test chose it"),
])
def test_a_damaged_self_masking_member_is_refused(fitted, tmp_path, change, match):
    assert_damaged_file_refused(fitted, tmp_path, change, match, Imputer.load)


def test_a_file_written_before_missingness_loads_as_missing_at_random(tmp_path):
    X, y = _table(n=200, seed=4)
    Xm, _ = _blank(X, False)
    imp = Imputer(configurations="naive", random_state=0, missingness="auto").fit(Xm, y)
    path, old = tmp_path / "imputer.bnb", tmp_path / "old.bnb"
    imp.save(path)

    def drop(meta):
        meta["fitted"].pop("missingness")
        meta["fitted"].pop("odds")  # (they came later still)
        meta["params"]["__dict__"] = [kv for kv in meta["params"]["__dict__"] if kv[0] != "missingness"]
    _edit_meta(path, old, drop)
    again = Imputer.load(old)
    assert again.missingness == "mar" and again.missingness_ is None
    pd.testing.assert_frame_equal(again.impute(Xm, y), imp.impute(Xm, y))


def test_a_bad_missingness_is_refused_by_name(self_masked):
    _, y, Xm, _ = self_masked
    with pytest.raises(ValueError, match=r"missingness must be one of \('auto', 'mar', 'mnar'\); received 'MNAR'"):
        Imputer(missingness="MNAR").fit(Xm, y)


def test_clearly_worse_needs_two_standard_errors():
    truth = np.array(["a"] * 50 + ["b"] * 50, dtype=object)
    same = truth.copy()
    assert not clearly_worse(truth, same, same, "error")
    off = truth.copy()
    off[:2] = "b"  # 2 errors in 100: within two standard errors of 0
    assert not clearly_worse(truth, off, truth, "error")
    assert clearly_worse(truth, np.full(100, "b", dtype=object), truth, "error")
    t = np.linspace(0.0, 1.0, 40)
    assert clearly_worse(t, t + 0.5, t, "squared") and not clearly_worse(t, t, t + 0.5, "squared")


def test_cli_impute_table_takes_missingness(self_masked, tmp_path, capsys):
    _, y, Xm, _ = self_masked
    data = tmp_path / "t.csv"
    Xm.assign(label=y).to_csv(data, index=False)
    out = tmp_path / "f.csv"
    assert main(["impute-table", str(data), "-o", str(out), "--target", "label", "--label-given",
                 "--configurations", "naive,latent", "--missingness", "auto"]) == 0
    assert "mnar (self-masking" in capsys.readouterr().out
    got = pd.read_csv(out, dtype=str, keep_default_na=False)
    expected = impute_table(Xm, y, configurations=CONFIGS, label_given=True, random_state=0,
                            missingness="auto").table
    assert got.drop(columns="label").equals(expected.astype(str))
    assert main(["impute-table", str(data), "-o", str(tmp_path / "g.csv"), "--missingness", "maybe"]) == 2
    err = capsys.readouterr().err
    assert "--missingness" in err and "invalid choice" in err and "Traceback" not in err


def test_a_categorical_column_with_more_values_than_classes_takes_no_node():
    """A self-masking node on a categorical column is identified through at least as many differing states as
    values; the classes are those states (``mnar_config.identified_values``). Two classes: the yes/no columns take
    a node, the four-valued one does not (it takes its own self-masking odds instead, ``odds_``); without labels (one
    class) none does, and every column takes the odds (``"mnar"``: without their test)."""
    X, y = _table(n=400)
    rng = np.random.default_rng(3)
    X["four"] = np.where(y == "yes", rng.choice(["p", "q"], len(X)), rng.choice(["r", "s"], len(X))).astype(object)
    Xm, _ = _blank(X, True)
    imp = Imputer(configurations=CONFIGS, label_given=True, random_state=0, missingness="mnar").fit(Xm, y)
    nodes = {X.columns[sc.column] for sc in imp.models_["mnar"].fit.columns}
    assert nodes == set(X.columns) - {"four"}
    assert imp.chosen_["four"] != "mnar" and imp.chosen_["c0"] == "mnar"
    assert list(imp.odds_) == ["four"] and imp.odds_["four"].used
    alone = Imputer(configurations=CONFIGS, random_state=0, missingness="mnar").fit(Xm)
    # one class: the naive model's predictive is the same in every row (no odds); the latent model's varies
    reweighted = {c for c in X.columns if alone.chosen_[c] != "naive"}
    assert "mnar" not in alone.models_ and reweighted and set(alone.odds_) == reweighted
    assert all(o.used for o in alone.odds_.values())
    with pytest.raises(ValueError, match="no column can take a missingness node"):  # one value: nothing to weigh
        Imputer(configurations=CONFIGS, random_state=0, missingness="mnar").fit(Xm[["c0"]].fillna("a").assign(
            one=["x"] * 200 + [None] * (len(Xm) - 200)))
