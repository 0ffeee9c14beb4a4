"""Molecules in requests: SMILES strings, made into graphs as the training molecules were (RDKit, the `molecules`
extra: project/data/graphs/molecules.py)."""

from typing import Any, ClassVar

from runkit import BadRequest, Reader, known_fields, text_field
from torch_geometric.data import Data

from project.data.graphs.molecules import mol_to_graph, require_rdkit


class MoleculeReader(Reader):
    """`{"smiles": "CCO"}` or `{"smiles": ["CCO", "c1ccccc1O", ...]}`."""

    fields: ClassVar[tuple[str, ...]] = ("smiles",)

    def samples(self, request: dict[str, Any]) -> list[Any]:
        request = known_fields(request, self.fields)
        value = request.get("smiles")
        if isinstance(value, list) and value:
            return [self.molecule(text_field(v, f"smiles[{i}]"), f"smiles[{i}]") for i, v in enumerate(value)]
        return [self.molecule(text_field(value, "smiles"), "smiles")]

    def molecule(self, smiles: str, field: str) -> Data:
        require_rdkit()
        from rdkit import Chem, RDLogger

        RDLogger.DisableLog("rdApp.*")  # the reason is answered to the client, not printed in the server's log
        mol = Chem.MolFromSmiles(smiles)
        if mol is None or mol.GetNumAtoms() == 0:
            raise BadRequest(field, f"{smiles!r} is not a SMILES string RDKit can read")
        return self.datamodule.featurised(mol_to_graph(mol))
