"""Events: strict JSON lines, the ring of 100, appends from many threads never interleave."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from qoe_steer.events import Event, EventLog


def test_event_json_line_is_strict_and_names_class() -> None:
    e = Event(
        1.5,
        "move",
        "a violates",
        flow="game",
        policy_class="cloud-gaming.fast",
        from_path="a",
        to_path="b",
        measurement={"a": {"ratio": float("inf")}},
        action="move",
    )
    line = e.to_json()
    assert "\n" not in line
    obj = json.loads(line)
    assert obj["class"] == "cloud-gaming.fast" and obj["measurement"]["a"]["ratio"] is None
    assert set(obj) == {
        "at_unix",
        "kind",
        "flow",
        "class",
        "from_path",
        "to_path",
        "measurement",
        "bounds",
        "action",
        "time_to_effect_s",
        "message",
    }


def test_ring_keeps_the_last_100_and_file_gets_every_line(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    log = EventLog(path)

    def write(n: int) -> None:
        for i in range(100):
            log.append(Event(float(i), "retry", f"writer {n} event {i} " + "x" * 500))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log.close()
    assert len(log.recent()) == 100
    lines = path.read_text().splitlines()
    assert len(lines) == 400
    assert all(json.loads(line)["kind"] == "retry" for line in lines)  # no torn lines
