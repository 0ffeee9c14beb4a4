"""DDP that provably matches one process: 2 processes with batch B end with the weights of one process
with batch 2B on the same data order (the distributed sampler shares out exactly that order, and
gradients are averaged), and what DDP writes, only rank 0 writes, loadable in one process. (Launched by torchrun
instead: runkit's own tests, test_ddp.py.)"""

import pytest
import torch

from tests.conftest import FAMILIES, TASK_MODELS
from tests.processes import PRESETS, fit, last_checkpoint
from tests.real_data import write_named

DDP = f"--config={PRESETS / 'cpu_ddp.yaml'}"
B = 32

# What must be batch-independent for the comparison to be exact: no dropout, no random augmentation
# (each process would draw its own), and for the CNN GroupNorm instead of BatchNorm (torch has no CPU
# SyncBatchNorm; the GPU preset turns sync_batchnorm on). In float64 where the batches allow: see TOLERANCE.
FLOAT64 = "--trainer.precision=64-true"
SETTINGS = {
    "cnn": ["--data.augment=false", "--model.net.norm=group", "--data.num_train=512", FLOAT64],  # part: cnn
    "cnn_multilabel": [
        "--data.augment=false",
        "--model.net.norm=group",
        "--data.num_train=512",
        FLOAT64,
    ],  # part: cnn, multilabel
    "lstm": ["--model.net.dropout=0", FLOAT64],  # part: lstm
    "lstm_sequences": ["--model.net.dropout=0", FLOAT64],  # part: lstm
    "lstm_tagger": [
        "--model.net.dropout=0",
        "--model.net.input_dropout=0",
        "--model.task.init_args.crf=true",
        FLOAT64,
    ],  # part: lstm
    "lstm_forecast": [
        FLOAT64,
        f"--config={PRESETS.parent / 'lstm_forecast_intervals.yaml'}",
        # Many real series in one file (195 countries' fertility; each split and scaled on its own), written
        # into each run's folder first (`write_named`): per-series windows must shard alike.
        "--data.train_path=fertility.csv",
        "--data.series_field=country",
        "--data.missing=interpolate",
        "--data.input_length=auto",
        "--data.val_fraction=0.25",
        "--data.test_fraction=0.25",
    ],  # part: lstm, regression
    "gcn": [],  # part: gcn
    "gcn_regression": [],  # part: gcn, regression
    "gcn_link": [
        # Sampled batches of links (full-batch is one process). SAGE over every neighbour gives each endpoint
        # the embedding it has in any batch; GCN's degree normalisation would see the batch's other nodes.
        "--data.loader=neighbor",
        "--data.num_neighbors=[-1, -1]",
        "--model.net.conv=sage",
        "--data.sbm_nodes=400",
        "--data.sbm_communities=4",
    ],  # part: gcn
    # Molecules: real ones (FreeSolv), their bonds read by gine. With SGD: their atom descriptors leave some
    # first-layer gradients near 0, whose sign the summation order flips, and AdamW's ±lr step on those put a few
    # float32 weights 2e-4 apart (SGD's steps are the gradients' size, so the rounding stays rounding).
    "gcn_regression:molecules": [
        f"--config={PRESETS.parent / 'gcn_molecules.yaml'}",
        "--data.train_path=freesolv.csv",
        "--data.target_fields=[expt]",
        "--model.net.init_args.dropout=0",
        "--model.optimizer=torch.optim.SGD",
        "--model.optimizer.init_args.lr=0.01",
    ],  # part: gcn, regression, molecules
}
CASES = [*FAMILIES, *TASK_MODELS]
CASES.append("gcn_regression:molecules")  # part: gcn, regression, molecules
# The sums run in another order (two half batches, then an average), and in float32 Adam magnifies such
# rounding where gradients are near 0 (its step is about ±lr whatever the gradient's size): the CNN's
# weights ended up to 4e-4 apart with AdamW, and with SGD 1.3e-4 on one CPU of this workplace, 2.3e-4 on
# another (the conv kernels sum in another order). In float64 (Lightning's 64-true: the module and the
# batch's tensors) the rounding is 1e-16 and every weight agrees within 1e-13 (the CNN's two models 1.2e-14
# and 7.9e-14, the LSTM's 6.3e-15 and 2.8e-16), with the default AdamW. Lightning does not convert a PyG
# batch, so the GCN models stay in float32, where they agree within 5e-8 (the molecules through gine with SGD too).
TOLERANCE = {"rtol": 1e-3, "atol": 1e-4}
TOLERANCE_FLOAT64 = {"rtol": 1e-9, "atol": 1e-11}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_two_processes_with_batch_b_equal_one_process_with_batch_2b(tmp_path, case):
    family, args = case.split(":")[0], [*SETTINGS[case], "--trainer.max_epochs=2"]
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    write_named(one, args), write_named(two, args)
    fit(family, one, *args, f"--data.batch_size={2 * B}")
    fit(family, two, *args, f"--data.batch_size={B}", DDP)

    single, ddp = last_checkpoint(one, family), last_checkpoint(two, family)
    assert ddp["global_step"] == single["global_step"] > 0
    assert ddp["state_dict"].keys() == single["state_dict"].keys()  # no "module." prefixes
    worst = max(
        (ddp["state_dict"][k].double() - single["state_dict"][k].double()).abs().max().item()
        for k in single["state_dict"]
    )  # the text model's `bag.fitted` is a bool
    tolerance = TOLERANCE_FLOAT64 if FLOAT64 in SETTINGS[case] else TOLERANCE
    for name, expected in single["state_dict"].items():
        torch.testing.assert_close(ddp["state_dict"][name], expected, **tolerance, msg=lambda m, n=name: f"{n}: {m}")
    print(f"{family}: largest weight difference DDP vs one process {worst:.1e}")

    run = two / "logs" / family
    assert [p.name for p in run.iterdir()] == ["version_0"]  # rank 1 made no run folder of its own
    logged = sorted(p.name for p in (run / "version_0").iterdir())
    assert logged.count("train.log") == 1 and len(list((run / "version_0").glob("events.out.tfevents*"))) == 1
