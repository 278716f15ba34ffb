//! The layers of docs/ARCHITECTURE.md, checked against the code: every module of the library may refer only to
//! the modules its row of the layer table allows (those of its own row, and the shared pieces of the first row,
//! which every layer may use), whatever the path it takes
//! (`use crate::...`, a path in an expression, `super::` climbing out of it). The table is read from the document
//! itself, so the two cannot drift apart. Test code (`#[cfg(test)]` items and modules) may reach anywhere: a
//! unit test of the linear algebra loads a real corpus through the dataset.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "common/sources.rs"]
mod sources;

use sources::rust_files;
use syn::visit::Visit;

/// One row of the layer table: the modules it owns and the modules they may use.
#[derive(Debug)]
struct Layer {
    modules: BTreeSet<String>,
    may_use: BTreeSet<String>,
}

/// The words between backticks in `cell`.
fn quoted(cell: &str) -> BTreeSet<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The layer table of docs/ARCHITECTURE.md: the rows under the heading "Layers and what each may use", each
/// `| modules | what they own | the modules they may use |`.
fn layer_table(architecture: &str) -> Vec<Layer> {
    let section = architecture
        .split("\n## ")
        .find(|section| section.starts_with("Layers and what each may use"))
        .expect("docs/ARCHITECTURE.md has the layer table's section");
    section
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            Layer {
                modules: quoted(cells[1]),
                may_use: quoted(cells[3]),
            }
        })
        .collect()
}

/// The module path of a file of `src/` (`src/tui/model/mod.rs` is `tui::model`).
fn module_path(file: &Path) -> Vec<String> {
    let relative = file.strip_prefix("src").expect("a file of src/");
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Meta>()
                .is_ok_and(|meta| meta.path().is_ident("test"))
    })
}

/// What one file refers to: the crate's top-level modules its paths reach, with the path as written.
struct References {
    /// The module the code being visited is in (inline `mod` blocks nest it further).
    module: Vec<String>,
    /// Where the modules declared by `mod name;` in the file live: test-only ones are skipped.
    test_modules: Vec<Vec<String>>,
    found: Vec<(String, String)>,
}

impl References {
    /// The top-level module a path starting with `first` (after `crate::` or a run of `super::`) reaches, if
    /// it leaves the file's own top-level module.
    fn record(&mut self, segments: &[String]) {
        let mut at = self.module.clone();
        let mut rest = segments;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                at.clear();
                rest = &rest[1..];
            }
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    at.pop();
                    rest = &rest[1..];
                }
            }
            _ => return,
        }
        let target = match at.first() {
            Some(top) => top.clone(),
            None => match rest.first() {
                Some(first) => first.clone(),
                None => return,
            },
        };
        self.found.push((target, segments.join("::")));
    }
}

impl<'ast> Visit<'ast> for References {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(item) => &item.attrs,
            syn::Item::Fn(item) => &item.attrs,
            syn::Item::Impl(item) => &item.attrs,
            syn::Item::Use(item) => &item.attrs,
            syn::Item::Const(item) => &item.attrs,
            syn::Item::Static(item) => &item.attrs,
            syn::Item::Struct(item) => &item.attrs,
            syn::Item::Enum(item) => &item.attrs,
            _ => &Vec::new(),
        };
        if is_test_only(attrs) {
            if let syn::Item::Mod(module) = item
                && module.content.is_none()
            {
                let mut path = self.module.clone();
                path.push(module.ident.to_string());
                self.test_modules.push(path);
            }
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, module: &'ast syn::ItemMod) {
        if module.content.is_some() {
            self.module.push(module.ident.to_string());
            syn::visit::visit_item_mod(self, module);
            self.module.pop();
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.record(&segments);
        syn::visit::visit_path(self, path);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut paths = Vec::new();
        use_paths(&item.tree, Vec::new(), &mut paths);
        for segments in paths {
            self.record(&segments);
        }
    }
}

/// Every path a `use` tree names, as its segments.
fn use_paths(tree: &syn::UseTree, prefix: Vec<String>, paths: &mut Vec<Vec<String>>) {
    let with = |name: &syn::Ident| {
        let mut path = prefix.clone();
        path.push(name.to_string());
        path
    };
    match tree {
        syn::UseTree::Path(path) => use_paths(&path.tree, with(&path.ident), paths),
        syn::UseTree::Name(name) => paths.push(with(&name.ident)),
        syn::UseTree::Rename(rename) => paths.push(with(&rename.ident)),
        syn::UseTree::Glob(_) => paths.push(prefix),
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                use_paths(tree, prefix.clone(), paths);
            }
        }
    }
}

/// Each library file's references to other top-level modules than its own: (file, its module, the target, the
/// path as written). The binary's files (`main.rs`, `cli/`) use the library as a whole, and are left out.
fn library_references() -> Vec<(PathBuf, String, String, String)> {
    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    files.sort();
    let mut test_modules: Vec<Vec<String>> = Vec::new();
    let mut parsed = Vec::new();
    for file in files {
        let path = module_path(&file);
        if file == Path::new("src/main.rs") || path.first().is_some_and(|top| top == "cli") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a source file reads");
        let syntax = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut references = References {
            module: path.clone(),
            test_modules: Vec::new(),
            found: Vec::new(),
        };
        references.visit_file(&syntax);
        test_modules.extend(references.test_modules);
        parsed.push((file, path, references.found));
    }
    let mut out = Vec::new();
    for (file, path, found) in parsed {
        if test_modules.iter().any(|test| path.starts_with(test)) {
            continue;
        }
        let Some(top) = path.first() else {
            continue;
        };
        for (target, written) in found {
            if target != *top {
                out.push((file.clone(), top.clone(), target, written));
            }
        }
    }
    out
}

#[test]
fn every_module_uses_only_what_its_layer_allows() {
    let architecture =
        std::fs::read_to_string("docs/ARCHITECTURE.md").expect("docs/ARCHITECTURE.md reads");
    let layers = layer_table(&architecture);
    assert!(layers.len() >= 8, "the layer table: {layers:?}");
    // The first row is the shared pieces, which every layer may use.
    let shared = &layers[0].modules;
    let mut allowed: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (row, layer) in layers.iter().enumerate() {
        for module in &layer.modules {
            let uses = allowed.entry(module).or_default();
            uses.extend(layer.modules.iter().map(String::as_str));
            uses.extend(layer.may_use.iter().map(String::as_str));
            if row > 0 {
                uses.extend(shared.iter().map(String::as_str));
            }
        }
    }
    let mut wrong = Vec::new();
    let mut unknown = BTreeSet::new();
    for (file, module, target, written) in library_references() {
        match allowed.get(module.as_str()) {
            None => {
                unknown.insert(module);
            }
            Some(uses) if !uses.contains(target.as_str()) => {
                wrong.push(format!(
                    "{}: {module} uses {target} ({written})",
                    file.display()
                ));
            }
            Some(_) => {}
        }
    }
    assert!(
        unknown.is_empty(),
        "modules with no row in the layer table: {unknown:?}"
    );
    assert!(
        wrong.is_empty(),
        "imports the layer table does not allow:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_checker_sees_every_way_of_naming_a_module() {
    let source = r#"
        use crate::cluster::{Tree, rules::SplitEnv};
        use super::super::report::html;
        fn f() -> usize { crate::dataset::open_demo(); 0 }
        mod inner { use super::super::tui::Model; }
        #[cfg(test)]
        mod tests { use crate::corpus::Document; }
    "#;
    let syntax = syn::parse_file(source).expect("parses");
    let mut references = References {
        module: vec!["linalg".into(), "kernel".into()],
        test_modules: Vec::new(),
        found: Vec::new(),
    };
    references.visit_file(&syntax);
    let targets: BTreeSet<&str> = references
        .found
        .iter()
        .map(|(target, _)| target.as_str())
        .collect();
    // `super::super` from linalg::kernel is the crate's root: report is reached; from the inline module one level
    // deeper, `super::super` is linalg itself. The test module is left out.
    assert_eq!(
        targets,
        BTreeSet::from(["cluster", "dataset", "linalg", "report"])
    );
}
