"""The dashboard's chart with 100 units x 10,000 points (docs/benchmarks.md): a sweep of UNITS
local jobs, each writing POINTS `{"step", "loss"}` lines to its metrics file, read into the store
first (`sortie experiments show`); then, in headless Chromium, the sweep page opened three
times, each timed from the navigation to the chart drawn with every unit's curve (the page,
the curves thinned by the server to the chart's width, rows and draw), and the draw alone: the
first cold (a fresh browser and server process), the others warm. Nothing is asserted but that
it draws.

Usage: ui_chart_bench.py PREFIX SCRATCH_DIR [UNITS POINTS]   (Debian's python3)"""
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "ui"))
from ui_browser_test import dashboard_in_browser, require_chromium, wait_until  # noqa: E402
from ui_session import Scratch  # noqa: E402


def chart_drawn_ms(driver, url, units):
    """Opens `url` and waits for every unit's curve; ms from the navigation's start."""
    driver.get(url)
    return wait_until(driver, "const plot = document.querySelector('#chart-plot');"
                      f"return plot && plot.querySelector('canvas') && Number(plot.dataset.curves) "
                      f"=== {units} && [performance.now(), Number(plot.dataset.drawMs)]",
                      f"the chart's {units} curves", timeout=300)


def main(prefix, scratch_dir, units="100", points="10000"):
    require_chromium("ui_chart_bench")
    units, points = int(units), int(points)
    scratch = Scratch(prefix, scratch_dir)
    started = time.monotonic()
    experiment_id = scratch.launch_measured_sweep(units, points)
    print(f"{units} units x {points} points run and read into the store in "
          f"{time.monotonic() - started:.1f} s")
    with dashboard_in_browser(scratch) as (dashboard, driver):
        url = f"{dashboard.url}experiments/{experiment_id}?metric=loss"
        runs = [chart_drawn_ms(driver, url, units) for _ in range(3)]
        drawn = driver.execute_script("return Number(document.querySelector('#chart-plot')"
                                      ".dataset.points)")
    print(f"chart of {units} units x {points} points: drawn {runs[0][0]:.0f} ms after the "
          f"navigation (cold), then {runs[1][0]:.0f} and {runs[2][0]:.0f} ms (warm); its rows "
          f"and Dygraphs' draw {runs[0][1]:.0f}, {runs[1][1]:.0f} and {runs[2][1]:.0f} ms; "
          f"{drawn} points drawn")


if __name__ == "__main__":
    main(*sys.argv[1:])
