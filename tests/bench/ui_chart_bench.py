"""The dashboard's chart with 100 units x 10,000 points (docs/benchmarks.md): in headless
Chromium, on the page `sortie ui` serves (with the Dygraphs it embeds), the time from the
points in memory to the drawn chart: the rows built by step (chartRows) and Dygraphs' first
draw. Nothing is asserted but that it draws.

Usage: ui_chart_bench.py PREFIX SCRATCH_DIR [UNITS POINTS]   (Debian's python3)"""
import pathlib
import shutil
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "ui"))
from ui_browser_test import browser, require_chromium, wait_until  # noqa: E402
from ui_session import Dashboard, Scratch  # noqa: E402

# Builds the series as the page keeps them (a Map of index -> [step, value] per unit), then
# times what the chart does with them.
RENDER = """
const [units, points] = arguments;
const series = [];
for (let u = 0; u < units; ++u) {
  const map = new Map();
  for (let i = 0; i < points; ++i) map.set(i, [i, 1 / (1 + i * (u + 1) / 1000) + 0.01 * Math.sin(i)]);
  series.push(map);
}
const plot = document.createElement('div');
plot.style.width = '1200px'; plot.style.height = '400px';
document.body.append(plot);
const started = performance.now();
const rows = chartRows(series);
const built = performance.now();
const labels = ['step', ...series.map((_, u) => 'unit ' + (u + 1))];
new Dygraph(plot, rows, {labels, connectSeparatedPoints: true, legend: 'follow'});
const drawn = performance.now();
return [built - started, drawn - built, drawn - started, plot.querySelectorAll('canvas').length];
"""


def main(prefix, scratch_dir, units="100", points="10000"):
    require_chromium("ui_chart_bench")
    scratch = Scratch(prefix, scratch_dir)
    dashboard = Dashboard(scratch)
    driver = browser(scratch.root / "chromium")
    try:
        driver.set_script_timeout(120)
        driver.get(dashboard.url + "timeline")
        wait_until(driver, "return typeof Dygraph === 'function' && typeof chartRows === "
                   "'function'", "the page's chart code")
        runs = []
        for _ in range(3):
            rows_ms, draw_ms, total_ms, canvases = driver.execute_script(RENDER, int(units),
                                                                         int(points))
            assert canvases > 0, "nothing drawn"
            runs.append((rows_ms, draw_ms, total_ms))
            print(f"chart of {units} units x {points} points: rows {rows_ms:.0f} ms, "
                  f"Dygraphs' draw {draw_ms:.0f} ms, in all {total_ms:.0f} ms")
        best = min(runs, key=lambda run: run[2])
        print(f"ui_chart_bench: best of 3: {best[2]:.0f} ms (rows {best[0]:.0f}, draw "
              f"{best[1]:.0f})")
    finally:
        driver.quit()
        dashboard.stop()
        shutil.rmtree(scratch.root / "chromium", ignore_errors=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
