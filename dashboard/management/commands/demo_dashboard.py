"""Fill the dashboard with a realistic month for the demo tenant and print a sign-in.

Idempotent: plans, tenants and users are reused; the generated jobs (tagged
`metadata.demo_dashboard`) are replaced on every run, and the demo user's
password is reset and printed. Deterministic (`--seed`) so screenshots match.
"""

from __future__ import annotations

import random
import secrets
from datetime import timedelta
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from dashboard.demo_scenarios import DEMO_POLICY, MODEL_PRICE, MODELS, PLANS, SCENARIOS
from dashboard.models import PolicyChange
from dashboard.policy.actions import save_policy
from engine import PolicyDocument, risk_level
from tenants.models import ApiKey, Membership, Plan, Tenant, WebhookEndpoint
from verification.billing.usage import price_for
from verification.models import (
    DetectedSpan,
    Feedback,
    MitigationStep,
    ModeArm,
    UsageRecord,
    VerificationJob,
    WebhookAttempt,
    WebhookDelivery,
)

TAG = "demo_dashboard"


class Command(BaseCommand):
    help = "Create demo plans, tenants, a staff/owner user and a month of verifications for the dashboard."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="", help="default: a new random one, printed")
        parser.add_argument("--jobs", type=int, default=240)
        parser.add_argument("--seed", type=int, default=7)

    def handle(self, *args, **opts):
        rng = random.Random(opts["seed"])
        password = opts["password"] or secrets.token_urlsafe(9)
        with transaction.atomic():
            plans = {name: self._plan(name, *spec) for name, spec in PLANS.items()}
            demo = self._tenant("demo", "Demo", plans["growth"])
            acme = self._tenant("acme", "Acme Support", plans["enterprise"])
            user = self._user(opts["username"], password, demo)
            self._policy(demo, user)
            self._endpoints(demo)
            if not ApiKey.objects.filter(tenant=demo, name="dashboard-demo").exists():
                ApiKey.issue(
                    demo, name="dashboard-demo"
                )  # listed on the keys page; `demo` prints usable keys
            now = timezone.now()
            jobs = self._jobs(demo, rng, opts["jobs"], now)
            self._jobs(acme, rng, opts["jobs"] // 3, now)
            self._deliveries(demo, jobs[:40], rng)
        self.stdout.write(
            "\nTruthLens dashboard demo ready.\n"
            f"  Sign in at /dashboard/login/ as  {user.get_username()}  /  {password}\n"
            f"  ({user.get_username()} is staff and owner of tenant 'demo'; {len(jobs)} demo verifications)\n"
        )

    # --- set-up ------------------------------------------------------------
    def _plan(self, name, per_mode, per_1k, markup, rate, quota) -> Plan:
        plan, _ = Plan.objects.update_or_create(
            name=name,
            defaults={
                "price_per_verification": per_mode,
                "price_per_1k_detector_tokens": Decimal(per_1k),
                "llm_markup": Decimal(markup),
                "rate_limit": rate,
                "monthly_quota": quota,
                "is_public": True,
            },
        )
        return plan

    def _tenant(self, slug, name, plan) -> Tenant:
        tenant, _ = Tenant.objects.get_or_create(slug=slug, defaults={"name": name})
        tenant.plan = plan
        if not tenant.webhook_secret_encrypted:
            tenant.rotate_webhook_secret()
        tenant.save()
        return tenant

    def _user(self, username, password, tenant):
        user, _ = get_user_model().objects.get_or_create(
            username=username, defaults={"email": f"{username}@example.com"}
        )
        user.is_staff = True
        user.set_password(password)
        user.save()
        Membership.objects.update_or_create(
            user=user, tenant=tenant, defaults={"role": Membership.OWNER}
        )
        return user

    def _policy(self, tenant, user) -> None:
        if not PolicyChange.objects.filter(tenant=tenant).exists():
            first = dict(
                DEMO_POLICY,
                decisions=DEMO_POLICY["decisions"][:2],
                threshold=0.6,
                default_mode="standard",
            )
            save_policy(
                tenant, user, PolicyDocument.model_validate(first), PolicyChange.YAML_IMPORT
            )
        # a no-op (no history row) when the demo policy is already in force
        save_policy(tenant, user, PolicyDocument.model_validate(DEMO_POLICY), PolicyChange.EDITOR)

    def _endpoints(self, tenant) -> None:
        for url in (
            "https://hooks.example.com/truthlens",
            "https://ops.example.org/alerts/hallucinations",
        ):
            # Inactive: demo data must never make the local stack call a real host
            # (example.com resolves to IANA's servers on a connected machine).
            endpoint = WebhookEndpoint.objects.filter(tenant=tenant, url=url).first()
            if endpoint is None:
                endpoint = WebhookEndpoint(tenant=tenant, url=url, is_active=False)
                endpoint.set_new_secret()
                endpoint.save()
            elif endpoint.is_active:
                endpoint.is_active = False
                endpoint.save(update_fields=["is_active"])

    # --- jobs ----------------------------------------------------------------
    def _jobs(self, tenant, rng, count, now) -> list[VerificationJob]:
        VerificationJob.objects.filter(tenant=tenant, metadata__has_key=TAG).delete()
        jobs, spans, usage, feedback = [], [], [], []
        usage_by_job: dict[int, dict] = {}
        for _ in range(count):
            qtype, context, query, answer, found, corrected = rng.choice(SCENARIOS)
            created = now - timedelta(days=rng.random() ** 1.3 * 30, seconds=rng.randint(0, 3600))
            skipped = qtype == "creative"
            decision = (
                "creative"
                if skipped
                else "medical"
                if "metformin" in query
                else "support"
                if "refund" in query
                else "default"
            )
            fixed = {"creative": "lightweight", "medical": "premium", "support": "standard"}
            mode = (
                fixed.get(decision)
                or rng.choices(["lightweight", "standard", "premium"], [4, 5, 1])[0]
            )
            # most flagged answers score high; some are borderline
            noise = rng.uniform(-0.08, 0.05) if rng.random() < 0.75 else rng.uniform(-0.5, -0.2)
            score = (
                None
                if skipped
                else (max(c for _, _, c, _ in found) + noise if found else rng.uniform(0.02, 0.25))
            )
            score = None if score is None else round(min(0.99, max(0.01, score)), 3)
            threshold = 0.3 if decision == "medical" else 0.5
            detected = None if score is None else score >= threshold
            refined = bool(detected and corrected and mode != "lightweight")
            detector_tokens = 60 + len(" ".join(context) + answer) // 4
            latency = {"queue": rng.randint(2, 40), "detect": rng.randint(18, 90)}
            if refined:
                latency["mitigate"] = rng.randint(700, 2600) * (3 if mode == "premium" else 1)
            latency["total"] = sum(latency.values())
            job = VerificationJob(
                tenant=tenant,
                status="completed",
                context=context,
                query=query,
                response=answer,
                model="openai/gpt-4o-mini",
                requested_mode="auto",
                query_type=qtype,
                query_type_confidence=round(rng.uniform(0.7, 0.99), 2),
                decision=decision,
                mode=mode,
                mode_source="policy" if decision in fixed else "bandit",
                enabled=not skipped,
                verification_status="skipped" if skipped else "verified",
                reason="creative queries are not checked by policy" if skipped else "",
                score=score,
                model_score=score,
                threshold=threshold,
                detected=detected,
                risk_level="" if score is None else risk_level(score),
                final_response=corrected if refined else answer,
                iterations=(1 if mode == "premium" else rng.randint(1, 3)) if refined else 0,
                final_score=round(rng.uniform(0.03, 0.22), 3) if refined else score,
                warning="Parts of this answer may not be supported by the provided context."
                if detected and mode == "lightweight"
                else "",
                detector="embedded",
                detector_tokens=detector_tokens,
                created_at=created,
                enqueued_at=created,
                started_at=created,
                completed_at=created + timedelta(milliseconds=latency["total"]),
                latency_ms=latency,
                metadata={TAG: True},
            )
            jobs.append(job)
            for text, label, conf, evidence in found:
                start = answer.index(text)
                ev_start = context[0].find(evidence) if context else -1
                spans.append(
                    DetectedSpan(
                        job=job,
                        start=start,
                        end=start + len(text),
                        text=text,
                        label=label,
                        confidence=round(min(0.99, max(0.5, conf + noise)), 3),
                        evidence=evidence,
                        reason="conflicts with the context"
                        if label == "contradiction"
                        else "not stated in the context",
                        evidence_passage=0 if ev_start >= 0 else None,
                        evidence_start=ev_start if ev_start >= 0 else None,
                        evidence_end=ev_start + len(evidence) if ev_start >= 0 else None,
                    )
                )
            per_model, cost = {}, Decimal(0)
            if refined:
                for model in MODELS[mode]:
                    p_in, p_out = rng.randint(600, 1800), rng.randint(80, 260)
                    price_in, price_out = MODEL_PRICE[model]
                    c = Decimal(str(round((p_in * price_in + p_out * price_out) / 1e6, 8)))
                    per_model[model] = {
                        "calls": job.iterations if model == MODELS[mode][0] else 1,
                        "prompt_tokens": p_in,
                        "completion_tokens": p_out,
                        "cost_usd": float(c),
                    }
                    cost += c
            price = price_for(job, cost)
            usage_by_job[id(job)] = per_model
            usage.append(
                UsageRecord(
                    job=job,
                    tenant=tenant,
                    mode=mode,
                    detector_tokens=detector_tokens,
                    llm_calls=sum(m["calls"] for m in per_model.values()),
                    prompt_tokens=sum(m["prompt_tokens"] for m in per_model.values()),
                    completion_tokens=sum(m["completion_tokens"] for m in per_model.values()),
                    per_model=per_model,
                    provider_cost_usd=cost,
                    price_usd=price.quantize(Decimal("0.00000001")),
                    created_at=job.completed_at,
                )
            )
            if detected is not None and rng.random() < 0.08:
                feedback.append(
                    Feedback(
                        job=job,
                        tenant=tenant,
                        outcome="hallucinated" if detected else "correct",
                        comment=rng.choice(["", "Confirmed by the support team.", "Good catch."]),
                        created_at=job.completed_at + timedelta(hours=2),
                    )
                )
        VerificationJob.objects.bulk_create(jobs)
        DetectedSpan.objects.bulk_create(spans)
        MitigationStep.objects.bulk_create(
            step
            for job in jobs
            if job.iterations
            for step in self._steps(job, usage_by_job[id(job)], rng)
        )
        self._arms(tenant, jobs)
        UsageRecord.objects.bulk_create(usage)
        Feedback.objects.bulk_create(feedback)
        return sorted(jobs, key=lambda j: j.created_at, reverse=True)

    def _steps(self, job, per_model, rng) -> list[MitigationStep]:
        """The trajectory the mitigation stage would have stored for this job."""
        scenario = next(s for s in SCENARIOS if s[3] == job.response)
        found, corrected = scenario[4], scenario[5]
        spans = []
        for text, label, conf, evidence in found:
            start = job.response.index(text)
            spans.append(
                {
                    "start": start,
                    "end": start + len(text),
                    "text": text,
                    "confidence": conf,
                    "label": label,
                    "evidence": {"passage_index": 0, "start": 0, "end": 0, "text": evidence},
                    "reason": "",
                }
            )
        roles = {"openai/gpt-4o": "judge", "anthropic/claude-3-5-haiku": "verify"}
        calls = [
            {
                "model": model,
                "role": "refine" if job.mode == "standard" else roles.get(model, "verify"),
                "prompt_tokens": m["prompt_tokens"],
                "completion_tokens": m["completion_tokens"],
                "cost_usd": m["cost_usd"],
                "latency_ms": float(rng.randint(400, 1500)),
                "error": None,
            }
            for model, m in per_model.items()
        ]
        steps = [
            MitigationStep(
                job=job,
                index=0,
                kind="final",
                text=job.response,
                score=job.score,
                spans=spans,
                detail={"note": "original", "calls": []},
            )
        ]
        rounds = job.iterations
        for index in range(1, rounds + 1):
            last = index == rounds
            score = (
                job.final_score if last else round((job.score or 0.5) * rng.uniform(0.55, 0.8), 3)
            )
            round_calls = calls if job.mode == "premium" or index == 1 else calls[:1]
            steps.append(
                MitigationStep(
                    job=job,
                    index=index,
                    kind="refine",
                    model=round_calls[0]["model"] if round_calls else "",
                    text=corrected if last else job.response,
                    score=score,
                    spans=[] if last else spans[:1],
                    detail={
                        "note": ("judge" if job.mode == "premium" else "converged")
                        if last
                        else "improved",
                        "calls": round_calls,
                    },
                    cost_usd=Decimal(str(sum(c["cost_usd"] for c in round_calls))).quantize(
                        Decimal("0.00000001")
                    ),
                    latency_ms=int(sum(c["latency_ms"] for c in round_calls)),
                )
            )
            if job.mode == "premium":
                break
        if job.mode == "premium":
            steps.append(
                MitigationStep(
                    job=job,
                    index=len(steps),
                    kind="judge",
                    text=corrected,
                    score=job.final_score,
                    detail={
                        "stop_reason": "resolved",
                        "warnings": [],
                        "changes": [
                            {
                                "kind": "replaced",
                                "start": s["start"],
                                "end": s["end"],
                                "before": s["text"],
                                "after": s["evidence"]["text"],
                                "reason": "the context says: " + s["evidence"]["text"],
                                "tier": "judge",
                            }
                            for s in spans
                        ],
                    },
                )
            )
        return steps

    def _arms(self, tenant, jobs) -> None:
        """Beta posteriors as Thompson sampling would have left them after these jobs."""
        ModeArm.objects.filter(tenant=tenant).delete()
        arms: dict[tuple[str, str], list[float]] = {}
        for job in sorted(jobs, key=lambda j: j.created_at):
            if job.mode_source != "bandit":
                continue
            accepted = not job.detected or bool(job.iterations)
            cost = {"lightweight": 0.0, "standard": 0.08, "premium": 0.25}[job.mode]
            arms.setdefault((job.query_type, job.mode), []).append(
                round(max(0.0, float(accepted) - cost), 3)
            )
        ModeArm.objects.bulk_create(
            ModeArm(
                tenant=tenant,
                query_type=qt,
                mode=mode,
                pulls=len(rewards),
                reward_sum=sum(rewards),
                alpha=1 + sum(rewards),
                beta=1 + len(rewards) - sum(rewards),
                last_rewards=rewards[-20:],
            )
            for (qt, mode), rewards in arms.items()
        )

    def _deliveries(self, tenant, jobs, rng) -> None:
        endpoint = WebhookEndpoint.objects.filter(tenant=tenant).order_by("pk").first()
        for job in jobs:
            ok = rng.random() < 0.8
            # Never PENDING: the dispatcher would really try to deliver a pending demo event.
            status = WebhookDelivery.SUCCEEDED if ok else WebhookDelivery.FAILED
            codes = (
                [200]
                if ok and rng.random() < 0.8
                else [503, 200]
                if ok
                else [500, 502, 504][: rng.randint(1, 3)]
            )
            delivery = WebhookDelivery.objects.create(
                tenant=tenant,
                job=job,
                endpoint=endpoint,
                url=endpoint.url,
                event_id="evt_" + secrets.token_hex(12),
                event_type="verification.completed",
                payload={
                    "type": "verification.completed",
                    "data": {"id": job.public_id, "score": job.score},
                },
                status=status,
                attempts=len(codes),
                last_status_code=codes[-1],
                created_at=job.completed_at,
                delivered_at=job.completed_at if ok else None,
            )
            WebhookAttempt.objects.bulk_create(
                [
                    WebhookAttempt(
                        delivery=delivery,
                        number=i + 1,
                        status_code=code,
                        error="" if code < 300 else f"HTTP {code}",
                        duration_ms=rng.randint(40, 900),
                        created_at=job.completed_at + timedelta(seconds=30 * i),
                    )
                    for i, code in enumerate(codes)
                ]
            )
