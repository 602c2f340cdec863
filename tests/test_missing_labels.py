"""One rule for missing labels: every command that needs labels refuses unlabelled rows in one line
naming ``--drop-unlabelled``, and with it leaves them out and reports how many on stderr; in
Python, ``model.score`` and ``impute_table`` refuse them in a ValueError that says what applies."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb.cli import build_parser, main
from bayesnb.datasets import load_play_tennis

TARGET = "PlayTennis"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Play tennis with two labels and one cell blanked, the labelled rows alone, and a model."""
    d = tmp_path_factory.mktemp("labels")
    df = load_play_tennis()
    df.iloc[0, 0] = None
    df.loc[[2, 5], TARGET] = None
    df.to_csv(d / "data.csv", index=False)
    df.dropna(subset=[TARGET]).to_csv(d / "labelled.csv", index=False)
    load_play_tennis().to_csv(d / "synth.csv", index=False)
    assert main(["-q", "fit", str(d / "labelled.csv"), "--target", TARGET, "-o", str(d / "m.bnb")]) == 0
    return d


def _commands(d, data):
    """Every subcommand that needs a label per row, reading ``data``, by name."""
    model = str(d / "m.bnb")
    return {
        "fit": ["fit", data, "--target", TARGET, "-o", str(d / "out.bnb"), "--force"],
        "mcmc": ["mcmc", data, "--target", TARGET, "-o", str(d / "out.nc"), "--force"],
        "score": ["score", model, data, "--target", TARGET],
        "check": ["check", model, data, "--target", TARGET, "--replicates", "5"],
        "impute-table": ["impute-table", data, "--target", TARGET, "--configurations", "naive"],
        "fit-imputer": ["fit-imputer", data, "--target", TARGET, "--configurations", "naive", "-o",
                        str(d / "imputer.bnb"), "--force"],
        "evaluate-synthetic": ["evaluate-synthetic", data, str(d / "synth.csv"), "--target", TARGET],
        "synthesize": ["synthesize", data, "-n", "5", "--target", TARGET, "--latent", "none"],
    }


def _options():
    """``{command: its option strings}`` of the parser."""
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return {name: {s for a in q._actions for s in a.option_strings} for name, q in sub.choices.items()}


def test_every_command_that_needs_labels_takes_drop_unlabelled(tmp_path):
    options = _options()
    with_target = {name for name, opts in options.items() if "--target" in opts}
    with_drop = {name for name, opts in options.items() if "--drop-unlabelled" in opts}
    assert with_drop == set(_commands(tmp_path, "x"))
    # the others take --target but no label is required: impute conditions on the labels it has,
    # sample only names the label column, outliers checks it exists and copies it
    assert with_target - with_drop == {"impute", "sample", "outliers"}


@pytest.mark.parametrize("name", sorted(_commands(__import__("pathlib").Path("."), "x")))
def test_unlabelled_rows_are_refused_naming_the_flag(name, files, capsys):
    code = main(_commands(files, str(files / "data.csv"))[name])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, lines
    assert f"2 row(s) have no {TARGET!r} label (pass --drop-unlabelled" in lines[0], lines[0]


@pytest.mark.parametrize("name", ["fit", "score", "check", "impute-table", "evaluate-synthetic", "synthesize"])
def test_drop_unlabelled_reports_the_count_and_equals_the_labelled_table(name, files, capsys):
    """(mcmc fits through the same function as fit; its sampling is tested in test_cli_mcmc.)"""
    dropped = main(["-q", *_commands(files, str(files / "data.csv"))[name], "--drop-unlabelled"])
    out, err = capsys.readouterr()
    assert dropped == 0, err
    assert f"left out 2 row(s) with no {TARGET!r} label (--drop-unlabelled)" in err
    if name == "fit":
        assert bayesnb.load(files / "out.bnb").class_count_.sum() == 12
        return
    assert main(["-q", *_commands(files, str(files / "labelled.csv"))[name]]) == 0
    assert capsys.readouterr().out == out  # the same as on the labelled rows alone
    if name == "score":
        assert "rows: 12" in out


def test_drop_unlabelled_without_target_is_refused(files, capsys):
    assert main(["impute-table", str(files / "data.csv"), "--drop-unlabelled"]) == 2
    assert "--drop-unlabelled needs --target" in capsys.readouterr().err


def test_score_with_missing_labels_is_a_clear_value_error():
    df = load_play_tennis()
    X, y = df.drop(columns=TARGET), df[TARGET]
    model = bayesnb.CategoricalNB().fit(X, y)
    for bad in (y.where(y.index != 3), list(y.where(y.index != 3, np.nan)), y.where(y.index != 3, pd.NA)):
        with pytest.raises(ValueError, match=r"CategoricalNB\.score: .*1 missing label\(s\).*row\(s\) \[3\]"
                                             r".*leave the unlabelled rows out"):
            model.score(X, bad)
    keep = y.index != 3
    assert model.score(X[keep], y[keep]) == np.mean(model.predict(X[keep]) == y[keep].to_numpy())


def test_impute_table_with_missing_labels_says_what_applies():
    df = load_play_tennis()
    X, y = df.drop(columns=TARGET), df[TARGET].where(df.index != 1)
    X.iloc[0, 0] = None
    with pytest.raises(ValueError, match=r"impute_table: .*1 missing label.*pass y=None") as e:
        bayesnb.impute_table(X, y)
    assert "fit_semi_supervised" not in str(e.value)


def test_mcmc_of_a_saved_model_without_labels_needs_target_or_components(files, capsys):
    load_play_tennis().drop(columns=TARGET).to_csv(files / "nolabel.csv", index=False)
    code = main(["mcmc", str(files / "nolabel.csv"), "--model", str(files / "m.bnb"), "-o", str(files / "u.nc")])
    line = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in line, line
    assert f"no label column {TARGET!r}: give --target COL" in line and "--components K > 1" in line
    assert not (files / "u.nc").exists()


def test_synthetic_report_drop_unlabelled_equals_the_labelled_tables():
    real = load_play_tennis()
    synthetic = real.sample(frac=1.0, replace=True, random_state=1).reset_index(drop=True)
    gaps = real.assign(**{TARGET: real[TARGET].where(real.index % 5 != 0)})
    with pytest.raises(ValueError, match="3 missing value.*pass drop_unlabelled=True"):
        bayesnb.synthetic_report(gaps, synthetic, TARGET, random_state=0)
    got = bayesnb.synthetic_report(gaps, synthetic, TARGET, random_state=0, drop_unlabelled=True)
    expected = bayesnb.synthetic_report(gaps.dropna(subset=[TARGET]), synthetic, TARGET, random_state=0)
    pd.testing.assert_frame_equal(got.to_frame(), expected.to_frame())
