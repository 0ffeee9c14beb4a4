"""Forecasting's protocol, the same for every forecaster: a series' season and its parts (`spacing`: fractions,
or the M-competitions' last horizons), the windows over them (`windows`), the baselines a forecast is scored
beside on exactly those windows (`baselines`: the naive forecasts, with drift, and Holt-Winters), and the score
(`scores`: MASE per series, then over the series)."""
