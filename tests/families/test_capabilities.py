"""Capabilities beside the Family contract (bayesnb.families.capabilities): a family registers one by
listing it among its bases; a hook of one it lacks raises an error naming the family and the capability."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import numpy as np
import pytest

import bayesnb.families as F
from bayesnb.families import capabilities as C

FAMILIES = [F.Bernoulli(), F.Categorical(), F.Complement(), F.Gaussian(), F.Histogram(), F.Hurdle(F.LogNormal()),
            F.LogNormal(), F.Multinomial(), F.Poisson()]


def bare_family():
    """A family that writes the abstract methods of ``Family`` (as stubs) and registers no capability."""
    body = {name: (lambda self, *a, **k: None) for name in F.Family.__abstractmethods__}
    return type("Bare", (F.Family,), body)()


@pytest.mark.parametrize("fam", FAMILIES, ids=lambda f: type(f).__name__)
@pytest.mark.parametrize("capability", C.SHARED, ids=lambda c: c.__name__)
def test_every_bayesnb_family_registers_the_shared_capabilities(fam, capability):
    assert C.supports(fam, capability)
    assert type(fam).__abstractmethods__ == frozenset()


@pytest.mark.parametrize("fam", FAMILIES, ids=lambda f: type(f).__name__)
def test_the_numeric_families_are_numeric_nodes(fam):
    """A family with a finite set of values (or a joint block) is a node by its categories, not its bins."""
    numeric = type(fam).__name__ in ("Gaussian", "LogNormal", "Poisson", "Histogram", "Hurdle")
    assert C.supports(fam, C.NumericNode) == numeric
    if not numeric:
        with pytest.raises(NotImplementedError, match=f"the {type(fam).__name__} family has no numeric node"):
            fam.gen_values(None)


@pytest.mark.parametrize("capability", C.CAPABILITIES, ids=lambda c: c.__name__)
def test_a_missing_capability_names_the_family_the_capability_and_the_hook(capability):
    fam = bare_family()
    assert not C.supports(fam, capability)
    for hook in C.hooks(capability):
        assert C.capability_of(hook) is capability
        with pytest.raises(C.MissingCapability, match=rf"the Bare family has no .*{capability.__name__}.*'{hook}'"):
            getattr(fam, hook)
        assert not hasattr(fam, hook)  # an AttributeError too: hasattr and getattr(default) keep their meaning
        with pytest.raises(NotImplementedError):
            getattr(fam, hook)


def test_other_missing_names_are_plain_attribute_errors():
    fam = bare_family()
    with pytest.raises(AttributeError, match="no attribute 'no_such_hook'") as err:
        fam.no_such_hook  # noqa: B018
    assert not isinstance(err.value, C.MissingCapability)
    assert C.capability_of("no_such_hook") is None


def test_an_attribute_error_inside_a_property_is_not_masked_as_the_property_missing():
    class Typo(F.Gaussian):
        @property
        def default_fill(self):
            return self.no_such_helper  # a bug in the getter: the error must name it

    with pytest.raises(AttributeError, match="no_such_helper"):
        Typo().default_fill  # noqa: B018


def test_a_hurdle_over_a_base_without_a_capability_names_the_base():
    from typing import NamedTuple

    class S(NamedTuple):
        n: object

    base = bare_family()
    type(base).stats_type = type(base).params_type = S
    with pytest.raises(C.MissingCapability, match="the Bare family has no .*'param_names'"):
        F.Hurdle(base=base).param_names  # noqa: B018


@pytest.mark.parametrize("capability", [c for c in C.CAPABILITIES if c.__abstractmethods__], ids=lambda c: c.__name__)
def test_registering_a_capability_requires_its_abstract_hooks(capability):
    body = {name: (lambda self, *a, **k: None) for name in F.Family.__abstractmethods__}
    cls = type("HalfRegistered", (F.Family, capability), body)
    with pytest.raises(TypeError, match="abstract"):
        cls()


# ------------------------------------------------------------------ the contract's size and its worked example
ROOT = Path(__file__).resolve().parents[2]


def docs_family():
    """``(namespace, class)`` of the from-scratch family of docs/families/custom.md, its first block run."""
    text = (ROOT / "docs" / "families" / "custom.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    [code] = [b for b in blocks if "(Family):" in b]
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "docs/families/custom.md", "exec"), namespace)  # noqa: S102 - this repository's docs
    [cls] = [v for v in namespace.values() if isinstance(v, type) and v.__bases__ == (F.Family,)]
    return namespace, cls


def test_the_contract_is_small():
    """Issue 29: at most 15 abstract methods; the rest is defaults or capabilities."""
    assert len(F.Family.__abstractmethods__) <= 15
    assert {"encode", "stats", "make_prior", "update", "log_evidence", "gen_point", "gen_sample"} <= set(
        F.Family.__abstractmethods__)
    for capability in C.CAPABILITIES:
        assert not set(C.hooks(capability)) & set(vars(F.Family)), capability


def test_the_docs_family_writes_at_most_ten_methods_and_fits_predicts_samples_imputes():
    ns, cls = docs_family()
    methods = [n for n, v in vars(cls).items() if callable(v) and n != "__init__"]
    assert len(methods) <= 10, methods
    assert not any(C.supports(cls(), c) for c in C.CAPABILITIES)
    model, X, y = ns["model"], ns["X"], ns["y"]
    assert model.score(X, y) > 0.7
    p = model.predict_proba(X)
    assert np.allclose(p.sum(1), 1) and np.isfinite(model.score_samples(X)).all()
    Xs, ys = model.sample(400, random_state=1)
    assert Xs.shape == (400, 2) and (Xs[:, 0] >= 0).all()
    filled = model.impute(X, random_state=0)
    assert not np.isnan(filled).any() and np.array_equal(filled[~np.isnan(X)], X[~np.isnan(X)])


def test_the_docs_family_is_told_which_capability_a_use_needs():
    ns, cls = docs_family()
    model, X, y = ns["model"], ns["X"], ns["y"]
    uses = {"NumPyroSites": lambda: model.run_mcmc(X, y, num_warmup=5, num_samples=5),
            "PosteriorDraws": lambda: model.sample_posterior(10, random_state=0),
            "CellScores": lambda: model.feature_log_contributions(X),
            "LinearForm": lambda: model.coef_}
    for capability, use in uses.items():
        with pytest.raises(C.MissingCapability, match=rf"the {cls.__name__} family has no .*{capability}"):
            use()


def test_a_custom_family_that_declares_no_named_tuples_leaves_saving_other_models_working(tmp_path):
    """Defining the docs' family (no ``stats_type``) once broke ``save`` of every model in the process."""
    import bayesnb as bn

    ns, _ = docs_family()
    rng = np.random.default_rng(0)
    m = bn.GaussianNB().fit(rng.normal(size=(30, 2)), np.arange(30) % 2)
    m.save(tmp_path / "g.bnb")
    assert np.allclose(bn.load(tmp_path / "g.bnb").predict_proba(m.theta_), m.predict_proba(m.theta_))
    with pytest.raises(TypeError, match="cannot save posterior_"):  # a clear refusal, whichever part it meets first
        ns["model"].save(tmp_path / "c.bnb")
