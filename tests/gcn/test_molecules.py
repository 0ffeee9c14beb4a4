"""Molecules (`--data.source smiles`, configs/gcn_molecules.yaml): RDKit's atoms and bonds as graphs, the bond-aware
convs, random and scaffold splits, predict from the checkpoint alone, and bad files named by line."""

import random
from pathlib import Path

import pytest
import torch
from rdkit import Chem
from runkit import ConfigError, DataError
from torch_geometric.data import Batch

from project.cli import build, main
from project.data.graphs import GraphClassificationDataModule, GraphRegressionDataModule
from project.data.graphs.molecules import (
    ATOM_FEATURES,
    BOND_FEATURES,
    DESCRIPTORS,
    MOLECULE_DESCRIPTORS,
    mol_to_graph,
    read_molecules,
    scaffold_split,
)
from project.nets.gcn import GCN
from tests.conftest import TINY

CONFIG = str(Path(__file__).resolve().parents[2] / "configs" / "gcn_molecules.yaml")
RINGS = ["c1ccccc1", "C1CCCCC1", "c1ccncc1", "C1CCOC1", "c1ccsc1"]


def chains(count: int, seed: int = 0) -> list[tuple[str, int, int]]:
    """Carbon chains of 4-9 atoms, each bond double with probability 0.3, some on a ring: (SMILES, double bonds,
    heavy atoms). The double bonds are a property of the bonds alone."""
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        atoms = rng.randint(4, 9)
        bonds = ["=" if rng.random() < 0.3 else "" for _ in range(atoms - 1)]
        smiles = "C" + "".join(b + "C" for b in bonds)
        ring = rng.choice([None, *RINGS])
        if ring is not None:
            smiles = f"{smiles}{ring}"
        mol = Chem.MolFromSmiles(smiles)
        found.append((smiles, bonds.count("="), mol.GetNumAtoms()))
    return found


def write_csv(path: Path, rows: list[tuple[str, int, int]], sep: str = ",") -> Path:
    path.write_text(f"smiles{sep}doubles{sep}atoms\n" + "".join(f"{s}{sep}{d}{sep}{a}\n" for s, d, a in rows))
    return path


def test_atoms_and_bonds_become_one_hot_features_each_bond_both_ways():
    graph = mol_to_graph(Chem.MolFromSmiles("c1ccccc1C=O"))
    assert graph.x.shape == (8, ATOM_FEATURES) and graph.edge_attr.shape == (16, BOND_FEATURES)
    assert graph.edge_index.shape == (2, 16)
    assert torch.equal(graph.edge_attr[0::2], graph.edge_attr[1::2])  # each bond's two directions alike
    kinds = graph.edge_attr[:, :4].argmax(dim=1).tolist()  # single, double, triple, aromatic
    assert kinds.count(3) == 12 and kinds.count(1) == 2 and kinds.count(0) == 2
    lone = mol_to_graph(Chem.MolFromSmiles("[Na+]"))
    assert lone.num_nodes == 1 and lone.edge_index.shape == (2, 0) and lone.edge_attr.shape == (0, BOND_FEATURES)


def test_each_atom_carries_its_share_of_the_molecules_descriptors():
    from rdkit.Chem import rdMolDescriptors

    phenol = Chem.MolFromSmiles("c1ccccc1O")
    own = slice(ATOM_FEATURES - MOLECULE_DESCRIPTORS - DESCRIPTORS, ATOM_FEATURES - MOLECULE_DESCRIPTORS)
    logp, refractivity, polar, charge, mass = mol_to_graph(phenol).x[:, own].T
    assert torch.isclose(10 * polar.sum(), torch.tensor(rdMolDescriptors.CalcTPSA(phenol)), atol=1e-3)  # the sum's
    assert polar[-1] > 0 and (polar[:-1] == 0).all()  # the hydroxyl's oxygen alone is polar
    assert logp[-1] < 0 < logp[0] and charge[-1] < 0 < charge[-2]  # the oxygen drags charge from its carbon
    assert torch.isclose(100 * mass[-1], torch.tensor(15.999), atol=1e-3) and (refractivity > 0).all()
    salt = mol_to_graph(Chem.MolFromSmiles("[Na+].[Cl-]")).x
    assert torch.isfinite(salt).all()  # a charge RDKit leaves undefined becomes 0, not NaN


def test_every_atom_carries_its_whole_molecules_descriptors():
    from rdkit.Chem import Descriptors

    whole = {}
    for smiles in ("CCCC", "CCCCCCCCCC", "c1ccccc1O", "OCC(O)CO"):
        mol = Chem.MolFromSmiles(smiles)
        x = mol_to_graph(mol).x[:, -MOLECULE_DESCRIPTORS:]
        assert torch.equal(x, x[:1].expand_as(x))  # the same row on each atom: the mean readout keeps it whole
        logp, *_, atoms, _ = x[0].tolist()
        assert abs(3 * logp - Descriptors.MolLogP(mol)) < 1e-5 and round(20 * atoms) == mol.GetNumAtoms()
        whole[smiles] = x[0]
    assert abs(whole["c1ccccc1O"][-1] - 6 / 7) < 1e-6 and whole["CCCC"][-1] == 0  # aromatic share
    assert whole["CCCCCCCCCC"][0] > whole["CCCC"][0] > 0 > whole["OCC(O)CO"][0]  # longer chains shun water more
    assert whole["CCCCCCCCCC"][3] > whole["CCCC"][3]  # and weigh more


def test_csv_tsv_and_sdf_give_the_same_molecules_and_targets(tmp_path):
    rows = chains(6)
    csv_file, tsv_file = write_csv(tmp_path / "m.csv", rows), write_csv(tmp_path / "m.tsv", rows, "\t")
    writer = Chem.SDWriter(str(tmp_path / "m.sdf"))
    for smiles, doubles, atoms in rows:
        mol = Chem.MolFromSmiles(smiles)
        mol.SetProp("doubles", str(doubles))
        mol.SetProp("atoms", str(atoms))
        writer.write(mol)
    writer.close()
    read = [read_molecules(f, "smiles", ["doubles"], "error") for f in (csv_file, tsv_file, tmp_path / "m.sdf")]
    canonical = [Chem.MolToSmiles(Chem.MolFromSmiles(s)) for s, _, _ in rows]
    for molecules in read:
        assert [Chem.MolToSmiles(m.mol) for m in molecules] == canonical
        assert [m.values for m in molecules] == [[str(d)] for _, d, _ in rows]
    assert [m.line for m in read[0]] == [2, 3, 4, 5, 6, 7]  # the header is line 1
    assert read[2][1].line > read[2][0].line > 0  # an SDF record is named by the line it starts on


@pytest.mark.parametrize(
    ("text", "options", "message"),
    [
        ("smiles,y\nCCO,1.0\nC1CC,2.0\n", {}, r"m.csv, line 3: RDKit cannot parse 'C1CC'.*--data.invalid skip"),
        ("smiles,y\nCCO,1.0\nCCN,\n", {}, r"m.csv, line 3: target 'y' is empty \(molecule 'CCN'\)"),
        ("smiles,y\nCCO,1.0\nCCN,high\n", {}, r"m.csv, line 3: target 'y' is 'high', not a number"),
        ("name,y\nCCO,1.0\n", {}, r"m.csv, line 1: no column 'smiles'; the header has \['name', 'y'\]"),
        ("smiles,y\nCCO,1.0\n", {"target_fields": ["z"]}, r"m.csv, line 1: no column 'z'"),
    ],
)
def test_bad_molecule_files_are_named_by_line_and_left_unchanged(tmp_path, text, options, message):
    path = tmp_path / "m.csv"
    path.write_text(text)
    with pytest.raises(DataError, match=message):
        dm = GraphRegressionDataModule(source="smiles", train_path=str(path), **{"target_fields": ["y"], **options})
        dm.setup("fit")
    assert path.read_text() == text


def test_unparsable_smiles_can_be_skipped_and_counted(tmp_path):
    path = tmp_path / "m.csv"
    rows = "".join(f"{s},{d}\n" for s, d, _ in chains(20))
    path.write_text(f"smiles,y\nC1CC,1\n{rows}not a molecule,2\n")
    with pytest.warns(UserWarning, match=r"m.csv: 2 molecule\(s\) RDKit cannot parse were left out.*line 2: 'C1CC'"):
        dm = GraphRegressionDataModule(source="smiles", train_path=str(path), target_fields=["y"], invalid="skip")
        dm.setup("fit")
    assert len(dm.train_set) + len(dm.val_set) + len(dm.test_set) == 20


def test_a_molecule_without_bonds_is_kept_with_a_warning(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("smiles,y\n" + "".join(f"{s},{d}\n" for s, d, _ in chains(20)) + "[Na+].[Cl-],0\n")
    dm = GraphRegressionDataModule(source="smiles", train_path=str(path), target_fields=["y"])
    with pytest.warns(UserWarning, match=r"1 molecule\(s\) without bonds.*line 22: '\[Na\+\]\.\[Cl-\]'"):
        dm.setup("fit")
    assert len(dm.graphs) == 21


def test_an_sdf_record_without_the_target_names_its_line(tmp_path):
    writer = Chem.SDWriter(str(tmp_path / "m.sdf"))
    for i, smiles in enumerate(["CCO", "CCN"]):
        mol = Chem.MolFromSmiles(smiles)
        if i == 0:
            mol.SetProp("y", "1.5")
        writer.write(mol)
    writer.close()
    second = (tmp_path / "m.sdf").read_text().splitlines().index("$$$$") + 2
    with pytest.raises(DataError, match=rf"m.sdf, line {second}: the record has no property 'y'"):
        GraphRegressionDataModule(source="smiles", train_path=str(tmp_path / "m.sdf"), target_fields=["y"]).setup("fit")


def test_classes_come_from_the_training_file_and_an_unseen_test_label_is_named(tmp_path):
    rows = chains(30)
    (tmp_path / "train.csv").write_text("smiles,kind\n" + "".join(f"{s},{'AB'[d % 2]}\n" for s, d, _ in rows))
    (tmp_path / "test.csv").write_text("smiles,kind\nCCO,A\nCCN,C\n")
    dm = GraphClassificationDataModule(
        source="smiles",
        train_path=str(tmp_path / "train.csv"),
        test_path=str(tmp_path / "test.csv"),
        label_field="kind",
    )
    assert dm.class_names == ["A", "B"] and dm.num_edge_features == BOND_FEATURES
    with pytest.raises(DataError, match=r"test.csv, line 3: the label 'C' is not one of the training labels"):
        dm.setup("fit")


def test_several_label_columns_train_the_multilabel_task_with_unknown_labels_left_out(tmp_path):
    lines = ["smiles,unsaturated,aromatic"]
    for i, (smiles, doubles, _) in enumerate(chains(120)):
        known = ["" if (i + k) % 4 == 0 else str(int(flag)) for k, flag in enumerate((doubles > 0, "c1" in smiles))]
        lines.append(f"{smiles},{known[0]},{known[1]}")
    (tmp_path / "labels.csv").write_text("\n".join(lines) + "\n")
    cli = build(
        "gcn", *TINY, f"--config={CONFIG}", "--model.task=runkit.tasks.Multilabel", "--data.train_path=labels.csv",
        "--data.label_fields=[unsaturated,aromatic]", "--trainer.max_steps=4",
    )  # fmt: skip
    targets = cli.datamodule.train_targets()
    assert cli.datamodule.class_names == ["unsaturated", "aromatic"] and targets.shape[1] == 2
    assert set(targets.unique().tolist()) == {-1.0, 0.0, 1.0}
    cli.trainer.fit(cli.model, cli.datamodule)
    scores = cli.trainer.validate(cli.model, cli.datamodule, verbose=False)[0]
    assert 0 <= scores["val/f1_macro"] <= 1 and torch.isfinite(torch.tensor(scores["val/loss"]))
    (tmp_path / "bad.csv").write_text("smiles,a\nCCO,1\nCCN,yes\n")
    with pytest.raises(DataError, match=r"bad.csv, line 3: label 'a' is 'yes'; a label column holds 0, 1, or nothing"):
        GraphClassificationDataModule(source="smiles", train_path=str(tmp_path / "bad.csv"), label_fields=["a"]).setup()


def test_a_scaffold_split_keeps_each_ring_system_in_one_part():
    smiles = [s for s, _, _ in chains(200)]
    val, test, train = scaffold_split(smiles, (0.1, 0.1))
    assert sorted(val + test + train) == list(range(200))
    assert len(train) >= 140 and val and test  # whole groups: training takes what fits in its 80 %
    from rdkit.Chem.Scaffolds.MurckoScaffold import MurckoScaffoldSmiles

    scaffolds = [{MurckoScaffoldSmiles(smiles[i]) for i in part} for part in (val, test, train)]
    assert not (scaffolds[0] & scaffolds[2]) and not (scaffolds[1] & scaffolds[2]) and not (scaffolds[0] & scaffolds[1])


def fit_raw(conv: str, graphs: list, steps: int = 300) -> float:
    """Full-batch Adam on `graphs`; the last training MSE."""
    torch.manual_seed(0)
    net = GCN(1, in_channels=1, conv=conv, edge_dim=BOND_FEATURES, hidden_channels=32, num_layers=2, readout="sum")
    batch = Batch.from_data_list(graphs)
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(net(batch.x, batch.edge_index, batch.batch, batch.edge_attr), batch.y)
        loss.backward()
        optimizer.step()
    return float(loss.detach())


def test_bond_features_carry_what_the_atoms_alone_cannot():
    graphs = []
    for smiles, doubles, _ in chains(100):
        graph = mol_to_graph(Chem.MolFromSmiles(smiles))
        graph.x = torch.ones(graph.num_nodes, 1)  # no atom features: only the bonds tell single from double
        graph.y = torch.tensor([[float(doubles)]])
        graphs.append(graph)
    variance = float(torch.cat([g.y for g in graphs]).var())
    mse = {conv: fit_raw(conv, graphs) for conv in ("gin", "gine")}
    # Measured: gin 1.13, gine 0.0002 (the counts' variance: 1.28). nnconv learns it too (0.025 in 100 steps), at
    # 50 times gine's cost on the CPU.
    assert mse["gin"] > 0.5 * variance
    assert mse["gine"] < 0.05 * variance


def test_tu_edge_labels_and_attributes_become_edge_features(tmp_path):
    from tests.gcn.test_data import write_tu

    write_tu(tmp_path)
    raw = tmp_path / "TOY" / "raw"
    edges = len((raw / "TOY_A.txt").read_text().splitlines())
    (raw / "TOY_edge_labels.txt").write_text("".join(f"{i % 3}\n" for i in range(edges)))
    (raw / "TOY_edge_attributes.txt").write_text("".join(f"{i / 10}, 1.0\n" for i in range(edges)))
    dm = GraphClassificationDataModule(source="tu", name="TOY", data_dir=str(tmp_path), node_features=["given"])
    assert dm.num_edge_features == 2 + 3  # the attributes, then the labels one-hot
    graph = dm.graphs[0]
    assert graph.edge_attr.shape == (graph.num_edges, 5)
    for conv in ("gine", "nnconv"):
        net = GCN(2, in_channels=dm.num_features, conv=conv, edge_dim=dm.num_edge_features)
        assert net(graph.x, graph.edge_index, None, graph.edge_attr).shape == (1, 2)
    with pytest.raises(ConfigError, match="conv gine reads edge features, and the data has none"):
        GCN(2, in_channels=3, conv="gine")


def test_a_molecule_run_saves_its_split_predicts_from_the_checkpoint_alone_and_exports_to_onnx(tmp_path):
    from runkit.tools.onnx_export import export_onnx

    train = write_csv(tmp_path / "train.csv", chains(120))
    cli = build(
        "gcn_regression", *TINY, f"--config={CONFIG}", f"--data.train_path={train}",
        "--data.target_fields=[doubles,atoms]", "--data.split=scaffold", "--trainer.max_steps=6",
        "--model.net.init_args.hidden_channels=16",
    )  # fmt: skip
    cli.trainer.fit(cli.model, cli.datamodule)
    assert cli.model.net.features.reads_edges and cli.model.net.features.convs[0].nn is not None
    split = (Path(cli.trainer.log_dir) / "split.tsv").read_text().splitlines()
    assert split[0] == "part\tline\tsmiles" and len(split) == 121
    assert {row.split("\t")[0] for row in split[1:]} == {"train", "val", "test"}
    checkpoint = Path(cli.trainer.log_dir) / "checkpoints" / "model.ckpt"
    cli.trainer.save_checkpoint(checkpoint)

    out, verdict = export_onnx(checkpoint)  # edge_attr is one of the file's inputs
    assert verdict.matches
    import onnx

    assert [i.name for i in onnx.load(str(out)).graph.input] == ["x", "edge_index", "batch", "edge_attr"]

    train.unlink()  # predict needs the checkpoint and the molecules, not the training file
    molecules = ["CC=CC", "c1ccccc1CC", "C#N"]
    (tmp_path / "new.csv").write_text("smiles\n" + "\n".join(molecules) + "\n")
    predicted = main(["predict", "--model=gcn_regression", f"--ckpt_path={checkpoint}", "--data.predict_path=new.csv"])
    lines = (Path(predicted.trainer.log_dir) / "predictions.tsv").read_text().splitlines()
    assert lines[0] == "line\tdoubles\tatoms"
    rows = [line.split("\t") for line in lines[1:]]
    assert [r[0] for r in rows] == ["2", "3", "4"]
    model = cli.model.eval()
    batch = Batch.from_data_list([mol_to_graph(Chem.MolFromSmiles(s)) for s in molecules])
    with torch.no_grad():
        expected = model.predict_step(batch, 0)["value"]
    assert torch.allclose(torch.tensor([[float(v) for v in r[1:]] for r in rows]), expected, atol=1e-4)


@pytest.mark.slow
def test_the_doctor_finds_the_molecule_config_healthy(tmp_path, capsys):
    from project import doctor

    write_csv(tmp_path / "train.csv", chains(200))
    data = ["--data.train_path=train.csv", "--data.target_fields=[doubles]"]
    assert doctor.main(["--model", "gcn_regression", f"--config={CONFIG}", *data, *TINY]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "| overfit | ok |" in out and "Verdict: healthy." in out
