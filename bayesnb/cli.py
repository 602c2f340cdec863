"""The ``bayesnb`` command line (also ``python -m bayesnb``).

Subcommands::

    bayesnb demo [--out DIR] [--quick]            the whole library on the bundled house-votes data
    bayesnb fit DATA --target COL -o MODEL.bnb     fit a model to a CSV/Parquet table and save it
    bayesnb predict MODEL.bnb DATA [-o OUT.csv]    predicted class (and --proba probabilities)
    bayesnb score MODEL.bnb DATA --target COL      accuracy and log loss on labelled data
    bayesnb info MODEL.bnb                         what a model file contains
    bayesnb impute MODEL.bnb DATA [-o OUT.csv]     fill missing cells (when the build has it)
    bayesnb sample MODEL.bnb -n N [-o OUT.csv]     synthetic rows (when the build has it)

User mistakes (a missing file, an unknown column, a corrupted model...) print one line on
stderr and exit with status 2; ``BAYESNB_DEBUG=1`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import time

__all__ = ["main", "UsageError", "read_table", "write_table"]

FAMILIES = ("auto", "categorical", "gaussian", "multinomial", "bernoulli")
DEFAULT_NA = ["", "NA", "NaN", "nan", "?", "null", "None"]


class UsageError(Exception):
    """A mistake in the command line or its files: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line (``bayesnb fit: error: ...``) and exit status 2."""

    def error(self, message):  # noqa: D102
        raise UsageError(f"{message} (see '{self.prog} --help')")


# ------------------------------------------------------------------------------- tables
def read_table(path, na_values=None):
    """Read a CSV/TSV (or Parquet, if pandas can) file into a DataFrame.

    Parameters
    ----------
    path : str
        ``.csv``/``.txt`` (comma), ``.tsv``/``.tab`` (tab), ``.parquet``/``.pq``.
    na_values : list of str, optional
        Cell texts read as missing (default: empty, NA, NaN, ?, null, None).
    """
    import pandas as pd

    if path != "-" and not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if path != "-" and os.path.isdir(path):
        raise UsageError(f"{path}: is a directory, expected a data file")
    ext = os.path.splitext(path)[1].lower()
    na = DEFAULT_NA if na_values is None else na_values
    try:
        if ext in (".parquet", ".pq"):
            try:
                return pd.read_parquet(path)
            except ImportError:
                raise UsageError(f"{path}: reading Parquet needs pyarrow or fastparquet (pip install pyarrow)") from None
        sep = "\t" if ext in (".tsv", ".tab") else ","
        df = pd.read_csv(sys.stdin if path == "-" else path, sep=sep, na_values=na, keep_default_na=False)
    except UsageError:
        raise
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError, OSError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise UsageError(f"{path}: cannot read as a table ({first})") from None
    if df.shape[0] == 0 or df.shape[1] == 0:
        raise UsageError(f"{path}: the table is empty")
    return df


def write_table(df, path, done=None):
    """Write ``df`` as CSV (``-`` or None: stdout) or Parquet (by extension).

    ``done``, if given, is printed after writing to a file (never mixed into stdout data).
    """
    if path in (None, "-"):
        df.to_csv(sys.stdout, index=False)
        return
    if os.path.splitext(path)[1].lower() in (".parquet", ".pq"):
        try:
            df.to_parquet(path, index=False)
        except ImportError:
            raise UsageError(f"{path}: writing Parquet needs pyarrow (pip install pyarrow)") from None
    else:
        df.to_csv(path, index=False)
    if done:
        print(done)


def _load_model(path):
    from .persistence import load

    return load(path)


def _features_of(model, df, path):
    """The model's feature columns of ``df`` (in the order it was fitted on)."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        if df.shape[1] != model.n_features_in_:
            raise UsageError(f"{path}: has {df.shape[1]} columns; the model expects {model.n_features_in_}")
        return df
    names = [str(n) for n in names]
    missing = [n for n in names if n not in df.columns]
    if missing:
        raise UsageError(f"{path}: missing column(s) {missing[:5]} that the model was fitted on")
    return df[names]


# ------------------------------------------------------------------------ subcommands
def _parse_alpha(text):
    if text is None:
        return None
    if text == "auto":
        return "auto"
    try:
        a = float(text)
    except ValueError:
        raise UsageError(f"--alpha must be a number >= 0 or 'auto'; received {text!r}") from None
    if not a >= 0:
        raise UsageError(f"--alpha must be a number >= 0 or 'auto'; received {text!r}")
    return a


def make_estimator(family, alpha, X):
    """The estimator that ``bayesnb fit --family FAMILY --alpha ALPHA`` uses for table ``X``."""
    from . import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB, NaiveBayes
    from .families import Categorical, Gaussian

    kw = {} if alpha is None else {"alpha": alpha}
    if family == "categorical":
        return CategoricalNB(**kw)
    if family == "multinomial":
        return MultinomialNB(**kw)
    if family == "bernoulli":
        return BernoulliNB(**kw)
    if family == "gaussian":
        if alpha is not None:
            raise UsageError("--alpha applies to count/categorical families; a Gaussian family has no alpha")
        return GaussianNB()
    # auto: text/bool/category columns -> Categorical, numeric -> Gaussian
    cat = [c for c in X.columns if X[c].dtype.kind not in "iuf"]
    num = [c for c in X.columns if X[c].dtype.kind in "iuf"]
    features = {}
    if cat:
        features[tuple(cat)] = Categorical(**kw)
    if num:
        features[tuple(num)] = Gaussian()
    return NaiveBayes(features=features)


def cmd_fit(args):
    df = read_table(args.data, args.na_values)
    if args.target not in df.columns:
        raise UsageError(f"{args.data}: no column {args.target!r} (columns: {list(df.columns)[:10]})")
    y = df[args.target]
    if y.isna().any():
        n = int(y.isna().sum())
        if not args.drop_unlabelled:
            raise UsageError(f"{args.data}: {n} row(s) have no {args.target!r} label "
                             "(pass --drop-unlabelled to leave them out)")
        df = df[~y.isna()]
        y = df[args.target]
    X = df.drop(columns=[args.target])
    if args.columns:
        cols = [c.strip() for c in args.columns.split(",")]
        bad = [c for c in cols if c not in X.columns]
        if bad:
            raise UsageError(f"{args.data}: no column(s) {bad}")
        X = X[cols]
    model = make_estimator(args.family, _parse_alpha(args.alpha), X)
    t0 = time.perf_counter()
    model.fit(X, y.astype(str) if y.dtype == object else y)
    dt = time.perf_counter() - t0
    model.save(args.output)
    ev = model.log_evidence_
    print(f"fitted {type(model).__name__} on {X.shape[0]} rows x {X.shape[1]} features in {dt * 1000:.0f} ms")
    for b in model.posterior_.blocks:
        names = [str(n) for n in b.names]
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} columns)" if len(names) > 6 else "")
        print(f"  block {type(b.family).__name__}: {shown}")
    counts = ", ".join(f"{c}: {n:g}" for c, n in zip(model.classes_, model.class_count_))
    print(f"  classes: {counts}")
    print(f"  training accuracy: {model.score(X, y.astype(str) if y.dtype == object else y):.3f}")
    print(f"  log evidence log p(X, y): {ev:.2f}" if ev is not None else "  log evidence: undefined (improper prior)")
    print(f"saved model to {args.output}")
    return 0


def _labels_like(model, y):
    """Coerce labels read from a file to the type of the model's classes."""
    import numpy as np

    classes = model.classes_
    if classes.dtype.kind in "iuf" and y.dtype == object:
        try:
            return y.astype(classes.dtype)
        except (TypeError, ValueError):
            return y
    if classes.dtype.kind in "OU" and y.dtype != object:
        return y.astype(str)
    return np.asarray(y)


def cmd_predict(args):
    import pandas as pd

    model = _load_model(args.model)
    df = read_table(args.data, args.na_values)
    X = _features_of(model, df, args.data)
    out = pd.DataFrame(index=df.index)
    if args.keep:
        out = df.copy()
    out[args.column] = model.predict(X)
    if args.proba:
        P = model.predict_proba(X)
        for k, c in enumerate(model.classes_):
            out[f"p({c})"] = P[:, k]
    write_table(out, args.output, done=f"wrote {len(out)} predictions to {args.output}")
    return 0


def cmd_score(args):
    import numpy as np

    model = _load_model(args.model)
    df = read_table(args.data, args.na_values)
    if args.target not in df.columns:
        raise UsageError(f"{args.data}: no column {args.target!r}")
    df = df[~df[args.target].isna()]
    X = _features_of(model, df, args.data)
    y = np.asarray(_labels_like(model, df[args.target]))
    P = model.predict_proba(X)
    known = np.isin(y, model.classes_)
    acc = float(np.mean(model.classes_[P.argmax(1)] == y))
    idx = np.searchsorted(model.classes_, y[known])
    with np.errstate(divide="ignore"):
        ll = -np.mean(np.log(np.clip(P[known][np.arange(known.sum()), idx], 1e-300, 1)))
    print(f"rows: {len(y)}")
    print(f"accuracy: {acc:.4f}")
    print(f"log loss: {ll:.4f}" + (f" (on {known.sum()} rows with a known class)" if not known.all() else ""))
    return 0


def cmd_info(args):
    import json

    from .persistence import _read

    model = _load_model(args.model)
    meta, _ = _read(args.model)
    print(f"{args.model}: {meta['estimator']} (format {meta['format']} v{meta['format_version']}, "
          f"written by bayesnb {meta['bayesnb_version']})")
    print(json.dumps(meta["summary"], indent=2)[:4000])
    ev = model.log_evidence_
    print(f"log evidence: {ev:.4f}" if ev is not None else "log evidence: undefined (improper prior)")
    return 0


def _call(fn, *args, **kwargs):
    """Call ``fn`` with ``args`` and the keyword arguments its signature accepts."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn(*args, **kwargs)
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return fn(*args, **kwargs)
    return fn(*args, **{k: v for k, v in kwargs.items() if k in params})


def cmd_impute(args):
    import pandas as pd

    model = _load_model(args.model)
    if not hasattr(model, "impute"):
        raise UsageError("this bayesnb build has no impute (generative features not installed)")
    df = read_table(args.data, args.na_values)
    X = _features_of(model, df, args.data)
    before = int(X.isna().sum().sum())
    filled = _call(model.impute, X, random_state=args.seed)
    filled = pd.DataFrame(filled, columns=X.columns, index=X.index) if not hasattr(filled, "columns") else filled
    out = df.copy()
    out[list(X.columns)] = filled[list(X.columns)]
    write_table(out, args.output, done=f"filled {before} missing cell(s); wrote {args.output}")
    return 0


def cmd_sample(args):
    import numpy as np
    import pandas as pd

    model = _load_model(args.model)
    if not hasattr(model, "sample"):
        raise UsageError("this bayesnb build has no sample (generative features not installed)")
    if args.n < 1:
        raise UsageError("-n must be at least 1")
    res = _call(model.sample, args.n, random_state=args.seed)
    X, y = (res if isinstance(res, tuple) and len(res) == 2 else (res, None))
    names = getattr(model, "feature_names_in_", None)
    cols = [str(c) for c in names] if names is not None else [f"x{j}" for j in range(model.n_features_in_)]
    out = X if hasattr(X, "columns") else pd.DataFrame(np.asarray(X), columns=cols)
    if y is not None:
        out = out.copy()
        out[args.target] = np.asarray(y)
    write_table(out, args.output, done=f"wrote {len(out)} synthetic row(s) to {args.output}")
    return 0


def cmd_demo(args):
    return run_demo(out=args.out, quick=args.quick, seed=args.seed)


# --------------------------------------------------------------------------------- demo
class _Report:
    """Prints progress and results, and keeps the results for report.txt."""

    def __init__(self, total):
        self.total, self.i, self.lines = total, 0, []
        self.t0 = time.perf_counter()

    def step(self, what):
        self.i += 1
        self._t = time.perf_counter()
        print(f"[{self.i}/{self.total}] {what} ...", flush=True)
        self.lines += ["", f"== {what}"]

    def done(self):
        print(f"      ({time.perf_counter() - self._t:.1f} s)", flush=True)

    def say(self, text=""):
        for line in str(text).splitlines() or [""]:
            print(f"      {line}", flush=True)
            self.lines.append(line)


def _fmt_table(rows, header):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*header)] + [fmt.format(*map(str, r)) for r in rows])


def vote_log_odds(model, n_draws=2000, seed=0, positive=None):
    """Log-odds weight of a "y" vote (vs "n") for each vote, with exact posterior draws.

    For a binary categorical feature with posterior ``theta[k] ~ Beta(a_k(y), a_k(n))``
    the weight is ``logit theta[pos](y) - logit theta[neg](y)``: how much a "y" rather
    than an "n" vote moves the log-odds of class ``pos``. Draws are exact (conjugate).

    Returns
    -------
    names, plug-in weights, mean, 2.5% and 97.5% quantiles (arrays of shape (d,))
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    b = model.posterior_.blocks[0]
    classes = list(model.classes_)
    pos = classes.index(positive) if positive is not None else 1
    neg = 1 - pos
    names, plug, mean, lo, hi = [], [], [], [], []
    for j, cats in enumerate(b.state.categories):
        cats = [str(c) for c in cats]
        if "y" not in cats or "n" not in cats:
            continue
        a = b.posterior.concentration[j]
        iy, inn = cats.index("y"), cats.index("n")
        # theta_k(y) among {y, n}: Beta(a_k(y), a_k(n)) (the other values, if any, marginalised)
        t_pos = rng.beta(a[pos, iy], a[pos, inn], n_draws)
        t_neg = rng.beta(a[neg, iy], a[neg, inn], n_draws)
        w = (np.log(t_pos) - np.log1p(-t_pos)) - (np.log(t_neg) - np.log1p(-t_neg))
        names.append(str(b.names[j]))
        plug.append(np.log(a[pos, iy] / a[pos, inn]) - np.log(a[neg, iy] / a[neg, inn]))
        mean.append(w.mean())
        lo.append(np.quantile(w, 0.025))
        hi.append(np.quantile(w, 0.975))
    return names, np.array(plug), np.array(mean), np.array(lo), np.array(hi)


def _jax_cache():
    """Use a persistent JAX compilation cache in the user's cache folder (this process only).

    NUTS compilation dominates a short run (about 10 s); the cache makes later demo runs
    start sampling in about a second. Respects ``JAX_COMPILATION_CACHE_DIR`` if set.
    """
    if os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        return
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    try:
        import jax

        path = os.path.join(base, "bayesnb", "jax")
        os.makedirs(path, exist_ok=True)
        jax.config.update("jax_compilation_cache_dir", path)
    except Exception:  # noqa: BLE001 - the cache is an optimisation only
        pass


def _demo_mcmc(model, X, y, rep, out, figures, bplot, quick, seed):
    """Exact draws and a short NUTS run of the same model, compared element by element."""
    import warnings

    import numpy as np

    from .arviz import compare_posteriors

    n_mc = 300 if quick else 2000
    _jax_cache()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = model.sample_posterior(4000, random_state=seed)
        mc = model.run_mcmc(X, y, num_warmup=n_mc, num_samples=n_mc, random_state=seed)
        table = compare_posteriors(exact, mc, verbose=False)
    a = mc.attrs if hasattr(mc, "attrs") else {}
    rep.say(f"NUTS: {n_mc} warm-up + {n_mc} draws in {time.perf_counter() - t0:.1f} s "
            f"(compile {a.get('compile_seconds', float('nan')):.1f} s, sampling {a.get('sampling_seconds', float('nan')):.1f} s); "
            f"exact: 4000 independent conjugate draws")
    rep.say(table.attrs.get("verdict", ""))
    show = table.reindex(table["z"].abs().sort_values(ascending=False).index).head(5)
    rows = [[r.element[:60], f"{r.exact_mean:.4f}", f"{r.mcmc_mean:.4f}", f"{r.exact_sd:.4f}", f"{r.mcmc_sd:.4f}",
             f"{r.z:+.2f}", f"{r.ess_bulk:.0f}"] for r in show.itertuples()]
    rep.say("largest |z| elements:")
    rep.say(_fmt_table(rows, ["parameter", "exact mean", "MCMC mean", "exact sd", "MCMC sd", "z", "ESS"]))
    if bplot is not None:
        ex, mcd = exact["posterior"].to_dataset(), mc["posterior"].to_dataset()
        cols_e, cols_m = [], []
        for var in sorted(ex.data_vars):
            e = np.asarray(ex[var].values, float)
            m = np.asarray(mcd[var].values, float)
            e = e.reshape(-1, int(np.prod(e.shape[2:], dtype=int)))
            m = m.reshape(-1, int(np.prod(m.shape[2:], dtype=int)))
            ok = np.isfinite(e).all(0)
            cols_e.append(e[:, ok])
            cols_m.append(m[:, ok])
        E, M = np.concatenate(cols_e, 1), np.concatenate(cols_m, 1)
        labels = list(table["element"])
        if E.shape[1] == len(labels):
            pick = [i for i, l in enumerate(labels) if l.startswith("pi") or "physician-fee-freeze" in l
                    or "el-salvador-aid" in l][:8] or list(range(min(8, len(labels))))
            fig = bplot.exact_vs_mcmc(E[:, pick], M[:, pick], [labels[i] for i in pick])
            figures.append(bplot.savefig(fig, os.path.join(out, "exact_vs_mcmc.png")))


def run_demo(out="bayesnb-report", quick=False, seed=0):
    """The ``bayesnb demo`` tour on the bundled 1984 House votes; returns the exit status.

    Parameters
    ----------
    out : str
        Folder for ``report.txt`` and the PNG figures (created if needed).
    quick : bool
        Fewer folds and draws.
    seed : int
        Random seed of the folds and of every draw.
    """

    import numpy as np
    from scipy.special import logsumexp
    from sklearn.model_selection import StratifiedKFold
    from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB

    from . import CategoricalNB, __version__
    from .datasets import load_house_votes

    t_start = time.perf_counter()
    os.makedirs(out, exist_ok=True)
    out_abs = os.path.abspath(out)
    figures = []
    try:
        from . import plot as bplot

        bplot._pyplot()
    except ImportError:
        bplot = None
    rep = _Report(8)
    print(f"bayesnb {__version__} demo -- writing the report to {out_abs}", flush=True)

    rep.step("Loading the 1984 U.S. House votes (bundled)")
    df = load_house_votes()
    X, y = df.drop(columns="party"), df["party"].to_numpy()
    n_miss = int(X.isna().sum().sum())
    rep.say(f"{X.shape[0]} members x {X.shape[1]} votes; parties: "
            + ", ".join(f"{c} {int((y == c).sum())}" for c in np.unique(y))
            + f"; {n_miss} votes missing (not voting / present), kept as missing")
    rep.say("Source: Congressional Quarterly Almanac 1984 via UCI (Schlimmer 1987), CC BY 4.0.")
    rep.done()

    rep.step("Fitting the Bayesian Naive Bayes posterior (Dirichlet priors, alpha=1)")
    model = CategoricalNB(alpha=1.0).fit(X, y)
    auto = CategoricalNB(alpha="auto").fit(X, y)
    a_auto = float(auto.posterior_.blocks[0].prior.concentration[0].flat[0])
    rep.say("posterior class proportions: " + ", ".join(
        f"{c} {p:.3f}" for c, p in zip(model.classes_, np.exp(model.class_log_prior_))))
    rep.say(f"log evidence log p(votes, parties) at alpha=1: {model.log_evidence_:.2f}")
    rep.say(f"evidence-maximising alpha (empirical Bayes): {a_auto:.3g}, log evidence {auto.log_evidence_:.2f}")
    rep.done()

    folds = 5 if quick else 10
    rep.step(f"{folds}-fold cross-validated accuracy next to scikit-learn's CategoricalNB")
    skf = StratifiedKFold(folds, shuffle=True, random_state=seed)
    codes = X.apply(lambda c: c.map({"n": 0, "y": 1})).fillna(2).astype(int).to_numpy()
    acc_b, acc_s, ll_b, ll_s = [], [], [], []
    oof = np.zeros((len(y), 2))
    for tr, te in skf.split(X, y):
        m = CategoricalNB(alpha=1.0).fit(X.iloc[tr], y[tr])
        P = m.predict_proba(X.iloc[te])
        oof[te] = P
        acc_b.append(np.mean(m.classes_[P.argmax(1)] == y[te]))
        ll_b.append(-np.mean(np.log(P[np.arange(len(te)), np.searchsorted(m.classes_, y[te])])))
        sk = SkCategoricalNB(alpha=1.0, min_categories=3).fit(codes[tr], y[tr])
        Q = sk.predict_proba(codes[te])
        acc_s.append(np.mean(sk.classes_[Q.argmax(1)] == y[te]))
        ll_s.append(-np.mean(np.log(np.clip(Q[np.arange(len(te)), np.searchsorted(sk.classes_, y[te])], 1e-300, 1))))
    rep.say(_fmt_table([
        ["bayesnb CategoricalNB (missing votes marginalised)", f"{np.mean(acc_b):.4f} +/- {np.std(acc_b):.4f}",
         f"{np.mean(ll_b):.4f}"],
        ["scikit-learn CategoricalNB ('?' as a 3rd category)", f"{np.mean(acc_s):.4f} +/- {np.std(acc_s):.4f}",
         f"{np.mean(ll_s):.4f}"],
    ], ["model", "accuracy (mean +/- sd over folds)", "log loss"]))
    if bplot is not None:
        fig = bplot.reliability_diagram(y, oof, model.classes_, label="bayesnb (out-of-fold)")
        figures.append(bplot.savefig(fig, os.path.join(out, "reliability.png")))
    rep.done()

    n_draws = 1000 if quick else 4000
    rep.step(f"Most informative votes: log-odds weights with 95% credible intervals ({n_draws} exact draws)")
    names, plug, mean, lo, hi = vote_log_odds(model, n_draws=n_draws, seed=seed, positive="republican")
    source = "exact Beta draws of each vote's posterior"
    if hasattr(model, "coef_draws"):
        try:
            w, _ = model.coef_draws(n_draws, random_state=seed)
            cn = [str(c) for c in model.coef_names_]
            wy = np.stack([w[:, cn.index(f"{v}=y")] - w[:, cn.index(f"{v}=n")] for v in names], axis=1)
            mean, lo, hi = wy.mean(0), np.quantile(wy, 0.025, 0), np.quantile(wy, 0.975, 0)
            source = "model.coef_draws (exact conjugate draws), weight('v=y') - weight('v=n')"
        except Exception:  # noqa: BLE001 - fall back to the Beta draws above
            pass
    order = np.argsort(-np.abs(mean))
    rows = [[names[i], f"{plug[i]:+.2f}", f"{mean[i]:+.2f}", f"[{lo[i]:+.2f}, {hi[i]:+.2f}]"] for i in order[:8]]
    rep.say("weight = how much a 'y' (rather than 'n') vote moves the log-odds of 'republican'")
    rep.say(f"intervals from {source}")
    rep.say(_fmt_table(rows, ["vote", "posterior-mean plug-in", "draw mean", "95% interval"]))
    if bplot is not None:
        fig = bplot.log_odds(names, mean, lo, hi, title="log-odds of republican: 'y' vs 'n' vote")
        figures.append(bplot.savefig(fig, os.path.join(out, "log_odds.png")))
        fig = bplot.class_conditionals(model, ncols=4)
        figures.append(bplot.savefig(fig, os.path.join(out, "class_conditionals.png")))
    rep.done()

    rep.step("Exact posterior vs MCMC (NUTS), short run")
    if hasattr(model, "run_mcmc") and hasattr(model, "sample_posterior"):
        try:
            _demo_mcmc(model, X, y, rep, out, figures, bplot, quick, seed)
        except Exception as e:  # noqa: BLE001 - the demo goes on, and says why
            rep.say(f"skipped: MCMC failed ({type(e).__name__}: {str(e)[:200]})")
    else:
        rep.say("skipped: this build has no MCMC (run_mcmc / sample_posterior)")
    rep.done()

    rep.step("Imputing the real missing votes")
    if hasattr(model, "impute"):
        try:
            filled = _call(model.impute, X, random_state=seed)
            filled = filled if hasattr(filled, "isna") else __import__("pandas").DataFrame(filled, columns=X.columns)
            was = X.isna().to_numpy()
            vals = np.asarray(filled)[was]
            rep.say(f"filled {int(was.sum())} missing votes; imputed 'y': {int(np.sum(vals == 'y'))}, "
                    f"'n': {int(np.sum(vals == 'n'))}")
            # measured check: hide 10% of the observed votes, impute them, compare
            rng = np.random.default_rng(seed)
            obs = np.argwhere(~was)
            hide = obs[rng.choice(len(obs), len(obs) // 10, replace=False)]
            Xh = X.copy()
            for r, c in hide:
                Xh.iat[r, c] = None
            fh = np.asarray(_call(model.impute, Xh, random_state=seed))
            truth = X.to_numpy()[hide[:, 0], hide[:, 1]]
            got = fh[hide[:, 0], hide[:, 1]]
            maj = X.mode().iloc[0].to_numpy()[hide[:, 1]]
            rep.say(f"check on {len(hide)} hidden observed votes: imputation accuracy {np.mean(got == truth):.3f} "
                    f"(overall-majority baseline {np.mean(maj == truth):.3f})")
        except Exception as e:  # noqa: BLE001
            rep.say(f"skipped: impute failed ({type(e).__name__}: {str(e)[:200]})")
    else:
        rep.say("skipped: this build has no impute (bayesnb.generative.GenerativeMixin.impute)")
    rep.done()

    rep.step("Synthetic members drawn from the posterior predictive")
    if hasattr(model, "sample"):
        try:
            res = _call(model.sample, 5, random_state=seed)
            Xs, ys = res if isinstance(res, tuple) and len(res) == 2 else (res, None)
            import pandas as pd

            Xs = Xs if hasattr(Xs, "columns") else pd.DataFrame(np.asarray(Xs), columns=X.columns)
            Xs = Xs.copy()
            if ys is not None:
                Xs.insert(0, "party", np.asarray(ys))
            rep.say(Xs.iloc[:, :7].to_string() + f"\n(first 6 of {X.shape[1]} votes shown)")
        except Exception as e:  # noqa: BLE001
            rep.say(f"skipped: sample failed ({type(e).__name__}: {str(e)[:200]})")
    else:
        rep.say("skipped: this build has no sample (bayesnb.generative.GenerativeMixin.sample)")
    rep.done()

    rep.step("Most unusual members (lowest log p(votes) per cast vote)")
    if hasattr(model, "score_samples"):
        try:
            logp = np.asarray(model.score_samples(X), dtype=float)
            how = "model.score_samples"
        except Exception:  # noqa: BLE001
            logp, how = None, None
    else:
        logp, how = None, None
    if logp is None:
        logp = logsumexp(model.predict_joint_log_proba(X), axis=1)
        how = "logsumexp_k log p(x, y=k), posterior-mean plug-in, missing votes marginalised"
    n_obs = X.notna().sum(axis=1).to_numpy()
    per_vote = logp / np.maximum(n_obs, 1)
    P = model.predict_proba(X)
    rows = []
    for i in np.argsort(per_vote)[:5]:
        k = list(model.classes_).index(y[i])
        rows.append([i, y[i], n_obs[i], f"{logp[i]:.2f}", f"{per_vote[i]:.3f}", f"{P[i, k]:.3f}"])
    rep.say(f"log p(x) from {how}")
    rep.say(_fmt_table(rows, ["row", "party", "votes cast", "log p(x)", "per vote", "p(own party | x)"]))
    rep.done()

    total = time.perf_counter() - t_start
    report = os.path.join(out, "report.txt")
    with open(report, "w", encoding="utf-8") as f:
        f.write(f"bayesnb {__version__} demo on the 1984 U.S. House votes (seed {seed}, "
                f"{'quick' if quick else 'full'} run, {total:.1f} s)\n")
        f.write("\n".join(rep.lines) + "\n\nFigures:\n" + "\n".join(f"  {os.path.basename(p)}" for p in figures) + "\n")
        if bplot is None:
            f.write("  (none: matplotlib is not installed; pip install 'bayesnb[plot]')\n")
    print(f"done in {total:.1f} s. Report: {os.path.abspath(report)}", flush=True)
    if figures:
        print("Figures: " + ", ".join(os.path.abspath(p) for p in figures), flush=True)
    else:
        print("No figures: matplotlib is not installed (pip install 'bayesnb[plot]').", flush=True)
    return 0


# ------------------------------------------------------------------------------ parser
def build_parser():
    """The argparse parser of the ``bayesnb`` command."""
    from . import __version__

    p = _Parser(
        prog="bayesnb",
        description="Naive Bayes as a Bayesian model: conjugate posteriors, exact predictives, "
                    "safe model files. Run 'bayesnb demo' to see everything on bundled data.",
    )
    p.add_argument("--version", action="version", version=f"bayesnb {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    d = sub.add_parser("demo", help="run the tour on the bundled 1984 house-votes data",
                       description="Fit Naive Bayes to the 1984 U.S. House votes (bundled), compare with "
                                   "scikit-learn by cross-validation, show the most informative votes with "
                                   "credible intervals and the generative uses available in this build; "
                                   "writes report.txt and PNG figures into --out.")
    d.add_argument("--out", default="bayesnb-report", help="folder for the report (default: ./bayesnb-report)")
    d.add_argument("--quick", action="store_true", help="fewer folds and draws (a few seconds)")
    d.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    d.set_defaults(func=cmd_demo)

    def data_opts(q):
        q.add_argument("--na-values", type=lambda s: s.split(","), default=None, metavar="A,B",
                       help="cell texts read as missing (default: empty,NA,NaN,nan,?,null,None)")

    f = sub.add_parser("fit", help="fit a model to a table and save it",
                       description="Fit a Naive Bayes model to DATA (CSV, TSV or Parquet) predicting --target, "
                                   "and save it to -o in bayesnb's safe model format. Missing cells are "
                                   "allowed (left out of the statistics).")
    f.add_argument("data", help="training table (.csv, .tsv, .parquet)")
    f.add_argument("--target", required=True, help="name of the label column")
    f.add_argument("-o", "--output", required=True, help="model file to write (e.g. model.bnb)")
    f.add_argument("--family", choices=FAMILIES, default="auto",
                   help="feature family: auto (text columns categorical, numeric Gaussian), "
                        "categorical, gaussian, multinomial (counts), bernoulli (0/1)")
    f.add_argument("--alpha", default=None,
                   help="smoothing pseudo-count (Dirichlet/Beta prior), e.g. 1 (Laplace), 0.5, 0, or 'auto' "
                        "(maximise the evidence)")
    f.add_argument("--columns", default=None, metavar="A,B,C", help="use only these feature columns")
    f.add_argument("--drop-unlabelled", action="store_true", help="leave out rows with no label")
    data_opts(f)
    f.set_defaults(func=cmd_fit)

    pr = sub.add_parser("predict", help="predict classes with a saved model",
                        description="Predict the class of each row of DATA with a saved model; the "
                                    "model's feature columns are taken by name (others are ignored).")
    pr.add_argument("model", help="model file written by 'bayesnb fit' or model.save()")
    pr.add_argument("data", help="table to predict (.csv, .tsv, .parquet; '-' = stdin CSV)")
    pr.add_argument("-o", "--output", default=None, help="output table (default: CSV on stdout)")
    pr.add_argument("--proba", action="store_true", help="add one p(class) column per class")
    pr.add_argument("--keep", action="store_true", help="keep the input columns in the output")
    pr.add_argument("--column", default="prediction", help="name of the prediction column")
    data_opts(pr)
    pr.set_defaults(func=cmd_predict)

    s = sub.add_parser("score", help="accuracy and log loss of a saved model on labelled data",
                       description="Evaluate a saved model on DATA with true labels in --target.")
    s.add_argument("model")
    s.add_argument("data")
    s.add_argument("--target", required=True, help="name of the label column")
    data_opts(s)
    s.set_defaults(func=cmd_score)

    i = sub.add_parser("info", help="describe a model file", description="Print what a model file contains.")
    i.add_argument("model")
    i.set_defaults(func=cmd_info)

    from .estimators import BaseNB

    if hasattr(BaseNB, "impute"):
        im = sub.add_parser("impute", help="fill missing cells with a saved model",
                            description="Fill the missing cells of DATA from the model's posterior "
                                        "predictive given each row's observed cells.")
        im.add_argument("model")
        im.add_argument("data")
        im.add_argument("-o", "--output", default=None, help="output table (default: CSV on stdout)")
        im.add_argument("--seed", type=int, default=0)
        data_opts(im)
        im.set_defaults(func=cmd_impute)
    if hasattr(BaseNB, "sample"):
        sa = sub.add_parser("sample", help="draw synthetic rows from a saved model",
                            description="Draw synthetic labelled rows from the model's posterior predictive.")
        sa.add_argument("model")
        sa.add_argument("-n", type=int, default=10, help="number of rows (default 10)")
        sa.add_argument("-o", "--output", default=None, help="output table (default: CSV on stdout)")
        sa.add_argument("--target", default="class", help="name of the label column (default: class)")
        sa.add_argument("--seed", type=int, default=0)
        sa.set_defaults(func=cmd_sample)
    return p


def main(argv=None) -> int:
    """Entry point of the ``bayesnb`` console script; returns the exit status."""
    from .persistence import ModelFileError

    prog = "bayesnb"
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if getattr(args, "command", None) is None:
            parser.print_help()
            return 2
        prog = f"bayesnb {args.command}"
        return int(args.func(args) or 0)
    except SystemExit as e:  # --help / --version
        return int(e.code or 0)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except (UsageError, ModelFileError, FileNotFoundError, PermissionError, IsADirectoryError,
            ValueError, TypeError, KeyError) as e:
        if os.environ.get("BAYESNB_DEBUG"):
            raise
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if isinstance(e, KeyError):
            msg = f"unknown key {msg}"
        print(f"{prog}: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
