//! A loop over a range of a nest's iterations cut where conditions on the
//! index change (`LoopShape::Cut`, chosen by `loopy::chunk`): a rotated
//! read `xs[(i + s) wrapped at n]` tests `i + s >= n` per element and
//! subtracts `n` where it holds, so its reads are gathers; cut at `n - s`,
//! each piece knows the test, the subtraction folds away and the reads are
//! contiguous vector loads.

use super::loops::LoopRun;
use crate::codegen::emit::{Frame, Gen, Res};
use crate::loopy::chunk;
use crate::loopy::ir::CutCondition;
use inkwell::values::IntValue;
use inkwell::IntPredicate;

/// Shifts, bounds and range ends within `±LIMIT` keep `index + shift` and
/// `bound - shift + 1` from overflowing, so the cut agrees with the test.
const LIMIT: i64 = 1 << 61;

impl<'ctx> Gen<'ctx, '_> {
    /// `run`'s loop cut at every condition's threshold when the values
    /// are small enough for the thresholds to be exact (checked once),
    /// otherwise one loop over the whole range.
    pub(super) fn emit_cut(
        &mut self,
        inner: &mut Frame<'ctx>,
        run: &LoopRun<'_, 'ctx>,
        conditions: &[CutCondition],
    ) -> Res<()> {
        let mut small = self.small(run.end)?;
        for c in conditions {
            for a in [&c.shift, &c.bound] {
                let v = self.int(inner, a)?;
                let ok = self.small(v)?;
                small = self.builder.build_and(small, ok, "")?;
            }
        }
        let cut = self.ctx.append_basic_block(inner.func, "cut");
        let whole = self.ctx.append_basic_block(inner.func, "cut.whole");
        self.builder.build_conditional_branch(small, cut, whole)?;
        self.builder.position_at_end(whole);
        let proven = chunk::in_range_reads(run.nest, run.body, &self.mode.facts);
        self.emit_versioned(inner, run, &proven)?;
        self.builder.position_at_end(cut);
        self.emit_pieces(inner, run, conditions)
    }

    /// `-LIMIT < v < LIMIT`.
    fn small(&self, v: IntValue<'ctx>) -> Res<IntValue<'ctx>> {
        let b = &self.builder;
        let moved = b.build_int_add(v, self.const_i64(LIMIT), "")?;
        Ok(b.build_int_compare(IntPredicate::ULT, moved, self.const_i64(2 * LIMIT), "small")?)
    }

    /// The range cut at the first condition's threshold (clamped to it),
    /// each side cut by the rest, the condition known on each side.
    fn emit_pieces(
        &mut self,
        inner: &mut Frame<'ctx>,
        run: &LoopRun<'_, 'ctx>,
        conditions: &[CutCondition],
    ) -> Res<()> {
        let Some((c, rest)) = conditions.split_first() else {
            let proven = chunk::in_range_reads(run.nest, run.body, &self.mode.facts);
            return self.emit_versioned(inner, run, &proven);
        };
        let shift = self.int(inner, &c.shift)?;
        let bound = self.int(inner, &c.bound)?;
        let b = &self.builder;
        let at = b.build_int_sub(bound, shift, "")?;
        let at = b.build_int_add(at, self.const_i64(c.extra), "cut.at")?;
        let below = b.build_int_compare(IntPredicate::SLT, at, run.end, "")?;
        let at = b.build_select(below, at, run.end, "")?.into_int_value();
        let above = b.build_int_compare(IntPredicate::SGT, at, run.start, "")?;
        let at = b
            .build_select(above, at, run.start, "cut.point")?
            .into_int_value();
        let second = self.ctx.append_basic_block(inner.func, "cut.after");
        let pieces = [
            (run.start, at, second, !c.after),
            (at, run.end, run.exit, c.after),
        ];
        for (k, (start, end, exit, known)) in pieces.into_iter().enumerate() {
            if k == 1 {
                self.builder.position_at_end(second);
            }
            let mut mode = self.mode.clone();
            mode.facts.insert(c.var, known);
            let piece = LoopRun {
                start,
                end,
                exit,
                ..*run
            };
            self.with_mode(mode, |g| g.emit_pieces(inner, &piece, rest))?;
        }
        Ok(())
    }
}
