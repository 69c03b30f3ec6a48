"""What fw-b's framework plug-ins share (imported by them, which put this folder on
sys.path; its leading underscore keeps regen_corpus.py from taking it for a plug-in):

- the pinned OTel SDK requirements of every environment;
- ``expected(scenario, kit, expect)``: the ground truth of ``expected.json`` (the fake
  server's script, by name) with the scenario's ``framework``, ``mode`` and
  ``internal_tools`` at top level;
- ``weather_functions(fake)``: the corpus's pretend tools as plain, typed, documented
  Python functions, for a framework's own tool decorator or wrapper;
- ``finish(EXPECT, framework, version)``: the support-matrix fields of README.md on every
  entry (``framework``, ``framework_version``; ``checked_by``: these scenarios are checked
  by tests/ingest/test_frameworks_b.py, not by the bare-client test).
"""

from _support import ALL_READ  # noqa: F401 (re-exported)

#: The OTel SDK and the two encoders every environment needs.
SDK = ["opentelemetry-sdk==1.45.2", "opentelemetry-exporter-otlp-proto-common==1.45.2",
       "opentelemetry-exporter-otlp-json-file==0.66b1"]
#: For environments whose packages need a newer otlp-common than the json-file exporter
#: pins (it works with it): SDK_NO_JSON in ENVIRONMENTS, JSON_FILE_NO_DEPS in NO_DEPS.
SDK_NO_JSON = SDK[:2]
JSON_FILE_NO_DEPS = ["opentelemetry-exporter-otlp-json-file==0.66b1",
                     "opentelemetry-exporter-otlp-json-common==0.66b1",
                     "opentelemetry-proto-json==0.66b1"]

#: Instrumentors that regen_corpus's own ``_instrument(names, ...)`` sets up (plug-ins pass
#: these names through to it: ``kit._instrument(kit_instrumentors(names), tp, lp)``).
KIT_INSTRUMENTORS = ("openinference_openai", "traceloop_openai")


def kit_instrumentors(names) -> list:
    """The names among ``names`` that regen_corpus instruments itself."""
    return [name for name in names if name in KIT_INSTRUMENTORS]


#: ``records.support`` values: read by ek-otel, not recorded by the package, recorded but
#: not read (a Python repr, free log text: never guessed from).
READ, NOT_RECORDED, NOT_READ = "read", "not_recorded", "not_read"
#: Where fw-b's framework scenarios are checked (records ``checked_by``).
CHECKED_BY = "tests/ingest/test_frameworks_b.py"


def finish(expect: dict, framework: str, version: str) -> dict:
    """``expect`` (a plug-in's EXPECT) with the framework as users name it, its pinned
    version and ``checked_by`` on every entry."""
    return {scenario: dict(entry, framework=framework, framework_version=version,
                           checked_by=CHECKED_BY)
            for scenario, entry in expect.items()}


def expected(scenario: str, kit, expect: dict, script: str = "default") -> dict:
    """The scenario's ``expected.json`` ground truth: ``script``'s calls and usage, and
    the scenario's framework and mode (from ``expect``, the plug-in's EXPECT)."""
    fake = kit._load_fake_server()
    summary = fake.expected_summary(fake.named_script(script))
    summary.update(framework=expect[scenario]["framework"], mode=expect[scenario]["mode"])
    if expect[scenario].get("internal_tools"):  # what --ignore-tool / ignore_tools are for
        summary["internal_tools"] = list(expect[scenario]["internal_tools"])
    if script != "default":
        summary["script"] = script
    return summary


def weather_functions(fake, wrap=None) -> list:
    """``get_weather``, ``get_time`` and ``convert_temperature``, answering as the fake's
    ``tool_result``; docstrings with an Args section (smolagents requires one). ``wrap``
    (a framework's tool decorator, e.g. ``crewai.tools.tool``) is applied to each."""

    def get_weather(city: str, unit: str = "celsius") -> str:
        """Current weather in a city.

        Args:
            city: The city.
            unit: celsius or fahrenheit.
        """
        return fake.tool_result("get_weather", {"city": city, "unit": unit})

    def get_time(timezone: str) -> str:
        """Local time in a time zone.

        Args:
            timezone: An IANA time zone.
        """
        return fake.tool_result("get_time", {"timezone": timezone})

    def convert_temperature(value: float, to: str) -> str:
        """Convert a temperature.

        Args:
            value: The temperature.
            to: The unit to convert to.
        """
        return fake.tool_result("convert_temperature", {"value": value, "to": to})

    functions = [get_weather, get_time, convert_temperature]
    return functions if wrap is None else [wrap(fn) for fn in functions]
