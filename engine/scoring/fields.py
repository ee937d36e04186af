"""A person from a tool result's field put into another field's role.

`{"triggered_by": "hwong", "commit_author": "dbaptiste"}` against "the run was
triggered by dbaptiste": both names are in the context, only the role is wrong, and a
JSON object has no sentence for the name checks to align with. Here the keys are the
sentence: an answer clause that gives the value of one field, does not name that
field's key, names the key of another field that holds a person or an account (a key
such as `assignee`, `triggered_by`, `account_manager`), and does not give that
field's value is a `role` conflict with the other field's value as evidence.

Values must look like names ("Grace Lee") or user names ("hwong") on both sides, so
that ids, dates, places and titles are never compared.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..text.sentences import clause_spans
from ..text.words import stem
from .findings import Finding

_FIELD = re.compile(r'"(?P<key>[A-Za-z][\w ]{1,40})"\s*:\s*"(?P<value>[^"]{3,80})"')
#: Keys that name a person's role: who was assigned, who triggered, who manages.
_ROLE_KEY = re.compile(
    r"(?:_by|_to|ee|er|or|manager|owner|contact|author|lead|agent|approver)$", re.IGNORECASE
)
_NAME = re.compile(r"(?:[A-Z][\w'’-]+)(?:\s+(?:[A-Z][\w'’-]+|de|van|von|da|del|of))+")
_USER = re.compile(r"[a-z]{3,20}")


def _shape(value: str) -> str | None:
    """ "name" for "Grace Lee", "user" for "hwong", None for anything else."""
    if re.search(r"[\d:_/@.]", value):
        return None
    if _NAME.fullmatch(value):
        return "name"
    if _USER.fullmatch(value):
        return "user"
    return None


def _key_words(key: str) -> set[str]:
    return {stem(w.lower()) for w in re.split(r"[_\s]+", key) if len(w) > 2}


def field_findings(
    context: Sequence[str], answer: str, found: Sequence[Finding] = ()
) -> list[Finding]:
    """A `role` conflict for each person-valued field given in another field's role
    (see the module doc); spans already judged (`found`) are left alone."""
    fields = [
        (i, m.start("value"), m.end("value"), m["key"], m["value"])
        for i, passage in enumerate(context)
        for m in _FIELD.finditer(passage)
        # a user name only in a field that names a role: "failed" under "status" is none
        if _shape(m["value"]) == "name" or (_shape(m["value"]) and _ROLE_KEY.search(m["key"]))
    ]
    if len(fields) < 2:
        return []
    out: list[Finding] = []
    for s, e in clause_spans(answer):
        text = answer[s:e]
        words = {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", text)}
        for _, _, _, key, value in fields:
            said = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE)
            if said is None or _key_words(key) & words:
                continue
            start, end = s + said.start(), s + said.end()
            if any(f.start < end and start < f.end for f in found):
                continue
            for i, vs, ve, other, theirs in fields:
                named = _key_words(other)
                if (
                    other == key
                    or not named
                    or not named <= words
                    or not _ROLE_KEY.search(other)
                    or _shape(theirs) != _shape(value)
                    or theirs.casefold() == value.casefold()
                    or re.search(re.escape(theirs), text, re.IGNORECASE)
                ):
                    continue
                reason = f"wrong field: the context gives {other} as {theirs}, and {value} as {key}"
                out.append(Finding(start, end, "role", "conflict", (i, vs, ve), reason))
                break
    return out
