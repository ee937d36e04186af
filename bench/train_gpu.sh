#!/usr/bin/env bash
# The detector's staged training at scale, on one GPU (issue 20, item 9).
#
# Prepared here, on the CPU (encodes every stage's examples and trims the base encoder to the
# token ids they use, so that the GPU machine needs neither the raw data nor the wheel):
#   python -m engine.train --prepare .gpu/prep --scale 4 --token-max-length 512
# Run there:
#   PREP=.gpu/prep OUT=<folder> bash bench/train_gpu.sh
# It writes OUT/model (weights in two halves, manifest) and OUT/train.log. Back here, join the
# halves (python -m engine.train.packed join <folder>), recompute the
# reference predictions with the wheel's full embeddings and refit the response head:
#   python -m engine.train.reference bench/models/embedded_v2
#   python -m engine.train.head --model-dir bench/models/embedded_v2 ...
set -euo pipefail
PREP=${PREP:-.gpu/prep}
SCALE=${SCALE:-4}
EPOCHS=${EPOCHS:-3}
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/gpu.txt"
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)" | tee -a "$OUT/gpu.txt"
python3 -m engine.train --device cuda --threads 8 --prepared "$PREP" \
  --scale "$SCALE" --epochs "$EPOCHS" --token-max-length 512 \
  --out "$OUT/model" --work /tmp/train-work 2>&1 | tee "$OUT/train.log"
# no file over 16 MiB comes back: halves, joined here by
#   python -m engine.train.packed join <folder>
python3 -m engine.train.packed split "$OUT/model"
