"""Issue 30: ``fit`` on labels of a single class warns (OneClassWarning); bayesnb's own one-class fits do not."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb import OneClassWarning
from bayesnb.impute.mvn import impute_mvn


def _table(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.normal(size=n), "c": rng.poisson(2, n)})
    X.loc[::7, "b"] = np.nan
    return X


@pytest.mark.parametrize("make", [bayesnb.NaiveBayes, lambda: bayesnb.NaiveBayes(structure="tan"),
                                  bayesnb.GaussianNB, bayesnb.CategoricalNB])
def test_a_user_one_class_fit_warns_naming_the_class(make):
    X = _table()
    X = X[["b"]] if "Gaussian" in repr(make()) else X[["a"]] if "Categorical" in repr(make()) else X
    with pytest.warns(OneClassWarning, match=r"the class 'only'.*at least two classes") as rec:
        model = make().fit(X, np.array(["only"] * len(X)))
    assert model.classes_.tolist() == ["only"]
    assert rec[0].filename == __file__  # points at the user's call
    assert issubclass(OneClassWarning, UserWarning)


def test_two_classes_and_partial_fit_do_not_warn():
    X = _table()
    y = np.where(np.arange(len(X)) % 2, "p", "q")
    with warnings.catch_warnings():
        warnings.simplefilter("error", OneClassWarning)
        bayesnb.NaiveBayes().fit(X, y)
        m = bayesnb.NaiveBayes().partial_fit(X.iloc[:10], np.array(["p"] * 10), classes=["p", "q"])
        m.partial_fit(X.iloc[10:], y[10:])


def test_the_package_one_class_fits_are_silent():
    X = _table()
    with warnings.catch_warnings():
        warnings.simplefilter("error", OneClassWarning)
        bayesnb.NBOutlierDetector(contamination=0.1).fit(X)
        bayesnb.impute_table(X, configurations=["naive", "latent"], random_state=0)
        impute_mvn(X)
        bayesnb.Synthesizer(latent=None, random_state=0).fit(X).sample(5)
        m = bayesnb.NaiveBayes().fit(X, np.where(np.arange(len(X)) % 2, "p", "q"))
        m.fit_latent_class(X, None, n_components=2, random_state=0)
    # the silencing is scoped: a user fit right after still warns
    with pytest.warns(OneClassWarning):
        bayesnb.NaiveBayes().fit(X, np.zeros(len(X), dtype=int))


def test_the_cli_warns_once(tmp_path, capsys):
    from bayesnb.cli import main

    X = _table()
    X["y"] = "only"
    path = tmp_path / "t.csv"
    X.to_csv(path, index=False)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        main(["fit", str(path), "--target", "y", "-o", str(tmp_path / "m.bnb")])
    err = capsys.readouterr().err + " ".join(str(w.message) for w in rec)
    assert err.count("at least two classes") == 1, err
