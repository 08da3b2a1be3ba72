//! The stdlib: `stdlib/*.rhai` compiled into the binary, each loaded as a static module
//! (`bulk::create`, `util::find_by_name`). `--stdlib DIR` or `FABSH_STDLIB` names a directory
//! whose `<name>.rhai` files replace the built-in modules (and whose other `*.rhai` files add
//! modules), so users can read, copy and change them.

use crate::error::{Error, Result};
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
