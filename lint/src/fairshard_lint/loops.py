"""Epoch loops that iterate a distributed sampler without ``set_epoch`` (rule FS101).

An *iteration site* is a ``for`` over something that carries an epoch-bound
sampler (see ``flow``), an ``iter(loader)`` call, or a call that hands a
loader to a function that iterates it. A site inside a loop makes that loop
an epoch loop; a site outside any loop makes its function an *iterating*
function, so calling it in a loop is a site too. A loop is fine when it
calls ``set_epoch``, directly or through any function that does.
"""

from __future__ import annotations

import ast

from .cycles import cycling_loops
from .flow import (
    LOADERS,
    WRAPPERS,
    Flow,
    Function,
    bound_argument,
    bound_only_to,
    defaults_of,
    flow_of,
    is_distributed_sampler,
    needs_set_epoch,
    parameters,
)
from .names import (
    Module,
    argument,
    dotted,
    is_eval_name,
    misses_an_argument,
    name_words,
    tail,
)

__all__ = ["fixed_setting", "over_a_container", "setter_functions", "unsynced_loops"]

Loop = ast.For | ast.AsyncFor | ast.While
_TRAIN_WORDS = frozenset({"train", "training", "epoch", "fit"})


def _iterated_parameters(func: Function) -> set[str]:
    """Parameters ``func`` loops over: directly, through wrappers, or by a training key.

    rightnn's ``def Train(cnn, loaders)`` runs ``for i, (images, labels) in
    enumerate(loaders['train'])``: the dict handed in is read at its training
    loader (a key named for evaluation is not).
    """
    params = set(parameters(func))
    return (
        {
            dotted(node.iter) or ""
            for node in ast.walk(func)
            if isinstance(node, ast.For | ast.AsyncFor) and dotted(node.iter) in params
        }
        | {
            dotted(arg) or ""
            for call in ast.walk(func)
            if isinstance(call, ast.Call) and tail(call) in WRAPPERS
            for arg in call.args
            if dotted(arg) in params
        }
        | {
            name
            for node in ast.walk(func)
            if isinstance(node, ast.For | ast.AsyncFor)
            for read in [_unwrapped(node.iter)]
            if isinstance(read, ast.Subscript)
            and (name := dotted(read.value) or "") in params
            and isinstance(read.slice, ast.Constant)
            and isinstance(read.slice.value, str)
            and not is_eval_name(read.slice.value)
        }
    )


def _call_iterates(flow: Flow, call: ast.Call, iterating: set[str]) -> str | None:
    """What a call iterates: a carrier it wraps or passes to a training function."""
    name = tail(call)

    def carries(node: ast.AST) -> bool:
        return flow.carries(node) and not flow.managed(node)

    if name == "iter" and any(carries(a) for a in call.args):
        return ast.unparse(call)
    if (
        name in iterating
        and not _member_call(call)
        and not _other_objects_method(flow.mod, call)
        and not is_eval_name(name)
    ):
        # a function named for evaluation (test(), evaluate()) reads its loader in an
        # evaluation pass: its order is no epoch of the training data
        return f"{name}() (iterates a distributed loader)"
    passed = [a for a in call.args if carries(a)]
    passed += [k.value for k in call.keywords if k.arg and carries(k.value)]
    if not passed:
        return None
    for func in flow.mod.functions.get(name, []) or _tree_functions(flow.mod, call):
        params = parameters(func)
        used = _iterated_parameters(func)
        for position, arg in enumerate(call.args):
            if position < len(params) and params[position] in used and carries(arg):
                return f"{dotted(arg) or ast.unparse(arg)} (through {name}())"
        for keyword in call.keywords:
            if keyword.arg in used and carries(keyword.value):
                return f"{dotted(keyword.value)} (through {name}())"
    if name not in flow.mod.functions and _TRAIN_WORDS & set(name_words(name)):
        return f"{dotted(passed[0]) or ast.unparse(passed[0])} (through {name}())"
    return None


def _tree_functions(mod: Module, call: ast.Call) -> list[Function]:
    """The module-level function of another module of the tree that ``call`` (by name) calls.

    U-EGformer's ``fsdp_train.py`` imports ``dsttrain`` from ``trainer.py``,
    whose ``for iteration, imgs in enumerate(train_loader)`` reads the loader
    it is handed: the call iterates it, whatever its name says. A generator
    function (dl4cv-project's ``infiniteloop``) iterates nothing when called:
    its loop runs as its items are taken, read where it stands.
    """
    project = mod.cache.get("project")
    if project is None or not isinstance(call.func, ast.Name):
        return []
    where = project.resolve(mod.cache["module_name"], call)
    if where is None or where[0] == mod.cache["module_name"]:
        return []
    owner = project.modules[where[0]]
    return [
        f
        for f in owner.functions.get(where[1], [])
        if owner.parents.get(f) is owner.tree
        and not any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(f))
    ]


def _member_call(call: ast.Call) -> bool:
    """``self.model.train()``: a method of an object the instance holds, not its own.

    A trainer whose ``train`` method iterates the loader also calls
    ``self.model.train()`` in its loop; that call is ``nn.Module.train``.
    """
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Attribute)
        and (dotted(func.value) or "").startswith("self.")
    )


def _other_objects_method(mod: Module, call: ast.Call) -> bool:
    """``model.train()`` where every ``train`` of the module is a top-level function.

    A script whose ``def train(rank, ...)`` iterates the loader (the function
    ``mp.spawn`` runs) calls ``model.train()`` inside its own loop over the
    batches: that is ``nn.Module.train``, a method of another object, so the
    loop repeats no pass of ``train``. ``self.train()`` and a method of one of
    the module's classes keep the match.
    """
    func = call.func
    if not isinstance(func, ast.Attribute) or dotted(func.value) in ("self", "cls"):
        return False
    defs = mod.functions.get(func.attr, [])
    return bool(defs) and all(
        not isinstance(mod.parents.get(d), ast.ClassDef) or _lacks_required(call, d) for d in defs
    )


def _lacks_required(call: ast.Call, method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``call`` leaves a required parameter of ``method`` (after ``self``) unfilled.

    What-changes-you's ``model.train()`` in the epoch loop of its trainer's
    ``def train(self, args)``: the call passes nothing, so it is not that
    method (it would raise ``TypeError``) but ``nn.Module.train``.
    """
    return misses_an_argument(call, method, bound_self=True)


def _own_parameter(flow: Flow, node: ast.AST) -> bool:
    """``node`` is a plain parameter of its function whose callers are all of the file.

    Whether ``def train_one_epoch(model, loader)`` iterates a carrier depends on
    what its callers pass (``_call_iterates`` checks each call); the parameter
    merely sharing its name with a carrier elsewhere in the file (a builder's
    local ``loader``) says nothing. Functions never called in the file keep the
    name match: their callers are in other modules.
    """
    func = flow.mod.function_of(node)
    if func is None or not isinstance(node, ast.Name) or node.id not in parameters(func):
        return False
    if node.id in flow.param_carriers.get(id(func), ()):
        return False  # a caller (here or in another module) hands it a carrier
    return any(tail(c) == func.name for c in flow.mod.calls)


def _unwrapped(node: ast.AST) -> ast.AST:
    """``tqdm(enumerate(loader), ...)`` -> ``loader``: the iterable under the wrappers."""
    while isinstance(node, ast.Call) and tail(node) in WRAPPERS and node.args:
        node = node.args[0]
    return node


def _evaluation_pass(flow: Flow, iterable: ast.AST) -> bool:
    """The loop reads an evaluation loader, through wrappers and its function's own names.

    Carriers are known by name across the file, so the training function's
    ``batches = tqdm(train_loader)`` makes the evaluation function's ``batches =
    tqdm(test_loader)`` look like one. What the name is bound to in the loop's
    own function decides: a pass over a loader named for evaluation (``test``,
    ``val``, ``eval``...) is no epoch of the training data, whose order is what
    ``set_epoch`` changes. Only a re-iterated training loader counts. A pass in a
    function named for evaluation alone (``validate``, ``evaluate``) is one too,
    whatever its loader's name: an evaluation's result does not depend on the order.
    """
    name = dotted(_unwrapped(iterable))
    if name is None:
        return False
    if is_eval_name(name):
        return True
    func = flow.mod.function_of(iterable)
    if (
        func is not None
        and is_eval_name(func.name)
        and not _TRAIN_WORDS & set(name_words(func.name))
    ):
        return True  # virtual-cell's validate(): a loader per file, summed on rank 0 alone
    values = [
        value
        for names, value in flow.bindings
        if name in names and flow.mod.function_of(value) is func
    ]
    return bool(values) and all(is_eval_name(dotted(_unwrapped(value)) or "") for value in values)


def _sites(flow: Flow, iterating: set[str]) -> list[tuple[ast.AST, str]]:
    """Every place a carrier is iterated: ``for`` loops and iterating calls."""
    sites: list[tuple[ast.AST, str]] = []
    in_for_iter: set[ast.AST] = set()
    for node in flow.mod.nodes:
        if (
            isinstance(node, ast.For | ast.AsyncFor)
            and flow.carries(node.iter)
            and not over_a_container(flow, node)
            and not flow.managed(node.iter)
            and not _own_parameter(flow, node.iter)
            and not _evaluation_pass(flow, node.iter)
        ):
            sites.append((node, dotted(node.iter) or ast.unparse(node.iter)))
            in_for_iter.update(ast.walk(node.iter))
    for call in flow.mod.calls:
        if call in in_for_iter:
            continue
        what = _call_iterates(flow, call, iterating)
        if what is not None:
            sites.append((call, what))
    return sites


def _find_loops(flow: Flow) -> list[tuple[Loop, str]]:
    if not (
        flow.has_carriers()
        or flow.producers
        or any(needs_set_epoch(flow.mod, c) for c in flow.mod.calls)
    ):
        return []  # nothing epoch-bound in this file: most files stop here
    called = _called(flow.mod)
    # set_epoch, and functions of other modules of the linted tree that call it (see project)
    setters = {"set_epoch", *flow.mod.cache.get("imported_setters", ())}
    iterating: set[str] = set()
    for _ in range(8):
        before = (len(setters), len(iterating))
        setters.update(name for name, tails in called.items() if tails & setters)
        for site, _what in _sites(flow, iterating):
            func = flow.mod.function_of(site)
            if func is not None and flow.mod.loop_of(site) is None and func.name not in setters:
                iterating.add(func.name)
        if before == (len(setters), len(iterating)):
            break
    seen: set[ast.AST] = set()
    found: list[tuple[Loop, str]] = []
    for site, what in _sites(flow, iterating):
        loop = flow.mod.loop_of(site)
        while loop is not None and over_a_container(flow, loop):
            loop = flow.mod.loop_of(loop)  # a pass over the tasks' loaders is no epoch
        if loop is None or loop in seen or _yields(loop) or _one_pass(flow.mod, loop):
            continue
        if _stops_at_once(site):
            continue  # `for _ in loader: break`: a pass begun only to advance the sampler
        if _sets_by_its_name(flow, site):
            continue  # MCLOS's model.train(...): the tree's Trainer.train sets the epoch
        if _in_the_undistributed_arm(flow.mod, loop):
            continue  # U-EGformer's single-GPU branch: the sampler there is None
        body_calls = [c for c in ast.walk(loop) if isinstance(c, ast.Call)]
        if (
            _sets_this_epoch(flow, loop, site, body_calls, setters)
            or _set_by_an_outer_loop(flow, loop, site, setters)
            or _reseeded(flow, loop, body_calls)
            or _rebuilt_from_the_counter(loop, site)
        ):
            continue
        seen.add(loop)
        found.append((loop, what))
    for loop, what in cycling_loops(flow, setters):
        if loop not in seen and not any(loop in ast.walk(outer) for outer in seen):
            seen.add(loop)
            found.append((loop, what))
    return sorted(found, key=lambda pair: (pair[0].lineno, pair[0].col_offset))


def _in_the_undistributed_arm(mod: Module, loop: ast.AST) -> bool:
    """``loop`` runs only where a test that every distributed sampler is built under failed.

    U-EGformer builds ``sampler_tr = DistributedSampler(...)`` under ``if
    is_distributed:`` (``None`` otherwise) and trains its single-GPU run in
    the ``else:`` of ``elif is_distributed:``: the loader there carries no
    distributed sampler. Every distributed sampler of the loop's function
    (or module) must sit in the body of an ``if`` with the same test (at any
    depth), and the loop in the ``else`` of one (or in the body of ``if not``
    that test).
    """
    scope = mod.function_of(loop) or mod.tree
    common: set[str] | None = None
    for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call)):
        if is_distributed_sampler(mod, call):
            tests = _guards(mod, call)
            common = tests if common is None else common & tests
    if not common:
        return False
    child: ast.AST = loop
    for ancestor in mod.ancestors(loop):
        if ancestor is scope:
            break
        if isinstance(ancestor, ast.If):
            if child in ancestor.orelse and ast.dump(ancestor.test) in common:
                return True
            negated = ancestor.test
            if (
                child in ancestor.body
                and isinstance(negated, ast.UnaryOp)
                and isinstance(negated.op, ast.Not)
                and ast.dump(negated.operand) in common
            ):
                return True
        child = ancestor
    return False


def _guards(mod: Module, node: ast.AST) -> set[str]:
    """The tests of the ``if`` statements whose body holds ``node``, within its function."""
    found: set[str] = set()
    child = node
    for ancestor in mod.ancestors(node):
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            break
        if isinstance(ancestor, ast.If) and child in ancestor.body:
            found.add(ast.dump(ancestor.test))
        child = ancestor
    return found


def over_a_container(flow: Flow, loop: ast.AST) -> bool:
    """``loop`` goes over a container of loaders (``for name, loader in loaders.items()``).

    Each pass reads another loader, not another epoch of one: the loop that
    repeats an order is the one around it. A loop over the container is no
    read of a loader either; the reads are of its elements, in its body.
    """
    if not isinstance(loop, ast.For | ast.AsyncFor):
        return False
    source = loop.iter
    if isinstance(source, ast.Call) and tail(source) == "enumerate" and source.args:
        source = source.args[0]
    if (
        isinstance(source, ast.Call)
        and isinstance(source.func, ast.Attribute)
        and source.func.attr in ("items", "values", "keys")
        and not source.args
    ):
        source = source.func.value
    return dotted(source) in flow.containers


def _sets_by_its_name(flow: Flow, site: ast.AST) -> bool:
    """A call taken to iterate the loader by its name, whose namesake in the tree sets the epoch.

    ``model.train(train_loader, ...)`` where ``model`` is an object the file
    cannot type: it is read as iterating the loader because of its name, and a
    function or method of that name elsewhere in the tree (MCLOS's
    ``Trainer.train``, which calls ``train_loader.sampler.set_epoch`` before its
    pass) sets the epoch. The same reading by name gives both.
    """
    if not isinstance(site, ast.Call) or tail(site) in flow.mod.functions:
        return False
    project = flow.mod.cache.get("project")
    setters: dict[str, set[str]] = getattr(project, "setters", {})
    name = tail(site)
    return any(name in names for names in setters.values())


def _stops_at_once(site: ast.AST) -> bool:
    """The ``for`` over the loader leaves on its first batch: ``for _ in loader: break``.

    KNN-BERT's copy of the transformers Trainer skips the epochs a resumed run
    has done with ``for epoch in range(epochs_trained): for _ in
    train_dataloader: break``: one batch begun per epoch to move the sampler's
    randomness on, no epoch of training, and the training loop after it sets
    the epoch.
    """
    return (
        isinstance(site, ast.For | ast.AsyncFor)
        and bool(site.body)
        and isinstance(site.body[0], ast.Break)
    )


def _sets_this_epoch(
    flow: Flow, loop: Loop, site: ast.AST, body_calls: list[ast.Call], setters: set[str]
) -> bool:
    """The loop's body sets the epoch, of the read loader's sampler where that can be told.

    A helper called in the body that sets the epoch only of other samplers of
    the instance (``self.datasampler_hr_train.set_epoch(...)`` when another
    loader runs out, while the loop reads ``self.dataloader_lr_train`` over
    ``self.datasampler_lr_train``) leaves the loop's own order unchanged.
    Where the read loader's sampler, or what a helper sets, cannot be told,
    any setter counts.
    """
    called = [
        c
        for c in body_calls
        if tail(c) in setters
        and not fixed_epoch(loop, c)
        and (tail(c) == "set_epoch" or not _other_objects_method(flow.mod, c))
        and not _rebound_away(flow.mod, c)
    ]
    if not called:
        return False
    own = _site_sampler(flow.mod, site)
    if own is None:
        return True
    for call in called:
        receivers = _set_receivers(flow.mod, call, setters, depth=3)
        if receivers is None or own in receivers:
            return True
    return False


def _set_by_an_outer_loop(flow: Flow, loop: Loop, site: ast.AST, setters: set[str]) -> bool:
    """A loop around ``loop`` sets the epoch on each of its passes.

    TrainFlow's step loop calls ``train_sampler.set_epoch(step)`` and, inside
    it, the micro-batch loop restarts ``iter(train_loader)`` when the loader
    runs out: each restart takes the epoch of its step, a new order.
    """
    inner = {id(n) for n in ast.walk(loop)}  # the restarting loop's own calls are not the outer's
    outer = flow.mod.loop_of(loop)
    while outer is not None:
        calls = [c for c in ast.walk(outer) if isinstance(c, ast.Call) and id(c) not in inner]
        if _sets_this_epoch(flow, outer, site, calls, setters):
            return True
        outer = flow.mod.loop_of(outer)
    return False


def _rebound_away(mod: Module, call: ast.Call) -> bool:
    """``sampler.set_epoch(...)`` on a name rebound to a new sampler after its loader was built.

    CPCS's ``train_kmeans.py`` builds ``train_sampler = DistributedSampler(dataset)``,
    hands it to ``data_loader``, then builds another ``train_sampler =
    DistributedSampler(dataset)`` that no loader reads, and its epoch loop
    calls ``train_sampler.set_epoch(epoch)``: the loader's sampler never moves
    on. Every loader of the function built with ``sampler=<name>`` must come
    before the last sampler the name is bound to above the call.
    """
    if tail(call) != "set_epoch" or not isinstance(call.func, ast.Attribute):
        return False
    receiver = call.func.value
    func = mod.function_of(call)
    if not isinstance(receiver, ast.Name) or func is None:
        return False
    name = receiver.id
    rebuilt = [
        node.lineno
        for node in ast.walk(func)
        if isinstance(node, ast.Assign)
        and node.lineno < call.lineno
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
        and isinstance(node.value, ast.Call)
        and is_distributed_sampler(mod, node.value)
    ]
    loaders = [
        node.lineno
        for node in ast.walk(func)
        if isinstance(node, ast.Call)
        and tail(node) in LOADERS
        and isinstance(given := argument(node, "sampler", 3), ast.Name)
        and given.id == name
    ]
    return len(rebuilt) > 1 and bool(loaders) and max(loaders) < max(rebuilt) < call.lineno


def fixed_setting(loop: Loop) -> ast.Call | None:
    """The loop's first ``set_epoch`` call whose value no pass changes (see :func:`fixed_epoch`)."""
    calls = [c for c in ast.walk(loop) if isinstance(c, ast.Call) and fixed_epoch(loop, c)]
    return min(calls, key=lambda c: (c.lineno, c.col_offset)) if calls else None


def fixed_epoch(loop: Loop, call: ast.Call) -> bool:
    """``set_epoch(args.epoch)`` in the loop: a value no pass of the loop changes.

    What-changes-you's ``for epoch in range(args.epoch):
    train_sampler.set_epoch(args.epoch)`` gives every pass the same epoch,
    so every pass repeats one order. The argument is a constant, or dotted
    names that are neither the loop's own variables nor assigned anywhere in
    the loop; a call in it (``get_epoch()``), or an attribute of ``self``
    (another method may advance it), may change and counts as setting.
    """
    if tail(call) != "set_epoch" or len(call.args) != 1 or call.keywords:
        return False
    value = call.args[0]
    if isinstance(value, ast.Constant):
        return True
    if any(isinstance(n, ast.Call | ast.Subscript) for n in ast.walk(value)):
        return False
    read = {
        d for n in ast.walk(value) if isinstance(n, ast.Name | ast.Attribute) if (d := dotted(n))
    }
    if not read or any(name == "self" or name.startswith("self.") for name in read):
        return False
    changed: set[str] = set()
    if isinstance(loop, ast.For | ast.AsyncFor):
        changed |= {d for n in ast.walk(loop.target) if (d := dotted(n))}
    for node in ast.walk(loop):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            changed |= {d for t in targets for n in ast.walk(t) if (d := dotted(n))}
        elif isinstance(node, ast.NamedExpr | ast.withitem):
            target = node.target if isinstance(node, ast.NamedExpr) else node.optional_vars
            if target is not None:
                changed |= {d for n in ast.walk(target) if (d := dotted(n))}
    return not any(
        name in changed or any(name.startswith(f"{c}.") for c in changed) for name in read
    )


def _site_sampler(mod: Module, site: ast.AST) -> str | None:
    """``self.sampler_x`` of the ``self.`` loader a ``for`` reads (``DataLoader(sampler=...)``)."""
    if not isinstance(site, ast.For | ast.AsyncFor):
        return None
    loader = dotted(_unwrapped(site.iter))
    if loader is None or not loader.startswith("self."):
        return None
    samplers = {
        dotted(argument(node.value, "sampler", 3) or node.value)
        for node in mod.nodes
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and tail(node.value) in LOADERS
        and any(dotted(t) == loader for t in node.targets)
    }
    if len(samplers) != 1:
        return None
    (sampler,) = samplers
    return sampler if sampler is not None and sampler.startswith("self.") else None


def _set_receivers(mod: Module, call: ast.Call, setters: set[str], depth: int) -> set[str] | None:
    """The ``self.X`` whose epoch ``call`` sets, itself or through the file's setters.

    ``None`` where a receiver is no ``self.`` attribute or the call cannot be followed.
    """
    if tail(call) == "set_epoch":
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        name = dotted(receiver) if receiver is not None else None
        return {name} if name is not None and name.startswith("self.") else None
    if depth == 0 or not (
        isinstance(call.func, ast.Attribute) and dotted(call.func.value) == "self"
    ):
        return None
    defs = mod.functions.get(call.func.attr, [])
    if len(defs) != 1:
        return None
    found: set[str] = set()
    for inner in ast.walk(defs[0]):
        if (
            isinstance(inner, ast.Call)
            and inner is not call
            and tail(inner) in setters
            # self.model.train(): nn.Module's method, not the file's
            and (tail(inner) == "set_epoch" or not _member_call(inner))
        ):
            more = _set_receivers(mod, inner, setters, depth - 1)
            if more is None:
                return None
            found |= more
    return found


def _called(mod: Module) -> dict[str, set[str]]:
    return {
        name: {tail(c) for f in funcs for c in ast.walk(f) if isinstance(c, ast.Call)}
        for name, funcs in mod.functions.items()
    }


def setter_functions(mod: Module, known: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """Functions of ``mod`` that call ``set_epoch`` (or one of ``known``), at any depth."""
    called = _called(mod)
    setters = {"set_epoch", *known}
    for _ in range(8):
        before = len(setters)
        setters.update(name for name, tails in called.items() if tails & setters)
        if len(setters) == before:
            break
    return {name for name, tails in called.items() if tails & setters}


def _one_pass(mod: Module, loop: Loop) -> bool:
    """``for _ in range(1)``, or ``range(epochs)`` with ``epochs=1`` that no caller changes.

    One pass is no epoch loop: nothing repeats. A parameter counts when its
    default is the literal 1 and no call of the function in the file passes
    it (by keyword, or by position); callers in other modules are not seen,
    so a function called nowhere in the file keeps its loop.
    """
    if not (
        isinstance(loop, ast.For)
        and isinstance(loop.iter, ast.Call)
        and tail(loop.iter) == "range"
        and len(loop.iter.args) == 1
    ):
        return False
    count = loop.iter.args[0]
    if isinstance(count, ast.Constant):
        return count.value == 1
    if not isinstance(count, ast.Name):
        return False
    func = mod.function_of(loop)
    if bound_only_to(func if func is not None else mod.tree, count.id, func, 1):
        return True  # iter = 1 ... for j in range(iter)
    if func is None:
        return False
    default = defaults_of(func).get(count.id)
    if not (isinstance(default, ast.Constant) and default.value == 1):
        return False
    sites = [c for c in mod.calls if tail(c) == func.name]
    return bool(sites) and not any(
        any(k.arg is None for k in c.keywords)  # **kwargs may pass it
        or bound_argument(c, func, count.id) is not None
        or any(isinstance(a, ast.Starred) for a in c.args)  # *args may reach it
        for c in sites
    )


def _yields(loop: Loop) -> bool:
    """The loop hands items on (``while True: yield from iter(self.sampler)``).

    A generator that repeats or wraps a sampler (yolov5's ``_RepeatSampler``,
    infinite loaders) is not an epoch loop: whoever iterates it drives the
    epochs, and its ``set_epoch`` is what counts.
    """
    return any(isinstance(node, ast.Yield | ast.YieldFrom) for node in ast.walk(loop))


def _reseeded(flow: Flow, loop: Loop, body_calls: list[ast.Call]) -> bool:
    """The loop builds its sampler anew each pass with a seed that reads the loop variable.

    ``for epoch in ...: DistributedSampler(ds, seed=base + epoch)`` changes the
    order every epoch without ``set_epoch`` (a fresh sampler with a fixed seed
    would not).
    """
    if not isinstance(loop, ast.For | ast.AsyncFor):
        return False
    counters = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    for call in body_calls:
        if not needs_set_epoch(flow.mod, call):
            continue
        seed = argument(call, "seed", 4 if tail(call) == "DistributedSampler" else None)
        if seed is not None and any(
            isinstance(n, ast.Name) and n.id in counters for n in ast.walk(seed)
        ):
            return True
    return False


def _rebuilt_from_the_counter(loop: Loop, site: ast.AST) -> bool:
    """The loader the site reads is built anew in the loop from the loop's own variable.

    Modulated-Spherical-Fourier-Neural-Operator's ``save_forecast``: ``for j in
    range(n): dataloader = self.save_forecast_dataloader(start[j], end[j])``,
    then ``for i, data in enumerate(dataloader)``: each pass reads another
    slice of the data through a new sampler, so no order is repeated (and a
    builder handed the epoch builds that epoch's order). A progress bar made
    each pass around the same loader (``tqdm(loader, desc=f"Epoch {epoch}")``)
    is no new loader: the wrappers are looked through.
    """
    if not isinstance(loop, ast.For | ast.AsyncFor):
        return False
    read = site.iter if isinstance(site, ast.For | ast.AsyncFor) else site
    if isinstance(read, ast.Call) and tail(read) == "iter" and read.args:
        read = read.args[0]
    name = dotted(_unwrapped(read))
    counters = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    return name is not None and _built_from(loop, name, counters, depth=3)


def _built_from(loop: Loop, name: str, counters: set[str], depth: int) -> bool:
    """``name`` is bound in ``loop``'s body to a call that reads ``counters`` (through wrappers)."""
    for statement in loop.body:
        for node in ast.walk(statement):
            if not (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Call)
                and any(dotted(t) == name for t in node.targets)
            ):
                continue
            value = _unwrapped(node.value)
            if isinstance(value, ast.Call):
                if any(isinstance(n, ast.Name) and n.id in counters for n in ast.walk(value)):
                    return True
            elif (
                depth
                and (inner := dotted(value)) is not None
                and inner != name
                and _built_from(loop, inner, counters, depth - 1)
            ):
                return True
    return False


def unsynced_loops(mod: Module) -> list[tuple[Loop, str]]:
    """Epoch loops without ``set_epoch``, each with what it iterates; sorted by position."""
    cached = mod.cache.get("loops")
    if isinstance(cached, list):
        return cached
    found = _find_loops(flow_of(mod))
    mod.cache["loops"] = found
    return found
