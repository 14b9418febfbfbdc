"""netem_agent: applies per-direction tc/netem impairment profiles on the emulator box."""

__version__ = "0.1.0"
