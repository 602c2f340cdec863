"""The literature's metrics of bayesnb.synthetic_report, each against a hand computation on a tiny
table (SDMetrics' shapes and trends, missing rates, unseen categories and pairs, alpha-precision /
beta-recall, DCR share, C2ST detection, efficacy AUC), then their place in the report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from bayesnb import synthetic_report
from bayesnb.synth import distance as sd
from bayesnb.synth import fidelity as fid
from bayesnb.synth.metrics import MISSING, macro_auc, train_scores

M = MISSING


def obj(*values):
    return np.array(values, dtype=object)


def test_column_shapes_by_hand():
    # KS of {1,2,3,4} vs {3,4,5,6}: F_real(4) = 1, F_synth(4) = 0.5; NaN left out
    assert fid.ks_complement(np.array([1.0, 2, 3, 4, np.nan]), np.array([3.0, 4, 5, 6])) == pytest.approx(0.5)
    # p = (a .5, b .25, missing .25), q = (a .25, b .5, c .25): TVD = 0.5 * (.25 + .25 + .25 + .25)
    assert fid.tv_complement(obj("a", "a", "b", M), obj("a", "b", "b", "c")) == pytest.approx(0.5)


def test_correlation_similarity_by_hand():
    # real r = 1 once the row with NaN is dropped; synthetic r = -1: 1 - |1 - (-1)| / 2 = 0
    rx, ry = np.array([1.0, 2, 3, np.nan]), np.array([2.0, 4, 6, 1])
    assert fid.pearson(rx, ry) == pytest.approx(1.0)
    assert fid.correlation_similarity(rx, ry, np.array([1.0, 2, 3]), np.array([3.0, 2, 1])) == pytest.approx(0.0)
    # x = 1, 2, 3, 4 and y = 1, 3, 2, 4 have r = 0.8 (4 / 5); against r = 1: 1 - |0.8 - 1| / 2
    assert fid.correlation_similarity(np.array([1.0, 2, 3, 4]), np.array([1.0, 3, 2, 4]), rx[:3], ry[:3]) == \
        pytest.approx(0.9)
    assert np.isnan(fid.correlation_similarity(np.ones(3), np.arange(3.0), np.arange(3.0), np.arange(3.0)))


def test_equal_width_bins_and_contingency_by_hand():
    # real range [0, 10] in 10 bins of width 1; outer bins open; NaN its own bin (10)
    r, s = fid.equal_width_codes(np.array([0.0, 10, np.nan]), np.array([-5.0, 5, 10, 20, np.nan]))
    assert r.tolist() == [0, 9, 10] and s.tolist() == [0, 5, 9, 9, 10]
    # real cells (0,0) (0,1) (1,0) (1,1) a quarter each; synthetic (0,0) .5, (0,1) .25, (1,1) .25
    # TVD = 0.5 * (.25 + 0 + .25 + 0) = .25
    a, b = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    assert fid.contingency_similarity(a, b, np.array([0, 0, 0, 1]), np.array([0, 0, 1, 1])) == pytest.approx(0.75)


def test_missing_rates_unseen_values_and_pairs_by_hand():
    assert fid.missing_rate(obj("a", "b", M)) == pytest.approx(1 / 3)
    assert fid.missing_rate(np.array([1.0, np.nan, 2, 3])) == 0.25
    assert fid.unseen_values(obj("a", "b", M), obj("a", "c", "c", M, 1)) == 3  # c, c and 1; not missing
    rows = fid.unseen_pair_rows({"a": (obj("x", "x", "y"), obj("x", "y", "y")),
                                 "b": (obj("u", "v", "u"), obj("u", "v", "u"))})
    assert list(rows) == [("a", "b")] and rows[("a", "b")].tolist() == [False, True, False]  # (y, v) unseen


def test_encode_distances_by_hand():
    # real x = 0, 2 (mean 1, sd 1); synthetic x = NaN, 4; categories u, v (real) and w, u
    real, syn = sd.encode([("numeric", np.array([0.0, 2]), np.array([np.nan, 4])),
                           ("categorical", obj("u", "v"), obj("w", "u"))])
    # (x 0, u) vs (x 4, u): z -1 vs 3, both observed, same category
    assert np.linalg.norm(real[0] - syn[1]) == pytest.approx(4.0)
    # (x 2, v) vs (missing, w): z 1 vs 0, missing indicator 0 vs 1, two categories apart (distance 1)
    assert np.linalg.norm(real[1] - syn[0]) == pytest.approx(np.sqrt(3.0))
    # min-max (synthcity's embedding): x / 2 (real range 0-2), one-hot 0/1 (two categories sqrt(2) apart)
    real, syn = sd.encode([("numeric", np.array([0.0, 2]), np.array([np.nan, 4])),
                           ("categorical", obj("u", "v"), obj("w", "u"))], scale="minmax")
    assert np.linalg.norm(real[0] - syn[1]) == pytest.approx(2.0)
    assert np.linalg.norm(real[1] - syn[0]) == pytest.approx(2.0)  # sqrt(1 + 1 + 2)


def test_alpha_precision_beta_recall_by_hand():
    real = np.array([[0.0], [1], [2], [3], [10]])
    syn = np.array([[0.5], [2.9], [5], [20]])
    # real rows' distances to their nearest other real row 1, 1, 1, 1, 7: median 1; synthetic
    # rows' nearest real distances .5, .1, 2, 10: 2 of 4 within 1. Synthetic rows' nearest
    # other synthetic distances 2.4, 2.1, 2.1, 15: median 2.25; real rows' nearest synthetic
    # distances .5, .5, .9, .1, 5: 4 of 5 within 2.25
    p, r = sd.alpha_precision_beta_recall(real, syn, alpha=0.5, beta=0.5, k=1)
    assert (p, r) == (pytest.approx(0.5), pytest.approx(0.8))
    # k = 2: the real rows' 2nd-neighbour distances 2, 1, 1, 2, 8 (median 2) admit the row at 5
    assert sd.alpha_precision_beta_recall(real, syn, alpha=0.5, beta=0.5, k=2)[0] == pytest.approx(0.75)


def test_integrated_alpha_beta_by_hand():
    real = np.array([[0.0], [1], [2], [3]])
    syn = np.array([[1.5], [4.6], [0.2], [0.9]])
    # alphas 0, .5, 1 (sum 1.5). Real rows' distances to their mean 1.5: 1.5, .5, .5, 1.5, quantiles
    # .5, 1, 1.5; synthetic rows' distances to it 0, 3.1, 1.3, .6: within .5 1/4, within 1 2/4,
    # within 1.5 3/4; |0 - .25| + |.5 - .5| + |1 - .75| = .5, so 1 - .5 / 1.5 = 2/3.
    # Real rows' nearest other real row: 1 each; nearest synthetic row .2 (0.2), .1 (0.9), .5 (1.5),
    # 1.5 (1.5): nearer for the first three. Those synthetic rows 0.2, 0.9, 1.5, 1.5 lie 1.6, .9, .3, .3
    # from the synthetic mean 1.8 (quantiles .3, .6, 1.6): coverage 1/4 (row 2), 1/4, 3/4;
    # |0 - .25| + |.5 - .25| + |1 - .75| = .75, so 1 - .75 / 1.5 = .5
    p, r = sd.integrated_alpha_beta(real, syn, n_steps=3)
    assert (p, r) == (pytest.approx(2 / 3), pytest.approx(0.5))
    with pytest.raises(ValueError, match="as many rows"):
        sd.integrated_alpha_beta(real, syn[:3])
    with pytest.raises(ValueError, match="scale must be"):
        sd.encode([("numeric", np.array([0.0, 2]), np.array([1.0]))], scale="min-max")


def test_integrated_alpha_beta_penalise_a_crowded_centre_that_the_knn_form_does_not():
    """Rows from the real distribution score about 1 and 0.5 (TabSyn's scale); rows crowding the real
    centre keep the k-NN alpha-precision near 1 but lose the integrated one; a copy reaches 1 and 1."""
    rng = np.random.default_rng(0)
    real = rng.normal(size=(1000, 3))
    fresh, crowded = rng.normal(size=(1000, 3)), 0.3 * rng.normal(size=(1000, 3))
    p, r = sd.integrated_alpha_beta(real, fresh)
    assert p > 0.95 and 0.45 < r < 0.52  # a curve of alpha / 2 scores exactly 0.5
    assert sd.alpha_precision_beta_recall(real, crowded)[0] > 0.99
    assert sd.integrated_alpha_beta(real, crowded)[0] < 0.3
    assert sd.integrated_alpha_beta(real, real.copy()) == (pytest.approx(1, abs=1e-3), pytest.approx(1, abs=1e-3))


def test_dcr_share_by_hand():
    syn = np.array([[0.0], [5], [10], [7]])
    # nearest train (0, 9) vs holdout (1, 5): 0 < 1, 4 > 0, 1 < 5, 2 = 2 (a tie, one half)
    assert sd.dcr_share(syn, np.array([[0.0], [9]]), np.array([[1.0], [5]])) == pytest.approx(2.5 / 4)


def test_distance_ties_on_categorical_columns_are_exact():
    # on one-hot categorical points a squared distance is the number of differing columns, so
    # many distances tie exactly; the k-NN search's rounding must not break those ties
    rng = np.random.default_rng(3)
    train, hold, syn = (rng.integers(0, 3, (60, 8)).astype(object) for _ in range(3))
    pts = sd.encode([("categorical", train[:, j], syn[:, j], hold[:, j]) for j in range(8)])
    t, s, h = pts[0], pts[1], pts[2]

    def nearest(a, b):
        return np.sqrt(((a[:, None, :] != b[None, :, :]).sum(-1)).min(1))

    d_t, d_h = nearest(syn, train), nearest(syn, hold)
    exact = np.mean(d_t < d_h) + 0.5 * np.mean(d_t == d_h)
    assert np.mean(d_t == d_h) > 0.2  # the case at hand: many ties
    assert sd.dcr_share(s, t, h) == exact
    np.testing.assert_array_equal(sd.nearest_distances(s, t), np.round(d_t, 9))


class _ScoreIsFirstColumn:
    """A 'classifier' whose probability of 'real' is the first feature."""

    def fit(self, X, y):
        return self

    def predict_proba(self, X):
        return np.column_stack([1 - X[:, 0], X[:, 0]])


def test_detection_score_by_hand():
    real, syn = np.zeros((30, 1)), np.ones((30, 1))
    # AUC 1 in every fold: 1 - (2 * 1 - 1) = 0
    assert sd.detection_score(real + 1, syn - 1, _ScoreIsFirstColumn, 0) == 0.0
    assert sd.detection_score(real, syn, lambda: LogisticRegression(), 0) == 0.0
    # AUC 0 (worse than chance) is clipped at 0.5: score 1; and a constant score (AUC 0.5) too
    assert sd.detection_score(real, syn, _ScoreIsFirstColumn, 0) == 1.0
    assert sd.detection_score(real + 0.5, syn - 0.5, _ScoreIsFirstColumn, 0) == 1.0


def test_macro_auc_by_hand():
    proba = np.array([[0.9, 0.1], [0.4, 0.6], [0.6, 0.4], [0.2, 0.8]])
    # class a: positives .9, .4 against .6, .2: 3 of 4 pairs ordered; class b the same
    assert macro_auc(obj("a", "a", "b", "b"), obj("a", "b"), proba) == pytest.approx(0.75)
    # a class the model never saw scores 0 for every row: AUC 0.5; a and b are ranked perfectly
    proba = np.array([[0.7, 0.3], [0.2, 0.8], [0.5, 0.5], [0.6, 0.4]])
    assert macro_auc(obj("a", "b", "c", "c"), obj("a", "b"), proba) == pytest.approx(2.5 / 3)
    assert macro_auc(obj("a", "a"), obj("a", "b"), proba[:2]) is None


def test_train_scores_single_class_is_chance():
    x = [np.arange(6.0)]
    acc, auc = train_scores(x, obj(*"aaaaaa"), x, obj(*"aabbbb"), ["numeric"], 0)
    assert acc == pytest.approx(2 / 6) and auc == 0.5


def tiny(n=200, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.choice(["p", "q"], n)
    b = np.where(a == "p", "u", rng.choice(["u", "v"], n)).astype(object)  # (p, v) never occurs
    x = rng.normal(size=n) + (a == "q")
    y = x + rng.normal(size=n)
    y[:10] = np.nan
    return pd.DataFrame({"a": a, "b": b, "x": x, "y": y})


def test_report_matches_the_definitions():
    real, syn = tiny(), tiny(150, seed=1)
    syn.loc[:4, "b"] = "v"  # some (p, v) rows
    syn.loc[:2, "a"] = "zz"  # an unseen category
    r = synthetic_report(real, syn, random_state=0, metrics=())
    cols = r.columns.set_index("column")
    assert cols.loc["a", "shape"] == pytest.approx(1 - cols.loc["a", "value"])
    assert cols.loc["y", "missing_rate_error"] == pytest.approx(abs(10 / 200 - 10 / 150))
    assert cols.loc["a", "unseen_categories"] == 3 and r.summary["unseen_categories"] == 3
    pairs = r.pairs.set_index(["a", "b"])
    # the mixed pair (a, x) by pandas: x in 10 equal-width bins of its real range
    edges = np.histogram_bin_edges(real["x"], bins=10)[1:-1]
    p, q = (pd.crosstab(d["a"], np.searchsorted(edges, d["x"], side="right"), normalize=True).stack()
            for d in (real, syn))
    assert pairs.loc[("a", "x"), "trend"] == pytest.approx(1 - 0.5 * p.sub(q, fill_value=0).abs().sum())
    rc, sc = real[["x", "y"]].dropna().corr().iloc[0, 1], syn[["x", "y"]].dropna().corr().iloc[0, 1]
    assert pairs.loc[("x", "y"), "trend"] == pytest.approx(1 - abs(rc - sc) / 2)
    assert pairs.loc[("x", "y"), "trend_metric"] == "CorrelationSimilarity"
    bad = ((syn["a"] == "p") & (syn["b"] == "v")) | (syn["a"] == "zz")
    assert r.summary["unseen_category_pairs"] == pytest.approx(bad.mean())
    assert pairs.loc[("a", "b"), "unseen_pair_share"] == pytest.approx(bad.mean())
    assert r.summary["column_shapes"] == pytest.approx(cols["shape"].mean())
    assert r.summary["column_pair_trends"] == pytest.approx(r.pairs["trend"].mean())
    assert r.summary["alpha_precision"] is None and r.summary["dcr_share"] is None
    assert {"missing_rate_error", "TVComplement", "ContingencySimilarity"} <= set(r.to_frame()["metric"])


def test_report_scores_identical_copied_and_independent_tables():
    real, holdout, fresh = tiny(), tiny(seed=2), tiny(seed=3)
    same = synthetic_report(real, real.copy(), real_test=holdout, random_state=0)
    s = same.summary
    assert s["column_shapes"] == s["column_pair_trends"] == s["quality_score"] == 1.0
    assert s["max_missing_rate_error"] == 0 and s["unseen_category_pairs"] == 0
    assert s["alpha_precision"] == s["beta_recall"] == 1.0
    assert s["detection_logistic"] > 0.8 and s["detection_gbm"] > 0.8
    assert s["dcr_share"] > 0.9  # every synthetic row is a training row
    other = synthetic_report(real, fresh, real_test=holdout, random_state=0).summary
    assert 0.3 < other["dcr_share"] < 0.7 and other["detection_logistic"] > 0.7
    shifted = fresh.assign(x=fresh["x"] + 3)
    far = synthetic_report(real, shifted, real_test=holdout, random_state=0).summary
    assert far["detection_logistic"] < 0.2 and far["detection_gbm"] < 0.2
    assert far["alpha_precision"] < other["alpha_precision"] and far["column_shapes"] < other["column_shapes"]
    assert "alpha-precision" in str(same) and "DCR share" in str(same) and "detection (C2ST" in str(same)


def test_report_efficacy_and_metrics_argument():
    real, test = tiny(), tiny(seed=4)
    r = synthetic_report(real, real.copy(), target="a", real_test=test, random_state=0, metrics=["dcr"])
    s = r.summary
    assert s["efficacy_auc"] == s["efficacy_auc_real"] > 0.6 and s["tstr"] == s["trtr"]
    assert s["dcr_share"] is not None and s["detection_gbm"] is None and "efficacy: ROC AUC" in str(r)
    with pytest.raises(ValueError, match=r"metrics must be 'all' or a collection of \['alpha_beta'"):
        synthetic_report(real, real, metrics=["nope"])
    with pytest.raises(ValueError, match="max_rows must be an integer >= 2"):
        synthetic_report(real, real, max_rows=1)


def test_alpha_precision_and_beta_recall_see_different_failures():
    """Rows from half of the real distribution (mode collapse) keep precision and lose recall;
    rows spread twice as wide keep recall and lose precision; a fresh sample keeps both."""
    rng = np.random.default_rng(0)
    real = rng.normal(size=(400, 2))
    fresh = rng.normal(size=(400, 2))
    half = fresh[fresh[:, 0] < 0]
    wide = 2.5 * rng.normal(size=(400, 2))
    p, r = sd.alpha_precision_beta_recall(real, fresh)
    assert p > 0.9 and r > 0.9
    p, r = sd.alpha_precision_beta_recall(real, half)
    assert p > 0.9 and r < 0.8
    p, r = sd.alpha_precision_beta_recall(real, wide)
    assert p < 0.75 and r > 0.9
