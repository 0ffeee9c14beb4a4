"""The LitServe API of a checkpoint: `POST /predict` answers with the rows `predict` would write for its inputs.

LitServe (Lightning's serving engine) runs the HTTP server, queues requests, gathers up to `max_batch_size` of them
within `batch_timeout` into one call of `predict`, and runs this API in worker processes. Each worker rebuilds the
model from the checkpoint alone, as `predict` does, and reads requests with its data's `Reader`.

A bad request must not fail the good ones LitServe batched with it (LitServe answers a whole batch with the error
any step raises): `decode_request` keeps a `BadRequest` as that request's result, the others are predicted
together, and `encode_response` answers each on its own, the bad one with its 4xx.
"""

from pathlib import Path
from typing import Any

import litserve as ls
import torch
from fastapi.responses import JSONResponse
from torch import nn

from runkit.serving.readers import Reader, reader_for
from runkit.serving.requests import BadRequest

# predictions.tsv's columns that hold names, not numbers: every other cell is answered as a JSON number (a task of
# your own whose cells are not numbers: as text).
NAME_COLUMNS = frozenset({"label", "labels", "tag", "series", "step", "src", "dst"})


class OnnxNet(nn.Module):
    """The exported network, run by onnxruntime in the model's place: `predict_step`, the task's predictions
    and the table stay the checkpoint's, so only the network's arithmetic changes (within the export's
    tolerance, docs/export.md)."""

    def __init__(self, path: Path, input_names: list[str]) -> None:
        super().__init__()
        import onnxruntime

        self.session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        self.names = input_names

    def forward(self, *inputs: torch.Tensor | None) -> torch.Tensor:
        from runkit.tools.onnx_export import given_inputs  # paired by name as the export paired them

        feed = {name: value.detach().cpu().numpy() for name, value in given_inputs(self.names, inputs).items()}
        return torch.from_numpy(self.session.run(["output"], feed)[0])


class ModelAPI(ls.LitAPI):
    """A checkpoint served: `setup` rebuilds it in each worker (weights only, the data's state from the
    checkpoint), `predict` answers a batch of requests.

    Args:
        checkpoint: a .ckpt of a run of this project (its run folder's config.yaml beside `checkpoints/`).
        onnx: serve this exported ONNX file's network with onnxruntime instead of PyTorch.
        config: the run's config, where it is not beside the checkpoint.
        overrides: config arguments, as `predict` takes them (`--data.root moved/data`).
        max_batch_size, batch_timeout: LitServe's batching: up to this many requests, waiting at most this long.
    """

    def __init__(
        self,
        checkpoint: str | Path,
        onnx: str | Path | None = None,
        config: str | Path | None = None,
        overrides: list[str] | None = None,
        max_batch_size: int = 1,
        batch_timeout: float = 0.0,
    ) -> None:
        super().__init__(max_batch_size=max_batch_size, batch_timeout=batch_timeout)
        self.checkpoint, self.onnx, self.config = Path(checkpoint), onnx, config
        self.overrides = list(overrides or [])
        self.reader: Reader | None = None

    def setup(self, device: str) -> None:
        import multiprocessing
        import signal

        from runkit.tools.onnx_export import rebuild

        if multiprocessing.current_process().name != "MainProcess":  # a LitServe worker (not a script's own API)
            # Ctrl-C reaches the terminal's whole process group; the server stops its workers itself, and a worker
            # interrupted first would only print a traceback.
            signal.signal(signal.SIGINT, signal.SIG_IGN)

        model, datamodule = rebuild(self.checkpoint, self.config, self.overrides, serving=True)
        if self.onnx is not None:
            model.net = OnnxNet(Path(self.onnx), list(model.onnx_inputs))
            device = "cpu"
        self.device_name = device
        model.trainer.predicting = True  # what the models ask (a node-level model: every node, not a split's)
        self.reader = reader_for(model.to(device), datamodule)

    def decode_request(self, request: dict[str, Any]) -> list[Any] | BadRequest:
        # Annotated `dict`: FastAPI answers a body that is not a JSON object 422 before it gets here.
        try:
            return self.reader.samples(request)
        except BadRequest as refused:
            return refused

    def batch(self, inputs: list[Any]) -> list[Any]:
        return list(inputs)  # `predict` batches the samples of all of them itself

    def predict(self, x: Any) -> Any:
        many = self.max_batch_size > 1  # LitServe passes a list of decoded requests only when it batches
        answers = self.answer(x if many else [x])
        return answers if many else answers[0]

    def unbatch(self, output: list[Any]) -> list[Any]:
        return output

    def encode_response(self, output: dict[str, Any] | BadRequest) -> Any:
        if isinstance(output, BadRequest):
            return JSONResponse(status_code=output.status, content={"detail": output.detail})
        return output

    def answer(self, requests: list[list[Any] | BadRequest]) -> list[dict[str, Any] | BadRequest]:
        """Each request's answer: the rows of its inputs, the inputs of all requests predicted together."""
        samples = [sample for request in requests if not isinstance(request, BadRequest) for sample in request]
        with torch.inference_mode():
            predictions = self.reader.predict(samples, self.device_name) if samples else []
        answers, at = [], 0
        for request in requests:
            if isinstance(request, BadRequest):
                answers.append(request)
                continue
            rows = [self.rows(s, p) for s, p in zip(request, predictions[at : at + len(request)], strict=True)]
            answers.append({"predictions": rows})
            at += len(request)
        return answers

    def rows(self, sample: Any, predictions: dict[str, torch.Tensor]) -> Any:
        """One input's rows of predictions.tsv as JSON objects: one, or a list where an input has several."""
        columns, rows = self.reader.table(sample, predictions)
        objects = [
            {column: cell_value(column, cell) for column, cell in zip(columns, row, strict=True)} for row in rows
        ]
        return objects if self.reader.many_rows(sample) else objects[0]


def cell_value(column: str, cell: str) -> str | float:
    """A cell of predictions.tsv as JSON: a name as it is, a number as a number."""
    if column in NAME_COLUMNS:
        return cell
    try:
        return float(cell)
    except ValueError:
        return cell
