"""Lint rules about the DataLoader and the environment.

Rules FS102, FS103 and FS106: DataLoader arguments that PyTorch rejects or
that leave a distributed job unsharded, and GPU selection done inside the
script instead of by the launcher. Each rule reads the syntax tree (never
runs the script) and yields ``(node, message)`` pairs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .names import Module, argument, calls, dotted, is_constant, loader_shuffles, tail
from .registry import rule

__all__: list[str] = []


def _given(node: ast.AST | None) -> bool:
    return node is not None and not is_constant(node, None)


@rule(
    "FS102",
    "shuffle-with-sampler",
    "DataLoader(shuffle=True) together with sampler= or batch_sampler=: PyTorch raises "
    "ValueError when the loader is built (the two options are mutually exclusive)",
    "drop shuffle=True; the sampler decides the order (use its own shuffle argument)",
)
def _shuffle_with_sampler(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    for call in calls(mod.tree):
        if tail(call) != "DataLoader" or not loader_shuffles(call):
            continue
        for key, pos in (("sampler", 3), ("batch_sampler", 4)):
            if _given(argument(call, key, pos)):
                yield (
                    call,
                    (
                        f"DataLoader(shuffle=True, {key}=...) raises ValueError in PyTorch; remove "
                        "shuffle=True and let the sampler shuffle"
                    ),
                )
                break


@rule(
    "FS103",
    "unsharded-loader",
    "the script initializes a process group but builds DataLoader(shuffle=True) without a "
    "distributed sampler: every rank reads the whole dataset in its own order",
    "pass sampler=fairshard.DistributedSampler(dataset) (or PyTorch's) and drop shuffle=True",
)
def _unsharded_loader(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    if not any(tail(c) == "init_process_group" for c in calls(mod.tree)):
        return
    for call in calls(mod.tree):
        if tail(call) != "DataLoader" or not loader_shuffles(call):
            continue
        if _given(argument(call, "sampler", 3)) or _given(argument(call, "batch_sampler", 4)):
            continue
        yield (
            call,
            (
                "DataLoader(shuffle=True) without a distributed sampler in a script that calls "
                "init_process_group: every rank reads the whole dataset; pass "
                "sampler=DistributedSampler(dataset)"
            ),
        )


_CVD = "CUDA_VISIBLE_DEVICES"


def _is_environ(node: ast.AST) -> bool:
    return (dotted(node) or "").endswith("environ")


@rule(
    "FS106",
    "cuda-visible-devices",
    "the script sets os.environ['CUDA_VISIBLE_DEVICES']: it is ignored once CUDA is "
    "initialized (any earlier import may do that), and under torchrun each process then "
    "picks GPUs on its own",
    "set CUDA_VISIBLE_DEVICES in the launch command (CUDA_VISIBLE_DEVICES=0,1 torchrun ...) "
    "and call torch.cuda.set_device(local_rank) in the script",
)
def _cuda_visible_devices(mod: Module) -> Iterator[tuple[ast.AST, str]]:
    message = (
        "setting CUDA_VISIBLE_DEVICES inside the script is too late once CUDA is initialized "
        "and fights the launcher; set it on the command line and use torch.cuda.set_device"
    )
    for node in ast.walk(mod.tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if (
                isinstance(target, ast.Subscript)
                and _is_environ(target.value)
                and isinstance(target.slice, ast.Constant)
                and target.slice.value == _CVD
            ):
                yield node, message
        if isinstance(node, ast.Call):
            name = dotted(node.func) or ""
            first = node.args[0] if node.args else None
            keyed = isinstance(first, ast.Constant) and first.value == _CVD
            setter = name.endswith(("environ.setdefault", "putenv")) and keyed
            updater = name.endswith("environ.update") and (
                any(k.arg == _CVD for k in node.keywords)
                or (
                    isinstance(first, ast.Dict)
                    and any(isinstance(k, ast.Constant) and k.value == _CVD for k in first.keys)
                )
            )
            if setter or updater:
                yield node, message
