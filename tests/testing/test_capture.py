"""The capture: processors added to SDK providers once, never replacing one; spans routed to
the current capture from any thread; nothing kept when no capture is current."""

from __future__ import annotations

import threading

from opentelemetry.sdk.trace import TracerProvider

from ek_otel.testing import capture
from ek_otel.testing.capture import Capture, current, install, installed, uninstall


def _routers(provider) -> int:
    processors = provider._active_span_processor._span_processors
    return sum(isinstance(p, capture._SpanRouter) for p in processors)


def test_processors_are_added_once_and_constructors_restored():
    before = TracerProvider.__init__
    made_before = TracerProvider()
    install()
    try:
        install()
        made_during = TracerProvider()
        assert installed()
        assert (_routers(made_before), _routers(made_during)) == (1, 1)
    finally:
        uninstall()
    assert TracerProvider.__init__ is before and not installed()
    install()          # again: the providers already attached are not attached twice
    uninstall()
    assert (_routers(made_before), _routers(made_during)) == (1, 1)
    assert _routers(TracerProvider()) == 0        # not installed: new providers untouched


def test_spans_go_to_the_current_capture_from_any_thread():
    install()
    try:
        provider = TracerProvider()
        tracer = provider.get_tracer("t")
        with tracer.start_as_current_span("before any capture"):
            pass
        with Capture(source="outer") as outer:
            worker = threading.Thread(target=lambda: tracer.start_span("from a thread").end())
            worker.start()
            worker.join()
            with Capture(source="inner") as inner:
                tracer.start_span("inner").end()
            assert current() is outer
            tracer.start_span("outer again").end()
        assert current() is None
        tracer.start_span("after").end()
        assert [s.name for s in outer.spans()] == ["from a thread", "outer again"]
        assert [s.name for s in inner.spans()] == ["inner"]
        assert [e.provenance.source for e in inner.episodes()] == ["inner"]
    finally:
        uninstall()


def test_an_empty_capture_writes_no_dump(tmp_path):
    with Capture() as empty:
        pass
    assert empty.bodies() == (b"", b"") and empty.write_dump(str(tmp_path)) == []


class _LazyProxy:
    """Like the lazy proxies some clients export: reading ``__class__`` has side effects."""

    touched = False

    @property
    def __class__(self):  # noqa: D401
        _LazyProxy.touched = True
        raise RuntimeError("a lazy proxy was loaded")


def test_the_scan_for_providers_touches_no_other_object():
    proxy = _LazyProxy()
    install()
    try:
        assert not _LazyProxy.touched
    finally:
        uninstall()
    del proxy
