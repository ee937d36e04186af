"""Pagination that says so when a page does not exist, instead of quietly showing another."""

from __future__ import annotations

from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator


def page_or_first(paginator: Paginator, raw: str | None) -> tuple[Page, str]:
    """The page asked for, or page 1 with a message when `raw` is not a page of this list
    (Django's `get_page` would show the *last* page for 999, which reads as real data)."""
    if raw in (None, ""):
        return paginator.page(1), ""
    try:
        return paginator.page(raw), ""
    except PageNotAnInteger:
        problem = f"{raw!r} is not a page number"
    except EmptyPage:
        problem = f"there is no page {raw} (pages 1 to {paginator.num_pages})"
    return paginator.page(1), f"{problem[0].upper()}{problem[1:]}; showing page 1."
