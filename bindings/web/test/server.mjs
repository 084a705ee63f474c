// A static file server on loopback for the browser test and the bench: serves bindings/web (the page, the package,
// pkg/) and, under /_/, files the test hands in. No logic of the page lives here.
import { createServer } from 'node:http'
import { readFile } from 'node:fs/promises'
import { extname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.jsonl': 'application/jsonl',
  '.wasm': 'application/wasm',
}

/** Serves `root` (default bindings/web) and `extra` (`{'/_/name': absolute path}`) on 127.0.0.1, a free port. */
export async function serve(extra = {}, root = fileURLToPath(new URL('..', import.meta.url))) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname)
    const file = extra[path] ?? join(root, normalize(path.endsWith('/') ? `${path}index.html` : path))
    if (!extra[path] && !file.startsWith(root)) {
      res.writeHead(403).end()
      return
    }
    try {
      const body = await readFile(file)
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body)
    } catch {
      res.writeHead(404).end('not found')
    }
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) }
}
