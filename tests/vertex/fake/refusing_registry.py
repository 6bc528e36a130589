#!/usr/bin/env python3
"""A container registry on 127.0.0.1 that refuses pushes, for the push_image_tag tests.

Speaks just enough of the Docker Registry HTTP API V2 for the Docker Engine to try a push:
  - a request without an Authorization header gets 401 with a Basic challenge, so the Engine
    fails with "no basic auth credentials" unless X-Registry-Auth carried some;
  - with credentials, GET /v2/ answers 200 and every upload is refused with 403 DENIED
    "pushes to this test registry are refused", which the Engine reports as
    "denied: pushes to this test registry are refused".
GET /_fake/requests lists what the Engine sent: method, path, authorization.
The Engine first tries HTTPS; that handshake fails here and it falls back to HTTP, as it does for
every registry on 127.0.0.0/8.

Usage: refusing_registry.py
Prints "PORT <n>" on its first output line, then serves until stdin closes or it is killed.
"""

import http.server
import json
import sys
import threading

REFUSAL = 'pushes to this test registry are refused'


class Handler(http.server.BaseHTTPRequestHandler):
  protocol_version = 'HTTP/1.1'
  requests = []
  lock = threading.Lock()

  def log_message(self, *args):
    pass

  def reply(self, status, body, headers=None):
    data = json.dumps(body).encode()
    self.send_response(status)
    self.send_header('Content-Type', 'application/json')
    self.send_header('Docker-Distribution-API-Version', 'registry/2.0')
    self.send_header('Content-Length', str(len(data)))
    for key, value in (headers or {}).items():
      self.send_header(key, value)
    self.end_headers()
    if self.command != 'HEAD':
      self.wfile.write(data)

  def handle_any(self):
    length = int(self.headers.get('Content-Length') or 0)
    if length:
      self.rfile.read(length)
    if self.path == '/_fake/requests':
      with self.lock:
        return self.reply(200, {'requests': list(self.requests)})
    authorization = self.headers.get('Authorization', '')
    with self.lock:
      self.requests.append({'method': self.command, 'path': self.path,
                            'authorization': authorization})
    if not authorization:
      return self.reply(401, {'errors': [{'code': 'UNAUTHORIZED',
                                          'message': 'authentication required'}]},
                        {'WWW-Authenticate': 'Basic realm="sortie-test"'})
    if self.path == '/v2/':
      return self.reply(200, {})
    return self.reply(403, {'errors': [{'code': 'DENIED', 'message': REFUSAL}]})

  do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


def main():
  server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
  server.daemon_threads = True
  threading.Thread(target=server.serve_forever, daemon=True).start()
  print(f'PORT {server.server_address[1]}', flush=True)
  sys.stdin.read()  # serve until the test closes our stdin (or kills us)
  server.shutdown()


if __name__ == '__main__':
  main()
