"""Images in requests: base64-encoded PNG or JPEG files, decoded and sized as the image folders' are read."""

import base64
import binascii
import io
from typing import Any, ClassVar

import numpy as np
import torch
from PIL import Image, ImageOps, UnidentifiedImageError
from runkit import BadRequest, Reader, known_fields, one_or_many


class ImageReader(Reader):
    """`{"image": "<base64>"}` or `{"images": ["<base64>", ...]}`: each a PNG or JPEG file's bytes in base64.

    Each is cropped to a centred square and resized to the data's `image_size` (`ImageFolderDataset`'s reading),
    then normalised by the evaluation collate, as `predict` treats the test images.
    """

    fields: ClassVar[tuple[str, ...]] = ("image", "images")

    def samples(self, request: dict[str, Any]) -> list[Any]:
        request = known_fields(request, self.fields)
        return [(self.decode(value, field), 0) for field, value in one_or_many(request, "image", "images")]

    def decode(self, value: Any, field: str) -> torch.Tensor:
        """uint8 `[3, S, S]`, as the image DataModules' samples are."""
        if not isinstance(value, str):
            raise BadRequest(field, f"a base64-encoded PNG or JPEG file, got {type(value).__name__}")
        try:
            data = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as err:
            raise BadRequest(field, f"not base64 ({err}): encode the file's bytes, e.g. `base64 -w0 cat.png`") from None
        size = self.datamodule.image_size
        try:
            with Image.open(io.BytesIO(data)) as img:
                if img.format not in ("PNG", "JPEG"):
                    raise BadRequest(field, f"a {img.format} image: send PNG or JPEG")
                img = ImageOps.fit(img.convert("RGB"), (size, size))
                return torch.from_numpy(np.array(img)).permute(2, 0, 1).contiguous()
        except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as err:
            raise BadRequest(field, f"not a readable PNG or JPEG image ({err})") from None
