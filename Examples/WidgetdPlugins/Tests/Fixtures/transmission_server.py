#!/usr/bin/env python3
"""A tiny fake Transmission server for the plugin tests. Python 3 standard library only.

Usage: python3 transmission_server.py

It binds 127.0.0.1 on a free port, prints `PORT <n>` as the first line of stdout and serves until its
stdin is closed (the protocol of widgetd's TestHTTPServer, which starts it).

  POST /transmission/rpc   Transmission RPC. Basic auth must be alice / s3cret-pa55 (else 401, checked
                           first, as Transmission does); then the X-Transmission-Session-Id header must
                           be the current id (else 409 with the id in that header). Methods:
                           session-stats and torrent-get (only the requested "fields" are returned);
                           anything else answers {"result": "method name not recognized"}.
                           ?challenge=1 adds `WWW-Authenticate: Basic realm="Transmission"` to the 401, as Transmission does.
  GET /log                 the RPC requests received so far: [{"method", "sessionId", "authorization",
                           "status"}], in order.
"""

import base64
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

USERNAME = "alice"
PASSWORD = "s3cret-pa55"
SESSION_ID = "fake-session-42"

SESSION_STATS = {
    "activeTorrentCount": 2,
    "downloadSpeed": 524288,
    "pausedTorrentCount": 1,
    "torrentCount": 3,
    "uploadSpeed": 1024,
    "cumulative-stats": {"downloadedBytes": 1000, "uploadedBytes": 500, "filesAdded": 3,
                         "secondsActive": 3600, "sessionCount": 2},
    "current-stats": {"downloadedBytes": 100, "uploadedBytes": 50, "filesAdded": 1,
                      "secondsActive": 600, "sessionCount": 1},
}

TORRENTS = [
    {"id": 1, "name": "debian-13.iso", "status": 4, "percentDone": 0.5, "rateDownload": 524288,
     "rateUpload": 0, "eta": 1800, "totalSize": 700000000, "uploadRatio": 0.1, "error": 0, "errorString": ""},
    {"id": 2, "name": "ubuntu-24.04.iso", "status": 6, "percentDone": 1, "rateDownload": 0,
     "rateUpload": 1024, "eta": -1, "totalSize": 5000000000, "uploadRatio": 2.5, "error": 0, "errorString": ""},
    {"id": 3, "name": "fedora-41.iso", "status": 0, "percentDone": 0.25, "rateDownload": 0,
     "rateUpload": 0, "eta": -1, "totalSize": 2000000000, "uploadRatio": 0, "error": 0, "errorString": ""},
]

LOG = []
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, status, value, headers=()):
        body = json.dumps(value).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/log":
            with LOCK:
                self.send_json(200, list(LOG))
        else:
            self.send_json(404, {"error": "no such path"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path.split("?")[0] != "/transmission/rpc":
            self.send_json(404, {"error": "no such path"})
            return
        try:
            request = json.loads(body)
        except ValueError:
            request = {}
        method = request.get("method")
        authorization = self.headers.get("Authorization")
        session_id = self.headers.get("X-Transmission-Session-Id")
        expected = "Basic " + base64.b64encode(("%s:%s" % (USERNAME, PASSWORD)).encode()).decode()
        if authorization != expected:
            status = 401
        elif session_id != SESSION_ID:
            status = 409
        else:
            status = 200
        with LOCK:
            LOG.append({"method": method, "sessionId": session_id, "authorization": authorization, "status": status})
        if status == 401:
            body = b"<h1>401: Unauthorized</h1>"
            self.send_response(401)
            self.send_header("Content-Type", "text/html")
            if "challenge=1" in self.path:
                # What a real Transmission sends. widgetd's HTTPClient does not answer URLSession's
                # authentication challenge yet, so a request then waits for its timeout; the tests
                # use the plain 401 until it does.
                self.send_header("WWW-Authenticate", 'Basic realm="Transmission"')
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif status == 409:
            self.send_json(409, {"error": "session id"}, [("X-Transmission-Session-Id", SESSION_ID)])
        elif method == "session-stats":
            self.send_json(200, {"result": "success", "arguments": SESSION_STATS, "tag": request.get("tag")})
        elif method == "torrent-get":
            fields = request.get("arguments", {}).get("fields", [])
            torrents = [{key: torrent[key] for key in fields if key in torrent} for torrent in TORRENTS]
            self.send_json(200, {"result": "success", "arguments": {"torrents": torrents}, "tag": request.get("tag")})
        else:
            self.send_json(200, {"result": "method name not recognized", "arguments": {}})


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    sys.stdout.write("PORT %d\n" % server.server_address[1])
    sys.stdout.flush()
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
