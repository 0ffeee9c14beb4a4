"""`torchrun --nproc_per_node 2 -m PACKAGE.fit ...`: Lightning finds torchelastic's environment, launches nothing
itself, and 2 processes of batch B train what one process of batch 2B trains."""

import subprocess
import sys

import pytest
import torch

from conftest import ENV
from processes import DDP, fit, fit_command, last_checkpoint

B = 32
# No BatchNorm: each process would normalise by its own half batch (torch has no CPU SyncBatchNorm).
SAME = ["--model.net.init_args.batch_norm=false", "--trainer.max_epochs=2", "--early_stopping.stopping_threshold=null"]


@pytest.mark.slow
def test_torchrun_launches_the_same_ddp(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    fit(one, *SAME, f"--data.batch_size={2 * B}")
    command = fit_command(two, *SAME, f"--data.batch_size={B}", *DDP)
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    result = subprocess.run(
        [*torchrun, *command[1:]], cwd=two, env=ENV, capture_output=True, text=True, timeout=240, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    single, ddp = last_checkpoint(one), last_checkpoint(two)
    assert ddp["global_step"] == single["global_step"] > 0
    for name, expected in single["state_dict"].items():  # float32 sums in another order: Adam magnifies rounding
        torch.testing.assert_close(ddp["state_dict"][name], expected, rtol=1e-3, atol=1e-4)
