//! The JavaScript functions this addon keeps per Node environment (main thread, each worker), looked up once and
//! held as references in the addon's instance data: `JSON.stringify` and `JSON.parse`, for documents in and out,
//! and the `CurbiError` class every thrown error is an instance of (exported, so `instanceof` works).

use napi::bindgen_prelude::{FnArgs, Function, FunctionRef, JsObjectValue, Object, Unknown};
use napi::{Env, JSON};

/// `(message, code, path) => new CurbiError(message, code, path)`.
pub(crate) type MakeError = FunctionRef<FnArgs<(String, &'static str, String)>, Unknown<'static>>;

/// The class and its factory, made once per environment: a plain JavaScript class, so it can be subclassed and
/// shows up in stack traces as `CurbiError`.
const CURBI_ERROR: &str = "(function () {
  class CurbiError extends Error {
    constructor(message, code, path) {
      super(message)
      this.name = 'CurbiError'
      this.code = code
      this.path = path
    }
  }
  return { CurbiError, make: (message, code, path) => new CurbiError(message, code, path) }
})()";

/// `(value) => [code, path, message] | null`: why a value has no JSON document, found by walking it without
/// recursion (run only after `JSON.stringify` threw or its text nests too deep, never on the hot path): a value
/// that contains itself or nests more than 127 containers deep (the core reader's limit) is `too_deep`, a BigInt, symbol or
/// function where a value belongs is `invalid_type`, each at the JSON pointer of the first such place.
const DIAGNOSE: &str = "(function () {
  const MAX = 127
  const esc = (k) => String(k).replace(/~/g, '~0').replace(/\\//g, '~1')
  return (root) => {
    const stack = [[root, '', 0, null]]
    const open = []
    while (stack.length > 0) {
      const [v, path, depth, leave] = stack.pop()
      if (leave !== null) { open.pop(); continue }
      if (typeof v === 'bigint') return ['invalid_type', path, 'a BigInt has no JSON form; pass a number or a string']
      if (v === null || typeof v !== 'object') continue
      if (open.includes(v)) return ['too_deep', path, 'the value contains itself']
      if (depth >= MAX) return ['too_deep', path, 'the value nests more than ' + MAX + ' containers deep']
      if (typeof v.toJSON === 'function') continue
      open.push(v)
      stack.push([v, path, depth, true])
      const entries = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v)
      for (let i = entries.length - 1; i >= 0; i--) {
        stack.push([entries[i][1], path + '/' + esc(entries[i][0]), depth + 1, null])
      }
    }
    return null
  }
})()";

pub(crate) struct Js {
    /// `JSON.stringify` as it was when the addon first ran in this environment (a later change to the global
    /// cannot reach it).
    pub(crate) stringify: FunctionRef<Unknown<'static>, Option<String>>,
    /// `JSON.parse`, likewise: turns the core's JSON documents into objects.
    pub(crate) parse: FunctionRef<String, Unknown<'static>>,
    /// The exported `CurbiError` class.
    pub(crate) error_class: FunctionRef<Unknown<'static>, Unknown<'static>>,
    /// Makes a `CurbiError`.
    pub(crate) make_error: MakeError,
    /// [`DIAGNOSE`].
    pub(crate) diagnose: FunctionRef<Unknown<'static>, Option<Vec<String>>>,
}

/// This environment's functions, made on first use.
pub(crate) fn js(env: &Env) -> napi::Result<&'static Js> {
    if env.get_instance_data::<Js>()?.is_none() {
        let made = make(env)?;
        env.set_instance_data(made, (), |_| {})?;
    }
    match env.get_instance_data::<Js>()? {
        Some(js) => Ok(&*js),
        None => Err(napi::Error::from_reason("the addon's JavaScript helpers were not kept")),
    }
}

fn make(env: &Env) -> napi::Result<Js> {
    let json: JSON = env.get_global()?.get_named_property_unchecked("JSON")?;
    let stringify: Function<Unknown<'static>, Option<String>> = json.get_named_property_unchecked("stringify")?;
    let parse: Function<String, Unknown<'static>> = json.get_named_property_unchecked("parse")?;
    let error: Object = env.run_script(CURBI_ERROR)?;
    let class: Function<Unknown<'static>, Unknown<'static>> = error.get_named_property_unchecked("CurbiError")?;
    let make: Function<FnArgs<(String, &'static str, String)>, Unknown<'static>> =
        error.get_named_property_unchecked("make")?;
    let diagnose: Function<Unknown<'static>, Option<Vec<String>>> = env.run_script(DIAGNOSE)?;
    Ok(Js {
        stringify: stringify.create_ref()?,
        parse: parse.create_ref()?,
        error_class: class.create_ref()?,
        make_error: make.create_ref()?,
        diagnose: diagnose.create_ref()?,
    })
}
