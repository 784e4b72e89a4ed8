"""A local HTTP server that replays OpenML XML responses (for tests; never the network).

Routes are ``(regex, answer)`` pairs matched against the request path after
``/api/v1/xml/`` (the whole path for the data files, which OpenML serves elsewhere); an answer
is ``(status, body)``, a list of those (one per call, the last one repeated) or a callable
``(path, query) -> (status, body)``.  Bodies are sent gzip-encoded, as
OpenML's server does.  Every request is recorded with its path and decoded query string.
"""

from __future__ import annotations

import gzip
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

FIXTURES = Path(__file__).parent / "fixtures"
PREFIX = "/api/v1/xml/"
#: Where recorded responses point for downloads (the data files); the replay serves them.
OPENML_ROOT = "https://api.openml.org"

Answer = tuple[int, str]


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def ok(name: str) -> Answer:
    return 200, fixture(name)


def downloads_here(server: ReplayServer, name: str) -> Callable[[str, dict], Answer]:
    """Answer with fixture ``name``, its download addresses pointing at ``server``."""

    def answer(path: str, query: dict) -> Answer:
        return 200, fixture(name).replace(OPENML_ROOT, server.root)

    return answer


def evaluations_of_runs(name: str) -> Callable[[str, dict], Answer]:
    """Answer an evaluation listing filtered by ``/run/<ids>`` like the server does."""
    blocks = re.findall(r"<oml:evaluation>.*?</oml:evaluation>", fixture(name), re.DOTALL)

    def answer(path: str, query: dict) -> Answer:
        match = re.search(r"/run/([\d,]+)", path)
        wanted = set(match.group(1).split(",")) if match else None
        kept = [
            b
            for b in blocks
            if wanted is None or re.search(r"<oml:run_id>(\d+)<", b).group(1) in wanted
        ]
        if not kept:
            return 412, fixture("no_results_542.xml")
        body = '<oml:evaluations xmlns:oml="http://openml.org/openml">\n'
        return 200, body + "\n".join(kept) + "\n</oml:evaluations>\n"

    return answer


class ReplayServer:
    """Threaded HTTP server on 127.0.0.1 and a free port."""

    def __init__(self) -> None:
        self.routes: list[tuple[re.Pattern[str], object]] = []
        self.calls: dict[int, int] = {}
        self.requests: list[tuple[str, dict]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                split = urlsplit(self.path)
                path = unquote(split.path)
                query = {k: v[0] for k, v in parse_qs(split.query).items()}
                status, body = server._answer(path, query)
                data = gzip.compress(body.encode("utf-8"))
                self.send_response(status)
                self.send_header("Content-Type", "text/xml; charset=utf-8")
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:  # keep test output clean
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.root = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.url = f"{self.root}/api/v1/xml"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def route(self, pattern: str, answer: object) -> None:
        """Add (or override, since later routes win) an answer for paths matching ``pattern``."""
        self.routes.insert(0, (re.compile(pattern), answer))

    def _answer(self, path: str, query: dict) -> Answer:
        endpoint = path[len(PREFIX) :] if path.startswith(PREFIX) else path
        with self._lock:
            self.requests.append((endpoint, query))
            for pattern, answer in self.routes:
                if not pattern.search(endpoint):
                    continue
                count = self.calls.get(id(answer), 0)
                self.calls[id(answer)] = count + 1
                if callable(answer):
                    return answer(endpoint, query)
                if isinstance(answer, list):
                    return answer[min(count, len(answer) - 1)]
                return answer
        return 404, "<html>no route</html>"

    def paths(self, prefix: str = "") -> list[str]:
        return [p for p, _ in self.requests if p.startswith(prefix)]

    def __enter__(self) -> ReplayServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def openml_routes(server: ReplayServer) -> None:
    """Answers of a small, healthy OpenML: 3 runs on 2 tasks, in pages of 2, and one dataset
    to download (999001, donors: 48 rows, an ARFF file)."""
    server.route(r"^user/list/user_id/", ok("user_list.xml"))
    server.route(r"^estimationprocedure/list", ok("estimation_procedure_list.xml"))
    server.route(r"^task/list/", ok("task_list.xml"))
    server.route(r"^data/61$", ok("data_description_61.xml"))
    server.route(r"^data/20$", ok("data_description_20.xml"))
    server.route(r"^data/qualities/61$", ok("data_qualities_61.xml"))
    server.route(r"^data/qualities/20$", ok("data_qualities_20.xml"))
    server.route(r"^data/999001$", downloads_here(server, "data_description_999001.xml"))
    server.route(r"^/data/v1/download/999001/donors\.arff$", ok("dataset_999001.arff"))
    server.route(r"^study/99$", ok("study_99.xml"))
    server.route(
        r"^evaluation/list/function/predictive_accuracy/.*offset/0\b",
        ok("evaluations_accuracy_page1.xml"),
    )
    server.route(
        r"^evaluation/list/function/predictive_accuracy/.*offset/2\b",
        ok("evaluations_accuracy_page2.xml"),
    )
    server.route(
        r"^evaluation/list/function/predictive_accuracy/.*offset/([3-9]|\d\d)",
        (412, fixture("no_results_372.xml")),
    )
    server.route(
        r"^evaluation/list/function/usercpu_time_millis/",
        evaluations_of_runs("evaluations_time.xml"),
    )
