"""The cells' surprise (bayesnb.generative.cell_surprise) and NBOutlierDetector(statistic="surprise")."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import bayesnb
from bayesnb import CategoricalNB, NaiveBayes, NBOutlierDetector
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


def test_thinning_keeps_the_ends_and_errs_high_by_at_most_the_rank_ratio():
    rng = np.random.default_rng(1)
    cells = rng.normal(size=(5000, 1))
    full = fit_cell_reference(cells, np.ones_like(cells, bool), max_points=10_000)
    thin = fit_cell_reference(cells, np.ones_like(cells, bool), max_points=50)
    kept = thin.points[0][~np.isnan(thin.points[0])]
    assert len(kept) <= 50 and kept[0] == cells.min() and kept[-1] == cells.max()
    assert thin.total[0] == full.total[0] == 5000
    new = rng.normal(size=(200, 1)) * 1.5
    a, b = (cell_surprise(r, new, np.ones_like(new, bool)) for r in (full, thin))
    assert (b >= a - 1e-12).all() and (b - a).max() <= np.log(5000) / 49 + 1e-12  # the ratio of kept ranks


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
    from bayesnb.estimators.outlier import _references_from_file
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
