"""The README checks a project runs on itself (runkit/testing/readme.py) pass what runs and fail what would not."""

import pytest
from runkit.testing.readme import bash_commands, parses

from toyproject.cli import commands

README = """Train:
```bash
python -m toyproject.fit --model toy \\
    [--trainer.max_epochs 3]  # a comment
python -m toyproject.fit --model toy --ckpt_path logs/toy/version_0/checkpoints/last.ckpt
```
"""


def test_the_commands_are_read_from_bash_blocks_with_their_continuations_joined():
    assert bash_commands(README) == [
        "python -m toyproject.fit --model toy '[--trainer.max_epochs' '3]'",
        "python -m toyproject.fit --model toy --ckpt_path logs/toy/version_0/checkpoints/last.ckpt",
    ]


def test_a_command_that_composes_passes_and_a_mistyped_one_fails(tmp_path):
    (tmp_path / "Makefile").write_text("train:\n\techo\n")
    for command in [*bash_commands(README), "make train", "python -m toyproject.lr_find --model toy --num_training 5"]:
        parses(command, tmp_path, commands)
    for wrong in ("python -m toyproject.fit --model toy --trainer.max_epoch 3", "make deploy", "nosuchtool --x"):
        with pytest.raises((AssertionError, SystemExit)):
            parses(wrong, tmp_path, commands)
