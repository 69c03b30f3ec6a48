"""Reports people look at: the HTML page of a JSON report, and the comparison of two runs.

- :mod:`ek_otel.report.model`: a JSON report (``score --json``) read into frozen views;
- :mod:`ek_otel.report.stats`: intervals of a run's rates, clustered by task;
- :mod:`ek_otel.report.gate`: the paired test of a comparison, and the power analysis;
- :mod:`ek_otel.report.junit`, :mod:`ek_otel.report.markdown`: ``--junit`` and ``--markdown``;
- :mod:`ek_otel.report.compare`: candidate against base, task by task;
- :mod:`ek_otel.report.html`: one self-contained page (Jinja2 templates in ``templates/``);
- :mod:`ek_otel.report.bfcl`: the BFCL page's view (leaderboard layout, error types).
"""
