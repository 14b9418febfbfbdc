"""An os-ken application that steers flows itself; run it with ``osken-manager``.

``QOE_STEER_OSKEN_SOCKET=/run/qoe-steer-osken.sock osken-manager osken_app.py``
(os-ken 3.1, OpenFlow 1.3). It serves a small HTTP API on that Unix socket (a file path,
so a steering daemon reaches it from any network namespace):

- ``POST /steer`` ``{"flow": id, "match": {OXM fields}, "port": n, "cookie": c,
  "priority": p}`` → one OFPFC_ADD flow mod (same match and priority: replaces the rule),
  then a barrier request; answers 202 ``{"flow", "change"}``; 503 when no switch is up.
- ``GET /flows`` → ``{"datapath": dpid|null, "flows": {id: {"port", "change", "confirmed",
  "error"}}}``; ``confirmed`` turns true when the barrier reply for that change arrives
  (OpenFlow 1.3 §6.5: the switch has processed every message before the barrier).

This file imports os_ken and eventlet, which only the tool venv has; the package's mypy
run excludes it (steer/pyproject.toml).
"""

from __future__ import annotations

import json
import os
import socket
from typing import Any

import eventlet
import eventlet.wsgi
from os_ken.base import app_manager
from os_ken.controller import ofp_event
from os_ken.controller.handler import CONFIG_DISPATCHER, MAIN_DISPATCHER, set_ev_cls
from os_ken.lib import hub
from os_ken.ofproto import ofproto_v1_3

SOCKET_ENV = "QOE_STEER_OSKEN_SOCKET"


class SteerApp(app_manager.OSKenApp):  # type: ignore[misc]
    OFP_VERSIONS = [ofproto_v1_3.OFP_VERSION]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.datapath: Any = None
        self.flows: dict[str, dict[str, Any]] = {}
        self.pending: dict[int, str] = {}  # xid of a flow mod or barrier → flow id
        self.changes = 0
        path = os.environ.get(SOCKET_ENV, "/run/qoe-steer-osken.sock")
        if os.path.exists(path):
            os.unlink(path)
        listener = eventlet.listen(path, family=socket.AF_UNIX)
        hub.spawn(eventlet.wsgi.server, listener, self.wsgi, log_output=False)

    @set_ev_cls(ofp_event.EventOFPSwitchFeatures, CONFIG_DISPATCHER)
    def switch_features(self, ev: Any) -> None:
        self.datapath = ev.msg.datapath
        self.logger.info("qoe-steer: switch %016x connected", self.datapath.id)

    @set_ev_cls(ofp_event.EventOFPBarrierReply, MAIN_DISPATCHER)
    def barrier_reply(self, ev: Any) -> None:
        flow = self.pending.pop(ev.msg.xid, None)
        if flow is not None and self.flows[flow]["error"] is None:
            self.flows[flow]["confirmed"] = True

    @set_ev_cls(ofp_event.EventOFPErrorMsg, MAIN_DISPATCHER)
    def error(self, ev: Any) -> None:
        flow = self.pending.pop(ev.msg.xid, None)
        if flow is not None:
            self.flows[flow]["error"] = f"type={ev.msg.type} code={ev.msg.code}"

    def steer(self, body: dict[str, Any]) -> dict[str, Any]:
        dp = self.datapath
        ofp, parser = dp.ofproto, dp.ofproto_parser
        port = int(body["port"])
        actions = [parser.OFPActionOutput(port)]
        mod = parser.OFPFlowMod(
            datapath=dp,
            cookie=int(body.get("cookie", 0)),
            command=ofp.OFPFC_ADD,
            priority=int(body.get("priority", 40000)),
            match=parser.OFPMatch(**body["match"]),
            instructions=[parser.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, actions)],
        )
        barrier = parser.OFPBarrierRequest(dp)
        dp.set_xid(mod)
        dp.set_xid(barrier)
        self.changes += 1
        flow = str(body["flow"])
        self.flows[flow] = {"port": port, "change": self.changes, "confirmed": False,
                            "error": None}  # fmt: skip
        self.pending[mod.xid] = flow
        self.pending[barrier.xid] = flow
        dp.send_msg(mod)
        dp.send_msg(barrier)
        return {"flow": flow, "change": self.changes}

    def wsgi(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        method, path = environ["REQUEST_METHOD"], environ["PATH_INFO"]
        status, answer = "404 Not Found", {"error": f"no route {method} {path}"}
        try:
            if (method, path) == ("GET", "/flows"):
                dpid = self.datapath.id if self.datapath is not None else None
                status, answer = "200 OK", {"datapath": dpid, "flows": self.flows}
            elif (method, path) == ("POST", "/steer"):
                if self.datapath is None or not self.datapath.is_active:
                    status, answer = "503 Service Unavailable", {"error": "no switch connected"}
                else:
                    size = int(environ.get("CONTENT_LENGTH") or 0)
                    body = json.loads(environ["wsgi.input"].read(size))
                    status, answer = "202 Accepted", self.steer(body)
        except (KeyError, TypeError, ValueError) as exc:
            status, answer = "400 Bad Request", {"error": f"bad request: {exc}"}
        data = json.dumps(answer).encode()
        start_response(status, [("Content-Type", "application/json"),
                                ("Content-Length", str(len(data)))])  # fmt: skip
        return [data]
