// Agent select on a hotkey (docs/match-rules.md 4.17): newer observer clients let the operator show
// the agent-select screen with a hotkey instead of automatically at the first roster message.
// `tools.agentSelectAutostart` is fixed at creation (tools.ts, 2.2 step 7); `agentSelectActive` is
// what the overlay follows.

import { touch } from './dirty.js';
import type { MatchState } from './types.js';

/** A `roster` message: agent select becomes active when it starts by itself. */
export function rosterAgentSelect(state: MatchState): void {
  const tools = state.tools;
  if (!tools.agentSelectAutostart || tools.agentSelectActive) return;
  touch(tools);
  tools.agentSelectActive = true;
}

/** `toggle_agent_select`: the operator's hotkey flips it, whatever the autostart setting. */
export function toggleAgentSelect(state: MatchState): void {
  const tools = state.tools;
  touch(tools);
  tools.agentSelectActive = !tools.agentSelectActive;
}
