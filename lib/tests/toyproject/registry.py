"""The toy project's one family, as a project's registry declares its families."""

from pathlib import Path

from runkit import ModelEntry, Registry

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
MODELS = {"toy": ModelEntry("toy.yaml", "an MLP on generated blobs", test_args=("--data.num_train=256",))}
REGISTRY = Registry(CONFIG_DIR, MODELS, package="toyproject")
