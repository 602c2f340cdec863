"""``python -m bayesnb`` runs the ``bayesnb`` command line (see :mod:`bayesnb.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
