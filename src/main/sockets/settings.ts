// The listeners' settings (sockets/listeners.ts and the two Socket.IO servers): addresses, ports, TLS,
// heartbeats; and the limits every connection meets before it is a client (per-address caps, idle and
// head deadlines, the largest message: README, "Limits and refusals").
import { bool, int, part, s, str } from '../base/settings-kit.js';

export const LISTENER_SETTINGS = part('sockets', 'Listeners and TLS', {
  INSECURE: s(bool, false, 'true serves plain HTTP/WS on all three ports; otherwise TLS'),
  SERVER_CERT: s(str, '', 'TLS certificate file (PEM); with SERVER_KEY. Unset: a self-signed pair is generated in DATA_DIR'),
  SERVER_KEY: s(str, '', 'TLS private key file (PEM); with SERVER_CERT'),
  HOST: s(str, '0.0.0.0', 'bind address of the three listeners (`::`: IPv6 and IPv4 both, dual stack)'),
  TRUST_PROXY: s(bool, false, 'true: behind a reverse proxy, the client address logged is the last X-Forwarded-For hop (else X-Real-IP); never used for access decisions. Also turns MAX_CONNECTIONS_PER_ADDRESS off (every connection is the proxy\'s)'),
  INGEST_PORT: s(int(0, 65535), 5100, 'ingestion Socket.IO port (observer and auxiliary clients); 0 = ephemeral'),
  REST_PORT: s(int(0, 65535), 5101, 'REST API port; 0 = ephemeral'),
  BROADCAST_PORT: s(int(0, 65535), 5200, 'broadcast Socket.IO port (overlay frontends); 0 = ephemeral'),
  COMPRESSION: s(bool, true, 'permessage-deflate on the Socket.IO listeners (threshold 1024 bytes)'),
  PING_INTERVAL_MS: s(int(100, 300_000), 25_000, 'Socket.IO heartbeat interval on both listeners'),
  PING_TIMEOUT_MS: s(int(100, 300_000), 20_000, 'a socket that does not answer a ping within this is closed'),
});

export const CONNECTION_LIMIT_SETTINGS = part('sockets', 'Limits on connections', {
  MAX_MESSAGE_BYTES: s(int(1024, 16 * 1_048_576), 1_000_000, 'largest Socket.IO message (maxHttpBufferSize / maxPayloadLength); a larger one closes the connection'),
  IDLE_SOCKET_TIMEOUT_MS: s(int(100, 3_600_000), 30_000, 'a socket that has not logged on and sent nothing for this long is closed (both Socket.IO listeners)'),
  REQUEST_HEAD_TIMEOUT_MS: s(int(1000, 10_000), 8000, 'a broadcast-port connection that has not sent a complete request head (TLS handshake included) this long after it opened is closed, however slowly the head arrives; also the deadline for a Socket.IO connection to join (CONNECT) on both Socket.IO ports (a transport upgrade gets PING_INTERVAL_MS + PING_TIMEOUT_MS). The uWS ports close such connections after their fixed 10 s idle timeout (8–12 s)'),
  MAX_SOCKETS_PER_ADDRESS: s(int(0, 1_000_000), 1000, 'most open sockets from one remote address, per Socket.IO listener (0 = no cap; behind a reverse proxy every client has its address). A venue behind one address needs two per PC (README, "Many clients behind one address")'),
  MAX_CONNECTIONS_PER_ADDRESS: s(int(0, 1_000_000), 1000, 'most TCP connections from one remote address on each port that have not completed a request (broadcast: open at once; ingestion and REST: a token bucket of this burst, refilled at this many per 12 s); one past it is closed at once. 0 = no cap; off with TRUST_PROXY=true (the proxy is the only peer)'),
  IPV6_PREFIX_LENGTH: s(int(32, 128), 64, 'per-address caps count an IPv6 peer by this many leading bits (64: one subscriber\'s /64; 128: each address); IPv4-mapped peers count as IPv4'),
});
