"""The engine's public module (docs/architecture.md "The engine"): one import surface, cheap to load.

Import-linter checks the Django apps and workers; the benches are scripts, not a package, so
this test reads their imports itself.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parents[2]


def _engine_submodule_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").startswith("engine.")
        ):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} from {node.module}")
        if isinstance(node, ast.Import):
            found += [
                f"{path.relative_to(ROOT)}:{node.lineno} import {a.name}"
                for a in node.names
                if a.name.startswith("engine.")
            ]
    return found


def test_benches_and_deploy_scripts_import_only_the_public_module():
    scripts = sorted((ROOT / "bench").rglob("*.py")) + sorted((ROOT / "deploy").rglob("*.py"))
    assert len(scripts) > 20
    offenders = [hit for path in scripts for hit in _engine_submodule_imports(path)]
    assert offenders == []


def test_every_public_name_resolves():
    missing = [name for name in engine.__all__ if getattr(engine, name, None) is None]
    assert missing == []
    assert len(set(engine.__all__)) == len(engine.__all__)


def test_importing_the_engine_loads_neither_torch_nor_litellm():
    code = (
        "import sys, engine; engine.DetectionInput; engine.PolicyDocument; engine.MODES;"
        "print(sorted(m for m in ('torch', 'litellm', 'transformers', 'django', 'celery') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "[]"


def test_a_heavy_name_loads_its_module_on_first_use():
    code = "import sys, engine; engine.LLMClient; print('litellm' in sys.modules, 'torch' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "True False"


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="NoSuchThing"):
        engine.NoSuchThing  # noqa: B018
