"""When a process pool pays for itself.

A spawned worker costs about a second before it does any work (a fresh interpreter importing numpy,
soxr, soundfile and pydantic; measured with `./dev bench --quick audio`), so a pool over a few small
files is slower than one process: 4 x 60 s WAVs took 2.11 s with 2 workers against 0.87 s with one.
A stage estimates its serial time from the bytes it will read and fans out only when the time saved
beats the start-up with a margin. The decision never changes an output, only where it is computed.
"""

from __future__ import annotations

WORKER_START_S = 1.0  # wall time until a spawned worker has imported what a stage needs
MARGIN = 0.8  # the pool must be estimated at most this fraction of the serial time


def pool_pays(n_jobs: int, workers: int, total_bytes: int, bytes_per_s: float,
              start_s: float = WORKER_START_S) -> bool:
    """True when `workers` processes would beat one on `n_jobs` items of `total_bytes` in all."""
    w = min(workers, n_jobs)
    if w <= 1:
        return False
    serial = total_bytes / bytes_per_s
    return serial / w + start_s < MARGIN * serial


def pool_size(n_jobs: int, workers: int, total_bytes: int, bytes_per_s: float) -> int:
    """How many processes to use: 1 (in this process) unless a pool pays for itself."""
    return min(workers, n_jobs) if pool_pays(n_jobs, workers, total_bytes, bytes_per_s) else 1


def jobs_to_pay(workers: int, job_s: float, start_s: float = WORKER_START_S) -> int:
    """How many jobs of about `job_s` seconds each it takes before `workers` processes beat one (`pool_pays`);
    for a stage that cannot size its work up front, only count it. 0 with one worker: a pool never pays."""
    import math

    gain = MARGIN - 1 / workers if workers > 1 else 0.0
    if gain <= 0:
        return 0
    return math.floor(start_s / gain / job_s) + 1
