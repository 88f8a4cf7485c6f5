"""The simulated cluster. Never imports textual or rich (design rules 1 and 5)."""

from .operations import Operation, OperationResult
from .simulation import Simulation

__all__ = ["Operation", "OperationResult", "Simulation"]
