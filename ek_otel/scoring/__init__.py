"""What ``ek-otel score`` and ``ek-otel serve`` share: linking episodes to tasks, scoring
them, aggregating the corpus and the one JSON report.

- :mod:`~ek_otel.scoring.settings`: :class:`ScoreSettings`, the one shape the scoring
  options travel in (``to_json``/``from_json``);
- :mod:`~ek_otel.scoring.link`: :class:`Unmatched`, gold loading, linking, the BFCL matcher,
  :func:`score_and_envelope` (one episode);
- :mod:`~ek_otel.scoring.run`: :func:`score_episodes` (the corpus loop), :func:`aggregate`,
  :class:`ScoreRun`;
- :mod:`~ek_otel.scoring.report`: the JSON report shape.

Nothing here reads dumps or receives requests (that is :mod:`ek_otel.pipeline` and
:mod:`ek_otel.serve`), and nothing here loads the OpenTelemetry SDK.

Example:
    >>> from ek_otel.core.episode import Episode, Provenance, TaskSpec
    >>> ep = Episode("t", provenance=Provenance(trace_id="ab" * 16, root_span_id="cd" * 8))
    >>> score_episodes([ep], {"t": TaskSpec("t")}, ScoreSettings()).report.n_episodes
    1
"""

from .link import (
    LATE_EVICTED,
    NO_ROOT_SPAN,
    NO_TASK_ID,
    UNKNOWN_TASK,
    Unmatched,
    check_tasks,
    episode_ids,
    link_task,
    load_gold,
    load_scoring,
    load_settings,
    score_and_envelope,
    score_linked,
)
from .run import DEFAULT_BATCH, ScoreRun, aggregate, evaluate_corpus, score_episodes
from .settings import (
    GROUP_BY_CHOICES,
    MATCHERS,
    SCORE_STRATEGIES,
    ScoreSettings,
    file_sha256,
    task_id_key_list,
)

__all__ = [
    "GROUP_BY_CHOICES",
    "MATCHERS",
    "SCORE_STRATEGIES",
    "DEFAULT_BATCH",
    "NO_TASK_ID",
    "UNKNOWN_TASK",
    "NO_ROOT_SPAN",
    "LATE_EVICTED",
    "ScoreSettings",
    "Unmatched",
    "ScoreRun",
    "file_sha256",
    "task_id_key_list",
    "episode_ids",
    "load_gold",
    "load_settings",
    "load_scoring",
    "check_tasks",
    "link_task",
    "score_linked",
    "score_and_envelope",
    "score_episodes",
    "evaluate_corpus",
    "aggregate",
]
