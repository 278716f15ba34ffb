//! Every file or folder pdx moves into place goes through `files::rename_durably`, which syncs the folder after
//! the rename so that the new name survives a power cut. Checked on the code itself: a call of any `fs::rename`
//! (or a `rename` brought in from a `fs` module) anywhere in `src/` outside that function fails this test.

use std::path::Path;

#[path = "common/sources.rs"]
mod sources;

use sources::rust_files;
use syn::visit::Visit;

/// The renames of one file, each with the function it is in.
struct Renames {
    function: Vec<String>,
    found: Vec<String>,
}

impl Renames {
    fn is_rename(path: &syn::Path) -> bool {
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let last = names.last().map(String::as_str).unwrap_or_default();
        // `fs::rename`, `std::fs::rename`, the system calls `renameat`/`renameat2` of a `fs` module, and a bare
        // `rename` imported from one (see `visit_use_path`).
        (last == "rename" || last.starts_with("renameat"))
            && (names.len() == 1 || names.iter().any(|n| n == "fs"))
    }
}

impl<'ast> Visit<'ast> for Renames {
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.function.push(item.sig.ident.to_string());
        syn::visit::visit_item_fn(self, item);
        self.function.pop();
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.function.push(item.sig.ident.to_string());
        syn::visit::visit_impl_item_fn(self, item);
        self.function.pop();
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(callee) = &*call.func
            && Self::is_rename(&callee.path)
        {
            let within = self.function.last().cloned().unwrap_or_default();
            self.found.push(within);
        }
        syn::visit::visit_expr_call(self, call);
    }

    fn visit_use_path(&mut self, path: &'ast syn::UsePath) {
        // `use std::fs::rename;` (or `{self, rename}`, or `rename as mv`) would let a bare call slip past the
        // check of paths.
        let names_rename =
            |ident: &syn::Ident| ident == "rename" || ident.to_string().starts_with("renameat");
        let imported = |tree: &syn::UseTree| match tree {
            syn::UseTree::Name(name) => names_rename(&name.ident),
            syn::UseTree::Rename(rename) => names_rename(&rename.ident),
            _ => false,
        };
        let imports_rename = match &*path.tree {
            syn::UseTree::Group(group) => group.items.iter().any(imported),
            tree => imported(tree),
        };
        if path.ident == "fs" && imports_rename {
            self.found.push("an import of fs::rename".into());
        }
        syn::visit::visit_use_path(self, path);
    }
}

#[test]
fn every_rename_into_place_syncs_its_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut stray = Vec::new();
    let mut in_helper = 0;
    for file in &files {
        let source = std::fs::read_to_string(file).expect("a source file reads");
        let syntax = syn::parse_file(&source).expect("a source file parses");
        let mut renames = Renames {
            function: Vec::new(),
            found: Vec::new(),
        };
        renames.visit_file(&syntax);
        let relative = file.strip_prefix(root).unwrap_or(file);
        for within in renames.found {
            if relative == Path::new("src/files.rs") && within == "rename_durably" {
                in_helper += 1;
            } else {
                stray.push(format!("{} (in {within})", relative.display()));
            }
        }
    }
    assert!(
        stray.is_empty(),
        "renames that do not go through files::rename_durably: {stray:?}"
    );
    assert_eq!(in_helper, 1, "files::rename_durably renames, once");
}
