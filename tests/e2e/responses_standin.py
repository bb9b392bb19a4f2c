"""A stand-in for the OpenAI Responses API on 127.0.0.1, enough for the Codex CLI to run whole turns offline.

Every `POST .../responses` is recorded (its JSON body) and answered with one streamed assistant message: the
server-sent events `response.created`, `response.output_item.added`, `response.output_text.delta`,
`response.output_item.done` and `response.completed` (the shapes the Codex CLI reads; ../shared/harness/README.md,
"Codex, a whole turn offline"). Any other request is recorded too and answered 404, so a test sees it.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import List, Tuple

ANSWER = "Done."


def sse_events(number: int, text: str = ANSWER) -> bytes:
    """The event stream of response NUMBER: one assistant message holding TEXT."""
    response_id, item_id = "resp_%d" % number, "msg_%d" % number
    message = {"type": "message", "id": item_id, "role": "assistant"}
    usage = {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2,
    }
    events = [
        {"type": "response.created", "response": {"id": response_id}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": dict(message, status="in_progress", content=[]),
        },
        {
            "type": "response.output_text.delta",
            "item_id": item_id,
            "output_index": 0,
            "content_index": 0,
            "delta": text,
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": dict(
                message, status="completed", content=[{"type": "output_text", "text": text, "annotations": []}]
            ),
        },
        {"type": "response.completed", "response": {"id": response_id, "usage": usage}},
    ]
    return b"".join(b"event: %s\ndata: %s\n\n" % (e["type"].encode(), json.dumps(e).encode()) for e in events)


class ResponsesStandIn:
    """`with ResponsesStandIn() as api:` serves on api.base_url; api.requests holds the model requests' bodies."""

    def __init__(self) -> None:
        self.requests: List[dict] = []  # the JSON bodies of POST .../responses, in order
        self.others: List[Tuple[str, str]] = []  # (method, path) of every other request
        self._lock = threading.Lock()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # the test reads the records, not a log
                pass

            def _reply(self, status: int, content_type: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not self.path.rstrip("/").endswith("/responses"):
                    with standin._lock:
                        standin.others.append(("POST", self.path))
                    self._reply(404, "application/json", b'{"error": {"message": "not here"}}')
                    return
                with standin._lock:
                    standin.requests.append(json.loads(body))
                    number = len(standin.requests)
                self._reply(200, "text/event-stream", sse_events(number))

            def do_GET(self) -> None:
                with standin._lock:
                    standin.others.append(("GET", self.path))
                self._reply(404, "application/json", b'{"error": {"message": "not here"}}')

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return "http://127.0.0.1:%d/v1" % self._server.server_address[1]

    def __enter__(self) -> "ResponsesStandIn":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
