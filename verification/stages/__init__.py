"""A job's stages: plan, detect, mitigate.

`plan.py` decides everything about a job once; `detect.py` runs detection for a
claimed batch and routes each job (finish, repair, or hand to the mitigate
queue); `mitigate.py` runs the LLM modes; `codec.py` stores a detection on
the job and reads it back. The queue hand-offs between stages (the stage → Celery
task/queue map, the transactional outbox and its relay, the wake-up of waiting
requests) are in `verification/queue/`, below the actions and the stages. The
Celery tasks in `workers/tasks/` only claim jobs and call these.
"""
