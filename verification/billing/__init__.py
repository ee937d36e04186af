"""Billing: which price a finished job is billed at and its usage row (`usage.py`,
called when a job completes), and the monthly report (`report.py`)."""
