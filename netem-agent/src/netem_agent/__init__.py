"""netem_agent: applies per-direction tc/netem impairment profiles on the emulator box."""

__version__ = "1.0.0"
