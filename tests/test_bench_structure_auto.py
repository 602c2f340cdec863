"""benchmarks/bench_structure_auto.py: its ``edge_score`` swap reaches the CV guard's folds too."""

from __future__ import annotations

import bench_structure_auto as bench

import bayesnb
from bayesnb.datasets import load_house_votes
from bayesnb.structure import cv as _cv
from bayesnb.structure import learn as _learn


def test_mi_edges_reach_the_cv_guard_and_are_restored():
    d = load_house_votes()
    X, y = d.drop(columns="party").iloc[:, :8], d["party"]  # 8 of the 16 votes: auto's fits in half the time
    with bench.edge_score("mi"):
        assert _cv.edge_scores_from_counts is not _learn.edge_scores_from_counts
        m = bayesnb.CategoricalNB(structure="auto").fit(X, y)  # the guard re-learns mi edges per fold
    assert _cv.edge_scores_from_counts is _learn.edge_scores_from_counts
    sc = m.structure_scores_
    assert sc["cv_log_loss"].notna().sum() == 2 and m.structure_kind_ != "naive"
    bdeu = bayesnb.CategoricalNB(structure="auto").fit(X, y)
    assert bdeu.structure_scores_["log_evidence"].iloc[2] != sc["log_evidence"].iloc[2]  # other TAN edges


def test_edge_scores_flag_picks_the_configurations():
    rows = bench.configurations([1.0], ("bdeu", "hierarchical"))
    kinds = {(structure, kind) for _, est, structure, kind, _ in rows if est == "NaiveBayes"}
    assert ("kdb", "hierarchical") in kinds and ("auto", "hierarchical") in kinds
    assert not any(kind == "mi" for _, _, _, kind, _ in rows)
    assert bench.configurations([1.0]) == bench.configurations([1.0], ("bdeu", "mi"))
