"""``bench_privacy.py --text --unlabelled`` and ``--unlabelled-sweep``: private text models refined by EM on public
unlabelled documents, through the estimator's own path.

``MultinomialNB(privacy=DP(...)).fit_semi_supervised(X, y, public_unlabeled=True, unlabeled_weight=w)``
(docs/privacy.md, "Text (count blocks)"): the labelled documents are released as ``fit`` releases them
(the l2 release of ``bench_privacy.TEXT_MECHANISMS``), then EM on the unlabelled documents, declared
public, with the release's posterior as its prior.

- :func:`text_unlabelled_sweep` (``--unlabelled-sweep``): validation accuracy per ``unlabeled_weight``, fixed
  or given by a rule (:data:`RULES`), on the training documents only (each training set split 70/30,
  stratified, seed 1; the 30% split into two fixed halves, each the unlabelled pool of the model that scores
  the other half), beside the release alone and the benchmark's former mixture EM
  (``_text_post.em_unlabelled``, weight 0.8, pseudo-count 0.01). The package's default rule under privacy
  was chosen on this table.
- :func:`text_unlabelled` (``--unlabelled``): test accuracy per epsilon of the release alone, of the
  estimator's EM at its default weight, and of the former mixture helper (for reference); the test
  documents split into two fixed halves, each the unlabelled pool (labels unused) of the model that
  scores the other half.
- :func:`table_unlabelled` (``bench_privacy.py --unlabelled-votes``): the same rules on house votes and
  penguins with a public unlabelled half (test accuracy), so that the rule is not checked on text only.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import train_test_split

import bayesnb as bn

#: unlabelled rows are marked with this label (the classes are strings)
MARK = "?"


def _halves(n, seed=5):
    """A fixed split of ``n`` rows into two halves (the public unlabelled pool and the scored rows)."""
    return np.random.default_rng(seed).permutation(n) < n // 2


def released_mass(model):
    """The release's total mass (a count block's ``dp_mass``: its total released count, noise floor included)."""
    return sum(b.family.dp_mass(b.stats) for b in model.posterior_.blocks)


#: rules for ``unlabeled_weight`` compared by ``--unlabelled-sweep``: functions of the release (a fitted private
#: model) and the public pool as the release counts it (rows scaled to the row bound); None is the package's
#: default (equal mass per class: each class's share of the pool carries the release's whole mass)
RULES = {
    **{f"unlabeled_weight={w:g}": w for w in (1.0, 10.0, 100.0, 300.0, 3000.0, 10000.0)},
    "constant 1000 (former default)": 1000.0,
    "equal mass (pool mass = release mass)": lambda model, pool: released_mass(model) / pool.sum(),
    "equal mass per class (default: pool mass / K = release mass)": None,
    "equal rows (pool rows = released class counts)": lambda model, pool: model.class_count_.sum() / pool.shape[0],
}


def em_accuracy(dp, Xtr, ytr, X, y, weight=None, used=None):
    """Accuracy over ``X`` of ``fit_semi_supervised`` under ``dp``, 2-fold: each half of ``X`` is the public
    unlabelled pool (its labels unused) of the model that scores the other half. ``weight`` None: the
    estimator's default ``unlabeled_weight``; a number; or a rule ``(release, scaled pool) -> weight`` (the
    release refitted from the same noise). ``used``: a list that gets each fold's weight (a rule's or the
    default's, computed as the package does for one count block)."""
    from bayesnb.families.dp_release import scale_rows
    half, hits = _halves(X.shape[0]), 0
    for pool in (half, ~half):
        Xs = sp.vstack([Xtr, X[pool]]).tocsr()
        ys = np.concatenate([np.asarray(ytr, dtype=object), np.full(int(pool.sum()), MARK, dtype=object)])
        w = weight
        if callable(weight) or (used is not None and weight is None):
            release = bn.MultinomialNB(privacy=dp).fit(Xtr, ytr)
            scaled = scale_rows(X[pool], dp.row_length, dp.row_norm)
            w = weight(release, scaled) if callable(weight) else weight
            if used is not None:
                used.append(len(release.classes_) * released_mass(release) / scaled.sum() if w is None else float(w))
        kw = {} if w is None else {"unlabeled_weight": w}
        model = bn.MultinomialNB(privacy=dp).fit_semi_supervised(Xs, ys, unlabeled=MARK, public_unlabeled=True, **kw)
        hits += int((model.predict(X[~pool]) == y[~pool]).sum())
    return hits / X.shape[0]


def _mixture_accuracy(model, X, y, weight=0.8, pseudo=0.01):
    """The former benchmark helper's EM (``_text_post.em_unlabelled``), same 2-fold protocol."""
    from _text_post import em_unlabelled

    from bayesnb.families.dp_release import scale_rows
    classes = model.classes_
    codes = np.searchsorted(classes, y)
    half, rows, hits = _halves(X.shape[0]), scale_rows(X, model.privacy.row_length, model.privacy.row_norm), 0
    for pool in (half, ~half):
        lt = em_unlabelled(model.feature_log_prob_, model.class_log_prior_, X[pool], rows[pool], weight, pseudo)
        pred = np.asarray(X[~pool] @ lt.T + model.class_log_prior_).argmax(1)
        hits += int((pred == codes[~pool]).sum())
    return hits / X.shape[0]


def _cell(values):
    sd = np.std(values, ddof=1) if len(values) > 1 else 0.0
    return f"{np.mean(values):.3f} ± {sd:.3f}"


def text_unlabelled_sweep(data, seeds, features, dpk, rules=RULES, eps_list=(0.5, 1.0, 2.0)):
    """Validation accuracy per rule for ``unlabeled_weight`` (training documents only; module docstring), with
    the weights each rule gave (median over folds and seeds)."""
    from bench_privacy import text_features
    texts, y = data[0], data[1]
    tr_t, va_t, tr_y, va_y = train_test_split(texts, y, test_size=0.3, stratify=y, random_state=1)
    Xtr, ytr, Xva, yva = text_features((tr_t, tr_y, va_t, va_y), **features)
    classes = sorted(set(ytr))
    rows = ["release alone", "mixture EM 0.8/0.01 (former helper)"] + list(rules)
    acc = {(r, e): [] for r in rows for e in eps_list}
    used = {(r, e): [] for r in rows for e in eps_list}
    for eps in eps_list:
        for seed in range(seeds):
            dp = bn.DP(eps, classes=classes, random_state=2000 + seed, **dpk)
            model = bn.MultinomialNB(privacy=dp).fit(Xtr, ytr)
            acc[rows[0], eps].append(float((model.predict(Xva) == yva).mean()))
            acc[rows[1], eps].append(_mixture_accuracy(model, Xva, yva))
            for r, rule in rules.items():
                acc[r, eps].append(em_accuracy(dp, Xtr, ytr, Xva, yva, rule, used[r, eps]))
    lines = ["| validation | " + " | ".join(f"epsilon {e:g}" for e in eps_list) + " |",
             "|---" * (len(eps_list) + 1) + "|"]
    for r in rows:
        cells = [_cell(acc[r, e]) + (f" (w {np.median(used[r, e]):.3g})" if used[r, e] else "") for e in eps_list]
        lines.append(f"| {r} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def text_unlabelled(data, seeds, features, dpk, eps_list):
    """Test accuracy per epsilon of the release alone and of ``fit_semi_supervised`` at its default weight.

    Same noise seeds (1000 + seed) for both columns, so the release column repeats ``--text``'s l2 figures.
    """
    from bench_privacy import text_features
    Xtr, ytr, Xte, yte = text_features(data, **features)
    classes = sorted(set(ytr))
    lines = ["| epsilon | l2 release | + fit_semi_supervised on public unlabelled documents "
             "| former mixture helper (0.8/0.01) |", "|---|---|---|---|"]
    for eps in eps_list:
        plain, em, mix, used = [], [], [], []
        for seed in range(seeds):
            dp = bn.DP(eps, classes=classes, random_state=1000 + seed, **dpk)
            model = bn.MultinomialNB(privacy=dp).fit(Xtr, ytr)
            plain.append(float((model.predict(Xte) == yte).mean()))
            em.append(em_accuracy(dp, Xtr, ytr, Xte, yte, used=used))
            mix.append(_mixture_accuracy(model, Xte, yte))
        lines.append(f"| {eps:g} | {_cell(plain)} | {_cell(em)} (w {np.median(used):.3g}) | {_cell(mix)} |")
    return "\n".join(lines)


def table_unlabelled(dataset, seeds, eps_list=(0.5, 1.0, 5.0)):
    """A small table (``bench_privacy.votes`` or ``penguins``) with a public half: test accuracy per weight rule.

    Each seed: a 70/30 stratified split (``random_state=seed``); half of the training rows (drawn at random)
    keep their labels and are released, the other half is the public unlabelled pool; noise seed ``seed``.
    Rules: the non-private default 1, equal mass (the pool carries the release's mass: released mass over
    observed public cells, about ``n_private / n_public``), the package's default under privacy (equal mass
    per class: that times the number of classes), and the former constant 1000.
    """
    df, target, make, bounds = dataset()
    X, y = df.drop(columns=[target]), df[target].to_numpy()
    classes = sorted(set(y))
    rows = ["release alone (labelled half)", "1 (non-private default)", "equal mass",
            "equal mass per class (default)", "constant 1000 (former default)"]
    acc = {(r, e): [] for r in rows for e in eps_list}
    used = {e: [] for e in eps_list}
    for eps in eps_list:
        for seed in range(seeds):
            tr, te = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=seed)
            pub = np.random.default_rng(seed).permutation(len(tr)) < len(tr) // 2
            dp = bn.DP(eps, bounds=bounds, classes=classes, random_state=seed)
            release = make(dp).fit(X.iloc[tr[~pub]], y[tr[~pub]])
            acc[rows[0], eps].append(float((release.predict(X.iloc[te]) == y[te]).mean()))
            w = released_mass(release) / X.iloc[tr[pub]].notna().to_numpy().sum()
            used[eps].append(len(classes) * w)
            yu = y[tr].astype(object)
            yu[pub] = None
            for r, weight in zip(rows[1:], (1.0, w, None, 1000.0)):
                kw = {} if weight is None else {"unlabeled_weight": weight}
                m = make(dp).fit_semi_supervised(X.iloc[tr], yu, public_unlabeled=True, **kw)
                acc[r, eps].append(float((m.predict(X.iloc[te]) == y[te]).mean()))
    lines = ["| test | " + " | ".join(f"epsilon {e:g}" for e in eps_list) + " |",
             "|---" * (len(eps_list) + 1) + "|"]
    lines += [f"| {r} | " + " | ".join(_cell(acc[r, e]) for e in eps_list) + " |" for r in rows]
    lines.append("\n(default weight, median over seeds: "
                 + ", ".join(f"epsilon {e:g}: {np.median(used[e]):.3f}" for e in eps_list) + ")")
    return "\n".join(lines)
