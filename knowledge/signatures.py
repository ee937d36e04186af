"""An upload's bytes against the format it claims, at upload time (before it is stored).

Binary formats are recognised by their signatures (`filetype`, which reads the first
bytes); text formats must look like text. A mismatch raises `SignatureMismatch` with a
hint naming what the file looks like and how to send it.
"""

from __future__ import annotations

import filetype

#: formats whose files are text (decoded, never a binary signature)
TEXT_FORMATS = {"text", "markdown", "html", "csv", "json", "eml"}
#: what a binary format's bytes must start with, and how the hint names it
BINARY = {
    "pdf": ((b"%PDF-",), "a PDF"),
    "docx": ((b"PK\x03\x04",), "a Word document (.docx, a ZIP archive)"),
    "pptx": ((b"PK\x03\x04",), "a PowerPoint presentation (.pptx, a ZIP archive)"),
}
_CONTROL = set(range(0, 9)) | set(range(14, 32)) | {127}
SAMPLE = 65536


class SignatureMismatch(ValueError):
    """The bytes are not the format the upload claims."""


def _looks_like(raw: bytes) -> str | None:
    if raw.lstrip()[:5] == b"%PDF-" or b"%PDF-" in raw[:1024]:
        return "a PDF (application/pdf, .pdf)"
    kind = filetype.guess(raw[:SAMPLE])
    return f"{kind.mime} (.{kind.extension})" if kind is not None else None


def _is_text(sample: bytes) -> bool:
    if b"\x00" in sample:
        return False
    control = sum(1 for b in sample if b in _CONTROL)
    return control <= max(2, len(sample) // 100)  # random bytes: about 10 % control bytes


def check(raw: bytes, fmt: str, declared: str) -> None:
    """Raise `SignatureMismatch` unless `raw` can be the format `fmt` (declared as `declared`)."""
    sample = raw[:SAMPLE]
    if fmt in TEXT_FORMATS:
        seen = _looks_like(sample)
        if seen is not None:
            raise SignatureMismatch(
                f"the file was sent as {declared} but its content is {seen}: "
                "send it with that Content-Type or file name"
            )
        if not _is_text(sample):
            raise SignatureMismatch(
                f"the file was sent as {declared} but its content is not text (binary bytes); "
                "upload plain text, Markdown, HTML, CSV, JSON or e-mail as text, or a PDF, "
                "DOCX or PPTX with its own type"
            )
        return
    if fmt in BINARY:
        signatures, name = BINARY[fmt]
        ok = any(raw.startswith(s) for s in signatures) or (fmt == "pdf" and b"%PDF-" in raw[:1024])
        if not ok:
            seen = _looks_like(sample) or ("text" if _is_text(sample) else "unrecognised bytes")
            raise SignatureMismatch(
                f"the file was sent as {declared} ({name}) but its content is {seen}: "
                "send it with the type that matches its content"
            )
