"""Several isolated jobs in one worker call, each under its own deadline.

Calls of several files cost the parent and the worker less than one call per PDF, and
must not weaken the per-file timeout: each job runs under an interval timer whose
SIGALRM keeps its default action, so an overrun ends the worker at once, even inside
C code. The parent then sees a crashed worker and runs the call's jobs again one per
call under its own timeout (`PoolCalls._run_batch`), so only the overrunning file
is recorded as `timeout`; a crash or a `MemoryError` in one job is handled the same way.
"""

from __future__ import annotations

import signal

from indexer._types import Options
from indexer.pipeline.extract.tasks import Finished, Job, extract_jobs
from indexer.registry import Registry


def extract_timed(
    jobs: list[Job],
    options: Options,
    registry: Registry,
    digests: dict[str, str],
    seconds: float,
) -> list[Finished]:
    """`extract_jobs(jobs, ...)`, where the process dies of SIGALRM when a job takes
    more than `seconds`."""
    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # an extractor may have set a handler
    out: list[Finished] = []
    for job in jobs:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            out += extract_jobs([job], options, registry, digests)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return out
