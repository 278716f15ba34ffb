//! Orthonormal bases of one vector length, stored one vector after another, and the passes over them that a
//! Lanczos run makes: classical Gram-Schmidt with a second pass when the first cancels much (DGKS), linear
//! combinations (Ritz vectors, thick restarts) and fresh start vectors. Every pass is written block by block of
//! rows in a fixed order, so the parallel and sequential versions give the same bits.

use nalgebra::DMatrix;
use rayon::prelude::*;

use crate::linalg::vector::{axpy, dot, norm, scale};
use crate::rng::SplitMix64;

/// Re-orthogonalise a second time when the first pass shrank the vector below this fraction of its norm (the
/// criterion of Daniel, Gragg, Kaufman & Stewart, 1976; "twice is enough").
const DGKS: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// Vector work (length x number of vectors) above which basis operations use all cores.
const PARALLEL_MIN_WORK: usize = 1 << 16;

/// Rows per task in the parallel basis updates.
pub(super) const ROW_BLOCK: usize = 2048;

/// A caller's guess at the leading right singular vector, and whether a run starts from it alone
/// ([`LanczosOptions::refine`](super::LanczosOptions::refine)).
#[derive(Debug, Clone, Copy)]
pub(super) struct Guess<'g> {
    pub vector: &'g [f64],
    pub alone: bool,
}

/// Orthonormal vectors of one length, stored one after another.
pub(super) struct Basis {
    pub(super) len: usize,
    data: Vec<f64>,
    count: usize,
}

impl Basis {
    pub(super) fn new(len: usize, capacity: usize) -> Self {
        Basis {
            len,
            data: Vec::with_capacity(len * capacity),
            count: 0,
        }
    }

    /// How many vectors it holds.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    pub(super) fn vector(&self, i: usize) -> &[f64] {
        &self.data[i * self.len..(i + 1) * self.len]
    }

    pub(super) fn push(&mut self, v: &[f64]) {
        self.data.truncate(self.count * self.len);
        self.data.extend_from_slice(v);
        self.count += 1;
    }

    /// Append the vector `fill` writes into a zeroed slot: for a vector a product computes in place.
    pub(super) fn push_filled(&mut self, fill: impl FnOnce(&mut [f64])) {
        self.data.truncate(self.count * self.len);
        if self.len >= PARALLEL_MIN_WORK {
            // A long slot is mostly fresh pages, which the kernel maps and clears as the zeros reach them: on
            // every core that takes a fraction of the time.
            self.data.par_extend(rayon::iter::repeat_n(0.0, self.len));
        } else {
            self.data.resize((self.count + 1) * self.len, 0.0);
        }
        fill(&mut self.data[self.count * self.len..]);
        self.count += 1;
    }

    /// Append `factor * v`: normalising and storing a new basis vector in one pass.
    pub(super) fn push_scaled(&mut self, v: &[f64], factor: f64) {
        self.data.truncate(self.count * self.len);
        self.data.extend(v.iter().map(|x| x * factor));
        self.count += 1;
    }

    pub(super) fn truncate(&mut self, count: usize) {
        self.count = count;
        self.data.truncate(count * self.len);
    }

    pub(super) fn parallel(&self, vectors: usize) -> bool {
        self.len * vectors >= PARALLEL_MIN_WORK
    }

    /// Remove from `w` its components along every basis vector, by classical Gram-Schmidt (its dot products are
    /// independent, hence parallel), repeated once when the first pass cancelled much (DGKS). `total` receives
    /// the coefficients, which are the projected matrix's entries. `before` is `||w||`; returns `||w||` after.
    pub(super) fn orthogonalise(
        &self,
        w: &mut [f64],
        before: f64,
        pass: &mut Vec<f64>,
        total: &mut Vec<f64>,
    ) -> f64 {
        self.orthogonalise_except(w, 0..0, before, pass, total)
    }

    /// [`Basis::orthogonalise`] against every basis vector but those in `skipped`, whose coefficients are
    /// recorded as zero: for the vectors that exact arithmetic makes orthogonal to `w` already. The caller
    /// passes `||w||` (it has it from checking the product) and gets the new norm back from the pass that
    /// subtracts the components: at the root of a text corpus every pass over a left vector reads half a
    /// megabyte, and the step needs no other.
    pub(super) fn orthogonalise_except(
        &self,
        w: &mut [f64],
        skipped: std::ops::Range<usize>,
        before: f64,
        pass: &mut Vec<f64>,
        total: &mut Vec<f64>,
    ) -> f64 {
        total.clear();
        total.resize(self.count, 0.0);
        let selected = self.count - skipped.len().min(self.count);
        if selected == 0 {
            return before;
        }
        let parallel = self.parallel(selected);
        let mut before = before;
        let mut after = before;
        for _ in 0..2 {
            pass.clear();
            pass.resize(self.count, 0.0);
            {
                let w: &[f64] = w;
                let coefficient = |(i, h): (usize, &mut f64)| {
                    if !skipped.contains(&i) {
                        *h = dot(self.vector(i), w);
                    }
                };
                if parallel {
                    pass.par_iter_mut().enumerate().for_each(coefficient);
                } else {
                    pass.iter_mut().enumerate().for_each(coefficient);
                }
            }
            after = self.combine_from(0, pass, -1.0, w, parallel).sqrt();
            total.iter_mut().zip(pass.iter()).for_each(|(t, h)| *t += h);
            if after > DGKS * before {
                break;
            }
            before = after;
        }
        after
    }

    /// `out += sign * sum_l coefficients[l] * vector(offset + l)` — written per block of rows with the
    /// vectors in a fixed order, so the parallel and sequential versions give the same bits. Returns
    /// `||out||^2` after the update, summed block by block in order (the same bits either way too), which
    /// saves the caller a pass.
    pub(super) fn combine_from(
        &self,
        offset: usize,
        coefficients: &[f64],
        sign: f64,
        out: &mut [f64],
        parallel: bool,
    ) -> f64 {
        let block = |(b, out_block): (usize, &mut [f64])| {
            let start = b * ROW_BLOCK;
            let end = start + out_block.len();
            // A zero coefficient adds nothing (the vectors are finite); skipping it saves the pass.
            for (l, &c) in coefficients.iter().enumerate().filter(|(_, c)| **c != 0.0) {
                axpy(sign * c, &self.vector(offset + l)[start..end], out_block);
            }
            dot(out_block, out_block)
        };
        let squares: Vec<f64> = if parallel {
            out.par_chunks_mut(ROW_BLOCK)
                .enumerate()
                .map(block)
                .collect()
        } else {
            out.chunks_mut(ROW_BLOCK).enumerate().map(block).collect()
        };
        squares.iter().sum()
    }

    /// `outputs[i] = sum_l coefficients[(l, i)] * vector(offset + l)` for each column i of `coefficients`, into
    /// `outputs` (its first `coefficients.ncols()` runs of `len` values), with the arithmetic of
    /// [`Basis::combine_from`] on a zeroed vector, so the same bits. Block by block of rows, so that a block of
    /// the basis is read from memory once for all the outputs rather than once per output: a thick restart
    /// keeps about half the basis, and one [`Basis::combine_from`] per kept vector read the whole basis that
    /// many times.
    pub(super) fn combine_columns(
        &self,
        offset: usize,
        coefficients: &DMatrix<f64>,
        outputs: &mut [f64],
        parallel: bool,
    ) {
        let count = coefficients.ncols();
        let mut blocks: Vec<Vec<&mut [f64]>> = Vec::new();
        for output in outputs.chunks_mut(self.len).take(count) {
            for (b, piece) in output.chunks_mut(ROW_BLOCK).enumerate() {
                if b == blocks.len() {
                    blocks.push(Vec::with_capacity(count));
                }
                blocks[b].push(piece);
            }
        }
        let rows = coefficients.nrows();
        let block = |(b, pieces): (usize, Vec<&mut [f64]>)| {
            let start = b * ROW_BLOCK;
            for (i, piece) in pieces.into_iter().enumerate() {
                piece.fill(0.0);
                let end = start + piece.len();
                for l in (0..rows).filter(|&l| coefficients[(l, i)] != 0.0) {
                    axpy(
                        coefficients[(l, i)],
                        &self.vector(offset + l)[start..end],
                        piece,
                    );
                }
            }
        };
        if parallel {
            blocks.into_par_iter().enumerate().for_each(block);
        } else {
            blocks.into_iter().enumerate().for_each(block);
        }
    }

    /// `sum_l coefficients[l] * vector(offset + l)`, a Ritz vector.
    pub(super) fn combination(&self, offset: usize, coefficients: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.len];
        let parallel = self.parallel(coefficients.len());
        self.combine_from(offset, coefficients, 1.0, &mut out, parallel);
        out
    }

    /// Fill `out` with the unit vector along `guess / ||guess|| + r / ||r||` (r from the pseudo-random sequence),
    /// or along the guess alone when [`Guess::alone`], orthogonal to the basis; `false` when the guess is zero or
    /// the combination falls into the basis's span.
    pub(super) fn guided_start(
        &self,
        guess: Guess,
        rng: &mut SplitMix64,
        out: &mut [f64],
        pass: &mut Vec<f64>,
        total: &mut Vec<f64>,
    ) -> bool {
        let guess_norm = norm(guess.vector);
        if self.count >= self.len || !(guess_norm.is_finite() && guess_norm > 0.0) {
            return false;
        }
        if guess.alone {
            out.copy_from_slice(guess.vector);
            return self.normalise_remainder(out, pass, total);
        }
        rng.fill_symmetric(out);
        let random_norm = norm(out);
        for (o, g) in out.iter_mut().zip(guess.vector) {
            *o = g / guess_norm + *o / random_norm;
        }
        self.normalise_remainder(out, pass, total)
    }

    /// A run's first vector in `out`: [`Basis::guided_start`] from `guess` when there is one and it leaves
    /// something, else [`Basis::random_orthogonal`]; `false` when neither finds room. Both solvers start here,
    /// so that the same guess gives them the same start.
    pub(super) fn start(
        &self,
        guess: Option<Guess>,
        rng: &mut SplitMix64,
        out: &mut [f64],
        pass: &mut Vec<f64>,
        total: &mut Vec<f64>,
    ) -> bool {
        let guided = match guess {
            Some(guess) => self.guided_start(guess, rng, out, pass, total),
            None => false,
        };
        guided || self.random_orthogonal(rng, out, pass, total)
    }

    /// Orthogonalise `out` against the basis and scale it to unit length; `false` when (almost) nothing is left
    /// of it, i.e. it lay in the basis's span.
    fn normalise_remainder(
        &self,
        out: &mut [f64],
        pass: &mut Vec<f64>,
        total: &mut Vec<f64>,
    ) -> bool {
        let before = norm(out);
        let after = self.orthogonalise(out, before, pass, total);
        if after > 1e-6 * before {
            scale(out, 1.0 / after);
            true
        } else {
            false
        }
    }

    /// Fill `out` with a unit vector orthogonal to the basis, from the pseudo-random sequence; `false` if the
    /// basis already spans the space (or a few draws all fell into its span).
    pub(super) fn random_orthogonal(
        &self,
        rng: &mut SplitMix64,
        out: &mut [f64],
        pass: &mut Vec<f64>,
        total: &mut Vec<f64>,
    ) -> bool {
        if self.count >= self.len {
            return false;
        }
        for _ in 0..8 {
            rng.fill_symmetric(out);
            if self.normalise_remainder(out, pass, total) {
                return true;
            }
        }
        false
    }
}
