"""What an idle sweep page costs `sortie ui` (docs/benchmarks.md): the chart bench's sweep (UNITS
local jobs of POINTS measurements each, all ended), its page open in headless Chromium with its
chart drawn, then the server process's CPU time (utime + stime of /proc/PID/stat) over SECONDS.
Nothing is asserted but that the page draws.

Usage: ui_idle_cpu_bench.py PREFIX SCRATCH_DIR SECONDS [UNITS POINTS]   (Debian's python3)"""
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "ui"))
from ui_browser_test import dashboard_in_browser, require_chromium, wait_until  # noqa: E402
from ui_session import Scratch, cpu_seconds  # noqa: E402


def main(prefix, scratch_dir, seconds, units="100", points="10000"):
    require_chromium("ui_idle_cpu_bench")
    scratch = Scratch(prefix, scratch_dir)
    experiment_id = scratch.launch_measured_sweep(int(units), int(points))
    with dashboard_in_browser(scratch) as (dashboard, driver):
        driver.get(f"{dashboard.url}experiments/{experiment_id}?metric=loss")
        wait_until(driver, "return Number(document.querySelector('#chart-plot')?.dataset.curves)"
                   f" === {units}", "the chart", timeout=300)
        time.sleep(5)  # the page settled
        before, started = cpu_seconds(dashboard.process.pid), time.monotonic()
        time.sleep(float(seconds))
        used, elapsed = cpu_seconds(dashboard.process.pid) - before, time.monotonic() - started
    print(f"sortie ui with one idle sweep page ({units} units ended): {used:.2f} s of CPU in "
          f"{elapsed:.0f} s, {100 * used / elapsed:.1f}% of a core")


if __name__ == "__main__":
    main(*sys.argv[1:])
