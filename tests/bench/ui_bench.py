"""The dashboard with many apps (docs/benchmarks.md): the size and time of the apps list's first
page, and the CPU the 4 Hz status refresher takes while nobody asks anything.

Usage: ui_bench.py PREFIX SCRATCH_DIR [APPS]   (Debian's python3; APPS: 110000 by default)
The store is filled with SQL (APPS finished apps of one scheduler, like a long-used store), then
`sortie ui` serves it; nothing is asserted but that it answers."""
import http.client
import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import sys
import time


def fill_store(env, apps):
    # One real app creates the store with its schema.
    subprocess.run(["sortie", "run", "-s", "local_cwd", "--", "/bin/true"], env=env, check=True,
                   capture_output=True)
    appdef = json.dumps({"name": "bench", "roles": [{"name": "bench", "entrypoint": "/bin/true"}]})
    database = sqlite3.connect(pathlib.Path(env["SORTIE_STATE_DIR"]) / "sortie.db")
    database.executemany(
        "INSERT INTO apps (handle, scheduler, session, app_id, name, state, appdef_json, "
        "request_json, cfg_json, submitted_at, updated_at) VALUES (?, 'local_cwd', 'default', ?, "
        "'bench', 'SUCCEEDED', ?, '{}', '{}', ?, ?)",
        ((f"local_cwd://default/bench-{i:08d}", f"bench-{i:08d}", appdef,
          1_700_000_000_000_000_000 + i, 1_700_000_000_000_000_000 + i) for i in range(apps)))
    database.commit()
    database.close()


def cpu_seconds(pid):
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(prefix, scratch, apps="110000"):
    root = pathlib.Path(scratch)
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    env = {**os.environ, "PATH": f"{prefix}/bin:{os.environ['PATH']}",
           "SORTIE_STATE_DIR": str(root / "state"), "HOME": str(root / "home")}
    fill_store(env, int(apps))
    ui = subprocess.Popen(["sortie", "ui", "--port", "0"], env=env, stdout=subprocess.PIPE,
                          text=True)
    try:
        port = int(ui.stdout.readline().split()[3].split(":")[2].split("/")[0])
        time.sleep(1)
        before, start = cpu_seconds(ui.pid), time.monotonic()
        time.sleep(5)
        refresher = (cpu_seconds(ui.pid) - before) / (time.monotonic() - start)
        for path in ("/api/apps", "/api/apps?limit=1000"):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            start = time.monotonic()
            connection.request("GET", path)
            body = connection.getresponse().read()
            took = time.monotonic() - start
            connection.close()
            print(f"{apps} apps: GET {path}: {len(body)} bytes in {took * 1000:.1f} ms")
        print(f"{apps} apps: sortie ui idle (the 4 Hz refresher): {refresher * 100:.1f}% of a core")
    finally:
        ui.terminate()
        ui.wait(timeout=30)


if __name__ == "__main__":
    main(*sys.argv[1:])
