"""structure="tan" on a mixed table whose numeric columns have different families: samples and imputations
keep each column's support and integer dtype (each node keeps the family features="auto" chose)."""

import numpy as np
import pandas as pd

import bayesnb


def _table(seed=0, n=300):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < np.where(y == 1, 0.7, 0.3), "p", "q")
    count = rng.poisson(np.where(a == "p", 1.0, 4.0) + y)  # whole numbers >= 0, depends on a
    pos = np.exp(rng.normal(0.5 * count / 4 + y, 0.4))  # positive reals, follows count
    zero = np.where(rng.random(n) < 0.4, 0.0, np.round(np.exp(rng.normal(1 + y, 0.5, n)), 3))  # zeros and positives
    steps = rng.choice(np.array([-3, 0, 2, 7, 20]), n, p=[0.1, 0.3, 0.2, 0.3, 0.1]) + 10 * y  # whole, some < 0
    X = pd.DataFrame({"a": a.astype(object), "count": count.astype(np.int64), "pos": pos, "zero": zero,
                      "steps": steps.astype(np.int64)})
    return X, y


def test_tan_samples_keep_support_and_integer_dtypes():
    X, y = _table()
    m = bayesnb.NaiveBayes(structure="tan").fit(X, y)
    fams = m.family_scores_.query("chosen").set_index("column")["family"].str.split("(").str[0].to_dict()
    # count is a mixture of Poissons over a (so a histogram may beat one Poisson per class): either is whole
    assert fams["count"] in ("Poisson", "Histogram") and fams["steps"] == "Histogram"
    assert (fams["pos"], fams["zero"]) == ("LogNormal", "Hurdle")
    assert m.structure_kind_ == "tan" and any(m.structure_.values())
    for pu in (True, False):
        S, _ = m.sample(3000, random_state=1, parameter_uncertainty=pu)
        assert S["count"].dtype == np.int64 and S["steps"].dtype == np.int64
        assert (S["count"] >= 0).all() and (S["pos"] > 0).all() and (S["zero"] >= 0).all()
        assert 0.2 < (S["zero"] == 0).mean() < 0.6  # the hurdle's point mass is drawn
        assert set(S["steps"]) <= set(X["steps"])  # a histogram draws training values
        assert S.notna().all().all()
    # the nodes' conditional families are used: count given a follows the data, not the naive marginal
    for cat in ("p", "q"):
        assert abs(S.loc[S["a"] == cat, "count"].mean() - X.loc[X["a"] == cat, "count"].mean()) < 0.6


def test_tan_imputations_keep_support_and_whole_numbers():
    X, y = _table()
    rng = np.random.default_rng(2)
    Xm = X.astype({"count": float, "steps": float}).mask(rng.random(X.shape) < 0.3)
    m = bayesnb.NaiveBayes(structure="tan").fit(Xm, y)
    for strategy in ("auto", "mode", "draw"):
        F = m.impute(Xm, strategy=strategy, random_state=0)
        assert not F.isna().any().any()
        pd.testing.assert_frame_equal(F[Xm.notna()], Xm[Xm.notna()])
        assert (F["count"] >= 0).all() and np.all(F["count"] == np.round(F["count"]))
        assert (F["pos"] > 0).all() and (F["zero"] >= 0).all()
        assert np.all(F["steps"] == np.round(F["steps"]))
        lo, hi = Xm.min(numeric_only=True), Xm.max(numeric_only=True)
        assert ((F[lo.index] >= lo) & (F[lo.index] <= hi) | Xm[lo.index].notna()).loc[:, ["count", "steps"]].all().all()
