"""Shared helpers for the example scripts: argument parsing and figure saving."""

from __future__ import annotations

import argparse
import os


def parser(description):
    """An argument parser with the options every example takes: --out and --quick (alias --small)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--out", default="bayesnb-report", help="folder for figures (default: ./bayesnb-report)")
    p.add_argument("--quick", "--small", action="store_true", help="smaller, faster run (--small: older name)")
    return p


def save(fig, out, name):
    """Save a figure into ``out`` (skipped with a note when matplotlib is missing)."""
    if fig is None:
        return None
    from bayesnb.plot import savefig

    os.makedirs(out, exist_ok=True)
    path = savefig(fig, os.path.join(out, name))
    print(f"saved figure {path}")
    return path


def plotting():
    """bayesnb.plot if matplotlib is installed, else None (the examples still print)."""
    try:
        import matplotlib  # noqa: F401

        from bayesnb import plot
        return plot
    except ImportError:
        print("(matplotlib not installed: no figures; pip install 'bayesnb[plot]')")
        return None
