"""The model families `--model NAME` knows: each is a config file under `configs/` (stacked on configs/trainer.yaml),
which also says its task, a one-line description, and what the tests shrink it to. Adding a family: the template's
docs/design.md, "Adding a family"."""

from pathlib import Path

from runkit import ModelEntry, Registry

CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"

MODELS: dict[str, ModelEntry] = {
    "cnn": ModelEntry(
        "cnn.yaml",
        "CNN image classifier: generated shapes, or your image folders",
        test_args=("--data.num_train=256", "--data.num_val=64"),
    ),  # part: cnn
    "cnn_multilabel": ModelEntry(
        "cnn_multilabel.yaml",
        "CNN multilabel tagging: generated shape sets, or your images + labels CSV",
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
        test_args=("--data.num_graphs=300",),
    ),  # part: gcn, regression
    "gcn_link": ModelEntry(
        "gcn_link.yaml",
        "GCN link prediction: a generated community graph, or your edge list",
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
        test_args=("--data.synthetic_samples=300", "--model.net.hidden_size=16"),
    ),  # part: lstm
    "lstm_forecast": ModelEntry(
        "lstm_forecast.yaml",
        "LSTM forecasting: a generated seasonal series, or your CSV series",
        test_args=("--data.synthetic_length=1200", "--data.input_length=48", "--data.horizon=6"),
    ),  # part: lstm, regression
}


REGISTRY = Registry(CONFIG_DIR, MODELS)
