// Pi: each call's tool_call goes to the danger gate ({block: true, reason} on a deny); its
// tool_result goes to the dispatcher, whose advice is added to the content the model reads.
// Pi blocks a call whose tool_call handler throws: nothing here throws.
export default function hookmux(pi) {
  const where = (ctx) => {
    try { return ctx.cwd || process.cwd(); } catch { return process.cwd(); }
  };
  const session = (ctx) => {
    try { return ctx.sessionManager.getSessionId() || ""; } catch { return ""; }
  };
  pi.on("tool_call", async (event, ctx) => {
    try {
      const answer = await hookmuxRun(HOOKMUX.gate, "tool_call", {
        hook_event_name: "tool_call", session_id: session(ctx), call_id: event.toolCallId, cwd: where(ctx),
        tool_name: event.toolName, tool_input: event.input,
      }, HOOKMUX.gate_timeout_ms);
      const reason = hookmuxDenyReason(answer);
      if (reason) return { block: true, reason };
    } catch {}
    return undefined;
  });
  pi.on("tool_result", async (event, ctx) => {
    try {
      const content = Array.isArray(event.content) ? event.content : [];
      const text = content.filter((part) => part && part.type === "text").map((part) => part.text).join("\n");
      const answer = await hookmuxRun(HOOKMUX.dispatch, "tool_result", {
        hook_event_name: "tool_result", session_id: session(ctx), call_id: event.toolCallId, cwd: where(ctx),
        tool_name: event.toolName, tool_input: event.input, tool_response: { output: text, is_error: !!event.isError },
      }, HOOKMUX.dispatch_timeout_ms);
      const context = hookmuxContext(answer);
      if (context) return { content: [...content, { type: "text", text: context }] };
    } catch {}
    return undefined;
  });
}
