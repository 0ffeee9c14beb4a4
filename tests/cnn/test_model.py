"""What only the CNN family has: image folders through the config, a compiled network."""

import pytest
import torch

from project.cli import build
from project.models.image import ImageModel
from tests.conftest import TINY


def test_an_image_folder_trains_through_the_config(tmp_path):
    from tests.cnn.test_data import write_image_folder

    write_image_folder(tmp_path / "pets")  # two classes
    cli = build(
        "cnn",
        *TINY,
        "--data=project.data.images.ImageFolderDataModule",
        f"--data.root={tmp_path / 'pets'}",
        "--data.image_size=24",
        "--data.batch_size=4",
        "--trainer.max_steps=2",
    )
    assert cli.model.net.head[-1].out_features == 2  # linked from the folder's class count
    cli.trainer.fit(cli.model, cli.datamodule)
    assert cli.trainer.global_step == 2


@pytest.mark.slow
def test_compiled_network_keeps_its_checkpoint_keys_and_outputs():
    from project.nets.cnn import SimpleCNN

    torch.manual_seed(0)
    eager = ImageModel(SimpleCNN(4), num_outputs=4).eval()
    compiled = ImageModel(SimpleCNN(4), num_outputs=4, compile_net=True).eval()
    compiled.load_state_dict(eager.state_dict())  # same keys: no `_orig_mod.` prefix
    images = torch.randn(8, 3, 32, 32)
    with torch.no_grad():
        torch.testing.assert_close(compiled(images), eager(images), atol=1e-5, rtol=1e-5)


def test_each_validation_reads_batchnorm_statistics_of_the_current_weights():
    from runkit.batchnorm import recompute_statistics, trained_batchnorms

    def build_cnn(*args: str):
        return build("cnn", *TINY, "--data.num_train=512", "--data.num_val=256", "--trainer.max_epochs=2", *args)

    cli = build_cnn("--trainer.callbacks.images=200", "--early_stopping.stopping_threshold=null")
    cli.trainer.fit(cli.model, cli.datamodule)
    net = cli.model.net
    kept = {name: t.clone() for name, t in net.state_dict().items() if "running" in name}
    assert kept

    # The same statistics recomputed by hand after the fit: the last validation saw these, not running averages.
    images = [x for x, _ in cli.datamodule.statistics_batches(200)]
    assert sum(len(x) for x in images) == 200
    recompute_statistics(trained_batchnorms(net), net, images)
    for name, value in net.state_dict().items():
        if "running" in name:
            torch.testing.assert_close(value, kept[name], atol=1e-5, rtol=1e-5)

    # and they differ from PyTorch's running averages, which a fit without the recomputation keeps
    plain = build_cnn("--trainer.callbacks.images=0", "--early_stopping.stopping_threshold=null")
    plain.trainer.fit(plain.model, plain.datamodule)
    averaged = {name: t.clone() for name, t in plain.model.net.state_dict().items()}
    recompute_statistics(trained_batchnorms(plain.model.net), plain.model.net, images)
    assert any(
        not torch.allclose(averaged[n], t, atol=1e-3)
        for n, t in plain.model.net.state_dict().items()
        if "running_var" in n
    )
