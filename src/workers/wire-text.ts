// The match_data WebSocket message a frame travels as, 42["match_data","<the frame's JSON, escaped
// as a JSON string>"] (docs/client-contract.md 1.2), and what is read back from its text: the state's
// JSON (a frame without serverTime) and the string literal a version 2 snapshot keeps
// (src/workers/match/snapshot.ts). ./wire-serializer.ts writes it.

export const PREFIX = '42["match_data","';
export const SUFFIX = '"]';

const SERVER_TIME_MEMBER = ',"serverTime":';

/**
 * The JSON text of the state a frame's message text shows (the frame without serverTime, its last
 * member): the message's string argument unescaped by JSON.parse, serverTime cut off. The same
 * values as JSON.stringify(m.liveState()) gives, members in the schema's order.
 */
export function stateJsonOfWire(wire: string): string {
  if (!wire.startsWith(PREFIX) || !wire.endsWith(SUFFIX)) throw new Error('not a match_data message');
  const json = JSON.parse(wire.slice(PREFIX.length - 1, wire.length - SUFFIX.length + 1)) as string;
  const cut = json.lastIndexOf(SERVER_TIME_MEMBER);
  if (cut < 0 || !/^-?[0-9.e+-]+}$/.test(json.slice(cut + SERVER_TIME_MEMBER.length))) throw new Error('a match_data frame without serverTime last');
  return json.slice(0, cut) + '}';
}

/**
 * The string literal of a frame's message text, `42["match_data",<literal>]`: a JSON string whose
 * value is the frame's JSON (a version 2 snapshot's state, src/workers/match/snapshot.ts).
 */
export function frameLiteralOfWire(wire: string): string {
  if (!wire.startsWith(PREFIX) || !wire.endsWith(SUFFIX)) throw new Error('not a match_data message');
  return wire.slice(PREFIX.length - 1, wire.length - SUFFIX.length + 1);
}
