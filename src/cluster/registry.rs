//! The rule registry: what pdx knows about each split rule, declared once in the rule's own file as a
//! [`RuleDef`] and listed in [`super::rules`]. Everything that lists, parses, prints, previews or documents rules
//! (the command line's help and parsing, the rule picker, the preview, sessions and exports) reads it from here,
//! so adding a rule is one file and one line in that list.

use super::assign::OutOfSample;
use super::params::{CheckedParams, Param};
use super::rules::{RULES, SplitRule};

/// The rule a tree grows by unless told otherwise: PDDP steered by 2-means, the refinement Zeimpekis &
/// Gallopoulos recommend over plain PDDP, and the linear rule of highest NMI over the collections measured in
/// `docs/references.md` ("Choosing the default rule") at a time near plain PDDP's.
pub const DEFAULT_RULE: &str = "pddp-2means";

/// How many children one split of a rule makes, which also decides how a tree grows with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Children {
    /// Two.
    Two,
    /// Up to 2^l, the orthants of the l leading directions. Growing to K leaves takes the
    /// `ceil((K - 1) / (2^l - 1))` splits of Zeimpekis & Gallopoulos' Table 1 when l > 1.
    Orthants,
    /// Up to `k_way` groups (bisecting by default), fewer when fewer leaves are left to make.
    KWay,
    /// As [`Children::KWay`], but when no `k_way` is given the command line asks for as many groups as leaves: one
    /// split then makes the whole clustering (flat k-means).
    Flat,
}

/// Whether a rule works on the data matrix or on a kernel matrix of the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// The node's columns and their principal directions.
    Linear,
    /// A dense n x n kernel matrix of the node: memory grows with the square of its size.
    Kernel,
}

/// One split rule, as the rest of pdx sees it.
pub struct RuleDef {
    /// The name used on the command line, in the picker and in every file pdx writes.
    pub name: &'static str,
    /// What the rule does, in one line.
    pub summary: &'static str,
    /// Where the rule comes from: author and section or equation (the full citations are in
    /// `docs/references.md`).
    pub source: &'static str,
    /// The parameters the rule uses, in the order sessions and exports write them. A rule uses the kernel
    /// parameter exactly when it is a kernel rule.
    pub params: &'static [Param],
    pub children: Children,
    /// The letter that marks the rule's cut in a split preview; `None` for rules the preview does not compare
    /// (those that do not cut the leading principal direction).
    pub preview_symbol: Option<char>,
    /// The rule (at its default parameters) whose split this one refines by 2-means: a preview that compares
    /// both computes the start once.
    pub refines: Option<&'static str>,
    /// How a split of the rule takes a point it never saw: a new document routed down a kept tree
    /// ([`super::assign`]).
    pub out_of_sample: OutOfSample,
    /// The rule, built from checked parameters.
    pub build: fn(&CheckedParams) -> Box<dyn SplitRule>,
}

impl RuleDef {
    pub fn family(&self) -> Family {
        if self.uses(Param::Kernel) {
            Family::Kernel
        } else {
            Family::Linear
        }
    }

    pub fn uses(&self, param: Param) -> bool {
        self.params.contains(&param)
    }
}

impl std::fmt::Debug for RuleDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuleDef")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Every rule, linear rules first, in the order menus and help list them.
pub fn all() -> &'static [&'static RuleDef] {
    RULES
}

/// The rule called `name`.
pub fn find(name: &str) -> Option<&'static RuleDef> {
    RULES.iter().copied().find(|rule| rule.name == name)
}

/// The rules of `family`, in registry order.
pub fn of_family(family: Family) -> impl Iterator<Item = &'static RuleDef> {
    RULES
        .iter()
        .copied()
        .filter(move |rule| rule.family() == family)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::cluster::params::Params;
    use crate::cluster::spec::RuleSpec;
    use crate::linalg::kernel::KernelSpec;

    /// Parameters that differ from the defaults in every value, all in range.
    // The update is for a parameter added to the table later, which the list below does not name yet.
    #[allow(clippy::needless_update)]
    fn unusual() -> Params {
        Params {
            l: 3,
            tau: 0.35,
            trials: 7,
            seed: 42,
            k_way: 4,
            kernel: KernelSpec::Polynomial {
                degree: 3,
                offset: 0.5,
            },
            beta: 2.5,
            laplacian: crate::cluster::Laplacian::Sym,
            normalise: false,
            cut_scan: crate::cluster::CutScan::Ncut,
            min_side: 0.3,
            partial_labels: 0.4,
            c0: 2.5,
            sample: 8,
            ..stepped_defaults()
        }
    }

    /// Every parameter stepped once from its default as the rule picker steps it: in range and not the default, the
    /// values of the parameters `unusual` does not name (one added to the table since).
    fn stepped_defaults() -> Params {
        Param::ALL
            .into_iter()
            .fold(Params::default(), |mut params, param| {
                (param.stepper())(&mut params, true);
                params
            })
    }

    #[test]
    fn every_rule_parses_its_name_and_round_trips_its_parameters() {
        for rule in all() {
            let spec = RuleSpec::new(rule.name, &unusual()).expect("a rule");
            assert_eq!(spec.name(), rule.name);
            assert!(std::ptr::eq(find(rule.name).expect("found"), *rule));
            // Through JSON: the name, then exactly the parameters the rule uses, in its order.
            let json = serde_json::to_value(&spec).expect("serialises");
            let keys: Vec<&str> = json
                .as_object()
                .expect("an object")
                .keys()
                .map(String::as_str)
                .filter(|&key| key != "rule")
                .collect();
            let mut used: Vec<&str> = rule.params.iter().map(|p| p.key()).collect();
            used.sort_unstable();
            let mut keys_sorted = keys.clone();
            keys_sorted.sort_unstable();
            assert_eq!(keys_sorted, used, "{}", rule.name);
            let text = serde_json::to_string(&spec).expect("serialises");
            assert!(text.starts_with(&format!("{{\"rule\":\"{}\"", rule.name)));
            let back: RuleSpec = serde_json::from_str(&text).expect("reads back");
            assert_eq!(back, spec, "{}", rule.name);
            // Through text: `key=value` for each parameter the rule uses, in its order.
            let expected: Vec<String> = rule
                .params
                .iter()
                .map(|p| format!("{}={}", p.key(), p.value_text(&unusual())))
                .collect();
            assert_eq!(spec.params_text(), expected.join(" "), "{}", rule.name);
            // A parameter the rule does not use does not make it another rule.
            assert_eq!(
                RuleSpec::new(rule.name, &Params::default()).expect("a rule"),
                RuleSpec::new(
                    rule.name,
                    &rule
                        .params
                        .iter()
                        .fold(unusual(), |p, &param| p.with(param, &Params::default()))
                )
                .expect("a rule"),
                "{}",
                rule.name
            );
        }
    }

    #[test]
    fn the_declarations_agree_with_each_other_and_with_the_rules() {
        let names: HashSet<&str> = all().iter().map(|rule| rule.name).collect();
        assert_eq!(names.len(), all().len(), "names are unique");
        let symbols: Vec<char> = all()
            .iter()
            .filter_map(|rule| rule.preview_symbol)
            .collect();
        let unique: HashSet<char> = symbols.iter().copied().collect();
        assert_eq!(unique.len(), symbols.len(), "preview symbols are unique");
        let linear_first = all()
            .iter()
            .position(|rule| rule.family() == Family::Kernel)
            .is_none_or(|first| all()[first..].iter().all(|r| r.family() == Family::Kernel));
        assert!(linear_first, "linear rules are listed first");
        for rule in all() {
            let spec = RuleSpec::named(rule.name).expect("a rule");
            let implementation = spec.rule();
            // The preview compares the rules that cut principal directions, and only those.
            assert_eq!(
                rule.preview_symbol.is_some(),
                implementation.directions_needed() > 0,
                "{}",
                rule.name
            );
            if let Some(start) = rule.refines {
                let start = find(start).expect("refines a rule of the registry");
                assert!(start.preview_symbol.is_some(), "{}", rule.name);
            }
            match rule.children {
                Children::Orthants => assert!(rule.uses(Param::L), "{}", rule.name),
                Children::KWay | Children::Flat => assert!(rule.uses(Param::KWay), "{}", rule.name),
                Children::Two => assert_eq!(spec.max_children(), 2),
            }
            assert_eq!(
                spec.kernel().is_some(),
                rule.family() == Family::Kernel,
                "{}",
                rule.name
            );
        }
        assert!(find(DEFAULT_RULE).is_some());
    }
}
