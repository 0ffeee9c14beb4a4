"""Series as users bring them: gaps to fill, windows and seasons chosen from the data, and the refusals."""

import logging
from datetime import date, timedelta
from pathlib import Path

import pytest
import torch
from runkit import ConfigError, DataError, read_panel

from project.data.series import SeriesDataModule


def write(path: Path, times: list[str], values: list[str], header: str = "time,value") -> Path:
    path.write_text(header + "\n" + "".join(f"{t},{v}\n" for t, v in zip(times, values, strict=True)))
    return path


def months(count: int, start: int = 1990) -> list[str]:
    return [f"{start + m // 12}-{m % 12 + 1:02d}-01" for m in range(count)]


def weeks(count: int) -> list[str]:
    return [str(date(2000, 1, 3) + timedelta(weeks=w)) for w in range(count)]


def test_gaps_are_refused_or_filled_with_their_count_and_first_line(tmp_path, caplog):
    values = ["1", "", "", "4", "5", "", "7", ""]  # lines 3, 4, 7 and 9 empty
    path = write(tmp_path / "gaps.csv", months(8), values)
    with pytest.raises(DataError, match=r"gaps.csv, line 3: value is empty; .*--data.missing interpolate or ffill"):
        read_panel(path, None, "time", ["value"], [])[""]
    with caplog.at_level(logging.WARNING):
        filled = read_panel(path, None, "time", ["value"], [], missing="interpolate")[""]
    assert filled.values[:, 0].tolist() == [1, 2, 3, 4, 5, 6, 7, 7]  # a line across each gap, the last carried
    assert "4 empty value cells filled (interpolate), the first at line 3" in caplog.text
    assert read_panel(path, None, "time", ["value"], [], missing="ffill")[""].values[:, 0].tolist() == [
        1,
        1,
        1,
        4,
        5,
        5,
        7,
        7,
    ]
    leading = write(tmp_path / "leading.csv", months(3), ["", "2", "3"])
    with pytest.raises(DataError, match=r"leading.csv, line 2: value is empty and no earlier value fills it"):
        read_panel(leading, None, "time", ["value"], [], missing="interpolate")[""]
    bad = write(tmp_path / "bad.csv", months(3), ["1", "x", "3"])
    with pytest.raises(DataError, match=r"bad.csv, line 3: value 'x' is not a number"):  # filling fills gaps only
        read_panel(bad, None, "time", ["value"], [], missing="ffill")[""]


@pytest.mark.parametrize(
    ("times", "season"),
    [
        (months(200), 12),
        (weeks(1000), 52),
        ([f"{1700 + y}" for y in range(60)], 1),  # years written as numbers: yearly
        ([str(t) for t in range(60)], None),
    ],
)
def test_season_auto_follows_the_spacing_of_the_dates(tmp_path, times, season):
    path = write(tmp_path / "series.csv", times, [str(i % 7) for i in range(len(times))])
    make = lambda: SeriesDataModule(train_path=str(path), input_length=24 if season is None else "auto", horizon=3)  # noqa: E731
    if season is None:  # step numbers: only the user knows the period
        with pytest.raises(ConfigError, match=r"data.season: auto reads the spacing of dates.*--data.season 24"):
            make()
    else:
        assert make().season == season


def test_season_auto_refuses_uneven_spacing_naming_the_line(tmp_path):
    times = months(30)
    del times[10]  # a month left out: line 12 jumps two months
    path = write(tmp_path / "holes.csv", times, ["1"] * len(times))
    with pytest.raises(ConfigError, match=r"holes.csv, line 12: '1990-10-01' to '1990-12-01' is 61 days.*monthly"):
        SeriesDataModule(train_path=str(path), horizon=3)


def test_season_auto_refuses_a_year_left_out_naming_the_line(tmp_path):
    years = [str(1950 + y) for y in range(40) if y != 20]
    path = write(tmp_path / "yearly.csv", years, ["1"] * len(years))
    with pytest.raises(ConfigError, match=r"yearly.csv, line 22: '1969' to '1971' is 2 years"):
        SeriesDataModule(train_path=str(path), horizon=3)


def test_input_length_auto_takes_four_seasons_or_the_longest_that_leaves_windows(tmp_path):
    def monthly(count: int, **kwargs) -> SeriesDataModule:
        path = write(tmp_path / f"{count}.csv", months(count), [str(i % 12) for i in range(count)])
        dm = SeriesDataModule(train_path=str(path), horizon=6, **kwargs)
        dm.setup("fit")
        return dm

    assert monthly(600).input_length == 48  # four years of months
    roomy = monthly(200)  # 30 steps validate: 17 in, 6 out leave 8 windows
    assert (roomy.input_length, roomy.season, len(roomy.val_set), len(roomy.test_set)) == (17, 12, 8, 8)
    tight = monthly(160)  # 24 validate: 8 windows would leave less than a season in; 2 do not
    assert (tight.input_length, len(tight.val_set)) == (17, 2)
    with pytest.raises(DataError, match=r"validation part has 24 steps.*the longest input that fits is 17 steps"):
        monthly(160, input_length=24)
    with pytest.raises(DataError, match=r"input_length: auto found 8 steps at most .*fewer than the season of 12"):
        monthly(100)
    with pytest.raises(ConfigError, match=r"data.season=12 must be 1..input_length=6"):
        monthly(160, input_length=6)
    with pytest.raises(DataError, match=r"shortest part has 6 steps, too few for 2 windows of horizon 6") as refused:
        monthly(40)  # 6 steps validate: not one input step beside two horizons' windows
    assert "-" not in str(refused.value).split(":")[1]  # no negative count of steps


def test_batch_size_auto_gives_a_short_series_32_steps_an_epoch(tmp_path, caplog):
    def monthly(count: int, **kwargs) -> SeriesDataModule:
        path = write(tmp_path / f"{count}.csv", months(count), [str(i % 12) for i in range(count)])
        dm = SeriesDataModule(train_path=str(path), horizon=6, **kwargs)
        dm.setup("fit")
        return dm

    with caplog.at_level(logging.INFO):
        short = monthly(300)  # 210 training steps, 32 in and 6 out: 173 windows
    assert (len(short.train_set), short.batch_size) == (173, 8)  # 21 steps an epoch: 8 is the least it picks
    assert "data.batch_size: auto is 8 (173 training windows, 21 steps an epoch)" in caplog.text
    middle = monthly(1600)  # 1,067 windows: 32 a batch gives 33 steps, 64 would give 16
    assert (len(middle.train_set), middle.batch_size) == (1067, 32)
    assert monthly(6000).batch_size == 64  # the most it picks
    assert monthly(300, batch_size=64).batch_size == 64  # a number is kept


def test_a_checkpoint_refuses_data_whose_auto_windows_differ(tmp_path):
    path = write(tmp_path / "series.csv", months(600), [str(i % 12 + 0.1 * i) for i in range(600)])
    trained = SeriesDataModule(train_path=str(path), horizon=6)
    trained.setup("fit")
    state = trained.state_dict()
    assert (state["input_length"], state["season"]) == (48, 12)
    other = SeriesDataModule(train_path=str(path), horizon=6, input_length=36)
    other.setup("fit")
    with pytest.raises(DataError, match=r"input_length 48, season 12 and split fractions.*--data.input_length 48"):
        other.load_state_dict(state)
    assert torch.equal(other.mean, trained.mean)  # nothing of it changed
