"""Molecules as graphs: atoms are nodes, bonds are edges with features of their own. Read from a CSV/TSV of
SMILES strings or an SDF file, featurised with RDKit (the `molecules` extra), split at random or by scaffold.

Why not PyG's `from_smiles`: its features are integer codes (atom number 0-118, a chirality code...) meant for
an embedding per column; here they are one-hot, so every conv reads them as they are, and a few the field found
to matter (ring membership, hybridisation, conjugation) are in. The set follows Chemprop's and MoleculeNet's.
"""

import contextlib
import csv
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import torch
from runkit import DataError, MissingDataError, require_extra, seeded_split
from torch_geometric.data import Data

Split = Literal["random", "scaffold"]
Invalid = Literal["error", "skip"]
# What the fields hold: one class column, several 0/1 label columns, or real-valued target columns.
Kind = Literal["classes", "labels", "values"]
FIELD_ARGUMENT = {"classes": "label_field", "labels": "label_fields", "values": "target_fields"}

# Each feature is one-hot over its choices plus a last slot for anything else.
ELEMENTS = ("C", "N", "O", "S", "F", "Cl", "Br", "I", "P", "B", "Si", "Se", "Na", "K")
DEGREES = (0, 1, 2, 3, 4, 5)
CHARGES = (-1, 0, 1)
HYDROGENS = (0, 1, 2, 3, 4)
HYBRIDISATIONS = ("SP", "SP2", "SP3", "SP3D", "SP3D2")
CHIRALITIES = ("CHI_TETRAHEDRAL_CW", "CHI_TETRAHEDRAL_CCW")
DESCRIPTORS = 5  # each atom's Crippen logP and molar refractivity, polar surface, Gasteiger charge, mass
MOLECULE_DESCRIPTORS = 10  # the whole molecule's (molecule_descriptors), on every one of its atoms
ATOM_FEATURES = (
    sum(len(c) + 1 for c in (ELEMENTS, DEGREES, CHARGES, HYDROGENS, HYBRIDISATIONS, CHIRALITIES))
    + 2
    + DESCRIPTORS
    + MOLECULE_DESCRIPTORS
)
BOND_TYPES = ("SINGLE", "DOUBLE", "TRIPLE", "AROMATIC")
BOND_STEREO = {"STEREOZ": 0, "STEREOCIS": 0, "STEREOE": 1, "STEREOTRANS": 1, "STEREOANY": 2}
BOND_FEATURES = len(BOND_TYPES) + 2 + 3  # type, conjugated, in a ring, stereo (Z/cis, E/trans, unknown)


@dataclass
class Molecule:
    """One molecule as read: its line, its SMILES (as written; an SDF record's as RDKit writes it), its raw values."""

    line: int
    smiles: str
    values: list[str]
    mol: Any  # an RDKit Mol


def require_rdkit() -> None:
    require_extra("rdkit", extra="molecules")


def _one_hot(value: Any, choices: Sequence[Any]) -> list[float]:
    row = [0.0] * (len(choices) + 1)
    row[choices.index(value) if value in choices else len(choices)] = 1.0
    return row


def atom_features(atom: Any) -> list[float]:
    """Element, heavy-atom degree, formal charge, attached hydrogens, hybridisation, chirality, aromatic, in a ring."""
    return [
        *_one_hot(atom.GetSymbol(), ELEMENTS),
        *_one_hot(atom.GetDegree(), DEGREES),
        *_one_hot(atom.GetFormalCharge(), CHARGES),
        *_one_hot(atom.GetTotalNumHs(), HYDROGENS),
        *_one_hot(str(atom.GetHybridization()), HYBRIDISATIONS),
        *_one_hot(str(atom.GetChiralTag()), CHIRALITIES),
        float(atom.GetIsAromatic()),
        float(atom.IsInRing()),
    ]


def atom_descriptors(mol: Any) -> list[list[float]]:
    """Each atom's share of the descriptors that best predict how a molecule partitions and dissolves: its
    Wildman-Crippen logP and molar refractivity contributions (the heavy atoms' part of RDKit's MolLogP and MolMR,
    which add the hydrogens' own), its topological polar surface area contribution, its Gasteiger partial charge,
    and its mass; scaled to about [-2, 2].
    A one-hot atom type says which atom it is; these say how much it weighs in those properties, which a few layers
    of message passing would otherwise have to learn from ~1,000 molecules."""
    from rdkit.Chem import rdMolDescriptors, rdPartialCharges

    crippen = rdMolDescriptors._CalcCrippenContribs(mol)  # RDKit's documented way to the per-atom contributions
    polar = rdMolDescriptors._CalcTPSAContribs(mol)
    charged = type(mol)(mol)  # a copy: the charges are stored as atom properties
    rdPartialCharges.ComputeGasteigerCharges(charged)
    rows = []
    for atom, (logp, mr), tpsa in zip(charged.GetAtoms(), crippen, polar, strict=True):
        charge = atom.GetDoubleProp("_GasteigerCharge")
        charge = charge if math.isfinite(charge) else 0.0  # undefined for some elements (metals)
        rows.append([logp, mr / 10, tpsa / 10, charge, atom.GetMass() / 100])
    return rows


def molecule_descriptors(mol: Any) -> list[float]:
    """The whole molecule's logP and molar refractivity (Wildman-Crippen), polar surface area, weight, rotatable
    bonds, hydrogen-bond donors and acceptors, fraction of sp3 carbons, heavy atoms, and the share of them that is
    aromatic: Delaney's ESOL equation and its successors predict solubility from these. Scaled to about [-1, 3].

    A mean readout keeps what the atoms are like on average and loses how many there are and what they add up to
    (a molecule's size and its total logP are most of its solubility). Every atom carries these numbers, rather than
    the readout taking them beside the pooled atoms: the network keeps one input, so every conv, readout, the ONNX
    export and the server read them unchanged. On the board's four molecule cases they lowered the error on every
    run (docs/your-data.md)."""
    from rdkit.Chem import Descriptors, rdMolDescriptors

    atoms = max(mol.GetNumAtoms(), 1)
    return [
        Descriptors.MolLogP(mol) / 3,
        Descriptors.MolMR(mol) / 50,
        rdMolDescriptors.CalcTPSA(mol) / 50,
        Descriptors.MolWt(mol) / 200,
        rdMolDescriptors.CalcNumRotatableBonds(mol) / 5,
        rdMolDescriptors.CalcNumHBD(mol) / 2,
        rdMolDescriptors.CalcNumHBA(mol) / 3,
        rdMolDescriptors.CalcFractionCSP3(mol),
        atoms / 20,
        sum(atom.GetIsAromatic() for atom in mol.GetAtoms()) / atoms,
    ]


def bond_features(bond: Any) -> list[float]:
    """Bond type (single, double, triple, aromatic), conjugated, in a ring, double-bond stereo."""
    kind = str(bond.GetBondType())
    stereo = [0.0, 0.0, 0.0]
    if (slot := BOND_STEREO.get(str(bond.GetStereo()))) is not None:
        stereo[slot] = 1.0
    return [
        *(float(kind == name) for name in BOND_TYPES),
        float(bond.GetIsConjugated()),
        float(bond.IsInRing()),
        *stereo,
    ]


def mol_to_graph(mol: Any) -> Data:
    """`x [atoms, ATOM_FEATURES]` (each atom's own features, then its molecule's descriptors), `edge_index [2,
    2 * bonds]` (each bond both ways), `edge_attr [2 * bonds, BOND_FEATURES]`. Hydrogens stay implicit (a count on
    their atom), as in every MoleculeNet featuriser."""
    described, whole = atom_descriptors(mol), molecule_descriptors(mol)
    x = [atom_features(a) + d + whole for a, d in zip(mol.GetAtoms(), described, strict=True)]
    x = torch.tensor(x, dtype=torch.float).reshape(-1, ATOM_FEATURES)
    pairs, features = [], []
    for bond in mol.GetBonds():
        i, j, f = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx(), bond_features(bond)
        pairs += [(i, j), (j, i)]
        features += [f, f]
    edge_index = torch.tensor(pairs, dtype=torch.long).t().reshape(2, -1)
    edge_attr = torch.tensor(features, dtype=torch.float).reshape(-1, BOND_FEATURES)
    return Data(x=x, edge_index=edge_index, edge_attr=edge_attr, num_nodes=x.shape[0])


@contextlib.contextmanager
def _quiet_rdkit() -> Iterator[None]:
    """RDKit prints every parse failure to stderr itself; ours names the file and line instead."""
    from rdkit import RDLogger

    RDLogger.DisableLog("rdApp.*")
    try:
        yield
    finally:
        RDLogger.EnableLog("rdApp.*")


def read_molecules(path: str | Path, smiles_field: str, fields: Sequence[str], invalid: Invalid) -> list[Molecule]:
    """Every molecule of a CSV/TSV (a header row, a SMILES column) or an SDF file (its properties the fields),
    with the values of `fields` as text. A string RDKit cannot parse is refused with its line, or with
    `invalid: skip` left out and counted in one warning that names the first."""
    require_rdkit()
    path = Path(path)
    if not path.is_file():
        raise MissingDataError(f"{path}: no such file (a CSV/TSV with a {smiles_field!r} column, or an SDF file)")
    with _quiet_rdkit():
        sdf = path.suffix.lower() in (".sdf", ".sd")
        reader = _sdf_rows(path, fields) if sdf else _table_rows(path, smiles_field, fields)
        molecules, skipped = [], []
        for molecule in reader:
            if molecule.mol is not None:
                molecules.append(molecule)
            elif invalid == "skip":
                skipped.append(molecule)
            else:
                raise DataError(
                    f"{path}, line {molecule.line}: RDKit cannot parse {molecule.smiles!r} as a molecule. Fix or "
                    "remove the line, or pass --data.invalid skip to leave such lines out (counted in a warning)"
                )
    if skipped:
        from lightning.pytorch.utilities import rank_zero_warn

        rank_zero_warn(
            f"{path}: {len(skipped)} molecule(s) RDKit cannot parse were left out (--data.invalid skip), the first "
            f"at line {skipped[0].line}: {skipped[0].smiles!r}"
        )
    if not molecules:
        raise DataError(f"{path}: no molecules")
    return molecules


def _table_rows(path: Path, smiles_field: str, fields: Sequence[str]) -> Iterator[Molecule]:
    from rdkit import Chem

    delimiter = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        header = reader.fieldnames or []
        missing = [name for name in (smiles_field, *fields) if name not in header]
        if missing:
            raise DataError(
                f"{path}, line 1: no column {', '.join(map(repr, missing))}; the header has {header}. Name the "
                "columns with --data.smiles_field and --data.target_fields (or --data.label_field)"
            )
        for row in reader:
            smiles = (row[smiles_field] or "").strip()
            if not smiles and not any((value or "").strip() for value in row.values()):
                continue  # a blank line
            mol = Chem.MolFromSmiles(smiles) if smiles else None
            yield Molecule(reader.line_num, smiles, [(row[name] or "").strip() for name in fields], mol)


def _sdf_rows(path: Path, fields: Sequence[str]) -> Iterator[Molecule]:
    """Records split at `$$$$` lines, so each is named by the line it starts on (RDKit's SDMolSupplier counts records,
    not lines)."""
    from rdkit import Chem

    start, lines = 1, []
    for number, line in enumerate([*path.read_text().splitlines(), "$$$$"], start=1):
        if line.strip() != "$$$$":
            lines.append(line)
            continue
        if any(text.strip() for text in lines):
            block = "\n".join(lines)
            properties = _sdf_properties(lines)
            missing = [name for name in fields if name not in properties]
            if missing:
                raise DataError(
                    f"{path}, line {start}: the record has no property {', '.join(map(repr, missing))} (it has "
                    f"{sorted(properties)}). Give every record the target, or name another with --data.target_fields"
                )
            mol = Chem.MolFromMolBlock(block)
            smiles = Chem.MolToSmiles(mol) if mol is not None else lines[0].strip()
            yield Molecule(start, smiles, [properties[name] for name in fields], mol)
        start, lines = number + 1, []


def _sdf_properties(lines: list[str]) -> dict[str, str]:
    """`>  <NAME>` header lines, each followed by its value (the lines up to a blank one)."""
    properties, name, value = {}, None, []
    for line in lines:
        if line.startswith(">") and "<" in line and ">" in line[1:]:
            name, value = line[line.index("<") + 1 : line.index(">", line.index("<"))], []
        elif name is not None and line.strip():
            value.append(line.strip())
        elif name is not None:
            properties[name], name = " ".join(value), None
    if name is not None:
        properties[name] = " ".join(value)
    return properties


LABEL_VALUES = {"": -1.0, "0": 0.0, "1": 1.0, "0.0": 0.0, "1.0": 1.0}  # a label column's cells; empty: not known


def _cells(
    molecules: Sequence[Molecule],
    fields: Sequence[str],
    path: str | Path,
    parse: Callable[[str], float | None],
    complaint: Callable[[str, str, Molecule], str],
) -> torch.Tensor:
    """`[molecules, fields]` of `parse(cell)`; a cell it refuses (None) stops naming its line, by `complaint`."""
    rows = []
    for molecule in molecules:
        row = []
        for field, text in zip(fields, molecule.values, strict=True):
            value = parse(text)
            if value is None:
                raise DataError(f"{path}, line {molecule.line}: {complaint(field, text, molecule)}")
            row.append(value)
        rows.append(row)
    return torch.tensor(rows, dtype=torch.float)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def target_values(molecules: Sequence[Molecule], fields: Sequence[str], path: str | Path) -> torch.Tensor:
    """The target columns as numbers `[molecules, targets]`; an empty or non-numeric value names its line."""

    def complaint(field: str, text: str, molecule: Molecule) -> str:
        what = "is empty" if not text else f"is {text!r}, not a number"
        return f"target {field!r} {what} (molecule {molecule.smiles!r}). Fill it in, or remove the line"

    return _cells(molecules, fields, path, _number, complaint)


def label_rows(molecules: Sequence[Molecule], fields: Sequence[str], path: str | Path) -> torch.Tensor:
    """Several 0/1 label columns as rows `[molecules, labels]`, an empty cell -1 (not known: the multilabel task
    leaves it out); any other value names its line."""

    def complaint(field: str, text: str, molecule: Molecule) -> str:
        return f"label {field!r} is {text!r}; a label column holds 0, 1, or nothing where it is not known"

    return _cells(molecules, fields, path, LABEL_VALUES.get, complaint)


def _label_order(label: str) -> tuple[int, float | str]:
    """Numbers in numeric order (0, 1, 2, 10), then words alphabetically."""
    try:
        return 0, float(label)
    except ValueError:
        return 1, label


def class_ids(molecules: Sequence[Molecule], class_names: Sequence[str], path: str | Path) -> list[torch.Tensor]:
    """Each molecule's class id `[1]`; an empty label, or one the training file does not have, names its line."""
    index = {name: i for i, name in enumerate(class_names)}
    ids = []
    for molecule in molecules:
        label = molecule.values[0]
        if label not in index:
            what = "is empty" if not label else f"{label!r} is not one of the training labels {list(class_names)}"
            raise DataError(f"{path}, line {molecule.line}: the label {what}. Fix or remove the line")
        ids.append(torch.tensor([index[label]]))
    return ids


def scaffold_split(smiles: Sequence[str], fractions: Sequence[float]) -> list[list[int]]:
    """Bemis-Murcko scaffold groups, largest first, filling the training part, then validation, then test (as
    DeepChem's ScaffoldSplitter): no ring system is in two parts, so the held-out parts ask how the model does
    on chemical series it has not seen. Deterministic. Returns `[val, test, train]` like `seeded_split`."""
    from rdkit import Chem
    from rdkit.Chem.Scaffolds import MurckoScaffold

    groups: dict[str, list[int]] = {}
    with _quiet_rdkit():
        for i, text in enumerate(smiles):
            mol = Chem.MolFromSmiles(text)
            key = MurckoScaffold.MurckoScaffoldSmiles(mol=mol, includeChirality=False) if mol is not None else text
            groups.setdefault(key, []).append(i)
    n = len(smiles)
    val_size, test_size = (round(f * n) for f in fractions)
    train_cut, val_cut = n - val_size - test_size, n - test_size
    train, val, test = [], [], []
    for group in sorted(groups.values(), key=lambda g: (-len(g), g[0])):
        if len(train) + len(group) <= train_cut:
            train += group
        elif len(train) + len(val) + len(group) <= val_cut:
            val += group
        else:
            test += group
    return [val, test, train]


def split_molecules(smiles: Sequence[str], fractions: Sequence[float], split: Split, seed: int) -> list[list[int]]:
    return scaffold_split(smiles, fractions) if split == "scaffold" else seeded_split(len(smiles), fractions, seed)


class MoleculeFiles:
    """The `smiles` source of the graph DataModules: a training file, an optional test file of its own, the
    columns, the split, and how the columns become each graph's `y`.

    Args:
        train_path: the training molecules (CSV/TSV with a header, or SDF); validation (and test, unless `test_path`)
            are held out of it by `split`.
        test_path: a test file of its own (a published split); then only validation is held out of `train_path`.
        predict_path: the molecules `predict` reads (their targets, if any, are not read).
        smiles_field: the SMILES column (an SDF's molecules are its records).
        fields: the columns `kind` says: one class column, several 0/1 label columns (an empty cell: not known),
            or the real-valued target columns.
        split: random (seeded), or scaffold (`scaffold_split`).
        invalid: an unparsable SMILES is an `error` naming its line, or `skip`ped and counted.
        names: the output names when known (the classes, from a checkpoint); by default the fields, or for
            classes the training file's, sorted.
    """

    def __init__(
        self,
        train_path: str | None,
        test_path: str | None,
        predict_path: str | None,
        smiles_field: str,
        fields: Sequence[str],
        kind: Kind,
        split: Split,
        invalid: Invalid,
        names: Sequence[str] | None = None,
    ) -> None:
        require_rdkit()
        self.train_path, self.test_path, self.predict_path = train_path, test_path, predict_path
        self.smiles_field, self.fields, self.split, self.invalid = smiles_field, list(fields), split, invalid
        self.kind = kind
        self.train_smiles: list[str] = []
        self.train_lines: list[int] = []
        self.split_made: list[list[int]] | None = None  # [val, test, train], as split_ids made it
        self.read_files: dict[str, list[Molecule]] = {}
        if names is None:
            names = self.label_names() if kind == "classes" else self.fields
        self.names = list(names)

    def targets(self, molecules: Sequence[Molecule], path: str | Path) -> list[torch.Tensor]:
        """Each molecule's `y`: a class id `[1]`, or a row `[1, fields]` of labels or values."""
        if self.kind == "classes":
            return class_ids(molecules, self.names, path)
        rows = label_rows if self.kind == "labels" else target_values
        return list(rows(molecules, self.fields, path).unsqueeze(1))

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps so that `predict` needs no training file: init arguments of the DataModule."""
        fields = self.fields[0] if self.kind == "classes" else self.fields
        state = {"source": "smiles", "smiles_field": self.smiles_field, FIELD_ARGUMENT[self.kind]: fields}
        return {**state, "labels": self.names} if self.kind == "classes" else state

    def probe(self) -> Data:
        """A small molecule's graph: the feature widths, known before any file is read."""
        from rdkit import Chem

        return mol_to_graph(Chem.MolFromSmiles("CC=O"))

    def label_names(self) -> list[str]:
        """The classes of the training file's label column, sorted."""
        if self.train_path is None:
            raise DataError(
                "data.source smiles needs --data.train_path FILE: a CSV/TSV with a SMILES and a label column"
            )
        found = {m.values[0] for m in self.molecules_of(self.train_path)}
        return sorted(found - {""}, key=_label_order)

    def molecules_of(self, path: str) -> list[Molecule]:
        if path not in self.read_files:
            self.read_files[path] = read_molecules(path, self.smiles_field, self.fields, self.invalid)
        return self.read_files[path]

    def read(self, path: str, with_targets: bool = True) -> tuple[list[Data], list[Molecule]]:
        molecules = self.molecules_of(path)
        graphs = []
        targets = self.targets(molecules, path) if with_targets else [None] * len(molecules)
        for molecule, y in zip(molecules, targets, strict=True):
            graph = mol_to_graph(molecule.mol)
            graph.y, graph.smiles = y, molecule.smiles
            graphs.append(graph)
        lonely = [m for m, g in zip(molecules, graphs, strict=True) if g.edge_index.shape[1] == 0]
        if lonely:
            from lightning.pytorch.utilities import rank_zero_warn

            rank_zero_warn(
                f"{path}: {len(lonely)} molecule(s) without bonds (one atom, or ions alone), kept: message passing "
                f"leaves them their own atom's features. The first at line {lonely[0].line}: {lonely[0].smiles!r}"
            )
        return graphs, molecules

    def read_splits(self) -> tuple[list[Data], list[Data] | None]:
        if self.train_path is None:
            raise DataError(
                "data.source smiles needs --data.train_path FILE: a CSV/TSV with a SMILES column and the targets, "
                "or an SDF"
            )
        graphs, molecules = self.read(self.train_path)
        self.train_smiles, self.train_lines = [m.smiles for m in molecules], [m.line for m in molecules]
        test = self.read(self.test_path)[0] if self.test_path is not None else None
        return graphs, test

    def split_ids(self, fixed_test: bool, fractions: Sequence[float], seed: int) -> list[list[int]]:
        """`[val, test, train]` indices of the training file's molecules (test empty beside a test file)."""
        fractions = (fractions[0], 0.0) if fixed_test else fractions
        self.split_made = split_molecules(self.train_smiles, fractions, self.split, seed)
        return self.split_made

    def save_split(self, trainer: Any) -> None:
        """`split.tsv` in the run folder: which part each molecule of `train_path` went to, by line and SMILES, so the
        run's numbers can be checked, and another model compared, on the very same molecules."""
        log_dir = trainer.log_dir  # a collective under DDP: every rank asks, before rank 0 alone writes
        if self.split_made is None or not trainer.is_global_zero or not log_dir:
            return
        rows = ["part\tline\tsmiles"]
        for part, ids in zip(("val", "test", "train"), self.split_made, strict=True):
            rows += [f"{part}\t{self.train_lines[i]}\t{self.train_smiles[i]}" for i in sorted(ids)]
        folder = Path(log_dir)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "split.tsv").write_text("\n".join(rows) + "\n")

    def read_predict(self) -> tuple[list[Data], list[int]]:
        if self.predict_path is None:
            raise DataError("predict needs --data.predict_path: a CSV/TSV with a SMILES column, or an SDF file")
        reading = MoleculeFiles(None, None, None, self.smiles_field, [], "values", self.split, self.invalid)
        graphs, molecules = reading.read(self.predict_path, with_targets=False)
        return graphs, [m.line for m in molecules]
