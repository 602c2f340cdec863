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
from bayesnb.io.synthesizer_file import synth_from_model
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.io.persistence import ModelFileError

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _structured(structure, data="penguins", **kw):
    df = load_penguins() if data == "penguins" else load_house_votes()
    target = "species" if data == "penguins" else "party"
    X, y = df.drop(columns=target), df[target]
    model = NaiveBayes(structure=structure, **kw).fit(X, y)
    fit = model.fit_latent_class(X, y, n_components=2, random_state=0, n_init=1)
    assert fit.structure is not None
    return model, fit, X, y


@pytest.fixture(scope="module")
def fitted():
    """``fitted(structure, data)``: :func:`_structured`'s fit, made once per module (the fits cost seconds)."""
    cache = {}

    def get(structure, data):
        if (structure, data) not in cache:
            cache[structure, data] = _structured(structure, data)
        return cache[structure, data]
    return get


@pytest.fixture(scope="module", params=[("tan", "penguins"), ("kdb", "votes")], ids=["tan-mixed", "kdb-categorical"])
def structured(request, fitted):
    return fitted(*request.param)


def _rewrite(path, out, edit):
    """``path`` with its metadata edited by ``edit(meta, arrays)`` and the checksums recomputed."""
    from bayesnb.io.archive import digest
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
    # constrained sampling (a set, a range or a value, forbid, a set of classes) and its probability alike
    cat = next(c for c in X.columns if X[c].dtype.kind not in "fiu")
    values = list(X[cat].dropna().unique())
    num = next((c for c in X.columns if X[c].dtype.kind == "f"), None)
    given = {cat: set(values[:2])}
    if num is not None:
        given[num] = (float(X[num].quantile(0.2)), float(X[num].quantile(0.8)))
    forbid = [{c: X[c].dropna().iloc[0] for c in X.columns if c != cat and X[c].dtype.kind not in "fiu"}]
    opts = dict(latent=None, y=set(model.classes_[:2]), given=given, forbid=forbid, return_probability=True,
                random_state=5)
    a = model.sample(80, **{**opts, "latent": fit})
    b = m2.sample(80, **{**opts, "latent": f2})
    pd.testing.assert_frame_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert 0 < a[2] < 1 and a[2] == b[2]
    assert (a[0][cat].isin(values[:2])).all()


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


def test_a_damaged_latent_structure_is_refused(fitted, tmp_path):
    model, fit, X, _ = fitted("tan", "votes")
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

    stats = fit.structure.stats
    j, i = next((j, i) for j in range(len(stats)) for i in range(len(stats))
                if any(np.shape(a) != np.shape(b) for a, b in zip(stats[i], stats[j])))

    def swapped(meta, _):  # feature i's statistics (their arrays) written as feature j's
        st = meta["latent"]["structure"]["stats"]
        st[j] = st[i]

    for edit, match in [(drop_feature, "one entry per feature"), (negative_counts, "below"),
                        (wrong_shape, "prior over its"), (missing_structure, "naive latent-class"),
                        (swapped, rf"stats\[{j}\] must be the family's statistics over its")]:
        bad = tmp_path / f"{edit.__name__}.bnb"
        _rewrite(path, bad, edit)
        with pytest.raises(ModelFileError, match=match):
            Synthesizer.load(bad)


def test_a_fit_of_another_structure_is_refused_at_save(fitted, tmp_path):
    tan, fit, _, _ = fitted("tan", "votes")
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


def test_the_synthesizer_samples_a_loaded_structured_latent_fit_alike(fitted, tmp_path):
    model, fit, _, _ = fitted("kdb", "votes")  # the round trip's k-DB fit, not fitted again
    synth = synth_from_model(Synthesizer, model, fit, "latent over k-DB")
    synth.save(tmp_path / "s.bnb")
    back = Synthesizer.load(tmp_path / "s.bnb")
    pd.testing.assert_frame_equal(back.sample(80, random_state=6), synth.sample(80, random_state=6))


def test_a_naive_fit_of_an_auto_estimator_that_chose_naive_saves_and_loads(tmp_path):
    # save and load judge a latent fit by the estimator's *fitted* structure, not its parameter: an
    # estimator with structure="auto" that chose naive takes a naive fit both ways (loading refused it)
    rng = np.random.default_rng(0)
    z = rng.integers(0, 2, 80)
    X = pd.DataFrame({c: np.where(rng.random(80) < np.where(z == 1, 0.7, 0.3), "y", "n") for c in "abc"})
    y = np.array(["u", "v"])[z]
    model = NaiveBayes(structure="auto").fit(X.astype(object), y)
    assert model.structure == "auto" and model.structure_kind_ == "naive"
    fit = model.fit_latent_class(X.astype(object), y, n_components=2, n_init=1, random_state=0)
    assert fit.structure is None
    synth = synth_from_model(Synthesizer, model, fit, "latent, auto chose naive")
    synth.save(tmp_path / "s.bnb")
    back = Synthesizer.load(tmp_path / "s.bnb")
    assert back.latent_.structure is None and back.model_.structure == "auto"
    pd.testing.assert_frame_equal(back.sample(40, random_state=1), synth.sample(40, random_state=1))


def test_the_cheap_checks_come_before_the_model_over_the_states(fitted, tmp_path, monkeypatch):
    # a file whose stats have the wrong count or a feature's stats of another layout is refused before the
    # model over the K x C states (state_model, the costly template) is built
    from bayesnb.structure import structured_em as se
    model, fit, _, _ = fitted("tan", "votes")
    path = tmp_path / "s.bnb"
    synth_from_model(Synthesizer, model, fit, "x").save(path)
    built = []
    real = se.state_model
    monkeypatch.setattr(se, "state_model", lambda *a, **k: built.append(1) or real(*a, **k))

    def drop_feature(meta, _):
        meta["latent"]["structure"]["stats"].pop()

    def short_stats(meta, arrays):
        name = _first_array(meta["latent"]["structure"]["stats"][0])
        arrays[name] = arrays[name][:1]

    for edit, match in [(drop_feature, "one entry per feature"), (short_stats, r"stats\[0\] must be the family's")]:
        _rewrite(path, tmp_path / f"{edit.__name__}.bnb", edit)
        with pytest.raises(ModelFileError, match=match):
            Synthesizer.load(tmp_path / f"{edit.__name__}.bnb")
    assert not built
    Synthesizer.load(path)
    assert built  # the check above can fail: a good file builds it


def test_the_file_names_the_fits_parents_and_loading_requires_the_estimators(structured, tmp_path):
    # a fit over other parents whose statistics have the same shapes cannot be told by its layout:
    # the file writes the parents, and loading requires the estimator's (ModelFileError otherwise)
    model, fit, X, _ = structured
    path = tmp_path / "s.bnb"
    synth_from_model(Synthesizer, model, fit, "x").save(path)
    with np.load(path) as f:
        meta = json.loads(f["__meta__"].tobytes())
    assert meta["latent"]["structure"]["parents"] == [list(p) for p in fit.structure.parents]
    j = next(j for j, p in enumerate(fit.structure.parents) if p)

    def other_parents(meta, _):  # the same number of parents, another feature's (shapes may well agree)
        pa = meta["latent"]["structure"]["parents"]
        pa[j] = [next(i for i in range(len(pa)) if i != j and i not in pa[j])] + pa[j][1:]

    def not_ints(meta, _):
        meta["latent"]["structure"]["parents"][j] = [str(i) for i in meta["latent"]["structure"]["parents"][j]]

    def as_before(meta, _):  # files written before the key: checked by their layout only, and load
        del meta["latent"]["structure"]["parents"]

    for edit in (other_parents, not_ints):
        _rewrite(path, tmp_path / "bad.bnb", edit)
        with pytest.raises(ModelFileError, match="the latent structure's parents must be the estimator's"):
            Synthesizer.load(tmp_path / "bad.bnb")
        (tmp_path / "bad.bnb").unlink()
    _rewrite(path, tmp_path / "old.bnb", as_before)
    back = Synthesizer.load(tmp_path / "old.bnb")
    np.testing.assert_array_equal(back.model_.score_samples(X, latent=back.latent_), model.score_samples(X, latent=fit))
