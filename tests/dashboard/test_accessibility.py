"""Accessibility checks that need no browser: badge contrast computed from the stylesheet,
no empty header cells, option groups in a fieldset with a legend, a favicon."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from .conftest import make_user
from .pages import fill, staff_owner

CSS = Path(__file__).parents[2] / "dashboard/static/dashboard/dashboard.css"
AA_NORMAL_TEXT = 4.5


def _variables(css: str) -> dict[str, str]:
    root = re.search(r":root\s*{(.*?)}", css, re.S).group(1)
    return dict(re.findall(r"(--[\w-]+)\s*:\s*(#[0-9a-fA-F]{6})", root))


def _resolve(value: str, variables: dict[str, str]) -> str:
    value = value.strip()
    match = re.fullmatch(r"var\((--[\w-]+)\)", value)
    return variables[match.group(1)] if match else value


def _luminance(hex_colour: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(foreground: str, background: str) -> float:
    """WCAG 2 contrast ratio of two #rrggbb colours."""
    high, low = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def badge_colours() -> list[tuple[str, str, str]]:
    """(selector, text colour, background) of every badge rule that sets both."""
    css = CSS.read_text()
    variables = _variables(css)
    out = []
    for selector, body in re.findall(r"([^{}]*\.badge[^{}]*){([^{}]*)}", css):
        props = dict(re.findall(r"([\w-]+)\s*:\s*([^;]+);", body))
        if "color" in props and "background" in props:
            out.append(
                (
                    selector.strip(),
                    _resolve(props["color"], variables),
                    _resolve(props["background"], variables),
                )
            )
    return out


def test_the_contrast_formula_matches_known_values():
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_every_badge_has_a_contrast_of_at_least_4_5():
    colours = badge_colours()
    assert len(colours) >= 6  # the default badge and each coloured family
    for selector, foreground, background in colours:
        ratio = contrast(foreground, background)
        assert ratio >= AA_NORMAL_TEXT, f"{selector}: {foreground} on {background} is {ratio:.2f}"


@pytest.fixture
def every_page(client, tenant_a):
    user = staff_owner(tenant_a.tenant, make_user)
    urls = fill(tenant_a.tenant, user)
    client.force_login(user)
    return {name: client.get(url) for name, url in urls.items()}


def test_every_page_answers_200(every_page):
    assert {name: r.status_code for name, r in every_page.items() if r.status_code != 200} == {}


def test_no_page_has_an_empty_header_cell(every_page):
    for name, response in every_page.items():
        soup = BeautifulSoup(response.content, "html.parser")
        empty = [str(th) for th in soup.find_all("th") if not th.get_text(strip=True)]
        assert empty == [], f"{name}: {empty}"


def test_every_option_group_is_a_fieldset_with_a_legend(every_page):
    groups_seen = 0
    for name, response in every_page.items():
        soup = BeautifulSoup(response.content, "html.parser")
        names = [i["name"] for i in soup.find_all("input", type=["checkbox", "radio"])]
        for group in {n for n in names if names.count(n) > 1}:
            for box in soup.find_all("input", attrs={"name": group}):
                fieldset = box.find_parent("fieldset")
                assert fieldset is not None, f"{name}: {group} is not in a fieldset"
                legend = fieldset.find("legend")
                assert legend is not None, f"{name}: {group} has no legend"
                assert legend.get_text(strip=True), f"{name}: {group} has an empty legend"
            groups_seen += 1
    # allowed modes, skipped query types, search sources, webhook events, feedback outcome...
    assert groups_seen >= 4


def test_every_page_links_the_favicon(every_page, client):
    for name, response in every_page.items():
        soup = BeautifulSoup(response.content, "html.parser")
        icon = soup.find("link", rel="icon")
        assert icon is not None, name
        assert icon["href"].endswith("favicon.svg")
    assert (CSS.parent / "favicon.svg").read_text().startswith("<svg")


def test_the_mobile_menu_button_names_what_it_controls(every_page):
    soup = BeautifulSoup(every_page["overview"].content, "html.parser")
    button = soup.find("button", id="menu-toggle")
    assert button["aria-controls"] == "side-menu"
    assert button["aria-expanded"] == "false"
    assert soup.find(id="side-menu").find("nav") is not None
