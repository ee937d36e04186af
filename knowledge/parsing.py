"""Uploaded files to plain text: text, Markdown, HTML (Beautiful Soup), PDF (pypdf), DOCX
(python-docx), PPTX (python-pptx), CSV, JSON and e-mail (the standard library).

Every format ends as one string that passages point into, made of segments that each
know where they come from in the original file: a PDF page, a slide, the heading path
above a Markdown, HTML or DOCX section (`Extracted.locations`). Bad input raises
`ParseError` with a message fit for the uploader; the caller marks the document (or
the version) failed, it never crashes a worker.
"""

from __future__ import annotations

import bisect
import csv
import email
import email.policy
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import PurePath
from zipfile import BadZipFile

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
FORMATS = {
    "text/plain": "text",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "application/pdf": "pdf",
    "text/csv": "csv",
    "application/csv": "csv",
    "application/json": "json",
    "message/rfc822": "eml",
    DOCX: "docx",
    PPTX: "pptx",
}
_SUFFIXES = {".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown",
             ".html": "html", ".htm": "html", ".pdf": "pdf", ".csv": "csv", ".json": "json",
             ".eml": "eml", ".docx": "docx", ".pptx": "pptx"}  # fmt: skip
MAX_PDF_PAGES = 2000
MAX_ROWS = 200_000
_BLOCKS = ["p", "div", "section", "article", "li", "ul", "ol", "table", "tr", "h1", "h2", "h3",
           "h4", "h5", "h6", "pre", "blockquote", "header", "footer", "main", "dd", "dt", "hr"]  # fmt: skip
_HEADINGS = ["h1", "h2", "h3", "h4", "h5", "h6"]
_MARK = "\ue000"  # a private-use character: where a heading starts in the extracted text


class ParseError(ValueError):
    """The file cannot be read as the format it claims."""


@dataclass
class Extracted:
    text: str
    #: (offset in `text`, location) at each segment's start, in order
    marks: list[tuple[int, dict]] = field(default_factory=list)

    def location(self, offset: int) -> dict:
        """Where `offset` of the text comes from in the file ({} when nothing says)."""
        i = bisect.bisect_right([m[0] for m in self.marks], offset) - 1
        return dict(self.marks[i][1]) if i >= 0 else {}


def file_format(name: str, content_type: str) -> str | None:
    """One of FORMATS' values from the declared type, else from the file name."""
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
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace(_MARK, "")
    text = re.sub(r"[ \t\f\v]+", " ", text)
    text = re.sub(r" *\n *", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _join(segments: list[tuple[dict, str]]) -> Extracted:
    """Tidied segments joined by blank lines, each marked with its location."""
    parts: list[str] = []
    marks: list[tuple[int, dict]] = []
    offset = 0
    for location, raw in segments:
        piece = _tidy(raw)
        if not piece:
            continue
        if parts:
            offset += 2
        marks.append((offset, location))
        parts.append(piece)
        offset += len(piece)
    return Extracted("\n\n".join(parts), marks)


def _html_segments(markup: str) -> list[tuple[dict, str]]:
    from bs4 import BeautifulSoup  # only indexing workers parse HTML

    soup = BeautifulSoup(markup.replace(_MARK, ""), "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    paths: list[dict] = [{}]
    stack: list[tuple[int, str]] = []
    for heading in soup(_HEADINGS):
        level = int(heading.name[1])
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, heading.get_text(" ", strip=True)))
        paths.append({"headings": [title for _, title in stack]})
        heading.insert_before(_MARK)
    for tag in soup(_BLOCKS):  # block elements end a line; inline ones (<b>, <a>) do not
        tag.insert_after("\n")
    for br in soup("br"):
        br.replace_with("\n")
    pieces = soup.get_text().split(_MARK)
    return list(zip(paths, pieces, strict=True))


def _markdown_segments(source: str) -> list[tuple[dict, str]]:
    from markdown_it import MarkdownIt  # only indexing workers render Markdown

    return _html_segments(MarkdownIt("commonmark").render(source))


def _pdf_segments(raw: bytes) -> list[tuple[dict, str]]:
    from pypdf import PdfReader  # only indexing workers parse PDFs
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(raw), strict=False)
        # An empty user password opens in any viewer (only editing is restricted): open it.
        if reader.is_encrypted and not reader.decrypt(""):
            raise ParseError("the PDF is encrypted with a password; upload it without the password")
        if len(reader.pages) > MAX_PDF_PAGES:
            raise ParseError(f"the PDF has more than {MAX_PDF_PAGES} pages")
        pages = [({"page": n}, page.extract_text() or "") for n, page in enumerate(reader.pages, 1)]
    except ParseError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        raise ParseError(f"the PDF could not be read ({type(exc).__name__}: {exc})") from exc
    if not any(text.strip() for _, text in pages):
        raise ParseError(
            f"the PDF has no text layer ({len(pages)} page(s) of images, a scan?): text "
            "recognition (OCR) is out of scope; run OCR on it first or upload its text"
        )
    return pages


def _docx_segments(raw: bytes) -> list[tuple[dict, str]]:
    import docx  # python-docx; only indexing workers read Word files
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(io.BytesIO(raw))
    except (PackageNotFoundError, BadZipFile, ValueError, KeyError, OSError) as exc:
        raise ParseError(f"the DOCX could not be read ({type(exc).__name__}: {exc})") from exc
    segments: list[tuple[dict, list[str]]] = [({}, [])]
    stack: list[tuple[int, str]] = []
    for para in document.paragraphs:
        style = (para.style.name if para.style is not None else "") or ""
        level = int(style.split()[-1]) if re.fullmatch(r"Heading \d", style) else 0
        if style == "Title":
            level = 1
        if level and para.text.strip():
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, para.text.strip()))
            segments.append(({"headings": [t for _, t in stack]}, []))
        segments[-1][1].append(para.text)
    for table in document.tables:
        rows = ["\t".join(cell.text for cell in row.cells) for row in table.rows]
        segments.append(({"table": True}, rows))
    return [(loc, "\n".join(lines)) for loc, lines in segments]


def _pptx_segments(raw: bytes) -> list[tuple[dict, str]]:
    from pptx import Presentation  # python-pptx; only indexing workers read slides
    from pptx.exc import PackageNotFoundError

    try:
        deck = Presentation(io.BytesIO(raw))
    except (PackageNotFoundError, BadZipFile, ValueError, KeyError, OSError) as exc:
        raise ParseError(f"the PPTX could not be read ({type(exc).__name__}: {exc})") from exc
    segments = []
    for n, slide in enumerate(deck.slides, 1):
        lines = []
        for shape in slide.shapes:
            if shape.has_text_frame:
                lines += [p.text for p in shape.text_frame.paragraphs]
            if getattr(shape, "has_table", False) and shape.has_table:
                lines += ["\t".join(c.text for c in row.cells) for row in shape.table.rows]
        if slide.has_notes_slide:
            lines.append(slide.notes_slide.notes_text_frame.text)
        segments.append(({"slide": n}, "\n".join(lines)))
    return segments


def _csv_segments(source: str) -> list[tuple[dict, str]]:
    """Each row as "column: value" pairs, one paragraph per row (a passage holds whole rows)."""
    try:
        dialect = csv.Sniffer().sniff(source[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = csv.reader(io.StringIO(source), dialect)
    try:
        header = [h.strip() for h in next(rows)]
        out = []
        for n, row in enumerate(rows, 2):
            if n > MAX_ROWS:
                raise ParseError(f"the CSV has more than {MAX_ROWS} rows")
            cells = [f"{h or f'column {i + 1}'}: {v.strip()}" for i, (h, v) in
                     enumerate(zip(header, row, strict=False)) if v.strip()]  # fmt: skip
            out.append(({"row": n}, "; ".join(cells) + "."))
    except StopIteration:
        return []
    except csv.Error as exc:
        raise ParseError(f"the CSV could not be read ({exc})") from exc
    return out


def _json_lines(value, path: str, out: list[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _json_lines(item, f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _json_lines(item, f"{path}[{i}]", out)
    elif value is not None:
        out.append(f"{path or 'value'}: {value}.")


def _json_segments(source: str) -> list[tuple[dict, str]]:
    """Every leaf as "path: value", one paragraph per top-level key or item."""
    try:
        data = json.loads(source)
    except json.JSONDecodeError as exc:
        raise ParseError(f"the JSON could not be read ({exc})") from exc
    if isinstance(data, dict):
        items = [(str(key), value) for key, value in data.items()]
    elif isinstance(data, list):
        items = [(f"[{i}]", value) for i, value in enumerate(data)]
    else:
        return [({}, f"value: {data}.")]
    out = []
    for path, value in items:
        lines: list[str] = []
        _json_lines(value, path, lines)
        out.append(({"json_path": path}, "\n".join(lines)))
    return out


def _eml_segments(raw: bytes) -> list[tuple[dict, str]]:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    head = [f"{h}: {message[h]}" for h in ("Subject", "From", "To", "Cc", "Date") if message[h]]
    if not head:
        raise ParseError("the file is not an e-mail: it has no Subject, From, To or Date header")
    body = message.get_body(preferencelist=("plain", "html"))
    segments = [({"part": "headers"}, "\n".join(head))]
    if body is not None:
        content = body.get_content()
        if body.get_content_subtype() == "html":
            segments += [({"part": "body", **loc}, text) for loc, text in _html_segments(content)]
        else:
            segments.append(({"part": "body"}, content))
    return segments


def extract(raw: bytes, fmt: str) -> Extracted:
    """The document's text with its locations; `ParseError` for unreadable or empty input."""
    if fmt == "pdf":
        segments = _pdf_segments(raw)
    elif fmt == "html":
        segments = _html_segments(_decode(raw))
    elif fmt == "markdown":
        segments = _markdown_segments(_decode(raw))
    elif fmt == "text":
        segments = [({}, _decode(raw))]
    elif fmt == "docx":
        segments = _docx_segments(raw)
    elif fmt == "pptx":
        segments = _pptx_segments(raw)
    elif fmt == "csv":
        segments = _csv_segments(_decode(raw))
    elif fmt == "json":
        segments = _json_segments(_decode(raw))
    elif fmt == "eml":
        segments = _eml_segments(raw)
    else:
        raise ParseError(f"unsupported format {fmt!r}")
    extracted = _join(segments)
    if not extracted.text:
        raise ParseError("the document holds no text")
    return extracted


def extract_text(raw: bytes, fmt: str) -> str:
    """The document's text; `ParseError` for unreadable or empty input."""
    return extract(raw, fmt).text
