"""``Synthesizer(privacy=DP(...))``: bounds, declared categories, nothing data-derived without noise, refusals."""

import os

import numpy as np
import pandas as pd
import pytest

import bayesnb as bn
from bayesnb.synth import private_bins as _synth_bins, private_synth as _synth_private
from bayesnb.datasets import load_penguins
from bayesnb.privacy import Budget
from helpers import cli_sample_as_python

BOUNDS = {"bill_length_mm": (30, 60), "bill_depth_mm": (13, 22), "flipper_length_mm": (170, 235),
          "body_mass_g": (2500, 6500)}
CLASSES = ["Adelie", "Chinstrap", "Gentoo"]
CATS = {"island": ["Biscoe", "Dream", "Torgersen"], "sex": ["female", "male"], "year": [2007, 2008, 2009]}


def _dp(eps=1.0, seed=0, **kw):
    return bn.DP(eps, bounds=kw.pop("bounds", BOUNDS), classes=kw.pop("classes", CLASSES), random_state=seed, **kw)


def _synth(dp=None, **kw):
    return bn.Synthesizer(target="species", privacy=_dp() if dp is None else dp, categories=kw.pop("categories", CATS),
                          **kw)


@pytest.fixture(scope="module")
def penguins():
    return load_penguins()


def test_private_samples_keep_the_declared_bounds_categories_and_integers(penguins):
    synth = _synth(_dp(0.2)).fit(penguins)  # a small epsilon: noisy means and wide variances
    out = synth.sample(4000, random_state=1)
    assert list(out.columns) == list(penguins.columns)
    for c, (lo, hi) in BOUNDS.items():
        vals = out[c].dropna().astype(float)
        assert len(vals) > 0 and ((vals < lo) | (vals > hi)).sum() == 0
    for c in ("flipper_length_mm", "body_mass_g", "year"):  # integer dtypes (public schema): whole numbers
        vals = out[c].dropna().astype(float)
        assert (vals == np.round(vals)).all()
        assert out[c].dtype == penguins[c].dtype
    for c, cats in CATS.items():
        assert set(out[c].dropna()) <= set(cats)
    assert set(out["species"]) <= set(CLASSES)
    # a float column is not rounded
    assert (out["bill_length_mm"].dropna() != np.round(out["bill_length_mm"].dropna())).any()


def test_a_private_synthesizer_reports_its_budget_and_fits_one_private_model(penguins):
    synth = _synth(_dp(2.0)).fit(penguins)
    assert synth.privacy_spent_ == synth.model_.privacy_spent_
    assert synth.privacy_spent_["epsilon"] == 2.0
    assert synth.latent_ is None and synth.chosen_ == "naive (private)"
    assert len(synth.selection_) == 1 and bool(synth.selection_["chosen"].iloc[0])
    # every numeric column whose dtype can hold a missing cell has its indicator; a categorical one
    # (not int64 'year', which cannot) has one more category
    assert set(synth.missing_indicators_) == set(BOUNDS)
    assert _synth_private.missing_categories(synth.model_) == ["island", "sex"]
    X, y = synth.model_table(penguins)  # the real rows as the model sees them: missing cells as that category
    assert (X["sex"] == _synth_private.MISSING_CATEGORY).sum() == penguins["sex"].isna().sum()
    assert np.isfinite(synth.model_.predict_joint_log_proba(X)).all()
    smoothed = _synth(_dp(2.0), support="smoothed").fit(penguins)  # (the prior keeps every category's mass)
    out = smoothed.sample(3000, random_state=0)
    assert out["sex"].isna().any() and not (out == _synth_private.MISSING_CATEGORY).any().any()
    dropped = _synth(_dp(2.0), missing="drop").fit(penguins)
    assert dropped.missing_indicators_ == {}
    assert not dropped.sample(500, random_state=0).isna().any().any()


def test_a_categorical_column_models_its_missing_cells_at_no_extra_cost():
    """The missing cells of a categorical column are one more category of its released counts: the same
    statistics, so the same budget split as with missing="drop" (house votes: every column categorical)."""
    votes = bn.datasets.load_house_votes()
    cats = {c: ["n", "y"] for c in votes.columns if c != "party"}
    dp = bn.DP(1.0, classes=["democrat", "republican"], random_state=0)
    split = [bn.Synthesizer(target="party", privacy=dp, categories=cats, missing=m).fit(votes).privacy_spent_
             for m in ("model", "drop")]
    assert split[0] == split[1]
    synth = bn.Synthesizer(target="party", privacy=dp, categories=cats).fit(votes)
    assert synth.missing_indicators_ == {} and len(_synth_private.missing_categories(synth.model_)) == 16
    assert synth.sample(2000, random_state=0).drop(columns="party").isna().to_numpy().mean() > 0


def _same(a, b, where):
    """Assert ``a == b`` structurally (arrays, frames, dicts, sequences, named tuples, families)."""
    if isinstance(a, (pd.DataFrame, pd.Series)):
        assert a.equals(b), where
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype, where
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), where
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, bn.families.Family):
        assert type(a) is type(b) and repr(a) == repr(b), where
    else:
        assert a == b or (a is None and b is None), where


#: the attributes of a fitted private NaiveBayes computed from its noisy release (post-processing)
_NOISY = {"posterior_", "class_count_", "class_log_prior_", "log_evidence_", "_caches"}


def test_neighbouring_tables_give_models_equal_in_everything_not_drawn_from_the_noise(penguins):
    """Two tables differing in one row: a rare category, a missing cell, an extreme value and another class
    in the replaced row. Everything the private Synthesizer keeps besides the noisy release is identical."""
    a = penguins[(penguins["island"] != "Torgersen")].dropna().reset_index(drop=True)
    b = a.copy()
    b.loc[0] = {"species": "Gentoo" if a.loc[0, "species"] != "Gentoo" else "Adelie", "island": "Torgersen",
                "bill_length_mm": 59.9, "bill_depth_mm": np.nan, "flipper_length_mm": 171, "body_mass_g": 6490,
                "sex": "male", "year": 2009}
    b = b.astype(a.dtypes.to_dict())
    # without privacy the two tables give different models (missing indicators, categories): a leak to catch
    plain = [bn.Synthesizer(target="species", structure="naive", latent=None).fit(t) for t in (a, b)]
    assert plain[0].missing_indicators_ != plain[1].missing_indicators_
    fits = [_synth(_dp(1.0, seed=7)).fit(t) for t in (a, b)]
    sa, sb = (vars(f) for f in fits)
    assert list(sa) == list(sb)
    for key in sa:
        if key != "model_":
            _same(sa[key], sb[key], key)
    ma, mb = vars(fits[0].model_), vars(fits[1].model_)
    assert list(ma) == list(mb)
    for key in ma:
        if key not in _NOISY:
            _same(ma[key], mb[key], f"model_.{key}")
    pa, pb = fits[0].model_.posterior_, fits[1].model_.posterior_
    _same(pa.classes, pb.classes, "classes")
    for ba, bb in zip(pa.blocks, pb.blocks):  # the blocks' families, columns and encodings (not their statistics)
        _same([ba.family, ba.columns, list(ba.names), ba.state], [bb.family, bb.columns, list(bb.names), bb.state],
              "block")
    # and the releases themselves differ (the test compares two real fits)
    assert not fits[0].sample(50, random_state=0).equals(fits[1].sample(50, random_state=0))


def test_a_private_fit_keeps_no_record_of_which_columns_had_no_observed_cell(penguins):
    """A column observed in one row of one table and in none of its neighbour: the estimators are the same."""
    a = penguins.dropna().reset_index(drop=True).assign(bill_depth_mm=np.nan)
    a.loc[0, "bill_depth_mm"] = 18.0
    b = a.assign(bill_depth_mm=np.nan)
    with pytest.warns(UserWarning):  # (the data holder is told; the model does not keep it)
        fits = [_synth(_dp(1.0, seed=1)).fit(t) for t in (a, b)]
    _same(vars(fits[0].model_)["_never_observed"], vars(fits[1].model_)["_never_observed"], "_never_observed")


def test_private_synthesis_is_reproducible_with_its_seeds(penguins):
    one = _synth(_dp(1.0, seed=3)).fit(penguins).sample(300, random_state=5)
    two = _synth(_dp(1.0, seed=3)).fit(penguins).sample(300, random_state=5)
    other = _synth(_dp(1.0, seed=4)).fit(penguins).sample(300, random_state=5)
    pd.testing.assert_frame_equal(one, two)
    assert not one.equals(other)


def test_a_private_synthesizer_saves_and_loads(penguins, tmp_path):
    synth = _synth(_dp(1.0, seed=2)).fit(penguins)
    path = os.path.join(tmp_path, "private.bnb")
    synth.save(path)
    back = bn.Synthesizer.load(path)
    assert back.privacy_spent_ == synth.privacy_spent_ and back.privacy == synth.privacy
    pd.testing.assert_frame_equal(back.sample(400, random_state=9), synth.sample(400, random_state=9))


def test_bayesnb_sample_of_a_private_file_draws_as_the_python_api(penguins, tmp_path, capsys):
    synth = _synth(_dp(1.0, seed=2)).fit(penguins)
    written = cli_sample_as_python(synth, tmp_path, capsys, 60, 4)
    for c in ("flipper_length_mm", "body_mass_g", "year"):  # whole numbers, as the Synthesizer draws them
        vals = written[c].dropna()
        assert (vals == np.round(vals)).all()


def test_a_private_synthesizer_without_target_has_one_declared_class(penguins):
    table = penguins.drop(columns=["species"])
    synth = bn.Synthesizer(privacy=bn.DP(1.0, bounds=BOUNDS, random_state=0), categories=CATS).fit(table)
    out = synth.sample(200, random_state=0)
    assert list(out.columns) == list(table.columns)
    with pytest.raises(ValueError, match="target=None"):
        bn.Synthesizer(privacy=_dp(), categories=CATS).fit(table)


@pytest.mark.parametrize("kwargs, data_change, match", [
    ({"latent": 2}, None, "latent=2 is not available with privacy="),
    ({"dp": bn.DP(1.0, bounds=BOUNDS)}, None, "with privacy= the target's labels must be declared"),
    ({"categories": {"island": ["Biscoe", "Dream", "Torgersen"], "year": [2007, 2008, 2009]}}, None,
     r"with privacy= every column needs declared information.*\['sex'\]"),
    ({"categories": {**CATS, "nope": [1]}}, None, "not feature columns"),
    ({"categories": {**CATS, "body_mass_g": [1, 2]}}, None, "both declared categories and bounds"),
    ({"categories": {**CATS, "sex": ["female", "male", "__missing__"]}}, None, "the category a private model's"),
    ({"dp": _dp(bounds={**BOUNDS, "flipper_length_mm": (170.2, 170.8)})}, None, "no whole number"),
    ({}, "datetime", "datetime column.*not available with privacy="),
])
def test_what_a_private_synthesizer_refuses_is_named(penguins, kwargs, data_change, match):
    data = penguins
    if data_change == "datetime":
        data = penguins.assign(seen=pd.Timestamp("2008-01-01"))
    with pytest.raises(ValueError, match=match):
        _synth(**kwargs).fit(data)


def test_categories_without_privacy_are_refused(penguins):
    with pytest.raises(ValueError, match="categories= declares the categories of a private fit"):
        bn.Synthesizer(target="species", categories=CATS).fit(penguins)


def test_the_private_default_structure_is_passed_to_the_estimator(penguins, monkeypatch):
    """``structure="auto"`` fits ``DP_STRUCTURE`` (the estimator's private ``"auto"``, without its CV check)."""
    assert _synth_private.DP_STRUCTURE == "auto"
    synth = _synth().fit(penguins)
    assert synth.model_.structure == "auto" and synth.model_.auto_cv is False
    assert synth.chosen_ == f"{synth.model_.structure_kind_} (private)"
    monkeypatch.setattr(_synth_private, "DP_STRUCTURE", "tan")
    synth = _synth().fit(penguins)
    assert synth.model_.structure_kind_ == "tan" and synth.chosen_ == "tan (private)"


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_a_private_synthesizer_with_a_learned_structure_samples_inside_the_declared_bounds(penguins, structure):
    synth = _synth(structure=structure).fit(penguins)
    assert synth.model_.structure_kind_ == structure
    assert synth.model_.structure_ != {c: () for c in synth.model_.structure_}  # parents were picked
    out = synth.sample(3000, random_state=0)
    for col, (lo, hi) in BOUNDS.items():
        v = out[col].dropna().astype(float)
        assert ((v >= lo) & (v <= hi)).all(), col
    for col, cats in CATS.items():
        assert set(out[col].dropna()) <= set(cats), col


def test_a_pandas_categorical_dtype_keeps_no_category_set_of_the_data(penguins):
    """``astype("category")`` builds its categories from the values: a private Synthesizer keeps the declared
    ones (and the declared classes) in ``dtypes_`` and its samples, so tables that differ in which values occur
    give the same dtypes; a categorical column is never taken for a bool one by its data-built categories."""
    def as_categorical(t):
        t = t.copy()
        for c in ("island", "species"):
            t[c] = t[c].astype("category")
        return t

    a = as_categorical(penguins[penguins["island"] != "Torgersen"])
    b = as_categorical(penguins)
    fits = [_synth(_dp(1.0, seed=3)).fit(t) for t in (a, b)]
    assert fits[0].dtypes_.equals(fits[1].dtypes_)
    assert list(fits[0].dtypes_["island"].categories) == CATS["island"]
    assert list(fits[0].dtypes_["species"].categories) == CLASSES
    outs = [f.sample(300, random_state=0) for f in fits]
    assert outs[0].dtypes.equals(outs[1].dtypes) and isinstance(outs[0]["island"].dtype, pd.CategoricalDtype)
    flagged = penguins.assign(flag=pd.Categorical([True] * len(penguins)))  # categories [True], from the data
    with pytest.raises(ValueError, match=r"with privacy= every column needs declared information.*\['flag'\]"):
        _synth().fit(flagged)
    declared = _synth(categories={**CATS, "flag": [False, True]}).fit(flagged)
    assert list(declared.dtypes_["flag"].categories) == [False, True]


def test_conditions_on_an_integer_column_hold_after_its_rounding(penguins):
    """An integer column is drawn as a number and rounded: ``given`` and ``forbid`` ranges on it hold for the
    whole numbers returned (a range with no whole number in it is refused)."""
    gauss = {"flipper_length_mm": "gaussian", "body_mass_g": "gaussian"}  # (binned columns: the test below)
    synth = _synth(_dp(1.0, seed=2), categories={**CATS, **gauss}).fit(penguins)
    out = synth.sample(400, random_state=0, given={"flipper_length_mm": (190.4, 192.6)})
    assert out["flipper_length_mm"].between(191, 192).all() and out["flipper_length_mm"].nunique() == 2
    out = synth.sample(400, random_state=0, given={"flipper_length_mm": (190.4, 192.6), "body_mass_g": (None, 2600.5)})
    assert out["body_mass_g"].between(2500, 2600).all()
    out = synth.sample(2000, random_state=0, forbid=[{"flipper_length_mm": (180.5, 230.5)}])
    vals = out["flipper_length_mm"].dropna()
    assert len(vals) and not vals.between(181, 230).any()
    with pytest.raises(ValueError, match="no whole number"):
        synth.sample(10, random_state=0, given={"flipper_length_mm": (190.2, 190.8)})


@pytest.mark.parametrize("missing", ["model", "drop"])
def test_a_categorical_dtype_reaches_the_model_file_with_the_declared_categories(penguins, tmp_path, missing):
    """The estimator records the training dtypes (``feature_dtypes_``, written to the model file): a pandas
    categorical column's are the declared categories, so the file holds none read from the data, and a loaded
    private Synthesizer draws the same table, dtypes included."""
    a = penguins[penguins["island"] != "Torgersen"].assign(island=lambda t: t["island"].astype("category"))
    synth = _synth(_dp(1.0, seed=3), missing=missing).fit(a)
    dtype = dict(zip(synth.model_.feature_names_in_, synth.model_.feature_dtypes_))["island"]
    assert isinstance(dtype, pd.CategoricalDtype) and list(dtype.categories) == CATS["island"]
    synth.save(tmp_path / "cat.bnb")
    back = bn.Synthesizer.load(tmp_path / "cat.bnb")
    pd.testing.assert_frame_equal(back.sample(300, random_state=2), synth.sample(300, random_state=2))


def test_a_loaded_private_synthesizer_without_target_has_its_setting_and_refits(penguins, tmp_path):
    table = penguins.drop(columns=["species"])
    synth = bn.Synthesizer(privacy=bn.DP(1.0, bounds=BOUNDS, random_state=0), categories=CATS).fit(table)
    synth.save(tmp_path / "one.bnb")
    back = bn.Synthesizer.load(tmp_path / "one.bnb")
    assert back.privacy == synth.privacy
    pd.testing.assert_frame_equal(back.sample(100, random_state=1), synth.sample(100, random_state=1))
    refit = bn.Synthesizer(**{**back.get_params(), "categories": CATS}).fit(table)
    pd.testing.assert_frame_equal(refit.sample(100, random_state=1), synth.sample(100, random_state=1))


def _released_sums(synth):
    """``{column: per-class sum of its released counts}`` of the model's Categorical block."""
    block = [b for b in synth.model_.posterior_.blocks if isinstance(b.family, bn.Categorical)][0]
    return {name: c.sum(axis=1) for name, c in zip(block.names, block.stats.counts)}


def test_released_counts_of_a_fully_counted_column_hold_at_most_its_class_count():
    """Every row adds one unit to a column whose missing cells are a category (or that holds none), so its
    counts in a class sum to the class count; the release clips negative noise to 0 and keeps positive noise,
    an excess that would inflate rare cells (missing ones above all). It is taken back (post-processing)."""
    votes = bn.datasets.load_house_votes()
    cats = {c: ["n", "y"] for c in votes.columns if c != "party"}
    over = 0
    for seed in range(4):
        dp = bn.DP(1.0, classes=["democrat", "republican"], random_state=seed)
        synth = bn.Synthesizer(target="party", privacy=dp, categories=cats).fit(votes)
        total = synth.model_.class_count_
        for column, sums in _released_sums(synth).items():
            assert (sums <= total + 1e-9).all(), column
        dropped = bn.Synthesizer(target="party", privacy=dp, categories=cats, missing="drop").fit(votes)
        over += sum(int((s > dropped.model_.class_count_ + 1e-9).any()) for s in _released_sums(dropped).values())
    assert over > 0  # without a missing category the observed total is not released: not projected


def test_bounds_on_a_non_numeric_column_are_refused_as_such(penguins):
    cats = {k: v for k, v in CATS.items() if k != "sex"}
    with pytest.raises(ValueError, match=r"DP\(bounds=...\) for column\(s\) \['sex'\].*not numeric.*categories="):
        _synth(_dp(bounds={**BOUNDS, "sex": (0, 1)}), categories=cats).fit(penguins)


@pytest.mark.parametrize("condition", [{"given": {"sex": "male"}}, {"forbid": [{"island": "Dream"}]},
                                       {"given": {"island": "Biscoe", "bill_length_mm": (50.0, 80.0)}}])
def test_conditional_private_samples_keep_the_declared_bounds(penguins, condition):
    """``given`` and ``forbid`` draw the free cells as ``sample`` does, truncated to the bounds, and a range on
    a bounded column is met within the bounds."""
    out = _synth(_dp(0.2)).fit(penguins).sample(3000, random_state=0, **condition)
    seen = 0
    for c, (lo, hi) in BOUNDS.items():  # (at epsilon 0.2 a column may be drawn missing in every row)
        vals = out[c].dropna().astype(float)
        seen += len(vals)
        assert not ((vals < lo) | (vals > hi)).any(), c
    assert seen > 3000
    if "bill_length_mm" in condition.get("given", {}):
        assert out["bill_length_mm"].between(50, 60).all()


def test_a_condition_outside_the_declared_bounds_is_refused(penguins):
    synth = _synth(_dp(1.0)).fit(penguins)
    for given in ({"bill_length_mm": 80.0}, {"bill_length_mm": (61, 80)}, {"body_mass_g": (7000, None)}):
        with pytest.raises(ValueError, match="outside the declared bounds"):
            synth.sample(10, random_state=0, given=given)


def test_imputed_draws_of_a_private_model_keep_the_declared_bounds(penguins):
    synth = _synth(_dp(0.2)).fit(penguins)
    X, _ = synth.model_table(penguins)
    X = X.assign(body_mass_g=np.nan, bill_depth_mm=np.nan)
    for strategy in ("draw", "mean", "mode"):
        filled = synth.model_.impute(X, strategy=strategy, random_state=0)
        filled = _synth_private.private_draws(synth.model_, filled, synth.dtypes_)  # bins' labels to values
        for c in ("body_mass_g", "bill_depth_mm"):
            lo, hi = BOUNDS[c]
            assert filled[c].astype(float).between(lo, hi).all(), (strategy, c)


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_conditional_samples_of_a_private_structure_keep_the_declared_bounds(penguins, structure):
    synth = _synth(_dp(0.2), structure=structure).fit(penguins)
    for condition in ({"forbid": [{"island": "Dream"}]}, {"given": {"island": "Biscoe", "bill_length_mm": (50.0, 80.0)}}):
        out = synth.sample(500, random_state=0, **condition)
        seen = 0
        for c, (lo, hi) in BOUNDS.items():  # (at epsilon 0.2 a column may be drawn missing in every row)
            vals = out[c].dropna().astype(float)
            seen += len(vals)
            assert not ((vals < lo) | (vals > hi)).any(), (condition, c)
        assert seen > 200


def test_bounded_numeric_columns_are_declared_bins_decoded_inside_the_bounds(penguins):
    """Under privacy a bounded numeric column is a Categorical over equal-width bins of its declared bounds
    (integer columns: whole numbers per bin, never more bins than whole numbers); draws are uniform within the
    drawn bin, inside the bounds, whole for integer dtypes; ``"gaussian"`` keeps the Gaussian."""
    bounds = {**BOUNDS, "flipper_length_mm": (170, 174)}  # 5 whole numbers
    dp = _dp(50.0, bounds=bounds)
    synth = _synth(dp, categories={**CATS, "flipper_length_mm": 20, "bill_depth_mm": 7}).fit(penguins)
    (names, fam), = synth.model_.blocks_
    cats = dict(zip(names, fam.categories))
    assert cats["flipper_length_mm"] == ["170..170", "171..171", "172..172", "173..173", "174..174"]
    assert len(cats["bill_depth_mm"]) == 7 and cats["bill_depth_mm"][0] == "[13.0, 14.285714285714286)"
    assert len(cats["bill_length_mm"]) == _synth_bins.default_bins(len(penguins), 50.0, 3, 11)
    out = synth.sample(3000, random_state=0)
    for c, (lo, hi) in bounds.items():
        vals = out[c].dropna().astype(float)
        assert len(vals) > 1000 and vals.between(lo, hi).all(), c
    assert set(out["flipper_length_mm"].dropna()) <= {170, 171, 172, 173, 174}
    assert (out["body_mass_g"].dropna() == np.round(out["body_mass_g"].dropna())).all()
    assert out["bill_length_mm"].dropna().nunique() > 1000  # uniform within the bins, not their midpoints
    assert out["body_mass_g"].dtype == penguins["body_mass_g"].dtype
    # the bins follow the data: the synthetic share of each bill-length bin is near the real one at epsilon 50
    edges = np.linspace(30, 60, len(cats["bill_length_mm"]) + 1)
    real = np.histogram(penguins["bill_length_mm"].dropna(), edges)[0]
    fake = np.histogram(out["bill_length_mm"].dropna(), edges)[0]
    assert 0.5 * np.abs(real / real.sum() - fake / fake.sum()).sum() < 0.1
    gauss = _synth(dp, categories={**CATS, **{c: "gaussian" for c in BOUNDS}}).fit(penguins)
    assert any(isinstance(f, bn.Gaussian) for _, f in gauss.model_.blocks_)


def test_default_bins_grow_with_rows_and_epsilon_within_their_limits():
    rule = _synth_bins.default_bins
    assert rule(22162, 1.0, 2, 14) == 20 and rule(344, 0.2, 3, 11) == 2
    assert rule(344, 1.0, 3, 11) < rule(3440, 1.0, 3, 11) < rule(34400, 1.0, 3, 11)
    assert rule(1000, 0.5, 2, 10) < rule(1000, 2.0, 2, 10)
    assert rule(10, 0.01, 5, 50) == _synth_bins.MIN_BINS and rule(10 ** 9, 10.0, 1, 1) == _synth_bins.MAX_BINS
    # the Gaussian mechanism: the same rule with half the sd of a count of a 1/d share (Budget.split)
    sd = Budget(1.0, 1e-6, "gaussian", None).split([1, 49])[0].scale(2.0, np.sqrt(2.0))
    assert rule(3000, 1.0, 3, 50, 1e-6, "gaussian") == round(np.sqrt(3000 / (3 * sd / 2))) == 7
    assert rule(3000, 1.0, 3, 50) == 4  # Laplace: a count's noise grows as d, the Gaussian's as sqrt(d)


def test_given_ranges_on_binned_columns_are_met_and_partial_forbids_refused(penguins):
    synth = _synth(_dp(2.0, seed=1), categories={**CATS, "bill_length_mm": 6, "body_mass_g": 8}).fit(penguins)
    out = synth.sample(1000, random_state=0, given={"bill_length_mm": (41.3, 47.9), "body_mass_g": (3010.2, 4320)})
    assert out["bill_length_mm"].between(41.3, 47.9).all() and out["body_mass_g"].between(3011, 4320).all()
    assert out["bill_length_mm"].nunique() > 500  # spread over the range, across bins
    out = synth.sample(50, random_state=0, given={"bill_length_mm": 44.25, "body_mass_g": 3333})
    assert (out["bill_length_mm"] == 44.25).all() and (out["body_mass_g"] == 3333).all()
    out = synth.sample(1000, random_state=0, forbid=[{"bill_length_mm": (30, 40)}])  # two whole bins of width 5
    assert (out["bill_length_mm"].dropna() >= 40).all()
    with pytest.raises(ValueError, match="covers part of a bin"):
        synth.sample(10, random_state=0, forbid=[{"bill_length_mm": (30, 41)}])
    with pytest.raises(ValueError, match="outside the declared bounds"):
        synth.sample(10, random_state=0, given={"bill_length_mm": (61, 70)})
    with pytest.raises(ValueError, match="no whole number"):
        synth.sample(10, random_state=0, given={"body_mass_g": (3000.2, 3000.8)})


def test_a_binned_private_synthesizer_saves_loads_and_samples_from_the_cli_as_in_python(penguins, tmp_path, capsys):
    synth = _synth(_dp(1.0, seed=5), categories={**CATS, "bill_depth_mm": 9}).fit(penguins)
    synth.save(tmp_path / "b.bnb")
    back = bn.Synthesizer.load(tmp_path / "b.bnb")
    assert back.privacy == synth.privacy
    pd.testing.assert_frame_equal(back.sample(300, random_state=2), synth.sample(300, random_state=2))
    given = {"bill_depth_mm": (15.5, 18.25)}
    pd.testing.assert_frame_equal(back.sample(300, random_state=2, given=given),
                                  synth.sample(300, random_state=2, given=given))
    written = cli_sample_as_python(synth, tmp_path, capsys, 80, 3)
    for c, (lo, hi) in BOUNDS.items():
        assert written[c].dropna().between(lo, hi).all()


def test_bounds_on_a_bool_column_do_not_bin_it_into_numbers(penguins):
    """A ``bool`` column is Categorical over ``[False, True]`` (its dtype); bounds on it are refused, never
    turned into numeric bins whose draws would be floats in a bool column."""
    data = penguins.dropna().assign(big=lambda d: (d["body_mass_g"] > 4000).astype(bool))
    data = data[["species", "island", "bill_length_mm", "big"]]
    dp = _dp(1.0, bounds={"bill_length_mm": (30, 60), "big": (0, 1)})
    synth = _synth(dp, categories={"island": CATS["island"]}, missing="drop")
    with pytest.raises(ValueError, match="big"):
        synth.fit(data)


def test_a_nan_given_on_a_binned_column_is_refused_as_on_a_gaussian_one(penguins):
    """A NaN ``given`` value (or range end) on a binned column is outside the bounds, as on a Gaussian column;
    it used to condition the row on the last bin and decode every value to NaN."""
    synth = _synth(_dp(1.0), categories={**CATS, "bill_length_mm": 3}).fit(penguins)
    for v in (float("nan"), (float("nan"), 50.0)):
        with pytest.raises(ValueError, match="outside the declared bounds"):
            synth.sample(20, random_state=0, given={"bill_length_mm": v})


def test_per_row_given_values_on_binned_columns_are_met_row_by_row(penguins):
    """Per-row ``given`` values (one per row; None or NaN: that row free) work on a binned column as on a
    Gaussian one: each row's value is kept, whole for an integer dtype, and outside values are refused."""
    synth = _synth(_dp(1.0), categories={**CATS, "body_mass_g": 8, "bill_length_mm": 3}).fit(penguins)
    out = synth.sample(1, random_state=0, given={"body_mass_g": [3001, 4500, None, 6000],
                                                  "bill_length_mm": [44.0, np.nan, 50.5, 51.25]})
    assert out["body_mass_g"].tolist()[:2] == [3001, 4500] and out["body_mass_g"].iloc[3] == 6000
    assert out["bill_length_mm"].iloc[[0, 2, 3]].tolist() == [44.0, 50.5, 51.25]
    free = out["bill_length_mm"].iloc[1]
    assert pd.isna(free) or 30 <= free <= 60
    with pytest.raises(ValueError, match="outside the declared bounds"):
        synth.sample(1, random_state=0, given={"bill_length_mm": [44.0, 75.0]})
    with pytest.raises(ValueError, match="not whole numbers"):
        synth.sample(1, random_state=0, given={"body_mass_g": [3000.5, 4000]})
