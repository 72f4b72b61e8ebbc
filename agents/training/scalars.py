"""TensorBoard scalars of the trainers that run no SB3 algorithm, written with the
``tensorboard`` package's own writer: no torch needed. Without it, a note and no events."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any


class ScalarWriter:
    """One event file in ``folder`` (``events.out.tfevents.*``, what TensorBoard reads)."""

    def __init__(self, folder: str | Path) -> None:
        try:
            from tensorboard.compat.proto.event_pb2 import Event
            from tensorboard.compat.proto.summary_pb2 import Summary
            from tensorboard.summary.writer.event_file_writer import EventFileWriter
        except ImportError as err:
            print(f"note: no TensorBoard events ({err}); pip install tensorboard to have them", file=sys.stderr)
            self.file: Any = None
            return
        self.event, self.summary = Event, Summary
        self.file = EventFileWriter(str(folder))

    def write(self, step: int, scalars: Mapping[str, float]) -> None:
        """The scalars at ``step``, flushed at once (a killed run keeps what it logged)."""
        if self.file is None:
            return
        values = [self.summary.Value(tag=tag, simple_value=float(v)) for tag, v in scalars.items()]
        self.file.add_event(self.event(wall_time=time.time(), step=int(step), summary=self.summary(value=values)))
        self.file.flush()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()

    def __enter__(self) -> ScalarWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
