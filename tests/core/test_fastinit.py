"""fast_init: the same construction as the dataclass's own __init__, faster."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from ek_otel.core import arguments, episode, scores, toolcalls
from ek_otel.core.fastinit import fast_init
from ek_otel.ingest import messages, records
from ek_otel.ingest.semconv import usage


def _twins():
    """The same class twice: with the dataclass __init__, and with fast_init's."""

    def make():
        @dataclass(frozen=True)
        class Shape:
            a: Any
            b: int = 2
            c: list = field(default_factory=list)
            d: str = field(default="x", kw_only=True)
            e: dict = field(default_factory=dict, kw_only=True)

            def __post_init__(self):
                object.__setattr__(self, "b", self.b * 10)

        return Shape

    return make(), fast_init(make())


@pytest.mark.parametrize("args, kwargs", [
    ((1,), {}),
    ((1, 3), {}),
    ((1, 3, [4]), {"d": "y", "e": {"k": 1}}),
    ((), {"a": 1, "c": [], "e": {}}),
])
def test_same_values_as_the_dataclass_init(args, kwargs):
    plain, fast = _twins()
    p, f = plain(*args, **kwargs), fast(*args, **kwargs)
    assert dataclasses.asdict(p) == dataclasses.asdict(f)
    assert repr(p).split("(", 1)[1] == repr(f).split("(", 1)[1]


def test_same_errors_as_the_dataclass_init():
    plain, fast = _twins()
    for cls in (plain, fast):
        with pytest.raises(TypeError):
            cls()  # a required argument missing
        with pytest.raises(TypeError):
            cls(1, 2, [], "kw-only given by position")
        with pytest.raises(dataclasses.FrozenInstanceError):
            cls(1).a = 2


def test_factories_give_fresh_objects_and_the_signature_matches():
    plain, fast = _twins()
    assert fast(1).c is not fast(1).c and fast(1).e is not fast(1).e
    assert [p.name for p in inspect.signature(fast).parameters.values()] == [
        p.name for p in inspect.signature(plain).parameters.values()]
    assert str(inspect.signature(fast)) == str(inspect.signature(plain))


def test_classes_it_cannot_serve_are_left_alone():
    @dataclass(frozen=True, slots=True)
    class Slotted:
        a: int

    @dataclass
    class Mutable:
        a: int

    @dataclass(frozen=True)
    class WithInitVar:
        a: int
        b: dataclasses.InitVar[int] = 0

    @dataclass(frozen=True)
    class NamedLikeALocal:
        _d: int = 1

    for cls in (Slotted, Mutable, WithInitVar, NamedLikeALocal):
        before = cls.__init__
        assert fast_init(cls).__init__ is before


@pytest.mark.parametrize("cls", [
    episode.Step, episode.Trajectory, episode.Cost, episode.RunProvenance, episode.Provenance,
    episode.Episode, scores.Score, scores.ArgDiff, scores.CallRow, scores.EpisodeScore,
    arguments.ArgComparison, toolcalls.CallPair, toolcalls.CallAlignment, usage.Usage,
    messages.RequestedCall, messages.ModelOutput, records.Origin, records.SpanEvent,
    records.SpanLink, records.SpanRecord, records.LogRecord,
])
def test_the_hot_shapes_use_it_and_keep_their_signature(cls):
    assert cls.__init__.__code__.co_filename == "<string>"
    assert "_d = self.__dict__" not in str(inspect.signature(cls))
    # the same parameters, in the same order, with the same defaults as the dataclass's own
    twin = dataclass(frozen=True)(type(cls.__name__, (), {
        "__annotations__": {f.name: f.type for f in dataclasses.fields(cls)},
        **{f.name: (f if f.default_factory is not dataclasses.MISSING else f.default)
           for f in dataclasses.fields(cls)
           if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING},
    }))
    assert str(inspect.signature(cls)) == str(inspect.signature(twin))


def test_records_made_by_it_pickle_and_compare():
    step = episode.Step("search", {"q": "x"}, call_id="c1")
    again = pickle.loads(pickle.dumps(step))
    assert again == step and hash(again.tool) == hash(step.tool)
    assert dataclasses.replace(step, tool="other").tool == "other"
    assert episode.Trajectory([step]).steps == (step,)  # __post_init__ still runs
