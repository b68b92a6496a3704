// Optional replay recording (docs/match-rules.md section 15): header, then `,\n` + each envelope as
// applied, with the service's timestamp. Never the access key, group secret or player-cam secret.
import fs from 'node:fs';
import path from 'node:path';

export class ReplayRecorder {
  private readonly stream: fs.WriteStream;

  constructor(dir: string, groupCode: string, startTime: number, header: Record<string, unknown>) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const safeCode = groupCode.replace(/[^A-Za-z0-9_-]/g, '_');
    this.stream = fs.createWriteStream(path.join(dir, `Match_${safeCode}_${startTime}.replay`), { flags: 'w', mode: 0o600 });
    this.stream.on('error', () => { /* reported by the shard's caller through the close path; recording never stops a match */ });
    this.stream.write(JSON.stringify(header));
  }

  /** The file of a match restored from a snapshot, opened to append (undefined when it is gone). */
  static reopen(dir: string, groupCode: string, startTime: number): ReplayRecorder | undefined {
    const file = path.join(dir, `Match_${groupCode.replace(/[^A-Za-z0-9_-]/g, '_')}_${startTime}.replay`);
    if (!fs.existsSync(file)) return undefined;
    const recorder = Object.create(ReplayRecorder.prototype) as ReplayRecorder;
    const stream = fs.createWriteStream(file, { flags: 'a', mode: 0o600 });
    stream.on('error', () => { /* recording never stops a match */ });
    (recorder as unknown as { stream: fs.WriteStream }).stream = stream;
    return recorder;
  }

  /** Writes one applied envelope; `timestamp` is replaced by the service's time. */
  record(envelope: Record<string, unknown>, ts: number): void {
    this.stream.write(',\n' + JSON.stringify({ ...envelope, timestamp: ts }));
  }

  close(): void {
    this.stream.end();
  }
}

/** The replay header: the logon fields without key, type, group secret and player-cam secret. */
export function replayHeader(logon: { obsName: string; groupCode: string; clientVersion: string; leftTeam: unknown; rightTeam: unknown; toolsData?: unknown }, serviceVersion: string, startTime: number): Record<string, unknown> {
  const header: Record<string, unknown> = {
    clientVersion: logon.clientVersion,
    obsName: logon.obsName,
    groupCode: logon.groupCode,
    leftTeam: logon.leftTeam,
    rightTeam: logon.rightTeam,
  };
  if (logon.toolsData && typeof logon.toolsData === 'object') {
    const tools = { ...(logon.toolsData as Record<string, unknown>) };
    const cams = tools.playercamsInfo;
    if (cams && typeof cams === 'object') {
      const { secret: _secret, ...rest } = cams as Record<string, unknown>;
      tools.playercamsInfo = rest;
    }
    header.toolsData = tools;
  }
  header.serviceVersion = serviceVersion;
  header.logStartTime = startTime;
  return header;
}
