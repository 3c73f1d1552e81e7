// opencode: each call's tool.execute.before goes to the danger gate (a deny throws, and opencode
// hands the model the error's message as the tool's result); tool.execute.after goes to the
// dispatcher, whose advice is added to the output the model reads.
export const HookmuxPlugin = async ({ directory, worktree }) => {
  const cwd = directory || worktree || process.cwd();
  return {
    "tool.execute.before": async (input, output) => {
      let reason = null;
      try {
        const answer = await hookmuxRun(HOOKMUX.gate, "tool.execute.before", {
          hook_event_name: "tool.execute.before", session_id: input.sessionID, call_id: input.callID, cwd,
          tool_name: input.tool, tool_input: output.args,
        }, HOOKMUX.gate_timeout_ms);
        reason = hookmuxDenyReason(answer);
      } catch {
        reason = null;
      }
      if (reason) throw new Error(reason);
    },
    "tool.execute.after": async (input, output) => {
      try {
        if (typeof output.output !== "string") return;
        const answer = await hookmuxRun(HOOKMUX.dispatch, "tool.execute.after", {
          hook_event_name: "tool.execute.after", session_id: input.sessionID, call_id: input.callID, cwd,
          tool_name: input.tool, tool_input: input.args, tool_response: { output: output.output },
        }, HOOKMUX.dispatch_timeout_ms);
        const context = hookmuxContext(answer);
        if (context) output.output = output.output + "\n\n" + context;
      } catch {}
    },
  };
};
