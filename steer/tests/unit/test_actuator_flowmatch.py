"""flowmatch: the config's match table → OXM fields and ovs-ofctl syntax.

Would catch: a missing OpenFlow prerequisite (eth_type/ip_proto), a port given a wrong
protocol, IPv4 names ovs-ofctl does not know, a bad key accepted silently.
"""

from __future__ import annotations

import pytest
from qoe_steer.actuators.base import ActuatorError
from qoe_steer.actuators.flowmatch import ovs_match, oxm_match


def test_short_form_gets_prerequisites() -> None:
    got = oxm_match({"proto": "udp", "dst_ip": "10.0.0.2", "dst_port": 5004})
    assert got == {"eth_type": 0x0800, "ip_proto": 17, "ipv4_dst": "10.0.0.2", "udp_dst": 5004}
    assert list(got) == ["eth_type", "ip_proto", "ipv4_dst", "udp_dst"]


def test_oxm_port_implies_protocol_and_ovs_spelling() -> None:
    assert oxm_match({"udp_dst": 50000}) == {"eth_type": 2048, "ip_proto": 17, "udp_dst": 50000}
    text = ovs_match({"ipv4_src": "198.51.100.0/24", "tcp_src": 80})
    assert text == "eth_type=0x800,ip_proto=6,nw_src=198.51.100.0/24,tcp_src=80"


@pytest.mark.parametrize(
    ("match", "fragment"),
    [
        ({"udp_dst": 0}, "match.udp_dst"),
        ({"dst_port": 5004}, "needs match.proto"),
        ({"proto": "sctp"}, "match.proto"),
        ({"dst_ip": "10.0.0.300"}, "not an IPv4 address"),
        ({"vlan_vid": 5}, "match.vlan_vid: unknown field"),
        ({"ip_proto": 6, "udp_dst": 5004}, "contradicts ip_proto=6"),
        ({}, "match: empty"),
    ],
)
def test_bad_match_is_refused_naming_the_key(match: dict[str, object], fragment: str) -> None:
    with pytest.raises(ActuatorError, match=fragment):
        oxm_match(match)
