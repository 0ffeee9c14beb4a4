"""Real graph datasets read from disk with PyG's readers, never downloaded.

PyG downloads whatever raw file is missing; here there is no network. So check the files first,
and fail naming each missing file and the folder it goes in, before PyG creates any folder.
"""

from pathlib import Path

from torch_geometric.datasets import Planetoid, TUDataset

PLANETOID_PARTS = ("x", "tx", "allx", "y", "ty", "ally", "graph", "test.index")


def _require(folder: Path, processed: Path, files: list[str], where_from: str) -> None:
    if processed.is_dir() and any(processed.iterdir()):
        return  # PyG reads its processed cache and needs no raw file
    missing = [name for name in files if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"missing {', '.join(missing)} in {folder}/ (nothing can be downloaded here): "
            f"copy the raw files there, from {where_from}"
        )


def load_tu(data_dir: str, name: str) -> TUDataset:
    """`data_dir/<name>/raw/<name>_A.txt, _graph_indicator.txt, _graph_labels.txt` (+ optional node files)."""
    root = Path(data_dir) / name
    files = [f"{name}_{part}.txt" for part in ("A", "graph_indicator", "graph_labels")]
    _require(root / "raw", root / "processed", files, "https://chrsmrrs.github.io/datasets/ (TU format)")
    return TUDataset(data_dir, name)


def load_planetoid(data_dir: str, name: str) -> Planetoid:
    """`data_dir/<name>/raw/ind.<name lower>.{x,tx,allx,y,ty,ally,graph,test.index}`."""
    root = Path(data_dir) / name
    files = [f"ind.{name.lower()}.{part}" for part in PLANETOID_PARTS]
    _require(root / "raw", root / "processed", files, "the Planetoid repository (kimiyoung/planetoid, data/)")
    return Planetoid(data_dir, name)
