#!/usr/bin/env python3
"""A small Tally client in Python (pyzmq), written from docs/protocol.md alone.

    client = TallyClient(["tcp://10.0.0.1:5555", "tcp://10.0.0.2:5555"])
    client.login("ann", "correct horse battery staple")
    tip = client.call("calc.tip", {"amount": "84.00", "tip_percent": "18", "currency": "USD"})

What it shows:

- The envelope (section 3): one JSON frame on a REQ socket; the reply is one JSON frame.
- Lazy Pirate with failover (5.2): wait `timeout` seconds for a reply; on silence close the
  socket, open a new one to the next gateway and send the same request again, up to `tries`
  times. Every request carries an `idempotency_key` that stays the same on every try, so a
  change sent again (to this gateway or another) runs once.
- Typed errors (4.1): an error reply raises the subclass of `TallyError` named after its gRPC
  code (`InvalidArgument`, `Unauthenticated`, ...), with `field` and `message`.
- Tokens: `login` keeps the access and refresh tokens; `call` sends the access token, and when a
  worker answers `unauthenticated` on `token` (it expired) it trades the refresh token for new
  ones (`identity.refresh`, each refresh token works once) and sends the request again.
- CURVE (section 1): `CurveKeys.load(...)` reads the certificate files `tally keys generate`
  writes (czmq's format, which pyzmq's `zmq.auth.load_certificate` reads).

Run it as a program for a short demonstration: `python3 tally_client.py --help`.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from dataclasses import dataclass
from typing import Any, Optional

import zmq
import zmq.auth


class TallyError(Exception):
    """An error reply: `code` is one of gRPC's canonical codes in snake_case."""

    code = "unknown"

    def __init__(self, message: str, field: Optional[str] = None):
        super().__init__(message if field is None else f"{message} (field {field})")
        self.message = message
        self.field = field

    @staticmethod
    def from_reply(error: dict) -> "TallyError":
        kind = _ERRORS_BY_CODE.get(error.get("code"), TallyError)
        return kind(error.get("message", ""), error.get("field"))


class InvalidArgument(TallyError): code = "invalid_argument"          # fix the request
class NotFound(TallyError): code = "not_found"                        # fix the reference
class AlreadyExists(TallyError): code = "already_exists"              # choose another name
class FailedPrecondition(TallyError): code = "failed_precondition"    # look at the state again
class PermissionDenied(TallyError): code = "permission_denied"        # ask someone who may
class Unauthenticated(TallyError): code = "unauthenticated"           # log in (or refresh)
class Unavailable(TallyError): code = "unavailable"                   # retry later, with backoff
class DeadlineExceeded(TallyError): code = "deadline_exceeded"        # retry later
class ResourceExhausted(TallyError): code = "resource_exhausted"      # send less, back off
class Unimplemented(TallyError): code = "unimplemented"               # fix the command
class Internal(TallyError): code = "internal"                         # report it


_ERRORS_BY_CODE = {kind.code: kind for kind in TallyError.__subclasses__()}


class NoReply(Exception):
    """Every try went unanswered: the gateways are down or unreachable, or (under CURVE) refused our key."""


@dataclass(frozen=True)
class CurveKeys:
    """This client's CURVE key pair and the gateway's public key, all Z85."""

    public_key: bytes
    secret_key: bytes
    server_key: bytes

    @classmethod
    def load(cls, secret_file: str, server_file: str) -> "CurveKeys":
        """`secret_file` is this client's NAME.key_secret, `server_file` the gateway's public NAME.key."""
        public_key, secret_key = zmq.auth.load_certificate(secret_file)
        server_key, _ = zmq.auth.load_certificate(server_file)
        if secret_key is None:
            raise ValueError(f"{secret_file} holds no secret key; name the NAME.key_secret file")
        return cls(public_key, secret_key, server_key)


class TallyClient:
    def __init__(self, endpoints: list[str], timeout: float = 5.0, tries: int = 3,
                 curve: Optional[CurveKeys] = None, context: Optional[zmq.Context] = None):
        if not endpoints:
            raise ValueError("give at least one gateway endpoint, such as tcp://127.0.0.1:5555")
        self.endpoints = list(endpoints)
        self.timeout = timeout
        self.tries = tries
        self.curve = curve
        self.context = context or zmq.Context.instance()
        self.access_token: Optional[str] = None
        self.refresh_token: Optional[str] = None
        self.last_endpoint: Optional[str] = None  # the gateway that answered last, asked first next time
        self._next = 0

    def call(self, command: str, args: Optional[dict] = None, token: Optional[str] = None) -> dict:
        """Runs `command` and returns its result; raises a `TallyError` for an error reply.

        Sends the session's access token unless `token` is given, and refreshes it once when the
        worker says it is no longer valid.
        """
        try:
            return self._call(command, args, token or self.access_token)
        except Unauthenticated as error:
            if token or error.field != "token" or not self.refresh_token:
                raise
            self.refresh()
            return self._call(command, args, self.access_token)

    def login(self, username: str, password: str) -> dict:
        result = self._call("identity.login", {"username": username, "password": password}, None)
        self._keep(result)
        return result

    def refresh(self) -> dict:
        """Trades the refresh token for a new access token and a new refresh token."""
        result = self._call("identity.refresh", {"refresh_token": self.refresh_token}, None)
        self._keep(result)
        return result

    def _keep(self, session: dict) -> None:
        self.access_token = session["access_token"]
        self.refresh_token = session["refresh_token"]

    def _call(self, command: str, args: Optional[dict], token: Optional[str]) -> dict:
        envelope: dict[str, Any] = {"id": uuid.uuid4().hex[:12], "command": command, "args": args or {},
                                    # A little less than we wait, so the gateway's answer reaches us (5.1).
                                    "deadline_ms": max(1, int(self.timeout * 1000) - 250),
                                    "idempotency_key": str(uuid.uuid4())}
        if token:
            envelope["token"] = token
        reply = json.loads(self._request(json.dumps(envelope).encode()))
        if reply.get("ok"):
            return reply["result"]
        raise TallyError.from_reply(reply.get("error", {}))

    def _request(self, body: bytes) -> bytes:
        """Lazy Pirate over the gateways in turn: a fresh REQ socket per try."""
        tried = []
        for attempt in range(self.tries):
            index = (self._next + attempt) % len(self.endpoints)
            endpoint = self.endpoints[index]
            tried.append(endpoint)
            with self.context.socket(zmq.REQ) as socket:
                socket.setsockopt(zmq.LINGER, 0)
                if self.curve:
                    socket.curve_publickey = self.curve.public_key
                    socket.curve_secretkey = self.curve.secret_key
                    socket.curve_serverkey = self.curve.server_key
                socket.connect(endpoint)
                socket.send(body)
                if socket.poll(int(self.timeout * 1000), zmq.POLLIN):
                    self._next, self.last_endpoint = index, endpoint
                    return socket.recv()
            self._next = index + 1  # silence: whoever asks next starts at the next gateway
        raise NoReply(f"no reply from {', '.join(dict.fromkeys(tried))} after {len(tried)} tries of {self.timeout} s")


def main() -> int:
    parser = argparse.ArgumentParser(description="Log in, call, refresh and show a typed error against Tally.")
    parser.add_argument("--gateway", action="append", required=True,
                        help="a gateway's client endpoint; repeat for failover, tried in order")
    parser.add_argument("--username", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for each try")
    parser.add_argument("--curve-key", help="this client's NAME.key_secret (with --gateway-key)")
    parser.add_argument("--gateway-key", help="the gateway's public NAME.key (with --curve-key)")
    options = parser.parse_args()
    if bool(options.curve_key) != bool(options.gateway_key):
        parser.error("--curve-key and --gateway-key go together")
    curve = CurveKeys.load(options.curve_key, options.gateway_key) if options.curve_key else None
    client = TallyClient(options.gateway, timeout=options.timeout, tries=2 * len(options.gateway), curve=curve)

    session = client.login(options.username, options.password)
    print(f"logged in as {session['user']['username']} (session {session['session_id']}) via {client.last_endpoint}")
    print(f"whoami: {client.call('identity.whoami')['user']['username']}")
    client.refresh()
    print(f"refreshed: whoami still {client.call('identity.whoami')['user']['username']}")
    tip = client.call("calc.tip", {"amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"})
    print(f"calc.tip: total {tip['total']} {tip['currency']}, {tip['per_person'][0]['total']} each")
    try:
        client.call("calc.tip", {"amount": "84.00", "tip_percent": "lots", "currency": "USD"})
    except InvalidArgument as error:
        print(f"typed error: {type(error).__name__} on {error.field}: {error.message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
