#!/usr/bin/env python3
"""A local HTTP server for widgetd's tests. Python 3 standard library only.

Usage: python3 http_server.py [--root FOLDER]

It binds 127.0.0.1 on a free port, prints `PORT <n>` as the first line of stdout and serves until its
stdin is closed (so it never outlives the test process that started it). It speaks HTTP/1.1 with
keep-alive; every response carries a Content-Length unless a route says otherwise. Waiting happens
here, in the server, so tests never sleep.

Routes (query parameters are optional unless marked):

  /json?size=N              200 application/json: {"count": N, "items": [{"id": 1, "title": "Item 1",
                            "score": 1.5, "tags": ["a", "b"]}, ...]} with N items (default 3).
  /status/<code>            that status with {"status": <code>} (no body for 204 and 304);
                            ?retry-after=V adds `Retry-After: V` (V as given: seconds or an HTTP date);
                            ?challenge=C adds `WWW-Authenticate: C` (default `Basic realm="widgetd"`).
  /slow?delay=S             waits S seconds (default 1) before sending the headers, then /json.
  /trickle?bytes=N&interval=S
                            announces N bytes (default 20) and sends them one byte every S seconds
                            (default 0.5): the whole body takes N*S seconds.
  /huge?bytes=N             N bytes (default 1048576) of "x" with Content-Length;
                            &chunked=1 sends them with chunked transfer encoding (no length announced);
                            &unannounced=1 sends them with neither, until the connection closes;
                            &rate=R sends at most R bytes a second (a fast link rather than the loopback).
  /goto?to=URL&status=S     S (default 302) to URL.
  /redirect/<n>             302 to /redirect/<n-1> (query kept); /redirect/0 answers /json.
  /etag                     200 with `ETag: "v1"` and `Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT`
                            (?etag=X and ?modified=HTTP-DATE change them); `If-None-Match` with the ETag,
                            or `If-Modified-Since` not earlier than Last-Modified, answers 304.
  /truncated                announces 100 bytes, sends 10 and closes the connection.
  /html-error               200 text/html with an HTML error page (a captive portal, a proxy error).
  /content?type=T&body=B    200 with Content-Type T and body B (UTF-8 of the decoded parameter);
                            ?latin1=1 encodes B as ISO-8859-1 instead.
  /echo                     any method: {"method": ..., "path": ..., "query": ..., "headers": {lowercased
                            name: value}, "body": "<the request body as UTF-8>"}.
  /handshake?token=T        Transmission's session handshake: 409 with `X-Transmission-Session-Id: T`
                            (default "abc") unless the request carries that header with T, then 200
                            {"session": T}.
  /count                    {"paths": {path: n}, "targets": {"path?query": n}}: how many requests each
                            path (and each full target) has received, except /count and /stats.
  /stats                    {"current": c, "maxConcurrent": m, "total": t}: requests being served now (until
                            their response starts), the most served at once, and the total, except /count
                            and /stats. ?reset=1 resets.
  /file/<name>              the file <name> from the --root folder (404 when missing or outside it).
  /stall?seconds=S          200 announcing 100 bytes, then sends nothing until the client hangs up or S
                            seconds pass (default 30): a server that stalls after its headers.
  /not-http                 another protocol's greeting (an SSH banner) instead of a response, then closes.
  /header-flood?count=N     200 with N headers of 64 bytes each (default 100000) before a 2-byte body.
  /loop                     302 to /loop (query kept), forever: a redirect loop.
  /gzip?bytes=N             200 application/json with `Content-Encoding: gzip`: {"padding": "xxx…"} with N
                            "x" (default 1000), gzip-compressed, so the body on the wire is far smaller than
                            the inflated one.
  /conditional?etag=E&modified=HTTP-DATE
                            sends `ETag: "E"` and/or `Last-Modified` for the parameters given (no Cache-Control);
                            `If-None-Match` with the ETag (or, without one, `If-Modified-Since` not earlier than
                            Last-Modified) answers 304 with no body; otherwise 200 {"served": n}, n counting the
                            200 answers /conditional has given, so a client that parsed a new body shows it.
  /cache-control?value=V&age=A
                            200 /json with `Cache-Control: V` (default "max-age=60") and, when given, `Age: A`.
  /wait?target=T&count=N&timeout=S
                            waits until the server has received N (default 1) requests for the full target T
                            ("path?query", as /count lists it), at most S seconds (default 10); answers 200
                            {"received": n}, or 504 with it when the time ran out. Not counted itself: a test
                            waits here, instead of sleeping, for a request to be under way.
  /secret/<s>/<route>       serves /<route> (query kept) and never sends <s> back: first checks that the
                            request's `Authorization` header, when present, is `Bearer <s>` and that its
                            body, when not empty, contains <s>; 403 {"error": "secret mismatch"} if not.
                            (Do not combine with /echo, which would echo it.)

Anything else is 404 with {"error": "..."}.
"""

import argparse
import email.utils
import gzip
import json
import mimetypes
import os
import select
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.current = 0
        self.max_concurrent = 0
        self.total = 0
        self.paths = {}
        self.targets = {}

    def begin(self, path, target):
        with self.lock:
            self.current += 1
            self.total += 1
            self.max_concurrent = max(self.max_concurrent, self.current)
            self.paths[path] = self.paths.get(path, 0) + 1
            self.targets[target] = self.targets.get(target, 0) + 1

    def end(self):
        with self.lock:
            self.current -= 1

    def snapshot(self):
        with self.lock:
            return {"current": self.current, "maxConcurrent": self.max_concurrent, "total": self.total}

    def counts(self):
        with self.lock:
            return {"paths": dict(self.paths), "targets": dict(self.targets)}

    def reset(self):
        with self.lock:
            self.max_concurrent = self.current
            self.total = 0
            self.paths = {}
            self.targets = {}


STATS = Stats()
ROOT = None
DEFAULT_MODIFIED = "Sun, 06 Nov 1994 08:49:37 GMT"
SERVED = {}
SERVED_LOCK = threading.Lock()


def json_document(count):
    items = [
        {"id": i, "title": "Item %d" % i, "score": i + 0.5, "tags": ["a", "b"]}
        for i in range(1, count + 1)
    ]
    return {"count": count, "items": items}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "widgetd-test-server"
    sys_version = ""

    def version_string(self):
        return self.server_version

    def log_message(self, format, *args):
        pass

    # MARK: - Helpers

    def param(self, name, default=None):
        values = self.query.get(name)
        return values[0] if values else default

    def send_body(self, status, body, content_type="application/json", headers=()):
        self.send_response(status)
        if status not in (204, 304):
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if status not in (204, 304) and self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status, value, headers=()):
        body = json.dumps(value).encode("utf-8")
        self.send_body(status, body, "application/json", headers)

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    # MARK: - Dispatch

    def handle_any(self):
        split = urlsplit(self.path)
        path = split.path
        self.query = parse_qs(split.query, keep_blank_values=True)
        body = self.read_body()
        self.counting = path not in ("/count", "/stats", "/wait")
        if self.counting:
            STATS.begin(path, self.path)
        try:
            self.route(path, split.query, body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            self.stop_counting()

    def stop_counting(self):
        """Ends this request's count in /stats once: when its response starts, or when it ends."""
        if getattr(self, "counting", False):
            self.counting = False
            STATS.end()

    def send_response(self, code, message=None):
        # A request stops counting as served once its response starts: a client that sends its next
        # request as soon as it has this one's answer must not find it still counted.
        self.stop_counting()
        super().send_response(code, message)

    do_GET = handle_any
    do_POST = handle_any
    do_PUT = handle_any
    do_PATCH = handle_any
    do_DELETE = handle_any
    do_HEAD = handle_any
    do_OPTIONS = handle_any

    def route(self, path, query, body):
        parts = [p for p in path.split("/") if p]
        head = parts[0] if parts else ""
        if path == "/json":
            self.send_json(200, json_document(int(self.param("size", "3"))))
        elif head == "status" and len(parts) == 2:
            code = int(parts[1])
            headers = []
            retry_after = self.param("retry-after")
            if retry_after is not None:
                headers.append(("Retry-After", retry_after))
            challenge = self.param("challenge")
            if challenge is not None:
                headers.append(("WWW-Authenticate", challenge or 'Basic realm="widgetd"'))
            self.send_json(code, {"status": code}, headers)
        elif path == "/slow":
            time.sleep(float(self.param("delay", "1")))
            self.send_json(200, json_document(3))
        elif path == "/trickle":
            self.trickle(int(self.param("bytes", "20")), float(self.param("interval", "0.5")))
        elif path == "/huge":
            self.huge(int(self.param("bytes", "1048576")), self.param("chunked") == "1",
                      float(self.param("rate", "0")), self.param("unannounced") == "1")
        elif head == "redirect" and len(parts) == 2:
            remaining = int(parts[1])
            if remaining <= 0:
                self.send_json(200, json_document(3))
            else:
                location = "/redirect/%d" % (remaining - 1) + ("?" + query if query else "")
                self.send_body(302, b"", "text/plain", [("Location", location)])
        elif path == "/etag":
            self.etag()
        elif path == "/truncated":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b'{"items": ')
            self.wfile.flush()
            self.close_connection = True
        elif path == "/html-error":
            page = b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>" \
                   b"<body><h1>Bad Gateway</h1><p>The proxy could not reach the server.</p></body></html>\n"
            self.send_body(200, page, "text/html; charset=utf-8")
        elif path == "/content":
            text = self.param("body", "")
            data = text.encode("iso-8859-1" if self.param("latin1") == "1" else "utf-8")
            self.send_body(200, data, self.param("type", "text/plain"))
        elif path == "/echo":
            headers = {}
            for name, value in self.headers.items():
                key = name.lower()
                headers[key] = headers[key] + ", " + value if key in headers else value
            self.send_json(200, {
                "method": self.command,
                "path": path,
                "query": query,
                "headers": headers,
                "body": body.decode("utf-8", errors="replace"),
            })
        elif path == "/handshake":
            token = self.param("token", "abc")
            if self.headers.get("X-Transmission-Session-Id") == token:
                self.send_json(200, {"session": token})
            else:
                self.send_json(409, {"error": "missing session id"}, [("X-Transmission-Session-Id", token)])
        elif path == "/count":
            self.send_json(200, STATS.counts())
        elif path == "/stats":
            if self.param("reset") == "1":
                STATS.reset()
            self.send_json(200, STATS.snapshot())
        elif head == "file" and len(parts) >= 2:
            self.file("/".join(parts[1:]))
        elif path == "/stall":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.flush()
            # Waits for the client to hang up (the socket turns readable at end of file), at most S seconds.
            select.select([self.connection], [], [], float(self.param("seconds", "30")))
            self.close_connection = True
        elif path == "/wait":
            target = self.param("target", "")
            count = int(self.param("count", "1"))
            deadline = time.monotonic() + float(self.param("timeout", "10"))
            received = STATS.counts()["targets"].get(target, 0)
            while received < count and time.monotonic() < deadline:
                time.sleep(0.01)
                received = STATS.counts()["targets"].get(target, 0)
            self.send_json(200 if received >= count else 504, {"received": received})
        elif path == "/not-http":
            # Another protocol's greeting on the HTTP port, then the hang-up.
            self.wfile.write(b"SSH-2.0-OpenSSH_9.6\r\n")
            self.wfile.flush()
            self.close_connection = True
        elif path == "/header-flood":
            self.send_response(200)
            for index in range(int(self.param("count", "100000"))):
                self.send_header("X-Flood-%d" % index, "y" * 64)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")
        elif path == "/goto":
            self.send_body(int(self.param("status", "302")), b"", "text/plain", [("Location", self.param("to", "/"))])
        elif path == "/loop":
            self.send_body(302, b"", "text/plain", [("Location", "/loop" + ("?" + query if query else ""))])
        elif path == "/gzip":
            document = json.dumps({"padding": "x" * int(self.param("bytes", "1000"))}).encode("utf-8")
            self.send_body(200, gzip.compress(document), "application/json", [("Content-Encoding", "gzip")])
        elif path == "/conditional":
            self.conditional()
        elif path == "/cache-control":
            headers = [("Cache-Control", self.param("value", "max-age=60"))]
            if self.param("age") is not None:
                headers.append(("Age", self.param("age")))
            self.send_json(200, json_document(2), headers)
        elif head == "secret" and len(parts) >= 3:
            self.secret(parts[1], "/" + "/".join(parts[2:]), query, body)
        else:
            self.send_json(404, {"error": "no route for %s" % path})

    # MARK: - Routes

    def trickle(self, count, interval):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(count))
        self.end_headers()
        self.wfile.flush()
        for _ in range(count):
            time.sleep(interval)
            self.wfile.write(b"x")
            self.wfile.flush()

    def huge(self, count, chunked, rate=0, unannounced=False):
        """Sends COUNT bytes, chunked, with a length, or (UNANNOUNCED) until the connection closes, at most
        RATE bytes a second when RATE > 0."""
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        elif unannounced:
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(count))
        self.end_headers()
        block = b"x" * 65536
        remaining = count
        while remaining > 0:
            piece = block[:min(remaining, len(block))]
            if chunked:
                self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
            else:
                self.wfile.write(piece)
            remaining -= len(piece)
            if rate > 0:
                time.sleep(len(piece) / rate)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    def etag(self):
        tag = '"%s"' % self.param("etag", "v1")
        modified = self.param("modified", DEFAULT_MODIFIED)
        headers = [("ETag", tag), ("Last-Modified", modified), ("Cache-Control", "max-age=60")]
        if_none_match = self.headers.get("If-None-Match")
        if_modified_since = self.headers.get("If-Modified-Since")
        not_modified = False
        if if_none_match is not None:
            not_modified = tag in [t.strip() for t in if_none_match.split(",")] or if_none_match.strip() == "*"
        elif if_modified_since is not None:
            try:
                since = email.utils.parsedate_to_datetime(if_modified_since)
                not_modified = since >= email.utils.parsedate_to_datetime(modified)
            except (TypeError, ValueError):
                not_modified = False
        if not_modified:
            self.send_body(304, b"", headers=headers)
        else:
            self.send_json(200, {"etag": tag, "modified": modified, "items": json_document(2)["items"]}, headers)

    def conditional(self):
        tag = self.param("etag")
        modified = self.param("modified")
        headers = []
        if tag is not None:
            headers.append(("ETag", '"%s"' % tag))
        if modified is not None:
            headers.append(("Last-Modified", modified))
        if_none_match = self.headers.get("If-None-Match")
        if_modified_since = self.headers.get("If-Modified-Since")
        not_modified = False
        if tag is not None and if_none_match is not None:
            not_modified = '"%s"' % tag in [t.strip() for t in if_none_match.split(",")]
        elif modified is not None and if_modified_since is not None and if_none_match is None:
            try:
                since = email.utils.parsedate_to_datetime(if_modified_since)
                not_modified = since >= email.utils.parsedate_to_datetime(modified)
            except (TypeError, ValueError):
                not_modified = False
        if not_modified:
            self.send_body(304, b"", headers=headers)
            return
        with SERVED_LOCK:
            SERVED["/conditional"] = SERVED.get("/conditional", 0) + 1
            served = SERVED["/conditional"]
        self.send_json(200, {"served": served}, headers)

    def secret(self, secret, path, query, body):
        authorization = self.headers.get("Authorization")
        if (authorization is not None and authorization != "Bearer " + secret) or \
                (body and secret.encode("utf-8") not in body):
            self.send_json(403, {"error": "secret mismatch"})
            return
        self.route(path, query, body)

    def file(self, name):
        if ROOT is None:
            self.send_json(404, {"error": "the server was started without --root"})
            return
        path = os.path.realpath(os.path.join(ROOT, name))
        if not path.startswith(ROOT + os.sep) or not os.path.isfile(path):
            self.send_json(404, {"error": "no file %s" % name})
            return
        with open(path, "rb") as handle:
            data = handle.read()
        content_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
        self.send_body(200, data, content_type)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        # Clients that hang up early (deadlines, byte caps, cancellations) are expected here.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def main():
    global ROOT
    parser = argparse.ArgumentParser(description="widgetd test HTTP server")
    parser.add_argument("--root", help="folder served under /file/")
    arguments = parser.parse_args()
    if arguments.root:
        ROOT = os.path.realpath(arguments.root)
    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        sys.stdout.write("PORT %d\n" % server.server_address[1])
        sys.stdout.flush()
    except BrokenPipeError:
        return
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except KeyboardInterrupt:
        pass
    server.shutdown()


if __name__ == "__main__":
    main()
