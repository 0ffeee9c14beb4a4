"""A catalogue of broken inputs, each fed to a DataModule or to the CLI: every one must fail with an error
that names what is wrong (file, line, field), and leave every existing file (data, checkpoints, logs)
as it was, and reach the command line as one `error:` line (lib/docs/reliability.md)."""

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from runkit.testing.bad_inputs import BadInput, fails_clearly, written

from project.cli import main
from tests.conftest import FAMILIES, python_m


def cli(*args: str) -> Callable[[], object]:
    return lambda: main(list(args), subcommand="fit")


# part: lstm
def text_cases() -> list[BadInput]:
    """Text files, and the sequence model's checkpoints."""
    from runkit.checkpoints.io import CheckpointError

    from project.data.text import TextClassificationDataModule
    from tests.conftest import SMALL, TINY

    def text(content: str | bytes, name: str = "train.csv", **kwargs) -> Callable[[Path], Callable[[], object]]:
        return lambda tmp: lambda: TextClassificationDataModule(train_path=str(written(tmp / name, content)), **kwargs)

    def tiny_lstm_checkpoint(tmp: Path) -> Path:
        """An LSTM checkpoint with another vocabulary size than this data gives, and no saved vocabulary."""
        import torch

        from project.cli import build

        model = build("lstm", *SMALL["lstm"]).model
        state = model.state_dict()
        state["net.features.embedding.weight"] = torch.zeros(7, state["net.features.embedding.weight"].shape[1])
        path = tmp / "other_vocabulary.ckpt"
        torch.save({"state_dict": state, "pytorch-lightning_version": "2.6.6"}, path)
        return path

    return [
        BadInput("csv: row cut short", text('text,label\n"a b",x\n"c d'), ValueError, r"train\.csv, line 3: 1 fields"),
        BadInput("csv: not UTF-8", text(b"text,label\ncaf\xe9,x\n"), ValueError, r"train\.csv, line 2: not UTF-8"),
        BadInput("csv: missing column", text("body,label\na,x\n"), ValueError, r"train\.csv, line 1: no column 'text'"),
        BadInput("csv: empty file", text(""), ValueError, r"train\.csv: the file is empty"),
        BadInput("csv: header only", text("text,label\n"), ValueError, r"train\.csv: no rows with a text"),
        BadInput(
            "jsonl: broken line",
            text('{"text": "a", "label": "x"}\n{"text": "b",\n', "t.jsonl"),
            ValueError,
            r"t\.jsonl, line 2: not valid JSON",
        ),
        BadInput(
            "jsonl: key missing", text('{"text": "a"}\n', "t.jsonl"), ValueError, r"t\.jsonl, line 1: no key 'label'"
        ),
        BadInput("unknown file type", text("a,b\n", "train.xlsx"), ValueError, r"train\.xlsx: unknown format"),
        BadInput(
            "checkpoint of another vocabulary size",
            lambda tmp: cli("--model", "lstm", *TINY, *SMALL["lstm"], "--ckpt_path", str(tiny_lstm_checkpoint(tmp))),
            CheckpointError,
            r"other_vocabulary\.ckpt does not fit this model .*embedding\.weight is \(7, 32\) in the checkpoint",
        ),
    ]


# part: cnn
def image_cases() -> list[BadInput]:
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
        BadInput("images: truncated PNG", truncated_image, ValueError, r"b\.png: not a readable image"),
        BadInput(
            "images: folder missing",
            lambda tmp: lambda: ImageFolderDataModule(root=str(tmp / "nothing")),
            FileNotFoundError,
            r"image folder '.*nothing' does not exist",
        ),
        BadInput(
            "images: no class folders",
            lambda tmp: lambda: ImageFolderDataModule(root=str(written(tmp / "flat" / "a.png", b"").parent)),
            ValueError,
            r"has no class sub-folders",
        ),
        BadInput(
            "images: class folder without images",
            lambda tmp: (
                lambda: ImageFolderDataModule(root=str(written(tmp / "img" / "cat" / "notes.txt", "x").parents[1]))
            ),
            ValueError,
            r"class folder '.*cat' has no images",
        ),
    ]


# part: gcn
def graph_cases() -> list[BadInput]:
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
        BadInput(
            "graphs: TU file missing",
            lambda tmp: lambda: GraphClassificationDataModule(source="tu", name="NOPE", data_dir=str(tmp)),
            FileNotFoundError,
            r"NOPE_A\.txt",
        ),
        BadInput(
            "graphs: edge file cut mid-line",
            lambda tmp: tu(tmp, "1, 2\n2, 1\n3, 4\n4,"),
            ValueError,
            r"TOY_A\.txt, line 4: expected 2 comma-separated",
        ),
        BadInput(
            "graphs: node id out of range",
            lambda tmp: tu(tmp, "1, 2\n2, 1\n3, 9\n9, 3\n"),
            ValueError,
            r"TOY_A\.txt, line 3: node 9, but TOY_graph_indicator\.txt lists 5 nodes",
        ),
        BadInput(
            "graphs: NaN node features",
            lambda tmp: tu(tmp, "1, 2\n2, 1\n3, 4\n4, 5\n", "1.0\nnan\n1.0\n1.0\n1.0\n"),
            ValueError,
            r"graph 0: NaN or inf in the node features",
        ),
    ]


PARTS = {
    "lstm": text_cases(),  # part: lstm
    "cnn": image_cases(),  # part: cnn
    "gcn": graph_cases(),  # part: gcn
}
CASES = [case for cases in PARTS.values() for case in cases]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_input_fails_clearly_and_changes_no_file(case, tmp_path, capsys):
    fails_clearly(case, tmp_path, lambda: capsys.readouterr().err)


def test_the_catalogue_covers_each_part():
    """Every family this project has brings its own bad files (the command line's own mistakes: runkit's
    own tests)."""
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
