"""An HTTPS server on 127.0.0.1 for the TLS tests.

python3 server.py CERT KEY [CLIENT_CA]: serves {"ok": true, "path": PATH} for every GET with CERT and
KEY (PEM); with CLIENT_CA, asks for a client certificate and refuses one that CLIENT_CA did not sign.
Prints the port it listens on, then serves until its standard input closes.
"""
import http.server
import json
import ssl
import sys
import threading


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"ok": True, "path": self.path}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
if len(sys.argv) > 3:
    context.verify_mode = ssl.CERT_REQUIRED
    context.load_verify_locations(sys.argv[3])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
server.socket = context.wrap_socket(server.socket, server_side=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(server.server_address[1], flush=True)
sys.stdin.read()
