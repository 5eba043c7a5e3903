"""``fairshard lint DIR`` follows imports inside the folder (rules FS101 and FS109).

Each folder of ``lint_projects/`` is a small tree whose loader, sampler or
training function is built in one module and used in another; every
finding it must produce is marked ``# expect: CODE`` on its line, and a
finding without a mark is a false positive. The same files linted one by
one (no project) miss the cross-module findings: that is what the project
adds.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from fairshard_lint import ALL, lint_paths

PROJECTS = Path(__file__).parent / "lint_projects"
_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>FS\d+(?:\s*,\s*FS\d+)*)")
NAMES = sorted(p.name for p in PROJECTS.iterdir() if p.is_dir() and not p.name.startswith("_"))


def _expected(root: Path) -> set[tuple[str, int, str]]:
    marks = set()
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            match = _EXPECT.search(line)
            if match:
                for code in re.split(r"\s*,\s*", match.group("codes")):
                    marks.add((path.relative_to(root).as_posix(), number, code))
    return marks


def _found(root: Path, paths: list[Path]) -> set[tuple[str, int, str]]:
    findings, _ = lint_paths(paths, select=[ALL])
    return {(Path(f.path).relative_to(root).as_posix(), f.line, f.code) for f in findings}


@pytest.mark.parametrize("name", NAMES)
def test_project_findings_are_exactly_the_marked_ones(name: str) -> None:
    root = PROJECTS / name
    expected = _expected(root)
    assert bool(expected) != name.endswith("_good"), "a _good project marks nothing"
    assert _found(root, [root]) == expected


@pytest.mark.parametrize("name", [n for n in NAMES if not n.endswith("_good")])
def test_the_cross_module_finding_needs_the_project(name: str) -> None:
    root = PROJECTS / name
    files = sorted(root.rglob("*.py"))
    alone = _found(root, files)  # each file named on its own: no project
    # the training-flag branches are evaluation in their file alone, a padded
    # sampler whose evaluation is in another module is judged there, and a folder's
    # launch lines may show that nothing pads: the project can only take findings
    # away from them (flag_branch_good: called for training; own_share_other_module_good:
    # each rank scores its own share; known_split_launches_good: the counts divide;
    # helper_combine: the project shows the helper's combine that keeps it;
    # lightning_own_model: each script's own model decides, not the other's;
    # several_nodes_documented: the launch lines and the README decide the nodes;
    # local_rank_param_fed_local: the callers decide what the parameter holds;
    # one_process_launches: the launch lines decide how many processes run;
    # one_per_node_launches: the node count decides how many one-per-node lines run;
    # one_gpu_job_lightning: the job's scheduler request decides the Trainer's devices;
    # hpc_mpi_launcher: the job's MPI launcher decides how many processes run;
    # script_named_by_variable: a launch line naming the script through a variable runs it;
    # cvd_helper_imported_early: the importer's order decides whether the pin counts;
    # launched_test_script: named on its own, a test_*.py file is linted anyway;
    # lightning_devices_option_set: the README decides how many devices run;
    # plain_python_spawns, launch_in_other_markdown: the script's own spawn, or a
    # launch line in another Markdown file, keeps what a plain python line would not;
    # unused_function_named: a doc naming the function keeps its finding;
    # world_of_one_spawns: its own spawn keeps what WORLD_SIZE=1 would take away;
    # hydra_trainer_ddp_choice: the configs decide the trainer's devices;
    # imported_name_present: the helper's file decides whether the import stops the script;
    # lightning_config_spread: the folder's config decides the trainer's devices;
    # lightning_settings_module: the settings module decides the trainer's devices;
    # eval_sums_reduced_by_caller: the caller's reduce, in the script itself, decides;
    # namespace_package_import: the folders decide whether the import resolves;
    # selected_eval_spawned: the README's world sizes decide whether 500 rows split evenly;
    # trainer_method_by_name: the tree's Trainer.train decides whether the call sets the epoch;
    # hydra_group_interpolated_devices: the config group decides the trainer's devices;
    # nested_config_devices, nested_config_devices_set_by_option: the configs' training
    # blocks, and the code that writes them, decide the trainer's devices;
    # lightning_own_script_devices_set: the README decides the script's own trainer's devices;
    # hydra_trainer_devices_read: the trainer group file decides int(config.trainer.devices);
    # call_misses_an_argument: the dataset class's signature decides whether the script runs;
    # accelerate_handed_in_drop_last: the caller's loader decides whether accelerate fills;
    # option_dispatch_default: the options module decides which mode every run takes;
    # plain_python_helper_launched: the importers' launch lines decide the helper's processes;
    # option_branch_on_for_one_run: the launch lines decide which arm of the option runs;
    # helper_split_one_entry_unseeded: the entry scripts decide whether the split is seeded;
    # docstring_usage_four_processes: the scripts' own usage lines decide how many processes run;
    # fabric_launched_folds: the tree's launch call decides whether Fabric runs several processes;
    # lightning_config_gpus_two, hydra_root_devices_two: the folder's configs decide the
    # trainer's devices;
    # escaped_script_name_launched: the launch line, naming the script with the shell's
    # escapes, decides how many processes run;
    # split_call_binds_under_main: the main guard's call decides whether the split runs;
    # lightning_validation_step_synced: the model handed to fit decides whether its
    # validation loader is read;
    # lightning_nested_config_spread: the configs' training blocks decide the trainer's
    # devices;
    # launch_absolute_path_launched: the launch line, naming the script by another
    # machine's path, decides how many processes run;
    # script_imported_for_its_trainer: what its importers take decides whether the
    # script's own launch lines alone run its loop;
    # shape_branch_taken: the caller's argument decides which branch builds the loader;
    # distributed_setup_called: the tree's names decide whether the set-up ever runs;
    # trainer_kwargs_from_callers: the callers' spread decides the trainer's devices;
    # trainer_prepared_loader_sharded_twice: one file, whose own prepare splits again;
    # sampler_world_size_spawned: one file, whose spawn decides the worker's world size;
    # option_branch_helper_parser_set: the notebook, naming the helper parser's flag,
    # decides whether the branch runs;
    # option_branch_helper_parser_unlaunched: with no shipped line running the script,
    # the flag's default says nothing of the runs;
    # preshuffled_by_helper_off: the helper decides whether the data comes shuffled)
    assert alone < _expected(root) or name in {
        "train_branch",
        "flag_branch",
        "own_share_other_module",
        "tuple_to_trainer",
        "known_split_launches",
        "helper_combine",
        "lightning_own_model",
        "several_nodes_documented",
        "local_rank_param_fed_local",
        "one_process_launches",
        "one_per_node_launches",
        "one_gpu_job_lightning",
        "hpc_mpi_launcher",
        "script_named_by_variable",
        "trainer_kwargs_from_callers",
        "preshuffled_by_helper_off",
        "cvd_helper_imported_early",
        "launched_test_script",
        "lightning_devices_option_set",
        "plain_python_spawns",
        "launch_in_other_markdown",
        "unused_function_named",
        "world_of_one_spawns",
        "hydra_trainer_ddp_choice",
        "imported_name_present",
        "lightning_config_spread",
        "lightning_settings_module",
        "eval_sums_reduced_by_caller",
        "namespace_package_import",
        "selected_eval_spawned",
        "trainer_method_by_name",
        "hydra_group_interpolated_devices",
        "nested_config_devices",
        "nested_config_devices_set_by_option",
        "lightning_own_script_devices_set",
        "hydra_trainer_devices_read",
        "call_misses_an_argument",
        "accelerate_handed_in_drop_last",
        "option_dispatch_default",
        "plain_python_helper_launched",
        "option_branch_on_for_one_run",
        "helper_split_one_entry_unseeded",
        "docstring_usage_four_processes",
        "fabric_launched_folds",
        "lightning_config_gpus_two",
        "hydra_root_devices_two",
        "escaped_script_name_launched",
        "split_call_binds_under_main",
        "lightning_validation_step_synced",
        "lightning_nested_config_spread",
        "launch_absolute_path_launched",
        "script_imported_for_its_trainer",
        "shape_branch_taken",
        "distributed_setup_called",
        "option_branch_helper_parser_set",
        "trainer_prepared_loader_sharded_twice",
        "sampler_world_size_spawned",
        "option_branch_helper_parser_unlaunched",
    }


def test_evaluation_reached_from_another_module_is_named() -> None:
    root = PROJECTS / "enum_factory"
    findings, _ = lint_paths([root], select=[ALL])
    (finding,) = findings
    assert "reached from" in finding.message and "eval.py:7" in finding.message


def test_imported_set_epoch_is_seen_only_in_the_project() -> None:
    root = PROJECTS / "imported_train_sets_epoch_good"
    assert _found(root, [root]) == set()
    assert _found(root, sorted(root.rglob("*.py"))) == {("main.py", 9, "FS101")}


VENDORED = PROJECTS / "vendored_good"
#: The five copies of a padded evaluation in vendored_good's vendored trees: a
#: ``third_party/`` folder, a ``vendor/`` folder, a nested copy of a known
#: package (``mmcv``), a released copy of one (``mmdet`` with its version file,
#: beside the copied repository's setup.py) and a nested distribution (its own
#: setup.py and LICENSE).
VENDORED_COPIES = {
    "annotator/uniformer/mmcv/engine/test.py",
    "detection/mmdet/datasets/builder.py",
    "libs/copied_pkg/copied/evaluate.py",
    "third_party/detlib/engine/evaluator.py",
    "vendor/seglib/test.py",
}


def test_vendored_trees_are_skipped_by_default() -> None:
    skipped: list[str] = []
    findings, files = lint_paths([VENDORED], skipped=skipped, select=[ALL])
    assert findings == []
    # train.py, the project's own extension package (setup.py, no licence: its own)
    # and the setup.py of the sub-project that holds the mmdet copy
    assert files == 4
    (note,) = skipped
    for folder in (
        "third_party",
        "vendor",
        "annotator/uniformer/mmcv",
        "libs/copied_pkg",
        "detection/mmdet",
    ):
        assert folder in note
    assert "--include-vendored" in note


def test_vendored_trees_are_linted_on_request() -> None:
    findings, files = lint_paths([VENDORED], include_vendored=True, select=[ALL])
    assert files == 13
    found = {Path(f.path).relative_to(VENDORED).as_posix() for f in findings}
    assert found == VENDORED_COPIES
    assert {f.code for f in findings} == {"FS109"}


ARCHIVED = PROJECTS / "archived_good"
ARCHIVED_FILE = ("ARCHIVE/flow/main_flow.py", 9, "FS109")


def test_archived_folders_are_skipped_and_counted() -> None:
    skipped: list[str] = []
    findings, files = lint_paths([ARCHIVED], skipped=skipped, select=[ALL])
    assert findings == [] and files == 1
    (note,) = skipped
    assert "ARCHIVE" in note and "--include-vendored" in note
    findings, files = lint_paths([ARCHIVED], include_vendored=True, select=[ALL])
    assert files == 2
    assert {(Path(f.path).relative_to(ARCHIVED).as_posix(), f.line, f.code) for f in findings} == {
        ARCHIVED_FILE
    }


def test_an_archived_folder_that_runs_is_linted(tmp_path: Path) -> None:
    root = tmp_path / "t"
    shutil.copytree(ARCHIVED, root)
    assert _found(root, [root]) == set()
    (root / "run_old.sh").write_text("torchrun --nproc_per_node=2 ARCHIVE/flow/main_flow.py\n")
    assert _found(root, [root]) == {ARCHIVED_FILE}  # a shipped line runs a file in it
    (root / "run_old.sh").unlink()
    (root / "evaluate.py").write_text("from ARCHIVE.flow.main_flow import validate\n")
    assert _found(root, [root]) == {ARCHIVED_FILE}  # a module outside imports from it


@pytest.mark.parametrize("folder", ["src_backup", "old-src", "code.old", "legacy_scripts"])
def test_an_archive_word_joined_to_another_names_an_archive(tmp_path: Path, folder: str) -> None:
    # LLM_KD's src/src_backup/ holds the earlier copy its job files no longer run
    root = tmp_path / "t"
    shutil.copytree(ARCHIVED, root)
    shutil.move(root / "ARCHIVE", root / "src" / folder if "_" in folder else root / folder)
    skipped: list[str] = []
    findings, files = lint_paths([root], skipped=skipped, select=[ALL])
    assert findings == [] and files == 1 and folder in skipped[0]


@pytest.mark.parametrize("name", ["main_flow_backup.py", "old_main_flow.py", "backup.py"])
def test_a_backup_copy_of_a_script_is_skipped_unless_run_or_imported(
    tmp_path: Path, name: str
) -> None:
    # MyCDM's scripts/train_parallel_backup.py beside the train_parallel.py its line runs
    root = tmp_path / "t"
    shutil.copytree(ARCHIVED, root)
    shutil.copy(root / "ARCHIVE" / "flow" / "main_flow.py", root / name)
    shutil.rmtree(root / "ARCHIVE")
    skipped: list[str] = []
    findings, files = lint_paths([root], skipped=skipped, select=[ALL])
    assert findings == [] and files == 1 and name in skipped[0]
    (root / "run_old.sh").write_text(f"torchrun --nproc_per_node=2 {name}\n")
    assert {f.code for f in lint_paths([root], select=[ALL])[0]} == {"FS109"}  # a line runs it
    (root / "run_old.sh").unlink()
    (root / "evaluate.py").write_text(f"from {Path(name).stem} import validate\n")
    assert {f.code for f in lint_paths([root], select=[ALL])[0]} == {"FS109"}  # imported


@pytest.mark.parametrize("name", ["holdout.py", "backupper.py", "scold.py"])
def test_a_file_name_that_only_contains_an_archive_word_is_linted(
    tmp_path: Path, name: str
) -> None:
    root = tmp_path / "t"
    shutil.copytree(ARCHIVED, root)
    shutil.copy(root / "ARCHIVE" / "flow" / "main_flow.py", root / name)
    shutil.rmtree(root / "ARCHIVE")
    findings, files = lint_paths([root], select=[ALL])
    assert files == 2 and {f.code for f in findings} == {"FS109"}


@pytest.mark.parametrize("folder", ["holdout", "golden_data", "backupper", "oldest"])
def test_a_word_that_only_contains_an_archive_word_names_no_archive(
    tmp_path: Path, folder: str
) -> None:
    root = tmp_path / "t"
    shutil.copytree(ARCHIVED, root)
    shutil.move(root / "ARCHIVE", root / folder)
    findings, files = lint_paths([root], select=[ALL])
    assert files == 2 and {f.code for f in findings} == {"FS109"}


def test_a_vendored_file_named_explicitly_is_linted() -> None:
    path = VENDORED / "third_party" / "detlib" / "engine" / "evaluator.py"
    findings, files = lint_paths([path], select=[ALL])
    assert files == 1 and [f.code for f in findings] == ["FS109"]


def test_a_package_beside_its_own_setup_is_not_vendored(tmp_path: Path) -> None:
    from fairshard_lint.files import vendored_folder

    # a folder of several checkouts: each repository's own package is linted
    for repo, package in (("fairseq", "fairseq"), ("timm-repo", "timm")):
        (tmp_path / repo / package).mkdir(parents=True)
        (tmp_path / repo / "setup.py").write_text("")
        (tmp_path / repo / "LICENSE").write_text("")
        assert vendored_folder(tmp_path, Path(repo) / package) is None
        assert vendored_folder(tmp_path, Path(repo)) is None  # a checkout at the top
    # the src layout: the package's setup is one folder further up
    (tmp_path / "accelerate-repo" / "src" / "accelerate").mkdir(parents=True)
    (tmp_path / "accelerate-repo" / "pyproject.toml").write_text("")
    assert vendored_folder(tmp_path, Path("accelerate-repo/src/accelerate")) is None
    (tmp_path / "app" / "ext" / "timm").mkdir(parents=True)
    assert vendored_folder(tmp_path, Path("app/ext/timm")) == "app/ext/timm"
    assert vendored_folder(tmp_path, Path("timm")) is None  # linted from its own root
    assert vendored_folder(tmp_path, Path("src/third_party")) == "src/third_party"


def test_a_folder_of_scripts_named_for_a_library_is_linted(tmp_path: Path) -> None:
    """``examples/training/peft/train_lora.py``: an example of training with peft, no copy."""
    from fairshard_lint.files import vendored_folder

    (tmp_path / "README.md").write_text("")
    scripts = tmp_path / "examples" / "training" / "peft"
    scripts.mkdir(parents=True)
    (scripts / "train_lora.py").write_text(
        "import torch.distributed as dist\n"
        "from torch.utils.data import DataLoader\n"
        "\n"
        "\n"
        "def main(dataset):\n"
        '    dist.init_process_group("nccl")\n'
        "    loader = DataLoader(dataset, batch_size=8, shuffle=True)\n"
        "    for batch in loader:\n"
        "        print(batch)\n"
    )
    assert vendored_folder(tmp_path, Path("examples/training/peft")) is None
    assert _found(tmp_path, [tmp_path]) == {("examples/training/peft/train_lora.py", 7, "FS103")}
    # the same folder as a package (its __init__.py) beside no packaging is a copy
    (scripts / "__init__.py").write_text("")
    assert vendored_folder(tmp_path, Path("examples/training/peft")) == "examples/training/peft"


def _released(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("from .version import __version__\n")
    (folder / "version.py").write_text('__version__ = "1.0"\n')


def test_a_released_copy_beside_a_copied_setup_is_vendored(tmp_path: Path) -> None:
    from fairshard_lint.files import vendored_folder

    # a repository (README at its top) holding a copy of mmdetection: the copy's
    # setup.py packages mmdet beside it, but mmdet has its own version: a copy
    (tmp_path / "README.md").write_text("")
    _released(tmp_path / "object_detection" / "mmdet")
    (tmp_path / "object_detection" / "setup.py").write_text("")
    assert vendored_folder(tmp_path, Path("object_detection/mmdet")) == "object_detection/mmdet"
    # the same name without a version of its own is the sub-project's own code
    (tmp_path / "segmentation" / "mmseg").mkdir(parents=True)
    (tmp_path / "segmentation" / "mmseg" / "__init__.py").write_text("")
    (tmp_path / "segmentation" / "setup.py").write_text("")
    assert vendored_folder(tmp_path, Path("segmentation/mmseg")) is None
    # the repository's own released package in its src layout is its own
    (tmp_path / "pyproject.toml").write_text("")
    _released(tmp_path / "src" / "timm")
    assert vendored_folder(tmp_path, Path("src/timm")) is None


def test_a_released_package_in_a_folder_of_checkouts_is_linted(tmp_path: Path) -> None:
    from fairshard_lint.files import vendored_folder

    # no README, licence or setup at the top: several checkouts, each its own
    _released(tmp_path / "mmdetection" / "mmdet")
    (tmp_path / "mmdetection" / "setup.py").write_text("")
    assert vendored_folder(tmp_path, Path("mmdetection/mmdet")) is None


def test_the_command_line_includes_vendored_trees_on_request(capsys) -> None:
    from fairshard_lint.cli import main

    assert main([str(VENDORED)]) == 0
    assert "--include-vendored" in capsys.readouterr().err
    assert main([str(VENDORED), "--include-vendored"]) == 1
    assert capsys.readouterr().out.count("FS109") == len(VENDORED_COPIES)


def test_a_loader_handed_to_a_named_trainer_class_by_keyword(tmp_path: Path) -> None:
    """``BaseTrainer(cfg, model, train_loader=loader)``: the class named, no factory."""
    import shutil

    root = tmp_path / "tree"
    shutil.copytree(PROJECTS / "trainer_attribute", root)
    (root / "main.py").unlink()  # leaves direct.py, which names BaseTrainer itself
    assert _found(root, [root]) == {("proj/trainers/base.py", 14, "FS101")}
    (root / "direct.py").unlink()  # nothing hands the trainer a loader now
    assert _found(root, [root]) == set()


def test_a_loader_read_from_an_instance_needs_its_class() -> None:
    """Linted alone, ``DepthData(...).data`` names nothing known and the trainer is silent."""
    root = PROJECTS / "trainer_attribute"
    assert _found(root, sorted(root.rglob("*.py"))) == set()


def _package(folder: Path, *modules: str) -> None:
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    for module in modules:
        (folder / f"{module}.py").write_text("import torch\n")


def test_a_folder_of_the_projects_own_package_named_like_a_known_one_is_linted(
    tmp_path: Path,
) -> None:
    from fairshard_lint.files import vendored_folder

    # OpenRLHF's openrlhf/utils/deepspeed/: its own strategy code, which imports
    # the installed deepspeed (a module the folder does not have)
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "project" / "__init__.py").parent.mkdir()
    (tmp_path / "project" / "__init__.py").write_text("")
    _package(tmp_path / "project" / "utils", "logging")
    _package(tmp_path / "project" / "utils" / "deepspeed", "deepspeed", "deepspeed_utils")
    helper = tmp_path / "project" / "utils" / "deepspeed" / "deepspeed_utils.py"
    helper.write_text(
        "import deepspeed\n"
        "from deepspeed.runtime.zero import ZeroParamStatus\n"
        "from project.utils.deepspeed.deepspeed import Strategy\n"
    )
    assert vendored_folder(tmp_path, Path("project/utils/deepspeed")) is None
    # a sub-package of it is linted too
    _package(tmp_path / "project" / "utils" / "deepspeed" / "zero", "stage3")
    assert vendored_folder(tmp_path, Path("project/utils/deepspeed/zero")) is None


def test_a_copy_inside_a_package_needs_evidence_of_a_copy(tmp_path: Path) -> None:
    from fairshard_lint.files import vendored_folder

    (tmp_path / "README.md").write_text("")
    _package(tmp_path / "app")
    # files that import their own modules by the copied package's name
    _package(tmp_path / "app" / "timm", "layers", "models")
    (tmp_path / "app" / "timm" / "models.py").write_text("from timm.layers import DropPath\n")
    assert vendored_folder(tmp_path, Path("app/timm")) == "app/timm"
    # a licence beside the copy (annotator/uniformer/ with its LICENSE)
    _package(tmp_path / "annotator")
    _package(tmp_path / "annotator" / "uniformer")
    (tmp_path / "annotator" / "uniformer" / "LICENSE").write_text("")
    _package(tmp_path / "annotator" / "uniformer" / "mmcv", "runner")
    assert (
        vendored_folder(tmp_path, Path("annotator/uniformer/mmcv/runner"))
        == "annotator/uniformer/mmcv"
    )
    # a version of its own
    _package(tmp_path / "app" / "mmseg", "version")
    assert vendored_folder(tmp_path, Path("app/mmseg")) == "app/mmseg"
    # a licence inside the copied folder
    _package(tmp_path / "app" / "fvcore", "common")
    (tmp_path / "app" / "fvcore" / "LICENSE").write_text("")
    assert vendored_folder(tmp_path, Path("app/fvcore")) == "app/fvcore"
    # beside a released copy of another known package (a folder of copies)
    _package(tmp_path / "app" / "annotator")
    _package(tmp_path / "app" / "annotator" / "mmcv", "version", "cnn")
    (tmp_path / "app" / "annotator" / "mmseg" / "apis").mkdir(parents=True)
    assert vendored_folder(tmp_path, Path("app/annotator/mmseg/apis")) == "app/annotator/mmseg"
    # no evidence: the package's own folder of that name
    _package(tmp_path / "tool")
    _package(tmp_path / "tool" / "accelerate", "launch", "hooks")
    (tmp_path / "tool" / "accelerate" / "hooks.py").write_text(
        "from accelerate import Accelerator\nfrom accelerate.utils import set_seed\n"
    )
    assert vendored_folder(tmp_path, Path("tool/accelerate")) is None
    # under a vendor folder it stays vendored whatever it holds
    _package(tmp_path / "app" / "third_party")
    _package(tmp_path / "app" / "third_party" / "apex", "amp")
    assert vendored_folder(tmp_path, Path("app/third_party/apex")) == "app/third_party"


def test_fs106_in_a_helper_follows_the_script_that_imports_it(tmp_path: Path) -> None:
    """A helper pinning the GPU is one process of several when a distributed script imports it."""
    (tmp_path / "gpu.py").write_text(
        "import os\n"
        "from torch.utils.data import DataLoader\n"
        "\n"
        "def pin(cfg):\n"
        '    os.environ["CUDA_VISIBLE_DEVICES"] = str(cfg.gpu_idx)\n'
        "\n"
        "def loader(dataset):\n"
        "    return DataLoader(dataset, batch_size=8)\n"
    )
    (tmp_path / "evaluate.py").write_text(
        "from gpu import loader, pin\n"
        "\n"
        "def main(cfg, dataset, model):\n"
        "    pin(cfg)\n"
        "    return [model(batch) for batch in loader(dataset)]\n"
    )
    # imported only by a single-process evaluation script: its GPU is its own to pick
    assert _found(tmp_path, [tmp_path]) == set()
    (tmp_path / "train.py").write_text(
        "import torch.distributed as dist\n"
        "from torch.utils.data import DataLoader, DistributedSampler\n"
        "from gpu import pin\n"
        "\n"
        "def main(cfg, dataset):\n"
        "    pin(cfg)\n"
        '    dist.init_process_group("nccl")\n'
        "    return DataLoader(dataset, sampler=DistributedSampler(dataset, shuffle=False))\n"
    )
    assert _found(tmp_path, [tmp_path]) == {("gpu.py", 5, "FS106")}
    # linted on its own, the helper shows no process group
    assert _found(tmp_path, [tmp_path / "gpu.py"]) == set()


_PADDED_EVAL = (
    "import torch.distributed as dist\n"
    "from torch.utils.data import DataLoader, DistributedSampler\n"
    "\n"
    "def evaluate(model, dataset):\n"
    '    dist.init_process_group("nccl")\n'
    "    loader = DataLoader(dataset, sampler=DistributedSampler(dataset, shuffle=False))\n"
    "    results = [model(batch) for batch in loader]\n"
    "    ordered = [r for part in zip(*dist.all_gather_object(results)) for r in part]\n"
    "    return sum(ordered) / len(ordered)\n"
)


def _whole_copy(folder: Path, setup: str, package: str, licence: bool = True) -> None:
    """A released package copied in whole: packaging, (licence,) the package and its examples."""
    (folder / package).mkdir(parents=True)
    (folder / package / "__init__.py").write_text("")
    (folder / "examples").mkdir()
    (folder / "examples" / "main_amp.py").write_text(_PADDED_EVAL)
    (folder / setup.partition(":")[0]).write_text(setup.partition(":")[2])
    if licence:
        (folder / "LICENSE").write_text("")


@pytest.mark.parametrize(
    ("setup", "package"),
    [
        ("setup.py:from setuptools import setup\nsetup(name='apex', version='0.1')\n", "apex"),
        # the name in a constant, and a distribution name spelled with a dash
        (
            'setup.py:import setuptools\nPACKAGE_NAME = "causal-conv1d"\n'
            "setuptools.setup(name=PACKAGE_NAME)\n",
            "causal_conv1d",
        ),
        ('pyproject.toml:[project]\nname = "tensorboardX"\nversion = "2.0"\n', "tensorboardX"),
        ("setup.cfg:[metadata]\nname = mamba_ssm\n", "mamba_ssm"),
    ],
)
def test_a_whole_released_copy_at_the_top_is_vendored(
    tmp_path: Path, setup: str, package: str
) -> None:
    from fairshard_lint.files import vendored_folder

    # openai/jukebox: apex/ (its own setup.py, LICENSE and apex/apex/) beside jukebox/
    (tmp_path / "README.md").write_text("")
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='jukebox')\n")
    _package(tmp_path / "jukebox", "train")
    _whole_copy(tmp_path / "copy", setup, package)
    assert vendored_folder(tmp_path, Path("copy/examples")) == "copy"
    assert vendored_folder(tmp_path, Path("copy")) == "copy"
    assert vendored_folder(tmp_path, Path("jukebox")) is None
    skipped: list[str] = []
    findings, _ = lint_paths([tmp_path], skipped=skipped, select=[ALL])
    assert findings == [] and "copy" in skipped[0]
    findings, _ = lint_paths([tmp_path], include_vendored=True, select=[ALL])
    assert [(Path(f.path).relative_to(tmp_path).as_posix(), f.code) for f in findings] == [
        ("copy/examples/main_amp.py", "FS109")
    ]


def test_a_versioned_copy_at_the_top_of_an_unpackaged_repository_is_vendored(
    tmp_path: Path,
) -> None:
    from fairshard_lint.files import vendored_folder

    # SALT-NLP/HiddenCut: transformers/ (its own __version__) beside run_glue.py
    (tmp_path / "README.md").write_text("")
    (tmp_path / "run_glue.py").write_text("import transformers\n")
    (tmp_path / "transformers").mkdir()
    (tmp_path / "transformers" / "__init__.py").write_text('__version__ = "2.3.0"\n')
    (tmp_path / "transformers" / "trainer.py").write_text("import torch\n")
    assert vendored_folder(tmp_path, Path("transformers")) == "transformers"
    # no version: the repository's own helpers named like the package
    (tmp_path / "transformers" / "__init__.py").write_text("")
    assert vendored_folder(tmp_path, Path("transformers")) is None
    # a repository that packages itself keeps the top level as its own
    (tmp_path / "transformers" / "__init__.py").write_text('__version__ = "2.3.0"\n')
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='x')\n")
    assert vendored_folder(tmp_path, Path("transformers")) is None
    # a checkout of the package itself, linted from its root
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='transformers')\n")
    assert vendored_folder(tmp_path, Path("transformers")) is None


def test_a_top_level_folder_needs_a_whole_copy_to_be_vendored(tmp_path: Path) -> None:
    from fairshard_lint.files import vendored_folder

    (tmp_path / "README.md").write_text("")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "my-lib"\n')
    setup = "setup.py:from setuptools import setup\nsetup(name='{}')\n"
    # the repository's own package, even with packaging and a licence of its own
    _whole_copy(tmp_path / "my_lib", setup.format("my_lib"), "my_lib")
    assert vendored_folder(tmp_path, Path("my_lib/examples")) is None
    # no licence of its own
    _whole_copy(tmp_path / "apex", setup.format("apex"), "apex", licence=False)
    assert vendored_folder(tmp_path, Path("apex/examples")) is None
    # the named package is not in it (a sub-project that packages something else)
    _whole_copy(tmp_path / "tools", setup.format("toolbox"), "scripts")
    assert vendored_folder(tmp_path, Path("tools/examples")) is None
    # no name it can read (computed at build time)
    _whole_copy(
        tmp_path / "ext", "setup.py:from setuptools import setup\nsetup(name=NAME)\n", "ext"
    )
    assert vendored_folder(tmp_path, Path("ext/examples")) is None
    # a folder of several checkouts (nothing at its top): each is linted
    checkouts = tmp_path / "checkouts"
    checkouts.mkdir()
    _whole_copy(checkouts / "apex", setup.format("apex"), "apex")
    assert vendored_folder(checkouts, Path("apex/examples")) is None
    assert vendored_folder(checkouts, Path("apex/apex")) is None


_TASK_EXPERT = (
    "from torch.utils.data import DataLoader\n"
    "\n"
    "class DownstreamExpert:\n"
    "    def get_dataloader(self, dataset, mode):\n"
    "        if mode == 'train':\n"
    "            return DataLoader(dataset, batch_size=8, shuffle=True)\n"
    "        return DataLoader(dataset, batch_size=8, shuffle=False)\n"
)


def _runner(load: str, extra: str = "") -> str:
    return (
        "import importlib\n"
        "import torch.distributed as dist\n"
        "from torch.nn.parallel import DistributedDataParallel as DDP\n"
        "from torch.utils.data import DistributedSampler\n"
        f"{extra}"
        "\n"
        "def run(args, model):\n"
        '    dist.init_process_group("nccl")\n'
        f"    expert = {load}\n"
        "    return DDP(model), expert.DownstreamExpert()\n"
    )


@pytest.mark.parametrize(
    "load",
    [
        'importlib.import_module(f"tasks.{args.task}.expert")',
        'importlib.import_module("tasks." + args.task + ".expert")',
    ],
)
def test_fs103_in_a_task_module_that_a_distributed_runner_loads_by_name(
    tmp_path: Path, load: str
) -> None:
    """A runner loads its task modules by a computed name: their shuffling loaders are its."""
    (tmp_path / "tasks" / "asr").mkdir(parents=True)
    (tmp_path / "tasks" / "asr" / "expert.py").write_text(_TASK_EXPERT)
    (tmp_path / "runner.py").write_text(_runner(load))
    assert _found(tmp_path, [tmp_path]) == {("tasks/asr/expert.py", 6, "FS103")}
    # linted alone, the task module shows no process group
    assert _found(tmp_path, [tmp_path / "tasks" / "asr" / "expert.py"]) == set()


def test_fs103_not_in_a_task_module_the_runner_does_not_load(tmp_path: Path) -> None:
    """A computed name spells only the modules it can: another folder's are not its."""
    (tmp_path / "tasks" / "asr").mkdir(parents=True)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "expert.py").write_text(_TASK_EXPERT)
    (tmp_path / "runner.py").write_text(
        _runner('importlib.import_module(f"tasks.{args.task}.expert")')
    )
    assert _found(tmp_path, [tmp_path]) == set()
    # a bare computed name says nothing about which modules it loads
    (tmp_path / "runner.py").write_text(_runner("importlib.import_module(args.module)"))
    (tmp_path / "tasks" / "asr" / "expert.py").write_text(_TASK_EXPERT)
    assert _found(tmp_path, [tmp_path]) == set()


def test_fs103_in_an_imported_module_left_to_a_framework_that_shards(tmp_path: Path) -> None:
    """Where the script (or the module) uses a package that shards loaders, they are its."""
    (tmp_path / "data.py").write_text(_TASK_EXPERT)
    (tmp_path / "train.py").write_text(
        "import torch.distributed as dist\n"
        "from torch.utils.data import DistributedSampler\n"
        "from data import DownstreamExpert\n"
        "\n"
        "def run(dataset):\n"
        '    dist.init_process_group("nccl")\n'
        "    return DownstreamExpert().get_dataloader(dataset, 'train')\n"
    )
    assert _found(tmp_path, [tmp_path]) == {("data.py", 6, "FS103")}
    (tmp_path / "train.py").write_text(
        "from accelerate import Accelerator\n"
        "import torch.distributed as dist\n"
        "from torch.utils.data import DistributedSampler\n"
        "from data import DownstreamExpert\n"
        "\n"
        "def run(dataset):\n"
        "    accelerator = Accelerator()\n"
        "    dist.barrier()\n"
        "    return accelerator.prepare(DownstreamExpert().get_dataloader(dataset, 'train'))\n"
    )
    assert _found(tmp_path, [tmp_path]) == set()


_MODEL_LIBRARY = (
    "from torch.utils.data import DataLoader, DistributedSampler\n"
    "\n"
    "class Model:\n"
    "    def get_data_loader(self, dataset, is_eval, num_gpus):\n"
    "        sampler = DistributedSampler(dataset) if num_gpus > 1 else None\n"
    "        return DataLoader(dataset, batch_size=8, sampler=sampler)\n"
)
_EXTERNAL_TRAINER = (
    "from trainer import Trainer\n"
    "from models import Model\n"
    "\n"
    "def main(config, dataset):\n"
    "    Trainer(config, Model(), dataset).fit()\n"
)


def test_fs101_where_no_code_of_the_project_sets_an_epoch(tmp_path: Path) -> None:
    """The loop is an external package's: a tree that never calls set_epoch is reported."""
    (tmp_path / "models.py").write_text(_MODEL_LIBRARY)
    (tmp_path / "train.py").write_text(_EXTERNAL_TRAINER)
    assert _found(tmp_path, [tmp_path]) == {("models.py", 5, "FS101")}
    # one file alone says nothing of the rest of the tree
    assert _found(tmp_path, [tmp_path / "models.py"]) == set()


@pytest.mark.parametrize(
    "extra",
    [
        # somewhere in the tree the epoch is set
        ("epochs.py", "def advance(loader, epoch):\n    loader.sampler.set_epoch(epoch)\n"),
        # the script runs the loaders with a framework that sets their epochs
        ("train.py", "import pytorch_lightning as pl\n" + _EXTERNAL_TRAINER),
        ("train.py", "from transformers import Trainer\nfrom models import Model\n"),
    ],
)
def test_fs101_no_report_where_the_tree_or_a_framework_sets_epochs(
    tmp_path: Path, extra: tuple[str, str]
) -> None:
    (tmp_path / "models.py").write_text(_MODEL_LIBRARY)
    (tmp_path / "train.py").write_text(_EXTERNAL_TRAINER)
    (tmp_path / extra[0]).write_text(extra[1])
    assert _found(tmp_path, [tmp_path]) == set()


def test_fs101_not_at_the_sampler_where_the_tree_calls_its_builder(tmp_path: Path) -> None:
    """A builder the tree calls hands its loader to code the linter reads: no hook report."""
    (tmp_path / "models.py").write_text(_MODEL_LIBRARY)
    (tmp_path / "train.py").write_text(
        "from models import Model\n"
        "\n"
        "def main(dataset, step, epochs):\n"
        "    loader = Model().get_data_loader(dataset, False, 8)\n"
        "    for epoch in range(epochs):\n"
        "        for batch in loader:\n"
        "            step(batch)\n"
    )
    found = _found(tmp_path, [tmp_path])
    assert not any(path == "models.py" for path, _, _ in found)
    # a loop in the same module as the sampler is FS101's loop finding, named once
    (tmp_path / "models.py").write_text(
        _MODEL_LIBRARY + "\n"
        "    def fit(self, dataset, step, epochs):\n"
        "        loader = self.get_data_loader(dataset, False, 8)\n"
        "        for epoch in range(epochs):\n"
        "            for batch in loader:\n"
        "                step(batch)\n"
    )
    (tmp_path / "train.py").write_text(_EXTERNAL_TRAINER)
    assert _found(tmp_path, [tmp_path]) == {("models.py", 10, "FS101")}
    # an evaluation sampler is no epoch's order
    (tmp_path / "train.py").write_text(_EXTERNAL_TRAINER)
    (tmp_path / "models.py").write_text(_MODEL_LIBRARY.replace("(dataset) if", "(val_set) if"))
    assert not any(code == "FS101" for _, _, code in _found(tmp_path, [tmp_path]))


_PADDED_BUILDER = (
    "from collections import defaultdict\n"
    "from torch.utils.data import DataLoader, Dataset, DistributedSampler\n"
    "\n"
    "class Reviews(Dataset):\n"
    "    def __init__(self, rows):\n"
    "        self.user_items = defaultdict(list)\n"
    "        for user_id, item in rows:\n"
    "            user = user_id\n"
    "            self.user_items[user] = item\n"
    "\n"
    "    def collate_fn(self, batch):\n"
    "        out = {}\n"
    "        out['target_ids'] = [b[1] for b in batch]\n"
    "        return out\n"
    "\n"
    "def get_loader(rows, mode, distributed):\n"
    "    dataset = Reviews(rows)\n"
    "    sampler = DistributedSampler(dataset) if distributed else None\n"
    "    return DataLoader(dataset, sampler=sampler, collate_fn=dataset.collate_fn)\n"
)


def test_fs109_a_datasets_own_dicts_are_no_deduplication(tmp_path: Path) -> None:
    """A builder file's Dataset indexes its data by id; that merges no evaluation results."""
    (tmp_path / "data.py").write_text(_PADDED_BUILDER)
    (tmp_path / "train.py").write_text(
        "import torch\n"
        "import torch.distributed as dist\n"
        "from data import get_loader\n"
        "\n"
        "def validate(model, rows, args):\n"
        "    val_loader = get_loader(rows, 'val', args.distributed)\n"
        "    total = torch.zeros(2)\n"
        "    for batch in val_loader:\n"
        "        total += torch.tensor([model(batch).sum(), len(batch)])\n"
        "    dist.all_reduce(total)\n"
        "    return total[0] / total[1]\n"
    )
    assert _found(tmp_path, [tmp_path]) == {("data.py", 18, "FS109")}
    # a merge by sample id in the builder's file that the evaluation never calls is no help
    merge = (
        "\n"
        "def merge(outputs):\n"
        "    scores = {}\n"
        "    for sample_id, score in outputs:\n"
        "        scores[sample_id] = score\n"
        "    return scores\n"
    )
    (tmp_path / "data.py").write_text(_PADDED_BUILDER + merge)
    assert _found(tmp_path, [tmp_path]) == {("data.py", 18, "FS109")}
    # the evaluation that receives the loader keeps its results by sample id: counted once
    (tmp_path / "train.py").write_text(
        "import torch.distributed as dist\n"
        "from data import get_loader, merge\n"
        "\n"
        "def validate(model, rows, args):\n"
        "    val_loader = get_loader(rows, 'val', args.distributed)\n"
        "    outputs = [(batch['idx'], model(batch)) for batch in val_loader]\n"
        "    gathered = [None] * dist.get_world_size()\n"
        "    dist.all_gather_object(gathered, outputs)\n"
        "    return merge([o for part in gathered for o in part])\n"
    )
    assert _found(tmp_path, [tmp_path]) == set()


_WRAPPER = (
    "import itertools\n"
    "from torch.utils.data import DataLoader as TorchDataLoader\n"
    "\n"
    "class DataLoader:\n"
    "    def __init__(self, dataset, batch_size, shuffle=False, sampler=None, cycle=False):\n"
    "        self.dataloader = TorchDataLoader(\n"
    "            dataset, batch_size=batch_size, shuffle=shuffle, sampler=sampler\n"
    "        )\n"
    "        self.cycle = cycle\n"
    "\n"
    "    def __iter__(self):\n"
    "        if self.cycle:\n"
    "            return itertools.chain.from_iterable(itertools.repeat(self.dataloader))\n"
    "        return iter(self.dataloader)\n"
)
_LIGHTNING_MODULE = (
    "import lightning as L\n"
    "from torch.utils.data import DistributedSampler\n"
    "from loader import DataLoader\n"
    "\n"
    "class Data(L.LightningDataModule):\n"
    "    def train_dataloader(self):\n"
    "        sampler = DistributedSampler(self.train_set, shuffle=True, seed=0)\n"
    "        return DataLoader(self.train_set, batch_size=8, sampler=sampler)\n"
)


def test_fs101_a_wrapper_that_hides_its_sampler_from_lightning(tmp_path: Path) -> None:
    """Lightning sets epochs through ``loader.sampler``; a wrapper without it loses them."""
    (tmp_path / "loader.py").write_text(_WRAPPER)
    (tmp_path / "train.py").write_text(_LIGHTNING_MODULE)
    assert _found(tmp_path, [tmp_path]) == {("loader.py", 6, "FS101")}


@pytest.mark.parametrize(
    "change",
    [
        # the wrapper exposes the sampler: Lightning reaches it
        ("loader.py", "        self.cycle = cycle\n", "        self.sampler = sampler\n"),
        # a DataLoader subclass: its own .sampler is Lightning's to set
        ("loader.py", "class DataLoader:", "class DataLoader(TorchDataLoader):"),
        # the project sets the epoch itself
        (
            "train.py",
            "        return DataLoader(",
            "        sampler.set_epoch(self.trainer.current_epoch)\n        return DataLoader(",
        ),
        # no framework that reads .sampler
        ("train.py", "import lightning as L\n", "import lightning_free as L\n"),
        # no sampler that needs an epoch
        ("train.py", "shuffle=True, seed=0", "shuffle=False"),
    ],
)
def test_fs101_no_wrapper_report_where_the_epoch_is_reached(
    tmp_path: Path, change: tuple[str, str, str]
) -> None:
    files = {"loader.py": _WRAPPER, "train.py": _LIGHTNING_MODULE}
    name, old, new = change
    assert old in files[name]
    files[name] = files[name].replace(old, new)
    for file, text in files.items():
        (tmp_path / file).write_text(text)
    # (without Lightning the sampler in the hook may still be reported, as any hook's)
    assert not any(path == "loader.py" for path, _, _ in _found(tmp_path, [tmp_path]))


def test_fs101_a_loader_from_a_method_of_an_imported_class(tmp_path: Path) -> None:
    """``Model().get_data_loader()`` or ``model = Model()`` then ``model.get_data_loader()``.

    The training script names no data word itself: it is read because it gets
    its loader from a builder of the tree.
    """
    (tmp_path / "models.py").write_text(_MODEL_LIBRARY)
    (tmp_path / "train.py").write_text(
        "import torch\n"
        "from models import Model\n"
        "\n"
        "def main(dataset, step, epochs):\n"
        "    model = Model()\n"
        "    loader = model.get_data_loader(dataset, False, 8)\n"
        "    for epoch in range(epochs):\n"
        "        for batch in loader:\n"
        "            step(batch)\n"
        "\n"
        "def other(dataset, step, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        for batch in Model().get_data_loader(dataset, False, 8):\n"
        "            step(batch)\n"
    )
    assert _found(tmp_path, [tmp_path]) == {("train.py", 7, "FS101"), ("train.py", 12, "FS101")}
    # bound more than once, the name says nothing of its class: not resolved
    (tmp_path / "train.py").write_text(
        "import torch\n"
        "from models import Model\n"
        "\n"
        "def main(dataset, step, epochs, wrap):\n"
        "    model = Model()\n"
        "    model = wrap(model)\n"
        "    loader = model.get_data_loader(dataset, False, 8)\n"
        "    for epoch in range(epochs):\n"
        "        for batch in loader:\n"
        "            step(batch)\n"
    )
    assert _found(tmp_path, [tmp_path]) == set()


def test_requirement_pins_give_the_highest_version_allowed(tmp_path: Path) -> None:
    """The transformers pin decides whether its Trainer sets a plain loader's epoch (FS101)."""
    from fairshard_lint.pins import read_pins

    (tmp_path / "requirements.txt").write_text("torch>=2.0\ntransformers>=4.0,<4.30\n")
    (tmp_path / "sub").mkdir()
    setup = 'install_requires=["accelerate==0.20.3", "trl~=0.7.0"]'
    (tmp_path / "sub" / "setup.py").write_text(setup)
    pins = read_pins(tmp_path)
    assert pins["transformers"] == (4, 29, 10**6)
    assert pins["accelerate"] == (0, 20, 3)
    assert pins["trl"] == (0, 7, 10**6)
    assert "torch" not in pins  # no upper bound: the newest release is assumed


def test_a_trainer_subclass_loader_is_reported_only_where_transformers_allows_4_31(
    tmp_path: Path,
) -> None:
    root = tmp_path / "tree"
    shutil.copytree(PROJECTS / "trainer_unprepared_loader", root)
    assert {f.code for f in lint_paths([root], select=[ALL])[0]} == {"FS101"}
    (root / "requirements.txt").write_text("transformers<=4.30.2\n")
    assert lint_paths([root], select=[ALL])[0] == []
    (root / "requirements.txt").write_text("transformers==4.31.0\n")
    assert {f.code for f in lint_paths([root], select=[ALL])[0]} == {"FS101"}


def test_lightning_padding_names_the_nearest_combining_site() -> None:
    """Each data module's finding names its own model's combining hook, the step hook first."""
    root = PROJECTS / "lightning_two_models"
    sites = {
        Path(f.path).relative_to(root).as_posix(): f.message
        for f in lint_paths([root], select=[ALL])[0]
    }
    assert "/retrieval/model.py:7)" in sites["retrieval/datamodule.py"]
    assert "/generation/model.py:10)" in sites["generation/datamodule.py"]


def test_a_test_loader_counts_where_lightning_cli_has_a_test_subcommand(tmp_path: Path) -> None:
    """LightningCLI runs ``test`` from Lightning 1.5; a tree pinned to 1.3 only fits."""
    root = tmp_path / "tree"
    shutil.copytree(PROJECTS / "lightning_test_one_device", root)
    assert {f.line for f in lint_paths([root], select=[ALL])[0]} == {15}  # validation only
    (root / "requirements.txt").write_text("pytorch-lightning>=2.0\n")
    assert {f.line for f in lint_paths([root], select=[ALL])[0]} == {15, 18}  # and the test loader


@pytest.mark.parametrize(
    ("config", "value"),
    [
        ("trainer:\n  devices: [0]\n", "[0]"),
        ("trainer:\n  max_steps: 10\n  gpus: 1  # one\n", "1"),
        ("trainer:\n  callbacks:\n    - init_args:\n        devices: 8\n", ""),
        ("model:\n  devices: 4\ntrainer:\n  accelerator: gpu\n", ""),
        ("model:\n  lr: 0.1\n", None),
    ],
)
def test_the_trainer_block_of_a_cli_config_is_read(config: str, value: str | None) -> None:
    """Only the top-level ``trainer:`` block's own ``devices``/``gpus`` counts."""
    from fairshard_lint.cli_configs import _trainer_devices

    assert _trainer_devices(config) == value


def test_one_device_needs_every_config_to_set_one() -> None:
    from fairshard_lint.cli_configs import one_device

    assert one_device(["[0]", "1", "'1'", "[3]"])
    assert not one_device([])  # no config: Lightning's default, every device
    assert not one_device(["[0]", ""])  # a config leaving the default
    assert not one_device(["[0]", "4"])
    assert not one_device(["[0, 1]"])


def test_launch_counts_are_read_from_the_trees_launch_lines(tmp_path: Path) -> None:
    from fairshard_lint.launch_counts import read_launch_counts

    assert read_launch_counts(tmp_path) == []  # no launch line: nothing known
    (tmp_path / "run.sh").write_text(
        "torchrun --nproc_per_node=4 train.py\naccelerate launch --num_processes 8 train.py\n"
    )
    assert read_launch_counts(tmp_path) == [4, 8]
    (tmp_path / "spawn.sh").write_text("python train.py --world_size 2\n")
    assert read_launch_counts(tmp_path) == [4, 8, 2]  # a spawning script's own world size
    (tmp_path / "README.md").write_text("torchrun --nproc-per-node $NGPUS train.py\n")
    assert read_launch_counts(tmp_path) is None  # a count given by a variable: unknown


@pytest.mark.parametrize(
    ("dataset", "size"),
    [
        ("test_set.select(range(500))", 500),
        ("test_set.select(range(100, 600))", 500),
        ("Subset(test_set, range(64))", 64),
        ("Subset(test_set, list(range(64)))", 64),
        ("test_set.select(range(min(500, len(test_set))))", None),
        ("test_set.select(indices)", None),
        ("Subset(test_set, range(n))", None),
    ],
)
def test_a_part_of_literal_size_is_a_known_size(dataset: str, size: int | None) -> None:
    import ast

    from fairshard_lint.names import Module
    from fairshard_lint.set_sizes import known_split_size

    mod = Module.parse(f"sampler = DistributedSampler({dataset})\n", "x.py")
    (call,) = [
        c for c in mod.calls if isinstance(c.func, ast.Name) and c.func.id == "DistributedSampler"
    ]
    assert known_split_size(mod, call) == size


def test_trainer_values_are_read_from_configs_and_launch_lines(tmp_path: Path) -> None:
    from fairshard_lint.cli_configs import read_trainer_values

    assert read_trainer_values(tmp_path, "limit_val_batches") == []
    (tmp_path / "trainer.yaml").write_text("use_distributed_sampler: False\nlimit_val_batches: 0\n")
    (tmp_path / "cli.yaml").write_text("trainer:\n  devices: 4\n  limit_val_batches: 0.0  # off\n")
    (tmp_path / "run.sh").write_text("python main.py fit --trainer.limit_val_batches 10\n")
    assert sorted(read_trainer_values(tmp_path, "limit_val_batches")) == ["0", "0.0", "10"]
    assert read_trainer_values(tmp_path, "use_distributed_sampler") == ["False"]


def test_trainer_devices_follow_an_interpolated_config_group(tmp_path: Path) -> None:
    from fairshard_lint.cli_configs import read_trainer_devices

    (tmp_path / "computer").mkdir()
    (tmp_path / "config.yaml").write_text("trainer:\n  devices: ${computer.devices}\n")
    (tmp_path / "computer" / "gpu.yaml").write_text("devices: 1\nnum_workers: 8\n")
    assert read_trainer_devices(tmp_path) == ["1"]
    (tmp_path / "computer" / "cluster.yaml").write_text("num_workers: 8\n")  # unset: default
    assert sorted(read_trainer_devices(tmp_path)) == ["", "1"]
    (tmp_path / "run.sh").write_text("python train.py computer.devices=4\n")
    assert sorted(read_trainer_devices(tmp_path)) == ["", "1", "4"]
    (tmp_path / "other.yaml").write_text("trainer:\n  devices: ${hardware.gpus}\n")
    assert "${hardware.gpus}" in read_trainer_devices(tmp_path)  # no such group: unknown


def test_a_nested_config_entry_is_read_per_block_and_from_launch_lines(tmp_path: Path) -> None:
    from fairshard_lint.cli_configs import read_config_entry

    keys = ("training", "devices")
    (tmp_path / "default.yaml").write_text("training:\n  lr: 0.1\n  devices: 1  # one GPU\n")
    assert read_config_entry(tmp_path, keys) == ["1"]
    (tmp_path / "small.yaml").write_text("training:\n  optim:\n    devices: 8\n  lr: 1\n")
    assert sorted(read_config_entry(tmp_path, keys)) == ["", "1"]  # unset in its block
    (tmp_path / "other.yaml").write_text("model:\n  devices: 4\ndevices: 2\n")
    assert sorted(read_config_entry(tmp_path, keys)) == ["", "1"]  # not the training block
    (tmp_path / "README.md").write_text("python train.py --config default.yaml --devices 4\n")
    assert sorted(read_config_entry(tmp_path, keys)) == ["", "1", "4"]
    (tmp_path / "run.sh").write_text("python train.py training.devices=2 num_devices=3\n")
    assert sorted(read_config_entry(tmp_path, keys)) == ["", "1", "2", "4"]


def test_a_config_entry_is_the_key_path_under_the_root_name() -> None:
    import ast

    from fairshard_lint.names import config_entry

    def read(text: str) -> tuple[tuple[str, ...], object] | None:
        entry = config_entry(ast.parse(text, mode="eval").body)
        if entry is None:
            return None
        keys, default = entry
        return keys, ast.literal_eval(default) if default is not None else None

    assert read('config["training"].get("devices", 1)') == (("training", "devices"), 1)
    assert read("cfg.trainer.gpus") == (("trainer", "gpus"), None)
    assert read('self.config["training"]["devices"]') == (("training", "devices"), None)
    assert read("args.devices") == (("devices",), None)
    assert read("config[key].devices") is None
    assert read("get_devices()") is None


def test_trainer_settings_are_read_per_trainer_config(tmp_path: Path) -> None:
    from fairshard_lint.cli_configs import read_trainer_settings

    (tmp_path / "pretrain.yaml").write_text("trainer:\n  devices: 8\n  limit_val_batches: 0\n")
    (tmp_path / "finetune.yaml").write_text("trainer:\n  devices: 8\n  callbacks: []\n")
    (tmp_path / "main.yaml").write_text("model: {}\ntrainer: trainer.yaml\n")
    (tmp_path / "trainer.yaml").write_text("strategy: ddp\nlimit_val_batches: 0.0\n")
    # the finetuning config leaves Lightning's default: it validates
    assert sorted(read_trainer_settings(tmp_path, "limit_val_batches")) == ["", "0", "0.0"]


def test_node_counts_read_the_launcher_by_path_and_an_abbreviated_flag(tmp_path: Path) -> None:
    from fairshard_lint.launch_counts import read_node_counts

    (tmp_path / "run.sh").write_text(
        "python /opt/env/lib/python3.8/site-packages/torch/distributed/launch.py \\\n"
        "    --nnode=1 --node_rank=0 --nproc_per_node=4 main.py\n"
    )
    assert read_node_counts(tmp_path) == [1]  # argparse reads --nnode as --nnodes
    (tmp_path / "run.sh").write_text(
        "python /opt/env/lib/python3.8/site-packages/torch/distributed/launch.py \\\n"
        "    --nnode=2 --node_rank=$RANK --nproc_per_node=4 main.py\n"
    )
    assert read_node_counts(tmp_path) is None  # a node flag above 1: several nodes


def test_a_deepspeed_hostfile_of_the_tree_gives_the_node_count(tmp_path: Path) -> None:
    from fairshard_lint.launch_counts import read_node_counts

    (tmp_path / "run.sh").write_text("deepspeed --hostfile=./hostfile train.py\n")
    assert read_node_counts(tmp_path) is None  # the hostfile is not in the tree: unknown
    (tmp_path / "hostfile").write_text("# one machine\ngpu-zeus slots=8\n")
    assert read_node_counts(tmp_path) == [1]
    (tmp_path / "hostfile").write_text("gpu-zeus slots=8\ngpu-hera slots=8\n")
    assert read_node_counts(tmp_path) is None  # two hosts: several nodes
    (tmp_path / "hostfile").write_text("gpu-zeus slots=8\n")
    (tmp_path / "run.sh").write_text("mpirun --hostfile ./hostfile python train.py\n")
    assert read_node_counts(tmp_path) is None  # mpirun's hosts are read elsewhere too


@pytest.mark.parametrize(
    ("line", "one"),
    [
        ("CUDA_VISIBLE_DEVICES=0 python train.py", True),
        ("CUDA_VISIBLE_DEVICES='3' accelerate launch train.py", True),
        ("torchrun --nproc_per_node=1 train.py", True),
        ("GPU=2\nCUDA_VISIBLE_DEVICES=$GPU accelerate launch train.py", True),
        ("GPU=$1\nCUDA_VISIBLE_DEVICES=$GPU python train.py", True),  # named for one GPU
        ("CUDA_VISIBLE_DEVICES=${gpu_id:-0} python train.py", True),
        ("export CUDA_VISIBLE_DEVICES=0\npython train.py", True),
        ("CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node=2 train.py", False),
        ("CUDA_VISIBLE_DEVICES=0 torchrun --nproc_per_node=2 train.py", False),
        ("CUDA_VISIBLE_DEVICES=$GPUS python train.py", False),  # may hold several
        ("GPUS=$1\nCUDA_VISIBLE_DEVICES=$GPUS python train.py", False),
        ("CUDA_VISIBLE_DEVICES=$1 python train.py", False),  # the caller's value, unnamed
        ("python train.py", False),  # every visible GPU, for all the text says
        ("accelerate launch train.py", False),
        ("torchrun --nproc_per_node=$N train.py", False),
    ],
)
def test_one_process_scripts_are_read_from_every_line_that_runs_them(
    tmp_path: Path, line: str, one: bool
) -> None:
    from fairshard_lint.launch_counts import read_one_process_scripts

    (tmp_path / "train.py").write_text("import torch\n")
    (tmp_path / "run.sh").write_text(f"#!/bin/bash\n{line}\n")
    assert read_one_process_scripts(tmp_path) == (frozenset({"train.py"}) if one else frozenset())


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("python train.py --epochs 3", True),
        ("python3.10 train.py\nCUDA_VISIBLE_DEVICES=0 torchrun --nproc_per_node=1 train.py", True),
        ("python train.py\npython train.py --help", True),
        ("torchrun --help train.py", False),  # prints torchrun's options: no run; no line
        ("python launch.py --nproc 4 train.py", False),  # the tree's own launcher runs it
        ("python train.py\naccelerate launch train.py", False),
        ("srun python train.py", False),
        ("python -m torch.distributed.launch --nproc_per_node=2 train.py", False),
    ],
)
def test_plain_python_scripts_are_those_no_launcher_runs(
    tmp_path: Path, text: str, plain: bool
) -> None:
    from fairshard_lint.launch_counts import plain_python_files, read_runs

    (tmp_path / "train.py").write_text("import torch\n")
    (tmp_path / "launch.py").write_text("import subprocess\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "usage.md").write_text(f"```\n{text}\n```\n")  # any Markdown file
    assert ("train.py" in plain_python_files(read_runs(tmp_path))) is plain


def test_a_comment_ending_in_a_backslash_continues_nothing(tmp_path: Path) -> None:
    from fairshard_lint.launch_counts import logical_lines, read_one_process_scripts

    text = (
        "# python -m torch.distributed.launch --nproc_per_node 8 train.py \\\n"
        "CUDA_VISIBLE_DEVICES=5 python train.py \\\n"
        "  --seed 5\n"
    )
    assert logical_lines(text) == [
        "# python -m torch.distributed.launch --nproc_per_node 8 train.py \\",
        "CUDA_VISIBLE_DEVICES=5 python train.py    --seed 5",
    ]
    (tmp_path / "train.py").write_text("import torch\n")
    (tmp_path / "run.sh").write_text(text)
    assert read_one_process_scripts(tmp_path) == {"train.py"}  # the pinned line runs it


@pytest.mark.parametrize(
    ("script", "one"),
    [
        ("#SBATCH --nodes=1\n#SBATCH --ntasks=1\nsrun python train.py", True),
        ("#SBATCH -n 1\nsrun python train.py", True),
        ("#SBATCH --ntasks=4\nsrun --ntasks=1 python train.py", True),  # the line's own
        ("#SBATCH --ntasks=4\nsrun python train.py", False),
        ("#SBATCH --ntasks-per-node=4\nsrun python train.py", False),
        ("srun python train.py", False),  # the task count is not in the text
        ("#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1\nsrun python train.py", True),
        ("#SBATCH --ntasks-per-node=1\nsrun python train.py", True),  # one node by default
        ("#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=1\nsrun python train.py", False),
        ("#SBATCH -N 2\n#SBATCH --ntasks-per-node=1\nsrun python train.py", False),
        ("#SBATCH --ntasks-per-node=1\nsrun --nodes=2 python train.py", False),
        # srun starts a launcher, one per task, and the launcher starts the processes
        (
            "#SBATCH --nodes=1\n#SBATCH --ntasks=1\nsrun torchrun --nproc_per_node=4 train.py",
            False,
        ),
        (
            "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n"
            "srun torchrun_jsc --nnodes=1 --nproc_per_node=${GPUS} train.py",
            False,
        ),
        (
            "#SBATCH --nodes=1\n#SBATCH --ntasks=1\nsrun torchrun --nproc_per_node=1 train.py",
            True,  # the launcher's own count: one
        ),
    ],
)
def test_srun_in_a_batch_script_of_one_task_is_one_process(
    tmp_path: Path, script: str, one: bool
) -> None:
    from fairshard_lint.launch_counts import read_one_process_scripts

    (tmp_path / "train.py").write_text("import torch\n")
    (tmp_path / "submit.sh").write_text(f"#!/bin/bash\n{script}\n")
    assert read_one_process_scripts(tmp_path) == (frozenset({"train.py"}) if one else frozenset())


@pytest.mark.parametrize(
    ("config", "line", "one"),
    [
        ("num_processes: 1\n", "accelerate launch --config_file cfg.yaml train.py", True),
        ("num_processes: 4\n", "accelerate launch --config_file cfg.yaml train.py", False),
        ("num_processes: 1\n", "accelerate launch --config_file other.yaml train.py", False),
        (
            "num_processes: 1\n",
            "accelerate launch --config_file cfg.yaml --num_processes 2 train.py",
            False,
        ),
    ],
)
def test_an_accelerate_config_of_one_process_is_read(
    tmp_path: Path, config: str, line: str, one: bool
) -> None:
    from fairshard_lint.launch_counts import read_one_process_scripts

    (tmp_path / "train.py").write_text("import torch\n")
    (tmp_path / "cfg.yaml").write_text(f"distributed_type: MULTI_GPU\n{config}")
    (tmp_path / "run.sh").write_text(f"{line}\n")
    assert read_one_process_scripts(tmp_path) == (frozenset({"train.py"}) if one else frozenset())


def test_one_process_needs_every_line_that_runs_the_script(tmp_path: Path) -> None:
    from fairshard_lint.launch_counts import read_one_process_scripts

    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "train.py").write_text("import torch\n")
    (tmp_path / "eval.py").write_text("import torch\n")
    assert read_one_process_scripts(tmp_path) == frozenset()  # no line runs them: unknown
    (tmp_path / "tools" / "run.sh").write_text(
        "CUDA_VISIBLE_DEVICES=0 python train.py\nCUDA_VISIBLE_DEVICES=0 python ../eval.py\n"
    )
    assert read_one_process_scripts(tmp_path) == {"tools/train.py", "eval.py"}
    (tmp_path / "README.md").write_text("```\ntorchrun --nproc_per_node=8 -m tools.train\n```\n")
    assert read_one_process_scripts(tmp_path) == {"eval.py"}


def test_a_script_that_pins_or_spawns_its_own_processes_is_not_read_as_one(
    tmp_path: Path,
) -> None:
    body = (PROJECTS / "one_process_launches_good" / "train.py").read_text()
    shutil.copytree(PROJECTS / "one_process_launches_good", tmp_path / "t")
    script = tmp_path / "t" / "train.py"
    assert _found(tmp_path / "t", [tmp_path / "t"]) == set()
    script.write_text('import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0,1"\n' + body)
    codes = {code for _, _, code in _found(tmp_path / "t", [tmp_path / "t"])}
    assert codes == {"FS103", "FS106", "FS109"}  # two GPUs and no set_device: FS106 too
    script.write_text(body + "\ntorch.multiprocessing.spawn(main, nprocs=4)\n")
    assert {code for _, _, code in _found(tmp_path / "t", [tmp_path / "t"])} == {"FS103", "FS109"}
    sized = "torch.multiprocessing.spawn(main, nprocs=torch.cuda.device_count())"
    script.write_text(f"{body}\n{sized}\n")
    assert _found(tmp_path / "t", [tmp_path / "t"]) == set()
    imported = "from train import main\n\nmain(model, train_set, test_set, epochs=2)\n"
    (tmp_path / "t" / "run_ddp.py").write_text(imported)  # imported: unknown
    assert {code for _, _, code in _found(tmp_path / "t", [tmp_path / "t"])} == {"FS103", "FS109"}


def test_a_class_named_anywhere_in_the_tree_may_run(tmp_path: Path) -> None:
    shutil.copytree(PROJECTS / "unused_class_good", tmp_path / "t")
    root = tmp_path / "t"
    assert _found(root, [root]) == set()  # nothing names OldTrainer: its loop never runs
    loop = ("trainer.py", 19, "FS101")
    (root / "README.md").write_text("Older runs: `OldTrainer(model, loader, 10).train()`\n")
    assert _found(root, [root]) == {loop}  # a documented recipe makes one
    (root / "README.md").unlink()
    build = "def build(name, **kwargs):\n    return getattr(trainer, name)(**kwargs)\n"
    (root / "registry.py").write_text(f"import trainer\n\n\n{build}")
    assert _found(root, [root]) == {loop}  # made by name from the tree's own module
    optimizer = "def optimizer(name, params):\n    return getattr(torch.optim, name)(params)\n"
    (root / "registry.py").write_text(f"import torch\n\n\n{optimizer}")
    assert _found(root, [root]) == set()  # a lookup in another package makes no class here
    (root / "old.py").write_text("from trainer import OldTrainer as Legacy\n")
    assert _found(root, [root]) == {loop}
    (root / "old.py").unlink()
    script = (root / "train.py").read_text()
    (root / "train.py").write_text(script.split("\n\nif __name__")[0] + "\n")
    assert _found(root, [root]) == {loop}  # no script: modules for code elsewhere


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("python train.py trainer.devices=1", False),
        ("python train.py trainer.devices=4 trainer.strategy=ddp", True),
        ("python train.py trainer.gpus=2", True),
    ],
)
def test_a_hydra_trainer_override_in_a_launch_line_counts(
    tmp_path: Path, line: str, found: bool
) -> None:
    shutil.copytree(PROJECTS / "hydra_trainer_one_device_good", tmp_path / "t")
    (tmp_path / "t" / "README.md").write_text(f"```bash\n{line}\n```\n")
    codes = {code for _, _, code in _found(tmp_path / "t", [tmp_path / "t"])}
    assert codes == ({"FS109"} if found else set())


def test_a_loader_built_with_a_batch_sampler_hides_its_sampler_from_a_guarded_set_epoch() -> None:
    # the premise of batch_sampler_guarded_epoch: loader.sampler is not the wrapped sampler
    from torch.utils.data import BatchSampler, DataLoader, DistributedSampler, SequentialSampler

    data = list(range(16))
    inner = DistributedSampler(data, num_replicas=2, rank=0, shuffle=True, seed=3)
    loader = DataLoader(data, batch_sampler=BatchSampler(inner, 4, drop_last=False))
    assert isinstance(loader.sampler, SequentialSampler)
    orders = []
    for epoch in range(2):
        if isinstance(loader.sampler, DistributedSampler):  # the guard: always false
            loader.sampler.set_epoch(epoch)
        orders.append([int(i) for batch in loader for i in batch])
    assert orders[0] == orders[1]  # every epoch repeats the order
    loader.batch_sampler.sampler.set_epoch(1)
    assert [int(i) for batch in loader for i in batch] != orders[0]


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        (None, "", False),  # nothing shipped sets --mining: the default, partial_sep
        ("README.md", "```bash\ntorchrun --nproc_per_node=4 train.py --mining random\n```\n", True),
        ("run.sh", "torchrun --nproc_per_node=4 train.py --mining=partial_sep\n", True),
        ("configs/mine.yaml", "mining: random\nrefresh: 64\n", True),
        ("configs/other.yaml", "refresh: 64\n", False),
    ],
)
def test_a_mode_set_by_a_shipped_line_or_config_reaches_its_method(
    tmp_path: Path, name: str | None, text: str, found: bool
) -> None:
    # option_dispatch_default_good: the random mode's unseeded draw is unreached only
    # while nothing shipped can set --mining (a flag named anywhere leaves it unknown)
    shutil.copytree(PROJECTS / "option_dispatch_default_good", tmp_path / "t")
    if name is not None:
        (tmp_path / "t" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "t" / name).write_text(text)
    codes = {code for _, _, code in _found(tmp_path / "t", [tmp_path / "t"])}
    assert codes == ({"FS110"} if found else set())


def test_a_method_named_outside_the_dispatch_is_not_read_as_unreached(tmp_path: Path) -> None:
    shutil.copytree(PROJECTS / "option_dispatch_default_good", tmp_path / "t")
    (tmp_path / "t" / "refresh.py").write_text(
        "def refresh(dataset, args):\n    return dataset.compute_triplets_random(args)\n"
    )
    codes = {code for _, _, code in _found(tmp_path / "t", [tmp_path / "t"])}
    assert codes == {"FS110"}


def test_a_group_a_caller_starts_first_reaches_the_builder(tmp_path: Path) -> None:
    # group_made_after_the_loaders_good: no group exists where the builder runs; a caller
    # of main that starts one first makes the loaders shard again
    shutil.copytree(PROJECTS / "group_made_after_the_loaders_good", tmp_path / "t")
    script = tmp_path / "t" / "train.py"
    text = script.read_text().replace(
        "    train_loader, _ = create_dataloaders(train_set, 8)\n"
        '    dist.init_process_group("nccl")\n',
        "    train_loader, _ = create_dataloaders(train_set, 8)\n",
    )
    text = text.replace(
        'if __name__ == "__main__":\n    main(None, None, None, 10)\n',
        'def run():\n    dist.init_process_group("nccl")\n    main(None, None, None, 10)\n\n\n'
        'if __name__ == "__main__":\n    run()\n',
    )
    script.write_text(text)
    codes = {code for _, _, code in _found(tmp_path / "t", [tmp_path / "t"])}
    assert codes == {"FS101"}
