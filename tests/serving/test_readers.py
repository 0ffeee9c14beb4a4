"""What each model's requests may hold: a bad one is a `BadRequest` naming the field (and the item of a list), with
the status it is answered with; the readers run in this process here, on models built but not trained (the server
and its HTTP answers: test_bad_requests.py)."""

import json
from functools import cache
from typing import Any

import pytest
from runkit.serving.readers import reader_for
from runkit.serving.requests import BadRequest

from project.cli import build
from tests.conftest import ROOT, SMALL, TINY


@cache
def reader(name: str) -> Any:
    """The reader of `name`'s requests, its model built (not trained) as the server builds it; beside the registry's
    models, the GCN on one graph and on molecules, by their config's name."""
    model, args = name, SMALL.get(name, [])
    if name == "gcn_node":  # part: gcn
        model, args = "gcn", [f"--config={ROOT / 'configs' / 'gcn_node.yaml'}"]  # part: gcn
    if name == "gcn_molecules":  # part: molecules, regression
        model, args = "gcn_regression", molecule_args()  # part: molecules, regression
    cli = build(model, *TINY, *args)
    cli.model.trainer, cli.trainer.predicting = cli.trainer, True  # as the server has them (runkit/serving/api.py)
    return reader_for(cli.model.eval(), cli.datamodule)


EXAMPLES = ROOT / "examples" / "requests"  # a request per model, as lib/docs/serving.md sends them
MANY = {"images", "texts", "sequences", "sentences", "graphs", "pairs", "nodes"}  # a list of inputs; others: one
LINE = [[0.0, 0.0, 0.0]] * 4  # a numeric sequence of 4 steps, 3 channels


# part: molecules, regression
def molecule_args() -> list[str]:
    from pathlib import Path

    from tests.gcn.test_molecules import chains, write_csv

    train = write_csv(Path("molecules.csv").resolve(), chains(60))
    return [
        f"--config={ROOT / 'configs' / 'gcn_molecules.yaml'}",
        f"--data.train_path={train}",
        "--data.target_fields=[doubles]",
    ]


BAD: list[tuple[str, Any, int, str]] = []  # (model, request, status, what the answer says), by family

# part: cnn
BAD += [("cnn", {"image": 3}, 400, "image: a base64-encoded PNG or JPEG file, got int")]

# part: lstm
BAD += [
    ("lstm", {"texts": ["fine", "   "]}, 400, "texts[1]: empty: give some text"),
    ("lstm", {"text": "fine", "texts": ["fine"]}, 400, "texts: give either 'text' (one input) or 'texts'"),
    ("lstm_sequences", {"sequences": [LINE, [[1.0, 2.0]]]}, 400, "sequences[1][0]: 3 numbers (one per channel)"),
    ("lstm_sequences", {"sequence": [[1.0, None, 2.0]]}, 400, "sequence[0][1]: a number, got None"),
    ("lstm_sequences", {"sequence": [[1.0, "2", 2.0]]}, 400, "sequence[0][1]: a number, got '2'"),
    ("lstm_sequences", {"sequence": []}, 400, "sequence: a non-empty list of steps"),
    ("lstm_tagger", {"sentences": [["Ada"], []]}, 400, "sentences[1]: a non-empty list of tokens"),
    ("lstm_tagger", {"tokens": ["Ada", ""]}, 400, "tokens[1]: empty"),
]

# part: lstm, regression
BAD += [
    ("lstm_forecast", {"values": [1.0, 2.0]}, 400, "values: at least 48 steps, got 2"),
    ("lstm_forecast", {"values": [1.0] * 48, "future": [[1.0]]}, 400, "future: this model reads no covariates"),
]

# part: gcn
BAD += [
    ("gcn", {"graph": {"edges": [[0, 5]], "num_nodes": 3}}, 400, "graph.num_nodes: an integer above every node id"),
    ("gcn", {"graphs": [{"edges": [[0, 1]]}, {"edges": [[0, -1]]}]}, 400, "graphs[1].edges: node ids are integers"),
    ("gcn", {"graph": {"edges": [[0, 1, 2]]}}, 400, "graph.edges: a list of [source, target] node ids"),
    ("gcn", {"graph": {"edges": [[0, 1]], "edge_attr": [[1.0]]}}, 400, "graph.edge_attr: this model reads no edge"),
    ("gcn", {"graph": {"edges": [], "num_nodes": 10**7}}, 413, "graph.num_nodes: at most 100,000 nodes"),
    ("gcn", {"graph": [[0, 1]]}, 400, 'graph: a graph: {"edges"'),
    ("gcn", {"graphs": [{"edges": [], "nodes": 2}]}, 400, "graphs[0].nodes: not a field of graphs[0]; it reads edges"),
    ("gcn_link", {"pairs": [["0", "1"], ["0", "no such node"]]}, 404, "pairs[1]: node 'no such node' is not in"),
    ("gcn_link", {"nodes": ["0"], "top_k": 0}, 400, "top_k: a positive integer, got 0"),
    ("gcn_link", {"pairs": [["0"]]}, 400, "pairs[0]: [source, target]: two node names"),
    ("gcn_node", {"nodes": [0, 10**6]}, 404, "nodes[1]: a node index from 0 to"),
]

# part: molecules, regression
BAD += [
    ("gcn_molecules", {"smiles": ["CCO", "C1CC"]}, 400, "smiles[1]: 'C1CC' is not a SMILES string RDKit can read"),
    ("gcn_molecules", {"smiles": 5}, 400, "smiles: a string, got int"),
]


@pytest.mark.parametrize(("name", "request_", "status", "message"), BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_a_bad_request_names_its_field(name, request_, status, message):
    with pytest.raises(BadRequest) as refused:
        reader(name).samples(request_)
    assert refused.value.status == status and message in refused.value.detail, refused.value.detail


@pytest.mark.parametrize("name", sorted({b[0] for b in BAD}))
def test_an_unknown_field_is_named_with_the_fields_the_model_reads(name):
    with pytest.raises(BadRequest, match=r"^typo: not a field of this model's requests; it reads "):
        reader(name).samples({"typo": 1})


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.json")), ids=lambda path: path.stem)
def test_every_example_request_is_read_by_its_model(example):
    """examples/requests/MODEL.json, what lib/docs/serving.md sends with curl: each input a sample."""
    request = json.loads(example.read_text())
    field, inputs = next((field, value) for field, value in request.items() if field != "top_k")
    count = len(inputs) if field in MANY or (field == "smiles" and isinstance(inputs, list)) else 1
    assert len(reader(example.stem.removesuffix("_top_k")).samples(request)) == count
