"""hookmux: command hooks for coding agents, consolidated."""

__version__ = "0.1.0"
