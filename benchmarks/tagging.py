"""The tagger's plain head beside its CRF on the generated entity sentences, at a few sizes and seeds: test span F1
and the share of test sentences whose predicted tags break BIO's rule (an I- that continues no span).

    .venv/bin/python -m benchmarks.tagging                     # sizes 600 and 3000, seeds 0 and 1
    .venv/bin/python -m benchmarks.tagging --sizes 600 --seeds 0

Each fit is `python -m project.fit --model lstm_tagger` in-process with only the size, the seed and the CRF switch
changed; the numbers are the best checkpoint's on the test split.
"""

import argparse
import os
import sys
import tempfile
import time

import torch


def one(size: int, seed: int, crf: bool) -> dict[str, float]:
    from runkit.tasks.spans import forbidden_steps

    from project.cli import build

    args = [f"--data.synthetic_samples={size}", f"--seed_everything={seed}", f"--data.seed={seed}"]
    cli = build("lstm_tagger", "--trainer.enable_progress_bar=false", f"--model.task.init_args.crf={str(crf).lower()}",
                *args)  # fmt: skip
    start = time.perf_counter()
    cli.trainer.fit(cli.model, cli.datamodule)
    wall = time.perf_counter() - start
    tested = cli.trainer.test(cli.model, cli.datamodule, ckpt_path="best", verbose=False)[0]
    model, names, broken, sentences = cli.model.eval(), cli.datamodule.class_names, 0, 0
    with torch.no_grad():
        for tokens, lengths, _ in cli.datamodule.test_dataloader():
            tags = model.task.decode(model(tokens, lengths), lengths)
            for row, length in zip(tags.tolist(), lengths.tolist(), strict=True):
                broken += bool(forbidden_steps([names[t] for t in row[:length]]))
                sentences += 1
    return {"f1": tested["test/f1"], "acc": tested["test/acc"], "broken": broken / sentences, "wall": wall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[600, 3000])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    args = parser.parse_args()
    lines = [
        "| sentences | seed | plain: span F1 | CRF: span F1 | plain: token acc | CRF: token acc | "
        "plain: sentences breaking BIO | CRF: breaking BIO | plain s | CRF s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        for size in args.sizes:
            for seed in args.seeds:
                plain, crf = one(size, seed, False), one(size, seed, True)
                lines.append(
                    f"| {size} | {seed} | {plain['f1']:.4f} | {crf['f1']:.4f} | {plain['acc']:.4f} | {crf['acc']:.4f} "
                    f"| {plain['broken']:.3f} | {crf['broken']:.3f} | {plain['wall']:.0f} | {crf['wall']:.0f} |"
                )
                print(lines[-1], file=sys.stderr, flush=True)
    print("\n".join(lines))
    print(f"\n{os.cpu_count()} CPUs, python {sys.version.split()[0]}, torch {torch.__version__}")


if __name__ == "__main__":
    main()
