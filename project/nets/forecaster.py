"""An LSTM that reads a window of a series and forecasts the next steps at once."""

import torch
from torch import nn

from project.nets.init import init_weights


class LSTMForecaster(nn.Module):
    """`(inputs [B, L, F], future covariates [B, H * K])` → forecasts `[B, num_outputs]` (`H * C` values).

    The LSTM reads the `L` input steps (values, then covariates, standardised); its last hidden state, beside
    the covariates already known for the forecast steps, goes to a linear head that emits every step of the
    horizon at once (no feeding back of its own forecasts, so no error compounds over the horizon).

    With `relative`, the values are read relative to the window's last one and the forecast is that last
    value plus what the network adds: a series with a trend leaves the training range in the later
    (validation, test) part, where absolute levels are inputs the LSTM never saw, but changes are not.

    Args:
        num_outputs: horizon × value columns; linked from the DataModule.
        input_size: features per input step (value columns + covariates); linked from the DataModule.
        future_size: known covariates of the forecast steps (horizon × covariates); linked as well.
        num_values: value columns among the inputs (the first ones); linked as well.
    """

    def __init__(
        self,
        num_outputs: int,
        input_size: int,
        future_size: int = 0,
        num_values: int = 1,
        hidden_size: int = 64,
        num_layers: int = 1,
        dropout: float = 0.0,
        relative: bool = True,
    ) -> None:
        super().__init__()
        self.num_values, self.relative = num_values, relative
        self.features = nn.LSTM(
            input_size, hidden_size, num_layers, batch_first=True, dropout=dropout if num_layers > 1 else 0.0
        )
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(hidden_size + future_size, num_outputs))
        self.head.apply(init_weights)

    def forward(self, inputs: torch.Tensor, future: torch.Tensor) -> torch.Tensor:
        level = inputs[:, -1:, : self.num_values]  # [B, 1, C]: the last observed values
        if self.relative:
            inputs = torch.cat([inputs[..., : self.num_values] - level, inputs[..., self.num_values :]], dim=-1)
        _, (hidden, _) = self.features(inputs)
        forecast = self.head(torch.cat([hidden[-1], future], dim=1))
        if self.relative:  # steps × values, flattened as the targets are
            forecast = forecast + level.expand(-1, forecast.shape[1] // self.num_values, -1).reshape(len(forecast), -1)
        return forecast
