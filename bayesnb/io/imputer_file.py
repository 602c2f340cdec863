"""An :class:`~bayesnb.Imputer` in bayesnb's model file (no pickle): what is written and how it is checked.

The file is an ordinary model file (:mod:`bayesnb.io.persistence`: one ``.npz`` archive, JSON metadata,
checksums, the optional HMAC) whose ``estimator`` is ``"Imputer"``. Its metadata holds the imputer's
parameters (the template estimator by class name and parameters) and, under ``fitted``:

- ``columns``, ``labelled``, ``target_name`` (the label column's name, or None), ``chosen``
  (``[column position, configuration]`` pairs), ``draw_configuration`` (the configuration that draws
  every column under ``strategy="draw"``, or None: each column's own), ``n_components``, ``scores`` (the ``scores_`` table
  as lists, or None), ``supports`` and ``zero_links`` (the training table's value records and zero
  links, as a NaiveBayes file stores its own);
- ``models``: per fitted configuration, its estimators as :func:`~bayesnb.io.persistence.encode_estimator`
  writes them, with a latent-class fit as :mod:`bayesnb.io.latent_file` writes it (its posterior over the
  latent states checked like an estimator's) and a multivariate normal's per-class Normal-Inverse-Wishart
  parameters;
- ``odds``: the self-masking odds of categorical columns (``Imputer.odds_``, :mod:`bayesnb.impute.mnar_odds`), one
  ``[column position, configuration, values, rates, loglik, loglik_mar, k_mar, drivers, used, logit covariance]``
  per column (absent from files written before them: none).

Loading checks every estimator as :func:`bayesnb.load` does, and the rest by type, shape and range
(finite values, positive definite scale matrices, column positions among the columns); anything
else is refused with :class:`~bayesnb.io.persistence.ModelFileError`.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from ..impute.configs import CONFIGURATIONS, TAN_EDGE_SCORES
from ..impute.mnar_config import MISSINGNESS, MNAR_CONFIGURATION
from ..impute.mnar_odds import MAX_LOGIT_VARIANCE, MIN_LOGIT_VARIANCE, READERS, OddsColumn
from .mnar_file import mnar_from_file, mnar_to_file
from .latent_file import latent_from_file, latent_to_file
from ..estimators import NaiveBayes
from ..generative.support_records import support_from_dict, support_to_dict
from ..generative.zero_links import check_zero_links
from ..impute.mvn import MVNFit, NIWFit
from .loadcheck import _fail
from .tree import registry
from .persistence import _params_from_file, _params_to_file, decode_estimator, encode_estimator

__all__ = ["imputer_from_file", "imputer_to_file"]

_MVN_ARRAYS = ("low", "high", "integer", "shift", "logged", "loc", "scale")


# ----------------------------------------------------------------------------- write
def _member_to_file(cfg, member, enc):
    if cfg == MNAR_CONFIGURATION:
        return mnar_to_file(member, enc)
    if cfg == "naive" or cfg in TAN_EDGE_SCORES:
        return {"model": encode_estimator(member, enc)}
    if cfg == "latent":
        model, fit = member
        return {"model": encode_estimator(model, enc), "latent": latent_to_file(fit, enc, model=model)}
    return {"model": encode_estimator(member.model, enc), "columns": [int(j) for j in member.columns],
            **{a: enc(np.asarray(getattr(member, a)), a) for a in _MVN_ARRAYS},
            "fits": [None if f is None else {"mean": enc(f.mean), "psi": enc(f.psi), "kappa": enc(f.kappa),
                                             "nu": enc(f.nu), "n_iter": int(f.n_iter), "converged": bool(f.converged)}
                     for f in member.fits]}


def imputer_to_file(imp, enc):
    """The metadata of a fitted :class:`~bayesnb.Imputer`'s file (see the module docstring).

    Parameters
    ----------
    imp : Imputer
        Fitted.
    enc : Encoder

    Returns
    -------
    dict
        ``estimator`` (``"Imputer"``), ``params`` and ``fitted``.
    """
    params = imp.get_params(deep=False)
    est = params.pop("estimator")
    params["random_state"] = params["random_state"] if isinstance(params["random_state"], int | None) else None
    params["configurations"] = list(params["configurations"]) if not isinstance(params["configurations"], str) \
        else params["configurations"]
    scores = None if imp.scores_ is None else {c: imp.scores_[c].tolist() for c in imp.scores_.columns}
    pos = {c: j for j, c in enumerate(imp.columns_)}
    fitted = {
        "columns": enc(np.asarray(imp.columns_, dtype=object), "columns_"),
        "labelled": bool(imp.labelled_),
        "chosen": [[pos[c], cfg] for c, cfg in imp.chosen_.items()],
        "n_components": None if imp.n_components_ is None else int(imp.n_components_),
        "draw_configuration": getattr(imp, "draw_configuration_", None),
        "scores": None if scores is None else enc({**scores, "column": [pos[c] for c in scores["column"]]}),
        "supports": enc(support_to_dict(imp.supports_)),
        "zero_links": [[int(t), int(s)] for t, s in imp.zero_links_],
        "models": {cfg: _member_to_file(cfg, m, enc) for cfg, m in imp.models_.items()},
        "target_name": enc(getattr(imp, "target_name_", None)),  # the label column (set by bayesnb fit-imputer)
        "missingness": enc(getattr(imp, "missingness_", None)),  # the test of self-masking (None: not run)
        "odds": [[pos[c], o.configuration, enc(np.asarray(o.values, dtype=object)), enc(np.asarray(o.rho, dtype=float)),
                  float(o.loglik), float(o.loglik_mar), int(o.k_mar), [str(d) for d in o.drivers], bool(o.used),
                  enc(np.asarray(o.logit_cov, dtype=float))]
                 for c, o in getattr(imp, "odds_", {}).items()],
    }
    return {"estimator": type(imp).__name__, "params": enc(params, "params"),
            "template": None if est is None else {"estimator": type(est).__name__,
                                                  "params": enc(_params_to_file(est.get_params(deep=False)))},
            "fitted": fitted}


# ------------------------------------------------------------------------------ read
def _float_array(a, shape, where, kind="f"):
    if not isinstance(a, np.ndarray) or a.shape != shape or a.dtype.kind not in ("b" if kind == "b" else "fiu"):
        _fail(f"{where} must be an array of shape {shape}")
    if kind != "b" and not np.all(np.isfinite(a)):
        _fail(f"{where} must be finite")
    return a.astype(bool) if kind == "b" else a.astype(float)


def _number(v, where, lo):
    if not isinstance(v, numbers.Real) or isinstance(v, bool) or not np.isfinite(v) or not v > lo:
        _fail(f"{where} must be a finite number above {lo}")
    return float(v)


def _mvn_from_file(model, node, dec):
    cols = node["columns"]
    p = model.n_features_in_
    if not isinstance(cols, list) or not all(isinstance(j, int) and not isinstance(j, bool) and 0 <= j < p
                                             for j in cols) or len(set(cols)) != len(cols):
        _fail("the multivariate normal's columns must be distinct column positions")
    q = len(cols)
    arrays = {a: _float_array(dec(node[a]), (q,), f"mvn {a}", "b" if a in ("integer", "logged") else "f")
              for a in _MVN_ARRAYS}
    if np.any(arrays["scale"] <= 0) or np.any(arrays["low"] > arrays["high"]):
        _fail("the multivariate normal's scales must be positive and its ranges ordered")
    fits = node["fits"]
    if not isinstance(fits, list) or len(fits) != (len(model.classes_) if q else 0):
        _fail("the multivariate normal must have one fit (or null) per class, none without numeric columns")
    out = []
    for f in fits:
        if f is None:
            out.append(None)
            continue
        psi = _float_array(dec(f["psi"]), (q, q), "mvn psi")
        if not np.allclose(psi, psi.T) or (q and np.any(np.linalg.eigvalsh(psi) <= 0)):
            _fail("a multivariate normal's scale matrix must be symmetric positive definite")
        out.append(NIWFit(_float_array(dec(f["mean"]), (q,), "mvn mean"), psi, _number(dec(f["kappa"]), "kappa", 0),
                          _number(dec(f["nu"]), "nu", q + 1), int(f["n_iter"]), bool(f["converged"])))
    return MVNFit(model, tuple(cols), *(arrays[a] for a in _MVN_ARRAYS), tuple(out))


#: A value no fitted model has seen: the reference of :func:`_known_values`.
_UNSEEN = "\x00bayesnb: a value never seen"


def _known_values(model, columns, column, values):
    """Whether ``model`` scores each of a column's ``values`` as a value it has seen: a row holding only that cell
    scores otherwise than the same row holding a value no model has seen (scored as a missing cell or by the
    prior's share for unseen values, whichever the family does)."""
    rows = pd.DataFrame({c: pd.Series(np.full(values.size + 1, np.nan)) for c in columns})
    rows[column] = pd.Series([*values, _UNSEEN], dtype=object)
    with np.errstate(all="ignore"):
        scores = model.score_samples(rows)
    return bool(np.all(np.isfinite(scores[:-1]) & (np.abs(scores[:-1] - scores[-1]) > 1e-9)))


def _draws_from(cov):
    """Whether multiple imputation can draw from ``cov`` as :func:`~bayesnb.impute.mnar_odds.logit_covariance` makes
    it: exactly symmetric, its eigenvalues within its bounds (with a little slack), and a Cholesky factor."""
    if not np.array_equal(cov, cov.T):
        return False
    try:
        w = np.linalg.eigvalsh(cov)
        np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        return False
    return bool(np.all(np.isfinite(w)) and w.min() >= MIN_LOGIT_VARIANCE / 2 and w.max() <= 1.01 * MAX_LOGIT_VARIANCE)


def _odds_from_file(entries, dec, imp, models):
    """``Imputer.odds_`` from its entries, each checked (``[position, configuration, values, rho, loglik, loglik_mar,
    k_mar, drivers, used, logit_cov]``): a categorical column's chosen configuration, values it has seen, rates in
    (0, 1), a positive definite covariance."""
    if not isinstance(entries, list):
        _fail("the imputer's self-masking odds must be a list")
    if entries and imp.missingness == "mar":
        _fail("an imputer with missingness='mar' holds no self-masking odds")
    columns = imp.columns_
    out = {}
    for e in entries:
        if not (isinstance(e, list) and len(e) == 10 and isinstance(e[0], int) and not isinstance(e[0], bool)
                and 0 <= e[0] < len(columns) and e[1] in READERS and e[1] in models):
            _fail("each self-masking odds entry must start with a column position and a fitted configuration")
        if e[0] in imp.supports_ or imp.chosen_.get(columns[e[0]]) != e[1]:
            _fail("a self-masking odds entry must name a categorical column and the configuration chosen for it")
        values, rho = dec(e[2]), dec(e[3])
        if not (isinstance(values, np.ndarray) and values.ndim == 1 and values.size >= 2
                and not pd.isna(values.astype(object)).any() and len(set(values.tolist())) == values.size):
            _fail("a column's self-masking odds need at least two distinct values, none missing")
        model = models[e[1]][0] if e[1] == "latent" else models[e[1]]
        if not _known_values(model, columns, columns[e[0]], values):
            _fail("a column's self-masking odds name a value its configuration has never seen")
        rho = _float_array(rho, values.shape, "self-masking rates")
        if np.any(rho <= 0) or np.any(rho >= 1):
            _fail("self-masking rates must lie in (0, 1)")
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) and np.isfinite(v) for v in e[4:6]) \
                or not (isinstance(e[6], int) and not isinstance(e[6], bool) and e[6] >= 0) \
                or not (isinstance(e[7], list) and all(isinstance(d, str) for d in e[7])) or not isinstance(e[8], bool):
            _fail("a column's self-masking odds entry is malformed")
        if columns[e[0]] in out:
            _fail("a column has two self-masking odds entries")
        cov = _float_array(dec(e[9]), (values.size, values.size), "self-masking rates' covariance")
        if not _draws_from(cov):
            _fail("the self-masking rates' covariance must be symmetric, with eigenvalues within "
                  f"[{MIN_LOGIT_VARIANCE:g}, {MAX_LOGIT_VARIANCE:g}]")
        out[columns[e[0]]] = OddsColumn(e[1], values, rho, float(e[4]), float(e[5]), e[6], tuple(e[7]), e[8], cov)
    return out


def _member_from_file(cfg, node, dec):
    inner = node["model"].get("fitted") if isinstance(node.get("model"), dict) else None
    if isinstance(inner, dict) and inner.get("imputer") is not None:  # no imputer nested in an imputer
        _fail(f"the {cfg} configuration's model must not hold an imputer")
    if cfg == MNAR_CONFIGURATION:
        return mnar_from_file(node, dec)
    model = decode_estimator(node["model"], dec)
    if not isinstance(model, NaiveBayes):
        _fail(f"the {cfg} configuration's model must be a NaiveBayes; the file holds {type(model).__name__}")
    if cfg == "latent":
        return model, latent_from_file(model, node["latent"], dec)
    return _mvn_from_file(model, node, dec) if cfg == "mvn" else model


def imputer_from_file(cls, meta, dec):
    """The fitted :class:`~bayesnb.Imputer` of a file's metadata (see the module docstring), checked.

    Parameters
    ----------
    cls : type
        ``Imputer``.
    meta : dict
    dec : Decoder

    Returns
    -------
    Imputer
    """
    params = dec(meta["params"])
    if isinstance(params, dict) and "missingness" not in params:  # files written before it: missing at random
        params["missingness"] = "mar"
    if not isinstance(params, dict) or set(params) != set(cls().get_params()) - {"estimator"}:
        _fail("the imputer's parameters are not Imputer's")
    template = meta.get("template")
    if template is not None:
        tcls = registry()[0].get(template.get("estimator"))
        if tcls is not NaiveBayes:
            _fail("the imputer's template estimator must be a NaiveBayes")
        template = tcls(**_params_from_file(dec(template["params"])))
    imp = cls(**params, estimator=template)
    fitted = meta["fitted"]
    columns = dec(fitted["columns"])
    if not isinstance(columns, np.ndarray) or columns.ndim != 1 or len(set(columns.tolist())) != columns.size:
        _fail("the imputer's columns must be a list of distinct names")
    p = columns.size
    models = {}
    for cfg, node in fitted["models"].items():
        if cfg not in (*CONFIGURATIONS, MNAR_CONFIGURATION) or not isinstance(node, dict):
            _fail(f"unknown configuration {str(cfg)[:40]!r}")
        models[cfg] = _member_from_file(cfg, node, dec)
        if cfg in TAN_EDGE_SCORES:
            own = (NaiveBayes() if template is None else template).get_params()["edge_score"]
            want = TAN_EDGE_SCORES[cfg] or own
            if models[cfg].structure != "tan" or models[cfg].edge_score != want:
                _fail(f"the {cfg} model must have structure='tan' and edge_score={want!r}; it has "
                      f"structure={models[cfg].structure!r}, edge_score={models[cfg].edge_score!r}")
        model = models[cfg][0] if cfg == "latent" else models[cfg].model if cfg in ("mvn", MNAR_CONFIGURATION) \
            else models[cfg]
        if model.n_features_in_ != p:
            _fail(f"the {cfg} model has {model.n_features_in_} features; the imputer has {p} columns")
    if not models:
        _fail("the imputer holds no fitted configuration")
    chosen = {}
    for pair in fitted["chosen"]:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], int) and 0 <= pair[0] < p
                and pair[1] in models):
            _fail("the imputer's choices must be [column position, fitted configuration] pairs")
        chosen[columns[pair[0]]] = pair[1]
    draw = fitted.get("draw_configuration")  # absent from files written before it: each column's own
    if draw is not None and draw not in models:
        _fail("the imputer's draw configuration must be None or a fitted configuration")
    n_comp = fitted["n_components"]
    if n_comp is not None and (not isinstance(n_comp, int) or isinstance(n_comp, bool) or n_comp < 1):
        _fail("n_components must be None or a positive int")
    scores = dec(fitted["scores"])
    if scores is not None:
        scores = pd.DataFrame(scores)
        if list(scores.columns) == ["column", "configuration", "loss", "n_hidden", "chosen"]:  # before shrunk_loss
            scores.insert(3, "shrunk_loss", scores["loss"])
        if list(scores.columns) != ["column", "configuration", "loss", "shrunk_loss", "n_hidden", "chosen"] or not all(
                isinstance(j, int) and 0 <= j < p for j in scores["column"]):
            _fail("the imputer's scores table is malformed")
        scores["column"] = [columns[j] for j in scores["column"]]
    try:
        supports = support_from_dict(dec(fitted["supports"]), p)
        check_zero_links(fitted["zero_links"], p)
        links = [tuple(int(v) for v in link) for link in fitted["zero_links"]]
    except (TypeError, ValueError, KeyError) as e:
        _fail(f"the imputer's value records or zero links are malformed ({str(e)[:80]})")
    imp.models_, imp.chosen_, imp.scores_, imp.n_components_ = models, chosen, scores, n_comp
    imp.draw_configuration_ = draw
    imp.columns_, imp.labelled_ = columns.tolist(), bool(fitted["labelled"])
    imp.supports_, imp.zero_links_ = supports, links
    if imp.missingness not in MISSINGNESS:
        _fail(f"the imputer's missingness must be one of {MISSINGNESS}")
    tested = dec(fitted.get("missingness"))  # absent from files written before the test
    if tested is not None and not (isinstance(tested, dict) and tested.get("choice") in ("MAR", "MNAR")):
        _fail("the imputer's test of self-masking is malformed")
    if MNAR_CONFIGURATION in models and (tested is None or (tested["choice"] != "MNAR" and imp.missingness != "mnar")):
        _fail("the imputer holds the self-masking model only when its test chose it or missingness='mnar'")
    imp.missingness_ = tested
    imp.odds_ = _odds_from_file(fitted.get("odds", []), dec, imp, models)  # absent from files written before it
    target = dec(fitted.get("target_name"))
    if target is not None:
        if not isinstance(target, str):
            _fail("the imputer's target name must be a string")
        imp.target_name_ = target
    return imp
