"""What a model learns to predict: the loss, metrics, monitored metric, predictions, checks and pictures of
each task. The training system (runkit/model.py) asks its task and knows none of them itself.

`multiclass` (one class per row, cross-entropy), `multilabel` (a set of labels per row, binary
cross-entropy per label), `regression` (real values, MSE / L1 / Huber on standardised targets) and
`link` (is a pair of nodes linked: binary cross-entropy on true and sampled pairs), `tagging` (a tag per step,
span F1, an optional CRF).
"""

from runkit.tasks.base import Task
from runkit.tasks.link import LinkPrediction
from runkit.tasks.multiclass import IGNORE, Multiclass
from runkit.tasks.multilabel import Multilabel
from runkit.tasks.regression import Regression
from runkit.tasks.tagging import Tagging

__all__ = [
    "IGNORE",
    "LinkPrediction",
    "Multiclass",
    "Multilabel",
    "Regression",
    "Tagging",
    "Task",
]
