// The one place that imports uWebSockets.js (the uws-pack repack). Its typings declare the
// compressor constants as types only (TS2693) although they exist at run time, so the casts live here.
// Written for uws-pack 20.0.8, the version package-lock.json pins: test/main/internals/library-internals.test.ts
// fails naming this module when the installed version differs (the other library doors sit beside it).
import './uws-env.js'; // before uWebSockets.js loads: it reads its environment once, at load
import * as uws from 'uWebSockets.js';
import type { TemplatedApp, HttpResponse, HttpRequest, us_listen_socket, WebSocket, CompressOptions, RecognizedString } from 'uWebSockets.js';

export type { TemplatedApp, HttpResponse, HttpRequest, us_listen_socket, WebSocket, CompressOptions, RecognizedString };

export const WRITTEN_FOR = { package: 'uWebSockets.js', version: '20.0.8' } as const;

const values = uws as unknown as Record<string, unknown>;
export const DISABLED = values.DISABLED as CompressOptions;
export const SHARED_COMPRESSOR = values.SHARED_COMPRESSOR as CompressOptions;
export const DEDICATED_COMPRESSOR = values.DEDICATED_COMPRESSOR as CompressOptions; // bench/socket-floor.ts --compression dedicated

export interface TlsFiles { certFile: string; keyFile: string }

/** A plain or TLS uWS app. The caller has already checked that the files are readable. */
export function createApp(tls: TlsFiles | null): TemplatedApp {
  return tls ? uws.SSLApp({ cert_file_name: tls.certFile, key_file_name: tls.keyFile }) : uws.App();
}

/** Listen on host:port (0 = ephemeral); resolves with the bound port and the token used to close it. */
export function listen(app: TemplatedApp, host: string, port: number): Promise<{ port: number; token: us_listen_socket }> {
  return new Promise((resolve, reject) => {
    // LIBUS_LISTEN_EXCLUSIVE_PORT: a second process must not silently share the port.
    const listenWithOptions = app.listen as unknown as (h: string, p: number, o: number, cb: (t: us_listen_socket | false) => void) => void;
    listenWithOptions.call(app, host, port, values.LIBUS_LISTEN_EXCLUSIVE_PORT as number, (token) => {
      if (!token) reject(new Error(`cannot listen on ${host}:${port} (port in use or address not available)`));
      else resolve({ port: uws.us_socket_local_port(token as unknown as uws.us_socket), token });
    });
  });
}

export function closeListen(token: us_listen_socket): void {
  uws.us_listen_socket_close(token);
}
