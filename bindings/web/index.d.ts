// @curbi/web: the API of core.d.ts, with the WebAssembly module loaded when the module is imported.
export * from './core.js'
