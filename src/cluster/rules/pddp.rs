//! `pddp`: Principal Direction Divisive Partitioning (Boley 1998) and its 2^l-way extension
//! PDDP(l) (Zeimpekis & Gallopoulos, section 2, Table 1).

use super::{Directions, Partition, SplitContext, SplitRule, orthant_split};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "pddp",
    summary: "the sign (orthant) of the l leading right singular vectors of the centred node matrix",
    source: "Boley; Zeimpekis & Gallopoulos, section 2 and Table 1",
    params: &[Param::L, Param::Sample],
    children: Children::Orthants,
    preview_symbol: Some('P'),
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::Directions,
    build: |params| {
        Box::new(Pddp {
            l: params.l,
            sample: params.sample,
        })
    },
};

/// PDDP(l): each member goes to the orthant given by the signs of its row of the l leading right singular vectors
/// `[v_1 ... v_l]` of the centred node matrix `B = A_p - c e^T` (the signs of its projections
/// `U_l^T (a_j - c) = Sigma_l V_l(j, :)^T`, since the singular values are positive). l = 1 is Boley's PDDP: the
/// split is by the sign of `v_1`, non-positive first (`C_1 = {rho_i <= 0}`, Theorem 1). Up to 2^l children;
/// empty orthants make no child. Signs follow the singular vectors' fixed sign convention
/// ([`crate::linalg`]), so the order of the children is reproducible.
#[derive(Debug, Clone, Copy)]
pub struct Pddp {
    pub l: usize,
    /// The `sample` parameter: see [`super::directions_by`].
    pub sample: usize,
}

impl SplitRule for Pddp {
    fn directions_needed(&self) -> usize {
        self.l
    }

    fn direction_sample(&self) -> usize {
        self.sample
    }

    fn split_along(
        &self,
        node: &SplitContext,
        directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let zero_cuts = |directions: &[Vec<f64>]| vec![0.0; directions.len()];
        orthant_split(
            node,
            directions,
            self.l,
            zero_cuts,
            "the sign of the principal direction",
        )
    }
}
