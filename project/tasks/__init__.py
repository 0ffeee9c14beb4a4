"""What a model learns to predict: the loss, metrics, monitored metric, predictions, checks and pictures of
each task. The training system (project/models/base.py) asks its task and knows none of them itself.

`multiclass` (one class per row, cross-entropy), `multilabel` (a set of labels per row, binary
cross-entropy per label), `regression` (real values, MSE / L1 / Huber on standardised targets) and
`link` (is a pair of nodes linked: binary cross-entropy on true and sampled pairs), `tagging` (a tag per step,
span F1, an optional CRF).
"""

from project.tasks.base import Task
from project.tasks.link import LinkPrediction  # part: gcn
from project.tasks.multiclass import IGNORE, Multiclass
from project.tasks.multilabel import Multilabel  # part: multilabel
from project.tasks.regression import Regression  # part: regression
from project.tasks.tagging import Tagging  # part: lstm

__all__ = [
    "IGNORE",
    "LinkPrediction",  # part: gcn
    "Multiclass",
    "Multilabel",  # part: multilabel
    "Regression",  # part: regression
    "Tagging",  # part: lstm
    "Task",
]
