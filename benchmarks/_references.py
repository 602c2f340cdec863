"""Reference classifiers for bench_structure_auto.py on one shared discretisation (issue 25).

- :func:`quantile_labels`: every column of a training / test fold as string labels: a numeric
  column cut into ``bins`` quantile bins learned on the training fold (the distinct interior
  quantiles; a constant stretch gives fewer bins), a categorical column as its values; a missing
  cell is a category of its own (``"<missing>"``), in both kinds of column.
- :func:`sklearn_categorical_nb`: scikit-learn's ``CategoricalNB`` (``alpha=1``) on those labels,
  coded per column by the training fold's categories. A test value the training fold never
  had (a category, or ``"<missing>"`` where the training fold had no missing cell) gets one
  reserved code with zero training counts (``min_categories`` = training categories + 1), so
  its probability is ``alpha / (n_kj + alpha * (V_j + 1))`` instead of an error.
- :func:`pgmpy_tan`: pgmpy's TAN: ``TreeSearch(root_node=first column).estimate(estimator_type="tan",
  class_node=target)`` (edges weighted by pgmpy's default, the mutual information; the root only
  orients the tree, and must be given: pgmpy's own choice may be the class) on the training fold's labels,
  its CPDs fitted by ``BayesianEstimator(prior_type="BDeu", equivalent_sample_size=ess)`` with
  every column's states = the training fold's labels plus one reserved ``"<unseen>"`` state (a
  test label the training fold never had is mapped to it, so it gets BDeu's prior mass). The
  class posterior is computed exactly from the CPDs: ``log p(y) + sum_j log p(x_j | y, pa_j)``,
  normalised with logsumexp (the network is a tree given the class and every feature is
  observed, so no inference engine is needed). pgmpy is imported here, lazily; when it is not
  installed :func:`pgmpy_tan` raises :class:`ImportError` and the benchmark reports the row as
  skipped with :data:`PGMPY_INSTALL`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import logsumexp

MISSING, UNSEEN = "<missing>", "<unseen>"
PGMPY_INSTALL = "pip install pgmpy  (or: pip install 'bayesnb[bench]')"


def _is_numeric(col: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)


def quantile_labels(Xtr: pd.DataFrame, Xte: pd.DataFrame, bins: int = 10):
    """Both folds as string labels: numeric columns in ``bins`` quantile bins of ``Xtr``; missing its own label.

    Parameters
    ----------
    Xtr, Xte : DataFrame
        The training and test fold (same columns).
    bins : int, default=10
        Number of quantile bins of a numeric column (edges: the distinct interior quantiles of
        the training fold's observed values).

    Returns
    -------
    (DataFrame, DataFrame)
        Object columns of labels (``"b0"``, ``"b1"``, ... for a numeric column).
    """
    out_tr, out_te = pd.DataFrame(index=Xtr.index), pd.DataFrame(index=Xte.index)
    for c in Xtr.columns:
        if _is_numeric(Xtr[c]):
            v = Xtr[c].to_numpy(float)
            edges = np.unique(np.nanquantile(v, np.linspace(0, 1, bins + 1)[1:-1])) if np.isfinite(v).any() else []
            for src, dst in ((Xtr, out_tr), (Xte, out_te)):
                x = src[c].to_numpy(float)
                lab = np.char.add("b", np.searchsorted(edges, np.nan_to_num(x), side="right").astype(str))
                dst[c] = np.where(np.isnan(x), MISSING, lab).astype(object)
        else:
            for src, dst in ((Xtr, out_tr), (Xte, out_te)):
                dst[c] = src[c].map(lambda v: MISSING if v is None or (isinstance(v, float) and np.isnan(v))
                                    else str(v)).astype(object)
    return out_tr, out_te


def sklearn_categorical_nb(Ltr: pd.DataFrame, ytr, Lte: pd.DataFrame):
    """scikit-learn ``CategoricalNB(alpha=1)`` on labels from :func:`quantile_labels`.

    Returns
    -------
    (ndarray of shape (n_test, K), ndarray of shape (K,))
        The class probabilities of the test rows and the classes in column order.
    """
    from sklearn.naive_bayes import CategoricalNB

    codes_tr, codes_te, sizes = [], [], []
    for c in Ltr.columns:
        cats = pd.Index(pd.unique(Ltr[c]))
        codes_tr.append(cats.get_indexer(Ltr[c]))
        te = cats.get_indexer(Lte[c])
        codes_te.append(np.where(te < 0, len(cats), te))  # unseen in training: the reserved code
        sizes.append(len(cats) + 1)
    model = CategoricalNB(alpha=1.0, min_categories=np.array(sizes)).fit(np.column_stack(codes_tr), ytr)
    return model.predict_proba(np.column_stack(codes_te)), model.classes_


def pgmpy_tan(Ltr: pd.DataFrame, ytr, Lte: pd.DataFrame, ess: float = 5.0):
    """pgmpy's TAN (TreeSearch ``"tan"`` + BayesianEstimator BDeu) on labels from :func:`quantile_labels`.

    Parameters
    ----------
    Ltr, Lte : DataFrame
        Training and test labels.
    ytr : array-like of shape (n_train,)
        Training classes.
    ess : float, default=5.0
        BDeu's equivalent sample size (pgmpy's default).

    Returns
    -------
    (ndarray of shape (n_test, K), ndarray of shape (K,))
        The exact class posterior of the fitted network for each test row, and the classes.

    Raises
    ------
    ImportError
        When pgmpy is not installed (:data:`PGMPY_INSTALL`).
    """
    import logging
    import warnings

    from pgmpy.estimators import BayesianEstimator, TreeSearch
    from pgmpy.models import DiscreteBayesianNetwork

    logging.getLogger("pgmpy").setLevel(logging.ERROR)
    target = "__class__"
    while target in Ltr.columns:
        target += "_"
    classes, yc = np.unique(np.asarray(ytr), return_inverse=True)
    data = Ltr.assign(**{target: np.char.add("c", yc.astype(str))}).reset_index(drop=True)
    states = {c: sorted(pd.unique(Ltr[c])) + [UNSEEN] for c in Ltr.columns}
    states[target] = [f"c{k}" for k in range(len(classes))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dag = TreeSearch(data, root_node=Ltr.columns[0], n_jobs=1).estimate(estimator_type="tan", class_node=target, show_progress=False)
        model = DiscreteBayesianNetwork(dag.edges())
        model.add_nodes_from(data.columns)
        cpds = BayesianEstimator(model, data, state_names=states).get_parameters(
            prior_type="BDeu", equivalent_sample_size=ess)
    n, K = len(Lte), len(classes)
    codes = {c: pd.Index(states[c]).get_indexer(Lte[c]) for c in Lte.columns}
    codes = {c: np.where(v < 0, len(states[c]) - 1, v)[:, None] for c, v in codes.items()}  # unseen: "<unseen>"
    joint = np.zeros((n, K))
    for cpd in cpds:
        order = [pd.Index(cpd.state_names[v]).get_indexer(states[v]) for v in cpd.variables]  # ours -> pgmpy's
        table = np.log(cpd.values)
        for ax, perm in enumerate(order):
            table = np.take(table, perm, axis=ax)
        idx = tuple(np.arange(K)[None, :] if v == target else codes[v] for v in cpd.variables)
        joint += np.broadcast_to(table[idx], (n, K))
    return np.exp(joint - logsumexp(joint, axis=1, keepdims=True)), classes
