"""What `project.fit` prints when a fit ends: the best metric, the test at the best checkpoint, the one reason
the fit stopped, where the checkpoints and logs are."""

from lightning.pytorch import Trainer

from runkit import TaskModule
from runkit.callbacks.early_stopping import FitEnd


def fit_summary(
    trainer: Trainer, ended: FitEnd | None = None, tested: dict[str, float] | None = None, last: str | None = None
) -> str:
    """The summary; `ended` and `last` (the last checkpoint's path) as they were before a test after the fit
    restored the best checkpoint into the callbacks."""
    if trainer.fast_dev_run:
        return "\nfast_dev_run finished: the code path works. Nothing was logged or saved."
    lines = ["", "Fit stopped." if ended is not None and ended.signalled else "Fit finished."]
    if ended is not None:
        lines.append(f"  {ended.line}")
    ckpt = trainer.checkpoint_callback
    if ckpt is not None and ckpt.best_model_score is not None:
        lines.append(f"  best {ckpt.monitor}: {ckpt.best_model_score.item():.4f}")
    if tested:
        shown = ", ".join(f"{name} {value:.4f}" for name, value in tested.items() if not name.endswith("/loss"))
        lines.append(f"  test, at the best checkpoint: {shown}")
        module = trainer.lightning_module
        if isinstance(module, TaskModule) and (verdict := module.against_baselines(tested)):
            lines.append(f"  {verdict}")
    if ckpt is not None:
        lines.append(f"  best checkpoint: {ckpt.best_model_path or '(none)'}")
        lines.append(f"  last checkpoint: {(last if last is not None else ckpt.last_model_path) or '(none)'}")
    if trainer.log_dir:
        lines.append(f"  logs and config: {trainer.log_dir}")
        lines.append(f"  TensorBoard:     tensorboard --logdir {trainer.log_dir}")
    return "\n".join(lines)
