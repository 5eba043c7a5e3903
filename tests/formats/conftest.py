"""An S3-compatible server for the remote tests: moto's, on 127.0.0.1, with injected latency.

moto's WSGI application runs under werkzeug in a thread of the test
process (nothing leaves the machine); a middleware in front of it sleeps
``latency`` seconds per request and counts the requests by method, so a
test can slow the store down and see what the cache saved.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


@dataclass
class S3Server:
    """A running server: its endpoint, the latency to inject, the requests it served."""

    endpoint: str
    latency: float = 0.0
    requests: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)
    in_flight: int = 0
    most_in_flight: int = 0  # the most requests served at once (reset it to measure)

    @property
    def options(self) -> dict[str, Any]:
        """fsspec ``storage_options`` for s3fs against this server."""
        return {
            "key": "testing",
            "secret": "testing",
            "endpoint_url": self.endpoint,
            "client_kwargs": {"region_name": "us-west-2"},
            "skip_instance_cache": True,
            "config_kwargs": {"max_pool_connections": 32},
        }

    def filesystem(self) -> Any:
        import s3fs

        return s3fs.S3FileSystem(**self.options)

    def upload(self, folder: Path, bucket: str, prefix: str) -> str:
        """Copy a local folder's files to ``s3://bucket/prefix``; return that URL."""
        fs = self.filesystem()
        if not fs.exists(bucket):
            fs.mkdir(bucket)
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                fs.put_file(str(path), f"{bucket}/{prefix}/{path.relative_to(folder)}")
        return f"s3://{bucket}/{prefix}"

    def gets(self) -> int:
        with self.lock:
            return self.requests["GET"]


@pytest.fixture(scope="session")
def s3() -> Iterator[S3Server]:
    pytest.importorskip("s3fs", reason="the remote tests need the [formats] extra (s3fs)")
    pytest.importorskip("moto", reason="the remote tests need moto[server] (the [dev] extra)")
    from moto.server import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import WSGIRequestHandler, make_server

    class Quiet(WSGIRequestHandler):
        def log_request(self, *args: Any, **kwargs: Any) -> None:
            pass

    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ.setdefault(key, "testing")
    app = DomainDispatcherApplication(create_backend_app)
    server_state = S3Server(endpoint="")

    def delayed(environ: dict[str, Any], start_response: Any) -> Any:
        with server_state.lock:
            server_state.requests[environ["REQUEST_METHOD"]] += 1
            server_state.in_flight += 1
            server_state.most_in_flight = max(server_state.most_in_flight, server_state.in_flight)
        try:
            if server_state.latency:
                time.sleep(server_state.latency)
            return app(environ, start_response)
        finally:
            with server_state.lock:
                server_state.in_flight -= 1

    server = make_server("127.0.0.1", 0, delayed, threaded=True, request_handler=Quiet)
    server_state.endpoint = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server_state
    finally:
        server.shutdown()
        thread.join(timeout=10)
