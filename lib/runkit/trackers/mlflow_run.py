"""Lightning's MLflow logger with an embedded store, a tracking URI checked before training, and a run that a
resumed fit continues (configs/loggers/mlflow.yaml stacks it)."""

import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Literal

from lightning.pytorch.loggers import MLFlowLogger as LightningMLFlowLogger
from lightning.pytorch.utilities import rank_zero_only

from runkit import ConfigError
from runkit.extras import require_extra
from runkit.trackers.reattach import run_folder, unlogged

REACH_TIMEOUT_S = 5.0


class MLFlowLogger(LightningMLFlowLogger):
    """One MLflow run per run folder: experiment `name` (the family: cnn), run `version_N`, and the run folder
    as a tag.

    The default store is a SQLite file, `save_dir/mlflow.db` (nothing to start; `mlflow ui --backend-store-uri
    sqlite:///logs/mlflow.db` to browse it), artifacts beside it; `tracking_uri` (or MLFLOW_TRACKING_URI)
    points at a team's server instead, and is checked before the first step. With `log_model`, the best
    and the last checkpoint are logged as artifacts when the fit ends.

    A fit resumed from a checkpoint gets the MLflow run id the checkpoint saved (`run_id`, set by the CLI:
    runkit/trackers/reattach.py) and logs into that run. Steps it had logged past the checkpoint before it
    was stopped are not logged again: the resume is exact, so they hold the same values, and MLflow cannot
    delete a metric's points.

    Args:
        name, version, save_dir: set from the first logger's run folder (runkit/trackers/stacking.py).
    """

    resume_key = "run_id"  # the init argument that names the tracker run to continue

    def __init__(
        self,
        name: str | None = None,
        version: int | str | None = None,
        save_dir: str = "logs",
        tracking_uri: str | None = None,
        run_id: str | None = None,
        log_model: Literal[True, False, "all"] = True,
        tags: dict[str, Any] | None = None,
        prefix: str = "",
        synchronous: bool | None = None,
    ) -> None:
        require_extra("mlflow", extra="mlflow")
        tracking_uri = store_uri(tracking_uri, save_dir)
        folder, run = run_folder(save_dir, name, version)
        super().__init__(
            experiment_name=name or "lightning_logs",
            run_name=run,
            tracking_uri=tracking_uri,
            tags={"run_folder": str(folder), **(tags or {})},
            log_model=log_model,
            prefix=prefix,
            # an experiment's artifacts beside the embedded store (a server keeps its own)
            artifact_location=str(Path(save_dir, "mlflow-artifacts").resolve()) if "sqlite:" in tracking_uri else None,
            run_id=run_id,
            synchronous=synchronous,
        )
        self._continued, self._metric_prefix = run_id, prefix  # the run this fit continues, if any
        self._logged_until: dict[str, int] | None = None  # per metric, the last step the run already has

    @staticmethod
    def check_config(init_args: Any) -> None:
        """Before the run is built (runkit/trackers/stacking.py): the extra is installed, the tracking URI answers."""
        require_extra("mlflow", extra="mlflow")
        check_reachable(store_uri(init_args.get("tracking_uri"), init_args.get("save_dir") or "logs"))

    @property
    def resume_value(self) -> str | None:
        """What a resumed fit needs to continue this run (saved in its checkpoints)."""
        return self.run_id

    @property
    def experiment(self) -> Any:
        client = super().experiment
        if self._continued is not None and self._logged_until is None:
            run = client.get_run(self._continued)
            self._logged_until = {
                key: max(m.step for m in client.get_metric_history(self._continued, key)) for key in run.data.metrics
            }
            client.update_run(self._continued, status="RUNNING")  # it ended KILLED or FAILED when the fit stopped
        return client

    @rank_zero_only
    def log_metrics(self, metrics: Any, step: int | None = None) -> None:
        if self._continued is not None:
            self.experiment  # noqa: B018 (reads the steps the run has)
            logged = self._logged_until or {}
            metrics = unlogged(metrics, step or 0, logged, self._metric_prefix, self.LOGGER_JOIN_CHAR)
            if not metrics:
                return
        super().log_metrics(metrics, step)


def store_uri(tracking_uri: str | None, save_dir: str) -> str:
    """The tracking URI asked for, else MLFLOW_TRACKING_URI, else the embedded store under `save_dir`."""
    return tracking_uri or os.getenv("MLFLOW_TRACKING_URI") or f"sqlite:///{save_dir}/mlflow.db"


def check_reachable(uri: str) -> None:
    """Fail before training, naming `uri`, where a tracking server does not answer or a store cannot be made."""
    if uri.startswith(("http://", "https://")):
        try:
            with urllib.request.urlopen(f"{uri.rstrip('/')}/health", timeout=REACH_TIMEOUT_S):
                return
        except (urllib.error.URLError, TimeoutError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise ConfigError(
                f"the MLflow tracking URI {uri} cannot be reached ({reason}): start the server, or fix tracking_uri "
                "(configs/loggers/mlflow.yaml, or MLFLOW_TRACKING_URI); without one the run's store is embedded "
                "(sqlite:///logs/mlflow.db)"
            ) from None
    if uri.startswith(("sqlite:///", "file:")):
        path = Path(uri.removeprefix("sqlite:///").removeprefix("file://").removeprefix("file:"))
        folder = path.parent if uri.startswith("sqlite:") else path
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ConfigError(f"the MLflow store {uri} cannot be made: {err}") from None
