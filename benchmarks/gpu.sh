#!/usr/bin/env bash
# The GPU figures in the README: the presets trained for real (about 1.5 min), cuDNN's packed vs padded
# LSTM (1 min), parity with a hand-written loop in bf16 and float32 (4 min), and what each default costs
# (8 min). Every part runs even if one before it fails; each writes its output to RESULTS.
#     bash benchmarks/gpu.sh [RESULTS]                          # from the repository root; gpu-results/
#     PARTS="presets sequences parity" bash benchmarks/gpu.sh   # some of: presets sequences parity ablation
#     PYTHON=.venv/bin/python bash benchmarks/gpu.sh
set -u
results=${1:-gpu-results}
mkdir -p "$results"
python=${PYTHON:-python}
parts=" ${PARTS:-presets sequences parity ablation} "
export PYTHONUNBUFFERED=1

wants() { [[ $parts == *" $1 "* ]]; }
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
"$python" -c "import torch, lightning; print(torch.__version__, torch.version.cuda, torch.backends.cudnn.version(), \
lightning.__version__)"
families=$("$python" -c "from project.cli.registry import MODELS; print(*MODELS)")  # this project's families

if wants presets; then  # one epoch of each family in bf16, and the DDP preset on however many GPUs there are
    for family in $families; do
        step "fit-bf16-$family" 120 "$python" -m project.fit --model "$family" \
            --config configs/presets/bf16.yaml --trainer.max_epochs 1 --trainer.enable_progress_bar false
    done
    step fit-gpu-ddp 120 "$python" -m project.fit --model "${families%% *}" \
        --config configs/presets/gpu_ddp.yaml --trainer.max_epochs 1 --trainer.enable_progress_bar false
fi
if wants sequences && [[ -f benchmarks/sequence_modes.py ]]; then
    step sequence-modes 120 "$python" -m benchmarks.sequence_modes --device cuda
    step sequence-modes-bf16 120 "$python" -m benchmarks.sequence_modes --device cuda --bf16
    step sequence-modes-large 120 "$python" -m benchmarks.sequence_modes --device cuda --batch-size 256 --hidden 512
fi
if wants parity; then
    step parity-bf16 300 "$python" -m benchmarks.parity --accelerator gpu --bf16 --reps 4 --epochs 4
    step parity-fp32 300 "$python" -m benchmarks.parity --accelerator gpu --reps 4 --epochs 4
fi
if wants ablation; then  # parity's (c) over (b) on the GPU, one part of the defaults taken out at a time
    for family in $families; do
        step "ablation-$family" 270 "$python" -m benchmarks.ablation --accelerator gpu --bf16 --families "$family" \
            --reps 3
    done
fi
