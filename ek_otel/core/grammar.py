"""The cost grammar: which tools exist, what their arguments are, and what an error costs.

A :class:`GraphGrammar` maps tool names to :class:`NodeType` s, and each node type holds the
:class:`FieldSpec` of its arguments. Every metric reads its error weights from here, so the
price of a wrong argument is written down once.

Example:
    >>> g = GraphGrammar(node_types={"refund": NodeType("refund",
    ...     fields={"amount": FieldSpec("amount", "number", importance=20.0)}, importance=10.0)})
    >>> g.node_cost("refund"), g.field_cost("refund", "amount"), g.field_cost("refund", "memo")
    (10.0, 20.0, 1.0)
    >>> g.node_cost("unknown_tool")
    1.0
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["FieldSpec", "NodeType", "GraphGrammar"]


@dataclass(frozen=True)
class FieldSpec:
    """One argument of a tool (or one field of a record).

    Args:
        name: The argument name.
        type: The JSON-schema type name (``string``, ``integer``, ``number``, ``boolean``,
            ``array``, ``object``, ...). ``"any"`` disables type checks.
        importance: The cost of getting this argument wrong (default 1.0).
        domain: Optional allowed values (a JSON-schema ``enum``).
        required: Whether the tool's schema lists the argument as required.
        description: Free text from the schema.
        schema: The raw JSON-schema of the argument, kept for nested type checks.

    Example:
        >>> FieldSpec("amount", "number", importance=20.0).importance
        20.0
    """

    name: str
    type: str = "any"
    importance: float = 1.0
    domain: Optional[tuple] = None
    required: bool = False
    description: str = ""
    schema: Optional[Mapping[str, Any]] = None


@dataclass(frozen=True)
class NodeType:
    """A tool as a node of the grammar: its argument fields and its call-level weight.

    Example:
        >>> NodeType("send", fields={"to": FieldSpec("to")}, importance=10.0).importance
        10.0
    """

    name: str
    fields: Mapping[str, FieldSpec] = field(default_factory=dict)
    importance: float = 1.0


@dataclass(frozen=True)
class GraphGrammar:
    """The frozen cost table every metric reads: node cost per tool, field cost per argument.

    Unknown tools and arguments cost 1.0, so a grammar never has to be complete.

    Example:
        >>> g = GraphGrammar(node_types={"send": NodeType("send", importance=10.0)})
        >>> g.node_cost("send"), g.field_cost("send", "to")
        (10.0, 1.0)
    """

    node_types: Mapping[str, NodeType] = field(default_factory=dict)

    def node_cost(self, tool: str) -> float:
        """The weight of a missing or spurious call to ``tool``.

        Example:
            >>> GraphGrammar().node_cost("anything")
            1.0
        """
        node = self.node_types.get(tool)
        return float(node.importance) if node is not None else 1.0

    def field_cost(self, tool: str, arg: str) -> float:
        """The weight of a wrong, missing or spurious argument ``arg`` of ``tool``.

        Example:
            >>> g = GraphGrammar({"t": NodeType("t", {"a": FieldSpec("a", importance=3.0)})})
            >>> g.field_cost("t", "a"), g.field_cost("t", "b")
            (3.0, 1.0)
        """
        node = self.node_types.get(tool)
        if node is None:
            return 1.0
        spec = node.fields.get(arg)
        return float(spec.importance) if spec is not None else 1.0

    def field_spec(self, tool: str, arg: str) -> Optional[FieldSpec]:
        """The :class:`FieldSpec` of ``tool.arg``, or None when the grammar does not know it.

        Example:
            >>> GraphGrammar().field_spec("t", "a") is None
            True
        """
        node = self.node_types.get(tool)
        return node.fields.get(arg) if node is not None else None


def __getattr__(name: str) -> Any:
    # ``Score`` lived here before it moved to :mod:`ek_otel.core.scores`; still importable.
    if name == "Score":
        from .scores import Score

        return Score
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
