"""Drawing a learned structure with matplotlib only (used by :func:`bayesnb.plot.plot_structure`).

Layout: the class node on top; the features in layers below it by depth in the structure
(a feature without feature parents in the first layer, a child one layer below its deepest
parent), spread evenly within each layer. Arrows go class -> every feature and parent ->
child. A numeric feature (a family without a finite set of values, e.g. Gaussian in a mixed
``NaiveBayes``) is drawn as an ellipse in its own colour, a categorical one as a rounded box.
An edge's label is ``I(X_child; X_parent | Y)`` (nats) of the child's fitted counts:
the empirical conditional mutual information on the rows where the child and its parents
are observed (a description of the dependence; the structure itself is learned from BDeu log
Bayes factors by default, see :func:`bayesnb.structure.learn_parents`).
"""

from __future__ import annotations

import numpy as np

from .learn import _mi, topological_order

__all__ = ["edge_weights", "structure_layers"]


def structure_layers(parents) -> list:
    """Depth of every feature: 0 without feature parents, else one more than its deepest parent."""
    depth = [0] * len(parents)
    for j in topological_order(parents):
        depth[j] = 1 + max((depth[p] for p in parents[j]), default=-1)
    return depth


def edge_weights(model) -> dict:
    """``{(parent, child): I(X_child; X_parent | Y)}`` from each categorical child's fitted counts (nats).

    ``model`` is a fitted structure (:class:`~bayesnb.structure.engine.MixedModel`); a numeric
    child (no counts over its states) has no weight.
    """
    out = {}
    for j, pa in enumerate(model.parents):
        if not pa or model.nodes[j].numeric:
            continue
        (counts,) = model.stats[j].counts
        shape = (model.n_classes, *(model.nodes[p].n_states for p in pa), model.nodes[j].n_states)
        full = np.asarray(counts, float).reshape(shape)
        for i, p in enumerate(pa):
            other = tuple(1 + m for m in range(len(pa)) if m != i)
            out[(p, j)] = _mi(full.sum(axis=other) if other else full)
    return out


def draw_structure(ax, names, parents, class_name, weights=None, node_color="#dbe9f6", class_color="#f6dcc0",
                   numeric=None, numeric_color="#dff2d8"):
    """Draw nodes, class arrows and parent arrows (with ``weights`` as labels) into ``ax``; returns ``ax``.

    ``numeric`` (bool per feature, optional) draws those features as ellipses in ``numeric_color``.
    """
    d = len(names)
    depth = structure_layers(parents)
    n_layers = max(depth, default=0) + 1
    pos = {}
    for layer in range(n_layers):
        members = [j for j in range(d) if depth[j] == layer]
        for i, j in enumerate(members):
            pos[j] = ((i + 1) / (len(members) + 1), 1.0 - (layer + 1) / (n_layers + 1))
    top = (0.5, 1.0)
    box = {"boxstyle": "round,pad=0.3", "fc": node_color, "ec": "0.3"}

    def arrow(a, b, color, lw, rad=0.0):
        ax.annotate("", xy=b, xytext=a, xycoords="data", textcoords="data", gid="bayesnb-edge",
                    arrowprops={"arrowstyle": "-|>", "color": color, "lw": lw, "shrinkA": 12, "shrinkB": 12,
                                "connectionstyle": f"arc3,rad={rad}"})

    for j in range(d):  # class arrows to deeper layers curve, so that they pass beside the nodes above
        arrow(top, pos[j], "0.75", 0.8, rad=0.0 if depth[j] == 0 else (0.25 if pos[j][0] <= 0.5 else -0.25))
    for j, pa in enumerate(parents):
        for p in pa:
            arrow(pos[p], pos[j], "0.15", 1.6)
            if weights is not None and (p, j) in weights:
                mid = ((pos[p][0] + pos[j][0]) / 2, (pos[p][1] + pos[j][1]) / 2)
                ax.text(*mid, f"{weights[(p, j)]:.3f}", fontsize=7, ha="center", va="center", gid="bayesnb-weight",
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})
    ax.text(*top, str(class_name), ha="center", va="center", fontsize=9, fontweight="bold", gid="bayesnb-node",
            bbox={**box, "fc": class_color})
    numeric = [False] * d if numeric is None else [bool(v) for v in numeric]
    for j in range(d):
        style = {**box, "boxstyle": "ellipse,pad=0.3", "fc": numeric_color} if numeric[j] else box
        ax.text(*pos[j], str(names[j]), ha="center", va="center", fontsize=8, gid="bayesnb-node", bbox=style)
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.08)
    ax.set_axis_off()
    return ax
