//! The JavaScript functions this addon keeps per Node environment (main thread, each worker), compiled or looked up
//! once and held as references in the addon's instance data: `JSON.stringify` and `JSON.parse` for documents in
//! and out, and the two functions that build check results (see result.rs for why those are built in JavaScript).

use curbi::api;
use napi::bindgen_prelude::{FnArgs, Function, FunctionRef, JsObjectValue, Unknown};
use napi::{Env, JSON};

/// `(object, version, recordTrust, pass, findings | results as JSON text) => document`.
pub(crate) type ResultArgs = FnArgs<(&'static str, &'static str, &'static str, bool, String)>;
type ResultFn = FunctionRef<ResultArgs, Unknown<'static>>;

pub(crate) struct Js {
    /// `JSON.stringify` as it was when the addon first ran in this environment.
    pub(crate) stringify: FunctionRef<Unknown<'static>, Option<String>>,
    /// `JSON.parse`, likewise: turns the core's JSON documents (lint, regression, purchase) into objects.
    pub(crate) parse: FunctionRef<String, Unknown<'static>>,
    /// Builds a `Check` document.
    pub(crate) check: ResultFn,
    /// Builds a `CheckBatch` document.
    pub(crate) batch: ResultFn,
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
    let proof = serde_json::to_string(&api::PROOF).map_err(|e| napi::Error::from_reason(e.to_string()))?;
    // `parse` is JSON.parse captured when the function is made, so a later change to the global cannot reach it.
    let compile = |list: &str, parsed: &str| -> napi::Result<ResultFn> {
        let source = format!(
            "(function (parse) {{\n  return function (object, version, recordTrust, pass, text) {{\n    return {{ \
             object, version, recordTrust, pass, {list}: {parsed}, proof: {proof} }}\n  }}\n}})(JSON.parse)"
        );
        let f: Function<ResultArgs, Unknown<'static>> = env.run_script(source)?;
        f.create_ref()
    };
    Ok(Js {
        stringify: stringify.create_ref()?,
        parse: parse.create_ref()?,
        check: compile("findings", "text === '' ? [] : parse(text)")?,
        batch: compile("results", "parse(text)")?,
    })
}
