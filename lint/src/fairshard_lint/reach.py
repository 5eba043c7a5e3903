"""Code that a script never runs: functions its own entry point does not reach.

A module that no file of the linted tree imports runs only as a script: what
it executes is its module-level code (an ``if __name__ == "__main__":``
block included) and the functions that code reaches, by call or by
reference (``mp.spawn(train_per_proc, ...)`` hands the function over). A
function nothing reaches is dead code for every shipped path
(Disruption-Prediciton's ``src/distributed.py``, whose entry point runs
``example()`` while its DDP trainer is called by nothing), and a finding
inside it describes a run that never happens.

Only scripts are read this way: a module with an ``if __name__ ==
"__main__":`` block that no file of the tree imports. A library module with
no importer in the tree may be imported by code outside it (or by a
registry), and is left alone.
"""

from __future__ import annotations

import ast
import builtins

from .names import Module, dotted, fails_to_bind, is_main_guard, misses_an_argument
from .project import Project, importers

__all__ = ["after_exit", "calls_an_unbound_name", "fails_on_first_pass", "unreached_in_script"]


def _names_in(node: ast.AST) -> set[str]:
    """Names ``node`` reads (``f``, ``self.f`` as ``f``): calls and references alike."""
    out: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            out.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            out.add(sub.attr)
    return out


def _reached(mod: Module) -> set[str] | None:
    """Names of the module's functions and classes that its module-level code reaches."""
    if "script_reached" in mod.cache:
        cached: set[str] | None = mod.cache["script_reached"]
        return cached
    top = [
        stmt
        for stmt in mod.tree.body
        if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]
    runs = any(isinstance(stmt, ast.If) and is_main_guard(stmt.test) for stmt in top)
    result: set[str] | None = None
    if runs and mod.cache.get("project") is not None and not importers(mod):
        defined: dict[str, list[ast.AST]] = {}
        for stmt in mod.tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined.setdefault(stmt.name, []).append(stmt)
        reached: set[str] = set()
        frontier = _live_names_of(mod, top)
        while frontier:
            name = frontier.pop()
            if name in reached or name not in defined:
                continue
            reached.add(name)
            for definition in defined[name]:
                frontier |= _live_names_in(mod, definition) - reached
        result = reached
    mod.cache["script_reached"] = result
    return result


def _live_names_in(mod: Module, definition: ast.AST) -> set[str]:
    """Names a definition reads, each block of a function body cut after a failing call."""
    if not isinstance(definition, ast.FunctionDef | ast.AsyncFunctionDef):
        return _names_in(definition)
    out = set().union(*(_names_in(d) for d in definition.decorator_list))
    out |= _names_in(definition.args)
    return out | _live_names_of(mod, definition.body)


#: The fields of a compound statement that hold blocks of statements.
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _live_names_of(mod: Module, block: list[ast.stmt]) -> set[str]:
    """Names the statements of ``block`` read, each block cut at a call that fails to bind.

    The failing call raises before the callee's body runs: its arguments are
    read, the function it names is not reached by that call, and nothing
    after it in its block runs (UNI-LJ-VRA's ``train_val_test_split(ds,
    seed=42)`` under the main guard, against a signature with no ``seed``:
    the ``random_split`` inside never runs). A compound statement's own
    blocks are cut the same way; a block around it goes on (the failing
    branch may not be taken).
    """
    out: set[str] = set()
    for stmt in block:
        if _fails_to_call(mod, stmt) and isinstance(stmt, ast.Assign | ast.AnnAssign | ast.Expr):
            call = stmt.value
            assert isinstance(call, ast.Call)
            parts: list[ast.AST] = [*call.args, *(k.value for k in call.keywords)]
            if isinstance(call.func, ast.Attribute):
                parts.append(call.func.value)
            return out.union(*(_names_in(part) for part in parts))
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out |= _names_in(stmt)
            continue
        for name, value in ast.iter_fields(stmt):
            if name not in _BLOCKS:
                out |= set().union(*(_names_in(v) for v in _nodes(value)))
            elif name in ("handlers", "cases"):
                for part in value:
                    for header in ("type", "pattern", "guard"):
                        out |= set().union(*map(_names_in, _nodes(getattr(part, header, None))))
                    out |= _live_names_of(mod, part.body)
            else:
                out |= _live_names_of(mod, value)
    return out


def _nodes(value: object) -> list[ast.AST]:
    """A field's value as a list of nodes (a node, a list of them, or nothing)."""
    if isinstance(value, ast.AST):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, ast.AST)]
    return []


def _fails_to_call(mod: Module, stmt: ast.stmt) -> bool:
    """``stmt`` calls a function or class of the tree with arguments it cannot bind.

    ConFit's ``train.py`` builds ``Mutation_Set(data=..., fname=...,
    tokenizer=...)``, whose ``__init__`` requires ``wt_path`` too;
    rs_foundation_model's ``Trainer(net=model)`` leaves out its required
    ``config``: Python raises ``TypeError`` there on every run, and nothing
    after it runs. Read only where it is sure: a plain statement whose value
    is the call, a module-level function or class of the linted tree named
    by the call, no decorator on either (``@hydra.main`` changes what a call
    binds to), a class that defines ``__init__`` itself, with no ``__new__``
    and no metaclass. So does a plain statement that calls a name the module
    binds nowhere (a ``NameError``: MDDA-former's ``model = RCUNet()``, a
    class its file never imports; see :func:`calls_an_unbound_name`).
    """
    if not isinstance(stmt, ast.Assign | ast.AnnAssign | ast.Expr) or not isinstance(
        stmt.value, ast.Call
    ):
        return False
    key = f"fails to call {id(stmt)}"  # read once per statement: every finding asks again
    if key not in mod.cache:
        mod.cache[key] = calls_an_unbound_name(mod, stmt.value) or _cannot_bind(mod, stmt.value)
    return bool(mod.cache[key])


def _cannot_bind(mod: Module, call: ast.Call) -> bool:
    """``call`` resolves to one undecorated function or class of the tree it cannot bind to.

    Also ``self.<method>(...)`` where the caller's class defines that method
    (see :func:`_own_method`).
    """
    project = mod.cache.get("project")
    if project is None:
        return False
    method = _own_method(mod, project, call)
    if method is not None:
        return fails_to_bind(call, method, True) or misses_an_argument(call, method, True)
    where = project.resolve(mod.cache["module_name"], call)
    if where is None:
        return False
    owner = project.modules[where[0]]
    funcs = [f for f in owner.functions.get(where[1], []) if owner.parents.get(f) is owner.tree]
    classes = [c for c in owner.classes.get(where[1], []) if owner.parents.get(c) is owner.tree]
    if len(funcs) + len(classes) != 1:
        return False
    bound_self = bool(classes)
    if classes:
        cls = classes[0]
        own = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}
        init = own.get("__init__")
        if cls.decorator_list or cls.keywords or init is None or "__new__" in own:
            return False
        func = init
    else:
        func = funcs[0]
    if func.decorator_list:
        return False
    return fails_to_bind(call, func, bound_self) or misses_an_argument(call, func, bound_self)


def _own_method(
    mod: Module, project: Project, call: ast.Call
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The method ``self.<name>(...)`` calls: its class's one undecorated definition.

    sicilian-translator's ``Trainer.train`` calls ``self._run_epoch(epoch)``,
    and its class defines ``def _run_epoch(self)``: Python raises
    ``TypeError`` at the first pass. Only where no other function of the tree
    has that name (a subclass's override would be the one called).
    """
    func = call.func
    if not (isinstance(func, ast.Attribute) and dotted(func.value) == "self"):
        return None
    caller = mod.function_of(call)
    cls = mod.parents.get(caller) if caller is not None else None
    if not isinstance(cls, ast.ClassDef):
        return None
    own = [
        f
        for f in cls.body
        if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.name == func.attr
    ]
    if len(own) != 1 or own[0].decorator_list:
        return None
    named = sum(len(other.functions.get(func.attr, [])) for other in project.modules.values())
    return own[0] if named == 1 else None


def unreached_in_script(mod: Module, node: ast.AST) -> bool:
    """``node`` sits in a top-level function or class of a script that its entry never reaches."""
    project = mod.cache.get("project")
    if project is None or not getattr(project, "whole_tree", False):
        return False  # a file on its own: the rest of the tree may import it
    reached = _reached(mod)
    if reached is None:
        return False
    chain = [node, *mod.ancestors(node)]
    outer = chain[-2] if len(chain) > 1 else node
    if not isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return False
    return outer.name not in reached


#: Calls that end the process: nothing after them in the same block runs.
_EXITS = frozenset({"exit", "quit", "sys.exit", "os._exit"})


def _ends_the_process(stmt: ast.stmt) -> bool:
    """``exit(0)``, ``sys.exit()``, ``quit()``, ``os._exit(1)`` or ``raise SystemExit``."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return dotted(stmt.value.func) in _EXITS
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return dotted(exc) == "SystemExit"
    return False


#: Statements that leave their block: nothing after them in it runs.
_LEAVES = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def after_exit(mod: Module, node: ast.AST) -> bool:
    """``node`` follows a statement that ends the process, in a block that holds both.

    reddit_depression's ``main.py`` plots its training loader, calls
    ``exit(0)``, and only then builds the ``Trainer`` and calls ``fit`` and
    ``test``: nothing after the exit runs, in that block or below it. So
    does a statement of a function's body that reads a local before any
    assignment to it (an ``UnboundLocalError`` every call raises: see
    :func:`_fails_unbound`), a call of the tree's own function or class
    that cannot bind its arguments (a ``TypeError``: see :func:`_fails_to_call`),
    and a ``return``, ``raise``, ``break`` or ``continue`` standing in the same
    block (FlowNP's ``val_dataloader`` returns its loader, and the training
    loaders written below the ``return`` are never built).
    """
    if _after_unbound_read(mod, node) or _after_a_module_name_error(mod, node):
        return True
    child = node
    for ancestor in mod.ancestors(node):
        for part in ("body", "orelse", "finalbody"):
            block = getattr(ancestor, part, None)
            if (
                isinstance(block, list)
                and child in block
                and any(
                    isinstance(s, _LEAVES) or _ends_the_process(s) or _fails_to_call(mod, s)
                    for s in block[: block.index(child)]
                )
            ):
                return True
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            return False  # a definition's body runs when it is called, not where it stands
        child = ancestor
    return False


_NEW_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _own_nodes(node: ast.AST, open_root: bool = True) -> list[ast.AST]:
    """``node`` and what it holds, a nested scope (function, lambda, comprehension) unopened.

    ``open_root``: ``node`` itself is opened even when it is a scope (a function's
    own body is walked; an expression that is a comprehension is not).
    """
    out: list[ast.AST] = []
    stack = [node]
    while stack:
        sub = stack.pop()
        out.append(sub)
        if (sub is node and open_root) or not isinstance(sub, _NEW_SCOPES):
            stack.extend(ast.iter_child_nodes(sub))
    return out


def _locals_bound_late(func: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, int]:
    """Locals of ``func`` (not parameters, ``global`` or ``nonlocal``) by their first binding line.

    Stores, deletions and nested definitions make a name local to the
    function; an import in it counts as bound from the start (conservative).
    """
    declared = {
        name
        for sub in _own_nodes(func)
        if isinstance(sub, ast.Global | ast.Nonlocal)
        for name in sub.names
    }
    params = {a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]}
    params |= {a.arg for a in (func.args.vararg, func.args.kwarg) if a is not None}
    stores: dict[str, int] = {}
    for sub in _own_nodes(func):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store | ast.Del):
            stores[sub.id] = min(stores.get(sub.id, sub.lineno), sub.lineno)
        elif sub is not func and isinstance(
            sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        ):
            stores[sub.name] = min(stores.get(sub.name, sub.lineno), sub.lineno)
        elif isinstance(sub, ast.alias):
            stores[(sub.asname or sub.name).partition(".")[0]] = 0
    return {name: line for name, line in stores.items() if name not in params | declared}


def _fails_unbound(stmt: ast.stmt, late: dict[str, int]) -> bool:
    """``stmt`` of a function's body reads a local that no earlier statement has bound.

    yomhub's ``multi_gpu_train.py`` calls ``torch.optim.SGD(model.parameters())``
    two lines before ``model = DistributedDataParallel(model, ...)``: ``model`` is
    local to ``train`` (assigned in it) and unbound there, so every rank stops
    with ``UnboundLocalError``. Only plain statements evaluated whole count (an
    assignment's value, an expression), never a branch or a loop; ``late`` is
    :func:`_locals_bound_late` of the function.
    """
    if not isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Expr | ast.Return):
        return False
    if stmt.value is None:
        return False
    return any(
        isinstance(sub, ast.Name)
        and isinstance(sub.ctx, ast.Load)
        and late.get(sub.id, 0) > stmt.lineno
        for sub in _own_nodes(stmt.value, open_root=False)
    )


def _after_unbound_read(mod: Module, node: ast.AST) -> bool:
    """``node`` lies in a function after a body statement that fails with ``UnboundLocalError``."""
    func = mod.function_of(node)
    if func is None:
        return False
    top = node
    while top in mod.parents and mod.parents[top] is not func:
        top = mod.parents[top]
    if top not in func.body:
        return False
    key = f"locals bound late {id(func)}"  # once per function, not per finding
    late = mod.cache.get(key)
    if not isinstance(late, dict):
        late = mod.cache[key] = _locals_bound_late(func)
    return any(_fails_unbound(stmt, late) for stmt in func.body[: func.body.index(top)])


#: Module-level statements that always run their expressions where they stand.
_PLAIN_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)


def _after_a_module_name_error(mod: Module, node: ast.AST) -> bool:
    """``node`` is module-level code after a plain statement that reads a name never bound.

    2022-NLP-Samsum-Aug's ``train_t5.py`` runs, at module level,
    ``tokenized_dataset.remove_columns(data_train['id'].column_names)``, and
    nothing in the file binds ``data_train``: the script stops there with a
    ``NameError``, and its loaders, training loop and evaluation below never
    run; nor is any function or class defined below it (nothing after the
    error runs, and a module that imports this one fails with it). Only
    unconditional statements count (an expression, an assignment), read
    where they stand (not inside a ``lambda`` or a lazily evaluated part);
    names are bound as :func:`calls_an_unbound_name` reads them. A file
    parsed only after rewriting newer syntax is left alone (the rewrite
    drops the type parameters it binds).
    """
    if mod.cache.get("newer_syntax"):
        return False  # text rewritten for this interpreter: its type parameters are gone
    top = node
    while top in mod.parents and not isinstance(mod.parents[top], ast.Module):
        top = mod.parents[top]
    body = mod.tree.body
    if top not in body:
        return False
    bound = _bound_names(mod)
    if bound is None:
        return False
    return any(
        isinstance(stmt, _PLAIN_STATEMENTS)
        and stmt.value is not None
        and _reads_unbound(stmt.value, bound)
        for stmt in body[: body.index(top)]
    )


def calls_an_unbound_name(mod: Module, node: ast.AST) -> bool:
    """``node`` is a call of a plain name the module never binds: it raises ``NameError``.

    pl_mnist's ``val_dataloader`` returns ``DataLoader(self.mnist_test, ...)``
    in a file whose ``from torch.utils.data import DataLoader`` is commented
    out: the hook fails before any loader exists, so nothing is padded. A name
    counts as bound if the module imports, defines, assigns or takes it as a
    parameter anywhere (any scope), or if it is a builtin; a module with a
    star import, or one that reaches names another way (``globals()``,
    ``exec``, ``builtins``), binds anything. A file that imports nothing at
    all is read as a fragment run in another's namespace (a snippet, a
    config executed by its script), whose names come from there.
    """
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return False
    bound = _bound_names(mod)
    return bound is not None and node.func.id not in bound


#: Calls through which a module may bind names it never spells out.
_DYNAMIC_BINDERS = frozenset({"globals", "exec", "eval", "setattr", "__import__", "vars"})


def _bound_names(mod: Module) -> frozenset[str] | None:
    """Every name the module binds in any scope, with the builtins; ``None`` if unknowable."""
    cached = mod.cache.get("bound_names")
    if isinstance(cached, frozenset) or (cached is False):
        return cached or None
    found: set[str] = set(dir(builtins)) | {"__file__", "__name__", "__builtins__"}
    unknowable = not any(isinstance(sub, ast.Import | ast.ImportFrom) for sub in mod.nodes)
    for sub in mod.nodes:
        if isinstance(sub, ast.ImportFrom | ast.Import):
            for alias in sub.names:
                if alias.name == "*":
                    unknowable = True
                found.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(sub.name)
        elif isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load):
            found.add(sub.id)
        elif isinstance(sub, ast.arg):
            found.add(sub.arg)
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            found.add(sub.name)
        elif isinstance(sub, ast.Global | ast.Nonlocal):
            found.update(sub.names)
        elif isinstance(sub, ast.MatchAs | ast.MatchStar) and sub.name:
            found.add(sub.name)
        elif (isinstance(sub, ast.Name) and sub.id in _DYNAMIC_BINDERS) or (
            isinstance(sub, ast.Attribute) and sub.attr in {"builtins", "__builtins__"}
        ):
            unknowable = True
    result = None if unknowable else frozenset(found)
    mod.cache["bound_names"] = result if result is not None else False
    return result


def fails_on_first_pass(mod: Module, node: ast.AST) -> bool:
    """``node`` is a loop whose first pass always reads a name the module never binds.

    scale-up-transformer's enwik8 example multiplies each step's loss by
    ``GRADIENT_ACCUMULATE_EVERY``, a constant only its sibling example
    defines: the first batch raises ``NameError``, so no second pass over the
    loader repeats an order. Read through the statements every pass runs:
    the loop's body up to a branch, a ``try`` or a statement that leaves it,
    and the body of a loop or ``with`` among them (a loader yields at least
    one batch).
    """
    if not isinstance(node, ast.For | ast.AsyncFor | ast.While):
        return False
    bound = _bound_names(mod)
    return bound is not None and _block_fails(mod, node.body, bound)


def _block_fails(mod: Module, block: list[ast.stmt], bound: frozenset[str]) -> bool:
    """A statement every pass runs reads an unbound name or makes a call that cannot bind."""
    for stmt in block:
        if isinstance(stmt, ast.For | ast.AsyncFor):
            # nothing after the inner loop is read: its own exits may have left it
            return _reads_unbound(stmt.iter, bound) or _block_fails(mod, stmt.body, bound)
        if isinstance(stmt, ast.With | ast.AsyncWith):
            if any(_reads_unbound(item.context_expr, bound) for item in stmt.items):
                return True
            if _block_fails(mod, stmt.body, bound):
                return True
            continue
        if isinstance(stmt, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign):
            value = stmt.value
            if value is not None and _reads_unbound(value, bound):
                return True
            if _fails_to_call(mod, stmt):
                return True  # a TypeError at the first pass (sicilian-translator's epoch)
            continue
        return False  # a branch, a try, a nested definition or an exit: not every pass
    return False


def _reads_unbound(expr: ast.AST, bound: frozenset[str]) -> bool:
    """``expr`` reads, where it is evaluated at once, a plain name bound nowhere."""
    stack: list[ast.AST] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp):
            continue  # evaluated later, or with names of their own
        if isinstance(node, ast.GeneratorExp | ast.IfExp | ast.BoolOp):
            continue  # evaluated lazily or in part
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id not in bound:
                return True
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False
