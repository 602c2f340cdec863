"""run_mcmc with unlabelled rows on a structure: NUTS against the exact posterior, a finite mixture
of conjugate posteriors over every labelling of the unlabelled rows (tiny TAN)."""

import itertools

import numpy as np
import pytest
from scipy.special import gammaln, logsumexp

import bayesnb
from bayesnb.inference.numpyro_model import estimator_inputs


def _table(seed=0, n=16, unlabelled=5):  # 11 labelled rows: enough for the edge's Bayes factor
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = (rng.random(n) < np.where(y == 1, 0.8, 0.2)).astype(int)
    b = np.where(rng.random(n) < 0.8, a, 1 - a)
    ys = y.astype(object)
    ys[:unlabelled] = None
    return np.column_stack([a, b]), ys


def _dirmult(counts, alpha):
    """log Dirichlet-multinomial evidence of counts (..., V) under a symmetric Dirichlet(alpha)."""
    V = counts.shape[-1]
    return float(np.sum(gammaln(V * alpha) - gammaln(counts.sum(-1) + V * alpha))
                 + np.sum(gammaln(counts + alpha) - gammaln(alpha)))


def _exact_moments(X, ys, parents, alpha=1.0, class_alpha=1.0):
    """``{variable: (mean, sd)}`` of pi and theta_x<j> by enumerating the labellings of the unlabelled rows.

    Each labelling ``L`` gives a conjugate (Dirichlet) posterior, weighted by its evidence
    ``p(y_lab, L, X)`` (class and feature Dirichlet-multinomials); the posterior is their mixture.
    """
    unl = np.flatnonzero([v is None for v in ys])
    logw, moments = [], []
    for L in itertools.product(range(2), repeat=unl.size):
        y = np.array([0 if v is None else v for v in ys], dtype=int)
        y[unl] = L
        counts = {"pi": np.bincount(y, minlength=2).astype(float)}
        ev = _dirmult(counts["pi"], class_alpha)
        for j, pa in enumerate(parents):  # (class, [parent state,] value) counts
            c = np.zeros((2,) + (2,) * len(pa) + (2,))
            np.add.at(c, (y, *(X[:, p] for p in pa), X[:, j]), 1.0)
            counts[f"theta_x{j}"] = c
            ev += _dirmult(c, alpha)
        logw.append(ev)
        one = {}
        for v, c in counts.items():
            a = c + (class_alpha if v == "pi" else alpha)
            s = a.sum(-1, keepdims=True)
            one[v] = (a / s, a * (s - a) / (s * s * (s + 1)))  # Dirichlet mean, variance
        moments.append(one)
    w = np.exp(np.array(logw) - logsumexp(logw))
    out = {}
    for v in moments[0]:
        mean = sum(wi * m[v][0] for wi, m in zip(w, moments))
        second = sum(wi * (m[v][1] + m[v][0] ** 2) for wi, m in zip(w, moments))
        out[v] = (mean, np.sqrt(second - mean ** 2))
    return out


#: The verdict's family-wise false-alarm level is 5%, so any one seed may false-alarm. Since binary
#: columns are sampled on stick-breaking logits, seed 0 does (|z| 3.9 against a limit of 3.12 at
#: 1,500 draws; it agrees at 4,000): 1 of seeds 0-17 at 1,500 draws, as the level says
#: (benchmarks/nuts_unlabelled_seeds.py --seeds 18).
SEED = 1


@pytest.mark.slow  # compiles a NUTS sampler with an unlabelled-rows factor
def test_nuts_with_unlabelled_rows_equals_the_mixture_over_labellings_on_a_tiny_tan():
    X, ys = _table()
    lab = np.array([v is not None for v in ys])
    m = bayesnb.CategoricalNB(structure="tan").fit(X[lab], ys[lab].astype(int))
    names = ["x0", "x1"]
    parents = [tuple(names.index(p) for p in m.structure_[nm]) for nm in names]
    assert any(parents)
    mcmc = m.run_mcmc(X, ys, num_warmup=400, num_samples=1500, random_state=SEED)
    assert int(mcmc["sample_stats"]["diverging"].values.sum()) == 0
    exact = _exact_moments(X, ys, parents)
    assert set(mcmc["posterior"].data_vars) == set(exact)
    table = bayesnb.compare_posteriors(exact, mcmc, verbose=False, rhat_threshold=1.1)
    assert table.attrs["ok"], table.attrs["verdict"]
    # an estimator not fitted yet is first fitted on the labelled rows: the same model, the same draws (the
    # first 300: a chain's draws do not depend on how many follow them, tests/test_nuts_loop.py)
    fresh = bayesnb.CategoricalNB(structure="tan")
    again = fresh.run_mcmc(X, ys, num_warmup=400, num_samples=300, random_state=SEED)
    assert fresh.structure_ == m.structure_
    np.testing.assert_allclose(again["posterior"]["theta_x1"].values, mcmc["posterior"]["theta_x1"].values[:, :300])
    # negative control: the posterior of the labelled rows alone (the unlabelled rows left out)
    labelled_only = _exact_moments(X[lab], ys[lab], parents)
    bad = bayesnb.compare_posteriors(labelled_only, mcmc, verbose=False, rhat_threshold=1.1)
    assert not bad.attrs["ok"]


def _unlabelled_factor(m, X):
    """The NumPyro model's unlabelled-rows factor of ``m`` (every row of ``X`` unlabelled) at the
    posterior plug-in of every node, and the same rows' ``log p(x)`` from the exact engine there."""
    from bayesnb.structure import infer as SI
    from bayesnb.structure import engine as MX
    from bayesnb.inference.numpyro_model import _log_probs, point_sites, structure_inputs

    post, model = m.posterior_, m._mixed
    data = MX.node_data(model.nodes, m._encode_blocks(m._check_X(X, reset=False), post)[0])
    spec, priors, nuts = structure_inputs(post, model, data, np.full(len(X), -1))
    assert set(nuts) == {"unlabelled"}
    sites = point_sites(post, spec, priors, [(nd.family, pr, p) for nd, pr, p in
                                             zip(model.nodes, model.priors, model.posteriors)])
    # the observed sites' log-probabilities, in one jitted program (op by op: some hundred small ones)
    factor = np.asarray(_log_probs(spec, priors, nuts, sites)["x_unlabelled"], dtype=float)
    exact = logsumexp(SI.log_likelihood(model, data) + post.class_log_prior, axis=1)
    return factor, exact


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_the_unlabelled_factor_is_the_exact_engines_row_likelihood(structure):
    """Per unlabelled row, the NumPyro factor (each node's family row log-likelihood at the row's
    context under every class, log-sum-exp'ed with log pi) equals ``log p(x)`` of the exact engine at the
    same parameters, for categorical and numeric nodes (penguins: Categorical, LogNormal, Gaussian...)."""
    from bayesnb.datasets import load_penguins

    d = load_penguins()
    X = d[["island", "sex", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]].dropna()
    y = d.loc[X.index, "species"]
    m = bayesnb.NaiveBayes(structure=structure).fit(X, y)
    assert any(m.structure_.values())
    factor, exact = _unlabelled_factor(m, X.iloc[:40])
    assert factor.shape == (40,)
    np.testing.assert_allclose(factor, exact, rtol=2e-5, atol=1e-4)


def test_run_mcmc_reads_missing_labels_as_unlabelled_rows():
    X, ys = _table(1, n=20, unlabelled=6)
    lab = np.array([v is not None for v in ys])
    m = bayesnb.CategoricalNB(structure="tan").fit(X[lab], ys[lab].astype(int))
    assert any(m.structure_.values())
    _, _, data = estimator_inputs(m, X, ys, likelihood="rows")  # what run_mcmc samples, one factor per row
    np.testing.assert_array_equal(data["y"], ys[lab].astype(int))
    (child,) = [j for j, b in enumerate(estimator_inputs(m, X, ys)[0].blocks) if b.parent_states]
    np.testing.assert_array_equal(data["unlabelled"][child]["u"], X[~lab, 1 - child])  # the parent's value
    _, _, data = estimator_inputs(m, X, None)  # y=None: every row unlabelled
    assert set(data) == {"unlabelled"} and len(data["unlabelled"][child]["u"]) == len(X)
    with pytest.raises(ValueError, match="not in classes_"):
        estimator_inputs(m, X, np.where(lab, 7, None))
    with pytest.raises(ValueError, match="labelled rows"):
        bayesnb.CategoricalNB(structure="tan").run_mcmc(X, [None] * len(X))
