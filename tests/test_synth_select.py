"""The Synthesizer's latent-class search (bayesnb.synth.search): a latent model that must win is still
chosen, and a search that cannot win stops widening, with the reason in ``selection_``."""

import numpy as np
import pytest
import pandas as pd

from sklearn.model_selection import train_test_split

from bayesnb import NaiveBayes, Synthesizer
from bayesnb.synth.search import EDGE_SCORES, Z_BEHIND, edge_name


def _mixture_table(n, seed):
    """Two classes, each a two-component mixture: in one component every column is mostly one value,
    in the other mostly another, so the columns depend strongly on each other within a class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    z = rng.integers(0, 2, n)
    cols = {}
    for j in range(8):
        main = (2 * y + z + j) % 4  # the component's usual value of column j
        noise = rng.integers(0, 4, n)
        cols[f"c{j}"] = np.where(rng.random(n) < 0.85, main, noise).astype(str)
    return pd.DataFrame({"y": y.astype(str), **cols})


def _chain_table(n, seed):
    """A Markov chain over 8 columns of 6 values: each column copies the one before it, mostly. A
    tree (TAN / k-DB) is the exact model; a mixture needs very many components."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    prev = rng.integers(0, 6, n)
    cols = {}
    for j in range(8):
        step = np.where(rng.random(n) < 0.8, 0, rng.integers(1, 6, n))
        prev = (prev + step + y) % 6
        cols[f"c{j}"] = prev.astype(str)
    return pd.DataFrame({"y": y.astype(str), **cols})


def test_a_mixture_within_each_class_is_chosen():
    data = _mixture_table(3000, 0)
    synth = Synthesizer(target="y", search_rows=1000, random_state=0, verbose=False).fit(data)
    sel = synth.selection_.set_index("candidate")
    assert synth.chosen_.startswith("latent class (naive, C=") and synth.latent_ is not None
    assert synth.latent_.n_components >= 2
    structure = sel.index[sel["log_evidence"].notna() & sel["holdout_loglik"].notna()
                          & (sel.index != "naive")]
    assert len(structure) == 1  # the structure of step 1 and the latent model, both held out
    assert sel.loc[synth.chosen_, "holdout_loglik"] > sel.loc[structure[0], "holdout_loglik"]
    assert sel.loc[synth.chosen_, "note"].startswith("search stopped: ")


def test_a_search_that_cannot_win_stops_widening_and_says_why():
    data = _chain_table(4000, 1)
    synth = Synthesizer(target="y", latent_candidates=(1, 2), search_rows=2000, random_state=0,
                        verbose=False).fit(data)
    assert not synth.chosen_.startswith("latent class")
    trace = synth.latent_search_
    sel = synth.selection_
    note = sel.loc[sel["candidate"].str.startswith("latent class"), "note"].item()
    assert "trails the structure" in note and "not refitted" in note
    last = trace.iloc[-1]
    assert last["gap"] < -Z_BEHIND * last["se"]  # clearly behind where it stopped
    cap = 2000 // (10 * 2)
    assert trace["n_components"].max() < cap  # it stopped before the widening's cap
    latent = synth.selection_["candidate"].str.startswith("latent class")
    assert synth.selection_.loc[latent, "holdout_loglik"].isna().all()  # decided at the search size


def _sum_table(n, seed):
    """Three columns that follow the class and a fourth, ``d = a + b - c`` mostly: d needs all three as
    parents, which k-DB with k = 2 cannot give it."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a, b, c = (np.where(rng.random(n) < 0.6, 2 * y + rng.integers(0, 2, n), rng.integers(0, 4, n)) for _ in range(3))
    d = np.where(rng.random(n) < 0.9, a + b - c + 3, rng.integers(0, 10, n))
    return pd.DataFrame({"y": y.astype(str), **{k: v.astype(str) for k, v in zip("abcd", (a, b, c, d))}})


@pytest.mark.parametrize("latent", [None, "auto"])
def test_kdb_takes_a_third_parent_when_held_out_rows_need_it(latent):
    synth = Synthesizer(target="y", structure="kdb", latent=latent, latent_candidates=(1, 2), search_rows=1000,
                        random_state=0, verbose=False).fit(_sum_table(3000, 0))
    sel = synth.selection_.set_index("candidate")
    assert synth.chosen_ == "kdb (k=3, hierarchical)" and synth.model_.k == 3
    assert set(synth.model_.structure_["d"]) == {"a", "b", "c"}  # refitted on every row with k = 3
    assert sel.loc["kdb (k=3, hierarchical)", "holdout_loglik"] > sel.loc["kdb (k=2, hierarchical)", "holdout_loglik"]
    assert sel.loc["kdb (k=3, hierarchical)", "note"].endswith("kept") and sel.loc[synth.chosen_, "chosen"]


def test_kdb_keeps_its_k_when_a_further_parent_does_not_help():
    synth = Synthesizer(target="y", structure="kdb", latent=None, random_state=0,
                        verbose=False).fit(_chain_table(3000, 1))  # a chain: one parent per column is exact
    sel = synth.selection_.set_index("candidate")
    edge = synth.model_.edge_score  # chosen first, at k = 2 (test_the_edge_score_is_the_one_that_scores_higher)
    assert synth.chosen_ == edge_name("kdb (k=2, hierarchical)", edge) and synth.model_.k == 2
    assert "not kept" in sel.loc[edge_name("kdb (k=3, hierarchical)", edge), "note"]
    assert list(sel.index[sel["chosen"]]) == [synth.chosen_]


def _wide_parent_table(n, seed):
    """A 30-value column ``p`` that two 5-value columns follow through ``p mod 5`` and ``p mod 7``, half
    the time: real dependence on a many-valued parent, split into thin contexts."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = rng.integers(0, 30, n)
    c = np.where(rng.random(n) < 0.5, (p % 5 + y) % 5, rng.integers(0, 5, n))
    d = np.where(rng.random(n) < 0.5, (p % 7) % 5, rng.integers(0, 5, n))
    cols = {"p": p, "c": c, "d": d, "e": rng.integers(0, 3, n)}
    return pd.DataFrame({"y": y.astype(str), **{k: v.astype(str) for k, v in cols.items()}})


def _held_out_means(data, params, seed, holdout=0.2):
    """Mean held-out ``log p(x, y)`` per edge score of the variant ``params``, on the split the Synthesizer
    draws from ``random_state=seed`` (recomputed here from NaiveBayes alone)."""
    y = data["y"].to_numpy()
    split = int(np.random.default_rng(seed).integers(2**31 - 1))
    tr, te = train_test_split(np.arange(len(y)), test_size=holdout, stratify=y, random_state=split)
    X = data.drop(columns="y")
    out = {}
    for edge in EDGE_SCORES:
        model = NaiveBayes(**params, edge_score=edge).fit(X.iloc[tr], y[tr])
        codes = np.searchsorted(model.classes_, y[te])
        out[edge] = model.predict_joint_log_proba(X.iloc[te])[np.arange(len(te)), codes].mean()
    return out


@pytest.mark.parametrize(("table", "structure", "params", "name"), [
    (_wide_parent_table(1500, 0), "tan", {"structure": "tan"}, "tan"),
    (_chain_table(3000, 1), "tan", {"structure": "tan"}, "tan"),
    (_sum_table(3000, 0), "kdb", {"structure": "kdb", "k": 2, "alpha": "hierarchical"}, "kdb (k=2, hierarchical)"),
])
def test_the_edge_score_is_the_one_that_scores_higher(table, structure, params, name):
    synth = Synthesizer(target="y", structure=structure, latent=None, random_state=0, verbose=False).fit(table)
    sel = synth.selection_.set_index("candidate")
    expected = _held_out_means(table, params, 0)
    for edge in EDGE_SCORES:  # a row per edge score, its held-out score the one recomputed here
        assert sel.loc[edge_name(name, edge), "note"] == f"edge_score={edge!r}"
        assert sel.loc[edge_name(name, edge), "holdout_loglik"] == pytest.approx(expected[edge], rel=1e-9)
    best = max(expected, key=expected.get)
    assert synth.model_.edge_score == best
    if structure == "tan":  # no k to widen: the chosen row is the edge score's
        assert synth.chosen_ == edge_name(name, best) and sel.loc[synth.chosen_, "chosen"]


def test_a_many_valued_parent_takes_the_hierarchical_edge_score(tmp_path):
    table = _wide_parent_table(1500, 0)
    synth = Synthesizer(target="y", structure="tan", latent=None, random_state=0, verbose=False).fit(table)
    assert synth.chosen_ == "tan [hierarchical edges]" and synth.model_.edge_score == "hierarchical"
    synth.save(tmp_path / "m.bnb")
    back = Synthesizer.load(tmp_path / "m.bnb")  # the model file: its chosen_ named from the model
    assert back.chosen_ == synth.chosen_ and back.model_.edge_score == "hierarchical"
    assert synth.model_.structure_["c"] == ("p",)  # refitted on every row with the hierarchical edges
    bdeu = NaiveBayes(structure="tan").fit(table.drop(columns="y"), table["y"])
    assert bdeu.structure_["c"] != ("p",)  # BDeu does not give c its 30-value parent
