"""A JSON answer (`response_format` json_object / json_schema): its string values, where
each one sits in the JSON text the client received, and the way back.

The verification job checks the string values as one text, `SEPARATOR`-joined (a
paragraph break: each value its own sentences). The verdict is then turned back into
the client's terms: each span is cut at value boundaries (a span never runs across two
fields) and its offsets index the returned `content` string, escapes included; a
corrected answer is the same JSON with only its checked string values replaced, so it
keeps the keys, types and, for `json_schema`, the schema (else the original stands).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

import jsonschema

SEPARATOR = "\n\n"
_WS = re.compile(r"[ \t\n\r]*")
_SCALAR = json.JSONDecoder()


@dataclass(frozen=True)
class StringValue:
    path: tuple[str | int, ...]
    text: str  # decoded
    offsets: tuple[int, ...]  # index in the JSON text of each decoded char, then the end

    @property
    def pointer(self) -> str:
        """The value's JSON Pointer (RFC 6901), e.g. `/answer/0`."""
        parts = (str(p).replace("~", "~0").replace("/", "~1") for p in self.path)
        return "".join("/" + p for p in parts)


def _char_offsets(raw: str, start: int, end: int) -> tuple[int, ...]:
    """Where each decoded char of the string literal `raw[start:end]` begins."""
    out, i = [], start
    while i < end:
        out.append(i)
        if raw[i] != "\\":
            i += 1
        elif raw[i + 1] != "u":
            i += 2
        elif 0xD800 <= int(raw[i + 2 : i + 6], 16) < 0xDC00 and raw[i + 6 : i + 8] == "\\u":
            i += 12  # a surrogate pair is one character
        else:
            i += 6
    out.append(end)
    return tuple(out)


def _walk(raw: str, i: int, path: tuple, out: list[StringValue]) -> int:
    """Scan the JSON value at `raw[i:]`, collect its string values; the index after it."""
    i = _WS.match(raw, i).end()  # type: ignore[union-attr]
    c = raw[i]
    if c == '"':
        text, end = scanstring(raw, i + 1)
        out.append(StringValue(path, text, _char_offsets(raw, i + 1, end - 1)))
        return end
    if c not in "{[":
        return _SCALAR.raw_decode(raw, i)[1]
    close, index = ("}" if c == "{" else "]"), 0
    i = _WS.match(raw, i + 1).end()  # type: ignore[union-attr]
    if raw[i] == close:
        return i + 1
    while True:
        if c == "{":
            key, i = scanstring(raw, _WS.match(raw, i).end() + 1)  # type: ignore[union-attr]
            i = _WS.match(raw, i).end() + 1  # type: ignore[union-attr]  # past ":"
            i = _walk(raw, i, (*path, key), out)
        else:
            i = _walk(raw, i, (*path, index), out)
            index += 1
        i = _WS.match(raw, i).end()  # type: ignore[union-attr]
        if raw[i] == close:
            return i + 1
        i += 1  # past ","


@dataclass(frozen=True)
class JsonAnswer:
    content: str
    data: Any
    values: tuple[StringValue, ...]  # the non-blank string values, in document order

    @classmethod
    def parse(cls, content: str) -> JsonAnswer | None:
        """None when `content` is not one JSON document."""
        try:
            data = json.loads(content)
            found: list[StringValue] = []
            _walk(content, 0, (), found)
        except (ValueError, IndexError):
            return None
        return cls(content, data, tuple(v for v in found if v.text.strip()))

    @property
    def text(self) -> str:
        """What is verified: the string values, one paragraph each."""
        return SEPARATOR.join(v.text for v in self.values)

    def _starts(self) -> list[int]:
        starts, at = [], 0
        for value in self.values:
            starts.append(at)
            at += len(value.text) + len(SEPARATOR)
        return starts

    def spans_in_content(self, spans: list[dict]) -> list[dict]:
        """`spans` over `text`, cut per value, with offsets into `content`."""
        out = []
        for span in spans:
            for value, start in zip(self.values, self._starts(), strict=True):
                lo = max(span["start"], start) - start
                hi = min(span["end"], start + len(value.text)) - start
                if lo >= hi or not value.text[lo:hi].strip():
                    continue
                a, b = value.offsets[lo], value.offsets[hi]
                out.append(
                    {
                        **span,
                        "start": a,
                        "end": b,
                        "text": self.content[a:b],
                        "field": value.pointer,
                    }
                )
        return out

    def corrected(self, final_text: str, warning: str, schema: dict | None) -> str:
        """The JSON answer with its values replaced by their corrections in `final_text`
        (the job's `final_response` over `text`); the original when they cannot be told
        apart or the result breaks `schema`. Always valid JSON."""
        if warning and final_text.endswith(warning):  # a disclaimer the refiner appended
            final_text = final_text[: -len(warning)].rstrip()
        parts = final_text.strip().split(SEPARATOR)
        if final_text.strip() == self.text.strip() or len(parts) != len(self.values):
            return self.content
        data = json.loads(self.content)
        for value, part in zip(self.values, parts, strict=True):
            _set(data, value.path, part.strip())
        if schema is not None:
            try:
                jsonschema.validate(data, schema)
            except (jsonschema.ValidationError, jsonschema.SchemaError):
                return self.content
        return json.dumps(data, ensure_ascii=False)

    def adapt(self, truthlens: dict, schema: dict | None) -> None:
        """Turn a verdict over `text` into the client's terms, in place."""
        if truthlens.get("spans"):
            truthlens["spans"] = self.spans_in_content(truthlens["spans"])
        if truthlens.get("final_response"):
            truthlens["final_response"] = self.corrected(
                truthlens["final_response"], truthlens.get("warning") or "", schema
            )


def _set(data: Any, path: tuple, value: str) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


def response_schema(params: dict) -> dict | None:
    """The JSON schema a `json_schema` response format asks for, if any."""
    fmt = params.get("response_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema")
        return schema if isinstance(schema, dict) else None
    return None
