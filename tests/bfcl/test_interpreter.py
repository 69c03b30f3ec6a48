"""The execution-string interpreter of BFCL multi-turn checks: what eval would do, or a refusal."""

from __future__ import annotations

import pytest

from ek_otel.bfcl.interpreter import Interpreter, Refused


class Files:
    def __init__(self):
        self.cwd = "/"

    def cd(self, folder):
        self.cwd = folder
        return {"current_working_directory": folder}

    def tag(self, name, tags=[]):  # noqa: B006 - the official classes have such defaults
        tags.append(name)
        return list(tags)


def _run(text, names=None, shared=None, defaults=None):
    return Interpreter(names or {}, {} if shared is None else shared, defaults).run(text)


def test_methods_of_the_simulated_instances_are_called():
    files = Files()
    assert _run("fs.cd(folder='docs')", {"fs": files}) == {"current_working_directory": "docs"}
    assert files.cwd == "docs"


@pytest.mark.parametrize("text, refused", [
    ("[x for x in 'ab']", "ListComp"),
    ("(lambda: 1)()", "Lambda"),
    ("len(*'ab')", "* unpacking"),
    ("dict(**{'a': 1})", "** unpacking"),
    ("'a' + 'b'", "arithmetic on non-numbers"),
    ("open('x')", "the name 'open'"),
    ("'abc'.upper()", "attribute access on str"),
    ("fs.__dict__", "the attribute '__dict__'"),
    ("fs.cd.__self__", "attribute access on method"),
])
def test_what_only_eval_could_run_is_refused(text, refused):
    with pytest.raises(Refused, match=refused.replace("*", r"\*").replace("(", r"\(")):
        _run(text, {"fs": Files()})


def test_errors_are_those_eval_would_raise():
    with pytest.raises(NameError, match="name 'nosuch' is not defined"):
        _run("nosuch(x=1)")
    with pytest.raises(TypeError, match="'module' object is not callable"):
        _run("json(1)")
    with pytest.raises(TypeError, match="'str' object is not callable"):
        _run("model_name()")
    with pytest.raises(SyntaxError, match="keyword argument repeated: folder"):
        _run("fs.cd(folder='a', folder='b')", {"fs": Files()})
    with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
        _run("fs.cd(x=1)", {"fs": Files()})


def test_a_mutable_default_is_one_pristine_copy_per_check():
    files = Files()
    defaults = {Files: {"tag": (("tags", 1, []),)}}
    shared: dict = {}
    assert _run("fs.tag(name='a')", {"fs": files}, shared, defaults) == ["a"]
    assert _run("fs.tag(name='b')", {"fs": files}, shared, defaults) == ["a", "b"]  # same check
    assert _run("fs.tag(name='c')", {"fs": files}, {}, defaults) == ["c"]  # a new check: pristine
    assert Files.tag.__defaults__ == ([],)  # the class's own default never touched
