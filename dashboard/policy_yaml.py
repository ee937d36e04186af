"""Policy documents as YAML (the format of DESIGN §5), validated by `PolicyDocument`."""

from __future__ import annotations

from typing import Any

import yaml
from pydantic import ValidationError

from verification.engine.policy import PolicyDocument


class PolicyImportError(ValueError):
    """The YAML does not parse or does not describe a valid policy; `messages` says where."""

    def __init__(self, messages: list[str]):
        super().__init__("; ".join(messages))
        self.messages = messages


def dump_yaml(document: dict[str, Any] | PolicyDocument) -> str:
    if isinstance(document, PolicyDocument):
        document = document.model_dump(mode="json")
    return yaml.safe_dump(document or {}, sort_keys=False, allow_unicode=True, width=100)


def error_messages(exc: ValidationError) -> list[str]:
    """pydantic errors as `path.to.field: message` lines (the API uses the same paths)."""
    out = []
    for err in exc.errors():
        path = ".".join(str(p) for p in err["loc"]) or "(document)"
        out.append(f"{path}: {err['msg']}")
    return out


def load_yaml(text: str) -> PolicyDocument:
    """Parse and validate a YAML policy; raises `PolicyImportError`."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise PolicyImportError([f"not valid YAML{where}: {getattr(exc, 'problem', exc)}"]) from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise PolicyImportError(["the YAML must be a mapping of policy settings"])
    try:
        return PolicyDocument.model_validate(data)
    except ValidationError as exc:
        raise PolicyImportError(error_messages(exc)) from exc
