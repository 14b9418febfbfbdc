"""The withdrawal API's bodies: the request, an audit entry, the answer and the audit list."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from qoelab.participants.models import Withdrawal, WithdrawalMode
from qoelab.participants.serializers import ParticipantSerializer
from qoelab.participants.withdrawal import MAX_REASON


class WithdrawRequestSerializer(serializers.Serializer[Any]):
    mode = serializers.ChoiceField(
        choices=WithdrawalMode.choices,
        help_text="erase: delete the participant's sessions, ratings and answers (a pseudonym "
        "tombstone stays); exclude: keep everything, leave it out of analysis and exports",
    )
    reason = serializers.CharField(
        max_length=MAX_REASON, required=False, allow_blank=True, default=""
    )


class ErasedCountsSerializer(serializers.Serializer[Any]):
    sessions = serializers.IntegerField()
    ratings = serializers.IntegerField()
    answers = serializers.IntegerField()


class WithdrawalEntrySerializer(serializers.ModelSerializer[Withdrawal]):
    """An audit entry: who, when, which pseudonym, how, rows erased (never the data)."""

    erased = ErasedCountsSerializer()

    class Meta:
        model = Withdrawal
        fields = [
            "id",
            "participant",
            "participant_code",
            "mode",
            "reason",
            "by_username",
            "at",
            "erased",
        ]
        read_only_fields = fields


class WithdrawResponseSerializer(serializers.Serializer[Any]):
    participant = ParticipantSerializer()
    withdrawal = WithdrawalEntrySerializer()
    created = serializers.BooleanField(
        help_text="false: the participant was already withdrawn so; nothing was written"
    )


class WithdrawalListSerializer(serializers.Serializer[Any]):
    excluded = serializers.IntegerField(help_text="participants excluded (data kept)")
    erased = serializers.IntegerField(help_text="participants erased (tombstones)")
    entries = WithdrawalEntrySerializer(many=True, help_text="newest first")
