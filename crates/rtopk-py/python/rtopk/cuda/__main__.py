"""``python -m rtopk.cuda prepare [--device N]``: every GPU kernel unit built once, as
``rtopk prepare`` (:func:`rtopk.cuda.prepare`). A module of its own, so that running it does
not execute ``rtopk.cuda`` a second time after ``import rtopk`` has imported it (Python's
``runpy`` warns of that)."""

import sys

from . import _main

sys.exit(_main(sys.argv[1:]))
