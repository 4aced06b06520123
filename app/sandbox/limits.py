"""The limits of one run, as the server configures them and as the run record reports them."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 10.0          # wall clock, enforced by the server (interrupts, then kills the process group)
    memory_mb: int = 1024            # address space of the child (RLIMIT_AS)
    max_stdout_bytes: int = 200_000  # kept of stdout, and as much again of stderr; the rest is cut with a notice
    max_record_bytes: int = 8_000_000  # the whole run record as JSON
    file_mb: int = 16                # largest file a run may write (RLIMIT_FSIZE)
    scratch_mb: int = 64             # all files of a run together (a tmpfs, where mounts are allowed)
    open_files: int = 64             # RLIMIT_NOFILE
    processes: int = 512             # RLIMIT_NPROC: threads of the run (its own uid; fork is refused anyway)
    max_values_bytes: int = 0        # large tensors' values sent apart from the record (0: none, all in the record)
    max_files: int = 0               # files of the working folder brought back (0: none; app/sandbox/run_files.py)
    max_files_bytes: int = 0         # all of them together

    @property
    def max_pipe_bytes(self) -> int:
        """All a child may write on its record pipe: its frames, the record, the values' side
        channel (their index is bounded by app/sandbox/values_channel.py's MAX_INDEX_BYTES)."""
        if self.max_values_bytes <= 0:
            return self.max_record_bytes
        return self.max_record_bytes + self.max_values_bytes + (4 << 20) + 64

    @property
    def cpu_s(self) -> int:
        """CPU seconds before the kernel stops the child: a backstop behind the wall clock."""
        return int(math.ceil(self.timeout_s)) + 1

    def as_dict(self) -> dict:
        return asdict(self)
