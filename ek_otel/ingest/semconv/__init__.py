"""Semantic-convention names, in one place, and the accessors that read them.

Every attribute and event name ek-otel reads from GenAI telemetry is defined in this
package, with the conventions that use it: OTel GenAI (current and deprecated names),
OpenInference, OpenLLMetry/Traceloop (0.62.x and 0.5x), Logfire, Langfuse, the Agents-SDK
instrumentors and the agent frameworks (``tests/ingest/corpus`` holds spans recorded from
each real package). The episode builder (:mod:`ek_otel.ingest.episodes` and the modules it uses) asks
these accessors questions ("is this a model call?", "what usage does it carry?") and never
names an attribute itself; ``tests/ingest/test_semconv.py`` keeps it so.

One module per job: :mod:`.roles` (model call, tool, agent), :mod:`.usage` (tokens),
:mod:`.tools` (tool name, call id, arguments, result), :mod:`.inputs` (what a model was
sent, for transcripts), :mod:`.outputs` (where a model's
answer is), :mod:`.requests` (what a model was asked: input messages, tool definitions),
:mod:`.request_options` (provider, streaming, token totals: what ``doctor`` asks of a model
call's request), :mod:`.run` (task, conversation, agent, model, parameters, errors),
:mod:`.conventions` (which conventions attribute names follow), :mod:`.nonruns` (traces
that are not agent runs: MCP protocol traffic), and :mod:`.values` (reading
values of any type).

Accessors take an attribute mapping (or a :class:`~ek_otel.ingest.records.SpanRecord`) and
never raise on values of unexpected types: a value that cannot be read counts as absent.

Example:
    >>> from ek_otel.ingest.records import SpanRecord
    >>> s = SpanRecord("a" * 32, "b" * 16, name="chat gpt-4o", attributes={
    ...     "gen_ai.operation.name": "chat", "gen_ai.usage.prompt_tokens": 10,
    ...     "gen_ai.usage.output_tokens": 3})
    >>> span_role(s), usage_of(s.attributes)
    ('model', Usage(input_tokens=10, output_tokens=3, cached_input_tokens=0, reasoning_tokens=0))
"""

from __future__ import annotations

from .conventions import *  # noqa: F401,F403
from .conventions import __all__ as _conventions
from .inputs import *  # noqa: F401,F403
from .inputs import __all__ as _inputs
from .nonruns import *  # noqa: F401,F403
from .nonruns import __all__ as _nonruns
from .outputs import *  # noqa: F401,F403
from .outputs import __all__ as _outputs
from .request_options import *  # noqa: F401,F403
from .request_options import __all__ as _request_options
from .requests import *  # noqa: F401,F403
from .requests import __all__ as _requests
from .roles import *  # noqa: F401,F403
from .roles import __all__ as _roles
from .run import *  # noqa: F401,F403
from .run import __all__ as _run
from .tools import *  # noqa: F401,F403
from .tools import __all__ as _tools
from .usage import *  # noqa: F401,F403
from .usage import __all__ as _usage
from .values import *  # noqa: F401,F403
from .values import __all__ as _values

__all__ = [*_roles, *_usage, *_tools, *_inputs, *_outputs, *_requests, *_request_options, *_run,
           *_values, *_conventions, *_nonruns]
