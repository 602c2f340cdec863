"""Synthesizer(support=): synthetic rows on the observed support (bayesnb.synth.observed_support).

A categorical node's posterior predictive gives every value some mass in every context; with
``support="observed"`` the sampler draws from each context's counts where it has data and from its
prior (the hierarchy's back-off) where it has none, so a linked pair of categories never seen
together in the real table is never drawn."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from bayesnb import Synthesizer
from bayesnb.datasets import load_penguins
from bayesnb.families import Categorical
from bayesnb.families.categorical import Dirichlets


@pytest.fixture(scope="module")
def rare_table():
    """2,000 rows: ``region`` (4 values), ``country`` (4 common values and 36 rare ones, each rare one with
    4-8 rows, all in one region), ``sector`` (3 values, depends on region)."""
    rng = np.random.default_rng(0)
    rows = []
    for r in range(36):  # rare countries: one region each
        for _ in range(rng.integers(4, 9)):
            rows.append((f"R{r % 4}", f"rare{r}"))
    while len(rows) < 2000:
        c = rng.integers(4)
        rows.append((f"R{(c + rng.integers(2)) % 4}", f"common{c}"))
    df = pd.DataFrame(rows, columns=["region", "country"])
    df["sector"] = np.where(rng.random(len(df)) < 0.8, df["region"].str[1].astype(int) % 3, rng.integers(3, size=len(df)))
    df["sector"] = "s" + df["sector"].astype(str)
    return df.sample(frac=1, random_state=0).reset_index(drop=True)


def _unseen_pair_share(real, synth, a, b):
    seen = set(zip(real[a], real[b]))
    return float(np.mean([pair not in seen for pair in zip(synth[a], synth[b])]))


@pytest.mark.parametrize("structure", ["tan", "kdb"])
def test_a_rare_category_is_only_drawn_with_the_parent_values_it_was_seen_with(rare_table, structure):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = {s: Synthesizer(structure=structure, latent=None, random_state=0, support=s).fit(rare_table)
                for s in ("observed", "smoothed")}
    observed, smoothed = (fits[s].sample(20000, random_state=1) for s in ("observed", "smoothed"))
    assert fits["observed"].model_.structure_ == fits["smoothed"].model_.structure_  # the fit does not depend on it
    links = fits["observed"].model_.structure_
    assert "region" in links["country"] or "country" in links["region"]  # the pair is linked
    assert _unseen_pair_share(rare_table, observed, "region", "country") == 0.0
    assert _unseen_pair_share(rare_table, smoothed, "region", "country") > 0.003  # the predictive spreads mass
    # every country is still drawn, in about its real share
    assert set(observed["country"]) == set(rare_table["country"])
    rare_real = rare_table["country"].str.startswith("rare").mean()
    assert abs(observed["country"].str.startswith("rare").mean() - rare_real) < 0.02


def test_the_categorical_family_keeps_counts_where_a_context_has_data_and_the_prior_where_not():
    prior = Dirichlets((np.array([[0.5, 0.25, 0.25], [0.2, 0.3, 0.5]]),))
    counts = np.array([[3.0, 0.0, 1.0], [0.0, 0.0, 0.0]])  # context 0 has 4 rows, context 1 none
    post = Dirichlets((prior.concentration[0] + counts,))
    got = Categorical().gen_observed_support(prior, post).concentration[0]
    np.testing.assert_allclose(got, [[3.0, 0.0, 1.0], [0.2, 0.3, 0.5]])


def test_given_forbid_and_probabilities_work_on_the_observed_support(rare_table):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = Synthesizer(structure="tan", latent=None, random_state=0).fit(rare_table)
    seen = set(rare_table.loc[rare_table["country"] == "rare5", "region"])
    rows, p = synth.sample(500, random_state=0, given={"country": "rare5"}, return_probability=True)
    assert (rows["country"] == "rare5").all() and set(rows["region"]) <= seen
    np.testing.assert_allclose(p, (rare_table["country"] == "rare5").mean(), rtol=0.05)
    other = sorted(set(rare_table["region"]) - seen)[0]
    with pytest.raises(ValueError, match="probability 0 on the observed support.*support='smoothed'"):
        synth.sample(5, random_state=0, given={"country": "rare5", "region": other})  # never seen together
    smooth = Synthesizer(structure="tan", latent=None, random_state=0, support="smoothed").fit(rare_table)
    assert smooth.sample(5, random_state=0, given={"country": "rare5", "region": other},
                         return_probability=True)[1] > 0  # the fitted model allows it
    rows = synth.sample(500, random_state=0, forbid=[{"sector": "s0"}])
    assert not (rows["sector"] == "s0").any()


def test_a_latent_class_model_samples_as_fitted_whatever_the_support():
    pg = load_penguins()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = (Synthesizer(target="species", latent=2, random_state=0, support=s).fit(pg) for s in ("observed", "smoothed"))
    pd.testing.assert_frame_equal(a.sample(50, random_state=2), b.sample(50, random_state=2))


def test_a_bad_support_is_refused_clearly():
    with pytest.raises(ValueError, match="support must be one of"):
        Synthesizer(support="all").fit(load_penguins())


def test_a_numeric_node_draws_only_bins_its_context_held():
    """Histogram bins: with support="observed" a context's values come from bins it held (the
    smoothed predictive gives every bin of the column some mass in every context; a value is then
    one of the bin's training values, of any context)."""
    rng = np.random.default_rng(1)
    group = rng.choice(["a", "b", "c"], size=1500)
    centre = pd.Series(group).map({"a": 0.0, "b": 50.0, "c": 100.0}).to_numpy()
    df = pd.DataFrame({"group": group, "value": centre + rng.gamma(2.0, 2.0, size=1500),
                       "other": rng.choice(["x", "y"], size=1500)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = {s: Synthesizer(structure="tan", latent=None, random_state=0, support=s).fit(df)
                for s in ("observed", "smoothed")}
    families = {name: type(fam).__name__ for names, fam in fits["observed"].model_.blocks_ for name in names}
    assert families["value"] == "Histogram"
    links = fits["observed"].model_.structure_
    assert "group" in links["value"] or "value" in links["group"]

    [edges] = [b.state.edges[list(b.names).index("value")] for b in fits["observed"].model_.posterior_.blocks
               if "value" in b.names]

    def unseen(rows):  # share of rows whose (group, bin of value) pair the real table never holds
        def pairs(t):
            return list(zip(t["group"], np.searchsorted(edges, t["value"].to_numpy(), side="right")))
        real = set(pairs(df))
        return float(np.mean([p not in real for p in pairs(rows)]))

    assert unseen(fits["observed"].sample(20000, random_state=0)) == 0.0
    assert unseen(fits["smoothed"].sample(20000, random_state=0)) > 0.003


@pytest.mark.parametrize("support", ["observed", "smoothed", "backoff"])
def test_the_support_is_saved_and_bayesnb_sample_draws_as_the_synthesizer(rare_table, tmp_path, support):
    from bayesnb.cli import main

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = Synthesizer(structure="tan", latent=None, random_state=0, support=support).fit(rare_table)
    synth.save(tmp_path / "s.bnb")
    back = Synthesizer.load(tmp_path / "s.bnb")
    assert back.support == support
    a = synth.sample(3000, random_state=4)
    pd.testing.assert_frame_equal(back.sample(3000, random_state=4), a)
    assert main(["-q", "sample", str(tmp_path / "s.bnb"), "-n", "3000", "--seed", "4", "-o", str(tmp_path / "r.csv")]) == 0
    rows = pd.read_csv(tmp_path / "r.csv")
    pd.testing.assert_frame_equal(rows[list(a.columns)], a, check_dtype=False)


def test_the_naive_model_keeps_each_class_s_observed_values(rare_table):
    """Under the naive structure the contexts are the classes: a country is drawn only in classes that held it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = {s: Synthesizer(target="region", structure="naive", latent=None, random_state=0, support=s).fit(rare_table)
                for s in ("observed", "smoothed")}
    assert fits["observed"].chosen_ == "naive"
    observed, smoothed = (fits[s].sample(20000, random_state=1) for s in ("observed", "smoothed"))
    assert _unseen_pair_share(rare_table, observed, "region", "country") == 0.0
    assert _unseen_pair_share(rare_table, smoothed, "region", "country") > 0.003


def test_a_file_of_another_estimator_holding_a_sample_support_is_refused(tmp_path, capsys):
    """Only a Synthesizer's NaiveBayes records how it samples: elsewhere the file is damaged (no traceback)."""
    from bayesnb import GaussianNB
    from bayesnb.io.persistence import load, save
    from bayesnb.io.persistence import ModelFileError
    from bayesnb.cli import main

    pg = load_penguins().dropna()
    gnb = GaussianNB().fit(pg[["bill_length_mm", "flipper_length_mm"]], pg["species"])
    gnb.sample_support_ = "observed"
    save(gnb, tmp_path / "g.bnb")
    with pytest.raises(ModelFileError, match="must not hold sample_support_"):
        load(tmp_path / "g.bnb")
    assert main(["-q", "sample", str(tmp_path / "g.bnb"), "-n", "5", "-o", str(tmp_path / "r.csv")]) != 0
    err = capsys.readouterr().err
    assert "sample_support_" in err and "Traceback" not in err


def test_the_observed_support_needs_a_fitted_naive_bayes():
    from bayesnb import CategoricalNB, NaiveBayes, ZeroProbabilityCondition
    from bayesnb.synth.observed_support import observed_support
    from sklearn.exceptions import NotFittedError

    assert issubclass(ZeroProbabilityCondition, ValueError)
    with pytest.raises(TypeError, match="needs a fitted NaiveBayes; received CategoricalNB"):
        observed_support(CategoricalNB().fit([[0], [1]], [0, 1]))
    with pytest.raises(NotFittedError):
        observed_support(NaiveBayes())
