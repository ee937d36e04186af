"""Write labelled rows for `truthlens verify` from HaluEval QA: for each of the first N/2
questions, its right answer (faithful) and its hallucinated answer.

    python bench/cli_rows.py --rows 1000 --out build/cli_rows.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

DATA = Path(
    os.environ.get("TRUTHLENS_DATA_DIR", Path(__file__).resolve().parents[2] / "shared/data")
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=Path("build/cli_rows.jsonl"))
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with (DATA / "halueval/qa.jsonl").open() as source, args.out.open("w") as out:
        for number, line in enumerate(source):
            if written >= args.rows:
                break
            item = json.loads(line)
            for label, answer in (
                ("faithful", "right_answer"),
                ("hallucinated", "hallucinated_answer"),
            ):
                row = {
                    "id": f"halueval-qa-{number}-{label}",
                    "context": item["knowledge"],
                    "query": item["question"],
                    "response": item[answer],
                    "label": label,
                }
                out.write(json.dumps(row) + "\n")
                written += 1
    print(f"{written} rows -> {args.out}")


if __name__ == "__main__":
    main()
