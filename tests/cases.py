"""The one table of estimator cases that the tests run over, and the data they share.

Each row of :data:`CASES` is a :class:`Case`: an estimator setting, a factory of training
data with values suited to its family, and flags that tests filter on (``select``). A new
estimator or setting is covered by every all-estimator test by adding one row here.

Also here: the data generators behind the rows (``random_data``, ``mixed_frame``), the small
numeric arrays of the per-estimator input checks (``COUNTS``, ``BINARY``, ``REAL``, ``CODES``,
``Y``), ``two_gaussians``, the House Votes loader (``load_votes``; the ``votes`` fixture of conftest.py) and
``with_missing``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from bayesnb import (Bernoulli, BernoulliNB, Categorical, CategoricalNB, ComplementNB, Gaussian, GaussianNB,
                     Multinomial, MultinomialNB, NaiveBayes)

NIG = {"mu0": 0.5, "kappa0": 0.7, "a0": 2.5, "b0": 1.8}  # a proper Normal-Inverse-Gamma prior


# ================================================================================ data factories
def random_data(family, n=60, d=4, K=3, seed=1):
    """(X, y): ``n`` rows of ``d`` features of one family whose distribution depends on the class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    if family == "multinomial":
        X = rng.poisson(1.0 + y[:, None] * np.arange(1, d + 1) / d, size=(n, d)).astype(float)
    elif family == "bernoulli":
        X = (rng.random((n, d)) < 0.2 + 0.2 * y[:, None] * np.linspace(0, 1, d)).astype(float)
    elif family == "categorical":
        cats = np.array(["lo", "mid", "hi", "top"], dtype=object)
        X = cats[(rng.integers(0, 3, (n, d)) + (y[:, None] > 0)) % 4]
    else:
        X = rng.normal(y[:, None] * np.arange(1, d + 1) / 2, 1.0 + 0.5 * y[:, None], size=(n, d))
    return X, y


def mixed_frame(n=40, seed=0, missing=0.0):
    """A table mixing every family: dish (categorical), words (counts), flags (0/1), sleep (real)."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["ham", "spam", "eggs"], size=n)
    shift = (y == "spam") * 1.5 - (y == "eggs") * 0.7
    df = pd.DataFrame({
        "dish": np.array(["pizza", "sushi", "tacos", "curry"])[
            (rng.integers(0, 3, n) + (y == "spam") + 2 * (y == "eggs")) % 4],
        "w1": rng.poisson(1 + (y == "spam") * 2), "w2": rng.poisson(2, size=n),
        "w3": rng.poisson(1 + (y == "ham")),
        "f1": rng.integers(0, 2, n), "f2": (rng.random(n) < 0.3 + 0.4 * (y == "eggs")).astype(int),
        "sleep": rng.normal(7 + shift, 1.0), "age": rng.normal(40, 10, n),
    })
    df[["w1", "w2", "w3", "f1", "f2"]] = df[["w1", "w2", "w3", "f1", "f2"]].astype(float)
    if missing:
        df = df.astype(object)
        mask = rng.random(df.shape) < missing
        df = df.mask(mask, None)
        for c in ["w1", "w2", "w3", "f1", "f2", "sleep", "age"]:
            df[c] = df[c].astype(float)
    return df, y


def auto_frame(n=400, seed=8):
    """A table for ``NaiveBayes()`` (``features="auto"``): its numeric columns choose Gaussian, Poisson,
    Histogram and Hurdle, two Gaussian columns depend on each other (a numeric parent under a structure),
    missing cells everywhere, and ``spent`` missing in its first quarter. Returns ``X, y, sample_weight``
    (whole weights, zeros too)."""
    rng = np.random.default_rng(seed)
    y = pd.Series(rng.choice(["a", "b", "c"], n), name="group")
    k, a = (y == "a").to_numpy(), rng.integers(0, 3, n)
    X = pd.DataFrame({"dish": np.array(["pasta", "rice", "soup"])[a],
                      "size": np.where(rng.random(n) < 0.8, np.array(["S", "M", "L"])[a], "XL"),
                      "sleep": rng.normal(k, 1, n).round(2),
                      "clicks": rng.poisson(2 + 2 * k),
                      "visits": rng.poisson(4, n) * (rng.random(n) < 0.5),  # zero-inflated counts
                      "spent": np.where(rng.random(n) < 0.3, 0, np.exp(rng.normal(1 + k, 1, n))).round(2),
                      "bimodal": np.where(rng.random(n) < 0.5, rng.normal(-3, 0.3, n), rng.normal(3, 0.3, n))})
    X.insert(3, "nap", (X["sleep"] + rng.normal(0, 0.3, n)).round(2))
    for c in ("nap", "dish", "sleep", "clicks", "spent", "bimodal"):
        X.loc[rng.random(n) < 0.1, c] = np.nan if c != "dish" else None
    X.loc[:n // 4, "spent"] = np.nan
    return X, y, rng.integers(0, 3, n).astype(float)


def mixed_features(gauss_prior="auto", alpha=1.0):
    """The ``features`` of :func:`mixed_frame`: one block of each family."""
    return {"dish": Categorical(alpha=alpha), ("w1", "w2", "w3"): Multinomial(alpha=alpha),
            ("f1", "f2"): Bernoulli(alpha=alpha), ("sleep", "age"): Gaussian(prior=gauss_prior)}


def _sparse(data):
    def make():
        X, y = data()
        return sp.csr_matrix(X), y
    return make


#: draws of every prior simulation (:func:`prior_draws`)
PRIOR_DRAWS = 4000


def prior_draws(spec, priors):
    """``PRIOR_DRAWS`` simulations of the model of ``spec`` with ``data=None`` (its prior), key 0.

    ``parallel=True``: vmapped, the same draws as the default ``lax.map`` without compiling a scan of
    the model. One number of draws, so that the vmapped Dirichlet sampler of ``pi`` (2 classes), and
    of ``w`` (2 classes x 3 components), is one compiled program for all the prior simulations
    (test_mcmc, test_latent_mcmc, test_structure_latent_mcmc): in this process, or through the JAX
    compile cache when it took over a second to compile. (Storing every compile of the simulation,
    ``cache_every_compile``, some 30 small eager programs written to disk, was no faster: the three
    tests in one cold process 10.9 and 14.5 s with it, 10.5 and 13.9 s without, interleaved runs.)
    """
    import jax
    from numpyro.infer import Predictive

    from bayesnb.inference.numpyro_model import make_model

    draws = Predictive(make_model(spec), num_samples=PRIOR_DRAWS, parallel=True)(jax.random.PRNGKey(0), priors)
    return {k: np.asarray(v) for k, v in draws.items()}


# Small numeric arrays (30 x 4, three string classes) for the per-estimator input checks.
_rng = np.random.default_rng(0)
COUNTS = _rng.integers(0, 5, size=(30, 4)).astype(float)
BINARY = (COUNTS > 1).astype(float)
REAL = _rng.normal(size=(30, 4))
CODES = _rng.integers(0, 3, size=(30, 4))
Y = np.array(["spam", "ham", "eggs"] * 10)
del _rng


# ==================================================================================== the table
@dataclass(frozen=True)
class Case:
    """One estimator setting with data for it.

    id : str
        The readable test id.
    make : callable
        ``make()`` is a fresh unfitted estimator.
    data : callable
        ``data()`` is a fresh ``(X, y)``: 60 rows with values of the family (a DataFrame for
        ``"mixed"``, a CSR matrix where ``sparse``).
    family : str
        ``"multinomial"``, ``"bernoulli"``, ``"categorical"``, ``"gaussian"`` or ``"mixed"``.
    sparse : bool
        ``data()`` gives a sparse matrix.
    accepts_sparse : bool
        The estimator takes sparse input (the count families).
    cellwise_missing : bool
        A missing cell in ``fit`` leaves out just that cell (not the whole row, as Multinomial
        does) and ``data()`` is a dense ndarray: statistics equal those of the observed cells.
    small : callable or None
        On one row per estimator class: ``small()`` is ``(estimator, X)`` on a 30 x 4 numeric
        ndarray with labels :data:`Y`, for the per-estimator input checks (test_validation.py).
    """

    id: str
    make: Callable
    data: Callable
    family: str
    sparse: bool = False
    accepts_sparse: bool = False
    cellwise_missing: bool = False
    small: Callable | None = None

    @property
    def cls(self):
        """The estimator class."""
        return type(self.make())

    @property
    def name(self):
        """The estimator class's name (what error messages say)."""
        return self.cls.__name__


#: every estimator setting: add a row for a new estimator or setting
CASES = [
    Case("multinomial", lambda: MultinomialNB(alpha=0.6), lambda: random_data("multinomial"), "multinomial",
         accepts_sparse=True, small=lambda: (MultinomialNB(), COUNTS)),
    Case("multinomial-sparse", lambda: MultinomialNB(alpha=0.6), _sparse(lambda: random_data("multinomial")),
         "multinomial", sparse=True, accepts_sparse=True),
    Case("complement", lambda: ComplementNB(alpha=0.6), lambda: random_data("multinomial"), "multinomial",
         accepts_sparse=True, small=lambda: (ComplementNB(), COUNTS)),
    Case("complement-norm-sparse", lambda: ComplementNB(alpha=0.6, norm=True),
         _sparse(lambda: random_data("multinomial")), "multinomial", sparse=True, accepts_sparse=True),
    Case("bernoulli", lambda: BernoulliNB(alpha=0.6), lambda: random_data("bernoulli"), "bernoulli",
         accepts_sparse=True, cellwise_missing=True, small=lambda: (BernoulliNB(binarize=None), BINARY)),
    Case("categorical", lambda: CategoricalNB(alpha=0.6), lambda: random_data("categorical"), "categorical",
         cellwise_missing=True, small=lambda: (CategoricalNB(), CODES)),
    Case("gaussian-auto", lambda: GaussianNB(), lambda: random_data("gaussian"), "gaussian",
         cellwise_missing=True, small=lambda: (GaussianNB(), REAL)),
    Case("gaussian-none", lambda: GaussianNB(prior=None), lambda: random_data("gaussian"), "gaussian",
         cellwise_missing=True),
    Case("gaussian-dict", lambda: GaussianNB(prior=NIG), lambda: random_data("gaussian"), "gaussian",
         cellwise_missing=True),
    Case("mixed", lambda: NaiveBayes(features=mixed_features()), lambda: mixed_frame(n=60, seed=2), "mixed",
         small=lambda: (NaiveBayes({(0, 1): Gaussian(), 2: Categorical(), 3: Multinomial()}),
                        np.column_stack([REAL[:, :2], CODES[:, 2], COUNTS[:, 3]]))),
]

BY_ID = {c.id: c for c in CASES}

#: one row per estimator class (the rows with ``small``), in the order of CASES
PER_ESTIMATOR = [c for c in CASES if c.small is not None]


def select(*ids, **flags):
    """The rows of CASES with these ids (all when none given) whose attributes equal ``flags``.

    >>> [c.id for c in select(sparse=True)]
    ['multinomial-sparse', 'complement-norm-sparse']
    """
    rows = [BY_ID[i] for i in ids] if ids else CASES
    return [c for c in rows if all(getattr(c, k) == v for k, v in flags.items())]


def params(rows, by="id"):
    """``pytest.param`` of each case, its test id the attribute ``by`` (``"id"`` or ``"name"``)."""
    return [pytest.param(c, id=getattr(c, by)) for c in rows]


# ====================================================================================== shared
def load_votes(missing=True, codes=None):
    """House Votes 1984 as ``(X, y)``: X the 16 votes (a DataFrame), y the party (object array).

    ``codes`` (a dict such as ``{"n": 0, "y": 1, "?": 2}``) maps the votes to ints and returns
    X as an int ndarray; ``missing=False`` reads "?" as a value rather than a missing cell.
    """
    from bayesnb.datasets import HOUSE_VOTES_COLUMNS, load_house_votes

    df = load_house_votes(missing=missing)
    y = df["party"].to_numpy(dtype=object)
    if codes is not None:
        return df[HOUSE_VOTES_COLUMNS].replace(codes).to_numpy(dtype=int), y
    return df.drop(columns="party"), y


def two_gaussians():
    """``(X, y)``: two classes of 60 rows of two Gaussian columns: the vectorized-chains model of
    test_mcmc_chains.py and test_nuts_loop.py (one compiled NUTS program)."""
    rng = np.random.default_rng(0)
    return np.r_[rng.normal(0, 1, (60, 2)), rng.normal(2, 1.5, (60, 2))], np.repeat([0, 1], 60)


def with_missing(X, mask, marker=np.nan):
    """A copy of X with ``marker`` in the cells where ``mask`` is True.

    A DataFrame becomes object-typed; an ndarray keeps an object dtype, otherwise becomes float.
    """
    if hasattr(X, "iloc"):
        return X.astype(object).copy().mask(mask, marker)
    out = X.astype(object if X.dtype == object else float).copy()
    out[mask] = marker
    return out


def check_structured_mcmc_refusals(model, X, y):
    """A fitted TAN / k-DB ``model``'s ``run_mcmc`` refuses bad arguments as the naive one does, each
    with a clear error, before anything is compiled: no draws, no likelihood form, a latent-class
    model on statistics, an unknown start."""
    with pytest.raises(ValueError, match="num_samples"):
        model.run_mcmc(X, y, num_samples=0)
    with pytest.raises(ValueError, match="likelihood must be"):
        model.run_mcmc(X, y, likelihood="bogus")
    with pytest.raises(ValueError, match="likelihood='rows'"):
        model.run_mcmc(X, y, n_components=2, likelihood="suffstats")
    with pytest.raises(ValueError, match="init must be"):
        model.run_mcmc(X, y, init="kmeans")
