#!/usr/bin/env python3
"""Checks Vertex AI REST request bodies (a CustomJob by default) against Google's own schemas.

Two independent sources, both checked unless one is switched off:
  * protos.json of npm @google-cloud/aiplatform@7.4.0 (fetched by
    packaging/engines/vertex_validators.sh): unknown fields, proto3 JSON types, enum symbols,
    int64 as decimal strings, int32 range, Duration "<n>s", Timestamp RFC 3339, maps, REQUIRED and
    OUTPUT_ONLY field_behavior, oneof groups.
  * the Discovery document excerpt in data/ (in the repository): unknown fields, JSON types and
    formats, enums, "Required." fields.

The bodies sortie emits must be canonical, so this is stricter than Google's parser where the
parser is lenient: an int64 given as a JSON number, a snake_case field name, a JSON null or a set
OUTPUT_ONLY field are errors.

Usage: validate_custom_job.py [--protos FILE] [--discovery FILE] [--no-protos] [--no-discovery]
                              [--message NAME] BODY.json...
Exit status: 0 every body valid, 1 some body invalid, 2 usage error, 3 a schema file is missing
(run packaging/engines/vertex_validators.sh). Python 3 standard library only.
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DISCOVERY = os.path.join(HERE, 'data', 'aiplatform.v1.customjobs.json')
PROTO_PACKAGE = 'google.cloud.aiplatform.v1'
INT32 = (-2**31, 2**31 - 1)
UINT32 = (0, 2**32 - 1)
INT64 = (-2**63, 2**63 - 1)
UINT64 = (0, 2**64 - 1)
RFC3339 = re.compile(r'^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$')
DURATION = re.compile(r'^-?\d+(\.\d{1,9})?s$')
BASE64 = re.compile(r'^[A-Za-z0-9+/_-]*={0,2}$')
DECIMAL = re.compile(r'^-?\d+$')


def default_protos_path():
  """Where vertex_validators.sh caches protos.json (keep the two in step)."""
  cache = os.environ.get('SORTIE_VERTEX_VALIDATORS_DIR')
  if not cache:
    base = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
    cache = os.path.join(base, 'sortie', 'vertex-validators')
  return os.path.join(cache, 'protos.json')


def describe(value):
  return json.dumps(value)[:60]


def is_integer(value):
  return isinstance(value, int) and not isinstance(value, bool)


def check_integer_string(value, bounds, errors, path):
  if is_integer(value):
    errors.append(f'{path}: 64-bit integer must be a decimal string, got number {value}')
  elif not isinstance(value, str) or not DECIMAL.match(value):
    errors.append(f'{path}: expected a 64-bit integer as a decimal string, got {describe(value)}')
  elif not bounds[0] <= int(value) <= bounds[1]:
    errors.append(f'{path}: {value} is out of range')


def check_number(value, bounds, errors, path):
  if not is_integer(value):
    errors.append(f'{path}: expected an integer number, got {describe(value)}')
  elif not bounds[0] <= value <= bounds[1]:
    errors.append(f'{path}: {value} is out of range {bounds}')


class ProtosSchema:
  """A message model read from protobufjs' protos.json."""

  SCALARS = {'int32': INT32, 'sint32': INT32, 'sfixed32': INT32, 'uint32': UINT32,
             'fixed32': UINT32}
  LONGS = {'int64': INT64, 'sint64': INT64, 'sfixed64': INT64, 'uint64': UINT64,
           'fixed64': UINT64}

  def __init__(self, path):
    with open(path) as f:
      self.root = json.load(f)
    self.source = 'protos.json'

  def lookup(self, full_name):
    node = self.root
    for part in full_name.split('.'):
      node = node.get('nested', {}).get(part)
      if node is None:
        return None
    return node

  def resolve(self, type_name, scope):
    """protobufjs name resolution: innermost enclosing namespace first."""
    if type_name.startswith('.'):
      return type_name[1:], self.lookup(type_name[1:])
    parts = scope.split('.')
    while True:
      candidate = '.'.join(parts + [type_name]) if parts else type_name
      node = self.lookup(candidate)
      if node is not None:
        return candidate, node
      if not parts:
        return type_name, None
      parts.pop()

  def check_message(self, full_name, value, errors, path):
    node = self.lookup(full_name)
    if node is None:
      errors.append(f'{path}: message {full_name} not found in {self.source}')
      return
    if self.check_well_known(full_name, value, errors, path):
      return
    if not isinstance(value, dict):
      errors.append(f'{path}: expected an object ({full_name}), got {describe(value)}')
      return
    fields = node.get('fields', {})
    for name, field_value in value.items():
      field_path = f'{path}.{name}'
      if name not in fields:
        hint = ''
        camel = re.sub(r'_([a-z])', lambda m: m.group(1).upper(), name)
        if camel in fields:
          hint = f'; the JSON name is {camel}'
        errors.append(f'{field_path}: unknown field in {full_name} (known: '
                      f'{", ".join(sorted(fields))}){hint}')
        continue
      field = fields[name]
      behavior = field.get('options', {}).get('(google.api.field_behavior)')
      if behavior == 'OUTPUT_ONLY':
        errors.append(f'{field_path}: output-only field of {full_name} must not be sent')
      if field_value is None:
        errors.append(f'{field_path}: null; omit the field instead')
        continue
      self.check_field(field, full_name, field_value, errors, field_path)
    for name, field in fields.items():
      if field.get('options', {}).get('(google.api.field_behavior)') == 'REQUIRED':
        present = value.get(name)
        if present is None or present == [] or present == '':
          errors.append(f'{path}.{name}: required field of {full_name} is missing or empty')
    for group, spec in node.get('oneofs', {}).items():
      members = [m for m in spec.get('oneof', []) if value.get(m) is not None]
      if len(members) > 1:
        errors.append(f'{path}: oneof {group} of {full_name} has several members set: '
                      f'{", ".join(members)}')

  def check_field(self, field, scope, value, errors, path):
    if 'keyType' in field:
      if not isinstance(value, dict):
        errors.append(f'{path}: expected an object (map), got {describe(value)}')
        return
      for key, item in value.items():
        self.check_single(field['type'], scope, item, errors, f'{path}[{json.dumps(key)}]')
    elif field.get('rule') == 'repeated':
      if not isinstance(value, list):
        errors.append(f'{path}: expected an array, got {describe(value)}')
        return
      for index, item in enumerate(value):
        self.check_single(field['type'], scope, item, errors, f'{path}[{index}]')
    else:
      self.check_single(field['type'], scope, value, errors, path)

  def check_single(self, type_name, scope, value, errors, path):
    if type_name in self.SCALARS:
      check_number(value, self.SCALARS[type_name], errors, path)
    elif type_name in self.LONGS:
      check_integer_string(value, self.LONGS[type_name], errors, path)
    elif type_name in ('double', 'float'):
      if not (isinstance(value, (int, float)) and not isinstance(value, bool)) and value not in (
          'NaN', 'Infinity', '-Infinity'):
        errors.append(f'{path}: expected a number, got {describe(value)}')
    elif type_name == 'bool':
      if not isinstance(value, bool):
        errors.append(f'{path}: expected true or false, got {describe(value)}')
    elif type_name == 'string':
      if not isinstance(value, str):
        errors.append(f'{path}: expected a string, got {describe(value)}')
    elif type_name == 'bytes':
      if not isinstance(value, str) or not BASE64.match(value):
        errors.append(f'{path}: expected base64 bytes, got {describe(value)}')
    else:
      full_name, node = self.resolve(type_name, scope)
      if node is None:
        errors.append(f'{path}: type {type_name} not found in {self.source}')
      elif 'values' in node:
        if not isinstance(value, str) or value not in node['values']:
          errors.append(f'{path}: invalid enum value {describe(value)} for {full_name} (allowed: '
                        f'{", ".join(node["values"])})')
      else:
        self.check_message(full_name, value, errors, path)

  @staticmethod
  def check_well_known(full_name, value, errors, path):
    """proto3 JSON forms of google.protobuf types; True when full_name is one of them."""
    if full_name == 'google.protobuf.Duration':
      if not isinstance(value, str) or not DURATION.match(value):
        errors.append(f'{path}: expected a Duration like "3600s", got {describe(value)}')
    elif full_name == 'google.protobuf.Timestamp':
      if not isinstance(value, str) or not RFC3339.match(value):
        errors.append(f'{path}: expected an RFC 3339 timestamp, got {describe(value)}')
    elif full_name == 'google.protobuf.FieldMask':
      if not isinstance(value, str):
        errors.append(f'{path}: expected a field mask string, got {describe(value)}')
    elif full_name == 'google.protobuf.Struct':
      if not isinstance(value, dict):
        errors.append(f'{path}: expected an object, got {describe(value)}')
    elif full_name == 'google.protobuf.ListValue':
      if not isinstance(value, list):
        errors.append(f'{path}: expected an array, got {describe(value)}')
    elif full_name == 'google.protobuf.Value':
      pass
    elif full_name == 'google.protobuf.Any':
      if not isinstance(value, dict) or not isinstance(value.get('@type'), str):
        errors.append(f'{path}: expected an Any object with "@type", got {describe(value)}')
    else:
      return False
    return True

  def validate(self, message, body):
    errors = []
    self.check_message(f'{PROTO_PACKAGE}.{message}', body, errors, '')
    return errors


class DiscoverySchema:
  """A message model read from a Google API Discovery document (JSON Schema dialect)."""

  def __init__(self, path):
    with open(path) as f:
      document = json.load(f)
    self.schemas = document['schemas']
    self.source = f'discovery {document["name"]} {document["version"]} rev {document["revision"]}'

  def check(self, schema, value, errors, path):
    if '$ref' in schema:
      name = schema['$ref']
      target = self.schemas.get(name)
      if target is None:
        errors.append(f'{path}: schema {name} not in {self.source}')
        return
      self.check_object(name, target, value, errors, path)
      return
    kind = schema.get('type')
    fmt = schema.get('format')
    if value is None:
      errors.append(f'{path}: null; omit the field instead')
    elif kind == 'string':
      if not isinstance(value, str):
        errors.append(f'{path}: expected a string, got {describe(value)}')
      elif 'enum' in schema and value not in schema['enum']:
        errors.append(f'{path}: invalid enum value {describe(value)} (allowed: '
                      f'{", ".join(schema["enum"])})')
      elif fmt in ('int64', 'uint64'):
        check_integer_string(value, INT64 if fmt == 'int64' else UINT64, errors, path)
      elif fmt == 'google-duration' and not DURATION.match(value):
        errors.append(f'{path}: expected a duration like "3600s", got {describe(value)}')
      elif fmt == 'google-datetime' and not RFC3339.match(value):
        errors.append(f'{path}: expected an RFC 3339 timestamp, got {describe(value)}')
      elif fmt == 'byte' and not BASE64.match(value):
        errors.append(f'{path}: expected base64 bytes, got {describe(value)}')
    elif kind == 'integer':
      check_number(value, UINT32 if fmt == 'uint32' else INT32, errors, path)
    elif kind == 'number':
      if not isinstance(value, (int, float)) or isinstance(value, bool):
        errors.append(f'{path}: expected a number, got {describe(value)}')
    elif kind == 'boolean':
      if not isinstance(value, bool):
        errors.append(f'{path}: expected true or false, got {describe(value)}')
    elif kind == 'array':
      if not isinstance(value, list):
        errors.append(f'{path}: expected an array, got {describe(value)}')
        return
      for index, item in enumerate(value):
        self.check(schema['items'], item, errors, f'{path}[{index}]')
    elif kind == 'object':
      if not isinstance(value, dict):
        errors.append(f'{path}: expected an object, got {describe(value)}')
        return
      if 'additionalProperties' in schema:
        for key, item in value.items():
          self.check(schema['additionalProperties'], item, errors, f'{path}[{json.dumps(key)}]')
      elif 'properties' in schema:
        self.check_object('(inline)', schema, value, errors, path)
    elif kind == 'any':
      pass
    else:
      errors.append(f'{path}: schema kind {kind} not understood by this validator')

  def check_object(self, name, schema, value, errors, path):
    if not isinstance(value, dict):
      errors.append(f'{path}: expected an object ({name}), got {describe(value)}')
      return
    properties = schema.get('properties', {})
    for key, item in value.items():
      if key not in properties:
        errors.append(f'{path}.{key}: unknown field in {name} (known: '
                      f'{", ".join(sorted(properties))})')
        continue
      if properties[key].get('readOnly'):
        errors.append(f'{path}.{key}: output-only field of {name} must not be sent')
      self.check(properties[key], item, errors, f'{path}.{key}')
    for key, prop in properties.items():
      if prop.get('description', '').startswith('Required.'):
        present = value.get(key)
        if present is None or present == [] or present == '':
          errors.append(f'{path}.{key}: required field of {name} is missing or empty')

  def validate(self, message, body):
    errors = []
    name = f'GoogleCloudAiplatformV1{message}'
    if name not in self.schemas:
      return [f'schema {name} not in {self.source}']
    self.check_object(name, self.schemas[name], body, errors, '')
    return errors


def main():
  parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
  parser.add_argument('--protos', default=default_protos_path())
  parser.add_argument('--discovery', default=DEFAULT_DISCOVERY)
  parser.add_argument('--no-protos', action='store_true')
  parser.add_argument('--no-discovery', action='store_true')
  parser.add_argument('--message', default='CustomJob', help='message name in the v1 package')
  parser.add_argument('bodies', nargs='+', help='JSON files; "-" reads standard input')
  args = parser.parse_args()

  schemas = []
  for enabled, path, kind in ((not args.no_protos, args.protos, ProtosSchema),
                              (not args.no_discovery, args.discovery, DiscoverySchema)):
    if not enabled:
      continue
    if not os.path.isfile(path):
      print(f'MISSING {path}: run packaging/engines/vertex_validators.sh', file=sys.stderr)
      return 3
    schemas.append(kind(path))
  if not schemas:
    parser.error('both schema sources are switched off')

  all_valid = True
  for body_path in args.bodies:
    try:
      text = sys.stdin.read() if body_path == '-' else open(body_path).read()
      body = json.loads(text)
    except (OSError, ValueError) as e:
      print(f'INVALID {body_path}: cannot read JSON: {e}')
      all_valid = False
      continue
    errors = []
    for schema in schemas:
      errors += [f'[{schema.source}] {e}' for e in schema.validate(args.message, body)]
    print(f'{"VALID  " if not errors else "INVALID"} {body_path}  ({args.message})')
    for error in errors:
      print(f'  ERROR {error}')
    all_valid = all_valid and not errors
  return 0 if all_valid else 1


if __name__ == '__main__':
  sys.exit(main())
