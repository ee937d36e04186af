from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from tenants.models import ApiKey, Tenant


class Command(BaseCommand):
    help = "Create a tenant and print its first API key (shown once)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--name", default="")
        parser.add_argument("--read-only", action="store_true", help="issue a read-only key")

    def handle(self, *args, slug, name, read_only, **options):
        if Tenant.objects.filter(slug=slug).exists():
            raise CommandError(f"tenant {slug!r} already exists")
        with transaction.atomic():
            tenant = Tenant(slug=slug, name=name or slug)
            secret = tenant.rotate_webhook_secret()
            tenant.save()
            scope = ApiKey.SCOPE_READ if read_only else ApiKey.SCOPE_WRITE
            _, token = ApiKey.issue(tenant, scope=scope)
        self.stdout.write(
            f"tenant: {tenant.slug}\napi key: {token}\nwebhook signing secret: {secret}"
        )
