//! Loop nests as outlined functions handed to the runtime's thread pool
//! (`arr_run_nest` in arr_runtime.h), with the strategy `loopy::par` plans.
//!
//! Per nest: the body `void(env, start, end, carry)`; for reductions,
//! scans and compactions two combiners `void(env, acc, other)`; for scans
//! and compactions the totals function; for histograms an atomic
//! body, a body over private bins and a helper that allocates, merges and
//! frees private bins. The caller fills an `arr_nest` descriptor on its
//! stack and calls `arr_run_nest`; a nest inside another nest's body calls
//! its body directly when it already runs on a pool thread.

use super::{err, Frame, Gen, Res, Val};
use crate::core::ir::{Atom, BinOp, Type, VarId};
use crate::loopy::ir::{Block, Carried, LoopNest, Operator, Stmt};
use crate::loopy::par::{self, ParPlan};
use crate::types::ScalarType;
use inkwell::basic_block::BasicBlock;
use inkwell::module::Linkage;
use inkwell::types::{BasicTypeEnum, StructType};
use inkwell::values::FastMathFlags;
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, IntPredicate};
use std::collections::{HashMap, HashSet};

/// Runs of iterations a look-back scan's body interleaves (see
/// `emit_in_lanes`): a float add's latency over the loop's issue rate.
const LANES: usize = 4;
/// Iterations per block of lanes: few enough that the lanes' totals leave
/// them in the cache for the body.
const LANE_BLOCK: i64 = 4096;

/// `arr_nest_kind` in arr_runtime.h.
const KIND_MAP: u64 = 0;
const KIND_REDUCE: u64 = 1;
const KIND_TWO_PHASE: u64 = 2;
const KIND_HIST: u64 = 3;
const KIND_SEQUENTIAL: u64 = 4;
/// `ARR_HIST_*` in arr_runtime.h.
const HIST_ALLOC: u64 = 0;
const HIST_MERGE: u64 = 1;

/// Where a nest's free variables and carried values live in memory.
struct Layout<'ctx> {
    free: Vec<(VarId, Val<'ctx>)>,
    env_ty: StructType<'ctx>,
    carry_ty: StructType<'ctx>,
    carry_fields: Vec<BasicTypeEnum<'ctx>>,
    /// Per carried value (in `LoopNest::carried` order): first field, count.
    carry_slices: Vec<(usize, usize)>,
    /// Histogram nests: the bins arrays, whose data pointers follow the
    /// carried values so that a chunk can be pointed at private bins.
    bins: Vec<(VarId, ScalarType)>,
}

/// What a loop function runs of a nest's body.
#[derive(Clone, Copy)]
enum Work<'a> {
    /// All of it; for a look-back scan whose body runs in lanes
    /// (`emit_in_lanes`), with the totals that start the lanes.
    Body { lane_totals: Option<&'a Block> },
    /// Only what advances the scans and compactions (a totals function).
    Totals,
}

/// What combining two sets of a nest's carried values does to each group.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Combine {
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

/// How a loop function treats histogram bins.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bins {
    Shared,
    /// Every update is an atomic read-modify-write.
    Atomic,
    /// The bins' pointers come from the carry struct.
    Private,
}

/// What `emit_loop` needs to emit one copy of a nest's loop.
struct LoopRun<'a, 'ctx> {
    nest: &'a LoopNest,
    layout: &'a Layout<'ctx>,
    body: &'a Block,
    slots: &'a [PointerValue<'ctx>],
    start: IntValue<'ctx>,
    end: IntValue<'ctx>,
    exit: BasicBlock<'ctx>,
    bins: Bins,
    totals_only: bool,
}

/// A checked read of an array from outside the nest whose every index is
/// the nest's index plus a constant, or the same in every iteration: one
/// test before the loop can prove it in range for a whole chunk.
struct ProvenRead {
    var: VarId,
    array: VarId,
    dims: Vec<Dim>,
}

enum Dim {
    Affine(i64),
    Invariant(Atom),
}

/// The reads of `body` that `reads_in_range` can prove: those at its top
/// level, and in the branches that `facts` (with the constants they fold
/// into) decide.
fn in_range_reads(
    nest: &LoopNest,
    body: &Block,
    layout: &Layout,
    facts: &HashMap<VarId, bool>,
) -> Vec<ProvenRead> {
    let mut walk = ReadWalk {
        outside: layout.free.iter().map(|(v, _)| *v).collect(),
        affine: HashMap::from([(nest.index.id, 0)]),
        known: facts.clone(),
        out: Vec::new(),
    };
    walk.block(body);
    walk.out
}

struct ReadWalk {
    outside: HashSet<VarId>,
    /// Variables equal to the nest's index plus a constant.
    affine: HashMap<VarId, i64>,
    /// Booleans known for every iteration.
    known: HashMap<VarId, bool>,
    out: Vec<ProvenRead>,
}

impl ReadWalk {
    fn block(&mut self, body: &Block) {
        for stmt in body {
            match stmt {
                Stmt::Let {
                    var,
                    exp: crate::loopy::ir::ScalarExp::BinOp(op, a, b),
                    ..
                } => self.offset(var.id, *op, a, b),
                Stmt::Read {
                    var,
                    array,
                    index,
                    check: Some(_),
                } if self.outside.contains(array) => self.read(var.id, *array, index),
                Stmt::If {
                    results,
                    cond,
                    then_block,
                    then_results,
                    else_block,
                    else_results,
                } => {
                    let Some(taken) = self.truth(cond) else {
                        continue;
                    };
                    let (block, res) = if taken {
                        (then_block, then_results)
                    } else {
                        (else_block, else_results)
                    };
                    self.block(block);
                    for (r, a) in results.iter().zip(res) {
                        if let Some(t) = self.truth(a) {
                            self.known.insert(r.id, t);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn truth(&self, a: &Atom) -> Option<bool> {
        match a {
            Atom::Const(crate::types::Const::Bool(b)) => Some(*b),
            Atom::Var(v) => self.known.get(v).copied(),
            Atom::Const(_) => None,
        }
    }

    fn offset(&mut self, var: VarId, op: BinOp, a: &Atom, b: &Atom) {
        let offset = |x: &Atom| match x {
            Atom::Var(v) => self.affine.get(v).copied(),
            Atom::Const(_) => None,
        };
        let constant = |x: &Atom| match x {
            Atom::Const(c) => c.as_i128().and_then(|c| i64::try_from(c).ok()),
            Atom::Var(_) => None,
        };
        let shifted = match (op, offset(a), offset(b), constant(a), constant(b)) {
            (BinOp::Add, Some(o), _, _, Some(c)) | (BinOp::Add, _, Some(o), Some(c), _) => {
                o.checked_add(c)
            }
            (BinOp::Sub, Some(o), _, _, Some(c)) => o.checked_sub(c),
            _ => None,
        };
        // Offsets stay small, so `start + c` cannot overflow.
        if let Some(o) = shifted.filter(|o| o.unsigned_abs() < 1 << 40) {
            self.affine.insert(var, o);
        }
    }

    fn read(&mut self, var: VarId, array: VarId, index: &[Atom]) {
        let dims: Option<Vec<Dim>> = index
            .iter()
            .map(|a| match a {
                Atom::Var(v) if self.affine.contains_key(v) => Some(Dim::Affine(self.affine[v])),
                Atom::Var(v) if self.outside.contains(v) => Some(Dim::Invariant(*a)),
                Atom::Const(_) => Some(Dim::Invariant(*a)),
                Atom::Var(_) => None,
            })
            .collect();
        if let Some(dims) = dims {
            self.out.push(ProvenRead { var, array, dims });
        }
    }
}

/// Conditions `index == x` and `index != x` of the body (at any depth)
/// with `x` the same in every iteration: `(condition, x, its value when
/// index != x)`. They decide branches of stencil boundaries, which peeling
/// takes out of the middle iterations of a chunk.
fn index_conditions(nest: &LoopNest, body: &Block, layout: &Layout) -> Vec<(VarId, Atom, bool)> {
    let outside: HashSet<VarId> = layout.free.iter().map(|(v, _)| *v).collect();
    let index = Atom::Var(nest.index.id);
    let mut found = Vec::new();
    let mut visit = |stmt: &Stmt| {
        if let Stmt::Let {
            var,
            exp: crate::loopy::ir::ScalarExp::BinOp(op @ (BinOp::Eq | BinOp::Neq), a, b),
            ..
        } = stmt
        {
            let other = if *a == index {
                b
            } else if *b == index {
                a
            } else {
                return;
            };
            let invariant = match other {
                Atom::Var(v) => outside.contains(v),
                Atom::Const(c) => c.as_i128().is_some(),
            };
            if invariant {
                found.push((var.id, *other, *op == BinOp::Neq));
            }
        }
    };
    for_each_stmt(body, &mut visit);
    found
}

/// Calls `f` on every statement of `block`, at any depth (branches, loops
/// and nests).
fn for_each_stmt(block: &Block, f: &mut impl FnMut(&Stmt)) {
    for stmt in block {
        f(stmt);
        match stmt {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                for_each_stmt(then_block, f);
                for_each_stmt(else_block, f);
            }
            Stmt::SeqLoop(lp) => for_each_stmt(&lp.body, f),
            Stmt::Loop(inner) => for_each_stmt(&inner.body, f),
            _ => {}
        }
    }
}

/// The open compare-and-swap loop of an atomic bin update: the bin's
/// address, the value read (as bits) and the block that reads it again.
pub(super) struct Cas<'ctx> {
    ptr: PointerValue<'ctx>,
    old_bits: IntValue<'ctx>,
    retry: BasicBlock<'ctx>,
}

impl<'ctx> Gen<'ctx, '_> {
    pub(super) fn nest(&mut self, fr: &mut Frame<'ctx>, nest: &LoopNest) -> Res<()> {
        let mut plan = par::plan(nest);
        let layout = self.layout(fr, nest)?;
        if layout.bins.len() != nest.hists.iter().map(|h| h.bins.len()).sum::<usize>() {
            // Bins of rows: neither atomics nor private scalar bins apply.
            plan = ParPlan::Sequential("histogram of rows");
        }
        let caller_block = self.current_block()?;
        let name = format!(
            "{}.loop{}.{}",
            self.prefix,
            self.nests,
            nest.origin.describe("")
        );
        self.nests += 1;
        let bins_mode = match plan {
            ParPlan::Hist { atomic: true, .. } => Bins::Atomic,
            _ => Bins::Shared,
        };
        let lane_totals = match &plan {
            ParPlan::TwoPhase { totals } if runs_in_lanes(nest) => Some(totals),
            _ => None,
        };
        let body = self.loop_function(
            nest,
            &layout,
            &nest.body,
            &name,
            bins_mode,
            Work::Body { lane_totals },
        )?;
        let null = self.ptr().const_null();
        let mut fns = [null; 5];
        let kind = match &plan {
            ParPlan::Chunked => KIND_MAP,
            ParPlan::Partials => KIND_REDUCE,
            ParPlan::TwoPhase { totals } => {
                let f = self.loop_function(
                    nest,
                    &layout,
                    totals,
                    &format!("{name}.totals"),
                    Bins::Shared,
                    Work::Totals,
                )?;
                fns[0] = f.as_global_value().as_pointer_value();
                KIND_TWO_PHASE
            }
            ParPlan::Hist { private, .. } => {
                if *private {
                    let f = self.loop_function(
                        nest,
                        &layout,
                        &nest.body,
                        &format!("{name}.private"),
                        Bins::Private,
                        Work::Body { lane_totals: None },
                    )?;
                    fns[3] = f.as_global_value().as_pointer_value();
                    let h = self.hist_function(nest, &layout, &format!("{name}.hist"))?;
                    fns[4] = h.as_global_value().as_pointer_value();
                }
                KIND_HIST
            }
            ParPlan::Sequential(_) => KIND_SEQUENTIAL,
        };
        if !layout.carry_slices.is_empty() {
            let c =
                self.combine_function(nest, &layout, &format!("{name}.combine"), Combine::Chunks)?;
            fns[1] = c.as_global_value().as_pointer_value();
            let p =
                self.combine_function(nest, &layout, &format!("{name}.prefix"), Combine::Prefix)?;
            fns[2] = p.as_global_value().as_pointer_value();
        }

        // The call, back in the caller.
        self.builder.position_at_end(caller_block);
        let mut env_values = Vec::new();
        for (_, val) in &layout.free {
            env_values.extend(self.fields(val));
        }
        let carried: Vec<&Carried> = nest.carried().collect();
        let mut inits = Vec::new();
        for c in &carried {
            inits.extend(self.fields(&self.val(fr, &c.init)?));
        }
        for (b, _) in &layout.bins {
            if let Val::Array { ptr, .. } = self.val(fr, &Atom::Var(*b))? {
                inits.push(ptr.into());
            }
        }
        let env_slot = self.entry_alloca(fr.func, layout.env_ty.into())?;
        let carry_slot = self.entry_alloca(fr.func, layout.carry_ty.into())?;
        let width = self.int(fr, &nest.width)?;
        self.count_nest_scalar_reads(nest)?;
        let after = self.ctx.append_basic_block(fr.func, "nest.done");
        if self.loop_depth > 0 {
            // Inside another nest: on a pool thread the runtime would only
            // call the body inline, so call it directly, where LLVM can see
            // it. Its environment and carried values get slots of their own
            // that never escape, so that they become registers.
            let flag = self.in_parallel_flag(fr)?;
            let direct = self.ctx.append_basic_block(fr.func, "nest.inline");
            let pooled = self.ctx.append_basic_block(fr.func, "nest.pool");
            self.builder
                .build_conditional_branch(flag, direct, pooled)?;
            self.builder.position_at_end(direct);
            let direct_env = self.entry_alloca(fr.func, layout.env_ty.into())?;
            let direct_carry = self.entry_alloca(fr.func, layout.carry_ty.into())?;
            self.store_fields(layout.env_ty, direct_env, 0, &env_values)?;
            self.store_fields(layout.carry_ty, direct_carry, 0, &inits)?;
            let zero = self.const_i64(0);
            let args = [
                direct_env.into(),
                zero.into(),
                width.into(),
                direct_carry.into(),
            ];
            self.builder.build_call(body, &args, "")?;
            let fields = layout.carry_ty.count_fields() as usize;
            let finals = self.load_fields(&layout, direct_carry, 0, fields)?;
            self.store_fields(layout.carry_ty, carry_slot, 0, &finals)?;
            self.builder.build_unconditional_branch(after)?;
            self.builder.position_at_end(pooled);
        }
        self.store_fields(layout.env_ty, env_slot, 0, &env_values)?;
        self.store_fields(layout.carry_ty, carry_slot, 0, &inits)?;
        // All bins of all histograms: the cost of a private copy.
        let mut bins_count = self.const_i64(0);
        for (b, _) in &layout.bins {
            if let Val::Array { shape, .. } = self.val(fr, &Atom::Var(*b))? {
                if let Some(&n) = shape.first() {
                    bins_count = self.builder.build_int_add(bins_count, n, "")?;
                }
            }
        }
        // Without atomics the shared body may run in one thread only: a
        // null body tells the runtime to run it sequentially when private
        // bins do not pay.
        let shared_body = match plan {
            ParPlan::Hist { atomic: false, .. } => null,
            _ => body.as_global_value().as_pointer_value(),
        };
        let has_inner = nest.body.iter().any(holds_nest);
        let descriptor: [BasicValueEnum<'ctx>; 11] = [
            shared_body.into(),
            fns[0].into(),
            fns[1].into(),
            fns[2].into(),
            fns[3].into(),
            fns[4].into(),
            layout
                .carry_ty
                .size_of()
                .ok_or_else(|| super::CodegenError("a carry struct without a size".into()))?
                .into(),
            self.const_i64(par::grain(nest)).into(),
            bins_count.into(),
            self.ctx.i32_type().const_int(kind, false).into(),
            self.ctx
                .i32_type()
                .const_int(u64::from(has_inner), false)
                .into(),
        ];
        let desc_types: Vec<BasicTypeEnum> = descriptor.iter().map(|v| v.get_type()).collect();
        let desc_ty = self.ctx.struct_type(&desc_types, false);
        let desc_slot = self.entry_alloca(fr.func, desc_ty.into())?;
        self.store_fields(desc_ty, desc_slot, 0, &descriptor)?;
        let run_nest = self.runtime_fn(
            "arr_run_nest",
            &[
                self.ptr().into(),
                self.ptr().into(),
                self.i64().into(),
                self.ptr().into(),
            ],
        );
        let args = [
            desc_slot.into(),
            env_slot.into(),
            width.into(),
            carry_slot.into(),
        ];
        self.builder.build_call(run_nest, &args, "")?;
        self.builder.build_unconditional_branch(after)?;
        self.builder.position_at_end(after);
        self.count_nest_reduction_writes(nest)?;
        // Final carried values: reductions' results and compaction counts.
        let mut finals = Vec::new();
        for (c, &(first, len)) in carried.iter().zip(&layout.carry_slices) {
            let loaded = self.load_fields(&layout, carry_slot, first, len)?;
            finals.push(self.val_of_fields(c.var.ty, &loaded)?);
        }
        let mut finals = finals.into_iter();
        for r in &nest.reductions {
            for v in &r.results {
                let x = finals.next().ok_or(super::CodegenError(
                    "reduction without a carried value".into(),
                ))?;
                fr.vals.insert(v.id, x);
            }
        }
        let scans: usize = nest.scans.iter().map(|s| s.carried.len()).sum();
        let mut finals = finals.skip(scans);
        for c in &nest.compactions {
            let x = finals
                .next()
                .ok_or(super::CodegenError("compaction without a count".into()))?;
            fr.vals.insert(c.result.id, x);
        }
        Ok(())
    }

    /// `arr_in_parallel() != 0`, called once at the start of `fr`'s function.
    fn in_parallel_flag(&self, fr: &mut Frame<'ctx>) -> Res<IntValue<'ctx>> {
        if let Some(flag) = fr.in_parallel {
            return Ok(flag);
        }
        let b = self.ctx.create_builder();
        let Some(entry) = fr.func.get_first_basic_block() else {
            return Err(super::CodegenError(
                "function without an entry block".into(),
            ));
        };
        match entry.get_first_instruction() {
            Some(i) => b.position_before(&i),
            None => b.position_at_end(entry),
        }
        let in_parallel = self.runtime_fn("arr_in_parallel", &[]);
        let flag = b
            .build_call(in_parallel, &[], "")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| super::CodegenError("arr_in_parallel returns nothing".into()))?
            .into_int_value();
        let zero = self.ctx.i32_type().const_zero();
        let flag = b.build_int_compare(IntPredicate::NE, flag, zero, "in_parallel")?;
        fr.in_parallel = Some(flag);
        Ok(flag)
    }

    fn layout(&self, fr: &Frame<'ctx>, nest: &LoopNest) -> Res<Layout<'ctx>> {
        let free: Vec<(VarId, Val<'ctx>)> = nest
            .free_vars()
            .into_iter()
            .map(|v| Ok((v, self.val(fr, &Atom::Var(v))?)))
            .collect::<Res<_>>()?;
        let mut env_fields: Vec<BasicTypeEnum> = Vec::new();
        for (_, val) in &free {
            env_fields.extend(self.field_types(super::val_type(val)));
        }
        let env_ty = self.ctx.struct_type(&env_fields, false);
        let mut carry_fields = Vec::new();
        let mut carry_slices = Vec::new();
        for c in nest.carried() {
            let types = self.field_types(c.var.ty);
            carry_slices.push((carry_fields.len(), types.len()));
            carry_fields.extend(types);
        }
        let mut bins = Vec::new();
        for h in &nest.hists {
            for b in &h.bins {
                if let Val::Array { elem, shape, .. } = self.val(fr, &Atom::Var(*b))? {
                    if shape.len() == 1 {
                        bins.push((*b, elem));
                        carry_fields.push(self.ptr().into());
                    }
                }
            }
        }
        let carry_ty = self.ctx.struct_type(&carry_fields, false);
        Ok(Layout {
            free,
            env_ty,
            carry_ty,
            carry_fields,
            carry_slices,
            bins,
        })
    }

    fn store_fields(
        &self,
        ty: StructType<'ctx>,
        slot: PointerValue<'ctx>,
        first: usize,
        values: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        for (k, v) in values.iter().enumerate() {
            let p = self
                .builder
                .build_struct_gep(ty, slot, (first + k) as u32, "")?;
            self.builder.build_store(p, *v)?;
        }
        Ok(())
    }

    fn load_fields(
        &self,
        layout: &Layout<'ctx>,
        slot: PointerValue<'ctx>,
        first: usize,
        len: usize,
    ) -> Res<Vec<BasicValueEnum<'ctx>>> {
        let mut out = Vec::new();
        for k in first..first + len {
            let p = self
                .builder
                .build_struct_gep(layout.carry_ty, slot, k as u32, "")?;
            out.push(self.builder.build_load(layout.carry_fields[k], p, "")?);
        }
        Ok(out)
    }

    /// A new internal function with pointer and `i64` parameters as given
    /// (`true` for a pointer), positioned in its entry block, with the
    /// nest's environment (its first parameter) loaded.
    fn outlined(
        &mut self,
        layout: &Layout<'ctx>,
        name: &str,
        params: &[BasicTypeEnum<'ctx>],
    ) -> Res<(FunctionValue<'ctx>, Frame<'ctx>)> {
        let params: Vec<_> = params.iter().map(|t| (*t).into()).collect();
        let fn_ty = self.ctx.void_type().fn_type(&params, false);
        let func = self
            .module
            .add_function(name, fn_ty, Some(Linkage::Internal));
        let entry = self.ctx.append_basic_block(func, "entry");
        self.builder.position_at_end(entry);
        let mut frame = Frame {
            func,
            vals: HashMap::new(),
            in_parallel: None,
        };
        let env = param_ptr(func, 0)?;
        let mut field = 0u32;
        for (v, val) in &layout.free {
            let mut loaded = Vec::new();
            for ty in self.field_types(super::val_type(val)) {
                let p = self
                    .builder
                    .build_struct_gep(layout.env_ty, env, field, "")?;
                field += 1;
                loaded.push(self.builder.build_load(ty, p, "")?);
            }
            let value = match self.facts.get(v) {
                // Known where the enclosing peeled loop calls this function.
                Some(&known) => {
                    let c = self.ctx.bool_type().const_int(u64::from(known), false);
                    Val::Scalar(c.into(), ScalarType::Bool)
                }
                None => self.val_of_fields(super::val_type(val), &loaded)?,
            };
            frame.vals.insert(*v, value);
        }
        Ok((func, frame))
    }

    /// `void NAME(env, start, end, carry)` running `body` over the
    /// iterations `[start, end)`. With `totals_only`, only the scans' and
    /// compactions' carried values advance (a scan's totals function).
    fn loop_function(
        &mut self,
        nest: &LoopNest,
        layout: &Layout<'ctx>,
        body: &Block,
        name: &str,
        bins: Bins,
        work: Work,
    ) -> Res<FunctionValue<'ctx>> {
        let totals_only = matches!(work, Work::Totals);
        let ptr = self.ptr().into();
        let i64t = self.i64().into();
        let (func, mut inner) = self.outlined(layout, name, &[ptr, i64t, i64t, ptr])?;
        let start = func
            .get_nth_param(1)
            .ok_or_else(missing_param)?
            .into_int_value();
        let end = func
            .get_nth_param(2)
            .ok_or_else(missing_param)?
            .into_int_value();
        let carry = param_ptr(func, 3)?;
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
        let conditions = index_conditions(nest, body, layout);
        let no_facts = HashMap::new();
        let proven = in_range_reads(nest, body, layout, &no_facts);
        if let (
            true,
            Work::Body {
                lane_totals: Some(totals),
            },
        ) = (conditions.is_empty(), work)
        {
            self.emit_in_lanes(&mut inner, &run, totals, carry)?;
        } else if conditions.is_empty() {
            self.emit_versioned(&mut inner, &run, &proven)?;
        } else {
            self.emit_peeled(&mut inner, &run, &conditions, &proven)?;
        }
        self.builder.position_at_end(exit);
        for (k, (slot, ty)) in slots.iter().zip(&layout.carry_fields).enumerate() {
            let v = self.builder.build_load(*ty, *slot, "")?;
            let p = self
                .builder
                .build_struct_gep(layout.carry_ty, carry, k as u32, "")?;
            self.builder.build_store(p, v)?;
        }
        self.builder.build_return(None)?;
        Ok(func)
    }

    /// The loop of `run`, versioned when `proven` lists reads: when every
    /// listed read is in range for the whole chunk (checked once here), a
    /// copy of the loop without their checks runs, which LLVM can
    /// vectorise; otherwise the checked loop finds the first bad index as a
    /// sequential run would.
    fn emit_versioned(
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
        let saved = std::mem::replace(&mut self.unchecked, proven.iter().map(|r| r.var).collect());
        let emitted = self.emit_loop(inner, run);
        self.unchecked = saved;
        emitted?;
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
        conditions: &[(VarId, Atom, bool)],
        proven: &[ProvenRead],
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
        for (_, x, _) in conditions {
            let x = self.index(inner, x)?;
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
        let facts: HashMap<VarId, bool> = conditions.iter().map(|(v, _, t)| (*v, *t)).collect();
        let mut known = self.facts.clone();
        known.extend(facts.iter().map(|(v, t)| (*v, *t)));
        let proven_middle = in_range_reads(run.nest, run.body, run.layout, &known);
        let saved = std::mem::replace(&mut self.facts, known);
        let emitted =
            self.emit_versioned(inner, &segment(mid_start, mid_end, last), &proven_middle);
        self.facts = saved;
        emitted?;
        self.builder.position_at_end(last);
        self.emit_loop(inner, &segment(mid_end, run.end, run.exit))
    }

    /// One loop over `[start, end)` from the current block, leaving to
    /// `run.exit`: the carried values live in `run.slots`.
    fn emit_loop(&mut self, inner: &mut Frame<'ctx>, run: &LoopRun<'_, 'ctx>) -> Res<()> {
        self.emit_lanes(inner, run, &[(None, run.slots)])
    }

    /// One loop over `[start, end)` whose iteration `i` runs the body once
    /// per lane, at index `i + offset` with the lane's carried values.
    fn emit_lanes(
        &mut self,
        inner: &mut Frame<'ctx>,
        run: &LoopRun<'_, 'ctx>,
        lanes: &[(Option<IntValue<'ctx>>, &[PointerValue<'ctx>])],
    ) -> Res<()> {
        let func = inner.func;
        let nest = run.nest;
        let layout = run.layout;
        let carried: Vec<&Carried> = nest.carried().collect();
        let (header, i) = self.loop_header(func, "loop", run.start, run.end, run.exit)?;
        let iv = i.as_basic_value().into_int_value();
        let saved_bins = std::mem::take(&mut self.atomic_bins);
        let saved_counting = self.counting_suppressed;
        if run.bins == Bins::Atomic {
            self.atomic_bins = layout.bins.iter().map(|(b, _)| *b).collect();
        }
        // The body re-reads what the totals read; traffic counts one pass.
        self.counting_suppressed |= run.totals_only;
        self.loop_depth += 1;
        // A reduction's accumulator may be reassociated, and so may a
        // scan's in its totals, which only sum up the chunk (the language
        // lets parallel scans reassociate): those loops then vectorise.
        let reassociable = nest.reductions.iter().map(|r| &r.carried);
        let scans = nest.scans.iter().filter(|_| run.totals_only);
        let reassociable = reassociable.chain(scans.map(|s| &s.carried));
        let saved_chain = std::mem::replace(
            &mut self.reduction_chain,
            reassociable
                .flatten()
                .filter(|c| matches!(c.var.ty, Type::Scalar(ScalarType::F32 | ScalarType::F64)))
                .map(|c| c.var.id)
                .collect(),
        );
        let mut generated = Ok(());
        for &(offset, slots) in lanes {
            generated = self.lane_iteration(inner, run, iv, offset, slots, &carried);
            if generated.is_err() {
                break;
            }
        }
        self.reduction_chain = saved_chain;
        self.loop_depth -= 1;
        self.atomic_bins = saved_bins;
        self.counting_suppressed = saved_counting;
        generated?;
        let next = self.builder.build_int_add(iv, self.const_i64(1), "")?;
        let latch = self.current_block()?;
        self.builder.build_unconditional_branch(header)?;
        i.add_incoming(&[(&next, latch)]);
        Ok(())
    }

    /// From the current block, the header of a loop counting from `start`
    /// while below `end` (else leaving to `exit`), and its counter; the
    /// builder is left at the start of the body.
    fn loop_header(
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
        self.emit_lanes(inner, &interleaved, &lane_list)?;

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
                    Dim::Affine(c) => {
                        let c = self.const_i64(*c);
                        let lo = b.build_int_add(start, c, "")?;
                        let hi = b.build_int_add(last, c, "")?;
                        let lo_ok =
                            b.build_int_compare(IntPredicate::SGE, lo, self.const_i64(0), "")?;
                        let hi_ok = b.build_int_compare(IntPredicate::SLT, hi, *len, "")?;
                        b.build_and(lo_ok, hi_ok, "")?
                    }
                    Dim::Invariant(a) => {
                        let v = self.index(frame, a)?;
                        b.build_int_compare(IntPredicate::ULT, v, *len, "")?
                    }
                };
                ok = b.build_and(ok, in_range, "")?;
            }
        }
        Ok(ok)
    }

    /// `void NAME(env, acc, other)`: [`Self::combine_carried`] on two carry
    /// structs, in [`Combine::Chunks`] or [`Combine::Prefix`] mode.
    fn combine_function(
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
    fn combine_carried(
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
    fn hist_function(
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
            let p = self.alloc_bytes(bytes)?;
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
        let arr_free = self.runtime_fn("arr_free", &[self.ptr().into()]);
        for p in pointers(self, a)? {
            self.builder.build_call(arr_free, &[p.into()], "")?;
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

    /// Marks a float operation on a reduction's accumulator as
    /// reassociable, which lets LLVM vectorise the reduction (several
    /// partial sums). The language allows it: a parallel reduce may
    /// reassociate its operator (LANGUAGE.md section 6), and the chunks of
    /// a multicore run already do.
    pub(super) fn reassociate_reduction_step(
        &mut self,
        var: VarId,
        exp: &crate::loopy::ir::ScalarExp,
        value: BasicValueEnum<'ctx>,
    ) -> Res<()> {
        let crate::loopy::ir::ScalarExp::BinOp(_, a, b) = exp else {
            return Ok(());
        };
        let on_chain = |x: &Atom| matches!(x, Atom::Var(v) if self.reduction_chain.contains(v));
        if !on_chain(a) && !on_chain(b) {
            return Ok(());
        }
        self.reduction_chain.insert(var);
        if let Some(inst) = value.as_instruction_value() {
            if inst.can_use_fast_math_flags() {
                inst.set_fast_math_flags(FastMathFlags::AllowReassoc)
                    .map_err(|e| super::CodegenError(format!("fast-math flags: {e}")))?;
            }
        }
        Ok(())
    }

    // ---- atomic histogram updates -----------------------------------------

    /// `old = bins[i]; r = old op v; bins[i] = r` with an operator the
    /// processor has an atomic instruction for: one `atomicrmw`. Returns
    /// how many statements it covered (0: not this pattern).
    pub(super) fn atomic_rmw(&mut self, fr: &mut Frame<'ctx>, stmts: &[Stmt]) -> Res<usize> {
        let [Stmt::Read {
            var: old,
            array,
            index,
            check: None,
        }, Stmt::Let {
            var: result,
            exp: crate::loopy::ir::ScalarExp::BinOp(op, x, y),
            ..
        }, Stmt::Write {
            array: written,
            index: written_at,
            value: Atom::Var(value),
        }, ..] = stmts
        else {
            return Ok(0);
        };
        let bin = *array;
        if !self.atomic_bins.contains(&bin)
            || *written != bin
            || written_at != index
            || *value != result.id
        {
            return Ok(0);
        }
        let operand = match (x, y) {
            (Atom::Var(v), other) | (other, Atom::Var(v)) if *v == old.id => *other,
            _ => return Ok(0),
        };
        if operand == Atom::Var(old.id) {
            return Ok(0);
        }
        let elem = old.ty.elem();
        let signed = matches!(
            elem,
            ScalarType::I8 | ScalarType::I16 | ScalarType::I32 | ScalarType::I64
        );
        let unsigned = matches!(
            elem,
            ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64
        );
        if !signed && !unsigned {
            return Ok(0);
        }
        let rmw = match op {
            BinOp::Add => AtomicRMWBinOp::Add,
            BinOp::And => AtomicRMWBinOp::And,
            BinOp::Or => AtomicRMWBinOp::Or,
            BinOp::Xor => AtomicRMWBinOp::Xor,
            BinOp::Min if signed => AtomicRMWBinOp::Min,
            BinOp::Max if signed => AtomicRMWBinOp::Max,
            BinOp::Min => AtomicRMWBinOp::UMin,
            BinOp::Max => AtomicRMWBinOp::UMax,
            _ => return Ok(0),
        };
        let (ptr, elem, shape) = self.array(fr, bin)?;
        let idx = self.checked_index(fr, &shape, index, None)?;
        let p = self.offset_ptr(ptr, elem, &shape, &idx)?;
        let v = self.int(fr, &operand)?;
        self.builder
            .build_atomicrmw(rmw, p, v, AtomicOrdering::Monotonic)?;
        self.count_one(super::traffic::Counter::Reads)?;
        self.count_one(super::traffic::Counter::Writes)?;
        Ok(3)
    }

    /// The read that opens a compare-and-swap update of a bin: an atomic
    /// load in a block the matching write branches back to when another
    /// thread changed the bin in between.
    pub(super) fn cas_read(
        &mut self,
        fr: &mut Frame<'ctx>,
        var: &crate::core::ir::Var,
        array: VarId,
        index: &[Atom],
    ) -> Res<()> {
        let (ptr, elem, shape) = self.array(fr, array)?;
        let idx = self.checked_index(fr, &shape, index, None)?;
        let p = self.offset_ptr(ptr, elem, &shape, &idx)?;
        let retry = self.ctx.append_basic_block(fr.func, "cas.retry");
        self.builder.build_unconditional_branch(retry)?;
        self.builder.position_at_end(retry);
        let bits_ty = match elem.bytes() {
            1 => self.ctx.i8_type(),
            2 => self.ctx.i16_type(),
            4 => self.ctx.i32_type(),
            _ => self.ctx.i64_type(),
        };
        let load = self.builder.build_load(bits_ty, p, "old")?;
        if let Some(inst) = load.as_instruction_value() {
            inst.set_alignment(elem.bytes() as u32)
                .map_err(|e| super::CodegenError(format!("atomic load: {e}")))?;
            inst.set_atomic_ordering(AtomicOrdering::Monotonic)
                .map_err(|e| super::CodegenError(format!("atomic load: {e}")))?;
        }
        let old_bits = load.into_int_value();
        let mem = self
            .builder
            .build_bit_cast(old_bits, self.mem_type(elem), "")?;
        let v = self.load_from_mem(mem, elem)?;
        fr.vals.insert(var.id, Val::Scalar(v, elem));
        self.cas = Some(Cas {
            ptr: p,
            old_bits,
            retry,
        });
        Ok(())
    }

    /// The write that closes a compare-and-swap update.
    pub(super) fn cas_write(&mut self, fr: &mut Frame<'ctx>, value: &Atom) -> Res<()> {
        let Some(cas) = self.cas.take() else {
            return err("an atomic bin written without being read");
        };
        let (v, t) = self.scalar(fr, value)?;
        let mem = self.store_to_mem(v, t)?;
        let new_bits = self
            .builder
            .build_bit_cast(mem, cas.old_bits.get_type(), "")?
            .into_int_value();
        let pair = self.builder.build_cmpxchg(
            cas.ptr,
            cas.old_bits,
            new_bits,
            AtomicOrdering::Monotonic,
            AtomicOrdering::Monotonic,
        )?;
        let swapped = self
            .builder
            .build_extract_value(pair, 1, "swapped")?
            .into_int_value();
        let done = self.ctx.append_basic_block(fr.func, "cas.done");
        self.builder
            .build_conditional_branch(swapped, done, cas.retry)?;
        self.builder.position_at_end(done);
        self.count_one(super::traffic::Counter::Reads)?;
        self.count_one(super::traffic::Counter::Writes)?;
        Ok(())
    }
}

/// Whether a statement is or contains a loop nest.
fn holds_nest(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Loop(_) => true,
        Stmt::If {
            then_block,
            else_block,
            ..
        } => then_block.iter().chain(else_block).any(holds_nest),
        Stmt::SeqLoop(lp) => lp.body.iter().any(holds_nest),
        _ => false,
    }
}

/// Whether a look-back scan's body runs in lanes (`emit_in_lanes`): a scan
/// carries a float, whose adds chain at several cycles each (an integer
/// chain keeps up with the loop anyway), and no iteration can fail, since
/// lanes run iterations out of order.
fn runs_in_lanes(nest: &LoopNest) -> bool {
    let float_scan = nest
        .scans
        .iter()
        .flat_map(|s| &s.carried)
        .any(|c| matches!(c.var.ty, Type::Scalar(ScalarType::F32 | ScalarType::F64)));
    float_scan && infallible(&nest.body)
}

fn infallible(body: &Block) -> bool {
    body.iter().all(|stmt| match stmt {
        Stmt::Let { exp, .. } => !exp.may_fail(),
        Stmt::Read { check, .. } => check.is_none(),
        Stmt::Write { .. } => true,
        Stmt::If {
            then_block,
            else_block,
            ..
        } => infallible(then_block) && infallible(else_block),
        _ => false,
    })
}

fn carried_field_count(layout: &Layout) -> usize {
    layout.carry_slices.iter().map(|(_, n)| n).sum()
}

fn missing_param() -> super::CodegenError {
    super::CodegenError("outlined function without its parameters".into())
}

fn param_ptr(func: FunctionValue, k: u32) -> Res<PointerValue> {
    Ok(func
        .get_nth_param(k)
        .ok_or_else(missing_param)?
        .into_pointer_value())
}
