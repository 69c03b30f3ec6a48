"""Helpers the fw-a framework plug-ins (pydantic_ai.py, strands.py, adk.py) share: write the
captured spans and logs with the SDK's real encoders, as regen_corpus.run_scenario does.

Not a plug-in (the leading underscore keeps regen_corpus from loading it as one); the
plug-ins import it with :func:`load`.
"""

from __future__ import annotations

import time
from pathlib import Path


def write_outputs(out: Path, kit, tracer_provider, logger_provider, span_exporter,
                  log_exporter, scenario: str) -> None:
    """Flush the providers and write traces.pb / logs.pb / traces.jsonl / logs.jsonl."""
    time.sleep(0.2)
    for provider in (tracer_provider, logger_provider):
        if hasattr(provider, "force_flush"):
            provider.force_flush()
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    spans = span_exporter.get_finished_spans()
    (out / "traces.pb").write_bytes(encode_spans(spans).SerializeToString())
    logs = log_exporter.get_finished_logs() if log_exporter is not None else ()
    if logs:
        from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

        (out / "logs.pb").write_bytes(encode_logs(logs).SerializeToString())
    kit._write_json_lines(out, spans, logs)
    print(f"{scenario}: {len(spans)} spans, {len(logs)} log records -> {out}")
