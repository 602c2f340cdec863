"""``--family COL=FAMILY`` and ``--numeric-family``: per-column families from the shell."""

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb.cli import main


@pytest.fixture
def mixed(tmp_path):
    """A mixed table: a real column, a positive real, a count, a text column and the label ``y``."""
    rng = np.random.default_rng(0)
    n = 240
    y = rng.choice(["u", "v"], n)
    df = pd.DataFrame({"age": (rng.normal(40, 10, n) + 5 * (y == "v")).round(1),
                       "income": rng.lognormal(3, 1, n).round(2),
                       "city": rng.choice(["a", "b", "c"], n), "kids": rng.poisson(1, n), "y": y})
    path = tmp_path / "mixed.csv"
    df.to_csv(path, index=False)
    return path, df


def _families(model):
    return {str(c): type(b.family).__name__ for b in model.posterior_.blocks for c in b.names}


def test_per_column_families_fit_and_info_shows_them(mixed, tmp_path, capsys):
    path, df = mixed
    out = tmp_path / "m.bnb"
    assert main(["fit", str(path), "--target", "y", "--family", "age=gaussian", "--family", "city=categorical",
                 "-o", str(out)]) == 0
    model = bayesnb.load(out)
    fams = _families(model)
    assert fams["age"] == "Gaussian" and fams["city"] == "Categorical"
    # the columns not named keep what auto gives them: the family their evidence chooses
    auto = bayesnb.NaiveBayes().fit(df.drop(columns="y"), df["y"])
    assert fams["income"] == _families(auto)["income"] and fams["kids"] == _families(auto)["kids"]
    assert set(model.family_scores_["column"]) == {"income", "kids"}
    capsys.readouterr()
    assert main(["info", str(out)]) == 0
    info = capsys.readouterr().out
    assert "block Gaussian (1 column): age" in info and "block Categorical (1 column): city" in info
    # the same model as NaiveBayes(features={...}) in Python
    assert (fams["income"], fams["kids"]) == ("LogNormal", "Poisson")
    F = bayesnb.families
    ref = bayesnb.NaiveBayes(features={"age": F.Gaussian(), ("income",): F.LogNormal(), "city": F.Categorical(),
                                       "kids": F.Poisson()}).fit(df.drop(columns="y"), df["y"])
    np.testing.assert_allclose(model.predict_proba(df.drop(columns="y")), ref.predict_proba(df.drop(columns="y")),
                               rtol=1e-10)

def test_numeric_family_gaussian_is_categorical_plus_gaussian(mixed, tmp_path, capsys):
    path, df = mixed
    assert main(["-q", "fit", str(path), "--target", "y", "--numeric-family", "gaussian", "-o",
                 str(tmp_path / "m.bnb")]) == 0
    model = bayesnb.load(tmp_path / "m.bnb")
    assert _families(model) == {"age": "Gaussian", "income": "Gaussian", "kids": "Gaussian", "city": "Categorical"}
    assert [list(b.names) for b in model.posterior_.blocks] == [["age", "income", "kids"], ["city"]]
    assert model.family_scores_ is None
    # a named column wins over --numeric-family
    assert main(["-q", "fit", str(path), "--target", "y", "--numeric-family", "gaussian", "--family", "kids=poisson",
                 "--alpha", "0.5", "-o", str(tmp_path / "p.bnb")]) == 0
    model = bayesnb.load(tmp_path / "p.bnb")
    assert _families(model)["kids"] == "Poisson" and _families(model)["income"] == "Gaussian"
    assert model.posterior_.blocks[1].family.alpha == 0.5  # --alpha: the Categorical block's pseudo-count


@pytest.mark.parametrize("extra, message", [
    (["--family", "agex=gaussian"], "names no column(s) ['agex']"),
    (["--family", "y=gaussian"], "names no column(s) ['y']"),
    (["--family", "age=gauss"], "no such family 'gauss'"),
    (["--family", "gauss"], "no such family"),
    (["--family", "age=gaussian", "--family", "age=poisson"], "names column 'age' twice"),
    (["--family", "gaussian", "--family", "age=poisson"], "cannot be combined"),
    (["--family", "gaussian", "--numeric-family", "gaussian"], "cannot be combined"),
    (["--numeric-family", "gaussian", "--alpha", "auto"], "--alpha auto"),
    (["--numeric-family", "poisson"], "invalid choice"),
])
def test_per_column_family_mistakes_are_one_line(mixed, tmp_path, capsys, extra, message):
    path, _ = mixed
    assert main(["fit", str(path), "--target", "y", "-o", str(tmp_path / "m.bnb"), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err, err
    assert not (tmp_path / "m.bnb").exists()


def test_chunked_fit_with_families_equals_the_in_memory_fit(mixed, tmp_path, capsys):
    path, df = mixed
    args = ["-q", "fit", str(path), "--target", "y", "--family", "age=gaussian", "--numeric-family", "gaussian"]
    assert main([*args, "-o", str(tmp_path / "mem.bnb")]) == 0
    assert main([*args, "-o", str(tmp_path / "chunks.bnb"), "--chunksize", "50"]) == 0
    assert "warning" not in capsys.readouterr().err  # every family given: nothing chosen on the first chunk
    mem, chunks = bayesnb.load(tmp_path / "mem.bnb"), bayesnb.load(tmp_path / "chunks.bnb")
    X = df.drop(columns="y")
    np.testing.assert_allclose(chunks.predict_proba(X), mem.predict_proba(X), rtol=1e-10)


def test_chunked_warning_names_only_the_columns_auto_chose(mixed, tmp_path, capsys):
    path, _ = mixed
    assert main(["-q", "fit", str(path), "--target", "y", "--family", "age=gaussian", "--chunksize", "100",
                 "-o", str(tmp_path / "m.bnb")]) == 0
    err = capsys.readouterr().err
    assert "income:" in err and "kids:" in err and "age:" not in err and "--numeric-family gaussian" in err, err
