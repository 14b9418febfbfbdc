"""Profile document: schema, semantic rules, round trip."""

from __future__ import annotations

import json
import sys

import pytest
from netem_profile import (
    DirectionProfile,
    GilbertElliott,
    Profile,
    ProfileError,
    json_schema,
    parse_profile,
)


def test_empty_document_is_neutral() -> None:
    p = parse_profile({})
    assert p == Profile()
    assert p.upstream.is_neutral() and p.downstream.is_neutral()


def test_round_trip_through_to_dict_and_json() -> None:
    doc = {
        "upstream": {
            "delay_ms": 80,
            "jitter_ms": 5,
            "jitter_distribution": "pareto",
            "delay_correlation_pct": 25,
            "loss_pct": 1.5,
            "loss_correlation_pct": 10,
            "rate_kbit": 20000,
            "duplicate_pct": 0.1,
            "reorder_pct": 2,
            "reorder_correlation_pct": 50,
            "corrupt_pct": 0.01,
            "queue_limit_packets": 5000,
        },
        "downstream": {
            "delay_ms": 40,
            "gilbert_elliott": {"p_pct": 1, "r_pct": 20, "loss_bad_pct": 80},
        },
    }
    p = parse_profile(doc)
    assert p.upstream.jitter_distribution == "pareto"
    assert p.downstream.gilbert_elliott == GilbertElliott(1, 20, 80, 0)
    again = parse_profile(json.loads(json.dumps(p.to_dict())))
    assert again == p
    assert set(p.to_dict()["upstream"]) == set(DirectionProfile().to_dict())


def test_every_field_is_in_the_schema_and_vice_versa() -> None:
    schema_fields = set(json_schema()["$defs"]["direction"]["properties"])
    assert schema_fields == set(DirectionProfile().to_dict())
    for name, spec in json_schema()["$defs"]["direction"]["properties"].items():
        assert "default" in spec or "$ref" in spec, name


@pytest.mark.parametrize(
    "doc,path,text",
    [
        ({"upstream": {"delay_ms": 10, "bandwidth": 1}}, "upstream", "unknown field"),
        ({"sideways": {}}, "(profile)", "unknown field"),
        ({"upstream": {"loss_pct": 150}}, "upstream.loss_pct", "maximum of 100"),
        ({"downstream": {"delay_ms": -1}}, "downstream.delay_ms", "minimum of 0"),
        ({"upstream": {"delay_ms": "80"}}, "upstream.delay_ms", "not of type"),
        ({"upstream": {"loss_pct": True}}, "upstream.loss_pct", "not of type"),
        ({"upstream": {"rate_kbit": 1.5}}, "upstream.rate_kbit", "not of type 'integer'"),
        (
            {"upstream": {"jitter_distribution": "uniform"}},
            "upstream.jitter_distribution",
            "is not one of",
        ),
        ({"upstream": {"delay_ms": float("nan")}}, "upstream.delay_ms", "not a finite"),
        ({"upstream": {"delay_ms": float("inf")}}, "upstream.delay_ms", "not a finite"),
        (
            {"upstream": {"delay_correlation_pct": 5}},
            "upstream.delay_correlation_pct",
            "needs jitter",
        ),
        (
            {"upstream": {"loss_correlation_pct": 5}},
            "upstream.loss_correlation_pct",
            "needs loss_pct",
        ),
        ({"upstream": {"reorder_pct": 5}}, "upstream.reorder_pct", "needs delay_ms"),
        (
            {"upstream": {"delay_ms": 5, "reorder_correlation_pct": 5}},
            "upstream.reorder_correlation_pct",
            "needs reorder_pct",
        ),
        (
            {"upstream": {"loss_pct": 1, "gilbert_elliott": {"p_pct": 1, "r_pct": 2}}},
            "upstream.gilbert_elliott",
            "either",
        ),
        (
            {"upstream": {"gilbert_elliott": {"p_pct": 1}}},
            "upstream.gilbert_elliott",
            "'r_pct' is a required",
        ),
        (
            {"upstream": {"gilbert_elliott": {"p_pct": 1, "r_pct": 1, "h": 2}}},
            "upstream.gilbert_elliott",
            "unknown field",
        ),
        (
            {"upstream": {"delay_ms": 5000, "jitter_ms": 3000}},
            "upstream.jitter_ms",
            "at most 2147 ms",
        ),
    ],
)
def test_invalid_documents_give_clear_errors(doc: dict, path: str, text: str) -> None:
    with pytest.raises(ProfileError) as exc:
        parse_profile(doc)
    assert isinstance(exc.value, ValueError)
    assert any(e["path"] == path and text in e["message"] for e in exc.value.errors), (
        exc.value.errors
    )
    assert path in str(exc.value)


def test_non_object_rejected() -> None:
    with pytest.raises(ProfileError, match="JSON object"):
        parse_profile([1, 2])


def test_all_errors_are_reported_at_once() -> None:
    with pytest.raises(ProfileError) as exc:
        parse_profile({"upstream": {"loss_pct": 150}, "downstream": {"delay_ms": -1}})
    assert {e["path"] for e in exc.value.errors} == {"upstream.loss_pct", "downstream.delay_ms"}


def test_direction_labels_in_messages() -> None:
    with pytest.raises(ProfileError, match="client→server"):
        parse_profile({"upstream": {"reorder_pct": 1}})
    with pytest.raises(ProfileError, match="server→client"):
        parse_profile({"downstream": {"reorder_pct": 1}})


def test_gilbert_elliott_mean_loss() -> None:
    assert GilbertElliott(1, 9).mean_loss_pct() == pytest.approx(10.0)
    assert GilbertElliott(0, 0, loss_good_pct=2).mean_loss_pct() == 2


def test_the_package_imports_only_the_standard_library() -> None:
    import subprocess

    code = (
        "import sys; before = set(sys.modules); import netem_profile as p; "
        "p.parse_profile({'upstream': {'delay_ms': 5}}); p.json_schema(); "
        "new = {m.split('.')[0] for m in set(sys.modules) - before}; "
        "bad = sorted(new - set(sys.stdlib_module_names) - {'netem_profile'}); "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_jitter_may_exceed_the_delay() -> None:
    """A grid level of 0 ms delay with 10 ms jitter is a valid netem setting."""
    profile = parse_profile({"upstream": {"delay_ms": 0, "jitter_ms": 10}, "downstream": {}})
    assert profile.upstream.jitter_ms == 10.0
