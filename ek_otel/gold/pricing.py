"""Pricing files: per-model token prices, read from YAML or JSON into a :class:`PriceTable`.

A pricing file is a mapping::

    currency: USD          # optional, default USD
    as_of: "2026-11-01"    # optional: the date the prices were copied (prices change)
    source: https://...    # optional: where they were copied from
    models:
      gpt-4o: {input: 2.5, output: 10, cached_input: 1.25, reasoning: 10}

Prices are per **million** tokens; ``input`` and ``output`` are required for each model,
``cached_input`` and ``reasoning`` are optional (see :mod:`ek_otel.core.cost` for how each
is applied). ek-otel ships no price as truth: the user's file is the only source.

A file whose name ends in ``.json`` is read as JSON; anything else as YAML (a superset of
JSON). Every problem raises :class:`~ek_otel.errors.PricingError` naming the file, the line
when known, and what is wrong.

Example:
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "prices.yaml")
    >>> _ = open(p, "w").write("as_of: 2026-11-01\\nmodels:\\n  m: {input: 1, output: 4}\\n")
    >>> load_pricing(p).price_of("m").output
    4.0
    >>> read_pricing(p).as_of
    '2026-11-01'
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import yaml

from ..core.cost import ModelPrice, PriceTable
from ..errors import PricingError
from .documents import JsonYamlLoader, nesting_problem, parse_problem, yaml_problem
from .schema import did_you_mean, is_float_number, json_type_name

__all__ = ["PricingFile", "load_pricing", "read_pricing", "pricing_from_dict", "FILE_KEYS", "PRICE_KEYS"]

PathLike = Union[str, "os.PathLike[str]"]

#: Top-level keys of a pricing file.
FILE_KEYS = ("models", "currency", "as_of", "source", "note")

#: Keys of one model's prices (per million tokens).
PRICE_KEYS = ("input", "output", "cached_input", "reasoning")
_REQUIRED_PRICE_KEYS = ("input", "output")


@dataclass(frozen=True)
class PricingFile:
    """A pricing file read in full: the :class:`PriceTable` plus what the prices are.

    Example:
        >>> f = PricingFile(PriceTable({"m": ModelPrice(1.0, 2.0)}), currency="USD", as_of="2026-11-01")
        >>> f.table.price_of("m").input, f.currency
        (1.0, 'USD')
    """

    table: PriceTable
    currency: str = "USD"
    as_of: Optional[str] = None
    source: Optional[str] = None
    path: Optional[str] = None


def _is_price(value: Any) -> bool:
    return is_float_number(value) and value >= 0


def _model_price(name: str, prices: Any, fail) -> ModelPrice:
    where = f"model '{name}'"
    if not isinstance(prices, Mapping):
        fail(name, f"{where}: prices must be a mapping like {{input: 2.5, output: 10}}, got {json_type_name(prices)}")
    for key in prices:
        if key not in PRICE_KEYS:
            fail(name, f"{where}: unknown price '{key}'{did_you_mean(key, PRICE_KEYS)} (known: {', '.join(PRICE_KEYS)})")
    for key in _REQUIRED_PRICE_KEYS:
        if key not in prices:
            fail(name, f"{where}: the '{key}' price is missing (dollars per million {key} tokens)")
    for key in PRICE_KEYS:
        if key in prices and not _is_price(prices[key]):
            fail(name, f"{where}: {key} must be a number >= 0 (dollars per million tokens), got {repr(prices[key])[:60]}")
    return ModelPrice(**{k: float(prices[k]) for k in PRICE_KEYS if k in prices})


def pricing_from_dict(obj: Any, *, path: Optional[str] = None, lines: Optional[Mapping[str, int]] = None) -> PricingFile:
    """Check a parsed pricing mapping and build its :class:`PricingFile`.

    ``lines`` maps a model name to the line where its prices start, for messages.

    Example:
        >>> pricing_from_dict({"models": {"m": {"input": 1, "output": 2}}}).table.price_of("m").input
        1.0
        >>> pricing_from_dict({"models": {"m": {"input": 1, "ouput": 2}}}, path="p.yaml", lines={"m": 3})
        Traceback (most recent call last):
        ...
        ek_otel.errors.PricingError: p.yaml:3: model 'm': unknown price 'ouput' (did you mean 'output'?) (known: input, output, cached_input, reasoning)
    """
    lines = lines or {}

    def fail(model: Optional[str], message: str):
        raise PricingError(message, path=path, line=lines.get(model) if model is not None else None)

    if not isinstance(obj, Mapping):
        fail(None, f"a pricing file must be a mapping with a 'models' key, got {json_type_name(obj)}")
    for key in obj:
        if key not in FILE_KEYS:
            fail(None, f"unknown key '{key}'{did_you_mean(key, FILE_KEYS)} (known: {', '.join(FILE_KEYS)})")
    if "models" not in obj:
        fail(None, "the 'models' mapping is missing (model name -> {input, output, ...} per million tokens)")
    models = obj["models"]
    if not isinstance(models, Mapping) or not models:
        fail(None, f"'models' must be a non-empty mapping of model name -> prices, got {json_type_name(models)}")
    table = {}
    for name, prices in models.items():
        if not isinstance(name, str) or not name:
            fail(None, f"a model name must be a non-empty string, got {name!r}")
        table[name] = _model_price(name, prices, fail)
    currency = obj.get("currency", "USD")
    if not isinstance(currency, str) or not re.fullmatch(r"[A-Z]{3}", currency):
        fail(None, f"currency must be a 3-letter ISO code such as USD, got {currency!r}")
    as_of = obj.get("as_of")
    if isinstance(as_of, _dt.date):
        as_of = as_of.isoformat()
    elif as_of is not None:
        try:
            _dt.date.fromisoformat(str(as_of))
        except ValueError:
            fail(None, f"as_of must be a date YYYY-MM-DD, got {as_of!r}")
        as_of = str(as_of)
    for key in ("source", "note"):
        if key in obj and not isinstance(obj[key], str):
            fail(None, f"{key} must be a string, got {json_type_name(obj[key])}")
    return PricingFile(PriceTable(table), currency=currency, as_of=as_of, source=obj.get("source"), path=path)


def _parse(path: PathLike, text: str) -> tuple[Any, dict[str, int]]:
    name = str(path)
    if name.lower().endswith(".json"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PricingError(f"invalid JSON: {exc.msg} (column {exc.colno})", path=name, line=exc.lineno) from None
        except (ValueError, RecursionError) as exc:  # a huge integer literal, deep nesting
            raise PricingError(parse_problem(exc), path=name) from None
        problem = nesting_problem(obj)
        if problem is not None:
            raise PricingError(problem, path=name)
        lines = {}
        if isinstance(obj, Mapping) and isinstance(obj.get("models"), Mapping):
            for model in obj["models"]:
                match = re.search(r'"' + re.escape(json.dumps(model)[1:-1]) + r'"\s*:', text)
                if match:
                    lines[model] = text.count("\n", 0, match.start()) + 1
        return obj, lines
    loader = None
    try:
        loader = JsonYamlLoader(text)  # the gold files' YAML: `1_0` or `yes` are not numbers
        node = loader.get_single_node()
        if node is None:
            raise PricingError("the file is empty", path=name)
        lines = {}
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == "models" and isinstance(value_node, yaml.MappingNode):
                    for model_key, _ in value_node.value:
                        if isinstance(model_key, yaml.ScalarNode):
                            lines[model_key.value] = model_key.start_mark.line + 1
        try:
            return loader.construct_document(node), lines
        except ValueError as exc:  # an integer literal over the digit limit
            raise PricingError(parse_problem(exc), path=name, line=node.start_mark.line + 1) from None
    except yaml.YAMLError as exc:
        line, message = yaml_problem(exc, text)
        raise PricingError(message, path=name, line=line) from None
    finally:
        if loader is not None:
            loader.dispose()


def read_pricing(path: PathLike) -> PricingFile:
    """Read a pricing file with its currency, date and source.

    Raises:
        PricingError: naming the file (and line when known) and the problem.

    Example:
        >>> read_pricing("no/such/prices.yaml")
        Traceback (most recent call last):
        ...
        ek_otel.errors.PricingError: no/such/prices.yaml: no such file
    """
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # tolerate a BOM
    except FileNotFoundError:
        raise PricingError("no such file", path=name) from None
    except IsADirectoryError:
        raise PricingError("is a directory, not a pricing file", path=name) from None
    except UnicodeDecodeError as exc:
        raise PricingError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path=name) from None
    except OSError as exc:
        raise PricingError(f"cannot read: {exc.strerror or exc}", path=name) from None
    obj, lines = _parse(path, text)
    return pricing_from_dict(obj, path=name, lines=lines)


def load_pricing(path: PathLike) -> PriceTable:
    """Read a pricing file (YAML or JSON) into a :class:`PriceTable`.

    Example:
        >>> import tempfile, os
        >>> p = os.path.join(tempfile.mkdtemp(), "prices.json")
        >>> _ = open(p, "w").write('{"models": {"gpt-4o": {"input": 2.5, "output": 10}}}')
        >>> load_pricing(p).price_of("gpt-4o-2024-08-06").input
        2.5
    """
    return read_pricing(path).table
