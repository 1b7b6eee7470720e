"""A loopback HTTP proxy that counts the body bytes a server sends: what a remote reader (polars, pyarrow
over HTTP ranges) costs, measured on the wire rather than trusted from the reader."""

import http.server, threading, urllib.request, urllib.error, contextlib

class CountingProxy:
    """A loopback HTTP proxy in front of `upstream` (GET and HEAD, `Range`/`If-Range` passed through) that
    counts the body bytes the upstream sent (`body_bytes`) and keeps each request as (method, range, status,
    bytes) in `requests`. Use as a context manager; `url` is the proxy's base URL."""
    def __init__(self, upstream):
        self.upstream = upstream.rstrip("/")
        self.body_bytes = 0
        self.requests = []
        proxy = self
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args): pass
            def relay(self, method):
                headers = {k: v for k, v in self.headers.items() if k.lower() in ("range", "if-range", "if-none-match", "accept")}
                request = urllib.request.Request(proxy.upstream + self.path, headers=headers, method=method)
                try:
                    response = urllib.request.urlopen(request)
                except urllib.error.HTTPError as error:
                    response = error
                body = response.read()
                proxy.body_bytes += len(body)
                proxy.requests.append((method, headers.get("Range") or headers.get("range"), response.status, len(body)))
                self.send_response(response.status)
                for key, value in response.headers.items():
                    if key.lower() not in ("transfer-encoding", "connection", "date", "server"):
                        self.send_header(key, value)
                self.end_headers()
                if method != "HEAD":
                    self.wfile.write(body)
            def do_GET(self): self.relay("GET")
            def do_HEAD(self): self.relay("HEAD")
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self
    def __exit__(self, *exc):
        self.server.shutdown()
