"""Every resource limit of ek-otel in one place: how deep, how big, how many.

Untrusted input (trace dumps, OTLP requests, gold and pricing files, BFCL result files)
meets these caps before it can cost minutes of CPU or gigabytes of memory. What happens at
each cap is documented in ``docs/reliability.md``: a value is cut and reported, a file is
refused with one line naming the file and line, an expression is not evaluated.

This module imports nothing, so every layer (the core included) may import it.

Example:
    >>> MAX_VALUE_DEPTH, MAX_ATTRIBUTE_JSON_DEPTH, GOLD_MAX_NESTING
    (32, 32, 100)
    >>> BFCL_MAX_VALUE_SIZE
    100000
"""

__all__ = [
    "MAX_VALUE_DEPTH",
    "MAX_ATTRIBUTE_JSON_DEPTH",
    "MAX_JSON_NESTING",
    "MAX_SPANS_PER_TRACE",
    "GOLD_MAX_NESTING",
    "GOLD_MAX_INT_DIGITS",
    "YAML_MAX_EXPANDED_NODES",
    "BFCL_MAX_VALUE_SIZE",
    "BFCL_MAX_INT_BITS",
    "MAX_CALL_PAIRS",
    "DEPTH_MARKER",
]

#: The deepest nesting of OTLP AnyValue arrays/kvlists decoded; deeper containers become
#: :data:`DEPTH_MARKER` and a ``nesting too deep`` case is reported (the record is kept).
MAX_VALUE_DEPTH = 32

#: The deepest nesting of arrays/objects kept from JSON held inside an attribute string
#: (``gen_ai.tool.call.arguments = "[[[...]]]"``, messages, metadata): deeper containers
#: become :data:`DEPTH_MARKER`, reported as ``nesting too deep``.
MAX_ATTRIBUTE_JSON_DEPTH = 32

#: The deepest JSON nesting an OTLP-JSON body is parsed to (an AnyValue is cut at
#: :data:`MAX_VALUE_DEPTH` containers, at most 4 JSON levels each, before it).
MAX_JSON_NESTING = 256

#: The spans of one trace the episode builder is tested and measured at: every question
#: asked of the span tree (depths, ancestors, nearest agent or tool, clusters) is answered
#: in one pass, linear in the spans, so a parent-id chain or cycle of this many spans builds
#: its one episode (a cycle broken and reported as ``parent cycle``); nothing is dropped
#: past it, the cost stays linear (``bench/fuzz_bounds.py``).
MAX_SPANS_PER_TRACE = 100_000

#: The deepest nesting of lists/mappings in a gold or pricing file (JSON or YAML).
GOLD_MAX_NESTING = 100

#: The longest integer literal in a gold or pricing file (Python's own limit on converting
#: decimal text to an int).
GOLD_MAX_INT_DIGITS = 4300

#: The most nodes a YAML document (a gold task, a pricing file) may expand to through its
#: aliases (``*name``): an alias bomb is refused beyond it, never expanded.
YAML_MAX_EXPANDED_NODES = 1_000_000

#: The largest string, bytes, list, tuple, dict or set the BFCL expression evaluator builds
#: (repetition, ``%`` formatting, ``str.format``, concatenation, ...), in items or characters.
BFCL_MAX_VALUE_SIZE = 100_000

#: The largest integer (in bits) a BFCL power or shift may build.
BFCL_MAX_INT_BITS = 4096

#: The most (run call, gold call) pairs of one tool the pairing weighs (``best_first``,
#: ``optimal``: per tool; ``ordered``: all the run's calls times all the task's): past it the
#: calls of that tool are paired in call order, and the explanation says so.
MAX_CALL_PAIRS = 10_000

#: What replaces a value nested deeper than its cap.
DEPTH_MARKER = "<ek-otel: value nested too deep>"
