"""Restoring a document's earlier version for a request (the API's and the dashboard's)."""

from __future__ import annotations

from django.http import Http404

from tenants.audit import record

from . import actions
from .models import Document, DocumentVersion


def restore_recorded(request, doc: Document, number: int) -> DocumentVersion:
    """Serve version `number` of `doc` again (`actions.restore_version`) and record it in the
    tenant's audit log; Http404 when the document has no such version."""
    try:
        version = actions.restore_version(doc, number)
    except actions.NoSuchVersion as exc:
        raise Http404(str(exc)) from exc
    record(
        request,
        "document.restored",
        doc,
        details={"name": doc.name, "restored_from": number, "version": version.number},
    )
    return version
