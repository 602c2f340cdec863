"""Shared data of the latent-class-under-a-structure tests (``test_structure_latent_draws.py``,
``test_structure_latent_sample.py``): a tiny three-column table and a random draw in the layout
of ``run_mcmc(n_components=C)``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr


def tiny(seed, n):
    """``(X, y)``: ``n`` rows of three binary columns (``"n"``/``"y"``) and classes ``"u"``/``"v"``;
    ``c`` depends on both ``a`` and ``b``, so k-DB (k=2) gives it both as parents."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = (rng.random(n) < np.where(y == 1, 0.8, 0.3)).astype(int)
    b = (rng.random(n) < np.where(y == 1, 0.6, 0.4)).astype(int)
    c = np.where(rng.random(n) < 0.9, a | b, 1 - (a | b))  # k-DB (k=2) gives c both a and b
    X = pd.DataFrame({"a": a, "b": b, "c": c}).replace({0: "n", 1: "y"}).astype(object)
    return X, np.array(["u", "v"])[y]


def random_draw(idata, C, rng, *, random_pi=False, concentration=1.0):
    """``idata``'s posterior (one draw, no component) in the layout of ``run_mcmc(n_components=C)``:
    a dim ``component`` after ``class`` and ``w`` (class, component), every parameter random
    (Dirichlet(``concentration``) on the last axis of every variable; ``pi`` kept unless ``random_pi``)."""
    ds = idata["posterior"].to_dataset()
    out = {}
    for v, da in ds.data_vars.items():
        if v == "pi":
            out[v] = (da.dims, rng.dirichlet(np.ones(da.shape[-1]))[None, None]) if random_pi else da
            continue
        dims = (*da.dims[:3], "component", *da.dims[3:])
        shape = (*da.shape[:3], C, *da.shape[3:])
        out[v] = (dims, rng.dirichlet(np.ones(shape[-1]) * concentration, size=shape[:-1]))
    K = ds.sizes["class"]
    out["w"] = (("chain", "draw", "class", "component"), rng.dirichlet(np.ones(C), size=(1, 1, K)))
    return xr.DataTree.from_dict({"posterior": xr.Dataset(out, coords={**ds.coords, "component": np.arange(C)})})


def brute_states(ds, names, values=("n", "y")):
    """``{(x..., k, c): p(x, class k, component c)}`` of a :func:`random_draw` draw ``ds`` (its
    ``posterior``), by enumerating every cell, class and component from the draw's numbers."""
    import itertools
    pi, w = ds["pi"].values[0, 0], ds["w"].values[0, 0]
    out = {}
    for x in itertools.product(values, repeat=len(names)):
        z = dict(zip(names, x))
        for k, c in itertools.product(range(w.shape[0]), range(w.shape[1])):
            p = pi[k] * w[k, c]
            for f in names:
                da = ds[f"theta_{f}"].isel(chain=0, draw=0, **{"class": k, "component": c})
                sel = {d: str(z[d[:-len("_state")]]) for d in da.dims if d.endswith("_state")}
                p *= float(da.sel(sel).sel({f"{f}_category": str(z[f])}))
            out[(*x, k, c)] = p
    return out
