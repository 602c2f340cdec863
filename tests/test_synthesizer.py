"""bayesnb.Synthesizer and ``bayesnb synthesize``: the model chosen by evidence / held-out likelihood,
synthetic rows with the training columns, dtypes and support, seeds, saving, and fidelity against
plain naive Bayes on the bundled tables."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp
from sklearn.model_selection import train_test_split

import bayesnb
from bayesnb import NaiveBayes, Synthesizer, synthetic_report
from bayesnb.cli import main
from bayesnb.datasets import load_house_votes, load_penguins


@pytest.fixture(scope="module")
def penguins_split():
    pg = load_penguins()
    return train_test_split(pg, test_size=0.3, stratify=pg["species"], random_state=0)


@pytest.fixture(scope="module")
def penguins_synth(penguins_split):
    """A Synthesizer of the penguins' training rows, target species, with the latent-class candidate."""
    train, _ = penguins_split
    return Synthesizer(target="species", latent_candidates=(1, 2, 3), random_state=0).fit(train)


@pytest.fixture(scope="module")
def unlabelled_synth():
    """The penguins without a target (one class; species a column like any other), latent candidate searched."""
    return Synthesizer(latent_candidates=(1, 2, 3), random_state=0).fit(load_penguins())


def _check_support(real, synth, model):
    """Columns, order, dtypes; categories seen; bounded families' draws within the real range; integers."""
    assert list(synth.columns) == list(real.columns)
    assert (synth.dtypes == real.dtypes).all(), (synth.dtypes, real.dtypes)
    families = {name: type(fam).__name__ for names, fam in model.blocks_ for name in names}
    for c in real.columns:
        if not pd.api.types.is_numeric_dtype(real[c].dtype) or pd.api.types.is_bool_dtype(real[c].dtype):
            assert set(synth[c].dropna()) <= set(real[c].dropna()), c
        else:
            values = synth[c].dropna().to_numpy(dtype=float)
            if families.get(c) == "Histogram":  # draws within the bins: observed values
                assert values.min() >= real[c].min() and values.max() <= real[c].max(), c
            if pd.api.types.is_integer_dtype(real[c].dtype):
                assert np.array_equal(values, np.round(values)), c


def test_samples_keep_columns_dtypes_support_and_classes(penguins_split, penguins_synth):
    train, _ = penguins_split
    out = penguins_synth.sample(600, random_state=1)
    assert out.shape == (600, train.shape[1]) and isinstance(out.index, pd.RangeIndex)
    _check_support(train, out, penguins_synth.model_)
    assert set(out["species"]) == set(train["species"])  # every class, and only those
    assert {"Histogram"} & {type(f).__name__ for _, f in penguins_synth.model_.blocks_}  # the range check ran


def test_samples_without_a_target(unlabelled_synth):
    pg = load_penguins()
    out = unlabelled_synth.sample(300, random_state=0)
    _check_support(pg, out, unlabelled_synth.model_)
    assert set(out["species"]) == set(pg["species"])  # the class column is modelled like any other
    assert len(unlabelled_synth.model_.classes_) == 1


@pytest.mark.parametrize("fixture", ["penguins_synth", "unlabelled_synth"])
def test_selection_lists_the_candidates_and_names_the_choice(fixture, request):
    synth = request.getfixturevalue(fixture)
    sel = synth.selection_
    assert list(sel.columns) == ["candidate", "log_evidence", "cv_log_loss", "holdout_loglik", "chosen", "note"]
    assert {"naive", "tan", "kdb (k=2)"} <= set(sel["candidate"])
    latent = sel["candidate"].str.startswith("latent class (naive, C=")
    assert latent.sum() == 1 and sel.loc[latent, "note"].item().startswith("search stopped: ")
    assert sel["chosen"].sum() == 1 and sel.loc[sel["chosen"], "candidate"].item() == synth.chosen_
    trace = synth.latent_search_  # every count the search tried, scored on the held-out rows
    assert list(trace.columns) == ["n_components", "cell_score", "holdout_loglik", "gap", "se"]
    best = trace.loc[trace["cell_score"].idxmax(), "n_components"]  # the count the cell score picks
    assert sel.loc[latent, "candidate"].item() == f"latent class (naive, C={best})"
    scored = sel.dropna(subset=["holdout_loglik"])
    assert "naive" in set(scored["candidate"]) and len(scored) >= 2
    if synth.chosen_ != "naive":  # the choice is never worse than the best other candidate held out
        others = scored.loc[~scored["candidate"].isin(["naive", synth.chosen_]), "holdout_loglik"]
        assert scored.loc[scored["chosen"], "holdout_loglik"].item() >= others.max()


def _test_loglik(synth, test, target):
    """Mean ``log p(x, y)`` of the test rows under the Synthesizer's choice, computed here independently."""
    X, y = synth.model_table(test)  # the missing indicators added: log p(x, m, y)
    codes = pd.Index(synth.model_.classes_).get_indexer(y)
    if synth.latent_ is None:
        return float(np.mean(synth.model_.predict_joint_log_proba(X)[np.arange(len(y)), codes]))
    fit = synth.latent_
    per_state = []  # log p(x, state) via score_samples with every other state's weight at 0
    for s in range(len(fit.group)):
        one = np.full(len(fit.group), -np.inf)
        one[s] = fit.posterior.class_log_prior[s]
        per_state.append(synth.model_.score_samples(X, latent=fit._replace(
            posterior=fit.posterior._replace(class_log_prior=one))))
    per_state = np.column_stack(per_state)
    own = fit.group[None, :] == codes[:, None]
    return float(np.mean(logsumexp(np.where(own, per_state, -np.inf), axis=1)))


def test_the_choice_beats_naive_on_unseen_rows(penguins_split, penguins_synth):
    train, test = penguins_split
    assert penguins_synth.chosen_ != "naive"
    X, y = penguins_synth.model_table(train)  # naive on the same table: the missing indicators included
    naive = NaiveBayes().fit(X, y)
    codes = pd.Index(naive.classes_).get_indexer(test["species"])
    naive_ll = float(np.mean(naive.predict_joint_log_proba(penguins_synth.model_table(test)[0])[np.arange(len(test)),
                                                                                                 codes]))
    assert _test_loglik(penguins_synth, test, "species") > naive_ll + 0.5


def test_a_latent_choice_beats_naive_on_unseen_rows():
    votes = load_house_votes()
    train, test = train_test_split(votes, test_size=0.3, random_state=0)
    synth = Synthesizer(structure="naive", latent=2, random_state=0).fit(train)
    assert synth.chosen_ == "latent class (naive, C=2)" and synth.latent_ is not None
    out = synth.sample(200, random_state=0)
    _check_support(votes, out, synth.model_)
    naive = NaiveBayes().fit(*synth.model_table(train))  # the same table: the missing indicators included
    assert _test_loglik(synth, test, None) > float(np.mean(naive.score_samples(synth.model_table(test)[0]))) + 0.5


def test_seeds_reproduce(unlabelled_synth):
    a, b = unlabelled_synth.sample(50, random_state=7), unlabelled_synth.sample(50, random_state=7)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(unlabelled_synth.sample(50, random_state=8))
    again = Synthesizer(latent_candidates=(1, 2, 3), random_state=0).fit(load_penguins())
    assert again.chosen_ == unlabelled_synth.chosen_
    pd.testing.assert_frame_equal(again.selection_, unlabelled_synth.selection_)
    pd.testing.assert_frame_equal(again.sample(50, random_state=7), a)


def test_pair_trends_beat_naive_and_shapes_stay_close_on_penguins(penguins_split, penguins_synth):
    train, _ = penguins_split
    naive = NaiveBayes().fit(train.drop(columns="species"), train["species"])
    ours, theirs = [], []
    for seed in range(3):
        X, y = naive.sample(len(train), random_state=seed)
        plain = X.assign(species=y)[list(train.columns)]
        ours.append(synthetic_report(train, penguins_synth.sample(len(train), random_state=seed), metrics=()).summary)
        theirs.append(synthetic_report(train, plain, metrics=()).summary)
    mean = lambda rows, k: float(np.mean([r[k] for r in rows]))  # noqa: E731
    # measured (4 seeds): pair trends 0.899 vs 0.868; column shapes 0.933 vs 0.937
    assert mean(ours, "column_pair_trends") > mean(theirs, "column_pair_trends") + 0.01
    assert mean(ours, "column_shapes") > mean(theirs, "column_shapes") - 0.02


def test_save_and_load_give_the_same_rows(penguins_split, tmp_path):
    train, _ = penguins_split
    synth = Synthesizer(target="species", latent=None, random_state=0).fit(train)
    path = tmp_path / "synth.bnb"
    synth.save(path)
    back = Synthesizer.load(path)
    assert back.target == "species" and back.chosen_ == synth.chosen_ and back.columns_ == list(train.columns)
    assert back.numeric == "histogram" and back.model_.features == "histogram"
    pd.testing.assert_frame_equal(back.sample(40, random_state=3), synth.sample(40, random_state=3))
    assert isinstance(bayesnb.load(path), NaiveBayes)
    with pytest.raises(FileExistsError):
        synth.save(path)
    unlabelled = Synthesizer(latent=None).fit(train)
    unlabelled.save(tmp_path / "one.bnb")
    pd.testing.assert_frame_equal(Synthesizer.load(tmp_path / "one.bnb").sample(20, random_state=1),
                                  unlabelled.sample(20, random_state=1))


@pytest.mark.parametrize("kwargs, data, match", [
    ({"target": "nope"}, None, "not a column"),
    ({"latent": 0}, None, "latent must be"),
    ({"latent_candidates": ()}, None, "latent_candidates must be"),
    ({"latent_candidates": (0, 2)}, None, "latent_candidates must be"),
    ({"structure": "forest"}, None, "structure must be"),
    ({"holdout": 1.5}, None, "holdout"),
    ({"numeric": "gaussian"}, None, "numeric must be"),
    ({"target": "sex"}, None, "missing label"),
    ({}, "array", "DataFrame"),
])
def test_clear_errors(kwargs, data, match):
    pg = load_penguins()
    with pytest.raises((ValueError, TypeError), match=match):
        Synthesizer(**kwargs).fit(pg.to_numpy() if data == "array" else pg)


def test_numeric_columns_are_histograms_drawing_training_values(penguins_split, penguins_synth):
    """numeric="histogram" (the default): every numeric column a Histogram, each synthetic value one the column
    holds in the training rows; numeric="auto" keeps the evidence's parametric families (NaiveBayes()'s)."""
    train, _ = penguins_split
    numeric = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g", "year"]
    kinds = {c: type(f).__name__ for cols, f in penguins_synth.model_.blocks_ for c in cols}
    assert {kinds[c] for c in numeric} == {"Histogram"}
    out = penguins_synth.sample(2000, random_state=5)
    for c in numeric:
        drawn = out[c].dropna()
        assert len(drawn) > 1900 and drawn.isin(set(train[c].dropna())).all(), c
    auto = Synthesizer(target="species", latent=None, numeric="auto", random_state=0).fit(train)
    plain = NaiveBayes().fit(train.drop(columns="species"), train["species"])
    own = {c: repr(f) for cols, f in plain.blocks_ for c in cols}
    assert {c: repr(f) for cols, f in auto.model_.blocks_ for c in cols if c in numeric} == \
        {c: own[c] for c in numeric}
    assert any(own[c].startswith("LogNormal") for c in numeric)  # so the two settings differ on this table


def test_sample_draws_from_the_plug_in_unless_asked_for_a_posterior_draw(penguins_synth):
    pd.testing.assert_frame_equal(penguins_synth.sample(50, random_state=3),
                                  penguins_synth.sample(50, random_state=3, parameter_uncertainty=False))
    # a posterior draw per call: the class shares of repeated calls vary beyond the rows' own sampling
    # noise, which is all the plug-in's vary by (about 240 training rows against 2000 drawn: ~9x the variance)
    shares = {pu: [(penguins_synth.sample(2000, random_state=s, parameter_uncertainty=pu)["species"] == "Adelie").mean()
                   for s in range(30)] for pu in (False, True)}
    p = np.mean(shares[False])
    assert np.var(shares[False], ddof=1) < 2 * p * (1 - p) / 2000 < np.var(shares[True], ddof=1)


def test_cli_sample_refuses_proper_where_it_does_not_apply(penguins_synth, tmp_path, capsys):
    synth_file, model_file = tmp_path / "s.bnb", tmp_path / "m.bnb"
    penguins_synth.save(synth_file)
    pg = load_penguins()
    NaiveBayes().fit(pg.drop(columns="species"), pg["species"]).save(model_file)
    for path, extra, says in ((model_file, [], "always draws"), (synth_file, ["--prior"], "priors")):
        assert main(["-q", "sample", str(path), "-n", "5", "--proper", *extra, "-o", str(tmp_path / "r.csv")]) == 2
        err = capsys.readouterr().err
        assert "--proper" in err and says in err and len(err.strip().splitlines()) == 1, err
        assert not (tmp_path / "r.csv").exists()


def test_sample_needs_a_positive_count(penguins_synth):
    with pytest.raises(ValueError, match="n_samples"):
        penguins_synth.sample(0)


def test_cli_synthesize_writes_the_python_api_rows(tmp_path, capsys):
    pg = load_penguins()
    data, out = tmp_path / "pg.csv", tmp_path / "synth.csv"
    pg.to_csv(data, index=False)
    argv = ["-q", "synthesize", str(data), "-n", "25", "--target", "species", "--latent", "none", "--seed", "4"]
    assert main([*argv, "-o", str(out)]) == 0, capsys.readouterr().err
    written = pd.read_csv(out)
    real = pd.read_csv(data)
    assert written.shape == (25, pg.shape[1]) and list(written.columns) == list(pg.columns)
    expected = Synthesizer(target="species", latent=None, random_state=4).fit(real).sample(25, random_state=4)
    pd.testing.assert_frame_equal(written, expected.astype(written.dtypes.to_dict()), check_exact=False, rtol=1e-12)
    assert main([*argv, "-o", str(out)]) == 2  # an existing file needs --force
    assert "refusing to replace" in capsys.readouterr().err
    assert main(["-q", "synthesize", str(data), "-n", "5", "--target", "island_x"]) == 2
    assert "no column 'island_x'" in capsys.readouterr().err
    assert main([*argv, "--proper", "-o", str(out), "--force"]) == 0, capsys.readouterr().err
    proper = (Synthesizer(target="species", latent=None, random_state=4).fit(real)
              .sample(25, random_state=4, parameter_uncertainty=True))
    pd.testing.assert_frame_equal(pd.read_csv(out), proper.astype(written.dtypes.to_dict()), check_exact=False,
                                  rtol=1e-12)
    assert main([*argv, "--numeric-family", "auto", "-o", str(out), "--force"]) == 0, capsys.readouterr().err
    expected = (Synthesizer(target="species", latent=None, random_state=4, numeric="auto").fit(real)
                .sample(25, random_state=4))
    pd.testing.assert_frame_equal(pd.read_csv(out), expected.astype(written.dtypes.to_dict()), check_exact=False,
                                  rtol=1e-12)


def test_datetimes_categories_bools_and_an_integer_target_keep_their_dtypes(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    day = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 1000, n), unit="D")
    df = pd.DataFrame({"c": pd.Categorical(rng.choice(["a", "b", "c"], n)), "t": rng.integers(0, 2, n),
                       "b": rng.random(n) < 0.3, "k": rng.integers(0, 50, n).astype("int32"), "day": day,
                       "at": (day + pd.to_timedelta(rng.integers(0, 30, n), unit="D")).tz_localize("Europe/Paris")})
    df.loc[3, "day"] = pd.NaT
    synth = Synthesizer(target="t", latent=None, random_state=0).fit(df)
    out = synth.sample(200, random_state=0)
    assert (out.dtypes == df.dtypes).all(), (out.dtypes, df.dtypes)
    assert synth.datetime_columns_ == ["day", "at"]
    assert set(out["t"]) == {0, 1} and set(out["c"]) <= {"a", "b", "c"}
    for c in ("day", "at"):  # histogram draws (the family the seconds chose): observed instants
        assert out[c].dropna().between(df[c].min(), df[c].max()).all()  # (a NaT now and then: "day" has one)
    assert out["at"].notna().all() and list(synth.missing_indicators_) == ["day"]
    with pytest.raises(NotImplementedError, match="datetime"):
        synth.save(tmp_path / "d.bnb")


def test_a_class_with_one_row_is_kept_and_sampled():
    pg = load_penguins().iloc[:120].copy()
    pg.loc[pg.index[0], "species"] = "Rare"  # one row: the holdout split cannot stratify
    with warnings.catch_warnings():  # 120 rows cap the component search (a SearchEdgeWarning says so)
        warnings.simplefilter("ignore", bayesnb.SearchEdgeWarning)
        synth = Synthesizer(target="species", latent_candidates=(1, 2), random_state=0).fit(pg)
    assert np.isfinite(synth.selection_["holdout_loglik"].dropna()).all() and len(synth.selection_.dropna(
        subset=["holdout_loglik"])) >= 2
    assert "Rare" in set(synth.model_.classes_)
    assert set(synth.sample(2000, random_state=0)["species"]) <= set(pg["species"])


def test_an_explicit_structure_is_compared_with_naive_and_the_latent_model():
    synth = Synthesizer(target="species", structure="kdb", latent_candidates=(1, 2), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bayesnb.SearchEdgeWarning)
        synth.fit(load_penguins())
    sel = synth.selection_.set_index("candidate")
    edges = ["kdb (k=2, hierarchical)", "kdb (k=2, hierarchical) [hierarchical edges]"]  # its edge score, held out
    wider = sel.index.str.startswith("kdb (k=") & ~sel.index.isin(edges)  # k widened held out
    assert {"naive", *edges} <= set(sel.index) and len(sel) == 4 + wider.sum() and wider.sum() >= 1
    assert sel.loc[wider, "note"].str.contains("against k=").all()
    assert sel["holdout_loglik"].notna().all() and np.isfinite(sel.loc["kdb (k=2, hierarchical)", "log_evidence"])
    assert sel["chosen"].sum() == 1


def test_a_tiny_table_still_fits_and_samples():
    from bayesnb.datasets import load_play_tennis

    tennis = load_play_tennis()  # 14 rows: a held-out fifth of 3 rows
    synth = Synthesizer(target="PlayTennis", random_state=0).fit(tennis)
    out = synth.sample(30, random_state=0)
    _check_support(tennis, out, synth.model_)
    assert synth.selection_["chosen"].sum() == 1


def test_the_hierarchical_naive_choice_is_named_as_its_row_and_refitted_as_itself():
    """``auto`` may keep the naive structure with hierarchical tables: the Synthesizer names it by its
    ``structure_scores_`` row and refits it (step 2) with ``alpha="hierarchical"`` under naive."""
    from bayesnb.synth.search import variant as _variant

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    p = np.random.default_rng(0).uniform(0.2, 0.8, (2, 6))
    X = pd.DataFrame((rng.random((400, 6)) < p[y]).astype(int).astype(str), columns=[f"x{j}" for j in range(6)])
    m = NaiveBayes(structure="auto").fit(X, y)
    name, params = _variant(m)
    assert name == m.structure_scores_.loc[m.structure_scores_["chosen"], "structure"].item() == "naive (hierarchical)"
    ref = NaiveBayes(**params).fit(X, y)
    np.testing.assert_allclose(ref.predict_proba(X), m.predict_proba(X), rtol=1e-12)
    assert _variant(NaiveBayes().fit(X, y)) == ("naive", {"structure": "naive"})
