#!/usr/bin/env python3
"""A fake Kubernetes API server for the kubernetes scheduler's tests (python3 stdlib only).

It serves, on 127.0.0.1 and a port the kernel picks, the endpoints the plugin uses, with the
status codes and Status bodies of the real API server:
  POST/GET/DELETE  /apis/batch/v1/namespaces/NS/jobs[/NAME]          (list: ?labelSelector=)
  POST/GET/DELETE  /api/v1/namespaces/NS/services[/NAME]
  GET              /api/v1/namespaces/NS/pods[?labelSelector=]
  GET              /api/v1/namespaces/NS/pods/NAME/log?timestamps=&follow=&sinceTime=&tailLines=
  POST/GET/DELETE  /apis/batch.volcano.sh/v1alpha1/namespaces/NS/jobs[/NAME]
  POST/GET/DELETE  /apis/jobset.x-k8s.io/v1alpha2/namespaces/NS/jobsets[/NAME]
Errors: 401 (no or unknown credentials), 403 (a --forbid user), 404, 409 (exists), 422 (invalid
name), and injected 5xx. Pods of created Jobs, Volcano Jobs and JobSets follow a scenario chosen
by the image's last path component (succeed, fail, oomkilled, errimagepull, unschedulable,
crashloop), else by the command (`false` or `sh -c 'exit N'`, N > 0, fail; others succeed), one
step per POST /_fake/advance, so tests drive every transition; with --auto-advance SECONDS they
also step on their own, as on a real cluster. A running `echo` container logs its line.

Control endpoints (no authentication): POST /_fake/advance, POST /_fake/fail_next
{"status": 503, "count": 1}, GET /_fake/requests (what was asked, by whom).

Usage: fake_apiserver.py --port-file FILE [--cert C --key K [--client-ca CA]]
                         [--token TOKEN=USER]... [--forbid USER]... [--without volcano|jobset]
                         [--auto-advance SECONDS]
"""

import argparse
import datetime
import json
import os
import re
import socket
import ssl
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "framework"))
import fake_program  # noqa: E402

DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")

# (group, version, plural) -> (kind, name rule)
RESOURCES = {
    ("", "v1", "services"): ("Service", "dns1035"),
    ("", "v1", "pods"): ("Pod", "subdomain"),
    ("batch", "v1", "jobs"): ("Job", "label"),
    ("batch.volcano.sh", "v1alpha1", "jobs"): ("Job", "label"),
    ("jobset.x-k8s.io", "v1alpha2", "jobsets"): ("JobSet", "label"),
}

# Pod states per step of each scenario: (phase, container state, extra pod status).
SCENARIOS = {
    "succeed": ["creating", "running", "succeeded"],
    "fail": ["creating", "running", "failed"],
    "oomkilled": ["creating", "running", "oomkilled"],
    "errimagepull": ["errimagepull", "imagepullbackoff"],
    "unschedulable": ["unschedulable"],
    "crashloop": ["creating", "running", "crashloop"],
}


def command_of(container):
    return container.get("command", []) + container.get("args", [])


def scenario_of(container):
    """The image names a scenario; other images run their command, which fails or succeeds."""
    scenario = container["image"].split("/")[-1].split(":")[0]
    if scenario in SCENARIOS:
        return SCENARIOS[scenario]
    return SCENARIOS["fail" if fake_program.exit_status(command_of(container)) else "succeed"]


def now():
    return datetime.datetime.now(datetime.timezone.utc)


def rfc3339(moment, nanos=False):
    if nanos:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d000Z" % moment.microsecond
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text):
    text = text.replace("Z", "+00:00")
    if "." in text:
        head, tail = text.split(".", 1)
        digits = re.match(r"\d+", tail).group(0)
        text = head + "." + digits[:6].ljust(6, "0") + tail[len(digits):]
    return datetime.datetime.fromisoformat(text)


def status_body(code, reason, message, details=None):
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}
    if details:
        body["details"] = details
    return body


def matches(labels, selector):
    for term in filter(None, (selector or "").split(",")):
        if "=" in term:
            key, value = term.split("=", 1)
            if labels.get(key.rstrip("=")) != value:
                return False
        elif term not in labels:
            return False
    return True


class Cluster:
    def __init__(self, without):
        self.lock = threading.Condition()
        self.objects = {}  # (group, version, plural, ns, name) -> object
        self.without = without
        self.requests = []
        self.faults = []

    # -- pods -----------------------------------------------------------------------------
    def make_pod(self, owner, ns, name, template, labels, annotations, hostname, subdomain):
        spec = json.loads(json.dumps(template.get("spec", {})))
        meta = template.get("metadata", {})
        pod_labels = dict(meta.get("labels", {}))
        pod_labels.update(labels)
        pod_annotations = dict(meta.get("annotations", {}))
        pod_annotations.update(annotations)
        if hostname:
            spec["hostname"] = hostname
        if subdomain:
            spec["subdomain"] = subdomain
        pod = {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "uid": str(uuid.uuid4()),
                         "creationTimestamp": rfc3339(now()), "labels": pod_labels,
                         "annotations": pod_annotations,
                         "ownerReferences": [{"apiVersion": owner["apiVersion"],
                                              "kind": owner["kind"],
                                              "name": owner["metadata"]["name"],
                                              "uid": owner["metadata"]["uid"]}]},
            "spec": spec,
            "_scenario": scenario_of(spec["containers"][0]),
            "_step": 0,
            "_log": [],
        }
        self.render_pod(pod)
        self.objects[("", "v1", "pods", ns, name)] = pod
        return pod

    def render_pod(self, pod):
        steps = pod["_scenario"]
        state = steps[min(pod["_step"], len(steps) - 1)]
        container = pod["spec"]["containers"][0]
        started = rfc3339(now())
        status = {"phase": "Pending", "conditions": [], "containerStatuses": [
            {"name": container["name"], "image": container["image"], "ready": False,
             "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}]}
        cs = status["containerStatuses"][0]
        pod["spec"]["nodeName"] = "node-1"
        if state == "unschedulable":
            pod["spec"].pop("nodeName")
            status.pop("containerStatuses")
            status["conditions"] = [{"type": "PodScheduled", "status": "False",
                                     "reason": "Unschedulable",
                                     "message": "0/3 nodes are available: 3 Insufficient "
                                                "nvidia.com/gpu. preemption: 0/3 nodes are "
                                                "available: 3 No preemption victims found for "
                                                "incoming pod."}]
        elif state == "errimagepull":
            cs["state"] = {"waiting": {"reason": "ErrImagePull",
                                       "message": "failed to pull and unpack image \"%s\": "
                                                  "not found" % container["image"]}}
        elif state == "imagepullbackoff":
            cs["state"] = {"waiting": {"reason": "ImagePullBackOff",
                                       "message": "Back-off pulling image \"%s\""
                                                  % container["image"]}}
        elif state in ("running", "crashloop"):
            status["phase"] = "Running"
            status["startTime"] = pod.setdefault("_start", started)
            cs["state"] = {"running": {"startedAt": pod["_start"]}}
            cs["ready"] = True
            if state == "crashloop":
                cs["restartCount"] = 2
                cs["ready"] = False
                cs["state"] = {"waiting": {"reason": "CrashLoopBackOff",
                                           "message": "back-off 20s restarting failed "
                                                      "container=%s" % container["name"]}}
                cs["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error"}}
        elif state in ("succeeded", "failed", "oomkilled"):
            status["phase"] = "Succeeded" if state == "succeeded" else "Failed"
            status["startTime"] = pod.setdefault("_start", started)
            code = {"succeeded": 0, "failed": 3, "oomkilled": 137}[state]
            reason = {"succeeded": "Completed", "failed": "Error", "oomkilled": "OOMKilled"}[state]
            cs["state"] = {"terminated": {"exitCode": code, "reason": reason,
                                          "startedAt": pod["_start"],
                                          "finishedAt": pod.setdefault("_end", started)}}
        pod["status"] = status
        # Each running step writes lines; the last line tells the outcome.
        if state in ("running", "succeeded", "failed", "oomkilled") and \
                pod.get("_logged") != pod["_step"]:
            pod["_logged"] = pod["_step"]
            env = {e["name"]: e.get("value", "") for e in container.get("env", [])}
            printed = fake_program.printed_line(command_of(container))
            if state == "running" and printed is not None:
                lines = [printed]
            elif state == "running":
                lines = ["starting %s replica %s" % (env.get("SORTIE_ROLE_NAME", "?"),
                                                     pod["metadata"]["annotations"].get(
                                                         "batch.kubernetes.io/job-completion-index",
                                                         env.get("SORTIE_REPLICA_ID", "?"))),
                         "loss=0.5"]
            else:
                lines = ["exit %s" % state]
            for line in lines:
                pod["_log"].append((now(), line))

    def pod_started(self, pod):
        return pod["status"]["phase"] != "Pending"

    def pod_terminal(self, pod):
        return pod["status"]["phase"] in ("Succeeded", "Failed")

    # -- controllers ----------------------------------------------------------------------
    def owned_pods(self, uid):
        return [o for k, o in self.objects.items() if k[2] == "pods" and
                any(r["uid"] == uid for r in o["metadata"].get("ownerReferences", []))]

    def start(self, key, obj):
        group, version, plural, ns, name = key
        if (group, plural) == ("batch", "jobs"):
            self.start_job(obj, ns, name, {}, None)
        elif group == "batch.volcano.sh":
            for task in obj["spec"]["tasks"]:
                for i in range(task.get("replicas", 1)):
                    pod_name = "%s-%s-%d" % (name, task["name"], i)
                    self.make_pod(obj, ns, pod_name, task["template"],
                                  {"volcano.sh/job-name": name, "volcano.sh/task-spec": task["name"]},
                                  {}, pod_name, name)
        elif group == "jobset.x-k8s.io":
            for rjob in obj["spec"]["replicatedJobs"]:
                job_name = "%s-%s-0" % (name, rjob["name"])
                job = {"apiVersion": "batch/v1", "kind": "Job",
                       "metadata": {"name": job_name, "namespace": ns, "uid": str(uuid.uuid4()),
                                    "labels": dict(rjob["template"].get("metadata", {}).get("labels", {}),
                                                   **{"jobset.sigs.k8s.io/jobset-name": name}),
                                    "ownerReferences": [{"apiVersion": obj["apiVersion"],
                                                         "kind": "JobSet", "name": name,
                                                         "uid": obj["metadata"]["uid"]}]},
                       "spec": rjob["template"]["spec"], "status": {}}
                self.objects[("batch", "v1", "jobs", ns, job_name)] = job
                self.start_job(job, ns, job_name, {"jobset.sigs.k8s.io/jobset-name": name}, name,
                               hostname_prefix=job_name)

    def start_job(self, job, ns, name, labels, subdomain, hostname_prefix=None):
        for index in range(job["spec"].get("completions", 1)):
            self.job_pod(job, ns, name, index, labels, subdomain, hostname_prefix)

    def job_pod(self, job, ns, name, index, labels, subdomain, hostname_prefix=None):
        pod_name = "%s-%d-%s" % (name, index, uuid.uuid4().hex[:5])
        indexed = job["spec"].get("completionMode") == "Indexed"
        extra = {"batch.kubernetes.io/job-name": name, "job-name": name}
        extra.update(labels)
        annotations = {}
        if indexed:
            extra["batch.kubernetes.io/job-completion-index"] = str(index)
            annotations["batch.kubernetes.io/job-completion-index"] = str(index)
        hostname = "%s-%d" % (hostname_prefix or name, index) if indexed else None
        template = job["spec"]["template"]
        return self.make_pod(job, ns, pod_name, template, extra, annotations, hostname,
                             subdomain or template.get("spec", {}).get("subdomain"))

    def refresh(self):
        for key, obj in list(self.objects.items()):
            group, _, plural, ns, name = key
            if (group, plural) == ("batch", "jobs"):
                self.refresh_job(key, obj)
        for key, obj in list(self.objects.items()):
            group = key[0]
            if group == "batch.volcano.sh":
                self.refresh_volcano(obj)
            elif group == "jobset.x-k8s.io":
                self.refresh_jobset(key, obj)

    def refresh_job(self, key, job):
        pods = self.owned_pods(job["metadata"]["uid"])
        spec = job["spec"]
        completions = spec.get("completions", 1)
        status = job.setdefault("status", {})
        if any(c["type"] in ("Complete", "Failed") for c in status.get("conditions", [])):
            return
        failed = [p for p in pods if p["status"]["phase"] == "Failed"]
        done = {p["metadata"]["annotations"].get("batch.kubernetes.io/job-completion-index", "0")
                for p in pods if p["status"]["phase"] == "Succeeded"}
        active = [p for p in pods if not self.pod_terminal(p)]
        status.update({"active": len(active), "succeeded": len(done), "failed": len(failed),
                       "ready": sum(1 for p in active if p["status"]["phase"] == "Running")})
        if pods:
            status.setdefault("startTime", rfc3339(now()))
        limit = spec.get("backoffLimit", 6)
        if "backoffLimitPerIndex" in spec:
            limit = spec["backoffLimitPerIndex"]
        if len(failed) > limit:
            status["conditions"] = [{"type": "Failed", "status": "True",
                                     "reason": "BackoffLimitExceeded",
                                     "message": "Job has reached the specified backoff limit"}]
            for pod in active:
                pod["status"]["phase"] = "Failed"
            status["active"] = 0
        elif len(done) >= completions:
            status["conditions"] = [{"type": "Complete", "status": "True"}]
            status["completionTime"] = rfc3339(now())
        else:
            # A failed index within the limit is retried with a new pod.
            failed_indexes = {p["metadata"]["annotations"].get(
                "batch.kubernetes.io/job-completion-index", "0") for p in failed}
            for index in failed_indexes - done:
                live = [p for p in active if p["metadata"]["annotations"].get(
                    "batch.kubernetes.io/job-completion-index", "0") == index]
                if not live:
                    self.job_pod(job, key[3], key[4], int(index), {}, None)

    def refresh_volcano(self, job):
        pods = self.owned_pods(job["metadata"]["uid"])
        phases = [p["status"]["phase"] for p in pods]
        if phases and all(p == "Succeeded" for p in phases):
            phase = "Completed"
        elif "Failed" in phases:
            phase = "Failed"
        elif "Running" in phases:
            phase = "Running"
        else:
            phase = "Pending"
        job["status"] = {"state": {"phase": phase}, "minAvailable": job["spec"].get("minAvailable", 0),
                         "running": phases.count("Running"), "succeeded": phases.count("Succeeded"),
                         "failed": phases.count("Failed"), "pending": phases.count("Pending")}

    def refresh_jobset(self, key, jobset):
        jobs = [o for k, o in self.objects.items() if k[2] == "jobs" and k[0] == "batch" and
                any(r["uid"] == jobset["metadata"]["uid"] for r in o["metadata"].get("ownerReferences", []))]
        conds = [c["type"] for j in jobs for c in j.get("status", {}).get("conditions", [])]
        status = {"replicatedJobsStatus": [
            {"name": j["metadata"]["name"], "active": 1 if j.get("status", {}).get("active") else 0,
             "ready": 0, "succeeded": 1 if "Complete" in [c["type"] for c in j.get("status", {}).get("conditions", [])] else 0,
             "failed": 0, "suspended": 0} for j in jobs], "restarts": 0}
        if "Failed" in conds:
            status["conditions"] = [{"type": "Failed", "status": "True", "reason": "FailedJobs",
                                     "message": "jobset failed due to one or more job failures",
                                     "lastTransitionTime": rfc3339(now())}]
            status["terminalState"] = "Failed"
        elif jobs and conds.count("Complete") == len(jobs):
            status["conditions"] = [{"type": "Completed", "status": "True", "reason": "AllJobsCompleted",
                                     "message": "jobset completed successfully",
                                     "lastTransitionTime": rfc3339(now())}]
            status["terminalState"] = "Completed"
        jobset["status"] = status

    def advance(self):
        with self.lock:
            for key, obj in list(self.objects.items()):
                if key[2] == "pods" and not self.pod_terminal(obj):
                    obj["_step"] += 1
                    self.render_pod(obj)
            self.refresh()
            self.lock.notify_all()

    def delete_tree(self, uid):
        for key, obj in list(self.objects.items()):
            if any(r["uid"] == uid for r in obj["metadata"].get("ownerReferences", [])):
                self.objects.pop(key, None)
                self.delete_tree(obj["metadata"]["uid"])


def public(obj):
    return {k: v for k, v in obj.items() if not k.startswith("_")}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    cluster = None
    tokens = {}
    forbidden = set()

    def log_message(self, *args):
        pass

    # -- plumbing -------------------------------------------------------------------------
    def send_json(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def fail(self, code, reason, message, details=None):
        self.send_json(code, status_body(code, reason, message, details))

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def user(self):
        try:
            cert = self.connection.getpeercert()
        except (AttributeError, ValueError):
            cert = None
        if cert:
            for rdn in cert.get("subject", ()):
                for key, value in rdn:
                    if key == "commonName":
                        return value
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            return self.tokens.get(auth[7:])
        return None

    # -- dispatch -------------------------------------------------------------------------
    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def dispatch(self, method):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        body = self.body()
        if url.path.startswith("/_fake/"):
            return self.control(method, url.path, body)
        c = self.cluster
        user = self.user()
        with c.lock:
            c.requests.append({"method": method, "path": self.path, "user": user,
                               "body": body.decode() if body else ""})
            fault = next((f for f in c.faults if f.get("path_contains", "") in self.path), None)
            if fault:
                fault["count"] -= 1
                if fault["count"] <= 0:
                    c.faults.remove(fault)
        if user is None:
            return self.fail(401, "Unauthorized", "Unauthorized")
        if fault:
            return self.fail(fault["status"], "InternalError",
                             "Internal error occurred: injected failure %d" % fault["status"])
        m = re.match(r"^/(?:api/(v1)|apis/([^/]+)/([^/]+))/namespaces/([^/]+)/([^/]+)"
                     r"(?:/([^/]+))?(?:/(log|status))?$", url.path)
        if not m:
            return self.fail(404, "NotFound", "the server could not find the requested resource")
        core_version, group, version, ns, plural, name, sub = m.groups()
        group = group or ""
        version = core_version or version
        resource = (group, version, plural)
        if resource not in RESOURCES or any(w in group for w in c.without if w):
            return self.fail(404, "NotFound", "the server could not find the requested resource")
        kind, rule = RESOURCES[resource]
        plural_group = plural + ("." + group if group else "")
        if user in self.forbidden:
            verb = {"GET": "get" if name else "list", "POST": "create", "DELETE": "delete"}[method]
            return self.fail(403, "Forbidden",
                             '%s is forbidden: User "%s" cannot %s resource "%s" in API group '
                             '"%s" in the namespace "%s"' % (plural_group, user, verb, plural,
                                                             group, ns),
                             {"group": group, "kind": plural})
        with c.lock:
            if method == "POST" and not name:
                return self.create(resource, kind, rule, ns, body, query)
            if method == "GET" and not name:
                items = [public(o) for k, o in sorted(c.objects.items())
                         if k[:4] == (group, version, plural, ns) and
                         matches(o["metadata"].get("labels", {}), query.get("labelSelector"))]
                return self.send_json(200, {"kind": kind + "List",
                                            "apiVersion": (group + "/" if group else "") + version,
                                            "metadata": {"resourceVersion": "1"}, "items": items})
            obj = c.objects.get((group, version, plural, ns, name))
            if obj is None:
                return self.fail(404, "NotFound", '%s "%s" not found' % (plural_group, name),
                                 {"name": name, "group": group, "kind": plural})
            if method == "GET" and sub == "log":
                return self.logs(obj, query)
            if method == "GET":
                return self.send_json(200, public(obj))
            if method == "DELETE":
                c.objects.pop((group, version, plural, ns, name))
                c.delete_tree(obj["metadata"]["uid"])
                c.lock.notify_all()
                return self.send_json(200, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                            "status": "Success",
                                            "details": {"name": name, "group": group,
                                                        "kind": plural, "uid": obj["metadata"]["uid"]}})
        return self.fail(405, "MethodNotAllowed", "the server does not allow this method")

    def create(self, resource, kind, rule, ns, body, query):
        c = self.cluster
        group, version, plural = resource
        try:
            obj = json.loads(body)
        except ValueError as e:
            return self.fail(400, "BadRequest", "error decoding body: %s" % e)
        api_version = (group + "/" if group else "") + version
        if obj.get("apiVersion") != api_version or obj.get("kind") != kind:
            return self.fail(400, "BadRequest", "the API version in the data (%s) does not match "
                             "the expected API version (%s)" % (obj.get("apiVersion"), api_version))
        meta = obj.setdefault("metadata", {})
        name = meta.get("name", "")
        valid = {"label": lambda n: len(n) <= 63 and DNS1123_LABEL.match(n),
                 "dns1035": lambda n: len(n) <= 63 and re.match(r"^[a-z]([-a-z0-9]*[a-z0-9])?$", n),
                 "subdomain": lambda n: len(n) <= 253 and DNS1123_SUBDOMAIN.match(n)}[rule]
        if not name or not valid(name):
            message = ('%s.%s "%s" is invalid: metadata.name: Invalid value: "%s": a lowercase '
                       'RFC 1123 label must consist of lower case alphanumeric characters or '
                       "'-', and must start and end with an alphanumeric character"
                       % (kind, group or "core", name, name))
            return self.fail(422, "Invalid", message,
                             {"name": name, "group": group, "kind": kind,
                              "causes": [{"reason": "FieldValueInvalid", "field": "metadata.name",
                                          "message": 'Invalid value: "%s": must be no more than '
                                                     '63 characters' % name
                                          if len(name) > 63 else
                                          'Invalid value: "%s": a lowercase RFC 1123 label must '
                                          'consist of lower case alphanumeric characters or '
                                          "'-'" % name}]})
        if meta.get("namespace", ns) != ns:
            return self.fail(400, "BadRequest", "the namespace of the provided object does not "
                             "match the namespace sent on the request")
        key = resource + (ns, name)
        if key in c.objects:
            plural_group = plural + ("." + group if group else "")
            return self.fail(409, "AlreadyExists", '%s "%s" already exists' % (plural_group, name),
                             {"name": name, "group": group, "kind": plural})
        meta.update({"namespace": ns, "uid": str(uuid.uuid4()), "resourceVersion": "1",
                     "creationTimestamp": rfc3339(now())})
        obj["status"] = {}
        c.objects[key] = obj
        c.start(key, obj)
        c.refresh()
        self.send_json(201, public(obj))

    def logs(self, pod, query):
        c = self.cluster
        if not c.pod_started(pod):
            container = pod["spec"]["containers"][0]["name"]
            waiting = pod["status"].get("containerStatuses", [{}])[0].get("state", {}).get(
                "waiting", {}).get("reason", "PodScheduled")
            return self.fail(400, "BadRequest", 'container "%s" in pod "%s" is waiting to start: %s'
                             % (container, pod["metadata"]["name"], waiting))
        since = parse_time(query["sinceTime"]).replace(microsecond=0) if "sinceTime" in query else None
        stamps = query.get("timestamps") == "true"
        follow = query.get("follow") == "true"

        def render(entries):
            return "".join(("%s %s\n" % (rfc3339(t, True), text)) if stamps else text + "\n"
                           for t, text in entries)

        entries = [e for e in pod["_log"] if since is None or e[0] >= since]
        if "tailLines" in query:
            entries = entries[-int(query["tailLines"]):] if int(query["tailLines"]) else []
        if not follow:
            data = render(entries).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        sent = len(pod["_log"])
        self.chunk(render(entries))
        key = ("", "v1", "pods", pod["metadata"]["namespace"], pod["metadata"]["name"])
        while not c.pod_terminal(pod) and c.objects.get(key) is pod:
            c.lock.wait(0.2)
            if len(pod["_log"]) > sent:
                self.chunk(render(pod["_log"][sent:]))
                sent = len(pod["_log"])
        if len(pod["_log"]) > sent:
            self.chunk(render(pod["_log"][sent:]))
        self.chunk("")

    def chunk(self, text):
        data = text.encode()
        if text == "":
            self.wfile.write(b"0\r\n\r\n")
        elif data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def control(self, method, path, body):
        c = self.cluster
        if path == "/_fake/advance" and method == "POST":
            c.advance()
            return self.send_json(200, {})
        if path == "/_fake/fail_next" and method == "POST":
            with c.lock:
                c.faults.append(json.loads(body))
            return self.send_json(200, {})
        if path == "/_fake/requests" and method == "GET":
            with c.lock:
                return self.send_json(200, {"requests": c.requests})
        return self.fail(404, "NotFound", "no such control endpoint")


def advance_every(cluster, seconds):
    while True:
        time.sleep(seconds)
        cluster.advance()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    address_family = socket.AF_INET


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--client-ca")
    parser.add_argument("--token", action="append", default=[])
    parser.add_argument("--forbid", action="append", default=[])
    parser.add_argument("--without", action="append", default=[])
    parser.add_argument("--auto-advance", type=float, metavar="SECONDS")
    args = parser.parse_args()

    Handler.cluster = Cluster(args.without)
    Handler.tokens = dict(t.split("=", 1) for t in args.token)
    Handler.forbidden = set(args.forbid)
    server = Server(("127.0.0.1", 0), Handler)
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        if args.client_ca:
            context.load_verify_locations(args.client_ca)
            context.verify_mode = ssl.CERT_OPTIONAL
        server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(args.port_file + ".tmp", "w") as out:
        out.write(str(server.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
    if args.auto_advance:
        threading.Thread(target=advance_every, args=(Handler.cluster, args.auto_advance),
                         daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
