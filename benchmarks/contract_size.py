"""The size of the Family contract: abstract and defaulted hooks of ``Family``, public names of a family.

Run: ``.venv/bin/python benchmarks/contract_size.py`` (prints one line per figure; issue 29's bar is
at most 15 abstract methods).
"""

from __future__ import annotations

import inspect

from bayesnb.families import Family, Gaussian


def contract_size() -> dict:
    """Counts of the :class:`~bayesnb.families.Family` contract.

    Returns
    -------
    dict
        ``abstract``: the abstract methods a family must write; ``defaulted``: the other public
        methods ``Family`` declares or inherits (hooks with a default); ``gaussian_public``: the
        public names of a ``Gaussian()``.
    """
    abstract = sorted(Family.__abstractmethods__)
    public = [n for n, v in inspect.getmembers(Family) if not n.startswith("_") and callable(v)]
    defaulted = sorted(set(public) - set(abstract) - {"get_params", "set_params"})
    return {"abstract": abstract, "defaulted": defaulted,
            "gaussian_public": sorted(n for n in dir(Gaussian()) if not n.startswith("_"))}


def capability_hooks() -> dict:
    """``{capability name: its hooks}`` beside the contract (empty before bayesnb.families.capabilities existed)."""
    try:
        from bayesnb.families import capabilities
    except ImportError:
        return {}
    return {c.__name__: capabilities.hooks(c) for c in capabilities.CAPABILITIES}


def main() -> None:
    """Print the counts, the abstract methods and the capabilities' hooks."""
    size = contract_size()
    print(f"Family abstract methods: {len(size['abstract'])}: {', '.join(size['abstract'])}")
    print(f"Family defaulted hooks: {len(size['defaulted'])}")
    print(f"Gaussian() public names: {len(size['gaussian_public'])}")
    for name, hooks in capability_hooks().items():
        print(f"capability {name}: {len(hooks)} hooks: {', '.join(hooks)}")


if __name__ == "__main__":
    main()
