"""Every sweep file this project ships checks against its model before a first trial. (A sweep's own checks: runkit's
own tests.)"""

from runkit.sweeps.checks import canonical, check_sweep
from runkit.sweeps.spec import load_spec

from project.cli import commands
from project.registry import CONFIG_DIR
from tests.conftest import FAMILIES, SMALL


def test_every_shipped_sweep_file_checks_against_its_model(tmp_path):
    checked = []
    for path in sorted((CONFIG_DIR / "sweeps").glob("*.yaml")):
        model = FAMILIES[0] if path.stem == "lr_grid" else path.stem
        if model not in SMALL:
            continue
        spec = load_spec(path)
        searched = {canonical(p.key) for p in spec.params}  # the small data's own settings, less the searched
        small = [a for a in SMALL[model] if canonical(a.split("=", 1)[0].removeprefix("--")) not in searched]
        result = check_sweep(commands, model, spec, small)
        assert result.objective == "val/acc" and result.mode == "max"
        checked.append(path.stem)
    assert set(FAMILIES) | {"lr_grid"} <= set(checked)  # a sweep file for each family, and the LR grid
