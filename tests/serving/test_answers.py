"""`python -m project.serve`: the real server in a process of its own, asked over HTTP by a real client, answers what
`python -m project predict` writes for the same inputs, requests batched together: one model per family over HTTP,
every other model through the same API in-process; the ONNX file served answers it within the export's tolerance."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from runkit.serving.api import NAME_COLUMNS
from runkit.serving.launch import served
from runkit.testing.serving import ServedCase, answering, as_rows, ask_together, chunks, predictions_tsv, written

from project.cli import main
from tests.conftest import FAMILIES, ROOT, SMALL, TINY
from tests.serving.server import trained

CONFIGS = ROOT / "configs"


Requests = list[dict[str, Any]]  # what a case sends: each a request's JSON body
CASES: dict[str, Callable[[], ServedCase]] = {}  # by name, each made when its test runs (some write files)


def case(make: Callable[[], ServedCase]) -> Callable[[], ServedCase]:
    CASES[make.__name__] = make
    return make


# part: cnn
def image_requests(cli: Any) -> Requests:
    """The test split's images (what `predict` predicts) as PNG files: lossless, so the same pixels arrive."""
    import base64
    import io

    from PIL import Image

    def png(image: Any) -> str:
        buffer = io.BytesIO()
        Image.fromarray(image.permute(1, 2, 0).numpy()).save(buffer, format="PNG")
        return base64.b64encode(buffer.getvalue()).decode()

    cli.datamodule.setup("test")
    return chunks([png(image) for image, _ in cli.datamodule.test_set], "images")


# part: cnn
@case
def cnn() -> ServedCase:
    return ServedCase("cnn", [*SMALL["cnn"], "--data.num_test=10"], requests=image_requests)


# part: cnn, multilabel
@case
def cnn_multilabel() -> ServedCase:
    return ServedCase("cnn_multilabel", [*SMALL["cnn_multilabel"], "--data.num_test=10"], requests=image_requests)


# part: lstm
@case
def lstm() -> ServedCase:
    texts = ["alpha beta gamma", "gamma gamma delta unknown-word", "beta", "delta alpha beta beta gamma"]
    Path("texts.txt").write_text("\n".join(texts) + "\n")
    return ServedCase("lstm", SMALL["lstm"], ["--data.predict_path=texts.txt"], lambda cli: chunks(texts, "texts"))


# part: lstm
@case
def lstm_sequences() -> ServedCase:
    import numpy as np

    rng = np.random.default_rng(3)
    values = [rng.normal(size=(n, 3)).astype(np.float32) for n in (5, 12, 8, 20, 3)]
    np.savez("sequences.npz", values=np.concatenate(values), lengths=[len(v) for v in values], channels=["x", "y", "z"])
    requests = chunks([v.tolist() for v in values], "sequences", 2)
    return ServedCase(
        "lstm_sequences", SMALL["lstm_sequences"], ["--data.predict_path=sequences.npz"], lambda cli: requests
    )


# part: lstm
@case
def lstm_tagger() -> ServedCase:
    sentences = [["Ada", "lives", "in", "Paris"], ["Acme", "hired", "Bob", "Smith", "today"], ["in"]]
    Path("sentences.conll").write_text("\n\n".join("\n".join(s) for s in sentences) + "\n")
    predict = ["--data.predict_path=sentences.conll"]
    return ServedCase("lstm_tagger", SMALL["lstm_tagger"], predict, lambda cli: chunks(sentences, "sentences", 2))


# part: lstm, regression
@case
def lstm_forecast() -> ServedCase:
    def the_series_end(cli: Any) -> Requests:  # what `predict` forecasts from without a file: all of it (ETS's fit)
        return [{"values": cli.datamodule.load()[""].values.tolist()}]

    return ServedCase("lstm_forecast", SMALL["lstm_forecast"], requests=the_series_end)


# part: lstm, regression
@case
def lstm_forecast_short_series() -> ServedCase:
    """Many short yearly series held out by horizons (`data.split: horizons`): a series shorter than a window is
    padded, in a request as in `predict`."""
    from tests.lstm.test_forecast_short_panel import yearly_panel

    lines = yearly_panel(Path("yearly.csv"), [19 + (7 * i) % 22 for i in range(12)]).read_text().splitlines()
    recent = {name: [row for row in lines[1:] if row.startswith(f"{name},")][-10:] for name in ("s0", "s1")}
    Path("recent.csv").write_text("\n".join([lines[0], *recent["s0"], *recent["s1"]]) + "\n")
    args = ["--data.train_path=yearly.csv", "--data.series_field=series", "--data.time_field=year",
            "--data.horizon=6", "--trainer.max_epochs=1"]  # fmt: skip
    requests = [{"series": name, "values": [float(row.split(",")[2]) for row in rows]} for name, rows in recent.items()]
    predict = ["--data.predict_path=recent.csv", "--data.predict_series=[s0, s1]"]
    return ServedCase("lstm_forecast", args, predict, lambda cli: requests)


# part: gcn
def graph_requests(cli: Any) -> Requests:
    """The test split's graphs (what `predict` predicts) as edge lists; their nodes carry no features of their own."""
    cli.datamodule.setup("test")
    graphs = [{"edges": g.edge_index.t().tolist(), "num_nodes": g.num_nodes} for g in cli.datamodule.test_set]
    return chunks(graphs, "graphs")


# part: gcn
@case
def gcn() -> ServedCase:
    return ServedCase("gcn", SMALL["gcn"], requests=graph_requests)


# part: gcn, regression
@case
def gcn_regression() -> ServedCase:
    return ServedCase("gcn_regression", SMALL["gcn_regression"], requests=graph_requests)


# part: gcn
@case
def gcn_node() -> ServedCase:
    every_node = lambda cli: [{"nodes": list(range(cli.datamodule.graph.num_nodes))}]  # noqa: E731
    return ServedCase("gcn", [f"--config={CONFIGS / 'gcn_node.yaml'}"], requests=every_node)


# part: gcn
@case
def gcn_link() -> ServedCase:
    Path("pairs.csv").write_text("src,dst\n0,1\n5,17\n3,2\n40,41\n")
    requests = [{"pairs": [["0", "1"], ["5", "17"]]}, {"pairs": [[3, 2], ["40", "41"]]}]  # names, or ids as numbers
    top_k = (
        ["--data.predict_nodes=[0, 7]", "--data.top_k=4"],
        [{"nodes": ["0"], "top_k": 4}, {"nodes": [7], "top_k": 4}],
    )
    return ServedCase("gcn_link", SMALL["gcn_link"], ["--data.predict_path=pairs.csv"], lambda cli: requests, [top_k])


# part: molecules, regression
@case
def molecules() -> ServedCase:
    from tests.gcn.test_molecules import chains, write_csv

    smiles = ["CCO", "c1ccccc1O", "CC(=O)O", "C=CC=C", "C1CCCCC1"]
    Path("new.csv").write_text("smiles\n" + "\n".join(smiles) + "\n")
    train = write_csv(Path("molecules.csv").resolve(), chains(120))
    args = [
        f"--config={CONFIGS / 'gcn_molecules.yaml'}",
        f"--data.train_path={train}",
        "--data.target_fields=[doubles]",
    ]
    return ServedCase("gcn_regression", args, ["--data.predict_path=new.csv"], lambda cli: chunks(smiles, "smiles", 2))


def predicted(case: ServedCase, checkpoint: Path) -> tuple[list[str], list[list[str]]]:
    """predictions.tsv of `predict` from the checkpoint: its columns and rows, without the first (index, line)."""
    done = main(["predict", f"--model={case.model}", f"--ckpt_path={checkpoint}", *TINY, *case.args, *case.predict])
    return predictions_tsv(Path(done.trainer.log_dir))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_the_server_answers_what_predict_writes(name):
    """Over HTTP for one model per family (a server process each costs seconds); the other models' readers and tables
    through the same API in this process."""
    case = CASES[name]()
    cli, checkpoint = trained(case.model, *case.args)
    columns, expected = predicted(case, checkpoint)
    with answering(checkpoint, name in FAMILIES) as ask:
        got = as_rows(ask(case.requests(cli)), columns)
        for predict, more in case.also:  # other inputs of the same model, to the same server
            also = ServedCase(case.model, case.args, predict)
            assert as_rows(ask(more), columns) == written(*predicted(also, checkpoint))
    assert len(got) == len(expected) > 0
    assert got == written(columns, expected)


# The ONNX file's network in onnxruntime: the same answers within the export's tolerance (1e-4 + 1e-4 × |value|,
# lib/docs/export.md), plus the half unit of the 4th decimal predictions.tsv rounds to.
ONNX_CASES = [name for name in ("cnn",) if name in CASES]  # each case ~12 s: the network's exporter is the same


@pytest.mark.slow
@pytest.mark.parametrize("name", ONNX_CASES)
def test_the_onnx_file_served_answers_what_predict_writes_within_the_export_tolerance(name):
    from runkit.tools.onnx_export import export_onnx

    case = CASES[name]()
    cli, checkpoint = trained(case.model, *case.args)
    export_onnx(checkpoint)
    columns, expected = predicted(case, checkpoint)
    with served(checkpoint, "--onnx", "--max_batch_size=4", "--batch_timeout=0.05") as url:
        got = as_rows(ask_together(url, case.requests(cli)), columns)
    assert len(got) == len(expected) > 0
    for have, want in zip(got, written(columns, expected), strict=True):
        for column, a, b in zip(columns, have, want, strict=True):
            assert a == b if column in NAME_COLUMNS else abs(a - b) <= 2e-4 + 1e-4 * abs(b), (column, a, b)
