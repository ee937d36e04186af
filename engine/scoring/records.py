"""Values read from the wrong row of a table.

Data-to-text answers go wrong in a way the value check cannot see: every number
of "Bergen was founded in 1040" is in the context, but 1040 is Oslo's row.
Markdown tables, CSV blocks and JSON arrays of flat objects are read into rows;
an answer clause that names exactly one row and states a number that another
row holds in some column, where the named row holds a different one, is a
contradiction with the named row's cell as evidence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..text.sentences import clause_spans
from ..text.words import normalize_number
from .findings import Finding
from .typed_values import values

#: A number, not part of a code such as "WM-7" (a letter and a hyphen before it).
_NUMBER = re.compile(r"(?<![\w.])(?<![A-Za-z]-)\d[\d,]*(?:\.\d+)?(?![\w])")


@dataclass(frozen=True)
class Cell:
    text: str
    start: int  # offsets into the passage
    end: int

    @property
    def number(self) -> str | None:
        m = _NUMBER.search(self.text)
        return normalize_number(m.group()) if m else None


@dataclass(frozen=True)
class Table:
    passage: int
    rows: tuple[tuple[Cell, ...], ...]  # data rows; cell 0 names the row


def _cells(line: str, offset: int, sep: str) -> list[Cell]:
    out, pos = [], 0
    for piece in line.split(sep):
        lead = len(piece) - len(piece.lstrip())
        text = piece.strip()
        out.append(Cell(text, offset + pos + lead, offset + pos + lead + len(text)))
        pos += len(piece) + len(sep)
    return out


def _line_tables(passage: str, index: int) -> list[Table]:
    """Markdown pipe tables and comma-separated blocks (a header and two or more rows)."""
    tables: list[Table] = []
    block: list[list[Cell]] = []
    offset = 0
    for line in [*passage.split("\n"), ""]:
        stripped = line.strip()
        cells: list[Cell] | None = None
        if stripped.startswith("|") and stripped.endswith("|") and stripped.count("|") >= 3:
            cells = _cells(line, offset, "|")[1:-1]
            if all(re.fullmatch(r":?-{2,}:?", c.text) for c in cells):
                cells = []  # the separator row
        elif stripped.count(",") >= 1 and '"' not in stripped and "{" not in stripped:
            cells = _cells(line, offset, ",")
        if cells is None:
            if len(block) >= 3 and len({len(r) for r in block}) == 1:
                tables.append(Table(index, tuple(tuple(r) for r in block[1:])))
            block = []
        elif cells:
            block.append(cells)
        offset += len(line) + 1
    return tables


def _json_tables(passage: str, index: int) -> list[Table]:
    try:
        data = json.loads(passage)
    except ValueError:
        return []
    lists = (
        [data]
        if isinstance(data, list)
        else [v for v in data.values() if isinstance(v, list)]
        if isinstance(data, dict)
        else []
    )
    tables = []
    for records in lists:
        if len(records) < 2 or not all(isinstance(r, dict) for r in records):
            continue
        rows, cursor = [], 0
        for record in records:
            row = []
            for key, value in record.items():
                if isinstance(value, dict | list):
                    continue
                literal = json.dumps(value, ensure_ascii=False)
                at = passage.find(literal, passage.find(json.dumps(key), cursor))
                if at < 0:
                    break
                text = literal.strip('"')
                start = at + (1 if literal.startswith('"') else 0)
                row.append(Cell(text, start, start + len(text)))
                cursor = at + len(literal)
            else:
                rows.append(tuple(row))
        if len(rows) >= 2 and len({len(r) for r in rows}) == 1:
            tables.append(Table(index, tuple(rows)))
    return tables


def tables(context: Sequence[str]) -> list[Table]:
    out = []
    for i, passage in enumerate(context):
        out += _json_tables(passage, i) or _line_tables(passage, i)
    return out


def _names(row: Sequence[Cell]) -> Cell | None:
    """The row's name: its first cell that is text, not a number."""
    for cell in row:
        if cell.text and cell.number is None and re.search(r"[A-Za-z]{2}", cell.text):
            return cell
    return None


def _mentions(sentence: str, name: str) -> bool:
    """Whether the sentence names the row, by its full name or by the name without a
    parenthesis ("Banana (medium)" is named by "a medium banana")."""
    core = re.sub(r"\s*\([^)]*\)", "", name).strip()
    head = re.split(r"\s+[-–—:]\s+", core)[0].strip()  # "Rent - Oakview Apartments"
    return any(
        re.search(rf"(?<!\w){re.escape(n)}(?!\w)", sentence, re.IGNORECASE)
        for n in {name, core, head}
        if len(n) >= 3
    )


def _partly_named_elsewhere(clause: str, said: str, table: Table, mine: Sequence[Cell]) -> bool:
    """Whether another row holding `said` is named in part in the clause ("tomato and basil
    soup at £5.50" for the row "Tomato & basil soup"): then the number is that row's."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", clause)}
    for row in table.rows:
        if row is mine or not any(c.number == said for c in row):
            continue
        name = _names(row)
        if name is not None and words & {w.lower() for w in re.findall(r"[A-Za-z]{4,}", name.text)}:
            return True
    return False


def _one_row_clauses(
    answer: str,
    clauses: Sequence[tuple[int, int]],
    named: Sequence[tuple[tuple[Cell, ...], Cell | None]],
) -> Iterator[tuple[int, str, tuple[Cell, ...]]]:
    """Each clause of `answer` that names exactly one row of `named` (a row and its name
    cell): where the clause starts, its text and that row."""
    for clause_start, clause_end in clauses:
        text = answer[clause_start:clause_end]
        hits = [row for row, name in named if name and _mentions(text, name.text)]
        if len(hits) == 1:
            yield clause_start, text, hits[0]


#: A text cell must be this long to count as a value ("Kofi Mensah", not "No").
MIN_TEXT_CELL = 4


def _text_cells(
    answer: str,
    clauses: Sequence[tuple[int, int]],
    named: Sequence[tuple[tuple[Cell, ...], Cell | None]],
    table: Table,
) -> list[Finding]:
    """A `record` conflict for a text cell of another row (an owner, a city) that a clause
    naming exactly one row gives in that row's place ("Billing v2 ... its owner is Ingrid
    Solberg", where Ingrid Solberg owns the SSO rollout)."""
    out: list[Finding] = []
    for clause_start, text, mine in _one_row_clauses(answer, clauses, named):
        for col in range(1, len(mine)):
            own = mine[col].text
            if len(own) < MIN_TEXT_CELL or mine[col].number is not None or _mentions(text, own):
                continue
            for row in table.rows:
                if row is mine or col >= len(row):
                    continue
                theirs = row[col].text
                if (
                    len(theirs) < MIN_TEXT_CELL
                    or row[col].number is not None
                    or theirs.casefold() == own.casefold()
                    or any(c.text.casefold() == theirs.casefold() for c in mine)
                ):
                    continue
                m = re.search(rf"(?<!\w){re.escape(theirs)}(?!\w)", text, re.IGNORECASE)
                if m is None:
                    continue
                reason = (
                    f"wrong row: the answer gives {m.group()} for {_names(mine).text}, "  # type: ignore[union-attr]
                    f"whose value in the context is {own}"
                )
                start, end = clause_start + m.start(), clause_start + m.end()
                evidence = (table.passage, mine[col].start, mine[col].end)
                out.append(Finding(start, end, "record", "conflict", evidence, reason))
    return out


def record_findings(
    context: Sequence[str], answer: str, found: Sequence[Finding] = ()
) -> list[Finding]:
    """`found` with a `record` conflict for every number taken from another row (and
    any `match` on the same span dropped: the number is in the context, but not there)."""
    conflicts: list[Finding] = []
    found_tables = tables(context)
    if not found_tables:
        return list(found)
    # a number inside a time or date ("7 pm", "7:30") is judged by the time check; one
    # answer sentence often walks through several rows, a clause each
    clock = [(v.start, v.end) for v in values(answer) if v.kind in ("time", "date")]
    clauses = clause_spans(answer)
    for table in found_tables:
        named = [(row, _names(row)) for row in table.rows]
        for clause_start, text, mine in _one_row_clauses(answer, clauses, named):
            for m in _NUMBER.finditer(text):
                at = clause_start + m.start()
                if any(a <= at < b for a, b in clock):
                    continue
                said = normalize_number(m.group())
                if _partly_named_elsewhere(text, said, table, mine):
                    continue
                for col, cell in enumerate(mine):
                    others = {r[col].number for r in table.rows if r is not mine}
                    if cell.number is None or cell.number == said or said not in others:
                        continue
                    if any(c.number == said for c in mine):
                        break  # the named row states it too, in another column
                    start, end = clause_start + m.start(), clause_start + m.end()
                    reason = (
                        f"wrong row: the answer gives {m.group()} for {_names(mine).text}, "  # type: ignore[union-attr]
                        f"whose value in the context is {cell.text}"
                    )
                    evidence = (table.passage, cell.start, cell.end)
                    conflicts.append(Finding(start, end, "record", "conflict", evidence, reason))
                    break
        conflicts += _text_cells(answer, clauses, named, table)
    if not conflicts:
        return list(found)
    kept = [
        f
        for f in found
        if not (
            f.verdict == "match" and any(c.start < f.end and f.start < c.end for c in conflicts)
        )
    ]
    return kept + conflicts
