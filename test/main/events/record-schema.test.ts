// The match record's layout in the schema (issue 37; README, "Match records"; docs/events.md, "The
// match record"): GET /schema/record.json describes the record, and GET /schema/events.json carries
// it as match_ended's data.record (it said only `record: object` before). The recorded match's
// record, read with the admin API, validates against both as a consumer reads them (ajv, draft
// 2020-12); a record that breaks the layout does not; the CSV exports' columns are `matchKey` then
// the members of the schema's row items in order, each row the record's item.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { parseCsv } from '../../helpers/recorded-events.js';
import { serviceWithReceiver, webhookSecret } from '../../helpers/webhook-service.js';

const replay = recordedMatch();
const KEY = 'record-schema-key-0123456789';
const CODE = 'RECSCH';
const SECRET = webhookSecret('record-schema-secret-24-bytes!');

const start = serviceWithReceiver(SECRET, { events: ['match_ended'] });

type Row = Record<string, unknown>;
type RecordSchema = { properties: Record<'players' | 'playerRounds', { items: { properties: Record<string, unknown> } }> };

function compile(schema: object) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  ajv.addFormat('date-time', (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s) && !Number.isNaN(Date.parse(s)));
  return ajv.compile(schema);
}

describe('the match record', () => {
  it('validates against GET /schema/record.json and inside match_ended against GET /schema/events.json; the CSVs are its rows', async () => {
    const { svc, rx } = await start({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true' });
    const { socket } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: CODE });
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE });
    await rx.waitFor((ev) => ev.some((e) => e.type === 'match_ended'), 90_000);
    const ended = rx.unique().find((e) => e.type === 'match_ended')!;
    const key = encodeURIComponent(ended.matchKey);
    const record = await (await svc.admin.request('GET', `/admin/records/${key}`)).json() as Row;

    const res = await fetch(`${svc.rest}/schema/record.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/schema+json');
    const schema = await res.json() as RecordSchema;
    const validRecord = compile(schema);
    expect(validRecord(record) ? [] : validRecord.errors).toEqual([]);
    const validEvent = compile(await (await fetch(`${svc.rest}/schema/events.json`)).json() as object);
    expect(validEvent(ended) ? [] : validEvent.errors).toEqual([]);
    expect(ended.data.record).toEqual(record);

    // The layout is checked, not only "an object": a count that is not a number, a missing list, a
    // wrong team, in the record and in match_ended's data.record.
    const broken: Row[] = [
      { ...record, playerRounds: [{ ...(record.playerRounds as Row[])[0], kills: 'three' }] },
      Object.fromEntries(Object.entries(record).filter(([k]) => k !== 'rounds')),
      { ...record, players: [{ ...(record.players as Row[])[0], team: 2 }] },
    ];
    for (const b of broken) {
      expect(validRecord(b)).toBe(false);
      expect(validEvent({ ...ended, data: { ...ended.data, record: b } })).toBe(false);
    }

    // Each CSV: matchKey, then the members of the schema's row item in order; a row per item.
    for (const [file, list] of [['rounds.csv', 'playerRounds'], ['players.csv', 'players']] as const) {
      const text = await (await svc.admin.request('GET', `/admin/records/${key}/${file}`)).text();
      const columns = ['matchKey', ...Object.keys(schema.properties[list].items.properties)];
      expect(text.split(/\r?\n/)[0]).toBe(columns.join(','));
      const rows = parseCsv(text);
      const items = record[list] as Row[];
      expect(rows).toHaveLength(items.length);
      rows.forEach((row, i) => expect(row).toEqual(Object.fromEntries(columns.map((c) => [c, String(c === 'matchKey' ? record.matchKey : items[i][c])]))));
    }
    expect((record.playerRounds as Row[]).length).toBe(19 * 10);
    socket.close();
  }, 180_000);
});
