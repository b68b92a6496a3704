// The REST ceiling: a trivial uWS app answering a fixed JSON body, measured in the same run as the
// service so that both share the machine with autocannon the same way.
import * as uws from 'uWebSockets.js';

const body = JSON.stringify({ status: 'UP', matchesRunning: 0 });
const app = uws.App();
app.get('/*', (res) => {
  res.cork(() => {
    res.writeHeader('Content-Type', 'application/json').writeHeader('Access-Control-Allow-Origin', '*').end(body);
  });
});
app.listen('127.0.0.1', 0, (token) => {
  if (!token) process.exit(1);
  process.send!({ t: 'ready', port: uws.us_socket_local_port(token as unknown as uws.us_socket) });
});
process.on('message', (m: { t: string }) => { if (m.t === 'stop') process.exit(0); });
