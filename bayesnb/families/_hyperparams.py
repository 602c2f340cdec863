"""The scikit-learn hyperparameter protocol of every family (:class:`~bayesnb.families._contract.Family`)."""

from __future__ import annotations

import numpy as np

__all__ = ["HyperParams"]


class HyperParams:
    """``get_params`` / ``set_params``, ``repr`` and equality from the names in ``_param_names``.

    Two families are equal when they are of the same type with equal hyperparameters
    (arrays compared element by element); the hash stays the object's identity.
    """

    _param_names: tuple = ()

    def get_params(self, deep: bool = True) -> dict:
        """Hyperparameters as a dict (scikit-learn convention)."""
        return {k: getattr(self, k) for k in self._param_names}

    def set_params(self, **params):
        """Set hyperparameters (scikit-learn convention); returns self."""
        for k, v in params.items():
            if k not in self._param_names:
                raise ValueError(f"{type(self).__name__} has no parameter {k!r}")
            setattr(self, k, v)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        a, b = self.get_params(), other.get_params()
        return all(_param_equal(a[k], b[k]) for k in a)

    __hash__ = object.__hash__


def _param_equal(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
    try:
        return bool(a == b)
    except Exception:  # pragma: no cover - exotic params
        return a is b


