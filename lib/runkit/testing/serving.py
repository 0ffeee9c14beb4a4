"""What a served model's tests compare: the server's answers (over HTTP, or its API in-process) with the rows of the
predictions.tsv that `predict` writes for the same inputs."""

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runkit.serving.api import NAME_COLUMNS, ModelAPI
from runkit.serving.launch import served


@dataclass
class ServedCase:
    """A model served: how it trains (`args`), what `predict` reads beside them (its files written when the case is
    made), and the same inputs as requests."""

    model: str
    args: list[str]
    predict: list[str] = field(default_factory=list)
    requests: Callable[[Any], list[dict[str, Any]]] = lambda cli: []  # from the trained run's CLI
    also: list[tuple[list[str], list[dict[str, Any]]]] = field(default_factory=list)  # more (predict, requests)


def chunks(items: list[Any], name: str, size: int = 3) -> list[dict[str, Any]]:
    """Several requests of a few inputs each: they meet in LitServe's batches."""
    return [{name: items[i : i + size]} for i in range(0, len(items), size)]


def fit_and_save(cli: Any) -> Path:
    """Fit a built CLI (`cli.py`'s `build`) and save its model in the run folder, beside the config.yaml that
    serving and `predict` read: the checkpoint's path."""
    cli.trainer.fit(cli.model, cli.datamodule)
    path = Path(cli.trainer.log_dir) / "checkpoints" / "model.ckpt"
    cli.trainer.save_checkpoint(path)
    return path


def predictions_tsv(folder: Path) -> tuple[list[str], list[list[str]]]:
    """A run folder's predictions.tsv: its columns and rows, without the first column (the input's index or line)."""
    header, *lines = (folder / "predictions.tsv").read_text().splitlines()
    return header.split("\t")[1:], [line.split("\t")[1:] for line in lines]


def written(columns: list[str], rows: list[list[str]]) -> list[list[Any]]:
    """predictions.tsv's cells as the server answers them: names as strings, every other cell a number."""
    return [[cell if c in NAME_COLUMNS else float(cell) for c, cell in zip(columns, row, strict=True)] for row in rows]


def as_rows(answers: list[Any], columns: list[str]) -> list[list[Any]]:
    """The answers' rows in order, each in predictions.tsv's column order: an input's several rows one by one."""
    rows = []
    for answer in answers:
        assert answer.status_code == 200, answer.text
        for prediction in answer.json()["predictions"]:
            for row in prediction if isinstance(prediction, list) else [prediction]:
                assert list(row) == columns
                rows.append([row[c] for c in columns])
    return rows


def ask_together(url: str, requests: list[Any]) -> list[Any]:
    """Every request at once, each from a client of its own: LitServe batches those that arrive together."""
    import httpx

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(lambda body: httpx.post(f"{url}/predict", json=body, timeout=60), requests))


@dataclass
class Answer:
    """An answer of the API in-process, read as an HTTP one: its status and JSON."""

    status_code: int
    body: Any

    def json(self) -> Any:
        return self.body


@contextmanager
def answering(
    checkpoint: Path, over_http: bool, *args: str, package: str = "project"
) -> Iterator[Callable[[list[Any]], list[Any]]]:
    """`ask(requests)`: the answers of the real server (over HTTP, the requests sent together so that LitServe
    batches them), or of its API in this process (`ModelAPI`, the same code less LitServe's transport: the requests
    decoded, batched, predicted and encoded together, through JSON both ways)."""
    if over_http:
        with served(checkpoint, "--max_batch_size=4", "--batch_timeout=0.05", *args, package=package) as url:
            yield lambda requests: ask_together(url, requests)
        return
    api = ModelAPI(checkpoint, max_batch_size=4)
    api.setup("cpu")

    def ask(requests: list[Any]) -> list[Answer]:
        decoded = [api.decode_request(json.loads(json.dumps(request))) for request in requests]
        encoded = [api.encode_response(answer) for answer in api.unbatch(api.predict(api.batch(decoded)))]
        return [Answer(200, json.loads(json.dumps(answer))) for answer in encoded]

    yield ask
