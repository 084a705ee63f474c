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
    Ok(Js {
        stringify: stringify.create_ref()?,
        parse: parse.create_ref()?,
        error_class: class.create_ref()?,
        make_error: make.create_ref()?,
    })
}
