"""``bayesnb fit --structure/--k/--edge-score`` and ``--alpha hierarchical``: the Python API's
structure hyperparameters reached from the command line, with one-line errors for bad values."""

from __future__ import annotations

import numpy as np
import pytest

import bayesnb
from bayesnb import CategoricalNB, NaiveBayes
from bayesnb.cli import main
from bayesnb.datasets import load_house_votes


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err and lines[0].startswith("bayesnb") and ": error: " in lines[0], err
    return lines[0]


@pytest.fixture(scope="module")
def votes(tmp_path_factory):
    d = tmp_path_factory.mktemp("structure")
    df = load_house_votes()
    df.to_csv(d / "votes.csv", index=False)
    return d / "votes.csv", df.drop(columns="party"), df["party"].to_numpy()


def _fit(capsys, path, tmp_path, *options):
    out = tmp_path / "m.bnb"
    code, _, err = cli(capsys, "fit", path, "--target", "party", "-o", out, "--force", "-q", *options)
    assert code == 0, err
    return bayesnb.load(out)


def test_tan_model_predicts_as_the_python_api(votes, tmp_path, capsys):
    path, X, y = votes
    code, out, err = cli(capsys, "fit", path, "--target", "party", "-o", tmp_path / "t.bnb", "--structure", "tan")
    assert code == 0, err
    edges = sum(len(p) for p in bayesnb.load(tmp_path / "t.bnb").structure_.values())
    assert 0 < edges < X.shape[1] and f"structure: tan, {edges} feature-to-feature edges" in out  # a tree (forest)
    model = _fit(capsys, path, tmp_path, "--structure", "tan")
    assert type(model) is NaiveBayes and model.get_params()["structure"] == "tan"
    api = NaiveBayes(structure="tan").fit(X, y)
    np.testing.assert_array_equal(model.predict(X), api.predict(X))
    np.testing.assert_allclose(model.predict_proba(X), api.predict_proba(X), rtol=1e-12, atol=1e-15)
    # a tree is learnt: not the naive model's predictions
    naive = NaiveBayes().fit(X, y)
    assert not np.allclose(model.predict_proba(X), naive.predict_proba(X))


def test_kdb_k_edge_score_and_hierarchical_alpha_reach_the_estimator(votes, tmp_path, capsys):
    path, X, y = votes
    model = _fit(capsys, path, tmp_path, "--structure", "kdb", "--k", "3", "--edge-score", "hierarchical",
                 "--alpha", "hierarchical")
    params = model.get_params()
    assert (params["structure"], params["k"], params["edge_score"], params["alpha"]) == \
        ("kdb", 3, "hierarchical", "hierarchical")
    api = NaiveBayes(structure="kdb", k=3, edge_score="hierarchical", alpha="hierarchical").fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), api.predict_proba(X), rtol=1e-12, atol=1e-15)


def test_categorical_family_takes_structure_and_k(votes, tmp_path, capsys):
    path, X, y = votes
    model = _fit(capsys, path, tmp_path, "--family", "categorical", "--structure", "kdb", "--k", "1")
    assert type(model) is CategoricalNB and (model.get_params()["structure"], model.get_params()["k"]) == ("kdb", 1)
    api = CategoricalNB(structure="kdb", k=1).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), api.predict_proba(X), rtol=1e-12, atol=1e-15)


def test_chunked_fit_learns_the_structure_on_the_first_chunk(votes, tmp_path, capsys):
    path, X, y = votes
    model = _fit(capsys, path, tmp_path, "--structure", "tan", "--chunksize", "200")
    assert model.get_params()["structure"] == "tan"
    api = NaiveBayes(structure="tan")
    api.partial_fit(X.iloc[:200], y[:200], classes=np.unique(y))
    api.partial_fit(X.iloc[200:400], y[200:400])
    api.partial_fit(X.iloc[400:], y[400:])
    np.testing.assert_array_equal(model.predict(X), api.predict(X))


def test_semi_supervised_fit_keeps_the_structure(votes, tmp_path, capsys):
    path, X, y = votes
    df = load_house_votes()
    df.loc[df.index[::4], "party"] = None
    part = tmp_path / "part.csv"
    df.to_csv(part, index=False)
    model = _fit(capsys, part, tmp_path, "--structure", "tan", "--semi-supervised")
    assert model.get_params()["structure"] == "tan"
    labels = df["party"].to_numpy(dtype=object)
    api = NaiveBayes(structure="tan").fit_semi_supervised(df.drop(columns="party"), labels)
    np.testing.assert_allclose(model.predict_proba(X), api.predict_proba(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("options", "expected"), [
    (["--structure", "chain"], "invalid choice: 'chain'"),
    (["--edge-score", "bic", "--structure", "tan"], "invalid choice: 'bic'"),
    (["--k", "2"], "--k sets the parents of --structure kdb"),
    (["--structure", "tan", "--k", "2"], "the structure is tan"),
    (["--structure", "kdb", "--k", "0"], "--k must be an integer >= 1"),
    (["--structure", "kdb", "--k", "two"], "argument --k: invalid int value"),
    (["--edge-score", "hierarchical"], "the naive structure has none"),
    (["--family", "multinomial", "--structure", "tan"], "its estimator MultinomialNB has no structure"),
    (["--family", "categorical", "--structure", "tan", "--edge-score", "hierarchical"],
     "its estimator CategoricalNB has no edge_score"),
    (["--alpha", "flat"], "--alpha must be a number >= 0, 'auto' or 'hierarchical'; received 'flat'"),
])
def test_bad_structure_options_are_one_line_errors(votes, tmp_path, capsys, options, expected):
    path, _, _ = votes
    code, _, err = cli(capsys, "fit", path, "--target", "party", "-o", tmp_path / "m.bnb", *options)
    assert expected in one_line_error(code, err)
    assert not (tmp_path / "m.bnb").exists()
