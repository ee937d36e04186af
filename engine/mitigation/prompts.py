"""Prompts for refinement, cross-model answers, the judge and the cascade, and reply parsing.

Prompts are plain functions returning chat messages so they can be read,
tested and versioned like code. Model replies are treated as untrusted text:
parsers never raise on a bad reply, they return None and the caller falls back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..types import Span
from .llm_types import Message

MAX_CONTEXT_CHARS = 12_000

JudgeAction = Literal["keep", "replace", "remove"]


def format_context(context: Sequence[str], max_chars: int = MAX_CONTEXT_CHARS) -> str:
    """Numbered passages, cut at `max_chars` so one huge context cannot blow the budget."""
    parts, used = [], 0
    for i, passage in enumerate(context, 1):
        room = max_chars - used
        if room <= 0:
            parts.append("[... further passages omitted ...]")
            break
        text = passage if len(passage) <= room else passage[:room] + " [...]"
        parts.append(f"[{i}] {text}")
        used += len(text)
    return "\n\n".join(parts) if parts else "(no context given)"


def _span_line(i: int, span: Span) -> str:
    line = f'{i}. "{span.text}" - {span.label}, confidence {span.confidence:.2f}'
    if span.evidence is not None and span.evidence.text:
        line += f'; the context says: "{span.evidence.text}"'
    return line


def refinement_messages(
    context: Sequence[str], query: str | None, answer: str, spans: Sequence[Span]
) -> list[Message]:
    """Ask the model to fix exactly the flagged spans and leave grounded text alone."""
    flagged = "\n".join(_span_line(i, s) for i, s in enumerate(spans, 1)) or "(none)"
    system = (
        "You revise answers so that every statement is supported by the given context. "
        "You never add facts that are not in the context."
    )
    user = (
        f"Context:\n{format_context(context)}\n\n"
        f"Question:\n{query or '(not given)'}\n\n"
        f"Answer to revise:\n{answer}\n\n"
        "A hallucination detector flagged these parts of the answer "
        "(label and confidence that the part is not grounded):\n"
        f"{flagged}\n\n"
        "Revise the answer:\n"
        "- Correct each 'contradiction' using what the context says.\n"
        "- Remove each 'unsupported' claim, or qualify it as not confirmed by the context.\n"
        "- Keep every grounded part of the answer unchanged, wording included.\n"
        "Return only the revised answer, with no preamble or explanation."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def answer_messages(context: Sequence[str], query: str | None) -> list[Message]:
    """The cross-model prompt: answer the same question from the same context."""
    system = (
        "Answer the question using only the context. If the context does not contain the "
        "answer, say so. Be concise and state facts as plain sentences."
    )
    user = f"Context:\n{format_context(context)}\n\nQuestion:\n{query or '(not given)'}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


@dataclass
class DisputedClaim:
    """A claim of the primary answer the judge must rule on, with the evidence gathered."""

    id: int
    text: str
    detector: str = ""  # e.g. 'contradiction 0.91: "1950" (context: "built 1887-1889")'
    alternatives: tuple[str, ...] = ()  # what the other models said on the same point


def judge_messages(
    context: Sequence[str], query: str | None, claims: Sequence[DisputedClaim]
) -> list[Message]:
    """Ask the judge to keep, replace or remove each disputed claim, in JSON."""
    blocks = []
    for c in claims:
        lines = [f'Claim {c.id}: "{c.text}"']
        if c.detector:
            lines.append(f"  Detector: {c.detector}")
        for alt in c.alternatives:
            lines.append(f'  Another model says: "{alt}"')
        blocks.append("\n".join(lines))
    system = (
        "You are a strict fact-checking judge. The context is the only source of truth. "
        "Reply with JSON only."
    )
    user = (
        f"Context:\n{format_context(context)}\n\n"
        f"Question:\n{query or '(not given)'}\n\n"
        "Disputed claims from an answer:\n" + "\n\n".join(blocks) + "\n\n"
        "For each claim decide:\n"
        '- "keep" if the context supports it as written;\n'
        '- "replace" if the context supports a corrected version: give it in "replacement" '
        "as one complete sentence;\n"
        '- "remove" if the context does not support it.\n'
        'Reply exactly as: {"claims": [{"id": 1, "action": "keep|replace|remove", '
        '"replacement": "...", "reason": "..."}]}'
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def cascade_messages(
    context: Sequence[str], answer: str, spans: Sequence[tuple[int, Span]]
) -> list[Message]:
    """Ask a judge whether each uncertain span is grounded in the context, in JSON."""
    listed = "\n".join(f'{i}. "{s.text}"' for i, s in spans)
    system = "You check answers against a context. Reply with JSON only."
    user = (
        f"Context:\n{format_context(context)}\n\nAnswer:\n{answer}\n\n"
        f"Parts of the answer to check:\n{listed}\n\n"
        "For each part say whether the context supports it.\n"
        'Reply exactly as: {"spans": [{"id": 1, "verdict": "supported|hallucinated"}]}'
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


# -- reply parsing -------------------------------------------------------------------------

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_PREAMBLE = re.compile(
    r"^\s*(?:here is|here's)?\s*(?:the\s+)?(?:revised|corrected|final)\s+answer\s*[:\-]\s*",
    re.I,
)


def parse_json_reply(text: str) -> Any | None:
    """The first JSON object in a model reply (fenced, with prose around it, trailing commas)."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for cand in candidates:
        for attempt in (cand, _TRAILING_COMMA.sub(r"\1", cand)):
            for m in re.finditer(r"[{\[]", attempt):
                try:
                    value, _ = decoder.raw_decode(attempt, m.start())
                except ValueError:
                    continue
                if isinstance(value, dict | list):
                    return value
    return None


@dataclass
class JudgeVerdict:
    action: JudgeAction
    replacement: str = ""
    reason: str = ""


def _id_entries(text: str, *keys: str) -> list[tuple[int, dict[str, Any]]] | None:
    """(id, entry) for each object with an integer "id" in the reply's list: the reply
    itself, or its first of `keys` present; None when there is no such list."""
    data = parse_json_reply(text)
    if isinstance(data, dict):
        data = next((data[k] for k in keys if k in data), None)
    if not isinstance(data, list):
        return None
    out = []
    for entry in data:
        if not isinstance(entry, dict):
            continue
        try:
            out.append((int(entry.get("id")), entry))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
    return out


def parse_judge_reply(text: str, ids: Sequence[int]) -> dict[int, JudgeVerdict] | None:
    """Verdicts by claim id; None when the reply is unusable. Unknown ids are ignored.

    A "replace" without a replacement text is unusable for that claim and dropped,
    so the caller treats the claim as unresolved rather than deleting it silently.
    """
    entries = _id_entries(text, "claims", "decisions")
    if entries is None:
        return None
    wanted = set(ids)
    verdicts: dict[int, JudgeVerdict] = {}
    for cid, entry in entries:
        action = str(entry.get("action", "")).strip().lower()
        replacement = str(entry.get("replacement") or "").strip()
        if cid not in wanted or action not in ("keep", "replace", "remove"):
            continue
        if action == "replace" and not replacement:
            continue
        verdicts[cid] = JudgeVerdict(action, replacement, str(entry.get("reason") or ""))  # type: ignore[arg-type]
    return verdicts


def parse_cascade_reply(text: str, ids: Sequence[int]) -> dict[int, bool] | None:
    """id -> True when the judge says hallucinated; None when the reply is unusable."""
    entries = _id_entries(text, "spans")
    if entries is None:
        return None
    out: dict[int, bool] = {}
    for sid, entry in entries:
        verdict = str(entry.get("verdict", "")).strip().lower()
        if sid in ids and verdict in ("supported", "hallucinated"):
            out[sid] = verdict == "hallucinated"
    return out


def clean_answer(text: str) -> str:
    """Strip what models wrap around a revised answer: fences, preambles, quotes."""
    out = text.strip()
    fence = _FENCE.fullmatch(out)
    if fence:
        out = fence.group(1).strip()
    out = _PREAMBLE.sub("", out, count=1).strip()
    if len(out) >= 2 and out[0] == out[-1] and out[0] in "\"'":
        out = out[1:-1].strip()
    return out
