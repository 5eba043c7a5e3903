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

from .launch_counts import logical_lines
from .tree_texts import TooManyFiles, tree_files, tree_texts

__all__ = [
    "one_device",
    "read_accelerate_processes",
    "read_config_entry",
    "read_trainer_devices",
    "read_trainer_settings",
    "read_trainer_values",
]

_CONFIGS = ("*.yaml", "*.yml")
_ONE = re.compile(r"""^(?:1|['"]1['"]|\[\s*\d+\s*\]|['"]\d+,?['"])$""")


#: ``accelerator: cpu``: Lightning's default ``devices="auto"`` is one CPU device there.
_CPU = re.compile(r"""^['"]?cpu['"]?$""")


def _trainer_devices(text: str) -> str | None:
    """The ``devices``/``gpus`` value of the top-level ``trainer:`` block; ``""`` if unset.

    A block that sets ``accelerator: cpu`` and no count runs one device: ``"1"``.
    """
    value = _trainer_block_option(text, ("devices", "gpus"))
    if value == "" and _CPU.match(_trainer_block_option(text, ("accelerator",)) or ""):
        return "1"
    return value


def _trainer_block_option(text: str, keys: tuple[str, ...]) -> str | None:
    """The value of the first of ``keys`` one level inside the top-level ``trainer:`` block.

    ``""`` if the block sets none of them, ``None`` if the text has no such block.
    Deeper keys (a logger's or a callback's arguments) are not the trainer's.
    """
    pattern = re.compile(rf"^[ ]+(?:{'|'.join(map(re.escape, keys))})\s*:\s*(?P<value>[^#\n]*)")
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
                continue
            match = pattern.match(inner)
            if match:
                return match.group("value").strip()
        return ""
    return None


def _top_level(key: str) -> re.Pattern[str]:
    """``key: value`` at a YAML file's top level (a config group file, a trainer file)."""
    return re.compile(rf"^{re.escape(key)}\s*:\s*(?P<value>[^#\n]*)", re.M)


def _launch_override(key: str) -> re.Pattern[str]:
    """``--trainer.key V`` or ``trainer.key=V`` on a launch line (LightningCLI, Hydra)."""
    return re.compile(
        rf"(?<![\w-])(?:--)?trainer\.{re.escape(key)}(?:[ \t]*=[ \t]*|[ \t]+)(?P<value>[^\s\\]+)"
    )


_TOP_KEY = re.compile(r"^(?P<key>devices|gpus)\s*:\s*(?P<value>[^#\n]*)", re.M)
#: Command-line overrides of a Hydra trainer's devices (``trainer.devices=4``).
_OVERRIDE = re.compile(r"(?<![\w.-])trainer\.(?:devices|gpus)=(?P<value>[^\s\\]+)")
_LAUNCH_TEXTS = ("*.sh", "*.bash", "*.md", "*.slurm")


_TOP_ACCELERATOR = re.compile(r"^accelerator\s*:\s*(?P<value>[^#\n]*)", re.M)


def _group_devices(text: str) -> str:
    """A Hydra ``trainer/`` group file's top-level ``devices``/``gpus``; ``""`` if unset.

    Modular-Image-Classification's ``configs/trainer/cpu.yaml`` sets
    ``accelerator: cpu`` and no count: Lightning's ``devices="auto"`` takes one
    CPU device there, so the file gives ``"1"``.
    """
    match = _TOP_KEY.search(text)
    if match:
        return match.group("value").strip()
    accelerator = _TOP_ACCELERATOR.search(text)
    if accelerator and _CPU.match(accelerator.group("value").strip()):
        return "1"
    return ""


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
        configs = list(tree_files(folder, _CONFIGS))
        launches = list(tree_texts(folder, _LAUNCH_TEXTS))
        chosen = _chosen_trainer_files(configs, launches)
        for path, text in configs:
            if path.parent.name == "trainer":
                if chosen is None or path.stem in chosen:
                    found.append(_group_devices(text) or _inherited_devices(text, configs))
                continue
            value = _trainer_devices(text)
            if value == "" and chosen is not None:
                # Hydra merges a trainer: block into the group file a run chooses (an
                # experiment config's block too): one that sets no devices keeps its
                continue
            if value is not None:
                found += _interpolated(value, configs, launches)
        for text in launches:
            found += [m.group("value").strip("\"'") for m in _OVERRIDE.finditer(text)]
    except TooManyFiles:
        pass  # the configs read so far
    return found


#: A defaults-list entry choosing a ``trainer`` group file: ``- trainer: gpu``,
#: ``- override /trainer: ddp``.
_DEFAULTS_CHOICE = re.compile(r"^\s*-\s*(?:override\s+)?/?trainer\s*:\s*(?P<file>[\w./-]+)", re.M)
#: A launch line's choice of a ``trainer`` group file: ``trainer=ddp`` (not ``trainer.x=``).
_LAUNCH_CHOICE = re.compile(r"(?<![\w.-])\+*trainer=(?P<file>[\w./-]+)")


def _chosen_trainer_files(configs: list[tuple[Path, str]], launches: list[str]) -> set[str] | None:
    """The ``trainer`` group files some shipped run chooses; ``None`` where no config chooses.

    confident-learning's three primary configs list ``- trainer: gpu`` (one
    device) and no launch line passes ``trainer=ddp``: its ``trainer/ddp.yaml``
    (four devices) is a choice no shipped run makes. A tree whose configs
    name no ``trainer`` choice in a defaults list is read as before (every
    file of the group is a run's choice).
    """
    named = {
        m.group("file").rsplit("/", 1)[-1].removesuffix(".yaml")
        for _, text in configs
        for m in _DEFAULTS_CHOICE.finditer(text)
    }
    if not named:
        return None
    for text in launches:
        named |= {m.group("file").removesuffix(".yaml") for m in _LAUNCH_CHOICE.finditer(text)}
    return named


#: A group file's own defaults list naming a sibling it extends: ``defaults: - default``.
_SIBLING_DEFAULT = re.compile(r"^defaults\s*:\s*\n(?:\s*-\s*(?P<file>[\w.-]+)\s*\n?)", re.M)


def _inherited_devices(text: str, configs: list[tuple[Path, str]]) -> str:
    """The devices a group file that sets none takes from the sibling its defaults list names."""
    match = _SIBLING_DEFAULT.search(text)
    if match is None:
        return ""
    sibling = match.group("file").removesuffix(".yaml")
    for path, other in configs:
        if path.parent.name == "trainer" and path.stem == sibling:
            return _group_devices(other)
    return ""


#: An OmegaConf interpolation of another config group's key: ``${computer.devices}``.
_INTERPOLATION = re.compile(r"^\$\{(?P<group>\w+)\.(?P<key>\w+)\}$")


def _interpolated(value: str, configs: list[tuple[Path, str]], launches: list[str]) -> list[str]:
    """``value``, or what each file of the Hydra group it interpolates sets its key to.

    SitsSCD's ``trainer: devices: ${computer.devices}``, with every file of the
    ``computer`` group (``configs/computer/gpu.yaml``) setting ``devices: 1``;
    a launch line's ``computer.devices=4`` override counts too. A group with no
    file of the tree keeps the value as written (unknown).
    """
    match = _INTERPOLATION.match(value)
    if match is None:
        return [value]
    group, key = match.group("group"), match.group("key")
    top = _top_level(key)
    values = []
    for path, text in configs:
        if path.parent.name == group:
            setting = top.search(text)
            values.append(setting.group("value").strip() if setting else "")
    if not values:
        return [value]
    override = re.compile(rf"(?<![\w.-]){re.escape(group)}\.{re.escape(key)}=(?P<value>[^\s\\]+)")
    for text in launches:
        values += [m.group("value").strip("\"'") for m in override.finditer(text)]
    return values


_YAML_KEY = re.compile(r"^(?P<indent>[ ]*)(?P<key>[\w.-]+)\s*:\s*(?P<value>[^#\n]*)")


def _nested_values(text: str, keys: tuple[str, ...]) -> list[str]:
    """What a YAML text sets the nested key ``keys`` to; ``""`` for a parent block without it.

    Read by indentation, as ``_trainer_block_option`` reads the trainer block:
    ``training:`` at the top level and ``devices: 1`` one level inside is
    ``["1"]`` for ``("training", "devices")``; a ``training:`` block that
    sets no ``devices`` gives ``[""]`` (the code's default decides); a text
    without the block gives nothing.
    """
    found: list[str] = []
    stack: list[tuple[int, str]] = []
    parent_blocks = 0
    set_in_block = False
    for line in text.splitlines():
        match = _YAML_KEY.match(line)
        if match is None:
            continue  # blank, comment, list item, continuation
        indent = len(match.group("indent"))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = (*(key for _, key in stack), match.group("key"))
        if path == keys[:-1]:
            if parent_blocks and not set_in_block:
                found.append("")
            parent_blocks += 1
            set_in_block = False
        if path == keys:
            found.append(match.group("value").strip().strip("\"'"))
            set_in_block = True
        stack.append((indent, match.group("key")))
    if parent_blocks and not set_in_block:
        found.append("")
    return found


def read_config_entry(folder: Path, keys: tuple[str, ...]) -> list[str]:
    """Every value the tree's YAML configs and launch lines give the nested key ``keys``.

    protfrag's ``devices=config["training"].get("devices", 1)`` with
    ``training: devices: 1`` in its one config: ``["1"]``. A config whose
    ``training:`` block leaves the key unset gives ``""``; a launch line that
    names the key (``training.devices=4``, ``--devices 4``) adds its value,
    the leaf's name alone being enough (an option the script may copy in).
    Each file of a Hydra config group named for the first key
    (``config/cluster/*.yaml`` for ``cfg.cluster.gpus_per_node``) gives its
    top-level value: the group's choice is the block.
    """
    leaf = _launch_leaf(keys[-1])
    found: list[str] = []
    try:
        for path, text in tree_files(folder, _CONFIGS):
            found += _nested_values(text, keys)
            if len(keys) > 1 and path.parent.name == keys[0]:
                # a Hydra config group file (NIH-ML's config/cluster/train.yaml, read
                # as cfg.cluster): its top level is the group's block
                found += _nested_values(text, keys[1:])
        for text in tree_texts(folder, _LAUNCH_TEXTS):
            found += [m.group("value").strip("\"'") for m in leaf.finditer(_own_flags(text))]
    except TooManyFiles:
        return [*found, "?"]  # configs not read may set anything
    return found


#: A container runtime's command: the flags before the command it runs are its own.
_CONTAINER_RUN = re.compile(r"^\s*(?:sudo\s+)?(?:nvidia-docker|docker|podman)\s+(?:run|exec)\b")
#: Where the command run inside the container starts.
_INNER_COMMAND = re.compile(r"\b(?:python\d*(?:\.\d+)?|torchrun|accelerate|deepspeed|bash|sh)\s")


def _own_flags(text: str) -> str:
    """``text`` with each container runtime's own flags blanked out.

    deepsteganalysis's ``run_script.sh`` starts ``docker run --gpus all -it
    ...``: ``--gpus all`` asks Docker to expose every GPU to the container, and
    says nothing of the ``training.gpus`` its configs set to ``[0]``. On a
    ``docker run`` (``podman``, ``nvidia-docker``) line, what comes before the
    command it runs (``python``, ``torchrun``, ``bash``...) is dropped; a line
    that runs none keeps nothing.
    """
    lines = logical_lines(text)  # a command continued with a trailing backslash is one line
    for index, line in enumerate(lines):
        if _CONTAINER_RUN.match(line):
            inner = _INNER_COMMAND.search(line)
            lines[index] = line[inner.start() :] if inner else ""
    return "\n".join(lines)


def _launch_leaf(key: str) -> re.Pattern[str]:
    """``--key V``, ``--key=V``, ``a.b.key=V`` or ``key=V`` on a launch line."""
    name = re.escape(key)
    return re.compile(
        rf"(?:--{name}(?:[ \t]*=[ \t]*|[ \t]+)|(?<![\w-]){name}[ \t]*=[ \t]*)(?P<value>[^\s\\]+)"
    )


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


def read_trainer_values(folder: Path, key: str) -> list[str]:
    """Every value the tree's YAML configs and launch lines give the trainer option ``key``.

    ``limit_val_batches: 0`` in a LightningCLI trainer config (LiSu's
    ``configs/lisu_trainer.yaml``, whose top level is the trainer's options),
    at any indentation under a ``trainer:`` block, and ``--trainer.key V`` or
    ``trainer.key=V`` on a launch line. The option's name is specific enough to
    Lightning's Trainer that a YAML key of that name is read as it.
    """
    name = re.escape(key)
    in_config = re.compile(rf"^[ \t]*{name}[ \t]*:[ \t]*(?P<value>[^#\n]*)", re.M)
    on_line = _launch_override(key)
    found: list[str] = []
    try:
        for text in tree_texts(folder, _CONFIGS):
            found += [m.group("value").strip().strip("\"'") for m in in_config.finditer(text)]
        for text in tree_texts(folder, _LAUNCH_TEXTS):
            found += [m.group("value").strip("\"'") for m in on_line.finditer(text)]
    except TooManyFiles:
        return found  # the configs read so far
    return found


_TRAINER_FILE = re.compile(
    r"^trainer\s*:\s*['\"]?(?P<file>[\w./-]+\.ya?ml)['\"]?\s*(?:#.*)?$", re.M
)


def read_trainer_settings(folder: Path, key: str) -> list[str]:
    """What each trainer config of the tree sets the option ``key`` to (``""``: left unset).

    A config's ``trainer:`` block, or the file a ``trainer: lisu_trainer.yaml``
    line names (LightningCLI reads that file's top level as the trainer's
    options); then every ``--trainer.key V`` or ``trainer.key=V`` a launch line
    passes. A config that leaves the option unset keeps Lightning's default:
    ClimaX's ``pretrain_climax.yaml`` sets ``limit_val_batches: 0``, its
    ``climate_projection.yaml`` does not, and validates.
    """
    found: list[str] = []
    top = _top_level(key)
    try:
        for path, text in tree_files(folder, _CONFIGS):
            named = _TRAINER_FILE.search(text)
            if named is not None:
                target = path.parent / named.group("file")
                try:
                    inner = target.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    found.append("")
                    continue
                match = top.search(inner)
                found.append(match.group("value").strip().strip("\"'") if match else "")
                continue
            value = _trainer_block_option(text, (key,))
            if value is not None:
                found.append(value.strip("\"'"))
        on_line = _launch_override(key)
        for text in tree_texts(folder, _LAUNCH_TEXTS):
            found += [m.group("value").strip("\"'") for m in on_line.finditer(text)]
    except TooManyFiles:
        found.append("")  # configs left unread may leave it unset
    return found
