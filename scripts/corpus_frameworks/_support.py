"""The support-matrix entry of a framework scenario (see README.md): EXPECT values built from
"everything read" and the changes a scenario makes.

(imported by the plug-ins, which put this folder on sys.path; its leading underscore keeps
regen_corpus.py from taking it for a plug-in)
"""

from __future__ import annotations

ALL_READ = {"tool_names": "read", "arguments": "read", "call_ids": "read",
            "input_tokens": "read", "output_tokens": "read", "cached_tokens": "read",
            "reasoning_tokens": "read"}


def expect(framework: str, version: str, mode: str, **changes) -> dict:
    """An EXPECT entry: every item read, but for ``support`` (item -> value) and the other
    keys given (``args``, ``cached``, ``reasoning``, ``fixes``, ``notes``, ...).

    Example:
        >>> e = expect("Mastra", "1.0", "default", args=False,
        ...            support={"arguments": "not_recorded"})
        >>> e["args"], e["support"]["arguments"], e["support"]["call_ids"], e["fixes"]
        (False, 'not_recorded', 'read', {})
    """
    entry = {"args": True, "cached": True, "reasoning": True, "framework": framework,
             "framework_version": version, "mode": mode,
             "support": dict(ALL_READ, **changes.pop("support", {})),
             "fixes": changes.pop("fixes", {})}
    entry.update(changes)
    return entry
