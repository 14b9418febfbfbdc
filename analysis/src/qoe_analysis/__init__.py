"""qoe_analysis: statistics for subjective QoE studies (no Django, no I/O in the math)."""

__version__ = "0.1.0"
