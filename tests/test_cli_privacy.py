"""``bayesnb fit --privacy SPEC`` and ``--public-unlabelled``: ``privacy=DP(**SPEC)`` from the shell.

The command-line fit equals the Python API's fit with the same ``DP`` (same noise for the same
``random_state``: same released class counts, same predictions), ``bayesnb info`` shows the budget
spent, the semi-supervised path declares the unlabelled rows public, and every mistake (in the spec
file or in the options beside it) is one line with exit status 2.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import bayesnb as bn
from bayesnb.datasets import load_house_votes, load_penguins
from test_cli_structure import cli
from test_cli_structure import one_line_error as structure_error

NUMERIC = ("bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g")
BOUNDS = {"bill_length_mm": [30, 60], "bill_depth_mm": [13, 22], "flipper_length_mm": [170, 235],
          "body_mass_g": [2500, 6500]}
CATEGORIES = {"island": ["Biscoe", "Dream", "Torgersen"], "sex": ["female", "male"], "year": [2007, 2008, 2009]}
CLASSES = ["Adelie", "Chinstrap", "Gentoo"]
MIXED = ("--numeric-family", "gaussian", "--family", "year=categorical")


def one_line_error(code, err):
    line = structure_error(code, err)
    assert line.startswith("bayesnb fit: error: "), err
    return line


@pytest.fixture(scope="module")
def penguins(tmp_path_factory):
    d = tmp_path_factory.mktemp("clidp")
    df = load_penguins()
    df.to_csv(d / "penguins.csv", index=False)
    return d, df


def _spec(d, name="spec.json", **dp):
    path = d / name
    path.write_text(json.dumps(dp), encoding="utf-8")
    return path


def _api_model(seed, **extra):
    dp = bn.DP(1.0, bounds={k: tuple(v) for k, v in BOUNDS.items()}, classes=CLASSES, random_state=seed, **extra)
    features = {("island", "sex", "year"): bn.Categorical(categories=list(CATEGORIES.values())),
                NUMERIC: bn.Gaussian()}
    return bn.NaiveBayes(features, privacy=dp)


def test_cli_private_fit_equals_the_python_api(penguins, tmp_path, capsys):
    d, df = penguins
    spec = _spec(d, epsilon=1.0, bounds=BOUNDS, classes=CLASSES, random_state=3, categories=CATEGORIES)
    code, out, err = cli(capsys, "fit", d / "penguins.csv", "--target", "species", *MIXED, "--privacy", spec,
                         "-o", tmp_path / "p.bnb")
    assert code == 0, err
    assert "differential privacy: (1, 0)-DP, laplace mechanism" in out
    model = bn.load(tmp_path / "p.bnb")
    X, y = df.drop(columns="species"), df["species"]
    api = _api_model(3).fit(X, y)
    np.testing.assert_array_equal(model.class_count_, api.class_count_)  # the released class counts
    np.testing.assert_allclose(model.predict_proba(X), api.predict_proba(X), rtol=1e-12, atol=1e-15)
    assert model.privacy_spent_ == api.privacy_spent_
    # the noise is there: another seed releases other counts (so the equality above is the seed's)
    other = _api_model(4).fit(X, y)
    assert not np.allclose(other.class_count_, model.class_count_)
    assert not np.allclose(model.class_count_, df["species"].value_counts().sort_index().to_numpy())
    code, out, err = cli(capsys, "info", tmp_path / "p.bnb")
    assert code == 0, err
    assert "differential privacy: (1, 0)-DP, laplace mechanism on the sufficient statistics (split: class_count" in out


def test_inline_spec_and_shared_categories(tmp_path, capsys):
    df = load_house_votes()
    df.to_csv(tmp_path / "votes.csv", index=False)
    spec = {"epsilon": 0.5, "mechanism": "gaussian", "delta": 1e-6, "classes": ["democrat", "republican"],
            "categories": ["n", "y"], "random_state": 1}
    code, _, err = cli(capsys, "fit", tmp_path / "votes.csv", "--target", "party", "--family", "categorical",
                       "--privacy", json.dumps(spec), "-o", tmp_path / "v.bnb", "-q")
    assert code == 0, err
    model = bn.load(tmp_path / "v.bnb")
    X, y = df.drop(columns="party"), df["party"]
    dp = bn.DP(0.5, delta=1e-6, mechanism="gaussian", classes=["democrat", "republican"], random_state=1)
    api = bn.CategoricalNB(categories=["n", "y"], privacy=dp).fit(X, y)
    np.testing.assert_array_equal(model.class_count_, api.class_count_)
    np.testing.assert_array_equal(model.predict(X), api.predict(X))
    assert model.privacy_spent_["mechanism"] == "gaussian" and model.privacy_spent_["delta"] == 1e-6


def test_semi_supervised_public_rows_equal_the_python_api(penguins, tmp_path, capsys):
    d, df = penguins
    part = df.copy()
    part.loc[part.index % 3 != 0, "species"] = None
    part.to_csv(tmp_path / "part.csv", index=False)
    spec = _spec(tmp_path, epsilon=1.0, bounds=BOUNDS, classes=CLASSES, random_state=5, categories=CATEGORIES)
    base = ("fit", tmp_path / "part.csv", "--target", "species", *MIXED, "--privacy", spec, "-q")
    line = one_line_error(*cli(capsys, *base, "--semi-supervised", "-o", tmp_path / "s.bnb")[::2])
    assert "--public-unlabelled" in line
    code, _, err = cli(capsys, *base, "--semi-supervised", "--public-unlabelled", "-o", tmp_path / "s.bnb")
    assert code == 0, err
    model = bn.load(tmp_path / "s.bnb")
    X, y = part.drop(columns="species"), part["species"].to_numpy(dtype=object)
    api = _api_model(5).fit_semi_supervised(X, y, public_unlabeled=True)
    alone = _api_model(5).fit(X[part["species"].notna()], part["species"].dropna())
    np.testing.assert_allclose(model.predict_proba(X), api.predict_proba(X), rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(model.transduction_, api.transduction_)
    assert model.privacy_spent_ == alone.privacy_spent_  # the public rows cost nothing
    assert not np.allclose(model.predict_proba(X), alone.predict_proba(X))  # EM moved the model


GOOD = {"epsilon": 1.0, "bounds": BOUNDS, "classes": CLASSES, "categories": CATEGORIES}


@pytest.mark.parametrize(("spec", "says"), [
    ("missing.json", "--privacy missing.json: no such file"),
    ('{"epsilon": 1', "not valid JSON"),
    ("[1, 2]", "no such file"),
    ({**GOOD, "eps": 2}, "unknown key(s) ['eps']"),
    ({k: v for k, v in GOOD.items() if k != "epsilon"}, 'no "epsilon"'),
    ({**GOOD, "epsilon": "1"}, "DP: epsilon must be a finite number > 0; received '1'"),
    ({**GOOD, "delta": 0.1}, "the Laplace mechanism is pure epsilon-DP"),
    ({**GOOD, "mechanism": "exponential"}, "mechanism must be 'laplace' or 'gaussian'"),
    ({**GOOD, "bounds": [1, 2]}, "bounds must be a dict"),
    ({**GOOD, "bounds": {**BOUNDS, "body_mass_g": [1]}}, "bounds['body_mass_g'] must be a pair"),
    ({k: v for k, v in GOOD.items() if k != "classes"}, "the class labels must be declared: DP(classes=[...])"),
    ({k: v for k, v in GOOD.items() if k != "bounds"}, "needs declared bounds"),
    ({k: v for k, v in GOOD.items() if k != "categories"}, "['island', 'sex', 'year'] need declared categories"),
    ({**GOOD, "categories": {**CATEGORIES, "body_mass_g": [1]}}, "categories names ['body_mass_g']"),
    ({**GOOD, "categories": 3}, "categories must be an object"),
    ({**GOOD, "classes": "Adelie"}, "classes must be a list of the class labels"),
    ({**GOOD, "random_state": "abc"}, "random_state must be an integer (or null)"),
    ({**GOOD, "class_share": 2}, "DP: class_share must be a number with 0 < class_share < 1"),
    ({**GOOD, "categories": {**CATEGORIES, "island": ["Biscoe", "Dream"]}}, "not among its declared categories"),
])
def test_spec_mistakes_are_one_line(penguins, tmp_path, capsys, spec, says):
    d, _ = penguins
    if isinstance(spec, dict):
        spec = _spec(tmp_path, **spec)
    code, _, err = cli(capsys, "fit", d / "penguins.csv", "--target", "species", *MIXED, "--privacy", spec,
                       "-o", tmp_path / "m.bnb")
    assert says in one_line_error(code, err)
    assert not (tmp_path / "m.bnb").exists()


def test_spec_that_is_not_an_object(tmp_path, capsys, penguins):
    d, _ = penguins
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    code, _, err = cli(capsys, "fit", d / "penguins.csv", "--target", "species", *MIXED, "--privacy",
                       tmp_path / "list.json", "-o", tmp_path / "m.bnb")
    assert "expected a JSON object of DP's keyword arguments" in one_line_error(code, err)


@pytest.mark.parametrize(("options", "says"), [
    (("--public-unlabelled",), "add --semi-supervised"),
    (("--semi-supervised", "--public-unlabelled"), "applies to a private fit (--privacy SPEC)"),
    (("--privacy", "SPEC", "--chunksize", "100"), "cannot be combined with --chunksize"),
    (("--privacy", "SPEC", "--for-imputation"), "cannot be combined with --for-imputation"),
    (("--privacy", "SPEC", "--alpha", "auto"), "cannot be combined with --alpha auto"),
    (("--privacy", "SPEC", "--structure", "kdb", "--semi-supervised", "--public-unlabelled"), "--privacy: "),
    (("--privacy", "SPEC", "--family", "gaussian", "--numeric-family", "auto"), "categories declares"),
])
def test_option_mistakes_are_one_line(penguins, tmp_path, capsys, options, says):
    d, _ = penguins
    spec = str(_spec(tmp_path, **GOOD))
    mixed = MIXED if "--family" not in options else ()
    code, _, err = cli(capsys, "fit", d / "penguins.csv", "--target", "species", *mixed,
                       *[spec if o == "SPEC" else o for o in options], "-o", tmp_path / "m.bnb")
    assert says in one_line_error(code, err)


def test_families_chosen_by_evidence_are_refused(penguins, tmp_path, capsys):
    d, _ = penguins
    spec = _spec(tmp_path, **GOOD)
    for options in ((), ("--family", "auto"), ("--family", "year=categorical")):
        code, _, err = cli(capsys, "fit", d / "penguins.csv", "--target", "species", *options, "--privacy", spec,
                           "-o", tmp_path / "m.bnb")
        assert "--privacy needs the families declared" in one_line_error(code, err)
