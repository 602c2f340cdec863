"""Bad input gets a clear error; good-but-awkward input (missing, unseen, fractional) works.

Every error must name the estimator, what was expected and what was received
(DESIGN.md convention 6), so the tests match on those message parts. Nothing may
change the user's arrays in place.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from bayesnb import (AllMissingWarning, Bernoulli, BernoulliNB, Categorical, CategoricalNB, Gaussian,
                     GaussianNB, Multinomial, MultinomialNB, NaiveBayes)
from cases import BINARY, CODES, COUNTS, PER_ESTIMATOR, REAL, Y, params, with_missing

#: every estimator class, the test id its name; ``case.small()`` is (estimator, 30 x 4 array), labels Y
ALL = params(PER_ESTIMATOR, by="name")


# ----------------------------------------------------------------------------- counts and binary
def test_multinomial_negative_counts():
    X = COUNTS.copy()
    X[3, 2] = -1.0
    with pytest.raises(ValueError, match=r"MultinomialNB: .*counts must be >= 0.*received 1 negative value"):
        MultinomialNB().fit(X, Y)
    model = MultinomialNB().fit(COUNTS, Y)
    with pytest.raises(ValueError, match=r"MultinomialNB: .*counts must be >= 0.*received 1 negative value"):
        model.predict(X)
    with pytest.raises(ValueError, match=r"MultinomialNB: .*counts must be >= 0"):
        MultinomialNB().fit(sp.csr_matrix(X), Y)


def test_multinomial_accepts_fractional_counts():
    tfidf = COUNTS / np.linalg.norm(COUNTS, axis=1, keepdims=True).clip(1e-12)
    for predictive in ("mean", "marginal"):
        model = MultinomialNB(predictive=predictive).fit(tfidf, Y)
        proba = model.predict_proba(tfidf)
        assert np.all(np.isfinite(proba))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_bernoulli_non_binary_without_binarize():
    X = BINARY.copy()
    X[0, 0] = 2.0
    with pytest.raises(ValueError, match=r"BernoulliNB: Bernoulli features must be 0/1.*received value\(s\) \[2\.0\]"):
        BernoulliNB(binarize=None).fit(X, Y)
    model = BernoulliNB(binarize=None).fit(BINARY, Y)
    with pytest.raises(ValueError, match=r"BernoulliNB: .*0/1.*\[2\.0\].*binarize"):
        model.predict(X)
    # with a threshold the same values are fine
    proba = BernoulliNB(binarize=0.5).fit(X, Y).predict_proba(X)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(BernoulliNB(binarize=1.0).fit(COUNTS, Y).feature_count_,
                               BernoulliNB(binarize=None).fit((COUNTS > 1).astype(float), Y).feature_count_)


# ------------------------------------------------------------------------------- infinite values
@pytest.mark.parametrize("case", ALL)
@pytest.mark.parametrize("where", ["fit", "predict"])
def test_infinite_values_rejected(case, where):
    model, X = case.small()
    bad = X.astype(float)
    bad[2, 1] = np.inf
    bad[5, 1] = -np.inf
    if where == "predict":
        model.fit(X, Y)
        call = lambda: model.predict_proba(bad)  # noqa: E731
    else:
        call = lambda: model.fit(bad, Y)  # noqa: E731
    with pytest.raises(ValueError, match=rf"{case.name}: expected finite values in X.*received 2 infinite value\(s\) in column\(s\) \[1\]"):
        call()


def test_infinite_values_in_dataframe_and_object_array():
    df = pd.DataFrame({"colour": ["red", "blue", "red", "green"], "size": [1.0, np.inf, 2.0, 3.0]})
    y = ["a", "b", "a", "b"]
    with pytest.raises(ValueError, match=r"NaiveBayes: expected finite values in X.*column\(s\) \['size'\]"):
        NaiveBayes().fit(df, y)
    with pytest.raises(ValueError, match=r"CategoricalNB: expected finite values in X.*1 infinite"):
        CategoricalNB().fit(df.to_numpy(dtype=object), y)
    with pytest.raises(ValueError, match=r"MultinomialNB: expected finite values in X"):
        MultinomialNB().fit(sp.csr_matrix(np.where(COUNTS == 4, np.inf, COUNTS)), Y)
    nullable = pd.DataFrame({"colour": ["red", None, "red", "green"],
                             "size": pd.array([1.0, None, -np.inf, 2.0], dtype="Float64")})
    with pytest.raises(ValueError, match=r"NaiveBayes: expected finite values in X.*1 infinite value\(s\) in column\(s\) \['size'\]"):
        NaiveBayes().fit(nullable, y)


# --------------------------------------------------------------------------------- shape / empty
@pytest.mark.parametrize("case", ALL)
def test_wrong_number_of_columns_at_predict(case):
    model, X = case.small()
    model.fit(X, Y)
    with pytest.raises(ValueError, match=rf"X has 3 features, but {case.name} is expecting 4 features"):
        model.predict(X[:, :3])
    with pytest.raises(ValueError, match=rf"X has 5 features, but {case.name} is expecting 4 features"):
        model.predict_proba(np.column_stack([X, X[:, :1]]))


@pytest.mark.parametrize("case", ALL)
def test_empty_input(case):
    model, X = case.small()
    with pytest.raises(ValueError, match=rf"0 sample\(s\) \(shape=\(0, 4\)\) while a minimum of 1 is required by {case.name}"):
        model.fit(X[:0], Y[:0])
    with pytest.raises(ValueError, match=rf"0 feature\(s\) \(shape=\(30, 0\)\) while a minimum of 1 is required by {case.name}"):
        model.fit(X[:, :0], Y)
    model.fit(X, Y)
    with pytest.raises(ValueError, match=rf"0 sample\(s\).*required by {case.name}"):
        model.predict(X[:0])


def test_empty_dataframe():
    with pytest.raises(ValueError, match=r"CategoricalNB: expected X with at least one row.*shape \(0, 2\)"):
        CategoricalNB().fit(pd.DataFrame({"a": [], "b": []}), [])


def test_rows_of_x_and_y_differ():
    with pytest.raises(ValueError, match=r"MultinomialNB: expected one label per row of X \(30\); received 29"):
        MultinomialNB().fit(COUNTS, Y[:-1])


# ---------------------------------------------------------------------------------------- labels
@pytest.mark.parametrize("y", [
    ["a", 1] * 15,
    np.array(["a", 1] * 15, dtype=object),
    pd.Series(["a", 1] * 15),
], ids=["list", "object-array", "series"])
def test_mixed_label_types(y):
    with pytest.raises(TypeError, match=r"MultinomialNB: expected labels of one type; y mixes \['int', 'str'\]"):
        MultinomialNB().fit(COUNTS, y)


@pytest.mark.parametrize("bad, what", [
    (None, "requires y to be passed, but the target y is None"),
    (np.r_[np.inf, np.zeros(29)], r"expected class labels; y contains 1 infinite value"),
    (np.linspace(0, 1, 30), r"expected class labels; Unknown label type: continuous"),
    (np.zeros((30, 2)), r"y should be a 1d array \(one label per row\); received shape \(30, 2\)"),
])
def test_bad_labels(bad, what):
    with pytest.raises(ValueError, match=rf"MultinomialNB:? (.*; )?{what}"):
        MultinomialNB().fit(COUNTS, bad)


@pytest.mark.parametrize("bad, classes", [
    (np.r_[np.nan, np.zeros(29)], [0.0]),
    (np.array([None] + ["a"] * 29, dtype=object), ["a"]),
    (pd.Series([pd.NA] + [1] * 29, dtype="Int64"), [1]),
], ids=["nan", "None", "pd.NA"])
def test_missing_labels_in_partial_fit(bad, classes):
    with pytest.raises(ValueError, match=r"MultinomialNB: expected a label for every row; "
                                         r"y contains 1 missing label"):
        MultinomialNB().partial_fit(COUNTS, bad, classes=classes)


def test_list_labels_keep_numpy_dtype():
    model = MultinomialNB().fit(COUNTS, Y.tolist())
    assert model.classes_.dtype.kind == "U"
    assert model.predict(COUNTS).dtype.kind == "U"


# ----------------------------------------------------------------------------------- partial_fit
def test_partial_fit_needs_classes_first():
    with pytest.raises(ValueError, match=r"MultinomialNB: expected classes= .*first call to partial_fit; received classes=None"):
        MultinomialNB().partial_fit(COUNTS, Y)


def test_partial_fit_label_not_in_classes():
    with pytest.raises(ValueError, match=r"CategoricalNB: expected labels among classes=\['ham', 'spam'\]; received label\(s\) \['eggs'\]"):
        CategoricalNB().partial_fit(CODES, Y, classes=["spam", "ham"])
    model = CategoricalNB().partial_fit(CODES[Y != "eggs"], Y[Y != "eggs"], classes=["spam", "ham"])
    with pytest.raises(ValueError, match=r"expected labels among classes=\['ham', 'spam'\]; received label\(s\) \['eggs'\]"):
        model.partial_fit(CODES, Y)
    with pytest.raises(ValueError, match=r"CategoricalNB: expected classes=\['ham', 'spam'\] as in the first call.*received classes=\['eggs', 'ham', 'spam'\]"):
        model.partial_fit(CODES, Y, classes=["spam", "ham", "eggs"])


def test_partial_fit_new_categories_equal_one_fit():
    # the second batch brings a category the first never saw (used to crash comparing states)
    X = np.array([["a", "x"], ["b", "x"], ["a", "y"], ["c", "z"], ["c", "y"], ["b", "z"]], dtype=object)
    y = np.array([0, 1, 0, 1, 1, 0])
    chunked = CategoricalNB().partial_fit(X[:3], y[:3], classes=[0, 1]).partial_fit(X[3:], y[3:])
    whole = CategoricalNB().fit(X, y)
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X), rtol=1e-12)
    for a, b in zip(chunked.category_count_, whole.category_count_):
        np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------------------- hyperparameters
@pytest.mark.parametrize("model", [MultinomialNB(alpha=-0.5), BernoulliNB(alpha=-0.5), CategoricalNB(alpha=-0.5),
                                   NaiveBayes({(0, 1, 2, 3): Multinomial(alpha=-0.5)})],
                         ids=lambda m: type(m).__name__)
def test_negative_alpha(model):
    with pytest.raises(ValueError, match=rf"{type(model).__name__}: alpha must be a finite number >= 0; received -0.5"):
        model.fit(CODES, Y)


def test_negative_class_alpha():
    with pytest.raises(ValueError, match=r"MultinomialNB: expected class_alpha to be a number >= 0.*received -1"):
        MultinomialNB(class_alpha=-1).fit(COUNTS, Y)


@pytest.mark.parametrize("case", ALL)
def test_negative_sample_weight(case):
    model, X = case.small()
    w = np.ones(len(Y))
    w[4] = -2.0
    with pytest.raises(ValueError, match=rf"{case.name}: expected sample_weight >= 0; received 1 negative weight\(s\), e.g. -2.0"):
        model.fit(X, Y, sample_weight=w)


def test_bad_sample_weight_shape_and_zeros():
    with pytest.raises(ValueError, match=r"MultinomialNB: expected sample_weight of shape \(30,\); received shape \(29,\)"):
        MultinomialNB().fit(COUNTS, Y, sample_weight=np.ones(29))
    with pytest.raises(ValueError, match=r"MultinomialNB: expected at least one positive sample_weight"):
        MultinomialNB().fit(COUNTS, Y, sample_weight=np.zeros(30))
    with pytest.raises(ValueError, match=r"MultinomialNB: expected finite sample_weight; received 1 non-finite"):
        MultinomialNB().fit(COUNTS, Y, sample_weight=np.r_[np.nan, np.ones(29)])


@pytest.mark.parametrize("case", ALL)
@pytest.mark.parametrize("w, what", [
    (1e308, r"the total weight overflows float64"),
    (1e300, r"the total weight is 3e\+301"),
    (1e15, r"the total weight is 3e\+16"),
], ids=["overflow", "huge", "above-2**53"])
def test_sample_weight_total_too_large_names_the_total(case, w, what):
    model, X = case.small()
    with pytest.raises(ValueError, match=rf"{case.name}: expected sample_weight summing to at most 2\*\*53 "
                                         rf"\(9.01e\+15\).*{what}\. Weights are counts"):
        model.fit(X, Y, sample_weight=np.full(len(Y), w))


def test_sample_weight_total_limit_is_inclusive_and_counts_partial_fit_batches():
    w = np.full(30, 2.0**53 / 30)
    m = MultinomialNB().fit(COUNTS, Y, sample_weight=w)  # exactly 2**53 (up to rounding) is fine
    np.testing.assert_allclose(m.class_count_.sum(), 2.0**53, rtol=1e-12)
    classes = np.unique(Y)
    p = MultinomialNB().partial_fit(COUNTS, Y, classes=classes, sample_weight=np.full(30, 2.0**53 / 60))
    with pytest.raises(ValueError, match=r"MultinomialNB: expected sample_weight summing to at most 2\*\*53.*"
                                         r"total weight \(with 4.5e\+15 from earlier partial_fit calls\) is 1.35e\+16"):
        p.partial_fit(COUNTS, Y, sample_weight=np.full(30, 2.0**53 / 30))
    np.testing.assert_allclose(p.class_count_.sum(), 2.0**53 / 2, rtol=1e-12)  # the failed batch added nothing


def test_fit_semi_supervised_unlabeled_weight_counts_toward_the_total():
    y = Y.astype(object)
    y[::3] = None
    with pytest.raises(ValueError, match=r"MultinomialNB: expected sample_weight summing to at most 2\*\*53"):
        MultinomialNB().fit_semi_supervised(COUNTS, y, unlabeled_weight=1e300)


@pytest.mark.parametrize("case", ALL)
@pytest.mark.parametrize("w", [5e-324, 1e-310], ids=["smallest", "subnormal"])
def test_subnormal_sample_weight_rejected(case, w):
    model, X = case.small()
    sw = np.ones(len(Y))
    sw[3] = w
    with pytest.raises(ValueError, match=rf"{case.name}: expected sample_weight of 0 or at least 2.23e-308; received 1 "
                                         rf"subnormal weight\(s\), e.g. {w:.3g}.*Use 0 to leave a row out"):
        model.fit(X, Y, sample_weight=sw)


# families without categories: a row of weight 1e-300 adds no category
@pytest.mark.parametrize("case", params([c for c in PER_ESTIMATOR if c.family in ("multinomial", "bernoulli", "gaussian")],
                                        by="name"))
def test_tiny_sample_weight_means_almost_no_data(case):
    """Weights are counts, never rescaled: 1e-300 is (to float64) a removed row, and all-tiny is the prior."""
    model, X = case.small()
    sw = np.ones(len(Y))
    sw[3] = 1e-300
    removed = sw.copy()
    removed[3] = 0.0
    a = clone(model).fit(X, Y, sample_weight=sw)
    b = clone(model).fit(X, Y, sample_weight=removed)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-12)
    tiny = clone(model).fit(X, Y, sample_weight=np.full(len(Y), 1e-300))
    np.testing.assert_allclose(tiny.class_count_, np.full(3, 1e-299), rtol=1e-12)
    proba = tiny.predict_proba(X)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba, 1 / 3, rtol=1e-9)  # no data: every class equally likely a priori
    assert np.isfinite(tiny.log_evidence_) and abs(tiny.log_evidence_) < 1e-250


def test_zero_weight_is_a_removed_row():
    X = np.array([["a"], ["b"], ["a"], ["zzz"]], dtype=object)
    y = np.array([0, 1, 1, 0])
    weighted = CategoricalNB().fit(X, y, sample_weight=[1, 1, 1, 0])
    removed = CategoricalNB().fit(X[:3], y[:3])
    assert weighted.categories_[0].tolist() == ["a", "b"]
    np.testing.assert_allclose(weighted.predict_proba(X), removed.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize("prior, what", [
    ([0.5, 0.4, 0.05], r"expected class_prior of probabilities >= 0 summing to 1; received \[0.5, 0.4, 0.05\] \(sum 0.95\)"),
    ([0.5, 0.5], r"expected class_prior with one probability per class \(3\); received 2 value"),
    ([1.2, -0.1, -0.1], r"expected class_prior of probabilities >= 0 summing to 1"),
])
@pytest.mark.parametrize("cls", [MultinomialNB, GaussianNB])
def test_bad_class_prior(cls, prior, what):
    X = REAL if cls is GaussianNB else COUNTS
    with pytest.raises(ValueError, match=rf"{cls.__name__}: {what}"):
        cls(class_prior=prior).fit(X, Y)
    if cls is GaussianNB:
        with pytest.raises(ValueError, match=rf"GaussianNB: {what}"):
            GaussianNB(priors=prior).fit(X, Y)


def test_gaussian_priors_and_class_prior_both_given():
    with pytest.raises(ValueError, match=r"GaussianNB: expected either priors or class_prior.*not both"):
        GaussianNB(priors=[0.2, 0.3, 0.5], class_prior=[0.2, 0.3, 0.5]).fit(REAL, Y)


def test_bad_predictive():
    with pytest.raises(ValueError, match=r"GaussianNB: expected predictive='mean' or 'marginal'; received 'exact'"):
        GaussianNB(predictive="exact").fit(REAL, Y)


@pytest.mark.parametrize("cls", [GaussianNB, CategoricalNB])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_rejected_by_dense_estimators(cls, fmt):
    X = sp.random(30, 4, density=0.5, format=fmt, random_state=0)
    with pytest.raises(TypeError, match=rf"{cls.__name__}: expected a dense array or DataFrame; received a sparse matrix.*toarray"):
        cls().fit(X, Y)
    model = cls().fit(X.toarray(), Y)
    with pytest.raises(TypeError, match=rf"{cls.__name__}: expected a dense array or DataFrame; received a sparse matrix"):
        model.predict(X)


def test_sparse_accepted_by_count_estimators():
    X = sp.csr_matrix(COUNTS)
    np.testing.assert_allclose(MultinomialNB().fit(X, Y).predict_proba(X),
                               MultinomialNB().fit(COUNTS, Y).predict_proba(COUNTS), rtol=1e-12)
    nb = NaiveBayes({(0, 1): Multinomial(), (2, 3): Bernoulli(binarize=0.5)}).fit(X, Y)
    assert np.all(np.isfinite(nb.predict_proba(X)))
    with pytest.raises(TypeError, match=r"NaiveBayes: expected a dense array.*\['Gaussian'\] block\(s\) need dense data"):
        NaiveBayes({(0, 1): Multinomial(), (2, 3): Gaussian()}).fit(X, Y)
    with pytest.raises(TypeError, match=r"NaiveBayes: expected a dense array.*features='auto'"):
        NaiveBayes().fit(X, Y)


# ------------------------------------------------------------------------------ NaiveBayes features
TABLE = pd.DataFrame({
    "dish": ["soup", "pasta", "soup", "salad"] * 3,
    "sleep": [7.0, 6.5, 8.0, 5.5, 7.5, 6.0, 8.5, 7.0, 6.0, 5.0, 9.0, 7.0],
    "w1": [0, 2, 1, 0] * 3,
    "w2": [3, 0, 1, 1] * 3,
})
TABLE_Y = ["yes", "no", "yes"] * 4


@pytest.mark.parametrize("features, error, what", [
    ({"dish": Categorical(), "sleep": Gaussian(), ("w1", "w2"): Multinomial(), "movie": Categorical()},
     ValueError, r"features names column 'movie', which is not in X; expected one of the columns of X \(\['dish', 'sleep', 'w1', 'w2'\]\)"),
    ({"dish": Categorical(), "sleep": Gaussian()},
     ValueError, r"expected every column of X in features; column\(s\) \['w1', 'w2'\] are not assigned a family"),
    ({"dish": Categorical(), "sleep": Gaussian(), ("w1", "w2"): Multinomial(), "w2": Gaussian()},
     ValueError, r"expected each column in exactly one block; column 'w2' is assigned twice \(in features\[\('w1', 'w2'\)\] and features\['w2'\]\)"),
    ({"dish": "categorical", "sleep": Gaussian(), ("w1", "w2"): Multinomial()},
     TypeError, r"features\['dish'\] must be a family instance such as Categorical\(\).*received str 'categorical'"),
    ({"dish": Categorical, "sleep": Gaussian(), ("w1", "w2"): Multinomial()},
     TypeError, r"features\['dish'\] must be a family instance.*received the class Categorical \(instantiate it: Categorical\(\)\)"),
    ("guess", TypeError, r"expected features='auto', 'histogram' or a dict mapping columns to families; received 'guess'"),
])
def test_naive_bayes_bad_features(features, error, what):
    with pytest.raises(error, match=rf"NaiveBayes: {what}"):
        NaiveBayes(features).fit(TABLE, TABLE_Y)


def test_naive_bayes_positions_for_arrays():
    X = TABLE.to_numpy(dtype=object)
    model = NaiveBayes({0: Categorical(), 1: Gaussian(), (2, 3): Multinomial()}).fit(X, TABLE_Y)
    named = NaiveBayes({"dish": Categorical(), "sleep": Gaussian(), ("w1", "w2"): Multinomial()}).fit(TABLE, TABLE_Y)
    np.testing.assert_allclose(model.predict_proba(X), named.predict_proba(TABLE), rtol=1e-12)
    with pytest.raises(ValueError, match=r"NaiveBayes: features names column 'dish', which is not in X; expected one of the columns of X \(positions 0..3\)"):
        NaiveBayes({"dish": Categorical(), 1: Gaussian(), (2, 3): Multinomial()}).fit(X, TABLE_Y)


# ------------------------------------------------------------------------------ Gaussian prior=None
def test_gaussian_mle_zero_variance_suggests_auto():
    X = REAL.copy()
    X[Y == "ham", 2] = 1.5
    with pytest.raises(ValueError, match=r"GaussianNB: feature 'x2' has zero variance in class .*ham.*prior=None.*prior='auto'"):
        GaussianNB(prior=None).fit(X, Y)
    proba = GaussianNB().fit(X, Y).predict_proba(X)  # the default prior handles it
    assert np.all(np.isfinite(proba))


# ----------------------------------------------------------------------------------- unfitted
@pytest.mark.parametrize("case", ALL)
@pytest.mark.parametrize("method", ["predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba", "score"])
def test_unfitted(case, method):
    model, X = case.small()
    args = (X, Y) if method == "score" else (X,)
    with pytest.raises(NotFittedError, match=rf"This {case.name} instance is not fitted yet"):
        getattr(model, method)(*args)


# -------------------------------------------------------------------------- inputs stay untouched
MISSING = np.zeros((30, 4), dtype=bool)
MISSING[[1, 4], [0, 3]] = True  # two missing cells of the 30 x 4 arrays


@pytest.mark.parametrize("case", ALL)
@pytest.mark.parametrize("kind", ["array", "array-missing", "frame", "sparse"])
def test_inputs_not_modified(case, kind):
    model, X = case.small()
    if case.family == "bernoulli":
        model.set_params(binarize=0.5)
        X = COUNTS.copy()  # thresholded on a copy
    if kind == "array-missing":
        X = with_missing(X, MISSING)
    elif kind == "frame":
        X = pd.DataFrame(with_missing(X, MISSING), columns=["a", "b", "c", "d"])
        if case.family == "mixed":
            model.set_params(features={("a", "b"): Gaussian(), "c": Categorical(), "d": Multinomial()})
    elif kind == "sparse":
        if not case.accepts_sparse:
            pytest.skip("dense-only estimator")
        X = sp.csr_matrix(with_missing(X, MISSING))
    y = pd.Series(Y) if kind == "frame" else Y.copy()
    w = np.linspace(0.5, 2.0, len(Y))
    before = (X.copy(), y.copy(), w.copy())
    model.fit(X, y, sample_weight=w)
    model.partial_fit(X, y, sample_weight=w)
    for method in ("predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba"):
        getattr(model, method)(X)
    if sp.issparse(X):
        for part in ("data", "indices", "indptr"):
            np.testing.assert_array_equal(getattr(X, part), getattr(before[0], part))
    elif isinstance(X, pd.DataFrame):
        pd.testing.assert_frame_equal(X, before[0])
    else:
        np.testing.assert_array_equal(X, before[0])
    np.testing.assert_array_equal(np.asarray(y), np.asarray(before[1]))
    np.testing.assert_array_equal(w, before[2])


def test_object_table_not_modified():
    X = np.array([["a", None, 1.0], ["b", "x", pd.NA], ["a", "y", 2.0], [np.nan, "x", 3.0]], dtype=object)
    y = [0, 1, 0, 1]
    before = X.copy()
    model = NaiveBayes({(0, 1): Categorical(), 2: Gaussian()}).fit(X, y)
    model.predict_proba(X)
    assert all((a is b) or (a == b) for a, b in zip(X.ravel(), before.ravel()))


# ------------------------------------------------------------------------------ all-missing column
@pytest.mark.parametrize("case", ALL)
def test_all_missing_column_warns_and_keeps_prior(case):
    model, X = case.small()
    X = X.astype(float)
    X[:, 3] = np.nan
    with pytest.warns(AllMissingWarning, match=rf"{case.name}: feature\(s\) \['x3'\] have no observed"):
        model.fit(X, Y)
    block = model.posterior_.blocks[-1]
    j = list(block.columns).index(3)
    prior, post = block.prior, block.posterior
    for p_field, q_field in zip(prior, post):
        if isinstance(p_field, tuple):  # Categorical: one array per feature
            np.testing.assert_array_equal(p_field[j], q_field[j])
        else:
            np.testing.assert_array_equal(np.asarray(p_field)[:, j], np.asarray(q_field)[:, j])
    proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba))
    assert np.isfinite(model.log_evidence_)
    # the column does not change predictions: the same as a model fitted without it
    if case.family == "mixed":
        without = NaiveBayes({(0, 1): Gaussian(), 2: Categorical()})
    else:
        without = clone(model)
    np.testing.assert_allclose(proba, without.fit(X[:, :3], Y).predict_proba(X[:, :3]), rtol=1e-10)


# ---------------------------------------------------------------------------- unseen categories
def test_unseen_categories_have_finite_probabilities():
    X = np.array([[0, 1], [1, 2], [2, 0], [1, 1]])
    y = [0, 1, 0, 1]
    model = CategoricalNB().fit(X, y)
    new = np.array([[7, 1], [0, 99], [-3, 5]])
    proba = model.predict_proba(new)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # an unseen value carries no class information when classes have equal counts
    np.testing.assert_allclose(model.predict_proba([[7, 1]]), model.predict_proba(np.array([[None, 1]], dtype=object)))

    words = pd.DataFrame({"outlook": ["sunny", "rain", "sunny", "overcast"]})
    model = CategoricalNB().fit(words, y)
    proba = model.predict_proba(pd.DataFrame({"outlook": ["snow", "sunny"]}))
    assert np.all(np.isfinite(proba))


# ------------------------------------------------------------------------------- missing values
@pytest.mark.parametrize("marker", [np.nan, None, pd.NA], ids=["nan", "None", "pd.NA"])
def test_missing_markers_in_fit_and_predict(marker):
    cats = np.array([["a", "x"], ["b", "y"], ["a", "y"], ["b", "x"], ["a", "x"], ["b", "y"]], dtype=object)
    rng = np.random.default_rng(1)
    nums = rng.normal(size=(6, 2)).astype(object)
    counts = rng.integers(0, 4, size=(6, 2)).astype(object)
    y = np.array([0, 1, 0, 1, 0, 1])
    for X in (cats, nums, counts):
        X = X.copy()
        X[0, 1] = marker
        X[3, 0] = marker
        for model in (CategoricalNB(), NaiveBayes()) if X is not counts else (MultinomialNB(), BernoulliNB(binarize=1)):
            if X is nums and isinstance(model, CategoricalNB):
                continue
            model.fit(X, y)
            proba = model.predict_proba(X)
            assert np.all(np.isfinite(proba)), type(model).__name__
        if X is nums:
            proba = GaussianNB().fit(X, y).predict_proba(X)
            assert np.all(np.isfinite(proba))
    frame = pd.DataFrame({"c": pd.Series(["a", marker, "b", "a", "b", "a"], dtype=object),
                          "g": pd.array([1.0, 2.0, None, 0.5, 1.5, 2.5], dtype="Float64")})
    model = NaiveBayes().fit(frame, y)
    assert np.all(np.isfinite(model.predict_proba(frame)))


def test_missing_cell_is_marginalised():
    X = np.array([["a", "x"], ["b", "y"], ["a", "y"], ["b", "x"], ["a", "x"]], dtype=object)
    y = [0, 1, 0, 1, 1]
    model = CategoricalNB().fit(X, y)
    only_first = CategoricalNB().fit(X[:, :1], y)
    query = np.array([["a", None], ["b", pd.NA]], dtype=object)
    np.testing.assert_allclose(model.predict_proba(query), only_first.predict_proba(query[:, :1]), rtol=1e-12)


def test_no_warnings_on_clean_input():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for case in PER_ESTIMATOR:
            model, X = case.small()
            model.fit(X, Y).predict_proba(X)


@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB, CategoricalNB, GaussianNB, NaiveBayes])
def test_parameter_constraints_declare_every_hyperparameter(cls):
    # every hyperparameter is declared once, in scikit-learn's vocabulary, and checked in fit
    assert set(cls._parameter_constraints) == set(cls().get_params(deep=False))


@pytest.mark.parametrize("cls", [MultinomialNB, BernoulliNB, CategoricalNB, GaussianNB, NaiveBayes])
def test_fit_prior_must_be_a_bool(cls):
    with pytest.raises(ValueError, match=rf"'fit_prior' parameter of {cls.__name__} must be"):
        cls(fit_prior="yes").fit(CODES, Y)


def test_an_odd_cell_refuses_the_batch_naming_its_rows_and_column():
    """Issue 31: one value outside a family's support fails the call with a message naming where it is."""
    import pandas as pd

    from bayesnb import NaiveBayes
    from bayesnb.families import Gaussian, Poisson

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.poisson(3, 200), "b": rng.poisson(5, 200), "c": rng.normal(size=200)})
    y = rng.integers(0, 2, 200)
    model = NaiveBayes(features={("a", "b"): Poisson(), "c": Gaussian()}).fit(X, y)
    Q = X.head(50).astype(float)
    Q.loc[7, "b"] = 2.5
    Q.loc[33, "b"] = 4.5
    for method in (model.predict, model.predict_proba):
        with pytest.raises(ValueError, match=r"non-integer value\(s\) \[2.5, 4.5\].*position\(s\) \[7, 33\] of X "
                                             r"in column\(s\) \['b'\]"):
            method(Q)
    # scoring has an answer for an impossible row: -inf (tests/test_out_of_support.py)
    s = model.score_samples(Q)
    assert np.isneginf(s[[7, 33]]).all() and np.isfinite(np.delete(s, [7, 33])).all()
    bad = X.to_numpy(float)
    bad[[3, 5, 8, 13, 21, 34], 0] = 0.5
    with pytest.raises(ValueError, match=r"position\(s\) \[3, 5, 8, 13, 21\] \(the first 5\) of X in column\(s\) \[0\]"):
        NaiveBayes(features={(0, 1): Poisson(), 2: Gaussian()}).fit(bad, y)


@pytest.mark.parametrize("kwargs, message", [
    ({"m": -1.0}, r"m must be a finite number >= 0; received -1.0"),
    ({"m": np.inf}, r"m must be a finite number >= 0"),
    ({"m": 2.0, "alpha": 0.5}, r"give either alpha or the m-estimate \(m, p\), not both"),
    ({"m": 2.0, "alpha": "hierarchical"}, r"give either alpha='hierarchical' or the m-estimate"),
])
def test_categorical_m_estimate_refusals_name_the_mistake(kwargs, message):
    """The m-estimate's arguments are checked when the prior is made, with a message naming the mistake."""
    fam = Categorical(**kwargs)
    codes, state = fam.encode(np.array([["a"], ["b"]], dtype=object))
    with pytest.raises(ValueError, match=message):
        fam.make_prior(fam.stats(codes, np.eye(2), state), state)


def test_categorical_m_estimate_is_alpha_m_p():
    """``m_estimate(m, p)`` is ``alpha = m p`` per value, and ``m / V`` per value without ``p``."""
    codes, state = Categorical().encode(np.array([["a"], ["b"], ["c"]], dtype=object))
    stats = Categorical().stats(codes, np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]), state)  # two classes
    with_p = Categorical.m_estimate(m=4.0, p=[0.5, 0.25, 0.25]).make_prior(stats, state)
    np.testing.assert_array_equal(with_p.concentration[0], [[2.0, 1.0, 1.0]] * 2)
    uniform = Categorical.m_estimate(m=3.0).make_prior(stats, state)
    np.testing.assert_array_equal(uniform.concentration[0], np.ones((2, 3)))
