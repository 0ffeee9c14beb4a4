"""User errors reach the terminal as one `error:` line, however deep they were raised; bugs keep their traceback."""

import pytest
from lightning.fabric.utilities.exceptions import MisconfigurationException
from runkit.errors import DataError, TrainerSettingError, reported, user_error


def wrapped_like_jsonargparse(err: Exception) -> ValueError:
    """jsonargparse reports a failed class instantiation as its own ValueError, caused by ours."""
    try:
        raise ValueError("Does not validate against any of the Union subtypes ...") from err
    except ValueError as outer:
        return outer


def test_a_user_error_is_found_behind_the_wrapping():
    ours = DataError("reviews.csv, line 3: no column 'text'")
    assert user_error(wrapped_like_jsonargparse(ours)) is ours
    assert user_error(wrapped_like_jsonargparse(KeyError("a bug"))) is None


def test_lightnings_refusal_of_a_setting_is_a_user_error():
    found = user_error(MisconfigurationException("No supported gpu backend found!"))
    assert isinstance(found, TrainerSettingError) and "No supported gpu backend found!" in str(found)


def test_reported_prints_one_line_and_exits_2_unless_the_traceback_is_asked_for(capsys, monkeypatch):
    monkeypatch.delenv("PROJECT_TRACEBACK", raising=False)
    with pytest.raises(SystemExit) as exit_, reported():
        raise wrapped_like_jsonargparse(DataError("t.csv, line 1: not UTF-8"))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "error: t.csv, line 1: not UTF-8" and "Traceback" not in err
    monkeypatch.setenv("PROJECT_TRACEBACK", "1")
    with pytest.raises(ValueError, match="Union subtypes"), reported():
        raise wrapped_like_jsonargparse(DataError("t.csv, line 1: not UTF-8"))


def test_a_bug_keeps_its_exception():
    with pytest.raises(KeyError), reported():
        raise KeyError("a bug")
