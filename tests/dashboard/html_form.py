"""Read a rendered HTML form the way a browser submits it (stdlib parser, no browser)."""

from __future__ import annotations

from html.parser import HTMLParser


class _FormReader(HTMLParser):
    def __init__(self, form_id: str):
        super().__init__(convert_charrefs=True)
        self.form_id, self.inside, self.depth = form_id, False, 0
        self.fields: list[tuple[str, str]] = []
        self._textarea: str | None = None
        self._select: str | None = None
        self._buffer: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("id") == self.form_id:
            self.inside = True
        if not self.inside or "disabled" in a:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.fields.append((name, a.get("value") or "on"))
            elif kind not in ("submit", "button", "file"):
                self.fields.append((name, a.get("value") or ""))
        elif tag == "textarea" and name:
            self._textarea, self._buffer = name, []
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in a:
            self.fields.append((self._select, a.get("value", "")))

    def handle_data(self, data):
        if self._textarea is not None:
            self._buffer.append(data)

    def handle_endtag(self, tag):
        if tag == "textarea" and self._textarea is not None:
            value = "".join(self._buffer)
            # HTML drops one newline right after <textarea>; browsers send CRLF
            value = value[1:] if value.startswith("\n") else value
            self.fields.append((self._textarea, value.replace("\n", "\r\n")))
            self._textarea = None
        elif tag == "select":
            self._select = None
        elif tag == "form" and self.inside:
            self.inside = False


def form_data(html: str, form_id: str) -> dict[str, list[str]]:
    """Name -> values the form `form_id` would submit untouched."""
    reader = _FormReader(form_id)
    reader.feed(html)
    out: dict[str, list[str]] = {}
    for name, value in reader.fields:
        out.setdefault(name, []).append(value)
    return out
