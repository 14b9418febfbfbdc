"""The capabilities document of a netem agent, validated before the backend stores it.

``GET /v1/capabilities`` of the agent (netem-agent/src/netem_agent/agent.py,
``Agent.capabilities``) answers with the keys of :data:`CAPABILITIES`. The station check
stores the document in ``Station.agent_capabilities`` and the console shows it, so only a
document of exactly this shape is kept: known keys, the expected types, bounded strings
(printable: no control characters) and lists. Anything else fails the check and nothing
of the answer is stored (issue 13: a listener at a forged agent URL had its reply stored
verbatim).

Error messages name the place in the document and what was expected, never the value
received: they are stored as the station's check message.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from qoelab.stations.agent_client import AgentError

#: The validated document, serialized, is at most this long (the console shows it whole).
MAX_DOCUMENT_BYTES = 64 * 1024

_IDENTIFIER = re.compile(r"[a-z_]{1,40}")

Check = Callable[[Any, str], Any]


class InvalidCapabilities(AgentError):
    """The agent's capabilities document does not have the expected shape."""


def _fail(path: str, expected: str) -> InvalidCapabilities:
    return InvalidCapabilities(f"{path}: expected {expected}")


def text(max_length: int) -> Check:
    def check(value: Any, path: str) -> str:
        if not isinstance(value, str) or len(value) > max_length or not value.isprintable():
            raise _fail(path, f"printable text of at most {max_length} characters")
        return value

    return check


def choice(*allowed: str) -> Check:
    def check(value: Any, path: str) -> str:
        if value not in allowed:
            raise _fail(path, "one of " + ", ".join(map(repr, allowed)))
        return str(value)

    return check


def integer(low: int, high: int) -> Check:
    def check(value: Any, path: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise _fail(path, f"an integer from {low} to {high}")
        return value

    return check


def number(low: float, high: float) -> Check:
    def check(value: Any, path: str) -> float | int:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or not low <= value <= high
        ):
            raise _fail(path, f"a number from {low:g} to {high:g}")
        return value

    return check


def boolean(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(path, "true or false")
    return value


def nullable(inner: Check) -> Check:
    def check(value: Any, path: str) -> Any:
        return None if value is None else inner(value, path)

    return check


def either(first: Check, second: Check, expected: str) -> Check:
    def check(value: Any, path: str) -> Any:
        for option in (first, second):
            try:
                return option(value, path)
            except InvalidCapabilities:
                continue
        raise _fail(path, expected)

    return check


def list_of(item: Check, max_items: int) -> Check:
    def check(value: Any, path: str) -> list[Any]:
        if not isinstance(value, list) or len(value) > max_items:
            raise _fail(path, f"a list of at most {max_items} items")
        return [item(entry, f"{path}[{index}]") for index, entry in enumerate(value)]

    return check


def map_of(key: Check, item: Check, max_items: int) -> Check:
    def check(value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict) or len(value) > max_items:
            raise _fail(path, f"an object of at most {max_items} entries")
        checked = {}
        for name, entry in value.items():
            key(name, f"{path} (a key)")
            checked[name] = item(entry, f"{path}.{name}")
        return checked

    return check


def obj(required: dict[str, Check], optional: dict[str, Check] | None = None) -> Check:
    optional = optional or {}

    def check(value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise _fail(path, "an object")
        unknown = sorted(set(value) - set(required) - set(optional))
        if unknown:
            named = [repr(k) for k in unknown if isinstance(k, str) and _IDENTIFIER.fullmatch(k)]
            listed = ", ".join(named) if len(named) == len(unknown) else str(len(unknown))
            raise InvalidCapabilities(f"{path}: unknown keys {listed}")
        missing = [k for k in required if k not in value]
        if missing:
            raise InvalidCapabilities(f"{path}: missing {', '.join(missing)}")
        fields = {**required, **optional}
        return {k: fields[k](v, f"{path}.{k}") for k, v in value.items()}

    return check


#: Linux interface names: at most 15 characters (IFNAMSIZ 16 with the terminating NUL).
IFNAME = text(15)
SHORT = text(40)

TOPOLOGY = obj(
    {"mode": choice("bridge", "single")},
    {
        "client_iface": nullable(IFNAME),
        "server_iface": nullable(IFNAME),
        "iface": nullable(IFNAME),
        "role": choice("client", "server"),
        "ifb": IFNAME,
        "flow_filter": nullable(
            obj(
                {"server_addr": text(64)},
                {"ports": list_of(integer(0, 65535), 64), "protocol": choice("udp", "tcp", "any")},
            )
        ),
    },
)
SHAPING_POINT = obj({"direction": SHORT, "interface": IFNAME, "attach": SHORT, "device": IFNAME})
INTERFACE = obj(
    {"name": IFNAME},
    {
        "index": integer(0, 2**31 - 1),
        "up": boolean,
        "kind": nullable(SHORT),
        "mtu": integer(0, 2**20),
        "root_qdisc": nullable(obj({"kind": SHORT, "handle": SHORT, "parent": SHORT})),
    },
)
MODULE = obj({"available": boolean, "how": text(80)})

#: ``GET /v1/capabilities``: the keys the agent sends and their shapes.
CAPABILITIES = obj(
    {
        "backend": SHORT,
        "topology": TOPOLOGY,
        "interfaces": list_of(INTERFACE, 512),
        "configured_interfaces_present": map_of(IFNAME, boolean, 8),
        "profile_fields": list_of(SHORT, 64),
        "lease": obj({"default_seconds": number(0, 86400), "max_seconds": number(0, 86400)}),
    },
    {
        "agent_version": text(64),
        # provenance: "read-back" (netlink) or "recorded" (dry-run), with a note for the latter
        "kernel_source": choice("read-back", "recorded"),
        "kernel_note": text(300),
        "shaping": map_of(choice("upstream", "downstream"), SHAPING_POINT, 2),
        "kernel": map_of(SHORT, either(text(200), MODULE, "text or a module status"), 32),
        "jitter_distributions": list_of(SHORT, 16),
        "loss_models": list_of(SHORT, 16),
    },
)


def validate_capabilities(document: Any) -> dict[str, Any]:
    """The agent's capabilities as a checked copy; :class:`InvalidCapabilities` otherwise."""
    try:
        checked: dict[str, Any] = CAPABILITIES(document, "capabilities")
    except InvalidCapabilities as exc:
        raise InvalidCapabilities(
            f"the agent's capabilities are not a valid capabilities document ({exc}); "
            "nothing of the answer was stored"
        ) from None
    if len(json.dumps(checked)) > MAX_DOCUMENT_BYTES:
        raise InvalidCapabilities(
            f"the agent's capabilities document exceeds {MAX_DOCUMENT_BYTES // 1024} KiB; "
            "nothing of the answer was stored"
        )
    return checked


#: ``GET /healthz``: only the version is used (in the check message).
HEALTH_VERSION = text(40)


def health_version(health: dict[str, Any]) -> str:
    """The agent's version from its health answer; :class:`InvalidCapabilities` if odd."""
    version = health.get("version", "?")
    try:
        return str(HEALTH_VERSION(version, "healthz.version"))
    except InvalidCapabilities as exc:
        raise InvalidCapabilities(
            f"the agent's health answer is not valid ({exc}); nothing of it was stored"
        ) from None
