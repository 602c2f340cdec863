"""The CLI's impute-table (bayesnb.impute_table from the shell, no saved model), checked against the
Python API on the bundled penguins table, and its refusals of bad input (one line, exit status 2)."""

from __future__ import annotations

import pandas as pd
import pytest

from bayesnb import impute_table
from bayesnb.cli import main
from bayesnb.cli.files import read_table, write_table
from bayesnb.datasets import load_penguins


@pytest.fixture(scope="module")
def penguins(tmp_path_factory):
    d = tmp_path_factory.mktemp("pg")
    df = load_penguins()
    df.to_csv(d / "penguins.csv", index=False)
    return d, read_table(str(d / "penguins.csv"))  # as the CLI reads it (whole-number columns Int64)


def _cells(df):
    return df.astype(object).where(df.notna(), "").astype(str)


@pytest.mark.parametrize("options, kwargs", [
    (["--target", "species"], {"label": True}),
    (["--target", "species", "--label-given", "--seed", "4"], {"label": True, "label_given": True, "random_state": 4}),
    ([], {}),
])
def test_impute_table_equals_python_api(penguins, options, kwargs, tmp_path, capsys):
    d, df = penguins
    out = tmp_path / "filled.csv"
    assert main(["impute-table", str(d / "penguins.csv"), "-o", str(out), "--configurations", "naive,tan",
                 *options]) == 0
    done = capsys.readouterr().out
    label = kwargs.pop("label", False)
    kwargs.setdefault("random_state", 0)
    X, y = (df.drop(columns="species"), df["species"].to_numpy(dtype=object)) if label else (df, None)
    res = impute_table(X, y, configurations=("naive", "tan"), **kwargs)
    expected = df.copy()
    expected[list(X.columns)] = res.table
    got = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert got.equals(_cells(expected))
    assert list(got.columns) == list(df.columns) and (got != "").all().all()
    assert f"filled {int(X.isna().sum().sum())} missing cell(s); chose " in done and f"wrote {out}" in done
    for col, cfg in res.chosen.items():
        assert col in done.split(f"{cfg} for ")[1]


@pytest.mark.slow  # the latent-class EM search: several seconds even on 58 rows
def test_impute_table_latent_configuration_searches_on_search_rows(penguins, tmp_path, capsys):
    _, df = penguins
    df = df.iloc[::6].reset_index(drop=True)  # 58 rows: a search on 30 of them, a fit on all
    write_table(df, str(tmp_path / "small.csv"))
    out = tmp_path / "f.csv"
    assert main(["-q", "impute-table", str(tmp_path / "small.csv"), "--target", "species", "-o", str(out),
                 "--configurations", "latent", "--search-rows", "30", "--seed", "2"]) == 0
    assert capsys.readouterr().out == ""  # -q: no confirmation (a SearchEdgeWarning may still be on stderr)
    X = df.drop(columns="species")
    res = impute_table(X, df["species"].to_numpy(dtype=object), configurations="latent", search_rows=30,
                       random_state=2)
    assert res.n_components >= 1
    assert pd.read_csv(out, dtype=str, keep_default_na=False).equals(_cells(df.assign(**res.table)))


@pytest.mark.parametrize("args, message", [
    (["--label-given"], "--label-given needs --target"),
    (["--target", "nope"], "no column 'nope'"),
    (["--configurations", "naive,knn"], "--configurations must be 'auto' or distinct names among naive, latent, tan"),
    (["--configurations", "tan,tan"], "--configurations must be"),
    (["--search-rows", "1"], "--search-rows must be at least 2"),
    (["--target", "sex"], "row(s) have no 'sex' label"),
    (["--seed", "x"], "invalid int value"),
])
def test_impute_table_mistakes_are_one_line_exit_2(penguins, args, message, capsys):
    d, _ = penguins
    assert main(["impute-table", str(d / "penguins.csv"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_impute_table_never_writes_over_its_input_nor_reads_a_missing_file(penguins, tmp_path, capsys):
    d, _ = penguins
    before = (d / "penguins.csv").read_bytes()
    assert main(["impute-table", str(d / "penguins.csv"), "-o", str(d / "penguins.csv")]) == 2
    assert (d / "penguins.csv").read_bytes() == before
    assert main(["impute-table", str(tmp_path / "absent.csv")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("bayesnb impute-table: error: ") for line in err)
