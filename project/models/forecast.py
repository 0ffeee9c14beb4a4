"""The LSTM forecaster: batches are `(inputs [B, L, F], future covariates [B, H*K], targets [B, H*C],
baselines [B, 4, H*C], series [B])`; the task is regression, scored beside the classical forecasts of the same
windows."""

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import torch
from lightning.pytorch.trainer.states import TrainerFn
from runkit import (
    BASELINE_NAMES,
    BASELINES,
    ConfigError,
    PanelWindows,
    ScaledErrors,
    TaskModule,
    Windows,
    pinball,
    scored_baselines,
)
from torchmetrics import MeanMetric, MetricCollection
from torchmetrics.regression import MeanAbsoluteError

from project.nets.forecaster import naive_error, normal_quantiles

log = logging.getLogger(__name__)


class ForecastModel(TaskModule):
    """A regression model of the next `horizon` steps, logged beside the classical forecasts of the same
    windows (`runkit/forecasting/baselines.py`): `val/mae_last_value`, `val/mae_seasonal_naive`,
    `val/mae_seasonal_drift`, `val/mae_ets`; `val/mase`, the model's MAE over the seasonal-naive MAE
    (below 1: better than repeating the last season), and the same ratio of each other baseline
    (`val/mase_ets`...), each per series and then averaged where there are many; the same under `test/`.
    With quantiles (the task's `quantiles`, the network's the same), the metrics score the middle one,
    and `val/coverage` is the share of targets inside the outer two (near 0.8 for 0.1 and 0.9, if calibrated).

    Where validation says so, the forecast is the network's blended with ETS's (`choose_blend`, `val/ets_weight`):
    the practitioner's baseline is held, and the network adds what it misses (docs/tasks.md, "Blending in ETS").
    """

    data_links: ClassVar[dict[str, tuple[str, ...]]] = {
        **TaskModule.data_links,
        "num_features": ("net.init_args.input_size",),
        "future_size": ("net.init_args.future_size",),
        "num_values": ("net.init_args.num_values",),
        "season": ("net.init_args.season",),
        "input_length": ("net.init_args.input_length",),
        "observed": ("net.init_args.observed",),
    }
    onnx_inputs: ClassVar[dict[str, dict[int, str]]] = {"inputs": {0: "batch"}, "future": {0: "batch"}}
    SHOWN = 3  # validation windows drawn in `val/forecast`, spread over the first batch
    # `start: auto` leaves the network's default start for another naive forecast only where that one's validation
    # MASE is lower by more than this share: on the board's sunspots (8 validation windows) the seasonal naive was
    # 1 % ahead of the drift on validation and 7 % behind on test (docs/tasks.md, "Where the forecaster starts").
    START_MARGIN = 0.05
    # The network's shares tried against Holt-Winters' forecast (ETS) on validation, and kept where one is
    # `START_MARGIN` ahead of the network alone (`choose_blend`; docs/tasks.md, "Blending in ETS").
    BLEND = (0.75, 0.5, 0.25, 0.0)

    def __init__(self, *args: Any, ets_blend: bool = True, **kwargs: Any) -> None:
        """`ets_blend`: the forecast may be the network's blended with ETS's, as validation chooses (`choose_blend`);
        false: the network's alone. The other arguments are `TaskModule`'s."""
        super().__init__(*args, **kwargs)
        self.ets_blend = ets_blend
        # The network's share in the forecast and the validation MASE it was chosen by (`choose_blend`), saved in
        # the checkpoint: `test`, `predict` and the server blend as the best epoch's validation chose.
        self.blend: dict[str, float] = {"ets_weight": 1.0}
        baselines = MetricCollection({f"mae_{name}": MeanAbsoluteError() for name in BASELINES})
        self.val_baselines = baselines.clone(prefix="val/")
        self.test_baselines = baselines.clone(prefix="test/")
        self.val_scaled, self.test_scaled = ScaledErrors(), ScaledErrors()
        self.val_coverage, self.test_coverage = MeanMetric(), MeanMetric()
        self.shown: tuple[torch.Tensor, ...] | None = None  # the windows `val/forecast` draws, kept in validation
        self.start_line = ""  # `start: auto`'s choice, said once chosen (`choose_start`)
        # The task's quantile levels ([] for a point forecast), which the network must emit.
        self.quantiles: list[float] = list(getattr(self.task, "quantiles", []))
        wanted, emitted = self.quantiles or None, getattr(self.net, "quantiles", []) or None
        if wanted != emitted:
            raise ConfigError(
                f"the task scores the quantiles {wanted or 'none'} and the network emits {emitted or 'none'}: set "
                f"--model.net.init_args.quantiles {wanted or 'null'} (configs/lstm_forecast_intervals.yaml: both)"
            )

    def on_validation_epoch_start(self) -> None:
        super().on_validation_epoch_start()
        self.shown = None

    def figures(self, names: Sequence[str] | None, draw: bool = True) -> dict[str, Any]:
        """The task's pictures and `val/forecast`: the first validation windows of this process, each one's
        inputs, truth, forecast (with its interval, shaded, where there are quantiles) and the seasonal naive
        with drift, in the model's units (each value standardised by its training part), of the first value."""
        drawn = super().figures(names, draw)
        if draw and self.shown is not None:
            from runkit import figures

            history, target, forecast, baseline, *interval = self.shown
            name = f"{names[0].split('+')[0]} (standardised)" if names else "value (standardised)"
            drawn["val/forecast"] = figures.forecasts(
                history, target, forecast, baseline, tuple(interval) if interval else None, name
            )
        return drawn

    def unpack(self, batch: Any) -> tuple[tuple[torch.Tensor, torch.Tensor], torch.Tensor, int]:
        inputs, future, target, *_ = batch
        return (inputs, future), target, inputs.shape[0]

    @property
    def ets_weight(self) -> float:
        """The network's share in the forecast, the rest Holt-Winters' (1: the network alone)."""
        return self.blend["ets_weight"]

    def fitting(self) -> bool:
        return self._trainer is not None and self.trainer.state.fn == TrainerFn.FITTING

    def outputs(self, batch: Any) -> tuple[torch.Tensor, torch.Tensor, int]:
        """The network's forecast; outside a fit (test, validate, predict, a server), blended with the batch's ETS
        forecast as validation chose (`choose_blend`). A fit trains and validates the network alone."""
        output, target, batch_size = super().outputs(batch)
        weight = self.ets_weight
        if weight < 1 and not self.fitting():
            ets = batch[3][:, BASELINES.index("ets")].to(output)
            ets = (ets - self.task.mean) / self.task.std  # on the task's scale, as the network's output
            ets = torch.where(torch.isfinite(ets), ets, output)  # no Holt-Winters fit: the network's forecast
            output = weight * output + (1 - weight) * ets
        return output, target, batch_size

    def choosing_blend(self) -> bool:
        return self.ets_blend and not self.quantiles and self.fitting() and not self.trainer.sanity_checking

    def validation_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        output = super().validation_step(batch, batch_idx)
        self.score_beside(batch, output, "val")
        return output

    def test_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        output = super().test_step(batch, batch_idx)
        self.score_beside(batch, output, "test")
        return output

    def score_beside(self, batch: Any, output: torch.Tensor, stage: str) -> None:
        """The baselines, the interval's coverage and the M4-scaled errors beside the task's metrics, on the same
        windows; and the windows the validation's picture shows."""
        inputs, _, target, baselines, series = batch
        scored = self.task.scored(output, target)
        interval = self.task.interval(output) if self.quantiles else None
        if stage == "val" and self.shown is None:
            self.shown = self._windows_to_show(inputs, target, baselines, scored, interval)
        if interval is not None:
            low, high = interval
            inside = ((low <= target) & (target <= high)).float()
            (self.val_coverage if stage == "val" else self.test_coverage).update(inside.mean(dim=1), len(inside))
        metrics = self.val_baselines if stage == "val" else self.test_baselines
        for name, forecast in zip(BASELINES, baselines.unbind(1), strict=True):
            metrics[f"mae_{name}"].update(forecast.contiguous(), target)
        scaled = self.val_scaled if stage == "val" else self.test_scaled
        forecasts = [scored.unsqueeze(1), baselines]
        if stage == "val" and self.choosing_blend():  # each blend of BLEND beside them, scored alike
            ets = baselines[:, BASELINES.index("ets")]
            forecasts.append(torch.stack([w * scored + (1 - w) * ets for w in self.BLEND], dim=1))
        scaled.update(torch.cat(forecasts, dim=1), target, series)

    def _windows_to_show(
        self,
        inputs: torch.Tensor,
        target: torch.Tensor,
        baselines: torch.Tensor,
        scored: torch.Tensor,
        interval: tuple[torch.Tensor, torch.Tensor] | None,
    ) -> tuple[torch.Tensor, ...]:
        """`SHOWN` windows of the batch, its first and last among them, of the first value: inputs `[k, L]`, truth,
        forecast, drift (and interval) `[k, H]` (consecutive windows overlap all but a step: spread, they differ)."""
        rows = torch.linspace(0, len(inputs) - 1, min(self.SHOWN, len(inputs)), device=inputs.device).long()
        values = self.net.num_values

        def first_value(flat: torch.Tensor) -> torch.Tensor:  # [B, H * C] -> [k, H]
            return flat[rows].reshape(len(rows), -1, values)[..., 0].detach().float().cpu()

        history = inputs[rows, :, 0].detach().float().cpu()
        shown = [history, first_value(target), first_value(scored)]
        shown.append(first_value(baselines[:, BASELINES.index("seasonal_drift")]))
        if interval is not None:
            shown += [first_value(bound) for bound in interval]
        return tuple(shown)

    def on_validation_epoch_end(self) -> None:
        super().on_validation_epoch_end()
        if self.choosing_blend() and self.val_scaled.update_count:
            self.choose_blend(m4=getattr(self.trainer.datamodule, "split", None) == "horizons")
            self.log("val/ets_weight", self.ets_weight, sync_dist=True)
        self._log_baselines(self.val_baselines, self.val_scaled, self.val_coverage, "val")

    def choose_blend(self, m4: bool) -> None:
        """The network's share in the forecast (`ets_weight`), the rest ETS's: the one of `BLEND` of lowest MASE on
        this epoch's validation windows (`m4`, under `split: horizons`: the M4 MASE; else `val/mase`), where it is
        `START_MARGIN` below the network's own; else 1, the network alone. Chosen each epoch on that epoch's
        network, so the checkpoint of the best epoch holds the share its own validation chose."""
        scores = self.val_scaled.overall(m4)
        network, blends = float(scores[0]), scores[1 + len(BASELINES) :].tolist()
        best = min(range(len(blends)), key=blends.__getitem__)
        weight = self.BLEND[best] if blends[best] < (1 - self.START_MARGIN) * network else 1.0
        self.blend = {"ets_weight": weight, "mase": blends[best] if weight < 1 else network, "network_mase": network}

    def blend_line(self) -> str:
        """`val/ets_weight: 0.75, ...`: the blend the model forecasts with, for the fit's summary."""
        blend = self.blend
        if "network_mase" not in blend:
            return ""
        if blend["ets_weight"] == 1:
            return f"val/ets_weight: 1, the network alone (no blend with ETS was 5 % ahead of its {blend['mase']:.3f})"
        weight = blend["ets_weight"]
        return (
            f"val/ets_weight: {weight:g}, the forecast {weight:g} x the network's + {1 - weight:g} x ETS's (validation "
            f"MASE {blend['mase']:.3f}, the network's alone {blend['network_mase']:.3f})"
        )

    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        super().on_save_checkpoint(checkpoint)
        checkpoint["ets_blend"] = dict(self.blend)

    def on_load_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        super().on_load_checkpoint(checkpoint)
        self.blend = dict(checkpoint.get("ets_blend", {"ets_weight": 1.0}))

    def on_test_epoch_end(self) -> None:
        super().on_test_epoch_end()
        if self.trainer.datamodule.series_field:
            self._write_mase_by_series()
        self._log_baselines(self.test_baselines, self.test_scaled, self.test_coverage, "test")

    def _write_mase_by_series(self) -> None:
        """`test_mase_by_series.tsv` in the run folder: each series' test MASE, the model's and each baseline's,
        worst first, so that the series the model loses on are named."""
        with self.test_scaled.sync_context():  # every process's windows, as compute() sees them
            ids, ratios = self.test_scaled.by_series()
        folder = self.trainer.log_dir
        if not self.trainer.is_global_zero or folder is None:
            return
        names = list(self.trainer.datamodule.scales)
        order = (ratios[:, 0] / ratios[:, 1:].min(dim=1).values).argsort(descending=True)
        lines = ["\t".join(["series", "model", *BASELINES])]
        lines += ["\t".join([names[int(ids[i])], *(f"{v:.4f}" for v in ratios[i].tolist())]) for i in order.tolist()]
        path = Path(folder) / "test_mase_by_series.tsv"
        path.write_text("\n".join(lines) + "\n")
        log.info(f"test MASE of each of {len(ids)} series, worst against its best baseline first: {path}")

    def _log_baselines(self, metrics: MetricCollection, scaled: ScaledErrors, coverage: MeanMetric, stage: str) -> None:
        values = {**metrics.compute(), **{f"{stage}/{name}": value for name, value in scaled.compute().items()}}
        if self.quantiles:
            values[f"{stage}/coverage"] = coverage.compute()
        self.log_dict(values, sync_dist=True)
        for metric in (metrics, scaled, coverage):
            metric.reset()

    def against_baselines(self, tested: dict[str, float]) -> str | None:
        """`test: model MASE 0.36; ETS 0.31, seasonal naive with drift 0.46, ...: the model loses to ETS by 16 %`."""
        if "test/mase" not in tested:
            return None
        # The seasonal naive's MASE is 1 by definition; the others' are logged as `test/mase_<name>`.
        scores = {
            BASELINE_NAMES[name]: tested.get(f"test/mase_{name}", 1.0 if name == "seasonal_naive" else None)
            for name in BASELINES
        }
        scores = {name: score for name, score in scores.items() if score is not None}
        ranked = sorted(scores.items(), key=lambda item: item[1])
        (best, best_score), mase = ranked[0], tested["test/mase"]
        shown = ", ".join(f"{name} {score:.3f}" for name, score in ranked)
        if abs(mase - best_score) <= 1e-3 * best_score:  # the blend at ETS alone forecasts as ETS does
            outcome = f"the model is even with {best}"
        elif mase <= best_score:
            outcome = f"the model beats them all ({best} by {100 * (1 - mase / best_score):.0f} %)"
        else:
            outcome = f"the model loses to {best} by {100 * (mase / best_score - 1):.0f} %"
        said = "".join(f"\n  {line}" for line in (self.start_line, self.blend_line()) if line)
        return f"test MASE: model {mase:.3f}; {shown}: {outcome}{said}"

    def setup(self, stage: str) -> None:
        super().setup(stage)
        # The task's scale is the inputs' scale (the training part's mean and std of each value column), so
        # the network's output and its inputs are in one space: a naive forecast read off the inputs is the
        # same forecast in the task's units, which the skip connection needs to start exactly at it.
        # (A checkpoint's values, the same, are loaded after this.)
        datamodule = self.trainer.datamodule
        values = len(datamodule.value_names)
        self.task.mean.copy_(datamodule.mean[:values].repeat(datamodule.horizon))
        self.task.std.copy_(datamodule.std[:values].repeat(datamodule.horizon))
        insample = getattr(datamodule, "insample", {})  # the M4 scale of each series, by part
        for part, metric in (("val", self.val_scaled), ("test", self.test_scaled)):
            metric.insample = torch.tensor(insample[part]) if insample.get(part) else None
        if stage == "fit":  # before a checkpoint's weights are restored, which then carry the start they had
            self.choose_start(datamodule.val_set)

    def choose_start(self, val_set: Windows | PanelWindows) -> None:
        """`start: auto`: the network starts at the naive forecast it computes (`LSTMForecaster.NAIVE`) with the
        lowest MASE on the validation windows (per series, then the geometric mean, as `val/mase`), where that is
        `START_MARGIN` below the default start's; logged as `val/start` and said in the fit's summary. Once per
        model: a fit after the LR range test keeps it."""
        net = self.net
        if getattr(net, "start_choice", None) != "auto" or getattr(net, "skip", None) != "learned" or self.start_line:
            return
        windows = [w for w in (val_set.datasets if isinstance(val_set, PanelWindows) else [val_set]) if len(w)]
        if not windows:
            return
        mase = scored_baselines(windows).compute()
        scores = {name: float(mase.get(f"mase_{name}", 1.0)) for name in BASELINES}
        best = self.pick_start(scores)
        net.start_at(best)
        shown = ", ".join(f"{BASELINE_NAMES[name]} {scores[name]:.3f}" for name in sorted(scores, key=scores.get))
        self.start_line = (
            f"val/start: {best}, the {BASELINE_NAMES[best]} (validation MASE: {shown}; ETS is not a start)"
        )
        log.info(self.start_line)

    def pick_start(self, scores: dict[str, float]) -> str:
        """The naive forecast of lowest validation MASE in `scores`, where it is `START_MARGIN` ahead of the
        default start's (within it, the noise of a few validation windows); ETS is scored but not a start."""
        best = min(self.net.NAIVE, key=lambda name: scores[name])
        if scores[best] > (1 - self.START_MARGIN) * scores[self.net.START]:
            return self.net.START
        return best

    def expected_initial_loss(self, batch: Any, target: torch.Tensor) -> tuple[float, str]:
        skip = getattr(self.net, "skip", "none")
        if skip == "none":
            return self.task.expected_initial_loss(target)
        # The head starts as a naive forecast (`learned`: it reads the net's `start` through, the rest at 0).
        start = self.net.start
        naive = batch[3][:, BASELINES.index(start)].to(self.task.mean.device)
        output = (naive - self.task.mean) / self.task.std
        if quantiles := self.quantiles:
            # Each quantile starts at the naive forecast plus its normal quantile times the naive's in-window error,
            # over the observed steps only, as the network takes it.
            inputs = batch[0].to(output.device)  # on the task's scale
            values, observed = inputs[..., : self.net.num_values], inputs[..., -1:] if self.net.observed else None
            scale = naive_error(values, self.net.season, observed).squeeze(1)
            scale = scale.repeat(1, output.shape[1] // values.shape[-1])
            start_at = output.unsqueeze(-1) + scale.unsqueeze(-1) * normal_quantiles(quantiles).to(output.device)
            z = (target.to(output.device) - self.task.mean) / self.task.std
            loss = pinball(start_at, z, quantiles)
            why = f"the pinball loss where the quantiles start, around the {BASELINE_NAMES[start]} forecast"
            return float(loss), why
        loss = self.task.loss(output, target.to(output.device))
        return float(loss), f"the loss of the {BASELINE_NAMES[start]} forecast, where the untrained forecaster starts"

    def prediction_table(
        self, predictions: Sequence[dict[str, torch.Tensor]], names: Sequence[str] | None
    ) -> tuple[list[str], list[list[str]]]:
        """One row per forecast step (`+1`, `+2`...), one column per value (with quantiles, then one per value and
        quantile: `value_q0.1`...): what comes after the series; many series: a row per series and step, in each
        series' own units."""
        datamodule = self.trainer.datamodule
        return self.forecast_table(predictions, datamodule, datamodule.forecast_names)

    def forecast_table(
        self, predictions: Sequence[dict[str, torch.Tensor]], datamodule: Any, forecast_names: Sequence[str]
    ) -> tuple[list[str], list[list[str]]]:
        """`prediction_table` for the forecasts of the series `forecast_names`, in order (a server's request)."""
        names, horizon, many = datamodule.value_names, datamodule.horizon, bool(datamodule.series_field)
        levels = self.quantiles
        key = "quantiles" if levels else "value"
        count = len(forecast_names)
        forecasts = torch.cat([batch[key] for batch in predictions]).reshape(count, horizon, len(names), -1)
        if levels:  # the middle quantile first, as the value column, then every quantile
            forecasts = torch.cat([forecasts[..., self.task.middle].unsqueeze(-1), forecasts], dim=-1)
        rows = []
        for name, forecast in zip(forecast_names, forecasts, strict=True):
            if many:  # the task's units are the series' standardised ones
                mean, std = datamodule.scales[name]
                forecast = forecast * std[: len(names), None] + mean[: len(names), None]
            rows += [
                [*([name] if many else []), f"+{step + 1}", *(f"{v:.6g}" for v in values.T.reshape(-1).tolist())]
                for step, values in enumerate(forecast)
            ]
        columns = [*names, *(f"{name}_q{q:g}" for q in levels for name in names)]
        return [*(["series"] if many else []), "step", *columns], rows
