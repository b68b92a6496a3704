// TRUST_PROXY: which address the logs show for a client behind a reverse proxy.
import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../src/main/base/client-address.js';


describe('clientAddress', () => {
  it('is the TCP peer unless TRUST_PROXY=true', () => {
    expect(clientAddress(false, '10.0.0.5', '203.0.113.9', '198.51.100.7')).toBe('10.0.0.5');
  });

  it('behind a trusted proxy: the last X-Forwarded-For hop (the one the proxy appended), else X-Real-IP', () => {
    expect(clientAddress(true, '127.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    // a client-supplied first entry is ignored: nginx appends the real peer last
    expect(clientAddress(true, '127.0.0.1', '1.2.3.4, 203.0.113.9')).toBe('203.0.113.9');
    expect(clientAddress(true, '127.0.0.1', ['1.2.3.4', '2001:db8::7'])).toBe('2001:db8::7');
    expect(clientAddress(true, '127.0.0.1', '', '198.51.100.7')).toBe('198.51.100.7');
    expect(clientAddress(true, '127.0.0.1', undefined, undefined)).toBe('127.0.0.1');
  });

  it('never logs header text that is not address-like', () => {
    expect(clientAddress(true, '127.0.0.1', '"><script>')).toBe('127.0.0.1');
    expect(clientAddress(true, '127.0.0.1', 'x'.repeat(200))).toBe('127.0.0.1');
    expect(clientAddress(true, '127.0.0.1', '203.0.113.9\nforged log line')).toBe('127.0.0.1');
  });
});
