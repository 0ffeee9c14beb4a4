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


@pytest.mark.parametrize("total", [50, 50_000])
def test_warmup_is_a_share_of_the_run(total):
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    sched = WarmupCosineLR(opt, total_steps=total, warmup=0.1)
    assert sched.warmup_steps == total // 10
    factor = sched.lr_lambdas[0]
    assert factor(total // 10 - 1) == pytest.approx(1.0)  # the peak, a tenth of the way in, whatever the length
    warm = total // 10
    assert factor(warm + (total - warm) / 2) == pytest.approx(0.5)  # the cosine's midpoint
    assert factor(total) == pytest.approx(0.0)


def test_warmup_steps_override_the_share_and_a_bad_share_is_refused():
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    assert WarmupCosineLR(opt, total_steps=1000, warmup=0.5, warmup_steps=7).warmup_steps == 7
    with pytest.raises(ValueError, match="warmup is a share"):
        WarmupCosineLR(opt, total_steps=1000, warmup=5)
