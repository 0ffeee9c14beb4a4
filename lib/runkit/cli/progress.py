"""Which progress display a run gets, decided on its parsed config."""

from typing import Any

from jsonargparse import Namespace

BAR = "runkit.callbacks.progress.ProgressBar"


def choose_progress_bar(trainer: Any) -> None:
    """Lightning's default bar is Rich's when `rich` is installed; ours is TQDM's in a terminal (its redraws cost
    less, about what no bar costs: benchmarks/callback_costs.py) and a line per epoch elsewhere. Added only when
    the run shows a bar and names none of its own, so `--trainer.enable_progress_bar false` and a configured
    RichProgressBar both still work."""
    if trainer.get("enable_progress_bar") is False:
        return
    callbacks = trainer.get("callbacks") or []
    if any("ProgressBar" in str(getattr(c, "class_path", "")) for c in callbacks):
        return
    trainer.callbacks = [*callbacks, Namespace(class_path=BAR, init_args=Namespace())]
