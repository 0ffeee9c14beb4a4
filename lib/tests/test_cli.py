"""The command line's own logic, on the toy project: `--model NAME` expansion, errors that name the problem, the
progress line, the fit's summary and the test after it."""

import re
from pathlib import Path

import pytest
import yaml
from runkit.cli.model_flag import config_files, expand_model_flag

from conftest import TINY, TOY
from toyproject.cli import build, main
from toyproject.registry import MODELS, REGISTRY


def test_model_name_becomes_the_first_configs():
    flags = REGISTRY.config_flags(TOY)
    args = ["fit", "--config", "preset.yaml", "--model", TOY, "--trainer.max_epochs", "3"]
    assert expand_model_flag(args, REGISTRY) == ["fit", *flags, "--config", "preset.yaml", *args[5:]]
    assert expand_model_flag([f"--model={TOY}"], REGISTRY) == flags


def test_config_files_keep_command_line_order():
    args = ["fit", "--config=a.yaml", "-c", "b.yaml", "--config", "c.yaml", "--model.config_x", "1"]
    assert config_files(args) == ["a.yaml", "b.yaml", "c.yaml"]


def test_class_paths_and_nested_keys_pass_through():
    args = ["fit", "--model", "lightning.pytorch.demos.boring_classes.BoringModel", "--model.lr", "0.1"]
    assert expand_model_flag(args, REGISTRY) == args


def test_unknown_model_lists_the_available_ones(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--model", "resnet"], subcommand="fit")
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unknown model 'resnet'" in err
    for name, entry in MODELS.items():
        assert name in err and entry.description in err


def test_help_lists_the_models(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"], subcommand="fit")
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("Models (--model NAME")
    assert "--trainer.max_epochs" in out


@pytest.mark.parametrize(
    ("flag", "named"),
    [
        ("--trainer.max_epoch=3", "trainer.max_epoch"),  # a typo, not an abbreviation to accept
        ("--data.batch_sise=3", "batch_sise"),
        ("--data.batch_size=many", "batch_size"),
    ],
)
def test_bad_config_keys_and_values_are_named(capsys, flag, named):
    with pytest.raises(SystemExit) as exit_:
        main(["--model", TOY, flag], subcommand="fit")
    assert exit_.value.code != 0
    assert named in capsys.readouterr().err


def test_the_progress_bar_is_tqdm_unless_one_is_configured_or_none_wanted():
    def bars(*args: str) -> list[str]:
        cli = build(TOY, *args)
        return [type(c).__name__ for c in cli.trainer.callbacks if type(c).__name__.endswith("ProgressBar")]

    assert bars() == ["ProgressBar"]  # ours, TQDM's: Lightning would pick Rich's, which costs 5 % of a CNN epoch
    assert bars("--trainer.enable_progress_bar=false") == []
    assert bars("--trainer.callbacks+=lightning.pytorch.callbacks.RichProgressBar") == ["RichProgressBar"]


def test_a_run_whose_output_is_not_a_terminal_gets_one_line_per_epoch(capsys):
    shown = [a for a in TINY if "progress_bar" not in a]
    main(["--model", TOY, *shown, "--trainer.max_epochs=2"], subcommand="fit")
    err = capsys.readouterr().err  # not a terminal here, as in a CI log or a SLURM output file
    lines = [line for line in err.splitlines() if line.startswith("epoch ")]
    assert [re.sub(r": \d+ steps", ": N steps", line.split(",")[0]) for line in lines] == [
        "epoch 0/1: N steps",
        "epoch 1/1: N steps",
    ]
    assert all("val/acc" in line and "val/loss" in line for line in lines)
    assert "\r" not in err  # no redrawn bar


def ended(cli):
    from runkit.callbacks.early_stopping import how_it_ended
    from runkit.cli.summary import fit_summary

    end = how_it_ended(cli.trainer)
    return end, fit_summary(cli.trainer, end)


def test_the_fit_summary_says_where_and_why_the_fit_stopped(tmp_path):
    cli = build(TOY, *TINY, "--trainer.max_epochs", "6", "--early_stopping.patience", "1",
                "--early_stopping.stopping_threshold", "null", "--early_stopping.min_delta", "0.5")  # fmt: skip
    cli.trainer.fit(cli.model, datamodule=cli.datamodule)
    # min_delta 0.5: no epoch can count as better than the first, so patience 1 stops after the second.
    assert cli.trainer.current_epoch == 2
    end, summary = ended(cli)
    assert end.early
    # numbered as the checkpoint files are: the second epoch is epoch01-...ckpt
    assert "stopped early after epoch 1 (2 epochs of at most 6): val/acc had not improved for 1 validations" in summary
    assert summary.count("stopped") == 1 and "ran all" not in summary


def test_a_fit_stopped_at_its_first_epoch_says_so_and_its_status_is_early_stopped(tmp_path):
    from runkit.callbacks.run_status import read_status

    cli = build(TOY, *TINY, "--trainer.max_epochs=3", "--early_stopping.stopping_threshold=0",
                "--trainer.logger.init_args.save_dir", str(tmp_path))  # fmt: skip
    cli.trainer.fit(cli.model, datamodule=cli.datamodule)
    assert cli.trainer.current_epoch == 1
    end, summary = ended(cli)
    assert (
        end.early
        and "stopped early after epoch 0 (1 epochs of at most 3): val/acc reached the stopping threshold 0" in summary
    )
    # Lightning's stopped_epoch is 0 here: a status read from it would say "finished"
    assert read_status(Path(cli.trainer.log_dir))["status"] == "early-stopped"


def test_a_fit_that_ran_every_epoch_says_so_once(capsys):
    main(["--model", TOY, *TINY, "--trainer.max_epochs=2"], subcommand="fit")
    out = capsys.readouterr()
    assert "ran all 2 epochs (0 to 1)" in out.out
    assert "`Trainer.fit` stopped" not in out.out + out.err  # Lightning's own line is not printed beside ours


def test_a_run_without_an_epoch_limit_does_not_claim_it_ran_all_epochs():
    cli = build(TOY, *TINY, "--trainer.max_epochs=-1", "--trainer.max_steps=2")
    cli.trainer.fit(cli.model, datamodule=cli.datamodule)
    end, summary = ended(cli)
    assert "best checkpoint" in summary and "ran all" not in summary and not end.early
    assert "trainer.max_steps=2 reached" in summary


def test_a_fit_ends_by_testing_its_best_checkpoint_as_the_test_command_would(tmp_path, capsys):
    import re

    shown = [a for a in TINY if not a.startswith("--test_after_fit")]  # as a user runs it: testing on
    main(["--model", TOY, *shown, "--trainer.max_epochs=2"], subcommand="fit")
    summary = capsys.readouterr().out
    found = re.search(r"test, at the best checkpoint: test/acc (\d\.\d{4}).*\n  best checkpoint: (\S+)", summary)
    assert found, summary
    main(["test", "--model", TOY, *shown, "--ckpt_path", found[2]])
    alone = re.search(r"test/acc\W+([\d.]+)", capsys.readouterr().out)
    assert alone and f"{float(alone[1]):.4f}" == found[1]  # the same number, tested alone
    main(["--model", TOY, *TINY, "--trainer.max_epochs=1"], subcommand="fit")
    assert "test, at the best checkpoint" not in capsys.readouterr().out  # --test_after_fit false


def test_a_datamodule_of_your_own_is_tested_after_fit_where_it_has_a_test_loader():
    import lightning.pytorch as L
    from runkit import BaseDataModule, offers

    class Plain(L.LightningDataModule):
        pass

    class WithTest(L.LightningDataModule):
        def test_dataloader(self) -> list:
            return []

    assert not offers(Plain()).has_test_split and offers(WithTest()).has_test_split
    assert offers(Plain()).output_names is None
    # the template's DataModules answer for themselves, from the same defaults (a test split; the class names)
    named = type("Named", (BaseDataModule,), {"num_classes": 2, "class_names": ["a", "b"]})()
    assert offers(named) is named and named.has_test_split and named.output_names == ["a", "b"]


def test_a_validate_runs_saved_config_starts_a_fit_as_it_is(tmp_path):
    """A run folder's config.yaml is what `--config` takes back, whichever command wrote it: validate's own
    `verbose` would make `fit` refuse the file."""
    small = [*TINY, "--trainer.max_epochs=1"]
    fitted = main(["fit", "--model", TOY, *small])
    checkpoint = Path(fitted.trainer.log_dir) / "checkpoints" / "last.ckpt"
    validated = main(["validate", "--model", TOY, *small, f"--ckpt_path={checkpoint}"])
    saved = Path(validated.trainer.log_dir) / "config.yaml"
    assert "verbose" not in yaml.safe_load(saved.read_text())  # the top-level option, not the early stopping's
    again = main(["fit", f"--config={saved}", "--trainer.fast_dev_run=1"])
    assert again.trainer.state.finished


def test_a_familys_task_is_read_from_its_config_else_its_model_class(tmp_path):
    from runkit import ModelEntry, Registry

    model = "model:\n  class_path: toyproject.model.BlobsModel\n"
    (tmp_path / "a.yaml").write_text(model + "  init_args:\n    task:\n      class_path: runkit.tasks.Regression\n")
    (tmp_path / "b.yaml").write_text(model)
    registry = Registry(tmp_path, {"b_reg": ModelEntry("a.yaml", "a"), "b": ModelEntry("b.yaml", "b")}, "toyproject")
    assert (registry.task("b_reg"), registry.task("b")) == ("regression", "multiclass")  # BlobsModel's default
    assert registry.families() == ["b"]  # a family's first multiclass model
