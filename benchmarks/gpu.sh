#!/usr/bin/env bash
# The GPU figures in the README, in one run of about 10 minutes: the presets trained for real, cuDNN's
# packed vs padded LSTM, parity with a hand-written loop in bf16 and float32, and what each default
# costs. Every part runs even if one before it fails; each writes its output to RESULTS.
#     bash benchmarks/gpu.sh [RESULTS]          # from the repository root; RESULTS: gpu-results/
#     PYTHON=.venv/bin/python bash benchmarks/gpu.sh
set -u
results=${1:-gpu-results}
mkdir -p "$results"
python=${PYTHON:-python}
export PYTHONUNBUFFERED=1
step() {  # step NAME SECONDS COMMAND...: run, log to RESULTS/NAME.txt, report the exit status
    local name=$1 limit=$2
    shift 2
    echo "== $name: $*"
    local start=$SECONDS
    timeout "$limit" "$@" >"$results/$name.txt" 2>&1
    echo "== $name: exit $? in $((SECONDS - start)) s"
    grep -E '^\||^torch|Error|error:' "$results/$name.txt" | tail -40
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"$python" -c "import torch, lightning, torch_geometric as g; print(torch.__version__, torch.version.cuda, \
torch.backends.cudnn.version(), lightning.__version__, g.__version__)"

# The presets, trained for real: one epoch of each family, and the DDP preset on however many GPUs there are.
for family in cnn lstm gcn; do
    step "fit-bf16-$family" 120 "$python" -m project.fit --model "$family" --config configs/presets/bf16.yaml \
        --trainer.max_epochs 1 --trainer.enable_progress_bar false
done
step fit-gpu-ddp-cnn 120 "$python" -m project.fit --model cnn --config configs/presets/gpu_ddp.yaml \
    --trainer.max_epochs 1 --trainer.enable_progress_bar false

step sequence-modes 120 "$python" -m benchmarks.sequence_modes --device cuda
step sequence-modes-bf16 120 "$python" -m benchmarks.sequence_modes --device cuda --bf16
step sequence-modes-large 120 "$python" -m benchmarks.sequence_modes --device cuda --batch-size 256 --hidden 512
step parity-bf16 300 "$python" -m benchmarks.parity --accelerator gpu --bf16 --reps 4 --epochs 4
step parity-fp32 300 "$python" -m benchmarks.parity --accelerator gpu --reps 4 --epochs 4
# What each default costs on the GPU (parity's (c) over (b)), one part taken out at a time.
step ablation-cnn-bf16 270 "$python" -m benchmarks.ablation --accelerator gpu --bf16 --families cnn --reps 3
step ablation-gcn-bf16 110 "$python" -m benchmarks.ablation --accelerator gpu --bf16 --families gcn --reps 2
