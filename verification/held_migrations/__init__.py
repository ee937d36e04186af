"""Contract migrations held back for the next release (docs/jobs-at-scale.md "Which release drops
the columns").

A file here is a finished Django migration that `migrate` must not apply yet: it drops what the
current release has stopped using, and processes of the previous release still use it during a
rolling deploy. The next release moves it into `verification/migrations/` unchanged;
`tests/verification/test_held_migrations.py` checks it still follows the latest migration there.
"""
