"""runkit: what runs a Lightning project, as a library its projects depend on.

Its public API is the names below, and only these: a project imports `from runkit import NAME`
(tests/test_layers.py fails on any other import of it from the rooms a user edits). What a project
needs of the library and cannot get here is a missing export, not a reason to reach inside.
"""

from runkit.errors import (
    CheckpointError,
    ConfigError,
    DataError,
    MissingDataError,
    TrainerSettingError,
    TrainingProblem,
    UserError,
    reported,
    user_error,
)
from runkit.files import UnsafePickle, load_plain_data, write_atomically
from runkit.moved import install as _answer_moved_names

_answer_moved_names()  # `project.tasks` in a config saved before runkit 0.2 still imports (runkit/moved.py)

__version__ = "0.3.2"

# Exported without importing their modules until first used (`from runkit import BaseDataModule`): `import runkit`
# stays as light as the errors, for commands that never build a model.
_LAZY = {
    "BaseDataModule": "runkit.data.base",
    "DataOffers": "runkit.data.offers",
    "EpochOrder": "runkit.data.sampling",
    "EpochRandomSampler": "runkit.data.sampling",
    "ensure_writable_dir": "runkit.data.base",
    "fold_split": "runkit.data.base",
    "global_seed": "runkit.data.sampling",
    "loader_generator": "runkit.data.sampling",
    "offers": "runkit.data.offers",
    "seeded_split": "runkit.data.base",
    # Sequences padded per batch, with their lengths, in batches of like lengths (texts, tags, numeric sequences).
    "BucketBatchSampler": "runkit.data.batching",
    "PadCollate": "runkit.data.batching",
    "PaddedSequenceDataModule": "runkit.data.batching",
    "SequenceDataset": "runkit.data.batching",
    "padding_fraction": "runkit.data.batching",
    # The file formats a DataModule reads, each error naming the file, the line and the fix.
    "BioErrors": "runkit.formats.conll",
    "TaggedSentence": "runkit.formats.conll",
    "read_conll": "runkit.formats.conll",
    "NumericSequence": "runkit.formats.sequences",
    "SequenceFile": "runkit.formats.sequences",
    "SequenceMissing": "runkit.formats.sequences",
    "read_sequences": "runkit.formats.sequences",
    "Series": "runkit.formats.series",
    "SeriesMissing": "runkit.formats.series",
    "read_panel": "runkit.formats.series",
    "TextRow": "runkit.formats.text",
    "read_text_file": "runkit.formats.text",
    "read_number": "runkit.formats.values",
    "EdgeList": "runkit.formats.edges",
    "read_edge_list": "runkit.formats.edges",
    "read_node_features": "runkit.formats.edges",
    # Forecasting's protocol: seasons and parts, windows, the baselines a forecast is scored beside.
    "BASELINES": "runkit.forecasting.baselines",
    "BASELINE_NAMES": "runkit.forecasting.baselines",
    "HoltWinters": "runkit.forecasting.baselines",
    "holt_winters_forecasts": "runkit.forecasting.baselines",
    "naive_sources": "runkit.forecasting.baselines",
    "seasonal_drift": "runkit.forecasting.baselines",
    "with_drift": "runkit.forecasting.baselines",
    "AUTO_BATCH": "runkit.forecasting.spacing",
    "MIN_WINDOWS": "runkit.forecasting.spacing",
    "SEASONS_IN": "runkit.forecasting.spacing",
    "auto_batch_size": "runkit.forecasting.spacing",
    "auto_input_length": "runkit.forecasting.spacing",
    "horizon_bounds": "runkit.forecasting.spacing",
    "panel_season": "runkit.forecasting.spacing",
    "part_bounds": "runkit.forecasting.spacing",
    "too_short": "runkit.forecasting.spacing",
    "too_short_for_horizons": "runkit.forecasting.spacing",
    "PanelWindows": "runkit.forecasting.windows",
    "Windows": "runkit.forecasting.windows",
    "forecast_window": "runkit.forecasting.windows",
    "with_ets": "runkit.forecasting.windows",
    "ScaledErrors": "runkit.forecasting.scores",
    "scored_baselines": "runkit.forecasting.scores",
    "padded": "runkit.forecasting.windows",
    # The training system every family's LightningModule subclasses, and the tasks it asks.
    "SchedulerCallable": "runkit.model",
    "TaskModule": "runkit.model",
    "IGNORE": "runkit.tasks",
    "LinkPrediction": "runkit.tasks",
    "Multiclass": "runkit.tasks",
    "Multilabel": "runkit.tasks",
    "Regression": "runkit.tasks",
    "Tagging": "runkit.tasks",
    "Task": "runkit.tasks",
    "CRF": "runkit.tasks.crf",
    "figures": "runkit.tasks",  # the tasks' pictures (matplotlib), for a family drawing its own
    "forbidden_steps": "runkit.tasks.spans",
    "pinball": "runkit.tasks.regression",
    # The command line, bound to a project's model families (its registry.py and cli.py).
    "Commands": "runkit.cli.lightning_cli",
    "ModelEntry": "runkit.cli.registry",
    "Registry": "runkit.cli.registry",
    # Serving: the reader of a DataModule's requests, and what it words a bad one with.
    "BadRequest": "runkit.serving.requests",
    "Reader": "runkit.serving.readers",
    "known_fields": "runkit.serving.requests",
    "one_or_many": "runkit.serving.requests",
    "rows_of_numbers": "runkit.serving.requests",
    "text_field": "runkit.serving.requests",
    # What a family's network or data may need of the machinery.
    "receptive_field": "runkit.receptive",
    "receptive_fields": "runkit.receptive",
    "require_extra": "runkit.extras",
}

__all__ = [
    *_LAZY,
    "CheckpointError",
    "ConfigError",
    "DataError",
    "MissingDataError",
    "TrainerSettingError",
    "TrainingProblem",
    "UnsafePickle",
    "UserError",
    "__version__",
    "load_plain_data",
    "reported",
    "require_version",
    "user_error",
    "write_atomically",
]


def _release(version: str) -> tuple[int, ...]:
    """(0, 1, 2) for "0.1.2" (a pre- or dev-release counts as its release): enough to order runkit's own versions
    without importing packaging at every start."""
    import re

    numbers = [int(part) for part in re.findall(r"\d+", version.split("+")[0])[:3]]
    return tuple(numbers + [0] * (3 - len(numbers)))


def require_version(minimum: str, upgrade: str) -> None:
    """Stop with one line, naming both versions and `upgrade` (the command that installs a newer runkit), where
    the installed runkit is older than `minimum`, what the project's code needs."""
    if _release(__version__) < _release(minimum):
        raise SystemExit(f"runkit {__version__} is installed, and this project needs {minimum} or newer: {upgrade}")


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'runkit' has no attribute {name!r}")
