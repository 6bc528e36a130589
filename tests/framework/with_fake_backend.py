#!/usr/bin/env python3
"""Runs a command against a fake backend: the conformance kit's launcher for the schedulers whose
API server the tests cannot reach (tests/conformance/CMakeLists.txt).

Usage: with_fake_backend.py kubernetes|vertex COMMAND...

Starts the fake (tests/kubernetes/fake_apiserver.py, pods finishing on their own; or
tests/vertex/fake/fake_vertex.py) on 127.0.0.1, points the plugin at it (a kubeconfig in
$KUBECONFIG; $GOOGLE_OAUTH_ACCESS_TOKEN), replaces "{url}" in COMMAND's arguments with the fake's
base URL, runs COMMAND, stops the fake and exits with COMMAND's status. The fake Vertex endpoint
refuses a CustomJob its schema rejects; the bodies POSTed to the fake Kubernetes API server are
checked afterwards by tests/kubernetes/validate/validate_manifests.mjs (packaging/engines/
k8s_validators.sh), reported as the kit reports a check: PASS, FAIL or SKIP request_bodies.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TOKEN = "conformance-token"


def start_kubernetes(work, env):
    port_file = os.path.join(work, "port")
    fake = subprocess.Popen([sys.executable, os.path.join(TESTS, "kubernetes", "fake_apiserver.py"),
                             "--port-file", port_file, "--token", TOKEN + "=conformance",
                             "--auto-advance", "0.2"])
    deadline = time.monotonic() + 30
    while not os.path.exists(port_file):
        if fake.poll() is not None or time.monotonic() > deadline:
            fake.kill()
            sys.exit("the fake Kubernetes API server did not start")
        time.sleep(0.05)
    with open(port_file) as f:
        url = "http://127.0.0.1:" + f.read().strip()
    kubeconfig = os.path.join(work, "kubeconfig")
    with open(kubeconfig, "w") as f:
        f.write(f"""apiVersion: v1
kind: Config
clusters: [{{name: fake, cluster: {{server: "{url}"}}}}]
users: [{{name: conformance, user: {{token: {TOKEN}}}}}]
contexts: [{{name: fake, context: {{cluster: fake, user: conformance, namespace: default}}}}]
current-context: fake
""")
    env["KUBECONFIG"] = kubeconfig
    return fake, url


def validate_kubernetes(work, url):
    """Runs the manifest validator on every object the command created; False when one fails."""
    validate = os.path.join(TESTS, "kubernetes", "validate")
    cache = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
    modules = os.path.join(os.environ.get("SORTIE_K8S_VALIDATORS_DIR",
                                          os.path.join(cache, "sortie", "k8s-validators")),
                           "node_modules")
    if not os.path.isdir(os.path.join(modules, "kubernetes-models")):
        missing = (f"the validator packages are not in {modules} "
                   "(packaging/engines/k8s_validators.sh)")
        in_ci = os.environ.get("CI") == "true"
        print(f"{'FAIL' if in_ci else 'SKIP'} request_bodies: {missing}", file=sys.stderr)
        return not in_ci
    with urllib.request.urlopen(url + "/_fake/requests") as answer:
        requests = json.load(answer)["requests"]
    bodies = []
    for number, request in enumerate(r for r in requests if r["method"] == "POST"):
        bodies.append(os.path.join(work, f"body{number}.json"))
        with open(bodies[-1], "w") as f:
            f.write(request["body"])
    if not bodies:
        print("FAIL request_bodies: nothing was created", file=sys.stderr)
        return False
    report = subprocess.run(
        ["node", os.path.join(validate, "validate_manifests.mjs"), "--modules", modules,
         "--volcano-crd", os.path.join(validate, "batch.volcano.sh_jobs.yaml"),
         "--jobset-schema", os.path.join(validate, "jobset_v1alpha2.schema.json"), *bodies],
        capture_output=True, text=True)
    if report.returncode != 0:
        print("FAIL request_bodies: " + report.stdout + report.stderr, file=sys.stderr)
        return False
    print(f"PASS request_bodies ({len(bodies)} valid)", file=sys.stderr)
    return True


def start_vertex(work, env):
    fake = subprocess.Popen(
        [sys.executable, os.path.join(TESTS, "vertex", "fake", "fake_vertex.py"), "--token", TOKEN],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    first = fake.stdout.readline().split()
    if first[:1] != ["PORT"]:
        sys.exit("the fake Vertex AI endpoint did not start")
    env["GOOGLE_OAUTH_ACCESS_TOKEN"] = TOKEN
    return fake, "http://127.0.0.1:" + first[1]


def main():
    starters = {"kubernetes": start_kubernetes, "vertex": start_vertex}
    validators = {"kubernetes": validate_kubernetes}
    if len(sys.argv) < 3 or sys.argv[1] not in starters:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ)
        fake, url = starters[sys.argv[1]](work, env)
        try:
            command = [arg.replace("{url}", url) for arg in sys.argv[2:]]
            status = subprocess.run(command, env=env).returncode
            validator = validators.get(sys.argv[1])
            if validator and not validator(work, url) and status == 0:
                status = 1
        finally:
            fake.kill()
            fake.wait()
    sys.exit(status)


if __name__ == "__main__":
    main()
