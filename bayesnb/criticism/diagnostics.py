"""ArviZ output: the only module that builds ArviZ objects (exact draws and MCMC alike).

- :func:`variable_layout` -- variable names, dims and coords of a fitted posterior
- :func:`to_datatree` -- parameter draws ``(chain, draw, ...)`` -> ``xarray.DataTree``
- :func:`compare_posteriors` -- exact vs MCMC table per parameter element, with a verdict

The layout (variable names, dims and coords) is shared by :meth:`sample_posterior` and
:meth:`run_mcmc`, so the two are directly comparable: see docs/mcmc.md, "Layout of the results"
(a block's position is appended to its name when a model has two blocks of one family; ``pi`` is
absent when the class prior is fixed; a latent-class model adds ``component`` and ``w``).

``import arviz`` is slow; it is imported inside the functions that need it. Building a DataTree
needs only ``arviz_base.from_dict`` (the rest of ``arviz``, e.g. ``arviz_plots``, took ~60% of
the setup of a warm-cache ``run_mcmc`` in a new process), so only ``arviz_base`` is imported there.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from ..inference.mcmc_stats import bulk_ess_and_rhat, ess, ess_tail
from .posterior_check import bonferroni_limit, draws_z, kurtosis, sd_error, verdict_text


__all__ = ["BlockLayout", "block_layouts", "compare_posteriors", "coord_values", "datatree_from_layout", "to_datatree",
           "variable_layout"]


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
    """One :class:`BlockLayout` per block of an :class:`~bayesnb.inference.nb_posterior.NBPosterior`."""
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
                cdim, ccoord = "category" + suffix, coord_values(cats[0])
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


def coord_values(values):
    """Coordinate values for xarray: numbers as they are, any other object as its ``str``.

    Parameters
    ----------
    values : sequence
        Class labels or categories.

    Returns
    -------
    ndarray
    """
    arr = np.asarray(values)
    if arr.dtype == object:  # (a list of scalars: np.asarray cannot fail)
        return np.asarray([str(v) if not isinstance(v, (int, float, np.number)) else v for v in values])
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
    dims, coords, extra = {}, {"class": coord_values(list(post.classes))}, {}
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
    dims, coords, extra, _ = variable_layout(post, n_components)
    return datatree_from_layout(draws, dims, coords, extra, sample_stats, attrs)


def datatree_from_layout(draws: dict, dims: dict, coords: dict, extra: dict | None = None,
                         sample_stats: dict | None = None, attrs: dict | None = None):
    """Build the ArviZ ``DataTree`` of parameter draws from an explicit layout.

    Parameters
    ----------
    draws : dict
        ``{variable: ndarray (chain, draw, ...)}``, one entry per variable of ``dims``.
    dims : dict
        ``{variable: [dim, ...]}`` (without ``chain``/``draw``).
    coords : dict
        ``{dim: values}``.
    extra : dict, optional
        ``{coord name: (dims, values)}`` non-index coordinates.
    sample_stats, attrs
        As in :func:`to_datatree`.

    Returns
    -------
    xarray.DataTree
        Groups ``posterior`` (and ``sample_stats``).
    """
    from arviz_base import from_dict

    missing = set(dims) - set(draws)
    if missing:  # pragma: no cover - internal consistency
        raise ValueError(f"to_datatree: no draws for variable(s) {sorted(missing)}.")
    data = {"posterior": {k: np.asarray(draws[k]) for k in dims}}
    if sample_stats:
        data["sample_stats"] = {k: np.asarray(v) for k, v in sample_stats.items()}
    clean_attrs = {k: v for k, v in (attrs or {}).items() if v is not None}
    dt = from_dict(data, dims=dims, coords=coords)
    ds = dt["posterior"].to_dataset()
    if extra:
        ds = ds.assign_coords({name: (dd, vals) for name, (dd, vals) in extra.items()})
    ds.attrs.update(clean_attrs)
    dt["posterior"] = ds
    dt.attrs.update(clean_attrs)
    return dt


def _posterior(dt):
    return dt["posterior"].to_dataset() if hasattr(dt, "children") or hasattr(dt, "to_dataset") else dt


def compare_posteriors(exact, mcmc, *, z_threshold: float | None = None, sd_tolerance: float | None = None,
                       rhat_threshold: float = 1.01, verbose: bool = True, alpha: float = 0.05):
    """Compare MCMC draws with the exact conjugate posterior, element by element.

    Every element gets a mean check and an sd check, each a ``z`` in Monte-Carlo standard
    errors of both sides (see :mod:`bayesnb.criticism.posterior_check`). Against exact *draws*:

    - ``z = (mcmc_mean - exact_mean) / sqrt(mcse^2 + exact_sd^2 / n_exact)`` with the
      ESS-based ``mcse`` of the MCMC mean;
    - ``z_sd = (log mcmc_sd - log exact_sd) / sqrt(mcse_sd^2 + se_sd_exact^2)`` by the delta
      method, ``mcse_sd = sqrt((kurtosis - 1) / (4 ESS_sq))`` with ``ESS_sq`` the ESS of the
      squared centred MCMC draws and the kurtosis of both sides' draws pooled, and the same
      formula with ``ESS = n_exact`` for the independent exact draws;
    - both on the logit scale for a variable whose draws all lie in (0, 1) (probabilities:
      a small-probability cell's skewed posterior otherwise makes false alarms on large
      sparse posteriors). The table's means and sds stay on the natural scale.

    Against closed-form moments ``z`` is the same with ``n_exact = inf`` and
    ``z_sd = (mcmc_sd - exact_sd) / mcse_sd`` with ``mcse_sd = exact_sd sqrt((kurtosis - 1)
    / (4 ESS_sq))`` (the MCMC draws' kurtosis), on the natural scale.

    The verdict is AGREE when every ``|z|`` and ``|z_sd|`` is below a Bonferroni limit
    ``Phi^{-1}(1 - alpha / (2 * 2m))`` over the ``2m`` checks of ``m`` elements (3.55 for
    the 66 elements of house votes, 3.87 for 214), so a correct sampler is called DISAGREE
    with probability at most about ``alpha``, and the run had no divergent transitions.
    An element whose closed-form sd is NaN (``exact`` as moments: no finite posterior
    variance, e.g. a Gaussian variance with ``a_n <= 2``) is not checked (its Monte-Carlo error
    is undefined); the verdict says how many.
    ESS, MCSE and R-hat are computed for all elements at once (``bayesnb.inference.mcmc_stats``, the
    estimators of ArviZ; tail ESS at the 5%/95% quantiles).

    Parameters
    ----------
    exact : xarray.DataTree or dict
        From ``sample_posterior`` (independent draws: their ESS is their number), or the
        closed-form moments ``{variable: (mean, sd)}`` of
        :func:`bayesnb.inference.draws.posterior_moments` (then the exact side has no Monte-Carlo error).
    mcmc : xarray.DataTree
        From ``run_mcmc`` (same variables, dims and coords).
    z_threshold : float, optional
        A fixed ``|z|`` limit for both checks instead of the Bonferroni limit.
    sd_tolerance : float, optional
        A practical floor for the sd check: an sd only fails when ``|z_sd|`` is over the
        limit *and* it differs by more than this fraction (e.g. 0.02 ignores differences
        under 2% that very long runs resolve). None: no floor.
    rhat_threshold : float, default=1.01
        r-hat above this warns (a mixing warning, not part of the verdict: with one chain
        of 1000 draws, split-R-hat passes 1.01 on some of 200 elements by chance).
    verbose : bool, default=True
        Print the one-line verdict.
    alpha : float, default=0.05
        Family-wise false-alarm rate of the Bonferroni limit.

    Returns
    -------
    pandas.DataFrame
        One row per parameter element: ``variable, element, exact_mean, exact_sd,
        mcmc_mean, mcmc_sd, mcse, z, mcse_sd, z_sd, sd_rel_diff, ess_bulk, ess_tail, r_hat``.
        ``.attrs``: ``"verdict"`` (the one-line verdict, which says which check failed, on
        how many elements, the largest ``|z|`` and where), ``"ok"`` (AGREE), ``"limit"``
        (the ``|z|`` limit used) and ``"failed"`` (elements over it).

    Warns
    -----
    UserWarning
        On divergent transitions, on r-hat above ``rhat_threshold``, and when r-hat could not be
        computed for any element (constant or too short chains): mixing is then unchecked, and
        the verdict says so.
    """
    import pandas as pd

    closed_form = isinstance(exact, dict)  # {variable: (mean, sd)}; a DataTree is a Mapping too
    mc = _posterior(mcmc)
    ex = None if closed_form else _posterior(exact)
    ev, mv = set(exact) if closed_form else set(ex.data_vars), set(mc.data_vars)
    if ev != mv:
        raise ValueError(f"compare_posteriors: the two posteriors have different variables: "
                         f"exact only {sorted(ev - mv)}, MCMC only {sorted(mv - ev)}.")
    rows = []
    for var in sorted(ev):
        m = mc[var]
        other = [d for d in m.dims if d not in ("chain", "draw")]
        if closed_form:
            pair = exact[var]
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise ValueError(f"compare_posteriors: exact moments must be {{variable: (mean, sd)}}; "
                                 f"received {type(pair).__name__} for {var!r}.")
            e_mean, e_sd = (np.asarray(a, dtype=float) for a in pair)
            shape = tuple(m.sizes[d] for d in other)
            if e_mean.shape != shape or e_sd.shape != shape:
                raise ValueError(f"compare_posteriors: exact moments of {var!r} have shape {e_mean.shape}; "
                                 f"expected {shape} (the MCMC variable's dims {tuple(other)}).")
            e_se, n_exact = np.zeros(shape), np.inf
        else:
            e = ex[var]
            if e.dims != m.dims or any(not np.array_equal(e[d].values, m[d].values) for d in other):
                raise ValueError(f"compare_posteriors: variable {var!r} has different dims/coords "
                                 f"({e.dims} vs {m.dims}).")
            n_exact = e.sizes["chain"] * e.sizes["draw"]
            ed = np.asarray(e.transpose("chain", "draw", *other).values, dtype=float)
            with np.errstate(invalid="ignore"):
                e_mean, e_sd = ed.mean((0, 1)), ed.std((0, 1), ddof=1)
        md = np.asarray(m.transpose("chain", "draw", *other).values, dtype=float)
        flat = md.reshape(md.shape[0], md.shape[1], -1)
        with np.errstate(invalid="ignore"):
            bulk, r_hat = bulk_ess_and_rhat(flat)
            diag = {"ess_bulk": bulk, "ess_tail": ess_tail(flat), "r_hat": r_hat}
            if closed_form:  # against draws, draws_z gives the mcse (on the logit scale for probabilities)
                diag["mcse"] = flat.std((0, 1), ddof=1) / np.sqrt(ess(flat))
                ess_sq = ess((flat - flat.mean((0, 1))) ** 2).reshape(md.shape[2:])
        diag = {k: v.reshape(md.shape[2:]) for k, v in diag.items()}
        with np.errstate(invalid="ignore", divide="ignore"):
            m_mean, m_sd = md.mean((0, 1)), md.std((0, 1), ddof=1)
            if closed_form:  # the MCMC draws' kurtosis (scale-free); no exact Monte-Carlo error
                # Monte-Carlo error of an sd estimate if the MCMC is right: delta method on the second
                # central moment, var(sd_hat) ~ sd^2 (kurtosis - 1) / (4 ESS), with the exact sd
                kurt = kurtosis(md)
                mcse_sd, e_se_sd = sd_error(e_sd, kurt, ess_sq), sd_error(e_sd, kurt, n_exact)
                checks = {"z": (m_mean - e_mean) / np.hypot(diag["mcse"], e_se), "exact_se": e_se,
                          "z_sd": (m_sd - e_sd) / np.hypot(mcse_sd, e_se_sd), "mcse_sd": mcse_sd,
                          "exact_se_sd": e_se_sd}
            else:  # two sets of draws of one law: logit scale for probabilities, log sds (draws_z)
                checks = draws_z(ed.reshape(ed.shape[0], ed.shape[1], -1), flat, ess)
                checks = {k: v.reshape(md.shape[2:]) for k, v in checks.items()}
            cols = {"exact_mean": e_mean, "exact_sd": e_sd, "mcmc_mean": m_mean, "mcmc_sd": m_sd,
                    **diag, **checks}
        frame = pd.DataFrame({k: np.ravel(np.asarray(v, float)) for k, v in cols.items()})
        if other:
            idx = pd.MultiIndex.from_product([m[d].values for d in other]) if len(other) > 1 else \
                [(v,) for v in m[other[0]].values]
            labels = [f"{var}[{', '.join(map(str, t))}]" for t in idx]
        else:
            labels = [var]
        frame.insert(0, "element", labels)
        frame.insert(0, "variable", var)
        rows.append(frame)
    table = pd.concat(rows, ignore_index=True)
    table = table[np.isfinite(table["exact_mean"]) & np.isfinite(table["mcmc_mean"])].reset_index(drop=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        table["sd_rel_diff"] = table["mcmc_sd"] / table["exact_sd"] - 1.0
    table = table[["variable", "element", "exact_mean", "exact_sd", "mcmc_mean", "mcmc_sd", "mcse", "z",
                   "mcse_sd", "z_sd", "sd_rel_diff", "ess_bulk", "ess_tail", "r_hat"]]

    n_div = 0
    if "sample_stats" in getattr(mcmc, "children", {}) and "diverging" in mcmc["sample_stats"].data_vars:
        n_div = int(np.asarray(mcmc["sample_stats"]["diverging"].values).sum())
    finite_rhat = table["r_hat"].to_numpy()[np.isfinite(table["r_hat"].to_numpy())]
    max_rhat = float(finite_rhat.max()) if finite_rhat.size else float("nan")
    if len(table) and not finite_rhat.size:
        warnings.warn("compare_posteriors: r_hat could not be computed for any element (constant or "
                      "too short chains); mixing is unchecked.", UserWarning, stacklevel=2)
    if n_div:
        warnings.warn(f"compare_posteriors: the MCMC run had {n_div} divergent transition(s); "
                      "its draws may be biased (increase num_warmup or target_accept_prob).",
                      UserWarning, stacklevel=2)
    if max_rhat > rhat_threshold:
        worst = table.loc[table["r_hat"].idxmax(), "element"]
        warnings.warn(f"compare_posteriors: r_hat up to {max_rhat:.3f} (> {rhat_threshold}) at {worst}: "
                      "the chains may not have mixed; run longer or more chains.", UserWarning, stacklevel=2)
    limit = float(z_threshold) if z_threshold is not None else bonferroni_limit(2 * len(table), alpha)
    # a z that cannot be computed (zero Monte-Carlo error, e.g. identical draws) fails unless the values agree
    bad_mean = ~(table["z"].abs() <= limit) & (table["mcmc_mean"] != table["exact_mean"])
    bad_sd = ~(table["z_sd"].abs() <= limit) & (table["mcmc_sd"] != table["exact_sd"])
    # an exact sd that is NaN (closed-form moments: no finite posterior variance, e.g. a Gaussian
    # variance with a_n <= 2) leaves the element unchecked: no Monte-Carlo error can be stated
    unchecked = ~np.isfinite(table["exact_sd"].to_numpy())
    bad_mean &= ~unchecked
    bad_sd &= ~unchecked
    if sd_tolerance is not None:
        bad_sd &= table["sd_rel_diff"].abs() > sd_tolerance
    ok, verdict = verdict_text(table, limit=limit, alpha=alpha, fixed_limit=z_threshold is not None,
                               bad_mean=bad_mean.to_numpy(), bad_sd=bad_sd.to_numpy(), n_div=n_div,
                               max_rhat=max_rhat, rhat_threshold=rhat_threshold)
    if unchecked.any():
        verdict += (f"; {int(unchecked.sum())} element(s) with no finite posterior variance not checked "
                    f"(e.g. {table.loc[unchecked, 'element'].iloc[0]})")
    table.attrs.update(verdict=verdict, ok=ok, limit=limit,
                       failed=sorted(set(table.loc[bad_mean | bad_sd, "element"])))
    if verbose:
        print(verdict)
    return table
