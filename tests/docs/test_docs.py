"""The README stays a front page, and the documentation's links and citations resolve.

README.md keeps set-up, use and headline figures under 30 KB; the rest lives in docs/
(README "Documentation" links every file there). Every relative link in README.md and
docs/*.md must name an existing file, and an existing heading when it has a #anchor
(GitHub's slugs). Code cites design text in docs/, as `docs/<file>.md "<section>"` naming a
section that exists, never a design document that is not in the repository.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
MARKDOWN = [README, *DOCS]

README_LIMIT = 30 * 1024
# Built in two parts so that this file does not cite what it forbids.
FORBIDDEN_CITATIONS = ("DESIGN" + " §", "DESIGN" + ".md")
SKIPPED_DIRS = {".git", ".venv", "node_modules", "build", "__pycache__"}

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...


def _prose_lines(text: str) -> list[str]:
    """The file's lines outside fenced code blocks, with inline code spans removed."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(_CODE_SPAN.sub("", line))
    return lines


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text, lower-cased, without punctuation
    other than '-' and '_', spaces turned into '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text).lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in "-_ ")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file, duplicates numbered as GitHub does."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match is None:
            continue
        slug = github_slug(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def relative_links(path: Path) -> list[str]:
    """Targets of the file's Markdown links and images that point into the repository."""
    targets = []
    for line in _prose_lines(path.read_text(encoding="utf-8")):
        for target in _LINK.findall(line):
            if not _EXTERNAL.match(target):
                targets.append(target)
    return targets


def broken_links(path: Path) -> list[str]:
    broken = []
    for target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor.lower() not in anchors(linked):
            broken.append(f"{target} (no such heading in {linked.relative_to(ROOT)})")
    return broken


def test_readme_is_under_30_kb():
    size = README.stat().st_size
    assert size < README_LIMIT, (
        f"README.md is {size} bytes; move sections into docs/ and link them (limit {README_LIMIT})"
    )


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    assert not broken_links(path), f"{path.relative_to(ROOT)}: {broken_links(path)}"


def test_readme_links_every_docs_file():
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in relative_links(README)}
    missing = [str(p.relative_to(ROOT)) for p in DOCS if p.resolve() not in linked]
    assert not missing, f"README.md's documentation table does not link {missing}"


def test_no_code_cites_a_design_document_outside_the_repository():
    citing = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        for name in files:
            if not name.endswith(".py"):
                continue
            path = Path(folder) / name
            text = path.read_text(encoding="utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), 1):
                if any(cited in line for cited in FORBIDDEN_CITATIONS):
                    citing.append(f"{path.relative_to(ROOT)}:{number}")
    assert not citing, f"cite a section of a docs/ file instead: {citing}"


# `docs/<file>.md "<section>"` (or `docs/<file>.md, "<section>"`) in code, comments and docs
_CITATION = re.compile(r'docs/([a-z0-9_-]+\.md),? "([^"\n]+)"')
CITING_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".cfg", ".sh", ".example"}
CITING_NAMES = {"Makefile", "run", "Dockerfile", "Dockerfile.cuda"}


def _section_in(doc: Path, section: str) -> bool:
    """A heading that starts with `section`, or a bold or italic label that does."""
    text = doc.read_text(encoding="utf-8")
    return re.search(r"(^#{1,6} |\*\*?)" + re.escape(section), text, flags=re.M) is not None


def test_every_docs_section_citation_names_an_existing_section():
    stale = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        for name in files:
            path = Path(folder) / name
            if path.suffix not in CITING_SUFFIXES and name not in CITING_NAMES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for match in _CITATION.finditer(text):
                doc = ROOT / "docs" / match.group(1)
                if not doc.is_file() or not _section_in(doc, match.group(2)):
                    stale.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert not stale, f"these cite a docs/ file or section that does not exist: {stale}"


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Set-up (two commands)", "set-up-two-commands"),
        (
            "Gateway mode (`POST /v1/chat/completions`, `POST /v1/messages`)",
            "gateway-mode-post-v1chatcompletions-post-v1messages",
        ),
        (
            "The jobs table at scale: monthly partitions and retention",
            "the-jobs-table-at-scale-monthly-partitions-and-retention",
        ),
        ("TruthLensQueueBacklogGrowing", "truthlensqueuebackloggrowing"),
        ("Mode selection (Thompson sampling)", "mode-selection-thompson-sampling"),
    ],
)
def test_github_slugs(heading, slug):
    assert github_slug(heading) == slug
