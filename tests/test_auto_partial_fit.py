"""``partial_fit`` with ``NaiveBayes(features="auto")`` (issue 31, item 8).

An unfitted auto model with a numeric column refuses ``partial_fit`` (the family and a
Histogram's bins would be the first batch's, which ``fit`` need not choose); a categorical-only
table is accepted and equals ``fit``; ``bayesnb fit --chunksize`` pins the first chunk's
families explicitly.
"""

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb import NaiveBayes
from bayesnb.cli import main


def _table(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({"colour": rng.choice(["r", "g", "b"], n), "count": rng.poisson(2 + 3 * y),
                      "size": rng.lognormal(y, 0.5)})
    return X, y


def test_partial_fit_on_an_unfitted_auto_model_with_numeric_columns_is_refused():
    X, y = _table()
    with pytest.raises(ValueError, match=r"refused: X has numeric column\(s\) \['count', 'size'\].*blocks_"):
        NaiveBayes().partial_fit(X, y, classes=[0, 1])
    # the alternatives it names work: fit a first batch then partial_fit, or pass its blocks_
    first = NaiveBayes().fit(X[:60], y[:60])
    first.partial_fit(X[60:], y[60:])
    pinned = NaiveBayes(features={tuple(c): f for c, f in NaiveBayes().fit(X[:60], y[:60]).blocks_})
    pinned.partial_fit(X[:60], y[:60], classes=[0, 1]).partial_fit(X[60:], y[60:])
    np.testing.assert_allclose(pinned.predict_joint_log_proba(X), first.predict_joint_log_proba(X), rtol=1e-12)
    # once fitted, partial_fit continues (the refusal is only about choosing on a batch)
    assert hasattr(first, "posterior_")


def test_a_categorical_only_auto_table_partial_fits_to_fit():
    X, y = _table()
    X = X[["colour"]].assign(flag=X["count"] > 3)
    once = NaiveBayes().fit(X, y)
    batched = NaiveBayes().partial_fit(X[:40], y[:40], classes=[0, 1]).partial_fit(X[40:], y[40:])
    np.testing.assert_allclose(batched.predict_joint_log_proba(X), once.predict_joint_log_proba(X), rtol=1e-12)


def test_fit_chunksize_pins_the_first_chunks_families(tmp_path, capsys):
    X, y = _table(n=150)
    csv = tmp_path / "t.csv"
    X.assign(label=y).to_csv(csv, index=False)
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
