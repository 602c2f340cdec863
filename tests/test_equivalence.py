"""Equivalence tests: closed forms against brute force, and identities the model must keep.

Every test compares two independent routes to the same number:

1. log evidence ``log p(X, y)`` of each family (labels included) == the chain rule of
   sequential exact predictives == numerical integration of likelihood x prior
   (``scipy.integrate``: Beta / Dirichlet over the simplex / Normal-Inverse-Gamma in 2-D);
2. the exact predictive (``predictive="marginal"``) == ratio of two brute-force evidences,
   == the chain rule over tokens (Multinomial), == quadrature against the posterior;
3. integer ``sample_weight`` == duplicated rows; fractional weights scale the counts;
4. ``partial_fit`` over chunks == one ``fit``;
5. a missing cell == a model fitted and applied without that column;
6. ``log(predict_proba) == predict_log_proba``, rows sum to 1, never NaN, alpha=0 handled;
7. ``alpha="auto"`` maximises ``log_evidence_``.

The brute-force side never calls the closed-form functions it checks.
"""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import integrate

import bayesnb
from bayesnb import (AllMissingWarning, BernoulliNB, Categorical, CategoricalNB, GaussianNB, MultinomialNB,
                     NaiveBayes, ZeroProbabilityWarning)
from bayesnb.inference.nb_posterior import log_evidence as posterior_log_evidence
from cases import CASES, NIG, mixed_features, mixed_frame, params, random_data, select, with_missing

QUAD_TOL = 1e-7  # quadrature (epsrel 1e-10..1e-12) against closed form, on the log scale
EXACT_TOL = 1e-10  # two exact routes to the same number



# =============================================================================== helpers
def assert_same(a, b, path="", rtol=EXACT_TOL, atol=EXACT_TOL):
    """Recursive equality of fitted state: arrays (numeric close / object equal), tuples, dicts."""
    if isinstance(a, dict):
        assert set(a) == set(b), f"{path}: keys {sorted(a)} != {sorted(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{path}.{k}", rtol, atol)
    elif isinstance(a, tuple) and hasattr(a, "_fields"):  # NamedTuple
        assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
        for f in a._fields:
            assert_same(getattr(a, f), getattr(b, f), f"{path}.{f}", rtol, atol)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]", rtol, atol)
    elif isinstance(a, bayesnb.families._contract.Family):
        assert a == b, f"{path}: {a!r} != {b!r}"
    elif a is None or isinstance(a, (str, bool)):
        assert a == b, f"{path}: {a!r} != {b!r}"
    elif sp.issparse(a) or sp.issparse(b):
        assert_same(a.toarray() if sp.issparse(a) else a, b.toarray() if sp.issparse(b) else b, path, rtol, atol)
    else:
        x, y = np.asarray(a), np.asarray(b)
        assert x.shape == y.shape, f"{path}: shape {x.shape} != {y.shape}"
        if x.dtype.kind in "biufc" and y.dtype.kind in "biufc":
            np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=path)
        else:
            assert np.array_equal(x.astype(object), y.astype(object)), f"{path}: {x!r} != {y!r}"


def fitted_state(est):
    """Every learned attribute (name ends in ``_``) of a fitted estimator.

    ``feature_dtypes_`` is left out: it records how the input was typed (equivalent
    inputs here differ on purpose, e.g. object vs nullable columns), not what was learned.
    """
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")
            and k != "feature_dtypes_"}


def assert_same_model(a, b, X_test, rtol=EXACT_TOL, atol=EXACT_TOL):
    """Same fitted attributes, posterior, evidence and predictions (both predictive modes)."""
    assert_same(fitted_state(a), fitted_state(b), type(a).__name__, rtol, atol)
    if a.log_evidence_ is None:
        assert b.log_evidence_ is None
    else:
        assert b.log_evidence_ == pytest.approx(a.log_evidence_, rel=rtol, abs=atol)
    for predictive in ("mean", "marginal"):
        a.set_params(predictive=predictive)
        b.set_params(predictive=predictive)
        for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba"):
            np.testing.assert_allclose(getattr(a, method)(X_test), getattr(b, method)(X_test),
                                       rtol=rtol, atol=atol, err_msg=f"{method} ({predictive})")
        np.testing.assert_array_equal(a.predict(X_test), b.predict(X_test))
    a.set_params(predictive="mean")
    b.set_params(predictive="mean")


def feature_log_lik(est, X):
    """``log p(x | y=k, D)`` without the class part: joint minus ``class_log_prior_``."""
    return est.predict_joint_log_proba(X) - est.class_log_prior_


def chain_rule(make, X, y, classes, take=lambda X, s: X[s]):
    """``sum_{i>=1} log p(x_i, y_i | rows < i)`` with the exact predictive of models fitted on prefixes."""
    classes = np.asarray(classes)
    total = 0.0
    for i in range(1, len(y)):
        est = make().set_params(predictive="marginal")
        est.partial_fit(take(X, slice(0, i)), y[:i], classes=classes)
        k = int(np.searchsorted(classes, y[i]))
        total += est.predict_joint_log_proba(take(X, slice(i, i + 1)))[0, k]
    return total


def _take_rows(X, s):
    return X.iloc[s] if hasattr(X, "iloc") else X[s]


# ---------------------------------------------------------------- brute-force integrals
def quad_beta(n1, n0, a, b):
    """``log int p^n1 (1 - p)^n0 Beta(p; a, b) dp`` by adaptive quadrature."""
    lognorm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)

    def f(p):
        return math.exp(lognorm + (a - 1 + n1) * math.log(p) + (b - 1 + n0) * math.log1p(-p))

    val, err = integrate.quad(f, 0.0, 1.0, epsabs=0.0, epsrel=1e-12, limit=200)
    assert err < 1e-9 * val
    return math.log(val)


def quad_dirichlet3(counts, alpha):
    """``log int prod_v t_v^counts_v Dirichlet(t; alpha) dt`` over the 2-simplex (dblquad)."""
    c, a = np.asarray(counts, float), np.asarray(alpha, float)
    lognorm = math.lgamma(a.sum()) - sum(math.lgamma(v) for v in a)
    e = a - 1 + c

    def f(t2, t1):
        t3 = 1.0 - t1 - t2
        if t3 <= 0.0:
            return 0.0
        return math.exp(lognorm + e[0] * math.log(t1) + e[1] * math.log(t2) + e[2] * math.log(t3))

    val, err = integrate.dblquad(f, 0.0, 1.0, 0.0, lambda t1: 1.0 - t1, epsabs=0.0, epsrel=1e-11)
    assert err < 1e-8 * val
    return math.log(val)


def quad_nig(x, mu0, kappa0, a0, b0, weight=lambda mu, s2: 1.0):
    """``log int prod_i N(x_i; mu, s2) NIG(mu, s2) weight(mu, s2) dmu ds2`` by 2-D quadrature.

    The outer variable is ``t = log s2`` (the integrand is then smooth and has
    exponential tails); the integrand is scaled by its value at a central point to
    stay in floating-point range.
    """
    x = np.asarray(x, float)
    n = x.size
    lo_x, hi_x = min(x.min(initial=mu0), mu0), max(x.max(initial=mu0), mu0)
    ss = float(((x - x.mean()) ** 2).sum()) if n else 0.0
    t_c = math.log((2 * b0 + ss + 1e-12) / (2 * a0 + n))
    log_ig = a0 * math.log(b0) - math.lgamma(a0)

    def logf(mu, t):
        s2 = math.exp(t)
        ll = -0.5 * n * math.log(2 * math.pi * s2) - float(((x - mu) ** 2).sum()) / (2 * s2)
        lmu = -0.5 * math.log(2 * math.pi * s2 / kappa0) - kappa0 * (mu - mu0) ** 2 / (2 * s2)
        ls2 = log_ig - (a0 + 1) * t - b0 / s2 + t  # InvGamma density times ds2/dt = s2
        return ll + lmu + ls2

    mu_c = (kappa0 * mu0 + x.sum()) / (kappa0 + n)
    shift = logf(mu_c, t_c)

    def f(mu, t):
        return math.exp(logf(mu, t) - shift) * weight(mu, math.exp(t))

    def mu_lo(t):
        return lo_x - 14 * math.sqrt(math.exp(t) / (kappa0 + n))

    def mu_hi(t):
        return hi_x + 14 * math.sqrt(math.exp(t) / (kappa0 + n))

    def inner(t):
        return integrate.quad(f, mu_lo(t), mu_hi(t), args=(t,), epsabs=0.0, epsrel=1e-12, limit=200)[0]

    val, err = integrate.quad(inner, t_c - 16, t_c + 16, epsabs=0.0, epsrel=1e-11, limit=200)
    assert err < 1e-8 * abs(val)
    return shift + math.log(val)


def label_evidence_quad(y, classes, class_alpha):
    """``log p(y)`` for two classes: Beta integral over the class proportion."""
    assert len(classes) == 2
    n = [int(np.sum(np.asarray(y) == c)) for c in classes]
    return quad_beta(n[0], n[1], class_alpha[0], class_alpha[1])


# ================================================================================ data
def tiny_categorical():
    X = np.array([["a", "u"], ["b", "w"], ["a", "u"], ["a", "v"], ["b", "u"], ["b", "w"], ["a", "w"],
                  ["b", "v"]], dtype=object)
    y = np.array(["no", "yes", "no", "yes", "yes", "no", "yes", "yes"])
    return X, y


def tiny_counts():
    X = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0], [0, 2, 2], [3, 0, 0], [1, 0, 2], [0, 1, 1]], dtype=float)
    y = np.array([0, 1, 0, 1, 0, 0, 1])
    return X, y


def tiny_binary():
    X = np.array([[1, 0], [1, 1], [0, 0], [1, 0], [0, 1], [0, 1], [1, 1], [0, 0]], dtype=float)
    y = np.array([0, 0, 0, 1, 1, 1, 1, 0])
    return X, y


def tiny_real():
    X = np.array([[0.3], [1.9], [-0.4], [2.6], [0.8], [3.1], [1.2]])
    y = np.array([0, 1, 0, 1, 0, 1, 1])
    return X, y


# =================================================== 1. log evidence == brute force
class TestEvidence:
    """``log_evidence_ = log p(y) + log p(X | y)`` against the chain rule and quadrature."""

    CLASS_ALPHA = np.array([1.5, 2.5])

    def test_categorical_quadrature(self):
        X, y = tiny_categorical()
        alpha = [np.array([1.5, 2.0]), np.array([1.2, 1.0, 2.5])]
        est = CategoricalNB(alpha=alpha, class_alpha=self.CLASS_ALPHA).fit(X, y)
        expected = label_evidence_quad(y, ["no", "yes"], self.CLASS_ALPHA)
        for k in ("no", "yes"):
            f0, f1 = X[y == k, 0], X[y == k, 1]
            expected += quad_beta(np.sum(f0 == "a"), np.sum(f0 == "b"), *alpha[0])
            expected += quad_dirichlet3([np.sum(f1 == v) for v in "uvw"], alpha[1])
        assert est.log_evidence_ == pytest.approx(expected, rel=0, abs=QUAD_TOL)

    def test_categorical_chain_rule(self):
        X, y = tiny_categorical()
        cats = [["a", "b"], ["u", "v", "w"]]

        def make():
            return CategoricalNB(alpha=0.5, categories=cats, class_alpha=self.CLASS_ALPHA)

        full = make().fit(X, y).log_evidence_
        first = make().partial_fit(X[:1], y[:1], classes=["no", "yes"]).log_evidence_
        # the first row's evidence by hand: p(y_1) p(x_1 | y_1) under the prior
        assert first == pytest.approx(math.log(1.5 / 4.0) + math.log(0.5 / 1.0) + math.log(0.5 / 1.5), abs=1e-12)
        assert full - first == pytest.approx(chain_rule(make, X, y, ["no", "yes"]), abs=EXACT_TOL)

    def test_bernoulli_quadrature_and_chain_rule(self):
        X, y = tiny_binary()
        est = BernoulliNB(alpha=1.7, binarize=None, class_alpha=self.CLASS_ALPHA).fit(X, y)
        expected = label_evidence_quad(y, [0, 1], self.CLASS_ALPHA)
        for k in (0, 1):
            for j in range(X.shape[1]):
                col = X[y == k, j]
                expected += quad_beta(col.sum(), (1 - col).sum(), 1.7, 1.7)
        assert est.log_evidence_ == pytest.approx(expected, rel=0, abs=QUAD_TOL)

        def make():
            return BernoulliNB(alpha=1.7, binarize=None, class_alpha=self.CLASS_ALPHA)

        first = make().partial_fit(X[:1], y[:1], classes=[0, 1]).log_evidence_
        assert first == pytest.approx(math.log(1.5 / 4.0) + 2 * math.log(0.5), abs=1e-12)
        assert est.log_evidence_ - first == pytest.approx(chain_rule(make, X, y, [0, 1]), abs=EXACT_TOL)

    def test_multinomial_quadrature_and_chain_rule(self):
        X, y = tiny_counts()
        alpha = np.array([1.3, 2.0, 1.1])
        est = MultinomialNB(alpha=alpha, class_alpha=self.CLASS_ALPHA).fit(X, y)
        expected = label_evidence_quad(y, [0, 1], self.CLASS_ALPHA)
        for k in (0, 1):
            # the token-sequence likelihood prod_j theta_j^{n_kj} (no multinomial coefficient)
            expected += quad_dirichlet3(X[y == k].sum(0), alpha)
        assert est.log_evidence_ == pytest.approx(expected, rel=0, abs=QUAD_TOL)

        def make():
            return MultinomialNB(alpha=alpha, class_alpha=self.CLASS_ALPHA)

        first = make().partial_fit(X[:1], y[:1], classes=[0, 1]).log_evidence_
        assert est.log_evidence_ - first == pytest.approx(chain_rule(make, X, y, [0, 1]), abs=EXACT_TOL)
        # and the same through sparse input
        sparse = make().fit(sp.csr_matrix(X), y).log_evidence_
        assert sparse == pytest.approx(est.log_evidence_, abs=EXACT_TOL)

    def test_gaussian_quadrature(self):
        X, y = tiny_real()
        est = GaussianNB(prior=NIG, class_alpha=self.CLASS_ALPHA).fit(X, y)
        expected = label_evidence_quad(y, [0, 1], self.CLASS_ALPHA)
        for k in (0, 1):
            expected += quad_nig(X[y == k, 0], NIG["mu0"], NIG["kappa0"], NIG["a0"], NIG["b0"])
        assert est.log_evidence_ == pytest.approx(expected, rel=0, abs=QUAD_TOL)

    def test_gaussian_chain_rule_student_t(self):
        rng = np.random.default_rng(3)
        X = rng.normal(1.0, 2.0, size=(12, 2))
        y = rng.integers(0, 2, 12)
        prior = {"mu0": np.array([0.0, 1.0]), "kappa0": 0.3, "a0": np.array([1.5, 3.0]), "b0": 2.0}

        def make():
            return GaussianNB(prior=prior, class_alpha=self.CLASS_ALPHA)

        full = make().fit(X, y).log_evidence_
        first = make().partial_fit(X[:1], y[:1], classes=[0, 1]).log_evidence_
        assert full - first == pytest.approx(chain_rule(make, X, y, [0, 1]), abs=1e-9)

    def test_mixed_chain_rule(self):
        """The whole plate model: labels + four families, every block through one chain."""
        df, y = mixed_frame(n=18, seed=4)
        feats = mixed_features(gauss_prior={"mu0": 5.0, "kappa0": 0.5, "a0": 2.0, "b0": 3.0}, alpha=0.8)
        feats["dish"] = Categorical(alpha=0.8, categories=["pizza", "sushi", "tacos", "curry"])

        def make():
            return NaiveBayes(features=copy.deepcopy(feats), class_alpha=0.6)

        classes = np.unique(y)
        full = make().fit(df, y)
        first = make().partial_fit(df.iloc[:1], y[:1], classes=classes).log_evidence_
        chain = chain_rule(make, df, y, classes, take=_take_rows)
        assert full.log_evidence_ - first == pytest.approx(chain, abs=1e-9)
        # the parts add up to the total
        total, parts = posterior_log_evidence(full.posterior_, by_block=True)
        assert total == pytest.approx(full.log_evidence_, abs=1e-12)
        assert sum(parts.values()) == pytest.approx(total, abs=1e-12)

    def test_improper_prior_has_no_evidence(self):
        X, y = tiny_counts()
        assert MultinomialNB(alpha=0).fit(X, y).log_evidence_ is None
        assert GaussianNB(prior=None).fit(*tiny_real()).log_evidence_ is None


# ============================================== 2. exact predictive == brute force
class TestExactPredictive:
    def test_multinomial_polya_quadrature_and_token_chain(self):
        X, y = tiny_counts()
        alpha = np.array([1.3, 2.0, 1.1])
        est = MultinomialNB(alpha=alpha, predictive="marginal").fit(X, y)
        rows = np.array([[2.0, 0.0, 1.0], [0.0, 0.0, 3.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
        got = feature_log_lik(est, rows)
        for k in (0, 1):
            counts = X[y == k].sum(0)
            base = quad_dirichlet3(counts, alpha)
            for r, row in enumerate(rows):
                # p(x | D) = Z(D + x) / Z(D), both integrals over the *prior*
                brute = quad_dirichlet3(counts + row, alpha) - base
                assert got[r, k] == pytest.approx(brute, abs=QUAD_TOL)
        # chain rule over the tokens of the row: one token at a time, each added to class k
        row = rows[0]
        tokens = np.repeat(np.arange(3), row.astype(int))
        for k in (0, 1):
            Xa, ya, total = X.copy(), y.copy(), 0.0
            for t in tokens:
                one = np.zeros((1, 3))
                one[0, t] = 1
                m = MultinomialNB(alpha=alpha).fit(Xa, ya)  # one token: plug-in == exact
                total += feature_log_lik(m, one)[0, k]
                Xa, ya = np.vstack([Xa, one]), np.append(ya, k)
            assert got[0, k] == pytest.approx(total, abs=EXACT_TOL)
        # the test can fail: for repeated tokens the plug-in differs from the exact predictive
        plug = feature_log_lik(est.set_params(predictive="mean"), rows)
        assert np.abs(plug[:3] - got[:3]).max() > 1e-2
        # sparse input gives the same exact predictive
        est.set_params(predictive="marginal")
        np.testing.assert_allclose(feature_log_lik(est, sp.csr_matrix(rows)), got, atol=EXACT_TOL)
        np.testing.assert_allclose(feature_log_lik(est, sp.csc_matrix(rows)), got, atol=EXACT_TOL)

    def test_gaussian_student_t_quadrature(self):
        X, y = tiny_real()
        est = GaussianNB(prior=NIG, predictive="marginal").fit(X, y)
        pts = np.array([[-1.0], [0.5], [2.2], [6.0]])
        got = feature_log_lik(est, pts)
        for k in (0, 1):
            data = X[y == k, 0]
            base = quad_nig(data, **_nig_args())
            for r, x in enumerate(pts[:, 0]):
                brute = quad_nig(np.append(data, x), **_nig_args()) - base
                assert got[r, k] == pytest.approx(brute, abs=QUAD_TOL)
        plug = feature_log_lik(est.set_params(predictive="mean"), pts)
        assert np.abs(plug - got).max() > 1e-2  # Normal plug-in != Student-t: the test can fail

    def test_gaussian_plug_in_is_posterior_mean_of_natural_parameters(self):
        """theta_ = E[mu/s2] / E[1/s2] and var_ = 1 / E[1/s2] under the posterior (quadrature)."""
        X, y = tiny_real()
        est = GaussianNB(prior=NIG).fit(X, y)
        data = X[y == 1, 0]
        z = quad_nig(data, **_nig_args())
        e_prec = math.exp(quad_nig(data, **_nig_args(), weight=lambda mu, s2: 1.0 / s2) - z)
        e_mu_prec = math.exp(quad_nig(data, **_nig_args(), weight=lambda mu, s2: (mu + 10.0) / s2) - z) - 10 * e_prec
        assert est.var_[1, 0] == pytest.approx(1.0 / e_prec, rel=1e-7)
        assert est.theta_[1, 0] == pytest.approx(e_mu_prec / e_prec, rel=1e-7)

    @pytest.mark.parametrize("make, data", [
        (lambda: CategoricalNB(alpha=0.7), tiny_categorical),
        (lambda: BernoulliNB(alpha=0.7, binarize=None), tiny_binary),
    ])
    def test_one_draw_families_exact_equals_plug_in(self, make, data):
        """For one categorical/Bernoulli draw the exact predictive is the posterior mean."""
        X, y = data()
        a = make().fit(X, y)
        b = make().set_params(predictive="marginal").fit(X, y)
        np.testing.assert_allclose(a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), atol=1e-13)


def _nig_args():
    return {"mu0": NIG["mu0"], "kappa0": NIG["kappa0"], "a0": NIG["a0"], "b0": NIG["b0"]}


# ========================================== 3. sample_weight == duplicated rows
def _repeat(X, reps):
    if hasattr(X, "iloc"):
        return X.iloc[np.repeat(np.arange(len(X)), reps)].reset_index(drop=True)
    if sp.issparse(X):
        return X[np.repeat(np.arange(X.shape[0]), reps)]
    return np.repeat(X, reps, axis=0)


def _rows(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


class TestSampleWeight:
    @pytest.mark.parametrize("case", params(CASES))
    def test_integer_weights_equal_duplicated_rows(self, case):
        X, y = case.data()
        w = np.random.default_rng(5).integers(1, 4, size=len(y))
        weighted = case.make().fit(X, y, sample_weight=w)
        duplicated = case.make().fit(_repeat(X, w), np.repeat(y, w))
        assert_same_model(weighted, duplicated, X, rtol=1e-9, atol=1e-9)
        if case.id == "gaussian-dict":  # and the test can fail: unit weights are another model
            assert case.make().fit(X, y).log_evidence_ != pytest.approx(weighted.log_evidence_, abs=1e-3)

    @pytest.mark.parametrize("case", params(CASES))
    def test_zero_weight_equals_dropped_row(self, case):
        X, y = case.data()
        w = np.ones(len(y))
        w[[3, 10]] = 0.0  # rows whose values and classes also occur elsewhere
        keep = w > 0
        weighted = case.make().fit(X, y, sample_weight=w)
        dropped = case.make().fit(_rows(X, np.flatnonzero(keep)), y[keep])
        assert_same_model(weighted, dropped, X, rtol=1e-9, atol=1e-9)

    @pytest.mark.parametrize("case", params(CASES))
    def test_fractional_weights_scale_counts(self, case):
        X, y = case.data()
        c = 0.37
        base = case.make().fit(X, y)
        scaled = case.make().fit(X, y, sample_weight=np.full(len(y), c))
        np.testing.assert_allclose(scaled.class_count_, c * base.class_count_, rtol=1e-12)
        for b0, b1 in zip(base.posterior_.blocks, scaled.posterior_.blocks):
            for field in b0.stats._fields:
                s0, s1 = getattr(b0.stats, field), getattr(b1.stats, field)
                if s0 is None or s1 is None:  # an optional field (Multinomial pending rows)
                    assert s0 is None and s1 is None, field
                    continue
                factor = 1.0 if field == "mean" else c  # Gaussian mean is a weighted average
                if isinstance(s0, tuple):
                    for u, v in zip(s0, s1):
                        np.testing.assert_allclose(v, factor * u, rtol=1e-10, atol=1e-12)
                else:
                    np.testing.assert_allclose(s1, factor * s0, rtol=1e-10, atol=1e-12)

    def test_fractional_weights_by_hand(self):
        X, y = random_data("multinomial")
        w = np.random.default_rng(6).random(len(y)) * 3
        est = MultinomialNB(alpha=0.5).fit(X, y, sample_weight=w)
        onehot = (y[:, None] == est.classes_[None, :]).astype(float)
        np.testing.assert_allclose(est.feature_count_, onehot.T @ (w[:, None] * X), rtol=1e-12)
        np.testing.assert_allclose(est.class_count_, onehot.T @ w, rtol=1e-12)
        Xg, yg = random_data("gaussian")
        g = GaussianNB(prior=None).fit(Xg, yg, sample_weight=w)
        for k in range(3):
            wk = w[yg == k]
            mean = (wk[:, None] * Xg[yg == k]).sum(0) / wk.sum()
            var = (wk[:, None] * (Xg[yg == k] - mean) ** 2).sum(0) / wk.sum()
            np.testing.assert_allclose(g.theta_[k], mean, rtol=1e-12)
            np.testing.assert_allclose(g.var_[k], var, rtol=1e-10)


# ========================================================= 4. partial_fit == fit
CHUNKS = [0, 7, 8, 25, 41, 60]


def _partial(make, X, y, classes, chunks=CHUNKS):
    est = make()
    for lo, hi in zip(chunks[:-1], chunks[1:]):
        est.partial_fit(_rows(X, slice(lo, hi)), y[lo:hi], classes=classes)
    return est


class TestPartialFit:
    @pytest.mark.parametrize("case", params(CASES))
    def test_chunks_equal_one_fit(self, case):
        X, y = case.data()
        assert len(y) == CHUNKS[-1]
        one = case.make().fit(X, y)
        chunked = _partial(case.make, X, y, np.unique(y))
        # Gaussian statistics are merged with Chan's update: equal to rounding
        assert_same_model(one, chunked, X, rtol=1e-10, atol=1e-10)

    def test_categorical_new_categories_in_later_chunks(self):
        X, y = random_data("categorical", n=60)
        order = np.argsort(X[:, 0] == "top", kind="stable")  # "top" only in the last chunk
        X, y = X[order], y[order]
        X[:20, 1] = np.where(X[:20, 1] == "lo", "mid", X[:20, 1])  # "lo" of column 1 arrives late
        one = CategoricalNB(alpha=0.6).fit(X, y)
        chunked = _partial(lambda: CategoricalNB(alpha=0.6), X, y, np.unique(y))
        assert "top" not in set(X[:41, 0]) and "top" in set(X[41:, 0])
        assert_same_model(one, chunked, X)

    def test_categorical_single_partial_fit_equals_fit(self):
        """One partial_fit call on all the data equals fit."""
        X, y = random_data("categorical")
        one = CategoricalNB(alpha=0.6).fit(X, y)
        part = CategoricalNB(alpha=0.6).partial_fit(X, y, classes=np.unique(y))
        assert_same_model(one, part, X)

    def test_partial_fit_with_a_class_absent_from_early_chunks(self):
        X, y = random_data("multinomial")
        order = np.argsort(y == 2, kind="stable")  # class 2 only at the end
        X, y = X[order], y[order]
        for make in (lambda: MultinomialNB(alpha=0.4), lambda: GaussianNB(prior=NIG), lambda: GaussianNB()):
            one = make().fit(X, y)
            chunked = _partial(make, X, y, np.array([0, 1, 2]))
            assert_same_model(one, chunked, X, rtol=1e-10, atol=1e-10)


# ============================================================== 5. missing values
def _drop_cols(X, cols):
    if hasattr(X, "iloc"):
        return X.drop(columns=[X.columns[c] for c in cols])
    return np.delete(X, cols, axis=1)


def _reduced_factory(case):
    """Factory of the same estimator over a subset of columns (NaiveBayes: subset of features)."""
    if case.family != "mixed":
        return lambda keep: case.make()

    def make(keep):
        feats = {}
        for key, fam in mixed_features().items():
            cols = [c for c in (key if isinstance(key, tuple) else (key,)) if c in keep]
            if cols:
                feats[tuple(cols) if len(cols) > 1 else cols[0]] = fam
        return NaiveBayes(features=feats)

    return make


class TestMissing:
    @pytest.mark.parametrize("predictive", ["mean", "marginal"])
    @pytest.mark.parametrize("case", params(select(sparse=False)))
    def test_missing_at_predict_equals_model_without_the_columns(self, case, predictive):
        X, y = case.data()
        est = case.make().set_params(predictive=predictive).fit(X, y)
        rng = np.random.default_rng(7)
        T, _ = case.data()
        T = _rows(T, np.arange(12))
        d = T.shape[1]
        mask = rng.random((12, d)) < 0.3
        mask[np.arange(12), rng.integers(0, d, 12)] = True  # every row has something missing
        mask[mask.all(axis=1), 0] = False  # ... but not everything
        Tm = with_missing(T, mask)
        got = {m: getattr(est, m)(Tm) for m in ("predict_joint_log_proba", "predict_proba")}
        reduced = _reduced_factory(case)
        cache = {}
        for i in range(12):
            drop = tuple(np.flatnonzero(mask[i]))
            if drop not in cache:
                keep = [c for c in range(d) if c not in drop]
                names = list(X.columns[keep]) if hasattr(X, "iloc") else keep
                cache[drop] = reduced(names).set_params(predictive=predictive).fit(_drop_cols(X, drop), y)
            r = cache[drop]
            Ti = _drop_cols(_rows(T, [i]), drop)
            np.testing.assert_allclose(got["predict_joint_log_proba"][i], r.predict_joint_log_proba(Ti)[0],
                                       rtol=1e-10, atol=1e-10)
            np.testing.assert_allclose(got["predict_proba"][i], r.predict_proba(Ti)[0], rtol=1e-10, atol=1e-12)

    @pytest.mark.parametrize("case", params(select(cellwise_missing=True)))
    def test_missing_in_fit_equals_fit_on_the_remaining_cells(self, case):
        """Per feature, the statistics/posterior/evidence are those of its observed cells only."""
        X, y = case.data()
        mask = np.random.default_rng(8).random(X.shape) < 0.25
        mask[:, 0] &= False  # column 0 complete
        est = case.make().fit(with_missing(X, mask), y)
        expected_evidence = 0.0
        for j in range(X.shape[1]):
            obs = ~mask[:, j]
            assert len(np.unique(y[obs])) == 3
            col = case.make().fit(X[obs][:, [j]], y[obs])
            b, bj = est.posterior_.blocks[0], col.posterior_.blocks[0]
            for field in b.stats._fields:
                s, sj = getattr(b.stats, field), getattr(bj.stats, field)
                assert_same(s[j] if isinstance(s, tuple) else s[:, j],
                            sj[0] if isinstance(sj, tuple) else sj[:, 0], f"{case.id}.{field}[{j}]")
            for field in b.posterior._fields:
                p, pj = getattr(b.posterior, field), getattr(bj.posterior, field)
                assert_same(p[j] if isinstance(p, tuple) else p[:, j],
                            pj[0] if isinstance(pj, tuple) else pj[:, 0], f"{case.id}.posterior.{field}[{j}]")
            if col.log_evidence_ is not None:
                expected_evidence += col.log_evidence_ - _label_part(col)
        if est.log_evidence_ is not None:
            assert est.log_evidence_ == pytest.approx(_label_part(est) + expected_evidence, abs=1e-9)

    def test_categorical_counts_exclude_missing_cells(self):
        X, y = tiny_categorical()
        Xm = X.copy()
        Xm[[0, 3], 0] = None
        Xm[5, 1] = np.nan
        est = CategoricalNB(alpha=1.0).fit(Xm, y)
        for j in range(2):
            for ki, k in enumerate(est.classes_):
                col = Xm[(y == k), j]
                expected = [np.sum(col == v) for v in est.categories_[j]]
                np.testing.assert_array_equal(est.category_count_[j][ki], expected)
        assert est.category_count_[0].sum() == 6 and est.category_count_[1].sum() == 7

    def test_multinomial_rows_with_missing_cells_are_left_out_of_the_counts(self):
        X, y = random_data("multinomial")
        mask = np.random.default_rng(9).random(X.shape) < 0.2
        est = MultinomialNB().fit(with_missing(X, mask), y)
        complete = ~mask.any(axis=1)
        cc = MultinomialNB().fit(X[complete], y[complete])
        np.testing.assert_allclose(est.feature_count_, cc.feature_count_)
        np.testing.assert_allclose(est.feature_log_prob_, cc.feature_log_prob_)
        np.testing.assert_allclose(est.class_count_, np.bincount(np.searchsorted(est.classes_, y)))

    def test_multinomial_missing_cells_do_not_bias_theta(self):
        """Counting the observed cells of partial rows would pull theta away from the missing column."""
        rng = np.random.default_rng(0)
        X = rng.poisson([5.0, 5.0, 5.0], size=(4000, 3)).astype(float)
        X[rng.random(4000) < 0.5, 0] = np.nan
        theta = np.exp(MultinomialNB(alpha=1.0).fit(X, np.zeros(4000, int)).feature_log_prob_[0])
        np.testing.assert_allclose(theta, [1 / 3] * 3, atol=0.01)

    @pytest.mark.parametrize("case", params(select(sparse=False)))
    def test_all_missing_column_warns_and_changes_no_prediction(self, case):
        X, y = case.data()
        j = list(X.columns).index("sleep") if case.family == "mixed" else 2
        mask = np.zeros(X.shape, dtype=bool)
        mask[:, j] = True
        with pytest.warns(AllMissingWarning):
            est = case.make().fit(with_missing(X, mask), y)
        keep = [c for c in range(X.shape[1]) if c != j]
        names = list(X.columns[keep]) if hasattr(X, "iloc") else keep
        ref = _reduced_factory(case)(names).fit(_drop_cols(X, [j]), y)
        if case.family != "multinomial":  # an unobserved feature adds log 1 to the evidence
            assert (est.log_evidence_ is None and ref.log_evidence_ is None) or \
                est.log_evidence_ == pytest.approx(ref.log_evidence_, abs=1e-10)
        T = _rows(case.data()[0], np.arange(10))
        Tm = with_missing(T, mask[:10])
        for predictive in ("mean", "marginal"):
            est.set_params(predictive=predictive)
            ref.set_params(predictive=predictive)
            expected = ref.predict_proba(_drop_cols(T, [j]))
            # rows where the column is missing too
            np.testing.assert_allclose(est.predict_proba(Tm), expected, rtol=1e-10, atol=1e-12)
            # rows where the column is observed: its posterior is the prior, equal for all classes
            np.testing.assert_allclose(est.predict_proba(T), expected, rtol=1e-10, atol=1e-12)

    def test_multinomial_all_missing_column_with_observed_test_value(self):
        """A never-observed column keeps its prior (equal for all classes): it is marginalised."""
        X, y = random_data("multinomial")
        Xm = X.copy()
        Xm[:, 2] = np.nan
        with pytest.warns(AllMissingWarning):
            est = MultinomialNB().fit(Xm, y)
        ref = MultinomialNB().fit(np.delete(X, 2, 1), y)
        np.testing.assert_allclose(est.predict_proba(X[:10]), ref.predict_proba(np.delete(X[:10], 2, 1)),
                                   rtol=1e-8)

    @pytest.mark.parametrize("marker", [None, np.nan, pd.NA], ids=["None", "nan", "pd.NA"])
    def test_missing_markers_are_equivalent_categorical(self, marker):
        X, y = random_data("categorical")
        mask = np.random.default_rng(10).random(X.shape) < 0.2
        ref = CategoricalNB().fit(with_missing(X, mask, np.nan), y)
        est = CategoricalNB().fit(with_missing(X, mask, marker), y)
        assert_same_model(ref, est, with_missing(X, mask, marker))
        frame = pd.DataFrame(with_missing(X, mask, marker), columns=list("abcd"))
        est_df = CategoricalNB().fit(frame, y)
        np.testing.assert_allclose(est_df.predict_proba(frame), ref.predict_proba(with_missing(X, mask)),
                                   atol=1e-12)

    @pytest.mark.parametrize("marker", [None, pd.NA], ids=["None", "pd.NA"])
    def test_missing_markers_are_equivalent_object_frame(self, marker):
        df, y = mixed_frame(n=40, seed=3)
        mask = np.random.default_rng(11).random(df.shape) < 0.15
        ref = NaiveBayes(features=mixed_features()).fit(with_missing(df, mask, np.nan), y)
        obj = df.astype(object).mask(mask, marker)
        est = NaiveBayes(features=mixed_features()).fit(obj, y)
        assert_same_model(ref, est, obj)

    def test_pd_na_in_nullable_dtypes(self):
        df, y = mixed_frame(n=40, seed=3)
        mask = np.random.default_rng(11).random(df.shape) < 0.15
        ref = NaiveBayes(features=mixed_features()).fit(with_missing(df, mask, np.nan), y)
        nullable = df.convert_dtypes().mask(pd.DataFrame(mask, columns=df.columns), pd.NA)
        assert isinstance(nullable["sleep"].dtype, pd.Float64Dtype) and nullable.isna().to_numpy().sum() == mask.sum()
        est = NaiveBayes(features=mixed_features()).fit(nullable, y)
        assert_same_model(ref, est, with_missing(df, mask, np.nan))
        for m in ("predict_joint_log_proba", "predict_proba"):
            np.testing.assert_allclose(getattr(est, m)(nullable), getattr(ref, m)(with_missing(df, mask, np.nan)),
                                       rtol=1e-12, atol=1e-12)

    @pytest.mark.parametrize("marker", [None, pd.NA], ids=["None", "pd.NA"])
    @pytest.mark.parametrize("case", params(select("multinomial", "bernoulli", "gaussian-auto")))
    def test_missing_markers_in_object_array_numeric(self, case, marker):
        X, y = case.data()
        mask = np.random.default_rng(12).random(X.shape) < 0.2
        ref = case.make().fit(with_missing(X, mask, np.nan), y)
        obj = X.astype(object)
        obj[mask] = marker
        assert_same_model(ref, case.make().fit(obj, y), obj)

    @pytest.mark.parametrize("case", params(CASES))
    def test_inputs_are_never_modified(self, case):
        X, y = case.data()
        if not sp.issparse(X):
            mask = np.random.default_rng(13).random(X.shape) < 0.2
            X = with_missing(X, mask)
            if not hasattr(X, "iloc") and case.id != "categorical":
                X = X.astype(float)
        w = np.linspace(0.5, 2.0, len(y))
        saved = (copy.deepcopy(X), y.copy(), w.copy())
        est = case.make().fit(X, y, sample_weight=w)
        for predictive in ("mean", "marginal"):
            est.set_params(predictive=predictive)
            est.predict_proba(X)
            est.predict(X)
            est.predict_joint_log_proba(X)
            est.score(X, y)
        half = len(y) // 2
        est2 = case.make()
        est2.partial_fit(_rows(X, slice(0, half)), y[:half], classes=np.unique(y), sample_weight=w[:half])
        _assert_unchanged(X, saved[0])
        np.testing.assert_array_equal(y, saved[1])
        np.testing.assert_array_equal(w, saved[2])


def _label_part(est):
    return posterior_log_evidence(est.posterior_, by_block=True)[1]["labels"]


def _assert_unchanged(X, saved):
    if hasattr(X, "iloc"):
        pd.testing.assert_frame_equal(X, saved)
        for c in X.columns:  # same missing markers, not just equal-looking values
            assert [type(v) for v in X[c]] == [type(v) for v in saved[c]]
    elif sp.issparse(X):
        assert X.format == saved.format and X.dtype == saved.dtype
        np.testing.assert_array_equal(X.data, saved.data)
        np.testing.assert_array_equal(X.indices, saved.indices)
        np.testing.assert_array_equal(X.indptr, saved.indptr)
    else:
        assert X.dtype == saved.dtype
        assert [type(v) for v in X.ravel()] == [type(v) for v in saved.ravel()]
        a, b = X.astype(object).ravel(), saved.astype(object).ravel()
        assert all((u is v) or (u == v) or (pd.isna(u) and pd.isna(v)) for u, v in zip(a, b))


# ================================================ 6. probabilities are consistent
class TestProbabilities:
    @pytest.mark.parametrize("predictive", ["mean", "marginal"])
    @pytest.mark.parametrize("case", params(CASES))
    def test_log_proba_consistent_and_finite(self, case, predictive):
        X, y = case.data()
        est = case.make().set_params(predictive=predictive).fit(X, y)
        T = X
        if not sp.issparse(X):
            T = with_missing(X, np.random.default_rng(14).random(X.shape) < 0.2)
            if not hasattr(T, "iloc") and case.id != "categorical":
                T = T.astype(float)
        logp = est.predict_log_proba(T)
        p = est.predict_proba(T)
        jll = est.predict_joint_log_proba(T)
        assert not np.isnan(logp).any() and not np.isnan(p).any() and not np.isnan(jll).any()
        np.testing.assert_allclose(np.exp(logp), p, rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
        # the conditional is the normalised joint
        np.testing.assert_allclose(logp, jll - np.logaddexp.reduce(jll, axis=1, keepdims=True), atol=1e-10)
        np.testing.assert_array_equal(est.predict(T), est.classes_[np.argmax(p, axis=1)])

    @pytest.mark.parametrize("predictive", ["mean", "marginal"])
    @pytest.mark.parametrize("make, X, y, T", [
        (lambda: MultinomialNB(alpha=0), np.array([[2, 0, 1, 0], [3, 0, 0, 0], [0, 1, 2, 0], [0, 0, 1, 0.]]),
         [0, 0, 1, 1], np.array([[0, 0, 0, 1], [1, 0, 1, 0], [0, 1, 1, 0.]])),
        (lambda: BernoulliNB(alpha=0), np.array([[1, 0], [1, 0], [0, 0], [0, 0.]]), [0, 0, 1, 1],
         np.array([[0, 1], [1, 0], [0, 0.]])),
        (lambda: CategoricalNB(alpha=0), np.array([["a"], ["a"], ["b"], ["b"]], dtype=object), [0, 0, 1, 1],
         np.array([["zzz"], ["a"], ["b"]], dtype=object)),
    ], ids=["multinomial", "bernoulli", "categorical"])
    def test_zero_frequency_row_warns_and_stays_finite(self, make, X, y, T, predictive):
        est = make().set_params(predictive=predictive).fit(X, y)
        with pytest.warns(ZeroProbabilityWarning):
            p = est.predict_proba(T)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ZeroProbabilityWarning)
            logp = est.predict_log_proba(T)
        assert np.isfinite(p).all() and not np.isnan(logp).any()
        np.testing.assert_allclose(p.sum(1), 1.0)
        np.testing.assert_allclose(p[0], np.exp(est.class_log_prior_))  # the dead row: class prior
        # the other rows keep their real answer (one class impossible, the other certain)
        np.testing.assert_allclose(p[1:], [[1.0, 0.0], [0.0, 1.0]], atol=1e-12)

    def test_bernoulli_alpha_zero_feature_never_present_is_not_nan(self):
        """A feature that is 0 in every training row (alpha=0): absence scores log 1, never 0 * -inf."""
        X = np.array([[1, 0], [0, 0], [1, 0], [1, 0.]])
        est = BernoulliNB(alpha=0, binarize=None).fit(X, [0, 0, 1, 1])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            jll = feature_log_lik(est, np.array([[1, 0], [0, 0.], [np.nan, 0]]))
            p = est.predict_proba(np.array([[1, 0], [0, 0.]]))
        np.testing.assert_allclose(jll, [[math.log(0.5), 0.0], [math.log(0.5), -np.inf], [0.0, 0.0]])
        np.testing.assert_allclose(p, [[1 / 3, 2 / 3], [1.0, 0.0]])

    def test_marginal_alpha_zero_is_not_nan(self):
        """Exact Dirichlet-multinomial with alpha=0: a zero count adds exactly 0 (was NaN)."""
        X = np.array([[2, 0, 1], [3, 0, 0], [0, 1, 2], [0, 2, 1.]])
        est = MultinomialNB(alpha=0, predictive="marginal").fit(X, [0, 0, 1, 1])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            jll = feature_log_lik(est, np.array([[1, 0, 0], [0, 1, 0.], [0, 0, 2.]]))
        np.testing.assert_allclose(jll[0], [math.log(5 / 6), -np.inf])
        np.testing.assert_allclose(jll[1], [-np.inf, math.log(3 / 6)])
        np.testing.assert_allclose(jll[2], [math.log(1 / 6 * 2 / 7), math.log(3 / 6 * 4 / 7)])


# ======================================================== 7. alpha="auto" == argmax
class TestAutoAlpha:
    @pytest.mark.parametrize("make, family", [
        (MultinomialNB, "multinomial"), (BernoulliNB, "bernoulli"), (CategoricalNB, "categorical"),
    ])
    def test_auto_alpha_maximises_evidence(self, make, family):
        X, y = random_data(family, n=60, d=5)
        if family == "bernoulli":
            X[:30, 1] = 0  # sparse-ish columns so that the optimum is interior
        est = make(alpha="auto").fit(X, y)
        a = _alpha_of(est)
        assert 1e-4 < a < 1e4
        best = est.log_evidence_
        assert make(alpha=a).fit(X, y).log_evidence_ == pytest.approx(best, abs=1e-12)
        for f in (1.1, 1 / 1.1, 1.01, 1 / 1.01):
            assert make(alpha=a * f).fit(X, y).log_evidence_ < best

    def test_auto_alpha_in_a_mixed_model(self):
        df, y = mixed_frame(n=60, seed=5)
        feats = mixed_features(alpha="auto")
        est = NaiveBayes(features=feats).fit(df, y)
        alphas = [float(np.ravel(b.prior[0][0] if isinstance(b.prior[0], tuple) else b.prior[0])[0])
                  for b in est.posterior_.blocks[:3]]
        best = est.log_evidence_
        for i, key in enumerate(list(feats)[:3]):
            for f in (1.1, 1 / 1.1):
                f2 = dict(feats)
                f2[key] = type(feats[key])(alpha=alphas[i] * f)
                for other, a in zip(list(feats)[:3], alphas):
                    if other != key:
                        f2[other] = type(feats[other])(alpha=a)
                assert NaiveBayes(features=f2).fit(df, y).log_evidence_ < best


def _alpha_of(est):
    if hasattr(est, "alpha_"):
        return float(np.ravel(est.alpha_)[0])
    return float(est.posterior_.blocks[0].prior.concentration[0].flat[0])
