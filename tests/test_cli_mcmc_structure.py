"""``bayesnb mcmc --structure/--k/--edge-score`` (issue 25): the command samples the structure the Python
API's ``run_mcmc`` samples (same draws, same comparison with every context's exact posterior), and
bad combinations are one-line errors before any sampling."""

from __future__ import annotations

import numpy as np
import pytest

import bayesnb
from bayesnb import NaiveBayes, compare_posteriors
from bayesnb.cli import main
from bayesnb.cli import mcmc as cli_mcmc
from bayesnb.datasets import load_house_votes

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # short chains: divergences, r_hat


@pytest.fixture(scope="module")
def votes(tmp_path_factory):
    """A quarter of house votes, six votes: a small NUTS run."""
    d = tmp_path_factory.mktemp("mcmc-structure")
    df = load_house_votes().iloc[::4, :7]
    df.to_csv(d / "votes.csv", index=False)
    return d / "votes.csv", df.drop(columns="party"), df["party"]


def _cli_and_api(capsys, tmp_path, votes, options, params):
    xr = pytest.importorskip("xarray")
    path, X, y = votes
    out = tmp_path / "draws.nc"
    code = main(["mcmc", str(path), "--target", "party", "-o", str(out), "--draws", "50", "--warmup", "100",
                 "--chains", "2", "--seed", "2", "--rows", "0", *options])
    printed, err = capsys.readouterr()
    assert code == 0, err
    model = NaiveBayes(**params).fit(X, y)  # what the command fits with these options
    dt = model.run_mcmc(X, y, num_warmup=100, num_samples=50, num_chains=2, random_state=2, progress_bar=False)
    got = xr.open_datatree(out, engine="h5netcdf")
    assert set(got["posterior"].data_vars) == set(dt["posterior"].data_vars)
    for v in dt["posterior"].data_vars:
        np.testing.assert_array_equal(got["posterior"][v].values, dt["posterior"][v].values)
    table = compare_posteriors(cli_mcmc.exact_posterior(model), dt, verbose=False)
    assert cli_mcmc.comparison_text(table, rows=0) in printed  # every context's exact posterior, as the API's
    return model, dt, printed


@pytest.mark.slow  # NUTS compiles once per structure
def test_mcmc_structure_tan_equals_the_python_api(votes, tmp_path, capsys):
    model, dt, printed = _cli_and_api(capsys, tmp_path, votes, ["--structure", "tan"], {"structure": "tan"})
    assert model.structure_kind_ == "tan" and any(model.structure_.values())
    assert "NUTS on NaiveBayes (structure tan)" in printed
    # the draws are the structure's: per context (a parent's state dim), not the naive model's
    assert any(d.endswith("_state") for v in dt["posterior"].data_vars for d in dt["posterior"][v].dims)


@pytest.mark.slow
def test_mcmc_kdb_k_and_edge_score_reach_the_estimator(votes, tmp_path, capsys):
    params = {"structure": "kdb", "k": 1, "edge_score": "hierarchical", "alpha": "hierarchical"}
    model, _, printed = _cli_and_api(capsys, tmp_path, votes, ["--structure", "kdb", "--k", "1", "--edge-score",
                                                               "hierarchical", "--alpha", "hierarchical"], params)
    assert model.structure_kind_ == "kdb" and max(len(p) for p in model.structure_.values()) == 1
    assert "NUTS on NaiveBayes (structure kdb)" in printed


@pytest.mark.parametrize(("options", "expected"), [
    (["--k", "2"], "--k sets the parents of --structure kdb"),
    (["--structure", "kdb", "--k", "0"], "--k must be an integer >= 1"),
    (["--edge-score", "hierarchical"], "the naive structure has none"),
    (["--structure", "chain"], "invalid choice: 'chain'"),
    (["--family", "multinomial", "--structure", "tan"], "its estimator MultinomialNB has no structure"),
])
def test_bad_structure_options_are_one_line_errors(votes, tmp_path, capsys, options, expected):
    path, _, _ = votes
    out = tmp_path / "d.nc"
    code = main(["mcmc", str(path), "--target", "party", "-o", str(out), *options])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and expected in lines[0] and "Traceback" not in err, err
    assert not out.exists()


@pytest.mark.parametrize("option", [["--structure", "tan"], ["--k", "1"], ["--edge-score", "bdeu"]])
def test_structure_options_with_a_saved_model_are_refused(votes, tmp_path, capsys, option):
    path, X, y = votes
    saved = tmp_path / "m.bnb"
    NaiveBayes(structure="tan").fit(X, y).save(saved)
    code = main(["mcmc", str(path), "--model", str(saved), "-o", str(tmp_path / "d.nc"), *option])
    err = capsys.readouterr().err
    assert code == 2 and f"{option[0]} applies when mcmc fits the model" in err and "structure" in err, err
    assert isinstance(bayesnb.load(saved), NaiveBayes)
