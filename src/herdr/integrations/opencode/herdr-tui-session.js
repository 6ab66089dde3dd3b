// installed by herdr; managed by herdr: reinstalling the integration overwrites this file.
// HERDR_INTEGRATION_ID=opencode-tui
// HERDR_INTEGRATION_VERSION=11
//
// OpenCode TUI plugin: when you select a root session in this pane's TUI, tells the herdr
// pane which session it shows (so herdr resumes that one). Outside herdr it does nothing.
import net from "node:net";

const SOURCE = "herdr:opencode";
const AGENT = "opencode";
const POLL_MS = 100;
const RETRY_MS = [100, 400, 1000];

function reportSelection(sessionId) {
  const env = process.env;
  const socketPath =
    process.platform === "win32" ? `\\\\.\\pipe\\${env.HERDR_SOCKET_PATH}` : env.HERDR_SOCKET_PATH;
  const rid = `${SOURCE}:tui:${Date.now()}:${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`;
  const params = {
    pane_id: env.HERDR_PANE_ID,
    source: SOURCE,
    agent: AGENT,
    agent_session_id: sessionId,
    session_start_source: "select",
  };
  const line = `${JSON.stringify({ id: rid, method: "pane.report_agent_session", params })}\n`;
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
    const timer = setTimeout(() => finish(false), 500);
    timer.unref?.();
    client.on("data", () => finish(true));
    client.on("error", () => finish(false));
    client.on("close", () => finish(false));
  });
}

async function tui(api) {
  const env = process.env;
  if (env.HERDR_ENV !== "1" || !env.HERDR_SOCKET_PATH || !env.HERDR_PANE_ID) return;
  let selected = undefined;
  let attempts = 0;
  let nextAt = 0;
  let busy = false;
  let finished = false;

  const tick = async () => {
    if (busy) return;
    const route = api?.route?.current;
    const id = route?.name === "session" ? route.params?.sessionID : undefined;
    const session = typeof id === "string" && id ? api?.state?.session?.get?.(id) : undefined;
    if (!session || session.parentID) {
      selected = undefined;
      return;
    }
    if (id !== selected) {
      selected = id;
      attempts = 0;
      nextAt = 0;
      finished = false;
    }
    if (finished || Date.now() < nextAt) return;
    busy = true;
    try {
      if (await reportSelection(id)) finished = true;
      else if (attempts < RETRY_MS.length) nextAt = Date.now() + RETRY_MS[attempts++];
      else finished = true;
    } finally {
      busy = false;
    }
  };

  const timer = setInterval(() => {
    tick().catch(() => {});
  }, POLL_MS);
  timer.unref?.();
  const dispose = () => clearInterval(timer);
  api?.lifecycle?.onDispose?.(dispose);
  return dispose;
}

export default { id: "herdr.opencode.session-selection", tui };
