#!/usr/bin/env python3
"""Regenerate tests/ingest/corpus/: spans and GenAI log events from the REAL packages.

Each scenario runs the real ``openai`` client (and, for the agent scenarios, the real OpenAI
Agents SDK; or LangChain/LangGraph, or litellm) under one real instrumentation package,
against the fake OpenAI server of ``ek_otel/testing/fake_openai.py`` (two parallel tool
calls, one more tool call, a final answer, with known usage); the ``anthropic`` and
``google-genai`` scenarios run those clients against ``fake_anthropic.py`` and
``fake_gemini.py`` (the same calls, each provider's own usage semantics). Spans and log records are captured with the OTel SDK's in-memory
exporters and written with the SDK's real OTLP protobuf encoders:

    tests/ingest/corpus/<scenario>/traces.pb     one ExportTraceServiceRequest
    tests/ingest/corpus/<scenario>/logs.pb       one ExportLogsServiceRequest (when any)
    tests/ingest/corpus/<scenario>/traces.jsonl  the same spans, OTLP JSON Lines written by the
                                                  SDK's json-file exporter, in batches of 5
    tests/ingest/corpus/<scenario>/logs.jsonl    the same log records (when any)
    tests/ingest/corpus/<scenario>/expected.json what the fake server returned + what the
                                                  package is known to record (see EXPECT)
    tests/ingest/corpus/<scenario>/versions.txt  pip freeze of the environment used

Framework scenarios come from plug-ins in scripts/corpus_frameworks/ (see its README.md); the
Node ones (Vercel AI SDK, Mastra) run ``node`` with npm packages pinned by a lockfile and
capture what the JavaScript OTLP exporters send (``node`` and ``npm`` needed only here).

The packages cannot share one environment (different openai-v2 / Traceloop versions, the
agents instrumentors), so each ENVIRONMENT is a separate virtual environment with PINNED
versions, created on demand under --venv-root (default /tmp/ek-otel-corpus-venvs).

Usage:
    python scripts/regen_corpus.py                  # every scenario
    python scripts/regen_corpus.py --list
    python scripts/regen_corpus.py openai-v2-2.4b0-span_only traceloop-0.62.4
    # inside a venv (what the outer run calls):
    python scripts/regen_corpus.py --run-scenario NAME --out DIR
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "ingest" / "corpus"
FAKE_SERVER_PATH = REPO / "ek_otel" / "testing" / "fake_openai.py"
FAKE_ANTHROPIC_PATH = REPO / "ek_otel" / "testing" / "fake_anthropic.py"
FAKE_GEMINI_PATH = REPO / "ek_otel" / "testing" / "fake_gemini.py"

_SDK = ["opentelemetry-sdk==1.45.2", "opentelemetry-exporter-otlp-proto-common==1.45.2",
        "opentelemetry-exporter-otlp-json-file==0.66b1"]
_OPENAI = "openai==3.57.0"
_HTTPX = "httpx==0.28.1"  # openai 3.x uses httpx2; instrumentors still import httpx
_AGENTS = "openai-agents==0.24.0"
_ANTHROPIC = "anthropic==2.14.0"
_LANGCHAIN = ["langchain-openai==1.7.4", "langchain-core==1.8.3", "langchain==1.5.2",
              "langgraph==1.2.24", "langchain-anthropic==1.7.10", _ANTHROPIC]

#: environment name -> pinned requirements
ENVIRONMENTS: dict = {
    "openai-v2-2.4b0": _SDK + [_OPENAI, _HTTPX, "opentelemetry-instrumentation-openai-v2==2.4b0",
                          "opentelemetry-util-genai==1.1b0"],
    # NB: 2.4b0 asks only for util-genai>=0.4b0.dev, so a fresh install resolves util-genai
    # 1.3b0 (or 1.2b0), with which it fails to import (opentelemetry.util.genai.instruments
    # is gone): it needs 1.1b0.
    "openai-v2-2.3b0": _SDK + [_OPENAI, _HTTPX, "opentelemetry-instrumentation-openai-v2==2.3b0",
                          "wrapt==1.17.3"],
    "openinference-openai": _SDK + [_OPENAI, _HTTPX, "openinference-instrumentation-openai==0.1.66"],
    "traceloop-0.62.4": _SDK + [_OPENAI, _HTTPX, "opentelemetry-instrumentation-openai==0.62.4"],
    "traceloop-0.52.6": _SDK + [_OPENAI, _HTTPX, "opentelemetry-instrumentation-openai==0.52.6"],
    # an older OpenLLMetry, with the 1.x openai and 0.x anthropic clients of its time; it
    # needs the events API (opentelemetry._events), gone from SDK 1.45: SDK 1.38 (+ NO_DEPS)
    "traceloop-0.44.3": ["opentelemetry-sdk==1.38.0", "opentelemetry-api==1.38.0",
                         "opentelemetry-exporter-otlp-proto-common==1.38.0",
                         _HTTPX, "openai==1.109.1", "anthropic==0.125.0",
                                "opentelemetry-instrumentation-openai==0.44.3",
                                "opentelemetry-instrumentation-anthropic==0.44.3"],
    "agents-openinference": _SDK + [_HTTPX,
        _OPENAI, _AGENTS,
        "openinference-instrumentation-openai-agents==2.6.0",
        "openinference-instrumentation-openai==0.1.66",
    ],
    "agents-otel-v2": _SDK + [_HTTPX,
        _OPENAI, _AGENTS,
        "opentelemetry-instrumentation-openai-agents-v2==0.1.0",
        "opentelemetry-instrumentation-openai-v2==2.4b0",
        "opentelemetry-util-genai==1.1b0",
    ],
    "agents-traceloop": _SDK + [
        _HTTPX, _OPENAI, _AGENTS,
        "opentelemetry-instrumentation-openai-agents==0.62.4",
        "opentelemetry-instrumentation-openai==0.62.4",
    ],
    # logfire needs otlp-common 0.66b2, the json-file exporter pins 0.66b1 (it works with
    # 0.66b2): the JSON exporter goes in afterwards, without dependencies (NO_DEPS).
    "logfire": _SDK[:2] + [_HTTPX, _OPENAI, _AGENTS, "logfire==5.4.0"],
    "langfuse": _SDK[:2] + [_HTTPX, _OPENAI, "langfuse==5.0.4"],  # + NO_DEPS, as logfire
    "logfire-6": _SDK[:2] + [_HTTPX, _OPENAI, _AGENTS, "logfire==6.0.0b8"],  # + NO_DEPS
    "anthropic-traceloop": _SDK + [_HTTPX, _ANTHROPIC,
                                   "opentelemetry-instrumentation-anthropic==0.62.4"],
    "anthropic-openinference": _SDK + [_HTTPX, _ANTHROPIC,
                                       "openinference-instrumentation-anthropic==3.1.0"],
    "google-genai": _SDK + [_HTTPX, "google-genai==2.34.0",  # the instrumentor: <3
                            "opentelemetry-instrumentation-google-genai==1.3b0",
                            "opentelemetry-util-genai==1.3b0"],
    # the instrumentor before opentelemetry-util-genai (0.4b0, of SDK 1.37): its tool spans
    # carry the arguments as code.function.parameters.<name>.value, the result as
    # code.function.return.value (logfire's instrument_google_genai records the same)
    "google-genai-0.4b0": _SDK + ["opentelemetry-util-genai==0.2b0", _HTTPX,
                                  "google-genai==1.40.0",
                                  "opentelemetry-instrumentation-google-genai==0.4b0"],
    "litellm": _SDK + [_HTTPX, _OPENAI, "litellm==1.110.2"],
    # OpenLit: the current release (openai < 3), and 1.27 (openai 1.x, SDK 1.27: the answer
    # as plain text in a gen_ai.content.completion span event)
    # (openlit pins the OTel SDK it takes: left to pip; the JSON exporter in NO_DEPS)
    # (the contrib instrumentations openlit requires exist up to 0.66b1: SDK 1.45.1)
    "openlit-1.45.0": ["opentelemetry-sdk==1.45.1", "opentelemetry-api==1.45.1",
                       "opentelemetry-instrumentation==0.66b1",
                       "opentelemetry-semantic-conventions==0.66b1",
                       "opentelemetry-exporter-otlp==1.45.1", _HTTPX, "openai==2.8.1",
                       "openlit==1.45.0"],
    # (SDK 1.27 predates the JSON file exporter: traces.jsonl is the protobuf request in
    # the OTLP/JSON mapping, _json_from_protobuf)
    "openlit-1.27.0": ["opentelemetry-sdk==1.27.0", "opentelemetry-api==1.27.0",
                       "opentelemetry-exporter-otlp-proto-common==1.27.0",
                       "opentelemetry-exporter-otlp==1.27.0", _HTTPX, "openai==1.109.1",
                       "openlit==1.27.0"],
    "langchain": _SDK + [_HTTPX, _OPENAI] + _LANGCHAIN + [
        "openinference-instrumentation-langchain==0.1.80",
        "opentelemetry-instrumentation-langchain==0.62.4",
    ],
}

#: environment name -> requirements installed afterwards with --no-deps
_JSON_FILE_NO_DEPS = ["opentelemetry-exporter-otlp-json-file==0.66b1",
                      "opentelemetry-exporter-otlp-json-common==0.66b1",
                      "opentelemetry-proto-json==0.66b1"]
NO_DEPS: dict = {"logfire": _JSON_FILE_NO_DEPS, "langfuse": _JSON_FILE_NO_DEPS,
                 "openlit-1.45.0": _JSON_FILE_NO_DEPS,
                 "logfire-6": _JSON_FILE_NO_DEPS,
                 "traceloop-0.44.3": _JSON_FILE_NO_DEPS + [
                     "opentelemetry-exporter-otlp-common==0.66b1"]}

#: scenario -> (environment, app, instrumentors, extra environment variables)
SCENARIOS: dict = {
    "openai-v2-2.4b0-span_only": (
        "openai-v2-2.4b0", "chat", ["openai_v2"],
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only",
         "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}),
    "openai-v2-2.4b0-span_and_event": (
        "openai-v2-2.4b0", "chat", ["openai_v2"],
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_and_event",
         "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}),
    "openai-v2-2.4b0-event_only": (
        "openai-v2-2.4b0", "chat", ["openai_v2"],
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "event_only",
         "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}),
    "openai-v2-2.4b0-no_content": ("openai-v2-2.4b0", "chat", ["openai_v2"], {}),
    "openai-v2-2.3b0-events": (
        "openai-v2-2.3b0", "chat", ["openai_v2"],
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}),
    "openinference-openai-0.1.66": ("openinference-openai", "chat", ["openinference_openai"], {}),
    "traceloop-0.62.4": ("traceloop-0.62.4", "chat", ["traceloop_openai"], {}),
    "traceloop-0.62.4-stream": ("traceloop-0.62.4", "chat_stream", ["traceloop_openai"], {}),
    # client.responses.create in a plain tool loop (no Agents SDK)
    "traceloop-0.62.4-responses": ("traceloop-0.62.4", "responses", ["traceloop_openai"], {}),
    "openinference-openai-0.1.66-responses": (
        "openinference-openai", "responses", ["openinference_openai"], {}),
    "traceloop-0.52.6": ("traceloop-0.52.6", "chat", ["traceloop_openai"], {}),
    "traceloop-0.44.3": ("traceloop-0.44.3", "chat", ["traceloop_openai"], {}),
    "traceloop-0.44.3-stream": ("traceloop-0.44.3", "chat_stream", ["traceloop_openai"], {}),
    "anthropic-traceloop-0.44.3": ("traceloop-0.44.3", "anthropic", ["traceloop_anthropic"], {}),
    # (its messages.stream() wrapper returns a generator, which breaks the SDK's
    # `with client.messages.stream(...) as s: s.get_final_message()`: create(stream=True))
    "anthropic-traceloop-0.44.3-stream": (
        "traceloop-0.44.3", "anthropic_stream_create", ["traceloop_anthropic"], {}),
    "agents-openinference-alone": (
        "agents-openinference", "agents", ["openinference_agents"], {}),
    "agents-openinference-with-client": (
        "agents-openinference", "agents", ["openinference_agents", "openinference_openai"], {}),
    "agents-otel-v2-alone": (
        "agents-otel-v2", "agents", ["otel_agents_v2"],
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only",
         "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}),
    "agents-otel-v2-with-client": (  # openai-v2 traces chat completions only: use that API
        "agents-otel-v2", "agents_chat", ["otel_agents_v2", "openai_v2"],
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only",
         "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}),
    "agents-traceloop-alone": ("agents-traceloop", "agents", ["traceloop_agents"], {}),
    "agents-traceloop-with-client": (
        "agents-traceloop", "agents_chat", ["traceloop_agents", "traceloop_openai"], {}),
    "logfire-chat": ("logfire", "chat", ["logfire_openai"], {}),
    "logfire-agents": ("logfire", "agents", ["logfire_agents"], {}),
    "logfire-6.0.0b8-chat": ("logfire-6", "chat", ["logfire_openai"], {}),
    "logfire-6.0.0b8-agents": ("logfire-6", "agents", ["logfire_agents"], {}),
    # Chat Completions API; logfire.instrument_openai() is on too, but Logfire then adds no
    # client span of its own inside the agent's (checked: the same 13 spans).
    "logfire-agents-chat_completions": (
        "logfire", "agents_chat", ["logfire_agents", "logfire_openai"], {}),
    # Langfuse exports only its own and known LLM spans: the app's root span is left out and
    # the exported spans point at a parent that is not there (the pitfall). The task id
    # travels as Langfuse trace metadata (propagate_attributes).
    "langfuse-openai-5.0.4": ("langfuse", "chat", ["langfuse_openai"], {}),
    # The anthropic client against fake_anthropic.py (tool_use blocks, prompt-cache usage).
    # anthropic 2.x traces its own API calls (scope com.anthropic.sdk.python, usage but no
    # content unless ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content) next to any
    # instrumentor's spans; ANTHROPIC_OPEN_TELEMETRY=false turns that off, leaving the
    # instrumentor alone (as with the older SDKs most deployments run).
    "anthropic-sdk-2.14.0-native": ("anthropic-traceloop", "anthropic", [], {}),
    "anthropic-sdk-2.14.0-native-content": (
        "anthropic-traceloop", "anthropic_stream", [],
        {"ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE": "content"}),
    "anthropic-traceloop-0.62.4": ("anthropic-traceloop", "anthropic", ["traceloop_anthropic"], {}),
    "anthropic-traceloop-0.62.4-stream": (
        "anthropic-traceloop", "anthropic_stream", ["traceloop_anthropic"],
        {"ANTHROPIC_OPEN_TELEMETRY": "false"}),
    "anthropic-openinference-3.1.0": (
        "anthropic-openinference", "anthropic", ["openinference_anthropic"],
        {"ANTHROPIC_OPEN_TELEMETRY": "false"}),
    "anthropic-openinference-3.1.0-stream": (
        "anthropic-openinference", "anthropic_stream", ["openinference_anthropic"], {}),
    # google-genai against fake_gemini.py (functionCall parts without ids, thoughts tokens)
    "google-genai-1.3b0": (
        "google-genai", "gemini", ["otel_google_genai"],
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY",
         "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}),
    "google-genai-1.3b0-no_content": ("google-genai", "gemini", ["otel_google_genai"], {}),
    "google-genai-1.3b0-stream": (
        "google-genai", "gemini_stream", ["otel_google_genai"],
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY",
         "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}),
    # automatic function calling: the client runs the Python tools; the instrumentor's tool
    # spans carry the arguments as code.function.parameters.<name>.value (content on only)
    "google-genai-1.3b0-afc": (
        "google-genai", "gemini_afc", ["otel_google_genai"],
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY",
         "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}),
    "google-genai-0.4b0-afc": (
        "google-genai-0.4b0", "gemini_afc", ["otel_google_genai"],
        {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}),
    "google-genai-0.4b0-afc-no_content": (
        "google-genai-0.4b0", "gemini_afc", ["otel_google_genai"], {}),
    "google-genai-1.3b0-afc-no_content": ("google-genai", "gemini_afc", ["otel_google_genai"], {}),
    # litellm.completion (openai/ provider) with litellm's own OpenTelemetry callback, inside
    # the app's span: litellm then writes each call's attributes ONTO THAT SPAN (the last
    # call overwrites the others; with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental
    # even the raw_gen_ai_request children are gone). Without a current span it makes one
    # litellm_request root span (its own trace) per call.
    # (LITELLM_LOCAL_MODEL_COST_MAP: litellm would fetch its price list from the internet)
    "litellm-1.110.2": ("litellm", "litellm", ["litellm_otel"],
                        {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}),
    # OpenLit (openlit.init with the app's tracer): the current release and 1.27
    "openlit-1.45.0": ("openlit-1.45.0", "chat", ["openlit"], {}),
    # (its wrapper fails with KeyError 'content' on a history whose tool-calling assistant
    # message leaves out "content": None, so the loop keeps it)
    "openlit-1.27.0": ("openlit-1.27.0", "chat_content", ["openlit"], {}),
    # hosted tools (the provider runs them, no client tool span): the Responses API's
    # web_search_call / file_search_call / code_interpreter_call items beside a function
    # call, and Anthropic's server tools (server_tool_use + *_tool_result blocks)
    "openinference-openai-0.1.66-hosted": (
        "openinference-openai", "responses_hosted", ["openinference_openai"], {}),
    "traceloop-0.62.4-hosted": ("traceloop-0.62.4", "responses_hosted", ["traceloop_openai"], {}),
    "agents-openinference-hosted": (
        "agents-openinference", "agents_hosted", ["openinference_agents"], {}),
    "anthropic-openinference-3.1.0-hosted": (
        "anthropic-openinference", "anthropic_hosted", ["openinference_anthropic"],
        {"ANTHROPIC_OPEN_TELEMETRY": "false"}),
    "anthropic-traceloop-0.62.4-hosted": (
        "anthropic-traceloop", "anthropic_hosted", ["traceloop_anthropic"],
        {"ANTHROPIC_OPEN_TELEMETRY": "false"}),
    "anthropic-sdk-2.14.0-native-hosted": (
        "anthropic-traceloop", "anthropic_hosted", [],
        {"ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE": "content"}),
    # content capture off
    "anthropic-traceloop-0.62.4-no_content": (
        "anthropic-traceloop", "anthropic", ["traceloop_anthropic"],
        {"ANTHROPIC_OPEN_TELEMETRY": "false", "TRACELOOP_TRACE_CONTENT": "false"}),
    "anthropic-openinference-3.1.0-hidden": (
        "anthropic-openinference", "anthropic", ["openinference_anthropic"],
        {"ANTHROPIC_OPEN_TELEMETRY": "false", "OPENINFERENCE_HIDE_INPUTS": "true",
         "OPENINFERENCE_HIDE_OUTPUTS": "true"}),
    # LangChain's ChatOpenAI.bind_tools in a hand-written tool loop; the tools run through
    # BaseTool.invoke(tool_call), so the instrumentors see TOOL runs too.
    "langchain-openinference-0.1.80": ("langchain", "langchain", ["openinference_langchain"], {}),
    "langchain-traceloop-0.62.4": ("langchain", "langchain", ["traceloop_langchain"], {}),
    # The LangChain 1.x agent (langchain.agents.create_agent, a LangGraph graph whose
    # ToolNode runs the parallel calls).
    "langgraph-agent-openinference-0.1.80": (
        "langchain", "langgraph", ["openinference_langchain"], {}),
    "langgraph-agent-traceloop-0.62.4": ("langchain", "langgraph", ["traceloop_langchain"], {}),
    # ChatAnthropic in the same loop, against fake_anthropic.py (the SDK's own spans off):
    # LangChain's usage_metadata for Anthropic (cache added back into input_tokens)
    "langchain-anthropic-openinference-0.1.80": (
        "langchain", "anthropic_langchain", ["openinference_langchain"],
        {"ANTHROPIC_OPEN_TELEMETRY": "false"}),
    "langchain-anthropic-traceloop-0.62.4": (
        "langchain", "anthropic_langchain", ["traceloop_langchain"],
        {"ANTHROPIC_OPEN_TELEMETRY": "false"}),
    "langgraph-agent-traceloop-0.62.4-no_content": (
        "langchain", "langgraph", ["traceloop_langchain"], {"TRACELOOP_TRACE_CONTENT": "false"}),
}

#: What each scenario's package is known to record (checked by tests against expected.json):
#: ``args``: arguments captured; ``cached``/``reasoning``: those token details recorded;
#: ``model``: the model name recorded when it is not the response model;
#: ``output_tokens_extra``: output tokens the package over-reports (a known package bug);
#: ``call_id_prefix``: the package records another id of each call (the item id);
#: ``tool_names``: without content, executed-tool spans still name each call (no args);
#: ``order_unrecorded``: ... and nothing records the order of parallel ones (compared as a
#: multiset);
#: ``silent_finish``: without content, no finish reason tells that tools were called;
#: ``overwrites_parent``: the package writes every call onto the caller's span, so only the
#: last call survives there (checked by its own test, not the common one);
#: ``no_usage``: the package records no token count at all;
#: ``hosted``: "read" or "not_recorded", whether the package records hosted calls (the
#: ``hosted`` script; not recorded: the episode has the client calls only);
#: ``afc``: google-genai's automatic function calling: the client runs the calls (tool spans
#: only), and the one model span records the final answer and the last turn's usage.
EXPECT: dict = {
    "openai-v2-2.4b0-span_only": {"args": True, "cached": False, "reasoning": False},
    "openai-v2-2.4b0-span_and_event": {"args": True, "cached": False, "reasoning": False},
    "openai-v2-2.4b0-event_only": {"args": True, "cached": False, "reasoning": False},
    "openai-v2-2.4b0-no_content": {"args": False, "cached": False, "reasoning": False},
    "openai-v2-2.3b0-events": {"args": True, "cached": False, "reasoning": False},
    "openinference-openai-0.1.66": {"args": True, "cached": True, "reasoning": True},
    "traceloop-0.62.4": {"args": True, "cached": True, "reasoning": True},
    "traceloop-0.62.4-stream": {"args": True, "cached": True, "reasoning": False},
    # Traceloop records the Responses item id (fc_...) as the call id, not call_id
    "traceloop-0.62.4-responses": {"args": True, "cached": True, "reasoning": True,
                                   "call_id_prefix": "fc_"},
    "openinference-openai-0.1.66-responses": {"args": True, "cached": True, "reasoning": True},
    "traceloop-0.52.6": {"args": True, "cached": True, "reasoning": True},
    "traceloop-0.44.3": {"args": True, "cached": True, "reasoning": False},
    "traceloop-0.44.3-stream": {"args": True, "cached": True, "reasoning": False},
    "anthropic-traceloop-0.44.3": {"args": True, "cached": True, "reasoning": False},
    # Its create(stream=True) wrapper records no usage at all, and of parallel tool_use
    # blocks only the last (each is written as tool_calls.0): checked by its own test.
    "anthropic-traceloop-0.44.3-stream": {"args": True, "cached": False, "reasoning": False,
                                          "package_bugs": True, "no_usage": True},
    "agents-openinference-alone": {"args": True, "cached": True, "reasoning": True},
    "agents-openinference-with-client": {"args": True, "cached": True, "reasoning": True},
    "agents-otel-v2-alone": {"args": True, "cached": False, "reasoning": False},
    "agents-otel-v2-with-client": {"args": True, "cached": False, "reasoning": False},
    "agents-traceloop-alone": {"args": True, "cached": True, "reasoning": True},
    "agents-traceloop-with-client": {"args": True, "cached": True, "reasoning": True},
    "logfire-chat": {"args": True, "cached": True, "reasoning": True},
    "langfuse-openai-5.0.4": {"args": True, "cached": True, "reasoning": True},
    "logfire-agents": {"args": True, "cached": True, "reasoning": True},
    "logfire-6.0.0b8-chat": {"args": True, "cached": True, "reasoning": True},
    "logfire-6.0.0b8-agents": {"args": True, "cached": True, "reasoning": True},
    # Logfire's chat-completions agent span records the request model as the response model
    "logfire-agents-chat_completions": {"args": True, "cached": True, "reasoning": True,
                                        "model": "gpt-4o-mini"},
    "anthropic-sdk-2.14.0-native": {"args": False, "cached": True, "reasoning": False},
    "anthropic-sdk-2.14.0-native-content": {"args": True, "cached": True, "reasoning": False},
    "anthropic-traceloop-0.62.4": {"args": True, "cached": True, "reasoning": False},
    # Traceloop's stream wrapper ADDS message_delta's (cumulative) output_tokens to
    # message_start's (1 here, as on the real API): +1 output token per streamed call.
    "anthropic-traceloop-0.62.4-stream": {"args": True, "cached": True, "reasoning": False,
                                          "output_tokens_extra": 3},
    "anthropic-openinference-3.1.0": {"args": True, "cached": True, "reasoning": False},
    "anthropic-traceloop-0.62.4-no_content": {"args": False, "cached": True, "reasoning": False},
    "google-genai-1.3b0": {"args": True, "cached": True, "reasoning": True},
    "litellm-1.110.2": {"args": True, "cached": False, "reasoning": False,
                        "overwrites_parent": True},
    "google-genai-1.3b0-stream": {"args": True, "cached": True, "reasoning": True},
    # Gemini's finish reason is STOP for tool calls too: without content nothing tells of them
    "google-genai-1.3b0-no_content": {"args": False, "cached": True, "reasoning": True,
                                      "silent_finish": True},
    # automatic function calling: the client runs the tools in one generate_content call,
    # whose one span records only the final answer and the LAST turn's usage ("afc");
    # 0.4b0 records no response model and no cached tokens
    "google-genai-0.4b0-afc": {"args": True, "cached": False, "reasoning": False, "afc": True,
                               "model": "gemini-2.5-flash"},
    "google-genai-0.4b0-afc-no_content": {"args": False, "cached": False, "reasoning": False,
                                          "afc": True, "tool_names": True,
                                          "model": "gemini-2.5-flash"},
    "google-genai-1.3b0-afc": {"args": True, "cached": True, "reasoning": True, "afc": True},
    "google-genai-1.3b0-afc-no_content": {"args": False, "cached": True, "reasoning": True,
                                          "afc": True, "tool_names": True},
    "anthropic-openinference-3.1.0-hidden": {"args": False, "cached": True, "reasoning": False},
    "openlit-1.45.0": {"args": True, "cached": True, "reasoning": False},
    # OpenLit 1.27 writes "Function called with tools" as the completion of every call that
    # offered tools (the final text too): no answer, no call recorded; usage without details
    "openlit-1.27.0": {"args": False, "cached": False, "reasoning": False,
                       "silent_finish": True, "model": "gpt-4o-mini"},
    # hosted tools (``hosted``: whether the package records the hosted calls): OpenInference
    # keeps the raw response (its flattened messages turn them into ordinary calls or drop
    # them), the anthropic SDK writes each with its tool_call_response in the same answer;
    # OpenLLMetry drops them from the answer (its next request's input shows Anthropic's)
    "openinference-openai-0.1.66-hosted": {"args": True, "cached": True, "reasoning": True,
                                           "hosted": "read"},
    "traceloop-0.62.4-hosted": {"args": True, "cached": True, "reasoning": True,
                                "call_id_prefix": "fc_", "hosted": "not_recorded"},
    "agents-openinference-hosted": {"args": True, "cached": True, "reasoning": True,
                                    "hosted": "read"},
    "anthropic-openinference-3.1.0-hosted": {"args": True, "cached": True, "reasoning": False,
                                             "hosted": "read"},
    "anthropic-traceloop-0.62.4-hosted": {"args": True, "cached": True, "reasoning": False,
                                          "hosted": "not_recorded"},
    "anthropic-sdk-2.14.0-native-hosted": {"args": True, "cached": True, "reasoning": False,
                                           "hosted": "read"},
    "anthropic-openinference-3.1.0-stream": {"args": True, "cached": True, "reasoning": False},
    "langchain-openinference-0.1.80": {"args": True, "cached": True, "reasoning": True},
    "langchain-traceloop-0.62.4": {"args": True, "cached": True, "reasoning": False},
    "langgraph-agent-openinference-0.1.80": {"args": True, "cached": True, "reasoning": True},
    "langchain-anthropic-openinference-0.1.80": {"args": True, "cached": True,
                                                 "reasoning": False},
    "langchain-anthropic-traceloop-0.62.4": {"args": True, "cached": True, "reasoning": False},
    "langgraph-agent-traceloop-0.62.4": {"args": True, "cached": True, "reasoning": False},
    "langgraph-agent-traceloop-0.62.4-no_content": {"args": False, "cached": True,
                                                    "reasoning": False, "tool_names": True},
}

TASK_ID = "weather-paris"

# ---------------------------------------------------------------------------
# Framework scenario modules: scripts/corpus_frameworks/*.py
# ---------------------------------------------------------------------------
# Each module adds its own scenarios without touching the tables above. It defines
# ENVIRONMENTS, SCENARIOS and EXPECT (same shapes as above), optionally NO_DEPS, and
#   run_scenario(scenario, out, kit)  -- inside the venv: run the framework and write
#                                        traces.pb / logs.pb / *.jsonl into ``out``;
# and optionally
#   regenerate(scenario, kit) -> Path -- the whole outer step (a Node scenario, say);
#   expected(scenario, kit) -> dict    -- the ground truth to write instead of the fake
#                                        server's default expected_summary() (another
#                                        script, and the scenario's metadata at top level).
# ``kit`` is this module, so the plug-in can reuse _providers(), plain_tools(),
# write_outputs() (the end of every run), run_framework() (a whole run in the app's task
# span), the fake servers and TASK_ID.
FRAMEWORKS_DIR = Path(__file__).resolve().parent / "corpus_frameworks"
PLUGINS: dict = {}  # scenario -> plug-in module


def _load_plugins() -> None:
    if not FRAMEWORKS_DIR.is_dir():
        return
    for path in sorted(FRAMEWORKS_DIR.glob("*.py")):
        if path.name.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location(f"ek_corpus_fw_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        ENVIRONMENTS.update(module.ENVIRONMENTS)
        NO_DEPS.update(getattr(module, "NO_DEPS", {}))
        SCENARIOS.update(module.SCENARIOS)
        EXPECT.update(module.EXPECT)
        for scenario in module.SCENARIOS:
            PLUGINS[scenario] = module


_load_plugins()
# ---------------------------------------------------------------------------
# Outer driver (host Python): venvs, subprocesses, expected.json
# ---------------------------------------------------------------------------


_FAKES_PACKAGE = "ek_corpus_fakes"


def _load_fake(name: str):
    """``ek_otel/testing/<name>.py``, loaded by path: the venvs do not have ek-otel
    installed, and the fakes need only the standard library. The folder is mounted as a
    stand-in package (its ``__init__`` is not run), so that the fakes' relative imports
    (``from ._fake_server import ...``) work."""
    qualified = f"{_FAKES_PACKAGE}.{name}"
    if qualified in sys.modules:
        return sys.modules[qualified]
    if _FAKES_PACKAGE not in sys.modules:
        package = importlib.util.module_from_spec(
            importlib.machinery.ModuleSpec(_FAKES_PACKAGE, None, is_package=True))
        package.__path__ = [str(FAKE_SERVER_PATH.parent)]
        sys.modules[_FAKES_PACKAGE] = package
    return importlib.import_module(qualified)


def _load_fake_server():
    """ek_otel/testing/fake_openai.py (see :func:`_load_fake`)."""
    return _load_fake(FAKE_SERVER_PATH.stem)


def _load_fake_anthropic():
    """ek_otel/testing/fake_anthropic.py (see :func:`_load_fake`)."""
    return _load_fake(FAKE_ANTHROPIC_PATH.stem)


def _load_fake_gemini():
    """ek_otel/testing/fake_gemini.py (see :func:`_load_fake`)."""
    return _load_fake(FAKE_GEMINI_PATH.stem)


def _fake_for(app: str):
    if app.startswith("anthropic"):
        return _load_fake_anthropic()
    if app.startswith("gemini"):
        return _load_fake_gemini()
    return _load_fake_server()


def _script_of(app: str):
    """The script the fake server answers an app with: the ``hosted`` one (hosted tools)
    for a ``*_hosted`` app, else None (the server's default)."""
    if not app.endswith("_hosted"):
        return None
    if app.startswith("anthropic"):
        return _load_fake_anthropic().ANTHROPIC_HOSTED_SCRIPT
    return _load_fake_server().HOSTED_SCRIPT


def ensure_venv(name: str, root: Path) -> Path:
    """Create (once) the virtual environment ``name`` with its pinned requirements."""
    venv = root / name
    python = venv / "bin" / "python"
    marker = venv / ".ek-requirements"
    wanted = "\n".join(ENVIRONMENTS[name] + NO_DEPS.get(name, []))
    if python.exists() and marker.exists() and marker.read_text() == wanted:
        return python
    if not python.exists():
        if venv.exists():
            shutil.rmtree(venv)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *ENVIRONMENTS[name]], check=True)
    if NO_DEPS.get(name):
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", *NO_DEPS[name]],
                       check=True)
    marker.write_text(wanted)
    return python


def regenerate(scenario: str, root: Path) -> Path:
    """Run one scenario in its venv and write its corpus folder; returns the folder."""
    plugin = PLUGINS.get(scenario)
    if plugin is not None and hasattr(plugin, "regenerate"):
        return plugin.regenerate(scenario, sys.modules[__name__])
    env_name, app, _instr, extra_env = SCENARIOS[scenario]
    python = ensure_venv(env_name, root)
    out = CORPUS / scenario
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("traces.pb", "logs.pb", "traces.jsonl", "logs.jsonl"):
        (out / stale).unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(extra_env)
    env.update({"OPENAI_API_KEY": "sk-fake", "ANTHROPIC_API_KEY": "sk-ant-fake",
                "GOOGLE_API_KEY": "fake-key",
                "PYTHONHASHSEED": "0"})
    subprocess.run([str(python), str(Path(__file__).resolve()), "--run-scenario", scenario,
                    "--out", str(out)], check=True, env=env, timeout=600)
    freeze = subprocess.run([str(python), "-m", "pip", "freeze"], check=True,
                            capture_output=True, text=True).stdout
    (out / "versions.txt").write_text(freeze)
    summary = (plugin.expected(scenario, sys.modules[__name__])
               if plugin is not None and hasattr(plugin, "expected") else None)
    if summary is None and _script_of(app) is not None:  # the hosted-tools script
        summary = dict(_fake_for(app).expected_summary(_script_of(app)), script="hosted")
    write_expected(out, scenario, _fake_for(app), env_name, ENVIRONMENTS[env_name], extra_env,
                   summary=summary)
    return out


def write_expected(out: Path, scenario: str, fake, environment: str, requirements: list,
                   env: dict, summary: dict = None) -> None:
    """expected.json: what ``fake`` returned (or the plug-in's ``summary`` of it, another
    script's) and what the package records (EXPECT); a framework scenario's ``framework``
    and ``mode`` also at the top level."""
    records = EXPECT[scenario]
    expected = dict(summary) if summary is not None else fake.expected_summary()
    expected.update({"scenario": scenario, "task_id": TASK_ID, "environment": environment,
                     "requirements": requirements, "env": env, "records": records})
    expected.update({key: records[key] for key in ("framework", "mode") if key in records})
    (out / "expected.json").write_text(json.dumps(expected, indent=2, sort_keys=True) + "\n")


# ---------------------------------------------------------------------------
# Inner runner (inside a venv): instrument, run the app, encode with the real encoders
# ---------------------------------------------------------------------------


def _providers():
    from opentelemetry import trace
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    resource = Resource.create({"service.name": "weather-agent", "service.version": "1.2.3"})
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    trace.set_tracer_provider(tracer_provider)
    try:
        from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter as InMemoryLogs
    except ImportError:  # older SDKs
        from opentelemetry.sdk._logs.export import InMemoryLogExporter as InMemoryLogs
    logs = InMemoryLogs()
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    try:
        from opentelemetry import _logs

        _logs.set_logger_provider(logger_provider)
    except Exception:  # noqa: BLE001 - older APIs
        pass
    try:
        from opentelemetry import _events
        from opentelemetry.sdk._events import EventLoggerProvider

        _events.set_event_logger_provider(EventLoggerProvider(logger_provider))
    except Exception:  # noqa: BLE001 - the events API is gone in newer SDKs
        pass
    return tracer_provider, logger_provider, spans, logs


def _logfire_providers():
    """Logfire configures its own providers; capture them with in-memory exporters too."""
    import logfire
    from opentelemetry import trace
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter

    spans = InMemorySpanExporter()
    logs = InMemoryLogRecordExporter()
    logfire.configure(send_to_logfire=False, console=False, service_name="weather-agent",
                      service_version="1.2.3",
                      additional_span_processors=[SimpleSpanProcessor(spans)],
                      advanced=logfire.AdvancedOptions(
                          log_record_processors=[SimpleLogRecordProcessor(logs)]))
    from opentelemetry import _logs

    return trace.get_tracer_provider(), _logs.get_logger_provider(), spans, logs


def _langfuse_providers():
    """Langfuse adds its own span processor to the global provider; capture its exports."""
    from langfuse import Langfuse
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    resource = Resource.create({"service.name": "weather-agent", "service.version": "1.2.3"})
    tracer_provider = TracerProvider(resource=resource)
    trace.set_tracer_provider(tracer_provider)
    spans = InMemorySpanExporter()
    Langfuse(public_key="pk-lf-corpus", secret_key="sk-lf-corpus",
             base_url="http://127.0.0.1:9", span_exporter=spans)
    return tracer_provider, None, spans, None


def _instrument(names, tracer_provider, logger_provider) -> None:
    for name in names:
        if name == "openai_v2":
            from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

            OpenAIInstrumentor().instrument(tracer_provider=tracer_provider,
                                            logger_provider=logger_provider)
        elif name == "openinference_openai":
            from openinference.instrumentation.openai import OpenAIInstrumentor

            OpenAIInstrumentor().instrument(tracer_provider=tracer_provider)
        elif name == "traceloop_openai":
            from opentelemetry.instrumentation.openai import OpenAIInstrumentor

            OpenAIInstrumentor().instrument(tracer_provider=tracer_provider)
        elif name == "openinference_agents":
            from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

            OpenAIAgentsInstrumentor().instrument(tracer_provider=tracer_provider)
        elif name in ("otel_agents_v2", "traceloop_agents"):  # same module name
            from opentelemetry.instrumentation.openai_agents import OpenAIAgentsInstrumentor

            OpenAIAgentsInstrumentor().instrument(tracer_provider=tracer_provider)
        elif name == "traceloop_anthropic":
            from opentelemetry.instrumentation.anthropic import AnthropicInstrumentor

            AnthropicInstrumentor().instrument(tracer_provider=tracer_provider)
        elif name == "openinference_anthropic":
            from openinference.instrumentation.anthropic import AnthropicInstrumentor

            AnthropicInstrumentor().instrument(tracer_provider=tracer_provider)
        elif name == "otel_google_genai":
            from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor

            GoogleGenAiSdkInstrumentor().instrument(tracer_provider=tracer_provider,
                                                    logger_provider=logger_provider)
        elif name == "litellm_otel":
            import litellm
            from litellm.integrations.opentelemetry import OpenTelemetry

            litellm.callbacks = [OpenTelemetry(tracer_provider=tracer_provider,
                                               logger_provider=logger_provider)]
        elif name == "openinference_langchain":
            from openinference.instrumentation.langchain import LangChainInstrumentor

            LangChainInstrumentor().instrument(tracer_provider=tracer_provider)
        elif name == "traceloop_langchain":
            from opentelemetry.instrumentation.langchain import LangchainInstrumentor

            LangchainInstrumentor().instrument(tracer_provider=tracer_provider)
        elif name == "openlit":
            import inspect
            import tempfile

            import openlit
            from opentelemetry import trace

            pricing = Path(tempfile.mkdtemp()) / "pricing.json"  # no download of its prices
            pricing.write_text("{}")
            options = dict(tracer=trace.get_tracer("openlit", tracer_provider=tracer_provider),
                           application_name="weather-agent", environment="corpus",
                           disable_metrics=True, disable_batch=True, pricing_json=str(pricing))
            accepted = inspect.signature(openlit.init).parameters
            for content in ("capture_message_content", "trace_content"):  # renamed in 1.3x
                if content in accepted:
                    options[content] = True
            openlit.init(**{k: v for k, v in options.items() if k in accepted})
        elif name == "langfuse_openai":
            pass  # a drop-in client: see _openai_client
        elif name == "logfire_openai":
            import logfire

            logfire.instrument_openai()
        elif name == "logfire_agents":
            import logfire

            logfire.instrument_openai_agents()
        else:
            raise SystemExit(f"unknown instrumentor {name}")


def _openai_client(base_url: str, langfuse: bool):
    if langfuse:
        from langfuse.openai import OpenAI
    else:
        from openai import OpenAI
    return OpenAI(base_url=base_url, api_key="sk-fake", max_retries=0)


def _run_chat(base_url: str, stream: bool, langfuse: bool = False,
              content_key: bool = False) -> None:
    _load_fake_server().run_chat_loop(_openai_client(base_url, langfuse), stream=stream,
                                      content_key=content_key)


def _run_agents(base_url: str, api: str = "responses", hosted: bool = False) -> None:
    import agents
    from agents import Agent, ModelSettings, Runner, function_tool
    from openai import AsyncOpenAI

    fake = _load_fake_server()
    client = AsyncOpenAI(base_url=base_url, api_key="sk-fake", max_retries=0)
    agents.set_default_openai_client(client, use_for_tracing=False)
    agents.set_default_openai_api(api)

    @function_tool
    def get_weather(city: str, unit: str = "celsius") -> str:
        """Current weather in a city."""
        return fake.tool_result("get_weather", {"city": city, "unit": unit})

    @function_tool
    def get_time(timezone: str) -> str:
        """Local time in a time zone."""
        return fake.tool_result("get_time", {"timezone": timezone})

    @function_tool
    def convert_temperature(value: float, to: str) -> str:
        """Convert a temperature."""
        return fake.tool_result("convert_temperature", {"value": value, "to": to})

    tools = [get_weather, get_time, convert_temperature]
    if hosted:  # the provider runs these: the fake answers with the ``hosted`` script
        from agents import CodeInterpreterTool, FileSearchTool, WebSearchTool

        tools += [WebSearchTool(), FileSearchTool(vector_store_ids=["vs_ek_fake"]),
                  CodeInterpreterTool(tool_config={"type": "code_interpreter",
                                                   "container": {"type": "auto"}})]
    agent = Agent(name="WeatherAgent", instructions="You are a weather assistant.",
                  model="gpt-4o-mini", tools=tools,
                  model_settings=ModelSettings(temperature=0.2))
    Runner.run_sync(agent, "Weather and time in Paris, in Fahrenheit?")


def plain_tools() -> list:
    """The three pretend tools as plain typed Python functions with docstrings (what most
    agent frameworks take as tools as they are, or wrap with their own decorator)."""
    fake = _load_fake_server()

    def get_weather(city: str, unit: str = "celsius") -> str:
        """Current weather in a city."""
        return fake.tool_result("get_weather", {"city": city, "unit": unit})

    def get_time(timezone: str) -> str:
        """Local time in a time zone."""
        return fake.tool_result("get_time", {"timezone": timezone})

    def convert_temperature(value: float, to: str) -> str:
        """Convert a temperature."""
        return fake.tool_result("convert_temperature", {"value": value, "to": to})

    return [get_weather, get_time, convert_temperature]


def _run_anthropic(base_url: str, stream, hosted: bool = False) -> None:
    import anthropic

    client = anthropic.Anthropic(base_url=base_url, api_key="sk-ant-fake", max_retries=0)
    _load_fake_anthropic().run_messages_loop(client, stream=stream, server_tools=hosted)


def _run_gemini(base_url: str, stream: bool = False) -> None:
    """google-genai generate_content in a tool loop (automatic function calling off)."""
    from google import genai
    from google.genai import types

    fake = _load_fake_server()  # the same pretend tools
    client = genai.Client(api_key="fake-key", http_options=types.HttpOptions(base_url=base_url))
    declarations = [types.FunctionDeclaration(
        name=t["function"]["name"], description=t["function"]["description"],
        parameters_json_schema=t["function"]["parameters"]) for t in fake.CHAT_TOOLS]
    config = types.GenerateContentConfig(
        system_instruction="You are a weather assistant.", temperature=0.2, seed=7,
        tools=[types.Tool(function_declarations=declarations)],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))
    contents = [types.Content(role="user", parts=[
        types.Part(text="Weather and time in Paris, in Fahrenheit?")])]
    for _ in range(5):
        model = _load_fake_gemini().REQUEST_MODEL
        if stream:
            chunks = list(client.models.generate_content_stream(
                model=model, contents=contents, config=config))
            parts = [p for c in chunks for p in (c.candidates[0].content.parts or [])]
            contents.append(types.Content(role="model", parts=parts))
            calls = [p.function_call for p in parts if p.function_call is not None]
        else:
            reply = client.models.generate_content(model=model, contents=contents,
                                                   config=config)
            contents.append(reply.candidates[0].content)
            calls = reply.function_calls or []
        if not calls:
            break
        contents.append(types.Content(role="user", parts=[
            types.Part.from_function_response(
                name=c.name, response={"result": fake.tool_result(c.name, dict(c.args))})
            for c in calls]))


def _run_gemini_afc(base_url: str) -> None:
    """google-genai's automatic function calling: the client runs the plain Python tools
    itself, in one generate_content call (the instrumentor wraps each in a tool span)."""
    from google import genai
    from google.genai import types

    import typing

    client = genai.Client(api_key="fake-key", http_options=types.HttpOptions(base_url=base_url))
    tools = plain_tools()
    for tool in tools:  # this module's annotations are strings (PEP 563): google-genai's
        tool.__annotations__ = typing.get_type_hints(tool)  # argument conversion needs types
    config = types.GenerateContentConfig(
        system_instruction="You are a weather assistant.", temperature=0.2, seed=7,
        tools=tools)
    reply = client.models.generate_content(
        model=_load_fake_gemini().REQUEST_MODEL,
        contents="Weather and time in Paris, in Fahrenheit?", config=config)
    assert reply.text == _load_fake_gemini().GEMINI_SCRIPT[-1].text, reply.text


def _run_litellm(base_url: str) -> None:
    """litellm.completion through the OpenAI provider, in the fake's tool loop."""
    import litellm

    class _Client:  # what run_chat_loop expects: client.chat.completions.create(**kw)
        def __init__(self):
            self.chat = self.completions = self

        @staticmethod
        def create(**kwargs):
            kwargs["model"] = "openai/" + kwargs["model"]
            return litellm.completion(api_base=base_url, api_key="sk-fake", **kwargs)

    _load_fake_server().run_chat_loop(_Client())
    time.sleep(1.0)  # litellm logs success callbacks in a background thread


def _langchain_tools():
    from langchain_core.tools import tool

    fake = _load_fake_server()

    @tool
    def get_weather(city: str, unit: str = "celsius") -> str:
        """Current weather in a city."""
        return fake.tool_result("get_weather", {"city": city, "unit": unit})

    @tool
    def get_time(timezone: str) -> str:
        """Local time in a time zone."""
        return fake.tool_result("get_time", {"timezone": timezone})

    @tool
    def convert_temperature(value: float, to: str) -> str:
        """Convert a temperature."""
        return fake.tool_result("convert_temperature", {"value": value, "to": to})

    return [get_weather, get_time, convert_temperature]


#: The hosted tools a client offers for the ``hosted`` script (the provider runs them).
HOSTED_TOOLS = [{"type": "web_search"},
                {"type": "file_search", "vector_store_ids": ["vs_ek_fake"]},
                {"type": "code_interpreter", "container": {"type": "auto"}}]


def _run_responses(base_url: str, hosted: bool = False) -> None:
    """The Responses API in a plain tool loop: function_call items in, outputs back (with
    ``hosted``, the hosted tools offered too: the fake answers with the ``hosted`` script)."""
    fake = _load_fake_server()
    client = _openai_client(base_url, False)
    tools = [dict(t["function"], type="function") for t in fake.CHAT_TOOLS]
    if hosted:
        tools += HOSTED_TOOLS
    items: list = [{"role": "user", "content": "Weather and time in Paris, in Fahrenheit?"}]
    for _ in range(5):
        reply = client.responses.create(model="gpt-4o-mini", instructions=(
            "You are a weather assistant."), input=items, tools=tools, temperature=0.2)
        calls = [i for i in reply.output if i.type == "function_call"]
        if not calls:
            break
        for call in calls:
            items.append({"type": "function_call", "call_id": call.call_id, "name": call.name,
                          "arguments": call.arguments})
            items.append({"type": "function_call_output", "call_id": call.call_id,
                          "output": fake.tool_result(call.name, json.loads(call.arguments))})


def _run_langchain(base_url: str, anthropic: bool = False) -> None:
    """ChatOpenAI (or ChatAnthropic) with bound tools, in a plain loop; each call is run by
    the LangChain tool."""
    from langchain_core.messages import HumanMessage, SystemMessage

    tools = {t.name: t for t in _langchain_tools()}
    if anthropic:
        from langchain_anthropic import ChatAnthropic

        llm = ChatAnthropic(model=_load_fake_anthropic().REQUEST_MODEL, base_url=base_url,
                            api_key="sk-ant-fake", max_retries=0, max_tokens=512)
    else:
        from langchain_openai import ChatOpenAI

        llm = ChatOpenAI(model="gpt-4o-mini", base_url=base_url, api_key="sk-fake",
                         max_retries=0, temperature=0.2)
    llm = llm.bind_tools(list(tools.values()))
    messages = [SystemMessage("You are a weather assistant."),
                HumanMessage("Weather and time in Paris, in Fahrenheit?")]
    for _ in range(5):
        reply = llm.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            messages.append(tools[call["name"]].invoke(call))


def _run_langgraph(base_url: str) -> None:
    """The LangChain 1.x agent: create_agent runs the model/tools loop as a LangGraph graph."""
    from langchain.agents import create_agent
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(model="gpt-4o-mini", base_url=base_url, api_key="sk-fake",
                       max_retries=0, temperature=0.2)
    agent = create_agent(model, tools=_langchain_tools(), name="WeatherAgent",
                         system_prompt="You are a weather assistant.")
    agent.invoke({"messages": [{"role": "user",
                                "content": "Weather and time in Paris, in Fahrenheit?"}]})


JSON_BATCH = 5


def _json_from_protobuf(message) -> str:
    """OTLP/JSON of a protobuf export request (the protobuf JSON mapping, with trace and span
    ids as hex, as OTLP/JSON wants them), for SDKs older than the JSON file exporter."""
    import base64

    from google.protobuf import json_format

    data = json_format.MessageToDict(message)

    def hex_ids(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("traceId", "spanId", "parentSpanId") and isinstance(item, str):
                    value[key] = base64.b64decode(item).hex()
                else:
                    hex_ids(item)
        elif isinstance(value, list):
            for item in value:
                hex_ids(item)
        return value

    return json.dumps(hex_ids(data))


def _write_json_lines(out: Path, spans, logs) -> None:
    """The same records through the SDK's OTLP JSON file exporters, a few per line (an SDK
    too old for them: the protobuf request in the OTLP/JSON mapping, a few spans per line)."""
    try:
        from opentelemetry.exporter.otlp.json.file import FileSpanExporter
    except ImportError:
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

        with open(out / "traces.jsonl", "w") as lines:
            for start in range(0, len(spans), JSON_BATCH):
                lines.write(_json_from_protobuf(encode_spans(spans[start:start + JSON_BATCH]))
                            + "\n")
        if logs:
            from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

            with open(out / "logs.jsonl", "w") as lines:
                for start in range(0, len(logs), JSON_BATCH):
                    lines.write(_json_from_protobuf(encode_logs(logs[start:start + JSON_BATCH]))
                                + "\n")
        return

    span_exporter = FileSpanExporter(str(out / "traces.jsonl"))
    for start in range(0, len(spans), JSON_BATCH):
        span_exporter.export(spans[start:start + JSON_BATCH])
    span_exporter.shutdown()
    if logs:  # imported only then: it needs a newer SDK than the span exporter
        from opentelemetry.exporter.otlp.json.file._log_exporter import FileLogExporter

        log_exporter = FileLogExporter(str(out / "logs.jsonl"))
        for start in range(0, len(logs), JSON_BATCH):
            log_exporter.export(logs[start:start + JSON_BATCH])
        log_exporter.shutdown()


def run_scenario(scenario: str, out: Path) -> None:
    """Inside the scenario's venv: run it and write traces.pb (and logs.pb)."""
    if scenario in PLUGINS:
        PLUGINS[scenario].run_scenario(scenario, out, sys.modules[__name__])
        return
    _env, app, instrumentors, _extra = SCENARIOS[scenario]
    langfuse = "langfuse_openai" in instrumentors
    if any(name.startswith("logfire") for name in instrumentors):
        tracer_provider, logger_provider, span_exporter, log_exporter = _logfire_providers()
    elif langfuse:
        tracer_provider, logger_provider, span_exporter, log_exporter = _langfuse_providers()
    else:
        tracer_provider, logger_provider, span_exporter, log_exporter = _providers()
    if app.startswith("agents"):
        import agents

        # No export to the OpenAI platform; the instrumentors then add their own processors.
        agents.set_trace_processors([])
    _instrument(instrumentors, tracer_provider, logger_provider)
    fake = _load_fake_server()
    from opentelemetry import trace

    tracer = trace.get_tracer("ek-otel.corpus.app", tracer_provider=tracer_provider)
    server_class = (_load_fake_anthropic().FakeAnthropic if app.startswith("anthropic")
                    else _load_fake_gemini().FakeGemini if app.startswith("gemini")
                    else fake.FakeOpenAI)
    with server_class(script=_script_of(app)) as server:
        with tracer.start_as_current_span("weather task", attributes={"ek.task.id": TASK_ID}):
            if app == "anthropic_langchain":
                _run_langchain(server.base_url, anthropic=True)
            elif app.startswith("anthropic"):
                _run_anthropic(server.base_url, stream={"anthropic_stream": True,
                                                        "anthropic_stream_create": "create"}.get(
                                                            app, False),
                               hosted=app.endswith("_hosted"))
            elif app == "gemini_afc":
                _run_gemini_afc(server.base_url)
            elif app.startswith("gemini"):
                _run_gemini(server.base_url, stream=(app == "gemini_stream"))
            elif app in ("responses", "responses_hosted"):
                _run_responses(server.base_url, hosted=(app == "responses_hosted"))
            elif app == "litellm":
                _run_litellm(server.base_url)
            elif app == "langchain":
                _run_langchain(server.base_url)
            elif app == "langgraph":
                _run_langgraph(server.base_url)
            elif app in ("agents", "agents_hosted"):
                _run_agents(server.base_url, hosted=(app == "agents_hosted"))
            elif app == "agents_chat":
                _run_agents(server.base_url, api="chat_completions")
            elif langfuse:
                from langfuse import propagate_attributes

                with propagate_attributes(metadata={"task_id": TASK_ID}, session_id="sess-1"):
                    _run_chat(server.base_url, stream=(app == "chat_stream"), langfuse=True)
            else:
                _run_chat(server.base_url, stream=(app == "chat_stream"),
                          content_key=(app == "chat_content"))
    if langfuse:
        from langfuse import get_client

        time.sleep(0.2)
        get_client().flush()
    write_outputs(out, scenario, tracer_provider, logger_provider, span_exporter, log_exporter)


def write_outputs(out: Path, scenario: str, tracer_provider, logger_provider, span_exporter,
                  log_exporter) -> None:
    """Flush the providers, then write what the in-memory exporters hold as traces.pb and
    logs.pb (the SDK's protobuf encoders) and traces.jsonl / logs.jsonl."""
    time.sleep(0.2)
    for provider in (tracer_provider, logger_provider):
        if hasattr(provider, "force_flush"):
            provider.force_flush()

    spans = span_exporter.get_finished_spans()
    logs = log_exporter.get_finished_logs() if log_exporter is not None else ()
    write_records(out, spans, logs)
    print(f"{scenario}: {len(spans)} spans, {len(logs)} log records -> {out}")


def run_framework(scenario: str, out: Path, run, instrument=None, server=None) -> None:
    """Inside the venv, for a framework plug-in: the usual providers, ``instrument(tracer
    provider, logger provider)``, then ``run(base_url)`` inside the app's task span against
    ``server`` (default: a fresh fake OpenAI server), and the records written to ``out``."""
    from opentelemetry import trace

    tracer_provider, logger_provider, span_exporter, log_exporter = _providers()
    if instrument is not None:
        instrument(tracer_provider, logger_provider)
    tracer = trace.get_tracer("ek-otel.corpus.app", tracer_provider=tracer_provider)
    with (server if server is not None else _load_fake_server().FakeOpenAI()) as fake:
        with tracer.start_as_current_span("weather task", attributes={"ek.task.id": TASK_ID}):
            run(fake.base_url)
    write_outputs(out, scenario, tracer_provider, logger_provider, span_exporter, log_exporter)


def write_records(out: Path, spans, logs=()) -> None:
    """traces.pb (and logs.pb) with the SDK's OTLP protobuf encoders, and the JSON Lines."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    (out / "traces.pb").write_bytes(encode_spans(spans).SerializeToString())
    if logs:
        from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

        (out / "logs.pb").write_bytes(encode_logs(logs).SerializeToString())
    _write_json_lines(out, spans, logs)


def main(argv=None) -> int:
    """Parse arguments and regenerate the chosen scenarios (all by default)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="*", help="scenario names (default: all)")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    parser.add_argument("--venv-root", default="/tmp/ek-otel-corpus-venvs")
    parser.add_argument("--run-scenario", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_scenario:
        run_scenario(args.run_scenario, Path(args.out))
        return 0
    if args.list:
        for name, (env, app, instr, extra) in SCENARIOS.items():
            print(f"{name}: env={env} app={app} instrumentors={','.join(instr)} {extra or ''}")
        return 0
    failures = []
    for scenario in args.scenarios or list(SCENARIOS):
        try:
            print(regenerate(scenario, Path(args.venv_root)))
        except subprocess.SubprocessError as exc:
            failures.append(scenario)
            print(f"FAILED {scenario}: {exc}", file=sys.stderr)
    if failures:
        print("failed: " + " ".join(failures), file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
