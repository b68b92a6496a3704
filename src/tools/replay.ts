// npm run replay -- [file] [--speed N | --instant] [--server URL] [--key K] [--group CODE]
// Streams a recorded match into a running service as a real observer client would.
import { readReplay } from './replay-file.js';
import { RECORDED_MATCH_PATH } from './recorded-match.js';
import { playReplay } from './replay-client.js';

function usage(message?: string): never {
  if (message) process.stderr.write(`${message}\n`);
  process.stderr.write('usage: npm run replay -- [file (default: the recorded match)] [--speed N | --instant] [--server URL] [--key K] [--group CODE]\n');
  process.exit(2);
}

const args = process.argv.slice(2);
let file = RECORDED_MATCH_PATH;
let pace: 'instant' | number = 1;
let server = 'https://localhost:5100';
let key = process.env.AUTH_KEY ?? '';
let group: string | undefined;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--instant') pace = 'instant';
  else if (a === '--speed') { pace = Number(args[++i]); if (!(pace > 0)) usage('--speed needs a positive number'); }
  else if (a === '--server') server = args[++i] ?? usage('--server needs a URL');
  else if (a === '--key') key = args[++i] ?? usage('--key needs a value');
  else if (a === '--group') group = args[++i] ?? usage('--group needs a code');
  else if (a.startsWith('--')) usage(`unknown option ${a}`);
  else file = a;
}

const replay = readReplay(file);
process.stdout.write(`replaying ${replay.records.length} records of ${group ?? replay.header.groupCode} into ${server} (${pace === 'instant' ? 'instant' : `speed ${pace}`})\n`);
let last = 0;
const result = await playReplay(replay, {
  url: server, key, pace, groupCode: group,
  onProgress(sent, total) {
    const now = Date.now();
    if (now - last > 1000 || sent === total) { last = now; process.stdout.write(`\r${sent}/${total}`); }
  },
}).catch((err: Error) => {
  process.stderr.write(`\n${err.message}\n`);
  process.exit(1);
});
process.stdout.write(`\nsent ${result.sent} records\n`);
setTimeout(() => { result.socket.close(); process.exit(0); }, 500);
