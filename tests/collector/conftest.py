"""Fixtures of the Collector tests; the helpers live in ``collector_helpers.py``."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from collector_helpers import gold, otelcol  # noqa: E402,F401
