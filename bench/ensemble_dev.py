"""MiniLM vs lexical vs their mean, on the generated DEV split of the TRAINING data.

    python bench/ensemble_dev.py [--limit 400]

This is how the default detector's combination was chosen: only data the data
README marks for training (begin/dev, faithdial_audit), re-split by source id
exactly as the training command does, never an evaluation set.
"""

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sklearn.metrics import roc_auc_score

from engine import DetectionInput, combine, generate, load_detector

parser = argparse.ArgumentParser()
parser.add_argument("--limit", type=int, default=400)
parser.add_argument("--data-dir", default=os.environ.get("TRUTHLENS_DATA_DIR", "../shared/data"))
args = parser.parse_args()
_, dev = generate(Path(args.data_dir), seed=13, dev_percent=10)
dev = dev[: args.limit]
items = [DetectionInput.build(e.passages, e.answer, e.question) for e in dev]
labels = [e.label for e in dev]
minilm, lexical = load_detector("minilm"), load_detector("lexical")


def span_max(predictions) -> list[float]:
    return [max((t.prob for t in p.tokens), default=0.0) for p in predictions]


started = time.time()
learned = minilm.predict(items)
print(
    f"dev examples: {len(labels)} ({sum(labels)} hallucinated); minilm {time.time() - started:.1f} s"
)
grounded = lexical.predict(items)
print(f"minilm alone   AUROC {roc_auc_score(labels, span_max(learned)):.3f}")
print(f"lexical alone  AUROC {roc_auc_score(labels, span_max(grounded)):.3f}")
for weight in (0.3, 0.5, 0.7):
    combined = [combine(a, b, weight) for a, b in zip(learned, grounded, strict=True)]
    print(f"mean, model weight {weight:.1f}  AUROC {roc_auc_score(labels, span_max(combined)):.3f}")
