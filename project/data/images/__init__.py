"""Images: generated shapes or your class folders (multilabel: shape sets, or your images with a CSV of label
sets), uint8 tensors in memory, augmentation on whole batches."""

from project.data.images.datamodules import ImageFolderDataModule, ShapesDataModule
from project.data.images.multilabel import ImageLabelsDataModule, ShapeSetsDataModule  # part: multilabel

__all__ = [
    "ImageFolderDataModule",
    "ImageLabelsDataModule",  # part: multilabel
    "ShapeSetsDataModule",  # part: multilabel
    "ShapesDataModule",
]
