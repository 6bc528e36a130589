"""`sortie ui` at the HTTP level, against the installed sortie and a real local sweep: the JSON
endpoints, the event stream's Last-Event-ID resume, the read-only 403, 4xx for bad requests, the
Host check (DNS rebinding), secrets masked, the write token, and six log followers beside the apps
list (latencies printed as the report, not asserted), 140 open streams beside the apps list, the
per-client limit of streams (every loopback address one client), and the lists in pages.

Usage: ui_http_test.py PREFIX SCRATCH_DIR"""
import http.client
import json
import socket
import sys
import threading
import time
import urllib.parse

from ui_session import Dashboard, Scratch, cpu_seconds, open_stream, percentile, read_events

# glibc's regcomp writes every x{m,n} out: a million atoms, gigabytes (issue 26 A4).
REGEX_BOMB = "((a{1,100}){1,100}){1,100}b"


def quoted(handle):
    return urllib.parse.quote(handle, safe="")


def check_sweep_json(dashboard, experiment_id):
    experiment = dashboard.get(f"/api/experiments/{experiment_id}")
    units = experiment["work_units"]
    assert len(units) == 6, units
    assert {tuple(sorted(unit["args"])) for unit in units} == {("batch_size", "lr")}, units
    combinations = {(str(u["args"]["lr"]), str(u["args"]["batch_size"])) for u in units}
    assert len(combinations) == 6, combinations
    assert all(len(unit["jobs"]) == 1 for unit in units), units
    listed = dashboard.get("/api/experiments")["experiments"]
    assert [e["id"] for e in listed] == [experiment_id] and listed[0]["work_units"] == 6, listed
    return units


def check_event_resume(dashboard, scratch, handles):
    """Events read in two connections, the second resuming with Last-Event-ID while new events
    are being recorded, are exactly the events one connection reads: no duplicate, no gap."""
    connection, first = open_stream(dashboard, "/api/events")
    before = read_events(first, limit=3)
    connection.close()
    assert len(before) == 3, before
    scratch.release_sweep()  # the sweep finishes while no one is connected: new state events
    dashboard.wait_for(lambda: all(
        dashboard.get("/api/app?handle=" + quoted(h))["state"] in ("SUCCEEDED", "FAILED")
        for h in handles), "the sweep to finish")
    connection, resumed = open_stream(dashboard, "/api/events", {"Last-Event-ID": before[-1][0]})
    after = read_events(resumed)
    connection.close()
    connection, whole = open_stream(dashboard, "/api/events")
    everything = read_events(whole)
    connection.close()
    ids = [int(event[0]) for event in before + after]
    assert len(ids) == len(set(ids)), f"duplicates: {ids}"
    assert ids == [int(event[0]) for event in everything], (ids, everything)
    kinds = [json.loads(event[2])["kind"] for event in after]
    assert "state" in kinds, f"no state change recorded after the reconnect: {kinds}"
    # `after` is the parameter form of the same resume.
    connection, by_parameter = open_stream(dashboard, f"/api/events?after={before[-1][0]}")
    assert read_events(by_parameter) == after
    connection.close()
    print(f"event resume: {len(before)} + {len(after)} events = {len(everything)}, no duplicate")


def check_bad_requests(dashboard, handle):
    bad = {
        "/api/app?handle=" + quoted("local_cwd://default/nosuchapp-0000"): 404,
        "/api/app?handle=" + quoted("local_cwd://default/../../../etc/passwd"): 404,
        "/api/app?handle=not-a-handle": 400,
        "/api/app": 400,
        "/api/app?handle=" + "x" * 600: 400,
        "/api/experiments/999": 404,
        "/api/experiments/abc": 404,
        "/api/experiments/99999999999999999999999": 404,
        "/api/logs?handle=" + quoted(handle) + "&regex=(": 400,
        "/api/logs?handle=" + quoted(handle) + "&replica=-1": 400,
        "/api/logs?handle=" + quoted(handle) + "&replica=abc": 400,
        "/api/logs?handle=" + quoted(handle) + "&tail=1e9": 400,
        "/api/logs?handle=" + quoted(handle) + "&stream=both": 400,
        "/api/logs?handle=" + quoted(handle) + "&follow=yes": 400,
        "/api/events?after=-5": 400,
        "/api/live?view=bogus": 400,
        "/api/live?view=app&handle=" + quoted("local_cwd://default/nosuchapp-0000"): 404,
        "/api/live?view=experiment&experiment=999": 404,
        "/api/live?view=home&limit=5000": 400,
        "/api/live?pane=" + quoted("handle=" + handle): 400,  # a pane without its id
        "/api/live?" + "&".join(["pane=" + quoted(f"id={i}&handle={handle}")
                                 for i in range(65)]): 400,
        "/api/metrics?handle=" + quoted("local_cwd://default/nosuchapp-0000"): 404,
        "/api/no-such-endpoint": 404,
        "/no/such/page": 404,
        "/assets/../../../etc/passwd": 404,
        "/assets/%2e%2e%2f%2e%2e%2fetc%2fpasswd": 404,
        "/..%2f..%2fetc/passwd": 404,
        "/etc/passwd": 404,
        "/api/app?" + "a=" + "b" * 20000: 414,
        "/api/apps?" + "&".join(f"k{i}=v" for i in range(3000)): 414,
    }
    for path, expected in bad.items():
        status, body = dashboard.request("GET", path)
        assert status == expected, f"GET {path[:80]}: {status}, expected {expected}: {body!r:.200}"
        assert 400 <= status < 500
    # Refused on its text (L-15) before regcomp, which took gigabytes and never answered.
    start = time.monotonic()
    status, body = dashboard.request("GET", "/api/logs?handle=" + quoted(handle) + "&regex="
                                     + quoted(REGEX_BOMB))
    assert status == 400 and "L-15" in body["error"], (status, body)
    assert time.monotonic() - start < 1, f"the regex took {time.monotonic() - start:.2f} s"
    status, _ = dashboard.request("GET", "/api/events", {"Last-Event-ID": "1; DROP TABLE"})
    assert status == 400, status
    status, body = dashboard.request("POST", "/api/cancel?handle=" + quoted(handle),
                                     {"X-Sortie-Token": dashboard.token})
    assert status == 403 and "--allow-writes" in body["error"], (status, body)
    # A request line far beyond any limit, and a connection that sends half a request and stops.
    with socket.create_connection(("127.0.0.1", dashboard.port)) as raw:
        raw.sendall(b"GET /" + b"a" * 1_000_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        assert raw.recv(64).split()[1].startswith(b"4"), "an enormous request line is not a 4xx"
    assert dashboard.get("/api/config")["allow_writes"] is False, "the server did not survive"
    print(f"bad requests: {len(bad) + 3} answered 4xx; the server still answers")


# A job that writes POINTS `loss` points to its metrics file: a falling curve with one spike
# (step 3333) and one dip (step 4444) that no thinning may lose.
CURVE_JOB = """import json, os
with open(os.environ["SORTIE_METRICS_FILE"], "a") as out:
    for step in range(5000):
        loss = {3333: 50.0, 4444: -50.0}.get(step, 1 / (1 + step))
        out.write(json.dumps({"step": step, "loss": loss}) + "\\n")
"""


def curve_points(document):
    [series] = [s for s in document["series"] if s["key"] == "loss"]
    assert series["count"] == 5000, series["count"]
    return series["points"]


def check_curves(dashboard, scratch):
    """A chart's curves come thinned to its width (at most 2 points a pixel, no peak lost), and
    a zoomed chart's steps come again in one request for all its apps."""
    handles = [scratch.sortie("run", "-s", "local_cwd", "--wait", "--", "python3", "-c",
                              CURVE_JOB).strip().splitlines()[-1] for _ in range(2)]
    metrics = "/api/metrics?key=loss&handle=" + quoted(handles[0])
    every = curve_points(dashboard.get(metrics))
    assert [p[1] for p in every] == list(range(5000)), "the whole curve"
    thin = curve_points(dashboard.get(metrics + "&width=100"))
    steps = [p[1] for p in thin]
    assert len(thin) <= 202 and steps == sorted(steps), steps
    assert {0, 3333, 4444, 4999} <= set(steps), f"first, spike, dip, last: {steps}"
    curves = dashboard.get("/api/curves?key=loss&width=100&from=1000&to=1999&" +
                           "&".join("handle=" + quoted(h) for h in handles))
    assert curves["schema"] == "sortie.ui.curves/1"
    assert [app["handle"] for app in curves["apps"]] == handles
    for app in curves["apps"]:
        zoomed = [p[1] for p in curve_points(app)]
        assert len(zoomed) <= 202 and zoomed[0] == 1000 and zoomed[-1] == 1999, zoomed
    wide = dashboard.get(f"/api/curves?key=loss&width=1000&from=1000&to=1999&handle="
                         f"{quoted(handles[0])}")
    assert [p[1] for p in curve_points(wide["apps"][0])] == list(range(1000, 2000))
    connection, response = open_stream(
        dashboard, f"/api/live?key=loss&width=100&metrics={quoted(handles[0])}")
    [(_, event, data)] = read_events(response, limit=1)
    connection.close()
    assert event == "curves", event
    [streamed] = json.loads(data)["apps"]
    assert [p[1] for p in curve_points(streamed)] == steps, "the stream's curve is thinned alike"
    for path in ("/api/curves?key=loss", f"/api/curves?width=0&handle={quoted(handles[0])}",
                 f"/api/metrics?width=5000&handle={quoted(handles[0])}",
                 f"/api/curves?from=10&to=9&handle={quoted(handles[0])}",
                 f"/api/live?metrics={quoted(handles[0])}&width=-1"):
        status, body = dashboard.request("GET", path)
        assert status == 400, f"GET {path}: {status} {body}"
    print(f"curves: 5000 points thinned to {len(thin)} for 100 px (spike and dip kept), a zoomed "
          "range of two apps in one request")


# The server's CPU time an idle sweep page's stream may cost over IDLE_S seconds: far above
# what it costs (0.04 s for 20 ended units, 0.1 s under a sanitizer's slowdown), far below what
# reading their curves and making the view again every second cost (0.57 s).
IDLE_S = 10
IDLE_CPU_S = 0.3


def check_idle_sweep_stream(prefix, scratch_dir):
    """A sweep page's stream whose units all ended reads their curves once, then costs the server
    next to nothing (its view and curves are not made again while nothing changes). In a store
    of its own, where no app runs: the server asks the schedulers of running apps for news."""
    scratch = Scratch(prefix, scratch_dir)
    dashboard = Dashboard(scratch)
    try:
        used = idle_sweep_stream_cpu(dashboard, scratch)
    finally:
        dashboard.stop()
    assert used < IDLE_CPU_S, f"an idle sweep page's stream cost {used:.2f} s of CPU in {IDLE_S} s"
    print(f"idle sweep page: {used:.2f} s of the server's CPU in {IDLE_S} s")


def idle_sweep_stream_cpu(dashboard, scratch):
    experiment_id = scratch.launch_measured_sweep(20, 2000)
    units = dashboard.get(f"/api/experiments/{experiment_id}")["work_units"]
    followed = "&".join("metrics=" + quoted(unit["jobs"][0]["handle"]) for unit in units)
    connection, response = open_stream(
        dashboard, f"/api/live?view=experiment&experiment={experiment_id}&key=loss&width=1000&"
        + followed, timeout=60)
    # Every curve in one event, then the view.
    first = read_events(response, limit=2)
    assert [event for _, event, _ in first] == ["curves", "view"], first
    assert len(json.loads(first[0][2])["apps"]) == 20
    before = cpu_seconds(dashboard.process.pid)
    time.sleep(IDLE_S)
    used = cpu_seconds(dashboard.process.pid) - before
    connection.close()
    return used


def check_host_guard(dashboard):
    """Only requests addressed to the server's own names with its port are answered, so a page
    whose own name rebinds to 127.0.0.1 (DNS rebinding) reads nothing."""
    port = dashboard.port
    refused = [f"127.attacker.example:{port}", f"127.0.0.1.evil:{port}", f"attacker.example:{port}",
               f"localhost.:{port}", f"127.0.0.2:{port}", f"127.0.0.1:{port - 1}", "127.0.0.1",
               f"[::1]:{port}.evil", ""]
    for host in refused:
        status, body = dashboard.request("GET", "/api/apps", {"Host": host})
        assert status == 403 and f"127.0.0.1:{port}" in body["error"], (host, status, body)
    accepted = [f"127.0.0.1:{port}", f"localhost:{port}", f"LocalHost:{port}", f"[::1]:{port}"]
    for host in accepted:
        status, body = dashboard.request("GET", "/api/apps", {"Host": host})
        assert status == 200, (host, status, body)
    print(f"Host: {len(refused)} other names refused (403), {len(accepted)} own names answered")


def check_secrets(dashboard, scratch):
    """The value of an app's secret env var is masked in every answer about the app, as `sortie
    describe` masks it: its definition, the apps list, the event stream, a log it printed it to,
    and an experiment whose sweep set it."""
    scratch.sortie("launch", str(scratch.root / "sweep" / "secret_sweep.yaml"))
    listed = json.loads(scratch.sortie("experiments", "list", "--json"))["experiments"]
    experiment_path = "/api/experiments/" + str(
        next(e["id"] for e in listed if e["title"] == "secret sweep"))
    experiment = dashboard.get(experiment_path)
    assert experiment["work_units"][0]["args"] == {"$API_TOKEN": "********"}, experiment
    handle = scratch.sortie("run", "-s", "local_cwd", "utils.sh", "--env", "API_TOKEN=s3cret",
                            "echo token=$API_TOKEN").strip()
    app_path = "/api/app?handle=" + quoted(handle)
    dashboard.wait_for(lambda: dashboard.get(app_path)["state"] == "SUCCEEDED",
                       "the app with a secret to succeed")
    app = dashboard.get(app_path)
    assert app["app"]["roles"][0]["env"]["API_TOKEN"] == "********", app["app"]
    connection, response = open_stream(dashboard, "/api/logs?handle=" + quoted(handle))
    log = read_events(response)
    connection.close()
    assert [json.loads(data)["text"] for _, kind, data in log if kind == "message"] == [
        "token=********"], log
    connection, response = open_stream(dashboard, "/api/events")
    events = read_events(response)
    connection.close()
    answers = {app_path: app, "/api/apps": dashboard.get("/api/apps"), "/api/logs": log,
               "/api/events": events, experiment_path: experiment}
    for path, answer in answers.items():
        assert "s3cret" not in json.dumps(answer), f"{path} shows the secret: {answer}"
    print(f"secrets: API_TOKEN masked in {', '.join(answers)}")


def check_write_token(dashboard, handle):
    """A cancel needs the token of the URL `sortie ui` printed (its fragment): none, a wrong one,
    or the header the page sent before tokens, is 403 and cancels nothing."""
    path = "/api/cancel?handle=" + quoted(handle)
    assert len(dashboard.token) == 64, f"no token in the printed URL {dashboard.printed_url}"
    wrong = ("1" if dashboard.token[0] == "0" else "0") + dashboard.token[1:]
    for headers in ({}, {"X-Sortie-UI": "cancel"}, {"X-Sortie-Token": wrong},
                    {"X-Sortie-Token": dashboard.token[:-1]},
                    {"X-Sortie-Token": dashboard.token,
                     "Host": f"127.attacker.example:{dashboard.port}"}):
        status, body = dashboard.request("POST", path, headers)
        assert status == 403, (headers, status, body)
        assert "X-Sortie-Token" in body["error"] or "Host" in headers, (headers, body)
    assert dashboard.get(path.replace("cancel", "app"))["state"] == "RUNNING"
    status, body = dashboard.request("POST", path, {"X-Sortie-Token": dashboard.token})
    assert status == 202 and body["cancel_requested"] == handle, (status, body)
    dashboard.wait_for(lambda: dashboard.get(path.replace("cancel", "app"))["state"] == "CANCELLED",
                       "the app cancelled with the token")
    print("write token: 5 cancels without the right token refused (403); with it, cancelled")


def check_annotations(read_only, writable, scratch, experiment_id):
    """Notes and tags written in the dashboard read back in the CLI and the other way round;
    a read-only dashboard, a missing token or a bad tag change nothing."""
    path = f"/api/annotations?id={experiment_id}&notes=" + quoted("lr 0.01 diverges") + \
        "&tag=" + quoted("+baseline") + "&tag=" + quoted("+broken") + "&tag=" + quoted("-broken")
    status, body = read_only.request("POST", path, {"X-Sortie-Token": read_only.token})
    assert status == 403 and "--allow-writes" in body["error"], (status, body)
    status, body = writable.request("POST", path, {})
    assert status == 403, (status, body)
    status, body = writable.request("POST", path.replace("baseline", "two%20words"),
                                    {"X-Sortie-Token": writable.token})
    assert status == 400 and "two words" in body["error"], (status, body)
    shown = json.loads(scratch.sortie("experiments", "show", str(experiment_id), "--json"))
    assert (shown["notes"], shown["tags"]) == ("", []), shown
    status, body = writable.request("POST", path, {"X-Sortie-Token": writable.token})
    assert status == 200 and body["tags"] == ["baseline"], (status, body)
    shown = json.loads(scratch.sortie("experiments", "show", str(experiment_id), "--json"))
    assert (shown["notes"], shown["tags"]) == ("lr 0.01 diverges", ["baseline"]), shown
    scratch.sortie("experiments", "note", str(experiment_id), "from the CLI")
    scratch.sortie("experiments", "tag", str(experiment_id), "+v2")
    experiment = read_only.get(f"/api/experiments/{experiment_id}")
    assert (experiment["notes"], experiment["tags"]) == ("from the CLI", ["baseline", "v2"])
    assert experiment["code"]["schema"] == "sortie.code_record/1", experiment["code"]
    listed = read_only.get("/api/experiments")["experiments"]
    assert next(e["tags"] for e in listed if e["id"] == experiment_id) == ["baseline", "v2"]
    print("annotations: dashboard writes read back in the CLI and the other way round; "
          "3 refused writes changed nothing")


def check_rerun(read_only, writable, scratch, experiment_id):
    """The failed work unit runs again as its next attempt from the dashboard, as `sortie
    experiments rerun ID --failed` runs it; a read-only dashboard refuses and runs nothing."""
    path = f"/api/rerun?id={experiment_id}&failed=1"
    status, body = read_only.request("POST", path, {"X-Sortie-Token": read_only.token})
    assert status == 403 and "--allow-writes" in body["error"], (status, body)
    status, body = writable.request("POST", path, {"X-Sortie-Token": writable.token})
    assert status == 202 and [(u["id"], u["attempt"]) for u in body["work_units"]] == [(6, 2)], \
        (status, body)
    shown = json.loads(scratch.sortie("experiments", "show", str(experiment_id), "--json"))
    assert [u["attempt"] for u in shown["work_units"]] == [1, 1, 1, 1, 1, 2], shown
    print("rerun: the failed unit ran again as attempt 2; the read-only dashboard refused (403)")


def follow(response, received):
    """Reads a log stream's events into `received` as they come, until it ends."""
    while True:
        try:
            events = read_events(response, limit=1)
        except (OSError, ValueError, AttributeError):
            return  # the test closed the connection
        if not events:
            return
        received.extend(events)


def check_six_viewers(dashboard, ticker):
    """Six viewers follow the ticker's log (plus the event stream each page opens, and one stalled
    connection that never finishes its request); the apps list still answers."""
    lines = [[] for _ in range(6)]
    streams = []
    for index in range(6):
        for path in (f"/api/logs?follow=1&handle={quoted(ticker)}", "/api/events"):
            connection, response = open_stream(dashboard, path, timeout=10)
            streams.append(connection)
            if path.startswith("/api/logs"):
                threading.Thread(target=follow, args=(response, lines[index]), daemon=True).start()
    stalled = socket.create_connection(("127.0.0.1", dashboard.port))
    stalled.sendall(b"GET /api/apps HTTP/1.1\r\n")
    latencies = []
    for _ in range(40):
        start = time.monotonic()
        apps = dashboard.get("/api/apps")["apps"]
        latencies.append(time.monotonic() - start)
        assert any(app["handle"] == ticker for app in apps)
        time.sleep(0.05)
    dashboard.wait_for(lambda: all(len(received) >= 20 for received in lines),
                       "every viewer to receive 20 log lines")
    stalled.close()
    for connection in streams:
        connection.close()
    print(f"6 viewers following logs: /api/apps answered {len(latencies)} times, "
          f"p50 {percentile(latencies, 0.5) * 1000:.1f} ms, p95 "
          f"{percentile(latencies, 0.95) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms")


def open_streams_from(dashboard, address, paths):
    """Opens a stream of each path from the loopback address `address`."""
    streams = []
    for path in paths:
        connection = http.client.HTTPConnection("127.0.0.1", dashboard.port, timeout=10,
                                                source_address=(address, 0))
        connection.request("GET", path)
        response = connection.getresponse()
        streams.append((connection, response))
    return streams


def check_many_streams(scratch, ticker):
    """70 event streams and 70 followed logs hold no request worker: the apps list still answers
    (it timed out with 64, issue 26 A5). Its own dashboard lets one client open them all (L-16
    raised to 140), since every loopback address is one client."""
    crowded = Dashboard(scratch, env={"SORTIE_LIMIT_UI_STREAMS_PER_CLIENT": "140"})
    try:
        paths = ["/api/events"] * 70 + [f"/api/logs?follow=1&handle={quoted(ticker)}"] * 70
        streams = []
        for client in range(5):
            streams += open_streams_from(crowded, f"127.0.0.{client + 2}", paths[client::5])
        assert [response.status for _, response in streams] == [200] * 140, \
            [response.status for _, response in streams]
        start = time.monotonic()
        status, body = crowded.request("GET", "/api/apps")  # the socket's timeout: 10 s
        took = time.monotonic() - start
        assert status == 200 and body["total"] >= 1, (status, body)
        assert took < 5, f"/api/apps took {took:.1f} s beside 140 streams"
        for connection, _ in streams:
            connection.close()
    finally:
        crowded.stop()
    print(f"140 streams open: /api/apps answered in {took * 1000:.1f} ms")


def check_streams_per_client(scratch):
    """Every loopback address is one client (L-16): 32 streams spread over 127.0.0.2 to .11 are
    all a local process gets, so it cannot take the 256 of L-17 from the others; the 33rd is
    refused with 429 naming the limit; one closed, the next is served."""
    dashboard = Dashboard(scratch)
    streams = []
    try:
        for index in range(32):
            streams += open_streams_from(dashboard, f"127.0.0.{index % 10 + 2}", ["/api/events"])
        streams += open_streams_from(dashboard, "127.0.0.11", ["/api/events"])
        statuses = [response.status for _, response in streams]
        assert statuses == [200] * 32 + [429], statuses
        refusal = json.loads(streams[-1][1].read())["error"]
        assert "loopback (127.0.0.11, one of its addresses)" in refusal and "L-16" in refusal \
            and "SORTIE_LIMIT_UI_STREAMS_PER_CLIENT" in refusal, refusal
        streams.pop(0)[0].close()
        dashboard.wait_for(lambda: open_streams_from(dashboard, "127.0.0.5", ["/api/events"])[0][1]
                           .status == 200, "a stream once another one of the client closed", 10)
    finally:
        for connection, _ in streams:
            connection.close()
        dashboard.stop()
    print("32 streams from 127.0.0.2 to .11: the 33rd refused (429), loopback being one client")


def check_pages(dashboard, experiment_id):
    """/api/apps and /api/experiments/ID in pages: every entry once, in the whole list's order;
    a bad limit or cursor is a 4xx."""
    whole = dashboard.get("/api/apps?limit=1000")
    handles = [app["handle"] for app in whole["apps"]]
    assert whole["total"] == len(handles) >= 7 and whole["next"] is None, whole
    paged, after = [], ""
    while True:
        page = dashboard.get("/api/apps?limit=3" + (f"&after={quoted(after)}" if after else ""))
        assert page["total"] == whole["total"] and len(page["apps"]) <= 3, page
        paged += [app["handle"] for app in page["apps"]]
        if page["next"] is None:
            break
        after = page["next"]
        assert after == paged[-1], page
    assert paged == handles, (paged, handles)
    first = dashboard.get(f"/api/experiments/{experiment_id}?limit=4")
    rest = dashboard.get(f"/api/experiments/{experiment_id}?limit=4&after={first['next']}")
    assert first["total"] == rest["total"] == 6 and rest["next"] is None, (first, rest)
    assert [u["id"] for u in first["work_units"] + rest["work_units"]] == [1, 2, 3, 4, 5, 6]
    bad = {"/api/apps?limit=0": 400, "/api/apps?limit=1001": 400, "/api/apps?limit=x": 400,
           "/api/apps?after=" + quoted("local_cwd://default/nosuchapp-0000"): 404,
           f"/api/experiments/{experiment_id}?after=-1": 400,
           f"/api/experiments/{experiment_id}?limit=100000": 400}
    for path, expected in bad.items():
        status, body = dashboard.request("GET", path)
        assert status == expected, (path, status, body)
    print(f"pages: {len(handles)} apps in pages of 3, 6 work units in pages of 4; "
          f"{len(bad)} bad pages refused")


def check_stop_with_a_stuck_worker(scratch, handle):
    """SIGTERM stops the dashboard within 1 s even while a worker compiles a huge regex (the
    limit raised so that it gets to regcomp), which no server stop interrupts."""
    stuck = Dashboard(scratch, env={"SORTIE_LIMIT_REGEX_ATOMS": "100000000"})
    with socket.create_connection(("127.0.0.1", stuck.port)) as raw:
        raw.sendall(f"GET /api/logs?handle={quoted(handle)}&regex={quoted(REGEX_BOMB)} HTTP/1.1\r\n"
                    f"Host: 127.0.0.1:{stuck.port}\r\n\r\n".encode())
        time.sleep(0.5)
        start = time.monotonic()
        stuck.process.terminate()
        try:
            status = stuck.process.wait(timeout=10)
        finally:
            stuck.process.kill()
    took = time.monotonic() - start
    assert status == 0 and took < 1, f"SIGTERM: exit {status} after {took:.2f} s"
    print(f"SIGTERM with a worker in regcomp: exit 0 after {took * 1000:.0f} ms")


def main(prefix, scratch_dir):
    scratch = Scratch(prefix, scratch_dir)
    experiment_id = scratch.launch_sweep()
    dashboard = Dashboard(scratch)
    cancelling = Dashboard(scratch, "--allow-writes")
    try:
        units = check_sweep_json(dashboard, experiment_id)
        handles = [unit["jobs"][0]["handle"] for unit in units]
        app = dashboard.get("/api/app?handle=" + quoted(handles[0]))
        assert app["roles"] and app["roles"][0]["replicas"], app
        assert [e["kind"] for e in app["events"]][0] == "submitted", app["events"]
        check_event_resume(dashboard, scratch, handles)
        failed = [u for u in dashboard.get(f"/api/experiments/{experiment_id}")["work_units"]
                  if u["state"] == "FAILED"]
        assert [(str(u["args"]["lr"]), str(u["args"]["batch_size"])) for u in failed] == [
            ("0.01", "32")], failed
        ticker = scratch.run_ticker(600)
        check_bad_requests(dashboard, ticker)
        check_stop_with_a_stuck_worker(scratch, ticker)
        check_host_guard(dashboard)
        check_curves(dashboard, scratch)
        check_secrets(dashboard, scratch)
        check_pages(dashboard, experiment_id)
        check_many_streams(scratch, ticker)
        check_streams_per_client(scratch)
        check_six_viewers(dashboard, ticker)
        logs = "/api/logs?handle=" + quoted(handles[0])
        connection, response = open_stream(dashboard, logs)
        events = read_events(response)
        assert events[-1][1] == "end" and "training with" in events[0][2], events
        connection.close()
        check_annotations(dashboard, cancelling, scratch, experiment_id)
        check_rerun(dashboard, cancelling, scratch, experiment_id)
        check_write_token(cancelling, ticker)
    finally:
        dashboard.stop()
        cancelling.stop()
    check_idle_sweep_stream(prefix, f"{scratch_dir}/idle")
    print("ui_http: all checks passed")


if __name__ == "__main__":
    main(*sys.argv[1:])
