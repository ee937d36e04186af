"""Screenshot the main dashboard pages of a running server with headless Chromium.

    python manage.py demo_dashboard --password demo-pass
    python manage.py runserver 127.0.0.1:8000 &
    python manage.py dashboard_screenshots --password demo-pass --out docs/screenshots

Uses the system Chromium through Playwright (never downloads a browser).
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from verification.models import VerificationJob, WebhookDelivery

# Chromium flags for a quiet headless run; the browser tests launch it the same way.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class Command(BaseCommand):
    help = "Save PNG screenshots of the main dashboard pages (run demo_dashboard first)."

    def add_arguments(self, parser):
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", required=True)
        parser.add_argument("--out", default="docs/screenshots")
        parser.add_argument("--chromium", default="/usr/bin/chromium")
        parser.add_argument("--width", type=int, default=1440)

    def _pages(self) -> dict[str, str]:
        job = (
            VerificationJob.objects.filter(
                tenant__slug="demo", plan__mode="premium", iterations__gt=0
            )
            .order_by("-created_at")
            .first()
            or VerificationJob.objects.filter(tenant__slug="demo").order_by("-created_at").first()
        )
        refined = (
            VerificationJob.objects.filter(
                tenant__slug="demo", plan__mode="standard", iterations__gt=1
            )
            .order_by("-created_at")
            .first()
        )
        delivery = (
            WebhookDelivery.objects.filter(tenant__slug="demo", status="failed")
            .order_by("-pk")
            .first()
        )
        pages = {
            "login": "/dashboard/login/",
            "overview": "/dashboard/",
            "verifications": "/dashboard/verifications/",
            "policy": "/dashboard/policy/",
            "policy-history": "/dashboard/policy/history/",
            "modes": "/dashboard/modes/",
            "keys": "/dashboard/keys/",
            "webhooks": "/dashboard/webhooks/",
            "billing": "/dashboard/billing/",
            "revenue": "/dashboard/revenue/",
        }
        if job:
            pages["verification-premium"] = f"/dashboard/verifications/{job.public_id}/"
        if refined:
            pages["verification-standard"] = f"/dashboard/verifications/{refined.public_id}/"
        if delivery:
            pages["webhook-delivery"] = f"/dashboard/webhooks/deliveries/{delivery.pk}/"
        return pages

    def handle(self, *args, **opts):
        try:
            # playwright is a dev dependency: only this command needs it
            from playwright.sync_api import sync_playwright
        except ImportError as exc:
            raise CommandError(
                "pip install playwright (the browser itself comes from the system)"
            ) from exc
        out = Path(opts["out"])
        out.mkdir(parents=True, exist_ok=True)
        base = opts["base_url"].rstrip("/")
        pages = self._pages()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=opts["chromium"], args=ARGS)
            context = browser.new_context(viewport={"width": opts["width"], "height": 900})
            page = context.new_page()
            page.goto(base + pages.pop("login"))
            page.screenshot(path=str(out / "login.png"))
            page.get_by_label("Username").fill(opts["username"])
            page.get_by_label("Password").fill(opts["password"])
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(base + "/dashboard/")
            for name, path in pages.items():
                page.goto(base + path)
                page.wait_for_load_state("networkidle")
                page.screenshot(path=str(out / f"{name}.png"), full_page=True)
                self.stdout.write(f"  {out / name}.png")
            self._policy_test(page, base, out)
            mobile = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            mobile.context.add_cookies(context.cookies())  # type: ignore[arg-type]
            mobile.goto(base + "/dashboard/")
            mobile.wait_for_load_state("networkidle")
            mobile.screenshot(path=str(out / "overview-mobile.png"))
            browser.close()

    def _policy_test(self, page, base: str, out: Path) -> None:
        page.goto(base + "/dashboard/policy/test/")
        page.fill(
            "#id_context",
            "Metformin is usually started at 500 mg once or twice daily with "
            "meals. The dose may be increased gradually to a maximum of 2,000 mg per day.",
        )
        page.fill("#id_query", "What is the maximum daily dose of metformin?")
        page.fill(
            "#id_response",
            "The maximum daily dose of metformin is 3,000 mg, taken on an empty stomach.",
        )
        page.get_by_role("button", name="Run verification").click()
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(out / "policy-test.png"), full_page=True)
