"""The session state machine: states, the explicit transition table, and who may act.

::

    created ─start→ questionnaire ─(answers)→ free_play ─(done)→ applying ─(agent ok)→ playing
    playing ─(timer / researcher)→ rating ─(score)→ applying (next scenario) … or post_questions
    post_questions ─(answers)→ completed
    any running state ─(pause / agent failure)→ paused ─resume→ (back, see services.resume)
    any non-final state ─abort→ aborted

"applying" is transient: the server sends the profile to the agent and waits for the
verified read-back in the same request; it only persists if the server stopped mid-way,
and is then driven to completion by the next request that touches the session.
"""

from __future__ import annotations

from django.db import models


class State(models.TextChoices):
    CREATED = "created", "Created"
    QUESTIONNAIRE = "questionnaire", "Questionnaire"
    FREE_PLAY = "free_play", "Free play (unimpaired)"
    APPLYING = "applying", "Applying the scenario"
    PLAYING = "playing", "Playing"
    RATING = "rating", "Rating"
    POST_QUESTIONS = "post_questions", "Post-session questions"
    COMPLETED = "completed", "Completed"
    PAUSED = "paused", "Paused"
    ABORTED = "aborted", "Aborted"


#: Every allowed (from, to) pair; services.transitions.transition() refuses anything else.
TRANSITIONS: dict[str, frozenset[str]] = {
    State.CREATED: frozenset({State.QUESTIONNAIRE, State.ABORTED}),
    State.QUESTIONNAIRE: frozenset({State.FREE_PLAY, State.PAUSED, State.ABORTED}),
    State.FREE_PLAY: frozenset({State.APPLYING, State.PAUSED, State.ABORTED}),
    State.APPLYING: frozenset({State.PLAYING, State.PAUSED, State.ABORTED}),
    State.PLAYING: frozenset({State.RATING, State.PAUSED, State.ABORTED}),
    State.RATING: frozenset({State.APPLYING, State.POST_QUESTIONS, State.PAUSED, State.ABORTED}),
    State.POST_QUESTIONS: frozenset({State.COMPLETED, State.PAUSED, State.ABORTED}),
    State.PAUSED: frozenset(
        {
            State.QUESTIONNAIRE,
            State.FREE_PLAY,
            State.APPLYING,
            State.RATING,
            State.POST_QUESTIONS,
            State.ABORTED,
        }
    ),
    State.COMPLETED: frozenset(),
    State.ABORTED: frozenset(),
}

#: States in which a session occupies its station.
ACTIVE_STATES = frozenset(
    {
        State.QUESTIONNAIRE,
        State.FREE_PLAY,
        State.APPLYING,
        State.PLAYING,
        State.RATING,
        State.POST_QUESTIONS,
        State.PAUSED,
    }
)
FINAL_STATES = frozenset({State.COMPLETED, State.ABORTED})
#: States in which an impairment is (or is being) installed and the lease must be renewed.
LEASED_STATES = frozenset({State.APPLYING, State.PLAYING, State.RATING})


def can_transition(source: str, target: str) -> bool:
    return target in TRANSITIONS.get(source, frozenset())
