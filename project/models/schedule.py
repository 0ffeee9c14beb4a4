"""Linear warmup, then cosine decay: the schedule most recipes for these models use."""

import math

from runkit import ConfigError
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LambdaLR


class WarmupCosineLR(LambdaLR):
    """LR rises linearly to the optimizer's LR over the warm-up, then follows a cosine down to `min_lr`
    at the run's last step.

    Both phases are set as fractions of the run, so a run of 50 steps and one of 50,000 both warm up
    briefly and decay at the end: a warm-up in absolute steps that suits one data set is most of a
    short run on a smaller one. Step it once per optimizer step (Lightning: `interval: step`).
    `total_steps` is filled in by `TaskModule` from `trainer.estimated_stepping_batches`.

    Args:
        warmup: share of the run's steps spent warming up.
        warmup_steps: an absolute warm-up instead, when set (capped at the run's length).
        min_lr: the LR at the end of the cosine.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        total_steps: int,
        warmup: float = 0.05,
        warmup_steps: int | None = None,
        min_lr: float = 0.0,
    ) -> None:
        if not 0 <= warmup < 1:
            raise ConfigError(f"warmup is a share of the run's steps, in [0, 1): got {warmup}")
        if (warmup_steps is not None and warmup_steps < 0) or min_lr < 0:
            raise ConfigError(f"warmup_steps ({warmup_steps}) and min_lr ({min_lr}) must be >= 0")
        self.total_steps = max(int(total_steps), 1)
        steps = round(warmup * self.total_steps) if warmup_steps is None else warmup_steps
        self.warmup_steps = min(steps, self.total_steps)
        self.min_lr = min_lr
        lambdas = [self._factor_fn(group["lr"]) for group in optimizer.param_groups]
        super().__init__(optimizer, lambdas)

    def _factor_fn(self, base_lr: float):
        floor = min(self.min_lr / base_lr, 1.0) if base_lr > 0 else 0.0

        def factor(step: int) -> float:
            if step < self.warmup_steps:
                # (step + 1): the very first step already trains, at base_lr / warmup_steps.
                return (step + 1) / self.warmup_steps
            progress = (step - self.warmup_steps) / max(self.total_steps - self.warmup_steps, 1)
            cosine = 0.5 * (1.0 + math.cos(math.pi * min(progress, 1.0)))
            return floor + (1.0 - floor) * cosine

        return factor
