"""Two hooks trees' dispatchers on a B5 payload, alternating run by run: for a before/after figure
on a loaded machine, where ``hookmux bench`` rounds of one tree after the other drift apart.

    python tests/bench/ab_dispatch.py PYTHON RUNS plain|new BEFORE_HOOKS_TREE AFTER_HOOKS_TREE

Each tree is copied to a temporary folder, its manifest's hooks_root pointed at the copy, and
byte-compiled; the dispatcher is spawned as ``PYTHON -S -E dispatch.py PreToolUse`` with the
payload on stdin (``plain``: Bash ``ls -la src``; ``new``: a force push in a new session each run),
stdout and stderr to /dev/null. Prints wall and CPU (user + system of the dispatcher process, from
``wait4``) medians for each, and after/before. Not a test: a measuring tool (docs/reliability.md).
"""
import json, os, shutil, subprocess, sys, tempfile, time, statistics
py = sys.argv[1]; n = int(sys.argv[2]); mode = sys.argv[3]
before, after = sys.argv[4], sys.argv[5]
counter = [0]
work = tempfile.mkdtemp(prefix="ab-dispatch-", dir="/tmp")
trees = {}
for name, src in (("before", before), ("after", after)):
    t = os.path.join(work, name)
    shutil.copytree(src, t, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    m = os.path.join(t, "_dispatch", "manifest.json")
    d = json.load(open(m)); d["hooks_root"] = t; d.pop("$schema", None); json.dump(d, open(m, "w"))
    subprocess.run([py, "-m", "compileall", "-q", t], check=True)
    trees[name] = t
payload = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                      "tool_input": {"command": "ls -la src"}, "cwd": work}).encode()
env = {"PATH": os.environ["PATH"], "HOME": work, "HOOKMUX_STATE_DIR": work + "/state", "HOOKMUX_RUNTIME_DIR": work + "/run"}
stdin_path = os.path.join(work, "payload.json"); open(stdin_path, "wb").write(payload)
res = {k: {"wall": [], "cpu": []} for k in trees}
def one(name):
    if mode == "new":
        counter[0] += 1
        open(stdin_path, "wb").write(json.dumps({"session_id": "s%d" % counter[0], "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": "git push --force origin main"}, "cwd": work}).encode())
    fd = os.open(stdin_path, os.O_RDONLY); null = os.open(os.devnull, os.O_WRONLY)
    t0 = time.perf_counter()
    pid = os.posix_spawn(py, [py, "-S", "-E", os.path.join(trees[name], "_dispatch", "dispatch.py"), "PreToolUse"], env,
                         file_actions=[(os.POSIX_SPAWN_DUP2, fd, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)])
    _, status, ru = os.wait4(pid, 0)
    wall = (time.perf_counter() - t0) * 1000
    os.close(fd); os.close(null)
    return wall, (ru.ru_utime + ru.ru_stime) * 1000
for _ in range(10):
    for k in trees: one(k)
for i in range(n):
    order = ("before", "after") if i % 2 == 0 else ("after", "before")
    for k in order:
        w, c = one(k); res[k]["wall"].append(w); res[k]["cpu"].append(c)
for k, v in res.items():
    print(k, "wall median %.2f mean %.2f min %.2f | cpu median %.2f mean %.2f" % (
        statistics.median(v["wall"]), statistics.mean(v["wall"]), min(v["wall"]), statistics.median(v["cpu"]), statistics.mean(v["cpu"])))
b, m = res["before"], res["after"]
print("after/before wall median %.3f cpu median %.3f" % (statistics.median(m["wall"]) / statistics.median(b["wall"]), statistics.median(m["cpu"]) / statistics.median(b["cpu"])))
shutil.rmtree(work, ignore_errors=True)
