#!/usr/bin/env python3
"""Seeds and dictionaries for Tally's fuzz targets, made from the contract itself.

Usage: Fuzz/seed.py REPO OUT

Writes OUT/seeds/<target>/<name>: inputs taken from the worked examples of docs/protocol.md (the
requests, replies, results, events and alerts the contract test checks against a live stack) and
from schemas/, in the form each target reads (see the targets' doc comments); and
OUT/dicts/<target>.dict: libFuzzer dictionaries of the words those inputs are made of (command
names, argument and event field names, enum values), so that mutations reach the code behind a
well-formed name. ops/fuzz.sh runs this before every run, so docs and seeds never drift apart.
"""

import base64
import hashlib
import json
import re
import sys
from pathlib import Path

EXAMPLE = re.compile(r"^<!-- example: (request|bad-request|envelope|result|reply|error)(?: ([a-z_.]+))? -->$")

# FuzzFrames in Fuzz/Support/Frames.swift: a length byte, then the frame; 255 is "the rest".
REST_OF_INPUT = 255


def frames(*parts):
    out = bytearray()
    for index, part in enumerate(parts):
        if index == len(parts) - 1 and len(part) >= REST_OF_INPUT:
            out.append(REST_OF_INPUT)
        else:
            assert len(part) < REST_OF_INPUT, "only the last frame may be 255 bytes or longer"
            out.append(len(part))
        out += part
    return bytes(out)


def broker_message(control, *parts):
    """One message of the broker target's input: the control byte, the frame count, then each
    frame as a length byte and its bytes (Fuzz/Targets/broker/Broker.swift)."""
    out = bytearray([control, len(parts)])
    for part in parts:
        part = part[:255]
        out.append(len(part))
        out += part
    return bytes(out)


def base64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True).encode()


def examples(document):
    """(kind, command, text) for every marked example of docs/protocol.md."""
    lines = document.splitlines()
    found = []
    for number, line in enumerate(lines):
        match = EXAMPLE.match(line.strip())
        if not match or number + 1 >= len(lines) or lines[number + 1].strip() != "```json":
            continue
        body = []
        for following in lines[number + 2:]:
            if following.strip() == "```":
                break
            body.append(following)
        found.append((match.group(1), match.group(2), "\n".join(body)))
    return found


def walk(value):
    yield value
    if isinstance(value, dict):
        for child in value.values():
            yield from walk(child)
    elif isinstance(value, list):
        for child in value:
            yield from walk(child)


def schema_words(schema):
    """Property names, enum and const strings of a JSON Schema."""
    words = set()
    for node in walk(schema):
        if isinstance(node, dict):
            words.update(k for k in node.get("properties", {}) if isinstance(k, str))
            words.update(v for v in node.get("enum", []) if isinstance(v, str))
            if isinstance(node.get("const"), str):
                words.add(node["const"])
    return words


class Output:
    def __init__(self, root):
        self.root = root
        self.seeds = {}
        self.words = {}

    def seed(self, target, data):
        if isinstance(data, str):
            data = data.encode()
        self.seeds.setdefault(target, set()).add(data)

    def word(self, target, *words):
        self.words.setdefault(target, set()).update(w for w in words if w)

    def write(self):
        for target, inputs in self.seeds.items():
            folder = self.root / "seeds" / target
            folder.mkdir(parents=True, exist_ok=True)
            for data in inputs:
                (folder / ("seed-" + hashlib.sha1(data).hexdigest()[:16])).write_bytes(data)
        folder = self.root / "dicts"
        folder.mkdir(parents=True, exist_ok=True)
        for target, words in self.words.items():
            lines = []
            for word in sorted(words):
                escaped = "".join(
                    f"\\x{b:02x}" if b < 0x20 or b >= 0x7F or b in (0x22, 0x5C) else chr(b) for b in word.encode())
                lines.append(f'"{escaped}"')
            (folder / f"{target}.dict").write_text("\n".join(lines) + "\n")


def main():
    repo, out = Path(sys.argv[1]), Path(sys.argv[2])
    output = Output(out)
    found = examples((repo / "docs" / "protocol.md").read_text())
    parsed = []
    for kind, command, text in found:
        try:
            parsed.append((kind, command, text, json.loads(text)))
        except ValueError:
            parsed.append((kind, command, text, None))

    commands = sorted({c for _, c, _, _ in parsed if c})
    args_words, event_words = set(), set()
    for path in sorted((repo / "schemas").rglob("*.json")):
        schema = json.loads(path.read_text())
        output.seed("json", path.read_bytes())
        if "commands" in path.parts:
            args_words |= schema_words(schema)
        if "events" in path.parts or "alerts" in path.parts:
            event_words |= schema_words(schema)
            event_words.add(path.stem)
    envelope_words = schema_words(json.loads((repo / "schemas" / "envelope.json").read_text()))

    for kind, command, text, value in parsed:
        output.seed("json", text)
        if value is None:
            continue
        output.seed("json", compact(value))
        if kind in ("request", "bad-request", "envelope"):
            for target in ("envelope", "commands"):
                output.seed(target, text)
                output.seed(target, compact(value))
            if isinstance(value, dict) and isinstance(value.get("args"), dict):
                args = value["args"]
                output.seed("money-args", compact(args))
                if value.get("locale"):
                    output.seed("money-args", compact({**args, "locale": value["locale"]}))
                if command == "currency.search" and isinstance(args.get("query"), str):
                    output.seed("currency-search", args["query"])
                body = compact(value)
                output.seed("broker-frames", frames(b"", b"MDPW01", b"\x02", b"\x00k\x8bEg", b"", body))
                output.seed("worker-frames", frames(b"", b"MDPW01", b"\x03", b"\x00k\x8bEg", b"", body))
        if kind in ("reply", "error"):
            output.seed("reply", text)
            output.seed("reply", compact(value))
        if kind == "result":
            output.seed("reply", compact({"id": "r-1", "ok": True, "result": value}))
            if command == "alerts.list":
                output.seed("alerts", compact({"id": "r-1", "ok": True, "result": value}))
        for node in walk(value):
            if isinstance(node, str) and re.fullmatch(r"[0-9.]+", node):
                output.seed("decimal", node)
            if isinstance(node, dict) and "specversion" in node:
                output.seed("events", compact(node))
            if isinstance(node, dict) and "event_id" in node and "kind" in node:
                output.seed("alerts", compact(node))

    for text in ["0", "84", "84.5", "84.50", "0.125", "8.875", "100", "999999999999", "999999999999.9999",
                 "0000000000000001.5", "1000000000000", ".5", "5.", "-1", "+1", "1e3", "1,000", " 1", "１２",
                 "١٢", "NaN", "", "."]:
        output.seed("decimal", text)
    for text in ["yen", "Yen", "ＹＥＮ", "ÉURO", "ｽｲｽ", "スイス", "瑞士", "$", "us", "kr", "  u  s ", "İstanbul",
                 "ß", "ø", "’", "\u0301", "e\u0301", ""]:
        output.seed("currency-search", text)
    services = sorted({c.split(".")[0] for c in commands})
    for service in services:
        output.seed("worker-frames", frames(b"", b"MDPW01", b"\x01", service.encode()))
    for command_byte in (b"\x04", b"\x05"):
        output.seed("worker-frames", frames(b"", b"MDPW01", command_byte))
        output.seed("broker-frames", frames(b"", b"MDPW01", command_byte))
    # The broker target's sessions: a worker of each service READY (with a capacity), then each
    # example request from a client, plainly and as 7/MDP, then the worker's reply to the first
    # request (whose token is 1, the broker being new for every input), then the timers.
    for kind, command, text, value in parsed:
        if kind != "request" or value is None or not command:
            continue
        service = command.split(".")[0].encode()
        body = compact(value)
        if len(body) >= 256:
            continue
        ready = broker_message(1, b"", b"MDPW01", b"\x01", service, b"2")
        plain = broker_message(0, b"", body)
        majordomo = broker_message(2, b"", b"MDPC01", service, body)
        reply = broker_message(1, b"", b"MDPW01", b"\x03", (1).to_bytes(8, "big"), b"", compact({"id": value.get("id"), "ok": True, "result": {}}))
        output.seed("broker", ready + plain + majordomo + reply + broker_message(0x20))
    # The token target (Fuzz/Targets/token/Token.swift): each token of the examples as sent (a
    # first byte of 0), and its header and claims to be signed by the target (a first byte of 1).
    for _, _, _, value in parsed:
        for node in walk(value):
            if isinstance(node, str) and re.fullmatch(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+", node) \
                    and node.startswith("eyJ"):
                header, payload, _ = node.split(".")
                output.seed("token", b"\x00" + node.encode())
                output.seed("token", b"\x01" + frames(base64url(header), base64url(payload)))
                output.word("token", *(f'"{k}"' for k in json.loads(base64url(header))),
                            *(f'"{k}"' for k in json.loads(base64url(payload))))
    output.word("token", '"EdDSA"', '"JWT"', '"tally"', '"none"', '"crit"', "eyJ", ".")
    output.seed("alerts", compact({"last_alert_sequence": 3}))
    # The rule that no example of the docs triggers: items carried over into a new list.
    output.seed("events", compact({
        "specversion": "1.0", "id": "7d3c1e52-0b8a-4a7e-9f61-3c2d5e4f6a70", "source": "tally/shopping",
        "type": "shopping.items_carried_over", "time": "2026-11-21T10:00:00.000Z", "subject": "ann/4",
        "datacontenttype": "application/json", "sequence": 7,
        "data": {"owner": "ann", "count": 2, "items": [{"name": "Milk"}, {"name": "Eggs"}], "to_list_name": "Week 48"}}))
    events = sorted(output.seeds.get("events", set()))
    if events:
        output.seed("events", b"\n".join(events))
    alerts = sorted(output.seeds.get("alerts", set()))
    if alerts:
        output.seed("alerts", b"\n".join(alerts))

    envelope_keys = [f'"{w}"' for w in envelope_words]
    quoted_commands = [f'"{c}"' for c in commands]
    output.word("envelope", *envelope_keys, *quoted_commands, "null", "true", "false", "{}", "[]")
    output.word("commands", *envelope_keys, *quoted_commands, *(f'"{w}"' for w in args_words), "null", "true", "false")
    output.word("money-args", *(f'"{w}"' for w in args_words), '"auto"', '"USD"', '"JPY"', '"BHD"', '"CLF"',
                '"en_US"', '"ja_JP"', '"de_CH"', '"locale"', '"amounts"', '"percents"', '"weights"', '"rate"')
    output.word("events", *(f'"{w}"' for w in event_words), '"tally/', '"1.0"')
    output.word("alerts", *(f'"{w}"' for w in event_words), '"last_alert_sequence"', '"ok"', '"result"', '"more"')
    output.word("reply", '"id"', '"ok"', '"result"', '"error"', '"code"', '"message"', '"field"', "true", "false",
                '"invalid_argument"', '"internal"')
    output.word("worker-frames", "MDPW01", "MDPC01", *services)
    output.word("broker-frames", "MDPW01", "MDPC01")
    output.word("broker", "MDPW01", "MDPC01", "mmi.service", *services, *quoted_commands)
    output.write()


if __name__ == "__main__":
    main()
