"""The plugin tests' helpers (``plugin_run.py``) are importable by name."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
