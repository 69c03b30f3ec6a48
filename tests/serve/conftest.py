"""Fixtures of the serve tests; the helpers live in ``serve_helpers.py`` (importable by name)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from serve_helpers import gold, otlp_sink, server_processes, start_server  # noqa: E402,F401
