"""One imputer (issue 27): ``NaiveBayes().fit(X, y, impute=...)`` keeps impute_table's Imputer as ``imputer_``,
its default ``impute`` is impute_table's imputation, the model file keeps it, and the CLI
(``bayesnb fit --for-imputation``, then ``bayesnb impute``) equals the API."""

from __future__ import annotations

import copy
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb import Imputer, NaiveBayes, impute_table
from bayesnb.cli import main
from bayesnb.cli.files import read_table, write_table
from bayesnb.datasets import load_penguins
from bayesnb.io.persistence import ModelFileError
from helpers import assert_damaged_file_refused

CONFIGS = ("naive", "tan", "mvn")  # the fast ones: the latent-class search takes seconds


@pytest.fixture(scope="module")
def penguins():
    df = load_penguins()
    X = df.drop(columns=["species", "year"])
    for c in X.columns:
        if str(X[c].dtype) == "Int64":
            X[c] = X[c].astype(float)
    Xm = X.mask(np.random.default_rng(0).random(X.shape) < 0.3)
    return Xm, df["species"].to_numpy(dtype=object)


@pytest.fixture(scope="module")
def fitted(penguins):
    Xm, y = penguins
    return NaiveBayes().fit(Xm, y, impute=Imputer(configurations=CONFIGS, random_state=3))


def test_default_impute_equals_impute_table_with_every_configuration(penguins):
    Xm, y = penguins
    Xs, ys = Xm.iloc[:160], y[:160]  # every configuration, the latent-class search included
    model = NaiveBayes().fit(Xs, ys, impute=Imputer(random_state=7))
    res = impute_table(Xs, ys, random_state=7)
    filled = model.impute(Xs)
    assert filled.equals(res.table) and filled.notna().all().all()
    assert model.imputer_.chosen_ == res.chosen and model.imputer_.n_components_ == res.n_components


def test_default_impute_equals_impute_table_when_latent_is_fitted_only_for_the_draws():
    from helpers import self_masked_blank, two_valued_table

    X, y = two_valued_table()
    Xm, _ = self_masked_blank(X, True)
    configs = ("naive", "latent")
    model = NaiveBayes().fit(Xm, y, impute=Imputer(configurations=configs, label_given=True, random_state=0))
    res = impute_table(Xm, y, configurations=configs, label_given=True, random_state=0)
    assert "latent" not in model.imputer_.chosen_.values() and model.imputer_.draw_configuration_ is not None
    assert model.imputer_.chosen_ == res.chosen
    pd.testing.assert_frame_equal(model.impute(Xm, y=y), res.table)


def test_default_impute_is_the_imputers_not_the_plain_models(penguins, fitted):
    Xm, y = penguins
    assert fitted.impute(Xm).equals(impute_table(Xm, y, configurations=CONFIGS, random_state=3).table)
    plain = NaiveBayes().fit(Xm, y)
    assert not fitted.impute(Xm).equals(plain.impute(Xm))  # the search chose something else for some column
    assert set(fitted.imputer_.chosen_.values()) - {"naive"}
    # the classifier is the plain fit: fitting for imputation changes no prediction
    np.testing.assert_array_equal(fitted.predict_proba(Xm), plain.predict_proba(Xm))


def test_draws_are_the_imputers_and_explicit_choices_the_models_own(penguins, fitted):
    Xm, y = penguins
    got = fitted.impute(Xm, strategy="draw", n_imputations=2, random_state=1)
    want = fitted.imputer_.impute(Xm, strategy="draw", n_imputations=2, random_state=1)
    assert all(a.equals(b) for a, b in zip(got, want, strict=True))
    plain = NaiveBayes().fit(Xm, y)
    assert fitted.impute(Xm, strategy="mode").equals(plain.impute(Xm, strategy="mode"))
    a = fitted.impute(Xm, strategy="draw", parameter_uncertainty=False, random_state=2)
    assert a.equals(plain.impute(Xm, strategy="draw", parameter_uncertainty=False, random_state=2))
    latent = plain.fit_latent_class(Xm, y, n_components=2, random_state=0)
    assert fitted.impute(Xm, latent=latent).equals(plain.impute(Xm, latent=latent))


def test_numpy_scalars_choose_the_imputer_as_the_python_values_they_equal(penguins, fitted):
    Xm, _ = penguins
    want = fitted.impute(Xm, strategy="draw", random_state=4)
    got = fitted.impute(Xm, strategy=np.str_("draw"), parameter_uncertainty=np.True_, n_components=np.int64(1),
                        random_state=4)
    assert got.equals(want)
    own = fitted.impute(Xm, strategy="draw", parameter_uncertainty=np.False_, random_state=4)
    assert own.equals(fitted.impute(Xm, strategy="draw", parameter_uncertainty=False, random_state=4))


def test_labels_are_used_only_by_an_imputer_fitted_with_label_given(penguins, fitted):
    Xm, y = penguins
    with pytest.warns(UserWarning, match="y is not used"):
        got = fitted.impute(Xm, y=y)
    assert got.equals(fitted.impute(Xm))
    model = NaiveBayes().fit(Xm, y, impute=Imputer(configurations=CONFIGS, label_given=True, random_state=3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = model.impute(Xm, y=y)
    assert got.equals(impute_table(Xm, y, configurations=CONFIGS, label_given=True, random_state=3).table)


def test_the_model_file_keeps_the_imputer(penguins, fitted, tmp_path):
    Xm, _ = penguins
    fitted.save(tmp_path / "m.bnb")
    back = bayesnb.load(tmp_path / "m.bnb")
    assert back.imputer_.chosen_ == fitted.imputer_.chosen_
    assert back.impute(Xm).equals(fitted.impute(Xm))
    rows = Xm.sample(7, random_state=1)
    assert back.impute(rows).equals(fitted.imputer_.impute(rows))  # new rows: the same chosen models




def _nest(meta):
    """The imputer's first configuration's model made to hold the imputer itself."""
    imp = meta["fitted"]["imputer"]
    next(iter(imp["fitted"]["models"].values()))["model"]["fitted"]["imputer"] = copy.deepcopy(imp)


@pytest.mark.parametrize(("change", "match"), [
    (lambda m: m["fitted"]["imputer"].update(estimator="NaiveBayes"), "must be an Imputer"),
    (lambda m: m["fitted"].update(feature_names_in=None), "the model's feature columns"),
    (_nest, "must not hold an imputer"),
])
def test_a_damaged_model_imputer_is_refused(fitted, tmp_path, change, match):
    assert_damaged_file_refused(fitted, tmp_path, change, match, bayesnb.load)


@pytest.mark.parametrize("other", [bayesnb.CategoricalNB, bayesnb.GaussianNB])
def test_an_imputer_in_a_file_of_another_estimator_is_refused(penguins, fitted, tmp_path, other):
    Xm, y = penguins
    Xo = Xm.select_dtypes("number") if other is bayesnb.GaussianNB else Xm.astype(str)
    fitted_imp = NaiveBayes().fit(Xo, y, impute=Imputer(configurations=("naive",), random_state=0))
    fitted_imp.save(tmp_path / "nb.bnb")
    other().fit(Xo, y).save(tmp_path / "o.bnb")
    with np.load(tmp_path / "nb.bnb") as f, np.load(tmp_path / "o.bnb") as g:
        nb, entries = {n: f[n] for n in f.files}, {n: g[n] for n in g.files}
    meta, nb_meta = json.loads(entries["__meta__"].tobytes()), json.loads(nb["__meta__"].tobytes())

    def moved(node):  # the imputer's arrays, renamed beside the other model's
        if isinstance(node, dict):
            if "__array__" in node:
                new = f"a{len(entries) - 1}"  # after the other model's a0..a{m-1} (and __meta__)
                entries[new], meta["checksums"][new] = nb[node["__array__"]], nb_meta["checksums"][node["__array__"]]
                return {"__array__": new}
            return {k: moved(v) for k, v in node.items()}
        return [moved(v) for v in node] if isinstance(node, list) else node

    meta["fitted"]["imputer"] = moved(nb_meta["fitted"]["imputer"])
    entries["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(tmp_path / "bad.bnb", "wb") as out:
        np.savez_compressed(out, **entries)
    with pytest.raises(ModelFileError, match=f"a {other.__name__} model must not hold an imputer"):
        bayesnb.load(tmp_path / "bad.bnb")


def test_refit_and_partial_fit_drop_the_imputer(penguins):
    Xm, y = penguins
    model = NaiveBayes().fit(Xm, y, impute=Imputer(configurations=("naive", "tan"), random_state=0))
    with pytest.raises(ValueError):  # a refused batch changes nothing: the imputer is kept
        model.partial_fit(Xm.iloc[:10], y[:9])
    assert model.imputer_ is not None
    with pytest.warns(UserWarning, match="imputer fitted by fit"):
        model.partial_fit(Xm.iloc[:10], y[:10])
    assert not hasattr(model, "imputer_")
    model.fit(Xm.iloc[::4], y[::4], impute=True)  # (every 4th row: the default imputer's search is the slow part)
    assert model.imputer_.random_state is None and model.imputer_.estimator is not None
    model.fit(Xm, y)
    assert not hasattr(model, "imputer_")


def test_bad_impute_arguments_are_refused_before_fitting(penguins):
    Xm, y = penguins
    model = NaiveBayes()
    with pytest.raises(TypeError, match="impute must be False, True or an unfitted bayesnb.Imputer"):
        model.fit(Xm, y, impute="auto")
    with pytest.raises(ValueError, match="leave the Imputer's estimator None"):
        model.fit(Xm, y, impute=Imputer(estimator=NaiveBayes()))
    with pytest.raises(TypeError, match="needs X as a pandas DataFrame"):
        model.fit(np.asarray(Xm[["bill_length_mm", "bill_depth_mm"]]), y, impute=True)
    with pytest.raises(ValueError, match="does not take sample_weight"):
        model.fit(Xm, y, sample_weight=np.ones(len(y)), impute=True)
    assert not hasattr(model, "posterior_")


# ---------------------------------------------------------------------------------------------- CLI
@pytest.fixture(scope="module")
def csv(tmp_path_factory, penguins):
    Xm, y = penguins
    d = tmp_path_factory.mktemp("fitimp")
    write_table(Xm.assign(species=y), str(d / "pg.csv"))
    return d


def test_cli_fit_for_imputation_then_impute_equals_the_api(csv, tmp_path, capsys):
    path = tmp_path / "m.bnb"
    assert main(["fit", str(csv / "pg.csv"), "--target", "species", "--for-imputation", "--configurations",
                 ",".join(CONFIGS), "--seed", "3", "-o", str(path)]) == 0
    assert "imputer: chose " in capsys.readouterr().out
    df = read_table(str(csv / "pg.csv"))
    X, y = df.drop(columns="species"), df["species"]
    api = NaiveBayes().fit(X, y, impute=Imputer(configurations=CONFIGS, random_state=3))
    assert bayesnb.load(path).imputer_.chosen_ == api.imputer_.chosen_
    out = tmp_path / "filled.csv"
    assert main(["impute", str(path), str(csv / "pg.csv"), "-o", str(out)]) == 0
    done = capsys.readouterr().out
    assert "the model's imputer's choices" in done and "not used" in done
    expected = df.copy()
    expected[list(X.columns)] = api.impute(X)
    got = read_table(str(out))
    pd.testing.assert_frame_equal(got, read_table_of(expected, tmp_path))


def read_table_of(df, folder, name="expected.csv"):
    """``df`` written and read back as the CLI writes and reads tables."""
    write_table(df, str(folder / name))
    return read_table(str(folder / name))


def test_cli_plain_model_says_it_imputes_with_itself(csv, tmp_path, capsys):
    path = tmp_path / "plain.bnb"
    assert main(["-q", "fit", str(csv / "pg.csv"), "--target", "species", "-o", str(path)]) == 0
    assert main(["impute", str(path), str(csv / "pg.csv"), "-o", str(tmp_path / "o.csv")]) == 0
    assert "imputed with the model itself (bayesnb fit --for-imputation" in capsys.readouterr().out


@pytest.mark.parametrize(("extra", "message"), [
    (["--configurations", "naive"], "add --for-imputation"),
    (["--for-imputation", "--chunksize", "100"], "cannot be combined with --chunksize"),
    (["--for-imputation", "--family", "categorical"], "needs a NaiveBayes"),
    (["--for-imputation", "--configurations", "naive,bogus"], "--configurations must be"),
])
def test_cli_for_imputation_refusals(csv, tmp_path, capsys, extra, message):
    code = main(["fit", str(csv / "pg.csv"), "--target", "species", "-o", str(tmp_path / "m.bnb"), *extra])
    assert code == 2 and message in capsys.readouterr().err


def test_cli_draws_and_info_of_a_model_fitted_for_imputation(csv, tmp_path, capsys):
    path = tmp_path / "m.bnb"
    assert main(["-q", "fit", str(csv / "pg.csv"), "--target", "species", "--for-imputation", "--configurations",
                 "naive,tan", "--seed", "1", "-o", str(path)]) == 0
    model = bayesnb.load(path)
    df = read_table(str(csv / "pg.csv"))
    X = df.drop(columns="species")
    out = tmp_path / "draws.csv"
    assert main(["-q", "impute", str(path), str(csv / "pg.csv"), "--strategy", "draw", "-m", "2", "--seed", "4",
                 "-o", str(out)]) == 0
    want = model.imputer_.impute(X, strategy="draw", n_imputations=2, random_state=4)
    got = read_table(str(out))
    for k, table in enumerate(want, start=1):
        block = got[got[".imputation"] == k].drop(columns=[".imputation", "species"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(block, read_table_of(table, tmp_path, f"expected{k}.csv"), check_dtype=False)
    capsys.readouterr()
    assert main(["info", str(path)]) == 0
    assert "imputer (fitted for imputation; impute fills with it): " in capsys.readouterr().out


def test_impute_under_privacy_is_refused_before_fitting():
    df = load_penguins().dropna()
    X, y = df[["bill_length_mm", "island"]], df["species"]
    features = {"bill_length_mm": bayesnb.Gaussian(),
                "island": bayesnb.Categorical(categories=[["Biscoe", "Dream", "Torgersen"]])}
    dp = bayesnb.DP(1.0, bounds={"bill_length_mm": (30, 60)}, classes=["Adelie", "Chinstrap", "Gentoo"])
    model = NaiveBayes(features, privacy=dp)
    with pytest.raises(ValueError, match="impute= under privacy=DP.*not available.*private model's own impute"):
        model.fit(X, y, impute=True)
    assert not hasattr(model, "posterior_") and not hasattr(model, "imputer_")
    assert model.fit(X, y).impute(X.mask(X.index.to_series().mod(3).eq(0), axis=0)).notna().all().all()


def test_impute_of_a_model_with_an_imputer_takes_frames_in_any_column_order_and_names_what_to_pass(penguins, fitted):
    Xm, _ = penguins
    with pytest.raises(TypeError, match=r"NaiveBayes.impute: .*pandas DataFrame with the fitted columns"):
        fitted.impute(Xm.to_numpy())
    with pytest.raises(ValueError, match=r"NaiveBayes.impute: X must have the columns"):
        fitted.impute(Xm.drop(columns="sex"))
    shuffled = Xm[list(Xm.columns[::-1])]
    got = fitted.impute(shuffled)
    assert list(got.columns) == list(shuffled.columns) and got[list(Xm.columns)].equals(fitted.impute(Xm))
    draws = fitted.impute(shuffled, strategy="draw", n_imputations=2, random_state=0)
    assert draws[1][list(Xm.columns)].equals(fitted.impute(Xm, strategy="draw", n_imputations=2, random_state=0)[1])
    with warnings.catch_warnings():  # sklearn's "X does not have valid feature names"
        warnings.simplefilter("ignore", UserWarning)
        assert fitted.impute(Xm.to_numpy(), strategy="mode").shape == Xm.shape  # the model's own: any input


def test_impute_of_a_model_with_an_imputer_refuses_dask_with_the_models_name(penguins, fitted):
    dd = pytest.importorskip("dask.dataframe")
    Xm, _ = penguins
    with pytest.raises(TypeError, match=r"NaiveBayes.impute: .*pandas DataFrame with the fitted columns"):
        fitted.impute(dd.from_pandas(Xm, npartitions=2))


@pytest.mark.parametrize("structure", ["naive", "tan"])
def test_a_structured_model_fitted_for_imputation_answers_with_its_imputer_as_the_naive_one(penguins, structure):
    """impute under a structure went straight to the structure's own fill, skipping ``imputer_``
    and the Dask front door that the naive model goes through."""
    Xm, y = penguins
    model = NaiveBayes(structure=structure).fit(Xm, y, impute=Imputer(configurations=CONFIGS, random_state=3))
    want = model.imputer_.impute(Xm)  # the template of its configurations is the model (structure included)
    assert model.impute(Xm).equals(want) and want.notna().all().all()
    got = model.impute(Xm, strategy="draw", n_imputations=2, random_state=1)
    assert all(a.equals(b) for a, b in zip(got, model.imputer_.impute(Xm, strategy="draw", n_imputations=2,
                                                                      random_state=1), strict=True))
    own = NaiveBayes(structure=structure).fit(Xm, y)
    assert model.impute(Xm, strategy="mode").equals(own.impute(Xm, strategy="mode"))  # an explicit choice: its own
    assert not own.impute(Xm).equals(want)
    dd = pytest.importorskip("dask.dataframe")
    with pytest.raises(TypeError, match=r"NaiveBayes.impute: .*pandas DataFrame with the fitted columns"):
        model.impute(dd.from_pandas(Xm, npartitions=2))
    lazy = dd.from_pandas(Xm, npartitions=2)
    pd.testing.assert_frame_equal(own.impute(lazy).compute(), pd.concat([own.impute(Xm.iloc[:172]),
                                                                          own.impute(Xm.iloc[172:])]),
                                  check_dtype=False)  # dask gives the text columns its string dtype
    with pytest.raises(NotImplementedError, match="fills each partition alone"):
        own.impute(lazy, strategy="draw")
