"""A sweep's mistakes found before its first trial: the sweep file's fields, each searched key and value as the
fit command parses them, and the objective among the metrics the model logs."""

import pytest
from runkit import ConfigError
from runkit.sweeps.spec import load_spec

from project.registry import CONFIG_DIR
from project.sweep import main as sweep
from tests.conftest import FAMILIES, SMALL

MODEL = FAMILIES[0]
LR = "model.optimizer.init_args.lr"


def write(tmp_path, text: str):
    path = tmp_path / "sweep.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("params: {x: {type: float, low: 0, high: 1}}\nsampler: bayes", "sampler.name must be one of"),
        ("params: {x: {type: float, low: 1, high: 0}}", r"params.x: low \(1\) must be below high"),
        ("params: {x: {type: float, low: 0, high: 1, log: true}}", "a log scale needs low > 0"),
        ("params: {x: {type: real, low: 0, high: 1}}", "params.x.type must be one of"),
        ("params: {x: {type: categorical, choices: []}}", "params.x.choices must be a non-empty list"),
        ("params: {x: {type: int, low: 0.5, high: 3}}", "params.x.low must be a whole number"),
        ("params: {x: {type: float, low: 0, high: 1}}\nsampler: grid", "grid sampler needs `choices`"),
        ("params: {x: {type: categorical, choices: [1]}}\ntrials: 3", "unknown field 'trials'"),
        ("params: {x: {type: categorical, choices: [1]}}\nfixed: {x: 2}", "x is both in `fixed` and in `params`"),
        ("objective: val/acc", "`params` must map"),
    ],
)
def test_sweep_file_mistakes_name_the_file_and_field(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=message) as caught:
        load_spec(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ("model.optimizer.init_args.lrr: {type: float, low: 1.0e-4, high: 0.1}", "lrr.*Option 'lrr' is not accepted"),
        (f"{LR}: {{type: categorical, choices: [0.01, fast]}}", f"{LR} = 'fast' is refused"),
        ("trainer.max_epoch: {type: int, low: 1, high: 3}", "trainer.max_epoch.*unrecognized"),
    ],
)
def test_a_misspelled_key_or_a_wrong_value_fails_before_any_trial(tmp_path, params, message):
    path = write(tmp_path, f"params:\n  {params}\n")
    with pytest.raises(ConfigError, match=message):
        sweep(["--model", MODEL, "--sweep", str(path), *SMALL[MODEL]])
    assert not (tmp_path / "sweeps").exists() and not (tmp_path / "logs").exists()  # no study, no trial


def test_an_objective_the_model_does_not_log_lists_the_ones_it_does(tmp_path):
    path = write(tmp_path, f"objective: val/accuracy\nparams:\n  {LR}: {{type: float, low: 1.0e-4, high: 0.1}}\n")
    with pytest.raises(ConfigError, match=r"'val/accuracy' is not a metric .* it logs train/loss, .*val/loss"):
        sweep(["--model", MODEL, "--sweep", str(path), *SMALL[MODEL]])


def test_a_searched_key_given_on_the_command_line_too_is_refused(tmp_path):
    path = write(tmp_path, f"params:\n  {LR}: {{type: float, low: 1.0e-4, high: 0.1}}\n")
    with pytest.raises(ConfigError, match=f"--{LR} is searched by"):
        sweep(["--model", MODEL, "--sweep", str(path), f"--{LR}=0.1"])
    with pytest.raises(ConfigError, match="--model.optimizer.lr is searched by"):  # the same key, shorter
        sweep(["--model", MODEL, "--sweep", str(path), "--model.optimizer.lr=0.1"])


def test_every_shipped_sweep_file_checks_against_its_model(tmp_path):
    from runkit.sweeps.checks import canonical, check_sweep

    from project.cli import commands

    checked = []
    for path in sorted((CONFIG_DIR / "sweeps").glob("*.yaml")):
        model = MODEL if path.stem == "lr_grid" else path.stem
        if model not in SMALL:
            continue
        spec = load_spec(path)
        searched = {canonical(p.key) for p in spec.params}  # the small data's own settings, less the searched
        small = [a for a in SMALL[model] if canonical(a.split("=", 1)[0].removeprefix("--")) not in searched]
        result = check_sweep(commands, model, spec, small)
        assert result.objective == "val/acc" and result.mode == "max"
        checked.append(path.stem)
    assert set(FAMILIES) | {"lr_grid"} <= set(checked)  # a sweep file for each family, and the LR grid


def test_a_report_of_a_study_that_was_never_run_says_so(tmp_path):
    path = write(tmp_path, f"params:\n  {LR}: {{type: float, low: 1.0e-4, high: 0.1}}\n")
    with pytest.raises(ConfigError, match="no study 'nothing' in sqlite:///.*run the sweep first"):
        sweep(["--model", MODEL, "--sweep", str(path), "--study", "nothing", "--report", *SMALL[MODEL]])
