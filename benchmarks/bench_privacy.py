"""Benchmark: what differential privacy costs, at epsilon in {0.1, 0.5, 1, 2, 5, inf}.

On the bundled house votes (target ``party``; every vote declared as ``n``/``y``) and
penguins (target ``species``, rows with a missing cell dropped; the numeric columns with
bounds declared from the domain, not read from the data), for each seed: split 70/30
(stratified), fit on the 70% with ``privacy=bayesnb.DP(epsilon, bounds=..., classes=...)``
(Laplace; ``inf`` = no privacy), then

- ``accuracy``: on the 30%;
- synthetic fidelity: ``model.sample(n_train)`` against the 70% with
  :func:`bayesnb.synthetic_report` (the 30% as ``real_test``): mean per-column TVD, mean
  absolute difference of the pairwise Cramér's V, TSTR accuracy (train on synthetic, test
  on real);
- ``diffprivlib GaussianNB`` (penguins' numeric columns, the same bounds and epsilon), when
  diffprivlib imports (0.6.6 does not import with scikit-learn 1.9: its tree module reads
  ``sklearn.tree._tree.DOUBLE``; the column is then left out and the reason printed).

Printed as a markdown table, mean ± sd over the seeds. A third table is the issue's
30,000-row check: 30,000 training and 10,000 test rows drawn from the exact house-votes model
(fitted on all 435 rows; no bundled table has 30,000 rows), accuracy only.

With ``--text``, count data instead (MultinomialNB, the block's budget on one count vector
per row): 20 Newsgroups (its bydate split, 11,314 train / 7,532 test documents, 20 classes)
and SMS spam (5,574 messages, 70/30 stratified split), read from ``../shared/data`` (skipped,
with the reason printed, when absent). Words are hashed (``HashingVectorizer``, no sign): the
columns are public and no vocabulary is read from the training text. Two releases
(:data:`TEXT_MECHANISMS`, ``--mechanism`` picks; docs/privacy.md): ``l1``, raw counts in 2**14
columns with each row scaled down to ``DP(row_length=20)`` tokens and Laplace noise; ``l2``,
``log(1 + count)`` in 2**16 columns without English stop words, each row scaled down to
Euclidean norm 1 (``DP(row_norm="l2")``), Gaussian noise (delta 1e-5), 5% of the budget on the
class counts. Per epsilon: test accuracy (mean ± sd over the noise seeds), plus two references:
``inf (no privacy)``, the ordinary fit on the same features, and ``inf, rows scaled``, the same
on the scaled rows without noise (the cost of the row bound alone). ``--diagnose`` adds, at
epsilon 1, the noise sd per cell against the number of cells per class whose exact count
exceeds it, for several releases; ``--sweep`` prints instead the validation accuracy per
``DP(noise_prior=...)`` on a 70/30 split of each training set (test rows unused);
``--noise-prior`` and ``--row-length`` override the release's value. ``--postprocess`` prints
the validation accuracy (training parts only) of post-processings of the l2 release
(benchmarks/_text_post.py: empirical-Bayes deconvolution of the noisy cells, and semi-supervised
EM on public unlabelled documents); ``--unlabelled``, the test accuracy of the l2 release alone
and refined by the estimator's ``fit_semi_supervised(..., public_unlabeled=True)``, each test half
the unlabelled pool of the model scoring the other; ``--unlabelled-sweep``, the validation accuracy
(training parts only) per ``unlabeled_weight``, fixed or by rule (benchmarks/bench_privacy_text_em.py);
``--unlabelled-votes`` (no ``--text``), the same rules' test accuracy on house votes and penguins with
a public unlabelled half.

With ``--adult DIR`` (UCI Adult's ``adult.data`` and ``adult.test``, not shipped: see
``benchmarks/_census.py``), the census table too (``--census-only``: only it): NaiveBayes on
the official split (32,561 train / 16,281 test rows), target ``income``, classes declared,
every categorical column's categories and every numeric column's bounds declared from UCI's
codebook (:data:`ADULT_CATEGORIES`, :data:`ADULT_BOUNDS`; nothing read from the data). Two
models: all six numeric columns Gaussian, or capital gain and loss as ``Hurdle(LogNormal())``
(bounds ``(1, top)`` on their non-zero cells). Missing cells (``?`` in workclass, occupation,
native-country) are left missing: a private fit counts observed cells only, and a missing cell
moves no count, so the sensitivities hold unchanged. Per epsilon: test accuracy over the noise
seeds (mean ± sd, worst seed, gap to the same model without privacy), the synthetic report of
the Gaussian model's first seed (``--no-fidelity``: none), and diffprivlib's GaussianNB on the
six numeric columns with the same bounds when it imports. When ``DIR`` is not given or lacks
the files, the census part is skipped with a message.

With ``--structure``, private naive against private TAN and k-DB (docs/privacy.md, "Private
structure") on house votes and penguins at epsilon 1 and 5 (each seed its own 70/30 split and
noise), test accuracy mean ± sd; ``--shares`` also fits TAN with other structure shares of epsilon
(``STRUCTURE_SHARE`` patched per fit: the experiment behind the default). With ``--adult-file
FILE`` (UCI's ``adult.data``), the same on the census rows (70/30 split of that file, codebook
categories and bounds).

Usage::

    python benchmarks/bench_privacy.py [--seeds 5] [--adult DIR]
    python benchmarks/bench_privacy.py --adult DIR --census-only [--seeds 10] [--no-fidelity] [--ablate]
    python benchmarks/bench_privacy.py --text [--seeds 5] [--diagnose] [--mechanism l2] [--noise-prior 3]
    python benchmarks/bench_privacy.py --text --sweep [--seeds 3]
    python benchmarks/bench_privacy.py --text --postprocess [--seeds 3]
    python benchmarks/bench_privacy.py --text --unlabelled [--seeds 3]
    python benchmarks/bench_privacy.py --text --unlabelled-sweep [--seeds 2]
    python benchmarks/bench_privacy.py --unlabelled-votes [--seeds 5]
    python benchmarks/bench_privacy.py --structure [--seeds 5] [--shares 0.1 0.3 0.5] [--adult-file FILE]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _census import NOT_GIVEN, TARGET, load_adult
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.model_selection import train_test_split

import bayesnb as bn
from bayesnb.datasets import load_house_votes, load_penguins
from bayesnb.families.dp_release import scale_rows

EPSILONS = [0.1, 0.5, 1.0, 2.0, 5.0, math.inf]
PENGUIN_BOUNDS = {"bill_length_mm": (30, 60), "bill_depth_mm": (13, 22), "flipper_length_mm": (170, 235),
                  "body_mass_g": (2500, 6500)}
DIFFPRIVLIB_MISSING: set = set()
PENGUIN_CATEGORIES = [["Biscoe", "Dream", "Torgersen"], ["female", "male"], [2007, 2008, 2009]]


def votes():
    """House votes: (table, target, model for a DP setting or None)."""
    df = load_house_votes()
    d = df.shape[1] - 1
    return df, "party", lambda dp: bn.CategoricalNB(categories=[["n", "y"]] * d, privacy=dp), None


def penguins():
    """Penguins (complete rows): (table, target, model for a DP setting or None, bounds)."""
    df = load_penguins().dropna().reset_index(drop=True)
    features = {tuple(PENGUIN_BOUNDS): bn.Gaussian(),
                ("island", "sex", "year"): bn.Categorical(categories=PENGUIN_CATEGORIES)}
    return df, "species", lambda dp: bn.NaiveBayes(features, privacy=dp), PENGUIN_BOUNDS


def diffprivlib_accuracy(train, test, target, eps, seed, bounds=None, classes=None):
    """diffprivlib's GaussianNB on the numeric columns (None when diffprivlib does not import)."""
    try:
        from diffprivlib.models import GaussianNB
    except ImportError as e:
        DIFFPRIVLIB_MISSING.add(f"{type(e).__name__}: {e}")
        return None
    bounds = PENGUIN_BOUNDS if bounds is None else bounds
    cols = list(bounds)
    lo = [bounds[c][0] for c in cols]
    hi = [bounds[c][1] for c in cols]
    classes = sorted(train[target].unique()) if classes is None else classes
    if math.isinf(eps):
        from sklearn.naive_bayes import GaussianNB as SkGNB

        m = SkGNB().fit(train[cols].to_numpy(float), train[target])
    else:
        m = GaussianNB(epsilon=eps, bounds=(lo, hi), classes=classes, random_state=seed)
        m.fit(np.clip(train[cols].to_numpy(float), lo, hi), train[target])
    return float((m.predict(test[cols].to_numpy(float)) == test[target]).mean())


def run(dataset, seeds):
    df, target, make, bounds = dataset()
    classes = sorted(df[target].unique())
    rows = []
    for eps in EPSILONS:
        for seed in range(seeds):
            train, test = train_test_split(df, test_size=0.3, stratify=df[target], random_state=seed)
            X, y = train.drop(columns=[target]), train[target]
            dp = None if math.isinf(eps) else bn.DP(eps, bounds=bounds, classes=classes, random_state=1000 + seed)
            model = make(dp).fit(X, y)
            acc = float((model.predict(test.drop(columns=[target])) == test[target]).mean())
            Xs, ys = model.sample(len(train), random_state=seed)
            synth = Xs.assign(**{target: ys})[train.columns]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rep = bn.synthetic_report(train, synth, target, real_test=test, random_state=seed).summary
            row = {"epsilon": eps, "accuracy": acc, "mean TVD": rep["mean_tvd"],
                   "mean abs V diff": rep["mean_abs_cramers_v_diff"], "TSTR acc": rep["tstr"]}
            if bounds is not None:
                row["diffprivlib GaussianNB acc"] = diffprivlib_accuracy(train, test, target, eps, seed)
            rows.append(row)
    return pd.DataFrame(rows)


def large(seeds, n_train=30_000, n_test=10_000):
    """Accuracy on rows simulated from the exact house-votes model, private and not."""
    df, target, make, _ = votes()
    source = make(None).fit(df.drop(columns=[target]), df[target])
    classes = sorted(df[target].unique())
    rows = []
    for seed in range(seeds):
        Xtr, ytr = source.sample(n_train, random_state=seed)
        Xte, yte = source.sample(n_test, random_state=10_000 + seed)
        for eps in EPSILONS:
            dp = None if math.isinf(eps) else bn.DP(eps, classes=classes, random_state=1000 + seed)
            model = make(dp).fit(Xtr, ytr)
            rows.append({"epsilon": eps, "seed": seed, "accuracy": float((model.predict(Xte) == yte).mean())})
    frame = pd.DataFrame(rows)
    exact = frame[np.isinf(frame["epsilon"])].set_index("seed")["accuracy"]
    frame["accuracy - exact (same seed)"] = frame["accuracy"] - frame["seed"].map(exact)
    return frame.drop(columns=["seed"])


#: the census (UCI Adult) codebook, public knowledge from UCI's adult.names (not read from the data):
#: each categorical column's values, and the range of each numeric column (age 17-90 and hours
#: 1-99 as the survey's extract; capital gains capped at 99,999 by the census top-code, capital
#: losses up to 4,356; education-num codes 1-16; fnlwgt a survey weight, 10,000 to 1,500,000)
ADULT_CATEGORIES = {
    "workclass": ["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov", "State-gov",
                  "Without-pay", "Never-worked"],
    "education": ["Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm", "Assoc-voc", "9th",
                  "7th-8th", "12th", "Masters", "1st-4th", "10th", "Doctorate", "5th-6th", "Preschool"],
    "marital-status": ["Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
                       "Married-spouse-absent", "Married-AF-spouse"],
    "occupation": ["Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial", "Prof-specialty",
                   "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical", "Farming-fishing",
                   "Transport-moving", "Priv-house-serv", "Protective-serv", "Armed-Forces"],
    "relationship": ["Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "sex": ["Female", "Male"],
    "native-country": ["United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
                       "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China", "Cuba", "Iran",
                       "Honduras", "Philippines", "Italy", "Poland", "Jamaica", "Vietnam", "Mexico", "Portugal",
                       "Ireland", "France", "Dominican-Republic", "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia",
                       "Hungary", "Guatemala", "Nicaragua", "Scotland", "Thailand", "Yugoslavia", "El-Salvador",
                       "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands"],
}
ADULT_BOUNDS = {"age": (17, 90), "fnlwgt": (10_000, 1_500_000), "education-num": (1, 16),
                "capital-gain": (0, 99_999), "capital-loss": (0, 4_356), "hours-per-week": (1, 99)}
ADULT_CLASSES = ["<=50K", ">50K"]


def adult_features(hurdle):
    """The census model: declared categories, Gaussian numeric columns (or capital gain and loss as a
    Hurdle at 0 with a LogNormal base, ``hurdle=True``), and the bounds of its numeric columns."""
    cats = bn.Categorical(categories=list(ADULT_CATEGORIES.values()))
    if not hurdle:
        return {tuple(ADULT_CATEGORIES): cats, tuple(ADULT_BOUNDS): bn.Gaussian()}, ADULT_BOUNDS
    capital = ("capital-gain", "capital-loss")
    gauss = tuple(c for c in ADULT_BOUNDS if c not in capital)
    bounds = {**ADULT_BOUNDS, "capital-gain": (1, 99_999), "capital-loss": (1, 4_356)}  # the base's cells are > 0
    return {tuple(ADULT_CATEGORIES): cats, gauss: bn.Gaussian(), capital: bn.Hurdle(bn.LogNormal())}, bounds


def adult_run(train, test, seeds, fidelity):
    """Census: test accuracy per epsilon and model; the synthetic report of ``sample(n_train)`` of the
    first model's first seed (its gradient-boosted TSTR on 32,561 rows is the slow part)."""
    X, y = train.drop(columns=[TARGET]), train[TARGET]
    Xt, yt = test.drop(columns=[TARGET]), test[TARGET]
    rows = []
    for name, hurdle in (("Gaussian numeric", False), ("capital as Hurdle(LogNormal)", True)):
        features, bounds = adult_features(hurdle)
        for eps in EPSILONS:
            for seed in range(1 if math.isinf(eps) else seeds):
                dp = None if math.isinf(eps) else bn.DP(eps, bounds=bounds, classes=ADULT_CLASSES,
                                                       random_state=1000 + seed)
                model = bn.NaiveBayes(features, privacy=dp).fit(X, y)
                row = {"model": name, "epsilon": eps, "accuracy": float((model.predict(Xt) == yt).mean())}
                if fidelity and seed == 0 and not hurdle:
                    Xs, ys = model.sample(len(train), random_state=seed)
                    synth = Xs.assign(**{TARGET: ys})[train.columns]
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        rep = bn.synthetic_report(train, synth, TARGET, real_test=test, random_state=seed).summary
                    row.update({"mean TVD": rep["mean_tvd"], "mean KS": rep["mean_ks"],
                                "mean abs V diff": rep["mean_abs_cramers_v_diff"],
                                "TSTR acc": rep["tstr"]})
                if not hurdle:
                    row["diffprivlib GaussianNB acc"] = diffprivlib_accuracy(
                        train, test, TARGET, eps, seed, ADULT_BOUNDS, ADULT_CLASSES)
                rows.append(row)
    return pd.DataFrame(rows)


def adult_table(frame):
    """Markdown: per model and epsilon, mean ± sd (over seeds) and min of accuracy, its gap to the model's
    non-private accuracy, and the other columns (fidelity: seed 0 only)."""
    extra = [c for c in frame.columns if c not in ("model", "epsilon", "accuracy") and frame[c].notna().any()]
    head = ["model", "epsilon", "accuracy (mean ± sd)", "worst seed", "mean - no privacy", *extra]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for name, g in frame.groupby("model", sort=False):
        exact = g[np.isinf(g["epsilon"])]["accuracy"].mean()
        for eps, h in g.groupby("epsilon", sort=False):
            acc = h["accuracy"]
            sd = acc.std(ddof=1) if len(acc) > 1 else 0.0
            cells = [f"{h[c].mean():.3f}" if h[c].notna().any() else "" for c in extra]
            lines.append(f"| {name} | {'inf (no privacy)' if math.isinf(eps) else f'{eps:g}'} | {acc.mean():.4f} ± "
                         f"{sd:.4f} | {acc.min():.4f} | {acc.mean() - exact:+.4f} |" + "".join(f" {c} |" for c in cells))
    return "\n".join(lines)


def _exact_release(cls, private):
    """A ``dp_stats`` that returns the exact statistics for ``cls`` itself (not its subclasses)."""
    def release(self, block, resp, state, *args, **kwargs):
        if type(self) is cls:
            return self.stats(block, resp, state)
        return private(self, block, resp, state, *args, **kwargs)
    return release


def adult_ablation(train, test, seeds, eps=1.0):
    """Which block's noise costs accuracy: at ``eps``, each family's statistics in turn released exactly
    (its ``dp_stats`` replaced by ``stats`` for the run: a diagnosis, **not** a private fit), the rest
    as in a private fit with the same split and seeds."""
    X, y = train.drop(columns=[TARGET]), train[TARGET]
    Xt, yt = test.drop(columns=[TARGET]), test[TARGET]
    lines = ["| model | exact block | accuracy (mean ± sd) | worst seed |", "|---|---|---|---|"]
    for name, hurdle in (("Gaussian numeric", False), ("capital as Hurdle(LogNormal)", True)):
        features, bounds = adult_features(hurdle)
        for exact in (None, *{type(f) for f in features.values()}):
            saved = None if exact is None else exact.dp_stats
            if exact is not None:
                exact.dp_stats = _exact_release(exact, saved)
            try:
                acc = [float((bn.NaiveBayes(features, privacy=bn.DP(eps, bounds=bounds, classes=ADULT_CLASSES,
                                                                    random_state=1000 + seed)).fit(X, y)
                              .predict(Xt) == yt).mean()) for seed in range(seeds)]
            finally:
                if exact is not None:
                    exact.dp_stats = saved
            label = "none (all private)" if exact is None else exact.__name__
            lines.append(f"| {name} | {label} | {np.mean(acc):.4f} ± {np.std(acc, ddof=1):.4f} | {min(acc):.4f} |")
    return "\n".join(lines)


def adult_main(folder, seeds, fidelity, ablate=False):
    data = load_adult(folder)
    if data is None:
        print(f"\n### census: {NOT_GIVEN}")
        return
    train, test = data
    t0 = time.perf_counter()
    frame = adult_run(train, test, seeds, fidelity)
    print(f"\n### census (UCI Adult, official split: {len(train)} train / {len(test)} test rows), NaiveBayes: "
          f"{seeds} noise seeds, {time.perf_counter() - t0:.1f} s\n")
    print(adult_table(frame))
    majority = test[TARGET].value_counts(normalize=True).iloc[0]
    print(f"\n(majority class of the test set: {majority:.4f}; missing cells: {int(train.isna().sum().sum())} in "
          "train, left missing: a private fit counts only observed cells)")
    if ablate:
        t0 = time.perf_counter()
        out = adult_ablation(train, test, seeds)
        print(f"\n### census, epsilon = 1, one family's statistics exact (diagnosis): {seeds} seeds, "
              f"{time.perf_counter() - t0:.1f} s\n")
        print(out)


DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def newsgroups():
    """20 Newsgroups bydate: (train texts, train labels, test texts, test labels) or a reason it is absent."""
    path = DATA / "20news-bydate.jsonl.gz"
    if not path.exists():
        return f"{path} not found"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    tr = [r for r in recs if r["split"] == "train"]
    te = [r for r in recs if r["split"] == "test"]
    return ([r["text"] for r in tr], np.array([r["label"] for r in tr]),
            [r["text"] for r in te], np.array([r["label"] for r in te]))


def sms_spam():
    """SMS spam, 70/30 stratified split (seed 0), or a reason it is absent."""
    path = DATA / "SMSSpamCollection.tsv"
    if not path.exists():
        return f"{path} not found"
    df = pd.read_csv(path, sep="\t", header=None, names=["label", "text"], quoting=3)
    tr, te = train_test_split(df, test_size=0.3, stratify=df["label"], random_state=0)
    return list(tr["text"]), tr["label"].to_numpy(), list(te["text"]), te["label"].to_numpy()


#: the text mechanisms compared: the count-block release of docs/privacy.md "Text (count blocks)"
TEXT_MECHANISMS = {
    # rows' total count bounded by L, Laplace noise per cell, raw hashed counts (the first mechanism)
    "l1": {"features": {"n_features": 2**14, "stop_words": None, "tf": "raw"},
           "dp": {"row_length": 20.0}},
    # rows' Euclidean norm bounded by 1, Gaussian noise (L2 sensitivity sqrt 2), sublinear counts,
    # English stop words dropped, 5% of the budget on the class counts; noise_prior 0 (the value
    # --sweep picks on SMS spam's training part; --noise-prior overrides it)
    "l2": {"features": {"n_features": 2**16, "stop_words": "english", "tf": "log"},
           "dp": {"row_length": 1.0, "row_norm": "l2", "mechanism": "gaussian", "delta": 1e-5,
                  "noise_prior": 0.0, "class_share": 0.05}},
}


def text_features(data, n_features, stop_words, tf):
    """Hashed word counts (no vocabulary read from the text), ``log(1 + count)`` with ``tf="log"``."""
    texts_tr, ytr, texts_te, yte = data
    hv = HashingVectorizer(n_features=n_features, alternate_sign=False, norm=None, stop_words=stop_words)
    Xtr, Xte = hv.transform(texts_tr).tocsr(), hv.transform(texts_te).tocsr()
    if tf == "log":
        Xtr.data, Xte.data = np.log1p(Xtr.data), np.log1p(Xte.data)
    return Xtr, ytr, Xte, yte


def text_run(data, seeds, mechanism, overrides=None):
    """Accuracy of MultinomialNB per epsilon for one text mechanism (see the module docstring)."""
    spec = TEXT_MECHANISMS[mechanism]
    dpk = {**spec["dp"], **(overrides or {})}
    Xtr, ytr, Xte, yte = text_features(data, **spec["features"])
    classes = sorted(set(ytr))
    L, norm = dpk["row_length"], dpk.get("row_norm", "l1")
    rows = [{"epsilon": math.inf, "fit": "inf (no privacy)",
             "accuracy": float((bn.MultinomialNB().fit(Xtr, ytr).predict(Xte) == yte).mean())},
            {"epsilon": math.inf, "fit": f"inf, rows scaled to {norm} norm {L:g}",
             "accuracy": float((bn.MultinomialNB().fit(scale_rows(Xtr, L, norm), ytr).predict(Xte) == yte).mean())}]
    for eps in EPSILONS[:-1]:
        for seed in range(seeds):
            dp = bn.DP(eps, classes=classes, random_state=1000 + seed, **dpk)
            model = bn.MultinomialNB(privacy=dp).fit(Xtr, ytr)
            rows.append({"epsilon": eps, "fit": f"{eps:g}", "accuracy": float((model.predict(Xte) == yte).mean())})
    frame = pd.DataFrame(rows)
    exact = rows[0]["accuracy"]
    lines = ["| epsilon | accuracy | accuracy - no privacy |", "|---|---|---|"]
    for fit, g in frame.groupby("fit", sort=False):
        acc = g["accuracy"]
        sd = acc.std(ddof=1) if len(acc) > 1 else 0.0
        lines.append(f"| {fit} | {acc.mean():.3f} ± {sd:.3f} | {acc.mean() - exact:+.3f} |")
    majority = pd.Series(yte).value_counts(normalize=True).iloc[0]
    lines.append(f"\n(majority class of the test set: {majority:.3f}; {Xtr.shape[0]} train / {Xte.shape[0]} test rows, "
                 f"{len(classes)} classes, {Xtr.shape[1]} hashed columns; DP settings {dpk})")
    return "\n".join(lines)


def text_diagnose(data, eps=1.0):
    """Signal per (class, cell) against the noise sd per cell, at ``eps``, for several releases.

    For each: the block's share of epsilon, the noise sd per cell, and per class (median over the
    classes) the number of cells whose exact count exceeds the noise sd and the share of the
    class's mass in them; then the test accuracy of one noise seed.
    """
    from bayesnb.families.dp_release import row_sensitivity
    from bayesnb.privacy import DP
    configs = [("l1 Laplace, raw counts, 2**14 cols, L=20", 2**14, None, "raw", {"row_length": 20.0}),
               ("l1 Laplace, raw counts, 2**10 cols, L=20", 2**10, None, "raw", {"row_length": 20.0}),
               ("l1 Laplace, raw counts, 2**14 cols, L=1", 2**14, None, "raw", {"row_length": 1.0}),
               ("l2 Gaussian, raw counts, 2**14 cols", 2**14, None, "raw",
                {"row_length": 1.0, "row_norm": "l2", "mechanism": "gaussian", "delta": 1e-5}),
               ("l2 Gaussian, log counts, stop words, 2**16 cols", 2**16, "english", "log",
                {"row_length": 1.0, "row_norm": "l2", "mechanism": "gaussian", "delta": 1e-5}),
               ("  + class_share=0.05", 2**16, "english", "log",
                {"row_length": 1.0, "row_norm": "l2", "mechanism": "gaussian", "delta": 1e-5, "class_share": 0.05}),
               ("  + noise_prior=10", 2**16, "english", "log", {**TEXT_MECHANISMS["l2"]["dp"], "noise_prior": 10.0})]
    lines = ["| release | block epsilon | noise sd per cell | cells above noise per class | class mass in them "
             "| accuracy (1 seed) |", "|---|---|---|---|---|---|"]
    for name, d, sw, tf, kw in configs:
        Xtr, ytr, Xte, yte = text_features(data, d, sw, tf)
        classes = sorted(set(ytr))
        dp = DP(eps, classes=classes, random_state=1000, **kw)
        model = bn.MultinomialNB(privacy=dp).fit(Xtr, ytr)
        b_eps, b_delta = [v for k, v in model.privacy_spent_["split"].items() if k.startswith("block")][0]
        from bayesnb.privacy import Budget
        sens = row_sensitivity(dp.row_length, dp.row_norm, d)
        sd = math.sqrt(Budget(b_eps, b_delta, dp.mechanism, None).noise_variance(*sens))
        Xs = scale_rows(Xtr, dp.row_length, dp.row_norm)
        onehot = (np.asarray(ytr)[:, None] == np.asarray(classes)[None, :]).astype(float)
        S = np.asarray((Xs.T @ onehot).T)
        above = S > sd
        n_above = np.median(above.sum(1))
        share = np.median((S * above).sum(1) / S.sum(1))
        acc = float((model.predict(Xte) == yte).mean())
        lines.append(f"| {name} | {b_eps:.3f} | {sd:.2f} | {n_above:.0f} of {d} | {share:.2f} | {acc:.3f} |")
    return "\n".join(lines)


def text_sweep(data, seeds, priors=(0.0, 1.0, 3.0, 10.0, 30.0), eps_list=(0.5, 1.0, 2.0)):
    """Validation accuracy of the l2 mechanism per ``noise_prior``, on a dataset's training part only.

    The training rows are split 70/30 again (stratified, seed 1); the test rows are not used. (Under
    DP, choosing a hyperparameter on the private data itself costs budget too: every fit tried is a
    release. The protocol of docs/privacy.md takes the value chosen on SMS spam, a public stand-in,
    for 20 Newsgroups.)
    """
    texts, y = data[0], data[1]
    tr_t, va_t, tr_y, va_y = train_test_split(texts, y, test_size=0.3, stratify=y, random_state=1)
    Xtr, ytr, Xva, yva = text_features((tr_t, tr_y, va_t, va_y), **TEXT_MECHANISMS["l2"]["features"])
    lines = ["| noise_prior | " + " | ".join(f"epsilon {e:g}" for e in eps_list) + " |",
             "|---" * (len(eps_list) + 1) + "|"]
    for c in priors:
        cells = []
        for eps in eps_list:
            acc = [float((bn.MultinomialNB(privacy=bn.DP(eps, classes=sorted(set(ytr)), random_state=2000 + s,
                                                         **{**TEXT_MECHANISMS["l2"]["dp"], "noise_prior": c}))
                          .fit(Xtr, ytr).predict(Xva) == yva).mean()) for s in range(seeds)]
            cells.append(f"{np.mean(acc):.3f} ± {np.std(acc, ddof=1) if seeds > 1 else 0.0:.3f}")
        lines.append(f"| {c:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _block_sigma(model, dp, d):
    """The noise sd per cell of a fitted private text model's count block (from its budget split)."""
    from bayesnb.families.dp_release import row_sensitivity
    from bayesnb.privacy import Budget
    b_eps, b_delta = [v for k, v in model.privacy_spent_["split"].items() if k.startswith("block")][0]
    sens = row_sensitivity(dp.row_length, dp.row_norm, d)
    return math.sqrt(Budget(b_eps, b_delta, dp.mechanism, None).noise_variance(*sens))


def _acc(log_theta, log_prior, X, y_codes):
    return float((np.asarray(X @ log_theta.T + log_prior).argmax(1) == y_codes).mean())


def _halves(n, seed=5):
    """A fixed split of ``n`` rows into two halves (the public unlabelled pool and the scored rows)."""
    return np.random.default_rng(seed).permutation(n) < n // 2


def _em_accuracy(model, X, y_codes, weight, pseudo):
    """Accuracy of :func:`_text_post.em_unlabelled` over ``X``, 2-fold: each half is the unlabelled pool
    (labels unused) of the model that scores the other half."""
    from _text_post import em_unlabelled
    half, rows, hits = _halves(X.shape[0]), scale_rows(X, model.privacy.row_length, model.privacy.row_norm), 0
    for pool in (half, ~half):
        lt = em_unlabelled(model.feature_log_prob_, model.class_log_prior_, X[pool], rows[pool], weight, pseudo)
        hits += _acc(lt, model.class_log_prior_, X[~pool], y_codes[~pool]) * (~pool).sum()
    return hits / X.shape[0]


def text_postprocess(data, seeds, eps_list=(0.5, 1.0, 2.0)):
    """Validation accuracy of post-processings of the l2 release, on a 70/30 split of the training part.

    ``clip`` is the package's release (negative cells set to 0, ``alpha=1``). The others start from
    the same mechanism, simulated here (exact class sums of the scaled rows plus Gaussian noise of
    the block's sd): ``centroid``, the score ``x . noisy_k / n_k`` of the test row scaled to norm
    1 (linear in every noisy cell, none clipped); ``EB mean``, each class's cells deconvolved
    (:func:`_text_post.npmle`) and replaced by their posterior means; ``EB E[log]``, ``log theta``
    as ``E[log(c + alpha) | y]`` minus the log of the posterior means' total; ``EM w/p``,
    :func:`_text_post.em_unlabelled` from the package's model, the validation rows' halves as
    unlabelled pools (2-fold, labels unused).
    """
    from _text_post import npmle, posterior_mean
    texts, y = data[0], data[1]
    tr_t, va_t, tr_y, va_y = train_test_split(texts, y, test_size=0.3, stratify=y, random_state=1)
    Xtr, ytr, Xva, yva = text_features((tr_t, tr_y, va_t, va_y), **TEXT_MECHANISMS["l2"]["features"])
    classes = sorted(set(ytr))
    codes = np.searchsorted(classes, yva)
    dpk = TEXT_MECHANISMS["l2"]["dp"]
    onehot = (np.asarray(ytr)[:, None] == np.asarray(classes)[None, :]).astype(float)
    S = np.asarray((scale_rows(Xtr, dpk["row_length"], dpk["row_norm"]).T @ onehot).T)
    K, D = S.shape
    variants = (["clip", "EB mean", "EB E[log]", "centroid"]
                + [f"EM {w:g}/{p:g}" for w in (0.3, 0.5, 0.8) for p in (0.01, 0.1)])
    acc = {(v, e): [] for v in variants for e in eps_list}
    for eps in eps_list:
        for seed in range(seeds):
            dp = bn.DP(eps, classes=classes, random_state=2000 + seed, **dpk)
            model = bn.MultinomialNB(privacy=dp).fit(Xtr, ytr)
            acc["clip", eps].append(_acc(model.feature_log_prob_, model.class_log_prior_, Xva, codes))
            sigma = _block_sigma(model, dp, D)
            noisy = S + np.random.default_rng(3000 + seed).normal(0.0, sigma, S.shape)
            mean, elog = np.empty_like(noisy), np.empty_like(noisy)
            for k in range(K):
                grid, w = npmle(noisy[k], sigma)
                mean[k] = posterior_mean(noisy[k], sigma, grid, w)
                elog[k] = posterior_mean(noisy[k], sigma, grid, w, lambda c: np.log(c + 1.0))
            norm_ = np.log(mean.sum(1, keepdims=True) + D)
            acc["EB mean", eps].append(_acc(np.log(mean + 1.0) - norm_, model.class_log_prior_, Xva, codes))
            acc["EB E[log]", eps].append(_acc(elog - norm_, model.class_log_prior_, Xva, codes))
            # linear in every noisy cell: the class's mean scaled row (its sum over the noisy class count)
            count = np.exp(model.class_log_prior_) * len(ytr)
            acc["centroid", eps].append(_acc(noisy / count[:, None], 0.0, scale_rows(Xva, 1.0, "l2"), codes))
            for v in variants[4:]:
                w, p = (float(t) for t in v.split()[1].split("/"))
                acc[v, eps].append(_em_accuracy(model, Xva, codes, w, p))
    lines = ["| release, post-processing | " + " | ".join(f"epsilon {e:g}" for e in eps_list) + " |",
             "|---" * (len(eps_list) + 1) + "|"]
    for v in variants:
        cells = [f"{np.mean(acc[v, e]):.3f} ± {np.std(acc[v, e], ddof=1) if seeds > 1 else 0.0:.3f}" for e in eps_list]
        lines.append(f"| {v} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def text_main(seeds, mechanisms, row_length=None, diagnose=False, sweep=False, noise_prior=None,
              postprocess=False, unlabelled=False, unlabelled_sweep=False):
    for name, load in (("20 Newsgroups (bydate)", newsgroups), ("SMS spam", sms_spam)):
        data = load()
        if isinstance(data, str):
            print(f"\n### {name}: skipped ({data})")
            continue
        if unlabelled or unlabelled_sweep:  # the estimator's path (benchmarks/bench_privacy_text_em.py)
            from bench_privacy_text_em import text_unlabelled, text_unlabelled_sweep
            t0 = time.perf_counter()
            spec = TEXT_MECHANISMS["l2"]
            out = (text_unlabelled_sweep(data, seeds, spec["features"], spec["dp"]) if unlabelled_sweep
                   else text_unlabelled(data, seeds, spec["features"], spec["dp"], EPSILONS[:-1]))
            what = ("training part only (a 70/30 split of it): validation accuracy per unlabeled_weight"
                    if unlabelled_sweep else "test accuracy, l2 release and + fit_semi_supervised on the other "
                    "test half")
            print(f"\n### {name}, {what}, {seeds} seeds, {time.perf_counter() - t0:.1f} s\n")
            print(out)
            continue
        if postprocess:
            t0 = time.perf_counter()
            out = text_postprocess(data, seeds)
            what = "training part only (a 70/30 split of it): validation accuracy per post-processing"
            print(f"\n### {name}, {what}, {seeds} seeds, {time.perf_counter() - t0:.1f} s\n")
            print(out)
            continue
        if sweep:
            t0 = time.perf_counter()
            out = text_sweep(data, seeds)
            print(f"\n### {name}, training part only (a 70/30 split of it): validation accuracy per noise_prior "
                  f"of the l2 mechanism, {seeds} seeds, {time.perf_counter() - t0:.1f} s\n")
            print(out)
            continue
        if diagnose:
            t0 = time.perf_counter()
            out = text_diagnose(data)
            print(f"\n### {name}: signal against noise per cell at epsilon = 1, {time.perf_counter() - t0:.1f} s\n")
            print(out)
        for mech in mechanisms:
            t0 = time.perf_counter()
            over = {} if row_length is None else {"row_length": row_length}
            if noise_prior is not None:
                over["noise_prior"] = noise_prior
            out = text_run(data, seeds, mech, over)
            print(f"\n### {name}, MultinomialNB, {mech} mechanism: {seeds} seeds, {time.perf_counter() - t0:.1f} s\n")
            print(out)


def table(frame):
    cols = [c for c in frame.columns if c != "epsilon" and frame[c].notna().any()]
    lines = ["| epsilon | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for eps, g in frame.groupby("epsilon", sort=False):
        cells = [f"{g[c].mean():.3f} ± {g[c].std(ddof=1) if len(g) > 1 else 0.0:.3f}" for c in cols]
        lines.append(f"| {'inf (no privacy)' if math.isinf(eps) else f'{eps:g}'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--text", action="store_true", help="count data: 20 Newsgroups and SMS spam")
    parser.add_argument("--row-length", type=float, default=None,
                        help="DP(row_length=L) of --text (default: the mechanism's, 20 for l1 and 1 for l2)")
    parser.add_argument("--mechanism", choices=sorted(TEXT_MECHANISMS), action="append",
                        help="text release(s) to run (repeatable; default: l2 and l1)")
    parser.add_argument("--noise-prior", type=float, default=None, help="--text: DP(noise_prior=...) override")
    parser.add_argument("--diagnose", action="store_true", help="--text: signal against noise per cell at epsilon 1")
    parser.add_argument("--sweep", action="store_true",
                        help="--text: validation accuracy per noise_prior on each training part (a 70/30 split of it)")
    parser.add_argument("--postprocess", action="store_true",
                        help="--text: validation accuracy per post-processing of the l2 release (training parts only)")
    parser.add_argument("--unlabelled", action="store_true",
                        help="--text: test accuracy of the l2 release refined by fit_semi_supervised on public "
                             "unlabelled test documents")
    parser.add_argument("--unlabelled-sweep", action="store_true",
                        help="--text: validation accuracy per unlabeled_weight (training parts only)")
    parser.add_argument("--unlabelled-votes", action="store_true",
                        help="house votes and penguins with a public unlabelled half: test accuracy per unlabeled_weight rule")
    parser.add_argument("--adult", metavar="DIR", default=None,
                        help="a folder with UCI's adult.data and adult.test: adds the census table")
    parser.add_argument("--census-only", action="store_true", help="with --adult: only the census table")
    parser.add_argument("--no-fidelity", action="store_true", help="census: accuracy only (no synthetic report)")
    parser.add_argument("--ablate", action="store_true",
                        help="census: also each family's statistics released exactly in turn, at epsilon 1")
    parser.add_argument("--structure", action="store_true", help="private naive vs private TAN and k-DB")
    parser.add_argument("--shares", type=float, nargs="*", default=[], help="--structure: other structure shares")
    parser.add_argument("--adult-file", default=None, help="--structure: UCI's adult.data (70/30 split)")
    args = parser.parse_args()
    if args.structure:  # (benchmarks/bench_privacy_structure.py holds the run; it imports this module's tables)
        from bench_privacy_structure import structure_main
        structure_main(args.seeds, args.shares, args.adult_file)
        return
    if args.unlabelled_votes:
        from bench_privacy_text_em import table_unlabelled
        for name, dataset in (("house votes, CategoricalNB", votes), ("penguins, Gaussian + Categorical", penguins)):
            t0 = time.perf_counter()
            out = table_unlabelled(dataset, args.seeds)
            print(f"\n### {name}, public unlabelled half: {args.seeds} seeds, {time.perf_counter() - t0:.1f} s\n\n{out}")
        return
    if args.text:
        text_main(args.seeds, args.mechanism or ["l2", "l1"], args.row_length, args.diagnose, args.sweep,
                  args.noise_prior, args.postprocess, args.unlabelled, args.unlabelled_sweep)
        return
    if args.census_only:
        adult_main(args.adult, args.seeds, not args.no_fidelity, args.ablate)
        for why in sorted(DIFFPRIVLIB_MISSING):
            print(f"\n(diffprivlib GaussianNB left out: {why[:160]})")
        return
    for name, dataset in (("house votes (435 rows, CategoricalNB)", votes),
                          ("penguins (333 complete rows, Gaussian + Categorical)", penguins)):
        t0 = time.perf_counter()
        frame = run(dataset, args.seeds)
        print(f"\n### {name}: {args.seeds} seeds, {time.perf_counter() - t0:.1f} s\n")
        print(table(frame))
    t0 = time.perf_counter()
    frame = large(args.seeds)
    print(f"\n### 30,000 rows simulated from the house-votes model (10,000 test rows): {args.seeds} seeds, "
          f"{time.perf_counter() - t0:.1f} s\n")
    print(table(frame))
    adult_main(args.adult, args.seeds, not args.no_fidelity, args.ablate)
    for why in sorted(DIFFPRIVLIB_MISSING):
        print(f"\n(diffprivlib GaussianNB left out: {why[:160]})")


if __name__ == "__main__":
    main()
