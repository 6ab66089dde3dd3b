#!/bin/sh
# installed by herdr; managed by herdr: reinstalling the integration overwrites this file.
# HERDR_INTEGRATION_ID=mastracode
# HERDR_INTEGRATION_VERSION=2
#
# MastraCode hook: reports the agent's state (working / blocked / idle) and its thread id
# to the herdr pane it runs in; MastraCode has no screen fallback, this is its state.
# Outside herdr (HERDR_ENV unset) it does nothing; it never fails the agent: every error
# is swallowed and the exit status is 0.
case "${1:-}" in session|working|blocked|idle) ;; *) exit 0 ;; esac
[ "${HERDR_ENV:-}" = 1 ] || exit 0
[ -n "${HERDR_SOCKET_PATH:-}" ] && [ -n "${HERDR_PANE_ID:-}" ] || exit 0
command -v python3 >/dev/null 2>&1 || exit 0
HERDR_HOOK_PROGRAM=$(cat <<'PY'
import json, os, random, select, signal, socket, sys, time

SOURCE = "herdr:mastracode"
AGENT = "mastracode"
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


def first(data, *keys):
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def send(method, **extra):
    params = {"pane_id": os.environ["HERDR_PANE_ID"], "source": SOURCE, "agent": AGENT}
    params["seq"] = time.time_ns()
    params.update(extra)
    rid = "%s:%d:%06d" % (SOURCE, time.time_ns() // 1000000, random.randrange(10**6))
    line = json.dumps({"id": rid, "method": method, "params": params}) + "\n"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(0.5)
    try:
        sock.connect(os.environ["HERDR_SOCKET_PATH"])
        sock.sendall(line.encode())
        sock.recv(4096)
    finally:
        sock.close()


def main(action):
    session_id = first(payload(), "session_id")
    if action == "session":
        if session_id:
            send(
                "pane.report_agent_session",
                agent_session_id=session_id,
                session_start_source="startup",
            )
        return
    extra = {"state": action}
    if session_id:
        extra["agent_session_id"] = session_id
    send("pane.report_agent", **extra)

try:
    signal.alarm(3)
    main(sys.argv[1] if len(sys.argv) > 1 else "")
except BaseException:
    pass
PY
)
# -I -S: nothing from the agent's working directory, PYTHONPATH or site-packages is imported
python3 -I -S -c "$HERDR_HOOK_PROGRAM" "${1:-}" >/dev/null 2>&1
exit 0
