"""The confidence intervals every table of the project reports."""

from __future__ import annotations

import math

import numpy as np


def ci95(values: np.ndarray) -> list[float]:
    """Normal-approximation 95 % interval of the mean (a point when there is one value)."""
    values = np.asarray(values, float)
    if len(values) < 2:
        return [float(values.mean()), float(values.mean())]
    half = 1.96 * values.std(ddof=1) / math.sqrt(len(values))
    return [float(values.mean() - half), float(values.mean() + half)]
