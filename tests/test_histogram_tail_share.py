"""The Histogram tail's share ``1 / (n + 1)`` of its end bin: ``n`` is a training statistic the
parameters carry (``BinDirichlets.pooled``), so every path (the posterior, an exact or MCMC draw,
contexts tiled over draws, the generative cell likelihoods, partial_fit, a model file) gives a value
beyond the range the same share."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import bayesnb
from bayesnb import Histogram, NaiveBayes
from bayesnb.structure.columns import take_contexts

X4 = np.array([0, 1, 1, 2, 2, 2, 3, 3, 3, 3], float)[:, None]  # integer column 0..3, the last bin 4 cells


def _fitted(alpha=0.01):
    fam = Histogram(alpha=alpha)
    blk, st = fam.encode(X4)
    stats = fam.stats(blk, np.ones((X4.shape[0], 1)), st)
    prior = fam.make_prior(stats, st)
    return fam, st, prior, fam.update(prior, stats)


def _gaps(fam, st, prior, point):
    """``log p(5) - log p(3)`` (the tail's own term: the end bin's mass cancels) by ``log_likelihood``
    and by ``gen_cell_log_lik``, under context 0."""
    T, _ = fam.encode(np.array([[5.0], [3.0]]), st)
    ll = fam.log_likelihood(prior, point, T, "mean")
    cells = fam.gen_cell_log_lik(prior, point, T, np.eye(ll.shape[1])[[0, 0]])[:, 0]
    return ll[0, 0] - ll[1, 0], cells[0] - cells[1]


def test_tail_share_is_the_same_for_the_posterior_draws_and_tiled_contexts():
    """The reviewer's table: integer column 0..3, alpha=0.01, x=5. n = 4 cells of the last bin, scale
    s = 0.5 (3 over the edge 2.5), t = 1.5: the tail costs log(5 s / w) + t / s over the end bin."""
    fam, st, prior, post = _fitted()
    expected = np.log(5 * 0.5) + 1.5 / 0.5
    rng = np.random.default_rng(0)
    points = [(prior, post), (prior, fam.gen_point(prior, post, rng)),
              (prior, fam.posterior_from_params(fam.point_params(post)))]  # an MCMC draw's point
    for tiles in (10, 50):
        idx = np.zeros(tiles, dtype=int)
        tp, tq = take_contexts(prior, idx), take_contexts(post, idx)
        points += [(tp, tq), (tp, fam.gen_point(tp, tq, rng))]
    for pr, pt in points:
        np.testing.assert_allclose(_gaps(fam, st, pr, pt), [-expected, -expected], rtol=1e-12)


def test_feature_log_contributions_add_up_beyond_the_range():
    """``score_samples = C.sum(1) + class_term`` holds for values beyond the range: the generative cell
    likelihood charges the same tail as the score."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"count": rng.poisson(3, 200).astype(float), "x": rng.normal(size=200)})
    y = rng.integers(0, 2, 200)
    model = NaiveBayes(features={("count",): Histogram(), ("x",): Histogram()}).fit(X, y)
    T = X.iloc[:5].assign(count=X["count"].max() + 3, x=X["x"].min() - 1)
    C, term = model.feature_log_contributions(T, return_class_term=True)
    np.testing.assert_allclose(np.asarray(C).sum(axis=1) + term, model.score_samples(T), rtol=1e-10)


def _beyond(X):
    """Three whole numbers beyond the range of ``X`` (above it: a count column takes no negative) and one inside."""
    return np.array([[X.max() + 1.0], [X.max() + 2.0], [X.max() + 6.0], [X.min()]])


def test_partial_fit_equals_fit_beyond_the_range():
    """Batches after the first add their end-bin cells to ``n`` (the first batch holds every value, so
    the bins are the same)."""
    rng = np.random.default_rng(2)
    X = rng.integers(0, 6, (120, 1)).astype(float)
    X[:6, 0] = np.arange(6)
    y = rng.integers(0, 2, 120)
    whole = NaiveBayes(features={(0,): Histogram()}).fit(X, y)
    parts = NaiveBayes(features={(0,): Histogram()})
    for s in range(0, 120, 30):
        parts.partial_fit(X[s:s + 30], y[s:s + 30], classes=[0, 1])
    T = _beyond(X)
    np.testing.assert_allclose(parts.score_samples(T), whole.score_samples(T), rtol=1e-10)
    np.testing.assert_allclose(parts.feature_log_contributions(T), whole.feature_log_contributions(T), rtol=1e-10)


def test_weights_equal_repeated_rows_in_every_path():
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(40, 1)) * 3)
    sw = rng.integers(0, 4, 40)
    y = rng.integers(0, 2, 40)
    weighted = NaiveBayes(features={(0,): Histogram()}).fit(X, y, sample_weight=sw)
    repeated = NaiveBayes(features={(0,): Histogram()}).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    T = _beyond(X[sw > 0])
    np.testing.assert_allclose(weighted.feature_log_contributions(T), repeated.feature_log_contributions(T))
    np.testing.assert_allclose(weighted.score_samples(T), repeated.score_samples(T))


def _strip_pooled(meta):
    """A model file as written before ``BinDirichlets.pooled`` existed: its BinDirichlets with two fields."""
    def walk(node):
        if isinstance(node, dict):
            if node.get("__nt__") == "BinDirichlets":
                assert len(node["fields"]) == 3
                node["fields"] = node["fields"][:2]
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(meta)


def test_save_load_round_trip_and_old_files(tmp_path):
    rng = np.random.default_rng(4)
    X = rng.integers(0, 5, (80, 1)).astype(float)
    y = rng.integers(0, 2, 80)
    sw = rng.uniform(0.5, 3.0, 80)
    model = NaiveBayes(features={(0,): Histogram()}).fit(X, y, sample_weight=sw)
    path = tmp_path / "m.bnb"
    model.save(path)
    back = bayesnb.load(path)
    T = _beyond(X)
    np.testing.assert_array_equal(back.score_samples(T), model.score_samples(T))
    for a, b in zip(back.posterior_.blocks[0].prior.pooled, model.posterior_.blocks[0].prior.pooled):
        np.testing.assert_array_equal(a, b)
    # a file without the field loads; its tails fall back to the cells the bins were made from (unweighted)
    with np.load(path, allow_pickle=False) as npz:
        meta = json.loads(bytes(npz["__meta__"]).decode())
        arrays = {k: npz[k] for k in npz.files if k != "__meta__"}
    _strip_pooled(meta)
    with open(path, "wb") as f:
        np.savez(f, __meta__=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
    old = bayesnb.load(path)
    assert old.posterior_.blocks[0].prior.pooled is None
    np.testing.assert_allclose(old.score_samples(T[3:]), model.score_samples(T[3:]))
    stripped = bayesnb.load(tmp_path / "m.bnb")
    blocks = tuple(b._replace(prior=b.prior._replace(pooled=None), posterior=b.posterior._replace(pooled=None))
                   for b in model.posterior_.blocks)
    stripped.posterior_ = model.posterior_._replace(blocks=blocks)
    np.testing.assert_allclose(old.score_samples(T[:3]), stripped.score_samples(T[:3]))
    assert np.all(old.score_samples(T[:3]) != model.score_samples(T[:3]))  # weighted n, unlike the file's cells


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_structure_draws_keep_the_tail_share(structure):
    """A structure's drawn models (contexts repeated over draws) score a value beyond the range with
    the posterior's share: the tail term ``log p(x) - log p(end value)`` of a node is the same."""
    from bayesnb.structure.exact_impute import drawn_models

    rng = np.random.default_rng(5)
    a = np.concatenate([rng.integers(0, 4, 100), rng.integers(20, 24, 50)]).astype(float)  # two humps
    X = pd.DataFrame({"a": a, "b": rng.normal(size=150)})
    y = rng.integers(0, 2, 150)
    model = NaiveBayes(structure=structure).fit(X, y)
    sm = model._mixed
    j = [isinstance(nd.family, Histogram) for nd in sm.nodes].index(True)  # "a": no one-hump family fits
    nd = sm.nodes[j]
    block, _ = nd.family.encode(np.array([[26.0], [23.0]]), nd.state)
    ref = nd.family.log_likelihood(sm.priors[j], sm.posteriors[j], block, "mean")
    for n_draws in (1, 20):
        dm = drawn_models(sm, n_draws, np.random.default_rng(0))
        ll = nd.family.log_likelihood(dm.priors[j], dm.posteriors[j], block, "mean")
        np.testing.assert_allclose(ll[0] - ll[1], np.tile(ref[0] - ref[1], n_draws), rtol=1e-10)
