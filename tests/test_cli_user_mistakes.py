"""User mistakes that the library reports with its own errors reach the command line as one line and exit 2.

Each case was an exit 2 before the CLI stopped treating every ValueError as the user's (issue 29 item 6)
and must not become a one-line bug report (exit 1) now.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesnb.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("mistakes")
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=40).round(3), "c": rng.choice(list("pq"), 40),
                       "y": np.repeat(["a", "b"], 20)})
    df.to_csv(d / "t.csv", index=False)
    df.assign(y="a").to_csv(d / "one.csv", index=False)
    df.assign(x=df["x"].astype(str).where(df.index != 3, "abc")).to_csv(d / "text.csv", index=False)
    assert main(["-q", "fit", str(d / "t.csv"), "--target", "y", "-o", str(d / "m.bnb")]) == 0
    df.assign(y=np.nan).to_csv(d / "unlabelled.csv", index=False)
    df[["y"]].to_csv(d / "target_only.csv", index=False)
    df.head(1).to_csv(d / "row.csv", index=False)
    df.assign(c=pd.to_datetime(["2020-01-01", "2021-06-30"] * 20)).to_parquet(d / "dates.parquet")
    df.assign(c=[[1, 2], [3]] * 20).to_parquet(d / "lists.parquet")
    df.assign(x=df["x"].where(df.index != 2, np.inf)).to_csv(d / "infinite.csv", index=False)
    est = pd.DataFrame({".imputation": [0, 1], "estimate": [1.0, 2.0], "variance": [0.1, 0.2]})
    est.to_csv(d / "pool.csv", index=False)
    est.assign(variance=[-0.1, 0.2]).to_csv(d / "negative_variance.csv", index=False)
    est.head(1).to_csv(d / "one_imputation.csv", index=False)
    df.assign(x=-df["x"].abs() - 1).to_csv(d / "negative.csv", index=False)
    assert main(["-q", "fit", str(d / "one.csv"), "--target", "y", "-o", str(d / "one.bnb")]) == 0
    df.assign(x=df["x"].abs() + 1).to_csv(d / "positive.csv", index=False)
    assert main(["-q", "fit", str(d / "positive.csv"), "--target", "y", "--family", "x=lognormal", "--alpha", "0",
                 "-o", str(d / "lognormal.bnb")]) == 0
    return d


@pytest.mark.parametrize("args, message", [
    (["fit", "t.csv", "--target", "x", "-o", "o.bnb"], "expected class labels"),
    (["impute", "m.bnb", "t.csv", "-o", "o.csv", "--float-format", "%q"], "argument --float-format"),
    (["sample", "m.bnb", "-n", "3", "-o", "o.csv", "--float-format", "abc"], "argument --float-format"),
    (["evaluate-synthetic", "t.csv", "text.csv"], "holds non-numbers"),
    (["evaluate-synthetic", "t.csv", "t.csv", "--target", "x"], "holds continuous numbers"),
    (["evaluate-synthetic", "t.csv", "infinite.csv"], "holds 1 infinite value(s)"),
    (["fit", "dates.parquet", "--target", "y", "-o", "o.bnb"], "values of type Timestamp are not supported"),
    (["fit", "lists.parquet", "--target", "y", "-o", "o.bnb"], "feature 'c' holds cells of type ['ndarray']"),
    (["fit", "target_only.csv", "--target", "y", "-o", "o.bnb"], "at least one row and one column"),
    (["fit", "unlabelled.csv", "--target", "y", "--semi-supervised", "--structure", "tan", "-o", "o.bnb"],
     "every label is missing"),
    (["fit", "t.csv", "--target", "y", "--chunksize", "10", "--structure", "tan", "-o", "o.bnb"],
     "--structure tan with --chunksize takes categorical columns only"),
    (["fit", "t.csv", "--target", "y", "--chunksize", "10", "--structure", "tan", "--categorical", "x", "-o", "o.bnb"],
     "the batch adds categories to ['x']"),
    (["outliers", "lognormal.bnb", "negative.csv", "-o", "o.csv"], "no threshold can be set"),
    (["synthesize", "row.csv", "-n", "3", "-o", "o.csv"], "at least 2 rows"),
    (["info", "m.bnb", "--columns-shown", "-1"], "expected a whole number >= 0"),
    (["pool", "pool.csv", "--conf-level", "2"], "conf_level must be in (0, 1)"),
    (["pool", "pool.csv", "--dfcom", "0"], "dfcom must be a number > 0"),
    (["pool", "negative_variance.csv"], "variances must be >= 0"),
    (["pool", "one_imputation.csv"], "at least 2 imputed tables"),
    (["mcmc", "t.csv", "--model", "m.bnb", "--target", "c", "-o", "d.nc", "--draws", "5", "--warmup", "5"],
     "that are not in classes_"),
])
def test_a_user_mistake_is_one_line_and_exit_2(files, capsys, monkeypatch, args, message):
    monkeypatch.chdir(files)
    assert main(args) == 2
    err = capsys.readouterr().err.splitlines()
    assert message in err[-1] and ": error: " in err[-1] and "internal error" not in "".join(err), err


def test_a_model_of_one_class_is_scored(files, capsys, monkeypatch):
    """scikit-learn's log_loss refuses a single label; every row of the one class has probability 1."""
    monkeypatch.chdir(files)
    assert main(["score", "one.bnb", "one.csv", "--target", "y"]) == 0
    out = capsys.readouterr().out
    assert "accuracy: 1.0000" in out and "log loss: 0.0000" in out, out


def test_categorical_cells_of_mixed_or_unhashable_types_are_data_errors():
    from bayesnb import CategoricalNB
    from bayesnb._utils import DataError

    y = [0, 1, 0, 1]
    with pytest.raises(DataError, match="mixes value types"):
        CategoricalNB().fit(np.array([["a"], [1], ["b"], [2]], dtype=object), y)
    with pytest.raises(DataError, match=r"holds cells of type \['list'\]"):
        CategoricalNB().fit(pd.DataFrame({"c": pd.Series([[1], [2], [1], [2]], dtype=object)}), y)
