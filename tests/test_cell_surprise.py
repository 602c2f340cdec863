"""The cells' surprise (bayesnb.generative.cell_surprise) and NBOutlierDetector(statistic="surprise")."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import bayesnb
from bayesnb import CategoricalNB, NaiveBayes, NBOutlierDetector
from bayesnb._utils import one_class_on_purpose
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.generative.cell_surprise import CellReference, cell_surprise, fit_cell_reference


@pytest.fixture(scope="module")
def penguins():
    return load_penguins().drop(columns="species")


def test_reference_and_surprise_by_hand():
    cells = np.array([[1.0, 0.0], [2.0, 0.0], [2.0, np.nan], [3.0, -np.inf]])
    observed = np.array([[True, True], [True, True], [True, False], [True, True]])
    ref = fit_cell_reference(cells, observed)
    np.testing.assert_array_equal(ref.points[0], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(ref.below[0], [1.0, 3.0, 4.0])
    # column 1: the missing cell and the impossible one are left out; one distinct value, weight 2
    np.testing.assert_array_equal(ref.points[1], [0.0, np.nan, np.nan])
    np.testing.assert_array_equal(ref.total, [4.0, 2.0])
    new = np.array([[2.0, 0.0], [0.5, -1.5], [5.0, -np.inf], [2.5, 7.0], [-np.inf, 0.0]])
    seen = np.ones(new.shape, dtype=bool)
    seen[3, 1] = False
    got = cell_surprise(ref, new, seen)
    want = np.array([[np.log(5 / 4), 0.0],
                     [np.log(5) + 0.5, np.log(3) + 1.5],  # below the lowest: log(W + 1) and the nats beyond
                     [0.0, np.inf],
                     [np.log(5 / 4), 0.0],  # between two points: the weight at or below 2.0; not observed: 0
                     [np.inf, 0.0]])
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_weights_count_as_repeated_rows():
    rng = np.random.default_rng(0)
    cells = np.round(rng.normal(size=(40, 3)), 1)
    observed = rng.random((40, 3)) > 0.2
    w = rng.integers(1, 4, size=40)
    a = fit_cell_reference(cells, observed, w)
    b = fit_cell_reference(np.repeat(cells, w, axis=0), np.repeat(observed, w, axis=0))
    for f in CellReference._fields:
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    new = rng.normal(size=(30, 3)) * 2
    np.testing.assert_array_equal(cell_surprise(a, new, np.ones_like(new, bool)),
                                  cell_surprise(b, new, np.ones_like(new, bool)))


@pytest.mark.parametrize("case", ["distinct", "spike", "weighted"])
def test_thinning_keeps_the_ends_and_errs_high_by_less_than_a_band(case):
    """Thinned to 50 points, the surprise errs high by less than log(W + 1) / 48, also where one value holds
    many rows (kept whatever its rank) and where the rows are weighted (bands of weight, not of rank)."""
    rng = np.random.default_rng(1)
    cells = rng.normal(size=(5000, 1))
    w = None
    if case == "spike":
        cells = np.r_[np.round(cells, 2), np.full((4000, 1), 1.5)]
    if case == "weighted":
        w = rng.integers(1, 50, size=len(cells)).astype(float)
    seen = np.ones_like(cells, bool)
    full = fit_cell_reference(cells, seen, w, max_points=100_000)
    thin = fit_cell_reference(cells, seen, w, max_points=50)
    kept = thin.points[0][~np.isnan(thin.points[0])]
    assert len(kept) <= 50 and kept[0] == cells.min() and kept[-1] == cells.max()
    assert thin.total[0] == full.total[0]
    if case == "spike":
        assert 1.5 in kept
    new = np.r_[rng.normal(size=(2000, 1)) * 1.5, np.full((10, 1), 1.5)]
    a, b = (cell_surprise(r, new, np.ones_like(new, bool)) for r in (full, thin))
    assert (b >= a - 1e-12).all() and (b - a).max() < np.log1p(full.total[0]) / 48


def test_a_cell_equal_to_a_training_score_up_to_rounding_counts_as_equal():
    ref = fit_cell_reference(np.array([[-1.0], [-1.0], [-0.5]]), np.ones((3, 1), bool))
    got = cell_surprise(ref, np.array([[-1.0 - 1e-14], [-1.0], [-1.0 - 1e-6]]), np.ones((3, 1), bool))
    assert got[0, 0] == got[1, 0] == pytest.approx(np.log(4 / 3))
    assert got[2, 0] == pytest.approx(np.log(4) + 1e-6)  # beyond the tolerance: below the lowest


@pytest.mark.parametrize("kwargs, match", [
    ({"observed": np.ones((3, 1), bool)}, "same shape"),
    ({"weights": np.array([1.0, -1.0, 1.0, 1.0])}, "non-negative"),
    ({"weights": np.array([1.0, np.nan, 1.0, 1.0])}, "finite"),
    ({"weights": np.ones(3)}, "4 finite"),
    ({"max_points": 2}, "max_points"),
    ({"max_points": 5.0}, "max_points"),
])
def test_reference_arguments_are_checked(kwargs, match):
    args = {"cells": np.zeros((4, 2)), "observed": np.ones((4, 2), bool), **kwargs}
    with pytest.raises(ValueError, match=match):
        fit_cell_reference(**args)


def test_a_rare_category_is_not_drowned_by_a_wide_column():
    """The case the surprise is for: a yes/no column whose 'f' is held by 5% of the rows beside a
    heavy-tailed amount. Under log p(x) the amount's spread hides the rare value; as a p-value it costs
    -log(0.05) whatever the amount's spread."""
    rng = np.random.default_rng(0)
    n = 2000
    X = pd.DataFrame({"flag": np.where(rng.random(n) < 0.05, "f", "t"),
                      "amount": np.round(rng.lognormal(3, 1.5, n), 2)})
    odd = pd.DataFrame({"flag": ["f"] * 50, "amount": np.round(np.exp(3 + 0.3 * rng.normal(size=50)), 2)})
    normal = X.sample(200, random_state=1)
    model = NaiveBayes(features={"flag": bayesnb.Categorical(), "amount": bayesnb.LogNormal()})
    for statistic, should_separate in (("surprise", True), ("density", False)):
        det = NBOutlierDetector(model, statistic=statistic).fit(X)
        s_odd, s_normal = det.score_samples(odd), det.score_samples(normal)
        share = float((s_odd[:, None] < s_normal[None, :]).mean())  # AUC of the odd rows as outliers
        assert (share > 0.9) == should_separate, (statistic, share)


def test_score_is_minus_the_larger_sum_and_the_cells_add_up(penguins):
    det = NBOutlierDetector(NaiveBayes(structure="tan")).fit(penguins)
    assert det.statistic_ == "surprise" and det.marginal_ is not None
    assert det.marginal_.structure_kind_ == "naive" and det.estimator_.structure_kind_ == "tan"
    X = penguins.iloc[:60]
    observed = X.notna().to_numpy()
    sums = []
    for model, ref in zip((det.estimator_, det.marginal_), det.references_):
        cells = model.feature_log_contributions(X).to_numpy() - det._range_costs(X)
        sums.append(cell_surprise(ref, cells, observed).sum(axis=1))
    np.testing.assert_allclose(det.score_samples(X), -np.maximum(*sums), rtol=1e-12)
    np.testing.assert_allclose(det.cell_scores(X).sum(axis=1), det.score_samples(X), rtol=1e-12)
    assert (det.cell_scores(X).to_numpy() <= 0).all()
    with pytest.raises(ValueError, match="method must be 'auto'"):
        det.cell_scores(X, method="conditional")
    # the references are the training cells of each model
    train_cells = det.estimator_.feature_log_contributions(penguins).to_numpy() - det._range_costs(penguins)
    ref = fit_cell_reference(train_cells, penguins.notna().to_numpy())
    for f in CellReference._fields:
        np.testing.assert_array_equal(getattr(ref, f), getattr(det.references_[0], f))


def test_companion_only_beside_a_structure(penguins):
    assert NBOutlierDetector(NaiveBayes()).fit(penguins).marginal_ is None
    X, y = load_house_votes().drop(columns="party"), load_house_votes()["party"]
    fitted = CategoricalNB(structure="tan").fit(X, y)
    det = NBOutlierDetector(fitted).fit(X)  # fitted on two classes, no labels given: its own surprise only
    assert det.estimator_ is fitted and det.marginal_ is None and len(det.references_) == 1
    det = NBOutlierDetector(fitted).fit(X, y)  # labels: the companion is fitted on them
    assert det.marginal_ is not None and list(det.marginal_.classes_) == list(fitted.classes_)


def test_out_of_support_and_out_of_range_never_raise_the_score(penguins):
    det = NBOutlierDetector().fit(penguins)
    rows = penguins.dropna().iloc[:40]
    base = det.score_samples(rows)
    for col in ("bill_length_mm", "flipper_length_mm", "body_mass_g"):
        hi = penguins[col].max()
        for far in (1.1, 2.0, 10.0):
            moved = det.score_samples(rows.assign(**{col: hi * far}))
            assert (moved <= base + 1e-9).all()
        assert (det.score_samples(rows.assign(**{col: hi * 10.0})) < base).all()
    assert np.isneginf(det.score_samples(rows.assign(body_mass_g=-5.0))).all() or \
        (det.score_samples(rows.assign(body_mass_g=-5.0)) < base).all()


def test_sparse_input_takes_the_density(penguins):
    A = sp.csr_matrix(np.random.default_rng(0).poisson(2, size=(60, 5)).astype(float))
    model = NaiveBayes(features={(0, 1, 2, 3, 4): bayesnb.Multinomial()})
    det = NBOutlierDetector(model).fit(A)
    assert det.statistic_ == "density" and det.references_ is None
    with pytest.raises(TypeError, match="statistic='density'"):
        NBOutlierDetector(model, statistic="surprise").fit(A)
    dense = NBOutlierDetector(NaiveBayes()).fit(A.toarray())
    with pytest.raises(TypeError, match="sparse"):
        dense.score_samples(A)
    with pytest.raises(ValueError, match="statistic must be one of"):
        NBOutlierDetector(statistic="pvalue").fit(A.toarray())


def test_a_saved_surprise_detector_loads_and_scores_the_same(penguins, tmp_path):
    det = NBOutlierDetector(contamination=0.1).fit(penguins)
    assert det.marginal_ is not None
    det.save(tmp_path / "det.bnb")
    back = bayesnb.load(tmp_path / "det.bnb")
    assert back.statistic == "auto" and back.statistic_ == "surprise" and back.marginal_ is not None
    np.testing.assert_array_equal(back.decision_function(penguins), det.decision_function(penguins))


@pytest.mark.parametrize("change, match", [
    (lambda m: m["fitted"].__setitem__("statistic", "pvalue"), "statistic"),
    (lambda m: m["params"].__setitem__("statistic", "density"), "statistic"),
    (lambda m: m["fitted"].__setitem__("references", m["fitted"]["references"][:1]), "cell reference"),
    (lambda m: m["fitted"]["references"][0].pop("total"), "cell reference"),
    (lambda m: m["fitted"].__setitem__("marginal", None), "cell reference"),
])
def test_an_edited_surprise_file_is_refused(penguins, tmp_path, change, match):
    from helpers import assert_damaged_file_refused

    assert_damaged_file_refused(NBOutlierDetector().fit(penguins), tmp_path, change, match, bayesnb.load)


def test_edited_reference_arrays_are_refused(penguins):
    from bayesnb.io.detector_file import _references_from_file
    from bayesnb.io.persistence import ModelFileError

    ref = NBOutlierDetector(NaiveBayes()).fit(penguins).references_[0]
    d = ref.points.shape[0]
    node = {f: getattr(ref, f) for f in CellReference._fields}
    kept = _references_from_file([node], lambda a: a, d, 1)[0]
    np.testing.assert_array_equal(kept.points, ref.points)
    for field, j, value in (("points", 1, -1e300), ("below", 1, 0.5), ("total", None, -1.0),
                            ("total", None, 1e6), ("points", 0, np.nan)):
        bad = {k: v.copy() for k, v in node.items()}
        if j is None:
            bad[field][0] = value
        else:
            bad[field][0, j] = value
        with pytest.raises(ModelFileError, match="cell reference"):
            _references_from_file([bad], lambda a: a, d, 1)
    with pytest.raises(ModelFileError, match="shapes"):
        _references_from_file([{**node, "total": node["total"][:-1]}], lambda a: a, d, 1)


def test_a_density_file_written_before_the_statistic_loads_as_density(penguins, tmp_path):
    from helpers import edit_meta

    det = NBOutlierDetector(statistic="density").fit(penguins)
    det.save(tmp_path / "det.bnb")

    def older(meta):  # what a detector file held before the statistic existed
        meta["params"].pop("statistic")
        for key in ("statistic", "marginal", "references"):
            meta["fitted"].pop(key)
    edit_meta(tmp_path / "det.bnb", tmp_path / "old.bnb", older)
    back = bayesnb.load(tmp_path / "old.bnb")
    assert back.statistic == "density" and back.statistic_ == "density"
    np.testing.assert_array_equal(back.score_samples(penguins), det.score_samples(penguins))


def test_scores_do_not_depend_on_the_batch():
    """A cell whose score equals its training twins' up to rounding is charged like them, however the rows
    are batched (a labelled model's class posterior differs by a few ulps between batches)."""
    V = load_house_votes()
    X, y = V.drop(columns="party"), V["party"]
    for model in (CategoricalNB(), CategoricalNB(structure="kdb")):
        det = NBOutlierDetector(model).fit(X, y)
        whole = det.score_samples(X)
        chunks = np.concatenate([det.score_samples(X.iloc[i:i + 7]) for i in range(0, len(X), 7)])
        np.testing.assert_allclose(chunks, whole, rtol=0, atol=1e-8)


def test_weights_equal_repeated_rows_with_a_companion():
    V = load_house_votes().drop(columns="party")
    w = np.random.default_rng(0).integers(1, 4, size=len(V))
    model = CategoricalNB(structure="tan")
    a = NBOutlierDetector(model).fit(V, sample_weight=w)
    b = NBOutlierDetector(model).fit(V.loc[V.index.repeat(w)].reset_index(drop=True))
    assert a.marginal_ is not None and b.marginal_ is not None
    np.testing.assert_allclose(a.score_samples(V), b.score_samples(V), rtol=1e-10)
    assert a.offset_ == pytest.approx(b.offset_, rel=1e-10)


def test_a_private_model_is_scored_by_its_density(penguins):
    """The references would release the training cells' exact counts and values."""
    features = {"island": bayesnb.Categorical(categories=["Biscoe", "Dream", "Torgersen"]),
                "bill_length_mm": bayesnb.Gaussian()}
    dp = bayesnb.DP(10.0, bounds={"bill_length_mm": (30.0, 60.0)}, classes=[0], random_state=0)
    X = penguins[["island", "bill_length_mm"]].dropna()
    model = NaiveBayes(features, privacy=dp)
    det = NBOutlierDetector(model).fit(X)
    assert det.statistic_ == "density" and det.references_ is None and det.marginal_ is None
    with pytest.raises(ValueError, match="private model must not release"):
        NBOutlierDetector(model, statistic="surprise").fit(X)


def _renamed(det):
    det.marginal_.feature_names_in_ = np.array([f"{c}_x" for c in det.marginal_.feature_names_in_], dtype=object)


def _permuted(det, penguins):
    with one_class_on_purpose():
        det.marginal_ = NaiveBayes().fit(penguins[penguins.columns[::-1]], np.zeros(len(penguins), dtype=int))


def _recoded(det, penguins):
    coded = penguins.assign(island=penguins["island"].astype("category").cat.codes.astype(float))
    with one_class_on_purpose():
        det.marginal_ = NaiveBayes().fit(coded, np.zeros(len(penguins), dtype=int))


@pytest.mark.parametrize("spoil", ["renamed", "permuted", "recoded"])
def test_a_companion_that_reads_the_columns_otherwise_is_refused(penguins, tmp_path, spoil):
    from bayesnb.io.persistence import ModelFileError

    det = NBOutlierDetector().fit(penguins)
    {"renamed": lambda: _renamed(det), "permuted": lambda: _permuted(det, penguins),
     "recoded": lambda: _recoded(det, penguins)}[spoil]()
    det.save(tmp_path / "det.bnb")
    with pytest.raises(ModelFileError, match="naive companion must read"):
        bayesnb.load(tmp_path / "det.bnb")


@pytest.mark.parametrize("alpha", ["hierarchical", 1.0, "auto"])
def test_the_companion_of_a_smoothed_structure_takes_its_families(penguins, alpha):
    """The companion takes the fitted families, which carry their own smoothing: the estimator's alpha is
    not passed on beside a features dict (NaiveBayes refuses the two together)."""
    det = NBOutlierDetector(NaiveBayes(structure="tan", alpha=alpha)).fit(penguins)
    assert det.marginal_ is not None and det.marginal_.get_params()["alpha"] is None
    got = [(type(b.family).__name__, tuple(b.columns)) for b in det.marginal_.posterior_.blocks]
    want = [(type(b.family).__name__, tuple(b.columns)) for b in det.estimator_.posterior_.blocks]
    assert got == want


@pytest.mark.parametrize("labels", [[1, 0, 3, 2], [3, 2, 1, 0], [1, 2, 3, 4]])
def test_integer_column_labels_are_read_as_labels(penguins, tmp_path, labels):
    X = penguins[["bill_length_mm", "island", "body_mass_g", "sex"]].set_axis(labels, axis=1)
    det = NBOutlierDetector(NaiveBayes(structure="tan")).fit(X)
    assert det.marginal_ is not None
    det.save(tmp_path / "det.bnb")
    np.testing.assert_array_equal(bayesnb.load(tmp_path / "det.bnb").score_samples(X), det.score_samples(X))


def test_a_fitted_model_with_rows_of_another_compatible_dtype_saves_and_loads(penguins, tmp_path):
    X, y = penguins.dropna(), penguins.dropna()["sex"].astype(str)
    model = NaiveBayes(structure="tan").fit(X.drop(columns="sex"), y)
    X2 = X.drop(columns="sex").astype({"year": float, "island": "category"})
    det = NBOutlierDetector(model).fit(X2, y)
    det.save(tmp_path / "det.bnb")
    np.testing.assert_array_equal(bayesnb.load(tmp_path / "det.bnb").score_samples(X2), det.score_samples(X2))


def test_a_private_model_saved_with_references_is_refused(penguins, tmp_path):
    from bayesnb.io.persistence import ModelFileError

    X = penguins[["island", "bill_length_mm"]].dropna()
    det = NBOutlierDetector(NaiveBayes()).fit(X)
    assert det.references_ is not None
    det.estimator_.set_params(privacy=bayesnb.DP(1.0, bounds={"bill_length_mm": (30.0, 60.0)}, classes=[0]))
    det.save(tmp_path / "det.bnb")
    with pytest.raises(ModelFileError, match="private model"):
        bayesnb.load(tmp_path / "det.bnb")


def test_negative_weights_are_refused(penguins):
    w = np.ones(len(penguins))
    w[3] = -1.0
    with one_class_on_purpose():
        model = NaiveBayes().fit(penguins, np.zeros(len(penguins), dtype=int))
    with pytest.raises(ValueError, match="[Nn]egative"):
        NBOutlierDetector(model).fit(penguins, sample_weight=w)


_cells = st.lists(st.floats(-50, 5, allow_nan=False).map(lambda v: round(v, 1)), min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(train=_cells, new=_cells, weights=st.lists(st.integers(0, 4), min_size=60, max_size=60),
       points=st.integers(3, 12))
def test_surprise_invariants(train, new, weights, points):
    """Non-negative; never lower for a lower score; weights equal repetition; thinning errs high by less than
    a band; 0 where a cell is missing."""
    t = np.array(train)[:, None]
    w = np.array(weights[:len(train)], dtype=float)
    seen = np.ones_like(t, bool)
    full = fit_cell_reference(t, seen, w, max_points=1000)
    rep = fit_cell_reference(np.repeat(t, w.astype(int), axis=0), np.repeat(seen, w.astype(int), axis=0),
                             max_points=1000)
    thin = fit_cell_reference(t, seen, w, max_points=points)
    c = np.sort(np.array(new))[:, None]
    on = np.ones_like(c, bool)
    s = cell_surprise(full, c, on)[:, 0]
    assert (s >= 0).all() and (np.diff(s) <= 1e-12).all()  # c sorted upwards: the surprise never rises
    np.testing.assert_allclose(cell_surprise(rep, c, on), cell_surprise(full, c, on), rtol=1e-12, atol=1e-12)
    err = cell_surprise(thin, c, on)[:, 0] - s
    assert (err >= -1e-12).all() and (err <= np.log1p(full.total[0]) / (points - 2) + 1e-12).all()
    assert (cell_surprise(full, c, np.zeros_like(on)) == 0).all()
