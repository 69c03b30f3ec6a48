"""BFCL's simulated APIs (multi-turn state checks), driven without ``eval``.

The simulated classes (GorillaFileSystem, MathAPI, MessageAPI, TwitterAPI, TicketAPI,
TradingBot, TravelAPI, VehicleControlAPI) are taken from an installed ``bfcl_eval``
(``pip install --no-deps bfcl-eval==2026.3.23 mpmath==1.3.0``). This module mirrors
``multi_turn_utils.execute_multi_turn_func_call`` call for call, except that it never
``eval``s model output:

1. each class is instantiated and, unless stateless (MathAPI), loaded with a deep copy of
   its ``initial_config`` entry (``long_context`` as the official derives it);
2. every public method name is mapped to its instance's official global name
   (``<model>_eval_<entry id>_<class>_instance``, ``[-./:]`` → ``_``; the ground truth uses
   ``<model>_ground_truth_eval_...``), later classes winning a shared name;
3. a call string gets the same regex rewrite (``ls(`` → ``<instance name>.ls(`` anywhere
   in the text, string literals included), the same forbidden-name check (``kill``,
   ``exit``, ``quit``, ``remove``, ``unlink``, ``popen``, ``Popen``, ``run``), and is then
   parsed with :mod:`ast` and interpreted (:mod:`ek_otel.bfcl.interpreter`): literals, containers, unary minus, simple
   arithmetic, names, attribute access on the simulated instances and calls of their
   methods (plus a few pure builtins);
4. the result becomes a string exactly as the official does (``str`` kept, ``dict`` →
   ``json.dumps``, anything else ``str()``); an exception becomes
   ``"Error during execution: <message>"``. Calling the real methods gives the very same
   messages (``name 'foo' is not defined``, ``GorillaFileSystem.cd() got an unexpected
   keyword argument 'x'``...).

Names ``eval`` would find in the official executor's namespace are emulated where the
outcome is certain: calling a module or a string/list/dict/bool variable of it
(``json(...)``) raises the same ``TypeError``; a few pure builtins (``len``, ``print``
(silenced), ``round``...) are really called. What only ``eval`` could do is refused, with
``"Error during execution: ek-otel does not execute ..."`` as the result: other builtins
and namespace names, comprehensions, lambdas, subscripts, ``*``/``**`` unpacking, and
attribute access on anything but a simulated instance.

Checked against the official executor (fresh state per entry): all 10,377 call results of
bfcl-real's multi-turn entries, and 1,600 fuzzed entries (unknown and builtin names,
wrong keywords, odd values, text and broken steps) with identical error dicts.

**Isolation.** A :class:`SimulatedPair` is created per check, and each check behaves as
in a fresh official process:

- the model's and the ground truth's instances are built together and copied together
  (pickle), so nothing links them to module-level data other checks could mutate, while
  they keep sharing what they share officially (TravelAPI's long-context credit cards
  and bookings are module-level dicts the official instances reference, not copy);
- mutable default arguments (``TwitterAPI.post_tweet(tags=[], mentions=[])``, which
  ``mention`` extends) get one pristine copy per check, shared by both sides, instead of
  the process-wide default the official leaks through;
- nothing is cached between checks (the official caches instances in module globals
  keyed by model and entry id, so a second check of an entry reuses mutated state).

Example (``bfcl_eval`` installed):
    >>> pair = SimulatedPair.create(["MathAPI"], {}, entry_id="multi_turn_base_0")  # doctest: +SKIP
    >>> pair.model.execute(["mean(numbers=[1, 2, 3])", "nosuch(x=1)"])  # doctest: +SKIP
    ['{"result": 2.0}', "Error during execution: name 'nosuch' is not defined"]

Example (always):
    >>> ApiSession({}, {}).execute(["nosuch(x=1)", "quit()"])
    ["Error during execution: name 'nosuch' is not defined",
     'Error during execution: Function call quit is not allowed.']
    >>> instance_global_name("glyphh-ada-1.1", "multi_turn_base_0", "MathAPI")
    'glyphh_ada_1_1_eval_multi_turn_base_0_MathAPI_instance'
"""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import pickle
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional

from ..errors import BfclDataError
from .data import CLASS_STEMS
from .interpreter import Interpreter, Refused, contained_numeric_state

__all__ = [
    "BACKEND_MODULES",
    "STATELESS_CLASSES",
    "FORBIDDEN_FUNCTIONS",
    "DEFAULT_MODEL_NAME",
    "SimulatorUnavailable",
    "simulator_available",
    "simulator_problem",
    "load_api_class",
    "instance_global_name",
    "is_long_context",
    "result_to_string",
    "ApiSession",
    "SimulatedPair",
    "instance_differences",
]

#: Simulated class name → its module in ``bfcl_eval`` (the stem its function docs share).
BACKEND_MODULES = {name: f"bfcl_eval.eval_checker.multi_turn_eval.func_source_code.{stem}"
                   for name, stem in CLASS_STEMS.items()}

#: Classes built without ``_load_scenario`` (``STATELESS_CLASSES`` of ``bfcl_eval``).
STATELESS_CLASSES = ("MathAPI",)

#: Function names the official executor refuses before ``eval``.
FORBIDDEN_FUNCTIONS = ("kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run")

#: The model name used in instance global names when the caller gives none. It only shows
#: where a string argument contains ``<method>(``, which the official rewrite alters.
DEFAULT_MODEL_NAME = "ek-otel"

_METHOD_CALL = re.compile(r"\b([a-zA-Z_]\w*)\s*(?=\()")
_NAME_UNSAFE = re.compile(r"[-./:]")


class SimulatorUnavailable(BfclDataError):
    """The simulated APIs cannot be imported (``bfcl_eval`` or a light dependency missing).

    Example:
        >>> str(SimulatorUnavailable("no module named 'bfcl_eval'"))
        "no module named 'bfcl_eval'"
    """


def simulator_available() -> bool:
    """Whether the multi-turn simulated classes of ``bfcl_eval`` can be imported.

    Example:
        >>> simulator_available()   # bfcl_eval installed, as the test setup installs it
        True
    """
    return simulator_problem() is None


def simulator_problem() -> Optional[str]:
    """Why the simulated classes cannot be imported (the first failure, with the install
    line that fixes it), or None when they all can.

    Example:
        >>> simulator_problem() is None   # bfcl_eval installed, as the test setup installs it
        True
    """
    try:
        for class_name in ("GorillaFileSystem", "MathAPI", "MessageAPI", "TwitterAPI",
                           "TicketAPI", "TradingBot", "TravelAPI", "VehicleControlAPI"):
            load_api_class(class_name)
    except SimulatorUnavailable as exc:
        return str(exc)
    return None


_CLASS_CACHE: dict = {}


def load_api_class(class_name: str) -> type:
    """The simulated class ``class_name``, imported from ``bfcl_eval``.

    Raises :class:`SimulatorUnavailable` when it cannot be imported, and
    :class:`~ek_otel.errors.BfclDataError` for an unknown class name.

    Example:
        >>> load_api_class("NoSuchAPI")
        Traceback (most recent call last):
        ...
        ek_otel.errors.BfclDataError: unknown BFCL simulated class NoSuchAPI
    """
    found = _CLASS_CACHE.get(class_name)
    if found is not None:
        return found
    module_name = BACKEND_MODULES.get(class_name)
    if module_name is None:
        raise BfclDataError(f"unknown BFCL simulated class {class_name}")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # ImportError, or a dependency failing at import time
        raise SimulatorUnavailable(
            f"cannot import {module_name} ({exc}); install it with "
            "`pip install --no-deps bfcl-eval==2026.3.23 mpmath==1.3.0`"
        ) from None
    found = getattr(module, class_name)
    _MUTABLE_DEFAULTS[found] = _mutable_defaults_of(found)
    _CLASS_CACHE[class_name] = found
    return found


_IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), tuple, frozenset)
#: class → {method name: ((parameter, position, pristine copy of the default), ...)}
_MUTABLE_DEFAULTS: dict = {}


def _mutable_defaults_of(cls: type) -> dict:
    """The mutable default arguments of a class's methods (``post_tweet(tags=[])``...).

    Python shares such a default between all calls, so the official run leaks, through
    it, state from every earlier check of the process into later ones. ek-otel hands each
    check its own copy instead, shared by the model's and the answer's side like the
    default of a fresh official process. Captured when the class is first loaded.
    """
    found = {}
    for name, function in inspect.getmembers(cls, inspect.isfunction):
        try:
            parameters = list(inspect.signature(function).parameters.values())[1:]
        except (TypeError, ValueError):  # pragma: no cover - not introspectable
            continue
        specs = tuple(
            (p.name, index, copy.deepcopy(p.default))
            for index, p in enumerate(parameters)
            if p.default is not inspect.Parameter.empty
            and not isinstance(p.default, _IMMUTABLE)
        )
        if specs:
            found[name] = specs
    return found


def instance_global_name(model_name: str, entry_id: str, class_name: str,
                         *, ground_truth: bool = False) -> str:
    """The global name the official executor gives an instance (eval run).

    Example:
        >>> instance_global_name("gpt-4o", "multi_turn_base_3", "TicketAPI", ground_truth=True)
        'gpt_4o_ground_truth_eval_multi_turn_base_3_TicketAPI_instance'
    """
    owner = f"{model_name}_ground_truth" if ground_truth else model_name
    return _NAME_UNSAFE.sub("_", f"{owner}_eval_{entry_id}_{class_name}_instance")


def is_long_context(entry_id: str) -> bool:
    """Whether the official loads the scenario in long-context mode for this entry.

    Example:
        >>> is_long_context("multi_turn_long_context_7"), is_long_context("multi_turn_base_7")
        (True, False)
    """
    category = entry_id.rsplit("_", 1)[0]
    return "long_context" in category or "composite" in category


def result_to_string(result: Any) -> str:
    """An execution result as the official stores it: str kept, dict as JSON, else ``str``.

    Example:
        >>> result_to_string({"a": 1}), result_to_string(None), result_to_string("x")
        ('{"a": 1}', 'None', 'x')
    """
    if type(result) is str:
        return result
    if type(result) is dict:
        try:
            return json.dumps(result)
        except Exception:
            return str(result)
    return str(result)


def _forbidden_name(processed_call: str) -> Optional[str]:
    head = processed_call
    if "(" in head:
        head = head.split("(")[0]
    if "." in head:
        head = head.split(".")[1]
    return head if head in FORBIDDEN_FUNCTIONS else None


# ---------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------


_METHOD_NAMES: dict = {}


def _public_method_names(instance: Any) -> tuple:
    """Public bound-method names of an instance, sorted (``inspect.getmembers``), per class."""
    names = _METHOD_NAMES.get(type(instance))
    if names is None:
        names = tuple(name for name, _ in inspect.getmembers(instance, inspect.ismethod)
                      if not name.startswith("_"))
        _METHOD_NAMES[type(instance)] = names
    return names


class ApiSession:
    """The simulated instances of one side (model or ground truth) of one check.

    Mutable by nature: :meth:`execute` runs calls against the instances, which keep their
    state across turns. Build one through :class:`SimulatedPair`.
    """

    def __init__(self, instances: Mapping[str, Any], global_names: Mapping[str, str],
                 shared_defaults: Optional[dict] = None):
        self.instances = dict(instances)
        self.global_names = dict(global_names)
        self._by_global_name = {global_names[c]: i for c, i in self.instances.items()}
        self._method_owner = {}
        for class_name, instance in self.instances.items():
            for method_name in _public_method_names(instance):
                self._method_owner[method_name] = global_names[class_name]
        self._interpreter = Interpreter(
            self._by_global_name, {} if shared_defaults is None else shared_defaults,
            _MUTABLE_DEFAULTS)

    def rewrite(self, call: str) -> str:
        """The call string with each known method name prefixed by its instance's name.

        Example:
            >>> ApiSession({}, {}).rewrite("cd(folder='x')")
            "cd(folder='x')"
        """
        owners = self._method_owner
        return _METHOD_CALL.sub(
            lambda m: f"{owners[m.group(1)]}.{m.group(1)}" if m.group(1) in owners
            else m.group(1),
            call,
        )

    def execute_one(self, call: str) -> str:
        """Run one call string; the official result string (or error string).

        Example:
            >>> ApiSession({}, {}).execute_one("exit()")
            'Error during execution: Function call exit is not allowed.'
        """
        processed = self.rewrite(call)
        try:
            forbidden = _forbidden_name(processed)
            if forbidden is not None:
                raise Exception(f"Function call {forbidden} is not allowed.")
            with contained_numeric_state():
                return result_to_string(self._interpreter.run(processed))
        except Refused as refused:
            return f"Error during execution: ek-otel does not execute {refused} (no eval)"
        except Exception as exc:
            return f"Error during execution: {str(exc)}"

    def execute(self, calls: Iterable[str]) -> list:
        """Run call strings in order; their result strings.

        Example:
            >>> ApiSession({}, {}).execute(["f(x=1)", "g()"])
            ["Error during execution: name 'f' is not defined",
             "Error during execution: name 'g' is not defined"]
        """
        return [self.execute_one(call) for call in calls]


@dataclass(frozen=True)
class SimulatedPair:
    """The model's and the ground truth's sessions for one multi-turn check."""

    model: ApiSession
    ground_truth: ApiSession

    @classmethod
    def create(cls, involved_classes: Iterable[str], initial_config: Mapping[str, Any], *,
               entry_id: str, model_name: str = DEFAULT_MODEL_NAME,
               long_context: Optional[bool] = None) -> "SimulatedPair":
        """Fresh, isolated instances for both sides, loaded as the official loads them.

        Example:
            >>> SimulatedPair.create(["NoSuchAPI"], {}, entry_id="multi_turn_base_0")
            Traceback (most recent call last):
            ...
            ek_otel.errors.BfclDataError: unknown BFCL simulated class NoSuchAPI
        """
        classes = list(involved_classes)
        if long_context is None:
            long_context = is_long_context(entry_id)
        sides = []
        for _ in range(2):
            side = {}
            for class_name in classes:
                instance = load_api_class(class_name)()
                if class_name not in STATELESS_CLASSES:
                    instance._load_scenario(
                        _copy_together(initial_config.get(class_name, {})),
                        long_context=long_context,
                    )
                side[class_name] = instance
            sides.append(side)
        # One copy of both sides together: cut every link to module-level data (so no
        # check sees another's mutations) while keeping the links the two sides share.
        model_side, truth_side = _copy_together(sides)
        model_names = {c: instance_global_name(model_name, entry_id, c) for c in classes}
        truth_names = {c: instance_global_name(model_name, entry_id, c, ground_truth=True)
                       for c in classes}
        defaults: dict = {}  # mutable default arguments, one copy per check
        return cls(ApiSession(model_side, model_names, defaults),
                   ApiSession(truth_side, truth_names, defaults))


def _copy_together(value: Any) -> Any:
    """A deep copy of ``value`` that keeps its internal sharing (pickle, else deepcopy)."""
    try:
        return pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # an unpicklable attribute: fall back to the slower deepcopy
        return copy.deepcopy(value)


def instance_differences(model_instance: Any, truth_instance: Any) -> dict:
    """Public attributes of the ground-truth instance whose values differ in the model's.

    The state check compares the attributes the ground truth's instance holds, public ones
    only (a leading ``_`` marks what the check ignores), each as ``{"model": ...,
    "ground_truth": ...}``.

    Example:
        >>> class S: pass
        >>> a, b = S(), S()
        >>> a.x, a._seed, b.x, b._seed = 1, 1, 2, 9
        >>> instance_differences(a, b)
        {'x': {'model': 1, 'ground_truth': 2}}
    """
    public = [name for name in vars(truth_instance) if not name.startswith("_")]
    pairs = ((name, getattr(model_instance, name), getattr(truth_instance, name))
             for name in public)
    return {name: {"model": ours, "ground_truth": theirs}
            for name, ours, theirs in pairs if ours != theirs}
