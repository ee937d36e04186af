"""Set up (idempotently) the demo tenant and print a fresh key and a ready-to-paste curl."""

import json
import shlex

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from knowledge import actions as kb_actions
from knowledge.models import KnowledgeBase
from tenants import auth_cache
from tenants.models import ApiKey, Tenant

DEMO_REQUEST = {
    "context": [
        "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was built from 1887 to "
        "1889 as the entrance to the 1889 World's Fair and is 330 metres tall."
    ],
    "query": "When was the Eiffel Tower built and how tall is it?",
    "response": "The Eiffel Tower was built in 1950 and is 330 metres tall.",
    "wait": 20,
}
#: The demo tenant's knowledge base: answers without a context are checked against it.
DEMO_DOCUMENTS = {
    "eiffel-tower.md": (
        "# The Eiffel Tower\n\nThe Eiffel Tower is a wrought-iron lattice tower on the Champ de "
        "Mars in Paris. It was designed by the engineering company of Gustave Eiffel and built "
        "from 1887 to 1889 as the entrance arch of the 1889 World's Fair.\n\nThe tower is 330 "
        "metres tall. It was the tallest man-made structure in the world until the Chrysler "
        "Building in New York was finished in 1930."
    ),
    "returns-policy.txt": (
        "Returns policy. Items can be returned within 30 days of delivery with the original "
        "receipt. Items on sale cannot be returned. Refunds are issued to the original payment "
        "method within 5 business days."
    ),
}
DEMO_KB_REQUEST = {
    "query": "Can I return a sale item?",
    "response": "Yes, sale items can be returned within 30 days with the receipt.",
    "wait": 20,
}


def demo_knowledge_base(tenant: Tenant) -> KnowledgeBase:
    """The demo handbook, with its documents queued for indexing the first time."""
    kb, created = KnowledgeBase.objects.get_or_create(
        tenant=tenant, name="Demo handbook", defaults={"description": "make run's demo documents"}
    )
    if created:
        for name, text in DEMO_DOCUMENTS.items():
            kind = "text/markdown" if name.endswith(".md") else "text/plain"
            kb_actions.add_document(kb, kb_actions.Upload(name, kind, text.encode()))
    return kb


class Command(BaseCommand):
    help = "Create the demo tenant if needed, issue a new demo key, print a curl to try it."

    def handle(self, *args, **options):
        with transaction.atomic():
            tenant, created = Tenant.objects.get_or_create(slug="demo", defaults={"name": "Demo"})
            if created or not tenant.webhook_secret_encrypted:
                tenant.rotate_webhook_secret()
                tenant.save()
            # Keys are stored hashed, so a new one is issued on each run and older demo keys revoked.
            ApiKey.objects.filter(tenant=tenant, name="demo", revoked_at__isnull=True).update(
                revoked_at=timezone.now()
            )
            auth_cache.invalidate()  # .update() sends no signal
            _, token = ApiKey.issue(tenant, name="demo")
            kb = demo_knowledge_base(tenant)
        base = settings.TRUTHLENS["PUBLIC_BASE_URL"].rstrip("/")
        body = json.dumps(DEMO_REQUEST)
        self.stdout.write(
            "\nTruthLens demo tenant ready.\n"
            f"  API key: {token}\n\n"
            "Try it:\n"
            f"  curl -s -X POST {base}/v1/verifications \\\n"
            f"    -H 'Authorization: Bearer {token}' -H 'Content-Type: application/json' \\\n"
            f"    -d {shlex.quote(body)}\n\n"
            "Check an answer that came without a context against the demo knowledge base\n"
            f"({kb.public_id}; its documents are indexed by the worker once it runs):\n"
            f"  curl -s -X POST {base}/v1/verifications \\\n"
            f"    -H 'Authorization: Bearer {token}' -H 'Content-Type: application/json' \\\n"
            f"    -d {shlex.quote(json.dumps({**DEMO_KB_REQUEST, 'knowledge_base': kb.public_id}))}\n"
        )
