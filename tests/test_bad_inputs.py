"""A catalogue of broken inputs, each fed to a DataModule or to the CLI: every one must fail with an error
that names what is wrong (file, line, field), and leave every existing file (data, checkpoints, logs)
as it was, and reach the command line as one `error:` line (docs/reliability.md)."""

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from runkit import UserError

from project.cli import main
from tests.conftest import FAMILIES, python_m


@dataclass
class Case:
    name: str
    make: Callable[[Path], Callable[[], object]]  # writes the bad input under tmp, returns what should fail
    error: type[BaseException]
    message: str  # a regex the error (or, for the CLI's usage errors, stderr) must match


def snapshot(root: Path) -> dict[Path, str]:
    return {p: hashlib.sha1(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file()}


def written(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def set_up(datamodule):
    datamodule.setup("fit")
    return datamodule


def cli(*args: str) -> Callable[[], object]:
    return lambda: main(list(args), subcommand="fit")


# part: lstm
def text_cases() -> list[Case]:
    """Text files, and the sequence model's checkpoints."""
    from runkit.checkpoints.io import CheckpointError

    from project.data.text import TextClassificationDataModule
    from tests.conftest import SMALL, TINY

    def text(content: str | bytes, name: str = "train.csv", **kwargs) -> Callable[[Path], Callable[[], object]]:
        return lambda tmp: lambda: TextClassificationDataModule(train_path=str(written(tmp / name, content)), **kwargs)

    def tiny_lstm_checkpoint(tmp: Path) -> Path:
        """An LSTM checkpoint with another vocabulary size than this data gives, and no saved vocabulary."""
        from project.cli import build

        model = build("lstm", *SMALL["lstm"]).model
        state = model.state_dict()
        state["net.features.embedding.weight"] = torch.zeros(7, state["net.features.embedding.weight"].shape[1])
        path = tmp / "other_vocabulary.ckpt"
        torch.save({"state_dict": state, "pytorch-lightning_version": "2.6.6"}, path)
        return path

    return [
        Case("csv: row cut short", text('text,label\n"a b",x\n"c d'), ValueError, r"train\.csv, line 3: 1 fields"),
        Case("csv: not UTF-8", text(b"text,label\ncaf\xe9,x\n"), ValueError, r"train\.csv, line 2: not UTF-8"),
        Case("csv: missing column", text("body,label\na,x\n"), ValueError, r"train\.csv, line 1: no column 'text'"),
        Case("csv: empty file", text(""), ValueError, r"train\.csv: the file is empty"),
        Case("csv: header only", text("text,label\n"), ValueError, r"train\.csv: no rows with a text"),
        Case(
            "jsonl: broken line",
            text('{"text": "a", "label": "x"}\n{"text": "b",\n', "t.jsonl"),
            ValueError,
            r"t\.jsonl, line 2: not valid JSON",
        ),
        Case("jsonl: key missing", text('{"text": "a"}\n', "t.jsonl"), ValueError, r"t\.jsonl, line 1: no key 'label'"),
        Case("unknown file type", text("a,b\n", "train.xlsx"), ValueError, r"train\.xlsx: unknown format"),
        Case(
            "checkpoint of another vocabulary size",
            lambda tmp: cli("--model", "lstm", *TINY, *SMALL["lstm"], "--ckpt_path", str(tiny_lstm_checkpoint(tmp))),
            CheckpointError,
            r"other_vocabulary\.ckpt does not fit this model .*embedding\.weight is \(7, 32\) in the checkpoint",
        ),
    ]


# part: cnn
def image_cases() -> list[Case]:
    """Image folders."""
    import io

    from project.data.images import ImageFolderDataModule

    def png(tmp: Path, name: str, cut: bool = False) -> Path:
        from PIL import Image

        buffer = io.BytesIO()
        Image.new("RGB", (8, 8), "red").save(buffer, format="PNG")
        data = buffer.getvalue()
        return written(tmp / name, data[: len(data) // 2] if cut else data)

    def truncated_image(tmp: Path) -> Callable[[], object]:
        png(tmp, "images/circle/a.png"), png(tmp, "images/square/b.png", cut=True)
        dm = ImageFolderDataModule(root=str(tmp / "images"), val_fraction=0.0, batch_size=1)
        dm.setup("fit")
        return lambda: [dm.train_set[i] for i in range(len(dm.train_set))]

    return [
        Case("images: truncated PNG", truncated_image, ValueError, r"b\.png: not a readable image"),
        Case(
            "images: folder missing",
            lambda tmp: lambda: ImageFolderDataModule(root=str(tmp / "nothing")),
            FileNotFoundError,
            r"image folder '.*nothing' does not exist",
        ),
        Case(
            "images: no class folders",
            lambda tmp: lambda: ImageFolderDataModule(root=str(written(tmp / "flat" / "a.png", b"").parent)),
            ValueError,
            r"has no class sub-folders",
        ),
        Case(
            "images: class folder without images",
            lambda tmp: (
                lambda: ImageFolderDataModule(root=str(written(tmp / "img" / "cat" / "notes.txt", "x").parents[1]))
            ),
            ValueError,
            r"class folder '.*cat' has no images",
        ),
    ]


# part: gcn
def graph_cases() -> list[Case]:
    """TU graph files."""
    from project.data.graphs import GraphClassificationDataModule

    def tu(tmp: Path, edges: str, attributes: str | None = None) -> Callable[[], object]:
        """A two-graph TU dataset (graphs of 2 and 3 nodes) with the given edge file."""
        raw = tmp / "tu" / "TOY" / "raw"
        written(raw / "TOY_A.txt", edges)
        written(raw / "TOY_graph_indicator.txt", "1\n1\n2\n2\n2\n")
        written(raw / "TOY_graph_labels.txt", "0\n1\n")
        if attributes is not None:
            written(raw / "TOY_node_attributes.txt", attributes)
        return lambda: GraphClassificationDataModule(source="tu", name="TOY", data_dir=str(tmp / "tu")).setup("fit")

    return [
        Case(
            "graphs: TU file missing",
            lambda tmp: lambda: GraphClassificationDataModule(source="tu", name="NOPE", data_dir=str(tmp)),
            FileNotFoundError,
            r"NOPE_A\.txt",
        ),
        Case(
            "graphs: edge file cut mid-line",
            lambda tmp: tu(tmp, "1, 2\n2, 1\n3, 4\n4,"),
            ValueError,
            r"TOY_A\.txt, line 4: expected 2 comma-separated",
        ),
        Case(
            "graphs: node id out of range",
            lambda tmp: tu(tmp, "1, 2\n2, 1\n3, 9\n9, 3\n"),
            ValueError,
            r"TOY_A\.txt, line 3: node 9, but TOY_graph_indicator\.txt lists 5 nodes",
        ),
        Case(
            "graphs: NaN node features",
            lambda tmp: tu(tmp, "1, 2\n2, 1\n3, 4\n4, 5\n", "1.0\nnan\n1.0\n1.0\n1.0\n"),
            ValueError,
            r"graph 0: NaN or inf in the node features",
        ),
    ]


def cli_cases() -> list[Case]:
    """Configs and checkpoints, through the CLI."""
    return [
        Case(
            "config: wrong type on the command line",
            lambda tmp: cli("--model", FAMILIES[0], "--trainer.max_epochs=many"),
            SystemExit,
            r"max_epochs",
        ),
        Case(
            "config: wrong type in a file",
            lambda tmp: cli(
                "--model",
                FAMILIES[0],
                "--config",
                str(written(tmp / "bad.yaml", "data:\n  init_args:\n    batch_size: lots\n")),
                "--trainer.fast_dev_run=1",
            ),
            SystemExit,
            r"batch_size",
        ),
        Case(
            "config: unknown key",
            lambda tmp: cli("--model", FAMILIES[0], "--trainer.max_epoch=3"),
            SystemExit,
            r"max_epoch",
        ),
        Case(
            "unknown model family",
            lambda tmp: cli("--model", "transformer"),
            SystemExit,
            r"unknown model 'transformer'",
        ),
        Case(
            "a config file given as --model",
            lambda tmp: cli("--model", str(written(tmp / "my_config.yaml", "trainer:\n  max_epochs: 1\n"))),
            SystemExit,
            r"my_config\.yaml' is a file, not a model: pass a config file with --config",
        ),
        Case(
            "a --model class path that does not import",
            lambda tmp: cli("--model", "my_project.models.Transformer"),
            SystemExit,
            r"its module 'my_project\.models' does not import .*\n.*Models \(--model NAME",
        ),
        Case(
            "checkpoint cut short",
            lambda tmp: cli(
                "--model", FAMILIES[0], "--ckpt_path", str(written(tmp / "cut.ckpt", b"PK\x03\x04" + b"\x00" * 100))
            ),
            Exception,
            r"cut\.ckpt is incomplete",
        ),
        Case(
            "checkpoint missing",
            lambda tmp: cli("--model", FAMILIES[0], "--ckpt_path", str(tmp / "gone.ckpt")),
            Exception,
            r"gone\.ckpt does not exist",
        ),
        Case(
            "checkpoint of another model family",
            lambda tmp: cli("--model", FAMILIES[0], "--ckpt_path", str(_foreign_checkpoint(tmp))),
            Exception,
            r"foreign\.ckpt holds a \w+ .* but this command builds",
        ),
    ]


def _foreign_checkpoint(tmp: Path) -> Path:
    path = tmp / "foreign.ckpt"
    hparams = {"_class_path": "some.other.Family"}
    torch.save({"state_dict": {}, "hyper_parameters": hparams, "pytorch-lightning_version": "2.6.6"}, path)
    return path


PARTS = {
    "lstm": text_cases(),  # part: lstm
    "cnn": image_cases(),  # part: cnn
    "gcn": graph_cases(),  # part: gcn
    "cli": cli_cases(),
}
CASES = [case for cases in PARTS.values() for case in cases]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_input_fails_clearly_and_changes_no_file(case, tmp_path, capsys):
    # Files that were there before the bad input arrived: they must come out untouched.
    written(tmp_path / "data" / "keep.csv", "text,label\nkeep me,x\n")
    written(tmp_path / "logs" / "old" / "version_0" / "checkpoints" / "last.ckpt", b"an older run's checkpoint")
    action = case.make(tmp_path)
    before = snapshot(tmp_path)
    with pytest.raises(case.error) as raised:
        action()
    # Ours, not a library's: the command line shows it as one `error:` line (SystemExit: the parser already did).
    assert isinstance(raised.value, (UserError, SystemExit)), type(raised.value)
    shown = str(raised.value) + capsys.readouterr().err
    assert re.search(case.message, shown, flags=re.S), shown[-2000:]
    after = snapshot(tmp_path)
    assert {p: h for p, h in after.items() if p in before} == before, "an existing file was changed or removed"


def test_the_catalogue_covers_each_part():
    """Every family this project has brings its own bad files, and the command line its own mistakes."""
    assert all(len(cases) >= 4 for cases in PARTS.values()), {part: len(cases) for part, cases in PARTS.items()}


COMMANDS = {  # one bad input per family, as a user types it: (files to write, arguments, what the error names)
    "lstm": (
        {"reviews.csv": "review,label\ngreat,pos\n"},
        ["--data.train_path", "reviews.csv"],
        r"reviews\.csv, line 1",
    ),  # part: lstm
    "cnn": (
        {},
        ["--data", "project.data.images.ImageFolderDataModule", "--data.root", "photos"],
        r"'photos' does not",
    ),  # part: cnn
    "gcn": ({}, ["--data.source", "tu", "--data.name", "TOY", "--data.data_dir", "tu"], r"TOY_A\.txt"),  # part: gcn
}


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_a_user_error_is_a_short_message_at_the_command_line(family, tmp_path):
    files, args, names = COMMANDS[family]
    for name, content in files.items():
        written(tmp_path / name, content)
    result = python_m("project.fit", "--model", family, *args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and re.search(names, errors[0]), result.stderr[-3000:]
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) <= 6, result.stderr


@pytest.mark.slow
def test_a_refused_checkpoint_is_one_line_and_the_traceback_is_there_when_asked(tmp_path):
    bad = written(tmp_path / "cut.ckpt", b"PK\x03\x04" + b"\x00" * 100)
    result = python_m("project", "validate", "--model", FAMILIES[0], "--ckpt_path", str(bad), cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert re.search(r"^error: checkpoint .*cut\.ckpt is incomplete", result.stderr, re.M), result.stderr
    shown = python_m(
        "project",
        "validate",
        "--model",
        FAMILIES[0],
        "--ckpt_path",
        str(bad),
        cwd=tmp_path,
        env={"PROJECT_TRACEBACK": "1"},
    )
    assert shown.returncode == 1 and "Traceback" in shown.stderr and "CheckpointError" in shown.stderr
