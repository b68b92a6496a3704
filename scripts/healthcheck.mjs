#!/usr/bin/env node
// The image's HEALTHCHECK (Dockerfile): GET /status on the REST port answers 200, as the compose
// file's check does (deploy/docker-compose.yml), with the container's own settings: REST_PORT
// (5101), INSECURE (plain HTTP) or TLS by default, whose certificate may be the generated
// self-signed one (not verified: the check asks its own process on loopback). HOST, when it names
// one address, is asked there; otherwise 127.0.0.1. Exit 0 healthy, 1 not (the reason on stderr,
// which `docker inspect` shows in the health log), within 4 s.
import http from 'node:http';
import https from 'node:https';

const env = process.env;
const insecure = ['true', '1', 'yes'].includes((env.INSECURE ?? '').trim().toLowerCase());
const host = !env.HOST || env.HOST === '0.0.0.0' || env.HOST === '::' ? '127.0.0.1' : env.HOST;
const port = Number(env.REST_PORT || 5101);
const request = (insecure ? http : https).get({ host, port, path: '/status', rejectUnauthorized: false, timeout: 4000 }, (res) => {
  res.resume();
  if (res.statusCode !== 200) console.error(`GET /status: ${res.statusCode}`);
  process.exit(res.statusCode === 200 ? 0 : 1);
});
request.on('timeout', () => { console.error('GET /status: no answer within 4 s'); request.destroy(); process.exit(1); });
request.on('error', (err) => { console.error(`GET /status: ${err.message}`); process.exit(1); });
