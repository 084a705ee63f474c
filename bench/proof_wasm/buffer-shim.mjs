// Only what bench/proof_webcrypto/verify.mjs uses of Node's Buffer, for running it unchanged in Chromium: base64,
// base64url and hex through the browser's native Uint8Array.fromBase64 / toBase64 / toHex, and readBigUInt64BE.
// Like Buffer, decoding is lenient (verify.mjs re-encodes to enforce canonical form).
class ShimBuffer extends Uint8Array {
  static from(value, encodingOrOffset, length) {
    if (typeof value === 'string') {
      const alphabet = encodingOrOffset === 'base64url' ? 'base64url' : 'base64'
      try {
        return ShimBuffer.#wrap(Uint8Array.fromBase64(value, { alphabet, lastChunkHandling: 'loose' }))
      } catch {
        return new ShimBuffer(0)
      }
    }
    if (value instanceof ArrayBuffer) return new ShimBuffer(value, encodingOrOffset ?? 0, length)
    return ShimBuffer.#wrap(Uint8Array.from(value))
  }
  static #wrap(bytes) {
    return new ShimBuffer(bytes.buffer, bytes.byteOffset, bytes.length)
  }
  toString(encoding) {
    if (encoding === 'hex') return this.toHex()
    if (encoding === 'base64url') return this.toBase64({ alphabet: 'base64url', omitPadding: true })
    if (encoding === 'base64') return this.toBase64()
    return new TextDecoder().decode(this)
  }
  readBigUInt64BE(offset = 0) {
    return new DataView(this.buffer, this.byteOffset, this.length).getBigUint64(offset)
  }
}
globalThis.Buffer ??= ShimBuffer
