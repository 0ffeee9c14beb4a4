"""What a run wrote for TensorBoard, read back."""

from typing import Any


def fitted_with_events(cli: Any) -> tuple[Any, dict[str, list[str]]]:
    """Fit a built CLI (`cli.py`'s `build`); it, and the tags its TensorBoard events hold by kind (images, scalars)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    cli.trainer.fit(cli.model, cli.datamodule)
    events = EventAccumulator(cli.trainer.log_dir, size_guidance={"images": 0})
    events.Reload()
    return cli, events.Tags()
