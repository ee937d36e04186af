"""Queue plumbing below the job's stages and the actions.

`enqueue.py` owns the stage → Celery task/queue map and the transactional outbox;
`relay.py` is the web process's outbox relay (publishes what requests wrote, off the
request path); `batches.py` takes a batch off an in-process queue (the relay's, the API's
request log writer's); `wait.py` wakes requests that wait on a job via Redis pub/sub. Nothing
here imports `verification.actions` or `verification.stages`: both import this.
"""
