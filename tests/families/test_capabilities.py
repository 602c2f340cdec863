"""Capabilities beside the Family contract (bayesnb.families.capabilities): a family registers one by
listing it among its bases; a hook of one it lacks raises an error naming the family and the capability."""

from __future__ import annotations

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
@pytest.mark.parametrize("capability", C.CAPABILITIES, ids=lambda c: c.__name__)
def test_every_bayesnb_family_registers_every_capability(fam, capability):
    assert C.supports(fam, capability)
    assert type(fam).__abstractmethods__ == frozenset()


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


@pytest.mark.parametrize("capability", C.CAPABILITIES, ids=lambda c: c.__name__)
def test_registering_a_capability_requires_its_abstract_hooks(capability):
    if not capability.__abstractmethods__:
        pytest.skip(f"{capability.__name__} has defaults for every hook")
    body = {name: (lambda self, *a, **k: None) for name in F.Family.__abstractmethods__}
    cls = type("HalfRegistered", (F.Family, capability), body)
    with pytest.raises(TypeError, match="abstract"):
        cls()
