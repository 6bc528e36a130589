"""`sortie ui` in a real headless Chromium (Debian's chromium + chromium-driver, driven by
python3-selenium), against the installed sortie and a real local sweep: the sweep table, a unit
marked failed, a live log pane, cancel with the printed URL's token (refused without it), the
timeline, a phone-width layout; a screenshot of each
page is saved under SCRATCH_DIR/screenshots. The latencies are printed as the test's report.
Without Chromium the test is skipped (exit 77), except with CI=true, where it fails.

Usage: ui_browser_test.py PREFIX SCRATCH_DIR"""
import contextlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
import urllib.parse

from ui_session import FIXTURES, Dashboard, Scratch, percentile

CHROMIUM = "/usr/bin/chromium"
REPLICAS = 16
TABS = 6
CHROMEDRIVER = "/usr/bin/chromedriver"
LOG_LINES_MEASURED = 50

# Records, in the page, when each line reaches a log pane and when a failed row appears.
OBSERVER = """
window.seen = {lines: [], failedAt: null};
new MutationObserver(() => {
  const now = Date.now();
  if (window.seen.failedAt === null && document.querySelector('#sweep tr.state-FAILED'))
    window.seen.failedAt = now;
  for (const line of document.querySelectorAll('pre.log div:not([data-seen])')) {
    line.setAttribute('data-seen', '');
    const tick = line.textContent.match(/^tick (\\d+) ([\\d.]+)$/);
    if (tick) window.seen.lines.push([Number(tick[1]), now - Number(tick[2])]);
  }
}).observe(document.body, {childList: true, subtree: true});
"""


def browser(user_data_dir):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-quic", "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--window-size=1280,800",
                     f"--user-data-dir={user_data_dir}"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@contextlib.contextmanager
def dashboard_in_browser(scratch):
    """`sortie ui` on the scratch store and a fresh headless Chromium (the benchmarks')."""
    dashboard = Dashboard(scratch)
    driver = browser(scratch.root / "chromium")
    try:
        yield dashboard, driver
    finally:
        driver.quit()
        dashboard.stop()
        shutil.rmtree(scratch.root / "chromium", ignore_errors=True)


def wait_until(driver, script, what, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.02)
    shown = driver.execute_script("return document.body.innerText")[:500]
    console = [entry["message"] for entry in driver.get_log("browser")]
    raise AssertionError(f"timed out waiting for {what}; the page shows:\n{shown}\n"
                         f"console: {console}")


def load(driver, url):
    """Opens `url`, again when Chromium showed its error page for a network change (another
    program on the machine adding an interface, e.g. a container engine's bridge, aborts its
    requests)."""
    for _ in range(3):
        driver.get(url)
        if "ERR_NETWORK_CHANGED" not in driver.execute_script("return document.body.innerText"):
            return
    raise AssertionError(f"{url}: Chromium saw the network change three times")


def open_page(driver, url):
    load(driver, url)
    driver.execute_script(OBSERVER)


class Screenshots:
    def __init__(self, directory):
        self.directory = pathlib.Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def take(self, driver, name):
        path = self.directory / f"{name}.png"
        assert driver.save_screenshot(str(path)), f"no screenshot {path}"
        assert path.stat().st_size > 1000, f"{path} is empty"


def check_sweep_page(driver, dashboard, scratch, experiment_id, shots):
    open_page(driver, f"{dashboard.url}experiments/{experiment_id}")
    wait_until(driver, "return document.querySelectorAll('#sweep tbody tr').length === 6",
               "the sweep table's 6 rows")
    headers = driver.execute_script(
        "return [...document.querySelectorAll('#sweep th')].map(th => th.textContent)")
    # The state comes second, so a phone's width shows it.
    assert headers == ["unit", "state", "lr", "batch_size", "jobs"] or headers == [
        "unit", "state", "batch_size", "lr", "jobs"], headers
    # The units may still be starting on a loaded machine; the refresher records them RUNNING.
    wait_until(driver, "return [...document.querySelectorAll('#sweep tbody td.state')].every("
               "td => td.textContent === 'RUNNING')", "six RUNNING units")
    shots.take(driver, "sweep_running")
    scratch.release_sweep()
    wait_until(driver, "return window.seen.failedAt", "a failed row", timeout=30)
    failed_at_ms = scratch.failed_at_ns() / 1e6
    marked_ms = driver.execute_script("return window.seen.failedAt") - failed_at_ms
    wait_until(driver, "return document.querySelectorAll('#sweep tr.state-SUCCEEDED').length === 5",
               "the other five units to succeed")
    first = driver.execute_script(
        "const r = document.querySelector('#sweep tbody tr');"
        "return [...r.querySelectorAll('td')].map(td => td.textContent)")
    assert "FAILED" in first and "0.01" in first and "32" in first, f"failures first: {first}"
    shots.take(driver, "sweep")
    driver.find_element("css selector", "#sweep th[data-key=batch_size]").click()
    wait_until(driver, "return location.search.includes('sort=batch_size') && "
               "document.querySelector('#sweep th[data-key=batch_size].sorted-asc')",
               "the table sorted by batch_size, in a shareable URL")
    sizes = driver.execute_script(
        "const i = [...document.querySelectorAll('#sweep th')].findIndex("
        "  th => th.textContent === 'batch_size');"
        "return [...document.querySelectorAll('#sweep tbody tr')].map("
        "  r => Number(r.children[i].textContent))")
    assert sizes == sorted(sizes), sizes
    print(f"sweep: 6 rows, columns {headers}; the failed unit marked {marked_ms:.0f} ms after it "
          "failed")
    return marked_ms


def check_log_pane(driver, dashboard, ticker, shots):
    open_page(driver, f"{dashboard.url}app?handle={urllib.parse.quote(ticker, safe='')}")
    wait_until(driver, "return document.querySelector('pre.log div')", "a first log line")
    # Lines printed before the pane was connected came in its first read; measure the later ones.
    first_live = driver.execute_script("return Math.max(...window.seen.lines.map(l => l[0]))") + 5
    wait_until(driver, f"return window.seen.lines.filter(l => l[0] >= {first_live}).length >= "
               f"{LOG_LINES_MEASURED}", f"{LOG_LINES_MEASURED} live log lines", timeout=60)
    latencies = [latency for number, latency in driver.execute_script("return window.seen.lines")
                 if number >= first_live][:LOG_LINES_MEASURED]
    shots.take(driver, "app")
    p95 = percentile(latencies, 0.95)
    print(f"log pane: {len(latencies)} lines of a running replica appeared, latency p50 "
          f"{percentile(latencies, 0.5):.0f} ms, p95 {p95:.0f} ms, max {max(latencies):.0f} ms")
    return p95


def wait_for_alert(driver, what, timeout=30):
    from selenium.common.exceptions import NoAlertPresentException

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return driver.switch_to.alert
        except NoAlertPresentException:
            time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def click_script(selector):
    """Finds and clicks in one script, as the page may re-render between two WebDriver calls;
    the click comes after the script returned, so the question it asks does not stop it."""
    return (f"const b = document.querySelector('{selector}');"
            "if (b) setTimeout(() => b.click()); return b !== null")


def confirm_dialog(driver, question, accept=True):
    dialog = wait_for_alert(driver, f"the question {question!r}")
    assert question in dialog.text, dialog.text
    dialog.accept() if accept else dialog.dismiss()


def check_cancel(driver, read_only, cancelling, ticker, shots):
    page = f"app?handle={urllib.parse.quote(ticker, safe='')}"
    open_page(driver, read_only.url + page)
    wait_until(driver, "return document.querySelector('#app-state')", "the app's state")
    assert not driver.find_elements("css selector", "#cancel"), "a read-only page shows cancel"
    click_cancel = click_script("#cancel")
    # A tab that never opened the URL `sortie ui` printed has no token: its cancel is refused.
    open_page(driver, cancelling.url + page)
    wait_until(driver, click_cancel, "the cancel button")
    confirm_dialog(driver, "Cancel " + ticker)
    alert = wait_for_alert(driver, "the refused cancel's message")
    refusal = alert.text
    alert.accept()
    assert "X-Sortie-Token" in refusal, refusal
    assert driver.execute_script("return document.querySelector('#app-state').textContent") \
        != "CANCELLED"
    # The printed URL hands the tab its token, which leaves the address bar and stays for the
    # tab's next pages; the app page's cancel sends it.
    open_page(driver, cancelling.printed_url)
    wait_until(driver, "return location.hash === '' && "
               f"sessionStorage.getItem('sortie-ui-token') === '{cancelling.token}'",
               "the token taken from the URL")
    open_page(driver, cancelling.url + page)
    wait_until(driver, click_cancel, "the cancel button")
    # Dismissed, the question cancels nothing; accepted, it cancels.
    confirm_dialog(driver, "Cancel " + ticker, accept=False)
    assert driver.execute_script("return !document.querySelector('#cancel').disabled")
    wait_until(driver, click_cancel, "the cancel button")
    confirm_dialog(driver, "Cancel " + ticker)
    wait_until(driver, "return document.querySelector('#app-state').textContent === 'CANCELLED'",
               "the page to show the app cancelled")
    shots.take(driver, "app_cancelled")
    print("cancel: the read-only page has no button; with --allow-writes, a tab without the "
          "printed URL's token is refused, and one that opened it shows CANCELLED")


def app_page(dashboard, handle):
    return f"{dashboard.url}app?handle={urllib.parse.quote(handle, safe='')}"


def check_run_page(driver, dashboard, scratch, experiment_id, shots):
    """A unit's app page shows what it ran, when and where, and links back to its experiment."""
    shown = json.loads(scratch.sortie("experiments", "show", str(experiment_id), "--json"))
    unit = shown["work_units"][0]
    handle = unit["jobs"][0]["app"]
    open_page(driver, app_page(dashboard, handle))
    wait_until(driver, "return document.querySelector('#experiment-link') && "
               "document.querySelector('pre.log div')", "the run page and its log")
    link = driver.execute_script(
        "return document.querySelector('#experiment-link').getAttribute('href')")
    assert link == f"/experiments/{experiment_id}", link
    command = driver.execute_script("return document.querySelector('.field-command').textContent")
    assert "sweep_trainer.sh" in command and "--lr=" in command, command
    facts = driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#times dd')].map("
        "  dd => [dd.dataset.fact, dd.textContent]))")
    assert facts["submitted"] and facts["started"] and facts["duration"], facts
    # Where the unit writes: its output directory, the same as experiments show gives.
    assert facts["output dir"] == unit["output_dir"] != "", (facts, unit["output_dir"])
    replica = driver.execute_script(
        "return [...document.querySelectorAll('#replicas tbody td')].map(td => td.textContent)")
    assert replica[5].isdigit() and replica[6], f"pid and host: {replica}"
    env = driver.execute_script("return document.querySelector('.env-table').textContent")
    assert f"SORTIE_EXPERIMENT_ID{experiment_id}" in env, env
    status = driver.execute_script("return document.querySelector('.status-line').textContent")
    assert "PID namespace" not in status, f"the status line shows a scheduler's note: {status}"
    # Per-line timestamps on demand, outside the line's text.
    driver.execute_script("document.querySelector('input.timestamps').click()")
    stamp = wait_until(driver, "const d = document.querySelector('pre.log.show-time div');"
                       "return d && getComputedStyle(d, '::before').content", "timestamps shown")
    assert stamp.count(":") == 2, stamp
    shots.take(driver, "run_page")
    print(f"run page: command, times {facts}, pid/host, env, the link to experiment "
          f"{experiment_id} and timestamps ({stamp}) shown")


def check_not_found(driver, dashboard):
    for path in ("no/such/page", "experiments/999999"):
        open_page(driver, dashboard.url + path)
        wait_until(driver, "return document.querySelector('#not-found')", f"/{path}'s 404 page")
    print("404: an unknown page and an unknown experiment show the not-found page")


def experiment_titled(scratch, title):
    for experiment in json.loads(scratch.sortie("experiments", "list", "--json"))["experiments"]:
        if experiment["title"] == title:
            return experiment
    return None


def click_and_confirm(driver, selector, question):
    wait_until(driver, click_script(selector), selector)
    confirm_dialog(driver, question)


def check_growing_sweep(driver, cancelling, scratch, shots):
    """A unit added to a running sweep shows on its open page; a unit, then the experiment, are
    cancelled from it after a confirmation."""
    directory = scratch.root / "grow"
    shutil.copytree(FIXTURES, directory)
    launcher = subprocess.Popen(["sortie", "launch", str(directory / "growing_sweep.py")],
                                env=scratch.env, cwd=directory, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while (experiment := experiment_titled(scratch, "growing sweep")) is None or \
                experiment["work_units"] < 2:
            assert time.monotonic() < deadline, "the growing sweep did not launch"
            time.sleep(0.1)
        open_page(driver, f"{cancelling.url}experiments/{experiment['id']}")
        wait_until(driver, "return document.querySelectorAll('#sweep tbody tr').length === 2",
                   "the sweep's first two units")
        driver.execute_script(
            "window.seen.thirdAt = null; new MutationObserver(() => {"
            "  if (!window.seen.thirdAt && document.querySelector('#sweep tr[data-unit=\"3\"]'))"
            "    window.seen.thirdAt = Date.now(); }).observe(document.body, "
            "{childList: true, subtree: true})")
        (directory / "grow").touch()
        shown_at = wait_until(driver, "return window.seen.thirdAt", "the added unit's row")
        shown = json.loads(scratch.sortie("experiments", "show", str(experiment["id"]), "--json"))
        handle = shown["work_units"][2]["jobs"][0]["app"]
        submitted_ms = cancelling.get(f"/api/app?handle={urllib.parse.quote(handle)}")[
            "submitted_at"] / 1e6
        latency_ms = shown_at - submitted_ms
        click_and_confirm(driver, 'tr[data-unit="1"] button.cancel-unit',
                          f"Cancel work unit 1 of experiment {experiment['id']}")
        wait_until(driver, "return document.querySelector('#sweep tr[data-unit=\"1\"] td.state')"
                   ".textContent === 'CANCELLED'", "unit 1 cancelled")
        click_and_confirm(driver, "#cancel-experiment", f"experiment {experiment['id']}?")
        wait_until(driver, "return [...document.querySelectorAll('#sweep tbody td.state')].every("
                   "td => td.textContent === 'CANCELLED')", "every unit cancelled")
        shots.take(driver, "sweep_cancelled")
    finally:
        (directory / "release").touch()
        if launcher.poll() is None:
            launcher.wait(timeout=60)
    print(f"sweep: a unit added while the page was open showed {latency_ms:.0f} ms after its "
          "submission; a unit, then the experiment, cancelled after a confirmation")
    return latency_ms


# Records, in the page, how long after a job wrote its newest point the chart drew it.
CHART_OBSERVER = """
window.chartLags = [];
new MutationObserver(() => {
  const newest = Number(document.querySelector('#chart-plot').dataset.newest || 0);
  if (newest > (window.chartNewest || 0)) {
    window.chartNewest = newest;
    window.chartLags.push(Date.now() - newest);
  }
}).observe(document.querySelector('#chart-plot'), {attributes: true});
"""
CHART_LAGS_MEASURED = 20


def check_charts(driver, dashboard, scratch, shots):
    """A 3x2 sweep printing `step=N loss=X acc=Y`: the sweep table has loss and acc columns with
    the best marked, a sparkline per unit, the chart overlays the 6 curves and draws new points
    as they come, and the parallel coordinates draw a line per unit."""
    directory = scratch.root / "measured"
    shutil.copytree(FIXTURES, directory)
    scratch.sortie("launch", str(directory / "measured_sweep.yaml"))
    experiment = experiment_titled(scratch, "measured sweep")
    try:
        open_page(driver, f"{dashboard.url}experiments/{experiment['id']}?metric=loss")
        wait_until(driver, "return document.querySelectorAll('#sweep td.metric[data-metric=loss]')"
                   ".length === 6 && [...document.querySelectorAll('#sweep td.metric')].every("
                   "td => td.textContent !== '')", "loss and acc in every row", timeout=60)
        headers = driver.execute_script(
            "return [...document.querySelectorAll('#sweep th')].map(th => th.dataset.key)")
        assert "m:loss" in headers and "m:acc" in headers, headers
        for key, best_of in (("loss", min), ("acc", max)):
            values = driver.execute_script(
                f"return [...document.querySelectorAll('#sweep td[data-metric={key}]')].map("
                "td => [Number(td.textContent), td.classList.contains('best')])")
            marked = [value for value, best in values if best]
            assert len(marked) == 1, f"{key}: {values}"
            assert marked[0] == best_of(value for value, _ in values), f"{key}: {values}"
        wait_until(driver, "return document.querySelectorAll('#sweep svg.sparkline polyline')"
                   ".length === 6", "a sparkline per unit")
        wait_until(driver, "return document.querySelector('#chart-plot canvas') && "
                   "Number(document.querySelector('#chart-plot').dataset.points) > 0",
                   "the chart's curves")
        labels = driver.execute_script(
            "return [...document.querySelectorAll('#sweep input.chart-unit')].filter("
            "b => b.checked).length")
        assert labels == 6, f"{labels} units charted"
        wait_until(driver, "return document.querySelectorAll('#parallel polyline.unit-line')"
                   ".length === 6", "a line per unit in the parallel coordinates")
        driver.execute_script(CHART_OBSERVER)
        lags = wait_until(driver, "return window.chartLags.length >= "
                          f"{CHART_LAGS_MEASURED} && window.chartLags",
                          f"{CHART_LAGS_MEASURED} new points drawn", timeout=60)
        shots.take(driver, "sweep_metrics")
        for element, name in (("#sweep", "sweep_metrics_table"), ("#chart-plot", "chart"),
                              ("#parallel", "parallel")):
            shown = driver.find_element("css selector", element)
            driver.execute_script("arguments[0].scrollIntoView()", shown)
            shown.screenshot(str(shots.directory / f"{name}.png"))
        zoomed = check_chart_zoom(driver)
        # A unit taken off the chart leaves it.
        driver.execute_script("document.querySelector('#sweep input.chart-unit').click()")
        wait_until(driver, "return document.querySelector('#chart-status').textContent"
                   ".startsWith('5 units')", "the chart with 5 units")
    finally:
        (directory / "release").touch()
    print(f"charts: loss and acc columns, best marked, 6 sparklines, 6 curves, 6 parallel lines; "
          f"zoomed in to steps {zoomed[0]}, {zoomed[1]} points sent again; a new point drawn "
          f"after p50 {percentile(lags, 0.5):.0f} ms, p95 "
          f"{percentile(lags, 0.95):.0f} ms, max {max(lags):.0f} ms of its job writing it")
    return lags


def check_chart_zoom(driver):
    """A drag across the chart zooms in: the page's stream sends the curves again, of the steps
    shown only, and the chart draws them; a double click zooms out to every step again."""
    from selenium.webdriver.common.action_chains import ActionChains

    canvas = driver.find_elements("css selector", "#chart-plot canvas")[-1]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    width = canvas.size["width"]
    ActionChains(driver).move_to_element_with_offset(canvas, -width // 4, 0).click_and_hold() \
        .move_by_offset(width // 4, 0).release().perform()
    shown = wait_until(driver, "const plot = document.querySelector('#chart-plot');"
                       "return plot.dataset.range && [plot.dataset.range, "
                       "Number(plot.dataset.points)]", "the zoomed chart's curves")
    low, high = map(int, shown[0].split("-"))
    assert 0 < low < high and shown[1] > 0, shown
    ActionChains(driver).double_click(canvas).perform()
    wait_until(driver, "return document.querySelector('#chart-plot').dataset.range === ''",
               "the chart zoomed out")
    return shown


def pane_numbers(driver):
    """The number of the last line of each log pane of the page (0: none yet)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('pre.log')].map(p => Number("
        "  p.lastElementChild ? p.lastElementChild.dataset.n : 0))")


# Longer than any load seen on a loaded machine (3.1 s), far shorter than the minute a tab waited
# for a connection held by the pages it had left: a hang, not a slow load, fails the test.
TAB_HANG_S = 20


def browse_first(driver, dashboard, experiment_id, ticker):
    """Visits pages that each hold a live stream, one after the other in the same tab, as a
    viewer does before opening more tabs: left pages must let their connection go."""
    for url in (dashboard.url, f"{dashboard.url}experiments/{experiment_id}",
                app_page(dashboard, ticker), dashboard.url + "timeline",
                f"{dashboard.url}experiments/{experiment_id}", app_page(dashboard, ticker)):
        open_page(driver, url)
        wait_until(driver, "return document.getElementById('connection').dataset.state === "
                   "'live'", f"{url}'s live stream")


def check_six_tabs(driver, dashboard, scratch, shots):
    """Six tabs on a running 16-replica app, in a browser whose first tab had visited other
    dashboard pages: each loads every pane, and all stay live, which needs one connection per
    page and none held by the pages left (a browser opens six to a server)."""
    handle = scratch.sortie("run", "-s", "local_cwd", "--replicas", str(REPLICAS), "--",
                            "python3", str(scratch.root / "sweep" / "ticker.py"), "3000").strip()
    first_tab = driver.current_window_handle
    tabs, load_ms = [], []
    try:
        for index in range(TABS):
            if index:
                driver.switch_to.new_window("tab")
            tabs.append(driver.current_window_handle)
            started = time.monotonic()
            load(driver, app_page(dashboard, handle))
            wait_until(driver, f"return document.querySelectorAll('pre.log').length === {REPLICAS}"
                       " && [...document.querySelectorAll('pre.log')].every(p => p.firstChild)",
                       f"tab {index + 1}: a line in each of the {REPLICAS} panes (a tab waiting "
                       "for a connection that a page left still holds?)", timeout=TAB_HANG_S)
            load_ms.append((time.monotonic() - started) * 1000)
            if load_ms[-1] > 2000:
                # Which request waited, for the report (timing is not asserted: CI is loaded).
                print(f"tab {index + 1} took {load_ms[-1]:.0f} ms; its requests (sent, first "
                      "byte, ms): " + json.dumps(driver.execute_script(
                          "return performance.getEntriesByType('navigation').concat("
                          "performance.getEntriesByType('resource')).map(e => "
                          "[e.name.slice(-60), Math.round(e.requestStart), "
                          "Math.round(e.responseStart)])")))
        shots.take(driver, "six_tabs_app")
        # Every pane of every tab goes on receiving lines.
        seen = {}
        for tab in tabs:
            driver.switch_to.window(tab)
            seen[tab] = pane_numbers(driver)
        for tab in tabs:
            driver.switch_to.window(tab)
            wait_until(driver, "const last = " + json.dumps(seen[tab]) + ";"
                       "return [...document.querySelectorAll('pre.log')].every((p, i) => "
                       "  p.lastElementChild && Number(p.lastElementChild.dataset.n) > last[i])",
                       "every pane of every tab to stay live", timeout=60)
            assert driver.execute_script(
                "return document.getElementById('connection').textContent") == "live"
    finally:
        for tab in tabs:
            if tab != first_tab:
                driver.switch_to.window(tab)
                driver.close()
        driver.switch_to.window(first_tab)
        scratch.sortie("cancel", handle)
    print(f"six tabs on a {REPLICAS}-replica app: each showed a line in all {REPLICAS} panes "
          f"after {', '.join(f'{ms:.0f}' for ms in load_ms)} ms (max {max(load_ms):.0f} ms), "
          "and every pane of every tab stayed live")
    return load_ms


def check_dark_mode(driver, dashboard, experiment_id, shots):
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    try:
        open_page(driver, f"{dashboard.url}experiments/{experiment_id}")
        wait_until(driver, "return document.querySelector('#sweep tbody tr')", "the sweep table")
        background = driver.execute_script(
            "return getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number)")
        assert sum(background[:3]) < 150, f"the dark page's background is {background}"
        shots.take(driver, "sweep_dark")
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    print(f"dark mode: the page's background is rgb{tuple(background[:3])}")


def check_pages(driver, dashboard, experiment_id, shots):
    open_page(driver, dashboard.url)
    wait_until(driver, f"return document.querySelector('a[href=\"/experiments/{experiment_id}\"]')",
               "the experiments list")
    total = dashboard.get("/api/apps")["total"]
    wait_until(driver, f"return document.querySelectorAll('#apps tbody tr').length === {total}",
               "the apps list")
    shots.take(driver, "home")
    open_page(driver, dashboard.url + "timeline")
    wait_until(driver, "return document.querySelectorAll('#timeline tbody tr').length >= 14",
               "the timeline's events")
    shots.take(driver, "timeline")
    # The home page's tables filter and sort.
    open_page(driver, dashboard.url)
    wait_until(driver, f"return document.querySelectorAll('#apps tbody tr').length === {total}",
               "apps")
    driver.find_element("css selector", "#apps input.filter").send_keys("python3")
    wait_until(driver, "const rows = [...document.querySelectorAll('#apps tbody tr')];"
               f"return rows.length > 0 && rows.length < {total} && "
               "rows.every(r => r.textContent.includes('python3'))",
               "the apps filtered to the tickers")
    assert "aq=python3" in driver.current_url, driver.current_url
    open_page(driver, dashboard.url)
    wait_until(driver, click_script("#experiments th[data-key=id]"), "the experiments' id column")
    wait_until(driver, "return document.querySelector('#experiments th[data-key=id].sorted-asc')",
               "the experiments sorted by id")
    ids = driver.execute_script("return [...document.querySelectorAll('#experiments tbody tr')]"
                                ".map(r => Number(r.children[0].textContent))")
    assert ids == sorted(ids) and len(ids) >= 2, ids
    driver.set_window_size(400, 844)
    for name, path in (("phone_sweep", f"experiments/{experiment_id}"), ("phone_home", "")):
        open_page(driver, dashboard.url + path)
        wait_until(driver, "return document.querySelector('tbody tr')", f"{name}'s table")
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name}: the page is {overflow} px wider than a phone"
        # The state column is in view without scrolling sideways.
        right = driver.execute_script(
            "return document.querySelector('th[data-key=state]').getBoundingClientRect().right")
        width = driver.execute_script("return window.innerWidth")
        assert right <= width, f"{name}: the state column ends at {right} px of {width}"
        shots.take(driver, name)
    driver.set_window_size(1280, 800)
    print("pages: home (filtered, sorted), timeline and 400 px phone views, state column in view")


def require_chromium(test):
    """Skips `test` (exit 77) where Chromium is missing, except with CI=true, where it fails."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        message = f"{test}: needs {CHROMIUM} and {CHROMEDRIVER} (packaging/deps.sh test)"
        if os.environ.get("CI") == "true":
            sys.exit(message + ": missing on CI")
        print(message + "; skipped")
        sys.exit(77)


def main(prefix, scratch_dir):
    require_chromium("ui_browser")
    scratch = Scratch(prefix, scratch_dir)
    shots = Screenshots(scratch.root / "screenshots")
    experiment_id = scratch.launch_sweep()
    read_only = Dashboard(scratch)
    cancelling = Dashboard(scratch, "--allow-writes")
    driver = None
    try:
        driver = browser(scratch.root / "chromium")
        check_sweep_page(driver, read_only, scratch, experiment_id, shots)
        ticker = scratch.run_ticker(300)
        check_log_pane(driver, read_only, ticker, shots)
        check_run_page(driver, read_only, scratch, experiment_id, shots)
        check_cancel(driver, read_only, cancelling, ticker, shots)
        check_growing_sweep(driver, cancelling, scratch, shots)
        check_charts(driver, read_only, scratch, shots)
        browse_first(driver, read_only, experiment_id, ticker)
        check_six_tabs(driver, read_only, scratch, shots)
        check_dark_mode(driver, read_only, experiment_id, shots)
        check_not_found(driver, read_only)
        check_pages(driver, read_only, experiment_id, shots)
    finally:
        if driver is not None:
            driver.quit()
        scratch.release_sweep()
        read_only.stop()
        cancelling.stop()
        shutil.rmtree(scratch.root / "chromium", ignore_errors=True)
    print(f"ui_browser: all checks passed; screenshots in {shots.directory}")


if __name__ == "__main__":
    main(*sys.argv[1:])
