"""A series in a request: its recent values (and covariates), forecast as `predict` forecasts from the end of a
series, scaled by the training part's statistics the checkpoint holds."""

from typing import Any, ClassVar

import torch
from runkit import BadRequest, Reader, Series, forecast_window, known_fields, rows_of_numbers, with_ets


class SeriesReader(Reader):
    """`{"values": [[...], ...]}`: the series' last steps, a row of the value columns per step (a bare number per
    step where there is one), at least `input_length` of them (the network reads the last `input_length`; where the
    model blends in ETS, Holt-Winters is fitted on every step sent, as `predict` fits it on the series); with known
    covariates, `"covariates"` (a row per step, beside the values) and `"future"` (their `horizon` rows ahead);
    with many series, `"series"`: whose scaling to use. Answered with a row per step ahead, as predictions.tsv."""

    fields: ClassVar[tuple[str, ...]] = ("values", "covariates", "future", "series")
    rows_per_input: ClassVar[str] = "many"

    def __init__(self, model: Any, datamodule: Any) -> None:
        super().__init__(model, datamodule)
        datamodule.setup()  # each series' scaling: the checkpoint's, where it saved it

    def samples(self, request: dict[str, Any]) -> list[Any]:
        request = known_fields(request, self.fields)
        data = self.datamodule
        name = self.series_name(request)
        if "values" not in request:
            raise BadRequest("values", f"the series' last {data.input_length} steps or more")
        values = rows_of_numbers(request["values"], "values", len(data.value_names))
        shortest = max(1, data.season) if data.observed else data.input_length  # `split: horizons` pads short ones
        if len(values) < shortest:
            raise BadRequest("values", f"at least {shortest} steps, got {len(values)}")
        covariate_count = len(data.fields[2])
        covariates, future = torch.zeros(len(values), 0), None
        if covariate_count:
            for field, rows in (("covariates", len(values)), ("future", data.horizon)):
                if field not in request:
                    raise BadRequest(field, f"the model reads {covariate_count} known covariates: {rows} rows of them")
            covariates = torch.tensor(rows_of_numbers(request["covariates"], "covariates", covariate_count))
            future = torch.tensor(rows_of_numbers(request["future"], "future", covariate_count))
            for field, table, rows in (("covariates", covariates, len(values)), ("future", future, data.horizon)):
                if len(table) != rows:
                    raise BadRequest(field, f"{rows} rows, got {len(table)}")
        else:
            for field in ("covariates", "future"):
                if field in request:
                    raise BadRequest(field, "this model reads no covariates")
        series = Series([""] * len(values), torch.tensor(values), covariates, list(range(len(values))))
        shape = (data.input_length, data.horizon, data.season)
        own_units = not data.series_field
        window = forecast_window(series, data.scales[name], shape, future, own_units, observed=data.observed)
        if getattr(self.model, "ets_weight", 1.0) < 1:  # the model blends in Holt-Winters, fitted on every step sent
            window = with_ets(window, series, data.scales[name], own_units, data.season)
        return [(name, window[0])]

    def series_name(self, request: dict[str, Any]) -> str:
        data = self.datamodule
        if not data.series_field:
            if "series" in request:
                raise BadRequest("series", "this model forecasts one series: leave the field out")
            return ""
        name = request.get("series")
        if not isinstance(name, str) or name not in data.scales:
            known = ", ".join(list(data.scales)[:5])
            raise BadRequest("series", f"the name of a series the model was trained on ({known}...), got {name!r}")
        return name

    def collate(self, samples: list[Any]) -> Any:
        return super().collate([window for _, window in samples])

    def table(self, sample: Any, predictions: dict[str, torch.Tensor]) -> tuple[list[str], list[list[str]]]:
        return self.model.forecast_table([predictions], self.datamodule, [sample[0]])
