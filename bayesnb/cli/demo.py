"""``bayesnb demo``: the whole library on the bundled 1984 House votes.

:func:`run_demo` runs eight steps (data, posterior, cross-validation against scikit-learn,
log-odds weights with credible intervals, exact posterior vs NUTS, imputation, synthetic rows,
unusual members) and writes ``report.txt`` and PNG figures, each file atomically. Every step
must succeed: a failing step raises :class:`DemoStepError`, which the command line reports in
one line with exit status 1.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np

from .._version import __version__
from ..datasets import load_house_votes
from . import _when_run as when_run
from .files import UsageError, atomic_path
from .options import add_command, seed_value

__all__ = ["DemoStepError", "cmd_demo", "register", "run_demo"]


class DemoStepError(Exception):
    """A step of ``bayesnb demo`` failed: reported in one line, exit status 1."""


class _Report:
    """Prints progress and results, and keeps the results for report.txt."""

    def __init__(self, total):
        self.total, self.i, self.lines, self.what = total, 0, [], "starting"
        self.t0 = time.perf_counter()

    def step(self, what):
        self.i += 1
        self.what = what
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


def _demo_mcmc(model, X, y, rep, out, figures, bplot, quick, seed):
    """Exact draws and a short NUTS run of the same model, compared element by element."""
    n_mc = 500 if quick else 1000  # draws per chain; 4 chains, so r_hat compares chains (<= 1.01 here)
    # (run_mcmc sets up JAX's persistent compile cache: later demo runs start sampling in about a second)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = model.sample_posterior(4000, random_state=seed)
        mc = model.run_mcmc(X, y, num_warmup=500, num_samples=n_mc, num_chains=4, random_state=seed)
        table = when_run.compare_posteriors(exact, mc, verbose=False)
    a = mc.attrs if hasattr(mc, "attrs") else {}
    rep.say(f"NUTS: 4 chains of 500 warm-up + {n_mc} draws in {time.perf_counter() - t0:.1f} s "
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
            e, m = (np.asarray(d[var].values, float).reshape(-1, int(np.prod(d[var].shape[2:], dtype=int)))
                    for d in (ex, mcd))  # (chain x draw, elements)
            ok = np.isfinite(e).all(0)
            cols_e.append(e[:, ok])
            cols_m.append(m[:, ok])
        E, M = np.concatenate(cols_e, 1), np.concatenate(cols_m, 1)
        labels = list(table["element"])
        if E.shape[1] == len(labels):
            pick = [i for i, l in enumerate(labels) if l.startswith("pi") or "physician-fee-freeze" in l
                    or "el-salvador-aid" in l][:8] or list(range(min(8, len(labels))))
            fig = bplot.exact_vs_mcmc(E[:, pick], M[:, pick], [labels[i] for i in pick])
            figures.append(_savefig(bplot, fig, os.path.join(out, "exact_vs_mcmc.png")))


def register(subparsers):
    """Add ``bayesnb demo`` and its options to ``subparsers``."""
    d = add_command(subparsers, "demo", cmd_demo, help="run the tour on the bundled 1984 house-votes data",
                    description="Fit Naive Bayes to the 1984 U.S. House votes (bundled), compare with "
                                "scikit-learn by cross-validation, show the most informative votes with "
                                "credible intervals and the generative uses available in this build; "
                                "writes report.txt and PNG figures into --out.")
    d.add_argument("--out", default="bayesnb-report", help="folder for the report (default: ./bayesnb-report)")
    d.add_argument("--quick", action="store_true", help="fewer folds and draws (a few seconds)")
    d.add_argument("--seed", type=seed_value, default=0, help="random seed (default 0)")


def cmd_demo(args):
    """``bayesnb demo``: the tour on the bundled house-votes data."""
    return run_demo(out=args.out, quick=args.quick, seed=args.seed)


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

    Returns
    -------
    int
        0: every step ran.

    Raises
    ------
    DemoStepError
        A step failed (its number, title and the error's first line; the cause chained).
    UsageError
        ``out`` cannot be created or written.
    """
    t_start = time.perf_counter()
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"--out {out}: is a file; give a folder")
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise UsageError(f"--out {out}: no such folder {os.path.dirname(out) or parent}")
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--out {out}: cannot create the folder ({e.strerror or type(e).__name__})") from None
    out_abs = os.path.abspath(out)
    figures = []
    bplot = when_run.plot
    try:
        bplot.pyplot()  # matplotlib, if installed
    except ImportError:
        bplot = None
    rep = _Report(8)
    print(f"bayesnb {__version__} demo -- writing the report to {out_abs}", flush=True)
    try:
        return _demo_tour(rep, out, figures, bplot, quick, seed, t_start)
    except UsageError:
        raise
    except Exception as e:
        first = str(e).strip().splitlines()[0][:300] if str(e).strip() else ""
        raise DemoStepError(f"step {rep.i}/{rep.total} ({rep.what}) failed: {type(e).__name__}"
                            + (f": {first}" if first else "")) from e


def _savefig(bplot, fig, path):
    """Save a figure atomically (temporary file, then rename); returns ``path``."""
    with atomic_path(path) as tmp:
        bplot.savefig(fig, tmp)
    return path


def _demo_tour(rep, out, figures, bplot, quick, seed, t_start):
    """The eight steps of :func:`run_demo`; a failing step raises."""
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
    model = when_run.CategoricalNB(alpha=1.0).fit(X, y)
    auto = when_run.CategoricalNB(alpha="auto").fit(X, y)
    a_auto = float(auto.posterior_.blocks[0].prior.concentration[0].flat[0])
    rep.say("posterior class proportions: " + ", ".join(
        f"{c} {p:.3f}" for c, p in zip(model.classes_, np.exp(model.class_log_prior_))))
    rep.say(f"log evidence log p(votes, parties) at alpha=1: {model.log_evidence_:.2f}")
    rep.say(f"evidence-maximising alpha (empirical Bayes): {a_auto:.3g}, log evidence {auto.log_evidence_:.2f}")
    rep.done()

    folds = 5 if quick else 10
    rep.step(f"{folds}-fold cross-validated accuracy next to scikit-learn's CategoricalNB")
    skf = when_run.StratifiedKFold(folds, shuffle=True, random_state=seed)
    codes = X.apply(lambda c: c.map({"n": 0, "y": 1})).fillna(2).astype(int).to_numpy()
    acc_b, acc_s, ll_b, ll_s = [], [], [], []
    oof = np.zeros((len(y), 2))
    for tr, te in skf.split(X, y):
        m = when_run.CategoricalNB(alpha=1.0).fit(X.iloc[tr], y[tr])
        P = m.predict_proba(X.iloc[te])
        oof[te] = P
        acc_b.append(np.mean(m.classes_[P.argmax(1)] == y[te]))
        ll_b.append(-np.mean(np.log(P[np.arange(len(te)), np.searchsorted(m.classes_, y[te])])))
        sk = when_run.SkCategoricalNB(alpha=1.0, min_categories=3).fit(codes[tr], y[tr])
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
        figures.append(_savefig(bplot, fig, os.path.join(out, "reliability.png")))
    rep.done()

    n_draws = 1000 if quick else 4000
    rep.step(f"Most informative votes: log-odds weights with 95% credible intervals ({n_draws} exact draws)")
    # a vote's weight is weight('v=y') - weight('v=n'): the log odds of classes_[1], republican
    cn = [str(c) for c in model.coef_names_]
    names = [str(v) for v in X.columns if f"{v}=y" in cn and f"{v}=n" in cn]
    iy, i_n = [cn.index(f"{v}=y") for v in names], [cn.index(f"{v}=n") for v in names]
    w, _ = model.coef_draws(n_draws, random_state=seed)
    plug, wy = model.coef_[0, iy] - model.coef_[0, i_n], w[:, iy] - w[:, i_n]
    mean, lo, hi = wy.mean(0), np.quantile(wy, 0.025, 0), np.quantile(wy, 0.975, 0)
    order = np.argsort(-np.abs(mean))
    rows = [[names[i], f"{plug[i]:+.2f}", f"{mean[i]:+.2f}", f"[{lo[i]:+.2f}, {hi[i]:+.2f}]"] for i in order[:8]]
    rep.say("weight = how much a 'y' (rather than 'n') vote moves the log-odds of 'republican'")
    rep.say("intervals from model.coef_draws (exact conjugate draws), weight('v=y') - weight('v=n')")
    rep.say(_fmt_table(rows, ["vote", "posterior-mean plug-in", "draw mean", "95% interval"]))
    if bplot is not None:
        fig = bplot.log_odds(names, mean, lo, hi, title="log-odds of republican: 'y' vs 'n' vote")
        figures.append(_savefig(bplot, fig, os.path.join(out, "log_odds.png")))
        fig = bplot.class_conditionals(model, ncols=4)
        figures.append(_savefig(bplot, fig, os.path.join(out, "class_conditionals.png")))
    rep.done()

    rep.step("Exact posterior vs MCMC (NUTS), short run")
    _demo_mcmc(model, X, y, rep, out, figures, bplot, quick, seed)
    rep.done()

    rep.step("Imputing the real missing votes")
    filled = model.impute(X, random_state=seed)
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
    fh = np.asarray(model.impute(Xh, random_state=seed))
    truth = X.to_numpy()[hide[:, 0], hide[:, 1]]
    got = fh[hide[:, 0], hide[:, 1]]
    maj = X.mode().iloc[0].to_numpy()[hide[:, 1]]
    rep.say(f"check on {len(hide)} hidden observed votes: imputation accuracy {np.mean(got == truth):.3f} "
            f"(overall-majority baseline {np.mean(maj == truth):.3f})")
    rep.done()

    rep.step("Synthetic members drawn from the posterior predictive")
    Xs, ys = model.sample(5, random_state=seed)
    Xs = Xs.copy()
    Xs.insert(0, "party", np.asarray(ys))
    rep.say(Xs.iloc[:, :7].to_string() + f"\n(first 6 of {X.shape[1]} votes shown)")
    rep.done()

    rep.step("Most unusual members (lowest log p(votes) per cast vote)")
    logp = np.asarray(model.score_samples(X), dtype=float)
    n_obs = X.notna().sum(axis=1).to_numpy()
    per_vote = logp / np.maximum(n_obs, 1)
    P = model.predict_proba(X)
    own = np.searchsorted(model.classes_, y)  # each member's party among the classes
    rows = [[i, y[i], n_obs[i], f"{logp[i]:.2f}", f"{per_vote[i]:.3f}", f"{P[i, own[i]]:.3f}"]
            for i in np.argsort(per_vote)[:5]]
    rep.say("log p(x) from model.score_samples (missing votes marginalised)")
    rep.say(_fmt_table(rows, ["row", "party", "votes cast", "log p(x)", "per vote", "p(own party | x)"]))
    rep.done()

    total = time.perf_counter() - t_start
    report = os.path.join(out, "report.txt")
    with atomic_path(report) as tmp, open(tmp, "w", encoding="utf-8") as f:
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
