"""Verb functions that own the business logic and its transactions.

Views and tasks validate and delegate here; side effects (broker messages,
notifications) are emitted with `transaction.on_commit`.
"""
