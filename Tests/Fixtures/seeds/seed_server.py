#!/usr/bin/env python3
"""A fake of the seed widgets' public APIs, serving recorded payloads. Python 3 standard library only.

Usage: python3 seed_server.py [--root FOLDER]

It binds 127.0.0.1 on a free port, prints `PORT <n>` as the first line of stdout and serves until its
stdin is closed (the protocol of widgetd's TestHTTPServer, which starts it). FOLDER (default: this
script's folder) holds `routes.json` and the recorded payloads it names.

Each API's origin is served under a first path segment naming its host, so one server stands in for
all of them: run a definition with `--rewrite-origin https://api.coingecko.com=http://127.0.0.1:PORT/api.coingecko.com`
and `https://api.coingecko.com/api/v3/simple/price?ids=bitcoin` arrives here as
`/api.coingecko.com/api/v3/simple/price?ids=bitcoin`.

routes.json is {"routes": [ROUTE, ...], "scenarios": {NAME: [ROUTE, ...], ...}}; the first route that
matches a request answers it, the chosen scenario's routes before the others. A ROUTE has
  "method"        GET by default;
  "path"          a shell-style pattern (fnmatch) for the percent-decoded path;
  "query"         optional {name: value}: these query parameters must have exactly these values;
  then either
  "status", "file", "type", "headers"
                  the answer: the status (200 by default), the recorded body (none when there is no
                  "file": an empty body, as a 204 has), its Content-Type and any other headers, or
  "transmission"  {"user", "password", "sessionId", "methods": {RPC method: file}}: Transmission's RPC
                  protocol: a wrong or missing basic authentication answers 401 with Transmission's
                  page and WWW-Authenticate header, a missing or stale X-Transmission-Session-Id answers
                  409 with Transmission's page and the id in that header, and a call answers the
                  recorded {"arguments": …, "result": "success"} with the request's "tag", written
                  compactly as Transmission writes it (for torrent-get, each torrent holds only the
                  requested "fields", in the order requested).

Control routes (not logged):
  GET /_requests        the requests received so far, in order: [{"method", "target" (path and query),
                        "authorization", "sessionId"}].
  GET /_fail?status=N   from now on every other request answers N with {"error": …}; N=0 stops that.
  GET /_scenario?name=NAME
                        from now on the routes of scenarios[NAME] answer first; an empty name stops that.

Anything else is 404 with {"error": "..."}.
"""

import argparse
import base64
import fnmatch
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

ROOT = os.path.dirname(os.path.realpath(__file__))
ROUTES = []
SCENARIOS = {}
LOG = []
FAIL = {"status": 0}
SCENARIO = {"name": ""}
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "seed-server"
    sys_version = ""

    def log_message(self, *args):
        pass

    def send_body(self, status, body, content_type, headers=()):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        if status != 204:
            self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status, value, headers=()):
        self.send_body(status, json.dumps(value).encode("utf-8"), "application/json", headers)

    def handle_any(self):
        split = urlsplit(self.path)
        path = unquote(split.path)
        query = {name: values[0] for name, values in parse_qs(split.query, keep_blank_values=True).items()}
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        try:
            if path == "/_requests":
                with LOCK:
                    self.send_json(200, list(LOG))
                return
            if path == "/_fail":
                with LOCK:
                    FAIL["status"] = int(query.get("status", "0"))
                self.send_json(200, {"status": FAIL["status"]})
                return
            if path == "/_scenario":
                name = query.get("name", "")
                if name and name not in SCENARIOS:
                    self.send_json(400, {"error": "no scenario named %r; known: %s" % (name, sorted(SCENARIOS))})
                    return
                with LOCK:
                    SCENARIO["name"] = name
                self.send_json(200, {"scenario": name})
                return
            with LOCK:
                LOG.append({
                    "method": self.command,
                    "target": self.path,
                    "authorization": self.headers.get("Authorization"),
                    "sessionId": self.headers.get("X-Transmission-Session-Id"),
                })
                failing = FAIL["status"]
                routes = SCENARIOS.get(SCENARIO["name"], []) + ROUTES
            if failing:
                self.send_json(failing, {"error": "the fake server was told to fail"})
                return
            for route in routes:
                if route.get("method", "GET") != self.command or not fnmatch.fnmatchcase(path, route["path"]):
                    continue
                if any(query.get(name) != value for name, value in route.get("query", {}).items()):
                    continue
                if "transmission" in route:
                    self.transmission(route["transmission"], body)
                else:
                    payload = read(route["file"]) if "file" in route else b""
                    self.send_body(route.get("status", 200), payload, route.get("type"), route.get("headers", {}).items())
                return
            self.send_json(404, {"error": "no recorded payload for %s %s" % (self.command, self.path)})
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = handle_any
    do_POST = handle_any
    do_HEAD = handle_any

    def transmission(self, server, body):
        expected = "Basic " + base64.b64encode(("%s:%s" % (server["user"], server["password"])).encode()).decode()
        if self.headers.get("Authorization") != expected:
            self.send_body(401, b"<h1>401: Unauthorized</h1>Unauthorized User", "text/html; charset=ISO-8859-1",
                           [("WWW-Authenticate", 'Basic realm="Transmission"')])
            return
        if self.headers.get("X-Transmission-Session-Id") != server["sessionId"]:
            page = ("<h1>409: Conflict</h1><p>Your request had an invalid session-id header.</p>"
                    "<p>To fix this, follow these steps:<ol><li> When reading a response, get its "
                    "X-Transmission-Session-Id header and remember it<li> Add the updated header to your outgoing "
                    "requests<li> When you get this 409 error message, resend your request with the updated header"
                    "</ol></p><p>This requirement has been added to help prevent "
                    "<a href=\"https://en.wikipedia.org/wiki/Cross-site_request_forgery\">CSRF</a> attacks.</p>"
                    "<p><code>X-Transmission-Session-Id: %s</code></p>" % server["sessionId"]).encode()
            self.send_body(409, page, "text/html; charset=ISO-8859-1", [("X-Transmission-Session-Id", server["sessionId"])])
            return
        try:
            request = json.loads(body)
        except ValueError:
            request = {}
        method = request.get("method")
        if method not in server["methods"]:
            self.send_json(200, {"arguments": {}, "result": "method name not recognized"})
            return
        answer = json.loads(read(server["methods"][method]))
        if method == "torrent-get":
            fields = request.get("arguments", {}).get("fields", [])
            answer["arguments"]["torrents"] = [
                {key: torrent[key] for key in fields if key in torrent} for torrent in answer["arguments"]["torrents"]
            ]
        if "tag" in request:
            answer["tag"] = request["tag"]
        self.send_body(200, json.dumps(answer, separators=(",", ":")).encode(), "application/json; charset=UTF-8")


def read(name):
    with open(os.path.join(ROOT, name), "rb") as handle:
        return handle.read()


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def main():
    global ROOT, ROUTES, SCENARIOS
    parser = argparse.ArgumentParser(description="fake seed APIs")
    parser.add_argument("--root", help="the folder of routes.json and the payloads")
    arguments = parser.parse_args()
    if arguments.root:
        ROOT = os.path.realpath(arguments.root)
    table = json.loads(read("routes.json"))
    ROUTES = table["routes"]
    SCENARIOS = table.get("scenarios", {})
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdout.write("PORT %d\n" % server.server_address[1])
    sys.stdout.flush()
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except KeyboardInterrupt:
        pass
    server.shutdown()


if __name__ == "__main__":
    main()
