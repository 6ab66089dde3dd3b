// installed by herdr; managed by herdr: reinstalling the integration overwrites this file.
// HERDR_INTEGRATION_ID=opencode
// HERDR_INTEGRATION_VERSION=11
//
// OpenCode server plugin: reports the root session's state (working / blocked / idle) and
// its session id to the herdr pane it runs in. Outside herdr it returns no hooks. Reports
// go over herdr's local Unix socket only, one at a time, with a 500 ms timeout.
import net from "node:net";

const SOURCE = "herdr:opencode";
const AGENT = "opencode";
const WORKING = new Set(["active", "busy", "pending", "retry", "running", "streaming", "working"]);
const TO_WORKING = new Set([
  "tool.execute.before",
  "tool.execute.after",
  "permission.replied",
  "question.replied",
  "question.rejected",
  "session.compacted",
]);
const TO_BLOCKED = new Set(["permission.asked", "question.asked", "session.error"]);
const CHILD_EVENTS = new Map([
  ["permission.asked", "blocked"],
  ["question.asked", "blocked"],
  ["permission.replied", "working"],
  ["question.replied", "working"],
  ["question.rejected", "working"],
]);

export const HerdrAgentStatePlugin = async () => {
  const env = process.env;
  if (env.HERDR_ENV !== "1" || !env.HERDR_SOCKET_PATH || !env.HERDR_PANE_ID) return {};
  const socketPath =
    process.platform === "win32" ? `\\\\.\\pipe\\${env.HERDR_SOCKET_PATH}` : env.HERDR_SOCKET_PATH;
  const paneId = env.HERDR_PANE_ID;
  const children = new Set();
  let seq = Date.now() * 1000;
  let root = undefined;
  let reportedRoot = undefined;
  let claimed = false;
  let queue = Promise.resolve();

  function sendOnce(line) {
    return new Promise((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        client.destroy();
        resolve();
      };
      const client = net.createConnection(socketPath, () => client.write(line));
      const timer = setTimeout(finish, 500);
      timer.unref?.();
      client.on("data", finish);
      client.on("error", finish);
      client.on("close", finish);
    });
  }

  function report(method, extra) {
    seq += 1;
    const params = { pane_id: paneId, source: SOURCE, agent: AGENT, seq, ...extra };
    const rid = `${SOURCE}:${Date.now()}:${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`;
    const line = `${JSON.stringify({ id: rid, method, params })}\n`;
    queue = queue.then(() => sendOnce(line)).catch(() => {});
    return queue;
  }

  function state(value, sessionId) {
    const extra = { state: value };
    if (sessionId) extra.agent_session_id = sessionId;
    return report("pane.report_agent", extra);
  }

  // The first root-session report of this process claims the pane ("startup"): with the
  // opencode process in the pane, herdr counts a full-lifecycle reporter's state only once
  // a session claim anchored it. Without this, a server plugin running without our TUI
  // plugin (`opencode run`, a TUI that never selected a session) had every report dropped.
  function claimSession(id) {
    const extra = { agent_session_id: id };
    if (!claimed) extra.session_start_source = "startup";
    claimed = true;
    return report("pane.report_agent_session", extra);
  }

  function sessionOf(event) {
    const props = event?.properties ?? {};
    return props.sessionID ?? props.info?.id ?? props.part?.sessionID;
  }

  return {
    "chat.message": async (input) => {
      const id = input?.sessionID;
      if (id && children.has(id)) return;
      if (id && !root) root = id;
      await state("working", root);
    },
    event: async ({ event }) => {
      const type = event?.type;
      if (typeof type !== "string") return;
      const info = event.properties?.info;
      if (info?.id && info.parentID) children.add(info.id);
      const id = sessionOf(event);
      if (id && children.has(id)) {
        const childState = CHILD_EVENTS.get(type);
        if (childState) await state(childState, undefined);
        return;
      }
      if (type === "session.created") {
        if (info?.id) root = info.id;
        return;
      }
      if (type === "session.updated") {
        if (info?.id) root = info.id;
        if (root && root !== reportedRoot) {
          reportedRoot = root;
          await claimSession(root);
        }
        return;
      }
      if (id && !root) root = id;
      if (type === "session.status") {
        const raw = event.properties?.status;
        const status = String(typeof raw === "string" ? raw : raw?.type ?? "").toLowerCase();
        if (status === "idle") await state("idle", root);
        else if (WORKING.has(status)) await state("working", root);
        else if (root) await claimSession(root);
        return;
      }
      if (type === "session.idle") await state("idle", root);
      else if (TO_WORKING.has(type)) await state("working", root);
      else if (TO_BLOCKED.has(type)) await state("blocked", root);
    },
  };
};
