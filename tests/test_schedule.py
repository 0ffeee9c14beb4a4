from itertools import pairwise

import pytest
import torch

from project.models.schedule import WarmupCosineLR


def lrs(total: int, warmup: int, min_lr: float, base_lr: float = 0.1) -> list[float]:
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=base_lr)
    sched = WarmupCosineLR(opt, total_steps=total, warmup_steps=warmup, min_lr=min_lr)
    out = []
    for _ in range(total):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return out


def test_linear_warmup_then_cosine_down_to_min_lr():
    seen = lrs(total=100, warmup=10, min_lr=0.001)
    assert seen[:10] == pytest.approx([0.01 * (i + 1) for i in range(10)])
    assert seen[10] == pytest.approx(0.1)
    after = seen[10:]
    assert all(a >= b for a, b in pairwise(after))
    assert seen[55] == pytest.approx(0.001 + (0.1 - 0.001) * 0.5, rel=0.05)  # half way: the cosine's midpoint
    assert seen[-1] == pytest.approx(0.001, abs=1e-4)


def test_no_warmup_starts_at_base_lr():
    assert lrs(total=10, warmup=0, min_lr=0.0)[0] == pytest.approx(0.1)


def test_steps_past_the_end_stay_at_min_lr():
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    sched = WarmupCosineLR(opt, total_steps=5, min_lr=0.2)
    for _ in range(20):
        opt.step()
        sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.2)
