// The match_data event as it travels in a WebSocket message: Engine.IO message "4", Socket.IO
// event "2", then the JSON array [event, payload]; the payload is the frame's JSON as a string
// (docs/client-contract.md 1.2: the overlay JSON.parses the string argument).
export function wireMessage(frameJson: string): string {
  return '42["match_data",' + JSON.stringify(frameJson) + ']';
}

export const WIRE_PREFIX_LENGTH = 2;

/** The frame's JSON from its WebSocket message text (the inverse of wireMessage). */
export function matchDataJson(wire: string): string {
  return (JSON.parse(wire.slice(WIRE_PREFIX_LENGTH)) as [string, string])[1];
}
