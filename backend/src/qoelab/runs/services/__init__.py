"""The session flow: every transition of the state machine, enforced on the server.

Each public function takes a session id, locks the session row (``select_for_update``)
inside a transaction, checks the transition against :data:`state_machine.TRANSITIONS`
and writes the new state with server-side timestamps — so a retried or concurrent
request can never apply a step twice, and a restarted server resumes from the row.

Calls to the station's agent happen while the row is locked: a second request for the
same session waits and then sees the outcome. Ratings are committed *before* the next
scenario is applied, in their own transaction, so an agent failure can never lose one.

Modules: :mod:`.creation` (new sessions), :mod:`.lifecycle` (start, free play, pause,
resume, abort), :mod:`.answers` (questionnaires), :mod:`.rating`, :mod:`.heartbeat`
(timers, lease, pause expiry), :mod:`.impairment` (the agent), :mod:`.transitions` (the
locked row), :mod:`.timing`, :mod:`.errors`. Refusals raise :class:`SessionError`.
"""

from __future__ import annotations

from qoelab.runs.services.answers import (
    pre_play_requirements,
    submit_post_questions,
    submit_questionnaire,
)
from qoelab.runs.services.creation import create_session
from qoelab.runs.services.errors import InvalidInput, SessionError, WrongState
from qoelab.runs.services.heartbeat import (
    end_play_unlocked,
    expire_sessions,
    heartbeat_all,
    tick,
    tick_due,
)
from qoelab.runs.services.lifecycle import (
    abort,
    advance,
    end_scenario,
    finish_free_play,
    pause,
    resume,
    start,
)
from qoelab.runs.services.rating import RateResult, rate
from qoelab.runs.services.timing import seconds_remaining

__all__ = [
    "InvalidInput",
    "RateResult",
    "SessionError",
    "WrongState",
    "abort",
    "advance",
    "create_session",
    "end_play_unlocked",
    "end_scenario",
    "expire_sessions",
    "finish_free_play",
    "heartbeat_all",
    "pause",
    "pre_play_requirements",
    "rate",
    "resume",
    "seconds_remaining",
    "start",
    "submit_post_questions",
    "submit_questionnaire",
    "tick",
    "tick_due",
]
