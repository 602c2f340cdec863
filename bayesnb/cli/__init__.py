"""The ``bayesnb`` command line (also ``python -m bayesnb``).

Subcommands::

    bayesnb demo [--out DIR] [--quick]            the whole library on the bundled house-votes data
    bayesnb fit DATA --target COL -o MODEL.bnb     fit a model to a CSV/Parquet table and save it
    bayesnb mcmc DATA --target COL -o DRAWS.nc     NUTS draws of the same model, checked against the exact posterior
                                                   (--model MODEL.bnb: a saved model; --components K: latent classes)
    bayesnb predict MODEL.bnb DATA [-o OUT.csv]    predicted class (--proba, --log, --joint, --interval CI, --each-draw)
    bayesnb score MODEL.bnb DATA --target COL      accuracy and log loss on labelled data
    bayesnb info MODEL.bnb [--json]                a readable report of a model file
    bayesnb impute MODEL.bnb DATA [-o OUT.csv]     fill missing cells (--strategy, -m, --latent)
    bayesnb impute-table DATA [-o OUT.csv]         fill missing cells, no model: per column the best of naive,
                                                   latent class, TAN, mvn on hidden cells (--target, --label-given)
    bayesnb fit-imputer DATA -o IMPUTER.bnb        the same choice kept as a model (bayesnb.Imputer), for impute
    bayesnb sample MODEL.bnb -n N [-o OUT.csv]     synthetic rows (--prior: from the prior predictive)
    bayesnb check MODEL.bnb DATA --target COL     posterior predictive check of independence (--marginals)
    bayesnb outliers MODEL.bnb DATA [-o OUT.csv]   log density of each row and an outlier flag
    bayesnb posterior MODEL.bnb [-o OUT.csv]       every parameter's posterior mean, sd and 94% HDI (--coef: log odds)
    bayesnb explain MODEL.bnb DATA [-o OUT.csv]    each feature's contribution to each row's log density (--long)
    bayesnb pool TABLE [-o OUT.csv]                Rubin's rules over per-imputation estimates and variances
    bayesnb datasets list|export NAME -o FILE      the bundled tables as files
    bayesnb evaluate-synthetic REAL SYNTH [--target COL]   how faithful synthetic rows are
    bayesnb synthesize DATA -n N [-o OUT.csv]      synthetic rows, no model: the model chosen by evidence
                                                   (bayesnb.Synthesizer; --target, --structure, --latent)

User mistakes (a missing file, an unknown column, a corrupted model, a folder that does not
exist...) print one line on stderr and exit with status 2; a failed demo step exits with
status 1; an interrupted command exits with 130. ``-q``/``--quiet`` (before or after the
subcommand) silences confirmations and progress messages. ``bayesnb --debug ...`` (or ``BAYESNB_DEBUG=1``) shows the traceback instead.
No command replaces an existing output file unless given ``--force``, none ever writes over
one of its inputs (not even with ``--force``), and every output file is written completely to a
temporary file and only then renamed onto the destination (see :mod:`bayesnb.cli.files`).

Modules: :mod:`~bayesnb.cli.commands` (the subcommands), :mod:`~bayesnb.cli.files` (tables and
atomic writes), :mod:`~bayesnb.cli.model` (model files), :mod:`~bayesnb.cli.demo` (the tour),
:mod:`~bayesnb.cli.generate` (impute, sample), :mod:`~bayesnb.cli.report` (info),
:mod:`~bayesnb.cli.datasets` (datasets), :mod:`~bayesnb.cli.outliers` (outliers),
:mod:`~bayesnb.cli.posterior` (posterior), :mod:`~bayesnb.cli.explain` (explain), :mod:`~bayesnb.cli.pool` (pool),
:mod:`~bayesnb.cli.mcmc` (mcmc), :mod:`~bayesnb.cli.tableimpute` (impute-table),
:mod:`~bayesnb.cli.synthesize` (synthesize),
:mod:`~bayesnb.cli.fitoptions` (fit's and mcmc's --structure, --k, --edge-score).
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap

from .._progress import set_progress
from ..io.archive import ModelFileError
from .._version import __version__
from .check import cmd_check
from .commands import (
    cmd_demo,
    cmd_fit,
    cmd_predict,
    cmd_score,
    score_model,
)
from .datasets import DATASETS, cmd_datasets
from .demo import DemoStepError as _DemoStepError
from .explain import cmd_explain
from .families import add_family_options
from .fitoptions import add_fit_options, add_structure_options
from .generate import cmd_impute, cmd_sample
from .files import (
    FORMATS,
    PROG,
    QUIET,
    UsageError,
    read_table,
    table_format,
    warn,
    write_table,
)
from .mcmc import cmd_mcmc
from .outliers import cmd_outliers
from .pool import cmd_pool
from .posterior import cmd_posterior
from .report import cmd_info
from .synthetic import cmd_evaluate_synthetic
from .synthesize import cmd_synthesize
from .tableimpute import add_imputer_options, cmd_fit_imputer, cmd_impute_table

__all__ = ["EXIT_CODES", "UsageError", "main", "read_table", "score_model", "write_table"]

#: the exit statuses of ``bayesnb`` (shown by ``bayesnb --help``)
EXIT_CODES = {
    0: "success",
    1: "a step of 'bayesnb demo' failed",
    2: "usage error: bad option, missing or unreadable file, unknown column, bad value, corrupted or "
       "wrongly signed model file, a method the model does not have (e.g. posterior --coef of a model "
       "whose log odds are not linear) (one line on stderr)",
    130: "interrupted (Ctrl-C)",
}


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line (``bayesnb fit: error: ...``) and exit status 2."""

    def error(self, message):
        raise UsageError(f"{message} (see '{self.prog} --help')")


# ------------------------------------------------------------------------------ parser
def build_parser():
    """The argparse parser of the ``bayesnb`` command."""
    p = _Parser(
        prog="bayesnb",
        description="Naive Bayes as a Bayesian model: conjugate posteriors, exact predictives, "
                    "safe model files. Run 'bayesnb demo' to see everything on bundled data.",
        epilog="exit status:\n" + "\n".join(f"  {c:<4} " + "\n       ".join(textwrap.wrap(t, 70))
                                               for c, t in EXIT_CODES.items())
               + "\n\n--debug shows the traceback of an error; -q/--quiet silences confirmations and progress.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"bayesnb {__version__}")
    p.add_argument("--debug", action="store_true",
                   help="show the Python traceback of an error instead of a one-line message")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no confirmations ('wrote ...') or progress messages; warnings and errors still shown")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    _add_parser = sub.add_parser

    def add_parser(*a, **kw):  # every subcommand also takes --debug (after its name)
        q = _add_parser(*a, **kw)
        q.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="show the Python traceback of an error instead of a one-line message")
        q.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                       help="no confirmations or progress messages")
        return q

    sub.add_parser = add_parser

    def force_opt(q):  # the one output policy: an existing -o file is replaced only with --force
        q.add_argument("--force", action="store_true",
                       help="replace an existing -o file (never one of the command's inputs)")

    def drop_opt(q):  # the one rule for missing labels of every command that takes --target
        q.add_argument("--drop-unlabelled", action="store_true",
                       help="leave out the rows with no --target label (their count is reported on stderr); "
                            "without it such rows are an error")

    def key_opt(q, what):
        q.add_argument("--key-file", default=None, metavar="PATH",
                       help=f"secret key file: {what} (HMAC-SHA256; see docs/cli.md)")

    d = sub.add_parser("demo", help="run the tour on the bundled 1984 house-votes data",
                       description="Fit Naive Bayes to the 1984 U.S. House votes (bundled), compare with "
                                   "scikit-learn by cross-validation, show the most informative votes with "
                                   "credible intervals and the generative uses available in this build; "
                                   "writes report.txt and PNG figures into --out.")
    d.add_argument("--out", default="bayesnb-report", help="folder for the report (default: ./bayesnb-report)")
    d.add_argument("--quick", action="store_true", help="fewer folds and draws (a few seconds)")
    d.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    d.set_defaults(func=cmd_demo)

    def names(text):
        return [c.strip() for c in text.split(",") if c.strip()]

    def data_opts(q):
        q.add_argument("--na-values", type=lambda s: s.split(","), default=None, metavar="A,B",
                       help="cell texts read as missing, replacing the default (pandas' NA, NaN, null, None, "
                            "N/A, ... and ?); an empty cell is always missing")
        q.add_argument("--numeric", type=names, default=None, metavar="COL,...",
                       help="read these columns as numbers (a text cell is an error unless in --na-values)")
        q.add_argument("--categorical", type=names, default=None, metavar="COL,...",
                       help="read these columns as categories (text), even if they hold numbers")

    def fit_opts(q, what, target_help=None):
        q.add_argument("data", help=f"training table (.csv, .tsv, .parquet; '-' = stdin CSV){what}")
        q.add_argument("--target", required=target_help is None, help=target_help or "name of the label column")
        add_family_options(q)
        q.add_argument("--alpha", default=None,
                       help="smoothing pseudo-count (Dirichlet/Beta prior), e.g. 1 (Laplace), 0.5, 0, 'auto' "
                            "(maximise the evidence) or 'hierarchical' (each context shrunk to its parent's)")
        q.add_argument("--columns", default=None, metavar="A,B,C", help="use only these feature columns")
        drop_opt(q)
        data_opts(q)

    f = sub.add_parser("fit", help="fit a model to a table and save it",
                       description="Fit a Naive Bayes model to DATA (CSV, TSV or Parquet) predicting --target, "
                                   "and save it to -o in bayesnb's safe model format. Missing cells are "
                                   "allowed (left out of the statistics).")
    fit_opts(f, "")
    f.add_argument("-o", "--output", required=True, help="model file to write (e.g. model.bnb)")
    force_opt(f)
    add_fit_options(f)  # --chunksize, --semi-supervised, --structure, --k, --edge-score
    key_opt(f, "sign the model file, so that it loads only with the same key")
    f.set_defaults(func=cmd_fit)

    mc = sub.add_parser("mcmc", help="sample the posterior with NUTS and compare it with the exact one",
                        description="Fit the model of 'bayesnb fit' (same options) to DATA, sample its "
                                    "posterior with NumPyro's NUTS (model.run_mcmc), write the ArviZ DataTree "
                                    "to -o (.nc: NetCDF, needs h5netcdf or netCDF4; .zarr: needs zarr) and print "
                                    "the comparison with the exact conjugate posterior (compare_posteriors "
                                    "against the closed-form means and sds) and its verdict. With --model, the "
                                    "saved model's priors and columns are used instead of fitting; with "
                                    "--components K > 1 (the latent-class model) or unlabelled rows there is no "
                                    "closed form, and it prints each element's mean, sd, ESS and R-hat.")
    fit_opts(mc, "", target_help="name of the label column (required unless --model: then by default the model's "
                                 "target name when DATA has it; rows with a missing label are marginalised)")
    mc.add_argument("--model", default=None, metavar="FILE",
                    help="sample the posterior of this saved model (its priors, categories and columns) on DATA "
                         "instead of fitting one; the comparison with its exact posterior holds when DATA is its "
                         "training table")
    key_opt(mc, "the --model file must be signed with this key")
    add_structure_options(mc, ": run_mcmc samples every context's parameters (not with --model: the file's is used)")
    mc.add_argument("--components", type=int, default=1, metavar="K",
                    help="naive-Bayes components per class: K > 1 samples the latent-class model "
                         "(run_mcmc(n_components=K), chains started at an EM fit; default 1)")
    mc.add_argument("-o", "--output", required=True, help="DataTree file to write: FILE.nc or FILE.zarr")
    mc.add_argument("--draws", type=int, default=1000, metavar="N", help="NUTS draws per chain (default 1000)")
    mc.add_argument("--warmup", type=int, default=500, metavar="N", help="warmup steps per chain (default 500)")
    mc.add_argument("--chains", type=int, default=4, metavar="N",
                    help="chains, run one after another (default 4: r_hat and ESS from several chains)")
    mc.add_argument("--seed", type=int, default=0, help="random seed (default 0): run_mcmc(random_state=SEED)")
    mc.add_argument("--target-accept", type=float, default=0.8, metavar="P",
                    help="NUTS target acceptance probability in (0, 1) (default 0.8; raise it, e.g. to 0.95, "
                         "when the run reports divergent transitions): run_mcmc(target_accept_prob=P)")
    mc.add_argument("--rows", type=int, default=20, metavar="N",
                    help="parameter elements shown, the largest |z| first (default 20; 0: all)")
    force_opt(mc)
    mc.set_defaults(func=cmd_mcmc)

    def format_opt(q):
        q.add_argument("--format", choices=FORMATS, default=None,
                       help="format of the output table: csv, parquet (needs pyarrow) or json (an array of "
                            "records). Default: by the -o file's extension (.csv, .tsv, .parquet, .json), else "
                            "csv; '-o -' (stdout) takes csv or json")

    def model_command(name, func, help, description, data_help=None):
        """A subcommand reading a saved (maybe signed) model file and, with ``data_help``, a table."""
        q = sub.add_parser(name, help=help, description=description)
        q.add_argument("model", help="model file written by 'bayesnb fit' or model.save()")
        if data_help is not None:
            q.add_argument("data", help=data_help)
            data_opts(q)
        key_opt(q, "the model file must be signed with this key")
        q.set_defaults(func=func)
        return q

    def output_opt(q, help="output table (default: CSV on stdout)"):
        q.add_argument("-o", "--output", default=None, help=help)
        force_opt(q)
        format_opt(q)

    table = "table (.csv, .tsv, .parquet; '-' = stdin CSV)"
    pr = model_command("predict", cmd_predict, "predict classes with a saved model",
                       "Predict the class of each row of DATA with a saved model; the model's feature "
                       "columns are taken by name (others are ignored).", data_help=f"{table} to predict")
    output_opt(pr)
    pr.add_argument("--proba", action="store_true", help="add one p(class) column per class")
    pr.add_argument("--keep", action="store_true", help="keep the input columns in the output")
    pr.add_argument("--column", default="prediction", help="name of the prediction column")
    pr.add_argument("--interval", type=float, default=None, metavar="CI",
                    help="add the equal-tailed CI credible interval of each p(class) over exact posterior draws "
                         "(columns 'p(c) lo', 'p(c) hi'; model.predict_proba_interval), e.g. 0.94")
    pr.add_argument("--log", action="store_true", help="add one 'log p(c)' column per class (model.predict_log_proba)")
    pr.add_argument("--joint", action="store_true",
                    help="add one 'log p(x, c)' column per class (model.predict_joint_log_proba)")
    pr.add_argument("--each-draw", action="store_true",
                    help="instead, write p(class) under each of --draws exact posterior draws "
                         "(model.predict_proba_draws): one row per draw and input row, columns .draw, .row, p(c)...")
    pr.add_argument("--draws", type=int, default=1000, metavar="N",
                    help="posterior draws for --interval and --each-draw (default 1000)")
    pr.add_argument("--seed", type=int, default=0, help="random seed of --interval and --each-draw (default 0)")

    s = model_command("score", cmd_score, "accuracy and log loss of a saved model on labelled data",
                      "Evaluate a saved model on DATA with true labels in --target.",
                      data_help=f"labelled {table}")
    s.add_argument("--target", required=True, help="name of the label column")
    drop_opt(s)

    inf = model_command("info", cmd_info, "a readable report of a model file",
                        "Print what a model file holds: estimator, target, classes with counts, the evidence, "
                        "the alpha 'auto' chose, and per block its family, columns and posterior means with "
                        "94% intervals (the most probable values of categorical columns).")
    inf.add_argument("--json", action="store_true", help="print the file's summary as JSON instead")
    inf.add_argument("--columns-shown", type=int, default=8, metavar="N",
                     help="columns shown per block (default 8)")

    def float_opt(q):
        q.add_argument("--float-format", default=None, metavar="FMT",
                       help="printf format of float cells in CSV output, e.g. %%.6g (default: every float "
                            "written exactly, the shortest text that reads back as the same number)")

    im = model_command("impute", cmd_impute, "fill missing cells with a saved model or imputer",
                       "Fill the missing cells of DATA from the model's posterior predictive given each "
                       "row's observed cells (and its label, when DATA has the label column). Equals "
                       "model.impute(X, strategy=..., n_imputations=M, y=labels, n_components=K, "
                       "random_state=SEED) of the Python API. With an imputer from 'bayesnb fit-imputer' "
                       "(bayesnb.Imputer), each column is filled by the configuration chosen for it: "
                       "imputer.impute(X, y, strategy=auto|draw, n_imputations=M, random_state=SEED).",
                       data_help=f"{table} with missing cells")
    output_opt(im)
    im.add_argument("--target", default=None, metavar="COL",
                    help="label column of DATA, passed as y (missing labels allowed; default: the model's "
                         "target name, when DATA has that column)")
    im.add_argument("--no-labels", action="store_true", help="do not use the label column even if DATA has it")
    im.add_argument("--strategy", choices=("auto", "mode", "mean", "draw"), default="auto",
                    help="auto (each family's best point estimate; the default), mode, mean, or draw "
                         "(random draws: multiple imputation)")
    im.add_argument("-m", "--imputations", type=int, default=1, metavar="M",
                    help="number of completed tables (with --strategy draw); M > 1 writes one long table "
                         "whose first column .imputation numbers them 1..M")
    im.add_argument("--latent", default=None, metavar="K|auto",
                    help="fit a latent-class model on DATA first (K components per class, or 'auto': "
                         "chosen by held-out likelihood) and impute with it")
    im.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    float_opt(im)

    it = sub.add_parser("impute-table", help="fill missing cells with the configuration that imputes DATA best",
                        description="bayesnb.Imputer (impute_table) from the shell, the default imputation of a "
                                    "table: per column, the configuration (naive, latent class, TAN, mvn) whose "
                                    "imputations of a random 15% of DATA's observed cells, hidden on purpose, are "
                                    "the most accurate, fitted on DATA. Slower than 'impute' (seconds to minutes: it "
                                    "fits every configuration twice). 'fit-imputer' saves the choice as a model for "
                                    "'impute MODEL DATA'.")
    it.add_argument("data", help=f"{table} with missing cells")
    output_opt(it)
    add_imputer_options(it, drop_opt, data_opts)
    float_opt(it)
    it.set_defaults(func=cmd_impute_table)

    fi = sub.add_parser("fit-imputer", help="fit bayesnb.Imputer on a table and save it (for impute)",
                        description="impute-table's choice for every column of DATA, fitted and saved as one "
                                    "model file: Imputer(...).fit(X, y).save(OUTPUT). 'bayesnb impute OUTPUT NEW' "
                                    "then fills DATA or new rows with its columns (--strategy draw -m M: draws).")
    fi.add_argument("data", help=f"training {table}")
    fi.add_argument("-o", "--output", required=True, help="imputer file to write (e.g. imputer.bnb)")
    force_opt(fi)
    add_imputer_options(fi, drop_opt, data_opts)
    key_opt(fi, "sign the imputer file, so that it loads only with the same key")
    fi.set_defaults(func=cmd_fit_imputer)

    sa = model_command("sample", cmd_sample, "draw synthetic rows from a saved model",
                       "Draw synthetic labelled rows from the model's posterior predictive.")
    sa.add_argument("-n", type=int, default=10, help="number of rows (default 10)")
    output_opt(sa)
    sa.add_argument("--target", default=None,
                    help="name of the label column (default: the training target's name, else 'class')")
    sa.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    sa.add_argument("--prior", action="store_true",
                    help="draw from the prior predictive instead (model.sample_prior_predictive: one draw of the "
                         "parameters from their priors, shared by the rows): a prior predictive check")
    float_opt(sa)

    ds = sub.add_parser("datasets", help="list or export the bundled tables",
                        description="'bayesnb datasets list' shows the bundled tables; 'bayesnb datasets "
                                    "export NAME -o FILE' writes one as CSV (or Parquet by extension), "
                                    "refusing to replace an existing file unless --force.")
    ds.add_argument("action", choices=("list", "export"))
    ds.add_argument("name", nargs="?", default=None, help=f"dataset to export: {', '.join(DATASETS)}")
    output_opt(ds, help="file to write ('-': stdout)")
    ds.set_defaults(func=cmd_datasets)

    ch = model_command("check", cmd_check, "check the independence assumption on labelled data",
                       "Posterior predictive check of conditional independence (check_independence): for "
                       "every feature pair within each class, a dependence statistic of DATA against "
                       "replicated datasets; prints the most severe pairs.", data_help=f"labelled {table}")
    ch.add_argument("--target", required=True, help="name of the label column")
    drop_opt(ch)
    ch.add_argument("--replicates", type=int, default=200, help="replicated datasets (default 200)")
    ch.add_argument("--seed", type=int, default=0)
    ch.add_argument("--marginals", action="store_true",
                    help="check each numeric column's family within each class instead (check_marginals: "
                         "skewness, zeros, range, distinct values against replicated data)")
    ch.add_argument("--json", action="store_true", help="print every row as JSON")
    output_opt(ch)

    ou = model_command("outliers", cmd_outliers, "log density of each row and an outlier flag",
                       "Write DATA with two more columns: log_density (model.score_samples: log p(x) under the "
                       "posterior predictive) and outlier (log_density below the threshold). The threshold is "
                       "the model's stored one (set_outlier_threshold before saving) unless --contamination is "
                       "given; else set_outlier_threshold(DATA, C), C = 0.05 by default. Prints how many rows "
                       "were flagged.", data_help=f"{table} to score")
    output_opt(ou)
    ou.add_argument("--contamination", type=float, default=None, metavar="C",
                    help="expected outlier share in DATA, in (0, 0.5): the threshold is the C-quantile of DATA's "
                         "log densities (default: the model's stored threshold, else 0.05)")
    ou.add_argument("--target", default=None, metavar="COL",
                    help="DATA's label column: checked to exist and not to be a feature, kept in the output "
                         "(the density log p(x) sums over classes; labels are not used)")
    float_opt(ou)

    po = model_command("posterior", cmd_posterior, "every parameter's posterior as a tidy table",
                       "One row per parameter element (block, parameter, class, feature, value) with the "
                       "posterior mean, sd and 94% highest-density interval (hdi_3%, hdi_97%) of exact "
                       "conjugate draws: those of model.sample_posterior(DRAWS, random_state=SEED).")
    output_opt(po)
    po.add_argument("--draws", type=int, default=2000, metavar="N", help="exact posterior draws (default 2000)")
    po.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    po.add_argument("--coef", action="store_true",
                    help="the linear view instead (binary models with Bernoulli, Multinomial or Categorical "
                         "blocks): per log-odds term (intercept, coef_names_) the value at the posterior mean "
                         "(coef_), and mean, sd and equal-tailed --ci interval of model.coef_draws(DRAWS, SEED)")
    po.add_argument("--ci", type=float, default=None, metavar="CI",
                    help="level of the --coef interval (default 0.94; model.coef_interval)")
    po.add_argument("--each-draw", action="store_true",
                    help="with --coef, write the draws themselves: .draw, (intercept), one column per term")
    float_opt(po)

    ex = model_command("explain", cmd_explain, "each feature's contribution to each row's log density",
                       "model.feature_log_contributions from the shell: C[i, j] = sum_k p(k | x_i) log p(x_ij | k) "
                       "(0 for a missing cell); with class_term they add up to log_density = model.score_samples. "
                       "The most negative contributions are what makes a row unusual. Wide (default): one column per "
                       "feature, then class_term and log_density; --long: one row per (row, feature).",
                       data_help=f"{table} to explain")
    output_opt(ex)
    ex.add_argument("--long", action="store_true",
                    help="one row per row and feature: .row (from 1), feature, value (the cell), contribution")
    float_opt(ex)

    pl = sub.add_parser("pool", help="Rubin's rules over estimates from m imputed tables",
                        description="bayesnb.pool from the shell: TABLE has one row per (imputation, parameter) with "
                                    "its estimate and variance (or standard error); prints/writes the pooled "
                                    "estimate, total variance, df, fmi, p-value and confidence interval per "
                                    "parameter (Rubin 1987; Barnard & Rubin 1999 with --dfcom).")
    pl.add_argument("data", help=f"long {table} of per-imputation estimates")
    pl.add_argument("--imputation", default=".imputation", metavar="COL",
                    help="column numbering the imputed tables (default .imputation, as 'impute -m' writes)")
    pl.add_argument("--term", default="term", metavar="COL",
                    help="column naming the parameter (default term; without such a column: one parameter)")
    pl.add_argument("--estimate", default="estimate", metavar="COL", help="column of estimates (default estimate)")
    pl.add_argument("--variance", default="variance", metavar="COL",
                    help="column of within-imputation variances, squared standard errors (default variance)")
    pl.add_argument("--std-error", default=None, metavar="COL", help="column of standard errors, instead of --variance")
    pl.add_argument("--dfcom", type=float, default=None, metavar="DF",
                    help="degrees of freedom of the complete-data analysis (small-sample df of Barnard & Rubin)")
    pl.add_argument("--conf-level", type=float, default=0.95, metavar="L", help="confidence level (default 0.95)")
    output_opt(pl)
    pl.add_argument("--na-values", type=lambda s: s.split(","), default=None, metavar="A,B",
                    help="cell texts read as missing (default: pandas' NA texts and ?)")
    float_opt(pl)
    pl.set_defaults(func=cmd_pool)

    ev = sub.add_parser("evaluate-synthetic", help="compare a synthetic table with the real one",
                        description="The synthetic-data report (bayesnb.synthetic_report): per-column TVD/KS, "
                                    "Cramér's V of every pair of columns, the propensity pMSE and, with --target, "
                                    "TSTR vs TRTR accuracy. Prints a summary (--json: everything as JSON).")
    ev.add_argument("real", help=f"real {table}")
    ev.add_argument("synthetic", help=f"synthetic {table}, with the same columns")
    ev.add_argument("--target", default=None, help="label column: adds TSTR and TRTR accuracy")
    drop_opt(ev)
    ev.add_argument("--real-test", default=None, metavar="TEST",
                    help="real rows to test the classifiers on (default: 30%% of REAL held out)")
    ev.add_argument("--bins", type=int, default=10, help="quantile bins of numeric columns for Cramér's V")
    ev.add_argument("--json", action="store_true", help="print the report as JSON")
    output_opt(ev, help="write the report as a long table (CSV, Parquet or JSON)")
    ev.add_argument("--seed", type=int, default=0)
    data_opts(ev)
    ev.set_defaults(func=cmd_evaluate_synthetic)

    sy = sub.add_parser("synthesize", help="synthetic rows of a table, the model chosen by evidence",
                        description="bayesnb.Synthesizer from the shell: no saved model; fits DATA with the structure "
                                    "(naive, TAN, k-DB) its evidence chooses and, with --latent auto, a latent-class "
                                    "model kept when its held-out likelihood is higher, then writes N synthetic rows "
                                    "with DATA's columns in their order. Seconds to minutes (the latent-class search).")
    sy.add_argument("data", help=f"real {table}")
    sy.add_argument("-n", type=int, required=True, help="number of synthetic rows")
    output_opt(sy)
    sy.add_argument("--target", default=None, metavar="COL",
                    help="class column (every row labelled), sampled in its place; default: none, one class")
    drop_opt(sy)
    sy.add_argument("--structure", choices=("auto", "naive", "tan", "kdb"), default="auto", help="default: by evidence")
    sy.add_argument("--latent", default="auto", metavar="auto|none|K",
                    help="latent class: auto (kept if better held out), none, K components per class")
    sy.add_argument("--missing", choices=("model", "drop"), default="model",
                    help="model: missing cells drawn by missing-indicator nodes (default); drop: none drawn")
    sy.add_argument("--seed", type=int, default=0, help="random seed of the fit and the draws (default 0)")
    data_opts(sy)
    float_opt(sy)
    sy.set_defaults(func=cmd_synthesize)
    return p


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Python warnings raised while a command runs, as one line on stderr."""
    text = str(message).strip().splitlines()[0] if str(message).strip() else ""
    warn(f"{category.__name__}: {text}")


def _one_line(e):
    if isinstance(e, OSError) and e.strerror:
        return f"{e.filename}: {e.strerror}" if e.filename else e.strerror
    msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return f"unknown key {msg}" if isinstance(e, KeyError) else msg


def main(argv=None) -> int:
    """Entry point of the ``bayesnb`` console script; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success; 2 for a user mistake (one line on stderr: ``bayesnb COMMAND: error:
        ...``); 1 when a demo step fails; 130 when interrupted (:data:`EXIT_CODES`). With ``--debug`` (or the
        environment variable ``BAYESNB_DEBUG=1``) errors raise, showing the traceback.
    """
    import warnings

    argv = sys.argv[1:] if argv is None else [os.fspath(a) if hasattr(a, "__fspath__") else str(a) for a in argv]
    options = argv[: argv.index("--")] if "--" in argv else argv
    debug = bool(os.environ.get("BAYESNB_DEBUG")) or "--debug" in options  # known before parsing
    PROG[0] = "bayesnb"
    QUIET[0] = False
    set_progress(None)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            parser = build_parser()
            args = parser.parse_args(argv)
            if getattr(args, "command", None) is None:
                parser.print_help()
                return 2
            PROG[0] = f"bayesnb {args.command}"
            QUIET[0] = args.quiet
            set_progress(False if args.quiet else None)  # -q: no progress bar either
            if getattr(args, "format", None) is not None:  # refused before any work: parquet to stdout
                table_format(args.output, args.format)
            return int(args.func(args) or 0)
    except SystemExit as e:  # --help / --version
        return int(e.code or 0)
    except KeyboardInterrupt:
        print(f"{PROG[0]}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except _DemoStepError as e:
        if debug:
            raise
        print(f"{PROG[0]}: error: {e}", file=sys.stderr)
        return 1
    except (UsageError, ModelFileError, OSError, ValueError, TypeError, KeyError) as e:
        if debug:
            raise
        print(f"{PROG[0]}: error: {_one_line(e)}", file=sys.stderr)
        return 2

