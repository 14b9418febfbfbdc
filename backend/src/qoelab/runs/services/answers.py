"""The questionnaires: before play (consent, participant facts, study questions) and after.

Answers are checked against the study's questions (``Study.questions(phase)``) and stored
one :class:`Answer` row per key; answering again overwrites.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

from qoelab.participants.models import Participant, Skill
from qoelab.ratings.models import Answer
from qoelab.runs.models import Session
from qoelab.runs.services.errors import InvalidInput, WrongState
from qoelab.runs.services.impairment import end_session, enter_free_play
from qoelab.runs.services.transitions import locked
from qoelab.runs.state_machine import State

MAX_TEXT_ANSWER = 2000


def validate_answer(question: dict[str, Any], value: Any) -> Any:
    """``value`` if it answers ``question`` (choice, boolean, integer in range, short text)."""
    key, kind = question["key"], question.get("kind", "text")
    if kind == "choice":
        if value not in question.get("choices", []):
            raise InvalidInput(
                f"{key}: {value!r} is not one of {', '.join(map(str, question['choices']))}",
                field=key,
            )
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise InvalidInput(f"{key}: answer true or false", field=key)
    elif kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidInput(f"{key}: answer a whole number", field=key)
        low, high = question.get("min"), question.get("max")
        if (low is not None and value < low) or (high is not None and value > high):
            raise InvalidInput(f"{key}: answer a number from {low} to {high}", field=key)
    else:
        if not isinstance(value, str) or len(value) > MAX_TEXT_ANSWER:
            raise InvalidInput(
                f"{key}: answer with text of at most {MAX_TEXT_ANSWER} characters", field=key
            )
    return value


def validate_answers(session: Session, phase: str, given: Any) -> dict[str, Any]:
    """The answers to the study's ``phase`` questions; unknown keys and gaps are refused."""
    if not isinstance(given, dict):
        raise InvalidInput("answers must be an object {question key: answer}", field="answers")
    questions = {q["key"]: q for q in session.study.questions(phase)}
    unknown = sorted(set(given) - set(questions))
    if unknown:
        raise InvalidInput(f"unknown question(s): {', '.join(unknown)}", field="answers")
    out = {}
    for key, question in questions.items():
        value = given.get(key)
        if value is None or value == "":
            if question.get("required", False):
                raise InvalidInput(f"{key}: an answer is required", field=key)
            continue
        out[key] = validate_answer(question, value)
    return out


def store_answers(session: Session, phase: str, answers: dict[str, Any], now: datetime) -> None:
    for key, value in answers.items():
        Answer.objects.update_or_create(
            session=session,
            key=key,
            defaults={"phase": phase, "value": value, "answered_at": now},
        )


def pre_play_requirements(session: Session) -> dict[str, bool]:
    """Which participant facts the questionnaire still has to collect."""
    participant = session.participant
    return {
        "consent": participant.consent_at is None,
        "age": participant.age is None,
        "skill": not participant.skill,
    }


def _participant_facts(data: dict[str, Any], needs: dict[str, bool]) -> tuple[Any, Any, bool]:
    """Age, skill and genre preference from the questionnaire, checked; consent required."""
    if needs["consent"] and data.get("consent") is not True:
        raise InvalidInput("the participant's consent is required", field="consent")
    age = data.get("age")
    if age is not None:
        if isinstance(age, bool) or not isinstance(age, int) or not 10 <= age <= 120:
            raise InvalidInput("age: a whole number from 10 to 120", field="age")
    elif needs["age"]:
        raise InvalidInput("age: required", field="age")
    skill = data.get("skill")
    if skill is not None and skill not in Skill.values:
        raise InvalidInput(f"skill: one of {', '.join(Skill.values)}", field="skill")
    if skill is None and needs["skill"]:
        raise InvalidInput(f"skill: required (one of {', '.join(Skill.values)})", field="skill")
    favours = data.get("genre_preference")
    if not isinstance(favours, bool):
        raise InvalidInput(
            "genre_preference: true or false (does the participant favour games of this genre?)",
            field="genre_preference",
        )
    return age, skill, favours


def submit_questionnaire(session_id: int, data: dict[str, Any]) -> Session:
    """The pre-play questionnaire: consent, age, skill, genre preference, study questions."""
    with locked(session_id) as session:
        if session.state != State.QUESTIONNAIRE:
            raise WrongState(
                f"the questionnaire is answered in state questionnaire (the session is "
                f"{session.state})"
            )
        participant = Participant.objects.select_for_update().get(pk=session.participant_id)
        age, skill, favours = _participant_facts(data, pre_play_requirements(session))
        answers = validate_answers(session, "pre", data.get("answers", {}))
        now = timezone.now()
        if participant.consent_at is None:
            participant.consent_at = now
        if age is not None:
            participant.age = age
        if skill is not None:
            participant.skill = skill
        genre = session.game.genre or session.game.name
        participant.genre_preferences = {**participant.genre_preferences, genre: favours}
        participant.save()
        store_answers(session, "pre", {"genre_preference": favours, **answers}, now)
        enter_free_play(session)
        return session


def submit_post_questions(session_id: int, data: dict[str, Any]) -> Session:
    """The end-of-session answers; completes the session (the impairment is cleared)."""
    with locked(session_id) as session:
        if session.state != State.POST_QUESTIONS:
            raise WrongState(
                f"the post-session questions come after the last rating (the session is "
                f"{session.state})"
            )
        answers = validate_answers(session, "post", data.get("answers", {}))
        store_answers(session, "post", answers, timezone.now())
        end_session(session, State.COMPLETED)
        return session
