"""Figures for fitted bayesnb models (needs matplotlib: ``pip install "bayesnb[plot]"``).

matplotlib is imported only when a function here is called, so ``import bayesnb.plot``
costs nothing and works without it.

- :func:`class_conditionals` -- ``p(x_j | y=k)`` for every feature of a fitted model
  (bars for categorical/Bernoulli features, densities for Gaussian ones, the most
  probable columns of a multinomial block).
- :func:`log_odds` -- log-odds weights with credible intervals, sorted by size.
- :func:`reliability_diagram` -- calibration: predicted probability vs observed frequency, in
  equal-count bins with binomial intervals (the numbers: :func:`reliability_table`).
- :func:`plot_independence` -- heatmap of :func:`~bayesnb.criticism.check_independence`,
  one panel per class.
- :func:`exact_vs_mcmc` -- overlay of exact conjugate draws and MCMC draws of the same
  parameters.
- :func:`plot_structure` -- the learned structure (TAN, k-DB): class node, feature nodes,
  arrows class -> feature and parent -> child (returns the ``Axes``).

Every function returns the matplotlib ``Figure`` and accepts ``ax=`` (or ``axes=``) to
draw into an existing one.
"""

from __future__ import annotations

import numpy as np

from .structure.graph_figure import draw_structure, edge_weights

__all__ = ["class_conditionals", "exact_vs_mcmc", "log_odds", "plot_independence", "plot_structure", "pyplot",
           "reliability_diagram", "reliability_table", "savefig"]


def pyplot():
    """Matplotlib's ``pyplot``, switched to the file backend ``Agg`` when there is no display.

    Returns
    -------
    module
        ``matplotlib.pyplot``.

    Raises
    ------
    ImportError
        Without matplotlib, with the command that installs it.
    """
    try:
        import matplotlib

        if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "cairo") and not _has_display():
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            "bayesnb.plot needs matplotlib; install it with: pip install 'bayesnb[plot]'"
        ) from None
    return plt


def _has_display() -> bool:
    import os
    import sys

    return sys.platform in ("win32", "darwin") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def savefig(fig, path, dpi=110) -> str:
    """Save ``fig`` to ``path`` (PNG by extension), close it and return the path."""
    plt = pyplot()
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return str(path)


def _axes(ax, **subplots):
    """``(figure, ax)``: ``ax`` and its figure, or a new figure's axes (``subplots`` as ``plt.subplots``)."""
    return (ax.figure, ax) if ax is not None else pyplot().subplots(**subplots)


def _grid(n, ncols, size=(3.2, 2.4), layout=None):
    plt = pyplot()
    ncols = max(1, min(ncols, n))
    nrows = int(np.ceil(n / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(size[0] * ncols, size[1] * nrows), squeeze=False,
                             layout=layout)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, axes.ravel()


def class_conditionals(model, features=None, ncols=4, top=10):
    """Plot ``p(x_j | y=k)`` per feature and class under the posterior mean.

    Parameters
    ----------
    model : fitted bayesnb estimator
    features : list of str, optional
        Feature names to show (default: all, in input order; a multinomial block is
        shown as one panel of its ``top`` most probable columns per class).
    ncols : int, default=4
        Panels per row.
    top : int, default=10
        Columns shown for a multinomial block.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from scipy import stats as st

    post = model.posterior_
    classes = [str(c) for c in post.classes]
    K = len(classes)
    panels = []  # (title, kind, payload), from each block's family
    for b in post.blocks:
        panels += b.family.plot_panels(b, top=top)
    if features is not None:
        wanted = [str(f) for f in features]
        panels = [p for p in panels if p[0] in wanted]
    fig, axes = _grid(len(panels), ncols)
    width = 0.8 / max(K, 1)
    for ax, (title, kind, payload) in zip(axes, panels):
        if kind == "bars":
            labels, p = payload
            x = np.arange(len(labels))
            for k in range(K):
                ax.bar(x + (k - (K - 1) / 2) * width, p[k], width, label=classes[k])
            ax.set_xticks(x, labels, rotation=45 if max(map(len, labels), default=0) > 3 else 0, fontsize=8)
            ax.set_ylim(0, 1)
        else:
            mu, sd = payload
            ok = np.isfinite(mu) & np.isfinite(sd) & (sd > 0)
            lo = np.min(mu[ok] - 4 * sd[ok]) if ok.any() else -1
            hi = np.max(mu[ok] + 4 * sd[ok]) if ok.any() else 1
            grid = np.linspace(lo, hi, 200)
            for k in range(K):
                if ok[k]:
                    ax.plot(grid, st.norm.pdf(grid, mu[k], sd[k]), label=classes[k])
        ax.set_title(title, fontsize=9)
        ax.tick_params(labelsize=8)
    if panels:
        axes[0].legend(fontsize=7, title="class", title_fontsize=7)
    fig.suptitle("class-conditional distributions p(x | class), posterior mean", fontsize=10)
    fig.tight_layout()
    return fig


def log_odds(names, mean, lower=None, upper=None, ax=None, title=None, xlabel="log-odds weight"):
    """Dot-and-interval plot of log-odds weights, largest magnitude on top.

    Parameters
    ----------
    names : sequence of str, length p
    mean : array-like of shape (p,)
        Posterior mean (or point estimate) of each weight.
    lower, upper : array-like of shape (p,), optional
        Credible-interval bounds (e.g. 2.5% and 97.5% quantiles of exact draws).
    ax : matplotlib Axes, optional
    title, xlabel : str, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    mean = np.asarray(mean, dtype=float)
    order = np.argsort(np.abs(mean))
    fig, ax = _axes(ax, figsize=(6.5, 0.32 * len(mean) + 1.2))
    y = np.arange(len(mean))
    if lower is not None and upper is not None:
        lo, hi = np.asarray(lower, float)[order], np.asarray(upper, float)[order]
        ax.hlines(y, lo, hi, color="0.5", lw=2, label="95% credible interval")
    ax.plot(mean[order], y, "o", color="C0", label="posterior mean")
    ax.axvline(0, color="k", lw=0.8)
    ax.set_yticks(y, [str(names[i]) for i in order], fontsize=8)
    ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def reliability_table(y_true, proba, classes=None, n_bins=10, level=0.95):
    """The numbers of :func:`reliability_diagram`: equal-count bins of confidence with binomial intervals.

    Rows are sorted by confidence and cut into ``n_bins`` bins of (nearly) equal counts, so
    every point rests on about ``n / n_bins`` rows. Each bin's observed frequency gets the
    Jeffreys interval of a binomial proportion (the equal-tailed ``level`` interval of
    ``Beta(hits + 1/2, misses + 1/2)``, ending at 0 or 1 when no row or every row is a hit,
    as Brown, Cai & DasGupta 2001 recommend).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels.
    proba : ndarray of shape (n, K)
        Predicted class probabilities (columns in ``classes`` order).
    classes : array-like of shape (K,), optional
        Class labels of the columns (default: sorted unique ``y_true``).
    n_bins : int, default=10
        Number of bins (fewer when there are fewer rows).
    level : float, default=0.95

    Returns
    -------
    table : DataFrame
        One row per bin: ``confidence`` (mean predicted probability), ``frequency``
        (observed), ``lower``, ``upper`` (the interval), ``n`` (rows).
    what : str
        What the confidence is: ``P(y = c)`` of the second class for two classes, else the
        top-label confidence.
    """
    import pandas as pd
    from scipy.stats import beta

    y_true = np.asarray(y_true)
    proba = np.asarray(proba, dtype=float)
    classes = np.unique(y_true) if classes is None else np.asarray(classes)
    if proba.ndim != 2 or proba.shape != (y_true.shape[0], classes.shape[0]):
        raise ValueError(f"reliability_table: proba must have shape (n, K) = ({y_true.shape[0]}, {classes.shape[0]}); "
                         f"received {proba.shape}.")
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"reliability_table: n_bins must be an int >= 1; received {n_bins!r}.")
    if proba.shape[1] == 2:
        conf, hit = proba[:, 1], (y_true == classes[1]).astype(float)
        what = f"P(y = {classes[1]})"
    else:
        top = proba.argmax(axis=1)
        conf, hit = proba[np.arange(len(top)), top], (classes[top] == y_true).astype(float)
        what = "top-label confidence"
    order = np.argsort(conf, kind="stable")
    groups = [g for g in np.array_split(order, min(int(n_bins), len(order))) if g.size]
    n = np.array([g.size for g in groups])
    hits = np.array([hit[g].sum() for g in groups])
    tail = (1 - level) / 2
    # Brown, Cai & DasGupta (2001): the interval ends at 0 (1) when no row (every row) is a hit
    lower = np.where(hits == 0, 0.0, beta.ppf(tail, hits + 0.5, n - hits + 0.5))
    upper = np.where(hits == n, 1.0, beta.isf(tail, hits + 0.5, n - hits + 0.5))
    table = pd.DataFrame({"confidence": [conf[g].mean() for g in groups], "frequency": hits / n,
                          "lower": lower, "upper": upper, "n": n})
    return table, what


def reliability_diagram(y_true, proba, classes=None, n_bins=10, ax=None, label=None, level=0.95):
    """Calibration of predicted probabilities (top-label for more than two classes).

    Equal-count bins of confidence, each point with the Jeffreys ``level`` interval of its
    observed frequency (:func:`reliability_table`), so a bin of few rows shows how little it
    says.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels.
    proba : ndarray of shape (n, K)
        Predicted class probabilities (columns in ``classes`` order).
    classes : array-like of shape (K,), optional
        Class labels of the columns (default: sorted unique ``y_true``).
    n_bins : int, default=10
    ax : matplotlib Axes, optional
        Draw into it (call again with another ``label`` to compare models).
    label : str, optional
    level : float, default=0.95
        Level of the intervals.

    Returns
    -------
    matplotlib.figure.Figure
    """
    table, what = reliability_table(y_true, proba, classes, n_bins, level)
    new = ax is None
    fig, ax = _axes(ax, figsize=(4.2, 4.2), layout="constrained")
    if new:
        ax.plot([0, 1], [0, 1], "--", color="0.6", lw=1, label="perfect calibration")
    f = table["frequency"].to_numpy()
    err = np.clip(np.vstack([f - table["lower"].to_numpy(), table["upper"].to_numpy() - f]), 0.0, None)
    ax.errorbar(table["confidence"], f, yerr=err, fmt="o-", capsize=2, ms=4,
                label=f"{label or 'model'} ({level:.0%} intervals)")
    ax.set_xlabel(f"predicted {what}")
    ax.set_ylabel("observed frequency")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(f"reliability diagram ({len(table)} equal-count bins of ~{int(table['n'].median())} rows)",
                 fontsize=9)
    ax.legend(fontsize=8, loc="upper left")
    return fig


def exact_vs_mcmc(exact, mcmc, names=None, ncols=4, bins=40):
    """Overlay exact conjugate draws and MCMC draws of the same parameters.

    Parameters
    ----------
    exact : ndarray of shape (n_draws, p)
        Exact posterior draws.
    mcmc : ndarray of shape (m_draws, p)
        MCMC draws of the same ``p`` parameters (same order).
    names : sequence of str, optional
        Parameter names.
    ncols : int, default=4
    bins : int, default=40

    Returns
    -------
    matplotlib.figure.Figure
    """
    exact = np.asarray(exact, dtype=float).reshape(len(exact), -1)
    mcmc = np.asarray(mcmc, dtype=float).reshape(len(mcmc), -1)
    if exact.shape[1] != mcmc.shape[1]:
        raise ValueError(f"exact has {exact.shape[1]} parameters but mcmc has {mcmc.shape[1]}.")
    p = exact.shape[1]
    names = [f"param {i}" for i in range(p)] if names is None else [str(n) for n in names]
    fig, axes = _grid(p, ncols, layout="constrained")
    for i, ax in enumerate(axes[:p]):
        lo = min(exact[:, i].min(), mcmc[:, i].min())
        hi = max(exact[:, i].max(), mcmc[:, i].max())
        edges = np.linspace(lo, hi, bins + 1) if hi > lo else bins
        ax.hist(exact[:, i], bins=edges, density=True, alpha=0.5, label="exact (conjugate)")
        ax.hist(mcmc[:, i], bins=edges, density=True, histtype="step", lw=1.5, label="MCMC (NUTS)")
        ax.set_title(names[i], fontsize=8)
        ax.set_xlabel("parameter value", fontsize=7)
        ax.set_ylabel("posterior density", fontsize=7)
        ax.tick_params(labelsize=7)
    if p:  # one legend for the figure, above the panels (it covers none of them)
        fig.legend(*axes[0].get_legend_handles_labels(), loc="outside upper right", ncols=2, fontsize=8)
    fig.suptitle("exact posterior vs MCMC", fontsize=10)
    return fig


def plot_independence(table, value="p_value", classes=None, ncols=3, axes=None):
    """Heatmap of a :func:`~bayesnb.criticism.check_independence` table, one panel per class.

    Parameters
    ----------
    table : DataFrame
        The table returned by ``check_independence`` (columns ``class``, ``feature_a``,
        ``feature_b``, ``p_value``, ``effect``).
    value : {"p_value", "effect"}, default="p_value"
        ``"p_value"``: ``-log10 p`` (2 is p = 0.01); ``"effect"``: the effect size
        ``(obs - mean rep) / sd rep``, infinite values clipped to the largest finite one.
    classes : list, optional
        Classes to show (default: all, in table order of first appearance).
    ncols : int, default=3
        Panels per row.
    axes : sequence of matplotlib Axes, optional
        One per class to draw into.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if value not in ("p_value", "effect"):
        raise ValueError(f"plot_independence: value must be 'p_value' or 'effect'; received {value!r}.")
    need = {"class", "feature_a", "feature_b", value}
    if not need <= set(getattr(table, "columns", ())):
        raise ValueError(f"plot_independence: table must have the columns {sorted(need)} "
                         "(the result of check_independence).")
    names = list(dict.fromkeys(list(table["feature_a"]) + list(table["feature_b"])))
    shown = list(dict.fromkeys(table["class"])) if classes is None else list(classes)
    pos = {n: i for i, n in enumerate(names)}
    v = table[value].to_numpy(dtype=float)
    v = -np.log10(v) if value == "p_value" else v
    finite = v[np.isfinite(v)]
    bound = float(np.max(np.abs(finite))) if finite.size else 1.0
    v = np.clip(v, -bound, bound)
    if axes is None:
        fig, axes = _grid(len(shown), ncols, size=(4.2, 3.6), layout="constrained")
    else:
        axes = np.ravel(axes)
        fig = axes[0].figure
    label = "-log10 p" if value == "p_value" else "effect (sd of replicates)"
    for ax, k in zip(axes, shown):
        M = np.full((len(names), len(names)), np.nan)
        sel = (table["class"] == k).to_numpy()
        for a, b, x in zip(table["feature_a"][sel], table["feature_b"][sel], v[sel]):
            M[pos[a], pos[b]] = M[pos[b], pos[a]] = x
        im = ax.imshow(M, cmap="viridis" if value == "p_value" else "coolwarm",
                       vmin=0 if value == "p_value" else -bound, vmax=bound)
        ax.set_xticks(range(len(names)), names, rotation=90, fontsize=6)
        ax.set_yticks(range(len(names)), names, fontsize=6)
        ax.set_title(f"class {k}")
        fig.colorbar(im, ax=ax, label=label, shrink=0.8)
    return fig


def plot_structure(model, ax=None, edge_labels=True, class_label="class"):
    """Draw a fitted model's structure: the class on top, arrows class -> feature and parent -> child.

    Matplotlib only. Features are laid out in layers by depth (roots first); class arrows
    are light grey, parent arrows dark. With ``edge_labels``, each parent arrow is labelled
    with ``I(X_child; X_parent | Y)`` in nats, from the child's fitted counts (on the rows
    where the child and all its parents are observed; the structure itself is learned from
    BDeu log Bayes factors by default, :func:`bayesnb.structure.learn_parents`). A naive model
    draws only the class arrows. On a mixed table
    (``NaiveBayes(structure=...)``) numeric features are drawn as green ellipses, categorical
    ones as blue rounded boxes; its parent arrows are not labelled (a numeric child's fitted
    statistics are not counts).

    Parameters
    ----------
    model : fitted CategoricalNB or NaiveBayes (any ``structure=``)
        Reads ``structure_`` (feature -> tuple of parent names) and the fitted blocks' families
        (which features are numeric).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    edge_labels : bool, default=True
        Label parent arrows with their conditional mutual information.
    class_label : str, default="class"
        Text of the class node.

    Returns
    -------
    matplotlib.axes.Axes
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(model, "structure_")
    names = [str(n) for n in model.structure_]
    index = {n: j for j, n in enumerate(names)}
    parents = tuple(tuple(index[str(p)] for p in model.structure_[n]) for n in model.structure_)
    tables = getattr(model, "_mixed", None)
    weights = edge_weights(tables) if edge_labels and tables is not None else None
    numeric = set()
    for b in getattr(getattr(model, "posterior_", None), "blocks", ()):
        if b.family.value_columns(b.state) is None:  # no finite set of values: a numeric family
            numeric.update(str(n) for n in b.names)
    _, ax = _axes(ax, figsize=(max(4.0, 1.2 * len(names)), 3.5))
    return draw_structure(ax, names, parents, class_label, weights, numeric=[n in numeric for n in names])
