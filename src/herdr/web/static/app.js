// herdr web view: one websocket; socket-API calls out, server events and screens in.
// No framework and no build step. Every string from the server goes in as textContent.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  ws: null, nextId: 1, pending: new Map(), hello: null, snapshot: null,
  selected: null, approval: null, refreshTimer: null, retry: 500, statuses: new Map(),
  approvalEpoch: 0, // bumped by each pushed approval: an older read must not undo it
};

// --- the connection --------------------------------------------------------------------

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws`);
  state.ws = ws;
  ws.onopen = () => { state.retry = 500; setConn(true); };
  ws.onclose = () => {
    setConn(false);
    for (const { reject } of state.pending.values()) reject({ code: "disconnected" });
    state.pending.clear();
    setTimeout(connect, state.retry);
    state.retry = Math.min(state.retry * 2, 10000);
  };
  ws.onmessage = (msg) => {
    let doc;
    try { doc = JSON.parse(msg.data); } catch { return; }
    if (doc.id !== undefined && state.pending.has(doc.id)) {
      const { resolve, reject } = state.pending.get(doc.id);
      state.pending.delete(doc.id);
      if (doc.error) reject(doc.error); else resolve(doc.result);
    } else if (doc.type === "hello") {
      onHello(doc);
    } else if (doc.type === "screen") {
      if (doc.pane_id === state.selected) drawScreen(doc.screen);
    } else if (doc.event) {
      onEvent(doc.event, doc.data || {});
    }
  };
}

function call(method, params) {
  return new Promise((resolve, reject) => {
    const ws = state.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) { reject({ code: "disconnected" }); return; }
    const id = `w${state.nextId++}`;
    state.pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, method, params }));
  });
}

function setConn(on) {
  const el = $("conn");
  el.textContent = on ? "live" : "offline";
  el.className = `badge ${on ? "on" : "off"}`;
}

function onHello(hello) {
  state.hello = hello;
  const mode = $("mode");
  const words = [];
  if (hello.read_only) words.push("read-only");
  if (hello.allow_typing) words.push("typing on");
  mode.hidden = words.length === 0;
  mode.textContent = words.join(" · ");
  document.body.dataset.readOnly = hello.read_only ? "1" : "0";
  $("prompt-form").hidden = hello.read_only;
  $("type-form").hidden = !hello.allow_typing;
  refresh();
  if (state.selected) watch(state.selected);
}

// --- the overview -----------------------------------------------------------------------

async function refresh() {
  try {
    const result = await call("session.snapshot", {});
    state.snapshot = result.snapshot;
  } catch (err) { toast(`snapshot: ${describe(err)}`, "error"); return; }
  for (const agent of state.snapshot.agents || []) {
    state.statuses.set(agent.pane_id, agent.agent_status);
  }
  render();
}

function refreshSoon() {
  clearTimeout(state.refreshTimer);
  state.refreshTimer = setTimeout(refresh, 120);
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function paneName(pane) {
  return pane.label || pane.agent || pane.terminal_title_stripped || pane.pane_id;
}

function paneRow(pane, where) {
  const row = el("li", "row");
  row.dataset.paneId = pane.pane_id;
  row.dataset.status = pane.agent_status || "unknown";
  if (pane.pane_id === state.selected) row.classList.add("selected");
  row.append(el("span", "dot"), el("span", "name", paneName(pane)));
  row.append(el("span", "status", pane.agent ? pane.agent_status : ""));
  if (where) row.append(el("span", "where", where));
  row.onclick = () => select(pane.pane_id);
  return row;
}

function render() {
  const snap = state.snapshot;
  if (!snap) return;
  const wsName = new Map(snap.workspaces.map((w) => [w.workspace_id, w.label || w.workspace_id]));
  const agents = $("agents");
  agents.replaceChildren();
  const order = { blocked: 0, done: 1, working: 2, idle: 3, unknown: 4 };
  const list = [...(snap.agents || [])].sort(
    (a, b) => (order[a.agent_status] ?? 5) - (order[b.agent_status] ?? 5));
  for (const agent of list) agents.append(paneRow(agent, `${wsName.get(agent.workspace_id)} · ${agent.pane_id}`));
  $("no-agents").hidden = list.length > 0;
  const box = $("workspaces");
  box.replaceChildren();
  for (const w of snap.workspaces) {
    const wsEl = el("div", "ws");
    wsEl.dataset.status = w.agent_status;
    const head = el("div", "ws-name");
    head.append(el("span", "dot"), el("span", "", `${w.number}. ${w.label || w.workspace_id}`));
    wsEl.append(head);
    for (const t of snap.tabs.filter((tab) => tab.workspace_id === w.workspace_id)) {
      const tabEl = el("div", "tab");
      tabEl.append(el("div", "tab-name", `tab ${t.number}${t.label && t.label !== String(t.number) ? ` · ${t.label}` : ""}`));
      const panes = el("ul", "list");
      for (const p of snap.panes.filter((pane) => pane.tab_id === t.tab_id)) panes.append(paneRow(p));
      tabEl.append(panes);
      wsEl.append(tabEl);
    }
    box.append(wsEl);
  }
  if (state.selected) renderDetailHead();
}

function findPane(paneId) {
  const snap = state.snapshot;
  return snap ? snap.panes.find((p) => p.pane_id === paneId) : undefined;
}

// --- one pane ---------------------------------------------------------------------------

function select(paneId) {
  state.selected = paneId;
  state.approval = null;
  $("detail").hidden = false;
  $("main").classList.add("showing");
  $("screen").replaceChildren();
  $("approval").hidden = true;
  renderDetailHead();
  render();
  watch(paneId);
  loadApproval();
}

function watch(paneId) {
  call("web.watch", { pane_id: paneId }).catch((err) => toast(`watch: ${describe(err)}`, "error"));
}

function renderDetailHead() {
  const pane = findPane(state.selected);
  const status = state.statuses.get(state.selected) || (pane && pane.agent_status) || "unknown";
  $("pane-title").textContent = pane ? `${paneName(pane)} · ${pane.pane_id}` : state.selected;
  const st = $("pane-status");
  st.textContent = pane && pane.agent ? status : "";
  st.dataset.status = status;
}

$("back").onclick = () => {
  state.selected = null;
  $("detail").hidden = true;
  $("main").classList.remove("showing");
  call("web.watch", { pane_id: null }).catch(() => {});
  render();
};

// The 256-colour palette: 16 base colours, the 6x6x6 cube, 24 greys.
const BASE = ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
  "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"];
function paletteColour(value) {
  if (typeof value === "string") return value;
  if (value < 16) return BASE[value];
  if (value < 232) {
    const n = value - 16, steps = [0, 95, 135, 175, 215, 255];
    const r = steps[Math.floor(n / 36)], g = steps[Math.floor(n / 6) % 6], b = steps[n % 6];
    return `rgb(${r},${g},${b})`;
  }
  const grey = 8 + (value - 232) * 10;
  return `rgb(${grey},${grey},${grey})`;
}

function drawScreen(screen) {
  const pre = $("screen");
  if (!screen) { pre.textContent = "(no running terminal)"; return; }
  const frag = document.createDocumentFragment();
  const styles = screen.styles;
  screen.lines.forEach((runs, y) => {
    for (const [text, sid] of runs) {
      const st = styles[sid] || {};
      if (!sid) { frag.append(text); continue; }
      const span = document.createElement("span");
      span.textContent = text;
      let fg = st.fg !== undefined ? paletteColour(st.fg) : null;
      let bg = st.bg !== undefined ? paletteColour(st.bg) : null;
      if (st.r) { [fg, bg] = [bg || "#000000", fg || "#d0d0d0"]; }
      if (fg) span.style.color = fg;
      if (bg) span.style.backgroundColor = bg;
      if (st.b) span.style.fontWeight = "bold";
      if (st.d) span.style.opacity = "0.6";
      if (st.i) span.style.fontStyle = "italic";
      const lines = [st.u ? "underline" : "", st.s ? "line-through" : "", st.o ? "overline" : ""];
      const deco = lines.filter(Boolean).join(" ");
      if (deco) span.style.textDecoration = deco;
      if (st.h) span.style.visibility = "hidden";
      frag.append(span);
    }
    if (y < screen.lines.length - 1) frag.append("\n");
  });
  pre.replaceChildren(frag);
}

async function loadApproval() {
  const paneId = state.selected;
  const box = $("approval");
  if (!paneId || state.statuses.get(paneId) !== "blocked") { box.hidden = true; return; }
  const epoch = state.approvalEpoch;
  let result;
  try {
    result = await call("agent.approval", { target: paneId });
  } catch (err) {
    box.hidden = true; // a server without structured approvals: the screen still shows it
    return;
  }
  if (paneId !== state.selected || epoch !== state.approvalEpoch) return;
  showApproval(result.approval);
}

function showApproval(approval) {
  state.approval = approval;
  const box = $("approval");
  if (!approval) { box.hidden = true; return; }
  box.hidden = false;
  $("approval-question").textContent = approval.question || "The agent asks for permission";
  const detail = $("approval-detail");
  detail.hidden = !approval.detail;
  detail.textContent = approval.detail || "";
  const options = $("approval-options");
  options.replaceChildren();
  for (const option of approval.options || []) {
    const button = el("button", "", option.label || option.id);
    button.type = "button";
    button.dataset.optionId = option.id;
    button.disabled = Boolean(state.hello && state.hello.read_only);
    button.onclick = () => approve(approval, option);
    options.append(button);
  }
}

async function approve(approval, option) {
  try {
    await call("agent.approve", {
      target: approval.pane_id, option_id: option.id, fingerprint: approval.fingerprint,
    });
    toast(`Answered: ${option.label || option.id}`, "done");
    $("approval").hidden = true;
  } catch (err) {
    toast(err.code === "approval_changed"
      ? "The dialog changed on screen; nothing was sent" : `approve: ${describe(err)}`, "error");
    loadApproval();
  }
}

$("prompt-form").onsubmit = async (ev) => {
  ev.preventDefault();
  const box = $("prompt");
  const text = box.value;
  if (!text || !state.selected) return;
  try {
    await call("agent.prompt", { target: state.selected, text });
    box.value = "";
    toast("Prompt sent", "done");
  } catch (err) { toast(`prompt: ${describe(err)}`, "error"); }
};

$("type-form").onsubmit = async (ev) => {
  ev.preventDefault();
  const input = $("type-input");
  if (!input.value || !state.selected) return;
  try {
    await call("pane.send_text", { pane_id: state.selected, text: input.value });
    input.value = "";
  } catch (err) { toast(`type: ${describe(err)}`, "error"); }
};

for (const button of document.querySelectorAll("#type-form [data-key]")) {
  button.onclick = () => {
    if (!state.selected) return;
    call("pane.send_keys", { pane_id: state.selected, keys: [button.dataset.key] })
      .catch((err) => toast(`keys: ${describe(err)}`, "error"));
  };
}

// --- events, toasts, notifications ------------------------------------------------------

function onEvent(kind, data) {
  if (kind === "pane_agent_status_changed") {
    const before = state.statuses.get(data.pane_id);
    const now = data.agent_status;
    state.statuses.set(data.pane_id, now);
    patchStatus(data.pane_id, now);
    if (now !== before && (now === "blocked" || now === "done")) announce(data, now);
    if (data.pane_id === state.selected) { renderDetailHead(); loadApproval(); }
  } else if (kind === "agent_approval_requested") {
    const record = data.approval || data;
    if (record.pane_id === state.selected) { state.approvalEpoch++; showApproval(record); }
  }
  if (kind !== "agent_approval_requested") refreshSoon();
}

function patchStatus(paneId, status) {
  const snap = state.snapshot;
  if (snap) {
    for (const item of [...snap.panes, ...(snap.agents || [])]) {
      if (item.pane_id === paneId) item.agent_status = status;
    }
  }
  for (const row of document.querySelectorAll(".row")) {
    if (row.dataset.paneId === paneId) {
      row.dataset.status = status;
      const label = row.querySelector(".status");
      if (label && label.textContent) label.textContent = status;
    }
  }
}

function announce(data, status) {
  const pane = findPane(data.pane_id);
  const who = (pane && paneName(pane)) || data.agent || data.pane_id;
  const text = status === "blocked" ? `${who} needs you (${data.pane_id})` : `${who} is done (${data.pane_id})`;
  toast(text, status, () => select(data.pane_id));
  if ("Notification" in window && Notification.permission === "granted") {
    try {
      const note = new Notification(`herdr: ${who}`, { body: text, tag: `herdr-${data.pane_id}` });
      note.onclick = () => { window.focus(); select(data.pane_id); };
    } catch { /* some browsers only notify from a service worker */ }
  }
}

function toast(text, kind, onClick) {
  const box = $("toasts");
  const node = el("div", "toast", text);
  node.dataset.kind = kind || "info";
  if (onClick) { node.style.cursor = "pointer"; node.onclick = () => { onClick(); node.remove(); }; }
  box.append(node);
  while (box.children.length > 4) box.firstChild.remove();
  setTimeout(() => node.remove(), 6000);
}

function describe(err) {
  return err && err.code ? `${err.code}${err.message ? `: ${err.message}` : ""}` : String(err);
}

const notifyButton = $("notify");
if ("Notification" in window && Notification.permission === "default") {
  notifyButton.hidden = false;
  notifyButton.onclick = async () => {
    await Notification.requestPermission();
    notifyButton.hidden = Notification.permission !== "default";
  };
}

connect();
