//! The loop of an outlined loop function over `[start, end)`, in the shape
//! the nest's plan gives (`loopy::chunk`): versioned where a test before the
//! loop proves its reads in range, peeled where its body tests the index
//! against a loop-invariant value (a stencil's border), cut where its index
//! plus a shift passes a bound (`cpu::cut`), and in lanes for float scans.

use super::combine::Combine;
use super::nest::{carried_field_count, missing_param, param_ptr, Bins, Layout};
use crate::codegen::emit::{Frame, Gen, Mode, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::Type;
use crate::core::ir::{Atom, Var, VarId};
use crate::loopy::chunk;
use crate::loopy::ir::{
    Block, Carried, IndexCondition, LoopNest, LoopShape, MemSpace, ProvenRead, ReadDim, SeqForm,
    Stmt,
};
use crate::types::ScalarType;
use inkwell::basic_block::BasicBlock;
use inkwell::values::{FunctionValue, IntValue, PointerValue};
use inkwell::IntPredicate;

/// The largest constant-size `MemSpace::Thread` buffer kept on a loop
/// function's stack (a 4-vector or a 3 x 3 window is far below).
const STACK_SCRATCH: u64 = 4096;

/// Runs of iterations a look-back scan's body interleaves (see
/// `emit_in_lanes`): a float add's latency over the loop's issue rate.
pub(super) const LANES: usize = 4;

/// Iterations per block of lanes: few enough that the lanes' totals leave
/// them in the cache for the body.
pub(super) const LANE_BLOCK: i64 = 4096;
/// Lanes of a selection reduction (`emit_strided`): two AVX2 vectors of
/// `f64` values and `i64` indices, one of `f32`.
const STRIDED_LANES: usize = 8;

/// What a loop function runs of a nest's body, and how.
#[derive(Clone, Copy)]
pub(super) enum Work<'a> {
    /// All of it, in the loop shape the plan gives; for a look-back scan
    /// whose body runs in lanes (`emit_in_lanes`), with the totals that
    /// start the lanes.
    Body {
        shape: &'a LoopShape,
        lane_totals: Option<&'a Block>,
    },
    /// Only what advances the scans and compactions (a totals function).
    Totals { shape: &'a LoopShape },
}

/// What `emit_loop` needs to emit one copy of a nest's loop.
pub(super) struct LoopRun<'a, 'ctx> {
    pub(super) nest: &'a LoopNest,
    pub(super) layout: &'a Layout<'ctx>,
    pub(super) body: &'a Block,
    pub(super) slots: &'a [PointerValue<'ctx>],
    pub(super) start: IntValue<'ctx>,
    pub(super) end: IntValue<'ctx>,
    pub(super) exit: BasicBlock<'ctx>,
    pub(super) bins: Bins,
    pub(super) totals_only: bool,
}

impl<'ctx> Gen<'ctx, '_> {
    /// `void NAME(env, start, end, carry)` running `body` over the
    /// iterations `[start, end)`. With `totals_only`, only the scans' and
    /// compactions' carried values advance (a scan's totals function).
    /// With `stream`, the stream variant of the plain function given,
    /// writing the arrays given (`cpu::stream`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn loop_function(
        &mut self,
        nest: &LoopNest,
        layout: &Layout<'ctx>,
        body: &Block,
        name: &str,
        bins: Bins,
        work: Work,
        stream: Option<(FunctionValue<'ctx>, &[VarId])>,
    ) -> Res<FunctionValue<'ctx>> {
        let totals_only = matches!(work, Work::Totals { .. });
        let ptr = self.ptr().into();
        let i64t = self.i64().into();
        let (func, mut inner) = self.outlined(layout, name, &[ptr, i64t, i64t, ptr])?;
        let mut start = func
            .get_nth_param(1)
            .ok_or_else(missing_param)?
            .into_int_value();
        let end = func
            .get_nth_param(2)
            .ok_or_else(missing_param)?
            .into_int_value();
        let carry = param_ptr(func, 3)?;
        if let Some((plain, outputs)) = stream {
            start = self.stream_guard(&mut inner, func, plain, start, outputs)?;
        }
        if bins == Bins::Private {
            let first = layout.carry_slices.iter().map(|(_, n)| n).sum::<usize>();
            for (k, (b, _)) in layout.bins.iter().enumerate() {
                let loaded = self.load_fields(layout, carry, first + k, 1)?;
                if let (Some(Val::Array { elem, shape, .. }), Some(p)) =
                    (inner.vals.get(b).cloned(), loaded.first())
                {
                    let ptr = p.into_pointer_value();
                    inner.vals.insert(*b, Val::Array { ptr, elem, shape });
                }
            }
        }
        let mut slots = Vec::new();
        for (k, ty) in layout.carry_fields.iter().enumerate() {
            if k >= carried_field_count(layout) {
                break;
            }
            let slot = self.builder.build_alloca(*ty, "carried")?;
            let p = self
                .builder
                .build_struct_gep(layout.carry_ty, carry, k as u32, "")?;
            let init = self.builder.build_load(*ty, p, "")?;
            self.builder.build_store(slot, init)?;
            slots.push(slot);
        }
        let saved_buffers = std::mem::take(&mut self.thread_buffers);
        // A scan in lanes has several iterations alive at once: their
        // scratch stays per iteration.
        let lanes = matches!(
            work,
            Work::Body {
                shape: LoopShape::Lanes,
                ..
            }
        );
        let heap = if lanes {
            Vec::new()
        } else {
            self.thread_buffers_for(&inner, body)?
        };
        let exit = self.ctx.append_basic_block(func, "exit");
        let run = LoopRun {
            nest,
            layout,
            body,
            slots: &slots,
            start,
            end,
            exit,
            bins,
            totals_only,
        };
        let (shape, lane_totals) = match work {
            Work::Body { shape, lane_totals } => (shape, lane_totals),
            Work::Totals { shape } => (shape, None),
        };
        match (shape, lane_totals) {
            (LoopShape::Lanes, Some(totals)) => {
                self.emit_in_lanes(&mut inner, &run, totals, carry)?
            }
            (LoopShape::Lanes, None) => {
                return Err(CodegenError::Internal(
                    "a loop in lanes without the totals that start them".into(),
                ))
            }
            (LoopShape::Plain, _)
                if !totals_only && self.mode.nest_depth == 0 && split_streams(nest, bins) =>
            {
                self.emit_split(&mut inner, &run, carry)?
            }
            (LoopShape::Plain, _) => self.emit_loop(&mut inner, &run)?,
            (LoopShape::Strided, _)
                if !totals_only && self.mode.nest_depth == 0 && split_streams(nest, bins) =>
            {
                self.emit_strided(&mut inner, &run, carry)?
            }
            (LoopShape::Strided, _) => self.emit_loop(&mut inner, &run)?,
            (LoopShape::Versioned(reads), _) => self.emit_versioned(&mut inner, &run, reads)?,
            (LoopShape::Cut(conditions), _) => self.emit_cut(&mut inner, &run, conditions)?,
            (
                LoopShape::Peeled {
                    conditions,
                    reads,
                    middle,
                },
                _,
            ) => self.emit_peeled(&mut inner, &run, conditions, reads, middle)?,
        }
        self.builder.position_at_end(exit);
        for (k, (slot, ty)) in slots.iter().zip(&layout.carry_fields).enumerate() {
            let v = self.builder.build_load(*ty, *slot, "")?;
            let p = self
                .builder
                .build_struct_gep(layout.carry_ty, carry, k as u32, "")?;
            self.builder.build_store(p, v)?;
        }
        for p in heap {
            self.free(p)?;
        }
        if stream.is_some() {
            self.store_fence()?;
        }
        self.builder.build_return(None)?;
        self.thread_buffers = saved_buffers;
        Ok(func)
    }

    /// Allocates a buffer for each `MemSpace::Thread` allocation of `body`
    /// (not of the nests inside it) in the loop function's entry: on the
    /// stack when its size is a constant of at most `STACK_SCRATCH` bytes,
    /// else on the heap (returned, to free at the function's end); those
    /// `thread_buffers` already holds keep their place.
    pub(crate) fn thread_buffers_for(
        &mut self,
        fr: &Frame<'ctx>,
        body: &Block,
    ) -> Res<Vec<PointerValue<'ctx>>> {
        let mut allocs = Vec::new();
        thread_allocs(body, &mut allocs);
        let mut heap = Vec::new();
        for (var, shape) in allocs {
            // Already placed (the GPU's per-nest scratch).
            if self.thread_buffers.contains_key(&var.id) {
                continue;
            }
            let dims = shape
                .iter()
                .map(|d| self.int(fr, d))
                .collect::<Res<Vec<_>>>()?;
            // A negative size fails its check inside an iteration; with no
            // iteration (an empty chunk) the buffer is never used.
            let count = self.max0(self.product(&dims)?)?;
            let elem_bytes = var.ty.elem().bytes() as i64;
            let bytes = self
                .builder
                .build_int_mul(count, self.const_i64(elem_bytes), "")?;
            let ptr = match bytes.get_zero_extended_constant() {
                Some(n) if n <= STACK_SCRATCH => {
                    let ty = self.ctx.i8_type().array_type(n.max(1) as u32);
                    let p = self.builder.build_alloca(ty, "scratch")?;
                    if let Some(inst) = p.as_instruction() {
                        inst.set_alignment(64)
                            .map_err(|e| CodegenError::Internal(e.to_string()))?;
                    }
                    p
                }
                _ => {
                    let p = self.alloc_bytes(MemSpace::Thread, bytes)?;
                    heap.push(p);
                    p
                }
            };
            self.thread_buffers.insert(var.id, ptr);
        }
        Ok(heap)
    }

    /// The loop of `run`, versioned when `proven` lists reads: when every
    /// listed read is in range for the whole chunk (checked once here), a
    /// copy of the loop without their checks runs, which LLVM can
    /// vectorise; otherwise the checked loop finds the first bad index as a
    /// sequential run would.
    pub(super) fn emit_versioned(
        &mut self,
        inner: &mut Frame<'ctx>,
        run: &LoopRun<'_, 'ctx>,
        proven: &[ProvenRead],
    ) -> Res<()> {
        if proven.is_empty() {
            return self.emit_loop(inner, run);
        }
        let safe = self.reads_in_range(inner, proven, run.start, run.end)?;
        let fast = self.ctx.append_basic_block(inner.func, "unchecked");
        let slow = self.ctx.append_basic_block(inner.func, "checked");
        self.builder.build_conditional_branch(safe, fast, slow)?;
        self.builder.position_at_end(fast);
        let unchecked = Mode {
            unchecked: proven.iter().map(|r| r.var).collect(),
            ..self.mode.clone()
        };
        self.with_mode(unchecked, |g| g.emit_loop(inner, run))?;
        self.builder.position_at_end(slow);
        self.emit_loop(inner, run)
    }

    /// The loop of `run` with its first and last iterations peeled off: in
    /// the iterations between, every condition `index == x` is false (and
    /// `index != x` true) when no `x` falls among them, which is checked
    /// once. The branches those conditions decide (a stencil's boundary)
    /// then leave the middle loop, and its reads can be proven in range.
    /// Otherwise the whole chunk runs as one loop.
    fn emit_peeled(
        &mut self,
        inner: &mut Frame<'ctx>,
        run: &LoopRun<'_, 'ctx>,
        conditions: &[IndexCondition],
        proven: &[ProvenRead],
        middle_reads: &[ProvenRead],
    ) -> Res<()> {
        let b = &self.builder;
        let one = self.const_i64(1);
        let mid_start = b.build_int_add(run.start, one, "mid.start")?;
        let before_last = b.build_int_sub(run.end, one, "")?;
        let later = b.build_int_compare(IntPredicate::SGT, before_last, mid_start, "")?;
        let mid_end = b
            .build_select(later, before_last, mid_start, "mid.end")?
            .into_int_value();
        let shorter = b.build_int_compare(IntPredicate::SLT, mid_start, run.end, "")?;
        let first_end = b
            .build_select(shorter, mid_start, run.end, "first.end")?
            .into_int_value();
        let mut apart = self.ctx.bool_type().const_all_ones();
        for c in conditions {
            let x = self.index(inner, &c.value)?;
            let b = &self.builder;
            let below = b.build_int_compare(IntPredicate::SLT, x, mid_start, "")?;
            let above = b.build_int_compare(IntPredicate::SGE, x, mid_end, "")?;
            let outside = b.build_or(below, above, "")?;
            apart = b.build_and(apart, outside, "")?;
        }
        let peel = self.ctx.append_basic_block(inner.func, "peel.first");
        let whole = self.ctx.append_basic_block(inner.func, "whole");
        let middle = self.ctx.append_basic_block(inner.func, "peel.middle");
        let last = self.ctx.append_basic_block(inner.func, "peel.last");
        self.builder.build_conditional_branch(apart, peel, whole)?;
        self.builder.position_at_end(whole);
        self.emit_versioned(inner, run, proven)?;
        let segment = |start, end, exit| LoopRun {
            start,
            end,
            exit,
            ..*run
        };
        self.builder.position_at_end(peel);
        self.emit_loop(inner, &segment(run.start, first_end, middle))?;
        self.builder.position_at_end(middle);
        let mut known = self.mode.clone();
        let outer_facts = !known.facts.is_empty();
        known
            .facts
            .extend(conditions.iter().map(|c| (c.var, c.apart)));
        // In the middle of an enclosing peeled loop, its facts may decide
        // more branches: the plan's `middle` is this loop's own.
        let proven_middle = if outer_facts {
            chunk::in_range_reads(run.nest, run.body, &known.facts)
        } else {
            middle_reads.to_vec()
        };
        let middle_run = segment(mid_start, mid_end, last);
        self.with_mode(known, |g| {
            g.emit_versioned(inner, &middle_run, &proven_middle)
        })?;
        self.builder.position_at_end(last);
        self.emit_loop(inner, &segment(mid_end, run.end, run.exit))
    }

    /// One loop over `[start, end)` from the current block, leaving to
    /// `run.exit`: the carried values live in `run.slots`.
    fn emit_loop(&mut self, inner: &mut Frame<'ctx>, run: &LoopRun<'_, 'ctx>) -> Res<()> {
        self.emit_lanes(inner, run, &[(None, run.slots)], None)
    }

    /// One loop over `[start, end)` whose iteration `i` runs the body once
    /// per lane, at index `i + offset` with the lane's carried values.
    fn emit_lanes(
        &mut self,
        inner: &mut Frame<'ctx>,
        run: &LoopRun<'_, 'ctx>,
        lanes: &[(Option<IntValue<'ctx>>, &[PointerValue<'ctx>])],
        stride: Option<(IntValue<'ctx>, i64)>,
    ) -> Res<()> {
        let func = inner.func;
        let nest = run.nest;
        let layout = run.layout;
        let carried: Vec<&Carried> = nest.carried().collect();
        let (header, i) = self.loop_header(func, "loop", run.start, run.end, run.exit)?;
        let iv = i.as_basic_value().into_int_value();
        // A reduction's accumulator may be reassociated, and so may a
        // scan's in its totals, which only sum up the chunk (the language
        // lets parallel scans reassociate): those loops then vectorise.
        let reassociable = nest.reductions.iter().map(|r| &r.carried);
        let scans = nest.scans.iter().filter(|_| run.totals_only);
        let reassociable = reassociable.chain(scans.map(|s| &s.carried));
        let mode = Mode {
            nest_depth: self.mode.nest_depth + 1,
            // The body re-reads what the totals read; traffic counts one pass.
            uncounted: self.mode.uncounted || run.totals_only,
            atomic_bins: match run.bins {
                Bins::Atomic => layout.bins.iter().map(|(b, _)| *b).collect(),
                Bins::Shared | Bins::Private => Vec::new(),
            },
            reassociable: reassociable
                .flatten()
                .filter(|c| matches!(c.var.ty, Type::Scalar(ScalarType::F32 | ScalarType::F64)))
                .map(|c| c.var.id)
                .collect(),
            nan_free: nest
                .reductions
                .iter()
                .flat_map(|r| &r.carried)
                .filter_map(nan_free_step)
                .collect(),
            ..self.mode.clone()
        };
        // Strided, the counter counts steps of `stride` iterations from `first`.
        let base = match stride {
            Some((first, step)) => {
                let b = &self.builder;
                let scaled = b.build_int_mul(iv, self.const_i64(step), "")?;
                b.build_int_add(first, scaled, "lanes.base")?
            }
            None => iv,
        };
        self.with_mode(mode, |g| {
            for &(offset, slots) in lanes {
                g.lane_iteration(inner, run, base, offset, slots, &carried)?;
            }
            Ok(())
        })?;
        let next = self.builder.build_int_add(iv, self.const_i64(1), "")?;
        let latch = self.current_block()?;
        self.builder.build_unconditional_branch(header)?;
        i.add_incoming(&[(&next, latch)]);
        Ok(())
    }

    /// From the current block, the header of a loop counting from `start`
    /// while below `end` (else leaving to `exit`), and its counter; the
    /// builder is left at the start of the body.
    pub(super) fn loop_header(
        &self,
        func: FunctionValue<'ctx>,
        name: &str,
        start: IntValue<'ctx>,
        end: IntValue<'ctx>,
        exit: BasicBlock<'ctx>,
    ) -> Res<(BasicBlock<'ctx>, inkwell::values::PhiValue<'ctx>)> {
        let before = self.current_block()?;
        let header = self.ctx.append_basic_block(func, name);
        let body = self.ctx.append_basic_block(func, "body");
        self.builder.build_unconditional_branch(header)?;
        self.builder.position_at_end(header);
        let counter = self.builder.build_phi(self.i64(), "i")?;
        counter.add_incoming(&[(&start, before)]);
        let iv = counter.as_basic_value().into_int_value();
        let more = self
            .builder
            .build_int_compare(IntPredicate::SLT, iv, end, "")?;
        self.builder.build_conditional_branch(more, body, exit)?;
        self.builder.position_at_end(body);
        Ok((header, counter))
    }

    /// One iteration of `run`'s body at index `iv + offset`, with the
    /// carried values in `slots`.
    fn lane_iteration(
        &mut self,
        inner: &mut Frame<'ctx>,
        run: &LoopRun<'_, 'ctx>,
        iv: IntValue<'ctx>,
        offset: Option<IntValue<'ctx>>,
        slots: &[PointerValue<'ctx>],
        carried: &[&Carried],
    ) -> Res<()> {
        let layout = run.layout;
        let index = match offset {
            Some(off) => self.builder.build_int_add(iv, off, "lane.i")?,
            None => iv,
        };
        inner.vals.insert(
            run.nest.index.id,
            Val::Scalar(index.into(), ScalarType::I64),
        );
        for (c, &(first, len)) in carried.iter().zip(&layout.carry_slices) {
            let mut loaded = Vec::new();
            let fields = layout.carry_fields.iter().zip(slots);
            for (ty, slot) in fields.skip(first).take(len) {
                loaded.push(self.builder.build_load(*ty, *slot, "")?);
            }
            inner
                .vals
                .insert(c.var.id, self.val_of_fields(c.var.ty, &loaded)?);
        }
        self.block(inner, run.body)?;
        let reduction_values: usize = run.nest.reductions.iter().map(|r| r.carried.len()).sum();
        for (j, (c, &(first, _))) in carried.iter().zip(&layout.carry_slices).enumerate() {
            if run.totals_only && j < reduction_values {
                continue;
            }
            let fields = self.fields(&self.val(inner, &c.next)?);
            for (k, v) in fields.iter().enumerate() {
                self.builder.build_store(slots[first + k], *v)?;
            }
        }
        Ok(())
    }

    /// A look-back scan's body over `[start, end)` in blocks of
    /// `LANE_BLOCK` iterations, each cut into `LANES` runs of consecutive
    /// iterations that one loop interleaves, so that the scans' float
    /// chains (several cycles per add) overlap. A lane starts from the
    /// scans' values after the runs before it, which the vectorised totals
    /// compute, and from the reductions' initial values (`carry`, still
    /// untouched); after the loop the lanes' reductions combine in order
    /// and the last lane's scans carry on over the iterations left. Both
    /// reassociate, as parallel scans and reductions may; the runs depend
    /// only on the chunk, so results repeat.
    fn emit_in_lanes(
        &mut self,
        inner: &mut Frame<'ctx>,
        run: &LoopRun<'_, 'ctx>,
        totals: &Block,
        carry: PointerValue<'ctx>,
    ) -> Res<()> {
        let func = inner.func;
        let layout = run.layout;
        let fields = run.slots.len();
        let reduction_fields: usize = {
            let values: usize = run.nest.reductions.iter().map(|r| r.carried.len()).sum();
            layout.carry_slices[..values].iter().map(|(_, n)| n).sum()
        };
        let mut lanes: Vec<Vec<PointerValue<'ctx>>> = vec![run.slots.to_vec()];
        for _ in 1..LANES {
            let slots = (0..fields)
                .map(|k| self.entry_alloca(func, layout.carry_fields[k]))
                .collect::<Res<Vec<_>>>()?;
            lanes.push(slots);
        }
        let (header, block_start) =
            self.loop_header(func, "lanes.block", run.start, run.end, run.exit)?;
        let start_block = self.current_block()?;
        let combine = self.ctx.append_basic_block(func, "lanes.combine");
        let rest = self.ctx.append_basic_block(func, "lanes.rest");
        let latch = self.ctx.append_basic_block(func, "lanes.next");
        let bstart = block_start.as_basic_value().into_int_value();
        let b = &self.builder;
        let full = b.build_int_add(bstart, self.const_i64(LANE_BLOCK), "")?;
        let short = b.build_int_compare(IntPredicate::SLT, run.end, full, "")?;
        let bend = b
            .build_select(short, run.end, full, "block.end")?
            .into_int_value();
        let len = b.build_int_sub(bend, bstart, "")?;
        let lane_len = b.build_int_signed_div(len, self.const_i64(LANES as i64), "lane.len")?;
        let none = b.build_int_compare(IntPredicate::EQ, lane_len, self.const_i64(0), "")?;
        let lanes_block = self.ctx.append_basic_block(func, "lanes");
        self.builder
            .build_conditional_branch(none, rest, lanes_block)?;
        self.builder.position_at_end(lanes_block);
        let mut starts = vec![bstart];
        for s in 1..LANES {
            let b = &self.builder;
            let lane_start = b.build_int_add(starts[s - 1], lane_len, "lane.start")?;
            let (previous, this) = lanes.split_at(s);
            let fields = layout
                .carry_fields
                .iter()
                .zip(&previous[s - 1])
                .zip(&this[0]);
            for (k, ((ty, from), to)) in fields.enumerate() {
                let v = if k < reduction_fields {
                    let p = b.build_struct_gep(layout.carry_ty, carry, k as u32, "")?;
                    b.build_load(*ty, p, "")?
                } else {
                    b.build_load(*ty, *from, "")?
                };
                b.build_store(*to, v)?;
            }
            let advanced = self.ctx.append_basic_block(func, "lane.totals.done");
            let lane_run = LoopRun {
                body: totals,
                slots: &lanes[s],
                start: starts[s - 1],
                end: lane_start,
                exit: advanced,
                totals_only: true,
                ..*run
            };
            self.emit_loop(inner, &lane_run)?;
            self.builder.position_at_end(advanced);
            starts.push(lane_start);
        }
        let lanes_end = self
            .builder
            .build_int_add(starts[LANES - 1], lane_len, "lanes.end")?;
        let offsets = starts
            .iter()
            .map(|&st| Ok(Some(self.builder.build_int_sub(st, bstart, "")?)))
            .collect::<Res<Vec<_>>>()?;
        let lane_list: Vec<(Option<IntValue<'ctx>>, &[PointerValue<'ctx>])> = offsets
            .iter()
            .zip(&lanes)
            .map(|(o, slots)| (*o, slots.as_slice()))
            .collect();
        let interleaved_end = self.builder.build_int_add(bstart, lane_len, "")?;
        let interleaved = LoopRun {
            start: bstart,
            end: interleaved_end,
            exit: combine,
            ..*run
        };
        self.emit_lanes(inner, &interleaved, &lane_list, None)?;

        self.builder.position_at_end(combine);
        for lane in &lanes[1..] {
            let mode = Combine::Reductions;
            self.combine_carried(inner, run.nest, layout, &lanes[0], lane, mode)?;
        }
        let combined = self.current_block()?;
        let scanned = layout
            .carry_fields
            .iter()
            .zip(&lanes[LANES - 1])
            .zip(&lanes[0]);
        for ((ty, from), to) in scanned.skip(reduction_fields) {
            let v = self.builder.build_load(*ty, *from, "")?;
            self.builder.build_store(*to, v)?;
        }
        self.builder.build_unconditional_branch(rest)?;

        self.builder.position_at_end(rest);
        let rest_start = self.builder.build_phi(self.i64(), "rest.start")?;
        rest_start.add_incoming(&[(&bstart, start_block), (&lanes_end, combined)]);
        let leftover = LoopRun {
            start: rest_start.as_basic_value().into_int_value(),
            end: bend,
            exit: latch,
            ..*run
        };
        self.emit_loop(inner, &leftover)?;
        self.builder.position_at_end(latch);
        block_start.add_incoming(&[(&bend, latch)]);
        self.builder.build_unconditional_branch(header)?;
        Ok(())
    }

    /// A reduction's body over `[start, end)` as two halves that one loop
    /// runs side by side (`split_streams`): lane 0 over the first `h`
    /// iterations, lane 1 over the next `h` from the neutral values in
    /// `carry` (still untouched), then lane 1 combined into lane 0, which
    /// goes on over the iterations left. `h` is a multiple of 64
    /// iterations, so both halves start equally aligned. The operator is
    /// only reassociated, as a parallel reduction may be, and the halves
    /// depend only on the range, so results repeat.
    fn emit_split(
        &mut self,
        inner: &mut Frame<'ctx>,
        run: &LoopRun<'_, 'ctx>,
        carry: PointerValue<'ctx>,
    ) -> Res<()> {
        let func = inner.func;
        let layout = run.layout;
        let second = (0..run.slots.len())
            .map(|k| self.entry_alloca(func, layout.carry_fields[k]))
            .collect::<Res<Vec<_>>>()?;
        let b = &self.builder;
        let len = b.build_int_sub(run.end, run.start, "")?;
        let pairs = b.build_int_signed_div(len, self.const_i64(2 * SPLIT_ALIGN), "")?;
        let half = b.build_int_mul(pairs, self.const_i64(SPLIT_ALIGN), "half")?;
        let none = b.build_int_compare(IntPredicate::EQ, half, self.const_i64(0), "")?;
        let halves = self.ctx.append_basic_block(func, "split");
        let combine = self.ctx.append_basic_block(func, "split.combine");
        let rest = self.ctx.append_basic_block(func, "split.rest");
        let before = self.current_block()?;
        self.builder.build_conditional_branch(none, rest, halves)?;
        self.builder.position_at_end(halves);
        for (k, (ty, to)) in layout.carry_fields.iter().zip(&second).enumerate() {
            let p = self
                .builder
                .build_struct_gep(layout.carry_ty, carry, k as u32, "")?;
            let v = self.builder.build_load(*ty, p, "")?;
            self.builder.build_store(*to, v)?;
        }
        let halves_end = self.builder.build_int_add(run.start, half, "")?;
        let interleaved = LoopRun {
            end: halves_end,
            exit: combine,
            ..*run
        };
        let lanes = [(None, run.slots), (Some(half), second.as_slice())];
        self.emit_lanes(inner, &interleaved, &lanes, None)?;
        self.builder.position_at_end(combine);
        self.combine_carried(
            inner,
            run.nest,
            layout,
            run.slots,
            &second,
            Combine::Reductions,
        )?;
        let split_end = self.builder.build_int_add(halves_end, half, "")?;
        self.emit_rest_after_lanes(inner, run, (before, rest), split_end)
    }

    /// The iterations a side-by-side form (`emit_split`, `emit_strided`)
    /// left, one at a time in block `rest`: from `lanes_end` after the
    /// lanes, from the range's start when `before` skipped them.
    fn emit_rest_after_lanes(
        &mut self,
        inner: &mut Frame<'ctx>,
        run: &LoopRun<'_, 'ctx>,
        (before, rest): (BasicBlock<'ctx>, BasicBlock<'ctx>),
        lanes_end: IntValue<'ctx>,
    ) -> Res<()> {
        let combined = self.current_block()?;
        self.builder.build_unconditional_branch(rest)?;
        self.builder.position_at_end(rest);
        let rest_start = self.builder.build_phi(self.i64(), "rest.start")?;
        rest_start.add_incoming(&[(&run.start, before), (&lanes_end, combined)]);
        let leftover = LoopRun {
            start: rest_start.as_basic_value().into_int_value(),
            ..*run
        };
        self.emit_loop(inner, &leftover)
    }

    /// A selection reduction's body (`LoopShape::Strided`) over `[start,
    /// end)` in `STRIDED_LANES` lanes that one loop runs side by side, lane
    /// `v` over iterations `start + t * STRIDED_LANES + v`, each from the
    /// neutral values in `carry` (still untouched); then the lanes combine
    /// in order into lane 0, which goes on over the iterations left. The
    /// operator is commutative (`loopy::select`), so the result is the
    /// sequential one; the lanes' compares and selects are the same
    /// operations on consecutive elements, which LLVM's SLP vectoriser
    /// packs into vectors.
    fn emit_strided(
        &mut self,
        inner: &mut Frame<'ctx>,
        run: &LoopRun<'_, 'ctx>,
        carry: PointerValue<'ctx>,
    ) -> Res<()> {
        let func = inner.func;
        let layout = run.layout;
        let mut lanes = vec![run.slots.to_vec()];
        for _ in 1..STRIDED_LANES {
            let slots = (0..run.slots.len())
                .map(|k| self.entry_alloca(func, layout.carry_fields[k]))
                .collect::<Res<Vec<_>>>()?;
            lanes.push(slots);
        }
        let b = &self.builder;
        let len = b.build_int_sub(run.end, run.start, "")?;
        let steps = b.build_int_signed_div(len, self.const_i64(STRIDED_LANES as i64), "steps")?;
        let none = b.build_int_compare(IntPredicate::SLE, steps, self.const_i64(0), "")?;
        let strided = self.ctx.append_basic_block(func, "strided");
        let combine = self.ctx.append_basic_block(func, "strided.combine");
        let rest = self.ctx.append_basic_block(func, "strided.rest");
        let before = self.current_block()?;
        self.builder.build_conditional_branch(none, rest, strided)?;
        self.builder.position_at_end(strided);
        for lane in &lanes[1..] {
            for (k, (ty, to)) in layout.carry_fields.iter().zip(lane).enumerate() {
                let p = self
                    .builder
                    .build_struct_gep(layout.carry_ty, carry, k as u32, "")?;
                let v = self.builder.build_load(*ty, p, "")?;
                self.builder.build_store(*to, v)?;
            }
        }
        let counted = LoopRun {
            start: self.const_i64(0),
            end: steps,
            exit: combine,
            ..*run
        };
        let offsets = (0..STRIDED_LANES)
            .map(|v| Some(self.const_i64(v as i64)))
            .collect::<Vec<_>>();
        let lane_list: Vec<(Option<IntValue<'ctx>>, &[PointerValue<'ctx>])> = offsets
            .iter()
            .zip(&lanes)
            .map(|(o, slots)| (*o, slots.as_slice()))
            .collect();
        self.emit_lanes(
            inner,
            &counted,
            &lane_list,
            Some((run.start, STRIDED_LANES as i64)),
        )?;
        self.builder.position_at_end(combine);
        for lane in &lanes[1..] {
            let mode = Combine::Reductions;
            self.combine_carried(inner, run.nest, layout, &lanes[0], lane, mode)?;
        }
        let b = &self.builder;
        let done = b.build_int_mul(steps, self.const_i64(STRIDED_LANES as i64), "")?;
        let strided_end = b.build_int_add(run.start, done, "")?;
        self.emit_rest_after_lanes(inner, run, (before, rest), strided_end)
    }

    /// Whether every read of `reads` is in range for all iterations of
    /// `[start, end)` (an empty range included).
    fn reads_in_range(
        &self,
        frame: &Frame<'ctx>,
        reads: &[ProvenRead],
        start: IntValue<'ctx>,
        end: IntValue<'ctx>,
    ) -> Res<IntValue<'ctx>> {
        let b = &self.builder;
        let last = b.build_int_sub(end, self.const_i64(1), "")?;
        let mut ok = self.ctx.bool_type().const_all_ones();
        for read in reads {
            let (_, _, shape) = self.array(frame, read.array)?;
            for (dim, len) in read.dims.iter().zip(&shape) {
                let in_range = match dim {
                    ReadDim::Affine(c) => {
                        let c = self.const_i64(*c);
                        let lo = b.build_int_add(start, c, "")?;
                        let hi = b.build_int_add(last, c, "")?;
                        let lo_ok =
                            b.build_int_compare(IntPredicate::SGE, lo, self.const_i64(0), "")?;
                        let hi_ok = b.build_int_compare(IntPredicate::SLT, hi, *len, "")?;
                        b.build_and(lo_ok, hi_ok, "")?
                    }
                    ReadDim::Invariant(a) => {
                        let v = self.index(frame, a)?;
                        b.build_int_compare(IntPredicate::ULT, v, *len, "")?
                    }
                };
                ok = b.build_and(ok, in_range, "")?;
            }
        }
        Ok(ok)
    }
}

/// The `MemSpace::Thread` allocations of a nest's body, through branches
/// and sequential loops (a nest inside has its own loop function).
/// Iterations the halves of a split reduction are cut at multiples of
/// (`emit_split`): 64 `f32`s, four cache lines.
const SPLIT_ALIGN: i64 = 64;

/// Whether a nest's body loop runs in two halves side by side
/// (`emit_split`): a reduction and nothing else (no scan, histogram or
/// write), whose body cannot fail (the halves meet their iterations out of
/// order) and holds no loop. Why: one stream read in order leaves this
/// machine's memory idle between the prefetches of its pages; two streams
/// 32 KiB apart keep twice as many lines in flight. A sum of squares of
/// 50M `f32` (2 threads, hand-written C on an Intel Xeon with AVX-512,
/// interleaved, 6 rounds): 4.11 ms against 5.35 for one stream (0.77x); a
/// dot product, already two streams, 9.86 against 10.21 (0.97x).
fn split_streams(nest: &LoopNest, bins: Bins) -> bool {
    fn simple(block: &Block) -> bool {
        block.iter().all(|stmt| match stmt {
            Stmt::Let { exp, .. } => !exp.may_fail(),
            Stmt::Read { check, .. } => check.is_none(),
            Stmt::If {
                then_block,
                else_block,
                ..
            } => simple(then_block) && simple(else_block),
            _ => false,
        })
    }
    !nest.reductions.is_empty()
        && nest.scans.is_empty()
        && nest.compactions.is_empty()
        && nest.hists.is_empty()
        && nest.scatters.is_empty()
        && bins == Bins::Shared
        && matches!(
            nest.plan.as_deref().map(|p| &p.strategy),
            Some(crate::loopy::ir::ParPlan::Partials)
        )
        && simple(&nest.body)
}

fn thread_allocs<'b>(block: &'b Block, out: &mut Vec<(&'b Var, &'b [Atom])>) {
    for stmt in block {
        match stmt {
            Stmt::Alloc {
                var,
                shape,
                space: MemSpace::Thread,
            } => out.push((var, shape)),
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                thread_allocs(then_block, out);
                thread_allocs(else_block, out);
            }
            Stmt::SeqLoop(lp) => {
                if let SeqForm::While { cond, .. } = &lp.form {
                    thread_allocs(cond, out);
                }
                thread_allocs(&lp.body, out);
            }
            _ => {}
        }
    }
}

/// `(accumulator, step)` for a float reduction value that starts from a
/// constant other than NaN and whose value after an iteration is one
/// variable (see `Gen::nan_free_extremum`, which emits that variable's
/// definition when it is the `max` or `min` of the accumulator and an
/// element, so that the accumulator stays a number).
fn nan_free_step(c: &Carried) -> Option<(crate::core::ir::VarId, crate::core::ir::VarId)> {
    let number = match c.init {
        Atom::Const(crate::types::Const::F32(x)) => !x.is_nan(),
        Atom::Const(crate::types::Const::F64(x)) => !x.is_nan(),
        _ => false,
    };
    match c.next {
        Atom::Var(step) if number => Some((c.var.id, step)),
        _ => None,
    }
}
