// The REST ceilings: a trivial uWS app measured in the same run as the service, so that both share
// the machine with autocannon the same way. GET answers a fixed JSON body (the ceiling);
// PUT reads the whole body (as every body-carrying route must) and answers a fixed JSON body: the
// like-for-like ceiling of PUT /createPreview, without parsing, key check or storing.
import * as uws from 'uWebSockets.js';

const body = JSON.stringify({ status: 'UP', matchesRunning: 0 });
const putAnswer = JSON.stringify({ previewCode: 'BENCH1' });
const app = uws.App();
app.get('/*', (res) => {
  res.cork(() => {
    res.writeHeader('Content-Type', 'application/json').writeHeader('Access-Control-Allow-Origin', '*').end(body);
  });
});
app.put('/*', (res) => {
  let aborted = false;
  let received = 0;
  res.onAborted(() => { aborted = true; });
  res.onData((chunk, isLast) => {
    received += chunk.byteLength;
    if (!isLast || aborted || received === 0) return;
    res.cork(() => {
      res.writeHeader('Content-Type', 'application/json').writeHeader('Access-Control-Allow-Origin', '*').end(putAnswer);
    });
  });
});
app.listen('127.0.0.1', 0, (token) => {
  if (!token) process.exit(1);
  process.send!({ t: 'ready', port: uws.us_socket_local_port(token as unknown as uws.us_socket) });
});
process.on('message', (m: { t: string }) => { if (m.t === 'stop') process.exit(0); });
