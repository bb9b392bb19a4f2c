"""A local stand-in for the Anthropic Messages API (a test fixture, not a product part).

Claude Code, with ANTHROPIC_BASE_URL pointing here and any ANTHROPIC_API_KEY, sends each model request as
`POST /v1/messages?beta=true` (streamed). The stand-in records every request body and answers with one short
text message (server-sent events: message_start, content_block_start/_delta/_stop, message_delta,
message_stop), so a whole turn completes offline and a test reads exactly what the model would have seen.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import List

REPLY = "Understood."


def _events(model: str) -> bytes:
    message = {
        "id": "msg_standin",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    events = [
        ("message_start", {"type": "message_start", "message": message}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": REPLY}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 1},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return b"".join(b"event: %s\ndata: %s\n\n" % (name.encode(), json.dumps(data).encode()) for name, data in events)


class MessagesStandIn:
    """`with MessagesStandIn() as api:` serves on 127.0.0.1 (api.url); api.requests holds every body received."""

    def __init__(self) -> None:
        self.requests: List[dict] = []
        requests = self.requests

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                    self.send_response(404)
                    self.end_headers()
                    return
                request = json.loads(body)
                requests.append(request)
                model = request.get("model", "standin")
                if request.get("stream"):
                    data = _events(model)
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                else:
                    reply = {
                        "id": "msg_standin",
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [{"type": "text", "text": REPLY}],
                        "stop_reason": "end_turn",
                        "stop_sequence": None,
                        "usage": {"input_tokens": 1, "output_tokens": 1},
                    }
                    data = json.dumps(reply).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "MessagesStandIn":
        self.thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def request_text(request: dict) -> str:
    """Every text of a request the model reads: the system prompt and each message's text blocks."""
    parts: List[str] = []
    system = request.get("system", "")
    for block in [system] if isinstance(system, str) else system:
        parts.append(block if isinstance(block, str) else block.get("text", ""))
    for message in request.get("messages", []):
        content = message.get("content")
        for block in [content] if isinstance(content, str) else content or []:
            if isinstance(block, str):
                parts.append(block)
            elif block.get("type") == "text":
                parts.append(block.get("text", ""))
            elif block.get("type") == "tool_result":
                inner = block.get("content")
                parts.extend([inner] if isinstance(inner, str) else [b.get("text", "") for b in inner or []])
    return "\n".join(parts)
