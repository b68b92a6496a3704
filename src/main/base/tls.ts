// Certificate files for the TLS listeners: the configured pair, or a self-signed pair generated
// once into the data directory and reused on later starts.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type Config } from './config.js';
import { ensureDataDir, writePrivateFile } from './data-dir.js';
import type { TlsFiles } from '../internals/uws.js';

export interface TlsSetup { files: TlsFiles | null; source: 'none' | 'configured' | 'generated' | 'reused' }

function checkReadable(name: string, file: string): void {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    if (!fs.statSync(file).isFile()) throw new Error('not a file');
  } catch (err) {
    throw new ConfigError(`${name}: cannot read ${JSON.stringify(file)} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

export async function setupTls(config: Config): Promise<TlsSetup> {
  if (config.INSECURE) return { files: null, source: 'none' };
  if (config.SERVER_CERT && config.SERVER_KEY) {
    checkReadable('SERVER_CERT', config.SERVER_CERT);
    checkReadable('SERVER_KEY', config.SERVER_KEY);
    return { files: { certFile: config.SERVER_CERT, keyFile: config.SERVER_KEY }, source: 'configured' };
  }
  const dir = ensureDataDir(config.DATA_DIR);
  const certFile = path.join(dir, 'self-signed-cert.pem');
  const keyFile = path.join(dir, 'self-signed-key.pem');
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) return { files: { certFile, keyFile }, source: 'reused' };
  // Loaded only here: selfsigned and its X.509 stack cost ~0.15–0.24 s of CPU to import, which every start
  // without a generated pair (INSECURE, configured or reused files) would pay for nothing.
  const { generate } = await import('selfsigned');
  const notAfter = new Date();
  notAfter.setFullYear(notAfter.getFullYear() + 2);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notAfterDate: notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  writePrivateFile(keyFile, pems.private);
  writePrivateFile(certFile, pems.cert);
  return { files: { certFile, keyFile }, source: 'generated' };
}
