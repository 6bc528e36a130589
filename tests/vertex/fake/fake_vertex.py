#!/usr/bin/env python3
"""A fake Vertex AI endpoint on 127.0.0.1 for the vertex scheduler's tests.

Speaks the documented REST contract of projects.locations.customJobs (create, get, list with a
labels filter and pages, cancel) and an OAuth 2.0 token endpoint for the service-account JWT flow
(RFC 7523; the RS256 signature is verified with the openssl CLI against --public-key).

Jobs move one state per GET: QUEUED -> PENDING -> RUNNING -> SUCCEEDED by default, or FAILED when
the first worker pool's command fails (tests/framework/fake_program.py). Tests steer it
through /_fake/ endpoints (never part of the real API):
  POST /_fake/next_job   {"states": [...], "error": {"code": 3, "message": "..."}}
                         the state sequence (and final error) of the next created job
  POST /_fake/faults     {"method": "POST", "path": "/v1/.../customJobs", "status": 503,
                          "times": 2, "retry_after": "0", "message": "..."}
                         answer the next `times` matching requests with that error
  GET  /_fake/requests   every request seen: method, path, authorization, body
Create bodies are checked with tests/vertex/validate/validate_custom_job.py (the discovery
excerpt always, protos.json when present); an invalid body gets 400 INVALID_ARGUMENT listing the
errors, as the real service would.

Usage: fake_vertex.py --token TOKEN [--public-key PEM] [--page-size N]
Prints "PORT <n>" on its first output line, then serves until stdin closes or it is killed.
"""

import argparse
import base64
import datetime
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'validate'))
import validate_custom_job  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'framework'))
import fake_program  # noqa: E402

TERMINAL = {'JOB_STATE_SUCCEEDED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED',
            'JOB_STATE_EXPIRED', 'JOB_STATE_PARTIALLY_SUCCEEDED'}
DEFAULT_STATES = ['JOB_STATE_QUEUED', 'JOB_STATE_PENDING', 'JOB_STATE_RUNNING',
                  'JOB_STATE_SUCCEEDED']
HTTP_STATUS = {400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED',
               404: 'NOT_FOUND', 409: 'ALREADY_EXISTS', 429: 'RESOURCE_EXHAUSTED',
               500: 'INTERNAL', 502: 'UNAVAILABLE', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED'}


def now_rfc3339():
  return datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%fZ')


def b64url_decode(text):
  return base64.urlsafe_b64decode(text + '=' * (-len(text) % 4))


def outcome_of_command(job):
  """The states of a job that runs its first worker pool's command (with the error the service
  reports when a replica exits non-zero)."""
  pools = job.get('jobSpec', {}).get('workerPoolSpecs', [{}])
  container = pools[0].get('containerSpec', {})
  status = fake_program.exit_status(container.get('command', []) + container.get('args', []))
  if status == 0:
    return {}
  return {'states': DEFAULT_STATES[:-1] + ['JOB_STATE_FAILED'],
          'error': {'code': 3, 'message': f'The replica workerpool0-0 exited with a non-zero '
                                          f'status of {status}.'}}


class FakeVertex:

  def __init__(self, args):
    self.lock = threading.Lock()
    self.tokens = {args.token}
    self.public_key = args.public_key
    self.page_size = args.page_size
    self.jobs = {}  # name -> {"job": dict, "states": [...], "error": dict|None}
    self.next_id = 1000
    self.next_job = None
    self.faults = []
    self.requests = []
    self.schemas = [validate_custom_job.DiscoverySchema(validate_custom_job.DEFAULT_DISCOVERY)]
    protos = validate_custom_job.default_protos_path()
    if os.path.isfile(protos):
      self.schemas.append(validate_custom_job.ProtosSchema(protos))


class Handler(http.server.BaseHTTPRequestHandler):
  protocol_version = 'HTTP/1.1'
  fake = None

  def log_message(self, *args):
    pass

  def reply(self, status, body, headers=None):
    data = json.dumps(body).encode()
    self.send_response(status)
    self.send_header('Content-Type', 'application/json')
    self.send_header('Content-Length', str(len(data)))
    for key, value in (headers or {}).items():
      self.send_header(key, value)
    self.end_headers()
    self.wfile.write(data)

  def error(self, status, message, headers=None):
    self.reply(status, {'error': {'code': status, 'message': message,
                                  'status': HTTP_STATUS.get(status, 'UNKNOWN')}}, headers)

  def do_GET(self):
    self.handle_any('GET')

  def do_POST(self):
    self.handle_any('POST')

  def do_DELETE(self):
    self.handle_any('DELETE')

  def handle_any(self, method):
    length = int(self.headers.get('Content-Length') or 0)
    body = self.rfile.read(length).decode() if length else ''
    url = urllib.parse.urlsplit(self.path)
    path, query = url.path, urllib.parse.parse_qs(url.query)
    fake = self.fake
    with fake.lock:
      if path.startswith('/_fake/'):
        return self.control(method, path, body)
      fake.requests.append({'method': method, 'path': self.path,
                            'authorization': self.headers.get('Authorization', ''),
                            'body': body})
      for fault in fake.faults:
        if fault['times'] > 0 and fault['method'] == method and fault['path'] == path:
          fault['times'] -= 1
          headers = {'Retry-After': fault['retry_after']} if 'retry_after' in fault else None
          return self.error(fault['status'], fault.get('message', 'injected fault'), headers)
      if path == '/token' and method == 'POST':
        return self.token(body)
      auth = self.headers.get('Authorization', '')
      if not auth.startswith('Bearer ') or auth[len('Bearer '):] not in fake.tokens:
        return self.error(401, 'Request had invalid authentication credentials.')
      return self.api(method, path, query, body)

  def control(self, method, path, body):
    fake = self.fake
    if path == '/_fake/next_job' and method == 'POST':
      fake.next_job = json.loads(body)
      return self.reply(200, {})
    if path == '/_fake/faults' and method == 'POST':
      fake.faults.append(json.loads(body))
      return self.reply(200, {})
    if path == '/_fake/requests' and method == 'GET':
      return self.reply(200, {'requests': fake.requests})
    return self.error(404, f'no fake control {method} {path}')

  def token(self, body):
    form = urllib.parse.parse_qs(body)
    if form.get('grant_type') != ['urn:ietf:params:oauth:grant-type:jwt-bearer']:
      return self.reply(400, {'error': 'unsupported_grant_type'})
    parts = (form.get('assertion') or [''])[0].split('.')
    if len(parts) != 3 or self.fake.public_key is None:
      return self.reply(400, {'error': 'invalid_grant', 'error_description': 'malformed JWT'})
    header = json.loads(b64url_decode(parts[0]))
    claims = json.loads(b64url_decode(parts[1]))
    if header.get('alg') != 'RS256':
      return self.reply(400, {'error': 'invalid_grant', 'error_description': 'alg is not RS256'})
    with tempfile.TemporaryDirectory() as work:
      data, signature = os.path.join(work, 'data'), os.path.join(work, 'sig')
      with open(data, 'wb') as f:
        f.write(f'{parts[0]}.{parts[1]}'.encode())
      with open(signature, 'wb') as f:
        f.write(b64url_decode(parts[2]))
      verified = subprocess.run(
          ['openssl', 'dgst', '-sha256', '-verify', self.fake.public_key, '-signature', signature,
           data], capture_output=True).returncode == 0
    if not verified:
      return self.reply(400, {'error': 'invalid_grant', 'error_description': 'Invalid JWT Signature.'})
    now = time.time()
    expected_aud = f'http://127.0.0.1:{self.server.server_address[1]}/token'
    if (claims.get('aud') != expected_aud or
        claims.get('scope') != 'https://www.googleapis.com/auth/cloud-platform' or
        not claims.get('iss') or not claims.get('iat', now + 999) <= now + 5 or
        not claims.get('exp', 0) > now or claims['exp'] - claims['iat'] > 3600):
      return self.reply(400, {'error': 'invalid_grant',
                              'error_description': f'bad claims {json.dumps(claims)}'})
    token = f'ya29.fake-{len(self.fake.tokens)}'
    self.fake.tokens.add(token)
    return self.reply(200, {'access_token': token, 'expires_in': 3599, 'token_type': 'Bearer'})

  def api(self, method, path, query, body):
    fake = self.fake
    parts = path.split('/')
    # /v1/projects/P/locations/L/customJobs[/ID[:cancel]]
    if len(parts) < 7 or parts[1] != 'v1' or parts[2] != 'projects' or parts[4] != 'locations' \
        or parts[6] != 'customJobs':
      return self.error(404, f'The requested URL {path} was not found on this server.')
    parent = '/'.join(parts[2:6])
    if len(parts) == 7 and method == 'POST':
      return self.create(parent, body)
    if len(parts) == 7 and method == 'GET':
      return self.list(parent, query)
    if len(parts) == 8:
      job_id, _, verb = parts[7].partition(':')
      name = f'{parent}/customJobs/{job_id}'
      entry = fake.jobs.get(name)
      if entry is None:
        return self.error(404, f'CustomJob "{name}" not found.')
      if method == 'GET' and not verb:
        return self.reply(200, self.advance(entry))
      if method == 'POST' and verb == 'cancel':
        job = entry['job']
        if job['state'] in TERMINAL:
          return self.error(400, f'Cannot cancel CustomJob in state {job["state"]}.')
        job['state'] = 'JOB_STATE_CANCELLING'
        entry['states'] = ['JOB_STATE_CANCELLED']
        entry['error'] = {'code': 1, 'message': 'CANCELED'}
        return self.reply(200, {})
    return self.error(404, f'The requested URL {path} was not found on this server.')

  def create(self, parent, body):
    fake = self.fake
    try:
      job = json.loads(body)
    except ValueError as e:
      return self.error(400, f'Invalid JSON payload received. {e}')
    errors = [e for schema in fake.schemas for e in schema.validate('CustomJob', job)]
    if errors:
      return self.error(400, 'Invalid CustomJob: ' + '; '.join(errors))
    name = f'{parent}/customJobs/{fake.next_id}'
    fake.next_id += 1
    script = fake.next_job or outcome_of_command(job)
    fake.next_job = None
    job.update({'name': name, 'state': 'JOB_STATE_QUEUED', 'createTime': now_rfc3339(),
                'updateTime': now_rfc3339()})
    states = list(script.get('states', DEFAULT_STATES))
    if states and states[0] == 'JOB_STATE_QUEUED':
      states.pop(0)
    fake.jobs[name] = {'job': job, 'states': states, 'error': script.get('error')}
    return self.reply(200, job)

  def advance(self, entry):
    job = entry['job']
    if job['state'] not in TERMINAL and entry['states']:
      job['state'] = entry['states'].pop(0)
      job['updateTime'] = now_rfc3339()
      if job['state'] == 'JOB_STATE_RUNNING' and 'startTime' not in job:
        job['startTime'] = now_rfc3339()
      if job['state'] in TERMINAL:
        job['endTime'] = now_rfc3339()
        if entry['error'] and job['state'] != 'JOB_STATE_SUCCEEDED':
          job['error'] = entry['error']
    return job

  def list(self, parent, query):
    fake = self.fake
    wanted = None
    text = (query.get('filter') or [''])[0]
    if text:
      key, sep, value = text.partition('=')
      if not sep or not key.startswith('labels.') or not (value.startswith('"') and
                                                           value.endswith('"')):
        return self.error(400, f'Unsupported filter: {text}')
      wanted = (key[len('labels.'):], value[1:-1])
    jobs = [e['job'] for name, e in sorted(fake.jobs.items()) if name.startswith(parent + '/')]
    if wanted:
      jobs = [j for j in jobs if j.get('labels', {}).get(wanted[0]) == wanted[1]]
    start = int((query.get('pageToken') or ['0'])[0])
    page = jobs[start:start + fake.page_size]
    answer = {'customJobs': page} if page else {}
    if start + fake.page_size < len(jobs):
      answer['nextPageToken'] = str(start + fake.page_size)
    return self.reply(200, answer)


def main():
  parser = argparse.ArgumentParser()
  parser.add_argument('--token', required=True, help='access token the API accepts')
  parser.add_argument('--public-key', help='PEM public key that verifies JWT assertions')
  parser.add_argument('--page-size', type=int, default=50)
  args = parser.parse_args()
  Handler.fake = FakeVertex(args)
  server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
  print(f'PORT {server.server_address[1]}', flush=True)
  threading.Thread(target=server.serve_forever, daemon=True).start()
  sys.stdin.read()  # serve until the test closes our stdin (or kills us)
  server.shutdown()


if __name__ == '__main__':
  main()
