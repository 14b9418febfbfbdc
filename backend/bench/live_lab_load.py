"""The closed-loop load of a live lab: participants' screens and researchers' consoles.

Every virtual user is a thread with its own keep-alive connection that sends its next
request as soon as the previous one is answered (closed loop: the offered load adapts to
the server, no request queue builds up in the generator). The run is bounded by a
duration and a total request count, whichever comes first.

- A participant's screen polls its session with ``If-None-Match`` (the last ETag, as a
  browser's cache sends it); when the step is "rating" it rates the slot (idempotency key
  derived from session and slot, so a retry after a lost answer reuses it), and answers
  the post-play questions at the end.
- A console polls the researcher's view of the sessions in turn.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from live_lab_app import App, LiveSession
from live_lab_http import Answer, Client

POST_ANSWERS = {"willing_to_pay": "yes", "attitude": "positive"}


@dataclass
class PathStats:
    seconds: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    errors: int = 0

    def record(self, answer: Answer, ok: bool) -> None:
        self.seconds.append(answer.seconds)
        self.statuses[answer.status] = self.statuses.get(answer.status, 0) + 1
        if not ok:
            self.errors += 1

    def merge(self, other: PathStats) -> None:
        self.seconds.extend(other.seconds)
        for status, n in other.statuses.items():
            self.statuses[status] = self.statuses.get(status, 0) + n
        self.errors += other.errors


@dataclass
class UserResult:
    paths: dict[str, PathStats] = field(default_factory=dict)
    acknowledged: set[tuple[int, str]] = field(default_factory=set)
    error_samples: list[str] = field(default_factory=list)

    def path(self, name: str) -> PathStats:
        return self.paths.setdefault(name, PathStats())

    def note(self, name: str, answer: Answer, ok: bool) -> None:
        self.path(name).record(answer, ok)
        if not ok and len(self.error_samples) < 5:
            self.error_samples.append(f"{name}: {answer.status} {answer.body[:200]!r}")


class Budget:
    """The run's bounds: a deadline and a request count shared by every user."""

    def __init__(self, seconds: float, requests: int) -> None:
        self.deadline = time.monotonic() + seconds
        self.requests = requests
        self._counter = itertools.count(1)
        self.stop = threading.Event()

    def take(self) -> bool:
        if self.stop.is_set():
            return False
        if next(self._counter) > self.requests or time.monotonic() >= self.deadline:
            self.stop.set()
            return False
        return True


def participant(app: App, session: LiveSession, budget: Budget, result: UserResult) -> None:
    client = app.client()
    client.headers["X-Participant-Token"] = session.token
    path = f"/api/v1/participant/sessions/{session.id}/"
    etag: str | None = None
    view: dict[str, Any] | None = None
    while budget.take():
        answer = client.request("GET", path, headers={"If-None-Match": etag} if etag else None)
        result.note("participant poll", answer, answer.status in (200, 304))
        if answer.status == 200:
            view = answer.json()
            etag = answer.headers.get("ETag")
        elif answer.status != 304:
            continue
        if view is None:
            continue
        if view["step"] == "rating" and budget.take():
            position = view["position"]
            key = f"bench-{session.id}-{position}"
            body = {
                "score": 1 + (session.id + position) % 5,
                "position": position,
                "idempotency_key": key,
            }
            rated = client.request("POST", f"{path}rate/", body)
            result.note("rating submission", rated, rated.status in (200, 201))
            if rated.status in (200, 201):
                result.acknowledged.add((session.id, key))
                view = rated.json()["session"]
                etag = None
        elif view["step"] == "post_questions" and budget.take():
            done = client.request("POST", f"{path}post-questions/", {"answers": POST_ANSWERS})
            result.note("post questions", done, done.status == 200)
            if done.status == 200:
                view, etag = done.json(), None
    client.close()


def console(app: App, client: Client, offset: int, budget: Budget, result: UserResult) -> None:
    ids = [s.id for s in app.sessions]
    for turn in itertools.count(offset):
        if not budget.take():
            break
        answer = client.request("GET", f"/api/v1/sessions/{ids[turn % len(ids)]}/")
        result.note("console session view", answer, answer.status == 200)
    client.close()


def guarded(user: Callable[..., None], result: UserResult, *args: Any) -> None:
    """Run a virtual user; a crash of its thread is a failed request, not a silent gap."""
    try:
        user(*args)
    except Exception as exc:  # any failure of the user's own code
        result.path("virtual user crashed").errors += 1
        result.error_samples.append(f"{user.__name__}: {exc!r}")


@dataclass
class LoadResult:
    seconds: float
    paths: dict[str, PathStats]
    acknowledged: set[tuple[int, str]]
    error_samples: list[str]


def run_load(app: App, *, seconds: float, requests: int, consoles: int) -> LoadResult:
    """Every session's screen and ``consoles`` consoles, until the budget is spent."""
    # The consoles sign in before the clock starts: the run measures the polling.
    signed_in = [app.researcher() for _ in range(consoles)]
    budget = Budget(seconds, requests)
    results = [UserResult() for _ in range(len(app.sessions) + consoles)]
    threads = [
        threading.Thread(
            target=guarded, args=(participant, results[i], app, s, budget, results[i]), daemon=True
        )
        for i, s in enumerate(app.sessions)
    ]
    threads += [
        threading.Thread(
            target=guarded,
            args=(
                console,
                results[len(app.sessions) + i],
                app,
                signed_in[i],
                i * len(app.sessions) // max(consoles, 1),
                budget,
                results[len(app.sessions) + i],
            ),
            daemon=True,
        )
        for i in range(consoles)
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 120)
    elapsed = time.monotonic() - started
    merged: dict[str, PathStats] = {}
    acknowledged: set[tuple[int, str]] = set()
    samples: list[str] = []
    for result in results:
        for name, stats in result.paths.items():
            merged.setdefault(name, PathStats()).merge(stats)
        acknowledged |= result.acknowledged
        samples += result.error_samples
    return LoadResult(elapsed, merged, acknowledged, samples[:10])
