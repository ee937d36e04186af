"""Dataset actions: create (from an upload, the review queue or API feedback), delete,
read back as rows. Each action owns its transaction; plan limits are checked under a lock
on the tenant row, so two uploads at once cannot both pass the last free slot."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max

from tenants.models import Tenant

from .labels import consensus
from .models import Dataset, DatasetRow, Label
from .rows import Row, parse_upload

DEFAULT_MAX_DATASETS = 50  # tenants without a plan
DEFAULT_MAX_ROWS = 5000


class LimitExceeded(Exception):
    """The tenant's plan allows no more datasets, or not that many rows."""


class EmptyDataset(ValueError):
    """Nothing to put in the dataset (no labelled answer yet)."""


def limits(tenant: Tenant) -> tuple[int, int]:
    plan = tenant.plan
    if plan is None:
        return DEFAULT_MAX_DATASETS, DEFAULT_MAX_ROWS
    return plan.max_datasets, plan.max_dataset_rows


def _store(tenant: Tenant, name: str, source: str, rows: list[Row], user, jobs=None) -> Dataset:
    max_datasets, max_rows = limits(tenant)
    if len(rows) > max_rows:
        raise LimitExceeded(f"{len(rows)} rows; the plan allows {max_rows} per dataset")
    with transaction.atomic():
        Tenant.objects.select_for_update().get(pk=tenant.pk)
        if Dataset.objects.filter(tenant=tenant).count() >= max_datasets:
            raise LimitExceeded(f"the plan allows {max_datasets} datasets; delete one first")
        latest = Dataset.objects.filter(tenant=tenant, name=name).aggregate(v=Max("version"))["v"]
        dataset = Dataset.objects.create(
            tenant=tenant,
            name=name,
            version=(latest or 0) + 1,
            source=source,
            size=len(rows),
            created_by=user,
        )
        DatasetRow.objects.bulk_create(
            DatasetRow(
                dataset=dataset,
                position=i,
                context=r.context,
                query=r.query,
                response=r.response,
                label=r.label,
                spans=r.spans,
                job_id=(jobs[i] if jobs else None),
            )
            for i, r in enumerate(rows)
        )
    return dataset


def create_from_upload(tenant: Tenant, name: str, raw: bytes, kind: str, user=None) -> Dataset:
    """Raises `rows.InvalidUpload` (nothing stored) or `LimitExceeded`."""
    _, max_rows = limits(tenant)
    rows = parse_upload(raw, kind, max_rows)
    return _store(tenant, name, Dataset.UPLOAD, rows, user)


def _job_row(job, label: int, spans: list[dict]) -> Row:
    return Row(list(job.context or []), job.query, job.response, label, spans)


def create_from_labels(tenant: Tenant, name: str, user=None) -> Dataset:
    """Every answer the review queue labelled, with the reviewers' consensus (ties and
    disagreements are left out: a dataset holds what the tenant agrees on)."""
    labels = Label.objects.filter(tenant=tenant).select_related("job").order_by("job_id", "id")
    by_job: dict = {}
    for label in labels:
        by_job.setdefault(label.job_id, []).append(label)
    rows, jobs = [], []
    for job_labels in by_job.values():
        agreed = consensus(job_labels)
        if agreed is None:
            continue
        job = job_labels[0].job
        rows.append(_job_row(job, agreed.label, agreed.spans))
        jobs.append(job.pk)
    if not rows:
        raise EmptyDataset("no labelled answer to put in a dataset yet")
    return _store(tenant, name, Dataset.REVIEW, rows, user, jobs)


def create_from_feedback(tenant: Tenant, name: str, user=None) -> Dataset:
    """The latest API feedback of each job (`correct` / `hallucinated`), spans unmarked."""
    from verification.models import Feedback

    latest: dict = {}
    for fb in Feedback.objects.filter(tenant=tenant).select_related("job").order_by("created_at"):
        latest[fb.job_id] = fb
    if not latest:
        raise EmptyDataset("no feedback to put in a dataset yet")
    rows = [_job_row(fb.job, int(fb.outcome == "hallucinated"), []) for fb in latest.values()]
    return _store(tenant, name, Dataset.FEEDBACK, rows, user, list(latest))


def rows_of(dataset: Dataset) -> list[Row]:
    return [
        Row(list(r.context), r.query, r.response, r.label, list(r.spans))
        for r in dataset.rows.all()
    ]


def delete_dataset(dataset: Dataset) -> None:
    dataset.delete()  # rows and evaluations go with it (CASCADE)
