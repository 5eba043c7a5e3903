import ast
import json
import keyword
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard._cli.main import main
from fairshard_lint import (
    ALL,
    DEFAULT_CODES,
    PARSE_ERROR,
    RULES,
    LintConfigError,
    lint_paths,
    lint_source,
)

FIXTURES = Path(__file__).parent / "lint_fixtures"
ROOT = Path(__file__).parents[2]
CODES = sorted(RULES)

#: Lines (1-based) of each bad fixture that must be reported; nothing else may be.
EXPECTED = {
    "FS101": [9, 20],
    "FS102": [6, 8],
    "FS103": [7],
    "FS104": [10, 11, 12, 13],
    "FS105": [14, 15, 16, 17, 33],
    "FS106": [3, 4, 5],
    "FS107": [5, 6],
    "FS108": [5],
    "FS109": [6, 15],
    "FS110": [10, 11, 16, 17, 22, 28],
    "FS111": [7, 11, 17],
    "FS112": [8, 9],
    "FS113": [8, 9],
    "FS114": [11, 11],
    "FS115": [29, 30, 30, 37],
}


def test_rule_codes_are_stable() -> None:
    assert [f"FS{100 + i}" for i in range(1, 16)] == CODES
    assert set(EXPECTED) == set(CODES)
    for rule in RULES.values():
        assert rule.problem and rule.fix and rule.name


@pytest.mark.parametrize("code", CODES)
def test_rule_fires_on_its_fixture(code: str) -> None:
    findings, files = lint_paths([FIXTURES / f"{code.lower()}_bad.py"], select=[ALL])
    assert files == 1
    assert [(f.line, f.code) for f in findings] == [(line, code) for line in EXPECTED[code]]


@pytest.mark.parametrize("code", CODES)
def test_no_rule_fires_on_the_correct_script(code: str) -> None:
    findings, _ = lint_paths([FIXTURES / f"{code.lower()}_good.py"], select=[ALL])
    assert findings == []


def test_bad_fixtures_trigger_only_their_own_rule() -> None:
    findings, files = lint_paths([FIXTURES], select=[ALL])
    assert files == 2 * len(CODES)  # conftest.py is excluded by default
    for finding in findings:
        assert Path(finding.path).name == f"{finding.code.lower()}_bad.py"


def test_noqa_suppresses_named_and_bare() -> None:
    line = "s = WeightedRandomSampler(w, 3, replacement=False)"
    assert [f.code for f in lint_source(line, select=[ALL])] == ["FS107"]
    assert lint_source(line + "  # noqa: FS107", select=[ALL]) == []
    assert lint_source(line + "  # noqa", select=[ALL]) == []
    assert lint_source(line + "  # NOQA:fs104, FS107", select=[ALL]) == []
    assert [f.code for f in lint_source(line + "  # noqa: FS104", select=[ALL])] == ["FS107"]


def test_select_ignore_and_unknown_codes() -> None:
    text = (FIXTURES / "fs104_bad.py").read_text()
    assert lint_source(text, select=["FS101"]) == []
    assert lint_source(text, ignore=["FS104"], select=[ALL]) == []
    with pytest.raises(LintConfigError, match=r"unknown rule codes \['FS999'\]"):
        lint_source(text, select=["FS999"])


#: Rules off unless selected: under one in ten of their findings on the held-out trees of the
#: twenty-third round on were right (docs/lint-measurement.md, "Default and opt-in rules").
OPT_IN = {"FS102", "FS103", "FS104", "FS106", "FS111", "FS112"}


def test_default_rules_leave_out_exactly_the_opt_in_ones() -> None:
    assert set(CODES) - DEFAULT_CODES == OPT_IN
    assert all(RULES[code].default == (code not in OPT_IN) for code in CODES)


@pytest.mark.parametrize("code", CODES)
def test_a_run_checks_an_opt_in_rule_only_when_selected(code: str) -> None:
    bad = FIXTURES / f"{code.lower()}_bad.py"
    expected = [(line, code) for line in EXPECTED[code]]
    default, _ = lint_paths([bad])
    assert [(f.line, f.code) for f in default] == ([] if code in OPT_IN else expected)
    for chosen in ({"select": [code]}, {"extend_select": [code]}, {"select": ["all"]}):
        findings, _ = lint_paths([bad], **chosen)  # type: ignore[arg-type]
        assert [(f.line, f.code) for f in findings] == expected, chosen
    assert lint_paths([bad], select=[ALL], ignore=[code])[0] == []
    assert lint_paths([bad], extend_select=[ALL], ignore=[code])[0] == []
    with pytest.raises(LintConfigError, match=r"extend_select got unknown rule codes"):
        lint_paths([bad], extend_select=["FS999"])


def test_cli_marks_and_turns_on_opt_in_rules(capsys: pytest.CaptureFixture[str]) -> None:
    bad = str(FIXTURES / "fs103_bad.py")
    assert main(["lint", bad]) == 0
    capsys.readouterr()
    assert main(["lint", "--extend-select", "FS103", bad]) == 1
    assert "FS103" in capsys.readouterr().out
    assert main(["lint", "--select", "ALL", "--format", "sarif", bad]) == 1
    rules = json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]["rules"]
    enabled = {r["id"]: r["defaultConfiguration"]["enabled"] for r in rules if r["id"] in RULES}
    assert enabled == {code: code not in OPT_IN for code in CODES}
    assert main(["lint", "--list-rules"]) == 0
    heads = [line for line in capsys.readouterr().out.splitlines() if line.startswith("FS1")]
    assert {line.split()[0] for line in heads if "(opt-in" in line} == OPT_IN


def test_parse_error_is_a_finding() -> None:
    findings = lint_source("def broken(:\n", "x.py", select=[ALL])
    assert [(f.code, f.path, f.line) for f in findings] == [(PARSE_ERROR, "x.py", 1)]


def test_rank_seed_variants() -> None:
    for seed in (
        "rank",
        "base + rank",
        "dist.get_rank()",
        "args.local_rank * 7",
        "int(os.getenv('LOCAL_RANK'))",
        "accelerator.process_index",
    ):
        src = f"s = DistributedSampler(ds, seed={seed})\n"
        assert [f.code for f in lint_source(src, select=[ALL])] == ["FS104"], seed
    assert lint_source("s = DistributedSampler(ds, rank=rank, seed=seed)\n", select=[ALL]) == []


def test_global_seed_without_a_global_rng_sampler_is_fine() -> None:
    src = "import torch\ntorch.manual_seed(rank)\ns = DistributedSampler(ds)\n"
    assert lint_source(src, select=[ALL]) == []
    src = "import torch\ntorch.manual_seed(rank)\nl = DataLoader(ds, shuffle=True)\n"
    assert [f.code for f in lint_source(src, select=[ALL])] == ["FS104"]


def test_set_epoch_in_while_loop_and_direct_sampler_iteration() -> None:
    src = "s = DistributedSampler(ds)\nwhile True:\n    for i in s:\n        pass\n"
    assert [(f.code, f.line, f.col) for f in lint_source(src, select=[ALL])] == [("FS101", 2, 1)]


def test_project_examples_have_no_findings() -> None:
    examples = ROOT / "examples"
    if not examples.is_dir():
        pytest.skip("no examples/ folder in this checkout")
    findings, files = lint_paths([examples], select=[ALL])
    assert files > 0
    assert findings == [], "\n".join(str(f) for f in findings)


# ------------------------------------------------------------------- CLI
def test_cli_text_output_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    bad = FIXTURES / "fs107_bad.py"
    assert main(["lint", str(bad)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith(f"{bad}:5:9: FS107 WeightedRandomSampler(replacement=False)")
    assert len(lines) == 2
    assert main(["lint", str(FIXTURES / "fs107_good.py")]) == 0
    assert capsys.readouterr().out == ""
    assert main(["lint", str(bad), "--ignore", "FS107"]) == 0


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["lint", "--select", "ALL", "--format", "json", str(FIXTURES / "fs106_bad.py")]) == 1
    )
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "fairshard.lint" and doc["version"] == 1
    assert doc["files"] == 1 and doc["count"] == 3
    first = doc["findings"][0]
    assert set(first) == {"path", "line", "col", "code", "message", "rule"}
    assert (first["line"], first["col"], first["code"], first["rule"]) == (
        3,
        1,
        "FS106",
        "cuda-visible-devices",
    )


def test_cli_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint"]) == 2
    assert "at least one PATH" in capsys.readouterr().err
    assert main(["lint", "no/such/file.py"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["lint", "--select", "FS999", str(FIXTURES)]) == 2
    assert "unknown rule codes" in capsys.readouterr().err
    assert main(["lint", "--format", "xml", str(FIXTURES)]) == 2


def test_cli_list_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--list-rules"]) == 0
    out = capsys.readouterr().out
    for code, rule in RULES.items():
        assert f"{code} {rule.name}" in out
    assert "problem:" in out and "fix:" in out


def test_pitfalls_doc_lists_every_rule() -> None:
    doc = (ROOT / "docs" / "pitfalls.md").read_text()
    assert "## Pitfalls" in doc
    for code in CODES:
        assert f"`{code}`" in doc


def test_readme_lists_every_rule_and_fs108_says_the_real_harm() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Pitfalls") :]
    section = section[: section.index("\n## ", 4)]
    for code in CODES:
        assert f"`{code}`" in section
    rule = RULES["FS108"]
    doc = (ROOT / "docs" / "pitfalls.md").read_text()
    for text in (rule.problem, section, doc):
        # the strided layout gives every rank every class: the harm is single-class
        # batches and the same batches every epoch, not whole classes on one rank
        assert "whole classes on one rank" not in text
        assert "every class" in text and "single" in text.replace("-", " ")


_DIST = (
    "import torch.distributed as dist\n"
    "from torch.utils.data import DataLoader\n"
    "dist.init_process_group('nccl')\n"
)


@pytest.mark.parametrize(
    "flag",
    [
        'hparams["dataloader_options"]["shuffle"]',
        'cfg["train"]["shuffle"]',
        'cfg.get("shuffle", False)',
        'config.get("shuffle_train")',
        "config.data.train.shuffle",
        "self.hparams.shuffle",
        "args.shuffle",
    ],
)
def test_fs103_reads_a_config_valued_shuffle_as_unknown(flag: str) -> None:
    train = lint_source(
        _DIST + f"train_loader = DataLoader(train_set, shuffle={flag})\n", select=[ALL]
    )
    assert [f.code for f in train] == ["FS103"]
    assert "shuffle=" in train[0].message
    # evaluation loaders read whole by every rank are left alone
    assert (
        lint_source(_DIST + f"val_loader = DataLoader(val_set, shuffle={flag})\n", select=[ALL])
        == []
    )


@pytest.mark.parametrize(
    "flag", ["shuffle", "is_train", "False", 'cfg["train"]["batch_size"]', "split == 'train'"]
)
def test_fs103_leaves_flags_that_are_not_config_lookups_of_shuffle(flag: str) -> None:
    assert (
        lint_source(_DIST + f"train_loader = DataLoader(train_set, shuffle={flag})\n", select=[ALL])
        == []
    )


@pytest.mark.parametrize("base", ["sb.Brain", "sb.core.Brain", "speechbrain.core.Brain", "Brain"])
def test_fs103_a_speechbrain_brain_subclass_makes_the_script_distributed(base: str) -> None:
    head = "import speechbrain as sb\nimport speechbrain\nfrom speechbrain.core import Brain\n"
    head += "from torch.utils.data import DataLoader\n"
    body = f"class ASR({base}):\n    pass\nloader = DataLoader(train_set, shuffle=True)\n"
    assert [f.code for f in lint_source(head + body, select=[ALL])] == ["FS103"]
    # any other base class says nothing about the world
    other = head + "class ASR(Trainer):\n    pass\nloader = DataLoader(train_set, shuffle=True)\n"
    assert lint_source(other, select=[ALL]) == []


#: A distributed data-loading script (a process group), where FS106 applies.
_FS106_HEAD = (
    "import os\nimport torch\nimport torch.distributed as dist\n"
    "from torch.utils.data import DataLoader\n"
    'dist.init_process_group("nccl")\n'
)


@pytest.mark.parametrize(
    "value",
    [
        'os.environ["SLURM_LOCALID"]',
        'os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", "0")',
        'os.environ["MV2_COMM_WORLD_LOCAL_RANK"]',
        "str(args.local_rank)",
        'f"{MPI.COMM_WORLD.Get_rank() % 8}"',
        "str(rank % torch.cuda.device_count())",
        "str(local_id)",
    ],
)
def test_fs106_leaves_per_process_pinning_alone(value: str) -> None:
    head = _FS106_HEAD
    assert lint_source(head + f'os.environ["CUDA_VISIBLE_DEVICES"] = {value}\n', select=[ALL]) == []
    setdefault = f'os.environ.setdefault("CUDA_VISIBLE_DEVICES", {value})\n'
    assert lint_source(head + setdefault, select=[ALL]) == []


@pytest.mark.parametrize("value", ['"0"', '"0,1,2,3"', "args.gpus", "','.join(gpus)"])
def test_fs106_still_reports_the_same_value_in_every_process(value: str) -> None:
    head = _FS106_HEAD
    found = lint_source(head + f'os.environ["CUDA_VISIBLE_DEVICES"] = {value}\n', select=[ALL])
    assert [f.code for f in found] == ["FS106"]


_BUILDER = """\
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
{imports}

def build(dataset):
    train_loader = DataLoader(dataset, sampler=DistributedSampler(dataset))
    return train_loader

def main(dataset, model, epochs, {owner}):
    dist.init_process_group("nccl")
    train_loader = {prepare}
    for epoch in range(epochs):
        for batch in train_loader:
            model(batch)
"""


@pytest.mark.parametrize(
    ("imports", "owner", "prepare", "codes"),
    [
        (
            "from accelerate import Accelerator",
            "accelerator",
            "accelerator.prepare(build(dataset))",
            [],
        ),
        (
            "from fairshard.integrations.accelerate import prepare_data_loader",
            "accelerator",
            "prepare_data_loader(accelerator, build(dataset))",
            [],
        ),
        (
            "from accelerate.data_loader import prepare_data_loader",
            "state",
            "prepare_data_loader(build(dataset))",
            [],
        ),
        ("import lightning as L", "fabric", "fabric.setup_dataloaders(build(dataset))", []),
        # Ray Train's prepare_data_loader does not call set_epoch: still reported
        (
            "from ray.train.torch import prepare_data_loader",
            "unused",
            "prepare_data_loader(build(dataset))",
            ["FS101"],
        ),
        ("import os", "unused", "build(dataset)", ["FS101"]),
    ],
)
def test_fs101_prepared_loaders_set_their_epoch(
    imports: str, owner: str, prepare: str, codes: list[str]
) -> None:
    text = _BUILDER.format(imports=imports, owner=owner, prepare=prepare)
    assert [f.code for f in lint_source(text, select=[ALL])] == codes


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ("rank == -1", ("rank", ("in", ("-1",)))),
        ("rank != -1", ("rank", ("notin", ("-1",)))),
        ("-1 != rank", ("rank", ("notin", ("-1",)))),
        ("rank is None", ("rank", ("in", ("None",)))),
        ("rank in (-1, 0)", ("rank", ("in", ("-1", "0")))),
        ("not rank in [-1, 0]", ("rank", ("notin", ("-1", "0")))),
        ("rank not in {-1, 0}", ("rank", ("notin", ("-1", "0")))),
        ("not distributed", ("distributed", ("truthy", False))),
        ("rank > 0", ("rank", ("gt", ("0",)))),
        ("1 < rank", ("rank", ("gt", ("1",)))),
        ("not rank >= 2", ("rank", ("lt", ("2",)))),
        ("rank <= -1", ("rank", ("le", ("-1",)))),
        ("rank > limit", None),  # a bound that is no number
        ("rank > True", None),
        ("other == 0", None),
    ],
)
def test_branch_following_reads_every_comparison_form(test: str, expected: object) -> None:
    import ast

    from fairshard_lint.project import parameter_test

    node = ast.parse(test, mode="eval").body
    assert parameter_test(node, {"rank", "distributed"}) == expected


@pytest.mark.parametrize(
    ("need", "given", "holds"),
    [
        (("gt", ("1",)), "1", False),
        (("gt", ("1",)), "4", True),
        (("ge", ("2",)), "2", True),
        (("lt", ("2",)), "1.5", True),
        (("le", ("-1",)), "0", False),
        (("gt", ("1",)), "world_size", None),  # a value not read here may meet it
        (("gt", ("1",)), "True", None),
    ],
)
def test_an_ordering_test_is_met_only_by_numbers_that_meet_it(
    need: tuple[str, tuple[str, ...]], given: str, holds: bool | None
) -> None:
    import ast

    from fairshard_lint.project import _order_holds

    assert _order_holds(need, ast.parse(given, mode="eval").body) is holds


@pytest.mark.parametrize(
    ("value", "set_device", "reported"),
    [
        ('"-1"', False, False),  # no GPU at all: a CPU run on purpose
        ('""', True, False),
        ('"0,1,2,3"', True, False),  # the same list, each process picks its own GPU in it
        ("opt.device", True, False),
        ('"0"', True, True),  # one GPU for every process: ranks 1 and up cannot see theirs
        ('"0,1,2,3"', False, True),  # no pick: every process computes on the first GPU
    ],
)
def test_fs106_reports_a_same_for_every_process_pin_only_where_it_cannot_work(
    value: str, set_device: bool, reported: bool
) -> None:
    head = _FS106_HEAD
    pick = "torch.cuda.set_device(local_rank)\n" if set_device else ""
    found = lint_source(
        head + f'os.environ["CUDA_VISIBLE_DEVICES"] = {value}\n' + pick, select=[ALL]
    )
    assert [f.code for f in found] == (["FS106"] if reported else [])


@pytest.mark.parametrize("value", ['"0"', '"0,1,2,3"', "args.gpus", "str(cfg.gpu_idx)"])
@pytest.mark.parametrize(
    ("evidence", "reported"),
    [
        ("", False),  # one process (an evaluation entry point): its GPU is its own to pick
        ("torch.cuda.set_device(0)\n", False),
        ("model = torch.nn.parallel.DistributedDataParallel(model)\n", True),
        ('rank = int(os.environ["LOCAL_RANK"])\n', True),
        ('world = int(os.environ.get("WORLD_SIZE", 1))\n', True),
        ("rank = dist.get_rank()\n", True),
    ],
)
def test_fs106_needs_a_script_of_several_processes(
    value: str, evidence: str, reported: bool
) -> None:
    head = "import os\nimport torch\nimport torch.distributed as dist\n"
    head += "from torch.utils.data import DataLoader\n"
    found = lint_source(
        head + f'os.environ["CUDA_VISIBLE_DEVICES"] = {value}\n' + evidence, select=[ALL]
    )
    assert [f.code for f in found] == (["FS106"] if reported else [])


_PEP695 = (
    "import torch.distributed as dist\n"
    "from torch.utils.data import DataLoader, DistributedSampler\n"
    "\n"
    "type Batch[K] = dict[K, list[int]]\n"
    "\n"
    "class Buffer[T: (int, str)]:\n"
    "    def first[U](self, xs: list[U]) -> U:\n"
    "        return xs[0]\n"
    "\n"
    "def main(dataset, model, epochs):\n"
    '    dist.init_process_group("gloo")\n'
    "    loader = DataLoader(dataset, sampler=DistributedSampler(dataset))\n"
    "    for epoch in range(epochs):\n"
    "        for batch in loader:\n"
    "            model(batch)\n"
)


def test_files_with_python_3_12_type_parameters_are_checked() -> None:
    """PEP 695 syntax (type parameters, ``type`` aliases) is read on any interpreter."""
    assert [(f.code, f.line, f.col) for f in lint_source(_PEP695, select=[ALL])] == [
        ("FS101", 13, 5)
    ]


def test_a_newer_file_that_does_not_parse_reports_its_real_error() -> None:
    """The 3.12 syntax before the error is valid: the error named is the real one."""
    source = _PEP695 + "def broken(:\n"
    findings = lint_source(source, select=[ALL])
    assert [f.code for f in findings] == ["FS100"]
    assert findings[0].line == source.count("\n")


def test_blanking_type_parameters_keeps_every_other_column() -> None:
    from fairshard_lint.newer_syntax import without_type_parameters

    source = "class Backtrackable[T](Base):\n    type Alias = int  # a comment\nx = d['type']\n"
    plain = without_type_parameters(source)
    assert plain is not None
    assert plain.splitlines()[0] == "class Backtrackable   (Base):"
    assert plain.splitlines()[1].startswith("    Alias = int  # a comment")
    assert plain.splitlines()[2] == "x = d['type']"
    assert without_type_parameters("x = 1\n") is None


def test_blanking_leaves_every_file_of_this_project_alone() -> None:
    """Code that parses on this interpreter has nothing to blank (no false edits)."""
    from fairshard_lint.newer_syntax import without_type_parameters

    root = Path(__file__).resolve().parents[2]
    files = [*root.glob("src/**/*.py"), *root.glob("lint/src/**/*.py"), *root.glob("tests/**/*.py")]
    assert len(files) > 100
    for file in files:
        assert without_type_parameters(file.read_text()) is None, file


_PEP701 = (
    "import os\n"
    "import torch.distributed as dist\n"
    "from torch.utils.data import DataLoader, DistributedSampler\n"
    "\n"
    "def main(dataset, model, epochs, stats):\n"
    '    print(f"run: {os.environ["WANDB_PROJECT"]}")\n'
    '    dist.init_process_group("gloo")\n'
    "    loader = DataLoader(dataset, sampler=DistributedSampler(dataset))\n"
    "    for epoch in range(epochs):\n"
    "        for batch in loader:\n"
    "            model(batch)\n"
    "        print(f'{stats['loss']:>{8}.3f} {epoch!r}')\n"
)


def test_files_with_python_3_12_f_strings_are_checked() -> None:
    """PEP 701 f-strings that reuse their quotes are read on any interpreter."""
    assert [(f.code, f.line, f.col) for f in lint_source(_PEP701, select=[ALL])] == [
        ("FS101", 9, 5)
    ]


def test_requoting_leaves_every_file_of_this_project_alone() -> None:
    """Code that parses on this interpreter has no field to requote (no false edits)."""
    from fairshard_lint.newer_syntax import with_inner_quotes_swapped

    root = Path(__file__).resolve().parents[2]
    files = [*root.glob("src/**/*.py"), *root.glob("lint/src/**/*.py"), *root.glob("tests/**/*.py")]
    assert len(files) > 100
    for file in files:
        assert with_inner_quotes_swapped(file.read_text()) is None, file


def test_nested_f_strings_on_the_same_quote_are_requoted() -> None:
    from fairshard_lint.newer_syntax import with_inner_quotes_swapped

    source = "p = f'_all_{f'epoch={(e - 1):02d}.ckpt' if u else \"\"}{m}'\n"
    assert with_inner_quotes_swapped(source) == (
        'p = f\'_all_{f"epoch={(e - 1):02d}.ckpt" if u else ""}{m}\'\n'
    )
    assert with_inner_quotes_swapped('x = f"{f"{y}"}"\n') == "x = f\"{f'{y}'}\"\n"


@pytest.mark.parametrize(
    "source",
    [
        'x = f"{d["it\'s"]}"\n',  # the inner string holds the other quote
        'x = f"{f"{d["a"]}"}"\n',  # three strings nested: two quotes do not part them
        'x = f"{d["a\\n"]}"\n',  # a backslash in the field
        'x = f"{d["a"]\n',  # never closed
        'x = f"""{d["a"]}"""\n',  # a triple-quoted f-string needs nothing
    ],
)
def test_requoting_gives_up_where_it_cannot_follow(source: str) -> None:
    from fairshard_lint.newer_syntax import with_inner_quotes_swapped

    assert with_inner_quotes_swapped(source) is None


@settings(max_examples=80, deadline=None)
@given(
    outer=st.sampled_from(['"', "'"]),
    keys=st.lists(st.from_regex(r"[a-z_ #:{}]{0,6}", fullmatch=True), min_size=1, max_size=3),
    spec=st.sampled_from(["", ":>8", ":{w}", "!r", ":.{p}f"]),
    prefix=st.sampled_from(["f", "F", "rf", "fR"]),
)
def test_requoted_f_strings_are_what_3_11_would_write(
    outer: str, keys: list[str], spec: str, prefix: str
) -> None:
    """Swapping the reused quotes gives exactly the text with the other quote written in."""
    from fairshard_lint.newer_syntax import with_inner_quotes_swapped

    other = "'" if outer == '"' else '"'
    fields = "".join(f"{{d[{outer}{k}{outer}]{spec}}} and " for k in keys)
    newer = f"x = {prefix}{outer}{fields}{outer}  # {outer}a{outer}\ny = {outer}#{outer}\n"
    older = newer.replace(f"[{outer}", f"[{other}").replace(f"{outer}]", f"{other}]")
    assert with_inner_quotes_swapped(newer) == older
    ast.parse(older)


@settings(max_examples=60, deadline=None)
@given(
    name=st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True).filter(
        lambda n: not keyword.iskeyword(n) and not keyword.issoftkeyword(n)
    ),
    params=st.lists(
        st.sampled_from(["T", "U: int", "V: (int, str)", "*Ts", "**P", "K: dict[str, list[int]]"]),
        min_size=1,
        max_size=3,
        unique=True,
    ),
    indent=st.sampled_from(["", "    "]),
)
def test_blanked_type_parameters_parse_and_keep_lines_and_columns(
    name: str, params: list[str], indent: str
) -> None:
    from fairshard_lint.newer_syntax import without_type_parameters

    plist = ", ".join(params)
    head = "if True:\n" if indent else ""
    source = (
        f"{head}{indent}class {name}[{plist}](object):\n{indent}    x = 1\n"
        f"{indent}def {name}_f[{plist}](a, b=1):\n{indent}    return a\n"
        f"{indent}type {name}_A[{plist}] = list[int]\n"
        f"{indent}y = {name}_f(2)\n"
    )
    plain = without_type_parameters(source)
    assert plain is not None
    tree = ast.parse(plain)
    assert len(plain.splitlines()) == len(source.splitlines())
    # the call on the last line keeps its line and column
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call))
    assert (call.lineno, call.col_offset) == (source.count("\n"), len(indent) + 4)
