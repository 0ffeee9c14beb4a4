"""docs/design.md's "Adding a family", followed for a toy family: a network, a LightningModule, a DataModule, a
config and a registry line are all `--model NAME` needs to fit, test after the fit, resume and predict."""

from pathlib import Path

import torch
import yaml
from runkit import BaseDataModule, ModelEntry
from runkit.model import TaskModule
from torch import nn
from torch.utils.data import TensorDataset

from project.cli import main
from project.registry import MODELS, REGISTRY
from tests.conftest import TINY


class ToyNet(nn.Module):
    """1. The network: a plain nn.Module with `features` and `head`, ending in raw scores."""

    def __init__(self, num_outputs: int, hidden: int = 16) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Linear(4, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, num_outputs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


class ToyModel(TaskModule):
    """2. The LightningModule: how a batch is unpacked, nothing else."""

    def unpack(self, batch):
        x, y = batch
        return (x,), y, len(x)


class ToyData(BaseDataModule):
    """3. The DataModule: the class count in __init__ (the CLI links it into the model), the splits in setup."""

    def __init__(self, num_samples: int = 400, batch_size: int = 32, num_workers: int = 0) -> None:
        super().__init__(batch_size=batch_size, num_workers=num_workers)
        self.num_samples = num_samples
        self.num_classes = 2

    def setup(self, stage: str) -> None:
        x = torch.randn(self.num_samples, 4, generator=torch.Generator().manual_seed(0))
        y = (x.sum(1) > 0).long()  # the sign of a sum: learnable in a few epochs
        cut = [int(self.num_samples * f) for f in (0.6, 0.8)]
        self.train_set = TensorDataset(x[: cut[0]], y[: cut[0]])
        self.val_set = TensorDataset(x[cut[0] : cut[1]], y[cut[0] : cut[1]])
        self.test_set = self.predict_set = TensorDataset(x[cut[1] :], y[cut[1] :])


def test_a_new_family_trains_tests_resumes_and_predicts_with_a_config_and_a_registry_line(tmp_path, monkeypatch):
    config = tmp_path / "toy.yaml"  # 4. its config, stacked on configs/trainer.yaml by --model toy
    config.write_text(
        yaml.safe_dump(
            {
                "trainer": {"max_epochs": 8, "logger": {"init_args": {"name": "toy"}}},
                "model": {
                    "class_path": f"{__name__}.ToyModel",
                    "init_args": {"net": {"class_path": f"{__name__}.ToyNet"}},
                },
                "data": {"class_path": f"{__name__}.ToyData"},
            }
        )
    )
    # 5. its registry line, with what the tests shrink it to
    monkeypatch.setitem(
        MODELS, "toy", ModelEntry(str(config), "toy: the sign of a sum", test_args=("--data.num_samples=300",))
    )
    assert "toy" in REGISTRY.describe()
    fit = [*TINY, *MODELS["toy"].test_args]
    main(["--model", "toy", *[a for a in fit if not a.startswith("--test_after_fit")]], subcommand="fit")
    run = Path("logs/toy/version_0")
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved["early_stopping"]["monitor"] == "val/acc"  # monitor: auto, resolved from its task and saved
    best = torch.load(next((run / "checkpoints").glob("epoch*.ckpt")), weights_only=True)
    assert (
        best["callbacks"]
        and max(v["best_model_score"] for k, v in best["callbacks"].items() if "Checkpoint" in k) > 0.8
    )

    main(["--model", "toy", *fit, "--trainer.max_epochs=9", "--ckpt_path=last"], subcommand="fit")  # resumes
    assert torch.load(run / "checkpoints" / "last.ckpt", weights_only=True)["epoch"] >= 8

    main(["predict", "--model", "toy", *fit, "--ckpt_path", str(run / "checkpoints" / "last.ckpt")])
    lines = (Path("logs/toy/version_1") / "predictions.tsv").read_text().splitlines()
    assert lines[0].split("\t")[0] == "index" and len(lines) == 1 + 60  # a row per test sample
