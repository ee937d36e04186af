from django.urls import path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularJSONAPIView,
    SpectacularSwaggerView,
)

from .views.anthropic import Messages
from .views.billing import BillingReportView
from .views.datasets import DatasetDetail, DatasetDownload, DatasetList
from .views.gateway import ChatCompletions
from .views.knowledge import (
    DocumentDetail,
    DocumentList,
    KnowledgeBaseDetail,
    KnowledgeBaseList,
    WebSearchView,
)
from .views.knowledge_ingest import DocumentBatch
from .views.knowledge_search import DocumentPassages, DocumentText, KnowledgeBaseSearch
from .views.knowledge_versions import (
    DocumentFile,
    DocumentVersionDetail,
    DocumentVersionFile,
    DocumentVersionList,
    DocumentVersionRestore,
)
from .views.llm_providers import LLMProviderDetail, LLMProviderList, LLMProviderTest, LLMRoles
from .views.usage import UsageView
from .views.verifications import VerificationDetail, VerificationFeedback, VerificationListCreate
from .views.webhooks import WebhookEndpointDetail, WebhookEndpointList, WebhookEndpointRotate

urlpatterns = [
    path("verifications", VerificationListCreate.as_view(), name="verifications"),
    path("verifications/<str:public_id>", VerificationDetail.as_view(), name="verification"),
    path(
        "verifications/<str:public_id>/feedback",
        VerificationFeedback.as_view(),
        name="verification-feedback",
    ),
    path("knowledge-bases", KnowledgeBaseList.as_view(), name="knowledge-bases"),
    path("knowledge-bases/<str:kb_id>", KnowledgeBaseDetail.as_view(), name="knowledge-base"),
    path("knowledge-bases/<str:kb_id>/documents", DocumentList.as_view(), name="kb-documents"),
    path(
        "knowledge-bases/<str:kb_id>/documents/batch",
        DocumentBatch.as_view(),
        name="kb-documents-batch",
    ),
    path(
        "knowledge-bases/<str:kb_id>/documents/<str:doc_id>",
        DocumentDetail.as_view(),
        name="kb-document",
    ),
    path(
        "knowledge-bases/<str:kb_id>/documents/<str:doc_id>/text",
        DocumentText.as_view(),
        name="kb-document-text",
    ),
    path(
        "knowledge-bases/<str:kb_id>/documents/<str:doc_id>/passages",
        DocumentPassages.as_view(),
        name="kb-document-passages",
    ),
    path("knowledge-bases/<str:kb_id>/search", KnowledgeBaseSearch.as_view(), name="kb-search"),
    path(
        "knowledge-bases/<str:kb_id>/documents/<str:doc_id>/file",
        DocumentFile.as_view(),
        name="kb-document-file",
    ),
    path(
        "knowledge-bases/<str:kb_id>/documents/<str:doc_id>/versions",
        DocumentVersionList.as_view(),
        name="kb-document-versions",
    ),
    path(
        "knowledge-bases/<str:kb_id>/documents/<str:doc_id>/versions/<int:number>",
        DocumentVersionDetail.as_view(),
        name="kb-document-version",
    ),
    path(
        "knowledge-bases/<str:kb_id>/documents/<str:doc_id>/versions/<int:number>/file",
        DocumentVersionFile.as_view(),
        name="kb-document-version-file",
    ),
    path(
        "knowledge-bases/<str:kb_id>/documents/<str:doc_id>/versions/<int:number>/restore",
        DocumentVersionRestore.as_view(),
        name="kb-document-version-restore",
    ),
    path("datasets", DatasetList.as_view(), name="datasets"),
    path("datasets/<str:dataset_id>", DatasetDetail.as_view(), name="dataset"),
    path("datasets/<str:dataset_id>/download", DatasetDownload.as_view(), name="dataset-download"),
    path("web-search", WebSearchView.as_view(), name="web-search"),
    path("llm-providers", LLMProviderList.as_view(), name="llm-providers"),
    path("llm-providers/<int:pk>", LLMProviderDetail.as_view(), name="llm-provider"),
    path("llm-providers/<int:pk>/test", LLMProviderTest.as_view(), name="llm-provider-test"),
    path("llm-roles", LLMRoles.as_view(), name="llm-roles"),
    path("usage", UsageView.as_view(), name="usage"),
    path("billing/reports/<str:month>", BillingReportView.as_view(), name="billing-report"),
    path("chat/completions", ChatCompletions.as_view(), name="chat-completions"),
    path("messages", Messages.as_view(), name="messages"),
    path("webhook-endpoints", WebhookEndpointList.as_view(), name="webhook-endpoints"),
    path("webhook-endpoints/<int:pk>", WebhookEndpointDetail.as_view(), name="webhook-endpoint"),
    path(
        "webhook-endpoints/<int:pk>/rotate-secret",
        WebhookEndpointRotate.as_view(),
        name="webhook-endpoint-rotate",
    ),
    path(
        "schema",
        SpectacularAPIView.as_view(authentication_classes=[], permission_classes=[]),
        name="schema",
    ),
    # the stable address of the schema, always JSON (the SDK's models are checked against it)
    path(
        "openapi.json",
        SpectacularJSONAPIView.as_view(authentication_classes=[], permission_classes=[]),
        name="openapi-json",
    ),
    path(
        "docs",
        SpectacularSwaggerView.as_view(
            url_name="schema", authentication_classes=[], permission_classes=[]
        ),
        name="docs",
    ),
]
