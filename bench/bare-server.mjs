// The cache-hit yardstick: a bare node:http server that answers every request with one recorded
// reply (status, headers, body) of chartshot. Usage: node bench/bare-server.mjs reply.json PORT
import http from 'node:http';
import { readFileSync } from 'node:fs';

const reply = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const body = Buffer.from(reply.body, 'base64');
http
  .createServer((req, res) => {
    res.writeHead(reply.status, reply.headers);
    res.end(body);
  })
  .listen(Number(process.argv[3]), '127.0.0.1', () => process.stdout.write('listening\n'));
