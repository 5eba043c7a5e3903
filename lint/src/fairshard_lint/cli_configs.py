"""The devices a Lightning CLI tree's shipped configs give its trainer (FS109).

A tree run through ``LightningCLI`` chooses its devices in YAML, not in
code: vocos' four configs all set ``trainer: devices: [0]``, so every
shipped run is one process and Lightning pads no evaluation loader. The
configs are read as text (the linter has no YAML dependency): a top-level
``trainer:`` block and, one level inside it, its ``devices:`` (or, before
Lightning 1.7, ``gpus:``) value. A block without one leaves Lightning's
default (all devices), which is not one device.
"""

from __future__ import annotations

import re
from pathlib import Path

from .tree_texts import TooManyFiles, tree_files, tree_texts

__all__ = ["one_device", "read_accelerate_processes", "read_trainer_devices"]

_CONFIGS = ("*.yaml", "*.yml")
_KEY = re.compile(r"^(?P<indent>[ ]+)(?P<key>devices|gpus)\s*:\s*(?P<value>[^#\n]*)")
_ONE = re.compile(r"""^(?:1|['"]1['"]|\[\s*\d+\s*\]|['"]\d+,?['"])$""")


def _trainer_devices(text: str) -> str | None:
    """The ``devices``/``gpus`` value of the top-level ``trainer:`` block; ``""`` if unset."""
    lines = text.splitlines()
    for start, line in enumerate(lines):
        if line.rstrip() != "trainer:":
            continue
        indent: str | None = None
        for inner in lines[start + 1 :]:
            if inner.strip() == "" or inner.lstrip().startswith("#"):
                continue
            if not inner.startswith(" "):
                break  # the next top-level key
            own = inner[: len(inner) - len(inner.lstrip(" "))]
            indent = own if indent is None else indent
            if own != indent:
                continue  # deeper: a logger's or a callback's arguments
            match = _KEY.match(inner)
            if match:
                return match.group("value").strip()
        return ""
    return None


_TOP_KEY = re.compile(r"^(?P<key>devices|gpus)\s*:\s*(?P<value>[^#\n]*)", re.M)
#: Command-line overrides of a Hydra trainer's devices (``trainer.devices=4``).
_OVERRIDE = re.compile(r"(?<![\w.-])trainer\.(?:devices|gpus)=(?P<value>[^\s\\]+)")
_LAUNCH_TEXTS = ("*.sh", "*.bash", "*.md", "*.slurm")


def _group_devices(text: str) -> str:
    """A Hydra ``trainer/`` group file's top-level ``devices``/``gpus``; ``""`` if unset."""
    match = _TOP_KEY.search(text)
    return match.group("value").strip() if match else ""


def read_trainer_devices(folder: Path) -> list[str]:
    """The trainer device value of every YAML config under ``folder`` that sets the trainer.

    A ``trainer:`` block of any config, and every file of a Hydra ``trainer``
    config group (``configs/trainer/default.yaml`` with a top-level ``devices:
    1``, the layout of the Lightning-Hydra template), whose ``trainer=ddp``
    choice a run may make; and every ``trainer.devices=...`` override a
    shipped launch line passes.
    """
    found: list[str] = []
    try:
        for path, text in tree_files(folder, _CONFIGS):
            if path.parent.name == "trainer":
                found.append(_group_devices(text))
                continue
            value = _trainer_devices(text)
            if value is not None:
                found.append(value)
        for text in tree_texts(folder, _LAUNCH_TEXTS):
            found += [m.group("value").strip("\"'") for m in _OVERRIDE.finditer(text)]
    except TooManyFiles:
        pass  # the configs read so far
    return found


def one_device(values: list[str]) -> bool:
    """Every config sets one device (``1``, ``[0]``, ``"1"``); there is at least one."""
    return bool(values) and all(_ONE.match(value) for value in values)


_ACCELERATE_KIND = re.compile(r"^distributed_type\s*:\s*['\"]?(?P<kind>\w+)", re.M)
_ACCELERATE_COUNT = re.compile(r"^num_processes\s*:\s*(?P<count>\d+)", re.M)


def read_accelerate_processes(folder: Path) -> list[int]:
    """The process count of every accelerate config of the tree (``accelerate config``'s YAML).

    A file with a top-level ``distributed_type:`` and ``num_processes:``
    (``default_config.yaml``, ``deepspeed_zero2.yaml``); ``NO`` as the type
    counts as one process.
    """
    found: list[int] = []
    try:
        for _, text in tree_files(folder, _CONFIGS):
            kind = _ACCELERATE_KIND.search(text)
            count = _ACCELERATE_COUNT.search(text)
            if kind is None or count is None:
                continue
            found.append(1 if kind.group("kind").upper() == "NO" else int(count.group("count")))
    except TooManyFiles:
        pass  # the configs read so far
    return found
