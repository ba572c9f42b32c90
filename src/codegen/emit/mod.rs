//! Target-neutral emission: a `loopy::ir::Program` to an LLVM module (not yet
//! optimised), with everything a target does differently asked of its
//! `Backend` (see `codegen::backend`): loop nests, run-time errors,
//! allocation.
//!
//! Entry point `k` becomes `void arr_entry_k(params..., results...)`: a
//! scalar parameter is passed by value (bool as `i8`), an array as its data
//! pointer followed by one `i64` per dimension; each scalar result is a
//! pointer to store it at, each array result a pointer to its data slot and a
//! pointer to its `int64_t` shape. `glue` writes the matching C side.
//!
//! Booleans are `i1` in registers and `i8` in memory.
//!
//! Files: this one holds `Gen` (the emitter's state), values and memory
//! addressing; `entry` the entry points; `stmt` statements and sequential
//! loops; `scalar` scalar expressions; `vmath` vectorisable math functions;
//! `atomic` atomic histogram updates; `traffic` `--count-traffic`.

pub(crate) mod atomic;
mod entry;
mod scalar;
mod stmt;
mod traffic;
mod vmath;

pub(crate) use atomic::Cas;
pub(crate) use traffic::Counter;

use super::backend::{Backend, Trap};
use super::CodegenError;
use crate::core::ir::{Atom, SrcLoc, Type, Var, VarId};
use crate::loopy::ir::*;
use crate::types::{Const, ScalarType};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum, IntType};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, FastMathFlags, FunctionValue, IntValue,
    PointerValue,
};
use inkwell::{AddressSpace, IntPredicate};
use std::collections::{HashMap, HashSet};

pub(crate) type Res<T> = Result<T, CodegenError>;

pub(crate) fn err<T>(msg: impl Into<String>) -> Res<T> {
    Err(CodegenError::Internal(msg.into()))
}

/// The value of a loopy variable.
#[derive(Clone, Debug)]
pub(crate) enum Val<'ctx> {
    Scalar(BasicValueEnum<'ctx>, ScalarType),
    Array {
        ptr: PointerValue<'ctx>,
        elem: ScalarType,
        shape: Vec<IntValue<'ctx>>,
    },
}

pub(crate) fn val_type(val: &Val) -> Type {
    match val {
        Val::Scalar(_, t) => Type::Scalar(*t),
        Val::Array { elem, shape, .. } => Type::Array(*elem, shape.len()),
    }
}

/// Binds the dimension variables of an array value.
pub(crate) fn bind_shape<'ctx>(fr: &mut Frame<'ctx>, val: &Val<'ctx>, shape: &[Var]) {
    if let Val::Array { shape: dims, .. } = val {
        for (d, v) in dims.iter().zip(shape) {
            fr.vals
                .insert(v.id, Val::Scalar((*d).into(), ScalarType::I64));
        }
    }
}

/// The function being generated and the values of the variables in it.
pub(crate) struct Frame<'ctx> {
    pub(crate) func: FunctionValue<'ctx>,
    pub(crate) vals: HashMap<VarId, Val<'ctx>>,
    /// `arr_in_parallel() != 0`, read once in the entry block of a loop
    /// function that calls inner nests (it cannot change during a call).
    pub(crate) in_parallel: Option<IntValue<'ctx>>,
}

pub(crate) struct Gen<'ctx, 'p> {
    pub(crate) ctx: &'ctx Context,
    pub(crate) module: Module<'ctx>,
    pub(crate) builder: Builder<'ctx>,
    /// What the target does its own way.
    pub(crate) backend: &'p dyn Backend,
    files: &'p [String],
    locs: HashMap<SrcLoc, PointerValue<'ctx>>,
    /// The condition texts of the module's assertions, numbered for
    /// `Trap::AssertCondition`.
    conditions: Vec<std::sync::Arc<str>>,
    /// Name prefix of the entry being generated and its count of nests.
    pub(crate) prefix: String,
    /// Entries named as the exact-errors fallback's (`entry_symbol`).
    pub(crate) exact_fallback: bool,
    pub(crate) nests: usize,
    /// `--count-traffic`: instrument memory accesses (see `traffic`).
    count_traffic: bool,
    /// `--fast-math` (see `allow_float_rewrites`).
    fast_math: bool,
    /// `--strict-fp` (see `allow_contraction`).
    strict_fp: bool,
    /// The buffers of the `MemSpace::Thread` allocations of the loop
    /// function being generated (see `cpu::loops`): their `Alloc` takes
    /// the buffer and their `Free` does nothing.
    pub(crate) thread_buffers: HashMap<VarId, PointerValue<'ctx>>,
    /// The current entry's cluster reduction results, when counting.
    traffic_scalars: HashSet<VarId>,
    /// The current entry's arrays in host memory (`loopy::memory::host_arrays`):
    /// host code reads, writes and frees them directly, whatever the
    /// backend's memory.
    pub(crate) host_arrays: HashSet<VarId>,
    /// How the statements being generated are emitted.
    pub(crate) mode: Mode,
    /// The compare-and-swap update of an atomic bin that is open (see
    /// `atomic`).
    pub(crate) cas: Option<Cas<'ctx>>,
    /// A GPU target's device module and kernels (`codegen::gpu`).
    pub(crate) device: Option<crate::codegen::gpu::Device<'ctx>>,
}

/// How the statements being generated are emitted: the default outside loop
/// nests; a backend sets it for the loop bodies it generates, with
/// `Gen::with_mode`, which restores the previous mode afterwards.
#[derive(Clone, Default)]
pub(crate) struct Mode {
    /// How many outlined loop functions enclose the code.
    pub(crate) nest_depth: usize,
    /// No traffic counting (a scan's totals function, whose reads the
    /// body's pass counts).
    pub(crate) uncounted: bool,
    /// The histogram bins every update of which is atomic, one array per
    /// histogram (see `atomic`).
    pub(crate) atomic_bins: Vec<VarId>,
    /// The float reduction accumulators of the body and the values
    /// computed from them: their operations may be reassociated.
    pub(crate) reassociable: HashSet<VarId>,
    /// Float `max`/`min` reduction accumulators that are never NaN (their
    /// chunks start from a constant that is not NaN, and each iteration's
    /// value is the `max`/`min` of the accumulator and an element), mapped
    /// to that step's variable: see `Gen::nan_free_extremum`.
    pub(crate) nan_free: HashMap<VarId, VarId>,
    /// Reads proven in range for the loop (by a test before it): their
    /// checks are left out.
    pub(crate) unchecked: HashSet<VarId>,
    /// Conditions known for the iterations being generated (the middle of
    /// a peeled loop): their `if`s take one branch.
    pub(crate) facts: HashMap<VarId, bool>,
    /// Float sums on a sequential loop's carried chain (`carried_sums`):
    /// never contracted into fused multiply-adds.
    pub(crate) carried_sums: HashSet<VarId>,
}

/// Builds the module for `program`, which must pass `loopy::check`, with
/// `backend` generating what is the target's own.
pub(crate) fn build<'ctx>(
    ctx: &'ctx Context,
    program: &Program,
    backend: &dyn Backend,
    opts: &crate::codegen::CodegenOptions,
    machine: &inkwell::targets::TargetMachine,
    device: Option<crate::codegen::gpu::Device<'ctx>>,
) -> Res<(Module<'ctx>, Option<crate::codegen::gpu::Device<'ctx>>)> {
    let module = ctx.create_module("arr");
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let mut gen = Gen {
        ctx,
        module,
        builder: ctx.create_builder(),
        backend,
        files: &program.files,
        locs: HashMap::new(),
        conditions: Vec::new(),
        prefix: String::new(),
        nests: 0,
        count_traffic: opts.count_traffic,
        fast_math: opts.fast_math,
        strict_fp: opts.strict_fp,
        thread_buffers: HashMap::new(),
        traffic_scalars: HashSet::new(),
        host_arrays: HashSet::new(),
        mode: Mode::default(),
        cas: None,
        device,
        exact_fallback: opts.exact_fallback,
    };
    for (k, f) in program.functions.iter().enumerate() {
        gen.entry(k, f)?;
    }
    gen.module
        .verify()
        .map_err(|e| CodegenError::Internal(format!("invalid LLVM module: {e}")))?;
    Ok((gen.module, gen.device))
}

/// `--fast-math` on one of the program's own float operations: LLVM may
/// reassociate it, contract a multiply and an add into a fused
/// multiply-add, divide by a reciprocal and ignore the sign of zero. It
/// may not assume away NaN or infinity, so `isnan`, `isinf` and `f32.inf`
/// keep their meaning; the vectorised math functions (`vmath`) are built
/// apart and keep their documented accuracy.
fn allow_float_rewrites(value: BasicValueEnum) -> Res<()> {
    let Some(inst) = inkwell::values::BasicValue::as_instruction_value(&value) else {
        return Ok(());
    };
    if !inst.can_use_fast_math_flags() {
        return Ok(());
    }
    let rewrites = FastMathFlags::AllowReassoc
        | FastMathFlags::AllowContract
        | FastMathFlags::AllowReciprocal
        | FastMathFlags::NoSignedZeros;
    let flags = inst
        .get_fast_math_flags()
        .map_err(|e| CodegenError::Internal(format!("fast-math flags: {e}")))?;
    inst.set_fast_math_flags(flags | rewrites)
        .map_err(|e| CodegenError::Internal(format!("fast-math flags: {e}")))
}

/// The default on one of the program's own float additions, subtractions
/// and multiplications: LLVM may contract a multiply feeding an add or
/// subtract into a fused multiply-add (LANGUAGE.md section 6), as C
/// compilers do; `--strict-fp` leaves the flag off.
fn allow_contraction(value: BasicValueEnum) -> Res<()> {
    match inkwell::values::BasicValue::as_instruction_value(&value) {
        Some(inst) => allow_contraction_of(inst),
        None => Ok(()),
    }
}

/// `allow_contraction` on an instruction (any other than a float add,
/// subtract or multiply is left alone).
fn allow_contraction_of(inst: inkwell::values::InstructionValue) -> Res<()> {
    use inkwell::values::InstructionOpcode as Op;
    if !matches!(inst.get_opcode(), Op::FAdd | Op::FSub | Op::FMul) {
        return Ok(());
    }
    let flags = inst
        .get_fast_math_flags()
        .map_err(|e| CodegenError::Internal(format!("fast-math flags: {e}")))?;
    inst.set_fast_math_flags(flags | FastMathFlags::AllowContract)
        .map_err(|e| CodegenError::Internal(format!("fast-math flags: {e}")))
}

/// The float additions and subtractions of `lp`'s body (outside nested
/// blocks) that take a scalar float parameter of the loop, or such a sum,
/// as an operand: the chain an accumulator `acc + x * y` carries from one
/// iteration to the next. A fused multiply-add there puts its whole latency
/// on that chain (4 cycles on AMD Zen 3 to 5 and Intel since Skylake),
/// against an add's 2 to 4 with the multiply off the chain: a CSR row's
/// `acc + vals[k] * x[cols[k]]` takes 4 cycles per element contracted and
/// 3 not (`llvm-mca -mcpu=znver5`; spmv). A loop with a constant trip count
/// is left alone: LLVM may unroll it and vectorise the loop around it,
/// whose iterations overlap, and then the fused form is the faster one.
pub(crate) fn carried_sums(lp: &crate::loopy::ir::SeqLoop) -> HashSet<VarId> {
    use crate::loopy::ir::{ScalarExp, SeqForm, Stmt};
    let mut chain: HashSet<VarId> = HashSet::new();
    if matches!(
        &lp.form,
        SeqForm::For {
            bound: Atom::Const(_),
            ..
        }
    ) {
        return chain;
    }
    let floats = |t: Type| t.rank() == 0 && t.elem().is_float();
    let params: HashSet<VarId> = lp
        .params
        .iter()
        .filter(|p| floats(p.var.ty))
        .map(|p| p.var.id)
        .collect();
    for stmt in &lp.body {
        let Stmt::Let {
            var,
            exp: ScalarExp::BinOp(crate::core::ir::BinOp::Add | crate::core::ir::BinOp::Sub, a, b),
            ..
        } = stmt
        else {
            continue;
        };
        let on = |x: &Atom| matches!(x, Atom::Var(v) if params.contains(v) || chain.contains(v));
        if floats(var.ty) && (on(a) || on(b)) {
            chain.insert(var.id);
        }
    }
    chain
}

/// The symbol of entry point number `k`.
/// The C symbol of entry `k`: the program's own, or (`exact`) the entry of
/// the exact-errors fallback (`CodegenOptions::exact_fallback`).
pub(crate) fn entry_symbol(k: usize, exact: bool) -> String {
    if exact {
        format!("arr_exact_entry_{k}")
    } else {
        format!("arr_entry_{k}")
    }
}

impl From<inkwell::builder::BuilderError> for CodegenError {
    fn from(e: inkwell::builder::BuilderError) -> Self {
        CodegenError::Internal(format!("LLVM builder: {e}"))
    }
}

impl<'ctx> Gen<'ctx, '_> {
    pub(crate) fn reg_type(&self, t: ScalarType) -> BasicTypeEnum<'ctx> {
        match t {
            ScalarType::Bool => self.ctx.bool_type().into(),
            ScalarType::F16 => self.ctx.f16_type().into(),
            ScalarType::F32 => self.ctx.f32_type().into(),
            ScalarType::F64 => self.ctx.f64_type().into(),
            ScalarType::I8 | ScalarType::U8 => self.ctx.i8_type().into(),
            ScalarType::I16 | ScalarType::U16 => self.ctx.i16_type().into(),
            ScalarType::I32 | ScalarType::U32 => self.ctx.i32_type().into(),
            ScalarType::I64 | ScalarType::U64 => self.ctx.i64_type().into(),
        }
    }

    /// The flags a float operation of the program gets (see `Stmt::Let` in
    /// `stmt`): every rewrite with `--fast-math`, contraction into fused
    /// multiply-adds unless `--strict-fp`.
    pub(crate) fn float_step_flags(&self, v: BasicValueEnum<'ctx>) -> Res<()> {
        if self.fast_math {
            allow_float_rewrites(v)
        } else if !self.strict_fp {
            allow_contraction(v)
        } else {
            Ok(())
        }
    }

    /// Whether memory accesses are counted (`--count-traffic`).
    pub(crate) fn counts_traffic(&self) -> bool {
        self.count_traffic
    }

    pub(crate) fn mem_type(&self, t: ScalarType) -> BasicTypeEnum<'ctx> {
        match t {
            ScalarType::Bool => self.ctx.i8_type().into(),
            t => self.reg_type(t),
        }
    }

    pub(crate) fn i64(&self) -> IntType<'ctx> {
        self.ctx.i64_type()
    }

    pub(crate) fn ptr(&self) -> inkwell::types::PointerType<'ctx> {
        self.ctx.ptr_type(AddressSpace::default())
    }

    pub(crate) fn const_i64(&self, v: i64) -> IntValue<'ctx> {
        self.i64().const_int(v as u64, true)
    }

    pub(crate) fn constant(&self, c: Const) -> BasicValueEnum<'ctx> {
        let t = c.scalar_type();
        match c {
            // Exact: every half is a double.
            Const::F16(v) => self.ctx.f16_type().const_float(v.to_f64()).into(),
            Const::F32(v) => self.ctx.f32_type().const_float(v as f64).into(),
            Const::F64(v) => self.ctx.f64_type().const_float(v).into(),
            Const::Bool(b) => self.ctx.bool_type().const_int(b as u64, false).into(),
            _ => {
                let v = c.as_i128().unwrap_or(0);
                self.reg_type(t)
                    .into_int_type()
                    .const_int(v as u64, false)
                    .into()
            }
        }
    }

    pub(crate) fn val(&self, fr: &Frame<'ctx>, a: &Atom) -> Res<Val<'ctx>> {
        match a {
            Atom::Const(c) => Ok(Val::Scalar(self.constant(*c), c.scalar_type())),
            Atom::Var(v) => match fr.vals.get(v) {
                Some(val) => Ok(val.clone()),
                None => err(format!("variable v_{} has no value", v.0)),
            },
        }
    }

    pub(crate) fn scalar(
        &self,
        fr: &Frame<'ctx>,
        a: &Atom,
    ) -> Res<(BasicValueEnum<'ctx>, ScalarType)> {
        match self.val(fr, a)? {
            Val::Scalar(v, t) => Ok((v, t)),
            Val::Array { .. } => err("array used as a scalar"),
        }
    }

    pub(crate) fn int(&self, fr: &Frame<'ctx>, a: &Atom) -> Res<IntValue<'ctx>> {
        match self.scalar(fr, a)?.0 {
            BasicValueEnum::IntValue(v) => Ok(v),
            _ => err("float used as an integer"),
        }
    }

    pub(crate) fn array(
        &self,
        fr: &Frame<'ctx>,
        v: VarId,
    ) -> Res<(PointerValue<'ctx>, ScalarType, Vec<IntValue<'ctx>>)> {
        match self.val(fr, &Atom::Var(v))? {
            Val::Array { ptr, elem, shape } => Ok((ptr, elem, shape)),
            Val::Scalar(..) => err("scalar used as an array"),
        }
    }

    /// An index of any integer type as `i64`.
    pub(crate) fn index(&self, fr: &Frame<'ctx>, a: &Atom) -> Res<IntValue<'ctx>> {
        let (v, t) = self.scalar(fr, a)?;
        let BasicValueEnum::IntValue(v) = v else {
            return err("float index");
        };
        Ok(if t.bits() == 64 && t != ScalarType::Bool {
            v
        } else if t.is_signed() {
            self.builder.build_int_s_extend(v, self.i64(), "")?
        } else {
            self.builder.build_int_z_extend(v, self.i64(), "")?
        })
    }

    /// "FILE:LINE:COL" for `loc`, as run-time errors print it.
    pub(crate) fn loc_text(&self, loc: SrcLoc) -> String {
        let file = self
            .files
            .get(loc.file as usize)
            .map(String::as_str)
            .unwrap_or("<unknown>");
        format!("{file}:{}:{}", loc.line, loc.col)
    }

    /// The private C string "FILE:LINE:COL" for `loc`.
    pub(crate) fn loc_string(&mut self, loc: SrcLoc) -> PointerValue<'ctx> {
        if let Some(p) = self.locs.get(&loc) {
            return *p;
        }
        let text = self.loc_text(loc);
        let p = self.c_string(&text, &format!("loc.{}", self.locs.len()));
        self.locs.insert(loc, p);
        p
    }

    /// The number of an assertion's condition text (`Trap::AssertCondition`).
    pub(crate) fn condition_number(&mut self, text: &std::sync::Arc<str>) -> usize {
        match self.conditions.iter().position(|t| t == text) {
            Some(i) => i,
            None => {
                self.conditions.push(text.clone());
                self.conditions.len() - 1
            }
        }
    }

    /// The condition text numbered `number` by `condition_number`.
    pub(crate) fn condition(&self, number: usize) -> Res<std::sync::Arc<str>> {
        self.conditions
            .get(number)
            .cloned()
            .ok_or_else(|| CodegenError::Internal(format!("no condition text {number}")))
    }

    /// A private C string holding `text`.
    pub(crate) fn c_string(&self, text: &str, name: &str) -> PointerValue<'ctx> {
        let init = self.ctx.const_string(text.as_bytes(), true);
        let global = self.module.add_global(init.get_type(), None, name);
        global.set_initializer(&init);
        global.set_constant(true);
        global.set_linkage(Linkage::Private);
        global.set_unnamed_addr(true);
        global.as_pointer_value()
    }

    /// Branches to a block that reports `trap` with its `operands` and
    /// `loc` (as the backend does) when `cond` holds.
    pub(crate) fn trap_if(
        &mut self,
        fr: &Frame<'ctx>,
        cond: IntValue<'ctx>,
        trap: Trap,
        operands: &[IntValue<'ctx>],
        loc: SrcLoc,
    ) -> Res<()> {
        let fail = self.ctx.append_basic_block(fr.func, "fail");
        let cont = self.ctx.append_basic_block(fr.func, "ok");
        self.builder.build_conditional_branch(cond, fail, cont)?;
        self.builder.position_at_end(fail);
        let backend = self.backend;
        backend.trap(self, trap, operands, loc)?;
        self.builder.position_at_end(cont);
        Ok(())
    }

    /// Memory for an array of `bytes` bytes in `space` (see
    /// `Backend::alloc`).
    pub(crate) fn alloc_bytes(
        &self,
        space: MemSpace,
        bytes: IntValue<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        self.backend.alloc(self, space, bytes)
    }

    pub(crate) fn free(&self, ptr: PointerValue<'ctx>) -> Res<()> {
        self.backend.free(self, ptr)
    }

    /// A loop nest, as the backend runs it.
    pub(crate) fn nest(&mut self, fr: &mut Frame<'ctx>, nest: &LoopNest) -> Res<()> {
        let backend = self.backend;
        backend.nest(self, fr, nest)
    }

    /// Runs `f` in `mode`, restoring the current mode afterwards.
    pub(crate) fn with_mode<T>(
        &mut self,
        mode: Mode,
        f: impl FnOnce(&mut Self) -> Res<T>,
    ) -> Res<T> {
        let saved = std::mem::replace(&mut self.mode, mode);
        let result = f(self);
        self.mode = saved;
        result
    }

    /// `v`, or 0 where it is negative: a width, count or size to loop over or
    /// allocate.
    pub(crate) fn max0(&self, v: IntValue<'ctx>) -> Res<IntValue<'ctx>> {
        let zero = self.const_i64(0);
        let neg = self
            .builder
            .build_int_compare(IntPredicate::SLT, v, zero, "")?;
        Ok(self
            .builder
            .build_select(neg, zero, v, "")?
            .into_int_value())
    }

    pub(crate) fn product(&self, dims: &[IntValue<'ctx>]) -> Res<IntValue<'ctx>> {
        let mut n = self.const_i64(1);
        for d in dims {
            n = self.builder.build_int_mul(n, *d, "")?;
        }
        Ok(n)
    }

    /// Pointer to the element or row at `index` of a row-major array.
    pub(crate) fn offset_ptr(
        &self,
        ptr: PointerValue<'ctx>,
        elem: ScalarType,
        shape: &[IntValue<'ctx>],
        index: &[IntValue<'ctx>],
    ) -> Res<PointerValue<'ctx>> {
        let Some(row_shape) = shape.get(index.len()..) else {
            return err("too many indices");
        };
        let mut linear = self.const_i64(0);
        for (i, dim) in index.iter().zip(shape) {
            let scaled = self.builder.build_int_mul(linear, *dim, "")?;
            linear = self.builder.build_int_add(scaled, *i, "")?;
        }
        let row = self.product(row_shape)?;
        let linear = self.builder.build_int_mul(linear, row, "")?;
        // Safety: the index is in range (checked or proved by the loop bound).
        Ok(unsafe {
            self.builder
                .build_in_bounds_gep(self.mem_type(elem), ptr, &[linear], "")?
        })
    }

    /// Converts `index` to `i64` and checks each against its dimension when
    /// `check` is given.
    pub(crate) fn checked_index(
        &mut self,
        fr: &Frame<'ctx>,
        shape: &[IntValue<'ctx>],
        index: &[Atom],
        check: Option<SrcLoc>,
    ) -> Res<Vec<IntValue<'ctx>>> {
        if index.len() > shape.len() {
            return err("too many indices");
        }
        let mut out = Vec::new();
        for (a, dim) in index.iter().zip(shape) {
            let i = self.index(fr, a)?;
            if let Some(loc) = check {
                let bad = self
                    .builder
                    .build_int_compare(IntPredicate::UGE, i, *dim, "")?;
                self.trap_if(fr, bad, Trap::Bounds, &[i, *dim], loc)?;
            }
            out.push(i);
        }
        Ok(out)
    }

    /// Allocas go in the entry block, so loops do not grow the stack.
    pub(crate) fn entry_alloca(
        &self,
        func: FunctionValue<'ctx>,
        ty: BasicTypeEnum<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        let b = self.ctx.create_builder();
        let Some(entry) = func.get_first_basic_block() else {
            return err("function without an entry block");
        };
        match entry.get_first_instruction() {
            Some(i) => b.position_before(&i),
            None => b.position_at_end(entry),
        }
        Ok(b.build_alloca(ty, "")?)
    }

    pub(crate) fn current_block(&self) -> Res<BasicBlock<'ctx>> {
        self.builder
            .get_insert_block()
            .ok_or(CodegenError::Internal("builder has no position".into()))
    }

    pub(crate) fn load_from_mem(
        &self,
        v: BasicValueEnum<'ctx>,
        t: ScalarType,
    ) -> Res<BasicValueEnum<'ctx>> {
        Ok(if t == ScalarType::Bool {
            self.builder
                .build_int_compare(
                    IntPredicate::NE,
                    v.into_int_value(),
                    self.ctx.i8_type().const_zero(),
                    "",
                )?
                .into()
        } else {
            v
        })
    }

    pub(crate) fn store_to_mem(
        &self,
        v: BasicValueEnum<'ctx>,
        t: ScalarType,
    ) -> Res<BasicValueEnum<'ctx>> {
        Ok(if t == ScalarType::Bool {
            self.builder
                .build_int_z_extend(v.into_int_value(), self.ctx.i8_type(), "")?
                .into()
        } else {
            v
        })
    }

    /// The fields a value occupies in an environment or carry struct:
    /// a scalar is one, an array its data pointer and one `i64` per dimension.
    pub(crate) fn fields(&self, val: &Val<'ctx>) -> Vec<BasicValueEnum<'ctx>> {
        match val {
            Val::Scalar(v, _) => vec![*v],
            Val::Array { ptr, shape, .. } => {
                let mut out: Vec<BasicValueEnum<'ctx>> = vec![(*ptr).into()];
                out.extend(shape.iter().map(|d| BasicValueEnum::from(*d)));
                out
            }
        }
    }

    /// The field types of a value of type `ty`.
    pub(crate) fn field_types(&self, ty: Type) -> Vec<BasicTypeEnum<'ctx>> {
        match ty {
            Type::Scalar(t) => vec![self.reg_type(t)],
            Type::Array(_, rank) => {
                let mut out: Vec<BasicTypeEnum<'ctx>> = vec![self.ptr().into()];
                out.extend((0..rank).map(|_| BasicTypeEnum::from(self.i64())));
                out
            }
        }
    }

    /// A value of type `ty` from its fields.
    pub(crate) fn val_of_fields(
        &self,
        ty: Type,
        fields: &[BasicValueEnum<'ctx>],
    ) -> Res<Val<'ctx>> {
        match (ty, fields.split_first()) {
            (Type::Scalar(t), Some((v, _))) => Ok(Val::Scalar(*v, t)),
            (Type::Array(elem, _), Some((BasicValueEnum::PointerValue(ptr), dims))) => {
                Ok(Val::Array {
                    ptr: *ptr,
                    elem,
                    shape: dims.iter().map(|d| d.into_int_value()).collect(),
                })
            }
            _ => err("a value does not fit its fields"),
        }
    }
}

impl<'ctx> Gen<'ctx, '_> {
    /// Marks a float operation on a reduction's accumulator as
    /// reassociable, which lets LLVM vectorise the reduction (several
    /// partial sums). The language allows it: a parallel reduce may
    /// reassociate its operator (LANGUAGE.md section 6), and the chunks of
    /// a multicore run already do.
    pub(crate) fn reassociate_reduction_step(
        &mut self,
        var: VarId,
        exp: &crate::loopy::ir::ScalarExp,
        value: BasicValueEnum<'ctx>,
    ) -> Res<()> {
        let crate::loopy::ir::ScalarExp::BinOp(_, a, b) = exp else {
            return Ok(());
        };
        let on_chain = |x: &Atom| matches!(x, Atom::Var(v) if self.mode.reassociable.contains(v));
        if !on_chain(a) && !on_chain(b) {
            return Ok(());
        }
        self.mode.reassociable.insert(var);
        if let Some(inst) = value.as_instruction_value() {
            if inst.can_use_fast_math_flags() {
                inst.set_fast_math_flags(FastMathFlags::AllowReassoc)
                    .map_err(|e| CodegenError::Internal(format!("fast-math flags: {e}")))?;
            }
        }
        Ok(())
    }

    /// A step `acc' = max acc x` (or `min`) of a float reduction whose
    /// accumulator is never NaN (`Mode::nan_free`), as `maximum(acc, x')`
    /// with `x'` the element, or the operator's identity (-inf, +inf) when
    /// the element is NaN: the same value as `maxnum`'s (which returns the
    /// operand that is not NaN), except that `maximum` orders -0 below +0,
    /// one of the two answers `maxnum` allows. LLVM vectorises a reduction
    /// over `maximum` but not over `maxnum` (it would need `nnan`).
    pub(crate) fn nan_free_extremum(
        &mut self,
        fr: &Frame<'ctx>,
        var: VarId,
        exp: &ScalarExp,
    ) -> Res<Option<(BasicValueEnum<'ctx>, ScalarType)>> {
        let ScalarExp::BinOp(
            op @ (crate::core::ir::BinOp::Max | crate::core::ir::BinOp::Min),
            a,
            b,
        ) = exp
        else {
            return Ok(None);
        };
        let is_acc =
            |x: &Atom| matches!(x, Atom::Var(v) if self.mode.nan_free.get(v) == Some(&var));
        let (acc, elem) = match (is_acc(a), is_acc(b)) {
            (true, _) => (a, b),
            (false, true) => (b, a),
            (false, false) => return Ok(None),
        };
        let (accv, t) = self.scalar(fr, acc)?;
        let (x, _) = self.scalar(fr, elem)?;
        let (BasicValueEnum::FloatValue(accv), BasicValueEnum::FloatValue(x)) = (accv, x) else {
            return Ok(None);
        };
        let max = matches!(op, crate::core::ir::BinOp::Max);
        let identity = x.get_type().const_float(if max {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
        let nan = self
            .builder
            .build_float_compare(inkwell::FloatPredicate::UNO, x, x, "")?;
        let clean = self.builder.build_select(nan, identity, x, "")?;
        let name = if max { "llvm.maximum" } else { "llvm.minimum" };
        let ty: BasicTypeEnum = x.get_type().into();
        let v = self.call_intrinsic(name, &[ty], &[accv.into(), clean.into()])?;
        Ok(Some((v, t)))
    }
}
