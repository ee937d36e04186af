"""Set up (idempotently) the demo tenant and print a fresh key and a ready-to-paste curl."""

import json
import shlex

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

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
            _, token = ApiKey.issue(tenant, name="demo")
        base = settings.TRUTHLENS["PUBLIC_BASE_URL"].rstrip("/")
        body = json.dumps(DEMO_REQUEST)
        self.stdout.write(
            "\nTruthLens demo tenant ready.\n"
            f"  API key: {token}\n\n"
            "Try it:\n"
            f"  curl -s -X POST {base}/v1/verifications \\\n"
            f"    -H 'Authorization: Bearer {token}' -H 'Content-Type: application/json' \\\n"
            f"    -d {shlex.quote(body)}\n"
        )
