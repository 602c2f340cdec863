"""Hierarchical Dirichlet smoothing of one categorical node's tables over its contexts.

Each context ``(y, pa_1, ..., pa_m)``'s Dirichlet is centred on its parent context (the last
parent dropped), up to the context of all classes, one concentration per level (Petitjean,
Buntine, Webb & Zaidi 2018, *Machine Learning* 107). The families' naive prior and their prior
over a structure's contexts both come from :func:`hierarchical_prior`, so the naive model under
``alpha="hierarchical"`` is a structure with empty parent sets. Design decisions: the hierarchy
is collapsed to a point (empirical Bayes), so every leaf stays conjugate; parents see the
children's *expected* table counts (Antoniak 1974; Teh et al. 2006) instead of Gibbs samples, so
the fit is deterministic; a context's base leaves out its own tables, or its rows would count
twice. See docs/structure.md, "Hierarchical smoothing", for the model and the fit, and
docs/privacy.md, "Noise-aware smoothing", for ``noise_var`` (equivalent sample sizes).
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from typing import NamedTuple

import numpy as np
from scipy.special import digamma, gammaln

__all__ = ["HierarchicalPrior", "bounded_brent", "expected_tables", "hierarchical_prior", "maximise_evidence"]

#: Search interval of each level's concentration.
CONCENTRATION_BOUNDS = (1e-3, 1e4)
#: Most rounds of the alternating fit, and the relative change of every ``log c`` that ends it.
MAX_ROUNDS, TOL = 50, 1e-4
#: Noise that keeps every context's ``n_eff / N`` above ``1 - NEGLIGIBLE_NOISE`` is ignored (the noise-free fit).
NEGLIGIBLE_NOISE = 0.01
#: After the first round, each concentration is searched within this factor of the previous one first.
WARM = 2.0
#: The bytes of the most recent fits kept by :func:`hierarchical_prior` (keys and values): a structure search
#: refits the same node's counts for several candidates (about half the calls of a search on house votes).
CACHE_BYTES = 32 * 2**20
_CACHE: OrderedDict = OrderedDict()  # key -> (HierarchicalPrior, bytes)
_CACHE_LOCK = threading.Lock()
_CACHE_TOTAL = [0]  # the bytes it holds


class HierarchicalPrior(NamedTuple):
    """The fitted hierarchy of one categorical node.

    Attributes
    ----------
    alpha : ndarray of shape (K, B_1, ..., B_m, V)
        The Dirichlet parameters of every leaf context, ``c_m * b_ctx`` (its parent's estimate
        without its own table counts).
    concentrations : tuple of float
        ``(c_1, ..., c_m)``: the concentration of each level below the class level, top first
        (empty without parents; ``c_0`` is ``class_concentration``).
    estimates : tuple of ndarray
        ``estimates[l]`` of shape (K, B_1, ..., B_l, V): the posterior-mean estimate ``phi`` of
        every context of level ``l = 0..m-1`` (the leaves' parents last; empty without parents).
    class_concentration : float or None
        ``c_0``: the class level's concentration around the all-classes estimate (the default
        ``root="all"``); None with ``root="class"``.
    root : ndarray of shape (V,) or None
        The all-classes context's posterior-mean estimate (``root="all"``); otherwise None.
    """

    alpha: np.ndarray
    concentrations: tuple
    estimates: tuple
    class_concentration: float | None = None
    root: np.ndarray | None = None


def maximise_evidence(log_evidence_of_alpha, lo: float = 1e-4, hi: float = 1e4) -> float:
    """Empirical Bayes: the smoothing strength that maximises the closed-form evidence.

    Parameters
    ----------
    log_evidence_of_alpha : callable
        ``f(alpha) -> float``, the log marginal likelihood of the training data.
    lo, hi : float
        Search interval for alpha (searched on a log scale).

    Returns
    -------
    alpha : float
    """
    t = bounded_brent(lambda t: -log_evidence_of_alpha(float(np.exp(t))), np.log(lo), np.log(hi), 1e-4)
    return float(np.exp(t))


def bounded_brent(func, x1: float, x2: float, xatol: float = 1e-5, maxiter: int = 500) -> float:
    """The minimiser of ``func`` on ``[x1, x2]`` by Brent's bounded search: ``scipy.optimize.minimize_scalar(
    method="bounded")``'s steps and result bit for bit, on Python floats (scipy's numpy scalar
    arithmetic and result object cost ~0.2 ms a search, several times the evidence's own cost).

    Parameters
    ----------
    func : callable
        ``f(x) -> float``.
    x1, x2 : float
        Finite bounds, ``x1 <= x2``.
    xatol : float, default=1e-5
        Absolute tolerance on the minimiser.
    maxiter : int, default=500
        Most evaluations of ``func``.

    Returns
    -------
    float
        scipy's ``x`` of that search.
    """
    x1, x2 = float(x1), float(x2)
    if not (math.isfinite(x1) and math.isfinite(x2)) or x1 > x2:
        raise ValueError(f"bounded_brent: expected finite bounds x1 <= x2; received {x1!r}, {x2!r}.")
    sqrt_eps = math.sqrt(2.2e-16)
    golden_mean = 0.5 * (3.0 - math.sqrt(5.0))
    a, b = x1, x2
    fulc = a + golden_mean * (b - a)
    nfc = xf = x = fulc
    rat = e = 0.0
    fx = func(x)
    num = 1
    ffulc = fnfc = fx
    xm = 0.5 * (a + b)
    tol1 = sqrt_eps * abs(xf) + xatol / 3.0
    tol2 = 2.0 * tol1
    while abs(xf - xm) > (tol2 - 0.5 * (b - a)):
        golden = True
        if abs(e) > tol1:  # a parabolic fit
            golden = False
            r = (xf - nfc) * (fx - ffulc)
            q = (xf - fulc) * (fx - fnfc)
            p = (xf - fulc) * q - (xf - nfc) * r
            q = 2.0 * (q - r)
            if q > 0.0:
                p = -p
            q = abs(q)
            r = e
            e = rat
            if abs(p) < abs(0.5 * q * r) and p > q * (a - xf) and p < q * (b - xf):
                rat = (p + 0.0) / q
                x = xf + rat
                if (x - a) < tol2 or (b - x) < tol2:
                    rat = tol1 * (_sign(xm - xf) + ((xm - xf) == 0))
            else:
                golden = True
        if golden:
            e = (a - xf) if xf >= xm else (b - xf)
            rat = golden_mean * e
        step = abs(rat)
        x = xf + (_sign(rat) + (rat == 0)) * (step if step >= tol1 or step != step else tol1)
        fu = func(x)
        num += 1
        if fu <= fx:
            if x >= xf:
                a = xf
            else:
                b = xf
            fulc, ffulc = nfc, fnfc
            nfc, fnfc = xf, fx
            xf, fx = x, fu
        else:
            if x < xf:
                a = x
            else:
                b = x
            if (fu <= fnfc) or (nfc == xf):
                fulc, ffulc = nfc, fnfc
                nfc, fnfc = x, fu
            elif (fu <= ffulc) or (fulc == xf) or (fulc == nfc):
                fulc, ffulc = x, fu
        xm = 0.5 * (a + b)
        tol1 = sqrt_eps * abs(xf) + xatol / 3.0
        tol2 = 2.0 * tol1
        if num >= maxiter:
            break
    return xf


def _sign(v: float) -> float:
    """``np.sign`` of a float: -1, 0 or 1 (NaN for NaN)."""
    return v if v != v else float(int(v > 0) - int(v < 0))


def expected_tables(counts, prior) -> np.ndarray:
    """Expected number of tables per value of a Chinese restaurant process (Antoniak 1974).

    Parameters
    ----------
    counts : ndarray of shape (..., V)
        Customers (weighted counts, >= 0) per value.
    prior : ndarray broadcastable to ``counts``
        The Dirichlet parameter ``a_v > 0`` of each value (concentration times base measure).

    Returns
    -------
    ndarray of the shape of ``counts``
        ``a_v * (digamma(a_v + n_v) - digamma(a_v))``: 0 where ``n_v = 0``, between
        ``min(n_v, 1)`` and ``n_v`` otherwise.
    """
    n = np.asarray(counts, dtype=float)
    a = np.broadcast_to(np.asarray(prior, dtype=float), n.shape)
    out = np.zeros(n.shape)
    pos = n > 0  # evaluated only there (the zeros are exact): the same values as the dense form
    a_pos = a[pos]
    out[pos] = a_pos * (digamma(a_pos + n[pos]) - digamma(a_pos))
    return out


def _level_log_evidence(c, data, base):
    """Sum over contexts of the Dirichlet-multinomial log evidence of ``data`` given ``c * base``.

    ``c`` a number: a float; ``c`` a 1-D array (a grid of concentrations): one sum per entry, the
    cells visited only where ``data > 0`` (an empty cell adds 0).
    """
    if np.ndim(c) == 1:
        cc = np.asarray(c, dtype=float)[:, None]
        pos = data > 0
        a = cc * np.broadcast_to(base, data.shape)[pos]
        return (np.sum(gammaln(cc) - gammaln(cc + data.sum(-1).reshape(1, -1)), axis=1)
                + np.sum(gammaln(a + data[pos]) - gammaln(a), axis=1))
    a = c * base
    return float(np.sum(gammaln(c) - gammaln(c + data.sum(-1)))
                 + np.sum(gammaln(a + data) - gammaln(a)))


def _level_evidence_fn(data, base):
    """``c -> _level_log_evidence(c, data, base)`` for a float ``c``, bit for bit, with the per-call
    work done once: the context totals, and the cells with ``data > 0`` (the only ones whose term,
    ``gammaln(a + n) - gammaln(a)``, is not exactly 0). The terms are written into a zero array of
    ``data``'s shape so that ``np.sum`` adds them in the same order as the dense form."""
    data = np.asarray(data, dtype=float)
    shape = np.broadcast_shapes(np.shape(base), data.shape)
    cells = np.flatnonzero(np.broadcast_to(data, shape) > 0)
    n = np.broadcast_to(data, shape).reshape(-1)[cells]
    b = np.broadcast_to(base, shape).reshape(-1)[cells]
    totals = data.sum(-1)
    terms = np.zeros(shape)  # the cells' terms are rewritten by every call; the others stay 0
    flat = terms.reshape(-1)

    def ev(c):
        a = c * b
        flat[cells] = gammaln(a + n) - gammaln(a)
        return float((gammaln(c) - gammaln(c + totals)).sum() + terms.sum())

    return ev


def _fit_concentration(data, base, c0=None) -> float:
    """The ``c`` in :data:`CONCENTRATION_BOUNDS` that maximises :func:`_level_log_evidence`: a bounded
    search on ``log c`` (:func:`maximise_evidence`), within a factor
    :data:`WARM` of ``c0`` (the previous round's) when given, unless the maximum is at that window's edge."""
    ev = _level_evidence_fn(data, base)
    lo, hi = CONCENTRATION_BOUNDS
    if c0 is not None:
        a, b = max(lo, c0 / WARM), min(hi, c0 * WARM)
        c = maximise_evidence(ev, a, b)
        if (a == lo or c > a * 1.001) and (b == hi or c < b / 1.001):
            return c
    return maximise_evidence(ev, lo, hi)


def _loo_base(parent_prior, parent_data, up, lv) -> np.ndarray:
    """Each child's base: its parent's posterior mean without the child's own table counts.

    ``parent_prior`` and ``parent_data`` (the parent level's prior and table counts) have the
    parent level's shape; ``up`` (what each child passes up) the child level's, whose axis ``lv``
    runs over a parent's children. ``parent_data - up >= 0``, so the result is >= the parent's prior.
    """
    num = np.expand_dims(parent_prior + parent_data, lv) - up
    num = np.maximum(num, np.expand_dims(parent_prior, lv))  # (rounding only)
    return num / num.sum(-1, keepdims=True)


def _noise_weights(n, noise_var) -> np.ndarray:
    """Per context, ``n_eff / N``: the rows a noise-free multinomial would need to match the variance of
    the noisy proportions (docs/privacy.md, "Noise-aware smoothing"); 1 where ``noise_var == 0`` or ``N == 0``."""
    N = n.sum(-1, keepdims=True)
    p = n.sum(axis=tuple(range(1, n.ndim - 1)), keepdims=True) if n.ndim > 2 else n
    p = p / np.maximum(p.sum(-1, keepdims=True), 1e-300)
    gini = np.maximum(1.0 - np.sum(p * p, axis=-1, keepdims=True), 1.0 / n.shape[-1])
    return np.where(N > 0, N / np.maximum(N + n.shape[-1] * float(noise_var) / gini, 1e-300), 1.0)


def _noisy_prior(n, root, s2, first=1) -> HierarchicalPrior:
    """:func:`hierarchical_prior` (``root="class"``) of counts with noise of variance ``s2`` per cell: each
    level sees its children's counts summed (no table counts), and each level's concentration is fitted
    on its counts weighted by :func:`_noise_weights` (a cell of level ``l`` sums the noise of every leaf
    under it), each context's prior divided by its weight (docs/privacy.md, "Noise-aware smoothing")."""
    m = n.ndim - 2
    if m == 0:
        return HierarchicalPrior(np.broadcast_to(root, n.shape).copy(), (), ())
    data, up, ws = [None] * (m + 1), [None] * (m + 1), [None] * (m + 1)
    data[m] = n
    for lv in range(m, 0, -1):  # each parent: its children's counts weighted by their n_eff, total kept
        ws[lv] = _noise_weights(data[lv], s2 * float(np.prod(n.shape[lv + 1:-1])) if lv >= first else 0.0)
        tot = data[lv].sum(-1, keepdims=True)
        scale = tot.sum(axis=lv, keepdims=True) / np.maximum((ws[lv] * tot).sum(axis=lv, keepdims=True), 1e-300)
        up[lv] = data[lv] * ws[lv] * scale
        data[lv - 1] = up[lv].sum(axis=lv)
    prior, conc = [np.broadcast_to(root, data[0].shape)], []
    for lv in range(1, m + 1):
        par = np.expand_dims(prior[lv - 1] + data[lv - 1], lv)  # the parent's estimate, the child's data in
        base = np.broadcast_to(par / par.sum(-1, keepdims=True), data[lv].shape)
        w = ws[lv]
        conc.append(_fit_concentration(data[lv] * w, base))
        prior.append(conc[-1] * base / w)
    phi = tuple((prior[lv] + data[lv]) / (prior[lv] + data[lv]).sum(-1, keepdims=True) for lv in range(m))
    return HierarchicalPrior(np.array(prior[m]), tuple(float(c) for c in conc), phi)


def hierarchical_prior(counts, alpha_root=1.0, root="all", noise_var=0.0) -> HierarchicalPrior:
    """Per-context Dirichlet parameters of one categorical node, each centred on its parent context.

    Parameters
    ----------
    counts : array-like of shape (K, B_1, ..., B_m, V)
        The node's weighted counts per context: class, then the parents' states in the order the
        hierarchy drops them from last to first (``B_m`` goes first), then the node's values.
    alpha_root : float or array-like of shape (V,) or (K, V), default=1.0
        The top level's ``Dirichlet(alpha_root)`` (> 0): the all-classes context's (one row of
        ``V``), or with ``root="class"`` each class's (one row per class when they differ).
    root : {"all", "class"}, default="all"
        The top level: Petitjean et al.'s context of all classes, the class level centred on it
        with a fitted concentration ``c_0`` (nodes without parents too), or the class level
        itself (``Dirichlet(alpha_root)`` per class, no ``c_0``).
    noise_var : float, default=0.0
        The variance of independent noise added to every cell of ``counts`` (a private release: the
        public :meth:`bayesnb.privacy.Budget.noise_variance`). When > 0 each context's counts enter
        the fit with the weight of their equivalent sample size (docs/privacy.md, "Noise-aware smoothing"),
        and its ``alpha`` is scaled so that its posterior mean is the noise-aware one. 0: the fit above.

    Returns
    -------
    HierarchicalPrior
        ``alpha`` of the shape of ``counts``: ``c_m * b_ctx``, ``b_ctx`` the parent context's
        estimate without the context's own table counts (the parent's estimate itself for an
        empty context); with ``m = 0`` parents the class level, ``c_0 * b_y`` (with
        ``root="class"``: ``alpha_root`` in every class, the flat naive prior).

    Raises
    ------
    ValueError
        When ``counts`` has fewer than 2 axes or negative / non-finite entries, ``alpha_root``
        is not positive and finite with one entry per value, or ``root`` is neither option.

    Examples
    --------
    >>> n = np.array([[[9., 1.], [8., 2.]], [[1., 9.], [2., 8.]]])  # K=2, one binary parent, V=2
    >>> h = hierarchical_prior(n)
    >>> h.alpha.shape, len(h.concentrations), h.class_concentration > 0
    ((2, 2, 2), 1, True)
    """
    top = root
    if not (isinstance(top, str) and top in ("class", "all")):
        raise ValueError(f"hierarchical_prior: expected root='class' or 'all'; received {top!r}.")
    n = np.asarray(counts, dtype=float)
    if n.ndim < 2:
        raise ValueError("hierarchical_prior: expected counts of shape (K, B_1, ..., B_m, V); "
                         f"received shape {n.shape}.")
    if not np.all(np.isfinite(n)) or np.any(n < 0):
        raise ValueError("hierarchical_prior: expected finite counts >= 0; received negative or non-finite entries.")
    V = n.shape[-1]
    root = np.asarray(alpha_root, dtype=float)
    root = np.full(V, float(root)) if root.ndim == 0 else root
    shapes = ((V,), (n.shape[0], V)) if top == "class" else ((V,),)
    if root.shape not in shapes or not np.all(np.isfinite(root)) or np.any(root <= 0):
        raise ValueError(f"hierarchical_prior: expected alpha_root > 0 (a number, {V} of them, or with "
                         f"root='class' one row of {V} per class); received {alpha_root!r}.")
    if not (np.isfinite(noise_var) and noise_var >= 0):
        raise ValueError(f"hierarchical_prior: expected noise_var >= 0 and finite; received {noise_var!r}.")
    key = (n.shape, n.tobytes(), root.shape, root.tobytes(), top, float(noise_var))
    with _CACHE_LOCK:  # a pure function of its inputs: a repeated table gets the same fit, copied out
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
    if hit is None:
        h = _fit(n, root, top, float(noise_var))
        size = 3 * n.nbytes + root.nbytes + 256
        with _CACHE_LOCK:
            if key not in _CACHE:
                _CACHE[key] = (h, size)
                _CACHE_TOTAL[0] += size
            while _CACHE_TOTAL[0] > CACHE_BYTES and _CACHE:
                _CACHE_TOTAL[0] -= _CACHE.popitem(last=False)[1][1]
    else:
        h = hit[0]
    return h._replace(alpha=h.alpha.copy(), estimates=tuple(e.copy() for e in h.estimates),
                      root=None if h.root is None else h.root.copy())


def _fit(n, root, top, noise_var) -> HierarchicalPrior:
    """:func:`hierarchical_prior` of checked float ``n`` and ``root`` (shape (V,) or (K, V))."""
    if noise_var > 0 and np.all(_noise_weights(n, noise_var) >= 1.0 - NEGLIGIBLE_NOISE):
        noise_var = 0.0  # negligible noise (a large epsilon): the noise-free fit, exactly
    if noise_var > 0 and top == "class":
        return _noisy_prior(n, root, float(noise_var))
    if top == "all":  # the all-classes context on top: the counts' hierarchy with one more level
        # (with noise, the class level's concentration by the plain evidence: it holds the classes' differences)
        h = (_noisy_prior(n[None], root, noise_var, first=2) if noise_var > 0
             else _fit(n[None], root, "class", 0.0))
        return HierarchicalPrior(h.alpha[0], h.concentrations[1:], tuple(e[0] for e in h.estimates[1:]),
                                 h.concentrations[0], h.estimates[0][0])
    m = n.ndim - 2
    if m == 0:
        return HierarchicalPrior(np.broadcast_to(root, n.shape).copy(), (), ())
    # data[l]: what level l's contexts see (raw counts at the leaves, table counts above);
    # up[l]: the table counts each context of level l >= 1 passes up to its parent;
    # prior[l]: each context's Dirichlet parameters (c_l times its base; the class level's alpha_root)
    data, up, prior = [None] * (m + 1), [None] * (m + 1), [None] * (m + 1)
    data[m] = n
    for lv in range(m, 0, -1):  # start from tables = counts (the pooled limit)
        up[lv] = data[lv]
        data[lv - 1] = up[lv].sum(axis=lv)
    prior[0] = np.broadcast_to(root, data[0].shape)
    conc = np.ones(m)
    for rnd in range(MAX_ROUNDS):
        first, old = rnd == 0, np.log(conc)
        for lv in range(1, m + 1):  # top-down: fit c_l on the bases, then the level's priors
            base = _loo_base(prior[lv - 1], data[lv - 1], up[lv], lv)
            conc[lv - 1] = _fit_concentration(data[lv], base, None if first else conc[lv - 1])
            prior[lv] = conc[lv - 1] * base
        done = np.all(np.abs(np.log(conc) - old) <= TOL * np.maximum(1.0, np.abs(old)))
        for lv in range(m, 0, -1):  # bottom-up: each parent sees its children's expected table counts
            up[lv] = expected_tables(data[lv], prior[lv])
            data[lv - 1] = up[lv].sum(axis=lv)
        if done:
            break
    for lv in range(1, m + 1):  # the priors of the final table counts, the concentrations kept
        prior[lv] = conc[lv - 1] * _loo_base(prior[lv - 1], data[lv - 1], up[lv], lv)
    phi = tuple((prior[lv] + data[lv]) / (prior[lv] + data[lv]).sum(-1, keepdims=True) for lv in range(m))
    alpha = np.broadcast_to(prior[m], n.shape)
    return HierarchicalPrior(np.array(alpha), tuple(float(c) for c in conc), tuple(phi))
