"""The contract of ``qoe-steer``'s ``GET /v1/status`` (issue 33), as strict serializers.

One declaration serves twice: it validates a daemon's answer before the console sees it
(a number must be a JSON number, a string a string; no coercion), and it is the OpenAPI
schema of ``GET /api/v1/steering-services/{id}/state/``. Keys the contract does not name
are dropped; a document that does not fit is refused naming the first field that does not
(:func:`validate_status_document`). Cross-references are checked too: every path a class
or a flow names must be one of the document's paths.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

ACTUATOR_KINDS = ["ovs", "faucet", "osken", "dry-run"]
EVENT_KINDS = ["move", "moved", "retry", "alarm", "alarm_cleared", "hold_best", "stale", "start"]


class StrictFloat(serializers.FloatField):
    """A JSON number (an integer is a number; a string or a boolean is not)."""

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictInt(serializers.IntegerField):
    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictStr(serializers.CharField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault("allow_blank", True)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBool(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return bool(data)


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string"}]})
class PortField(serializers.Field):  # type: ignore[type-arg]
    """A switch port: an OpenFlow port number or a port name."""

    def to_internal_value(self, data: Any) -> int | str:
        if isinstance(data, bool) or not isinstance(data, int | str):
            raise serializers.ValidationError("expected a port number or name")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


@extend_schema_field({"type": "object", "additionalProperties": True, "nullable": True})
class JsonObject(serializers.Field):  # type: ignore[type-arg]
    """A JSON object of free shape (an event's measurement and bounds), or null."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise serializers.ValidationError("expected a JSON object")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


def _kpi(**kwargs: Any) -> StrictFloat:
    """A measured value: null when the window holds no sample to compute it from."""
    return StrictFloat(allow_null=True, **kwargs)


class PolicyInfo(serializers.Serializer[Any]):
    source = StrictStr()  # type: ignore[assignment]  # a field, popped by the metaclass
    schema = StrictStr()
    generated_at = StrictStr(allow_null=True)
    target = StrictStr(allow_null=True)
    application = StrictStr()


class ActuatorInfo(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=ACTUATOR_KINDS)
    healthy = StrictBool()
    detail = StrictStr(allow_null=True)


class SteerSettings(serializers.Serializer[Any]):
    window_s = StrictFloat()
    probe_interval_s = StrictFloat()
    dwell_s = StrictFloat()
    hysteresis = StrictFloat()
    stale_after_s = StrictFloat()
    delay_percentile = StrictStr()


class DirectionKpis(serializers.Serializer[Any]):
    sent = StrictInt(min_value=0)
    received = StrictInt(min_value=0)
    loss_pct = _kpi(help_text="percent lost, from sequence numbers")
    delay_ms_p50 = _kpi()
    delay_ms_p95 = _kpi()
    delay_ms_p99 = _kpi()
    jitter_ms = _kpi()


class Measurement(serializers.Serializer[Any]):
    at_unix = StrictFloat()
    window_s = StrictFloat()
    fresh = StrictBool()
    stale_reason = StrictStr(allow_null=True)
    upstream = DirectionKpis(help_text="client → server")
    downstream = DirectionKpis(help_text="server → client")


class PathState(serializers.Serializer[Any]):
    id = StrictStr()
    port = PortField()
    measurement = Measurement(allow_null=True)


class DirectionBounds(serializers.Serializer[Any]):
    delay_ms = StrictFloat(allow_null=True)
    loss_pct = StrictFloat(allow_null=True)
    jitter_ms = StrictFloat(allow_null=True)


class ClassBounds(serializers.Serializer[Any]):
    upstream = DirectionBounds()
    downstream = DirectionBounds()


class PendingMove(serializers.Serializer[Any]):
    to_path = StrictStr()
    since_unix = StrictFloat()
    reason = StrictStr()


class FlowState(serializers.Serializer[Any]):
    flow = StrictStr()
    active_path = StrictStr(allow_null=True)
    since_unix = StrictFloat(allow_null=True)
    pending = PendingMove(allow_null=True)


def _named_class(serializer: type[serializers.Serializer[Any]]) -> None:
    """Declare the contract's key ``class`` (a Python keyword) from the field ``class_``."""
    declared = serializer._declared_fields
    fields = {("class" if key == "class_" else key): value for key, value in declared.items()}
    declared.clear()
    declared.update(fields)


class ClassState(serializers.Serializer[Any]):
    class_ = StrictStr()
    pace = StrictStr()
    bounds = ClassBounds()
    acceptable_paths = serializers.ListField(child=StrictStr())
    flows = FlowState(many=True)


class Alarm(serializers.Serializer[Any]):
    code = StrictStr()
    message = StrictStr()
    since_unix = StrictFloat()


class SteerEvent(serializers.Serializer[Any]):
    at_unix = StrictFloat()
    kind = serializers.ChoiceField(choices=EVENT_KINDS)
    flow = StrictStr(allow_null=True, required=False, default=None)
    class_ = StrictStr(allow_null=True, required=False, default=None)
    from_path = StrictStr(allow_null=True, required=False, default=None)
    to_path = StrictStr(allow_null=True, required=False, default=None)
    measurement = JsonObject(allow_null=True, required=False, default=None)
    bounds = JsonObject(allow_null=True, required=False, default=None)
    action = StrictStr(allow_null=True, required=False, default=None)
    time_to_effect_s = StrictFloat(allow_null=True, required=False, default=None)
    message = StrictStr()


_named_class(ClassState)
_named_class(SteerEvent)


class StatusDocument(serializers.Serializer[Any]):
    """``GET /v1/status`` of a ``qoe-steer`` daemon."""

    service = serializers.ChoiceField(choices=["qoe-steer"])
    version = StrictStr()
    started_at_unix = StrictFloat()
    policy = PolicyInfo()
    actuator = ActuatorInfo()
    settings = SteerSettings()
    paths = PathState(many=True)
    classes = ClassState(many=True)
    alarms = Alarm(many=True)
    events = SteerEvent(many=True, help_text="the last events, newest last")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        ids = [path["id"] for path in attrs["paths"]]
        for i, path_id in enumerate(ids):
            if path_id in ids[:i]:
                raise serializers.ValidationError({f"paths[{i}].id": f"duplicate id {path_id!r}"})
        for c, klass in enumerate(attrs["classes"]):
            for a, path_id in enumerate(klass["acceptable_paths"]):
                if path_id not in ids:
                    raise serializers.ValidationError(
                        {f"classes[{c}].acceptable_paths[{a}]": f"{path_id!r} is not a path"}
                    )
            for f, flow in enumerate(klass["flows"]):
                if flow["active_path"] is not None and flow["active_path"] not in ids:
                    raise serializers.ValidationError(
                        {
                            f"classes[{c}].flows[{f}].active_path": f"{flow['active_path']!r} "
                            "is not a path"
                        }
                    )
        return attrs


class StatusDocumentError(ValueError):
    """The document does not fit the contract; ``field`` names where (``paths[0].port``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


def first_error(errors: Any, where: str = "") -> tuple[str, str]:
    """The first ``(field path, message)`` of a DRF error structure."""
    if isinstance(errors, dict):
        for key, value in errors.items():
            if key in ("non_field_errors", "__all__"):
                return first_error(value, where)
            if not value:
                continue
            name = str(key)
            if name.isdigit():  # a ListField's item
                return first_error(value, f"{where}[{name}]")
            return first_error(value, f"{where}.{name}" if where else name)
    if isinstance(errors, list):
        if errors and all(isinstance(e, str) for e in errors):
            return where, str(errors[0])
        for index, value in enumerate(errors):
            if value:
                return first_error(value, f"{where}[{index}]")
    return where, str(errors)


def validate_status_document(document: Any) -> dict[str, Any]:
    """The contract's fields of ``document``; raises :class:`StatusDocumentError`."""
    if not isinstance(document, dict):
        raise StatusDocumentError("", "the status document is not a JSON object")
    serializer = StatusDocument(data=document)
    if not serializer.is_valid():
        field, message = first_error(serializer.errors)
        raise StatusDocumentError(field, message)
    data: dict[str, Any] = serializer.validated_data
    return data
