"""Former name of :mod:`bayesnb.diagnostics`, kept so that existing imports keep working."""

from .diagnostics import *  # noqa: F403
from .diagnostics import __all__  # noqa: F401
