"""The scheduler when the scoring pool breaks (a worker killed from outside, or a poison
trace): suspects are retried alone, one at a time, so a pool failure that hits several jobs
at once never counts against a trace that merely happened to be in flight."""

from __future__ import annotations

from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

from ek_otel.serve.trace_index import TraceIndex
from ek_otel.serve.groupcommit import GroupCommitWriter
from ek_otel.serve.scheduler import MAX_SCORING_FAILURES, Scheduler
from ek_otel.serve.worker import ScoringResult, ScoringSetup
from ek_otel.serve.store import IncomingChunk, Store


class BreakablePool:
    """An executor whose jobs wait until run_all() or break_all() (what a killed worker does
    to a ProcessPoolExecutor: every job in flight fails with BrokenProcessPool)."""

    def __init__(self):
        self.pending: list = []
        self.max_in_flight = 0

    def submit(self, fn, setup, items):
        fut: Future = Future()
        self.pending.append((fut, items))
        self.max_in_flight = max(self.max_in_flight, len(self.pending))
        return fut

    def break_all(self):
        pending, self.pending = self.pending, []
        for fut, _ in pending:
            fut.set_exception(BrokenProcessPool("a worker was killed"))

    def run_all(self):
        pending, self.pending = self.pending, []
        for fut, items in pending:
            fut.set_result([ScoringResult(t, r, u, task_id="t", matched=True, success=True,
                                          envelope=None, detail=None) for t, r, u in items])

    def shutdown(self, wait=True, cancel_futures=False):
        pass


def test_pool_breaks_do_not_count_against_bystanders(tmp_path):
    path = str(tmp_path / "s.db")
    writer = GroupCommitWriter(lambda: Store(path))
    writer.start()
    index = TraceIndex(grace_s=0.0, max_wait_s=60.0, max_open_traces=100,
                       max_pending_bytes=10**6)
    ids = [f"{i + 1:032x}" for i in range(6)]
    for tid in ids:
        (size, _, root), = writer.call(
            lambda s, tid=tid: s.ingest([IncomingChunk("traces", tid, b"p", ("01" * 8,), True)],
                                        now=0.0))
        index.observe(tid, size, has_root=root, now=0.0)
    pool = BreakablePool()
    sched = Scheduler(index, writer, Store(path, readonly=True), ScoringSetup(path, "g", ""),
                      lambda: pool, clock=lambda: 100.0)
    sched.executor = pool
    try:
        assert sched.tick() == 6                   # one batch
        pool.break_all()                           # a worker killed: all 6 are suspects
        for _ in range(MAX_SCORING_FAILURES - 1):   # killed again while a suspect runs
            pool.max_in_flight = 0
            sched.tick()
            sched.tick()
            assert pool.max_in_flight == 1         # suspects go alone, one at a time
            pool.break_all()
        for _ in range(50):                        # then the pool works again
            if not sched.tick() and not pool.pending and not sched.in_flight:
                break
            pool.run_all()
            writer.call(lambda s: None)
        rows = {r.trace_id: r for r in writer.call(lambda s: s.latest_scores())}
        assert set(rows) == set(ids)
        # a trace is recorded as crashed only after MAX_SCORING_FAILURES failures alone
        assert all(r.matched for r in rows.values()), [r.detail for r in rows.values()]
    finally:
        sched.reader.close()
        writer.stop()
