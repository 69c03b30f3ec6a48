"""Reports people look at: the HTML page of a JSON report, and the comparison of two runs.

- :mod:`ek_otel.report.model`: a JSON report (``score --json``) read into frozen views;
- :mod:`ek_otel.report.stats`: task-level bootstrap intervals, paired bootstrap, exact McNemar;
- :mod:`ek_otel.report.compare`: candidate against base, task by task;
- :mod:`ek_otel.report.html`: one self-contained page (Jinja2 templates in ``templates/``);
- :mod:`ek_otel.report.bfcl`: the BFCL page's view (leaderboard layout, error types).
"""
