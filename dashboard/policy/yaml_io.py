"""Policy documents as YAML (the format "Export YAML" writes), validated for publishing."""

from __future__ import annotations

import difflib
from typing import Any

import yaml

from engine import Available, PolicyDocument, Problem, check_policy

from .labels import human_loc


class PolicyImportError(ValueError):
    """The YAML does not parse or does not describe a valid policy; `messages` says where."""

    def __init__(self, messages: list[str]):
        super().__init__("; ".join(messages))
        self.messages = messages


def dump_yaml(document: dict[str, Any] | PolicyDocument) -> str:
    if isinstance(document, PolicyDocument):
        document = document.model_dump(mode="json")
    return yaml.safe_dump(document or {}, sort_keys=False, allow_unicode=True, width=100)


def problem_messages(problems: list[Problem]) -> list[str]:
    """`path.in.yaml (Human name): message` lines: the path to find it in the file, the
    name to find it in the editor."""
    out = []
    for p in problems:
        path = ".".join(str(part) for part in p.loc) or "(document)"
        out.append(f"{path} ({human_loc(p.loc)}): {p.message}")
    return out


def load_yaml(text: str, available: Available | None = None) -> PolicyDocument:
    """Parse and validate a YAML policy for publishing; raises `PolicyImportError`."""
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
    document, problems = check_policy(data, available)
    if document is None:
        raise PolicyImportError(problem_messages(problems))
    return document


def yaml_diff(before: PolicyDocument, after: PolicyDocument, before_name: str, after_name: str):
    """Unified diff of two policies as YAML, `---`/`+++` lines naming the two sides."""
    return list(
        difflib.unified_diff(
            dump_yaml(before).splitlines(),
            dump_yaml(after).splitlines(),
            fromfile=before_name,
            tofile=after_name,
            lineterm="",
            n=2,
        )
    )
