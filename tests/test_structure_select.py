"""Which structures fit considers: k-DB's hierarchical default, auto's candidates, and its CV check."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

import bayesnb
from bayesnb.structure.select import candidates


def _hub_table(n, seed, L=40):
    """Three features that say the class; a 40-level column ``u`` independent of everything
    that matters; four columns ``z`` that copy a fixed random function of ``u`` (90%).

    The edges u -> z are real (their Bayes factors are huge), so the evidence prefers a
    structure; but each (class, u) context holds ~2 rows, so the z tables given (class, u)
    say which class happened to have that level of u in training: noise for the class.
    """
    rng = np.random.default_rng(seed)
    maps = np.random.default_rng(0).integers(0, 4, (4, L))
    y = rng.integers(0, 2, n)
    X = {f"x{j}": np.where(rng.random(n) < 0.8, y, 1 - y) for j in range(3)}
    u = rng.integers(0, L, n)
    X["u"] = u
    for j in range(4):
        X[f"z{j}"] = np.where(rng.random(n) < 0.9, maps[j, u], rng.integers(0, 4, n))
    return pd.DataFrame({k: np.char.add(k, v.astype(str)) for k, v in X.items()}), y


def _votes():
    d = bayesnb.datasets.load_house_votes()
    return d.drop(columns="party"), d["party"]


def test_candidates():
    assert [c.label for c in candidates("auto", 3, True)] == [
        "naive", "naive (hierarchical)", "tan", "tan (hierarchical)", "kdb (k=3)", "kdb (k=3, hierarchical)"]
    assert [c.label for c in candidates("auto", 2, False)] == ["naive", "tan", "kdb (k=2)"]
    assert [(c.kind, c.hierarchical) for c in candidates("kdb", 2, True)] == [("kdb", True)]
    assert [(c.kind, c.hierarchical) for c in candidates("kdb", 2, False)] == [("kdb", False)]
    assert [(c.kind, c.hierarchical) for c in candidates("tan", 2, True)] == [("tan", False)]


def test_unset_alpha_is_one_for_naive_and_tan_and_hierarchical_for_kdb(tmp_path):
    X, y = _votes()
    Xt = X.iloc[::7]
    for structure in ("naive", "tan"):
        a = bayesnb.CategoricalNB(structure=structure).fit(X, y)
        b = bayesnb.CategoricalNB(structure=structure, alpha=1.0).fit(X, y)
        assert a.log_evidence_ == b.log_evidence_ and not a.structure_hierarchical_
        np.testing.assert_array_equal(a.predict_proba(Xt), b.predict_proba(Xt))
    kdb = bayesnb.CategoricalNB(structure="kdb").fit(X, y)
    hier = bayesnb.CategoricalNB(structure="kdb", alpha="hierarchical").fit(X, y)
    flat = bayesnb.CategoricalNB(structure="kdb", alpha=1.0).fit(X, y)
    assert kdb.structure_hierarchical_ and not hier.structure_hierarchical_ and kdb.structure_ == flat.structure_
    assert kdb.log_evidence_ == hier.log_evidence_ > flat.log_evidence_
    np.testing.assert_array_equal(kdb.predict_proba(Xt), hier.predict_proba(Xt))
    assert not np.allclose(kdb.predict_proba(Xt), flat.predict_proba(Xt))
    kdb.save(tmp_path / "kdb.bnb")
    back = bayesnb.load(tmp_path / "kdb.bnb")
    assert back.structure_hierarchical_ and back.log_evidence_ == kdb.log_evidence_
    np.testing.assert_array_equal(back.predict_proba(Xt), kdb.predict_proba(Xt))


def _complete_votes():
    """House votes' complete rows: every candidate scored on every row, its score its fit's evidence."""
    X, y = _votes()
    keep = X.notna().all(axis=1).to_numpy()
    return X[keep], y[keep]


def test_auto_with_alpha_set_scores_three_candidates_with_it():
    X, y = _complete_votes()
    m = bayesnb.CategoricalNB(structure="auto", alpha=0.5, auto_cv=False).fit(X, y)
    sc = m.structure_scores_.set_index("structure")
    assert list(sc.index) == ["naive", "tan", "kdb (k=2)"] and sc["cv_log_loss"].isna().all()
    ref = bayesnb.CategoricalNB(structure="kdb", alpha=0.5).fit(X, y)
    np.testing.assert_allclose(sc.loc["kdb (k=2)", "log_evidence"], ref.log_evidence_, rtol=1e-12)


def test_auto_scores_the_hierarchical_candidates_by_their_evidence():
    X, y = _complete_votes()
    m = bayesnb.CategoricalNB(structure="auto", auto_cv=False).fit(X, y)
    sc = m.structure_scores_.set_index("structure")["log_evidence"]
    for label, kw in [("tan (hierarchical)", dict(structure="tan", alpha="hierarchical")),
                      ("kdb (k=2, hierarchical)", dict(structure="kdb")),
                      ("kdb (k=2)", dict(structure="kdb", alpha=1.0))]:
        np.testing.assert_allclose(sc[label], bayesnb.CategoricalNB(**kw).fit(X, y).log_evidence_, rtol=1e-12)
    assert m.structure_scores_.loc[m.structure_scores_["chosen"], "structure"].item() == sc.idxmax()


def test_cv_check_refuses_a_structure_that_the_evidence_prefers_but_that_overfits():
    X, y = _hub_table(200, 0)
    fast = bayesnb.CategoricalNB(structure="auto", auto_cv=False).fit(X, y)
    auto = bayesnb.CategoricalNB(structure="auto").fit(X, y)
    naive = bayesnb.CategoricalNB().fit(X, y)
    sc = auto.structure_scores_
    best = sc["log_evidence"].idxmax()
    assert sc["structure"][best] != "naive" and fast.structure_kind_ != "naive"  # the evidence wants the hub
    assert auto.structure_kind_ == "naive" and sc.loc[sc["chosen"], "structure"].item() == "naive"
    assert all(v == () for v in auto.structure_.values())
    np.testing.assert_array_equal(auto.predict_proba(X), naive.predict_proba(X))
    # the figures: out-of-fold log losses, the structure re-learned in each fold; every fold knows the
    # categories of the whole fit (the guard works from per-fold statistics of the fit's encoding)
    label = sc["structure"][best]
    kw = dict(structure=label.split()[0], alpha="hierarchical" if "hierarchical" in label else 1.0)
    loss = {"naive": np.zeros(len(y)), "cand": np.zeros(len(y))}
    known = X.astype({c: pd.CategoricalDtype(sorted(X[c].unique())) for c in X})
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        for key, est in (("naive", bayesnb.CategoricalNB()), ("cand", bayesnb.CategoricalNB(**kw))):
            p = est.fit(known.iloc[train], y[train]).predict_proba(known.iloc[test])
            loss[key][test] = -np.log(p[np.arange(len(test)), y[test]])
    d = loss["cand"] - loss["naive"]
    np.testing.assert_allclose(sc["cv_log_loss"][0], loss["naive"].mean(), rtol=1e-10)
    np.testing.assert_allclose(sc["cv_log_loss"][best], loss["cand"].mean(), rtol=1e-10)
    np.testing.assert_allclose(sc["cv_diff_se"][best], d.std(ddof=1) / np.sqrt(len(d)), rtol=1e-10)
    assert d.mean() > sc["cv_diff_se"][best]
    # and it is a real overfit: on fresh rows the evidence's choice predicts worse than naive
    Xt, yt = _hub_table(3000, 1)
    assert log_loss(yt, fast.predict_proba(Xt)) > log_loss(yt, naive.predict_proba(Xt)) + 0.05


def test_cv_check_keeps_a_structure_that_generalises():
    X, y = _votes()
    m = bayesnb.CategoricalNB(structure="auto").fit(X, y)
    sc = m.structure_scores_
    assert m.structure_kind_ == "kdb" and m.structure_hierarchical_
    chosen = sc.loc[sc["chosen"]].iloc[0]
    assert chosen["cv_log_loss"] < sc["cv_log_loss"][0]
    assert sc["cv_log_loss"].notna().sum() == 2


@pytest.mark.parametrize("weights", ["weighted", "none"])
def test_cv_check_runs_with_row_weights(weights):
    X, y = _hub_table(120, 3)
    w = np.where(np.arange(len(y)) % 3 == 0, 2.0, 1.0) if weights == "weighted" else None
    m = bayesnb.CategoricalNB(structure="auto").fit(X, y, sample_weight=w)
    assert m.structure_kind_ == "naive"
    assert np.isfinite(m.structure_scores_["cv_log_loss"]).sum() == 2


def _independent(n=400, seed=0, d=6):
    """Binary features independent given the class (tests/test_structure.py's naive table)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.random.default_rng(0).uniform(0.2, 0.8, (2, d))
    return (rng.random((n, d)) < p[y]).astype(int), y


def test_auto_keeps_the_hierarchical_naive_candidate_as_the_naive_structure(tmp_path):
    """Where the evidence's best is the hierarchical naive candidate, ``auto`` keeps the naive structure
    (empty parent sets) with its hierarchical tables: the CV guard checked it against the user's
    (flat) naive model, and the model is ``alpha="hierarchical"`` under naive, saved and continued as such."""
    X, y = _independent()
    m = bayesnb.CategoricalNB(structure="auto").fit(X, y)
    sc = m.structure_scores_.set_index("structure")
    assert sc["chosen"].idxmax() == sc["log_evidence"].idxmax() == "naive (hierarchical)"
    assert m.structure_kind_ == "naive" and m.structure_hierarchical_
    assert all(v == () for v in m.structure_.values())
    ref = bayesnb.CategoricalNB(alpha="hierarchical").fit(X, y)
    np.testing.assert_allclose(m.predict_proba(X), ref.predict_proba(X), rtol=1e-12)
    # the guard: out-of-fold log losses of the flat naive model and of the hierarchical one
    loss = {"naive": np.zeros(len(y)), "cand": np.zeros(len(y))}
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        for key, est in (("naive", bayesnb.CategoricalNB()), ("cand", bayesnb.CategoricalNB(alpha="hierarchical"))):
            p = est.fit(X[train], y[train]).predict_proba(X[test])
            loss[key][test] = -np.log(p[np.arange(len(test)), y[test]])
    np.testing.assert_allclose(sc.loc["naive", "cv_log_loss"], loss["naive"].mean(), rtol=1e-10)
    np.testing.assert_allclose(sc.loc["naive (hierarchical)", "cv_log_loss"], loss["cand"].mean(), rtol=1e-10)
    assert sc["cv_log_loss"].notna().sum() == 2
    m.save(tmp_path / "m.bnb")
    back = bayesnb.load(tmp_path / "m.bnb")
    assert back.structure_kind_ == "naive" and back.structure_hierarchical_
    np.testing.assert_array_equal(back.predict_proba(X), m.predict_proba(X))
    X2, y2 = _independent(200, 1)
    m.partial_fit(X2, y2)  # continues the hierarchical naive model: its prior from the merged counts
    whole = bayesnb.CategoricalNB(alpha="hierarchical").fit(np.vstack([X, X2]), np.concatenate([y, y2]))
    np.testing.assert_allclose(m.predict_proba(X2), whole.predict_proba(X2), rtol=1e-10)


def test_auto_hierarchical_naive_is_the_hierarchical_naive_model_everywhere():
    """``auto``'s hierarchical naive choice is ``alpha="hierarchical"``'s naive model in every reader: its
    ``posterior_`` (what ``bayesnb posterior`` / ``info`` and ``bayesnb mcmc``'s exact side read), ``coef_``
    (linear: no parents) and the exact draws' variables, not the flat posterior beside a structure engine."""
    from bayesnb.cli.mcmc import exact_posterior

    X, y = _independent()
    m = bayesnb.CategoricalNB(structure="auto").fit(X, y)
    assert m.structure_scores_.set_index("structure")["chosen"].idxmax() == "naive (hierarchical)"
    ref = bayesnb.CategoricalNB(alpha="hierarchical").fit(X, y)
    flat = bayesnb.CategoricalNB().fit(X, y)
    for got, want, other in zip(m.posterior_.blocks, ref.posterior_.blocks, flat.posterior_.blocks):
        for a, b, c in zip(got.prior.concentration, want.prior.concentration, other.prior.concentration):
            np.testing.assert_allclose(a, b, rtol=1e-12)
            assert not np.allclose(a, c)
    np.testing.assert_allclose(m.coef_, ref.coef_, rtol=1e-12)
    assert m.log_evidence_ == pytest.approx(ref.log_evidence_, rel=1e-12)
    exact = exact_posterior(m)
    assert set(exact) == set(exact_posterior(ref))
    draws, want = (est.sample_posterior(5, random_state=0)["posterior"] for est in (m, ref))
    assert set(exact) == set(draws.data_vars) == set(want.data_vars)
    for v in exact:
        np.testing.assert_array_equal(draws[v].values, want[v].values)
