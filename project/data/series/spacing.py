"""`season: auto` and `input_length: auto`: the windows chosen from the series itself."""

from datetime import datetime

from project.errors import ConfigError

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


def season_from_times(times: list[str], lines: list[int], where: str) -> tuple[int, str]:
    """The season implied by the spacing of ISO dates in `times`, with the frequency's name; refused for step
    numbers, for spacings none of FREQUENCIES, and for a spacing that changes (a row left out)."""
    ask = "give the period in steps: --data.season 24 (hours in a day), 12 (months in a year), 1 (none)"
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
