"""The address a request comes from, as far as it can be trusted (issue 13, finding 2).

``REMOTE_ADDR`` is the peer of the TCP connection: the client itself, or a reverse proxy.
Only when that peer is one of the explicitly trusted proxies
(``settings.QOELAB_TRUSTED_PROXIES``, from the variable of the same name: addresses or
networks, comma-separated; empty by default) is ``X-Forwarded-For`` read, from the right:
each trusted proxy appends the address it was reached from, so the right-most entry that
is not itself a trusted proxy is the client. Everything to the left of it may have been
written by the client and is ignored. A server reached directly (no trusted proxy) never
reads the header, so a forged one cannot pick a fresh throttle bucket.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse_trusted_proxies(raw: str, variable: str = "QOELAB_TRUSTED_PROXIES") -> list[str]:
    """Validate a comma-separated list of addresses/networks; return it normalised.

    A malformed entry is a configuration error naming ``variable`` (start-up fails).
    """
    networks: list[str] = []
    for item in (part.strip() for part in raw.split(",")):
        if not item:
            continue
        try:
            networks.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            raise ImproperlyConfigured(
                f"{variable}: {item!r} is not an IP address or network (e.g. 127.0.0.1, "
                "10.0.0.0/8, ::1)."
            ) from None
    return networks


def _networks(entries: Iterable[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def _address(text: str) -> IPAddress | None:
    """``text`` as an IP address (IPv4-mapped IPv6 as IPv4), or None if it is not one."""
    try:
        ip = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _is_trusted(ip: IPAddress, trusted: tuple[Network, ...]) -> bool:
    return any(ip in network for network in trusted if network.version == ip.version)


def client_address_from(meta: Mapping[str, Any], trusted_proxies: Iterable[str]) -> str:
    """The client's address from a WSGI environ (``request.META``) and a proxy list.

    Only a well-formed address is ever taken from the header (issue 34): an entry that is
    not an IP address (a name, garbage, a control character) ends the walk, and the
    connection's peer is the client, as when only trusted proxies are listed — stricter,
    never looser, and nothing the client wrote reaches a cache key or a log line.
    """
    remote = str(meta.get("REMOTE_ADDR") or "").strip()
    trusted = _networks(trusted_proxies)
    peer = _address(remote)
    if not trusted or peer is None or not _is_trusted(peer, trusted):
        return remote
    forwarded = [hop.strip() for hop in str(meta.get("HTTP_X_FORWARDED_FOR", "")).split(",")]
    for hop in reversed([hop for hop in forwarded if hop]):
        ip = _address(hop)
        if ip is None:
            break
        if not _is_trusted(ip, trusted):
            return str(ip)
    # Only trusted proxies in the chain, a malformed entry, or no header: the proxy is the
    # client.
    return remote


def client_address(request: Any) -> str:
    """The client's address of a Django or DRF request under the configured proxies."""
    return client_address_from(request.META, settings.QOELAB_TRUSTED_PROXIES)
