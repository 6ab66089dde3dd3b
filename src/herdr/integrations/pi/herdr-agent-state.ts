// installed by herdr; managed by herdr: reinstalling the integration overwrites this file.
// Add your own extensions beside this file instead of editing it.
// HERDR_INTEGRATION_ID=pi
// HERDR_INTEGRATION_VERSION=9
// @ts-nocheck
//
// Pi extension: reports the agent's state (working / blocked / idle) and its session file
// to the herdr pane it runs in. Outside herdr (HERDR_ENV unset) it registers nothing.
// Reports go over herdr's local Unix socket only, one at a time, each with a short
// timeout, and never throw into Pi.
import net from "node:net";

const SOURCE = "herdr:pi";
const AGENT = "pi";

export default function herdrAgentState(pi) {
  const env = process.env;
  if (env.HERDR_ENV !== "1" || !env.HERDR_SOCKET_PATH || !env.HERDR_PANE_ID) return;
  const socketPath =
    process.platform === "win32" ? `\\\\.\\pipe\\${env.HERDR_SOCKET_PATH}` : env.HERDR_SOCKET_PATH;
  const paneId = env.HERDR_PANE_ID;
  let seq = Date.now() * 1000;
  let active = false;
  let ref = undefined;
  let working = false;
  let settledSeen = false;
  let blocked = 0;
  let blockedLabel = undefined;
  let published = undefined;
  let queue = Promise.resolve();

  function sendOnce(line, timeoutMs) {
    return new Promise((resolve) => {
      let done = false;
      const finish = (ok) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        client.destroy();
        resolve(ok);
      };
      const client = net.createConnection(socketPath, () => client.write(line));
      const timer = setTimeout(() => finish(false), timeoutMs);
      timer.unref?.();
      client.on("data", () => finish(true));
      client.on("error", () => finish(false));
      client.on("close", () => finish(false));
    });
  }

  function enqueue(method, extra) {
    seq += 1;
    const params = { pane_id: paneId, source: SOURCE, agent: AGENT, seq, ...refParams(), ...extra };
    const rid = `${SOURCE}:${Date.now()}:${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`;
    const line = `${JSON.stringify({ id: rid, method, params })}\n`;
    queue = queue
      .then(async () => {
        if (!(await sendOnce(line, 500))) await sendOnce(line, 1500);
      })
      .catch(() => {});
    return queue;
  }

  function refParams() {
    if (!ref) return {};
    return ref.startsWith("/") ? { agent_session_path: ref } : { agent_session_id: ref };
  }

  function refresh(ctx) {
    try {
      const manager = ctx?.sessionManager;
      const file = manager?.getSessionFile?.();
      const id = manager?.getSessionId?.();
      if (typeof file === "string" && file.startsWith("/")) ref = file;
      else if (typeof id === "string" && id) ref = id;
    } catch {
      // keep the last known reference
    }
  }

  function publish(force) {
    const state = blocked > 0 ? "blocked" : working ? "working" : "idle";
    const message = state === "blocked" && blockedLabel ? blockedLabel : undefined;
    const key = `${state}\u0000${message ?? ""}`;
    if (!force && key === published) return queue;
    published = key;
    return enqueue("pane.report_agent", message ? { state, message } : { state });
  }

  // Interactive runs only (print and RPC runs are not the pane's agent): newer Pi says
  // `ctx.mode === "tui"`; Pi 0.73 (npm) has no `mode`, only `hasUI` (false in print/RPC).
  function interactive(ctx) {
    if (ctx?.mode !== undefined) return ctx.mode === "tui";
    return ctx?.hasUI === true;
  }

  pi.on("session_start", async (event, ctx) => {
    if (!interactive(ctx)) return;
    active = true;
    refresh(ctx);
    const reason = typeof event?.reason === "string" ? event.reason : undefined;
    enqueue("pane.report_agent_session", reason ? { session_start_source: reason } : {});
    working = typeof ctx.isIdle === "function" ? !ctx.isIdle() : false;
    await publish(true);
  });

  pi.on("agent_start", async (_event, ctx) => {
    if (!active) return;
    refresh(ctx);
    enqueue("pane.report_agent_session", {});
    working = true;
    await publish(false);
  });

  pi.on("agent_settled", async (_event, ctx) => {
    if (!active) return;
    settledSeen = true;
    if (typeof ctx?.isIdle === "function" && !ctx.isIdle()) return;
    working = false;
    await publish(false);
  });

  // Pi 0.73 has no agent_settled: its agent_end ends the run (a retry starts a new one,
  // which reports working again through agent_start).
  pi.on("agent_end", async () => {
    if (!active || settledSeen) return;
    working = false;
    await publish(false);
  });

  pi.events?.on?.("herdr:blocked", (data) => {
    if (!active) return;
    if (data?.active) {
      blocked += 1;
      if (typeof data.label === "string") blockedLabel = data.label;
    } else {
      blocked = Math.max(0, blocked - 1);
      if (blocked === 0) blockedLabel = undefined;
    }
    publish(false);
  });
}
