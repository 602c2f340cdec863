"""NBOutlierDetector: scikit-learn's novelty-detector contract, the threshold, the scores and the
cell scores, on the bundled tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

import bayesnb
from bayesnb import CategoricalNB, GaussianNB, NaiveBayes, NBOutlierDetector
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.generative.outlier_threshold import AUTO_CONTAMINATION


@pytest.fixture(scope="module")
def penguins():
    return load_penguins().drop(columns="species")


@pytest.fixture(scope="module")
def votes():
    df = load_house_votes()
    return df.drop(columns="party"), df["party"]


@parametrize_with_checks([NBOutlierDetector()])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_contract_basics(penguins):
    det = NBOutlierDetector(NaiveBayes(alpha=2.0), contamination=0.2)
    assert det.get_params()["contamination"] == 0.2 and det.get_params()["estimator__alpha"] == 2.0
    twin = clone(det)
    assert twin is not det and twin.get_params()["estimator"] is not det.estimator
    for method in (det.score_samples, det.decision_function, det.predict, det.cell_scores):
        with pytest.raises(NotFittedError):
            method(penguins)
    assert det.fit(penguins) is det and not hasattr(det.estimator, "posterior_")  # the template stays unfitted
    assert det.n_features_in_ == penguins.shape[1] and list(det.feature_names_in_) == list(penguins.columns)
    assert "NBOutlierDetector" in bayesnb.__all__ and bayesnb.NBOutlierDetector is NBOutlierDetector


@pytest.mark.parametrize("contamination", [0.01, 0.05, 0.1, 0.25, 0.5])
def test_contamination_is_the_share_flagged_on_the_training_rows(penguins, contamination):
    # the default model (histograms of binned values): scores tie, so the threshold is the lowest
    # score with more than the contamination share at or below it
    det = NBOutlierDetector(contamination=contamination).fit(penguins)
    scores, k = det.score_samples(penguins), int(np.floor(contamination * len(penguins)))
    flagged = det.predict(penguins) == -1
    np.testing.assert_array_equal(flagged, scores < det.offset_)
    assert flagged.sum() <= k < (scores <= det.offset_).sum()
    assert det.contamination_ == contamination
    # Gaussian numerics: distinct scores, so exactly floor(contamination * n) rows are flagged
    numeric = penguins.select_dtypes("number").dropna().astype(float)
    det = NBOutlierDetector(GaussianNB(), contamination=contamination).fit(numeric)
    scores = det.score_samples(numeric)
    assert np.unique(scores).size == len(scores)
    assert (det.predict(numeric) == -1).sum() == int(np.floor(contamination * len(numeric)))


def test_auto_contamination_and_bad_values(penguins):
    det = NBOutlierDetector().fit(penguins)
    assert det.contamination_ == AUTO_CONTAMINATION
    assert (det.predict(penguins) == -1).sum() <= int(np.floor(AUTO_CONTAMINATION * len(penguins)))
    for bad in (0, 0.0, 0.6, -0.1, "most", True, None):
        with pytest.raises(ValueError, match=r"contamination must be 'auto' or a fraction in \(0, 0.5\]; received"):
            NBOutlierDetector(contamination=bad).fit(penguins)
    with pytest.raises(TypeError, match="estimator must be a bayesnb estimator.*received IsolationForest"):
        from sklearn.ensemble import IsolationForest
        NBOutlierDetector(IsolationForest()).fit(penguins)


def test_scores_are_the_wrapped_models(penguins, votes):
    # unfitted, no labels: one class for every row (the default: a structure chosen by evidence)
    det = NBOutlierDetector(contamination=0.1, statistic="density").fit(penguins)
    one_class = NaiveBayes(structure="auto", auto_cv=False, edge_score="hierarchical").fit(
        penguins, np.zeros(len(penguins), dtype=int))
    assert det.estimator_.get_params()["edge_score"] == "hierarchical"
    assert det.estimator_.structure_kind_ != "naive"
    np.testing.assert_allclose(det.score_samples(penguins), one_class.score_samples(penguins))
    naive = NBOutlierDetector(NaiveBayes(), contamination=0.1, statistic="density").fit(penguins)
    np.testing.assert_allclose(naive.score_samples(penguins), NaiveBayes().fit(
        penguins, np.zeros(len(penguins), dtype=int)).score_samples(penguins))
    np.testing.assert_allclose(det.decision_function(penguins), one_class.score_samples(penguins) - det.offset_)
    # unfitted, with labels: the class mixture
    X, y = votes
    labelled = NBOutlierDetector(CategoricalNB(), statistic="density").fit(X, y)
    np.testing.assert_allclose(labelled.score_samples(X), CategoricalNB().fit(X, y).score_samples(X))
    # fitted: used as it is (fit on other rows only calibrates the threshold)
    model = CategoricalNB().fit(X, y)
    det = NBOutlierDetector(model, contamination=0.1, statistic="density").fit(X.iloc[:100])
    assert det.estimator_ is model and list(model.classes_) == sorted(set(y))
    np.testing.assert_allclose(det.score_samples(X), model.score_samples(X))
    assert not hasattr(model, "offset_")  # the threshold is the detector's, never set on the model


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_out_of_range_value_scores_lower_and_its_cell_is_named(penguins, structure):
    det = NBOutlierDetector(NaiveBayes(structure=structure)).fit(penguins)
    clean = penguins.iloc[[0, 5, 10]]
    for column, value in (("body_mass_g", 50_000), ("bill_length_mm", -40.0), ("flipper_length_mm", 10)):
        odd = clean.assign(**{column: value})
        assert (det.score_samples(odd) < det.score_samples(clean)).all(), column
        assert (det.predict(odd) == -1).all(), column
        assert (det.cell_scores(odd).idxmin(axis=1) == column).all(), column


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_swapped_categorical_cell_scores_lower(votes, structure):
    X, y = votes
    det = NBOutlierDetector(NaiveBayes(structure=structure)).fit(X, y)
    model = det.estimator_
    rows = X[(y == "democrat").to_numpy() & X.notna().all(axis=1).to_numpy()].iloc[:20]
    # swap the vote on the issue that splits the parties most: each row takes the other party's typical vote
    column = "physician-fee-freeze"
    swapped = rows.assign(**{column: rows[column].map({"y": "n", "n": "y"})})
    assert (det.score_samples(swapped) < det.score_samples(rows)).mean() >= 0.9
    worst = det.cell_scores(swapped).idxmin(axis=1)
    assert (worst == column).mean() >= 0.8
    unseen = rows.assign(**{column: "maybe"})  # a category never seen in training
    assert (model.score_samples(unseen) < model.score_samples(rows)).all()


def test_cell_scores_methods(penguins, votes):
    X, y = votes
    det = NBOutlierDetector(CategoricalNB(), statistic="density").fit(X, y)
    contributions, term = det.estimator_.feature_log_contributions(X.iloc[:30], return_class_term=True)
    got = det.cell_scores(X.iloc[:30])
    pd.testing.assert_frame_equal(got, contributions)
    np.testing.assert_allclose(got.sum(axis=1) + term, det.score_samples(X.iloc[:30]))
    # conditional: log p(x_j | rest of the row), for every structure; a missing cell scores 0
    tan = NBOutlierDetector(NaiveBayes(structure="tan"), statistic="density").fit(penguins)
    rows = penguins.iloc[:40]
    cond = tan.cell_scores(rows, method="conditional")
    assert isinstance(cond, pd.DataFrame) and list(cond.columns) == list(penguins.columns)
    hidden = rows.assign(island=None)
    np.testing.assert_allclose(cond["island"], tan.score_samples(rows) - tan.score_samples(hidden))
    missing = rows.isna().to_numpy()
    assert missing.any() and (cond.to_numpy()[missing] == 0).all()
    first = X.columns[0]
    some = X.iloc[:30]
    cond = det.cell_scores(some, method="conditional")[first].to_numpy()
    seen = some[first].notna().to_numpy()
    np.testing.assert_allclose(cond[seen], (det.score_samples(some) - det.score_samples(some.assign(**{first: None})))[seen])
    assert (cond[~seen] == 0).all()
    with pytest.raises(ValueError, match="method must be one of"):
        det.cell_scores(X, method="shap")
    # contributions under a structure: each node's term, adding up to the score with the class term
    contributions, term = tan.estimator_.feature_log_contributions(rows, return_class_term=True)
    pd.testing.assert_frame_equal(tan.cell_scores(rows), contributions)
    np.testing.assert_allclose(contributions.sum(axis=1) + term, tan.score_samples(rows), rtol=1e-10)


def test_dense_arrays(penguins):
    numeric = penguins.select_dtypes("number").dropna().to_numpy(dtype=float)
    det = NBOutlierDetector(contamination=0.1, statistic="density").fit(numeric)
    odd = numeric[:3].copy()
    odd[:, 1] = 1e4
    assert (det.score_samples(odd) < det.score_samples(numeric[:3])).all()
    cond = det.cell_scores(odd, method="conditional")
    assert cond.shape == odd.shape and (cond.argmin(axis=1) == 1).all()
    np.testing.assert_array_equal(det.cell_scores(odd).argmin(axis=1), [1, 1, 1])


def test_the_default_sees_rows_whose_values_do_not_go_together(penguins):
    """Each column of the scored rows permuted on its own: every value is real, the rows are not. A naive
    model of one class (the product of the column marginals) cannot tell them from real rows; the
    default, whose structure models the dependence between the columns, scores them lower."""
    rng = np.random.default_rng(0)
    order = rng.permutation(len(penguins))
    train, held = penguins.iloc[order[:240]], penguins.iloc[order[240:]].reset_index(drop=True)
    assembled = held.apply(lambda c: c.sample(frac=1.0, random_state=int(rng.integers(1 << 30))).to_numpy())
    for det, gap in ((NBOutlierDetector(), 2.0), (NBOutlierDetector(NaiveBayes()), None)):
        det.fit(train)
        real, fake = det.score_samples(held), det.score_samples(assembled)
        if gap is None:  # naive: the same marginals, about the same scores
            assert abs(np.median(real) - np.median(fake)) < 1.0
        else:
            assert np.median(real) - np.median(fake) > gap


def test_the_default_keeps_its_cv_guard_when_given_labels():
    """With labels the default model is a classifier of them, and its structure="auto" check (the
    out-of-fold ``-log p(y | x)`` of the evidence's choice against naive's) runs; for one class (no
    labels) that loss is 0 for every structure and the check is off. Weights stay equivalent to
    repeated rows with labels."""
    df = load_penguins()
    X, y = df.drop(columns="species"), df["species"]
    labelled = NBOutlierDetector().fit(X, y).estimator_
    assert labelled.get_params()["auto_cv"] is True
    assert np.isfinite(labelled.structure_scores_["cv_log_loss"]).any()
    alone = NBOutlierDetector().fit(X).estimator_
    assert alone.get_params()["auto_cv"] is False
    assert not np.isfinite(alone.structure_scores_["cv_log_loss"]).any()
    w = np.where(np.arange(len(X)) % 3 == 0, 2.0, 1.0)
    rep = np.repeat(np.arange(len(X)), w.astype(int))
    weighted = NBOutlierDetector().fit(X, y, sample_weight=w)
    repeated = NBOutlierDetector().fit(X.iloc[rep], y.iloc[rep])
    assert weighted.estimator_.structure_kind_ == repeated.estimator_.structure_kind_
    np.testing.assert_allclose(weighted.score_samples(X.head(50)), repeated.score_samples(X.head(50)))


# ------------------------------------------------------------------------------ model file
@pytest.mark.parametrize("given, range_tails", [(False, True), (True, False)])
def test_a_saved_detector_loads_and_scores_as_the_fitted_one(penguins, tmp_path, given, range_tails):
    model = NBOutlierDetector(NaiveBayes()).fit(penguins).estimator_ if given else None  # a fitted one-class model
    det = NBOutlierDetector(model, contamination=0.1, range_tails=range_tails).fit(penguins)
    det.save(tmp_path / "det.bnb")
    back = bayesnb.load(tmp_path / "det.bnb")
    assert isinstance(back, NBOutlierDetector) and back.offset_ == det.offset_
    assert back.contamination_ == det.contamination_ and (back.range_tails_ is None) == (not range_tails)
    assert (back.estimator is None) == (not given) and back.get_params(deep=False)["contamination"] == 0.1
    odd = penguins.iloc[:5].assign(body_mass_g=50_000)
    for rows in (penguins, odd):
        np.testing.assert_array_equal(back.decision_function(rows), det.decision_function(rows))
        np.testing.assert_array_equal(back.predict(rows), det.predict(rows))
    pd.testing.assert_frame_equal(back.cell_scores(odd), det.cell_scores(odd))
    with pytest.raises(FileExistsError):
        det.save(tmp_path / "det.bnb")
    with pytest.raises(NotFittedError):
        NBOutlierDetector().save(tmp_path / "unfitted.bnb")


@pytest.mark.parametrize("what, change", [
    ("offset", lambda m: m["fitted"].__setitem__("offset", "x")),
    ("contamination", lambda m: m["params"].__setitem__("contamination", 0.7)),
    ("contamination_", lambda m: m["fitted"].__setitem__("contamination", 0.2)),
    ("range_tails flag", lambda m: m["params"].__setitem__("range_tails", "yes")),
    ("tails without range_tails", lambda m: m["params"].__setitem__("range_tails", False)),
    ("tails fields", lambda m: m["fitted"]["range_tails"].pop("lo")),
])
def test_an_edited_detector_file_is_refused(penguins, tmp_path, what, change):
    from helpers import edit_meta

    from bayesnb.io.persistence import ModelFileError

    NBOutlierDetector(contamination=0.1).fit(penguins).save(tmp_path / "det.bnb")
    edit_meta(tmp_path / "det.bnb", tmp_path / "bad.bnb", change)
    with pytest.raises(ModelFileError, match="invalid model file"):
        bayesnb.load(tmp_path / "bad.bnb")


def test_edited_range_tails_are_refused(penguins, tmp_path):
    from bayesnb.io.detector_file import _tails_from_file
    from bayesnb.io.persistence import ModelFileError

    tails = NBOutlierDetector().fit(penguins).range_tails_
    d = len(tails.lo)
    node = {f: getattr(tails, f) for f in tails._fields}
    kept = _tails_from_file(node, lambda a: a, d, True)  # accepted as saved
    for field in tails._fields:
        np.testing.assert_array_equal(getattr(kept, field), getattr(tails, field))
    for field, value in (("below", -1.0), ("hi", -1e9), ("lo", np.nan), ("above", np.inf)):
        bad = dict(node)
        j = int(np.flatnonzero(~np.isnan(tails.lo))[0])
        bad[field] = bad[field].copy()
        bad[field][j] = value
        with pytest.raises(ModelFileError, match="range tails"):
            _tails_from_file(bad, lambda a: a, d, True)
    with pytest.raises(ModelFileError, match="shape"):
        _tails_from_file({**node, "lo": node["lo"][:-1]}, lambda a: a, d, True)
