#!/usr/bin/env python3
"""A small 7/MDP worker in Python (pyzmq) that adds a service of its own to Tally: `greeter`.

    python3 greeter_worker.py --backend tcp://127.0.0.1:5556

Then any client reaches it through the gateway, as it reaches Tally's own services:

    tally call greeter.hello '{"name": "Ann"}'      →  {"greeting": "Hello, Ann!"}

Written from docs/protocol.md section 6 alone: connect a DEALER to the gateway's backend, send
READY with the service name (and, as Tally allows, a description of its commands), answer each REQUEST with a REPLY that echoes the request token,
send HEARTBEAT whenever there is nothing else to say, and start again (new socket, READY again)
on DISCONNECT or when the gateway has been silent too long. The gateway has already checked the
envelope; the worker checks `args` and answers with Tally's reply shape and error codes.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from typing import Optional

import zmq
import zmq.auth

SERVICE = "greeter"
WORKER = b"MDPW01"
READY, REQUEST, REPLY, HEARTBEAT, DISCONNECT = (bytes([n]) for n in range(1, 6))
RECONNECT_DELAY = 0.25  # seconds


class Refusal(Exception):
    """A request this service refuses, with a gRPC code and the field to blame."""

    def __init__(self, code: str, message: str, field: Optional[str] = None):
        super().__init__(message)
        self.code, self.message, self.field = code, message, field


def hello(args: dict) -> dict:
    name = args.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 100:
        raise Refusal("invalid_argument", "name is required: a string of 1 to 100 characters", "args.name")
    unknown = sorted(set(args) - {"name"})
    if unknown:
        raise Refusal("invalid_argument", f"unknown argument '{unknown[0]}'; greeter.hello takes name", f"args.{unknown[0]}")
    return {"greeting": f"Hello, {name}!"}


COMMANDS = {"greeter.hello": hello}

# Tally's optional READY extension (docs/protocol.md 6.1): the service describes its commands, and
# `system.describe` (`tally describe greeter`) shows them. A broker that does not know it ignores it.
DESCRIPTION = {"commands": [{
    "name": "greeter.hello", "kind": "query", "access": "open", "summary": "Greets someone by name.",
    "args_schema": {"type": "object", "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 100}},
                    "required": ["name"], "additionalProperties": False},
    "result_schema": {"type": "object", "properties": {"greeting": {"type": "string"}}, "required": ["greeting"]},
}]}


def answer(body: bytes) -> bytes:
    """The reply to one envelope (already checked by the gateway), as compact JSON."""
    request = json.loads(body)
    reply: dict = {"id": request["id"]} if "id" in request else {}
    try:
        command = COMMANDS.get(request["command"])
        if command is None:
            raise Refusal("unimplemented", f"unknown command '{request['command']}'; {SERVICE} serves {', '.join(sorted(COMMANDS))}",
                          "command")
        reply.update(ok=True, result=command(request.get("args") or {}))
    except Refusal as refusal:
        error = {"code": refusal.code, "message": refusal.message}
        if refusal.field:
            error["field"] = refusal.field
        reply.update(ok=False, error=error)
    except Exception as bug:  # a bug in a handler: answer, log, and keep serving
        print(f"{request['command']} failed: {bug!r}", file=sys.stderr, flush=True)
        reply.update(ok=False, error={"code": "internal", "message": f"{request['command']} failed inside the service"})
    return json.dumps(reply, separators=(",", ":")).encode()


class Worker:
    def __init__(self, backend: str, heartbeat: float, liveness: int, curve: Optional[tuple[bytes, bytes, bytes]]):
        self.backend, self.heartbeat, self.liveness, self.curve = backend, heartbeat, liveness, curve
        self.context = zmq.Context.instance()
        self.socket: Optional[zmq.Socket] = None
        self.stopping = False

    def connect(self) -> None:
        if self.socket is not None:
            self.socket.close(linger=0)
        self.socket = self.context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 1000)
        if self.curve:
            self.socket.curve_publickey, self.socket.curve_secretkey, self.socket.curve_serverkey = self.curve
        self.socket.connect(self.backend)
        self.send(READY, SERVICE.encode(), json.dumps(DESCRIPTION).encode())
        self.heard_at = self.sent_at = time.monotonic()

    def reconnect(self) -> None:
        time.sleep(RECONNECT_DELAY)  # a gateway that keeps refusing us is not asked in a tight loop
        self.connect()

    def send(self, command: bytes, *frames: bytes) -> None:
        self.socket.send_multipart([b"", WORKER, command, *frames])
        self.sent_at = time.monotonic()

    def run(self) -> None:
        self.connect()
        print(f"{SERVICE} worker serving through {self.backend}", flush=True)
        while not self.stopping:
            if self.socket.poll(int(self.heartbeat * 1000), zmq.POLLIN):
                frames = self.socket.recv_multipart()
                self.heard_at = time.monotonic()
                if len(frames) < 3 or frames[0] != b"" or frames[1] != WORKER:
                    continue  # not 7/MDP: ignore it
                if frames[2] == REQUEST and len(frames) >= 6:
                    client, body = frames[3], frames[5]
                    self.send(REPLY, client, b"", answer(body))
                elif frames[2] == DISCONNECT:
                    self.reconnect()  # the gateway does not know us (any more): register again
            elif time.monotonic() - self.heard_at > self.heartbeat * self.liveness:
                self.reconnect()  # the gateway is gone: a new socket, and READY again
            if time.monotonic() - self.sent_at >= self.heartbeat:
                self.send(HEARTBEAT)
        self.send(DISCONNECT)
        self.socket.close()
        self.context.term()


def main() -> int:
    parser = argparse.ArgumentParser(description=f"A 7/MDP worker serving '{SERVICE}' behind a Tally gateway.")
    parser.add_argument("--backend", default="tcp://127.0.0.1:5556", help="the gateway's worker endpoint")
    parser.add_argument("--heartbeat-ms", type=int, default=2500, help="as the gateway's --heartbeat-ms")
    parser.add_argument("--liveness", type=int, default=3, help="as the gateway's --liveness")
    parser.add_argument("--curve-key", help="this worker's NAME.key_secret (with --gateway-key)")
    parser.add_argument("--gateway-key", help="the gateway's public NAME.key (with --curve-key)")
    options = parser.parse_args()
    if bool(options.curve_key) != bool(options.gateway_key):
        parser.error("--curve-key and --gateway-key go together")
    curve = None
    if options.curve_key:
        public_key, secret_key = zmq.auth.load_certificate(options.curve_key)
        curve = (public_key, secret_key, zmq.auth.load_certificate(options.gateway_key)[0])
    worker = Worker(options.backend, options.heartbeat_ms / 1000, options.liveness, curve)

    def stop(*_):
        worker.stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # A parent (a supervisor, a test runner) may have started us with these blocked.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    worker.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
