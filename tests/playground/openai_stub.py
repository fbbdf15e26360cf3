"""A local HTTP server that speaks the chat completions endpoint, for summarizer tests."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatStub:
    """Serves POST /v1/chat/completions on 127.0.0.1; ``mode`` picks the reply."""

    def __init__(self) -> None:
        # ok | error500 | slow | empty | refusal, and hostile ones:
        # drip (a byte every 0.2 s, forever) | endless (a body that never ends) | huge (a 1 MB summary)
        # | echo (the summary repeats the Authorization header) | bad_usage (usage figures no count can be)
        self.mode = "ok"
        self.summary_text = ""  # when set, every summary is this text
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
                if stub.mode in ("drip", "endless"):
                    return self._stream_forever(stub.mode)
                content, refusal = f"LLM summary #{len(stub.requests)}: the agent fixed INV-2041.", None
                content = stub.summary_text or content
                usage = {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
                if stub.mode == "huge":
                    content = "summary " * 130_000  # 1 MB: under the reply limit, over the summary limit
                if stub.mode == "echo":
                    content = f"The key is {self.headers.get('Authorization', '').removeprefix('Bearer ')}."
                if stub.mode == "bad_usage":
                    usage = {"prompt_tokens": -5, "completion_tokens": 1e300}
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
                        "usage": usage,
                    },
                )

            def _stream_forever(self, mode: str) -> None:
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(b'{"id": "')
                    while not stub.stopped.is_set():
                        if mode == "drip":
                            self.wfile.write(b"x")
                            self.wfile.flush()
                            time.sleep(0.2)
                        else:
                            self.wfile.write(b"x" * 65536)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up, as it should
                    pass

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

        self.stopped = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ChatStub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopped.set()
        self.server.shutdown()
        self.server.server_close()
