"""A job's stages: plan, detect, mitigate, and the queue hand-offs between them.

`plan.py` decides everything about a job once; `detect.py` runs detection for a
claimed batch and routes each job (finish, repair, or hand to the mitigate
queue); `mitigate.py` runs the LLM modes; `enqueue.py` owns the stage → Celery
task/queue map and the transactional outbox; `codec.py` stores a detection on
the job and reads it back. The Celery tasks in `workers/tasks/` only claim jobs
and call these.
"""
