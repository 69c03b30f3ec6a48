"""Pricing math: token counts to dollars, from a price table (never from a raw token count).

Prices are per **million** tokens. The arithmetic follows the OpenTelemetry GenAI semantic
conventions, where ``gen_ai.usage.input_tokens`` SHOULD *include* cached input tokens and
``gen_ai.usage.output_tokens`` *includes* reasoning tokens:

    dollars = (input - cached) * input_price
            + cached * cached_input_price
            + output * output_price

Reasoning tokens are therefore **not** added again by default; ``Cost.reasoning_tokens`` is
informational. Pass ``reasoning_in_output=False`` for a source whose output count excludes
reasoning; they are then billed at the reasoning price. If a source reports more cached
tokens than input tokens (it did not include them), the uncached part is clamped at zero.

No price here is truth: prices come from the user's pricing file.

Example:
    >>> from ek_otel.core.episode import Cost
    >>> p = ModelPrice(input=2.5, output=10.0, cached_input=1.25)
    >>> dollars(Cost(input_tokens=1_000_000, output_tokens=100_000, cached_input_tokens=200_000), p)
    3.25
    >>> PriceTable({"gpt-4o": p}).price_of("gpt-4o-2024-08-06") is p
    True
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Optional

from ..errors import PricingError
from .episode import Cost

__all__ = ["ModelPrice", "PriceTable", "dollars", "PER_TOKENS"]

#: Prices are per this many tokens.
PER_TOKENS = 1_000_000

#: What may follow a known model name used as a prefix: version suffixes only, each a
#: separator and a number (a date ``-2024-08-06``/``-20241022``, a snapshot ``-0613``,
#: ``-002``), ``latest``, or ``v2``/``v2:0`` (Bedrock). So ``gpt-4o`` prices
#: ``gpt-4o-2024-08-06`` and ``claude-3-5-sonnet@20240620``, but never ``gpt-4o-mini``, and
#: ``gpt-4`` never prices ``gpt-4o``: another model is never priced as a cheaper or dearer one.
_VERSION_SUFFIX = re.compile(r"(?:[-_.:@ ](?:\d+|latest|v\d+(?::\d+)?))+")


@dataclass(frozen=True)
class ModelPrice:
    """Dollars per million tokens of each kind for one model.

    Args:
        input: Price of (uncached) input tokens.
        output: Price of output tokens (which include reasoning, per semconv).
        cached_input: Price of cached input tokens; defaults to ``input`` (no discount known).
        reasoning: Price of reasoning tokens when billed apart from output; defaults to
            ``output``.

    Example:
        >>> p = ModelPrice(1.0, 4.0)
        >>> p.cached_input_price, p.reasoning_price
        (1.0, 4.0)
    """

    input: float
    output: float
    cached_input: Optional[float] = None
    reasoning: Optional[float] = None

    def __post_init__(self) -> None:
        for name in ("input", "output", "cached_input", "reasoning"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, (int, float)) or value < 0):
                raise PricingError(f"price {name} must be a non-negative number, not {value!r}")

    @property
    def cached_input_price(self) -> float:
        """The cached-input price, defaulting to the input price."""
        return float(self.input if self.cached_input is None else self.cached_input)

    @property
    def reasoning_price(self) -> float:
        """The reasoning price, defaulting to the output price."""
        return float(self.output if self.reasoning is None else self.reasoning)


def dollars(cost: Cost, price: ModelPrice, *, reasoning_in_output: bool = True) -> float:
    """The dollar cost of ``cost`` at ``price`` (see the module docstring for the formula).

    Example:
        >>> p = ModelPrice(input=1.0, output=2.0, cached_input=0.5, reasoning=8.0)
        >>> c = Cost(input_tokens=1000, output_tokens=500, cached_input_tokens=400,
        ...          reasoning_tokens=300)
        >>> dollars(c, p)                                 # 600*1 + 400*0.5 + 500*2, per 1e6
        0.0018
        >>> dollars(c, p, reasoning_in_output=False)      # + 300 * 8 per 1e6
        0.0042
    """
    cached = max(int(cost.cached_input_tokens), 0)
    uncached = max(int(cost.input_tokens) - cached, 0)
    micro = (
        uncached * price.input
        + cached * price.cached_input_price
        + max(int(cost.output_tokens), 0) * price.output
    )
    if not reasoning_in_output:
        micro += max(int(cost.reasoning_tokens), 0) * price.reasoning_price
    return round(micro / PER_TOKENS, 12)


@dataclass(frozen=True)
class PriceTable:
    """Model name -> :class:`ModelPrice`, with prefix lookup for dated model versions.

    Example:
        >>> t = PriceTable({"gpt-4o": ModelPrice(2.5, 10.0), "gpt-4o-mini": ModelPrice(0.15, 0.6)})
        >>> t.price_of("gpt-4o-mini-2024-07-18").input
        0.15
        >>> t.price_of("unknown-model")
        Traceback (most recent call last):
        ...
        ek_otel.errors.PricingError: no price for model 'unknown-model' (known: gpt-4o, gpt-4o-mini)
    """

    models: Mapping[str, ModelPrice] = field(default_factory=dict)

    def price_of(self, model: str) -> ModelPrice:
        """The price of ``model``: an exact name, then a case-insensitive one, then the longest
        known name that ``model`` is a dated or versioned release of (see
        :data:`_VERSION_SUFFIX`): ``gpt-4o-2024-08-06`` is priced as ``gpt-4o``, but
        ``gpt-4o-mini`` never is, nor ``gpt-4o`` as ``gpt-4``. A ``provider/`` prefix is
        tried without the provider too.

        Raises:
            PricingError: when no name fits.
        """
        found = self.find(model)
        if found is None:
            known = ", ".join(sorted(self.models)) or "none"
            raise PricingError(f"no price for model {model!r} (known: {known})")
        return found

    def find(self, model: Optional[str]) -> Optional[ModelPrice]:
        """Like :meth:`price_of` but None when unknown.

        Example:
            >>> PriceTable({"claude-3-5-sonnet": ModelPrice(3, 15)}).find(
            ...     "anthropic/claude-3-5-sonnet-20241022").output
            15
            >>> PriceTable({"gpt-4o": ModelPrice(2.5, 10)}).find("gpt-4o-mini") is None
            True
        """
        if not model:
            return None
        if model in self.models:
            return self.models[model]
        lowered = {name.lower(): price for name, price in self.models.items()}
        for candidate in (model, model.split("/", 1)[1] if "/" in model else None):
            if not candidate:
                continue
            key = candidate.lower()
            if key in lowered:
                return lowered[key]
            best = None
            for name, price in lowered.items():
                if (
                    key.startswith(name)
                    and _VERSION_SUFFIX.fullmatch(key, len(name))
                    and (best is None or len(name) > len(best[0]))
                ):
                    best = (name, price)
            if best is not None:
                return best[1]
        return None

    def dollars(self, cost: Cost, model: str, *, reasoning_in_output: bool = True) -> float:
        """The dollar cost of ``cost`` for ``model`` (raises :class:`PricingError` if unknown).

        Example:
            >>> PriceTable({"m": ModelPrice(1.0, 1.0)}).dollars(Cost(input_tokens=10**6), "m")
            1.0
        """
        return dollars(cost, self.price_of(model), reasoning_in_output=reasoning_in_output)
