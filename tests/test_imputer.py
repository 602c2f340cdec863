"""Imputer: impute_table's per-column selection kept as a fitted estimator (fit, impute, draws, model file)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import bayesnb
from bayesnb import Imputer, NaiveBayes, impute_table
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.impute.configs import fill_config, project_fills
from bayesnb.generative.zero_links import keep_zero_links
from bayesnb.io.persistence import ModelFileError
from helpers import assert_damaged_file_refused, edit_meta as _edit_meta

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def masked(df, target, p=0.3, seed=0):
    X = df.drop(columns=target)
    return X.mask(np.random.default_rng(seed).random(X.shape) < p), df[target].to_numpy(dtype=object)


@pytest.fixture(scope="module")
def penguins():
    return masked(load_penguins(), "species")


@pytest.fixture(scope="module")
def fitted(penguins):
    Xm, y = penguins
    return Imputer(random_state=1).fit(Xm, y)


def test_impute_equals_impute_table_on_penguins(penguins, fitted):
    Xm, y = penguins
    before = Xm.copy()
    res = impute_table(Xm, y, random_state=1)
    out = fitted.impute(Xm, y)
    pd.testing.assert_frame_equal(out, res.table)
    assert fitted.transform(Xm).equals(out)
    assert {c: fitted.chosen_[c] for c in res.chosen} == res.chosen and fitted.n_components_ == res.n_components
    pd.testing.assert_frame_equal(fitted.scores_, res.scores)
    assert set(fitted.chosen_.values()) > {"mvn", "latent"}  # several configurations at once
    assert Xm.equals(before)  # the caller's table is never changed


def test_impute_equals_impute_table_on_house_votes_with_labels_given():
    Xm, y = masked(load_house_votes(), "party")
    kw = {"configurations": ("naive", "latent", "tan"), "label_given": True, "random_state": 2}
    res = impute_table(Xm, y, **kw)
    imp = Imputer(**kw).fit(Xm, y)
    pd.testing.assert_frame_equal(imp.impute(Xm, y), res.table)
    assert imp.chosen_ == res.chosen
    # the labels condition the fills: without them (inferred classes) some cell differs
    assert not imp.impute(Xm, np.full(len(y), None)).equals(res.table)


def test_new_rows_are_filled_as_in_the_whole_table(penguins, fitted):
    """Each row's fill depends on that row and the fitted models only: nothing is refitted on the new rows."""
    Xm, y = penguins
    rows = [3, 10, 11, 40, 200, 201, 300]
    np.testing.assert_array_equal(fitted.impute(Xm.iloc[rows]).to_numpy(), fitted.impute(Xm).iloc[rows].to_numpy())


def test_a_column_complete_in_training_is_filled_in_new_rows():
    X, _ = masked(load_penguins(), "species", p=0.0)
    X = X.dropna().reset_index(drop=True)
    Xm = X.copy()
    Xm.loc[::5, "bill_length_mm"] = np.nan  # only this column has missing cells
    for columns, expected in (("all", set(X.columns)), ("missing", {"bill_length_mm"})):
        imp = Imputer(configurations=("naive", "tan"), columns=columns, random_state=0).fit(Xm)
        assert set(imp.chosen_) == expected
    new = X.iloc[:6].copy()
    new.loc[:, "bill_depth_mm"] = np.nan
    filled = Imputer(configurations=("naive", "tan"), random_state=0).fit(Xm).impute(new)
    assert filled["bill_depth_mm"].notna().all()
    lo, hi = X["bill_depth_mm"].min(), X["bill_depth_mm"].max()
    assert filled["bill_depth_mm"].between(lo, hi).all()


def test_mvn_draws_scatter_around_the_point_fill_with_the_conditional_spread():
    """b = a + N(0, 0.5^2): the draws of b given a centre on the fill with sd near 0.5 (plus parameter spread)."""
    rng = np.random.default_rng(0)
    a = rng.normal(0, 2, 600)
    X = pd.DataFrame({"a": a, "b": a + rng.normal(0, 0.5, 600)})
    X.loc[:99, "b"] = np.nan
    imp = Imputer(configurations="mvn").fit(X)
    point = imp.impute(X)["b"].to_numpy()[:100]
    draws = np.stack([t["b"].to_numpy()[:100] for t in imp.impute(X, strategy="draw", n_imputations=200,
                                                                    random_state=1)])
    assert np.abs(draws.mean(axis=0) - point).max() < 0.2
    assert 0.4 < draws.std(axis=0).mean() < 0.65
    assert np.all(draws.std(axis=0) > 0)


def test_draws_are_multiple_imputations_for_pool(penguins, fitted):
    Xm, y = penguins
    tables = fitted.impute(Xm, y, strategy="draw", n_imputations=4, random_state=0)
    assert len(tables) == 4 and not any(t.isna().any().any() for t in tables)
    obs = Xm.notna().to_numpy()
    for t in tables:
        np.testing.assert_array_equal(t.to_numpy()[obs], Xm.to_numpy()[obs])
    miss = Xm["body_mass_g"].isna().to_numpy()
    spread = np.stack([t["body_mass_g"].to_numpy(dtype=float)[miss] for t in tables]).std(axis=0)
    assert np.mean(spread > 0) > 0.9  # draws, not one fill repeated
    again = fitted.impute(Xm, y, strategy="draw", n_imputations=4, random_state=0)
    assert all(a.equals(b) for a, b in zip(tables, again, strict=True))
    estimates = [(float(t["body_mass_g"].astype(float).mean()), float(t["body_mass_g"].astype(float).var() / len(t)))
                 for t in tables]
    pooled = bayesnb.pool([e for e, _ in estimates], [v for _, v in estimates])
    assert float(pooled["b"].iloc[0]) > 0  # the imputations disagree: Rubin's between variance


def _linked_table(n=600, seed=0):
    """x2 in {a, b} follows the sign of x1 (95%), x4 = x1 + noise; a third of x2 and x4 missing (MCAR)."""
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x2 = np.where((x1 > 0) ^ (rng.random(n) < 0.05), "b", "a").astype(object)
    X = pd.DataFrame({"x1": x1, "x2": x2, "x3": rng.choice(np.array(["u", "v"], dtype=object), n),
                      "x4": x1 + rng.normal(0, 0.5, n)})
    Xm = X.copy()
    Xm.loc[rng.random(n) < 1 / 3, "x2"] = None
    Xm.loc[rng.random(n) < 1 / 3, "x4"] = np.nan
    return X, Xm


def test_draws_come_from_one_joint_model_of_every_column():
    """strategy="draw" draws every column from the latent-class model, whatever each column's point choice."""
    X, Xm = _linked_table()
    imp = Imputer(configurations=("naive", "latent", "mvn"), random_state=0).fit(Xm)
    assert imp.draw_configuration_ == "latent"
    tables = imp.impute(Xm, strategy="draw", n_imputations=5, random_state=4)
    rng = np.random.default_rng(4)
    expected = fill_config("latent", imp.models_["latent"], Xm, None, rng, "draw", 5)
    for got, want in zip(tables, expected, strict=True):
        want = project_fills(keep_zero_links(want, Xm, imp.zero_links_), Xm, imp.supports_)
        pd.testing.assert_frame_equal(got, want)
    # the draws keep x2's link to the observed x1 (the naive model, one class, would draw x2 at random)
    miss = Xm["x2"].isna().to_numpy()
    agree = np.mean([np.mean((t["x2"].to_numpy()[miss] == "b") == (X["x1"].to_numpy()[miss] > 0)) for t in tables])
    assert agree > 0.8


def test_draws_without_a_joint_configuration_use_each_columns_choice():
    X, Xm = _linked_table()
    imp = Imputer(configurations=("naive", "tan"), random_state=0).fit(Xm)
    assert imp.draw_configuration_ is None and set(imp.models_) == set(imp.chosen_.values())
    tables = imp.impute(Xm, strategy="draw", n_imputations=2, random_state=1)
    assert len(tables) == 2 and not any(t.isna().any().any() for t in tables)
    # impute_table never draws, so it fits no joint model beyond the columns' choices
    one = Imputer(configurations=("naive", "latent"), random_state=0, columns="missing")
    head = Xm.iloc[:200]  # (the latent-class search on 600 rows took a second)
    one._fit(head, np.zeros(len(head), dtype=np.int64), ("naive", "latent"), False, "impute_table", draws=False)
    assert one.draw_configuration_ is None and set(one.models_) == set(one.chosen_.values())


def test_saved_and_loaded_imputer_imputes_identically(penguins, fitted, tmp_path):
    Xm, y = penguins
    path = tmp_path / "imputer.bnb"
    fitted.save(path)
    for again in (Imputer.load(path), bayesnb.load(path)):
        assert isinstance(again, Imputer) and again.chosen_ == fitted.chosen_
        assert again.draw_configuration_ == fitted.draw_configuration_ == "latent"
        pd.testing.assert_frame_equal(again.impute(Xm, y), fitted.impute(Xm, y))
        pd.testing.assert_frame_equal(again.scores_, fitted.scores_)
        a = again.impute(Xm.iloc[:50], strategy="draw", n_imputations=2, random_state=3)
        b = fitted.impute(Xm.iloc[:50], strategy="draw", n_imputations=2, random_state=3)
        assert all(s.equals(t) for s, t in zip(a, b, strict=True))
    with pytest.raises(FileExistsError, match="overwrite=True"):
        fitted.save(path)
    fitted.save(path, overwrite=True, key="secret")
    assert Imputer.load(path, key="secret").impute(Xm, y).equals(fitted.impute(Xm, y))
    with pytest.raises(ModelFileError):
        Imputer.load(path)


def test_a_latent_configuration_under_another_class_alpha_loads(penguins, tmp_path):
    """The latent states' weights have EM's Dirichlet(1) prior whatever the template's class_alpha: the
    file is checked against that prior (before, a template with class_alpha=2 wrote a file it refused)."""
    Xm, y = penguins
    imp = Imputer(estimator=NaiveBayes(class_alpha=2.0), configurations=("latent",), random_state=0).fit(Xm, y)
    imp.save(tmp_path / "a2.bnb")
    pd.testing.assert_frame_equal(Imputer.load(tmp_path / "a2.bnb").impute(Xm, y), imp.impute(Xm, y))


@pytest.mark.parametrize("configuration", ["mvn", "latent"])
def test_one_configuration_saves_and_loads_on_a_categorical_table(configuration, tmp_path):
    """house votes has no numeric column: the mvn state is the naive model alone; the latent fit is saved whole."""
    Xm, y = masked(load_house_votes(), "party", p=0.2)
    imp = Imputer(configurations=configuration, random_state=0).fit(Xm, y)
    assert imp.scores_ is None and set(imp.chosen_.values()) == {configuration}
    imp.save(tmp_path / "one.bnb")
    again = Imputer.load(tmp_path / "one.bnb")
    pd.testing.assert_frame_equal(again.impute(Xm), imp.impute(Xm))
    assert again.n_components_ == imp.n_components_ and (configuration == "mvn") == (imp.n_components_ is None)


def test_a_column_without_a_choice_is_filled_by_the_first_fitted_configuration(penguins):
    X = masked(load_penguins(), "species", p=0.0)[0].dropna().reset_index(drop=True)
    Xm = X.copy()
    Xm.loc[::4, "bill_length_mm"] = np.nan
    imp = Imputer(configurations=("naive", "tan"), columns="missing", random_state=0).fit(Xm)
    assert list(imp.chosen_) == ["bill_length_mm"]
    new = X.iloc[:8].copy()
    new.loc[:, "flipper_length_mm"] = np.nan
    first = next(iter(imp.models_))
    expected = imp.models_[first].impute(new)["flipper_length_mm"]
    np.testing.assert_array_equal(imp.impute(new)["flipper_length_mm"].to_numpy(dtype=float),
                                  expected.to_numpy(dtype=float))




@pytest.mark.parametrize("change, match", [
    (lambda m: m["fitted"]["chosen"].append([0, "forest"]), "choices"),
    (lambda m: m["fitted"]["models"]["latent"]["latent"].update(n_components=7), "states"),
    (lambda m: m["fitted"]["models"]["mvn"].update(columns=[0, 0, 1, 2]), "columns"),
    (lambda m: m["fitted"]["zero_links"].append([1, 1]), "zero links"),
    (lambda m: m["fitted"].update(draw_configuration="forest"), "draw configuration"),
])
def test_a_damaged_imputer_file_is_refused(fitted, tmp_path, change, match):
    assert_damaged_file_refused(fitted, tmp_path, change, match, Imputer.load)


def test_a_file_written_before_draw_configuration_draws_each_column_from_its_choice(fitted, penguins, tmp_path):
    Xm, y = penguins
    path, old = tmp_path / "imputer.bnb", tmp_path / "old.bnb"
    fitted.save(path)
    _edit_meta(path, old, lambda m: m["fitted"].pop("draw_configuration"))
    again = Imputer.load(old)
    assert again.draw_configuration_ is None
    assert len(again.impute(Xm, y, strategy="draw", n_imputations=2, random_state=0)) == 2


def test_a_naive_bayes_file_is_not_an_imputer(tmp_path):
    X, y = masked(load_penguins(), "species")
    path = tmp_path / "nb.bnb"
    NaiveBayes().fit(X, y).save(path)
    with pytest.raises(TypeError, match="expected an Imputer"):
        Imputer.load(path)


@pytest.mark.parametrize("kwargs, call, err, match", [
    ({"columns": "some"}, "fit", ValueError, "columns must be 'all' or 'missing'"),
    ({"holdout": 1.5}, "fit", ValueError, "holdout"),
    ({"configurations": ("naive", "forest")}, "fit", ValueError, "configurations"),
    ({"estimator": "nb"}, "fit", TypeError, "estimator must be a NaiveBayes"),
])
def test_bad_parameters_are_refused(kwargs, call, err, match, penguins):
    Xm, y = penguins
    with pytest.raises(err, match=f"Imputer: .*{match}"):
        Imputer(**kwargs).fit(Xm, y)


def test_bad_rows_and_options_are_refused(penguins, fitted):
    Xm, y = penguins
    with pytest.raises(ValueError, match="training columns, in order"):
        fitted.impute(Xm[list(Xm.columns[::-1])])
    with pytest.raises(TypeError, match="DataFrame"):
        fitted.impute(Xm.to_numpy())
    with pytest.raises(ValueError, match="strategy must be 'auto' or 'draw'"):
        fitted.impute(Xm, strategy="mode")
    with pytest.raises(ValueError, match="n_imputations"):
        fitted.impute(Xm, n_imputations=3)
    with pytest.raises(ValueError, match=r"y must have shape \(344,\)"):
        fitted.impute(Xm, y[:5])
    with pytest.raises(Exception, match="not fitted"):
        Imputer().impute(Xm)


def test_scikit_learn_api(penguins):
    Xm, _ = penguins
    imp = Imputer(configurations=("naive", "tan"), random_state=0)
    assert clone(imp).get_params() == imp.get_params()
    out = imp.fit_transform(Xm)
    assert out.equals(imp.transform(Xm)) and not out.isna().any().any()


def test_an_unknown_label_is_named_by_the_imputer():
    Xm, y = masked(load_house_votes(), "party")
    imp = Imputer(configurations=("naive", "tan"), label_given=True, random_state=0).fit(Xm, y)
    bad = y.copy()
    bad[3] = "whig"
    with pytest.raises(ValueError, match=r"^Imputer.impute: y has label\(s\) \['whig'\] that are not among the "
                                         r"training classes \['democrat', 'republican'\]"):
        imp.impute(Xm, bad)
    unknown = y.copy()
    unknown[3] = None  # an unknown label is allowed
    assert not imp.impute(Xm, unknown).isna().any().any()
