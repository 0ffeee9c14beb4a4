"""How each kind of data is read from a request: a `Reader` per DataModule turns a request's JSON into the samples
its predict set would hold, made by the DataModule's own code (its vocabulary, scaling, featuriser, node names),
and batches them with its own collate. So a served answer is `predict`'s answer. A DataModule names its reader
(`request_reader`, a class path: the project's readers are in its serving/ room).
"""

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import torch
from torch.utils.data import default_collate

from runkit import ConfigError
from runkit.data.offers import offers
from runkit.extras import import_object


class Reader(ABC):
    """A request → the samples of `datamodule`'s predict set, and their batch; the rows `predict` writes for them.

    Each input of a request is answered by the rows predictions.tsv would hold for it: one (a label, a value),
    or several (`rows_per_input = "many"`: a tag per token, a forecast per step, the top-k links of a node).
    """

    fields: ClassVar[tuple[str, ...]]  # the request's fields: any other is refused by name
    rows_per_input: ClassVar[str] = "one"

    def __init__(self, model: Any, datamodule: Any) -> None:
        self.model, self.datamodule = model, datamodule

    @abstractmethod
    def samples(self, request: dict[str, Any]) -> list[Any]:
        """One sample per input of the request, as the predict set holds them; raises `BadRequest`."""

    def collate(self, samples: list[Any]) -> Any:
        """The samples as one batch, joined as the DataModule's evaluation loaders join them."""
        return (self.datamodule.collate_for(False) or default_collate)(samples)  # None: the loaders' default

    def predict(self, samples: list[Any], device: str) -> list[dict[str, torch.Tensor]]:
        """Each sample's predictions (what `predict_step` returns, cut to its row), in batches of the data's
        `batch_size`. Runs under `torch.inference_mode`."""
        return self.batched(samples, device, self.collate, self.datamodule.batch_size)

    def batched(
        self, samples: Sequence[Any], device: str, collate: Callable[[list[Any]], Any], size: int
    ) -> list[dict[str, torch.Tensor]]:
        """`predict_step` on `samples` joined by `collate`, `size` at a time; its result cut into a part per sample."""
        from lightning.fabric.utilities.apply_func import move_data_to_device

        each = []
        for start in range(0, len(samples), size):
            chunk = list(samples[start : start + size])
            batch = move_data_to_device(collate(chunk), device)
            predictions = {key: value.cpu() for key, value in self.model.predict_step(batch, 0).items()}
            each += [{key: value[i : i + 1] for key, value in predictions.items()} for i in range(len(chunk))]
        return each

    def many_rows(self, sample: Any) -> bool:
        """Whether `sample` is answered by a list of rows (a tag per token...) rather than one row."""
        return self.rows_per_input == "many"

    def table(self, sample: Any, predictions: dict[str, torch.Tensor]) -> tuple[list[str], list[list[str]]]:
        """predictions.tsv's columns, and its rows for these predictions (as `PredictionWriter` makes them)."""
        names = self.datamodule.output_names
        return self.model.prediction_table([predictions], names)


def reader_for(model: Any, datamodule: Any) -> Reader:
    """The reader of `datamodule`'s requests (the class path its `request_reader` names), or a ConfigError naming
    the DataModule that names none."""
    path = offers(datamodule).request_reader
    if path is None:
        raise ConfigError(
            f"serving reads no requests for {type(datamodule).__name__}: write a Reader for it "
            "(a subclass of runkit.Reader) and name its class path in the DataModule's `request_reader`"
        )
    return import_object(path)(model, datamodule)
