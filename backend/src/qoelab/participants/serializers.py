from __future__ import annotations

from typing import Any

from rest_framework import serializers

from qoelab.participants.models import Participant, participant_code_validator


class ParticipantSerializer(serializers.ModelSerializer[Participant]):
    code = serializers.CharField(
        max_length=40,
        required=False,
        validators=[participant_code_validator],
        help_text="pseudonym; generated (P001, P002, …) when omitted",
    )
    genre_preferences = serializers.DictField(
        child=serializers.BooleanField(), required=False, help_text='{"racing": true, …}'
    )
    consent = serializers.BooleanField(
        write_only=True, required=False, help_text="true records consent now"
    )

    class Meta:
        model = Participant
        fields = [
            "id",
            "study",
            "code",
            "consent",
            "consent_at",
            "age",
            "skill",
            "genre_preferences",
            "created_at",
            "withdrawal",
            "withdrawn_at",
        ]
        read_only_fields = ["consent_at", "created_at", "withdrawal", "withdrawn_at"]
        validators: list[Any] = []

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if self.instance is not None and "study" in attrs and attrs["study"] != self.instance.study:
            raise serializers.ValidationError({"study": "a participant cannot change study"})
        study = attrs.get("study") or getattr(self.instance, "study", None)
        code = attrs.get("code")
        if code is not None:
            clash = Participant.objects.filter(study=study, code=code)
            if self.instance is not None:
                clash = clash.exclude(pk=self.instance.pk)
            if clash.exists():
                raise serializers.ValidationError(
                    {"code": f"the study already has a participant {code!r}"}
                )
        return attrs
