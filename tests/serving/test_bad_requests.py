"""Bad requests to the real server are answered 4xx with the field named, never 500, and the server goes on serving:
the next good request gets the answer it got before, and a bad request batched with good ones refuses only itself.
The checkpoint is read as data only: a crafted one is refused before the server starts, and runs nothing."""

import base64
import io
import json

import httpx
import pytest
import torch
from PIL import Image
from runkit import extras
from runkit.serving.launch import served
from runkit.testing.serving import ask_together

from project.serve import main
from tests.conftest import SMALL
from tests.serving.server import trained


def encoded(image: torch.Tensor, format: str = "PNG") -> str:
    buffer = io.BytesIO()
    Image.fromarray(image.permute(1, 2, 0).numpy()).save(buffer, format=format)
    return base64.b64encode(buffer.getvalue()).decode()


@pytest.mark.slow
def test_bad_requests_get_4xx_naming_the_field_and_the_server_goes_on():
    cli, checkpoint = trained("cnn", *SMALL["cnn"], "--data.num_test=4")
    cli.datamodule.setup("test")
    image = cli.datamodule.test_set[0][0]
    good = {"image": encoded(image)}
    bad: list[tuple[bytes | dict, int, str]] = [
        (b'{"image": ', 422, "JSON decode error"),  # malformed JSON
        (b"[1, 2]", 422, "valid dictionary"),  # JSON, but not an object
        ({}, 400, "give either 'image' (one input) or 'images'"),  # the field missing
        ({"imagez": good["image"]}, 400, "imagez: not a field of this model's requests; it reads image, images"),
        ({"images": []}, 400, "images: a non-empty list"),
        ({"images": [good["image"], 7]}, 400, "images[1]: a base64-encoded PNG or JPEG file, got int"),
        ({"image": "not base64!"}, 400, "image: not base64"),
        ({"image": base64.b64encode(b"plain text").decode()}, 400, "image: not a readable PNG or JPEG image"),
        ({"image": encoded(image, "GIF")}, 400, "image: a GIF image: send PNG or JPEG"),
        ({"image": "A" * (2 * 2**20)}, 413, "Payload too large"),  # over --max_payload_mb 1
    ]
    with served(checkpoint, "--max_batch_size=4", "--batch_timeout=0.05", "--max_payload_mb=1") as url:
        first = httpx.post(f"{url}/predict", json=good, timeout=60)
        assert first.status_code == 200 and first.json()["predictions"][0]["label"] in cli.datamodule.class_names
        for body, status, message in bad:
            content = body if isinstance(body, bytes) else json.dumps(body).encode()
            answer = httpx.post(f"{url}/predict", content=content, headers={"content-type": "application/json"})
            assert answer.status_code == status and message in str(answer.json()["detail"]), (body, answer.text)
            assert httpx.post(f"{url}/predict", json=good, timeout=60).json() == first.json()  # still serving
        # A bad request in a batch of good ones: LitServe predicts them together; only the bad one is refused.
        for _ in range(3):
            answers = ask_together(url, [good, {"image": "not base64!"}, good, good])
            assert [a.status_code for a in answers] == [200, 400, 200, 200]
            assert all(a.json() == first.json() for a in answers if a.status_code == 200)


def test_without_the_serve_extra_the_pip_command_is_named(monkeypatch, tmp_path):
    real = extras.importlib.util.find_spec
    monkeypatch.setattr(extras.importlib.util, "find_spec", lambda n: None if n == "litserve" else real(n))
    with pytest.raises(extras.MissingExtra, match=r"'serve' extra.*pip install litserve httpx"):
        main([str(tmp_path / "any.ckpt")])


def test_a_missing_onnx_file_names_the_export_command(tmp_path):
    from runkit import ConfigError

    checkpoint = tmp_path / "model.ckpt"
    torch.save({"state_dict": {}}, checkpoint)
    with pytest.raises(ConfigError, match=r"model\.onnx: no such file.*python -m project\.export .*--format onnx"):
        main([str(checkpoint), "--onnx"])
