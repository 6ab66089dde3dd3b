#!/bin/sh
# installed by herdr; managed by herdr: reinstalling the integration overwrites this file.
# HERDR_INTEGRATION_ID=claude
# HERDR_INTEGRATION_VERSION=8
#
# Claude Code SessionStart hook: tells the herdr pane it runs in which Claude session it
# hosts, so herdr can resume it after a restart. Outside herdr (HERDR_ENV unset) it does
# nothing. It never fails the agent: every error is swallowed and the exit status is 0.
[ "${1:-}" = session ] || exit 0
[ "${HERDR_ENV:-}" = 1 ] || exit 0
[ -n "${HERDR_SOCKET_PATH:-}" ] && [ -n "${HERDR_PANE_ID:-}" ] || exit 0
command -v python3 >/dev/null 2>&1 || exit 0
HERDR_HOOK_PROGRAM=$(cat <<'PY'
import json, os, random, select, signal, socket, sys, time

START_SOURCES = {"startup", "resume", "clear", "compact", "branch", "new", "fork", "select"}


def payload():
    try:
        if sys.stdin is None or sys.stdin.isatty():
            return {}
        if not select.select([sys.stdin], [], [], 2.0)[0]:
            return {}
        data = json.loads(sys.stdin.buffer.read(4 << 20) or b"{}")
        return data if isinstance(data, dict) else {}
    except Exception:
        return {}


def send(method, params):
    rid = "%s:%d:%06d" % (params["source"], time.time_ns() // 1000000, random.randrange(10**6))
    line = json.dumps({"id": rid, "method": method, "params": params}) + "\n"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(0.5)
    try:
        sock.connect(os.environ["HERDR_SOCKET_PATH"])
        sock.sendall(line.encode())
        sock.recv(4096)
    finally:
        sock.close()


def main():
    signal.alarm(3)
    data = payload()
    if data.get("agent_id") or data.get("hook_event_name") == "SubagentStop":
        return  # a subagent's session is not the pane's
    session_id = data.get("session_id")
    if not isinstance(session_id, str) or not session_id.strip():
        return
    params = {
        "pane_id": os.environ["HERDR_PANE_ID"],
        "source": "herdr:claude",
        "agent": "claude",
        "seq": time.time_ns(),
        "agent_session_id": session_id,
    }
    path = data.get("transcript_path")
    if isinstance(path, str) and path.strip():
        params["agent_session_path"] = path
    start = data.get("source")
    if data.get("hook_event_name", "SessionStart") == "SessionStart" and start in START_SOURCES:
        params["session_start_source"] = start
    send("pane.report_agent_session", params)


try:
    main()
except BaseException:
    pass
PY
)
# -I -S: nothing from the agent's working directory, PYTHONPATH or site-packages is imported
python3 -I -S -c "$HERDR_HOOK_PROGRAM" >/dev/null 2>&1
exit 0
