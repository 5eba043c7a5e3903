"""``fairshard lint`` through ``main(argv)``: formats, file selection, hostile files."""

import ast
import json
import os
from pathlib import Path

import pytest

from fairshard._cli.main import main
from fairshard_lint import RULES

TORCH_HEAD = "import torch\nfrom torch.utils.data import DataLoader, DistributedSampler\n"
BAD_LOOP = (
    "def train(ds, epochs):\n"
    "    loader = DataLoader(ds, sampler=DistributedSampler(ds))\n"
    "    for epoch in range(epochs):\n"
    "        for batch in loader:\n"
    "            pass\n"
)
BAD = TORCH_HEAD + BAD_LOOP  # FS101 at line 5


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_github_annotations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = _write(tmp_path / "a,b.py", BAD)
    assert main(["lint", "--format", "github", str(bad)]) == 1
    (line,) = capsys.readouterr().out.strip().splitlines()
    escaped = str(bad).replace(",", "%2C")
    assert line.startswith(f"::error file={escaped},line=5,col=5,title=FS101 set-epoch-missing::")
    assert "set_epoch" in line.split("::", 2)[2]


def test_sarif_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = _write(tmp_path / "train.py", BAD)
    assert main(["lint", "--format", "sarif", str(bad)]) == 1
    log = json.loads(capsys.readouterr().out)
    assert log["version"] == "2.1.0" and "sarif" in log["$schema"]
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert {r["id"] for r in rules} >= set(RULES)
    (result,) = run["results"]
    assert result["ruleId"] == "FS101" and rules[result["ruleIndex"]]["id"] == "FS101"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("train.py")
    assert location["region"] == {"startLine": 5, "startColumn": 5}
    assert main(["lint", "--format", "sarif", str(_write(tmp_path / "ok.py", "x = 1\n"))]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["results"] == []


def test_default_excludes_and_exclude_globs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path / "train.py", BAD)
    _write(tmp_path / "tests" / "helpers.py", BAD)
    _write(tmp_path / "test_train.py", BAD)
    _write(tmp_path / "experiments" / "ablation.py", BAD)
    _write(tmp_path / ".venv" / "lib" / "x.py", BAD)

    def linted(*extra: str) -> set[str]:
        main(["lint", "--format", "json", str(tmp_path), *extra])
        doc = json.loads(capsys.readouterr().out)
        return {Path(f["path"]).relative_to(tmp_path).as_posix() for f in doc["findings"]}

    assert linted() == {"train.py", "experiments/ablation.py"}
    assert linted("--exclude", "experiments") == {"train.py"}
    assert linted("--exclude", "experiments/*,nothing") == {"train.py"}
    assert linted("--no-default-excludes") == {
        "train.py",
        "tests/helpers.py",
        "test_train.py",
        "experiments/ablation.py",
        ".venv/lib/x.py",
    }
    # a file named explicitly is always linted
    assert main(["lint", str(tmp_path / "test_train.py")]) == 1


def test_only_pytorch_data_loading_files_are_linted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cvd = 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0"\nrank = os.environ["RANK"]\n'
    tf = _write(tmp_path / "tf_train.py", cvd + "import tensorflow as tf\n")
    plain_torch = _write(tmp_path / "infer.py", cvd + "import torch\nx = torch.ones(1)\n")
    loading = _write(tmp_path / "train.py", cvd + "from torch.utils.data import DataLoader\n")
    assert main(["lint", "--select", "ALL", str(tf), str(plain_torch)]) == 0
    assert main(["lint", "--select", "ALL", str(loading)]) == 1
    assert "FS106" in capsys.readouterr().out


def test_non_python_files_are_skipped_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = _write(tmp_path / "README.md", "# Title\n\n```python\nx = (\n```\n")
    script = _write(tmp_path / "run", "#!/usr/bin/env python3\n" + BAD)
    assert main(["lint", str(readme)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "README.md: not a Python file, skipped" in captured.err
    assert main(["lint", str(script)]) == 1  # no suffix, python shebang: linted


def test_latin1_file_with_declaration_is_linted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = "# -*- coding: latin-1 -*-\n# Données d'entraînement\n" + BAD
    _write(tmp_path / "a_latin1.py", source.encode("latin-1"))
    _write(tmp_path / "b_utf8.py", BAD)
    assert main(["lint", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "a_latin1.py:7:5: FS101" in out and "b_utf8.py:5:5: FS101" in out


def test_undecodable_file_is_one_finding_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path / "a_broken.py", b"# coding: utf-8\nx = '\xff\xfe'\n")
    _write(tmp_path / "b_unknown.py", b"# -*- coding: klingon -*-\nx = 1\n")
    _write(tmp_path / "c_good.py", BAD)
    assert main(["lint", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[1][:5] for line in lines] == ["FS100", "FS100", "FS101"]
    assert "cannot decode" in lines[0] and "cannot decode" in lines[1]


def test_windows_code_page_declaration_is_read_as_cp1252(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "mbcs" exists on Windows only: a file written there is still linted elsewhere
    _write(tmp_path / "a_mbcs.py", ("# -*- coding: mbcs -*-\n# caf\u00e9\n" + BAD).encode("cp1252"))
    assert main(["lint", str(tmp_path)]) == 1
    assert "a_mbcs.py:7:5: FS101" in capsys.readouterr().out


def test_deeply_nested_file_is_a_finding_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = _write(tmp_path / "deep.py", TORCH_HEAD + "x = " + "1+" * 100_000 + "1\n")
    deep2 = _write(tmp_path / "deep2.py", TORCH_HEAD + "x = " + "(" * 5000 + ")" * 5000 + "\n")
    assert main(["lint", str(deep), str(deep2)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    lines = captured.out.splitlines()
    # Python 3.10's parser takes the long flat chain (and the rules then check
    # it: no finding); 3.11 and later refuse it. The parentheses never parse.
    expected = [deep2] if _parses(deep.read_text()) else [deep, deep2]
    assert [line.split(":")[0] for line in lines] == [str(p) for p in expected], lines
    assert all(": FS100 " in line for line in lines)


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, RecursionError, MemoryError):
        return False
    return True


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_fifo_is_named_for_what_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    assert main(["lint", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert "named pipe (FIFO)" in err and "does not exist" not in err
    _write(tmp_path / "train.py", BAD)
    assert main(["lint", str(tmp_path)]) == 1  # inside a folder a pipe is never opened
    assert "train.py:5:5: FS101" in capsys.readouterr().out
    for name in ("README.md", "run.sh", "config.yaml"):  # texts read for launch lines, configs
        os.mkfifo(tmp_path / name)
    assert main(["lint", str(tmp_path)]) == 1
    assert "train.py:5:5: FS101" in capsys.readouterr().out


def test_help_lists_every_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--help"]) == 0
    out = capsys.readouterr().out
    for word in ("github", "sarif", "--exclude", "--no-default-excludes", "--select"):
        assert word in out


def test_pre_commit_hook_entry() -> None:
    yaml = pytest.importorskip("yaml")
    root = Path(__file__).parents[2]
    (hook,) = yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "fairshard-lint" and hook["entry"] == "fairshard-lint"
    assert hook["language"] == "python" and hook["types"] == ["python"]
    import re

    skip = re.compile(hook["exclude"])
    for path in ("tests/x.py", "pkg/test/y.py", "test_a.py", "a/b_test.py", "conftest.py"):
        assert skip.search(path), path
    for path in ("train.py", "latest.py", "contest/run.py", "attest_train.py"):
        assert not skip.search(path), path
    page = (root / "docs" / "pitfalls.md").read_text()
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", page, re.S) if "repo: local" in b]
    (local,) = yaml.safe_load(block)["repos"][0]["hooks"]
    for key in ("id", "entry", "language", "types", "exclude"):
        assert local[key] == hook[key], key  # the documented torch-free hook is the shipped one
