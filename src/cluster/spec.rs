//! [`RuleSpec`]: a rule of the registry with checked values for the parameters it uses, as the user chose it and
//! as the tree records it on the node it split. It is written to sessions and reports as
//! `{"rule": NAME, PARAM: VALUE, ...}` and read back through the same checks as a rule typed in.

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::ClusterError;
use super::params::{CheckedParams, GivenParams, Param, Params};
use super::registry::{self, Children, RuleDef};
use super::rules::SplitRule;
use crate::linalg::kernel::KernelSpec;

/// A split rule and its parameters.
#[derive(Clone)]
pub struct RuleSpec {
    def: &'static RuleDef,
    /// The values of the parameters `def` uses; the others are at their defaults, so that two specs of a rule
    /// are equal exactly when the parameters it uses are.
    params: CheckedParams,
}

impl RuleSpec {
    /// The rule called `name` with `params` (every value checked, those the rule does not use then set aside).
    pub fn new(name: &str, params: &Params) -> Result<RuleSpec, ClusterError> {
        let def = registry::find(name).ok_or_else(|| ClusterError::UnknownRule {
            name: name.to_string(),
        })?;
        let checked = params.check()?;
        let used = def
            .params
            .iter()
            .fold(Params::default(), |kept, &param| kept.with(param, &checked));
        Ok(RuleSpec {
            def,
            params: used.check()?,
        })
    }

    /// The rule called `name` with the default parameters.
    pub fn named(name: &str) -> Result<RuleSpec, ClusterError> {
        RuleSpec::new(name, &Params::default())
    }

    pub fn def(&self) -> &'static RuleDef {
        self.def
    }

    pub fn name(&self) -> &'static str {
        self.def.name
    }

    /// The values of every parameter: those the rule uses, and the defaults of the others.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The parameters the rule uses that its text and files show ([`Param::shown_in`]), in the rule's order.
    pub fn shown_params(&self) -> impl Iterator<Item = Param> + '_ {
        self.def
            .params
            .iter()
            .copied()
            .filter(|param| param.shown_in(&self.params))
    }

    /// The rule's parameters as `name=value` text, for tables and Newick comments (empty for a rule without).
    pub fn params_text(&self) -> String {
        self.shown_params()
            .map(|param| format!("{}={}", param.key(), param.value_text(&self.params)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The name and parameters as one piece of text (`pddp l=1`).
    pub fn text(&self) -> String {
        let params = self.params_text();
        if params.is_empty() {
            self.name().to_string()
        } else {
            format!("{} {params}", self.name())
        }
    }

    /// The kernel of a kernel rule; `None` for the linear rules.
    pub fn kernel(&self) -> Option<&KernelSpec> {
        self.def.uses(Param::Kernel).then_some(&self.params.kernel)
    }

    /// The most children one split can make.
    pub fn max_children(&self) -> usize {
        match self.def.children {
            Children::Two => 2,
            Children::Orthants => 1 << self.params.l,
            Children::KWay | Children::Flat => self.params.k_way,
        }
    }

    /// The splits that grow a tree to `leaves` leaves when the rule makes `2^l`-way splits with l > 1
    /// (Zeimpekis & Gallopoulos, Table 1: `ceil((leaves - 1) / (2^l - 1))`, which may make more leaves than
    /// asked); `None` when growth goes by leaf count instead.
    pub fn table_one_splits(&self, leaves: usize) -> Option<usize> {
        let l = self.params.l;
        (self.def.children == Children::Orthants && l > 1)
            .then(|| leaves.saturating_sub(1).div_ceil((1 << l) - 1))
    }

    /// The same rule making at most `ways` groups per split, for the k-way rules when fewer leaves are left to
    /// make; other rules are returned as they are.
    pub(crate) fn capped(&self, ways: usize) -> RuleSpec {
        match self.def.children {
            Children::KWay | Children::Flat => RuleSpec {
                def: self.def,
                params: self.params.with_k_way(self.params.k_way.min(ways)),
            },
            Children::Two | Children::Orthants => self.clone(),
        }
    }

    /// The rule's implementation.
    pub fn rule(&self) -> Box<dyn SplitRule> {
        (self.def.build)(&self.params)
    }
}

/// The rule pdx splits with unless told otherwise: [`registry::DEFAULT_RULE`].
impl Default for RuleSpec {
    fn default() -> Self {
        RuleSpec::named(registry::DEFAULT_RULE)
            .unwrap_or_else(|error| panic!("the default rule is a rule: {error}"))
    }
}

impl PartialEq for RuleSpec {
    fn eq(&self, other: &Self) -> bool {
        self.def.name == other.def.name && self.params == other.params
    }
}

impl std::fmt::Debug for RuleSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RuleSpec({})", self.text())
    }
}

impl Serialize for RuleSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let shown: Vec<Param> = self.shown_params().collect();
        let mut map = serializer.serialize_map(Some(1 + shown.len()))?;
        map.serialize_entry("rule", self.def.name)?;
        for param in shown {
            param.serialize_entry(&self.params, &mut map)?;
        }
        map.end()
    }
}

/// A rule as written in a file: its name and whichever parameters are there (keys as [`Param::key`]).
#[derive(Deserialize)]
struct StoredRule {
    rule: String,
    #[serde(flatten)]
    params: GivenParams,
}

impl<'de> Deserialize<'de> for RuleSpec {
    /// A parameter missing from the file takes what the rule did before it had the parameter
    /// (`Params::of_older_files`: its default, except `cut-cost`'s scan, which minimised the ratio cut over every
    /// threshold until it had `cut-scan` and `min-side`). Every value goes through the same checks as one typed in.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = StoredRule::deserialize(deserializer)?;
        let params = stored.params.over(Params::of_older_files());
        RuleSpec::new(&stored.rule, &params).map_err(D::Error::custom)
    }
}
