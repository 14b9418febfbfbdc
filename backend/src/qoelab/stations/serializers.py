from __future__ import annotations

from typing import Any

from rest_framework import serializers

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
        from qoelab.runs.models import Session
        from qoelab.runs.state_machine import ACTIVE_STATES

        session = Session.objects.filter(station=station, state__in=sorted(ACTIVE_STATES)).first()
        return None if session is None else session.pk

    def validate_agent_url(self, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise serializers.ValidationError("the agent URL must start with http:// or https://")
        return value.rstrip("/")

    def update(self, instance: Station, validated_data: dict[str, Any]) -> Station:
        return super().update(instance, validated_data)
