"""The LSTM sequence classifiers: batches are `(tokens [B, T], lengths [B], labels [B])`, or values `[B, T, C]`."""

import copy
from typing import Any, ClassVar

import torch
from runkit import Tagging, Task, TaskModule
from torch import nn


class SequenceModel(TaskModule):
    data_links: ClassVar[dict[str, tuple[str, ...]]] = {
        **TaskModule.data_links,
        "vocab_size": ("net.init_args.vocab_size",),
    }
    onnx_inputs: ClassVar[dict[str, dict[int, str]]] = {"tokens": {0: "batch", 1: "time"}, "lengths": {0: "batch"}}

    def unpack(self, batch: Any) -> tuple[tuple[torch.Tensor, torch.Tensor], torch.Tensor, int]:
        tokens, lengths, labels = batch
        return (tokens, lengths), labels, tokens.shape[0]

    def on_fit_start(self) -> None:
        super().on_fit_start()
        loaded = self.load_vectors(self.trainer.datamodule)
        if loaded is not None:
            self.print(loaded)
        fitted = self.fit_ngrams(self.trainer.datamodule)
        if fitted is not None:
            self.print(
                f"TF-IDF + logistic regression fitted on {fitted['texts']} training texts, C {fitted['c']:g} chosen "
                f"on validation: accuracy {fitted['train_acc']:.3f} training, {fitted['val_acc']:.3f} validation"
                + ("" if fitted["kept"] else "; no surer than the class shares there beyond chance: switched off")
            )

    def load_vectors(self, datamodule: Any) -> str | None:
        """Word vectors from the file the network names (`vectors`), for the vocabulary the data built, before the
        first step; a resumed run's checkpoint holds them as trained."""
        features = getattr(self.net, "features", None)
        if not getattr(features, "vectors", None) or bool(features.vectors_loaded):
            return None
        return features.load_vectors(datamodule.vocabulary.tokens)

    def fit_ngrams(self, datamodule: Any) -> dict[str, Any] | None:
        """Fit the network's TF-IDF + logistic regression (`ngrams`, project/nets/ngram_bag.py) on the training
        split before the first step (a hand-written loop calls this too). A resumed run's checkpoint holds it, all
        but the folds that score the training texts, which are fitted again."""
        if getattr(self.net, "bag", None) is None:
            return None
        train, val = datamodule.train_set, datamodule.val_set
        fitted = self.net.fit_bag([x.cpu() for x in train.items], torch.as_tensor(train.labels),
                                  [x.cpu() for x in val.items], torch.as_tensor(val.labels))  # fmt: skip
        return None if fitted is None else {**fitted, "texts": len(train)}

    def exportable_net(self) -> nn.Module:
        """The LSTM in its padded mode: exact in both directions (project/nets/lstm.py) and plain tensor
        operations, where packing sorts and splits the batch by its lengths, which a trace would fix."""
        net = copy.deepcopy(self.net)
        if hasattr(getattr(net, "features", None), "sequence_mode"):
            net.features.sequence_mode = "padded"
        return net


class NumericSequenceModel(SequenceModel):
    """The same LSTM over numeric sequences: batches are `(values [B, T, C], lengths [B], labels [B])`; the
    network's input width is linked from the data's channel count."""

    data_links: ClassVar[dict[str, tuple[str, ...]]] = {
        **TaskModule.data_links,
        "num_channels": ("net.init_args.num_channels",),
    }
    onnx_inputs: ClassVar[dict[str, dict[int, str]]] = {"values": {0: "batch", 1: "time"}, "lengths": {0: "batch"}}


class TaggerModel(SequenceModel):
    """A tag per token: batches are `(tokens [B, T] or [B, T, 2 + characters], lengths [B], tags [B, T])`, the
    padding's tags -100; the network gives scores `[B, T, tags]`, and the tagging task (runkit/tasks/tagging.py)
    scores the real steps only.

    Args:
        tag_names: the tags in id order, linked from the data: the task reads its spans (`B-PER`...) from them.
    """

    default_task = Tagging
    data_links: ClassVar[dict[str, tuple[str, ...]]] = {
        **SequenceModel.data_links,
        "tag_names": ("tag_names",),
        "alphabet_size": ("net.init_args.alphabet_size",),
    }

    def __init__(
        self,
        net: nn.Module,
        num_outputs: int,
        tag_names: list[str] | None = None,
        task: Task | None = None,
        **kwargs: Any,
    ) -> None:
        task = task if task is not None else Tagging()
        if isinstance(task, Tagging) and tag_names is not None:
            task.tag_names = list(tag_names)
        super().__init__(net, num_outputs, task, **kwargs)

    def predict_step(self, batch: Any, batch_idx: int) -> dict[str, torch.Tensor]:
        tokens, lengths, _ = batch
        return self.task.predict(self(tokens, lengths), lengths)
