"""Generated data-to-text and tool-output examples with exact spans.

Customers check answers written from JSON tool results, key: value lists and
tables. Nothing in `shared/data` looks like that, so records are generated
from a small vocabulary, rendered as JSON, "key: value" lines, a markdown
table or CSV, and described by templates that PARAPHRASE the values the way
an LLM does: times without the leading zero, month names for ISO dates,
thousands separators, spelled-out units, "sold out" for a stock of 0.
Faithful answers carry no span; hallucinated ones change exactly one value
(or negate the status, or add an unsupported clause) and mark it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..datagen import Example, is_dev

FILES: tuple[str, ...] = ()  # generated: reads nothing
TRAIN_RECORDS = 2400
DEV_RECORDS = 300

_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]  # fmt: skip
_CITIES = ["Lisbon", "Oslo", "Denver", "Nairobi", "Osaka", "Lyon", "Austin", "Krakow", "Perth",
           "Quito", "Dublin", "Seoul", "Tunis", "Leeds", "Porto", "Halifax"]  # fmt: skip
_NAMES = ["Maria Lopez", "John Smith", "Aiko Tanaka", "Omar Haddad", "Grace Kim", "Lars Berg",
          "Priya Nair", "Tom Walsh", "Ana Costa", "Felix Braun", "Nora Quinn", "Ivan Petrov"]  # fmt: skip
_PRODUCTS = ["desk lamp", "trail shoes", "coffee grinder", "backpack", "office chair",
             "water bottle", "rain jacket", "keyboard", "monitor stand", "tent"]  # fmt: skip
_CONDITIONS = ["sunny", "cloudy", "light rain", "snow", "windy", "foggy"]
_STATUSES = ["shipped", "delivered", "processing", "cancelled"]
_UNSUPPORTED = [
    ", and passengers get a free upgrade",
    ", and the price includes insurance",
    " and it is the most popular option this year",
    ", which was confirmed by the manager",
    " because of a strike",
    ", and a refund is guaranteed",
]


@dataclass
class Value:
    raw: object  # as the record stores it
    text: str  # as an answer would write it
    other: Callable[[random.Random], tuple[object, str]]  # a different value


def _date(rng: random.Random) -> tuple[str, str]:
    y, m, d = rng.choice([2024, 2025, 2026]), rng.randrange(12), rng.randrange(1, 29)
    return f"{y}-{m + 1:02d}-{d:02d}", f"{_MONTHS[m]} {d}"


def _time(rng: random.Random) -> tuple[str, str]:
    h, mi = rng.randrange(5, 23), rng.choice([0, 5, 10, 15, 20, 30, 35, 40, 45, 50, 55])
    style = rng.random()
    if style < 0.5:
        return f"{h:02d}:{mi:02d}", f"{h}:{mi:02d}"
    suffix = "am" if h < 12 else "pm"
    return f"{h:02d}:{mi:02d}", f"{(h - 1) % 12 + 1}:{mi:02d} {suffix}"


def _money(rng: random.Random) -> tuple[float, str]:
    amount = rng.choice([rng.randrange(5, 100), rng.randrange(100, 5000)])
    return float(amount), f"${amount:,}"


def _number(lo: int, hi: int, unit: str = "") -> Callable[[random.Random], tuple[int, str]]:
    def draw(rng: random.Random) -> tuple[int, str]:
        n = rng.randrange(lo, hi)
        return n, f"{n:,}{unit}"

    return draw


def _pick(options: list[str]) -> Callable[[random.Random], tuple[str, str]]:
    def draw(rng: random.Random) -> tuple[str, str]:
        v = rng.choice(options)
        return v, v

    return draw


def _value(rng: random.Random, draw: Callable[[random.Random], tuple[Any, ...]]) -> Value:
    raw, text = draw(rng)

    def other(r: random.Random) -> tuple[object, str]:
        for _ in range(20):
            new = draw(r)
            if new[1] != text and new[0] != raw:
                return new
        return draw(r)

    return Value(raw, text, other)


#: kind -> (fields: key -> drawer, templates over {key} placeholders)
KINDS: dict[str, tuple[dict[str, Callable[[random.Random], tuple[Any, ...]]], list[str]]] = {
    "flight": (
        {"flight": _pick(["LH 402", "BA 117", "AF 1380", "UA 88", "KL 643", "TP 205"]),
         "departure": _time, "date": _date, "gate": _pick(["B12", "A4", "C31", "D7", "E19"]),
         "destination": _pick(_CITIES), "duration_min": _number(45, 600, " minutes")},
        ["Flight {flight} to {destination} departs at {departure} on {date} from gate {gate}.",
         "Your flight {flight} leaves on {date} at {departure}; it takes {duration_min} and boards at gate {gate}.",
         "On {date}, {flight} heads to {destination}, leaving gate {gate} at {departure}."],
    ),
    "order": (
        {"order_id": _pick(["A-1042", "B-2231", "C-7788", "D-0912"]), "item": _pick(_PRODUCTS),
         "status": _pick(_STATUSES), "total_usd": _money, "placed": _date, "quantity": _number(1, 9)},
        ["Order {order_id} for {quantity} {item} was placed on {date_placed} and is {status}; the total is {total_usd}.",
         "Your {item} order ({order_id}) is {status}. You paid {total_usd} for {quantity} of them.",
         "The order {order_id}, placed {date_placed}, shows as {status} with a total of {total_usd}."],
    ),
    "weather": (
        {"city": _pick(_CITIES), "condition": _pick(_CONDITIONS), "high_c": _number(-5, 38, "°C"),
         "wind_kmh": _number(0, 80, " km/h"), "date": _date, "rain_chance_pct": _number(0, 100, "%")},
        ["In {city} on {date} expect {condition} with a high of {high_c} and winds of {wind_kmh}.",
         "{city} will be {condition} on {date}: top temperature {high_c}, {rain_chance_pct} chance of rain.",
         "The forecast for {city} is {condition}, {high_c} at most, with a {rain_chance_pct} chance of rain."],
    ),
    "employee": (
        {"name": _pick(_NAMES), "title": _pick(["CFO", "head of sales", "lead engineer", "HR director"]),
         "office": _pick(_CITIES), "start": _date, "reports_to": _pick(_NAMES), "team_size": _number(2, 60)},
        ["{name} is the {title}, based in {office}, and reports to {reports_to}.",
         "{name} joined on {date_start} as {title} and leads a team of {team_size}.",
         "Based in {office}, {name} ({title}) manages {team_size} people and reports to {reports_to}."],
    ),
    "product": (
        {"product": _pick(_PRODUCTS), "price_usd": _money, "stock": _number(0, 400),
         "weight_kg": _number(1, 30, " kg"), "warranty_years": _number(1, 6, " years"),
         "color": _pick(["black", "blue", "green", "red", "grey", "white"])},
        ["The {color} {product} costs {price_usd}, weighs {weight_kg} and has a {warranty_years} warranty.",
         "We have {stock} of the {product} in stock at {price_usd} each.",
         "The {product} comes in {color}, is covered for {warranty_years}, and sells for {price_usd}."],
    ),
    "account": (
        {"account": _pick(["checking", "savings", "business"]), "balance_usd": _money,
         "last_payment": _date, "owner": _pick(_NAMES), "pending": _number(0, 12)},
        ["{owner}'s {account} account holds {balance_usd}, with {pending} pending transactions.",
         "The balance of the {account} account is {balance_usd}; the last payment was on {date_last_payment}.",
         "As of {date_last_payment}, {owner} has {balance_usd} in {account}."],
    ),
}  # fmt: skip


def _placeholder(key: str) -> str:
    return "date_" + key if key in ("placed", "start", "last_payment") else key


def render_context(record: dict[str, Any], rng: random.Random) -> str:
    style = rng.random()
    if style < 0.4:
        return json.dumps(record, indent=rng.choice([None, 2]))
    if style < 0.65:
        return "\n".join(f"{k}: {v}" for k, v in record.items())
    keys = list(record)
    if style < 0.85:
        head = "| " + " | ".join(keys) + " |\n|" + "---|" * len(keys)
        return head + "\n| " + " | ".join(str(record[k]) for k in keys) + " |"
    return ",".join(keys) + "\n" + ",".join(str(record[k]) for k in keys)


def _fill(template: str, texts: dict[str, str]) -> tuple[str, dict[str, tuple[int, int]]]:
    """The filled template and where each placeholder's value landed."""
    out, where, i = "", {}, 0
    while i < len(template):
        j = template.find("{", i)
        if j < 0:
            out += template[i:]
            break
        k = template.index("}", j)
        out += template[i:j]
        key = template[j + 1 : k]
        where[key] = (len(out), len(out) + len(texts[key]))
        out += texts[key]
        i = k + 1
    return out, where


def _examples(kind: str, rng: random.Random, source_id: str) -> list[Example]:
    fields, templates = KINDS[kind]
    values = {k: _value(rng, draw) for k, draw in fields.items()}
    record = {k: v.raw for k, v in values.items()}
    if kind == "product" and record["stock"] == 0:
        values["stock"].text = "none"
    texts = {_placeholder(k): v.text for k, v in values.items()}
    context = render_context(record, rng)
    template = rng.choice(templates)
    answer, where = _fill(template, texts)
    answer = answer[0].upper() + answer[1:]
    out = [Example([context], None, answer, [], source_id, "structured")]
    mode = rng.random()
    if mode < 0.7:  # one value changed
        key = rng.choice(list(where))
        field_key = key.removeprefix("date_")
        _, new_text = values[field_key].other(rng)
        fake, fake_where = _fill(template, texts | {key: new_text})
        fake = fake[0].upper() + fake[1:]
        s, e = fake_where[key]
        out.append(Example([context], None, fake, [(s, e, "value")], source_id, "structured"))
    else:  # an added clause the record does not support
        clause = rng.choice(_UNSUPPORTED)
        body = answer.rstrip(".")
        fake = body + clause + "."
        start = len(body) + len(clause) - len(clause.lstrip(", "))
        span = (start, len(body) + len(clause), "clause")
        out.append(Example([context], None, fake, [span], source_id, "structured"))
    return out


def load(data_dir: Path, seed: int, dev_percent: int) -> tuple[list[Example], list[Example]]:
    """Generated records; dev holds the record ids that hash into `dev_percent`."""
    train: list[Example] = []
    dev: list[Example] = []
    rng = random.Random(f"{seed}:structured")
    kinds = sorted(KINDS)
    for n in range(TRAIN_RECORDS + DEV_RECORDS):
        source_id = f"structured-{n}"
        rows = _examples(kinds[n % len(kinds)], rng, source_id)
        (dev if is_dev(source_id, dev_percent) else train).extend(rows)
    return train, dev
