//! The checking mode (`arrc test --check-unspecified`,
//! `ARRC_CHECK_UNSPECIFIED=1`): SOAC arguments and values in, a
//! `RunError::Unspecified` out where a run's result depends on what the
//! language contract leaves open, so that a test expecting one of the
//! allowed results fails every time rather than on some thread counts:
//!
//! - a `scatter` (so `scatter_2d`/`_3d`) writing two different values to
//!   one index, of which the contract stores any one;
//! - a `reduce`, `scan`, `scanr`, `hist` or `reduce_by_index` whose neutral
//!   element is not neutral for a running value (`acc op ne` is not `acc`,
//!   a `reduce_by_index` destination's values included): parallel code
//!   folds each chunk from it, so the result would depend on the chunks
//!   (the strict mode, `ARRC_CHECK_UNSPECIFIED=strict`, also wants `ne op
//!   x` and `x op ne` to be `x` for every element, as the contract does);
//! - an operator of integers or booleans that is not associative on three
//!   consecutive elements (floats reassociate within the tolerance), or a
//!   `hist` operator that does not commute on a bin and a value (parallel
//!   code combines a bin's values in any order);
//! - `to_bits` of a NaN and `copysign` from a NaN's sign: a NaN computed at
//!   run time has other bits on x86-64 than constant-folded or on a GPU.
//!
//! Values compare as the golden suite's exact comparison does: all NaNs
//! are one value and `0.0` equals `-0.0`. An operator that fails in a check
//! is not reported: the check computes what the sequential run did not.

use super::{Interp, RunError, Val};
use crate::core::ir::{Lambda, SrcLoc};
use crate::types::Const;

/// Triples checked for associativity per SOAC: enough for test inputs, a
/// bound on the cost of the big ones.
const ASSOCIATIVITY_TRIPLES: usize = 1000;

/// Equal as results the golden suite compares exactly.
fn same_const(a: Const, b: Const) -> bool {
    if a.scalar_type().is_float() && b.scalar_type().is_float() {
        let (x, y) = (a.as_f64(), b.as_f64());
        (x.is_nan() && y.is_nan()) || x == y
    } else {
        a == b
    }
}

fn same_val(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Scalar(x), Val::Scalar(y)) => same_const(*x, *y),
        (Val::Array(x), Val::Array(y)) => {
            x.dims() == y.dims()
                && (0..x.elems()).all(|i| {
                    match (x.data.get(x.offset + i), y.data.get(y.offset + i)) {
                        (Some(p), Some(q)) => same_const(p, q),
                        _ => false,
                    }
                })
        }
        _ => false,
    }
}

fn same_vals(a: &[Val], b: &[Val]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_val(x, y))
}

/// A value for a message: scalars whole, arrays by their first elements.
fn show(vals: &[Val]) -> String {
    let one = |v: &Val| match v {
        Val::Scalar(c) => c.to_string(),
        Val::Array(a) => {
            let shown: Vec<String> = (0..a.elems().min(4))
                .filter_map(|i| a.data.get(a.offset + i).map(|c| c.to_string()))
                .collect();
            let more = if a.elems() > 4 { ", ..." } else { "" };
            format!("[{}{more}]", shown.join(", "))
        }
    };
    match vals {
        [v] => one(v),
        _ => format!("({})", vals.iter().map(one).collect::<Vec<_>>().join(", ")),
    }
}

/// The bits of a NaN that `to_bits` or `copysign` would expose.
pub(super) fn exposes_nan_bits(c: Const) -> bool {
    c.scalar_type().is_float() && c.as_f64().is_nan()
}

impl Interp<'_> {
    /// Checks are on, and this is not a trial run on rows of zeros.
    pub(super) fn checking(&self) -> bool {
        self.check != super::CheckMode::Off && !self.trial()
    }

    pub(super) fn unspecified(&self, what: String, loc: SrcLoc) -> RunError {
        RunError::Unspecified(format!("{what} at {}", self.loc(loc)))
    }

    /// `op` on two sets of values; `None` where it fails.
    pub(super) fn try_op(&mut self, op: &Lambda, acc: &[Val], elems: &[Val]) -> Option<Vec<Val>> {
        self.apply_op(op, acc.to_vec(), elems.to_vec()).ok()
    }

    /// `acc op ne` (with `right`; `ne op acc` otherwise) is `acc` for every
    /// accumulator of the sequential run in `accs`: parallel code folds
    /// each chunk from `ne` and combines the chunks in order, which
    /// inserts `ne` after an accumulator. An operator that ignores some
    /// elements of the neutral element's choosing (`f64.max` with
    /// `-f64.inf` skips NaN, an argmax keeps the neutral index on ties)
    /// passes: every backend starts from `ne`, so that what it skips never
    /// reaches an accumulator. The strict mode asks more (`check_strict`).
    pub(super) fn check_neutral(
        &mut self,
        soac: &str,
        op: &Lambda,
        ne: &[Val],
        accs: impl Iterator<Item = Vec<Val>>,
        right: bool,
        loc: SrcLoc,
    ) -> Result<(), RunError> {
        for acc in accs {
            let combined = if right {
                self.try_op(op, &acc, ne)
            } else {
                self.try_op(op, ne, &acc)
            };
            if let Some(c) = combined.filter(|c| !same_vals(c, &acc)) {
                let expr = if right {
                    format!("op {} {}", show(&acc), show(ne))
                } else {
                    format!("op {} {}", show(ne), show(&acc))
                };
                return Err(self.unspecified(
                    format!(
                        "the neutral element {} of this {soac} is not neutral for the \
                         running value {}: {expr} is {}, so the result depends on the \
                         number of threads",
                        show(ne),
                        show(&acc),
                        show(&c)
                    ),
                    loc,
                ));
            }
        }
        Ok(())
    }

    /// The strict mode (`ARRC_CHECK_UNSPECIFIED=strict`), the contract's
    /// own condition: `ne op x` and `x op ne` are `x` for every element.
    pub(super) fn check_strict(
        &mut self,
        soac: &str,
        op: &Lambda,
        ne: &[Val],
        elems: impl Iterator<Item = Vec<Val>>,
        loc: SrcLoc,
    ) -> Result<(), RunError> {
        if self.check != super::CheckMode::Strict {
            return Ok(());
        }
        for x in elems {
            for (left, combined) in [
                (true, self.try_op(op, ne, &x)),
                (false, self.try_op(op, &x, ne)),
            ] {
                if let Some(c) = combined.filter(|c| !same_vals(c, &x)) {
                    let (ne, x, c) = (show(ne), show(&x), show(&c));
                    let expr = if left {
                        format!("op {ne} {x}")
                    } else {
                        format!("op {x} {ne}")
                    };
                    return Err(self.unspecified(
                        format!(
                            "the neutral element {ne} of this {soac} is not neutral: \
                             {expr} is {c}, not {x}"
                        ),
                        loc,
                    ));
                }
            }
        }
        Ok(())
    }

    /// `(a op b) op c` equals `a op (b op c)` for consecutive elements, where
    /// the operator gives no floats.
    pub(super) fn check_associative(
        &mut self,
        soac: &str,
        op: &Lambda,
        elems: &[Vec<Val>],
        loc: SrcLoc,
    ) -> Result<(), RunError> {
        if op.ret.iter().any(|t| t.elem().is_float()) {
            return Ok(());
        }
        for w in elems.windows(3).take(ASSOCIATIVITY_TRIPLES) {
            let (a, b, c) = (&w[0], &w[1], &w[2]);
            let left = self.try_op(op, a, b).and_then(|ab| self.try_op(op, &ab, c));
            let right = self.try_op(op, b, c).and_then(|bc| self.try_op(op, a, &bc));
            if let (Some(l), Some(r)) = (left, right) {
                if !same_vals(&l, &r) {
                    return Err(self.unspecified(
                        format!(
                            "the operator of this {soac} is not associative: on {}, {}, {} \
                             it gives {} grouped to the left and {} to the right",
                            show(a),
                            show(b),
                            show(c),
                            show(&l),
                            show(&r)
                        ),
                        loc,
                    ));
                }
            }
        }
        Ok(())
    }

    /// A bin combined with a value gives the same either way round.
    pub(super) fn check_commutes(
        &mut self,
        op: &Lambda,
        bin: &[Val],
        value: &[Val],
        combined: &[Val],
        loc: SrcLoc,
    ) -> Result<(), RunError> {
        match self.try_op(op, value, bin) {
            Some(swapped) if !same_vals(&swapped, combined) => Err(self.unspecified(
                format!(
                    "the operator of this histogram does not commute: op {} {} is {}, \
                     op {} {} is {}",
                    show(bin),
                    show(value),
                    show(combined),
                    show(value),
                    show(bin),
                    show(&swapped)
                ),
                loc,
            )),
            _ => Ok(()),
        }
    }

    /// Of the writes of a scatter to one destination (element `i` of
    /// `values` to `targets[i]`, a row of `row` elements each), two
    /// different values at one index.
    pub(super) fn check_scatter(
        &self,
        targets: &[usize],
        values: &super::Arr,
        m: usize,
        loc: SrcLoc,
    ) -> Result<(), RunError> {
        let mut first: std::collections::HashMap<usize, usize> = Default::default();
        for (i, &t) in targets.iter().enumerate() {
            if t >= m {
                continue;
            }
            let earlier = *first.entry(t).or_insert(i);
            if earlier == i {
                continue;
            }
            let (a, b) = (values.row(earlier), values.row(i));
            if !same_val(&a, &b) {
                return Err(self.unspecified(
                    format!(
                        "this scatter writes two different values to index {t}: {} and {} \
                         (of which any one is stored)",
                        show(&[a]),
                        show(&[b])
                    ),
                    loc,
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nans_are_one_value_and_zeros_have_no_sign() {
        assert!(same_const(
            Const::F32(f32::NAN),
            Const::F32(f32::from_bits(0xffc0_0001))
        ));
        assert!(same_const(Const::F64(0.0), Const::F64(-0.0)));
        assert!(!same_const(Const::F32(1.0), Const::F32(1.0 + f32::EPSILON)));
        assert!(!same_const(Const::I32(7), Const::I32(9)));
    }
}
