"""Evaluation loops that stop after a set number of batches (rule FS109).

A padding sampler repeats samples at the end of a rank's share (PyTorch's
``DistributedSampler`` appends the head of the index list and strides it, so
the repeats are the last item of some ranks' shares); accelerate fills the
last batch of the ranks that run short. An evaluation that ``break``s once
the batch index reaches a bound (``if i >= max_batches: break``, LoCoCo's
``--eval_iter 20``, GeothermalVoxelNet's ``evaluate(..., max_batches=50)``)
reads the repeats only where the set is shorter than the bound: a quick
check on a part of a large set, which counts nothing twice. Nothing here
says the cap is below the share's length; a cap is written for sets longer
than it, and a bound no run sets is no cap.
"""

from __future__ import annotations

import ast

from .consumers import carrying_names, consumer_sites, readers
from .flow import bound_argument, defaults_of, parameters
from .names import Module, dotted, is_constant, tail
from .options import shipped_default

__all__ = ["capped", "every_read_capped"]

Function = ast.FunctionDef | ast.AsyncFunctionDef


def capped(mod: Module, loop: ast.For | ast.AsyncFor, call: ast.Call | None = None) -> bool:
    """``loop`` over ``enumerate(loader)`` breaks once its index reaches a bound that is set.

    A bound that is an option every shipped run leaves at ``None`` (the test
    guarded by ``args.eval_iter is not None``) caps nothing; nor does a
    parameter of the loop's function that ``call`` (the call that reached the
    function, where known) leaves at a ``None`` default or passes ``None``.
    """
    if not (
        isinstance(loop.iter, ast.Call)
        and tail(loop.iter) == "enumerate"
        and isinstance(loop.target, ast.Tuple)
        and loop.target.elts
        and isinstance(loop.target.elts[0], ast.Name)
    ):
        return False
    index = loop.target.elts[0].id
    for node in ast.walk(loop):
        if not (isinstance(node, ast.If) and any(isinstance(b, ast.Break) for b in node.body)):
            continue
        for compare in ast.walk(node.test):
            if not (
                isinstance(compare, ast.Compare)
                and isinstance(compare.left, ast.Name)
                and compare.left.id == index
                and len(compare.ops) == 1
                and isinstance(compare.ops[0], ast.Eq | ast.GtE | ast.Gt)
            ):
                continue
            if _set(mod, loop, compare.comparators[0], call):
                return True
    return False


def _set(mod: Module, loop: ast.AST, bound: ast.expr, call: ast.Call | None) -> bool:
    if isinstance(bound, ast.Attribute):
        return not is_constant(shipped_default(mod, bound.attr), None)
    func = mod.function_of(loop)
    if call is None or not isinstance(bound, ast.Name) or func is None:
        return True
    if bound.id not in parameters(func):
        return True  # a local of the loop's function
    given = bound_argument(call, func, bound.id)
    if given is None:
        given = defaults_of(func).get(bound.id)
    return given is not None and not is_constant(given, None)


def every_read_capped(mod: Module, sampler: ast.Call) -> bool:
    """Every loop over ``sampler``'s loader, here or where it is handed, is capped.

    The loader's uses in ``mod`` are followed (see :func:`consumers.readers`)
    to the loops over it; a use that cannot be followed, or a loop with no
    cap, leaves the repeats within reach.
    """
    names = carrying_names(mod, sampler)
    sites = consumer_sites(mod, names)
    if not sites:
        return False
    for site in sites:
        if isinstance(site, ast.For | ast.AsyncFor):
            if not capped(mod, site):
                return False
            continue
        if not isinstance(site, ast.Call):
            return False  # a comprehension reads every batch
        found = readers(mod, site, names)
        if not found:
            return False
        for reader in found:
            loops = [
                n
                for n in ast.walk(reader.function)
                if isinstance(n, ast.For | ast.AsyncFor)
                and any(dotted(x) in reader.names for x in ast.walk(n.iter))
            ]
            call = reader.path[-1][1] if reader.path else None
            if not loops or not all(capped(reader.module, loop, call) for loop in loops):
                return False
    return True
