from django.urls import path, re_path

from .views import (
    auth,
    billing,
    detail,
    history,
    keys,
    knowledge,
    modes,
    overview,
    policy,
    policy_history,
    policy_test,
    webhooks,
)

app_name = "dashboard"
MONTH = r"(?P<month>\d{4}-\d{2})"

urlpatterns = [
    path("", overview.overview_page, name="overview"),
    path("login/", auth.LoginView.as_view(), name="login"),
    path("logout/", auth.LogoutView.as_view(), name="logout"),
    path("tenant/", auth.switch, name="switch-tenant"),
    path("verifications/", history.history, name="history"),
    path("verifications/<str:public_id>/", detail.detail, name="verification"),
    path("policy/", policy.editor, name="policy"),
    path("policy/export.yaml", policy.export_yaml, name="policy-export"),
    path("policy/import/", policy.import_yaml, name="policy-import"),
    path("policy/history/", policy_history.history, name="policy-history"),
    path("policy/test/", policy_test.test_policy, name="policy-test"),
    path("modes/", modes.modes, name="modes"),
    path("knowledge/", knowledge.bases, name="knowledge"),
    path("knowledge/<str:kb_id>/", knowledge.base, name="knowledge-base"),
    path(
        "knowledge/<str:kb_id>/documents/<str:doc_id>/",
        knowledge.document,
        name="knowledge-document",
    ),
    path(
        "knowledge/<str:kb_id>/documents/<str:doc_id>/delete/",
        knowledge.delete_document,
        name="knowledge-document-delete",
    ),
    path("keys/", keys.keys, name="keys"),
    path("keys/<int:pk>/revoke/", keys.revoke, name="key-revoke"),
    path("webhooks/", webhooks.webhooks, name="webhooks"),
    path("webhooks/secret/", webhooks.secret_shown, name="secret-shown"),
    path("webhooks/secret/rotate/", webhooks.rotate_tenant_secret, name="tenant-secret-rotate"),
    path("webhooks/endpoints/<int:pk>/rotate/", webhooks.rotate, name="endpoint-rotate"),
    path("webhooks/endpoints/<int:pk>/test/", webhooks.test_event, name="endpoint-test"),
    path("webhooks/endpoints/<int:pk>/toggle/", webhooks.toggle, name="endpoint-toggle"),
    path("webhooks/endpoints/<int:pk>/delete/", webhooks.delete, name="endpoint-delete"),
    path("webhooks/deliveries/<int:pk>/", webhooks.delivery, name="delivery"),
    path("webhooks/deliveries/<int:pk>/replay/", webhooks.replay_delivery, name="delivery-replay"),
    path("billing/", billing.billing, name="billing"),
    re_path(rf"^billing/{MONTH}/$", billing.billing, name="billing-month"),
    re_path(rf"^billing/{MONTH}\.csv$", billing.report_csv, name="billing-csv"),
    re_path(rf"^billing/{MONTH}\.json$", billing.report_json, name="billing-json"),
    path("revenue/", billing.revenue, name="revenue"),
]
