"""A latent-class fit over a TAN / k-DB structure in a model file (issue 25): the Imputer and the
Synthesizer files hold it, and after loading the scores, imputations and samples are bit for bit
the saved fit's; a damaged or mismatched structure is refused with ModelFileError; files without
the field (naive fits, older files) load as before."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bayesnb import Imputer, NaiveBayes, Synthesizer
from bayesnb._persist_synth import synth_from_model
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.persistence import ModelFileError

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _structured(structure, data="penguins", **kw):
    df = load_penguins() if data == "penguins" else load_house_votes()
    target = "species" if data == "penguins" else "party"
    X, y = df.drop(columns=target), df[target]
    model = NaiveBayes(structure=structure, **kw).fit(X, y)
    fit = model.fit_latent_class(X, y, n_components=2, random_state=0, n_init=1)
    assert fit.structure is not None
    return model, fit, X, y


@pytest.fixture(scope="module", params=[("tan", "penguins"), ("kdb", "votes")], ids=["tan-mixed", "kdb-categorical"])
def structured(request):
    return _structured(*request.param)


def _rewrite(path, out, edit):
    """``path`` with its metadata edited by ``edit(meta, arrays)`` and the checksums recomputed."""
    from bayesnb._safeio import digest
    with np.load(path) as f:
        entries = {n: f[n] for n in f.files}
    meta = json.loads(entries["__meta__"].tobytes())
    edit(meta, entries)
    meta["checksums"] = {k: digest(a) for k, a in entries.items() if k != "__meta__"}
    entries["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(out, "wb") as f:
        np.savez_compressed(f, **entries)


def _first_array(node):
    """The name of the first array a JSON subtree of the file refers to."""
    return json.dumps(node).split('"__array__": "')[1].split('"')[0]


def test_a_structured_latent_fit_round_trips_bit_for_bit(structured, tmp_path):
    model, fit, X, y = structured
    synth = synth_from_model(Synthesizer, model, fit, "latent over a structure")
    synth.save(tmp_path / "s.bnb")
    back = Synthesizer.load(tmp_path / "s.bnb")
    m2, f2 = back.model_, back.latent_
    assert f2.structure is not None and f2.structure.parents == fit.structure.parents
    assert f2.structure.log_evidence == fit.structure.log_evidence
    np.testing.assert_array_equal(m2.score_samples(X, latent=f2), model.score_samples(X, latent=fit))
    holes = X.copy()
    rng = np.random.default_rng(0)
    holes = holes.mask(rng.random(holes.shape) < 0.2)
    for strategy in ("mode", "draw"):
        pd.testing.assert_frame_equal(m2.impute(holes, latent=f2, strategy=strategy, random_state=3),
                                      model.impute(holes, latent=fit, strategy=strategy, random_state=3))
    a = model.sample(60, latent=fit, random_state=4)
    b = m2.sample(60, latent=f2, random_state=4)
    for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        np.testing.assert_array_equal(np.asarray(u, dtype=object), np.asarray(v, dtype=object))


def test_an_imputer_with_a_structured_latent_configuration_saves_and_imputes_alike(tmp_path):
    votes = load_house_votes().drop(columns="party").iloc[::3, :8]
    imp = Imputer(estimator=NaiveBayes(structure="kdb"), configurations="latent", search_rows=60,
                  random_state=0).fit(votes)
    assert imp.models_["latent"][1].structure is not None
    imp.save(tmp_path / "imp.bnb")  # a TypeError before: only a naive fit could be saved
    back = Imputer.load(tmp_path / "imp.bnb")
    assert votes.isna().any().any()
    pd.testing.assert_frame_equal(back.impute(votes), imp.impute(votes))

    def naive(meta, _):  # the k-DB estimator's fit written as a naive one
        meta["fitted"]["models"]["latent"]["latent"]["structure"] = None

    _rewrite(tmp_path / "imp.bnb", tmp_path / "bad.bnb", naive)
    with pytest.raises(ModelFileError, match="a naive latent-class fit does not belong to an estimator of structure"):
        Imputer.load(tmp_path / "bad.bnb")


def test_a_damaged_latent_structure_is_refused(tmp_path):
    model, fit, X, _ = _structured("tan", "votes")
    path = tmp_path / "s.bnb"
    synth_from_model(Synthesizer, model, fit, "x").save(path)

    def drop_feature(meta, _):
        meta["latent"]["structure"]["stats"].pop()

    def negative_counts(meta, arrays):
        name = _first_array(meta["latent"]["structure"]["stats"][0])
        arrays[name] = -np.abs(arrays[name]) - 1.0

    def wrong_shape(meta, arrays):
        name = _first_array(meta["latent"]["structure"]["priors"][1])
        arrays[name] = arrays[name][:1]

    def missing_structure(meta, _):  # a naive fit for a TAN estimator
        meta["latent"]["structure"] = None

    for edit, match in [(drop_feature, "one entry per feature"), (negative_counts, "below"),
                        (wrong_shape, "prior over its"), (missing_structure, "naive latent-class")]:
        bad = tmp_path / f"{edit.__name__}.bnb"
        _rewrite(path, bad, edit)
        with pytest.raises(ModelFileError, match=match):
            Synthesizer.load(bad)


def test_a_fit_of_another_structure_is_refused_at_save(tmp_path):
    tan, fit, _, _ = _structured("tan", "votes")
    naive = NaiveBayes().fit(load_house_votes().drop(columns="party"), load_house_votes()["party"])
    naive_fit = naive.fit_latent_class(load_house_votes().drop(columns="party"), n_components=2, random_state=0)
    with pytest.raises(TypeError, match="structured .* does not belong to an estimator of structure 'naive'"):
        synth_from_model(Synthesizer, naive, fit, "x").save(tmp_path / "a.bnb")
    with pytest.raises(TypeError, match="a naive latent-class fit does not belong to an estimator of structure 'tan'"):
        synth_from_model(Synthesizer, tan, naive_fit, "x").save(tmp_path / "b.bnb")
    with pytest.raises(TypeError, match="made from one MCMC draw"):
        synth_from_model(Synthesizer, tan, fit._replace(point=True), "x").save(tmp_path / "c.bnb")
    assert not any(tmp_path.iterdir())


def test_a_naive_latent_file_without_the_structure_field_still_loads(tmp_path):
    votes = load_house_votes()
    synth = Synthesizer(target="party", latent=2, random_state=0).fit(votes)
    synth.save(tmp_path / "new.bnb")

    def as_before(meta, _):  # files written before the field have no "structure" key
        del meta["latent"]["structure"]

    _rewrite(tmp_path / "new.bnb", tmp_path / "old.bnb", as_before)
    back = Synthesizer.load(tmp_path / "old.bnb")
    assert back.latent_.structure is None
    pd.testing.assert_frame_equal(back.sample(50, random_state=2), synth.sample(50, random_state=2))


def test_the_synthesizer_samples_a_loaded_structured_latent_fit_alike(tmp_path):
    model, fit, _, _ = _structured("kdb", "votes")
    synth = synth_from_model(Synthesizer, model, fit, "latent over k-DB")
    synth.save(tmp_path / "s.bnb")
    back = Synthesizer.load(tmp_path / "s.bnb")
    pd.testing.assert_frame_equal(back.sample(80, random_state=6), synth.sample(80, random_state=6))
