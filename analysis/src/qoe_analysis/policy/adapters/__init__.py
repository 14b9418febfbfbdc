"""Controller adapters: pure functions from a policy document to a controller's format."""

from qoe_analysis.policy.adapters.common import Topology

__all__ = ["Topology"]
