"""The CLI's fit-imputer and impute with a saved Imputer, checked against the Python API on the bundled
penguins table (30% of its cells blanked), and their refusals of bad input (one line, exit status 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesnb import Imputer
from bayesnb.cli import main
from bayesnb.cli.files import read_table, write_table
from bayesnb.datasets import load_penguins

CONFIGS = ("naive", "tan", "mvn")  # the fast ones: the latent-class search takes seconds


def _cells(df):
    return df.astype(object).where(df.notna(), "").astype(str)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    d = tmp_path_factory.mktemp("pg")
    df = load_penguins()
    X = df.drop(columns="species")
    df[X.columns] = X.mask(np.random.default_rng(0).random(X.shape) < 0.3)
    write_table(df, str(d / "pgm.csv"))
    return d, read_table(str(d / "pgm.csv"))  # as the CLI reads it


@pytest.fixture(scope="module")
def saved(table):
    d, _ = table
    path = d / "imputer.bnb"
    assert main(["-q", "fit-imputer", str(d / "pgm.csv"), "--target", "species", "--label-given",
                 "--configurations", ",".join(CONFIGS), "--seed", "3", "-o", str(path)]) == 0
    return path


def test_fit_imputer_then_impute_equals_the_python_api(table, saved, tmp_path, capsys):
    d, df = table
    X, y = df.drop(columns="species"), df["species"].to_numpy(dtype=object)
    imp = Imputer(configurations=CONFIGS, label_given=True, random_state=3).fit(X, y)
    assert Imputer.load(saved).chosen_ == imp.chosen_
    out = tmp_path / "filled.csv"
    assert main(["impute", str(saved), str(d / "pgm.csv"), "-o", str(out)]) == 0
    done = capsys.readouterr().out
    expected = df.copy()
    expected[list(X.columns)] = imp.impute(X, y)
    got = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert got.equals(_cells(expected)) and (got != "").all().all()
    assert "labels from column 'species'" in done and "not used" not in done  # the imputer's target, used
    for col, cfg in imp.chosen_.items():
        assert col in done.split(f"{cfg} for ")[1]


def test_impute_draws_with_an_imputer_equal_the_python_api(table, saved, tmp_path):
    d, df = table
    X, y = df.drop(columns="species"), df["species"].to_numpy(dtype=object)
    out = tmp_path / "draws.csv"
    assert main(["-q", "impute", str(saved), str(d / "pgm.csv"), "--strategy", "draw", "-m", "3", "--seed", "5",
                 "-o", str(out)]) == 0
    tables = Imputer.load(saved).impute(X, y, strategy="draw", n_imputations=3, random_state=5)
    expected = pd.concat([df.assign(**t).assign(**{".imputation": k}) for k, t in enumerate(tables, start=1)],
                         ignore_index=True)[[".imputation", *df.columns]]
    got = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert got.equals(_cells(expected))


def test_new_rows_are_filled_by_the_saved_imputer(table, saved, tmp_path):
    d, df = table
    new = df.iloc[:25].drop(columns="species")  # no label column: the class is inferred
    write_table(new, str(tmp_path / "new.csv"))
    assert main(["-q", "impute", str(saved), str(tmp_path / "new.csv"), "-o", str(tmp_path / "out.csv")]) == 0
    got = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    expected = Imputer.load(saved).impute(read_table(str(tmp_path / "new.csv")))
    assert got.equals(_cells(expected)) and (got != "").all().all()


def test_a_signed_imputer_needs_its_key(table, tmp_path, capsys):
    d, _ = table
    (tmp_path / "key").write_text("secret")
    path = tmp_path / "signed.bnb"
    assert main(["-q", "fit-imputer", str(d / "pgm.csv"), "--configurations", "naive", "--key-file",
                 str(tmp_path / "key"), "-o", str(path)]) == 0
    assert main(["impute", str(path), str(d / "pgm.csv")]) == 2
    assert "signed with a key" in capsys.readouterr().err
    assert main(["-q", "impute", str(path), str(d / "pgm.csv"), "--key-file", str(tmp_path / "key"),
                 "-o", str(tmp_path / "o.csv")]) == 0


@pytest.mark.parametrize("command, message", [
    (["fit-imputer", "{d}/pgm.csv", "-o", "{saved}"], "refusing to replace"),
    (["fit-imputer", "{d}/pgm.csv", "--label-given", "-o", "{tmp}/x.bnb"], "--label-given needs --target"),
    (["fit-imputer", "{d}/pgm.csv", "--target", "sex", "-o", "{tmp}/x.bnb"], "row(s) have no 'sex' label"),
    (["fit-imputer", "{d}/pgm.csv", "--configurations", "knn", "-o", "{tmp}/x.bnb"], "--configurations must be"),
    (["fit-imputer", "{d}/pgm.csv"], "required: -o/--output"),
    (["impute", "{saved}", "{d}/pgm.csv", "--latent", "2"], "--latent is for a model from 'bayesnb fit'"),
    (["impute", "{saved}", "{d}/pgm.csv", "--strategy", "mode"], "an Imputer fills with 'auto'"),
    (["predict", "{saved}", "{d}/pgm.csv"], "holds an Imputer"),
    (["info", "{saved}"], "holds an Imputer"),
])
def test_mistakes_are_one_line_exit_2(table, saved, tmp_path, capsys, command, message):
    d, _ = table
    before = saved.read_bytes()
    args = [a.format(d=d, saved=saved, tmp=tmp_path) for a in command]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert saved.read_bytes() == before and not (tmp_path / "x.bnb").exists()


def test_drop_unlabelled_and_force(table, saved, tmp_path, capsys):
    d, _ = table
    path = tmp_path / "sex.bnb"
    assert main(["fit-imputer", str(d / "pgm.csv"), "--target", "sex", "--drop-unlabelled", "--configurations",
                 "naive", "-o", str(path)]) == 0
    out = capsys.readouterr().out
    assert "fitted Imputer on" in out and f"saved imputer to {path}" in out
    assert main(["-q", "fit-imputer", str(d / "pgm.csv"), "--configurations", "naive,tan", "-o", str(path),
                 "--force"]) == 0
    assert capsys.readouterr().out == ""
    assert set(Imputer.load(path).models_) <= {"naive", "tan"}
