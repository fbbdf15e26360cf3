"""A local HTTP server that speaks the chat completions endpoint, for summarizer tests."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatStub:
    """Serves POST /v1/chat/completions on 127.0.0.1; ``mode`` picks the reply."""

    def __init__(self) -> None:
        self.mode = "ok"  # ok | error500 | slow | empty | refusal
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                stub.headers.append({k.lower(): v for k, v in self.headers.items()})
                if stub.mode == "error500":
                    return self._send(
                        500, {"error": {"message": "upstream exploded", "type": "server_error"}}
                    )
                if stub.mode == "slow":
                    time.sleep(3)
                content, refusal = f"LLM summary #{len(stub.requests)}: the agent fixed INV-2041.", None
                if stub.mode == "empty":
                    content = ""
                if stub.mode == "refusal":
                    content, refusal = None, "I can't help with that."
                return self._send(
                    200,
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content, "refusal": refusal},
                            }
                        ],
                        "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
                    },
                )

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out first
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ChatStub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
