// The dashboard's pages, chosen by the URL's path so every view is a shareable link:
//   /                    experiments and apps      /experiments/ID   one experiment's sweep table
//   /app?handle=HANDLE   one run: its definition, replicas, logs     /timeline   the store's events
// Each page opens one live connection (/api/live) that carries all it shows live: its document,
// re-sent when the store records a change, and the lines of its log panes. A browser holds at
// most six connections to a server, so six tabs stay live and each still loads.
"use strict";

const TERMINAL = new Set(["SUCCEEDED", "FAILED", "CANCELLED"]);
// Failures first: the order a sweep's states are sorted in.
const ATTENTION = ["FAILED", "CANCELLED", "UNKNOWN", "RUNNING", "PENDING", "SUBMITTED",
  "UNSUBMITTED", "SUCCEEDED"];
const STATES = ["RUNNING", "PENDING", "SUBMITTED", "UNSUBMITTED", "SUCCEEDED", "FAILED",
  "CANCELLED", "UNKNOWN"];
const page = document.getElementById("page");
let config = { allow_writes: false };

// The token of the URL `sortie ui` printed (#token=...), which every write sends. It is kept for
// this tab, since links between pages drop the fragment, and taken out of the address bar, so a
// shared link carries no token.
const TOKEN_KEY = "sortie-ui-token";
function takeToken() {
  const given = location.hash.match(/^#token=([0-9a-f]+)$/);
  if (given) {
    sessionStorage.setItem(TOKEN_KEY, given[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) || "";
}
const token = takeToken();

// Replaces the children of `node`, leaving out the null ones (a control not shown).
function put(node, ...children) {
  node.replaceChildren(...children.filter((child) => child !== null && child !== undefined));
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

// A fetch that failed on the way (the network changed, the server restarted) is tried again a
// few times before the page shows the error; an HTTP error answer is shown at once.
async function getJson(url, attempts = 4) {
  let response;
  try {
    response = await fetch(url, { cache: "no-store" });
  } catch (error) {
    if (attempts <= 1) throw error;
    await new Promise((resolve) => setTimeout(resolve, 250));
    return getJson(url, attempts - 1);
  }
  const body = await response.json();
  if (!response.ok) throw Object.assign(new Error(body.error || response.statusText), { status: response.status });
  return body;
}

async function post(url, body) {
  const response = await fetch(url, { method: "POST", body, headers: { "X-Sortie-Token": token } });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

function stateCell(state) {
  return el("td", { class: "state state-" + state, text: state });
}

function time(ns) {
  return ns ? new Date(ns / 1e6).toLocaleString() : "";
}

function duration(ns) {
  if (ns === null || ns === undefined || ns < 0) return "";
  let s = Math.round(ns / 1e9);
  const parts = [];
  for (const [unit, size] of [["d", 86400], ["h", 3600], ["m", 60]]) {
    if (s >= size) { parts.push(Math.floor(s / size) + unit); s %= size; }
  }
  parts.push(s + "s");
  return parts.slice(0, 2).join(" ");
}

function appLink(handle) {
  return el("a", { href: "/app?handle=" + encodeURIComponent(handle), text: handle });
}

function showError(error) {
  put(page, el("p", { class: "error", text: String(error.message || error) }));
}

function renderNotFound(what) {
  document.title = "not found · sortie ui";
  put(page, el("section", { id: "not-found", class: "not-found" },
    el("h1", { text: "Not found" }),
    el("p", { text: what || "No page at " + location.pathname + "." }),
    el("p", {}, el("a", { href: "/", text: "Experiments and apps" }), " · ",
      el("a", { href: "/timeline", text: "Timeline" }))));
}

// The page's one live connection: what it carries is asked for in its query (docs/ui.md, "The
// live stream"). A log pane joins or changes by reconnecting with the lines it has (`after`), so
// no pane loses or repeats a line; a lost connection is opened again the same way.
class Live {
  constructor(query, handlers) {
    this.query = query;
    this.handlers = handlers;
    this.panes = new Map();  // id -> {query, received}
    this.lastEvent = Number(query.get("after") || 0);
    this.source = null;
    this.retry = null;
    this.opened = false;
    // A page left for another keeps its open requests while it sits in the back/forward cache,
    // each one of the browser's six connections to the server: a tab that had visited a few
    // pages starved the next one for a minute. So a hidden page lets its stream go, and takes
    // it again (with the lines its panes have) when it is shown from that cache.
    addEventListener("pagehide", () => {
      clearTimeout(this.retry);
      if (this.source) this.source.close();
      this.source = null;
    });
    addEventListener("pageshow", (event) => { if (event.persisted) this.connect(); });
  }

  setPane(id, query) {
    this.panes.set(id, { query, received: 0 });
    this.reconnectSoon();
  }

  set(name, value) {
    this.query.set(name, value);
    this.reconnectSoon();
  }

  // The apps whose measurements of `key` come as a `curves` event, then `metrics` events (a
  // chart's curves), thinned to the chart's `width`, only the steps of `range` ({from, to}) when
  // it is zoomed in (docs/ui.md, "Charts").
  followMetrics(handles, key, width, range) {
    const signature = (handles, key, from, to) => [...handles, key, from, to].join("\n");
    if (signature(this.query.getAll("metrics"), this.query.get("key"), this.query.get("from"),
      this.query.get("to")) === signature(handles, key, range ? String(range.from) : null,
      range ? String(range.to) : null)) return;
    this.query.delete("metrics");
    for (const handle of handles) this.query.append("metrics", handle);
    this.query.set("key", key);
    this.query.set("width", width);
    this.query.delete("from");
    this.query.delete("to");
    if (range) { this.query.set("from", range.from); this.query.set("to", range.to); }
    this.reconnectSoon();
  }

  reconnectSoon() {
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.connect(), 20);
  }

  url() {
    const query = new URLSearchParams(this.query);
    if (query.get("events") === "1") query.set("after", this.lastEvent);
    for (const [id, pane] of this.panes) {
      const spec = new URLSearchParams(pane.query);
      spec.set("id", id);
      spec.set("after", pane.received);
      query.append("pane", spec.toString());
    }
    return "/api/live?" + query;
  }

  connect() {
    clearTimeout(this.retry);
    if (this.source) this.source.close();
    const status = document.getElementById("connection");
    const url = this.url();
    const source = new EventSource(url);
    this.source = source;
    source.onopen = () => { this.opened = true; status.textContent = "live"; status.dataset.state = "live"; };
    source.onerror = () => {
      if (source !== this.source) return;
      source.close();
      status.textContent = "reconnecting…";
      status.dataset.state = "reconnecting";
      // A refused request (an unknown app, a bad filter) is not retried: its message is shown.
      fetch(url, { cache: "no-store" }).then(async (response) => {
        if (source !== this.source) return;
        if (response.status >= 400 && response.status < 500) {
          const body = await response.json();
          status.textContent = "stopped";
          (this.handlers.refused || showError)(Object.assign(new Error(body.error), { status: response.status }));
          return;
        }
        if (response.body) response.body.cancel();
        this.retry = setTimeout(() => this.connect(), 1000);
      }, () => { this.retry = setTimeout(() => this.connect(), 1000); });
    };
    const on = (name, handle) => source.addEventListener(name, (message) => {
      if (source === this.source) handle(JSON.parse(message.data), message);
    });
    on("view", (view) => this.handlers.view && this.handlers.view(view));
    on("app", (event) => {
      this.lastEvent = Math.max(this.lastEvent, event.id);
      if (this.handlers.app) this.handlers.app(event);
    });
    on("log", (line) => {
      const pane = this.panes.get(line.pane);
      if (!pane) return;
      pane.received = Math.max(pane.received, line.n);
      this.handlers.log(line);
    });
    on("metrics", (metrics) => this.handlers.metrics && this.handlers.metrics(metrics));
    // Every followed app's curve so far, in one event when the stream opens.
    on("curves", (curves) => this.handlers.curves && this.handlers.curves(curves));
    on("log_end", (end) => this.handlers.logEnd && this.handlers.logEnd(end));
    on("log_failed", (failure) => this.handlers.logFailed && this.handlers.logFailed(failure));
    on("failed", (failure) => showError(new Error(failure.error)));
  }
}

// A table that sorts by any column (a click on its header), filters by text and shows its rows
// a page at a time; `update` replaces its rows and keeps what the viewer chose.
class DataTable {
  constructor({ id, columns, pageSize = 50, filterable = true, state = {}, onState = null,
    rowAttributes = () => ({}), tiebreak = () => 0, extra = null }) {
    this.columns = columns;
    this.pageSize = pageSize;
    this.state = { sort: state.sort || null, dir: state.dir || "asc", filter: state.filter || "",
      page: 0, stateFilter: state.stateFilter || "" };
    this.onState = onState;
    this.rowAttributes = rowAttributes;
    this.tiebreak = tiebreak;
    this.rows = [];
    this.head = el("thead");
    this.body = el("tbody");
    this.pager = el("div", { class: "pager" });
    this.filter = el("input", { type: "search", class: "filter", placeholder: "filter",
      "aria-label": "filter", value: this.state.filter });
    this.filter.addEventListener("input", () => {
      this.state.filter = this.filter.value;
      this.state.page = 0;
      this.changed();
    });
    const controls = el("div", { class: "table-controls" }, filterable ? this.filter : null, extra);
    this.node = el("div", { class: "data-table", id },
      controls, el("div", { class: "scroll" }, el("table", {}, this.head, this.body)), this.pager);
  }

  changed() {
    if (this.onState) this.onState(this.state);
    this.render();
  }

  update(rows) {
    this.rows = rows;
    this.render();
  }

  sortBy(key) {
    this.state.dir = this.state.sort === key && this.state.dir === "asc" ? "desc" : "asc";
    this.state.sort = key;
    this.changed();
  }

  visible() {
    const words = this.state.filter.toLowerCase().split(/\s+/).filter(Boolean);
    const text = (row) => this.columns.map((column) => String(column.value(row) ?? "")).join(" ").toLowerCase();
    let rows = this.rows.filter((row) => words.every((word) => text(row).includes(word)));
    const column = this.columns.find((c) => c.key === this.state.sort);
    if (column) {
      const direction = this.state.dir === "desc" ? -1 : 1;
      const sortValue = column.sortValue || column.value;
      rows = [...rows].sort((a, b) => {
        const x = sortValue(a), y = sortValue(b);
        const missing = (x === undefined || x === null || x === "") - (y === undefined || y === null || y === "");
        if (missing) return missing;  // blanks last either way
        const numeric = typeof x === "number" || (!isNaN(Number(x)) && !isNaN(Number(y)));
        const order = numeric ? Number(x) - Number(y) : String(x).localeCompare(String(y));
        return direction * order || this.tiebreak(a, b);
      });
    } else {
      rows = [...rows].sort(this.tiebreak);
    }
    return rows;
  }

  render() {
    put(this.head, el("tr", {}, ...this.columns.map((column) => el("th", {
      class: (column.sortable === false ? "" : "sortable") + (this.state.sort === column.key ? " sorted-" + this.state.dir : "") +
        (column.class ? " " + column.class : ""),
      "data-key": column.key, text: column.label,
      onclick: column.sortable === false ? () => {} : () => this.sortBy(column.key) }))));
    const rows = this.visible();
    const pages = Math.max(1, Math.ceil(rows.length / this.pageSize));
    this.state.page = Math.min(this.state.page, pages - 1);
    const shown = rows.slice(this.state.page * this.pageSize, (this.state.page + 1) * this.pageSize);
    put(this.body, ...shown.map((row) => el("tr", this.rowAttributes(row),
      ...this.columns.map((column) => column.cell ? column.cell(row)
        : el("td", { class: column.class || "", text: String(column.value(row) ?? "") })))));
    const go = (delta) => () => { this.state.page += delta; this.render(); };
    put(this.pager, 
      pages > 1 ? el("button", { class: "plain prev", text: "‹ prev", onclick: go(-1) }) : null,
      el("span", { class: "muted", text: rows.length === this.rows.length
        ? (pages > 1 ? "page " + (this.state.page + 1) + " of " + pages + " · " : "") + rows.length + " shown"
        : rows.length + " of " + this.rows.length + " match" + (pages > 1 ? " · page " + (this.state.page + 1) + " of " + pages : "") }),
      pages > 1 ? el("button", { class: "plain next", text: "next ›", onclick: go(1) }) : null);
    if (pages > 1) {
      this.pager.querySelector(".prev").disabled = this.state.page === 0;
      this.pager.querySelector(".next").disabled = this.state.page === pages - 1;
    }
  }
}

// A confirmed write: asks first, then POSTs; the live view shows the result.
async function confirmedPost(question, url, button) {
  if (!confirm(question)) return;
  button.disabled = true;
  try {
    await post(url);
  } catch (error) {
    button.disabled = false;
    alert(error.message);
  }
}

const PAGE = 200;

// --- / : experiments and apps ---------------------------------------------------------------
function renderHome() {
  document.title = "sortie ui";
  const query = new URLSearchParams(location.search);
  const remember = (prefix) => (state) => {
    for (const [name, value] of [["sort", state.sort], ["dir", state.dir], ["q", state.filter], ["state", state.stateFilter]]) {
      if (value) query.set(prefix + name, value); else query.delete(prefix + name);
    }
    history.replaceState(null, "", location.pathname + (String(query) ? "?" + query : ""));
  };
  const stateOf = (prefix) => ({ sort: query.get(prefix + "sort"), dir: query.get(prefix + "dir"),
    filter: query.get(prefix + "q") || "", stateFilter: query.get(prefix + "state") || "" });
  const experiments = new DataTable({ id: "experiments", pageSize: 25, state: stateOf("e"), onState: remember("e"),
    tiebreak: (a, b) => b.id - a.id,
    columns: [
      { key: "id", label: "id", value: (e) => e.id,
        cell: (e) => el("td", {}, el("a", { href: "/experiments/" + e.id, text: String(e.id) })) },
      { key: "title", label: "title", value: (e) => e.title },
      { key: "states", label: "states", value: (e) => Object.entries(e.states).map(([s, n]) => n + " " + s).join(", "),
        sortValue: (e) => ATTENTION.findIndex((s) => e.states[s]) },
      { key: "units", label: "work units", value: (e) => e.work_units },
      { key: "created", label: "created", value: (e) => time(e.created_at), sortValue: (e) => e.created_at },
      { key: "tags", label: "tags", value: (e) => e.tags.join(", ") }] });
  const stateSelect = el("select", { id: "apps-state", "aria-label": "state" },
    el("option", { value: "", text: "any state" }), ...STATES.map((s) => el("option", { value: s, text: s })));
  const apps = new DataTable({ id: "apps", pageSize: 50, state: stateOf("a"), onState: remember("a"),
    extra: stateSelect, tiebreak: (a, b) => b.submitted_at - a.submitted_at,
    rowAttributes: (app) => ({ class: "state-" + app.state }),
    columns: [
      { key: "state", label: "state", value: (a) => a.state, sortValue: (a) => ATTENTION.indexOf(a.state), cell: (a) => stateCell(a.state) },
      { key: "handle", label: "handle", value: (a) => a.handle, cell: (a) => el("td", { class: "handle" }, appLink(a.handle)) },
      { key: "name", label: "name", value: (a) => a.name },
      { key: "submitted", label: "submitted", value: (a) => time(a.submitted_at), sortValue: (a) => a.submitted_at }] });
  stateSelect.value = apps.state.stateFilter;
  let allApps = [];
  const showApps = () => apps.update(allApps.filter((a) => !apps.state.stateFilter || a.state === apps.state.stateFilter));
  stateSelect.addEventListener("change", () => {
    apps.state.stateFilter = stateSelect.value;
    apps.state.page = 0;
    remember("a")(apps.state);
    showApps();
  });
  const appsNote = el("p", { class: "muted", id: "apps-total" });
  let more = null;
  let extraApps = [];  // pages past the live view's, loaded on demand
  const moreButton = el("button", { class: "plain more", text: "Load more apps" });
  put(page, el("h1", { text: "Experiments" }), experiments.node,
    el("h2", { text: "Apps" }), appsNote, apps.node, moreButton);
  moreButton.hidden = true;
  moreButton.onclick = async () => {
    moreButton.disabled = true;
    const answer = await getJson("/api/apps?limit=" + PAGE + "&after=" + encodeURIComponent(more));
    extraApps.push(...answer.apps);
    more = answer.next;
    moreButton.disabled = false;
    view(lastView);
  };
  let lastView = null;
  const view = (home) => {
    lastView = home;
    experiments.update(home.experiments.experiments);
    const live = home.apps.apps;
    const seen = new Set(live.map((a) => a.handle));
    allApps = [...live, ...extraApps.filter((a) => !seen.has(a.handle))];
    if (more === null && extraApps.length === 0) more = home.apps.next;
    appsNote.textContent = home.apps.total + " apps" + (allApps.length < home.apps.total ? ", " + allApps.length + " loaded" : "");
    moreButton.hidden = more === null;
    showApps();
  };
  new Live(new URLSearchParams({ view: "home", limit: PAGE }), { view }).connect();
}

// --- /experiments/ID : notes, tags, what it ran, and the sweep table --------------------------
// "git 1a2b3c4d5e6f on main, 2 files changed" out of the code record (docs/experiments.md XF-31).
function codeSummary(code) {
  if (!code) return "";
  const git = code.git;
  let text = "launched by: " + code.command.join(" ");
  if (!git) return text + " · not in a git work tree";
  if (git.error) return text + " · " + git.error;
  text += " · git " + (git.commit ? git.commit.slice(0, 12) : "(no commit yet)") +
    (git.branch ? " on " + git.branch : " (detached)");
  const changed = (git.diff.match(/^diff --git /gm) || []).length;
  if (changed) text += ", " + changed + (changed === 1 ? " file" : " files") + " changed";
  if (git.untracked.length) text += ", " + git.untracked.length + " untracked";
  return text + (changed || git.untracked.length ? "" : ", clean");
}

async function annotate(id, fields, status) {
  const query = new URLSearchParams({ id });
  for (const [name, value] of fields) query.append(name, value);
  try {
    await post("/api/annotations", query);
    status.textContent = "saved";
    status.className = "muted";
    return true;
  } catch (error) {
    status.textContent = error.message;
    status.className = "error";
    return false;
  }
}

// Notes and tags, editable behind --allow-writes; kept across the page's refreshes while edited.
let annotationsBox = null;
function annotations(experiment) {
  if (annotationsBox && annotationsBox.dataset.id === String(experiment.id) &&
      annotationsBox.contains(document.activeElement)) {
    return annotationsBox;
  }
  const tags = el("p", { id: "tags" }, ...experiment.tags.map((tag) => el("span", { class: "tag", text: tag })));
  const notes = el("p", { id: "notes", class: "notes", text: experiment.notes });
  annotationsBox = el("section", { id: "annotations", "data-id": String(experiment.id) }, tags, notes);
  if (config.allow_writes) {
    const status = el("span", { class: "muted" });
    const text = el("textarea", { id: "notes-input", rows: "3", "aria-label": "notes" });
    text.value = experiment.notes;
    const tagWords = el("input", { id: "tags-input", type: "text", "aria-label": "tags",
      placeholder: "+tag -tag" });
    const save = el("button", { id: "save-annotations", class: "plain", text: "Save",
      onclick: async () => {
        const fields = [["notes", text.value]];
        for (const word of tagWords.value.split(/\s+/).filter(Boolean)) fields.push(["tag", word]);
        if (await annotate(experiment.id, fields, status)) tagWords.value = "";
      } });
    annotationsBox.append(el("div", { class: "annotate" }, text,
      el("div", {}, tagWords, " ", save, " ", status)));
  }
  return annotationsBox;
}

function renderExperiment(id) {
  document.title = "experiment " + id + " · sortie ui";
  const query = new URLSearchParams(location.search);
  let unitsShown = PAGE;
  let code = null;  // the code record comes with the first page
  const heading = el("h1");
  const summary = el("p", { class: "muted", id: "summary" });
  const codeLine = el("p", { id: "code", class: "muted" });
  const annotationsSlot = el("div");
  const sweep = el("div", { id: "sweep" });
  const moreSlot = el("div");
  const charts = el("div");
  put(page, heading, summary, codeLine, annotationsSlot, sweep, moreSlot, charts);
  let table = null;
  let columnsKey = "";
  let chart = null;
  const live = new Live(new URLSearchParams({ view: "experiment", experiment: id, limit: unitsShown }), {
    refused: (error) => error.status === 404 ? renderNotFound(error.message) : showError(error),
    metrics: (metrics) => chart.addPoints(metrics),
    curves: (curves) => chart.addCurves(curves),
    view: (experiment) => {
      const hyperparameters = [];
      const keys = [];
      for (const unit of experiment.work_units) {
        for (const name of Object.keys(unit.args)) if (!hyperparameters.includes(name)) hyperparameters.push(name);
        for (const key of Object.keys(unit.measurements || {})) if (!keys.includes(key)) keys.push(key);
      }
      keys.sort();
      if (!chart) {
        chart = new MetricChart(query, live);
        put(charts, chart.node);
      }
      chart.update(experiment.work_units, keys, hyperparameters);
      const key = hyperparameters.join("\u0000") + "\u0001" + keys.join("\u0000");
      if (!table || key !== columnsKey) {
        columnsKey = key;
        table = sweepTable(experiment.id, hyperparameters, keys, query, chart);
        put(sweep, table.node);
        chart.keySelect.addEventListener("change", () => table.update(table.rows));
      }
      table.update(experiment.work_units);
      if (experiment.code) code = experiment.code;
      const units = experiment.work_units;
      const failed = units.filter((unit) => unit.state === "FAILED").length;
      const active = units.filter((unit) => !TERMINAL.has(unit.state) && unit.jobs.length > 0).length;
      put(heading, experiment.title + " (experiment " + experiment.id + ")", " ",
        config.allow_writes && failed > 0 ? el("button", { id: "rerun-failed", text: "Re-run " + failed + " failed",
          onclick: (event) => confirmedPost("Re-run the " + failed + " failed work units of experiment " + id + "?",
            "/api/rerun?" + new URLSearchParams({ id, failed: 1 }), event.target) }) : null, " ",
        config.allow_writes && active > 0 ? el("button", { id: "cancel-experiment", text: "Cancel experiment",
          onclick: (event) => confirmedPost("Cancel the " + active + " running work units of experiment " + id + "?",
            "/api/cancel?" + new URLSearchParams({ experiment: id }), event.target) }) : null);
      summary.textContent = experiment.total + " work units, " + failed + " failed" +
        (units.length < experiment.total ? " of the " + units.length + " shown" : "") + " · " + experiment.launch_dir;
      codeLine.textContent = codeSummary(code);
      put(annotationsSlot, annotations(experiment));
      put(moreSlot, units.length < experiment.total && unitsShown < 1000
        ? el("button", { class: "more", text: "Load more (" + units.length + " of " + experiment.total + " shown)",
          onclick: () => { unitsShown = Math.min(1000, unitsShown + PAGE); live.set("limit", unitsShown); } })
        : null);
    } });
  // The first view by a request, so that the stream opens once, following the charted units'
  // measurements from the start (see renderApp).
  getJson("/api/experiments/" + id + "?limit=" + unitsShown).then((experiment) => {
    live.handlers.view(experiment);
    live.connect();
  }, (error) => error.status === 404 ? renderNotFound(error.message) : showError(error));
}

// Which way a key improves: down for losses, errors and times, up for the rest (accuracy, ...).
function lowerIsBetter(key) {
  return /loss|err|perplex|mse|mae|rmse|time|latency|nll|wer|cer/i.test(key);
}

function formatNumber(value) {
  if (value === undefined || value === null) return "";
  const magnitude = Math.abs(value);
  return magnitude !== 0 && (magnitude >= 1e6 || magnitude < 1e-3) ? value.toExponential(3)
    : String(Number(value.toPrecision(5)));
}

// The unit's value of `key` as the table shows it: its last, or its best (least or greatest).
function metricValue(unit, key, show) {
  const measured = unit.measurements && unit.measurements[key];
  if (!measured) return undefined;
  if (show === "last") return measured.last;
  return lowerIsBetter(key) ? measured.min : measured.max;
}

function sparkline(values) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "sparkline");
  svg.setAttribute("viewBox", "0 0 80 20");
  if (!values || values.length < 2) return svg;
  const low = Math.min(...values), high = Math.max(...values);
  const y = (v) => high === low ? 10 : 18 - 16 * (v - low) / (high - low);
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", values.map((v, i) => (80 * i / (values.length - 1)).toFixed(1) + "," + y(v).toFixed(1)).join(" "));
  svg.append(line);
  return svg;
}

function sweepTable(id, hyperparameters, keys, query, chart) {
  const rank = (unit) => ATTENTION.indexOf(unit.state);
  const show = () => query.get("show") || "last";
  const metric = () => chart.key();
  const columns = [
    { key: "unit", label: "unit", value: (u) => u.id },
    { key: "state", label: "state", value: (u) => u.state, sortValue: rank, cell: (u) => stateCell(u.state) },
    ...hyperparameters.map((name) => ({ key: name, label: name, class: "arg", value: (u) => u.args[name] })),
    ...keys.map((key) => ({ key: "m:" + key, label: key + (lowerIsBetter(key) ? " ↓" : " ↑"), class: "metric",
      value: (u) => metricValue(u, key, show()),
      cell: (u) => el("td", { class: "metric" + (table.best[key] === u.id ? " best" : ""), "data-metric": key,
        text: formatNumber(metricValue(u, key, show())) }) })),
    ...(keys.length === 0 ? [] : [{ key: "curve", label: "curve", sortable: false, value: () => "",
      cell: (u) => el("td", { class: "curve" }, sparkline(u.measurements && u.measurements[metric()] ? u.measurements[metric()].spark : null)) },
    { key: "chart", label: "chart", sortable: false, value: () => "",
      cell: (u) => {
        const box = el("input", { type: "checkbox", class: "chart-unit", "aria-label": "chart unit " + u.id,
          onchange: () => chart.select(u.id, box.checked) });
        box.checked = chart.selected(u.id);
        return el("td", {}, box);
      } }]),
    { key: "jobs", label: "jobs", sortable: false, value: (u) => u.jobs.map((j) => j.name).join(" "),
      cell: (u) => el("td", {}, ...u.jobs.map((job) => el("a", {
        href: "/app?handle=" + encodeURIComponent(job.handle), class: "job state-" + job.state,
        title: job.handle, text: job.name + " " }))) }];
  if (config.allow_writes) {
    columns.push({ key: "actions", label: "", sortable: false, value: () => "",
      cell: (u) => el("td", {}, !TERMINAL.has(u.state) && u.jobs.length > 0
        ? el("button", { class: "cancel-unit", text: "Cancel", onclick: (event) => confirmedPost(
          "Cancel work unit " + u.id + " of experiment " + id + "?",
          "/api/cancel?" + new URLSearchParams({ experiment: id, unit: u.id }), event.target) })
        : null) });
  }
  const showSelect = keys.length ? el("select", { id: "metric-show", "aria-label": "metric values" },
    el("option", { value: "last", text: "last values" }), el("option", { value: "best", text: "best values" })) : null;
  const table = new DataTable({ id: "sweep-table", columns, pageSize: 1000, filterable: true, extra: showSelect,
    state: { sort: query.get("sort") || "state", dir: query.get("dir") || "asc" },
    onState: (state) => {
      query.set("sort", state.sort);
      query.set("dir", state.dir);
      history.replaceState(null, "", "?" + query);
    },
    rowAttributes: (u) => ({ class: "state-" + u.state, "data-unit": u.id }),
    tiebreak: (a, b) => rank(a) - rank(b) || a.id - b.id });
  table.best = {};
  const update = table.update.bind(table);
  // The best unit of each key, marked in its column.
  table.update = (units) => {
    for (const key of keys) {
      let best = null;
      for (const unit of units) {
        const value = metricValue(unit, key, show());
        if (value === undefined) continue;
        if (best === null || (lowerIsBetter(key) ? value < best.value : value > best.value)) best = { id: unit.id, value };
      }
      table.best[key] = best ? best.id : null;
    }
    update(units);
  };
  if (showSelect) {
    showSelect.value = show();
    showSelect.addEventListener("change", () => {
      query.set("show", showSelect.value);
      history.replaceState(null, "", "?" + query);
      table.update(table.rows);
    });
  }
  return table;
}

// The chart of one key against step for the selected units, drawn by Dygraphs (Debian's
// libjs-dygraphs, embedded), its points coming live through the page's stream.
class MetricChart {
  constructor(query, live) {
    this.query = query;
    this.live = live;
    this.units = [];
    this.points = new Map();  // handle -> Map(index -> [step, value]) of the key's series
    this.picked = query.get("units") ? new Set(query.get("units").split(",").map(Number)) : null;
    this.keySelect = el("select", { id: "chart-key", "aria-label": "chart metric" });
    this.keySelect.addEventListener("change", () => {
      query.set("metric", this.keySelect.value);
      history.replaceState(null, "", "?" + query);
      this.points.clear();
      this.changed();
    });
    this.plot = el("div", { id: "chart-plot", class: "chart-plot" });
    this.status = el("span", { class: "muted", id: "chart-status" });
    this.parallel = el("div", { id: "parallel", class: "parallel" });
    this.node = el("section", { id: "charts" },
      el("h2", { text: "Curves" }),
      el("div", { class: "table-controls" }, el("label", {}, "metric ", this.keySelect), this.status),
      // Dygraphs wants its div without padding: the frame is around it.
      el("div", { class: "chart-box" }, this.plot),
      el("h2", { text: "Hyperparameters against the metric" }), this.parallel);
    this.graph = null;
    this.redraw = null;
    this.range = null;  // the steps shown when zoomed in
  }

  key() { return this.keySelect.value || ""; }

  // The plot's width in pixels: the server sends at most two points of a curve per pixel.
  width() { return Math.min(4096, Math.max(100, Math.round(this.plot.clientWidth || 1000))); }

  selected(id) { return this.picked === null ? this.units.slice(0, 100).some((u) => u.id === id) : this.picked.has(id); }

  select(id, on) {
    if (this.picked === null) this.picked = new Set(this.units.slice(0, 100).map((u) => u.id));
    if (on) this.picked.add(id); else this.picked.delete(id);
    this.query.set("units", [...this.picked].join(","));
    history.replaceState(null, "", "?" + this.query);
    this.changed();
  }

  update(units, keys, hyperparameters) {
    this.units = units;
    this.hyperparameters = hyperparameters;
    const wanted = this.query.get("metric");
    const current = this.key() || (keys.includes(wanted) ? wanted : keys.find((k) => lowerIsBetter(k)) || keys[0] || "");
    put(this.keySelect, ...keys.map((k) => el("option", { value: k, text: k })));
    this.keySelect.value = current;
    this.node.hidden = keys.length === 0;
    this.changed();
  }

  chosen() {
    const key = this.key();
    return this.units.filter((u) => this.selected(u.id) && u.measurements && u.measurements[key]);
  }

  changed() {
    const key = this.key();
    const units = this.chosen();
    this.live.followMetrics(units.map((u) => u.measurements[key].handle), key, this.width(), this.range);
    this.drawSoon();
    drawParallel(this.parallel, this.units, this.hyperparameters || [], key);
  }

  // All the curves so far (sortie.ui.curves/1), in place of those drawn, drawn at once.
  addCurves(curves) {
    this.points = new Map();
    for (const metrics of curves.apps) this.addPoints(metrics);
    this.plot.dataset.range = this.range ? this.range.from + "-" + this.range.to : "";
    clearTimeout(this.redraw);
    this.waiting = null;
    this.draw();
  }

  addPoints(metrics) {
    const key = this.key();
    for (const series of metrics.series) {
      if (series.key !== key || !this.isCharted(metrics.handle, series)) continue;
      if (!this.points.has(metrics.handle)) this.points.set(metrics.handle, new Map());
      const points = this.points.get(metrics.handle);
      for (const [index, step, value, at] of series.points) {
        points.set(index, [step, value]);
        this.newest = Math.max(this.newest || 0, at);
      }
    }
    this.drawSoon();
  }

  // Zoomed in, the page's stream sends the curves again, of the steps shown only, thinned to
  // the chart's width: every stored point shows when zoomed in far enough. Zoomed out, all.
  zoom(from, to) {
    this.range = this.graph.isZoomed("x") ? { from: Math.floor(from), to: Math.ceil(to) } : null;
    this.changed();
  }

  // Whether `series` of the app `handle` is the one the chart draws for its unit (the table's).
  isCharted(handle, series) {
    const key = this.key();
    const unit = this.units.find((u) => u.measurements && u.measurements[key] &&
      u.measurements[key].handle === handle);
    const wanted = unit ? unit.measurements[key] : null;
    return !wanted || (series.role === wanted.role && series.replica === wanted.replica &&
      series.rank === wanted.rank);
  }

  // Draws once the points stop coming for 100 ms (a stream sends a burst of curves, one event an
  // app), or 500 ms after the first that waits: one draw of a hundred curves, not one per curve.
  drawSoon() {
    clearTimeout(this.redraw);
    this.waiting = this.waiting || performance.now();
    const wait = Math.min(100, Math.max(0, this.waiting + 500 - performance.now()));
    this.redraw = setTimeout(() => { this.waiting = null; this.draw(); }, wait);
  }

  draw() {
    const started = performance.now();
    const key = this.key();
    const units = this.chosen();
    const handles = units.map((u) => u.measurements[key].handle);
    const rows = chartRows(handles.map((handle) => this.points.get(handle) || new Map()), this.width());
    this.status.textContent = units.length + " units, " + rows.length + " steps";
    this.plot.dataset.points = String(handles.reduce((n, h) => n + (this.points.get(h) || new Map()).size, 0));
    this.plot.dataset.curves = String(handles.filter((h) => this.points.has(h)).length);
    if (rows.length === 0) {
      if (this.graph) { this.graph.destroy(); this.graph = null; }
      put(this.plot, el("p", { class: "muted", text: "No points yet." }));
      return;
    }
    const labels = ["step", ...units.map((u) => "unit " + u.id)];
    if (this.graph && this.graph.getLabels().join() === labels.join()) {
      this.graph.updateOptions({ file: rows });
    } else {
      if (this.graph) this.graph.destroy();
      this.plot.replaceChildren();
      this.graph = new Dygraph(this.plot, rows, { labels, xlabel: "step", ylabel: key,
        connectSeparatedPoints: true, legend: "follow", strokeWidth: 1.5, animatedZooms: false,
        highlightSeriesOpts: { strokeWidth: 2.5 },
        zoomCallback: (from, to) => this.zoom(from, to) });
    }
    // When the newest point drawn was written (ms): how far the chart lags its job.
    this.plot.dataset.newest = String(this.newest || 0);
    // How long the rows and Dygraphs' drawing took (the benchmark reads it).
    this.plot.dataset.drawMs = String(Math.round(performance.now() - started));
  }
}

// Dygraphs' rows ([step, value of each series or null]) from each series' points (a Map of
// index -> [step, value], in index order), by step, at most two rows per pixel of a chart
// `width` pixels wide: with more steps than that, the steps are cut into `width` equal ranges,
// and of each series' points in a range its least and its greatest (in their order) are drawn at
// the range's first and last step of any series. So all series share those rows (Dygraphs draws
// a row per step shown), a point moves by less than a pixel, and no peak or dip is lost.
function chartRows(series, width) {
  const curves = series.map((points) => [...points.values()]);
  let low = Infinity, high = -Infinity;
  const steps = new Set();
  for (const curve of curves) {
    for (const [step] of curve) {
      steps.add(step);
      if (step < low) low = step;
      if (step > high) high = step;
    }
  }
  const byStep = new Map();
  const put = (step, column, value) => {
    let row = byStep.get(step);
    if (!row) { row = new Array(series.length + 1).fill(null); row[0] = step; byStep.set(step, row); }
    row[column + 1] = value;
  };
  if (steps.size <= 2 * width) {
    curves.forEach((curve, column) => { for (const [step, value] of curve) put(step, column, value); });
    return [...byStep.values()].sort((a, b) => a[0] - b[0]);
  }
  const range = (step) => Math.min(width - 1, Math.floor((step - low) * width / (high - low + 1)));
  const first = new Array(width).fill(Infinity), last = new Array(width).fill(-Infinity);
  // Per series, per range: the positions of its least and greatest point.
  const extremes = curves.map((curve) => {
    const least = new Int32Array(width).fill(-1), greatest = new Int32Array(width).fill(-1);
    curve.forEach(([step, value], i) => {
      const r = range(step);
      if (least[r] < 0 || value < curve[least[r]][1]) least[r] = i;
      if (greatest[r] < 0 || value > curve[greatest[r]][1]) greatest[r] = i;
      if (step < first[r]) first[r] = step;
      if (step > last[r]) last[r] = step;
    });
    return [least, greatest];
  });
  curves.forEach((curve, column) => {
    const [least, greatest] = extremes[column];
    for (let r = 0; r < width; ++r) {
      if (least[r] < 0) continue;
      const earlier = Math.min(least[r], greatest[r]), later = Math.max(least[r], greatest[r]);
      put(first[r], column, curve[earlier][1]);
      if (later !== earlier) put(last[r], column, curve[later][1]);
    }
  });
  return [...byStep.values()].sort((a, b) => a[0] - b[0]);
}

// Parallel coordinates: an axis per hyperparameter and one for the metric's value (the table's
// last), a line per unit coloured by that value (best blue, worst red).
function drawParallel(target, units, hyperparameters, key) {
  const ns = "http://www.w3.org/2000/svg";
  const measured = units.filter((u) => u.measurements && u.measurements[key]);
  if (!key || measured.length === 0) { target.replaceChildren(); return; }
  const axes = [...hyperparameters.map((name) => ({ name, value: (u) => u.args[name] })),
    { name: key, value: (u) => u.measurements[key].last, metric: true }];
  const width = Math.max(360, 140 * axes.length), height = 260, top = 28, bottom = 24;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 " + width + " " + height);
  svg.setAttribute("class", "parallel-svg");
  const make = (tag, attributes, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  const x = (i) => 60 + i * (width - 120) / Math.max(1, axes.length - 1);
  const scales = axes.map((axis) => {
    const values = measured.map(axis.value);
    const numeric = values.every((v) => v !== undefined && v !== "" && !isNaN(Number(v)));
    if (numeric) {
      const numbers = values.map(Number);
      let low = Math.min(...numbers), high = Math.max(...numbers);
      const log = low > 0 && high / low >= 100;
      const f = (v) => log ? Math.log10(v) : v;
      const [a, b] = [f(low), f(high)];
      return { at: (v) => b === a ? (top + height - bottom) / 2 : height - bottom - (height - bottom - top) * (f(Number(v)) - a) / (b - a),
        ticks: [...new Set(numbers)].sort((p, q) => p - q).slice(0, 12) };
    }
    const names = [...new Set(values.map(String))].sort();
    return { at: (v) => names.length === 1 ? (top + height - bottom) / 2 : height - bottom - (height - bottom - top) * names.indexOf(String(v)) / (names.length - 1), ticks: names };
  });
  const metric = axes.length - 1;
  const values = measured.map((u) => u.measurements[key].last);
  const low = Math.min(...values), high = Math.max(...values);
  for (const unit of measured) {
    const v = unit.measurements[key].last;
    let goodness = high === low ? 1 : (v - low) / (high - low);
    if (lowerIsBetter(key)) goodness = 1 - goodness;
    const hue = Math.round(goodness * 220);
    make("polyline", { class: "unit-line", "data-unit": unit.id, fill: "none", stroke: "hsl(" + hue + ",75%,50%)", "stroke-width": "2",
      points: axes.map((axis, i) => x(i) + "," + scales[i].at(axis.value(unit)).toFixed(1)).join(" ") })
      .append(Object.assign(document.createElementNS(ns, "title"), { textContent: "unit " + unit.id + ": " + key + " " + formatNumber(v) }));
  }
  axes.forEach((axis, i) => {
    make("line", { class: "axis", x1: x(i), x2: x(i), y1: top, y2: height - bottom });
    make("text", { class: "axis-name" + (i === metric ? " metric" : ""), x: x(i), y: 16, "text-anchor": "middle" }, axis.name);
    for (const tick of scales[i].ticks) {
      make("text", { class: "tick", x: x(i) + 5, y: scales[i].at(tick) + 4 }, typeof tick === "number" ? formatNumber(tick) : tick);
    }
  });
  put(target, svg);
}

// --- /app?handle=H : one run ---------------------------------------------------------------------
function logPane(live, handle, role, replica) {
  const id = role + "/" + replica;
  const output = el("pre", { class: "log", "data-role": role, "data-replica": replica });
  const filter = el("input", { type: "text", placeholder: "regex filter", "aria-label": "filter" });
  const stream = el("select", { "aria-label": "stream" },
    ...["combined", "stdout", "stderr"].map((name) => el("option", { value: name, text: name })));
  const tail = el("input", { type: "number", min: "1", max: "100000", value: "500", "aria-label": "tail" });
  const follow = el("input", { type: "checkbox", checked: "", "aria-label": "follow" });
  const stamps = el("input", { type: "checkbox", class: "timestamps", "aria-label": "timestamps" });
  stamps.addEventListener("change", () => output.classList.toggle("show-time", stamps.checked));
  let pending = [];
  let flush = null;
  const subscribe = () => {
    output.replaceChildren();
    pending = [];
    const query = new URLSearchParams({ handle, role, replica, tail: Number(tail.value) || 500,
      follow: follow.checked ? 1 : 0, stream: stream.value });
    if (filter.value) query.set("regex", filter.value);
    live.setPane(id, query);
  };
  // Lines are added in batches, one layout per batch: sixteen panes of a busy app in six tabs
  // stay cheap for the browser.
  const addPending = () => {
    flush = null;
    const stick = output.scrollTop + output.clientHeight >= output.scrollHeight - 4;
    const lines = document.createDocumentFragment();
    for (const line of pending) {
      // The time shows through CSS (attr), so a line's text stays what the app printed.
      lines.append(el("div", { class: line.stream, "data-n": line.n,
        "data-time": new Date(line.timestamp / 1e6).toISOString().slice(11, 23), text: line.text }));
    }
    pending = [];
    output.append(lines);
    const excess = output.childElementCount - (Number(tail.value) || 500);
    for (let i = 0; i < excess; ++i) output.firstElementChild.remove();
    if (stick) output.scrollTop = output.scrollHeight;
  };
  const pane = {
    add(line) {
      pending.push(line);
      if (!flush) flush = setTimeout(addPending, 50);
    },
    failed(message) { output.append(el("div", { class: "stderr", text: message })); },
    node: el("section", { class: "replica", "data-pane": id },
      el("div", { class: "replica-head" }, el("strong", { text: id }),
        el("label", {}, "filter ", filter), el("label", {}, "stream ", stream),
        el("label", {}, "tail ", tail), el("label", {}, follow, " follow"),
        el("label", {}, stamps, " timestamps")),
      output),
  };
  for (const control of [filter, stream, tail, follow]) control.addEventListener("change", subscribe);
  subscribe();
  return pane;
}

// What the app ran: per role its command, env (secrets masked by the server), resources.
function definition(app) {
  if (!app.app) return el("p", { class: "muted", text: "The store has no definition of this app." });
  return el("div", { id: "definition" }, ...(app.app.roles || []).map((role) => {
    const env = Object.entries(role.env || {});
    const resource = role.resource || {};
    const rows = [
      ["command", [role.entrypoint, ...(role.args || [])].join(" ")],
      ["image", role.image],
      ["replicas", String(role.num_replicas) + (role.max_retries ? ", up to " + role.max_retries + " retries (" + role.retry_policy + ")" : "")],
      // A negative count is one not set.
      ["resources", [resource.cpu > 0 ? resource.cpu + " cpu" : "", resource.gpu > 0 ? resource.gpu + " gpu" : "",
        resource.memMB > 0 ? resource.memMB + " MB" : ""].filter(Boolean).join(", ") || "not set"]];
    return el("section", { class: "role", "data-role": role.name },
      el("h3", { text: "role " + role.name }),
      el("dl", { class: "facts" }, ...rows.flatMap(([name, value]) => [el("dt", { text: name }),
        el("dd", { class: "field-" + name, text: value || "" })])),
      env.length ? el("details", { class: "env" }, el("summary", { text: "environment (" + env.length + ")" }),
        el("table", { class: "env-table" }, el("tbody", {}, ...env.map(([name, value]) =>
          el("tr", {}, el("th", { text: name }), el("td", { text: value })))))) : null);
  }));
}

function renderAppStatus(app, target) {
  const replicas = app.roles.flatMap((role) => role.replicas.map((replica) => ({ role: role.role, ...replica })));
  const started = Math.min(...replicas.map((r) => r.started_at || Infinity));
  const finishedAll = replicas.length && replicas.every((r) => r.finished_at);
  const finished = finishedAll ? Math.max(...replicas.map((r) => r.finished_at)) : null;
  const begin = isFinite(started) ? started : null;
  const th = (text) => el("th", { text });
  const rows = replicas.map((r) => el("tr", {}, el("td", { text: r.role }), el("td", { text: String(r.id) }),
    stateCell(r.state), el("td", { text: r.exit_code === null ? "" : String(r.exit_code) }),
    el("td", { text: String(r.restarts) }), el("td", { text: r.pid === null ? "" : String(r.pid) }),
    el("td", { text: r.hostname }), el("td", { text: time(r.started_at) }), el("td", { text: time(r.finished_at) }),
    el("td", { class: "message", text: r.message })));
  const cancel = config.allow_writes && !TERMINAL.has(app.state)
    ? el("button", { id: "cancel", text: "Cancel app", onclick: (event) => confirmedPost("Cancel " + app.handle + "?",
      "/api/cancel?" + new URLSearchParams({ handle: app.handle }), event.target) })
    : null;
  const experiment = app.experiment
    ? el("a", { id: "experiment-link", href: "/experiments/" + app.experiment.id,
      text: "experiment " + app.experiment.id + ", work unit " + app.experiment.work_unit +
        " (job " + app.experiment.job + (app.experiment.attempt > 1 ? ", attempt " + app.experiment.attempt : "") + ")" })
    : el("span", { class: "muted", text: "not part of an experiment" });
  const facts = [
    ["submitted", time(app.submitted_at)], ["started", time(begin)],
    ["ended", time(finished)],
    ["duration", begin ? duration((finished || Date.now() * 1e6) - begin) + (finished ? "" : " so far") : ""],
    ["restarts", String(app.restarts || 0)],
    // Where the app writes ($SORTIE_OUTPUT_DIR, docs/payloads.md P-1.1), on the host.
    ["output dir", app.app && app.app.output_dir ? app.app.output_dir : ""]];
  put(target, 
    el("h1", { text: app.app && app.app.name ? app.app.name : app.handle }),
    el("p", { class: "status-line" }, el("span", { id: "app-state", class: "state state-" + app.state, text: app.state }),
      " · ", experiment, " ", cancel),
    el("p", { class: "muted handle", text: app.handle }),
    el("dl", { class: "facts", id: "times" }, ...facts.flatMap(([name, value]) => [el("dt", { text: name }),
      el("dd", { "data-fact": name, text: value })])),
    app.message ? el("details", { class: "scheduler-note" }, el("summary", { text: "scheduler's note" }),
      el("p", { text: app.message })) : null,
    el("h2", { text: "Replicas" }),
    el("div", { class: "scroll" }, el("table", { id: "replicas" }, el("thead", {}, el("tr", {},
      ...["role", "replica", "state", "exit code", "restarts", "pid", "host", "started", "ended", "message"].map(th))),
    el("tbody", {}, ...rows))),
    el("h2", { text: "Definition" }), definition(app));
}

function renderApp(handle) {
  document.title = handle + " · sortie ui";
  const status = el("div", { id: "app-status" });
  const logs = el("div", { id: "logs" });
  put(page, status, el("h2", { text: "Logs" }), logs);
  const panes = new Map();
  const live = new Live(new URLSearchParams({ view: "app", handle }), {
    refused: (error) => error.status === 404 ? renderNotFound(error.message) : showError(error),
    view: (app) => showApp(app),
    log: (line) => { const pane = panes.get(line.pane); if (pane) pane.add({ n: line.n, ...line.line }); },
    logFailed: (failure) => { const pane = panes.get(failure.pane); if (pane) pane.failed(failure.error); },
  });
  const showApp = (app) => {
      renderAppStatus(app, status);
      const replicas = app.roles.flatMap((role) => role.replicas.map((replica) => [role.role, replica.id]));
      if (replicas.length === 0 && app.app) {
        for (const role of app.app.roles || []) {
          for (let id = 0; id < (role.num_replicas || 1); ++id) replicas.push([role.name, id]);
        }
      }
      for (const [role, id] of replicas) {
        if (panes.has(role + "/" + id)) continue;
        const pane = logPane(live, handle, role, id);
        panes.set(role + "/" + id, pane);
        logs.append(pane.node);
      }
  };
  // The app first, so that the stream opens once with its panes: each stream a page closes seems
  // to cost the browser one of its six connections for a while (ui_browser, docs/ui.md).
  getJson("/api/app?handle=" + encodeURIComponent(handle)).then((app) => {
    showApp(app);
    live.connect();
  }, (error) => error.status === 404 ? renderNotFound(error.message) : showError(error));
}

// --- /timeline : the store's events ----------------------------------------------------------
function renderTimeline() {
  document.title = "timeline · sortie ui";
  const body = el("tbody");
  put(page, el("h1", { text: "Timeline" }),
    el("div", { class: "scroll" }, el("table", { id: "timeline" },
      el("thead", {}, el("tr", {}, ...["id", "time", "app", "event", "detail"].map((t) => el("th", { text: t })))),
      body)));
  new Live(new URLSearchParams({ events: 1, after: 0 }), {
    app: (event) => {
      if (body.querySelector("tr[data-event='" + event.id + "']")) return;
      body.prepend(el("tr", { "data-event": event.id }, el("td", { text: String(event.id) }),
        el("td", { text: time(event.at) }), el("td", {}, appLink(event.handle)),
        el("td", { text: event.kind }), el("td", { text: event.detail })));
    } }).connect();
}

async function main() {
  config = await getJson("/api/config");
  const path = location.pathname;
  const experiment = path.match(/^\/experiments\/(\d+)$/);
  if (experiment) renderExperiment(experiment[1]);
  else if (path === "/app") renderApp(new URLSearchParams(location.search).get("handle") || "");
  else if (path === "/timeline") renderTimeline();
  else if (path === "/") renderHome();
  else renderNotFound();
}

main().catch(showError);
