"""`sortie ui` in a real headless Chromium (Debian's chromium + chromium-driver, driven by
python3-selenium), against the installed sortie and a real local sweep: the sweep table, a unit
marked failed, a live log pane, cancel with the printed URL's token (refused without it), the
timeline, a phone-width layout; a screenshot of each
page is saved under SCRATCH_DIR/screenshots. The latencies are printed as the test's report.
Without Chromium the test is skipped (exit 77), except with CI=true, where it fails.

Usage: ui_browser_test.py PREFIX SCRATCH_DIR"""
import os
import pathlib
import shutil
import sys
import time
import urllib.parse

from ui_session import Dashboard, Scratch, percentile

CHROMIUM = "/usr/bin/chromium"
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


def open_page(driver, url):
    driver.get(url)
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
    assert headers == ["unit", "lr", "batch_size", "state", "jobs"] or headers == [
        "unit", "batch_size", "lr", "state", "jobs"], headers
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


def check_cancel(driver, read_only, cancelling, ticker, shots):
    page = f"app?handle={urllib.parse.quote(ticker, safe='')}"
    open_page(driver, read_only.url + page)
    wait_until(driver, "return document.querySelector('#app-state')", "the app's state")
    assert not driver.find_elements("css selector", "#cancel"), "a read-only page shows cancel"
    # Found and clicked in one script: the page may re-render between two WebDriver calls.
    click_cancel = "const b = document.querySelector('#cancel'); if (b) b.click(); return b"
    # A tab that never opened the URL `sortie ui` printed has no token: its cancel is refused.
    open_page(driver, cancelling.url + page)
    wait_until(driver, click_cancel, "the cancel button")
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
    wait_until(driver, "return document.querySelector('#app-state').textContent === 'CANCELLED'",
               "the page to show the app cancelled")
    shots.take(driver, "app_cancelled")
    print("cancel: the read-only page has no button; with --allow-writes, a tab without the "
          "printed URL's token is refused, and one that opened it shows CANCELLED")


def check_pages(driver, dashboard, experiment_id, shots):
    open_page(driver, dashboard.url)
    wait_until(driver, f"return document.querySelector('a[href=\"/experiments/{experiment_id}\"]')",
               "the experiments list")
    wait_until(driver, "return document.querySelectorAll('#apps tbody tr').length === 7",
               "the apps list")
    shots.take(driver, "home")
    open_page(driver, dashboard.url + "timeline")
    wait_until(driver, "return document.querySelectorAll('#timeline tbody tr').length >= 14",
               "the timeline's events")
    shots.take(driver, "timeline")
    driver.set_window_size(390, 844)
    for name, path in (("phone_sweep", f"experiments/{experiment_id}"), ("phone_home", "")):
        open_page(driver, dashboard.url + path)
        wait_until(driver, "return document.querySelector('tbody tr')", f"{name}'s table")
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name}: the page is {overflow} px wider than a phone"
        shots.take(driver, name)
    driver.set_window_size(1280, 800)
    print("pages: home, timeline and phone-width views rendered")


def main(prefix, scratch_dir):
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        message = f"ui_browser: needs {CHROMIUM} and {CHROMEDRIVER} (packaging/deps.sh test)"
        if os.environ.get("CI") == "true":
            sys.exit(message + ": missing on CI")
        print(message + "; skipped")
        sys.exit(77)
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
        check_cancel(driver, read_only, cancelling, ticker, shots)
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
