"""Synthesizer.sample keeps every numeric value within its column's observed range (bayesnb.synth.observed_range):
rows holding a value outside are drawn again, so the rows kept are the model's draws conditioned on the ranges."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bayesnb import Synthesizer, synthetic_report
from bayesnb.synth import observed_range


def _skewed(n=150, seed=0):
    """A long-tailed positive column (the evidence picks an unbounded family for it), a category and a label."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["a", "b"], dtype=object), n)
    x = np.exp(rng.normal(np.where(y == "a", 0.0, 1.0), 1.2))
    return pd.DataFrame({"x": x, "c": rng.choice(np.array(["p", "q"], dtype=object), n), "y": y})


@pytest.fixture(scope="module")
def fitted():
    """``numeric="auto"``: the evidence's unbounded family (a Histogram, the default, draws training values)."""
    df = _skewed()
    return df, Synthesizer(target="y", random_state=0, numeric="auto").fit(df)


def _outside(values, real):
    return (values < real.min()) | (values > real.max())


def test_no_synthetic_value_leaves_its_columns_observed_range(fitted):
    df, synth = fitted
    raw = synth.model_.sample(5000, random_state=1)[0]  # the fitted model itself draws beyond the range
    assert _outside(raw["x"].to_numpy(dtype=float), df["x"]).mean() > 0.005
    out = synth.sample(5000, random_state=1)
    assert not _outside(out["x"], df["x"]).any()
    assert synthetic_report(df, out).summary["out_of_range"] == 0
    again = synth.sample(5000, random_state=1)
    pd.testing.assert_frame_equal(out, again)  # still one draw per seed


def test_the_rows_kept_are_the_models_rows_within_the_range(fitted):
    df, synth = fitted
    out = synth.sample(4000, random_state=2)
    raw = synth.model_.sample(20000, random_state=3)[0]["x"].to_numpy(dtype=float)
    inside = raw[~_outside(raw, df["x"])]  # the model's draws conditioned on the range
    assert stats.ks_2samp(out["x"], inside).pvalue > 0.01
    assert out["x"].min() < np.quantile(df["x"], 0.01) and out["x"].max() > np.quantile(df["x"], 0.99)  # not clipped


def test_per_row_conditions_stay_with_their_rows(fitted):
    df, synth = fitted
    cats = np.array(["p", "q"] * 1500, dtype=object)
    labels = np.array(["a"] * 1500 + ["b"] * 1500, dtype=object)
    out = synth.sample(3000, given={"c": cats, "y": labels}, random_state=4)
    assert (out["c"].to_numpy() == cats).all() and (out["y"].to_numpy() == labels).all()
    assert not _outside(out["x"], df["x"]).any()
    # a condition on the column itself is the user's: its values are drawn as the condition says
    wide = synth.sample(200, given={"x": (df["x"].max() + 1.0, df["x"].max() + 50.0)}, random_state=5)
    assert (wide["x"] > df["x"].max()).all()


def test_values_still_outside_after_the_redraws_are_clipped_with_a_warning(fitted, monkeypatch):
    df, synth = fitted
    monkeypatch.setattr(observed_range, "MAX_REDRAWS", 0)
    with pytest.warns(UserWarning, match="outside its column's observed range after 0 draws"):
        out = synth.sample(5000, random_state=1)
    assert not _outside(out["x"], df["x"]).any()
    assert (out["x"] == df["x"].max()).any()  # clipped onto the range's end


def test_a_private_synthesizer_keeps_its_declared_bounds_not_the_data():
    from bayesnb import DP

    df = _skewed(n=400)
    synth = Synthesizer(target="y", privacy=DP(epsilon=1.0, bounds={"x": (0.0, 200.0)}, classes=["a", "b"]),
                        categories={"c": ["p", "q"]}, random_state=0).fit(df)
    assert observed_range.observed_ranges(synth.model_) == {}  # no record of the data's range is kept
    out = synth.sample(2000, random_state=0)
    # (its noisy missing-indicator node may draw a few missing cells: docs/privacy.md)
    assert out["x"].dropna().between(0.0, 200.0).all()


def test_labels_drawn_again_keep_their_full_values():
    from bayesnb.synth.observed_range import sample_in_range

    class Model:  # one numeric column observed on [0, 1]
        feature_names_in_ = ["x"]
        value_support_ = {0: type("S", (), {"lo": 0.0, "hi": 1.0, "masses": np.zeros(0)})()}

    calls = []

    def draw(rows, rng, given, y):  # the first draw: short labels and one value outside; then long labels inside
        calls.append(rows)
        if len(calls) == 1:
            return pd.DataFrame({"x": [0.5, 3.0, 0.2]}), np.array(["a", "a", "a"]), 0.25
        return pd.DataFrame({"x": [0.7] * rows}), np.array(["long label"] * rows), 0.5

    X, labels, p = sample_in_range(draw, Model(), 3, 0)
    assert calls == [3, 1] and X["x"].tolist() == [0.5, 0.7, 0.2] and p == 0.25
    assert labels.tolist() == ["a", "long label", "a"]


def test_the_clipping_warning_points_at_the_callers_line(fitted, monkeypatch):
    df, synth = fitted
    monkeypatch.setattr(observed_range, "MAX_REDRAWS", 0)
    with pytest.warns(UserWarning) as record:
        synth.sample(5000, random_state=1)
    assert any(w.filename == __file__ for w in record)
