"""Images: generated shapes or your class folders, uint8 tensors in memory, augmentation on whole batches."""

from project.data.images.datamodules import ImageFolderDataModule, ShapesDataModule

__all__ = ["ImageFolderDataModule", "ShapesDataModule"]
