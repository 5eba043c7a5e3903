"""An S3-compatible server for the benchmarks: moto's, on 127.0.0.1, with latency per request.

Run as its own process (so its CPU is not the reader's): it prints the port
on its first line, then serves until stdin closes. Every request waits
``LATENCY`` seconds before moto answers it (an object store's first-byte
latency). Objects are readable without signatures (moto's default), so a
plain HTTP GET of ``/bucket/key`` reads one as well.

    python _s3_server.py LATENCY
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any


def main(latency: float) -> None:
    from moto.server import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import WSGIRequestHandler, make_server

    class Quiet(WSGIRequestHandler):
        def log_request(self, *args: Any, **kwargs: Any) -> None:
            pass

    app = DomainDispatcherApplication(create_backend_app)

    def delayed(environ: dict[str, Any], start_response: Any) -> Any:
        if latency:
            time.sleep(latency)
        return app(environ, start_response)

    server = make_server("127.0.0.1", 0, delayed, threaded=True, request_handler=Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    print(server.server_port, flush=True)
    sys.stdin.read()  # until the bench closes the pipe
    server.shutdown()
    os._exit(0)  # open keep-alive connections hold their threads: leave without them


if __name__ == "__main__":
    main(float(sys.argv[1]))
