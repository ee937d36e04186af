"""Uploaded files to plain text: text, Markdown, HTML (Beautiful Soup) and PDF (pypdf).

Every format ends as one string that passages point into. Bad input raises
`ParseError` with a message fit for the uploader; the caller marks the document
failed, it never crashes a worker.
"""

from __future__ import annotations

import io
import re
from pathlib import PurePath

FORMATS = {
    "text/plain": "text",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "application/pdf": "pdf",
}
_SUFFIXES = {".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown",
             ".html": "html", ".htm": "html", ".pdf": "pdf"}  # fmt: skip
MAX_PDF_PAGES = 2000
_BLOCKS = ["p", "div", "section", "article", "li", "ul", "ol", "table", "tr", "h1", "h2", "h3",
           "h4", "h5", "h6", "pre", "blockquote", "header", "footer", "main", "dd", "dt", "hr"]  # fmt: skip


class ParseError(ValueError):
    """The file cannot be read as the format it claims."""


def file_format(name: str, content_type: str) -> str | None:
    """ "text" | "markdown" | "html" | "pdf" from the declared type, else the file name."""
    declared = FORMATS.get((content_type or "").split(";")[0].strip().lower())
    return declared or _SUFFIXES.get(PurePath(name or "").suffix.lower())


def _decode(raw: bytes) -> str:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("cp1252", errors="replace")
    if "\x00" in text:
        raise ParseError("the file holds NUL bytes: it is not a text file")
    return text


def _tidy(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"[ \t\f\v]+", " ", text)
    text = re.sub(r" *\n *", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _html_text(markup: str) -> str:
    from bs4 import BeautifulSoup  # only indexing workers parse HTML

    soup = BeautifulSoup(markup, "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    for tag in soup(_BLOCKS):  # block elements end a line; inline ones (<b>, <a>) do not
        tag.insert_after("\n")
    for br in soup("br"):
        br.replace_with("\n")
    return soup.get_text()


def _markdown_text(source: str) -> str:
    from markdown_it import MarkdownIt  # only indexing workers render Markdown

    return _html_text(MarkdownIt("commonmark").render(source))


def _pdf_text(raw: bytes) -> str:
    from pypdf import PdfReader  # only indexing workers parse PDFs
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(raw), strict=False)
        # An empty user password opens in any viewer (only editing is restricted): open it.
        if reader.is_encrypted and not reader.decrypt(""):
            raise ParseError("the PDF is encrypted with a password; upload it without the password")
        if len(reader.pages) > MAX_PDF_PAGES:
            raise ParseError(f"the PDF has more than {MAX_PDF_PAGES} pages")
        pages = [page.extract_text() or "" for page in reader.pages]
    except ParseError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        raise ParseError(f"the PDF could not be read ({type(exc).__name__}: {exc})") from exc
    text = "\n\n".join(pages)
    if not text.strip():
        raise ParseError("the PDF has no text layer (a scan?); upload its text instead")
    return text


def extract_text(raw: bytes, fmt: str) -> str:
    """The document's text; `ParseError` for unreadable or empty input."""
    if fmt == "pdf":
        text = _pdf_text(raw)
    elif fmt == "html":
        text = _html_text(_decode(raw))
    elif fmt == "markdown":
        text = _markdown_text(_decode(raw))
    elif fmt == "text":
        text = _decode(raw)
    else:
        raise ParseError(f"unsupported format {fmt!r}")
    text = _tidy(text)
    if not text:
        raise ParseError("the document holds no text")
    return text
