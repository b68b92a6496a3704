// GET /metrics (Prometheus text format, prom-client) on its own listener, bound to 127.0.0.1 by
// default. After a replay with an overlay watching, the figures add up; the shards' figures
// arrive through their stats; every metric of the service is documented in the README.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/main/base/config.js';
import { overlay, observer } from '../helpers/clients.js';
import { Metrics } from '../helpers/metrics.js';
import { playReplay, recordedMatch } from '../helpers/recorded.js';
import { serviceForFile } from '../helpers/service.js';

const replay = recordedMatch();

const svc = serviceForFile({ AUTH_KEY: 'k', TRUST_REPLAY_TIMESTAMPS: 'true' });

const scrape = async () => {
  const res = await fetch(`${svc.metricsUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
};
const value = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? NaN : Number(line.slice(series.length + 1));
};

describe('GET /metrics', () => {
  it('is on 127.0.0.1 by default, on its own port, and nowhere else', async () => {
    expect(loadConfig({}).METRICS_HOST).toBe('127.0.0.1');
    expect(loadConfig({}).METRICS_PORT).toBe(5102);
    const rest = await fetch(`${svc.rest}/metrics`);
    expect(rest.status).toBe(404);
    const other = await fetch(`${svc.metricsUrl}/other`);
    expect(other.status).toBe(404);
    const post = await fetch(`${svc.metricsUrl}/metrics`, { method: 'POST' });
    expect(post.status).toBe(404);
  });

  it('counts a replay: matches, sockets, messages in and out by type, frames, bytes, shard cycles, event-loop delay', async () => {
    const fe = await overlay(svc.broadcast, 'METR01', ['websocket']);
    const run = await playReplay(replay, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: 'METR01', to: 1000 });
    await fe.waitFor((f) => (f.teams as { players: unknown[] }[])[0].players.length === 5);
    // The shard's stats (once a second, with its cycles) count all 1000 messages, and every frame sent has arrived.
    const appliedIn = (t: string) => t.split('\n').filter((l) => l.startsWith('ods_messages_applied_total{')).reduce((sum, l) => sum + Number(l.split(' ')[1]), 0);
    let text = '';
    await expect.poll(async () => {
      text = await scrape();
      return [appliedIn(text), value(text, 'ods_messages_sent_total{event="match_data"}') - fe.frames.length, value(text, 'ods_shard_cycle_duration_seconds_count{shard="0"}') > 5];
    }).toEqual([1000, 0, true]);
    expect(value(text, 'ods_live_matches')).toBe(1);
    expect(value(text, 'ods_sockets{listener="ingest",kind="observer"}')).toBe(1);
    expect(value(text, 'ods_sockets{listener="broadcast",kind="frontend"}')).toBe(1);
    expect(value(text, 'ods_messages_received_total{event="obs_data"}')).toBe(1000);
    expect(value(text, 'ods_messages_received_total{event="obs_logon"}')).toBe(1);
    const applied = text.split('\n').filter((l) => l.startsWith('ods_messages_applied_total{')).reduce((sum, l) => sum + Number(l.split(' ')[1]), 0);
    expect(applied).toBe(1000);
    expect(value(text, 'ods_messages_applied_total{type="scoreboard"}')).toBe(replay.records.slice(0, 1000).filter((r) => r.type === 'scoreboard').length);
    expect(value(text, 'ods_messages_sent_total{event="obs_logon_ack"}')).toBe(1);
    expect(value(text, 'ods_messages_sent_total{event="match_data"}')).toBe(fe.frames.length);
    expect(value(text, 'ods_frames_published_total')).toBeGreaterThanOrEqual(fe.frames.length);
    expect(value(text, 'ods_bytes_sent_total')).toBeGreaterThan(1000);
    expect(value(text, 'ods_shard_cycle_duration_seconds_count{shard="0"}')).toBeGreaterThan(5);
    expect(value(text, 'ods_shard_matches{shard="0"}')).toBe(1);
    expect(text).toMatch(/ods_shard_event_loop_delay_seconds\{shard="0",stat="p99"\} \d/);
    expect(text).toMatch(/ods_nodejs_eventloop_lag_p99_seconds \d/);
    // The main thread's loop delay: its heartbeat's figures (base/loop-beat.ts) in place of prom-client's own sampler, each once.
    for (const stat of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']) {
      expect(text.match(new RegExp(`^ods_nodejs_eventloop_lag_${stat}_seconds `, 'gm'))).toHaveLength(1);
      expect(text).toMatch(new RegExp(`^# HELP ods_nodejs_eventloop_lag_${stat}_seconds .*heartbeat`, 'm'));
      expect(value(text, `ods_nodejs_eventloop_lag_${stat}_seconds`)).toBeGreaterThanOrEqual(0);
      expect(value(text, `ods_nodejs_eventloop_lag_${stat}_seconds`)).toBeLessThan(10);
    }

    // Drops by reason: a message for another group, one not JSON.
    run.socket.emit('obs_data', JSON.stringify({ obsName: 'o', groupCode: 'OTHER9', type: 'map', data: 'Jam' }));
    run.socket.emit('obs_data', '{not json');
    await expect.poll(async () => {
      text = await scrape();
      return [value(text, 'ods_messages_dropped_total{reason="group_mismatch"}') >= 1, value(text, 'ods_messages_dropped_total{reason="invalid_json"}') >= 1];
    }).toEqual([true, true]);
    expect(value(text, 'ods_messages_dropped_total{reason="group_mismatch"}')).toBe(1);
    expect(value(text, 'ods_messages_dropped_total{reason="invalid_json"}')).toBe(1);
    run.socket.close();
  });

  it('message types named like Object.prototype members are counted like any other; /metrics keeps answering', async () => {
    const code = 'METR02';
    const fe = await overlay(svc.broadcast, code);
    const { socket, ack } = await observer(svc.ingest, { key: 'k', groupCode: code });
    expect(ack.value).toBe(true);
    const before = new Metrics(await scrape());
    // Unknown types are accepted without a change (docs/match-rules.md), so each is applied and counted.
    for (const type of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) socket.emit('obs_data', JSON.stringify({ obsName: 'o', groupCode: code, type, data: 1 }));
    socket.emit('obs_data', JSON.stringify({ obsName: 'o', groupCode: code, type: 'map', data: 'Jam' })); // marker
    await fe.waitFor((f) => f.map === 'Lotus');
    const applied = (m: Metrics, type: string) => m.value('ods_messages_applied_total', { type });
    let after = before;
    await expect.poll(async () => {
      after = new Metrics(await scrape()); // a 500 fails here
      return applied(after, 'map') - applied(before, 'map');
    }).toBe(1);
    expect(applied(after, 'constructor') - applied(before, 'constructor')).toBe(1);
    expect(applied(after, '__proto__') - applied(before, '__proto__')).toBe(1);
    expect(applied(after, 'other') - applied(before, 'other')).toBe(2); // toString, hasOwnProperty: not lower-case names
    for (const sample of after.samples) expect(Number.isFinite(sample.value) || sample.name.endsWith('_bucket'), `${sample.name} ${JSON.stringify(sample.labels)}`).toBe(true);
    socket.close();
  });

  it('every metric of the service is documented in the README', async () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const text = await scrape();
    const names = [...new Set(text.split('\n').filter((l) => l.startsWith('# TYPE ods_')).map((l) => l.split(' ')[2]))]
      .filter((n) => !n.startsWith('ods_process_') && !n.startsWith('ods_nodejs_'));
    expect(names.length).toBeGreaterThan(15);
    for (const n of names) expect(readme, n).toContain(`| \`${n}\` |`);
  });
});
