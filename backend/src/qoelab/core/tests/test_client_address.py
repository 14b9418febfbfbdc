"""The client's address for the sign-in limits: X-Forwarded-For only from trusted proxies."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from qoelab.core.client_address import client_address_from, parse_trusted_proxies


def meta(remote: str, forwarded: str | None = None) -> dict[str, str]:
    environ = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        environ["HTTP_X_FORWARDED_FOR"] = forwarded
    return environ


def test_without_trusted_proxies_a_forged_header_is_ignored() -> None:
    """Issue 13: gunicorn reached directly, NUM_PROXIES=1 → a forged header picked the bucket."""
    assert client_address_from(meta("203.0.113.9", "198.51.100.1"), []) == "203.0.113.9"


def test_a_peer_that_is_not_a_trusted_proxy_is_the_client() -> None:
    environ = meta("203.0.113.9", "198.51.100.1")
    assert client_address_from(environ, ["127.0.0.1/32"]) == "203.0.113.9"


def test_behind_a_trusted_proxy_the_right_most_untrusted_entry_is_the_client() -> None:
    # The client wrote "1.2.3.4" itself; nginx appended the address it saw.
    environ = meta("127.0.0.1", "1.2.3.4, 198.51.100.7")
    assert client_address_from(environ, ["127.0.0.1/32"]) == "198.51.100.7"


def test_chains_of_trusted_proxies_are_skipped() -> None:
    environ = meta("10.0.0.2", "evil, 198.51.100.7, 10.0.0.1")
    assert client_address_from(environ, ["10.0.0.0/24"]) == "198.51.100.7"


def test_a_trusted_proxy_without_a_header_is_the_client() -> None:
    assert client_address_from(meta("127.0.0.1"), ["127.0.0.1/32"]) == "127.0.0.1"
    assert client_address_from(meta("127.0.0.1", " , "), ["127.0.0.1/32"]) == "127.0.0.1"


def test_ipv4_mapped_and_ipv6_peers() -> None:
    assert client_address_from(meta("::ffff:127.0.0.1", "192.0.2.5"), ["127.0.0.1"]) == (
        "192.0.2.5"
    )
    assert client_address_from(meta("::1", "2001:db8::5"), ["::1"]) == "2001:db8::5"


def test_the_list_is_validated_and_normalised() -> None:
    assert parse_trusted_proxies(" 127.0.0.1, 10.1.2.3/8 ,,::1") == [
        "127.0.0.1/32",
        "10.0.0.0/8",
        "::1/128",
    ]
    with pytest.raises(ImproperlyConfigured, match="QOELAB_TRUSTED_PROXIES: 'nginx'"):
        parse_trusted_proxies("127.0.0.1,nginx")


def test_only_well_formed_addresses_are_taken_from_the_header() -> None:
    """Issue 34: whatever the client wrote never becomes its address (a cache key, a log
    line): a malformed entry ends the walk and the proxy is the client."""
    trusted = ["127.0.0.1/32"]
    for forwarded in ("evil", "198.51.100.7, a\x00b", "1.2.3.4:80", "198.51.100.7, ::zz"):
        assert client_address_from(meta("127.0.0.1", forwarded), trusted) == "127.0.0.1"
    # Entries are normalised: no spaces, IPv4-mapped IPv6 as IPv4.
    assert client_address_from(meta("127.0.0.1", " ::ffff:198.51.100.7 "), trusted) == (
        "198.51.100.7"
    )
    # A malformed peer address (a test client's, a unix socket's) is not a trusted proxy.
    assert client_address_from(meta("", "198.51.100.7"), trusted) == ""
