"""Census (issue 26): wall and CPU seconds of the default ``Synthesizer`` fit, for side-by-side runs.

Fits ``Synthesizer(target="income", random_state=0)`` on ``bench_synthesis.py``'s census training
rows (seed 0) and prints the bayesnb it imported, the choice, the fit's wall and CPU seconds and
the load average before and after. Run it alternately with two checkouts first on
``PYTHONPATH`` to compare them at the same load.

Usage::

    python benchmarks/census_fit_time.py adult.data
"""

from __future__ import annotations

import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_synthesis import census_tables  # noqa: E402

import bayesnb  # noqa: E402
from bayesnb import Synthesizer  # noqa: E402


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        raise SystemExit(__doc__)
    warnings.simplefilter("ignore")
    train, _, _ = census_tables(args[0], None, 0, False)
    t0, c0, l0 = time.perf_counter(), time.process_time(), os.getloadavg()[0]
    synth = Synthesizer(target="income", random_state=0, verbose=False).fit(train)
    print(f"{os.path.dirname(bayesnb.__file__)}: {synth.chosen_}; fit {time.perf_counter() - t0:.1f} s wall, "
          f"{time.process_time() - c0:.1f} s CPU, load {l0:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
