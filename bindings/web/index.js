// @curbi/web: `core.js` with the WebAssembly module loaded on import (top-level await), for browsers, Web Workers,
// Deno and Node 20+. Where the module must come from elsewhere, import `@curbi/web/core` and call `init(source)`.
import { init } from './core.js'

export * from './core.js'

await init()
