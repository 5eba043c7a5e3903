"""The linter's reading of a call that cannot bind, checked against Python's own binding.

``reach`` drops what follows a call of the tree's own function or class that
raises ``TypeError`` before it runs; the reading must agree with
``inspect.Signature.bind`` on every signature shape it claims to read.
"""

from __future__ import annotations

import ast
import inspect
import itertools

import pytest

from fairshard_lint.names import fails_to_bind, misses_an_argument

SIGNATURES = [
    "def f(a, b): pass",
    "def f(a, b=1): pass",
    "def f(a, /, b, *, c): pass",
    "def f(a, *, c=2): pass",
    "def f(*args, b): pass",
    "def f(a, **kw): pass",
    "def f(): pass",
    "def f(self, wt_path, data, fname, sep_len=1024): pass",
]
CALLS = [
    "f()",
    "f(1)",
    "f(1, 2)",
    "f(1, 2, 3)",
    "f(a=1)",
    "f(b=2)",
    "f(1, b=2)",
    "f(1, c=3)",
    "f(data=1, fname=2)",
    "f(0, 'wt', data=1, fname=2)",
    "f(1, d=4)",
]


def _python_refuses(signature: str, call: str) -> bool:
    namespace: dict[str, object] = {}
    exec(signature, namespace)
    bound = inspect.signature(namespace["f"])  # type: ignore[arg-type]
    parsed = ast.parse(call, mode="eval").body
    assert isinstance(parsed, ast.Call)
    args = [ast.literal_eval(a) for a in parsed.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in parsed.keywords if k.arg}
    try:
        bound.bind(*args, **kwargs)
    except TypeError:
        return True
    return False


@pytest.mark.parametrize(("signature", "call"), list(itertools.product(SIGNATURES, CALLS)))
def test_the_reading_agrees_with_python(signature: str, call: str) -> None:
    func = ast.parse(signature).body[0]
    parsed = ast.parse(call, mode="eval").body
    assert isinstance(func, ast.FunctionDef) and isinstance(parsed, ast.Call)
    read = fails_to_bind(parsed, func) or misses_an_argument(parsed, func)
    assert read == _python_refuses(signature, call)


@pytest.mark.parametrize("call", CALLS)
def test_a_constructor_call_binds_past_self(call: str) -> None:
    """``bound_self``: the instance is the first parameter, bound by the call itself."""
    method = "def f(self, wt_path, data, fname, sep_len=1024): pass"
    func = ast.parse(method).body[0]
    parsed = ast.parse(call, mode="eval").body
    assert isinstance(func, ast.FunctionDef) and isinstance(parsed, ast.Call)
    read = fails_to_bind(parsed, func, True) or misses_an_argument(parsed, func, True)
    as_python = _python_refuses(method, call.replace("f(", "f(None, ", 1).replace(", )", ")"))
    assert read == as_python


def test_a_call_that_unpacks_is_never_read_as_failing() -> None:
    func = ast.parse("def f(a, b): pass").body[0]
    assert isinstance(func, ast.FunctionDef)
    for call in ("f(*xs)", "f(**kw)", "f(1, *xs)"):
        parsed = ast.parse(call, mode="eval").body
        assert isinstance(parsed, ast.Call)
        assert not fails_to_bind(parsed, func) and not misses_an_argument(parsed, func)
