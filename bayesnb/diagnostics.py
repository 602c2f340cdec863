"""ArviZ output: the only module that builds ArviZ objects (exact draws and MCMC alike).

- :func:`variable_layout` -- variable names, dims and coords of a fitted posterior
- :func:`to_datatree` -- parameter draws ``(chain, draw, ...)`` -> ``xarray.DataTree``
- :func:`compare_posteriors` -- exact vs MCMC table per parameter element, with a verdict

Layout (shared by :meth:`sample_posterior` and :meth:`run_mcmc`, so the two are
directly comparable):

=====================  ===========================================  ========================
variable               dims                                         family
=====================  ===========================================  ========================
``pi``                 (class,)                                     class proportions
``theta_<block>``      (class, feature, category) or (.., value)    Categorical
``theta_<block>``      (class, feature)                             Bernoulli, Multinomial
``mu_<block>``         (class, feature)                             Gaussian mean
``sigma2_<block>``     (class, feature)                             Gaussian variance
=====================  ===========================================  ========================

``<block>`` is the family name (``categorical``, ``bernoulli``, ...), with the block's
position appended when a ``NaiveBayes`` model has two blocks of one family. With more
than one block, the feature/category dims get a ``_<block>`` suffix (the blocks have
different features). A categorical block whose features all share one list of values
uses dim ``category`` with those values as coords; otherwise dim ``value`` (position)
with a 2-D coordinate ``category`` (feature, value) naming each value, and NaN draws in
the padding. ``pi`` is absent when the class prior is fixed (``class_prior=`` or
``fit_prior=False``).

The latent-class model (``run_mcmc(..., n_components=C)`` with ``C > 1``) adds a dim
``component`` (coords ``0..C-1``) after ``class`` in every block variable, and a variable
``w`` (class, component): the component weights within each class.

``import arviz`` is slow; it is imported inside the functions that need it.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np


__all__ = ["BlockLayout", "block_layouts", "variable_layout", "to_datatree", "compare_posteriors"]


class BlockLayout(NamedTuple):
    """How one feature block appears in the model and its ArviZ output.

    Attributes
    ----------
    label : str
        Suffix of the block's variables and NumPyro sites (``theta_<label>``).
    feature_dim : str
        Dim (and NumPyro plate) name of the block's features.
    category_dim : str or None
        Dim of the values of a categorical block (``category``/``value`` + suffix).
    category_coord : list, ndarray or None
        Coords of ``category_dim`` (real values when shared, else positions).
    category_labels : ndarray of shape (d, V_max) or None
        Labels of each (feature, value) when the features do not share values.
    """

    label: str
    feature_dim: str
    category_dim: object
    category_coord: object
    category_labels: object


def block_layouts(post) -> list:
    """One :class:`BlockLayout` per block of an :class:`~bayesnb.posterior.NBPosterior`."""
    names = [b.family.name for b in post.blocks]
    single = len(names) == 1
    out = []
    for i, b in enumerate(post.blocks):
        label = b.family.name if names.count(b.family.name) == 1 else f"{b.family.name}{i}"
        suffix = "" if single else f"_{label}"
        cdim = ccoord = clabels = None
        cats = b.family.value_labels(b.state)
        if cats is not None:  # discrete values: one more dim for the values
            shared = bool(cats) and all(len(c) == len(cats[0]) and all(_same(u, v) for u, v in zip(c, cats[0]))
                                        for c in cats)
            if shared:
                cdim, ccoord = "category" + suffix, _coord_values(cats[0])
            else:
                vmax = max((len(c) for c in cats), default=0)
                cdim, ccoord = "value" + suffix, np.arange(vmax)
                clabels = np.array([[str(c[v]) if v < len(c) else "" for v in range(vmax)] for c in cats],
                                   dtype=object).reshape(len(cats), vmax)
        out.append(BlockLayout(label, "feature" + suffix, cdim, ccoord, clabels))
    return out


def _same(u, v) -> bool:
    try:
        return bool(u == v) and type(u) is type(v)
    except Exception:  # pragma: no cover
        return False


def _coord_values(values):
    arr = np.asarray(values)
    if arr.dtype == object:
        try:
            return np.asarray([str(v) if not isinstance(v, (int, float, np.number)) else v for v in values])
        except Exception:  # pragma: no cover
            return np.asarray([str(v) for v in values])
    return arr


def variable_layout(post, n_components: int = 1):
    """Names, dims and coords of every variable.

    Parameters
    ----------
    post : NBPosterior
    n_components : int, default=1
        Components per class (latent-class model): > 1 adds the ``component`` dim and ``w``.

    Returns
    -------
    dims : dict
        ``{variable: [dim, ...]}`` (without ``chain``/``draw``).
    coords : dict
        ``{dim: values}``.
    extra : dict
        ``{coord name: (dims, values)}`` non-index coordinates (categorical labels).
    layouts : list of BlockLayout
    """
    layouts = block_layouts(post)
    dims, coords, extra = {}, {"class": _coord_values(list(post.classes))}, {}
    if not post.fixed_class_prior:
        dims["pi"] = ["class"]
    latent = ["component"] if n_components > 1 else []
    if latent:
        dims["w"] = ["class", "component"]
        coords["component"] = np.arange(int(n_components))
    for b, lay in zip(post.blocks, layouts):
        coords[lay.feature_dim] = np.asarray([str(n) for n in b.names])
        base = ["class"] + latent + [lay.feature_dim]
        params = b.family.param_names
        for p in params:
            dims[f"{p}_{lay.label}"] = base + ([lay.category_dim] if lay.category_dim else [])
        if lay.category_dim:
            coords[lay.category_dim] = lay.category_coord
            if lay.category_labels is not None:
                name = "category" + lay.feature_dim[len("feature"):]
                extra[name] = ((lay.feature_dim, lay.category_dim), lay.category_labels.astype(str))
    return dims, coords, extra, layouts


def to_datatree(post, draws: dict, sample_stats: dict | None = None, attrs: dict | None = None,
                n_components: int = 1):
    """Build the ArviZ ``DataTree`` of parameter draws.

    Parameters
    ----------
    post : NBPosterior
        Supplies the names, dims and coords.
    draws : dict
        ``{variable: ndarray (chain, draw, ...)}`` named as in :func:`variable_layout`.
    sample_stats : dict, optional
        ``{name: ndarray (chain, draw)}`` (MCMC diagnostics: ``diverging``, ``tree_depth``...).
    attrs : dict, optional
        Attributes of the posterior group (and of the tree).
    n_components : int, default=1
        Components per class of the latent-class model (see :func:`variable_layout`).

    Returns
    -------
    xarray.DataTree
        Groups ``posterior`` (and ``sample_stats``).
    """
    import arviz as az

    dims, coords, extra, _ = variable_layout(post, n_components)
    missing = set(dims) - set(draws)
    if missing:  # pragma: no cover - internal consistency
        raise ValueError(f"to_datatree: no draws for variable(s) {sorted(missing)}.")
    data = {"posterior": {k: np.asarray(draws[k]) for k in dims}}
    if sample_stats:
        data["sample_stats"] = {k: np.asarray(v) for k, v in sample_stats.items()}
    clean_attrs = {k: v for k, v in (attrs or {}).items() if v is not None}
    dt = az.from_dict(data, dims=dims, coords=coords)
    ds = dt["posterior"].to_dataset()
    if extra:
        ds = ds.assign_coords({name: (dd, vals) for name, (dd, vals) in extra.items()})
    ds.attrs.update(clean_attrs)
    dt["posterior"] = ds
    dt.attrs.update(clean_attrs)
    return dt


def _posterior(dt):
    return dt["posterior"].to_dataset() if hasattr(dt, "children") or hasattr(dt, "to_dataset") else dt


def compare_posteriors(exact, mcmc, *, z_threshold: float = 4.0, sd_tolerance: float = 0.10,
                       rhat_threshold: float = 1.01, verbose: bool = True):
    """Compare MCMC draws with exact conjugate draws, element by element.

    Parameters
    ----------
    exact : xarray.DataTree
        From ``sample_posterior`` (independent draws: their ESS is their number).
    mcmc : xarray.DataTree
        From ``run_mcmc`` (same variables, dims and coords).
    z_threshold : float, default=4
        Largest acceptable ``|MCMC mean - exact mean|`` in Monte-Carlo standard errors.
    sd_tolerance : float, default=0.10
        Largest acceptable relative difference of the posterior sds. A run too short to
        resolve it is judged against 4 Monte-Carlo standard errors of the sd instead,
        ``4 sqrt(1 / (2 ESS_tail) + 1 / (2 n_exact))``, whichever is larger.
    rhat_threshold : float, default=1.01
        r-hat above this warns.
    verbose : bool, default=True
        Print the one-line verdict.

    Returns
    -------
    pandas.DataFrame
        One row per parameter element: ``variable, element, exact_mean, exact_sd,
        mcmc_mean, mcmc_sd, mcse, z, sd_rel_diff, ess_bulk, ess_tail, r_hat``;
        ``.attrs["verdict"]`` holds the one-line verdict and ``.attrs["ok"]`` whether it passed.
        ``z`` divides by the combined standard error ``sqrt(mcse^2 + exact_sd^2 / n_exact)``.

    Warns
    -----
    UserWarning
        On divergent transitions and on r-hat above ``rhat_threshold``.
    """
    import arviz as az
    import pandas as pd

    ex, mc = _posterior(exact), _posterior(mcmc)
    ev, mv = set(ex.data_vars), set(mc.data_vars)
    if ev != mv:
        raise ValueError(f"compare_posteriors: the two posteriors have different variables: "
                         f"exact only {sorted(ev - mv)}, MCMC only {sorted(mv - ev)}.")
    ess_b = az.ess(mc, method="bulk")
    ess_t = az.ess(mc, method="tail")
    if mc.sizes["chain"] == 1:  # split-R-hat of one chain: compare its two halves
        half = mc.sizes["draw"] // 2
        halves = mc.isel(draw=slice(0, 2 * half))
        halves = halves.assign_coords(draw=np.arange(2 * half)).coarsen(draw=half).construct(
            draw=("chain_half", "draw_half"))
        halves = halves.isel(chain=0).rename({"chain_half": "chain", "draw_half": "draw"})
        rhat = az.rhat(halves)
    else:
        rhat = az.rhat(mc)
    mcse = az.mcse(mc, method="mean")
    n_exact = ex.sizes["chain"] * ex.sizes["draw"]
    rows = []
    for var in sorted(ev):
        e, m = ex[var], mc[var]
        if e.dims != m.dims or any(not np.array_equal(e[d].values, m[d].values) for d in e.dims
                                   if d not in ("chain", "draw")):
            raise ValueError(f"compare_posteriors: variable {var!r} has different dims/coords "
                             f"({e.dims} vs {m.dims}).")
        cols = {
            "exact_mean": e.mean(("chain", "draw")), "exact_sd": e.std(("chain", "draw"), ddof=1),
            "mcmc_mean": m.mean(("chain", "draw")), "mcmc_sd": m.std(("chain", "draw"), ddof=1),
            "mcse": _var(mcse, var), "ess_bulk": _var(ess_b, var), "ess_tail": _var(ess_t, var),
            "r_hat": _var(rhat, var),
        }
        frame = pd.DataFrame({k: np.ravel(np.asarray(v.values if hasattr(v, "values") else v, float))
                              for k, v in cols.items()})
        other = [d for d in e.dims if d not in ("chain", "draw")]
        if other:
            idx = pd.MultiIndex.from_product([e[d].values for d in other]) if len(other) > 1 else \
                [(v,) for v in e[other[0]].values]
            labels = [f"{var}[{', '.join(map(str, t))}]" for t in idx]
        else:
            labels = [var]
        frame.insert(0, "element", labels)
        frame.insert(0, "variable", var)
        rows.append(frame)
    table = pd.concat(rows, ignore_index=True)
    table = table[np.isfinite(table["exact_mean"]) & np.isfinite(table["mcmc_mean"])].reset_index(drop=True)
    se = np.sqrt(table["mcse"] ** 2 + table["exact_sd"] ** 2 / n_exact)
    with np.errstate(divide="ignore", invalid="ignore"):
        table["z"] = (table["mcmc_mean"] - table["exact_mean"]) / se
        table["sd_rel_diff"] = table["mcmc_sd"] / table["exact_sd"] - 1.0
    table = table[["variable", "element", "exact_mean", "exact_sd", "mcmc_mean", "mcmc_sd", "mcse", "z",
                   "sd_rel_diff", "ess_bulk", "ess_tail", "r_hat"]]

    n_div = 0
    if "sample_stats" in getattr(mcmc, "children", {}) and "diverging" in mcmc["sample_stats"].data_vars:
        n_div = int(np.asarray(mcmc["sample_stats"]["diverging"].values).sum())
    max_rhat = float(np.nanmax(table["r_hat"])) if len(table) else float("nan")
    if n_div:
        warnings.warn(f"compare_posteriors: the MCMC run had {n_div} divergent transition(s); "
                      "its draws may be biased (increase num_warmup or target_accept_prob).",
                      UserWarning, stacklevel=2)
    if max_rhat > rhat_threshold:
        worst = table.loc[table["r_hat"].idxmax(), "element"]
        warnings.warn(f"compare_posteriors: r_hat up to {max_rhat:.3f} (> {rhat_threshold}) at {worst}: "
                      "the chains have not mixed; run longer or more chains.", UserWarning, stacklevel=2)
    absz = table["z"].abs()
    sdd = table["sd_rel_diff"].abs()
    # relative Monte-Carlo error of an sd estimate: ~ 1 / sqrt(2 ESS) (tail ESS: sds live in the tails)
    sd_limit = np.maximum(sd_tolerance, 4 * np.sqrt(1 / (2 * table["ess_tail"]) + 1 / (2 * n_exact)))
    failed = [name for name, bad in (
        (f"|z| >= {z_threshold:g}", bool(len(table)) and absz.max() >= z_threshold),
        ("sd difference over its limit", bool((sdd >= sd_limit).any())),
        ("divergences", n_div > 0),
        (f"r_hat > {rhat_threshold:g}", max_rhat > rhat_threshold),
    ) if bad]
    ok = bool(len(table)) and not failed
    if len(table):
        worst_z = table.loc[absz.idxmax(), "element"]
        head = "AGREE" if ok else f"DISAGREE ({'; '.join(failed)})"
        verdict = (f"{head}: {len(table)} parameters; max |z| = {absz.max():.2f} "
                   f"MCSE (limit {z_threshold:g}, at {worst_z}); max sd difference {100 * sdd.max():.1f}% "
                   f"(limit {100 * sd_tolerance:g}% or 4 MC errors of the sd, here up to "
                   f"{100 * float(sd_limit.max()):.1f}%); min ESS {table['ess_bulk'].min():.0f}; "
                   f"max r_hat {max_rhat:.3f}; {n_div} divergences")
    else:  # pragma: no cover
        verdict = "DISAGREE: no parameters to compare"
    table.attrs["verdict"] = verdict
    table.attrs["ok"] = ok
    if verbose:
        print(verdict)
    return table


def _var(ds, var):
    return ds[var] if hasattr(ds, "data_vars") or hasattr(ds, "__getitem__") else ds
