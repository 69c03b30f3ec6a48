"""Test helpers shipped with ek-otel (a fake OpenAI-compatible server)."""
