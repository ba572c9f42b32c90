//! Loops inside kernels: the grid-stride loop of maps, the sequential
//! loop that carries a nest's values from iteration to iteration (one
//! thread's slice of a reduction or scan, a nest inside an iteration, or
//! a whole nest run by one thread), and the slices threads take.
//!
//! A check that fails records the error with the current iteration as its
//! key and ends the thread.

use super::abi::{OUT, WIDTH};
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::loopy::ir::{Carried, LoopNest};
use crate::types::ScalarType;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;

/// A nest's carried values in slots, a slot per field.
pub(super) type Slots<'ctx> = [Vec<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)>];

/// `Slots`, owned.
pub(super) type SlotVec<'ctx> = Vec<Vec<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)>>;

/// The error key of each iteration of a carried loop.
#[derive(Clone, Copy)]
pub(super) enum Key<'ctx> {
    /// The enclosing iteration's, as it is.
    Kept,
    /// The iteration itself.
    Iteration,
    /// The iteration plus this base (a row's keys after its own).
    After(IntValue<'ctx>),
}

impl<'ctx> Gen<'ctx, '_> {
    /// A loop `for i in lo..hi step` in `fr`'s function: `each` generates
    /// an iteration with `i` (the builder is left after the loop).
    pub(super) fn kernel_loop(
        &mut self,
        fr: &mut Frame<'ctx>,
        lo: IntValue<'ctx>,
        hi: IntValue<'ctx>,
        step: IntValue<'ctx>,
        each: &mut dyn FnMut(&mut Self, &mut Frame<'ctx>, IntValue<'ctx>) -> Res<()>,
    ) -> Res<()> {
        let slot = self.entry_alloca(fr.func, self.i64().into())?;
        self.builder.build_store(slot, lo)?;
        let header = self.ctx.append_basic_block(fr.func, "k.loop");
        let body = self.ctx.append_basic_block(fr.func, "k.body");
        let exit = self.ctx.append_basic_block(fr.func, "k.exit");
        self.builder.build_unconditional_branch(header)?;
        self.builder.position_at_end(header);
        let i = self
            .builder
            .build_load(self.i64(), slot, "i")?
            .into_int_value();
        let more = self
            .builder
            .build_int_compare(IntPredicate::SLT, i, hi, "")?;
        self.builder.build_conditional_branch(more, body, exit)?;
        self.builder.position_at_end(body);
        each(self, fr, i)?;
        let next = self.builder.build_int_add(i, step, "")?;
        self.builder.build_store(slot, next)?;
        self.builder.build_unconditional_branch(header)?;
        self.builder.position_at_end(exit);
        Ok(())
    }

    pub(super) fn thread_range(&self) -> Res<(IntValue<'ctx>, IntValue<'ctx>)> {
        let tid = self.sreg("tid.x")?;
        let ntid = self.sreg("ntid.x")?;
        let ctaid = self.sreg("ctaid.x")?;
        let nctaid = self.sreg("nctaid.x")?;
        let base = self.builder.build_int_mul(ctaid, ntid, "")?;
        let gid = self.builder.build_int_add(base, tid, "gid")?;
        let threads = self.builder.build_int_mul(nctaid, ntid, "threads")?;
        Ok((gid, threads))
    }

    /// One iteration of `nest` at `i` with no carried values.
    pub(super) fn iteration(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        i: IntValue<'ctx>,
    ) -> Res<()> {
        let key = self.key_slot()?;
        self.builder.build_store(key, i)?;
        fr.vals
            .insert(nest.index.id, Val::Scalar(i.into(), ScalarType::I64));
        self.block(fr, &nest.body)
    }

    pub(super) fn grid_stride_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let width = kp[WIDTH].into_int_value();
        let (gid, threads) = self.thread_range()?;
        // Per-thread scratch (`alloc thread`) once per thread, not per
        // iteration: small constant sizes on the stack (registers once
        // unrolled), sizes host code knows in the per-nest scratch (placed
        // already, `heap`), the others from the device heap.
        let saved = self.thread_buffers.clone();
        let heap = self.thread_buffers_for(fr, &nest.body)?;
        self.stack_scratch(fr, &nest.body)?;
        self.kernel_loop(fr, gid, width, threads, &mut |gen, fr, i| {
            gen.iteration(fr, nest, i)
        })?;
        for p in heap {
            self.free(p)?;
        }
        self.thread_buffers = saved;
        Ok(())
    }

    /// The nest's carried values in slots, from `inits`; returns the slots.
    pub(super) fn carried_slots(
        &mut self,
        fr: &Frame<'ctx>,
        inits: &[Vec<BasicValueEnum<'ctx>>],
    ) -> Res<Vec<Vec<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)>>> {
        let mut slots = Vec::new();
        for fields in inits {
            let mut ps = Vec::new();
            for v in fields {
                let slot = self.entry_alloca(fr.func, v.get_type())?;
                self.builder.build_store(slot, *v)?;
                ps.push((slot, v.get_type()));
            }
            slots.push(ps);
        }
        Ok(slots)
    }

    /// A kernel's carried state: the nest's carried values in slots set to
    /// their initial values (kernel parameters), and the width.
    pub(super) fn carried_state(
        &mut self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<(SlotVec<'ctx>, IntValue<'ctx>)> {
        let inits = self.inits(nest, kp)?;
        let slots = self.carried_slots(fr, &inits)?;
        Ok((slots, kp[WIDTH].into_int_value()))
    }

    /// Iterations `lo..hi` of `nest` in sequential order with its carried
    /// values in `slots` (bound before each iteration, set from `next`
    /// after it); `set_key` makes each iteration the error key.
    pub(super) fn carried_loop(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        slots: &[Vec<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)>],
        lo: IntValue<'ctx>,
        hi: IntValue<'ctx>,
        set_key: bool,
    ) -> Res<()> {
        let one = self.const_i64(1);
        self.carried_loop_over(fr, nest, &nest.body, slots, (lo, hi, one), set_key, 0)
    }

    /// `carried_loop` running `body` (the nest's, or its totals slice)
    /// over `range` (`lo`, `hi`, step), the first `skip` carried values
    /// left as they are (a totals slice does not compute the reductions'
    /// next values).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn carried_loop_over(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        body: &crate::loopy::ir::Block,
        slots: &[Vec<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)>],
        range: (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
        set_key: bool,
        skip: usize,
    ) -> Res<()> {
        let key = if set_key { Key::Iteration } else { Key::Kept };
        self.carried_loop_keyed(fr, nest, body, slots, range, key, skip)
    }

    /// `carried_loop_over` with the error key of each iteration as `key`
    /// says.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn carried_loop_keyed(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        body: &crate::loopy::ir::Block,
        slots: &[Vec<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)>],
        range: (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
        key: Key<'ctx>,
        skip: usize,
    ) -> Res<()> {
        let carried: Vec<&Carried> = nest.carried().collect();
        let (lo, hi, step) = range;
        // Small per-thread scratch on the stack (kept for the nests inside).
        let saved = self.thread_buffers.clone();
        self.stack_scratch(fr, body)?;
        self.kernel_loop(fr, lo, hi, step, &mut |gen, fr, i| {
            let at = match key {
                Key::Kept => None,
                Key::Iteration => Some(i),
                Key::After(base) => Some(gen.builder.build_int_add(base, i, "")?),
            };
            if let Some(at) = at {
                let slot = gen.key_slot()?;
                gen.builder.build_store(slot, at)?;
            }
            fr.vals
                .insert(nest.index.id, Val::Scalar(i.into(), ScalarType::I64));
            for (c, ps) in carried.iter().zip(slots) {
                let mut loaded = Vec::new();
                for (slot, ty) in ps {
                    loaded.push(gen.builder.build_load(*ty, *slot, "")?);
                }
                let v = gen.val_of_fields(c.var.ty, &loaded)?;
                fr.vals.insert(c.var.id, v);
            }
            gen.block(fr, body)?;
            let mut nexts = Vec::new();
            for c in &carried[skip..] {
                nexts.push(gen.fields(&gen.val(fr, &c.next)?));
            }
            for (vals, ps) in nexts.iter().zip(&slots[skip..]) {
                for (v, (slot, _)) in vals.iter().zip(ps) {
                    gen.builder.build_store(*slot, *v)?;
                }
            }
            Ok(())
        })?;
        self.thread_buffers = saved;
        Ok(())
    }

    pub(super) fn load_slots(
        &self,
        nest: &LoopNest,
        slots: &[Vec<(PointerValue<'ctx>, BasicTypeEnum<'ctx>)>],
    ) -> Res<Vec<Val<'ctx>>> {
        let mut out = Vec::new();
        for (c, ps) in nest.carried().zip(slots) {
            let mut loaded = Vec::new();
            for (slot, ty) in ps {
                loaded.push(self.builder.build_load(*ty, *slot, "")?);
            }
            out.push(self.val_of_fields(c.var.ty, &loaded)?);
        }
        Ok(out)
    }

    /// Binds the results of reductions and compactions from the final
    /// carried values (in `LoopNest::carried` order).
    pub(super) fn bind_finals(
        &self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        finals: Vec<Val<'ctx>>,
    ) -> Res<()> {
        let mut finals = finals.into_iter();
        let missing = || CodegenError::Internal("a nest without its carried values".into());
        for r in &nest.reductions {
            for v in &r.results {
                fr.vals.insert(v.id, finals.next().ok_or_else(missing)?);
            }
        }
        let scans: usize = nest.scans.iter().map(|s| s.carried.len()).sum();
        let mut finals = finals.skip(scans);
        for c in &nest.compactions {
            fr.vals
                .insert(c.result.id, finals.next().ok_or_else(missing)?);
        }
        Ok(())
    }

    /// A nest run by one thread, in sequential order: inside a kernel's
    /// iteration (`set_key` false: the enclosing iteration is the key), or
    /// a whole launched nest.
    pub(crate) fn sequential_nest(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        set_key: bool,
    ) -> Res<()> {
        let mut inits = Vec::new();
        for c in nest.carried() {
            inits.push(self.fields(&self.val(fr, &c.init)?));
        }
        let slots = self.carried_slots(fr, &inits)?;
        let width = self.int(fr, &nest.width)?;
        let zero = self.const_i64(0);
        self.carried_loop(fr, nest, &slots, zero, width, set_key)?;
        let finals = self.load_slots(nest, &slots)?;
        self.bind_finals(fr, nest, finals)
    }

    pub(super) fn single_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let (slots, width) = self.carried_state(fr, nest, kp)?;
        let zero = self.const_i64(0);
        self.carried_loop(fr, nest, &slots, zero, width, true)?;
        let finals = self.load_slots(nest, &slots)?;
        let out = kp[OUT].into_pointer_value();
        self.store_cells(out, zero, &finals)
    }

    /// This thread's slice `[lo, hi)` of `width` iterations: contiguous,
    /// in thread order.
    pub(super) fn slice(
        &self,
        width: IntValue<'ctx>,
    ) -> Res<(IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>)> {
        let (gid, threads) = self.thread_range()?;
        let (lo, hi) = self.slice_of(width, gid, threads)?;
        Ok((gid, lo, hi))
    }

    /// Slice `[lo, hi)` of `width` iterations for thread `t` of `threads`:
    /// `ceil(width / threads)` consecutive ones, in thread order.
    pub(super) fn slice_of(
        &self,
        width: IntValue<'ctx>,
        t: IntValue<'ctx>,
        threads: IntValue<'ctx>,
    ) -> Res<(IntValue<'ctx>, IntValue<'ctx>)> {
        let one = self.const_i64(1);
        let up = self.builder.build_int_add(width, threads, "")?;
        let up = self.builder.build_int_sub(up, one, "")?;
        let chunk = self.builder.build_int_signed_div(up, threads, "chunk")?;
        let lo = self.builder.build_int_mul(t, chunk, "")?;
        let lo = self.min(lo, width)?;
        let hi = self.builder.build_int_add(lo, chunk, "")?;
        Ok((lo, self.min(hi, width)?))
    }

    pub(super) fn fields_of(&self, nest: &LoopNest) -> usize {
        nest.carried()
            .map(|c| self.field_types(c.var.ty).len())
            .sum()
    }

    pub(super) fn min(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Res<IntValue<'ctx>> {
        let lt = self
            .builder
            .build_int_compare(IntPredicate::SLT, a, b, "")?;
        Ok(self.builder.build_select(lt, a, b, "")?.into_int_value())
    }

    pub(super) fn max(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> Res<IntValue<'ctx>> {
        let lt = self
            .builder
            .build_int_compare(IntPredicate::SLT, a, b, "")?;
        Ok(self.builder.build_select(lt, b, a, "")?.into_int_value())
    }
}
