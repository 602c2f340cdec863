"""Progress bars for the calls that can take more than a couple of seconds.

One rule everywhere (``impute_table``, ``check_independence`` / ``check_marginals``, the
latent-class search, the family search of ``features="auto"``, ``run_mcmc``): a tqdm bar
(``tqdm.auto``: a widget in Jupyter, text on a terminal) that appears only once the call
has run for :data:`DELAY` seconds, on stderr. ``verbose=True`` shows it, ``verbose=False``
hides it, ``verbose=None`` (the default) follows :func:`set_progress`, which by default
shows it when someone is watching: stderr is a terminal, or the code runs in a Jupyter
(IPython) kernel. The command line's ``-q`` turns it off.
"""

from __future__ import annotations

import sys

__all__ = ["DELAY", "interactive", "progress", "set_progress", "show"]

#: seconds a call runs before its bar appears (quick calls print nothing)
DELAY = 2.0

_SETTING = [None]


def set_progress(show_bars=None):
    """Show progress bars always (True), never (False), or when someone is watching (None, the default).

    Parameters
    ----------
    show_bars : bool or None
        The default of every ``verbose=None`` in bayesnb.

    Returns
    -------
    bool or None
        The previous setting.
    """
    if show_bars is not None and not isinstance(show_bars, bool):
        raise TypeError(f"set_progress: expected True, False or None; received {show_bars!r}.")
    old, _SETTING[0] = _SETTING[0], show_bars
    return old


def interactive(stream=None) -> bool:
    """True when ``stream`` (default stderr) is a terminal or the code runs in a Jupyter kernel."""
    if "ipykernel" in sys.modules:  # a Jupyter kernel has loaded IPython, whose shell has a kernel
        get_ipython = getattr(sys.modules.get("IPython"), "get_ipython", None)
        if get_ipython is not None and hasattr(get_ipython(), "kernel"):
            return True
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def show(verbose=None) -> bool:
    """Whether a bar is shown: ``verbose`` itself, else :func:`set_progress`'s setting, else :func:`interactive`."""
    if verbose is not None:
        return bool(verbose)
    if _SETTING[0] is not None:
        return _SETTING[0]
    return interactive()


def progress(iterable=None, *, total=None, desc="", verbose=None, unit="it"):
    """``iterable`` wrapped in a tqdm bar that appears after :data:`DELAY` seconds (see the module docstring).

    Parameters
    ----------
    iterable : iterable, optional
    total : int, optional
        Number of steps (default ``len(iterable)`` when it has one).
    desc : str
        What is running, e.g. ``"impute_table: configurations"``.
    verbose : bool or None
    unit : str

    Returns
    -------
    tqdm
        Iterate over it, or call ``update`` / ``close`` (it is also a context manager).
    """
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, disable=not show(verbose), delay=DELAY,
                file=sys.stderr, leave=False, dynamic_ncols=True)
