"""Labelled rows in and out: upload parsing (JSONL or CSV, checked row by row) and the
JSONL that `python -m engine.train` reads.

Pure Python, no Django: the API, the dashboard and `bench/calibration.py` share it.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field

MAX_ERRORS = 50  # an upload with more stops listing them (the first ones say enough)
LABELS = {
    0: 0, 1: 1, "0": 0, "1": 1,
    "correct": 0, "faithful": 0, "hallucinated": 1,
}  # fmt: skip


@dataclass
class Row:
    context: list[str]
    query: str
    response: str
    label: int  # 1 = hallucinated
    spans: list[dict] = field(default_factory=list)  # [{"start", "end", "text"}]


@dataclass
class RowError:
    row: int  # 1-based line (JSONL) or data row (CSV)
    field: str
    message: str

    def as_dict(self) -> dict:
        return {"row": self.row, "field": self.field, "message": self.message}


class InvalidUpload(ValueError):
    """The upload was refused as a whole; `errors` lists what is wrong, row by row."""

    def __init__(self, errors: list[RowError]):
        super().__init__(f"{len(errors)} invalid row(s); nothing was stored")
        self.errors = errors


def _context(value, errors: list[str]) -> list[str]:
    if isinstance(value, str):
        value = value.strip()
        if value.startswith("["):  # a CSV cell holding a JSON list of passages
            try:
                value = json.loads(value)
            except ValueError:
                errors.append("is neither a passage nor a JSON list of passages")
                return []
        else:
            return [value] if value else []
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        errors.append("must be a string or a list of strings")
        return []
    return [p for p in value if p.strip()]


def _spans(value, response: str, errors: list[str]) -> list[dict]:
    if value in (None, ""):
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            errors.append("must be a JSON list of {start, end}")
            return []
    if not isinstance(value, list):
        errors.append("must be a list of {start, end}")
        return []
    out = []
    for i, span in enumerate(value):
        start = span.get("start") if isinstance(span, dict) else None
        end = span.get("end") if isinstance(span, dict) else None
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end):
            errors.append(f"{i}: needs integer start < end")
            continue
        if end > len(response):
            errors.append(f"{i}: ends at {end}, after the response ({len(response)} characters)")
            continue
        text = response[start:end]
        if "text" in span and span["text"] != text:
            errors.append(f"{i}: text {span['text']!r} is not the response's {text!r}")
            continue
        out.append({"start": start, "end": end, "text": text})
    return sorted(out, key=lambda s: (s["start"], s["end"]))


def check_row(raw, number: int) -> tuple[Row | None, list[RowError]]:
    """One row as `Row`, or the list of what is wrong with it."""
    if not isinstance(raw, dict):
        return None, [RowError(number, "", "must be an object")]
    problems: dict[str, list[str]] = {}

    def get(*names: str):
        return next((raw[n] for n in names if n in raw), None)

    context = _context(get("passages", "context") or [], problems.setdefault("context", []))
    if not context and not problems["context"]:
        problems["context"].append("is required (at least one non-empty passage)")
    response = get("response", "answer")
    if not isinstance(response, str) or not response.strip():
        problems.setdefault("response", []).append("is required (a non-empty string)")
        response = ""
    query = get("query", "question") or ""
    if not isinstance(query, str):
        problems.setdefault("query", []).append("must be a string")
        query = ""
    raw_label = get("label", "outcome")
    if isinstance(raw_label, str):
        raw_label = raw_label.strip().lower()
    label = LABELS.get(raw_label) if isinstance(raw_label, (str, int, bool)) else None
    if label is None:
        problems.setdefault("label", []).append("must be 0/1, true/false or correct/hallucinated")
    spans = _spans(get("spans"), response, problems.setdefault("spans", []))
    # Postgres text cannot hold NUL: say so here rather than fail at the insert
    for name, text in (("context", "".join(context)), ("query", query), ("response", response)):
        if "\x00" in text:
            problems.setdefault(name, []).append("must not contain NUL characters")
    if label == 0 and spans:
        problems["spans"].append("a correct answer has no hallucinated spans")
    errors = [RowError(number, f, m) for f, ms in problems.items() for m in ms]
    if errors:
        return None, errors
    assert label is not None
    return Row(context, query, response, label, spans), []


def _records(raw: bytes, kind: str) -> list[tuple[int, object]]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidUpload([RowError(0, "file", "is not UTF-8 text")]) from exc
    if kind == "csv":
        reader = csv.DictReader(io.StringIO(text))
        missing = {"context", "response", "label"} - set(reader.fieldnames or [])
        if missing:
            message = f"the header lacks {', '.join(sorted(missing))}"
            raise InvalidUpload([RowError(0, "file", message)])
        try:
            return [(n, dict(r)) for n, r in enumerate(reader, start=1)]
        except csv.Error as exc:
            raise InvalidUpload([RowError(reader.line_num, "file", str(exc))]) from exc
    out: list[tuple[int, object]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((n, json.loads(line)))
        except ValueError:
            out.append((n, _NOT_JSON))
    return out


_NOT_JSON = object()


def parse_upload(raw: bytes, kind: str, max_rows: int) -> list[Row]:
    """Every row of a JSONL or CSV upload, or `InvalidUpload` listing each bad row.

    All or nothing: one bad row refuses the file, so no partial dataset is ever stored.
    """
    if kind not in ("jsonl", "csv"):
        raise InvalidUpload([RowError(0, "format", "must be jsonl or csv")])
    records = _records(raw, kind)
    if not records:
        raise InvalidUpload([RowError(0, "file", "holds no rows")])
    if len(records) > max_rows:
        raise InvalidUpload(
            [RowError(0, "file", f"has {len(records)} rows; the plan allows {max_rows}")]
        )
    rows: list[Row] = []
    errors: list[RowError] = []
    for number, record in records:
        if record is _NOT_JSON:
            errors.append(RowError(number, "", "is not valid JSON"))
            continue
        row, row_errors = check_row(record, number)
        errors.extend(row_errors)
        if row is not None:
            rows.append(row)
    if errors:
        raise InvalidUpload(errors[:MAX_ERRORS])
    return rows


def training_record(row: Row, row_id: str) -> dict:
    """One line of the JSONL the trainer reads (`train/datagen.load_sources`: `context` as
    one string, `question`, `answer`, `label`), plus the passages and spans kept as well."""
    return {
        "id": row_id,
        "context": "\n\n".join(row.context),
        "question": row.query,
        "answer": row.response,
        "label": row.label,
        "passages": row.context,
        "spans": row.spans,
    }


def to_jsonl(rows: list[Row], prefix: str) -> str:
    return "".join(
        json.dumps(training_record(r, f"{prefix}-{i}"), ensure_ascii=False) + "\n"
        for i, r in enumerate(rows)
    )
