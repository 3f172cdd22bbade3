"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions API, scripted per request.

The tests (and ``bench/bench_evalset.py``) point the official ``openai`` client at it: nothing
is mocked, every request crosses a socket. A *script* maps each request to a :class:`Reply`:
a question, a raw (possibly malformed) body, an HTTP error with headers, a delay, or a
connection dropped without an answer. Every request is recorded (time, messages, the hash
ragunc's journal gives the same messages, the Authorization header) so a test can count calls.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Reply:
    """What the server does with one request."""

    text: str | None = None  # a chat completion whose message content is this
    status: int = 200
    body: bytes | dict | None = None  # instead of a completion: this JSON object or these raw bytes
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering
    drop: bool = False  # close the connection without an answer


@dataclass(frozen=True)
class Request:
    """One request as the server saw it."""

    at: float
    messages: list[dict]
    prompt_hash: str
    authorization: str | None
    body: dict

    @property
    def prompt(self) -> str:
        return "\n".join(m.get("content", "") for m in self.messages)


Script = Callable[[int, Request], Reply]


def prompt_hash(messages: list[dict]) -> str:
    """The hash ragunc's journal keys a prompt by (``ragunc.evalset.prompts.prompt_hash``), recomputed here."""
    text = json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def completion(text: str, model: str = "scripted") -> dict:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def quota_error() -> Reply:
    return Reply(
        status=429,
        body={
            "error": {
                "message": "You exceeded your current quota, please check your plan and billing details.",
                "type": "insufficient_quota",
                "param": None,
                "code": "insufficient_quota",
            }
        },
    )


def passage(request: Request) -> str:
    """The chunk text of a ragunc prompt: what follows the last line that ends with a colon."""
    content = request.messages[-1]["content"]
    return content.rsplit(":\n", 1)[-1]


def is_judge(request: Request) -> bool:
    return any(m in request.prompt for m in ("Answer YES or NO", "Responde SÍ o NO", "Responda SIM ou NÃO"))


def is_rephrase(request: Request) -> bool:
    return any(m in request.prompt for m in ("Rewrite the question", "Reescribe la pregunta", "Reescreva a pergunta"))


_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]{4,}")


def echo_question(request: Request) -> Reply:
    """A deterministic answer to any ragunc prompt, from the prompt's own words.

    Question prompts get a question naming two long words of the passage; rephrase prompts
    get a reworded question; judge prompts get "no". The same prompt always gets the same reply.
    """
    content = request.messages[-1]["content"]
    if is_judge(request):
        return Reply(text="No.")
    words = sorted(set(_WORD.findall(passage(request))))
    if len(words) < 2:
        return Reply(text="DISCARD")
    digest = int(hashlib.sha256(content.encode()).hexdigest(), 16)
    a, b = words[digest % len(words)], words[(digest // 7) % len(words)]
    if is_rephrase(request):
        return Reply(text=f"Which setting controls {a.lower()} behaviour?")
    return Reply(text=f"How does {a} interact with {b}?")


class ChatServer:
    """``with ChatServer(script) as server:`` serves on ``server.url`` (``http://127.0.0.1:PORT/v1``)."""

    def __init__(self, script: Script = lambda i, r: echo_question(r)) -> None:
        self.script = script
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self.on_request: Callable[[int], None] | None = None  # called with the request count, after answering
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out at once: no 40 ms delayed-ACK stall

            def log_message(self, *args) -> None:  # keep the test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                messages = body.get("messages", [])
                request = Request(
                    time.monotonic(), messages, prompt_hash(messages), self.headers.get("Authorization"), body
                )
                with server._lock:
                    index = len(server.requests)
                    server.requests.append(request)
                reply = server.script(index, request)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.drop:
                    self.close_connection = True
                    self.connection.shutdown(2)  # no status line: the client sees the connection drop
                    return
                if reply.body is None:
                    payload = json.dumps(completion(reply.text or "", body.get("model", "scripted"))).encode()
                elif isinstance(reply.body, dict):
                    payload = json.dumps(reply.body).encode()
                else:
                    payload = reply.body
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
                    pass
                if server.on_request is not None:
                    server.on_request(index + 1)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> "ChatServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
