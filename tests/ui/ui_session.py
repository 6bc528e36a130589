"""What the dashboard's tests share: a scratch directory with its own sortie state, the installed
`sortie` on PATH, the test sweep launched from it, and `sortie ui` started on a free loopback
port (read from the URL it prints)."""
import http.client
import json
import os
import pathlib
import shutil
import subprocess
import time
import urllib.parse

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"

# The job of Scratch.launch_measured_sweep: each unit's curve falls at its own rate, with a
# ripple, so no two units share their extremes.
MEASURED_TRAINER = """#!/bin/sh
unit=$(echo "$*" | sed -n 's/.*--unit=\\([0-9]*\\).*/\\1/p')
awk -v u="$unit" -v n="$POINTS" 'BEGIN { for (i = 0; i < n; i++)
  printf "{\\"step\\": %d, \\"loss\\": %.6f}\\n", i, 1 / (1 + i * u / 1000) + 0.01 * sin(i) }' \\
  >> "$SORTIE_METRICS_FILE"
"""

MEASURED_SWEEP = """title: measured units
executables:
  trainer: {{binary: ./trainer.sh, env_vars: {{POINTS: "{points}"}}}}
executors:
  cpu: {{type: local}}
job: {{executable: trainer, executor: cpu, name: train}}
sweep:
  product:
    unit: [{units}]
"""


class Scratch:
    def __init__(self, prefix, directory):
        self.root = pathlib.Path(directory)
        shutil.rmtree(self.root, ignore_errors=True)
        self.root.mkdir(parents=True)
        self.env = dict(os.environ)
        self.env.update({
            "PATH": f"{prefix}/bin:{os.environ['PATH']}",
            "SORTIE_STATE_DIR": str(self.root / "state"),
            "HOME": str(self.root / "home"),
            "XDG_CONFIG_HOME": str(self.root / "config"),
        })
        shutil.copytree(FIXTURES, self.root / "sweep")

    def sortie(self, *args):
        done = subprocess.run(["sortie", *args], env=self.env, cwd=self.root, text=True,
                              capture_output=True, timeout=120)
        assert done.returncode == 0, f"sortie {' '.join(args)}: {done.returncode}\n{done.stderr}"
        return done.stdout

    def launch_sweep(self):
        """Launches the 2 x 3 sweep; returns its experiment id."""
        self.sortie("launch", str(self.root / "sweep" / "sweep.yaml"))
        listed = json.loads(self.sortie("experiments", "list", "--json"))
        return listed["experiments"][0]["id"]

    def release_sweep(self):
        (self.root / "sweep" / "release").touch()

    def failed_at_ns(self):
        path = self.root / "sweep" / "failed_at"
        return int(path.read_text()) if path.exists() else None

    def run_ticker(self, lines):
        """Runs the ticker (tests/ui/fixtures/ticker.py) locally; returns its handle."""
        return self.sortie("run", "-s", "local_cwd", "--", "python3",
                           str(self.root / "sweep" / "ticker.py"), str(lines)).strip()

    def launch_measured_sweep(self, units, points):
        """A sweep of `units` local jobs, each writing `points` `{"step", "loss"}` lines to its
        metrics file, run to their end and read into the store; returns its experiment id."""
        directory = self.root / "measured-units"
        directory.mkdir()
        (directory / "trainer.sh").write_text(MEASURED_TRAINER)
        (directory / "trainer.sh").chmod(0o755)
        numbers = ", ".join(str(unit) for unit in range(1, units + 1))
        (directory / "sweep.yaml").write_text(MEASURED_SWEEP.format(points=points, units=numbers))
        self.sortie("launch", str(directory / "sweep.yaml"))
        experiment = json.loads(self.sortie("experiments", "list", "--json"))["experiments"][0]
        deadline = time.monotonic() + 600
        while True:
            shown = json.loads(self.sortie("experiments", "show", str(experiment["id"]), "--json"))
            ended = [u for u in shown["work_units"] if u["state"] in ("SUCCEEDED", "FAILED")]
            if len(ended) == units:
                break
            assert time.monotonic() < deadline, f"{len(ended)} of {units} units ended"
            time.sleep(1)
        failed = [u["id"] for u in ended if u["state"] != "SUCCEEDED"]
        assert not failed, f"units failed: {failed}"
        return experiment["id"]


class Dashboard:
    """`sortie ui` serving the scratch directory's store."""

    def __init__(self, scratch, *options, env=None):
        self.process = subprocess.Popen(["sortie", "ui", "--port", "0", *options],
                                        env={**scratch.env, **(env or {})},
                                        cwd=scratch.root, stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        assert line.startswith("sortie ui: serving http://127.0.0.1:"), f"printed: {line!r}"
        self.printed_url = line.split()[3]
        printed = urllib.parse.urlparse(self.printed_url)
        # The pages' root; the token that writes need comes in the fragment (#token=...).
        self.url = printed._replace(fragment="").geturl()
        self.token = urllib.parse.parse_qs(printed.fragment).get("token", [""])[0]
        self.port = printed.port

    def connection(self, timeout=10):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, headers=None):
        """(status, body as JSON when it is JSON)."""
        connection = self.connection()
        try:
            connection.request(method, path, headers=headers or {})
            response = connection.getresponse()
            body = response.read()
            kind = response.getheader("Content-Type", "")
            return response.status, json.loads(body) if kind.startswith("application/json") else body
        finally:
            connection.close()

    def get(self, path):
        status, body = self.request("GET", path)
        assert status == 200, f"GET {path}: {status} {body}"
        return body

    def wait_for(self, predicate, what, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}")

    def stop(self):
        self.process.terminate()
        status = self.process.wait(timeout=30)
        assert status == 0, f"sortie ui exited with {status} on SIGTERM"


def read_events(response, until_quiet_s=1.5, limit=None):
    """The server-sent events of `response` as (id, event, data) until it stays quiet for
    `until_quiet_s` (its socket's timeout) or `limit` events came."""
    events, fields = [], {}
    while limit is None or len(events) < limit:
        try:
            line = response.readline()
        except TimeoutError:
            break
        if not line:
            break
        line = line.decode().rstrip("\n")
        if line == "":
            if "data" in fields:
                events.append((fields.get("id"), fields.get("event", "message"), fields["data"]))
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(": ")
            fields[name] = value
    return events


def open_stream(dashboard, path, headers=None, timeout=1.5):
    connection = dashboard.connection(timeout=timeout)
    connection.request("GET", path, headers=headers or {})
    response = connection.getresponse()
    assert response.status == 200, f"GET {path}: {response.status}"
    assert response.getheader("Content-Type").startswith("text/event-stream")
    return connection, response


def cpu_seconds(pid):
    """The CPU time (user and system) process `pid` used so far, from /proc/PID/stat."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]
