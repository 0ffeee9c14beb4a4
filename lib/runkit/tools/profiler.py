"""Lightning's PyTorchProfiler over one window of training steps, its table sorted by self time."""

from typing import Any, ClassVar

import torch
from lightning.pytorch.profilers import PyTorchProfiler


class SelfTimeProfiler(PyTorchProfiler):
    """`PyTorchProfiler` recording one window of `active` steps after `wait + warmup`, sortable by self time.

    Lightning's default schedule repeats (wait 1, warmup 1, active 3) and each cycle clears the last, so
    its table shows only the final 3 steps. `sort_by_key` may also be `self_cpu_time_total` or
    `self_cuda_time_total` (time inside an operator, not its children): Lightning 2.6 lists only the
    totals, which put wrappers such as `aten::linear` above the `aten::addmm` that does the work.
    """

    AVAILABLE_SORT_KEYS: ClassVar[set[str]] = PyTorchProfiler.AVAILABLE_SORT_KEYS | {
        "self_cpu_time_total",
        "self_cuda_time_total",
    }

    def __init__(self, wait: int = 2, warmup: int = 2, active: int = 10, **kwargs: Any) -> None:
        schedule = torch.profiler.schedule(wait=wait, warmup=warmup, active=active, repeat=1)
        super().__init__(schedule=schedule, **kwargs)
