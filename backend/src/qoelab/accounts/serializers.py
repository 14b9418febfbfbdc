from __future__ import annotations

from typing import Any

from rest_framework import serializers


class LoginSerializer(serializers.Serializer[Any]):
    username = serializers.CharField(max_length=150, trim_whitespace=False)
    password = serializers.CharField(
        max_length=4096, trim_whitespace=False, style={"input_type": "password"}
    )


class ResearcherSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_staff = serializers.BooleanField(
        help_text="staff users also reach studies without owner and the Django admin"
    )


class LoginResponseSerializer(serializers.Serializer[Any]):
    user = ResearcherSerializer()


class CsrfSerializer(serializers.Serializer[Any]):
    csrf_token = serializers.CharField(
        help_text="the same value as the csrftoken cookie; send it as X-CSRFToken"
    )


class DetailSerializer(serializers.Serializer[Any]):
    detail = serializers.CharField()
