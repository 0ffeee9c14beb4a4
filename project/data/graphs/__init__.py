"""Graphs (imports PyG): graph-level sets batched block-diagonally, one graph's nodes or links full-batch or sampled."""

from project.data.graphs.graph_level import (
    GraphClassificationDataModule,
    GraphRegressionDataModule,  # part: regression
)
from project.data.graphs.link_level import LinkPredictionDataModule
from project.data.graphs.node_level import (
    NodeClassificationDataModule,
    NodeRegressionDataModule,  # part: regression
)

__all__ = [
    "GraphClassificationDataModule",
    "GraphRegressionDataModule",  # part: regression
    "LinkPredictionDataModule",
    "NodeClassificationDataModule",
    "NodeRegressionDataModule",  # part: regression
]
