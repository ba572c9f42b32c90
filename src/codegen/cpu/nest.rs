//! Loop nests as outlined functions handed to the runtime's thread pool
//! (`arr_run_nest` in arr_parallel.h), with the strategy `loopy::par` plans.
//!
//! Per nest: the body `void(env, start, end, carry)`; for reductions,
//! scans and compactions two combiners `void(env, acc, other)`; for scans
//! and compactions the totals function; for histograms an atomic
//! body, a body over private bins and a helper that allocates, merges and
//! frees private bins. The caller fills an `arr_nest` descriptor on its
//! stack and calls `arr_run_nest`; a nest inside another nest's body calls
//! its body directly when it already runs on a pool thread.
//!
//! `env` holds the nest's free variables, `carry` the carried values
//! (initial values in, final values out); the pool calls the body on
//! chunks of `[0, width)` and combines the carried values with functions
//! generated from the nest's operators.

use super::combine::Combine;
use super::loops::Work;
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::runtime::RuntimeFn;
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, VarId};
use crate::loopy::ir::{Carried, LoopNest, LoopShape, ParPlan, Stmt};

use crate::types::ScalarType;
use inkwell::context::Context;
use inkwell::module::Linkage;
use inkwell::targets::TargetMachine;
use inkwell::types::{BasicTypeEnum, StructType};
use inkwell::values::{BasicValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::AddressSpace;
use inkwell::IntPredicate;
use std::collections::HashMap;

/// `arr_nest_kind` in arr_parallel.h.
pub(super) const KIND_MAP: u64 = 0;
pub(super) const KIND_REDUCE: u64 = 1;
pub(super) const KIND_TWO_PHASE: u64 = 2;
pub(super) const KIND_HIST: u64 = 3;
pub(super) const KIND_SEQUENTIAL: u64 = 4;
/// `ARR_HIST_*` in arr_parallel.h.
pub(super) const HIST_ALLOC: u64 = 0;
pub(super) const HIST_MERGE: u64 = 1;

/// Iterations a reduction nest whose carry holds a float narrower than
/// `f64` folds from the neutral carry before combining them into its
/// running total (`reduce_block` of `arr_nest`; the interpreter's
/// `REDUCE_BLOCK`): a long `f32` sum stays accurate. Other reductions run
/// a chunk at once: a block restarts the body's streams, and in blocks of
/// 16,384 a sum of squares (summed in `f64`) lost 5% of its bandwidth.
const REDUCE_BLOCK: i64 = 16384;

/// The C names of the constants above, for `descriptor_checks`.
const C_CONSTANTS: [(&str, u64); 7] = [
    ("ARR_NEST_MAP", KIND_MAP),
    ("ARR_NEST_REDUCE", KIND_REDUCE),
    ("ARR_NEST_TWO_PHASE", KIND_TWO_PHASE),
    ("ARR_NEST_HIST", KIND_HIST),
    ("ARR_NEST_SEQUENTIAL", KIND_SEQUENTIAL),
    ("ARR_HIST_ALLOC", HIST_ALLOC),
    ("ARR_HIST_MERGE", HIST_MERGE),
];

#[derive(Clone, Copy)]
enum FieldType {
    Ptr,
    I64,
    I32,
}

/// `arr_nest` in arr_parallel.h, field by field: the code generator's side
/// of the descriptor. `descriptor_checks` has the C compiler compare it
/// with the header's at every link.
const NEST_FIELDS: [(&str, FieldType); 12] = [
    ("body", FieldType::Ptr),
    ("totals", FieldType::Ptr),
    ("combine", FieldType::Ptr),
    ("combine_prefix", FieldType::Ptr),
    ("private_body", FieldType::Ptr),
    ("hist", FieldType::Ptr),
    ("carry_size", FieldType::I64),
    ("grain", FieldType::I64),
    ("reduce_block", FieldType::I64),
    ("bins", FieldType::I64),
    ("kind", FieldType::I32),
    ("has_inner_nests", FieldType::I32),
];

/// `reduce_block` of a nest of `kind` carrying `fields`: `REDUCE_BLOCK`
/// where a reduction carries a float narrower than `f64`, else 0 (a chunk
/// at once).
fn reduce_block(ctx: &Context, kind: u64, fields: &[BasicTypeEnum]) -> i64 {
    let narrow_float =
        |t: &BasicTypeEnum| t.is_float_type() && t.into_float_type() != ctx.f64_type();
    if kind == KIND_REDUCE && fields.iter().any(narrow_float) {
        REDUCE_BLOCK
    } else {
        0
    }
}

/// The LLVM type of `arr_nest`.
fn descriptor_type(ctx: &Context) -> StructType<'_> {
    let fields: Vec<BasicTypeEnum> = NEST_FIELDS
        .iter()
        .map(|(_, t)| match t {
            FieldType::Ptr => ctx.ptr_type(AddressSpace::default()).into(),
            FieldType::I64 => ctx.i64_type().into(),
            FieldType::I32 => ctx.i32_type().into(),
        })
        .collect();
    ctx.struct_type(&fields, false)
}

/// C for the glue that stops the link unless arr_parallel.h lays out
/// `arr_nest` as the generated code does on `machine` (size, offset and
/// size of every field) and numbers its constants alike.
pub(super) fn descriptor_checks(machine: &TargetMachine) -> Result<String, CodegenError> {
    let ctx = Context::create();
    let ty = descriptor_type(&ctx);
    let data = machine.get_target_data();
    let mut out = String::from(
        "\n/* The code generator's layout of arr_nest and its constants. */\n\
         #include \"arr_parallel.h\"\n#include <stddef.h>\n",
    );
    let size = data.get_abi_size(&ty);
    out.push_str(&format!(
        "_Static_assert(sizeof(arr_nest) == {size}, \"arr_nest: size\");\n"
    ));
    for (k, (name, _)) in NEST_FIELDS.iter().enumerate() {
        let offset = data
            .offset_of_element(&ty, k as u32)
            .ok_or_else(|| CodegenError::Internal(format!("arr_nest has no field {k}")))?;
        let field = ty
            .get_field_type_at_index(k as u32)
            .ok_or_else(|| CodegenError::Internal(format!("arr_nest has no field {k}")))?;
        let field_size = data.get_abi_size(&field);
        out.push_str(&format!(
            "_Static_assert(offsetof(arr_nest, {name}) == {offset} && \
             sizeof(((arr_nest *)0)->{name}) == {field_size}, \"arr_nest.{name}\");\n"
        ));
    }
    for (name, value) in C_CONSTANTS {
        out.push_str(&format!("_Static_assert({name} == {value}, \"{name}\");\n"));
    }
    Ok(out)
}

/// Where a nest's free variables and carried values live in memory.
pub(super) struct Layout<'ctx> {
    pub(super) free: Vec<(VarId, Val<'ctx>)>,
    pub(super) env_ty: StructType<'ctx>,
    pub(super) carry_ty: StructType<'ctx>,
    pub(super) carry_fields: Vec<BasicTypeEnum<'ctx>>,
    /// Per carried value (in `LoopNest::carried` order): first field, count.
    pub(super) carry_slices: Vec<(usize, usize)>,
    /// Histogram nests: the bins arrays, whose data pointers follow the
    /// carried values so that a chunk can be pointed at private bins.
    pub(super) bins: Vec<(VarId, ScalarType)>,
}

/// How a loop function treats histogram bins.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Bins {
    Shared,
    /// Every update is an atomic read-modify-write.
    Atomic,
    /// The bins' pointers come from the carry struct.
    Private,
}

impl<'ctx> Gen<'ctx, '_> {
    pub(super) fn cpu_nest(&mut self, fr: &mut Frame<'ctx>, nest: &LoopNest) -> Res<()> {
        if self.mode.nest_depth > 0 && !self.counts_traffic() {
            if let Some(kernel) = super::outer::outer_kernel(nest) {
                return self.outer_kernel_loop(fr, nest, &kernel);
            }
        }
        let plan = nest
            .plan
            .as_ref()
            .ok_or_else(|| CodegenError::Internal("a loop nest without its plan".into()))?;
        let layout = self.layout(fr, nest)?;
        let caller_block = self.current_block()?;
        let name = format!(
            "{}.loop{}.{}",
            self.prefix,
            self.nests,
            nest.origin.describe("")
        );
        self.nests += 1;
        let bins_mode = match plan.strategy {
            ParPlan::Hist { atomic: true, .. } => Bins::Atomic,
            _ => Bins::Shared,
        };
        let lane_totals = match &plan.strategy {
            ParPlan::TwoPhase { totals } => Some(totals),
            _ => None,
        };
        let body = self.loop_function(
            nest,
            &layout,
            &nest.body,
            &name,
            bins_mode,
            Work::Body {
                shape: &plan.body,
                lane_totals,
            },
            None,
        )?;
        // The exact-errors fallback runs only after an error, at -O0 (no
        // vectorised loop to mark): a stream variant there is dead weight.
        let outputs = match self.exact_fallback {
            true => Vec::new(),
            false => super::stream::streamed_outputs(nest, self.mode.nest_depth),
        };
        let stream = if outputs.is_empty() {
            None
        } else {
            Some(self.loop_function(
                nest,
                &layout,
                &nest.body,
                &format!("{name}.stream"),
                bins_mode,
                Work::Body {
                    shape: &plan.body,
                    lane_totals,
                },
                Some((body, &outputs)),
            )?)
        };
        let null = self.ptr().const_null();
        let mut fns = [null; 5];
        let kind = match &plan.strategy {
            ParPlan::Chunked => KIND_MAP,
            ParPlan::Partials => KIND_REDUCE,
            ParPlan::TwoPhase { totals } => {
                let f = self.loop_function(
                    nest,
                    &layout,
                    totals,
                    &format!("{name}.totals"),
                    Bins::Shared,
                    Work::Totals {
                        shape: plan.totals.as_ref().unwrap_or(&LoopShape::Plain),
                    },
                    None,
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
                        &format!("{name}{}", super::prefetch::PRIVATE_HIST_SUFFIX),
                        Bins::Private,
                        Work::Body {
                            shape: &plan.body,
                            lane_totals: None,
                        },
                        None,
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
        if self.mode.nest_depth > 0 {
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
        let shared_body = match plan.strategy {
            ParPlan::Hist { atomic: false, .. } => null,
            _ => body.as_global_value().as_pointer_value(),
        };
        let shared_body = match stream {
            Some(s) => {
                let mut streamed = outputs.clone();
                streamed.extend(super::stream::streamed_inputs(nest, &outputs));
                self.pick_stream(fr, &streamed, s, shared_body)?
            }
            None => shared_body,
        };
        let has_inner = nest.body.iter().any(holds_nest);
        let descriptor: [BasicValueEnum<'ctx>; NEST_FIELDS.len()] = [
            shared_body.into(),
            fns[0].into(),
            fns[1].into(),
            fns[2].into(),
            fns[3].into(),
            fns[4].into(),
            layout
                .carry_ty
                .size_of()
                .ok_or_else(|| CodegenError::Internal("a carry struct without a size".into()))?
                .into(),
            self.const_i64(plan.grain.unwrap_or(1)).into(),
            self.const_i64(reduce_block(self.ctx, kind, &layout.carry_fields))
                .into(),
            bins_count.into(),
            self.ctx.i32_type().const_int(kind, false).into(),
            self.ctx
                .i32_type()
                .const_int(u64::from(has_inner), false)
                .into(),
        ];
        let desc_ty = descriptor_type(self.ctx);
        let desc_slot = self.entry_alloca(fr.func, desc_ty.into())?;
        self.store_fields(desc_ty, desc_slot, 0, &descriptor)?;
        let run_nest = self.runtime(RuntimeFn::RunNest);
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
                let x = finals.next().ok_or(CodegenError::Internal(
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
                .ok_or(CodegenError::Internal("compaction without a count".into()))?;
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
            return Err(CodegenError::Internal(
                "function without an entry block".into(),
            ));
        };
        match entry.get_first_instruction() {
            Some(i) => b.position_before(&i),
            None => b.position_at_end(entry),
        }
        let in_parallel = self.runtime(RuntimeFn::InParallel);
        let flag = b
            .build_call(in_parallel, &[], "")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| CodegenError::Internal("arr_in_parallel returns nothing".into()))?
            .into_int_value();
        let zero = self.ctx.i32_type().const_zero();
        let flag = b.build_int_compare(IntPredicate::NE, flag, zero, "in_parallel")?;
        fr.in_parallel = Some(flag);
        Ok(flag)
    }

    pub(super) fn layout(&self, fr: &Frame<'ctx>, nest: &LoopNest) -> Res<Layout<'ctx>> {
        let free: Vec<(VarId, Val<'ctx>)> = nest
            .free_vars()
            .into_iter()
            .map(|v| Ok((v, self.val(fr, &Atom::Var(v))?)))
            .collect::<Res<_>>()?;
        let mut env_fields: Vec<BasicTypeEnum> = Vec::new();
        for (_, val) in &free {
            env_fields.extend(self.field_types(crate::codegen::emit::val_type(val)));
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

    pub(super) fn store_fields(
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

    pub(super) fn load_fields(
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
    pub(super) fn outlined(
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
            for ty in self.field_types(crate::codegen::emit::val_type(val)) {
                let p = self
                    .builder
                    .build_struct_gep(layout.env_ty, env, field, "")?;
                field += 1;
                loaded.push(self.builder.build_load(ty, p, "")?);
            }
            let value = match self.mode.facts.get(v) {
                // Known where the enclosing peeled loop calls this function.
                Some(&known) => {
                    let c = self.ctx.bool_type().const_int(u64::from(known), false);
                    Val::Scalar(c.into(), ScalarType::Bool)
                }
                None => self.val_of_fields(crate::codegen::emit::val_type(val), &loaded)?,
            };
            frame.vals.insert(*v, value);
        }
        Ok((func, frame))
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

impl<'ctx> Gen<'ctx, '_> {
    /// The stream variant `stream` when the arrays `streamed` (a map
    /// nest's outputs and the inputs it reads in order) take at least
    /// `stream::stream_threshold_bytes` together, else `plain`.
    fn pick_stream(
        &mut self,
        fr: &mut Frame<'ctx>,
        streamed: &[VarId],
        stream: FunctionValue<'ctx>,
        plain: PointerValue<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        let mut bytes = self.const_i64(0);
        for a in streamed {
            if let Val::Array { elem, shape, .. } = self.val(fr, &Atom::Var(*a))? {
                let count = self.product(&shape)?;
                let size = self.const_i64(elem.bytes() as i64);
                let b = self.builder.build_int_mul(count, size, "")?;
                bytes = self.builder.build_int_add(bytes, b, "")?;
            }
        }
        let threshold = self.const_i64(super::stream::stream_threshold_bytes() as i64);
        let big = self
            .builder
            .build_int_compare(IntPredicate::UGE, bytes, threshold, "")?;
        let chosen = self.builder.build_select(
            big,
            stream.as_global_value().as_pointer_value(),
            plain,
            "",
        )?;
        Ok(chosen.into_pointer_value())
    }
}

pub(super) fn carried_field_count(layout: &Layout) -> usize {
    layout.carry_slices.iter().map(|(_, n)| n).sum()
}

pub(super) fn missing_param() -> crate::codegen::CodegenError {
    CodegenError::Internal("outlined function without its parameters".into())
}

pub(super) fn param_ptr(func: FunctionValue, k: u32) -> Res<PointerValue> {
    Ok(func
        .get_nth_param(k)
        .ok_or_else(missing_param)?
        .into_pointer_value())
}
