// A transparent Streamable-HTTP-to-stdio relay, so that the official conformance suite (whose `server` mode speaks
// only HTTP) can drive `curbi mcp --stdio` (issue 21). It adds nothing to the protocol: each POST body is written to
// the server's stdin as one line (its line breaks, which JSON allows only between tokens, become spaces), and what
// the server writes back for that line is the HTTP answer, byte for byte (200 with the JSON, or 202 when the server
// wrote nothing, as for a notification).
//
// How the relay knows the server wrote nothing: after each line it sends a sync `ping` with an id of its own and
// reads the server's output up to that ping's answer (stdio answers lines in order); what came before is the
// answer to the line. The relay holds no protocol state and no session: one server process serves every client of
// the suite, as one stdio process serves its one client over its lifetime, one message at a time.
//
// What only HTTP has (Host/Origin, Accept, Content-Type, the Mcp-* headers, sessions, SSE, status codes) is this
// relay's, not the server's: the suite's checks of those are listed in mcp/conformance/not-applicable-stdio.tsv.
//
// Usage: node stdio-relay.mjs PORT COMMAND [ARGS...]   (listens on 127.0.0.1:PORT, path /mcp)
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

const [port, command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
child.on('exit', (code) => {
  console.error(`stdio server exited with ${code}`);
  process.exit(1);
});
const lines = createInterface({ input: child.stdout });
const waiting = []; // resolvers of the next output line, in order
const early = []; // output lines nobody waits for yet
lines.on('line', (l) => (waiting.length ? waiting.shift()(l) : early.push(l)));
const nextLine = () => (early.length ? Promise.resolve(early.shift()) : new Promise((r) => waiting.push(r)));

let sync = 0;
let queue = Promise.resolve();
// One exchange at a time: the line, then the sync ping; returns the server's answer to the line, or null.
function exchange(body) {
  const run = async () => {
    const id = `curbi-relay-sync-${++sync}`;
    child.stdin.write(body.replace(/[\r\n]+/g, ' ') + '\n');
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) + '\n');
    let answer = null;
    for (;;) {
      const l = await nextLine();
      let parsed = null;
      try {
        parsed = JSON.parse(l);
      } catch {}
      if (parsed && parsed.id === id) return answer;
      if (answer !== null) throw new Error(`two answers to one line: ${answer} / ${l}`);
      answer = l;
    }
  };
  const result = queue.then(run);
  queue = result.catch(() => {});
  return result;
}

createServer((req, res) => {
  if (new URL(req.url, 'http://relay').pathname !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    try {
      const answer = await exchange(Buffer.concat(chunks).toString('utf8'));
      if (answer === null) res.writeHead(202).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    } catch (e) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(e));
    }
  });
}).listen(Number(port), '127.0.0.1', () => console.error(`relay on 127.0.0.1:${port} -> ${command}`));
