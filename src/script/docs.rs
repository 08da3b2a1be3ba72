//! The scripting part of `fabsh docs`: the call forms, every command's function (generated
//! from the registry), the natives, and the stdlib modules' own `//!` and `///` comments.

use super::bindings::{module_name, option_keys, positional_args, qualified_name};
use super::stdlib;
use crate::commands::REGISTRY;
use fabsh_client::commands::{CommandSpec, ReturnKind};
use fabsh_client::error::{Error, Result};
use rhai::{Engine, FnAccess};
use serde_json::Value;
use std::fmt::Write;
use std::path::Path;

/// A function the engine registers beside the commands and the stdlib (`json::parse`,
/// `fabsh::parallel`, `sleep`), as its registration documents it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Native {
    /// How it is called, `fs::read_text(path)`.
    pub signature: String,
    /// What it does.
    pub about: String,
}

impl Native {
    /// `fs::read_text`: the name as a script writes it.
    pub fn name(&self) -> &str {
        self.signature.split('(').next().unwrap_or(&self.signature)
    }
}

/// Every documented native of `engine`: functions registered in the global namespace or in a
/// static module other than a command group or a stdlib module, in registration order. A
/// native's doc comment is `` `signature`: what it does ``.
pub fn natives(engine: &Engine, stdlib_dir: Option<&Path>) -> Result<Vec<Native>> {
    let unreadable = |err: serde_json::Error| {
        Error::runtime("the script engine's function metadata could not be read").with_cause(err)
    };
    let text = engine.gen_fn_metadata_to_json(false).map_err(unreadable)?;
    let metadata: Value = serde_json::from_str(&text).map_err(unreadable)?;
    let mut skipped: Vec<String> = REGISTRY
        .groups
        .iter()
        .map(|group| module_name(group.name))
        .collect();
    skipped.extend(
        stdlib::sources(stdlib_dir)?
            .into_iter()
            .map(|source| source.name),
    );
    let modules = metadata["modules"].as_object().into_iter().flatten();
    let in_modules = modules
        .filter(|(name, _)| !skipped.contains(name))
        .flat_map(|(_, module)| module["functions"].as_array().into_iter().flatten());
    let global = metadata["functions"].as_array().into_iter().flatten();
    let mut found = Vec::new();
    for function in in_modules.chain(global) {
        let Some(comment) = function["docComments"][0].as_str() else {
            continue;
        };
        let text = comment.trim_start_matches('/').trim();
        if let Some((signature, about)) = text
            .strip_prefix('`')
            .and_then(|rest| rest.split_once("`: "))
        {
            found.push(Native {
                signature: signature.to_string(),
                about: about.to_string(),
            });
        }
    }
    Ok(found)
}

/// The scripting reference as markdown, for what `engine` registers.
pub fn markdown(engine: &Engine, stdlib_dir: Option<&Path>) -> Result<String> {
    let mut out = String::from("\n## Scripting (Rhai)\n\n");
    out.push_str(
        "Every command is a function in the module of its group (`data-agent` is \
         `data_agent`), named with `_` for `-`; the `api` command is `api::request`. Each takes \
         its required flags by position, in the order below, optionally followed by a map of \
         other options, or everything as one map:\n\n\
         ```rhai\n\
         let item = item::show(\"Demo\", \"Welcome\");\n\
         let notebooks = item::list(\"Demo\", #{type: \"Notebook\", all: true});\n\
         let same = item::show(#{workspace: \"Demo\", id: \"Welcome\"});\n\
         ```\n\n\
         Results are plain values (maps, arrays, strings, numbers, `()`). Errors are thrown \
         as maps `#{kind, status, code, message, request_id}`:\n\n\
         ```rhai\n\
         try { item::show(\"Demo\", \"nope\") } catch (err) { if err.kind == \"not_found\" { print(\"none\") } }\n\
         ```\n\n\
         A script never asks for confirmation; `dry_run: true` works as on the command line.\n",
    );
    for group in REGISTRY.groups {
        if !group.commands.iter().any(CommandSpec::is_scriptable) {
            continue;
        }
        let _ = write!(
            out,
            "\n### {}\n\n| function | required, in order | options | returns |\n|---|---|---|---|\n",
            group.name.replace('-', "_")
        );
        for spec in group.commands.iter().filter(|spec| spec.is_scriptable()) {
            let required: Vec<String> = positional_args(spec)
                .iter()
                .map(|arg| format!("`{}`", arg.snake_name()))
                .collect();
            let required_names: Vec<String> = positional_args(spec)
                .iter()
                .map(|arg| arg.snake_name())
                .collect();
            let options: Vec<String> = option_keys(spec)
                .into_iter()
                .filter(|key| !required_names.contains(key))
                .map(|key| format!("`{key}`"))
                .collect();
            let returns = match spec.traits.returns {
                ReturnKind::List => "array",
                ReturnKind::Object => "map",
                ReturnKind::Void => "()",
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {returns} |",
                qualified_name(spec),
                required.join(", "),
                options.join(", ")
            );
        }
    }
    out.push_str("\n### Natives\n\n");
    for native in natives(engine, stdlib_dir)? {
        let _ = writeln!(out, "- `{}`: {}", native.signature, native.about);
    }
    out.push_str(
        "\nScripts cannot run processes, `eval` is disabled, and files are read and written \
         only through `fs::` with the paths given.\n",
    );
    out.push_str(&stdlib_markdown(stdlib_dir)?);
    Ok(out)
}

/// The three ways to call a command's function, with its parameter and option names.
pub fn call_forms(spec: &'static CommandSpec) -> [String; 3] {
    let name = qualified_name(spec);
    let required: Vec<String> = positional_args(spec)
        .iter()
        .map(|arg| arg.snake_name())
        .collect();
    let options: Vec<String> = option_keys(spec)
        .into_iter()
        .filter(|key| !required.contains(key))
        .collect();
    let with_options = |mut parameters: Vec<String>, keys: &[String]| {
        parameters.push(format!("#{{{}}}", keys.join(", ")));
        parameters.join(", ")
    };
    let everything: Vec<String> = required.iter().chain(&options).cloned().collect();
    [
        format!("{name}({})", required.join(", ")),
        format!("{name}({})", with_options(required.clone(), &options)),
        format!("{name}({})", with_options(Vec::new(), &everything)),
    ]
}

/// Each stdlib module's `//!` text and each public function's signature and `///` text.
pub fn stdlib_markdown(stdlib_dir: Option<&Path>) -> Result<String> {
    let engine = crate::script::syntax_engine();
    let mut out = String::from(
        "\n## stdlib\n\nModules written in Rhai and compiled into fabsh; `fabsh --stdlib DIR` \
         (or `FABSH_STDLIB=DIR`) loads `DIR/<module>.rhai` instead, so copy them from here \
         and change them.\n",
    );
    for source in stdlib::sources(stdlib_dir)? {
        let ast = engine
            .compile(&source.text)
            .map_err(|err| fabsh_client::Error::usage(format!("{}: {err}", source.origin)))?;
        let _ = write!(out, "\n### {}\n", source.name);
        let module_doc = strip_comment_markers(ast.doc(), "//!");
        if !module_doc.is_empty() {
            let _ = write!(out, "\n{module_doc}\n");
        }
        for function in public_functions(&ast) {
            let _ = write!(
                out,
                "\n#### `{}::{}({})`\n",
                source.name,
                function.name,
                function.params.join(", ")
            );
            let doc = strip_comment_markers(&function.comments.join("\n"), "///");
            if !doc.is_empty() {
                let _ = write!(out, "\n{doc}\n");
            }
        }
    }
    Ok(out)
}

/// The functions a module offers, by name then number of parameters; closures and private
/// functions are the module's own business.
pub fn public_functions(ast: &rhai::AST) -> Vec<rhai::ScriptFnMetadata<'_>> {
    let mut functions: Vec<_> = ast
        .iter_functions()
        .filter(|function| function.access != FnAccess::Private)
        // Closures compile to functions named `anon$<hash>`.
        .filter(|function| !function.name.contains('$'))
        .collect();
    functions.sort_by(|a, b| (a.name, a.params.len()).cmp(&(b.name, b.params.len())));
    functions
}

/// `/// text` lines as `text`.
fn strip_comment_markers(text: &str, marker: &str) -> String {
    text.lines()
        .map(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix(marker).unwrap_or(line);
            line.strip_prefix(' ').unwrap_or(line)
        })
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}
