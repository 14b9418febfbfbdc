"""``export_policy(policy, format)``: one entry point for every output format."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from qoe_analysis.policy.adapters.common import Topology
from qoe_analysis.policy.adapters.faucet import to_faucet_yaml
from qoe_analysis.policy.adapters.ietf import to_ietf_json
from qoe_analysis.policy.adapters.onos import to_onos_json
from qoe_analysis.policy.adapters.ovs import to_ovs_script
from qoe_analysis.policy.adapters.rest_qos import to_rest_qos_json
from qoe_analysis.policy.schema import PolicyError, validate_policy

__all__ = ["FORMATS", "MEDIA_TYPES", "export_policy"]


def _json(policy: Mapping[str, Any], topology: Topology) -> str:
    del topology
    return json.dumps(policy, indent=2, allow_nan=False) + "\n"


_EXPORTERS: Final[dict[str, Callable[[Mapping[str, Any], Topology], str]]] = {
    "json": _json,
    "faucet": to_faucet_yaml,
    "ovs": to_ovs_script,
    "onos": to_onos_json,
    "rest_qos": to_rest_qos_json,
    "ietf": to_ietf_json,
}
FORMATS: Final = tuple(_EXPORTERS)
MEDIA_TYPES: Final = {
    "json": "application/json",
    "faucet": "application/yaml",
    "ovs": "text/x-shellscript",
    "onos": "application/json",
    "rest_qos": "application/json",
    "ietf": "application/yang-data+json",
}


def export_policy(
    policy: Mapping[str, Any], format: str, *, topology: Topology | None = None
) -> str:
    """The policy in ``format`` (one of :data:`FORMATS`) as text.

    Validates the policy against its schema first; raises :class:`PolicyError` (one-line
    message) for an unknown format, an invalid policy, or a policy without any
    ``flow_match`` for the controller formats.
    """
    exporter = _EXPORTERS.get(format)
    if exporter is None:
        raise PolicyError(f"unknown format {format!r} (choose from {', '.join(FORMATS)})")
    validate_policy(policy)
    return exporter(policy, topology or Topology())
