"""Semantic checks of a model read from a file, before :func:`bayesnb.load` returns it.

A model file passes its checksums whenever it is internally consistent, which anyone can
arrange; these checks make sure that what it describes is a model ``fit`` could have
produced, so that a hand-edited file cannot make predictions NaN, crash later with an
unrelated error, or allocate unbounded memory:

- the classes are a 1-D array of unique labels in sorted order (as ``fit`` makes them);
- the class counts, Dirichlet prior and posterior are float64 of shape ``(K,)``, finite and
  non-negative, no count above 2**53 (float64 counts rows exactly up to there), and the
  posterior and the log prior are exactly what ``class_posterior`` computes from the counts
  and the estimator's parameters;
- the blocks partition the ``n_features_in_`` columns, each block's family is the one its
  estimator uses, and its state matches its columns (categories unique, not missing);
- every statistic, prior and posterior array is float64 of the family's shape
  ``(K, d_block)`` (``(K, V_j)`` per categorical feature), finite, within its field's rule
  (a count in ``[0, 2**53]``, a concentration up to ``2**54``, a mean of magnitude at most
  1e154 as a fit's data must be, a sum non-negative), and the posterior equals
  ``family.update(prior, stats)`` bit for bit;
- no (class, column) counts more rows than its class holds (``Family.observed_rows``;
  not checked for a differentially private fit, whose counts are noisy);
- a structure's statistics (``structure_stats_``) follow the same rules.
- only a NaiveBayes (the registered class itself) holds ``sample_support_`` or an imputer
  (:data:`NAIVE_BAYES_ONLY`, :func:`check_naive_bayes_only`).

So a model file that loads predicts finite, normalised probabilities, as a fitted model does.

Every failure raises :class:`~bayesnb.io.persistence.ModelFileError` naming what was expected
and what the file holds.
"""

from __future__ import annotations

import numbers

import numpy as np

from .names import ESTIMATORS, type_key
from .tree import registry
from .archive import ModelFileError
from .._utils import is_dtype
from ..generative.support_records import support_from_dict
from ..generative.zero_links import check_zero_links
from ..inference.nb_posterior import BlockPosterior, class_posterior
from ..estimators.auto_features import SCORE_COLUMNS

__all__ = ["NAIVE_BAYES_ONLY", "check_extras", "check_model", "check_naive_bayes_only", "check_node_tuples"]

#: the largest count a fit makes: float64 counts rows exactly up to 2**53 (a prior or a
#: posterior, a prior's concentration plus counts, may reach twice that)
MAX_COUNT = 2.0 ** 53
#: the largest magnitude of a mean: a fit refuses data whose squares overflow (about 1e154)
MAX_MEAN = 1e154


def _bounds(rule, cap):
    """(lowest, highest) value of a field by its rule, which comes from the family (``field_rules``,
    see ``Family.field_rules``; " or None" removed); counts up to ``cap``, give or take rounding."""
    cap *= 1 + 1e-9
    return {"count": (0.0, cap), "a": (-0.5, cap), "sum": (0.0, np.inf),
            "finite": (-MAX_MEAN, MAX_MEAN)}.get(rule, (-np.inf, np.inf))


def _fail(msg):
    raise ModelFileError(msg)


def _check_float(a, shape, rule, where, cap=MAX_COUNT):
    """A float64 array of ``shape`` (any shape when None), finite, within ``rule``; counts up to ``cap``."""
    if not isinstance(a, np.ndarray) or a.dtype != np.float64:
        got = a.dtype if isinstance(a, np.ndarray) else type(a).__name__
        _fail(f"{where} must be a float64 array; the file holds {got}")
    if shape is not None and a.shape != shape:
        _fail(f"{where} has shape {a.shape}; expected {shape}")
    if not np.all(np.isfinite(a)):
        _fail(f"{where} holds NaN or infinite values")
    low, high = _bounds(rule, cap)
    if a.size and a.min() < low:
        _fail(f"{where} holds values below {low:g} (e.g. {a.min():g})")
    if a.size and a.max() > high:
        _fail(f"{where} holds values above {high:g} (e.g. {a.max():g}), more than a fit produces")


def _check_tuple(nt, shapes, where, field_rules, cap=MAX_COUNT):
    """Check a family NamedTuple: every field by its rule (``field_rules``: a family's, by tuple
    name); ``shapes`` per field, a list of them per item of a tuple field, or "any" (unchecked)."""
    rules = field_rules.get(type(nt).__name__) if isinstance(nt, tuple) and hasattr(nt, "_fields") else None
    if rules is None or tuple(rules) != nt._fields:
        _fail(f"{where} is a {type(nt).__name__}, which no family stores")
    for field, value in zip(nt._fields, nt):
        if value is None and rules[field].endswith(" or None"):
            continue
        if shapes == "any" and isinstance(value, tuple):
            for j, a in enumerate(value):
                _check_float(a, None, rules[field].removesuffix(" or None"), f"{where}.{field}[{j}]", cap)
        elif isinstance(shapes, list):  # categorical: a tuple of (K, V_j) arrays
            if not isinstance(value, tuple) or len(value) != len(shapes):
                _fail(f"{where}.{field} must hold {len(shapes)} arrays (one per feature); "
                      f"the file holds {len(value) if isinstance(value, tuple) else type(value).__name__}")
            for j, (a, s) in enumerate(zip(value, shapes)):
                _check_float(a, s, rules[field].removesuffix(" or None"), f"{where}.{field}[{j}]", cap)
        else:
            _check_float(value, None if shapes == "any" else shapes, rules[field].removesuffix(" or None"),
                         f"{where}.{field}", cap)


def _bitwise_equal(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(_bitwise_equal(x, y) for x, y in zip(a, b))
    return np.array_equal(np.asarray(a), np.asarray(b)) and np.asarray(a).shape == np.asarray(b).shape


def _check_classes(model, post):
    classes = post.classes
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size == 0:
        _fail("classes must be a non-empty 1-D array")
    try:
        uniq = np.unique(classes)
    except TypeError:
        _fail("classes must all be of one comparable type")
    if uniq.shape != classes.shape or not np.all(uniq == classes):
        _fail(f"classes must be unique and sorted as fit makes them; the file holds {classes[:10].tolist()}")
    K = classes.shape[0]
    for field, cap in (("class_count", MAX_COUNT), ("class_prior_alpha", MAX_COUNT),
                       ("class_concentration", 2 * MAX_COUNT)):
        _check_float(getattr(post, field), (K,), "count", field, cap)
    lp = post.class_log_prior
    if not isinstance(lp, np.ndarray) or lp.dtype != np.float64 or lp.shape != (K,):
        _fail(f"class_log_prior must be float64 of shape ({K},)")
    try:
        class_params = model._check_class_params(K)
    except (TypeError, ValueError) as e:
        _fail(f"the estimator's class parameters do not fit {K} classes ({e})")
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = class_posterior(post.class_count, *class_params)
    got = (post.class_prior_alpha, post.class_concentration, post.class_log_prior)
    if not all(_bitwise_equal(e, g) for e, g in zip(expected[:3], got)) or expected[3] != post.fixed_class_prior:
        _fail("the class prior and posterior are not those of the class counts and the estimator's parameters")
    return K


def _check_rows(block, class_count, where):
    """No (class, column) of a block counts more rows than its class holds (up to rounding)."""
    rows = block.family.observed_rows(block.stats)
    if rows is None:
        return
    total = class_count[:, None]
    over = np.asarray(rows) > total * (1 + 1e-9) + 1e-9
    if np.any(over):
        k, j = (int(i[0]) for i in np.nonzero(over))
        _fail(f"{where}: column {j} of class {k} counts {float(np.asarray(rows)[k, j]):g} rows, more than the "
              f"class count {float(class_count[k]):g}")


def check_model(model, post, n_features, feature_names):
    """Raise :class:`ModelFileError` unless ``post`` is a posterior ``model`` could have fitted.

    Parameters
    ----------
    model : BaseNB
        The (unfitted) estimator built from the file's parameters.
    post : NBPosterior
        The decoded posterior.
    n_features : object
        The file's ``n_features_in_`` (must be a positive int).
    feature_names : ndarray or None
        The file's ``feature_names_in_``.
    """
    if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
        _fail(f"n_features_in must be a positive int; the file holds {n_features!r}")
    if feature_names is not None and (
            not isinstance(feature_names, np.ndarray) or feature_names.shape != (n_features,)
            or not all(isinstance(v, str) for v in feature_names) or len(set(feature_names)) != n_features):
        _fail(f"feature_names_in must be an array of {n_features} unique strings")
    try:
        model._check_predictive()
    except ValueError as e:
        _fail(str(e))
    if not isinstance(post.fixed_class_prior, bool):
        _fail("fixed_class_prior must be a bool")
    K = _check_classes(model, post)
    blocks = post.blocks
    if not isinstance(blocks, tuple) or not blocks or not all(isinstance(b, BlockPosterior) for b in blocks):
        _fail("blocks must be a non-empty list of BlockPosterior")
    if hasattr(type(model), "_family"):  # a single-family estimator (CategoricalNB, ...)
        want = type(model._family())
        if len(blocks) != 1 or type(blocks[0].family) is not want:
            _fail(f"a {type(model).__name__} has one {want.__name__} block; the file holds "
                  f"{[type(b.family).__name__ for b in blocks]}")
    seen = []
    for i, b in enumerate(blocks):
        where = f"block {i} ({type(b.family).__name__})"
        cols = b.columns
        if not isinstance(cols, np.ndarray) or cols.ndim != 1 or cols.dtype.kind not in "iu" or cols.size == 0:
            _fail(f"{where}: its columns must be a non-empty 1-D integer array")
        d = cols.shape[0]
        if len(b.names) != d:
            _fail(f"{where}: it has {d} columns but {len(b.names)} names")
        seen.append(cols)
        fam = type(b.family)
        want = (fam.stats_type, fam.params_type, fam.params_type)
        got = tuple(type(t) for t in (b.stats, b.prior, b.posterior))
        if got != want:
            want, got = tuple(t.__name__ for t in want), tuple(t.__name__ for t in got)
            _fail(f"{where}: expected statistics, prior and posterior of types {want}; the file holds {got}")
        binarize = getattr(b.family, "binarize", None)
        if binarize is not None and (not isinstance(binarize, numbers.Real) or isinstance(binarize, bool)
                                     or not np.isfinite(binarize)):
            _fail(f"{where}: binarize must be None or a finite number; the file holds {binarize!r}")
        try:  # the encoding state, checked by its family
            shapes = b.family.state_shapes(b.state, K, d)
        except (TypeError, ValueError) as e:
            _fail(f"{where}: {e}")
        rules = type(b.family).field_rules
        _check_tuple(b.stats, shapes, f"{where} stats", rules)
        _check_tuple(b.prior, shapes, f"{where} prior", rules, 2 * MAX_COUNT)
        _check_tuple(b.posterior, shapes, f"{where} posterior", rules, 2 * MAX_COUNT)
        if getattr(model, "privacy", None) is None:  # a private fit's counts are noisy, each on its own
            _check_rows(b, post.class_count, where)
        with np.errstate(all="ignore"):
            again = b.family.update(b.prior, b.stats)
        if type(again) is not type(b.posterior) or not _bitwise_equal(tuple(again), tuple(b.posterior)):
            _fail(f"{where}: its posterior is not its prior updated with its counts")
    allcols = np.sort(np.concatenate(seen))
    if not np.array_equal(allcols, np.arange(n_features)):
        _fail(f"the blocks' columns must cover each of the {n_features} features exactly once")


def check_node_tuples(values, where):
    """Check a structure's per-feature family NamedTuples by the families' field rules.

    The NamedTuples are statistics or priors over contexts; the rules: finite float64, counts and
    concentrations in range. Not their shapes, which depend on the structure (the reader checks
    those: :func:`bayesnb.structure.engine.check_node_stats`).

    Parameters
    ----------
    values : list or tuple
        One family NamedTuple per feature, as decoded from the file.
    where : str
        Name used in the error message.

    Raises
    ------
    ModelFileError
        ``values`` is not a list, or an item is not a family's NamedTuple or breaks its field rules.
    """
    if not isinstance(values, (list, tuple)):
        _fail(f"{where} must be a list of a family's statistics per feature")
    _, families, _ = registry()
    rules = {name: r for fam in families.values() for name, r in fam.field_rules.items()}
    for j, st in enumerate(values):
        _check_tuple(st, "any", f"{where}[{j}]", rules)


#: fitted attributes only a NaiveBayes may hold: name -> (what an error calls it, who has one)
NAIVE_BAYES_ONLY = {"sample_support_": ("sample_support_", "a Synthesizer's NaiveBayes"),
                    "imputer_": ("an imputer", "a NaiveBayes fitted with fit(X, y, impute=...)")}


def check_naive_bayes_only(model, held):
    """Refuse a model that is not a NaiveBayes but holds an attribute of :data:`NAIVE_BAYES_ONLY`.

    Parameters
    ----------
    model : BaseNB
        The estimator the file names; a NaiveBayes is the registered class itself
        (``ESTIMATORS["NaiveBayes"]``), not a class of that name.
    held : iterable of str
        The fitted attributes the file holds (names as in :data:`NAIVE_BAYES_ONLY`).

    Raises
    ------
    ModelFileError
        Naming the model's class as a file names it (:func:`~bayesnb.io.tree.type_key`), the
        first such attribute and who may hold it.
    """
    if type(model) is ESTIMATORS.get("NaiveBayes"):
        return
    held = set(held)
    for name, (what, who) in NAIVE_BAYES_ONLY.items():
        if name in held:
            _fail(f"a {type_key(type(model))} model must not hold {what} (only {who} has one)")


def check_extras(model, post, n_features, extra):
    """Check the fitted attributes beyond the posterior (outlier threshold, EM state, dtypes).

    Parameters
    ----------
    model : BaseNB
    post : NBPosterior
    n_features : int
    extra : dict
        Attribute name -> decoded value.
    """
    def real(name, v, lo=-np.inf, hi=np.inf):
        if not isinstance(v, (float, int)) or isinstance(v, bool) or not (lo <= v <= hi):
            _fail(f"{name} must be a number in [{lo}, {hi}]; the file holds {v!r}")

    if "offset_" in extra:
        real("offset_", extra["offset_"])
    if "contamination_" in extra:
        real("contamination_", extra["contamination_"], 0.0, 1.0)
    if "em_objective_" in extra:
        h = extra["em_objective_"]
        if (not isinstance(h, (list, np.ndarray)) or np.ndim(h) != 1 or len(h) == 0
                or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in h)):
            _fail("em_objective_ must be a non-empty list of numbers")
        n_iter = extra.get("n_iter_")
        if not isinstance(n_iter, int) or n_iter != len(h) - 1:
            _fail(f"n_iter_ must be {len(h) - 1} (one less than em_objective_'s length); "
                  f"the file holds {n_iter!r}")
    if "privacy_spent_" in extra:
        _check_privacy_spent(extra["privacy_spent_"])
    if "converged_" in extra and not isinstance(extra["converged_"], bool):
        _fail("converged_ must be a bool")
    if "transduction_" in extra:
        t = extra["transduction_"]
        if not isinstance(t, np.ndarray) or t.ndim != 1 or not np.all(np.isin(t, post.classes)):
            _fail("transduction_ must be a 1-D array of class labels")
    if "structure_stats_" in extra:  # a structure's tables are built from them on load
        check_node_tuples(extra["structure_stats_"], "structure_stats_")
    if extra.get("family_scores_") is not None:
        _check_scores(extra["family_scores_"])
    if "target_name_" in extra:
        t = extra["target_name_"]
        if not isinstance(t, str) or not t or len(t) > 1000:
            _fail(f"target_name_ must be a non-empty string of at most 1000 characters; the file holds {str(t)[:40]!r}")
    if extra.get("sample_support_", "observed") not in ("observed", "smoothed", "backoff"):
        _fail(f"sample_support_ must be 'observed', 'smoothed' or 'backoff'; the file holds {str(extra['sample_support_'])[:40]!r}")
    if "target_index_" in extra:
        t = extra["target_index_"]
        if not isinstance(t, int) or isinstance(t, bool) or not 0 <= t <= n_features:
            _fail(f"target_index_ must be an integer from 0 to {n_features}; the file holds {t!r}")
    if "value_support_" in extra:
        try:
            support_from_dict(extra["value_support_"], n_features)
        except (ValueError, TypeError, KeyError, OverflowError) as e:
            _fail(f"value_support_ is not a valid record of the columns' values ({str(e)[:80]})")
    if "zero_links_" in extra:
        try:
            check_zero_links(extra["zero_links_"], n_features)
        except ValueError as e:
            _fail(str(e))
    if "feature_dtypes_" in extra:
        t = extra["feature_dtypes_"]
        if not isinstance(t, np.ndarray) or t.shape != (n_features,) or not all(is_dtype(v) for v in t):
            _fail(f"feature_dtypes_ must hold {n_features} dtypes")


def _check_scores(t) -> None:
    """``family_scores_`` as stored: equal-length lists of :data:`SCORE_COLUMNS`."""
    keys = SCORE_COLUMNS if isinstance(t, dict) and "margin" in t else tuple(k for k in SCORE_COLUMNS
                                                                              if k != "margin")  # 0.1 files
    if not isinstance(t, dict) or set(t) != set(keys) or not all(isinstance(t[k], list) for k in keys):
        _fail(f"family_scores_ must hold the lists {list(SCORE_COLUMNS)}")
    if len({len(t[k]) for k in keys}) != 1:
        _fail("family_scores_ lists must have one length")
    ok = (all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in t["column"])
          and all(isinstance(v, str) for v in t["family"])
          and all(isinstance(v, float) for v in t["log_evidence"] + t["resolution"] + t.get("margin", []))
          and all(isinstance(v, bool) for v in t["chosen"]))
    if not ok:
        _fail("family_scores_ holds a value of the wrong type")


def _check_privacy_spent(spent):
    """``privacy_spent_``: epsilon > 0, 0 <= delta < 1, the mechanism, a split of (epsilon, delta) pairs (and
    ``noise_aware_smoothing=False`` where a structure's smoothing ignored the noise: private_fit)."""
    def number(v, lo, hi):
        return isinstance(v, numbers.Real) and not isinstance(v, bool) and lo <= v <= hi

    ok = (isinstance(spent, dict) and set(spent) - {"noise_aware_smoothing"} == {"epsilon", "delta", "mechanism", "split"}
          and spent.get("noise_aware_smoothing", False) is False  # only written as False (private_fit)
          and number(spent["epsilon"], 1e-300, np.inf) and number(spent["delta"], 0.0, 1.0)
          and spent["mechanism"] in ("laplace", "gaussian") and isinstance(spent["split"], dict)
          and all(isinstance(k, str) and isinstance(v, tuple) and len(v) == 2
                  and number(v[0], 0.0, np.inf) and number(v[1], 0.0, 1.0) for k, v in spent["split"].items()))
    if not ok:
        _fail("privacy_spent_ must be {epsilon, delta, mechanism, split} with numbers and a split of "
              f"(epsilon, delta) pairs; the file holds {str(spent)[:80]}")
