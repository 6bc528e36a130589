// The dashboard's pages, chosen by the URL's path so every view is a shareable link:
//   /                    experiments and apps      /experiments/ID   one experiment's sweep table
//   /app?handle=HANDLE   roles, replicas, logs     /timeline         the store's events, live
// Data comes from the JSON API; the store's event stream (/api/events) triggers the refreshes.
"use strict";

const TERMINAL = new Set(["SUCCEEDED", "FAILED", "CANCELLED"]);
// Failures first: the order a sweep's states are sorted in.
const ATTENTION = ["FAILED", "CANCELLED", "UNKNOWN", "RUNNING", "PENDING", "SUBMITTED",
  "UNSUBMITTED", "SUCCEEDED"];
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

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null) node.append(child);
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
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function stateCell(state) {
  return el("td", { class: "state state-" + state, text: state });
}

function time(ns) {
  return ns ? new Date(ns / 1e6).toLocaleString() : "";
}

function appLink(handle) {
  return el("a", { href: "/app?handle=" + encodeURIComponent(handle), text: handle });
}

function showError(error) {
  page.replaceChildren(el("p", { class: "error", text: String(error.message || error) }));
}

// Calls `refresh` (at most every 150 ms) whenever the store records an event that `matters`.
function refreshOnEvents(refresh, matters = () => true) {
  let pending = null;
  const status = document.getElementById("connection");
  const source = new EventSource("/api/events");
  source.onopen = () => { status.textContent = "live"; };
  source.onerror = () => { status.textContent = "reconnecting…"; };
  source.addEventListener("app", (message) => {
    if (!matters(JSON.parse(message.data)) || pending) return;
    pending = setTimeout(() => { pending = null; refresh(); }, 150);
  });
}

// The entries of a paged list (`key`: its array) from the first page until at least `count` are
// loaded or the list ends; `next` is the cursor of the page after them (null: none).
async function getPages(url, key, count) {
  const separator = url.includes("?") ? "&" : "?";
  const first = await getJson(url + separator + "limit=" + Math.min(Math.max(count, 1), 1000));
  let answer = first;
  const entries = [...answer[key]];
  while (answer.next !== null && entries.length < count) {
    answer = await getJson(url + separator + "limit=" + Math.min(count - entries.length, 1000) +
      "&after=" + encodeURIComponent(answer.next));
    entries.push(...answer[key]);
  }
  // What is not paged comes with the first page only (an experiment's code record).
  return { ...first, [key]: entries, next: answer.next };
}

// "Load more" under a paged table, when the list goes on.
function loadMore(answer, key, more) {
  return answer.next === null ? null : el("button", { class: "more",
    text: "Load more (" + answer[key].length + " of " + answer.total + " shown)", onclick: more });
}

const PAGE = 200;

function table(headers, rows) {
  return el("div", { class: "scroll" },
    el("table", {}, el("thead", {}, el("tr", {}, ...headers)), el("tbody", {}, ...rows)));
}

// --- / : experiments and apps ---------------------------------------------------------------
let appsShown = PAGE;  // a refresh reloads as many apps as are shown
async function renderHome() {
  const [experiments, apps] = await Promise.all([getJson("/api/experiments"),
    getPages("/api/apps", "apps", appsShown)]);
  const experimentRows = experiments.experiments.map((experiment) => el("tr", {},
    el("td", {}, el("a", { href: "/experiments/" + experiment.id, text: String(experiment.id) })),
    el("td", { text: experiment.title }),
    el("td", { text: String(experiment.work_units) }),
    el("td", { text: Object.entries(experiment.states).map(([s, n]) => n + " " + s).join(", ") }),
    el("td", { text: time(experiment.created_at) }),
    el("td", { class: "tags", text: experiment.tags.join(", ") })));
  const appRows = apps.apps.map((app) => el("tr", { class: "state-" + app.state },
    el("td", {}, appLink(app.handle)), el("td", { text: app.name }), stateCell(app.state),
    el("td", { text: time(app.submitted_at) })));
  const th = (text) => el("th", { text });
  page.replaceChildren(
    el("h1", { text: "Experiments" }),
    table([th("id"), th("title"), th("work units"), th("states"), th("created"), th("tags")],
      experimentRows),
    el("h2", { text: "Apps" }),
    el("div", { id: "apps" }, table([th("handle"), th("name"), th("state"), th("submitted")], appRows)),
    loadMore(apps, "apps", () => { appsShown = apps.apps.length + PAGE; renderHome().catch(showError); }));
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

// The failed units run again as their next attempt (sortie experiments rerun ID --failed).
async function rerunUnits(id, button) {
  if (!confirm("Re-run the failed work units of experiment " + id + "?")) return;
  button.disabled = true;
  const response = await fetch("/api/rerun?" + new URLSearchParams({ id, failed: 1 }),
    { method: "POST", headers: { "X-Sortie-Token": token } });
  if (!response.ok) {
    button.disabled = false;
    alert((await response.json()).error);
    return;
  }
  renderExperiment(id).catch(showError);
}

async function annotate(id, fields, status) {
  const query = new URLSearchParams({ id });
  for (const [name, value] of fields) query.append(name, value);
  const response = await fetch("/api/annotations", { method: "POST", body: query,
    headers: { "X-Sortie-Token": token } });
  const body = await response.json();
  status.textContent = response.ok ? "saved" : body.error;
  status.className = response.ok ? "muted" : "error";
  return response.ok;
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
        if (await annotate(experiment.id, fields, status)) {
          tagWords.value = "";
          renderExperiment(experiment.id).catch(showError);
        }
      } });
    annotationsBox.append(el("div", { class: "annotate" }, text,
      el("div", {}, tagWords, " ", save, " ", status)));
  }
  return annotationsBox;
}

function sweepOrder(key, direction) {
  const rank = (unit) => ATTENTION.indexOf(unit.state);
  const value = (unit) => key === "unit" ? unit.id : key === "state" ? rank(unit) : unit.args[key];
  return (a, b) => {
    const x = value(a), y = value(b);
    const numeric = typeof x === "number" || (x !== "" && !isNaN(Number(x)) && !isNaN(Number(y)));
    const order = numeric ? Number(x) - Number(y) : String(x ?? "").localeCompare(String(y ?? ""));
    return (direction === "desc" ? -order : order) || rank(a) - rank(b) || a.id - b.id;
  };
}

let unitsShown = PAGE;  // a refresh reloads as many work units as are shown
async function renderExperiment(id) {
  const experiment = await getPages("/api/experiments/" + id, "work_units", unitsShown);
  const query = new URLSearchParams(location.search);
  const key = query.get("sort") || "state";
  const direction = query.get("dir") || "asc";
  const hyperparameters = [];
  for (const unit of experiment.work_units) {
    for (const name of Object.keys(unit.args)) if (!hyperparameters.includes(name)) hyperparameters.push(name);
  }
  const sortBy = (name) => () => {
    query.set("sort", name);
    query.set("dir", key === name && direction === "asc" ? "desc" : "asc");
    history.replaceState(null, "", "?" + query);
    renderExperiment(id).catch(showError);
  };
  const header = (name, label) => el("th", {
    class: "sortable" + (key === name ? " sorted-" + direction : ""), "data-key": name,
    text: label, onclick: sortBy(name) });
  const units = [...experiment.work_units].sort(sweepOrder(key, direction));
  const rows = units.map((unit) => el("tr", { class: "state-" + unit.state, "data-unit": unit.id },
    el("td", { text: String(unit.id) }),
    ...hyperparameters.map((name) => el("td", { class: "arg", text: unit.args[name] === undefined ? "" : String(unit.args[name]) })),
    stateCell(unit.state),
    el("td", {}, ...unit.jobs.map((job) => el("a", {
      href: "/app?handle=" + encodeURIComponent(job.handle), class: "job state-" + job.state,
      title: job.handle, text: job.name + " " })))));
  const failed = units.filter((unit) => unit.state === "FAILED").length;
  const rerunFailed = config.allow_writes && failed > 0
    ? el("button", { id: "rerun-failed", text: "Re-run " + failed + " failed",
      onclick: (event) => rerunUnits(experiment.id, event.target) })
    : null;
  page.replaceChildren(
    el("h1", { text: experiment.title + " (experiment " + experiment.id + ")" }, " ", rerunFailed),
    el("p", { class: "muted", text: experiment.total + " work units, " + failed + " failed" +
      (units.length < experiment.total ? " of the " + units.length + " shown" : "") + " · " + experiment.launch_dir }),
    el("p", { id: "code", class: "muted", text: codeSummary(experiment.code) }),
    annotations(experiment),
    el("div", { id: "sweep" }, table([header("unit", "unit"),
      ...hyperparameters.map((name) => header(name, name)), header("state", "state"),
      el("th", { text: "jobs" })], rows)),
    loadMore(experiment, "work_units", () => {
      unitsShown = units.length + PAGE;
      renderExperiment(id).catch(showError);
    }));
  return new Set(experiment.work_units.flatMap((unit) => unit.jobs.map((job) => job.handle)));
}

// --- /app?handle=H : roles, replicas and their logs ------------------------------------------
function logPane(handle, role, replica) {
  const output = el("pre", { class: "log", "data-role": role, "data-replica": replica });
  const filter = el("input", { type: "text", placeholder: "regex filter", "aria-label": "filter" });
  const stream = el("select", { "aria-label": "stream" },
    ...["combined", "stdout", "stderr"].map((name) => el("option", { value: name, text: name })));
  const tail = el("input", { type: "number", min: "1", max: "100000", value: "500", "aria-label": "tail" });
  const follow = el("input", { type: "checkbox", checked: "", "aria-label": "follow" });
  let source = null;
  const connect = () => {
    if (source) source.close();
    output.replaceChildren();
    const limit = Number(tail.value) || 500;
    const query = new URLSearchParams({ handle, role, replica, tail: limit,
      follow: follow.checked ? 1 : 0, stream: stream.value });
    if (filter.value) query.set("regex", filter.value);
    source = new EventSource("/api/logs?" + query);
    source.onmessage = (message) => {
      const line = JSON.parse(message.data);
      const stick = output.scrollTop + output.clientHeight >= output.scrollHeight - 4;
      output.append(el("div", { class: line.stream, text: line.text }));
      while (output.childElementCount > limit) output.firstElementChild.remove();
      if (stick) output.scrollTop = output.scrollHeight;
    };
    const finish = () => { source.close(); };
    source.addEventListener("end", finish);
    source.addEventListener("failed", (message) => {
      output.append(el("div", { class: "stderr", text: JSON.parse(message.data).error }));
      finish();
    });
  };
  for (const control of [filter, stream, tail, follow]) control.addEventListener("change", connect);
  connect();
  return el("section", { class: "replica" },
    el("div", { class: "replica-head" }, el("strong", { text: role + "/" + replica }),
      el("label", {}, "filter ", filter), el("label", {}, "stream ", stream),
      el("label", {}, "tail ", tail), el("label", {}, follow, " follow")),
    output);
}

async function cancelApp(handle, button) {
  button.disabled = true;
  const response = await fetch("/api/cancel?handle=" + encodeURIComponent(handle),
    { method: "POST", headers: { "X-Sortie-Token": token } });
  if (!response.ok) {
    button.disabled = false;
    alert((await response.json()).error);
  }
}

// The header and replica table are re-rendered on events; the log panes stay connected.
async function renderAppStatus(handle, target) {
  const app = await getJson("/api/app?handle=" + encodeURIComponent(handle));
  const th = (text) => el("th", { text });
  const rows = app.roles.flatMap((role) => role.replicas.map((replica) => el("tr", {},
    el("td", { text: role.role }), el("td", { text: String(replica.id) }), stateCell(replica.state),
    el("td", { text: replica.exit_code === null ? "" : String(replica.exit_code) }),
    el("td", { text: String(replica.restarts) }), el("td", { text: replica.hostname }),
    el("td", { text: replica.message }))));
  const cancel = config.allow_writes && !TERMINAL.has(app.state)
    ? el("button", { id: "cancel", text: "Cancel app", onclick: (event) => cancelApp(handle, event.target) })
    : null;
  target.replaceChildren(
    el("h1", { text: handle }),
    el("p", {}, el("span", { id: "app-state", class: "state state-" + app.state, text: app.state }),
      " " + (app.message || "") + (app.restarts ? " · " + app.restarts + " restarts" : ""), " ", cancel),
    table([th("role"), th("replica"), th("state"), th("exit code"), th("restarts"), th("host"), th("message")], rows));
  return app;
}

async function renderApp(handle) {
  const status = el("div", { id: "app-status" });
  const logs = el("div", { id: "logs" });
  page.replaceChildren(status, el("h2", { text: "Logs" }), logs);
  const app = await renderAppStatus(handle, status);
  const replicas = app.roles.flatMap((role) => role.replicas.map((replica) => [role.role, replica.id]));
  if (replicas.length === 0 && app.app) {
    for (const role of app.app.roles || []) {
      for (let id = 0; id < (role.num_replicas || 1); ++id) replicas.push([role.name, id]);
    }
  }
  logs.replaceChildren(...replicas.map(([role, id]) => logPane(handle, role, id)));
  refreshOnEvents(() => renderAppStatus(handle, status).catch(showError), (event) => event.handle === handle);
}

// --- /timeline : the store's events ----------------------------------------------------------
function renderTimeline() {
  const body = el("tbody");
  page.replaceChildren(el("h1", { text: "Timeline" }),
    el("div", { class: "scroll" }, el("table", { id: "timeline" },
      el("thead", {}, el("tr", {}, ...["id", "time", "app", "event", "detail"].map((t) => el("th", { text: t })))),
      body)));
  const status = document.getElementById("connection");
  const source = new EventSource("/api/events");
  source.onopen = () => { status.textContent = "live"; };
  source.onerror = () => { status.textContent = "reconnecting…"; };
  source.addEventListener("app", (message) => {
    const event = JSON.parse(message.data);
    body.prepend(el("tr", { "data-event": event.id }, el("td", { text: String(event.id) }),
      el("td", { text: time(event.at) }), el("td", {}, appLink(event.handle)),
      el("td", { text: event.kind }), el("td", { text: event.detail })));
  });
}

async function main() {
  config = await getJson("/api/config");
  const path = location.pathname;
  const experiment = path.match(/^\/experiments\/(\d+)$/);
  if (experiment) {
    let handles = await renderExperiment(experiment[1]);
    refreshOnEvents(async () => { handles = await renderExperiment(experiment[1]); },
      (event) => handles.has(event.handle));
  } else if (path === "/app") {
    await renderApp(new URLSearchParams(location.search).get("handle") || "");
  } else if (path === "/timeline") {
    renderTimeline();
  } else {
    await renderHome();
    refreshOnEvents(renderHome);
  }
}

main().catch(showError);
