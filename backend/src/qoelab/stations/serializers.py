from __future__ import annotations

from typing import Any

from rest_framework import serializers

from qoelab.stations.health import busy_session
from qoelab.stations.models import Station


class StationSerializer(serializers.ModelSerializer[Station]):
    agent_token = serializers.CharField(
        write_only=True, min_length=16, max_length=200, help_text="never returned"
    )
    busy_with_session = serializers.SerializerMethodField()

    class Meta:
        model = Station
        fields = [
            "id",
            "name",
            "agent_url",
            "agent_token",
            "topology",
            "notes",
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

    def get_busy_with_session(self, station: Station) -> int | None:
        session = busy_session(station)
        return None if session is None else int(session.pk)

    def validate_agent_url(self, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise serializers.ValidationError("the agent URL must start with http:// or https://")
        return value.rstrip("/")

    def update(self, instance: Station, validated_data: dict[str, Any]) -> Station:
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
    lease_seconds = serializers.FloatField(help_text="the agent restores the interfaces after it")
    lease_expires_at = serializers.CharField(allow_null=True)
