// The part the opencode plugin and the Pi extension share (installer/host_plugins.py puts it
// into each written file): run one hookmux hook as a subprocess and read its answer.
// Fail open: an interpreter or script that is gone, a crash, a timeout or output that is not
// hookmux's JSON is no answer, and no answer lets the call run.
import { spawn } from "node:child_process";

function hookmuxRun(script, event, payload, timeoutMs) {
  return new Promise((resolve) => {
    let out = "";
    let done = false;
    let timer = null;
    const finish = (value) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      resolve(value);
    };
    let child;
    try {
      child = spawn(HOOKMUX.python, [...HOOKMUX.python_flags, script, "--host", HOOKMUX.host, event],
        { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      finish(null);
      return;
    }
    timer = setTimeout(() => {
      try { child.kill("SIGKILL"); } catch {}
      finish(null);
    }, timeoutMs);
    child.on("error", () => finish(null));
    child.stdout.on("data", (chunk) => { out += chunk; });
    child.on("close", (code) => finish(code === 0 ? hookmuxAnswer(out) : null));
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

// The hook's answer: the last line of its stdout that is a JSON object with hookSpecificOutput.
function hookmuxAnswer(text) {
  const lines = String(text).split("\n").reverse();
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const data = JSON.parse(line);
      if (data && typeof data === "object" && data.hookSpecificOutput && typeof data.hookSpecificOutput === "object") {
        return data.hookSpecificOutput;
      }
    } catch {}
  }
  return null;
}

function hookmuxDenyReason(answer) {
  if (!answer || answer.permissionDecision !== "deny") return null;
  const reason = answer.permissionDecisionReason;
  return typeof reason === "string" && reason ? reason : "hookmux danger gate: this call was NOT run.";
}

function hookmuxContext(answer) {
  const text = answer && answer.additionalContext;
  return typeof text === "string" && text ? text : null;
}
