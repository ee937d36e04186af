"""Knowledge bases: create, upload documents, watch indexing, read a document at a passage."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.db.models import Count
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from knowledge import actions
from knowledge.ids import parse_doc_id, parse_kb_id
from knowledge.models import Document, DocumentVersion, KnowledgeBase, WebSearchSettings
from knowledge.restore import restore_recorded
from knowledge.retrieval import MIN_SIMILARITY, search
from security.urlguard import UnsafeUrl, check_url
from tenants.audit import record

from ..scoping import tenant_view


class NewBaseForm(forms.Form):
    name = forms.CharField(max_length=100)
    description = forms.CharField(max_length=500, required=False)


class WebSearchForm(forms.ModelForm):
    api_key = forms.CharField(
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="Stored encrypted and never shown again; leave empty to keep the current key.",
    )

    class Meta:
        model = WebSearchSettings
        fields = ["provider", "api_base", "price_per_query_usd", "max_results"]

    def clean_api_base(self) -> str:
        value = self.cleaned_data["api_base"]
        if value:
            try:
                check_url(value, settings.TRUTHLENS["WEBHOOK_ALLOWED_HOSTS"])
            except UnsafeUrl as exc:
                raise forms.ValidationError(str(exc)) from exc
        return value


class SearchForm(forms.Form):
    """The search tool: what retrieval gives a claim (as `POST .../search` does)."""

    q = forms.CharField(label="Claim", max_length=5000)
    top_k = forms.IntegerField(
        label="Passages", min_value=1, max_value=50, initial=10, required=False
    )


class UploadForm(forms.Form):
    file = forms.FileField(help_text="Plain text, Markdown, HTML or PDF (with a text layer).")


@tenant_view(edit=True)
def bases(request, scope):
    current = WebSearchSettings.objects.filter(tenant=scope.tenant).first()
    is_search = request.method == "POST" and "provider" in request.POST
    search_form = WebSearchForm(request.POST if is_search else None, instance=current)
    if is_search and search_form.is_valid():
        fields = {name: search_form.cleaned_data[name] for name in WebSearchForm.Meta.fields}
        key = search_form.cleaned_data["api_key"]
        if current is None and not key:
            search_form.add_error("api_key", "A new provider needs its API key.")
        else:
            saved = actions.save_web_search(
                scope.tenant, {**fields, **({"api_key": key} if key else {})}
            )
            record(
                request,
                "web_search.changed",
                saved,
                details={"provider": saved.provider, "new_key": bool(key)},
            )
            messages.success(request, "Web search provider saved.")
            return redirect("dashboard:knowledge")
    form = NewBaseForm(request.POST if request.method == "POST" and not is_search else None)
    if request.method == "POST" and not is_search and form.is_valid():
        try:
            kb = actions.create_knowledge_base(
                scope.tenant, form.cleaned_data["name"], form.cleaned_data["description"]
            )
        except (actions.LimitExceeded, actions.DuplicateName) as exc:
            form.add_error("name", str(exc))
        else:
            record(request, "knowledge_base.created", kb, details={"name": kb.name})
            messages.success(request, f"Knowledge base “{kb.name}” created.")
            return redirect("dashboard:knowledge-base", kb_id=kb.public_id)
    listing = scope.filter(
        KnowledgeBase.objects.annotate(document_count=Count("documents"))
    ).order_by("name")
    return render(
        request,
        "dashboard/knowledge_bases.html",
        {
            "nav": "knowledge",
            "form": form,
            "bases": listing,
            "search_form": search_form,
            "search": current,
        },
    )


def _kb(scope, kb_id: str) -> KnowledgeBase:
    return scope.get_or_404(KnowledgeBase.objects.all(), pk=parse_kb_id(kb_id))


@tenant_view(edit=True)
def base(request, scope, kb_id: str):
    kb = _kb(scope, kb_id)
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and scope.can_edit and form.is_valid():
        f = form.cleaned_data["file"]
        try:
            upload = actions.Upload(f.name, f.content_type or "", f.read())
            doc = actions.add_document(kb, upload, on_duplicate="refuse")
        except (actions.LimitExceeded, actions.UnsupportedFormat) as exc:
            form.add_error("file", str(exc))
        except actions.DuplicateFile as exc:
            form.add_error("file", f"this file is already here, as “{exc.existing.name}”")
        else:
            record(
                request,
                "document.created",
                doc,
                details={"name": doc.name, "knowledge_base": kb.public_id},
            )
            messages.success(request, f"“{doc.name}” uploaded; indexing has started.")
            return redirect("dashboard:knowledge-base", kb_id=kb.public_id)  # no re-post
    documents = list(
        Document.objects.filter(knowledge_base=kb).defer("raw", "text").order_by("name")
    )
    history: dict = {}
    for v in (
        DocumentVersion.objects.filter(document__in=documents)
        .defer("raw", "text")
        .order_by("-number")
    ):
        history.setdefault(v.document_id, []).append(v)
    for d in documents:
        d.history = history.get(d.pk, [])
    search_form = SearchForm(request.GET if "q" in request.GET else None)
    hits = None
    if search_form.is_bound and search_form.is_valid():
        hits = search(
            scope.tenant.pk,
            [kb.pk],
            search_form.cleaned_data["q"],
            k=search_form.cleaned_data["top_k"] or 10,
        )
    return render(
        request,
        "dashboard/knowledge_base.html",
        {
            "nav": "knowledge",
            "kb": kb,
            "form": form,
            "documents": documents,
            "search_form": search_form,
            "hits": hits,
            "evidence_threshold": MIN_SIMILARITY,
        },
    )


@require_POST
@tenant_view(edit=True)
def restore_version(request, scope, kb_id: str, doc_id: str, number: int):
    """Serve an earlier version again (a new version with its file, indexed like a replacement)."""
    kb = _kb(scope, kb_id)
    doc = scope.get_or_404(
        Document.objects.filter(knowledge_base=kb).defer("raw", "text"), pk=parse_doc_id(doc_id)
    )
    version = restore_recorded(request, doc, number)
    messages.success(
        request,
        f"Version {number} of “{doc.name}” is being indexed again as version {version.number}; "
        f"version {doc.version} is served until it is ready.",
    )
    return redirect("dashboard:knowledge-base", kb_id=kb.public_id)


@require_POST
@tenant_view(edit=True)
def delete_document(request, scope, kb_id: str, doc_id: str):
    kb = _kb(scope, kb_id)
    doc = scope.get_or_404(Document.objects.filter(knowledge_base=kb), pk=parse_doc_id(doc_id))
    actions.delete_document(doc)
    record(
        request, "document.deleted", doc, details={"name": doc.name, "knowledge_base": kb.public_id}
    )
    messages.success(request, f"“{doc.name}” deleted; its passages no longer match any search.")
    return redirect("dashboard:knowledge-base", kb_id=kb.public_id)


@tenant_view(edit=False)
def document(request, scope, kb_id: str, doc_id: str):
    """The document's text, with `?start=&end=` (offsets in it) marked: where evidence points."""
    kb = _kb(scope, kb_id)
    doc = scope.get_or_404(
        Document.objects.filter(knowledge_base=kb).defer("raw"), pk=parse_doc_id(doc_id)
    )
    text, shown = doc.text, doc.version
    asked = request.GET.get("version", "")
    if asked.isdigit() and int(asked) != doc.version:  # evidence cited from an older version
        old = DocumentVersion.objects.filter(document=doc, number=int(asked)).first()
        if old is not None and old.text:
            text, shown = old.text, old.number
    try:
        start = max(0, min(len(text), int(request.GET.get("start", ""))))
        end = max(start, min(len(text), int(request.GET.get("end", ""))))
    except ValueError:
        start = end = 0
    return render(
        request,
        "dashboard/knowledge_document.html",
        {
            "nav": "knowledge",
            "kb": kb,
            "doc": doc,
            "shown_version": shown,
            "before": text[:start],
            "marked": text[start:end],
            "after": text[end:],
        },
    )
