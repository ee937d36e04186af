"""Reading the batch file: one verification per JSONL line or CSV row.

Fields: `context` (a string, or a list; in CSV a JSON list or plain text), `query`,
`response`, or `messages`; optional `id`, `knowledge_base`, `metadata` and `label`
(`hallucinated`/`faithful`, or 1/0, true/false) for the accuracy figures.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REQUEST_FIELDS = ("context", "query", "response", "messages", "knowledge_base", "metadata")
POSITIVE = {"hallucinated", "hallucination", "1", "true", "yes", "unfaithful", "positive"}
NEGATIVE = {"faithful", "correct", "supported", "0", "false", "no", "negative"}


class RowError(ValueError):
    """A row that cannot be sent (bad JSON, no response, an unknown label)."""


@dataclass(frozen=True)
class Row:
    key: str  # stable across runs: the row's `id`, or its content's hash
    body: dict[str, Any]
    label: bool | None  # True: the answer is hallucinated

    def idempotency_key(self, run_id: str = "", overrides: dict[str, Any] | None = None) -> str:
        """The same row (with the same run id and options) always sends the same key, so a
        re-sent row is replayed by the server instead of verified and billed again."""
        raw = json.dumps(
            [run_id, self.key, self.body, overrides or {}], sort_keys=True, ensure_ascii=False
        )
        return "cli-" + hashlib.sha256(raw.encode()).hexdigest()[:48]


def parse_label(value: Any) -> bool | None:
    if value is None or value == "":
        return None
    text = str(value).strip().lower()
    if text in POSITIVE:
        return True
    if text in NEGATIVE:
        return False
    raise RowError(f"label {value!r} is neither hallucinated nor faithful")


def _context(value: Any) -> Any:
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        if isinstance(parsed, list):
            return parsed
    return value


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if path.suffix.lower() == ".csv":
        with path.open(newline="", encoding="utf-8") as handle:
            for number, record in enumerate(csv.DictReader(handle), start=2):
                yield number, {k: v for k, v in record.items() if k and v not in (None, "")}
        return
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise RowError(f"line {number}: not JSON ({exc})") from exc
            if not isinstance(record, dict):
                raise RowError(f"line {number}: not a JSON object")
            yield number, record


def read_rows(path: Path) -> list[Row]:
    """Every row of `path` (.jsonl or .csv), checked before anything is sent."""
    rows: list[Row] = []
    seen: Counter[str] = Counter()
    for number, record in _records(path):
        body = {k: record[k] for k in REQUEST_FIELDS if record.get(k) not in (None, "")}
        if "context" in body:
            body["context"] = _context(body["context"])
        if isinstance(body.get("metadata"), str):
            body["metadata"] = json.loads(body["metadata"])
        if not body.get("response") and not body.get("messages"):
            raise RowError(f"{path.name}:{number}: no response (or messages)")
        try:
            label = parse_label(record.get("label"))
        except RowError as exc:
            raise RowError(f"{path.name}:{number}: {exc}") from exc
        if record.get("id") not in (None, ""):
            key = str(record["id"])
        else:
            content = json.dumps(body, sort_keys=True, ensure_ascii=False)
            key = hashlib.sha256(content.encode()).hexdigest()[:16]
        seen[key] += 1
        if seen[key] > 1:  # identical rows are still distinct rows
            key = f"{key}#{seen[key]}"
        rows.append(Row(key, body, label))
    return rows
