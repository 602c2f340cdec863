"""What defining an estimator needs of the model file: ``save``, and its class on the allow-list.

:class:`PersistenceMixin` gives every bayesnb estimator ``save`` and registers each concrete
class in :data:`bayesnb.io.names.ESTIMATORS`, the classes a model file may name. The model format itself
(:mod:`~bayesnb.io.persistence`, :mod:`~bayesnb.io.tree`, :mod:`~bayesnb.io.archive`,
:mod:`~bayesnb.io.loadcheck`) is imported on the first ``save`` or ``load``.
"""

from __future__ import annotations

from .. import io as model_file
from .names import ESTIMATORS, type_key

__all__ = ["PersistenceMixin"]


class PersistenceMixin:
    """``save(path)`` for every bayesnb estimator (load with :func:`bayesnb.load`).

    Every concrete estimator class that derives from it is registered by name (a class
    whose name starts with ``_`` or is ``BaseNB`` is abstract), so a model file can name it.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.__name__.startswith("_") and cls.__name__ != "BaseNB":
            ESTIMATORS[type_key(cls)] = cls

    def save(self, path, *, key=None, overwrite=False) -> None:
        """Write the fitted model to ``path`` in bayesnb's safe, versioned format.

        Parameters
        ----------
        path : str or os.PathLike
            Destination (conventionally ``*.bnb``). Load with :func:`bayesnb.load`.
        key : bytes or str, optional
            Sign the file with HMAC-SHA256 under this secret key; :func:`bayesnb.load`
            then needs the same key and refuses a file changed by anyone without it
            (see :func:`bayesnb.io.persistence.save`). The file is not encrypted.
        overwrite : bool, default False
            Replace ``path`` if it exists; by default an existing file is refused with a
            ``FileExistsError`` naming it.
        """
        model_file.save(self, path, key=key, overwrite=overwrite)
