//! The stdlib: `stdlib/*.rhai` compiled into the binary, each loaded as a static module
//! (`bulk::create`, `util::find_by_name`). `--stdlib DIR` or `FABSH_STDLIB` names a directory
//! whose `<name>.rhai` files replace the built-in modules (and whose other `*.rhai` files add
//! modules), so users can read, copy and change them.

use fabsh_client::error::{Error, Result};
use rhai::module_resolvers::StaticModuleResolver;
use rhai::{Engine, Module, Scope};
use std::path::Path;

/// The built-in modules, in load order.
pub const EMBEDDED: &[(&str, &str)] = &[
    ("util", include_str!("../../stdlib/util.rhai")),
    ("bulk", include_str!("../../stdlib/bulk.rhai")),
    ("fewshots", include_str!("../../stdlib/fewshots.rhai")),
    ("agents", include_str!("../../stdlib/agents.rhai")),
    ("evaluate", include_str!("../../stdlib/evaluate.rhai")),
    ("promote", include_str!("../../stdlib/promote.rhai")),
    ("jobs", include_str!("../../stdlib/jobs.rhai")),
];

/// One stdlib module's source.
#[derive(Debug, Clone)]
pub struct Source {
    /// The module name scripts use (`bulk`).
    pub name: String,
    /// Where the text came from: `stdlib/bulk.rhai` (built in) or the file's path.
    pub origin: String,
    pub text: String,
}

/// The stdlib sources: the built-in ones, each replaced by `<dir>/<name>.rhai` when that
/// exists, then any other `*.rhai` in `dir` as extra modules.
pub fn sources(dir: Option<&Path>) -> Result<Vec<Source>> {
    let mut sources: Vec<Source> = EMBEDDED
        .iter()
        .map(|(name, text)| Source {
            name: name.to_string(),
            origin: format!("stdlib/{name}.rhai"),
            text: text.to_string(),
        })
        .collect();
    let Some(dir) = dir else {
        return Ok(sources);
    };
    let unreadable =
        |err: std::io::Error| Error::usage(format!("--stdlib {}: {err}", dir.display()));
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(unreadable)?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "rhai"))
        .collect();
    files.sort();
    for path in files {
        let Some(stem) = path.file_stem().map(|stem| stem.to_string_lossy()) else {
            continue;
        };
        let name = stem.replace('-', "_");
        let text = std::fs::read_to_string(&path).map_err(unreadable)?;
        let source = Source {
            name: name.clone(),
            origin: path.display().to_string(),
            text,
        };
        match sources.iter_mut().find(|known| known.name == name) {
            Some(known) => *known = source,
            None => sources.push(source),
        }
    }
    Ok(sources)
}

/// Compiles every stdlib module with `engine` and registers it as a static module, also
/// reachable as `import "name"` (the only imports scripts have: no file imports).
pub fn register(engine: &mut Engine, dir: Option<&Path>) -> Result<()> {
    let mut resolver = StaticModuleResolver::new();
    for source in sources(dir)? {
        let mut ast = engine
            .compile(&source.text)
            .map_err(|err| Error::usage(format!("{}: {err}", source.origin)))?;
        ast.set_source(source.origin.as_str());
        let mut module = Module::eval_ast_as_new(Scope::new(), &ast, engine)
            .map_err(|err| Error::runtime(format!("{}: {err}", source.origin)))?;
        module.build_index();
        resolver.insert(source.name.as_str(), module.clone());
        engine.register_static_module(source.name.as_str(), module.into());
    }
    engine.set_module_resolver(resolver);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The unqualified calls in a module's text, as (name, argument count). Comments are
    /// skipped, string contents never count as arguments, and `x.f(..)` and `m::f(..)` are
    /// not unqualified calls.
    fn unqualified_calls(text: &str) -> Vec<(String, usize)> {
        let code: String = text
            .lines()
            .map(|line| line.split("//").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        let bytes = code.as_bytes();
        let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let mut calls = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            if !is_ident(bytes[at]) || (at > 0 && is_ident(bytes[at - 1])) {
                at += 1;
                continue;
            }
            let start = at;
            while at < bytes.len() && is_ident(bytes[at]) {
                at += 1;
            }
            let name = &code[start..at];
            let before = code[..start].trim_end();
            let qualified = before.ends_with("::") || before.ends_with('.');
            let defined = before.ends_with("fn");
            if bytes.get(at) != Some(&b'(') || qualified || defined {
                continue;
            }
            calls.push((name.to_string(), arguments(&bytes[at..])));
        }
        calls
    }

    /// How many arguments the parenthesised list at the start of `bytes` holds.
    fn arguments(bytes: &[u8]) -> usize {
        let (mut depth, mut commas, mut empty, mut quote) = (0, 0, true, None);
        for &b in bytes {
            if let Some(q) = quote {
                if b == q {
                    quote = None;
                }
                continue;
            }
            match b {
                b'"' | b'`' => quote = Some(b),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b',' if depth == 1 => commas += 1,
                _ => {}
            }
            if depth >= 1 && !b.is_ascii_whitespace() && b != b'(' {
                empty = false;
            }
        }
        if empty { 0 } else { commas + 1 }
    }

    #[test]
    fn calls_are_counted_by_name_and_arguments() {
        let text = "fn f(a) { g(a, #{x: 1, y: [2, 3]}, \"s, t\"); m::h(1); a.k(2); z() } // q(1)";
        assert_eq!(
            unqualified_calls(text),
            [("g".to_string(), 3), ("z".to_string(), 0)]
        );
    }

    /// Rhai caches which function an unqualified call resolved to by name and arity, and
    /// the cache outlives a call into another module: once `fewshots` had called its own
    /// `summary(x)`, `evaluate`'s call of its `summary(x)` ran the `fewshots` one. So no
    /// function a module calls unqualified may share its name and arity with a function of
    /// another stdlib module.
    #[test]
    fn no_module_calls_a_name_another_module_also_defines() {
        let mut engine = Engine::new_raw();
        engine.set_max_expr_depths(0, 0);
        let mut defined: HashMap<(String, usize), Vec<String>> = HashMap::new();
        let sources = sources(None).expect("sources");
        for source in &sources {
            let ast = engine.compile(&source.text).expect("compiles");
            for function in ast.iter_functions() {
                let key = (function.name.to_string(), function.params.len());
                defined.entry(key).or_default().push(source.name.clone());
            }
        }
        let mut clashes = Vec::new();
        for source in &sources {
            for call in unqualified_calls(&source.text) {
                let owners = defined.get(&call).cloned().unwrap_or_default();
                if owners.contains(&source.name) && owners.len() > 1 {
                    clashes.push(format!(
                        "{}: {}/{} ({owners:?})",
                        source.name, call.0, call.1
                    ));
                }
            }
        }
        assert!(clashes.is_empty(), "{clashes:?}");
    }
}
