"""Test folders mirror the source folders (docs/architecture.md "Where the code lives"): a test of
`verification/webhooks/` lives in `tests/verification/webhooks/`, and so on."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
#: Folders that test no one source folder: the shared fixtures and data, the documentation,
#: fault injection across services, and the SDK and deploy files kept outside the packages.
CROSS_CUTTING = {"fixtures", "data", "docs", "faults"}
#: Test folders named after a top-level folder that is not a Python package.
NOT_PACKAGES = {"bench", "deploy", "sdk"}


def _test_folders() -> list[Path]:
    return sorted(
        p
        for p in TESTS.rglob("*")
        if p.is_dir() and p.name != "__pycache__" and any(p.glob("test_*.py"))
    )


def test_every_test_folder_names_a_source_folder():
    folders = _test_folders()
    assert len(folders) > 15
    orphans = []
    for folder in folders:
        parts = folder.relative_to(TESTS).parts
        if parts[0] in CROSS_CUTTING:
            continue
        if not (ROOT / Path(*parts)).is_dir():
            orphans.append("/".join(parts))
    assert orphans == []


def test_every_package_has_its_tests_folder():
    packages = [
        p.name
        for p in ROOT.iterdir()
        if (p / "__init__.py").is_file() and p.name not in {"tests"} | NOT_PACKAGES
    ]
    assert "engine" in packages
    assert "verification" in packages
    missing = [name for name in packages if not (TESTS / name).is_dir()]
    assert missing == []
