"""Plots a reviewer accepts (issue 30, item 7): equal-count reliability bins with binomial intervals,
axis labels, a legend and colour bars that cover no panel."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta

pytest.importorskip("matplotlib")

from bayesnb import plot as bplot  # noqa: E402


def _overlap(a, b):
    """Whether two display-space bounding boxes overlap (more than touching)."""
    return a.x0 < b.x1 - 1 and b.x0 < a.x1 - 1 and a.y0 < b.y1 - 1 and b.y0 < a.y1 - 1


def test_reliability_table_has_equal_count_bins_and_jeffreys_intervals():
    rng = np.random.default_rng(0)
    p = rng.beta(0.5, 0.5, 1003)  # most rows near 0 and 1: equal-width bins would hold 1-6 rows in the middle
    y = np.where(rng.random(1003) < p, "b", "a")
    proba = np.column_stack([1 - p, p])
    t, what = bplot.reliability_table(y, proba, ["a", "b"], n_bins=10)
    assert what == "P(y = b)" and len(t) == 10
    assert t.n.sum() == 1003 and t.n.max() - t.n.min() <= 1
    assert np.all(np.diff(t.confidence) > 0)
    order = np.argsort(p, kind="stable")
    first = order[: t.n.iloc[0]]
    hits = (y[first] == "b").sum()
    assert t.confidence.iloc[0] == pytest.approx(p[first].mean())
    assert t.frequency.iloc[0] == pytest.approx(hits / first.size)
    lo, hi = beta.ppf([0.025, 0.975], hits + 0.5, first.size - hits + 0.5)
    assert t.lower.iloc[0] == pytest.approx(0.0 if hits == 0 else lo)
    assert t.upper.iloc[0] == pytest.approx(hi)
    assert np.all((t.lower <= t.frequency) & (t.frequency <= t.upper))
    with pytest.raises(ValueError, match=r"proba must have shape \(n, K\) = \(1003, 2\); received \(1003, 3\)"):
        bplot.reliability_table(y, np.ones((1003, 3)) / 3, ["a", "b"])


def test_reliability_diagram_draws_the_bins_with_intervals_and_labels():
    rng = np.random.default_rng(1)
    p = rng.random(200)
    y = np.where(rng.random(200) < p, 1, 0)
    fig = bplot.reliability_diagram(y, np.column_stack([1 - p, p]), [0, 1], n_bins=5, label="m")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "predicted P(y = 1)" and ax.get_ylabel() == "observed frequency"
    assert "5 equal-count bins of ~40 rows" in ax.get_title()
    assert any("95% intervals" in t.get_text() for t in ax.get_legend().get_texts())
    assert len(ax.containers) == 1 and len(ax.containers[0].lines[0].get_xdata()) == 5  # the error bars


def test_exact_vs_mcmc_has_axis_labels_and_a_legend_over_no_panel():
    rng = np.random.default_rng(2)
    fig = bplot.exact_vs_mcmc(rng.normal(size=(300, 5)), rng.normal(size=(300, 5)), ncols=3)
    fig.canvas.draw()
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert all(ax.get_xlabel() == "parameter value" and ax.get_ylabel() == "posterior density" for ax in panels)
    assert len(fig.legends) == 1 and all(ax.get_legend() is None for ax in panels)
    box, renderer = fig.legends[0].get_window_extent(), fig.canvas.get_renderer()
    assert not any(_overlap(box, ax.get_tightbbox(renderer)) for ax in panels)


def test_plot_independence_colour_bars_fit_beside_their_panel(votes):
    X, y = votes
    from bayesnb import CategoricalNB, check_independence

    m = CategoricalNB().fit(X, y)
    fig = bplot.plot_independence(check_independence(m, X, y, n_replicates=3, random_state=0, verbose=False))
    fig.canvas.draw()
    panels = [ax for ax in fig.axes if ax.images]
    bars = [ax for ax in fig.axes if ax not in panels and ax.get_visible()]
    assert len(panels) == 2 and len(bars) == 2
    assert all(b.get_ylabel() == "-log10 p" for b in bars)
    renderer = fig.canvas.get_renderer()
    for b in bars:  # the bar and its label touch no panel, nor its tick labels
        box = b.get_tightbbox(renderer)
        assert not any(_overlap(box, p.get_tightbbox(renderer)) for p in panels)
