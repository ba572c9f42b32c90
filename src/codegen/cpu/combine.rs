//! Functions the thread pool calls besides a nest's body: combining two
//! chunks' carried values, and allocating, merging and freeing private
//! histogram bins.

use super::nest::{carried_field_count, missing_param, param_ptr, Layout, HIST_ALLOC, HIST_MERGE};
use crate::codegen::emit::{err, Frame, Gen, Res, Val};
use crate::core::ir::Atom;
use crate::loopy::ir::{Carried, LoopNest, MemSpace, Operator};
use crate::types::ScalarType;
use inkwell::values::{FunctionValue, IntValue, PointerValue};

/// What combining two sets of a nest's carried values does to each group.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Combine {
    /// Reductions combine; scans and compactions are left alone (the
    /// lanes of one chunk, whose scans continue from lane to lane).
    Reductions,
    /// Reductions combine and scans and compactions take the other's
    /// values, so a left fold over the chunks ends with the last chunk's.
    Chunks,
    /// Scans and compactions combine and reductions stay as they are
    /// (building a chunk's carry-in).
    Prefix,
}

impl<'ctx> Gen<'ctx, '_> {
    /// `void NAME(env, acc, other)`: [`Self::combine_carried`] on two carry
    /// structs, in [`Combine::Chunks`] or [`Combine::Prefix`] mode.
    pub(super) fn combine_function(
        &mut self,
        nest: &LoopNest,
        layout: &Layout<'ctx>,
        name: &str,
        mode: Combine,
    ) -> Res<FunctionValue<'ctx>> {
        let ptr = self.ptr().into();
        let (func, mut frame) = self.outlined(layout, name, &[ptr, ptr, ptr])?;
        let field_slots = |param| -> Res<Vec<PointerValue<'ctx>>> {
            let carry = param_ptr(func, param)?;
            (0..layout.carry_fields.len())
                .map(|k| {
                    Ok(self
                        .builder
                        .build_struct_gep(layout.carry_ty, carry, k as u32, "")?)
                })
                .collect()
        };
        let acc = field_slots(1)?;
        let other = field_slots(2)?;
        self.combine_carried(&mut frame, nest, layout, &acc, &other, mode)?;
        self.builder.build_return(None)?;
        Ok(func)
    }

    /// Combines the carried values of `other` into `acc`, both given as one
    /// slot per carry field. What happens to each group of carried values
    /// depends on `mode` (see [`Combine`]).
    pub(super) fn combine_carried(
        &mut self,
        frame: &mut Frame<'ctx>,
        nest: &LoopNest,
        layout: &Layout<'ctx>,
        acc: &[PointerValue<'ctx>],
        other: &[PointerValue<'ctx>],
        mode: Combine,
    ) -> Res<()> {
        let mut slices = layout.carry_slices.iter();
        let mut groups: Vec<(Vec<&Carried>, Option<&Operator>, bool)> = Vec::new();
        for r in &nest.reductions {
            groups.push((r.carried.iter().collect(), Some(&r.op), false));
        }
        for s in &nest.scans {
            groups.push((s.carried.iter().collect(), Some(&s.op), true));
        }
        for c in &nest.compactions {
            groups.push((vec![&c.count], None, true));
        }
        for (carried, op, is_prefix) in groups {
            let my_slices: Vec<(usize, usize)> = carried
                .iter()
                .filter_map(|_| slices.next().copied())
                .collect();
            let combines = match mode {
                Combine::Reductions | Combine::Chunks => !is_prefix,
                Combine::Prefix => is_prefix,
            };
            if !combines && mode != Combine::Chunks {
                continue;
            }
            let mut lefts = Vec::new();
            let mut rights = Vec::new();
            for (c, &(first, len)) in carried.iter().zip(&my_slices) {
                let fields = &layout.carry_fields[first..first + len];
                for (slots, vals) in [(acc, &mut lefts), (other, &mut rights)] {
                    let mut loaded = Vec::new();
                    for (ty, slot) in fields.iter().zip(&slots[first..first + len]) {
                        loaded.push(self.builder.build_load(*ty, *slot, "")?);
                    }
                    vals.push(self.val_of_fields(c.var.ty, &loaded)?);
                }
            }
            let results: Vec<Val<'ctx>> = if !combines {
                rights
            } else if let Some(op) = op {
                for (p, v) in op.params.iter().zip(lefts.iter().chain(&rights)) {
                    frame.vals.insert(p.id, v.clone());
                }
                self.block(frame, &op.body)?;
                op.results
                    .iter()
                    .map(|a| self.val(frame, a))
                    .collect::<Res<_>>()?
            } else {
                // A compaction count: kept elements add up.
                let (Some(Val::Scalar(l, t)), Some(Val::Scalar(r, _))) =
                    (lefts.first(), rights.first())
                else {
                    return err("a compaction count is not a scalar");
                };
                let sum = self
                    .builder
                    .build_int_add(l.into_int_value(), r.into_int_value(), "")?;
                vec![Val::Scalar(sum.into(), *t)]
            };
            for (v, &(first, _)) in results.iter().zip(&my_slices) {
                for (k, field) in self.fields(v).iter().enumerate() {
                    self.builder.build_store(acc[first + k], *field)?;
                }
            }
        }
        Ok(())
    }

    /// `void NAME(env, op, a, b)` for private histogram bins (`ARR_HIST_*`).
    pub(super) fn hist_function(
        &mut self,
        nest: &LoopNest,
        layout: &Layout<'ctx>,
        name: &str,
    ) -> Res<FunctionValue<'ctx>> {
        let ptr = self.ptr().into();
        let i32t = self.ctx.i32_type().into();
        let (func, mut frame) = self.outlined(layout, name, &[ptr, i32t, ptr, ptr])?;
        let op_code = func
            .get_nth_param(1)
            .ok_or_else(missing_param)?
            .into_int_value();
        let a = param_ptr(func, 2)?;
        let b = param_ptr(func, 3)?;
        let first = carried_field_count(layout);
        let shapes: Vec<(ScalarType, IntValue<'ctx>)> = layout
            .bins
            .iter()
            .map(|(bin, elem)| match frame.vals.get(bin) {
                Some(Val::Array { shape, .. }) => Ok((*elem, shape[0])),
                _ => err("histogram bins are not an array"),
            })
            .collect::<Res<_>>()?;
        let alloc = self.ctx.append_basic_block(func, "alloc");
        let merge = self.ctx.append_basic_block(func, "merge");
        let free = self.ctx.append_basic_block(func, "free");
        let i32 = self.ctx.i32_type();
        self.builder.build_switch(
            op_code,
            free,
            &[
                (i32.const_int(HIST_ALLOC, false), alloc),
                (i32.const_int(HIST_MERGE, false), merge),
            ],
        )?;
        // Fresh bins holding the neutral element.
        self.builder.position_at_end(alloc);
        let neutral: Vec<&Atom> = nest.hists.iter().flat_map(|h| &h.neutral).collect();
        for (k, &(elem, n)) in shapes.iter().enumerate() {
            let bytes = self
                .builder
                .build_int_mul(n, self.const_i64(elem.bytes() as i64), "")?;
            // A worker's private bins.
            let p = self.alloc_bytes(MemSpace::Scratch, bytes)?;
            self.store_fields(layout.carry_ty, a, first + k, &[p.into()])?;
            let (ne, t) = match neutral.get(k) {
                Some(atom) => self.scalar(&frame, atom)?,
                None => return err("histogram without a neutral element"),
            };
            let ne = self.store_to_mem(ne, t)?;
            self.counted_loop(func, n, |g, i| {
                let q = g.offset_ptr(p, elem, &[n], &[i])?;
                g.builder.build_store(q, ne)?;
                Ok(())
            })?;
        }
        self.builder.build_return(None)?;
        // a[i] = op(a[i], b[i]) for every bin.
        self.builder.position_at_end(merge);
        let pointers = |g: &Self, slot| -> Res<Vec<PointerValue<'ctx>>> {
            let loaded = g.load_fields(layout, slot, first, layout.bins.len())?;
            Ok(loaded.iter().map(|v| v.into_pointer_value()).collect())
        };
        let dst = pointers(self, a)?;
        let src = pointers(self, b)?;
        // Each histogram over its own bins: fused histograms may have
        // different numbers of bins.
        let mut k = 0;
        for h in &nest.hists {
            let first_bin = k;
            k += h.bins.len();
            let Some(&(_, n)) = shapes.get(first_bin) else {
                continue;
            };
            self.counted_loop(func, n, |g, i| {
                let mut lefts = Vec::new();
                let mut rights = Vec::new();
                let mut addrs = Vec::new();
                for (&(elem, len), (&pd, &ps)) in shapes[first_bin..k]
                    .iter()
                    .zip(dst[first_bin..k].iter().zip(&src[first_bin..k]))
                {
                    let pd = g.offset_ptr(pd, elem, &[len], &[i])?;
                    let ps = g.offset_ptr(ps, elem, &[len], &[i])?;
                    let x = g.builder.build_load(g.mem_type(elem), pd, "")?;
                    let y = g.builder.build_load(g.mem_type(elem), ps, "")?;
                    lefts.push(Val::Scalar(g.load_from_mem(x, elem)?, elem));
                    rights.push(Val::Scalar(g.load_from_mem(y, elem)?, elem));
                    addrs.push(pd);
                }
                for (p, v) in h.op.params.iter().zip(lefts.iter().chain(&rights)) {
                    frame.vals.insert(p.id, v.clone());
                }
                g.block(&mut frame, &h.op.body)?;
                for (r, pd) in h.op.results.iter().zip(addrs) {
                    let (v, t) = g.scalar(&frame, r)?;
                    let v = g.store_to_mem(v, t)?;
                    g.builder.build_store(pd, v)?;
                }
                Ok(())
            })?;
        }
        self.builder.build_return(None)?;
        self.builder.position_at_end(free);
        for p in pointers(self, a)? {
            self.free(p)?;
        }
        self.builder.build_return(None)?;
        Ok(func)
    }

    /// `for i in 0..n { body(i) }` in `func` at the current position.
    fn counted_loop(
        &mut self,
        func: FunctionValue<'ctx>,
        n: IntValue<'ctx>,
        mut body: impl FnMut(&mut Self, IntValue<'ctx>) -> Res<()>,
    ) -> Res<()> {
        let done = self.ctx.append_basic_block(func, "fill.done");
        let (header, i) = self.loop_header(func, "fill", self.const_i64(0), n, done)?;
        let iv = i.as_basic_value().into_int_value();
        body(self, iv)?;
        let next = self.builder.build_int_add(iv, self.const_i64(1), "")?;
        let latch = self.current_block()?;
        self.builder.build_unconditional_branch(header)?;
        i.add_incoming(&[(&next, latch)]);
        self.builder.position_at_end(done);
        Ok(())
    }
}
