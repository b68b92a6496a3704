// Per-address caps count IPv6 peers by prefix (issue 27, point 2; docs/reliability.md, "Connection
// abuse"): the keying rule (address-key.ts) and the uWS ports' bounded table of token buckets
// (address-buckets.ts, with the service's own sizes) driven directly with addresses no loopback
// here can originate: 10,000 addresses in one /64 are one address, and 200,000 distinct addresses
// neither reset nor evict the count of an address that is locked out. Real connections from many
// IPv6 addresses: ipv6-netns.test.ts (a network namespace, as root); from ::1 on a dual-stack
// listener: ipv6-loopback.test.ts.
import { describe, expect, it } from 'vitest';
import { AddressBuckets } from '../../../src/main/sockets/address-buckets.js';
import { addressKey } from '../../../src/main/sockets/address-key.js';
import { MAX_TRACKED_ADDRESSES, UWS_WINDOW_MS } from '../../../src/main/sockets/connection-guard.js';

const hex = (n: number) => n.toString(16);
/** A random interface id (the low 64 bits) in 2001:db8:1:2::/64. */
const inPrefix = (i: number) => `2001:db8:1:2:${hex(i & 0xffff)}:${hex((i * 7919) & 0xffff)}:${hex((i >> 3) & 0xffff)}:${hex(i % 65_521)}`;
/** The i-th /64 of 2001:db8::/32 (distinct for i < 2^32). */
const distinct64 = (i: number) => `2001:db8:${hex(i >>> 16)}:${hex(i & 0xffff)}::1`;

describe('address keys', () => {
  it('IPv4 as itself, IPv4-mapped as IPv4 (both text forms), IPv6 by its /64 unless told otherwise', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('0000:0000:0000:0000:0000:ffff:7f00:0001')).toBe('127.0.0.1'); // uWS's text form
    expect(addressKey('2001:DB8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('0000:0000:0000:0000:0000:0000:0000:0001')).toBe(addressKey('::1'));
    expect(addressKey('fe80::1%eth0')).toBe('fe80::/64');
    expect(addressKey('2001:db8:1:2::1', 48)).toBe('2001:db8:1::/48');
    expect(addressKey('2001:db8:1:2::1', 128)).toBe('2001:db8:1:2::1/128');
    expect(addressKey('2001:db8:1:2::1', 56)).toBe('2001:db8:1::/56');
    expect(addressKey('2001:db8:1:2ff::1', 56)).toBe('2001:db8:1:200::/56');
    expect(addressKey(undefined)).toBe('unknown');
  });

  it('10,000 addresses of one /64 count as one', () => {
    const keys = new Set(Array.from({ length: 10_000 }, (_, i) => addressKey(inPrefix(i))));
    expect(keys).toEqual(new Set(['2001:db8:1:2::/64']));
    // With the uWS ports' bucket: a cap of 20 lets 20 of them in, not 10,000 (the clock stands still).
    const t = 1_000_000;
    const buckets = new AddressBuckets(20, UWS_WINDOW_MS, MAX_TRACKED_ADDRESSES, () => t);
    const accepted = Array.from({ length: 10_000 }, (_, i) => buckets.take(addressKey(inPrefix(i)))).filter(Boolean).length;
    expect(accepted).toBe(20);
    expect(buckets.size).toBe(1);
  });
});

describe('the uWS ports\' token buckets', () => {
  it('slide: a refused attempt takes nothing, and a locked-out address regains connections as time passes', () => {
    let t = 0;
    const b = new AddressBuckets(12, 12_000, 100, () => t);
    for (let i = 0; i < 12; i++) expect(b.take('a')).toBe(true);
    for (let i = 0; i < 1000; i++) expect(b.take('a')).toBe(false); // a retry storm
    t += 1000; // one token per second
    expect(b.take('a')).toBe(true);
    expect(b.take('a')).toBe(false);
    t += 12_000;
    expect(b.tokens('a')).toBe(12); // full again after the window, however many retries came
    b.take('a');
    b.giveBack('a');
    expect(b.tokens('a')).toBe(12);
  });

  it('give-backs have an allowance of their own: no number of requests buys more than the burst again per window', () => {
    const t = 0;
    const b = new AddressBuckets(10, 12_000, 100, () => t); // the clock stands still
    let accepted = 0;
    // An address that opens silent connections and sends a request on another one for each.
    for (let i = 0; i < 1000; i++) {
      if (b.take('a')) accepted++;
      b.giveBack('a');
    }
    expect(accepted).toBe(20); // the burst, then the allowance: 10 + 10
    expect(b.take('a')).toBe(false);
  });

  it('200,000 distinct addresses do not reset or evict a locked-out address\'s count; memory stays bounded', () => {
    let t = 5_000_000;
    const buckets = new AddressBuckets(1000, UWS_WINDOW_MS, MAX_TRACKED_ADDRESSES, () => t);
    const victim = addressKey('198.51.100.9');
    for (let i = 0; i < 1000; i++) buckets.take(victim);
    expect(buckets.take(victim)).toBe(false);
    // 200,000 other addresses, one connection each within 1 s: twice what the table holds.
    for (let i = 0; i < 200_000; i++) {
      buckets.take(addressKey(distinct64(i)));
      if (i % 20_000 === 0) t += 100;
    }
    expect(buckets.evictions.passes).toBeGreaterThan(0);
    expect(buckets.size).toBeLessThanOrEqual(MAX_TRACKED_ADDRESSES);
    // The victim's bucket is still there, refilled only by the time that passed (1 s of 12 s: 83 tokens).
    expect(buckets.tokens(victim)).toBeLessThan(100);
    expect(buckets.tokens(victim)).toBeGreaterThan(0);
  });

  it('under pressure the table drops the addresses nearest to full first, never the drained one', () => {
    const t = 0;
    const buckets = new AddressBuckets(100, UWS_WINDOW_MS, 1000, () => t); // a small table; the clock stands still
    const victim = 'victim';
    for (let i = 0; i < 100; i++) buckets.take(victim);
    // 5,000 attacker keys, each 50 connections: none refills, so the table must drop some.
    for (let i = 0; i < 5000; i++) for (let j = 0; j < 50; j++) buckets.take(`attacker-${i}`);
    expect(buckets.size).toBeLessThanOrEqual(1000);
    expect(buckets.evictions.unrefilled).toBeGreaterThan(0);
    expect(buckets.take(victim)).toBe(false); // still locked out: its count was neither reset nor evicted
    expect(buckets.tokens(victim)).toBe(0);
  });
});
