from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from qoelab.stations.access import busy_session, may_change
from qoelab.stations.agent_tls import (
    CertificateInputError,
    fingerprints,
    plain_http_problem,
    validate_ca_pem,
)
from qoelab.stations.models import Station

URL_NEEDS_TOKEN = (
    "a new agent URL needs the agent's token in the same request: the stored token is "
    "only ever sent to the URL it was given for"
)


class StationSerializer(serializers.ModelSerializer[Station]):
    agent_token = serializers.CharField(
        write_only=True,
        min_length=16,
        max_length=200,
        help_text="never returned; required with a new agent_url",
    )
    owner = serializers.SerializerMethodField(help_text="the owner's username; null: staff only")
    can_change = serializers.SerializerMethodField(
        help_text="whether the signed-in researcher may change, check and test the station"
    )
    busy_with_session = serializers.SerializerMethodField()
    agent_ca_cert = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=True,
        help_text="PEM certificate(s) the https:// agent must present a certificate of (e.g. "
        "the agent's self-signed agent.crt from `netem-agent make-cert`); blank = the "
        "system's CAs",
    )
    agent_ca_fingerprints = serializers.SerializerMethodField(
        help_text="SHA-256 fingerprints of agent_ca_cert, to compare with `netem-agent "
        "make-cert`'s output"
    )

    class Meta:
        model = Station
        fields = [
            "id",
            "name",
            "agent_url",
            "agent_token",
            "agent_ca_cert",
            "agent_ca_fingerprints",
            "topology",
            "notes",
            "owner",
            "shared",
            "can_change",
            "last_checked_at",
            "last_check_ok",
            "last_check_message",
            "agent_capabilities",
            "busy_with_session",
        ]
        read_only_fields = [
            "last_checked_at",
            "last_check_ok",
            "last_check_message",
            "agent_capabilities",
        ]

    @extend_schema_field({"type": "string", "nullable": True})
    def get_owner(self, station: Station) -> str | None:
        return None if station.owner is None else str(station.owner.get_username())

    def get_can_change(self, station: Station) -> bool:
        request = self.context.get("request")
        return may_change(getattr(request, "user", None), station)

    def get_busy_with_session(self, station: Station) -> int | None:
        session = busy_session(station)
        return None if session is None else int(session.pk)

    def get_agent_ca_fingerprints(self, station: Station) -> list[str]:
        return fingerprints(station.agent_ca_cert)

    def validate_agent_url(self, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise serializers.ValidationError("the agent URL must start with http:// or https://")
        problem = plain_http_problem(value, settings.QOELAB_AGENT_ALLOW_PLAIN_HTTP)
        if problem:
            raise serializers.ValidationError(problem)
        return value.rstrip("/")

    def validate_agent_ca_cert(self, value: str) -> str:
        try:
            return validate_ca_pem(value)
        except CertificateInputError as exc:
            raise serializers.ValidationError(str(exc)) from None

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """The token goes only to the URL it was entered with (issue 13, station takeover);
        a CA certificate only makes sense for an https:// agent."""
        attrs = super().validate(attrs)
        if (
            self.instance is not None
            and "agent_url" in attrs
            and attrs["agent_url"] != self.instance.agent_url.rstrip("/")
            and "agent_token" not in attrs
        ):
            raise serializers.ValidationError({"agent_token": [URL_NEEDS_TOKEN]})
        url = attrs.get("agent_url", getattr(self.instance, "agent_url", ""))
        ca = attrs.get("agent_ca_cert", getattr(self.instance, "agent_ca_cert", ""))
        if ca and not str(url).startswith("https://"):
            raise serializers.ValidationError(
                {"agent_ca_cert": "a CA certificate is only used with an https:// agent URL"}
            )
        return attrs

    def update(self, instance: Station, validated_data: dict[str, Any]) -> Station:
        if validated_data.get("agent_url", instance.agent_url) != instance.agent_url:
            # What was checked belongs to the previous agent.
            instance.agent_capabilities = None
            instance.last_check_ok = None
            instance.last_check_message = ""
            instance.last_checked_at = None
        return super().update(instance, validated_data)


class ImpairmentSerializer(serializers.Serializer[Any]):
    delay_ms = serializers.FloatField()
    jitter_ms = serializers.FloatField()
    loss_pct = serializers.FloatField()


class ProfileSerializer(serializers.Serializer[Any]):
    upstream = ImpairmentSerializer(help_text="client→server")
    downstream = ImpairmentSerializer(help_text="server→client")


class BaselineResultSerializer(serializers.Serializer[Any]):
    """``POST /stations/{id}/apply-baseline/``: what the agent verified."""

    station = StationSerializer(help_text="the station with the stored check result")
    requested_profile = ProfileSerializer(help_text="the neutral profile (all zeros)")
    verified_profile = ProfileSerializer(
        help_text="delay, jitter and loss per direction as the agent read them back"
    )
    installed = serializers.DictField(
        help_text="the agent's full read-back per direction (every profile field)"
    )
    backend = serializers.CharField(
        allow_null=True,
        help_text="the agent's backend; 'dry-run' records the kernel operations instead of "
        "running them (no interface changes)",
    )
    kernel = serializers.DictField(
        allow_null=True, help_text="the qdiscs the agent found (or the dry-run backend recorded)"
    )
    kernel_read_back = serializers.BooleanField(
        help_text="true only when the agent dumped the state from a kernel after the change; "
        "a dry-run recording is not a verification"
    )
    lease_seconds = serializers.FloatField(help_text="the agent restores the interfaces after it")
    lease_expires_at = serializers.CharField(allow_null=True)
