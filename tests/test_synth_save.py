"""Synthesizer.save / Synthesizer.load of a latent-class choice: the same rows after loading (missing
cells included), ``bayesnb.load`` giving the Synthesizer, damaged files refused with ModelFileError,
fits that cannot be saved refused, and ``bayesnb sample`` on such a file (other commands refuse it)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb import NaiveBayes, Synthesizer
from bayesnb.io.archive import digest
from bayesnb.cli import main
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.io.persistence import ModelFileError
from helpers import cli_sample_as_python

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def latent_penguins():
    """Penguins with target species and a latent-class model of 2 components per class, forced."""
    return Synthesizer(target="species", latent=2, random_state=0).fit(load_penguins())


def _same_after_loading(synth, path, n=400, seed=5, **key):
    synth.save(path, **key)
    back = Synthesizer.load(path, **key)
    assert back.latent_ is not None and back.latent_.n_components == synth.latent_.n_components
    assert back.chosen_ == synth.chosen_ and back.columns_ == synth.columns_ and back.target == synth.target
    assert back.missing_indicators_ == synth.missing_indicators_
    assert (back.dtypes_.astype(str) == synth.dtypes_.astype(str)).all()
    ours = synth.sample(n, random_state=seed)
    pd.testing.assert_frame_equal(back.sample(n, random_state=seed), ours)
    return back, ours


def test_a_forced_latent_choice_saves_and_samples_the_same_rows(latent_penguins, tmp_path):
    back, rows = _same_after_loading(latent_penguins, tmp_path / "pg.bnb")
    assert rows.isna().any().any()  # missing cells drawn, and drawn alike after loading
    assert back.get_params()["latent"] == 2 and back.get_params()["structure"] == "naive"
    loaded = bayesnb.load(tmp_path / "pg.bnb")  # the Synthesizer, not the estimator alone
    assert isinstance(loaded, Synthesizer)
    pd.testing.assert_frame_equal(loaded.sample(50, random_state=1), latent_penguins.sample(50, random_state=1))
    _same_after_loading(latent_penguins, tmp_path / "keyed.bnb", key=b"secret")
    with pytest.raises(ModelFileError, match="key"):
        Synthesizer.load(tmp_path / "keyed.bnb")


def test_house_votes_latent_choice_round_trips(tmp_path):
    votes = load_house_votes()
    synth = Synthesizer(target="party", latent=2, random_state=0).fit(votes)
    _, rows = _same_after_loading(synth, tmp_path / "votes.bnb", n=300)
    assert rows.drop(columns="party").isna().any().any() and list(rows.columns) == list(votes.columns)


def test_a_latent_model_chosen_by_the_search_round_trips(tmp_path):
    synth = Synthesizer(latent_candidates=(1, 2, 3), random_state=0).fit(load_penguins())  # no target
    assert synth.chosen_.startswith("latent class")  # measured: C=8 (the search widens past 3)
    _same_after_loading(synth, tmp_path / "auto.bnb", n=300, seed=2)


def test_a_structure_keeps_the_estimator_file(tmp_path):
    synth = Synthesizer(target="species", structure="tan", latent=None, random_state=0).fit(load_penguins())
    synth.save(tmp_path / "tan.bnb")
    assert isinstance(bayesnb.load(tmp_path / "tan.bnb"), NaiveBayes)  # as bayesnb fit writes it
    # the composite layout holds a structure too (bayesnb.io.persistence.save of any Synthesizer)
    bayesnb.io.persistence.save(synth, tmp_path / "composite.bnb")
    back = bayesnb.load(tmp_path / "composite.bnb")
    assert isinstance(back, Synthesizer) and back.latent_ is None and back.chosen_ == synth.chosen_
    pd.testing.assert_frame_equal(back.sample(60, random_state=3), synth.sample(60, random_state=3))


def _edit(path, out, change, array_change=None):
    """Write ``path`` to ``out`` with its metadata changed by ``change(meta)``; ``array_change(meta, arrays)``
    may change arrays, whose checksums are then recomputed (a deliberate edit, not bit rot)."""
    with np.load(path) as f:
        entries = {n: f[n] for n in f.files}
    meta = json.loads(entries["__meta__"].tobytes())
    change(meta)
    if array_change is not None:
        for name in array_change(meta, entries):
            meta["checksums"][name] = digest(entries[name])
    entries["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(out, "wb") as f:
        np.savez_compressed(f, **entries)


def _weights(meta, arrays):
    """Triple the latent states' prior weights (class_prior_alpha, the NBPosterior's third field)."""
    name = meta["latent"]["posterior"]["fields"][2]["__array__"]
    arrays[name] = arrays[name] * 3
    return [name]


def _group(meta, arrays):
    name = meta["latent"]["group"]["__array__"]
    arrays[name] = arrays[name][::-1].copy()
    return [name]


def _nothing(meta):
    return None


@pytest.mark.parametrize("change, arrays, match", [
    (lambda m: m["latent"].update(n_components=3), None, "states"),
    (lambda m: m["latent"].update(n_components=True), None, "n_components"),
    (lambda m: m["latent"].update(selection={"__dict__": [["x", 1.0]]}), None, "selection"),
    (lambda m: m["latent"].update(posterior=m["model"]["fitted"]["posterior"]), None, "states"),
    (lambda m: m.update(latent=[1, 2]), None, "JSON object"),
    (lambda m: m.update(chosen=7), None, "chosen"),
    (lambda m: m["latent"].update(structure={"stats": [], "priors": []}), None,
     r"a structured \(TAN / k-DB\) latent-class fit does not belong to an estimator of structure 'naive'"),
    (_nothing, _weights, "Dirichlet"),
    (_nothing, _group, "classes must be each class"),
])
def test_a_damaged_file_is_refused(latent_penguins, tmp_path, change, arrays, match):
    path, bad = tmp_path / "pg.bnb", tmp_path / "bad.bnb"
    latent_penguins.save(path)
    _edit(path, bad, change, arrays)
    with pytest.raises(ModelFileError, match=match):
        Synthesizer.load(bad)
    with pytest.raises(ModelFileError):
        bayesnb.load(bad)


def test_a_truncated_or_bit_flipped_file_is_refused(latent_penguins, tmp_path):
    path = tmp_path / "pg.bnb"
    latent_penguins.save(path)
    data = path.read_bytes()
    (tmp_path / "cut.bnb").write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError):
        Synthesizer.load(tmp_path / "cut.bnb")
    with np.load(path) as f:  # an array's bytes changed, its checksum not
        entries = {n: f[n] for n in f.files}
    meta = json.loads(entries["__meta__"].tobytes())
    name = meta["latent"]["group"]["__array__"]
    entries[name] = entries[name] + 1
    with open(tmp_path / "rot.bnb", "wb") as f:
        np.savez_compressed(f, **entries)
    with pytest.raises(ModelFileError, match="checksum"):
        Synthesizer.load(tmp_path / "rot.bnb")


@pytest.mark.parametrize("replace, match", [
    ({"structure": "tan tables"}, "structure must be the model over latent states that fit_latent_class gives; "
                                  "received str"),
    ({"point": True}, "only a latent-class fit by EM can be saved; received one made from one MCMC draw")])
def test_a_latent_fit_that_cannot_be_saved_is_refused_clearly(latent_penguins, tmp_path, replace, match):
    synth = copy.copy(latent_penguins)
    synth.latent_ = latent_penguins.latent_._replace(**replace)
    with pytest.raises(TypeError, match=match):
        synth.save(tmp_path / "x.bnb")
    assert not (tmp_path / "x.bnb").exists()


def test_cli_sample_of_a_latent_file_equals_the_python_api(latent_penguins, tmp_path, capsys):
    cli_sample_as_python(latent_penguins, tmp_path, capsys, 40, 4)
    path = tmp_path / "synth.bnb"
    assert main(["-q", "sample", str(path), "-n", "5", "--prior", "-o", str(tmp_path / "p.csv")]) == 2
    err = capsys.readouterr().err
    assert "--prior" in err and "latent-class" in err and len(err.strip().splitlines()) == 1
    assert main(["-q", "info", str(path)]) == 2  # the other commands refuse it in one line
    err = capsys.readouterr().err
    assert "only 'bayesnb sample' reads" in err and len(err.strip().splitlines()) == 1
