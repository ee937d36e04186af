"""Reference predictions: fixed inputs scored by the freshly saved model.

They are computed by loading the saved files exactly as production does
(`EmbeddedDetector(model_dir)`), not from the in-memory training model, so
a test can prove that a fresh checkout reproduces the training machine's
output (float16 storage rounding included).

    python -m engine.train.reference [MODEL_DIR]   # rewrite the file
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..detectors.embedded import DEFAULT_MODEL_DIR, EmbeddedDetector
from ..types import DetectionInput

REFERENCE_FILE = "reference_predictions.json"

_EIFFEL = (
    "The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was built from "
    "1887 to 1889 as the entrance arch to the 1889 World's Fair. It is 330 metres tall."
)
REFERENCE_INPUTS = [
    DetectionInput.build(
        [_EIFFEL], "The Eiffel Tower was built from 1887 to 1889.", "When was it built?"
    ),
    DetectionInput.build(
        [_EIFFEL], "The Eiffel Tower was built in 1950 in Berlin.", "When was it built?"
    ),
    DetectionInput.build(
        ["Marie Curie won the Nobel Prize in Physics in 1903.", "She was born in Warsaw."],
        "Marie Curie was born in Warsaw and won the Nobel Prize in Chemistry in 1903.",
        "Tell me about Marie Curie.",
    ),
    DetectionInput.build(
        "The company reported revenue of $4.2 billion, up 12 percent from last year.",
        "Revenue rose 12 percent to $4.2 billion. The CEO resigned after the report.",
        None,
    ),
    DetectionInput.build(
        [], "Water boils at 100 degrees Celsius at sea level.", "At what temperature?"
    ),
]


def compute(detector: EmbeddedDetector) -> list[dict[str, Any]]:
    out = []
    for item, pred in zip(REFERENCE_INPUTS, detector.predict(REFERENCE_INPUTS), strict=True):
        out.append(
            {
                "context": list(item.context),
                "query": item.query,
                "response": item.response,
                "tokens": [[t.start, t.end, round(t.prob, 6)] for t in pred.tokens],
                "pair_prob": None if pred.pair_prob is None else round(pred.pair_prob, 6),
            }
        )
    return out


def write_reference_predictions(model_dir: Path) -> Path:
    detector = EmbeddedDetector(model_dir, device="cpu")
    path = model_dir / REFERENCE_FILE
    path.write_text(json.dumps({"inputs": compute(detector)}, indent=1) + "\n")
    return path


if __name__ == "__main__":
    print(
        write_reference_predictions(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_MODEL_DIR)
    )
