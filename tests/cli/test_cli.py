"""The entry point's own logic: `--model NAME` expansion, and errors that name the problem."""

import re
from pathlib import Path

import pytest
import yaml
from runkit.cli.model_flag import config_files, expand_model_flag

from project.cli import main
from project.registry import MODELS, REGISTRY
from tests.conftest import FAMILIES, ROOT, SMALL, TINY, python

FAMILY = next(iter(MODELS))  # any family will do


def test_model_name_becomes_the_first_configs():
    flags = REGISTRY.config_flags(FAMILY)
    args = ["fit", "--config", "preset.yaml", "--model", FAMILY, "--trainer.max_epochs", "3"]
    assert expand_model_flag(args, REGISTRY) == ["fit", *flags, "--config", "preset.yaml", *args[5:]]
    assert expand_model_flag([f"--model={FAMILY}"], REGISTRY) == flags


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
        main(["--model", FAMILY, flag], subcommand="fit")
    assert exit_.value.code != 0
    assert named in capsys.readouterr().err


def test_the_progress_bar_is_tqdm_unless_one_is_configured_or_none_wanted():
    from project.cli import build

    def bars(*args: str) -> list[str]:
        cli = build(FAMILIES[0], *SMALL[FAMILIES[0]], *args)
        return [type(c).__name__ for c in cli.trainer.callbacks if type(c).__name__.endswith("ProgressBar")]

    assert bars() == ["ProgressBar"]  # ours, TQDM's: Lightning would pick Rich's, which costs 5 % of a CNN epoch
    assert bars("--trainer.enable_progress_bar=false") == []
    assert bars("--trainer.callbacks+=lightning.pytorch.callbacks.RichProgressBar") == ["RichProgressBar"]


def test_a_run_whose_output_is_not_a_terminal_gets_one_line_per_epoch(capsys):
    family = FAMILIES[0]
    shown = [a for a in TINY if "progress_bar" not in a]
    main(["--model", family, *shown, *SMALL[family], "--trainer.max_epochs=2"], subcommand="fit")
    err = capsys.readouterr().err  # not a terminal here, as in a CI log or a SLURM output file
    lines = [line for line in err.splitlines() if line.startswith("epoch ")]
    assert [re.sub(r": \d+ steps", ": N steps", line.split(",")[0]) for line in lines] == [
        "epoch 0/1: N steps",
        "epoch 1/1: N steps",
    ]
    assert all("val/acc" in line and "val/loss" in line for line in lines)
    assert "\r" not in err  # no redrawn bar


def test_only_graph_runs_import_pyg(tmp_path):
    """PyG costs about a second to import: the CLI, the shared core and the other families never load it."""
    others = [family for family in FAMILIES if family != "gcn"]
    code = (
        "import sys\n"
        "import runkit.compat\n"
        "from project import cli, doctor, lr_find, export\n"
        f"for family in {others!r}:\n"
        "    cli.build(family, '--trainer.logger=false')\n"
        "print(sorted(m for m in sys.modules if m.startswith('torch_geometric')))\n"
    )
    result = python("-c", code, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == "[]", result.stdout[-500:]


@pytest.mark.parametrize("family", FAMILIES)
def test_the_optimizer_gets_only_what_its_config_says(family):
    # jsonargparse keeps the init_args of the default class (AdamW) when a config switches class_path: the
    # LSTM's Adam once trained with AdamW's weight_decay 0.01 nobody had asked for.
    import inspect

    import torch
    import yaml

    from project.cli import build

    written = yaml.safe_load((ROOT / "configs" / f"{family}.yaml").read_text())["model"]["init_args"]["optimizer"]
    cls = getattr(torch.optim, written["class_path"].rsplit(".", 1)[-1])
    defaults = {k: p.default for k, p in inspect.signature(cls).parameters.items() if k != "params"}
    optimizer = build(family).model.optimizer([torch.nn.Parameter(torch.zeros(1))])
    for key, value in optimizer.defaults.items():
        if key in defaults:
            assert value == written["init_args"].get(key, defaults[key]), key


def ended(cli):
    from runkit.callbacks.early_stopping import how_it_ended
    from runkit.cli.summary import fit_summary

    end = how_it_ended(cli.trainer)
    return end, fit_summary(cli.trainer, end)


def test_the_fit_summary_says_where_and_why_the_fit_stopped(tmp_path):
    from project.cli import build

    family = FAMILIES[0]
    cli = build(family, *TINY, *SMALL[family], "--trainer.max_epochs", "6", "--early_stopping.patience", "1",
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

    from project.cli import build

    family = FAMILIES[0]
    cli = build(family, *TINY, *SMALL[family], "--trainer.max_epochs=3", "--early_stopping.stopping_threshold=0",
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
    family = FAMILIES[0]
    main(["--model", family, *TINY, *SMALL[family], "--trainer.max_epochs=2"], subcommand="fit")
    out = capsys.readouterr()
    assert "ran all 2 epochs (0 to 1)" in out.out
    assert "`Trainer.fit` stopped" not in out.out + out.err  # Lightning's own line is not printed beside ours


def test_a_run_without_an_epoch_limit_does_not_claim_it_ran_all_epochs():
    from project.cli import build

    family = FAMILIES[0]
    cli = build(family, *TINY, *SMALL[family], "--trainer.max_epochs=-1", "--trainer.max_steps=2")
    cli.trainer.fit(cli.model, datamodule=cli.datamodule)
    end, summary = ended(cli)
    assert "best checkpoint" in summary and "ran all" not in summary and not end.early
    assert "trainer.max_steps=2 reached" in summary


def test_a_fit_ends_by_testing_its_best_checkpoint_as_the_test_command_would(tmp_path, capsys):
    import re

    family = FAMILIES[0]
    shown = [a for a in TINY if not a.startswith("--test_after_fit")]  # as a user runs it: testing on
    main(["--model", family, *shown, *SMALL[family], "--trainer.max_epochs=2"], subcommand="fit")
    summary = capsys.readouterr().out
    found = re.search(r"test, at the best checkpoint: test/acc (\d\.\d{4}).*\n  best checkpoint: (\S+)", summary)
    assert found, summary
    main(["test", "--model", family, *shown, *SMALL[family], "--ckpt_path", found[2]])
    alone = re.search(r"test/acc\W+([\d.]+)", capsys.readouterr().out)
    assert alone and f"{float(alone[1]):.4f}" == found[1]  # the same number, tested alone
    main(["--model", family, *TINY, *SMALL[family], "--trainer.max_epochs=1"], subcommand="fit")
    assert "test, at the best checkpoint" not in capsys.readouterr().out  # --test_after_fit false


# part: cnn
def test_the_validation_split_again_is_not_reported_as_a_test():
    from project.data.images import ImageFolderDataModule

    assert not ImageFolderDataModule.has_test_split.fget(type("Folder", (), {"roots": ("a", None, None)})())
    assert ImageFolderDataModule.has_test_split.fget(type("Folder", (), {"roots": ("a", None, "test")})())


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


def data_modules() -> dict[str, list[str]]:
    """Every DataModule this project has (a generated project has fewer), by class path: the arguments it takes."""
    import importlib
    import pkgutil

    from lightning import LightningDataModule
    from runkit.cli.parser_errors import init_arguments

    import project.data

    found = {}
    for info in pkgutil.walk_packages(project.data.__path__, "project.data."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, LightningDataModule) and value.__module__ == info.name:
                found[f"{info.name}.{value.__name__}"] = init_arguments(value)
    return found


def test_every_datamodule_calls_its_training_file_train_path():
    """One name for one file across the DataModules: `train_path` (a folder of images: `root`), `val_path`,
    `test_path`; the other spellings users bring are answered with it, before a name spelled alike."""
    from runkit.cli.parser_errors import SAME_ROLE, refused_option

    modules = data_modules()
    other_names = {name for group in SAME_ROLE for name in group[2:]}
    assert len(modules) >= len(FAMILIES)
    assert {name: set(takes) & other_names for name, takes in modules.items() if set(takes) & other_names} == {}
    for class_path, takes in modules.items():
        if "train_path" in takes:
            assert refused_option("--data.path", "path", class_path).endswith("; did you mean --data.train_path?")
            if "val_path" in takes:  # the old link-prediction name, and not `train_path`, spelled closer
                said = refused_option("--data.val_edges_path", "val_edges_path", class_path)
                assert said.endswith("; did you mean --data.val_path?")


def test_a_validate_runs_saved_config_starts_a_fit_as_it_is(tmp_path):
    """A run folder's config.yaml is what `--config` takes back, whichever command wrote it: validate's own
    `verbose` would make `fit` refuse the file."""
    small = [*TINY, *SMALL[FAMILY], "--trainer.max_epochs=1"]
    fitted = main(["fit", "--model", FAMILY, *small])
    checkpoint = Path(fitted.trainer.log_dir) / "checkpoints" / "last.ckpt"
    validated = main(["validate", "--model", FAMILY, *small, f"--ckpt_path={checkpoint}"])
    saved = Path(validated.trainer.log_dir) / "config.yaml"
    assert "verbose" not in yaml.safe_load(saved.read_text())  # the top-level option, not the early stopping's
    again = main(["fit", f"--config={saved}", "--trainer.fast_dev_run=1"])
    assert again.trainer.state.finished
