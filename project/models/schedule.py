"""Linear warmup, then cosine decay: the schedule most recipes for these models use."""

import math

from torch.optim import Optimizer
from torch.optim.lr_scheduler import LambdaLR

from project.errors import ConfigError


class WarmupCosineLR(LambdaLR):
    """LR rises linearly to the optimizer's LR over `warmup_steps`, then follows a cosine down to `min_lr`.

    Step it once per optimizer step (Lightning: `interval: step`), not per epoch. `total_steps` is
    filled in by `ClassificationModule` from `trainer.estimated_stepping_batches`.
    """

    def __init__(self, optimizer: Optimizer, total_steps: int, warmup_steps: int = 0, min_lr: float = 0.0) -> None:
        if warmup_steps < 0 or min_lr < 0:
            raise ConfigError(f"warmup_steps ({warmup_steps}) and min_lr ({min_lr}) must be >= 0")
        self.total_steps = max(int(total_steps), 1)
        self.warmup_steps = min(warmup_steps, self.total_steps)
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
