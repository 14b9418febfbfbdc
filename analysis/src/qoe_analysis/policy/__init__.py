"""QoE policy: a study's results as network policy (issue 7; docs/policy.md).

Library entry points (the backend endpoint calls the first two)::

    from qoe_analysis.policy import build_policy, export_policy, evaluate_policy

    policy = build_policy(analysis_document, provenance={"study_id": 7, ...})
    text = export_policy(policy, "faucet")          # json|faucet|ovs|onos|rest_qos|ietf
    report = evaluate_policy(policy, measurements)   # path check per game class
"""

from qoe_analysis.policy.adapters.common import Topology
from qoe_analysis.policy.document import POLICY_SCHEMA_ID, POLICY_VERSION, build_policy
from qoe_analysis.policy.evaluate import evaluate_policy
from qoe_analysis.policy.export import FORMATS, MEDIA_TYPES, export_policy
from qoe_analysis.policy.schema import PolicyError, load_schema, validate_policy

__all__ = [
    "FORMATS",
    "MEDIA_TYPES",
    "POLICY_SCHEMA_ID",
    "POLICY_VERSION",
    "PolicyError",
    "Topology",
    "build_policy",
    "evaluate_policy",
    "export_policy",
    "load_schema",
    "validate_policy",
]
