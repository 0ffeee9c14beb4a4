"""The model families `--model NAME` knows: each is a config file under `configs/`, a one-line description, its
task, and what the tests shrink it to. Adding a family: docs/design.md, "Adding a family"."""

from dataclasses import dataclass
from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"
TRAINER_CONFIG = CONFIG_DIR / "trainer.yaml"  # the Trainer every family shares; the family's file stacks on it


@dataclass(frozen=True)
class ModelEntry:
    config: str  # relative to configs/
    description: str
    task: str = "multiclass"  # what its config's model predicts (lib/runkit/tasks/)
    # What the tests shrink its data and model to: a fit of a few seconds (tests/conftest.py's SMALL).
    test_args: tuple[str, ...] = ()

    @property
    def path(self) -> Path:
        return CONFIG_DIR / self.config

    @property
    def config_flags(self) -> list[str]:
        """What `--model NAME` stands for: the shared Trainer config, then the family's."""
        return ["--config", str(TRAINER_CONFIG), "--config", str(self.path)]


MODELS: dict[str, ModelEntry] = {
    "cnn": ModelEntry(
        "cnn.yaml",
        "CNN image classifier: generated shapes, or your image folders",
        test_args=("--data.num_train=256", "--data.num_val=64"),
    ),  # part: cnn
    "cnn_multilabel": ModelEntry(
        "cnn_multilabel.yaml",
        "CNN multilabel tagging: generated shape sets, or your images + labels CSV",
        "multilabel",
        test_args=("--data.num_train=256", "--data.num_val=64"),
    ),  # part: cnn, multilabel
    "gcn": ModelEntry(
        "gcn.yaml",
        "GCN graph classifier: generated graphs (node level: gcn_node.yaml)",
        test_args=("--data.num_graphs=300",),
    ),  # part: gcn
    "gcn_regression": ModelEntry(
        "gcn_regression.yaml",
        "GCN graph regression: a structural property, or TU files",
        "regression",
        test_args=("--data.num_graphs=300",),
    ),  # part: gcn, regression
    "gcn_link": ModelEntry(
        "gcn_link.yaml",
        "GCN link prediction: a generated community graph, or your edge list",
        "link",
        test_args=("--data.sbm_nodes=400", "--data.sbm_communities=4"),
    ),  # part: gcn
    "lstm": ModelEntry(
        "lstm.yaml",
        "LSTM sequence classifier: generated sequences, or your texts",
        test_args=("--data.synthetic_samples=300", "--model.net.hidden_size=16"),
    ),  # part: lstm
    "lstm_sequences": ModelEntry(
        "lstm_sequences.yaml",
        "LSTM classifier of numeric sequences: generated sensor traces, or your CSV / .ts / .npz files",
        test_args=("--data.synthetic_samples=300", "--model.net.hidden_size=16"),
    ),  # part: lstm
    "lstm_tagger": ModelEntry(
        "lstm_tagger.yaml",
        "LSTM tagger, a tag per token: generated entity sentences, or your CoNLL files",
        "tagging",
        test_args=("--data.synthetic_samples=300", "--model.net.hidden_size=16"),
    ),  # part: lstm
    "lstm_forecast": ModelEntry(
        "lstm_forecast.yaml",
        "LSTM forecasting: a generated seasonal series, or your CSV series",
        "regression",
        test_args=("--data.synthetic_length=1200", "--data.input_length=48", "--data.horizon=6"),
    ),  # part: lstm, regression
}


def families() -> list[str]:
    """One model per family (the part of its name before `_`), its first multiclass one: what the shared
    engineering is measured and tested on."""
    first: dict[str, str] = {}
    for name, entry in MODELS.items():
        if entry.task == "multiclass":
            first.setdefault(name.split("_")[0], name)
    return list(first.values())


def describe_models() -> str:
    width = max(map(len, MODELS))
    lines = [f"  {name:<{width}}  {entry.description}" for name, entry in MODELS.items()]
    return "Models (--model NAME, or a LightningModule class path):\n" + "\n".join(lines)
