"""The job's plan column: one JSON document, read and written as an `engine.JobPlan`.

Everything decided about a request before detection runs (`stages/plan.py`): the query type,
the policy decision, whether the policy checks it, the mode and where the mode came from, the
threshold and the model, and the policy as it was. The job row holds it once, in `plan`; the
attributes below read its keys, so `job.mode` or `job.decision` are what the plan says, and a
query filters on them with JSON key lookups (`plan__mode`, or `plan_key("mode")`).

A job's plan is written when a detect worker has planned it: whole (`job_plan`, the policy
included) at the hand-off to the mitigate stage, which reads it back; without the policy at
completion (`record_finished_plan`, with the mode that ran). Before that (a queued job, one
that failed before planning) it is NULL, and the attributes read their defaults. Rows planned
before migration 0019 hold the keys it copied from their old columns. `job_plan` is the typed
plan while it holds a policy (a job in flight), None otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import CharField, Value
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce

if TYPE_CHECKING:
    from engine import JobPlan

#: the plan's keys the job row used to copy into columns, and what they read before planning
PLAN_KEYS: dict[str, Any] = {
    "query_type": "",
    "query_type_confidence": None,
    "decision": "",
    "mode": "",
    "mode_source": "",
    "enabled": True,
}


def plan_key(name: str) -> Coalesce:
    """A text key of the plan as a query expression, "" where the plan lacks it (a filter
    `plan_key("mode") == ""` then means "not planned", as the old empty column did)."""
    return Coalesce(KT(f"plan__{name}"), Value(""), output_field=CharField())


def _key_property(name: str, default: Any) -> property:
    def read(job) -> Any:
        plan = job.plan
        return default if not plan else plan.get(name, default)

    def write(job, value: Any) -> None:
        job.plan = {**(job.plan or {}), name: value}

    return property(read, write, doc=f"the plan's `{name}` ({default!r} before planning)")


class PlannedJob:
    """The plan's attributes of `VerificationJob` (a mixin: the column is `plan`)."""

    plan: dict[str, Any] | None

    query_type = _key_property("query_type", "")
    query_type_confidence = _key_property("query_type_confidence", None)
    decision = _key_property("decision", "")
    mode = _key_property("mode", "")
    mode_source = _key_property("mode_source", "")
    enabled = _key_property("enabled", True)

    @property
    def job_plan(self) -> JobPlan | None:
        """The stored plan, typed, while it holds its policy (from the hand-off to mitigation
        to completion); None before planning and for a finished job (its plan's keys only)."""
        if not self.plan or "policy" not in self.plan:
            return None
        from engine import JobPlan

        return JobPlan.model_validate(self.plan)

    @job_plan.setter
    def job_plan(self, plan: JobPlan) -> None:
        """Store the whole plan, the policy included (what the mitigate stage reads back)."""
        self.plan = plan.model_dump(mode="json")

    def record_finished_plan(self, plan: JobPlan) -> None:
        """Store what was decided for a finished job: the plan without the policy it was
        planned under (in the row, a plan with the default policy takes 1,600 bytes, without it
        304; nothing reads the policy once the job is final)."""
        self.plan = plan.model_dump(mode="json", exclude={"policy"})
