"""qoe_steer: closed-loop QoE steering of game flows against an exported QoE policy."""

__version__ = "1.0.0"
