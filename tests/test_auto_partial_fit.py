"""``partial_fit`` with ``NaiveBayes(features="auto")`` (issue 31, item 8).

On an unfitted auto model with a numeric column, ``partial_fit`` chooses the families (and a
Histogram's bins) on its first batch, which ``fit`` need not choose: it warns, naming the
columns and the explicit alternatives, whose batches add up as documented. A categorical-only
table partial_fits to ``fit`` with no warning. ``bayesnb fit --chunksize`` pins the first
chunk's families explicitly.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb import FirstBatchFamilyWarning, NaiveBayes
from bayesnb.cli import main


def _table(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({"colour": rng.choice(["r", "g", "b"], n), "count": rng.poisson(2 + 3 * y),
                      "size": rng.lognormal(y, 0.5)})
    return X, y


def test_first_batch_choice_warns_naming_the_numeric_columns_and_the_alternatives():
    X, y = _table()
    with pytest.warns(FirstBatchFamilyWarning, match=r"numeric column\(s\) \['count', 'size'\].*blocks_"):
        batched = NaiveBayes().partial_fit(X[:60], y[:60], classes=[0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", FirstBatchFamilyWarning)  # only the first call warns
        batched.partial_fit(X[60:], y[60:])
        # the alternatives it names: fit a first batch then partial_fit, or pass its blocks_
        first = NaiveBayes().fit(X[:60], y[:60]).partial_fit(X[60:], y[60:])
        pinned = NaiveBayes(features={tuple(c): f for c, f in NaiveBayes().fit(X[:60], y[:60]).blocks_})
        pinned.partial_fit(X[:60], y[:60], classes=[0, 1]).partial_fit(X[60:], y[60:])
    np.testing.assert_allclose(pinned.predict_joint_log_proba(X), first.predict_joint_log_proba(X), rtol=1e-12)
    np.testing.assert_allclose(batched.predict_joint_log_proba(X), first.predict_joint_log_proba(X), rtol=1e-12)


def test_histogram_features_warn_alike_and_add_up_to_a_fit_on_the_first_batchs_histograms():
    X, y = _table()
    with pytest.warns(FirstBatchFamilyWarning, match=r"features='histogram'\) chooses .*\['count', 'size'\]"):
        batched = NaiveBayes(features="histogram").partial_fit(X[:60], y[:60], classes=[0, 1])
    assert {type(f).__name__ for _, f in batched.blocks_} == {"Categorical", "Histogram"}
    first = NaiveBayes(features="histogram").fit(X[:60], y[:60])
    assert [repr(f) for _, f in batched.blocks_] == [repr(f) for _, f in first.blocks_]
    batched.partial_fit(X[60:], y[60:])
    first.partial_fit(X[60:], y[60:])
    np.testing.assert_allclose(batched.predict_joint_log_proba(X), first.predict_joint_log_proba(X), rtol=1e-12)


def test_pinned_families_without_histogram_and_categorical_tables_partial_fit_to_fit():
    X, y = _table()
    chosen = {tuple(c): f for c, f in NaiveBayes().fit(X, y).blocks_}
    no_hist = {c: f for c, f in chosen.items() if type(f).__name__ != "Histogram"}
    assert len(no_hist) >= 2
    cols = [c for key in no_hist for c in key]
    once = NaiveBayes(features=no_hist).fit(X[cols], y)
    batched = NaiveBayes(features=no_hist).partial_fit(X[cols][:40], y[:40], classes=[0, 1])
    batched.partial_fit(X[cols][40:], y[40:])
    np.testing.assert_allclose(batched.predict_joint_log_proba(X[cols]), once.predict_joint_log_proba(X[cols]),
                               rtol=1e-10)
    cat = X[["colour"]].assign(flag=X["count"] > 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FirstBatchFamilyWarning)  # nothing to choose: no warning
        auto = NaiveBayes().partial_fit(cat[:40], y[:40], classes=[0, 1]).partial_fit(cat[40:], y[40:])
    np.testing.assert_allclose(auto.predict_joint_log_proba(cat), NaiveBayes().fit(cat, y).predict_joint_log_proba(cat),
                               rtol=1e-12)


def test_fit_chunksize_pins_the_first_chunks_families(tmp_path, capsys):
    X, y = _table(n=150)
    csv = tmp_path / "t.csv"
    X.assign(label=y).to_csv(csv, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FirstBatchFamilyWarning)  # the CLI pins the families explicitly
        assert main(["fit", str(csv), "--target", "label", "-o", str(tmp_path / "c.bnb"), "--chunksize", "50"]) == 0
    err = capsys.readouterr().err
    assert "chose the family of each numeric column by its evidence on the first chunk" in err, err
    chunked = bayesnb.load(tmp_path / "c.bnb")
    df = pd.read_csv(csv)
    Xc, yc = df.drop(columns="label"), df["label"]
    ref = NaiveBayes(features={tuple(c): f for c, f in NaiveBayes().fit(Xc[:50], yc[:50]).blocks_})
    for lo in range(0, 150, 50):
        ref.partial_fit(Xc[lo:lo + 50], yc[lo:lo + 50], classes=[0, 1])
    assert [type(f).__name__ for _, f in chunked.blocks_] == [type(f).__name__ for _, f in ref.blocks_]
    np.testing.assert_allclose(chunked.predict_joint_log_proba(Xc), ref.predict_joint_log_proba(Xc), rtol=1e-12)
    assert chunked.family_scores_ is not None and len(chunked.family_scores_)
