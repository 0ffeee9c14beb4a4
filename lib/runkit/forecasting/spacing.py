"""The shape of the windows and parts: `season: auto` and `input_length: auto` chosen from the series itself,
where each part starts, and whether a series is long enough for them."""

import re
from datetime import datetime

from runkit import ConfigError, DataError

# The step between two rows, in days (low, high), and the season it implies: the period a practitioner names
# first for that frequency (a day of hours, a week of days, a year of weeks, months or quarters).
FREQUENCIES = (
    ("hourly", 1 / 24, 1 / 24, 24),
    ("daily", 1, 1, 7),
    ("weekly", 7, 7, 52),
    ("monthly", 28, 31, 12),
    ("quarterly", 89, 92, 4),
    ("yearly", 365, 366, 1),
)
SEASONS_IN = 4  # `input_length: auto` reads this many seasons
YEAR = re.compile(r"1[5-9]\d\d|2[01]\d\d")  # a year written as a number, 1500-2199 (smaller numbers: steps)


def season_from_times(times: list[str], lines: list[int], where: str) -> tuple[int, str]:
    """The season implied by the spacing of ISO dates in `times`, with the frequency's name; refused for step
    numbers, for spacings none of FREQUENCIES, and for a spacing that changes (a row left out)."""
    ask = "give the period in steps: --data.season 24 (hours in a day), 12 (months in a year), 1 (none)"
    if times and all(YEAR.fullmatch(t) for t in times):  # `1972`: the commonest way to write a yearly series
        return _years(times, lines, where, ask)
    try:
        stamps = [datetime.fromisoformat(t) for t in times]
    except ValueError:
        raise ConfigError(
            f"data.season: auto reads the spacing of dates, and {where} has times like {times[0]!r}: {ask}"
        ) from None
    if len(stamps) < 2:
        raise ConfigError(f"data.season: auto needs two rows or more in {where}: {ask}")
    found = None
    for i in range(1, len(stamps)):
        days = (stamps[i] - stamps[i - 1]).total_seconds() / 86400
        kind = next((f for f in FREQUENCIES if f[1] - 1e-6 <= days <= f[2] + 1e-6), None)
        if kind is None or (found is not None and kind != found):
            before = f"{found[0]}" if found else "of no frequency it knows"
            raise ConfigError(
                f"data.season: auto needs evenly spaced times; {where}, line {lines[i]}: {times[i - 1]!r} to "
                f"{times[i]!r} is {days:g} days, where the rows before were {before}: fill the missing rows, or {ask}"
            )
        found = kind
    name, *_, season = found
    return season, name


def _years(times: list[str], lines: list[int], where: str, ask: str) -> tuple[int, str]:
    """Integer years one apart are yearly (season 1); a gap is refused as a gap between dates is."""
    for i in range(1, len(times)):
        if int(times[i]) - int(times[i - 1]) != 1:
            raise ConfigError(
                f"data.season: auto needs evenly spaced times; {where}, line {lines[i]}: {times[i - 1]!r} to "
                f"{times[i]!r} is {int(times[i]) - int(times[i - 1])} years, where the rows before were yearly: fill "
                f"the missing rows, or {ask}"
            )
    return 1, "yearly"


def panel_season(panel: dict, where: dict[str, str], path: str) -> tuple[int, str]:
    """`season_from_times` of every series in `panel` (id -> Series), which must agree; `where` names each."""
    seasons: dict[tuple[int, str], str] = {}
    for name, series in panel.items():
        seasons.setdefault(season_from_times(series.times, series.lines, where[name]), name)
    if len(seasons) > 1:
        (a, first), (b, second), *_ = seasons.items()
        raise DataError(
            f"{path}: series {first!r} is {a[1]} and {second!r} {b[1]}: one model forecasts series of one "
            "frequency; give each frequency its own file, or the period in steps: --data.season"
        )
    return next(iter(seasons))


def part_bounds(length: int, val_fraction: float, test_fraction: float) -> tuple[int, int, int]:
    """Where validation and test start in a series of `length` steps (the last shares), and its length."""
    test_start = length - round(test_fraction * length)
    val_start = test_start - round(val_fraction * length)
    return val_start, test_start, length


def horizon_bounds(length: int, horizon: int) -> tuple[int, int, int]:
    """`split: horizons` (the M-competitions'): the last `horizon` steps test, the `horizon` before validate."""
    return length - 2 * horizon, length - horizon, length


def too_short_for_horizons(length: int, horizon: int, season: int) -> str | None:
    """Why a series cannot give one training window under `split: horizons` (a season of history, at least one
    step, before a horizon of targets, all before the validation horizon); None: it can."""
    need = 2 * horizon + max(1, season) + horizon
    if length >= need:
        return None
    return (
        f"{length} steps, fewer than the {need} that data.split horizons takes: {max(1, season)} of history and "
        f"{horizon} to learn from before the validation and test horizons ({horizon} each)"
    )


def too_short(bounds: tuple[int, int, int], input_length: int, horizon: int) -> str | None:
    """Why a series split at `bounds` cannot hold `MIN_WINDOWS` windows in every part, in a sentence; None: it can."""
    val_start, test_start, length = bounds
    need = input_length + horizon + MIN_WINDOWS - 1
    parts = {"training": (0, val_start), "validation": (val_start, test_start), "test": (test_start, length)}
    longest = longest_input([end - start for start, end in parts.values()], horizon)
    for name, (start, end) in parts.items():
        if end - start < need and (name == "training" or end > start):
            fits = f"the longest input that fits is {longest} steps; " if longest >= 1 else ""
            return (
                f"the {name} part has {end - start} steps, fewer than the {need} that {MIN_WINDOWS} windows of "
                f"input_length {input_length} + horizon {horizon} take: {fits}give a longer series, shorter windows "
                "(data.input_length auto picks them), or other data.val_fraction / data.test_fraction"
            )
    return None


MIN_WINDOWS = 2  # in a validation or test part: one window scores nothing that varies (R² needs two)
AUTO_WINDOWS = 8  # what `input_length: auto` leaves in each part where a season allows it


def longest_input(part_lengths: list[int], horizon: int, windows: int = MIN_WINDOWS) -> int:
    """The longest `input_length` for which every part that has steps holds `windows` windows."""
    return min(length for length in part_lengths if length) - horizon - windows + 1


def auto_input_length(season: int, horizon: int, part_lengths: list[int]) -> tuple[int, str]:
    """`SEASONS_IN` seasons, at least two horizons and 16 steps, shortened so that every part holds
    `AUTO_WINDOWS` windows (or `MIN_WINDOWS`, where that leaves less than a season); with the reason."""
    wanted = max(SEASONS_IN * season, 2 * horizon, 16)
    roomy = longest_input(part_lengths, horizon, AUTO_WINDOWS)
    if wanted <= roomy:
        return wanted, f"{SEASONS_IN} seasons of {season}" if wanted == SEASONS_IN * season else "two horizons"
    if roomy >= season:
        return roomy, f"{wanted} wanted; the longest that leaves {AUTO_WINDOWS} windows in every part"
    longest = longest_input(part_lengths, horizon)
    return longest, f"{wanted} wanted; the longest that leaves {MIN_WINDOWS} windows in every part"


STEPS_PER_EPOCH = 32  # what `batch_size: auto` gives a short series, at the least
AUTO_BATCH = (8, 64)  # the smallest and largest batch `batch_size: auto` picks


def auto_batch_size(windows: int) -> tuple[int, str]:
    """The largest power of two that gives `windows` training windows `STEPS_PER_EPOCH` steps an epoch, within
    `AUTO_BATCH`; with the reason. A short series at a fixed 64 takes one or two steps an epoch, too few for
    early stopping's patience in epochs to mean anything (docs/tasks.md, "On real series")."""
    smallest, largest = AUTO_BATCH
    batch = smallest
    while batch * 2 <= min(largest, windows // STEPS_PER_EPOCH):
        batch *= 2
    return batch, f"{windows} training windows, {windows // batch} steps an epoch"
