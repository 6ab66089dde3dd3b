

def test_a_new_kind_file_identifies_an_already_running_process(herdr_env: HerdrEnv) -> None:
    """The kind is written while ``zork`` already runs unidentified in a pane: the
    watcher loads it and the pane (no agent yet, so restarted) is identified."""
    bin_dir = herdr_env.root / "zork-bin"
    bin_dir.mkdir()
    (bin_dir / "zork").symlink_to(FAKE_ZORK)
    herdr_env.env["PATH"] = f"{bin_dir}{os.pathsep}{herdr_env.env.get('PATH', '')}"
    herdr_env.env["HERDR_AGENT_MANIFEST_WATCH_S"] = "0.2"
    server = ServerHandle(herdr_env, herdr_env.start_server())
    pane = f"{new_workspace(server)}:p1"
    ok(server.request("pane.send_input", {"pane_id": pane, "text": "zork", "keys": ["Enter"]}))

    def running() -> bool:
        info = ok(server.request("pane.process_info", {"pane_id": pane}))["process_info"]
        return any(p.get("name") == "zork" for p in info.get("foreground_processes", []))

    wait_until(running, timeout=20, interval=0.05, message="zork never ran")
    assert "agent" not in pane_record(server, pane)

    agents = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "agents"
    agents.mkdir(parents=True)
    (agents / "zork.manifest.toml").write_text(MANIFEST, "utf-8")
    (agents / "zork.toml").write_text(KIND, "utf-8")
    wait_until(
        lambda: pane_record(server, pane).get("agent") == "zork",
        timeout=20,
        interval=0.1,
        message="the running zork was never identified after its kind appeared",
    )
    wait_status(server, pane, "idle", "done")
