// The ingestion listener's Socket.IO parser (src/main/sockets/ingest-parser.ts) against
// socket-io-parser: the same packets (or, for object payloads of the hot events, their JSON text),
// the same errors, for what the clients send and what a hostile client could.
import { Decoder, Encoder, PacketType, type Packet } from 'socket.io-parser';
import { describe, expect, it } from 'vitest';
import { ingestParser, objectEnd, OTHER_EVENT, RawPayload } from '../../../src/main/sockets/ingest-parser.js';

const EVENTS = ['obs_logon', 'aux_logon', 'obs_data', 'aux_data'];
const parser = ingestParser(EVENTS);

/** What a decoder makes of `input` (packets decoded, or the error it threw). */
function decodeWith(decoder: Decoder, inputs: unknown[]): { packets: Packet[]; error?: string } {
  const packets: Packet[] = [];
  decoder.on('decoded', (p: Packet) => packets.push(p));
  try {
    for (const input of inputs) decoder.add(input);
  } catch (err) {
    return { packets, error: (err as Error).message };
  }
  return { packets };
}

/** socket-io-parser's result, with unknown event names renamed as the ingestion parser does. */
function reference(inputs: unknown[]): { packets: Packet[]; error?: string } {
  const out = decodeWith(new Decoder(), inputs);
  for (const p of out.packets) {
    if (p.type === PacketType.EVENT && !EVENTS.includes(p.data[0])) p.data[0] = OTHER_EVENT;
  }
  return out;
}

const encode = (packet: Packet): unknown[] => new Encoder().encode(packet);
const env = JSON.stringify({ obsName: 'O', groupCode: 'ABC123', type: 'map', data: 'Ascent \\ "quoted" \u00e9 \u2028' });

describe('ingestion parser', () => {
  it('decodes what the clients send exactly as socket-io-parser does', () => {
    const cases: unknown[][] = [
      ['0'], ['0{"pid":"abc","offset":"1.x"}'], ['1'],
      encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_logon', env] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', env] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['aux_data', env] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', ''] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', 'not json {'] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', env, env] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data'] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', 5] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', null] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', [1, 2]] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', env], id: 7 }),
      encode({ type: PacketType.EVENT, nsp: '/admin', data: ['obs_data', env] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['not_an_event', env] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: [5, env] }),
      encode({ type: PacketType.ACK, nsp: '/', data: ['x'], id: 3 }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', Buffer.from([0, 1, 2])] }),
      encode({ type: PacketType.EVENT, nsp: '/', data: ['obs_data', { a: Buffer.from([1]) }] }),
      ['2["obs_data","a"]]'], ['2["obs_data","a"  ]'], ['2["obs_data", "a"]'], ['2["obs_data","a",'], ['2["obs_data",'],
      ['2["obs_data","\\u001e"]'], ['2["disconnect","x"]'], ['9'], ['2["obs_data","a"'], ['2[obs_data,"a"]'],
    ];
    for (const inputs of cases) expect(decodeWith(new parser.Decoder(), inputs), JSON.stringify(inputs)).toEqual(reference(inputs));
  });

  it('keeps an object payload of a hot event as its JSON text, unparsed', () => {
    const obj = { obsName: 'O', groupCode: 'ABC123', type: 'scoreboard', data: { s: 'x}]"\\{[', n: [1, { a: 2 }] } };
    for (const event of ['obs_data', 'aux_data']) {
      const [text] = encode({ type: PacketType.EVENT, nsp: '/', data: [event, obj] }) as string[];
      const { packets } = decodeWith(new parser.Decoder(), [text]);
      expect(packets).toHaveLength(1);
      const [name, payload] = packets[0].data as [string, RawPayload];
      expect(name).toBe(event);
      expect(payload).toBeInstanceOf(RawPayload);
      expect(JSON.parse(payload.text)).toEqual(obj);
    }
    // Not one balanced object, or deeper than the limit: socket-io-parser decides (a parsed value, or its error).
    const deep = JSON.stringify({ groupCode: 'x', data: JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40)) });
    for (const text of [`2["obs_data",${deep}]`, '2["obs_data",{"a":1},{"b":2}]', '2["obs_data",{"a":"1}]', '2["obs_data",{"a":1}}]']) {
      expect(decodeWith(new parser.Decoder(), [text]), text).toEqual(reference([text]));
    }
  });

  it('finds the end of one object, strings and escapes skipped', () => {
    expect(objectEnd('x{"a":"}\\"}"}y', 1)).toBe(13);
    expect(objectEnd('{"a":[1,{"b":2}]}', 0)).toBe(17);
    expect(objectEnd('{"a":"b\\\\"}', 0)).toBe(11); // a string ending in an escaped backslash
    expect(objectEnd('{"a":"b\\\\\\"}"}', 0)).toBe(14); // an escaped backslash, then an escaped quote
    expect(objectEnd('{"a":"b\\"}', 0)).toBe(-1); // the quote is escaped: the string never ends
    expect(objectEnd('{"a":1', 0)).toBe(-1);
    expect(objectEnd('{"a', 0)).toBe(-1);
    expect(objectEnd('['.repeat(33) + ']'.repeat(33), 0)).toBe(-1);
  });
});
