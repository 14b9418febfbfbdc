"""The fixture comparison tolerates last-bit float differences and nothing else."""

from __future__ import annotations

from json_compare import differences


def test_differences_tolerate_last_bits_only() -> None:
    expected = {"bound": 181.69762189299286, "n": 3, "basis": "tree", "ci": [1.0, None]}
    assert differences({**expected, "bound": 181.69762189299288}, expected) == []
    assert differences({**expected, "bound": 181.6977}, expected) == [
        "/bound: 181.6977 != 181.69762189299286"
    ]
    assert differences({**expected, "basis": "logistic"}, expected) == [
        "/basis: 'logistic' != 'tree'"
    ]
    assert differences({**expected, "ci": [1.0]}, expected) == ["/ci: 1 items != 2"]
    assert differences({**expected, "n": True}, expected) == ["/n: True != 3"]
