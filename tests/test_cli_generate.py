"""The CLI's impute (labels, strategy, multiple imputation, latent classes), sample (target name),
info (readable report) and datasets subcommands, checked against the Python API on bundled data."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb.cli import main
from bayesnb.datasets import load_house_votes, load_penguins


@pytest.fixture(scope="module")
def votes(tmp_path_factory):
    """House votes with 40 labels blanked, as CSV, and a model fitted on it by the CLI."""
    d = tmp_path_factory.mktemp("votes")
    df = load_house_votes()
    df.loc[df.index[::11], "party"] = None
    df.to_csv(d / "votes.csv", index=False)
    assert main(["fit", str(d / "votes.csv"), "--target", "party", "-o", str(d / "votes.bnb"),
                 "--drop-unlabelled"]) == 0
    return d, df


def _expected(filled, df):
    out = df.copy()
    out[list(filled.columns)] = filled
    return out.astype(object).where(out.notna(), "").astype(str)


def _read(path):
    return pd.read_csv(path, dtype=str, keep_default_na=False)


@pytest.mark.parametrize("options, kwargs", [
    ([], {"use_y": True}),
    (["--no-labels"], {}),
    (["--strategy", "draw", "--seed", "3"], {"strategy": "draw", "random_state": 3, "use_y": True}),
    (["--latent", "2", "--strategy", "mode", "--seed", "1"],
     {"strategy": "mode", "n_components": 2, "random_state": 1, "use_y": True}),
])
def test_impute_equals_python_api(votes, options, kwargs, tmp_path, capsys):
    d, df = votes
    out = tmp_path / "filled.csv"
    assert main(["impute", str(d / "votes.bnb"), str(d / "votes.csv"), "-o", str(out), *options]) == 0
    model = bayesnb.load(d / "votes.bnb")
    assert model.target_name_ == "party"
    X = df.drop(columns="party")
    use_y = kwargs.pop("use_y", False)
    kwargs.setdefault("random_state", 0)
    filled = model.impute(X, y=df["party"] if use_y else None, **kwargs)
    got = _read(out)
    assert got.equals(_expected(filled, df))
    assert (got[list(X.columns)] != "").all().all()  # every cell filled
    if use_y:
        assert "labels from column 'party' (395 of 435 rows labelled)" in capsys.readouterr().out
    # -q (global --quiet) silences the confirmation and the progress, never the table
    capsys.readouterr()
    assert main(["impute", str(d / "votes.bnb"), str(d / "votes.csv"), "-o", str(tmp_path / "q.csv"), "-q",
                 *options]) == 0
    assert capsys.readouterr() == ("", "")
    assert _read(tmp_path / "q.csv").equals(got)


def test_multiple_imputation_is_one_long_table(votes, tmp_path):
    d, df = votes
    out = tmp_path / "mi.csv"
    assert main(["impute", str(d / "votes.bnb"), str(d / "votes.csv"), "-o", str(out), "--strategy", "draw",
                 "-m", "3", "--target", "party", "--latent", "2", "--seed", "5", "-q"]) == 0
    model = bayesnb.load(d / "votes.bnb")
    filled = model.impute(df.drop(columns="party"), strategy="draw", n_imputations=3, y=df["party"],
                          n_components=2, random_state=5)
    got = _read(out)
    assert list(got.columns) == [".imputation", *df.columns]
    for k in range(3):
        part = got[got[".imputation"] == str(k + 1)].drop(columns=".imputation").reset_index(drop=True)
        assert part.equals(_expected(filled[k], df))
    assert not got.iloc[:435, 1:].equals(got.iloc[435:870, 1:].reset_index(drop=True))  # different draws


@pytest.mark.parametrize("args, message", [
    (["-m", "2"], "-m/--imputations 2 needs --strategy draw"),
    (["--latent", "0"], "--latent must be 'auto' or a whole number >= 1"),
    (["--target", "nope"], "no column 'nope'"),
    (["--target", "crime"], "is one of the model's feature columns"),
])
def test_impute_mistakes_are_one_line_exit_2(votes, args, message, capsys):
    d, _ = votes
    assert main(["impute", str(d / "votes.bnb"), str(d / "votes.csv"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_sample_names_the_label_after_the_target(penguins, tmp_path):
    out = tmp_path / "synthetic.csv"
    assert main(["sample", str(penguins / "penguins.bnb"), "-n", "30", "--seed", "4", "-o", str(out)]) == 0
    model = bayesnb.load(penguins / "penguins.bnb")
    X, y = model.sample(30, random_state=4)
    got = pd.read_csv(out)
    assert list(got.columns) == ["species", *X.columns]  # where it was in penguins.csv
    assert list(got["species"]) == list(y)
    text = out.read_text().splitlines()
    j = list(got.columns).index("body_mass_g")
    assert all(re.fullmatch(r"\d+", line.split(",")[j]) for line in text[1:])  # whole numbers, no decimals
    np.testing.assert_array_equal(got["bill_length_mm"].to_numpy(), X["bill_length_mm"].to_numpy(dtype=float))
    assert main(["sample", str(penguins / "penguins.bnb"), "-n", "5", "--float-format", "%.3g",
                 "--target", "kind", "-o", str(out), "--force"]) == 0
    got = pd.read_csv(out)
    assert "kind" in got.columns and all(len(str(v).replace(".", "")) <= 3 for v in got["bill_length_mm"])


def test_target_name_of_a_named_series_is_kept_in_model_files(tmp_path):
    df = load_penguins()
    m = bayesnb.NaiveBayes().fit(df.drop(columns="species"), df["species"])
    m.save(tmp_path / "m.bnb")
    assert bayesnb.load(tmp_path / "m.bnb").target_name_ == "species"
    m.fit(df.drop(columns="species"), df["species"].to_numpy())
    assert not hasattr(m, "target_name_")


def test_info_report_house_votes(votes, capsys):
    d, df = votes
    assert main(["info", str(d / "votes.bnb")]) == 0
    out = capsys.readouterr().out
    model = bayesnb.load(d / "votes.bnb")
    assert "target: party" in out
    counts = df["party"].value_counts()
    assert f"classes (2): democrat {counts['democrat']}, republican {counts['republican']}" in out
    assert f"log evidence log p(X, y): {model.log_evidence_:.4f}" in out
    assert "block Categorical (16 columns)" in out
    # the printed posterior mean of p(n | democrat) for physician-fee-freeze is the exact one
    b = model.posterior_.blocks[0]
    j = [str(n) for n in b.names].index("physician-fee-freeze")
    v = b.family.value_labels(b.state)[j].index("n")
    mean = b.family.posterior_moments(b.posterior)["theta"][0][0, j, v]
    line = out.split("  physician-fee-freeze\n")[1].splitlines()[0]
    shown, lo, hi = map(float, re.search(r"\bn ([\d.e-]+) \[([\d.e-]+), ([\d.e-]+)\]", line).groups())
    assert line.strip().startswith("democrat") and abs(shown - mean) < 0.01 and lo < mean < hi
    assert main(["info", str(d / "votes.bnb"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["target"] == "party" and summary["classes"] == ["democrat", "republican"]


def test_info_report_penguins(penguins, capsys):
    assert main(["info", str(penguins / "penguins.bnb")]) == 0
    out = capsys.readouterr().out
    assert "target: species" in out and "classes (3): Adelie 152, Chinstrap 68, Gentoo 124" in out
    assert "block Categorical (2 columns): island, sex" in out and "Gentoo     Biscoe 0.98" in out
    assert re.search(r"block LogNormal .*\n.*\n  bill_length_mm\n    Adelie     mu 3\.66 \[", out)
    assert "numeric families chosen by evidence" in out


def test_datasets_list_and_export(tmp_path, capsys):
    assert main(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()] == ["play_tennis", "house_votes", "penguins",
                                                              "temperature"]
    path = tmp_path / "votes.csv"
    assert main(["datasets", "export", "house_votes", "-o", str(path)]) == 0
    back = pd.read_csv(path, dtype=object)
    assert back.astype(object).where(back.notna(), None).equals(load_house_votes())
    before = path.read_bytes()
    assert main(["datasets", "export", "penguins", "-o", str(path)]) == 2
    assert "refusing to replace" in capsys.readouterr().err and path.read_bytes() == before
    assert main(["datasets", "export", "penguins", "-o", str(path), "--force"]) == 0
    assert pd.read_csv(path).shape == (344, 8)
    assert main(["datasets", "export", "iris", "-o", str(tmp_path / "x.csv")]) == 2
    assert "no bundled dataset 'iris'" in capsys.readouterr().err


def _shell_lines(markdown):
    """The ``bayesnb ...`` lines of the ```bash blocks under "## A session on bundled data"."""
    section = markdown.split("## A session on bundled data", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    return [line for b in blocks for line in b.splitlines() if line.strip() and not line.startswith("#")]


def test_docs_cli_session_runs_as_pasted(tmp_path, monkeypatch, capsys):
    lines = _shell_lines((Path(__file__).parents[1] / "docs" / "cli.md").read_text())
    assert len(lines) >= 8
    monkeypatch.chdir(tmp_path)
    for line in lines:
        words = shlex.split(line.split(" #")[0])
        assert words[0] == "bayesnb", line
        assert main(words[1:]) == 0, (line, capsys.readouterr().err)


def test_sample_keeps_the_label_where_it_was_in_the_training_table(tmp_path):
    df = load_penguins()
    cols = list(df.columns)
    middle = df[cols[1:4] + ["species"] + cols[4:]]  # the label fourth
    middle.to_csv(tmp_path / "p.csv", index=False)
    expected = list(middle.columns)
    for extra in ([], ["--chunksize", "100"]):
        model = tmp_path / f"m{len(extra)}.bnb"
        assert main(["-q", "fit", str(tmp_path / "p.csv"), "--target", "species", "-o", str(model), *extra]) == 0
        assert bayesnb.load(model).target_index_ == 3
        assert main(["-q", "sample", str(model), "-n", "4", "-o", str(tmp_path / f"s{len(extra)}.csv")]) == 0
        assert list(pd.read_csv(tmp_path / f"s{len(extra)}.csv").columns) == expected
    # a model fitted in Python does not know where the label was: it comes last
    m = bayesnb.NaiveBayes().fit(middle.drop(columns="species"), middle["species"])
    m.save(tmp_path / "py.bnb")
    assert main(["-q", "sample", str(tmp_path / "py.bnb"), "-n", "4", "-o", str(tmp_path / "py.csv")]) == 0
    assert list(pd.read_csv(tmp_path / "py.csv").columns) == [c for c in expected if c != "species"] + ["species"]
