"""The dashboard's role fixtures (owner, viewer, another tenant's owner), shared here."""

from tests.dashboard.conftest import owner_a, owner_b, plan, viewer_a  # noqa: F401
