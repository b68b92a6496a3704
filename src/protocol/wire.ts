// The match_data event as it travels in a WebSocket message: Engine.IO message "4", Socket.IO
// event "2", then the JSON array [event, payload]; the payload is the frame's JSON as a string
// (docs/client-contract.md 1.2: the overlay JSON.parses the string argument).
export function wireMessage(frameJson: string): string {
  return '42["match_data",' + JSON.stringify(frameJson) + ']';
}

export const WIRE_PREFIX_LENGTH = 2;
