//! `loopy::ir::Program` to an LLVM module (not yet optimised).
//!
//! Entry point `k` becomes `void arr_entry_k(params..., results...)`: a
//! scalar parameter is passed by value (bool as `i8`), an array as its data
//! pointer followed by one `i64` per dimension; each scalar result is a
//! pointer to store it at, each array result a pointer to its data slot and a
//! pointer to its `int64_t` shape. `glue` writes the matching C side.
//!
//! Every loop nest is outlined into `void NAME(ptr env, i64 start, i64 end,
//! ptr carry)`: `env` holds the nest's free variables, `carry` the carried
//! values (initial values in, final values out); the runtime's thread pool
//! calls it on chunks of `[0, width)` and combines the carried values with
//! functions generated from the nest's operators (see `par`).
//!
//! Booleans are `i1` in registers and `i8` in memory.

use super::CodegenError;
use crate::core::ir::{Atom, BinOp, SrcLoc, Type, UnOp, Var, VarId};
use crate::loopy::ir::*;
use crate::types::{Const, ScalarType};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum, FloatType, IntType};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValueEnum, FastMathFlags, FloatValue, FunctionValue, IntValue,
    PointerValue,
};
use inkwell::{AddressSpace, FloatPredicate, IntPredicate};
use std::collections::{HashMap, HashSet};
use traffic::Counter;

mod par;
mod traffic;
mod vmath;

type Res<T> = Result<T, CodegenError>;

impl From<inkwell::builder::BuilderError> for CodegenError {
    fn from(e: inkwell::builder::BuilderError) -> Self {
        CodegenError(format!("LLVM builder: {e}"))
    }
}

fn err<T>(msg: impl Into<String>) -> Res<T> {
    Err(CodegenError(msg.into()))
}

/// The value of a loopy variable.
#[derive(Clone, Debug)]
enum Val<'ctx> {
    Scalar(BasicValueEnum<'ctx>, ScalarType),
    Array {
        ptr: PointerValue<'ctx>,
        elem: ScalarType,
        shape: Vec<IntValue<'ctx>>,
    },
}

fn val_type(val: &Val) -> Type {
    match val {
        Val::Scalar(_, t) => Type::Scalar(*t),
        Val::Array { elem, shape, .. } => Type::Array(*elem, shape.len()),
    }
}

/// Binds the dimension variables of an array value.
fn bind_shape<'ctx>(fr: &mut Frame<'ctx>, val: &Val<'ctx>, shape: &[Var]) {
    if let Val::Array { shape: dims, .. } = val {
        for (d, v) in dims.iter().zip(shape) {
            fr.vals
                .insert(v.id, Val::Scalar((*d).into(), ScalarType::I64));
        }
    }
}

/// The function being generated and the values of the variables in it.
struct Frame<'ctx> {
    func: FunctionValue<'ctx>,
    vals: HashMap<VarId, Val<'ctx>>,
    /// `arr_in_parallel() != 0`, read once in the entry block of a loop
    /// function that calls inner nests (it cannot change during a call).
    in_parallel: Option<inkwell::values::IntValue<'ctx>>,
}

pub(super) struct Gen<'ctx, 'p> {
    ctx: &'ctx Context,
    pub(super) module: Module<'ctx>,
    builder: Builder<'ctx>,
    files: &'p [String],
    locs: HashMap<SrcLoc, PointerValue<'ctx>>,
    /// Name prefix of the entry being generated and its count of nests.
    prefix: String,
    nests: usize,
    /// `--count-traffic`: instrument memory accesses (see `traffic`).
    count_traffic: bool,
    /// `--fast-math` (see `allow_float_rewrites`).
    fast_math: bool,
    /// The current entry's cluster reduction results, when counting.
    traffic_scalars: HashSet<VarId>,
    /// While generating a scan's totals function: no traffic counting.
    counting_suppressed: bool,
    /// The histogram bins updated atomically by the body being generated
    /// (one array per histogram), and the compare-and-swap update of one of
    /// them that is open (see `par`).
    atomic_bins: Vec<VarId>,
    cas: Option<par::Cas<'ctx>>,
    /// How many outlined loop functions enclose the code being generated.
    loop_depth: usize,
    /// The float reduction accumulators of the nest body being generated,
    /// and the values computed from them (see `par`).
    reduction_chain: HashSet<VarId>,
    /// Reads proven in range for the loop being generated (by a test
    /// before it, see `par`): their checks are left out.
    unchecked: HashSet<VarId>,
    /// Conditions on loop indices known for the iterations being generated
    /// (the middle of a peeled loop, see `par`): their `if`s take one branch.
    facts: HashMap<VarId, bool>,
}

/// Builds the module for `program`, which must pass `loopy::check`.
pub(super) fn build<'ctx>(
    ctx: &'ctx Context,
    program: &Program,
    count_traffic: bool,
    fast_math: bool,
) -> Res<Module<'ctx>> {
    let mut gen = Gen {
        ctx,
        module: ctx.create_module("arr"),
        builder: ctx.create_builder(),
        files: &program.files,
        locs: HashMap::new(),
        prefix: String::new(),
        nests: 0,
        count_traffic,
        fast_math,
        traffic_scalars: HashSet::new(),
        counting_suppressed: false,
        atomic_bins: Vec::new(),
        cas: None,
        loop_depth: 0,
        reduction_chain: HashSet::new(),
        unchecked: HashSet::new(),
        facts: HashMap::new(),
    };
    for (k, f) in program.functions.iter().enumerate() {
        gen.entry(k, f)?;
    }
    gen.module
        .verify()
        .map_err(|e| CodegenError(format!("invalid LLVM module: {e}")))?;
    Ok(gen.module)
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
        .map_err(|e| CodegenError(format!("fast-math flags: {e}")))?;
    inst.set_fast_math_flags(flags | rewrites)
        .map_err(|e| CodegenError(format!("fast-math flags: {e}")))
}

/// The symbol of entry point number `k`.
pub(super) fn entry_symbol(k: usize) -> String {
    format!("arr_entry_{k}")
}

impl<'ctx> Gen<'ctx, '_> {
    fn reg_type(&self, t: ScalarType) -> BasicTypeEnum<'ctx> {
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

    fn mem_type(&self, t: ScalarType) -> BasicTypeEnum<'ctx> {
        match t {
            ScalarType::Bool => self.ctx.i8_type().into(),
            t => self.reg_type(t),
        }
    }

    fn i64(&self) -> IntType<'ctx> {
        self.ctx.i64_type()
    }

    fn ptr(&self) -> inkwell::types::PointerType<'ctx> {
        self.ctx.ptr_type(AddressSpace::default())
    }

    fn const_i64(&self, v: i64) -> IntValue<'ctx> {
        self.i64().const_int(v as u64, true)
    }

    fn constant(&self, c: Const) -> BasicValueEnum<'ctx> {
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

    // ---- values -------------------------------------------------------

    fn val(&self, fr: &Frame<'ctx>, a: &Atom) -> Res<Val<'ctx>> {
        match a {
            Atom::Const(c) => Ok(Val::Scalar(self.constant(*c), c.scalar_type())),
            Atom::Var(v) => match fr.vals.get(v) {
                Some(val) => Ok(val.clone()),
                None => err(format!("variable v_{} has no value", v.0)),
            },
        }
    }

    fn scalar(&self, fr: &Frame<'ctx>, a: &Atom) -> Res<(BasicValueEnum<'ctx>, ScalarType)> {
        match self.val(fr, a)? {
            Val::Scalar(v, t) => Ok((v, t)),
            Val::Array { .. } => err("array used as a scalar"),
        }
    }

    fn int(&self, fr: &Frame<'ctx>, a: &Atom) -> Res<IntValue<'ctx>> {
        match self.scalar(fr, a)?.0 {
            BasicValueEnum::IntValue(v) => Ok(v),
            _ => err("float used as an integer"),
        }
    }

    fn array(
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
    fn index(&self, fr: &Frame<'ctx>, a: &Atom) -> Res<IntValue<'ctx>> {
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

    // ---- runtime calls and traps ---------------------------------------

    fn runtime_fn(
        &self,
        name: &str,
        params: &[BasicMetadataTypeEnum<'ctx>],
    ) -> FunctionValue<'ctx> {
        if let Some(f) = self.module.get_function(name) {
            return f;
        }
        let (ty, noreturn) = if name == "arr_alloc" {
            (self.ptr().fn_type(params, false), false)
        } else if name == "arr_in_parallel" {
            (self.ctx.i32_type().fn_type(params, false), false)
        } else {
            let fails = name.starts_with("arr_fail");
            (self.ctx.void_type().fn_type(params, false), fails)
        };
        let f = self.module.add_function(name, ty, Some(Linkage::External));
        if noreturn {
            for attr in ["noreturn", "cold", "nounwind"] {
                let kind = Attribute::get_named_enum_kind_id(attr);
                f.add_attribute(
                    AttributeLoc::Function,
                    self.ctx.create_enum_attribute(kind, 0),
                );
            }
        }
        f
    }

    /// The private C string "FILE:LINE:COL" for `loc`.
    fn loc_string(&mut self, loc: SrcLoc) -> PointerValue<'ctx> {
        if let Some(p) = self.locs.get(&loc) {
            return *p;
        }
        let file = self
            .files
            .get(loc.file as usize)
            .map(String::as_str)
            .unwrap_or("<unknown>");
        let text = format!("{file}:{}:{}", loc.line, loc.col);
        let init = self.ctx.const_string(text.as_bytes(), true);
        let global =
            self.module
                .add_global(init.get_type(), None, &format!("loc.{}", self.locs.len()));
        global.set_initializer(&init);
        global.set_constant(true);
        global.set_linkage(Linkage::Private);
        global.set_unnamed_addr(true);
        let p = global.as_pointer_value();
        self.locs.insert(loc, p);
        p
    }

    /// Branches to a block that calls the runtime function `name` (which
    /// does not return) when `cond` holds.
    fn trap_if(
        &mut self,
        fr: &Frame<'ctx>,
        cond: IntValue<'ctx>,
        name: &str,
        args: &[BasicMetadataValueEnum<'ctx>],
        loc: SrcLoc,
    ) -> Res<()> {
        let fail = self.ctx.append_basic_block(fr.func, "fail");
        let cont = self.ctx.append_basic_block(fr.func, "ok");
        self.builder.build_conditional_branch(cond, fail, cont)?;
        self.builder.position_at_end(fail);
        let loc = self.loc_string(loc);
        let mut all: Vec<BasicMetadataValueEnum> = args.to_vec();
        all.push(loc.into());
        let types: Vec<BasicMetadataTypeEnum> = all
            .iter()
            .map(|a| match a {
                BasicMetadataValueEnum::PointerValue(_) => self.ptr().into(),
                _ => self.i64().into(),
            })
            .collect();
        let f = self.runtime_fn(name, &types);
        self.builder.build_call(f, &all, "")?;
        self.builder.build_unreachable()?;
        self.builder.position_at_end(cont);
        Ok(())
    }

    fn alloc_bytes(&self, bytes: IntValue<'ctx>) -> Res<PointerValue<'ctx>> {
        let f = self.runtime_fn("arr_alloc", &[self.i64().into()]);
        let call = self.builder.build_call(f, &[bytes.into()], "arr")?;
        match call.try_as_basic_value().basic() {
            Some(BasicValueEnum::PointerValue(p)) => Ok(p),
            _ => err("arr_alloc does not return a pointer"),
        }
    }

    fn product(&self, dims: &[IntValue<'ctx>]) -> Res<IntValue<'ctx>> {
        let mut n = self.const_i64(1);
        for d in dims {
            n = self.builder.build_int_mul(n, *d, "")?;
        }
        Ok(n)
    }

    /// Pointer to the element or row at `index` of a row-major array.
    fn offset_ptr(
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
    fn checked_index(
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
                self.trap_if(fr, bad, "arr_fail_bounds", &[i.into(), (*dim).into()], loc)?;
            }
            out.push(i);
        }
        Ok(out)
    }

    /// Allocas go in the entry block, so loops do not grow the stack.
    fn entry_alloca(
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

    // ---- entry points ----------------------------------------------------

    fn entry(&mut self, k: usize, f: &Function) -> Res<()> {
        self.prefix = entry_symbol(k);
        self.nests = 0;
        self.traffic_scalars.clear();
        if self.count_traffic {
            traffic::cluster_reduction_results(&f.body, &mut self.traffic_scalars);
        }
        let mut params: Vec<BasicMetadataTypeEnum> = Vec::new();
        for p in &f.params {
            match p.var.ty {
                // An `f16` comes as its bits: C callers need no `_Float16`.
                crate::core::ir::Type::Scalar(ScalarType::F16) => {
                    params.push(self.ctx.i16_type().into())
                }
                crate::core::ir::Type::Scalar(t) => params.push(self.mem_type(t).into()),
                crate::core::ir::Type::Array(_, rank) => {
                    params.push(self.ptr().into());
                    params.extend((0..rank).map(|_| BasicMetadataTypeEnum::from(self.i64())));
                }
            }
        }
        for t in &f.ret {
            let n = if t.rank() == 0 { 1 } else { 2 };
            params.extend((0..n).map(|_| BasicMetadataTypeEnum::from(self.ptr())));
        }
        let fn_ty = self.ctx.void_type().fn_type(&params, false);
        let func = self
            .module
            .add_function(&self.prefix, fn_ty, Some(Linkage::External));
        let entry = self.ctx.append_basic_block(func, "entry");
        self.builder.position_at_end(entry);
        let mut fr = Frame {
            func,
            vals: HashMap::new(),
            in_parallel: None,
        };
        let mut args = func.get_param_iter();
        let mut next = || args.next().ok_or(CodegenError("missing parameter".into()));
        for p in &f.params {
            match p.var.ty {
                crate::core::ir::Type::Scalar(t) => {
                    let mut v = next()?;
                    if t == ScalarType::F16 {
                        v = self.builder.build_bit_cast(v, self.ctx.f16_type(), "")?;
                    }
                    let v = self.load_from_mem(v, t)?;
                    fr.vals.insert(p.var.id, Val::Scalar(v, t));
                }
                crate::core::ir::Type::Array(elem, _) => {
                    let ptr = next()?.into_pointer_value();
                    let mut shape = Vec::new();
                    for d in &p.shape {
                        let v = next()?.into_int_value();
                        fr.vals.insert(d.id, Val::Scalar(v.into(), ScalarType::I64));
                        shape.push(v);
                    }
                    fr.vals.insert(p.var.id, Val::Array { ptr, elem, shape });
                }
            }
        }
        self.block(&mut fr, &f.body)?;
        for a in &f.results {
            match self.val(&fr, a)? {
                Val::Scalar(v, t) => {
                    let out = next()?.into_pointer_value();
                    let v = self.store_to_mem(v, t)?;
                    self.builder.build_store(out, v)?;
                }
                Val::Array { ptr, shape, .. } => {
                    let data = next()?.into_pointer_value();
                    let dims = next()?.into_pointer_value();
                    self.builder.build_store(data, ptr)?;
                    for (i, d) in shape.iter().enumerate() {
                        // Safety: the glue passes an `int64_t[ARR_MAX_RANK]`.
                        let slot = unsafe {
                            self.builder.build_in_bounds_gep(
                                self.i64(),
                                dims,
                                &[self.const_i64(i as i64)],
                                "",
                            )?
                        };
                        self.builder.build_store(slot, *d)?;
                    }
                }
            }
        }
        self.builder.build_return(None)?;
        Ok(())
    }

    fn load_from_mem(&self, v: BasicValueEnum<'ctx>, t: ScalarType) -> Res<BasicValueEnum<'ctx>> {
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

    fn store_to_mem(&self, v: BasicValueEnum<'ctx>, t: ScalarType) -> Res<BasicValueEnum<'ctx>> {
        Ok(if t == ScalarType::Bool {
            self.builder
                .build_int_z_extend(v.into_int_value(), self.ctx.i8_type(), "")?
                .into()
        } else {
            v
        })
    }

    // ---- statements -----------------------------------------------------

    fn block(&mut self, fr: &mut Frame<'ctx>, block: &Block) -> Res<()> {
        let mut k = 0;
        while k < block.len() {
            match self.atomic_rmw(fr, &block[k..])? {
                0 => {
                    self.stmt(fr, &block[k])?;
                    k += 1;
                }
                covered => k += covered,
            }
        }
        Ok(())
    }

    fn stmt(&mut self, fr: &mut Frame<'ctx>, stmt: &Stmt) -> Res<()> {
        match stmt {
            Stmt::Let { var, .. } if self.facts.contains_key(&var.id) => {
                let known = self.facts[&var.id];
                let v = self.ctx.bool_type().const_int(u64::from(known), false);
                fr.vals
                    .insert(var.id, Val::Scalar(v.into(), ScalarType::Bool));
            }
            Stmt::Let { var, exp, loc } => {
                let (v, t) = self.exp(fr, exp, *loc)?;
                self.reassociate_reduction_step(var.id, exp, v)?;
                if self.fast_math {
                    allow_float_rewrites(v)?;
                }
                fr.vals.insert(var.id, Val::Scalar(v, t));
            }
            Stmt::Alloc { var, shape } => {
                let dims = shape
                    .iter()
                    .map(|d| self.int(fr, d))
                    .collect::<Res<Vec<_>>>()?;
                let elem = var.ty.elem();
                let count = self.product(&dims)?;
                let size = self.const_i64(elem.bytes() as i64);
                let bytes = self.builder.build_int_mul(count, size, "")?;
                let ptr = self.alloc_bytes(bytes)?;
                fr.vals.insert(
                    var.id,
                    Val::Array {
                        ptr,
                        elem,
                        shape: dims,
                    },
                );
            }
            Stmt::Read {
                var, array, index, ..
            } if self.atomic_bins.contains(array) => self.cas_read(fr, var, *array, index)?,
            Stmt::Write { array, value, .. } if self.atomic_bins.contains(array) => {
                self.cas_write(fr, value)?
            }
            Stmt::Read {
                var,
                array,
                index,
                check,
            } => {
                let (ptr, elem, shape) = self.array(fr, *array)?;
                let check = check.filter(|_| !self.unchecked.contains(&var.id));
                let index = self.checked_index(fr, &shape, index, check)?;
                let p = self.offset_ptr(ptr, elem, &shape, &index)?;
                let v = self.builder.build_load(self.mem_type(elem), p, "")?;
                self.count_one(Counter::Reads)?;
                let v = self.load_from_mem(v, elem)?;
                fr.vals.insert(var.id, Val::Scalar(v, elem));
            }
            Stmt::Row {
                var,
                array,
                index,
                check,
            } => {
                let (ptr, elem, shape) = self.array(fr, *array)?;
                let idx = self.checked_index(fr, &shape, index, *check)?;
                let p = self.offset_ptr(ptr, elem, &shape, &idx)?;
                let shape = shape.get(index.len()..).unwrap_or_default().to_vec();
                fr.vals.insert(
                    var.id,
                    Val::Array {
                        ptr: p,
                        elem,
                        shape,
                    },
                );
            }
            Stmt::Write {
                array,
                index,
                value,
            } => {
                let (ptr, elem, shape) = self.array(fr, *array)?;
                let index = self.checked_index(fr, &shape, index, None)?;
                let p = self.offset_ptr(ptr, elem, &shape, &index)?;
                let (v, t) = self.scalar(fr, value)?;
                let v = self.store_to_mem(v, t)?;
                self.builder.build_store(p, v)?;
                self.count_one(Counter::Writes)?;
            }
            Stmt::Copy { array, index, src } => {
                let (ptr, elem, shape) = self.array(fr, *array)?;
                let index = self.checked_index(fr, &shape, index, None)?;
                let dst = self.offset_ptr(ptr, elem, &shape, &index)?;
                let (src, _, src_shape) = self.array(fr, *src)?;
                let count = self.product(&src_shape)?;
                let size = self.const_i64(elem.bytes() as i64);
                let bytes = self.builder.build_int_mul(count, size, "")?;
                self.builder.build_memmove(dst, 1, src, 1, bytes)?;
                self.count(Counter::Reads, count)?;
                self.count(Counter::Writes, count)?;
            }
            Stmt::If {
                results,
                cond,
                then_block,
                then_results,
                else_block,
                else_results,
            } => {
                let cond = self.int(fr, cond)?;
                if let Some(known) = cond.get_zero_extended_constant() {
                    // Known (a peeled loop's fact): only the branch taken.
                    let (block, res) = if known != 0 {
                        (then_block, then_results)
                    } else {
                        (else_block, else_results)
                    };
                    self.block(fr, block)?;
                    for (var, a) in results.iter().zip(res) {
                        let v = self.val(fr, a)?;
                        fr.vals.insert(var.id, v);
                    }
                    return Ok(());
                }
                let then_bb = self.ctx.append_basic_block(fr.func, "then");
                let else_bb = self.ctx.append_basic_block(fr.func, "else");
                let merge = self.ctx.append_basic_block(fr.func, "endif");
                self.builder
                    .build_conditional_branch(cond, then_bb, else_bb)?;
                let mut arms = Vec::new();
                for (bb, block, res) in [
                    (then_bb, then_block, then_results),
                    (else_bb, else_block, else_results),
                ] {
                    self.builder.position_at_end(bb);
                    self.block(fr, block)?;
                    let vals = res
                        .iter()
                        .map(|a| self.val(fr, a))
                        .collect::<Res<Vec<_>>>()?;
                    let end = self.current_block()?;
                    self.builder.build_unconditional_branch(merge)?;
                    arms.push((end, vals));
                }
                self.builder.position_at_end(merge);
                for (j, var) in results.iter().enumerate() {
                    let (Some(a), Some(b)) = (arms[0].1.get(j), arms[1].1.get(j)) else {
                        return err("if without enough results");
                    };
                    let merged = self.phi(a, arms[0].0, b, arms[1].0)?;
                    fr.vals.insert(var.id, merged);
                }
            }
            Stmt::AssertEq {
                expected,
                found,
                loc,
            } => {
                let e = self.int(fr, expected)?;
                let f = self.int(fr, found)?;
                let bad = self.builder.build_int_compare(IntPredicate::NE, e, f, "")?;
                self.trap_if(
                    fr,
                    bad,
                    "arr_fail_size_mismatch",
                    &[e.into(), f.into()],
                    *loc,
                )?;
            }
            Stmt::Assert { cond, loc } => {
                let c = self.int(fr, cond)?;
                let bad = self.builder.build_not(c, "")?;
                self.trap_if(fr, bad, "arr_fail_assert", &[], *loc)?;
            }
            Stmt::IndexCheck { index, len, loc } => {
                let (i, n) = (self.int(fr, index)?, self.int(fr, len)?);
                // Unsigned: a negative index is out of range too.
                let bad = self
                    .builder
                    .build_int_compare(IntPredicate::UGE, i, n, "")?;
                self.trap_if(fr, bad, "arr_fail_bounds", &[i.into(), n.into()], *loc)?;
            }
            Stmt::SizeCheck { size, loc } => {
                let n = self.int(fr, size)?;
                let zero = self.const_i64(0);
                let bad = self
                    .builder
                    .build_int_compare(IntPredicate::SLT, n, zero, "")?;
                self.trap_if(fr, bad, "arr_fail_negative_size", &[n.into()], *loc)?;
            }
            Stmt::BoundsCheck { array, index, loc } => {
                let (_, _, shape) = self.array(fr, *array)?;
                self.checked_index(fr, &shape, index, Some(*loc))?;
            }
            Stmt::SliceCheck {
                start,
                end,
                stride,
                count,
                len,
                loc,
            } => self.slice_check(fr, [start, end, stride, count, len], *loc)?,
            Stmt::View {
                var,
                array,
                offset,
                shape,
            } => {
                let (ptr, elem, _) = self.array(fr, *array)?;
                let offset = self.int(fr, offset)?;
                // Safety: the lowering keeps views inside their array.
                let p = unsafe {
                    self.builder
                        .build_in_bounds_gep(self.mem_type(elem), ptr, &[offset], "")?
                };
                let shape = shape
                    .iter()
                    .map(|d| self.int(fr, d))
                    .collect::<Res<Vec<_>>>()?;
                fr.vals.insert(
                    var.id,
                    Val::Array {
                        ptr: p,
                        elem,
                        shape,
                    },
                );
            }
            Stmt::Free(array) => {
                let (ptr, _, _) = self.array(fr, *array)?;
                let f = self.runtime_fn("arr_free", &[self.ptr().into()]);
                self.builder.build_call(f, &[ptr.into()], "")?;
            }
            Stmt::InPlace { var, array } => {
                // The same memory under a new name: no code.
                let (ptr, elem, shape) = self.array(fr, *array)?;
                fr.vals.insert(var.id, Val::Array { ptr, elem, shape });
            }
            Stmt::SeqLoop(lp) => self.seq_loop(fr, lp)?,
            Stmt::Loop(nest) => self.nest(fr, nest)?,
        }
        Ok(())
    }

    /// Futhark's slice rule (see `Stmt::SliceCheck`).
    fn slice_check(&mut self, fr: &Frame<'ctx>, atoms: [&Atom; 5], loc: SrcLoc) -> Res<()> {
        let [start, end, stride, count, len] = atoms.map(|a| self.int(fr, a));
        let (start, end, stride, count, len) = (start?, end?, stride?, count?, len?);
        let b = &self.builder;
        let zero = self.const_i64(0);
        let minus_one = self.const_i64(-1);
        let cmp = |p, x, y| b.build_int_compare(p, x, y, "");
        let nonzero = cmp(IntPredicate::NE, stride, zero)?;
        let empty = cmp(IntPredicate::EQ, count, zero)?;
        let backwards = cmp(IntPredicate::SLT, stride, zero)?;
        let one = self.const_i64(1);
        let m = b.build_int_sub(count, one, "")?;
        let steps = b.build_int_mul(m, stride, "")?;
        let last = b.build_int_add(start, steps, "")?;
        let last_lo = cmp(IntPredicate::SLE, zero, last)?;
        let last_hi = cmp(IntPredicate::SLT, last, len)?;
        let last_ok = b.build_and(last_lo, last_hi, "")?;
        let f1 = cmp(IntPredicate::SLE, zero, start)?;
        let f2 = cmp(IntPredicate::SLE, start, end)?;
        let fwd = b.build_and(b.build_and(f1, f2, "")?, last_ok, "")?;
        let b1 = cmp(IntPredicate::SLE, minus_one, end)?;
        let b2 = cmp(IntPredicate::SLE, end, start)?;
        // Backwards, the first element is the largest index.
        let b3 = cmp(IntPredicate::SLT, start, len)?;
        let bwd = b.build_and(b.build_and(b1, b2, "")?, last_ok, "")?;
        let bwd = b.build_and(bwd, b3, "")?;
        let dir_ok = b.build_select(backwards, bwd, fwd, "")?.into_int_value();
        let fine = b.build_or(empty, dir_ok, "")?;
        let ok = b.build_and(nonzero, fine, "")?;
        let bad = b.build_not(ok, "")?;
        self.trap_if(
            fr,
            bad,
            "arr_fail_slice",
            &[start.into(), end.into(), stride.into(), len.into()],
            loc,
        )
    }

    fn current_block(&self) -> Res<BasicBlock<'ctx>> {
        self.builder
            .get_insert_block()
            .ok_or(CodegenError("builder has no position".into()))
    }

    fn phi(
        &self,
        a: &Val<'ctx>,
        a_bb: BasicBlock<'ctx>,
        b: &Val<'ctx>,
        b_bb: BasicBlock<'ctx>,
    ) -> Res<Val<'ctx>> {
        let one = |x: BasicValueEnum<'ctx>, y: BasicValueEnum<'ctx>| -> Res<BasicValueEnum<'ctx>> {
            let phi = self.builder.build_phi(x.get_type(), "")?;
            phi.add_incoming(&[(&x, a_bb), (&y, b_bb)]);
            Ok(phi.as_basic_value())
        };
        match (a, b) {
            (Val::Scalar(x, t), Val::Scalar(y, _)) => Ok(Val::Scalar(one(*x, *y)?, *t)),
            (
                Val::Array {
                    ptr: p,
                    elem,
                    shape: s,
                },
                Val::Array {
                    ptr: q, shape: r, ..
                },
            ) => {
                let ptr = one((*p).into(), (*q).into())?.into_pointer_value();
                let shape = s
                    .iter()
                    .zip(r)
                    .map(|(x, y)| Ok(one((*x).into(), (*y).into())?.into_int_value()))
                    .collect::<Res<Vec<_>>>()?;
                Ok(Val::Array {
                    ptr,
                    elem: *elem,
                    shape,
                })
            }
            _ => err("if branches disagree on a result's kind"),
        }
    }

    // ---- loop nests -------------------------------------------------------

    /// The fields a value occupies in an environment or carry struct:
    /// a scalar is one, an array its data pointer and one `i64` per dimension.
    fn fields(&self, val: &Val<'ctx>) -> Vec<BasicValueEnum<'ctx>> {
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
    fn field_types(&self, ty: Type) -> Vec<BasicTypeEnum<'ctx>> {
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
    fn val_of_fields(&self, ty: Type, fields: &[BasicValueEnum<'ctx>]) -> Res<Val<'ctx>> {
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

    /// A sequential loop in the current function: the parameters live in
    /// stack slots (promoted to registers by LLVM), one per field.
    fn seq_loop(&mut self, fr: &mut Frame<'ctx>, lp: &SeqLoop) -> Res<()> {
        let mut slots = Vec::new();
        for p in &lp.params {
            let init = self.val(fr, &p.init)?;
            let mut ps = Vec::new();
            for v in self.fields(&init) {
                let slot = self.entry_alloca(fr.func, v.get_type())?;
                self.builder.build_store(slot, v)?;
                ps.push((slot, v.get_type()));
            }
            slots.push(ps);
        }
        let counter = match &lp.form {
            SeqForm::For { bound, .. } => {
                let (b, t) = self.scalar(fr, bound)?;
                let slot = self.entry_alloca(fr.func, b.get_type())?;
                self.builder
                    .build_store(slot, b.get_type().into_int_type().const_zero())?;
                Some((slot, b.into_int_value(), t))
            }
            SeqForm::While { .. } => None,
        };
        let header = self.ctx.append_basic_block(fr.func, "seqloop");
        let body = self.ctx.append_basic_block(fr.func, "seqbody");
        let exit = self.ctx.append_basic_block(fr.func, "seqexit");
        self.builder.build_unconditional_branch(header)?;
        self.builder.position_at_end(header);
        let mut current = Vec::new();
        for (p, ps) in lp.params.iter().zip(&slots) {
            let mut loaded = Vec::new();
            for (slot, ty) in ps {
                loaded.push(self.builder.build_load(*ty, *slot, "")?);
            }
            let val = self.val_of_fields(p.var.ty, &loaded)?;
            bind_shape(fr, &val, &p.shape);
            fr.vals.insert(p.var.id, val.clone());
            current.push(val);
        }
        let more = match (&lp.form, counter) {
            (SeqForm::For { index, .. }, Some((slot, bound, t))) => {
                let i = self
                    .builder
                    .build_load(bound.get_type(), slot, "")?
                    .into_int_value();
                fr.vals.insert(index.id, Val::Scalar(i.into(), t));
                let pred = if t.is_signed() {
                    IntPredicate::SLT
                } else {
                    IntPredicate::ULT
                };
                self.builder.build_int_compare(pred, i, bound, "")?
            }
            (SeqForm::While { cond, result }, _) => {
                self.block(fr, cond)?;
                self.int(fr, result)?
            }
            _ => return err("a `for` loop without a counter"),
        };
        self.builder.build_conditional_branch(more, body, exit)?;
        self.builder.position_at_end(body);
        self.block(fr, &lp.body)?;
        let mut nexts = Vec::new();
        for a in &lp.next {
            nexts.push(self.fields(&self.val(fr, a)?));
        }
        for (vals, ps) in nexts.iter().zip(&slots) {
            for (v, (slot, _)) in vals.iter().zip(ps) {
                self.builder.build_store(*slot, *v)?;
            }
        }
        if let (SeqForm::For { index, .. }, Some((slot, bound, _))) = (&lp.form, counter) {
            let i = self.int(fr, &Atom::Var(index.id))?;
            let one = bound.get_type().const_int(1, false);
            let n = self.builder.build_int_add(i, one, "")?;
            self.builder.build_store(slot, n)?;
        }
        self.builder.build_unconditional_branch(header)?;
        // After the loop the parameters' values from the last test are final.
        self.builder.position_at_end(exit);
        for (r, val) in lp.results.iter().zip(current) {
            bind_shape(fr, &val, &r.shape);
            fr.vals.insert(r.var.id, val);
        }
        Ok(())
    }

    // ---- scalar expressions ---------------------------------------------

    fn exp(
        &mut self,
        fr: &Frame<'ctx>,
        exp: &ScalarExp,
        loc: SrcLoc,
    ) -> Res<(BasicValueEnum<'ctx>, ScalarType)> {
        match exp {
            ScalarExp::Atom(a) => self.scalar(fr, a),
            ScalarExp::BinOp(op, a, b) => {
                let (x, t) = self.scalar(fr, a)?;
                let (y, _) = self.scalar(fr, b)?;
                let rt = if op.is_comparison() {
                    ScalarType::Bool
                } else {
                    t
                };
                Ok((self.binop(fr, *op, x, y, t, loc)?, rt))
            }
            ScalarExp::UnOp(op, a) => {
                let (x, t) = self.scalar(fr, a)?;
                self.unop(*op, x, t)
            }
            ScalarExp::Convert(to, a) => {
                let (x, from) = self.scalar(fr, a)?;
                Ok((self.convert(x, from, *to)?, *to))
            }
            ScalarExp::Fma(a, b, c) => {
                let (x, t) = self.scalar(fr, a)?;
                let (y, _) = self.scalar(fr, b)?;
                let (z, _) = self.scalar(fr, c)?;
                if t == ScalarType::F16 {
                    // Exact in f64, then one rounding (as the interpreter).
                    let f64t = self.ctx.f64_type();
                    let b = &self.builder;
                    let w =
                        |v: BasicValueEnum<'ctx>| b.build_float_ext(v.into_float_value(), f64t, "");
                    let (x, y, z) = (w(x)?, w(y)?, w(z)?);
                    let ty: BasicTypeEnum = f64t.into();
                    let r =
                        self.call_intrinsic("llvm.fma", &[ty], &[x.into(), y.into(), z.into()])?;
                    let r = b.build_float_trunc(r.into_float_value(), self.ctx.f16_type(), "")?;
                    return Ok((r.into(), t));
                }
                let ty: BasicTypeEnum = self.float_type(t)?.into();
                let r = self.call_intrinsic("llvm.fma", &[ty], &[x.into(), y.into(), z.into()])?;
                Ok((r, t))
            }
        }
    }

    fn call_intrinsic(
        &self,
        name: &str,
        types: &[BasicTypeEnum<'ctx>],
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Res<BasicValueEnum<'ctx>> {
        let decl = Intrinsic::find(name)
            .and_then(|i| i.get_declaration(&self.module, types))
            .ok_or_else(|| CodegenError(format!("no LLVM intrinsic {name}")))?;
        self.builder
            .build_call(decl, args, "")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| CodegenError(format!("{name} returns nothing")))
    }

    /// A libm function on `f32` (`expf`-style name) or `f64`.
    fn call_libm(
        &self,
        base: &str,
        t: ScalarType,
        args: &[FloatValue<'ctx>],
    ) -> Res<BasicValueEnum<'ctx>> {
        let ft = self.float_type(t)?;
        let name = if t == ScalarType::F32 {
            format!("{base}f")
        } else {
            base.to_string()
        };
        let f = match self.module.get_function(&name) {
            Some(f) => f,
            None => {
                let params: Vec<BasicMetadataTypeEnum> = args.iter().map(|_| ft.into()).collect();
                self.module
                    .add_function(&name, ft.fn_type(&params, false), Some(Linkage::External))
            }
        };
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|a| (*a).into()).collect();
        self.builder
            .build_call(f, &args, "")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| CodegenError(format!("{name} returns nothing")))
    }

    fn float_type(&self, t: ScalarType) -> Res<FloatType<'ctx>> {
        match t {
            ScalarType::F16 => Ok(self.ctx.f16_type()),
            ScalarType::F32 => Ok(self.ctx.f32_type()),
            ScalarType::F64 => Ok(self.ctx.f64_type()),
            _ => err(format!("{t} is not a float type")),
        }
    }

    fn binop(
        &mut self,
        fr: &Frame<'ctx>,
        op: BinOp,
        x: BasicValueEnum<'ctx>,
        y: BasicValueEnum<'ctx>,
        t: ScalarType,
        loc: SrcLoc,
    ) -> Res<BasicValueEnum<'ctx>> {
        if t == ScalarType::F16 && !Self::native_half(op) {
            // Through f32 and rounded back once, as the interpreter does.
            let f32t = self.ctx.f32_type();
            let xw = self
                .builder
                .build_float_ext(x.into_float_value(), f32t, "")?;
            let yw = self
                .builder
                .build_float_ext(y.into_float_value(), f32t, "")?;
            let r = self.float_binop(op, xw, yw, ScalarType::F32)?;
            return Ok(match r {
                BasicValueEnum::FloatValue(r) => self
                    .builder
                    .build_float_trunc(r, self.ctx.f16_type(), "")?
                    .into(),
                other => other,
            });
        }
        if t.is_float() {
            return self.float_binop(op, x.into_float_value(), y.into_float_value(), t);
        }
        let (x, y) = match (x, y) {
            (BasicValueEnum::IntValue(x), BasicValueEnum::IntValue(y)) => (x, y),
            _ => return err(format!("{} on mismatched operands", op.name())),
        };
        let b = &self.builder;
        let signed = t.is_signed();
        let pred = |s: IntPredicate, u: IntPredicate| if signed { s } else { u };
        Ok(match op {
            BinOp::Add => b.build_int_add(x, y, "")?.into(),
            BinOp::Sub => b.build_int_sub(x, y, "")?.into(),
            BinOp::Mul => b.build_int_mul(x, y, "")?.into(),
            BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem => {
                return self.int_division(fr, op, x, y, signed, loc)
            }
            BinOp::Pow => {
                let f = self.int_pow_fn(x.get_type())?;
                let r = self.builder.build_call(f, &[x.into(), y.into()], "")?;
                r.try_as_basic_value()
                    .basic()
                    .ok_or(CodegenError("pow returns nothing".into()))?
            }
            BinOp::Min | BinOp::Max => {
                let p = if op == BinOp::Min {
                    pred(IntPredicate::SLT, IntPredicate::ULT)
                } else {
                    pred(IntPredicate::SGT, IntPredicate::UGT)
                };
                let c = b.build_int_compare(p, x, y, "")?;
                b.build_select(c, x, y, "")?
            }
            BinOp::Eq => b.build_int_compare(IntPredicate::EQ, x, y, "")?.into(),
            BinOp::Neq => b.build_int_compare(IntPredicate::NE, x, y, "")?.into(),
            BinOp::Lt => b
                .build_int_compare(pred(IntPredicate::SLT, IntPredicate::ULT), x, y, "")?
                .into(),
            BinOp::Le => b
                .build_int_compare(pred(IntPredicate::SLE, IntPredicate::ULE), x, y, "")?
                .into(),
            BinOp::Gt => b
                .build_int_compare(pred(IntPredicate::SGT, IntPredicate::UGT), x, y, "")?
                .into(),
            BinOp::Ge => b
                .build_int_compare(pred(IntPredicate::SGE, IntPredicate::UGE), x, y, "")?
                .into(),
            BinOp::And => b.build_and(x, y, "")?.into(),
            BinOp::Or => b.build_or(x, y, "")?.into(),
            BinOp::Xor => b.build_xor(x, y, "")?.into(),
            BinOp::Shl | BinOp::Shr | BinOp::UShr => {
                // An amount outside 0..bits (also a negative one) would be
                // poison in LLVM: shifting everything out gives 0, or all
                // sign bits for an arithmetic right shift.
                let ty = x.get_type();
                let bits = ty.get_bit_width() as u64;
                let in_range =
                    b.build_int_compare(IntPredicate::ULT, y, ty.const_int(bits, false), "")?;
                let amount = b.build_select(in_range, y, ty.const_int(bits - 1, false), "")?;
                let amount = amount.into_int_value();
                let zero = ty.const_zero();
                match op {
                    BinOp::Shl => {
                        let r = b.build_left_shift(x, amount, "")?;
                        b.build_select(in_range, r, zero, "")?
                    }
                    BinOp::Shr if signed => b.build_right_shift(x, amount, true, "")?.into(),
                    _ => {
                        let r = b.build_right_shift(x, amount, false, "")?;
                        b.build_select(in_range, r, zero, "")?
                    }
                }
            }
            BinOp::MulHi => {
                // The product at twice the width, its upper half.
                let ty = x.get_type();
                let bits = ty.get_bit_width();
                let wide = match bits {
                    8 => self.ctx.i16_type(),
                    16 => self.ctx.i32_type(),
                    32 => self.ctx.i64_type(),
                    _ => self.ctx.i128_type(),
                };
                let xw = b.build_int_cast_sign_flag(x, wide, signed, "")?;
                let yw = b.build_int_cast_sign_flag(y, wide, signed, "")?;
                let p = b.build_int_mul(xw, yw, "")?;
                let hi = b.build_right_shift(p, wide.const_int(bits as u64, false), false, "")?;
                b.build_int_truncate(hi, ty, "")?.into()
            }
            BinOp::Atan2 | BinOp::Hypot | BinOp::NextAfter | BinOp::CopySign => {
                return err(format!("{} on {t}", op.name()))
            }
        })
    }

    /// Half operations LLVM rounds exactly as IEEE half arithmetic.
    fn native_half(op: BinOp) -> bool {
        matches!(
            op,
            BinOp::Add
                | BinOp::Sub
                | BinOp::Mul
                | BinOp::Div
                | BinOp::Eq
                | BinOp::Neq
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
        )
    }

    fn float_binop(
        &self,
        op: BinOp,
        x: FloatValue<'ctx>,
        y: FloatValue<'ctx>,
        t: ScalarType,
    ) -> Res<BasicValueEnum<'ctx>> {
        let b = &self.builder;
        let cmp =
            |p| -> Res<BasicValueEnum<'ctx>> { Ok(b.build_float_compare(p, x, y, "")?.into()) };
        let ty: BasicTypeEnum = self.float_type(t)?.into();
        Ok(match op {
            BinOp::Add => b.build_float_add(x, y, "")?.into(),
            BinOp::Sub => b.build_float_sub(x, y, "")?.into(),
            BinOp::Mul => b.build_float_mul(x, y, "")?.into(),
            BinOp::Div => b.build_float_div(x, y, "")?.into(),
            // `%` on floats is C's fmod, as in Futhark.
            BinOp::Mod | BinOp::Rem => b.build_float_rem(x, y, "")?.into(),
            BinOp::Quot => {
                let q = b.build_float_div(x, y, "")?;
                self.call_intrinsic("llvm.trunc", &[ty], &[q.into()])?
            }
            BinOp::Pow => self.call_intrinsic("llvm.pow", &[ty], &[x.into(), y.into()])?,
            // fmin/fmax semantics: a NaN operand yields the other one.
            BinOp::Min => self.call_intrinsic("llvm.minnum", &[ty], &[x.into(), y.into()])?,
            BinOp::Max => self.call_intrinsic("llvm.maxnum", &[ty], &[x.into(), y.into()])?,
            BinOp::Eq => cmp(FloatPredicate::OEQ)?,
            BinOp::Neq => cmp(FloatPredicate::UNE)?,
            BinOp::Lt => cmp(FloatPredicate::OLT)?,
            BinOp::Le => cmp(FloatPredicate::OLE)?,
            BinOp::Gt => cmp(FloatPredicate::OGT)?,
            BinOp::Ge => cmp(FloatPredicate::OGE)?,
            BinOp::Atan2 => self.call_libm("atan2", t, &[x, y])?,
            BinOp::Hypot => self.call_libm("hypot", t, &[x, y])?,
            BinOp::NextAfter => self.call_libm("nextafter", t, &[x, y])?,
            BinOp::CopySign => {
                self.call_intrinsic("llvm.copysign", &[ty], &[x.into(), y.into()])?
            }
            BinOp::And
            | BinOp::Or
            | BinOp::Xor
            | BinOp::Shl
            | BinOp::Shr
            | BinOp::UShr
            | BinOp::MulHi => return err(format!("{} on {t}", op.name())),
        })
    }

    /// Integer division and remainder: traps on a zero divisor; `MIN / -1`
    /// wraps (the divisor -1 is handled as a negation, never reaching
    /// `sdiv`'s undefined case); `Div`/`Mod` round towards negative infinity.
    fn int_division(
        &mut self,
        fr: &Frame<'ctx>,
        op: BinOp,
        x: IntValue<'ctx>,
        y: IntValue<'ctx>,
        signed: bool,
        loc: SrcLoc,
    ) -> Res<BasicValueEnum<'ctx>> {
        let ty = x.get_type();
        let zero = ty.const_zero();
        let is_zero = self
            .builder
            .build_int_compare(IntPredicate::EQ, y, zero, "")?;
        self.trap_if(fr, is_zero, "arr_fail_division_by_zero", &[], loc)?;
        let b = &self.builder;
        if !signed {
            return Ok(match op {
                BinOp::Div | BinOp::Quot => b.build_int_unsigned_div(x, y, "")?.into(),
                _ => b.build_int_unsigned_rem(x, y, "")?.into(),
            });
        }
        let minus_one = ty.const_all_ones();
        let is_minus_one = b.build_int_compare(IntPredicate::EQ, y, minus_one, "")?;
        let safe = b
            .build_select(is_minus_one, ty.const_int(1, false), y, "")?
            .into_int_value();
        let q = b.build_int_signed_div(x, safe, "")?;
        let r = b.build_int_signed_rem(x, safe, "")?;
        // r != 0 and sign(r) != sign(y): the truncated result needs adjusting.
        let r_nonzero = b.build_int_compare(IntPredicate::NE, r, zero, "")?;
        let signs = b.build_xor(r, y, "")?;
        let differ = b.build_int_compare(IntPredicate::SLT, signs, zero, "")?;
        let adjust = b.build_and(r_nonzero, differ, "")?;
        Ok(match op {
            BinOp::Quot => {
                let neg = b.build_int_sub(zero, x, "")?;
                b.build_select(is_minus_one, neg, q, "")?
            }
            BinOp::Rem => r.into(),
            BinOp::Div => {
                let q1 = b.build_int_sub(q, ty.const_int(1, false), "")?;
                let floor = b.build_select(adjust, q1, q, "")?.into_int_value();
                let neg = b.build_int_sub(zero, x, "")?;
                b.build_select(is_minus_one, neg, floor, "")?
            }
            _ => {
                let ry = b.build_int_add(r, y, "")?;
                b.build_select(adjust, ry, r, "")?
            }
        })
    }

    /// `pow_iN(x, e)`: wrapping exponentiation by squaring. The exponent's
    /// bits are consumed with logical shifts, so any exponent terminates
    /// (a negative one acts as its unsigned reading).
    fn int_pow_fn(&self, ty: IntType<'ctx>) -> Res<FunctionValue<'ctx>> {
        let name = format!("arr.pow.i{}", ty.get_bit_width());
        if let Some(f) = self.module.get_function(&name) {
            return Ok(f);
        }
        let f = self.module.add_function(
            &name,
            ty.fn_type(&[ty.into(), ty.into()], false),
            Some(Linkage::Internal),
        );
        let b = self.ctx.create_builder();
        let entry = self.ctx.append_basic_block(f, "entry");
        let header = self.ctx.append_basic_block(f, "loop");
        let body = self.ctx.append_basic_block(f, "step");
        let exit = self.ctx.append_basic_block(f, "done");
        let missing = || CodegenError("pow without parameters".into());
        let x = f.get_nth_param(0).ok_or_else(missing)?.into_int_value();
        let e = f.get_nth_param(1).ok_or_else(missing)?.into_int_value();
        b.position_at_end(entry);
        b.build_unconditional_branch(header)?;
        b.position_at_end(header);
        let res = b.build_phi(ty, "res")?;
        let base = b.build_phi(ty, "base")?;
        let exp = b.build_phi(ty, "exp")?;
        let one = ty.const_int(1, false);
        res.add_incoming(&[(&one, entry)]);
        base.add_incoming(&[(&x, entry)]);
        exp.add_incoming(&[(&e, entry)]);
        let (rv, bv, ev) = (
            res.as_basic_value().into_int_value(),
            base.as_basic_value().into_int_value(),
            exp.as_basic_value().into_int_value(),
        );
        let done = b.build_int_compare(IntPredicate::EQ, ev, ty.const_zero(), "")?;
        b.build_conditional_branch(done, exit, body)?;
        b.position_at_end(body);
        let bit = b.build_and(ev, one, "")?;
        let odd = b.build_int_compare(IntPredicate::NE, bit, ty.const_zero(), "")?;
        let m = b.build_int_mul(rv, bv, "")?;
        let r2 = b.build_select(odd, m, rv, "")?.into_int_value();
        let b2 = b.build_int_mul(bv, bv, "")?;
        let e2 = b.build_right_shift(ev, one, false, "")?;
        b.build_unconditional_branch(header)?;
        res.add_incoming(&[(&r2, body)]);
        base.add_incoming(&[(&b2, body)]);
        exp.add_incoming(&[(&e2, body)]);
        b.position_at_end(exit);
        b.build_return(Some(&rv))?;
        Ok(f)
    }

    fn unop(
        &self,
        op: UnOp,
        x: BasicValueEnum<'ctx>,
        t: ScalarType,
    ) -> Res<(BasicValueEnum<'ctx>, ScalarType)> {
        let b = &self.builder;
        if let BasicValueEnum::IntValue(x) = x {
            let ty = x.get_type();
            let i32t = self.ctx.i32_type();
            let to_i32 = |v: IntValue<'ctx>| -> Res<BasicValueEnum<'ctx>> {
                Ok(b.build_int_cast_sign_flag(v, i32t, false, "")?.into())
            };
            return Ok(match op {
                UnOp::Neg if t == ScalarType::Bool => (b.build_not(x, "")?.into(), t),
                UnOp::Neg => (b.build_int_sub(ty.const_zero(), x, "")?.into(), t),
                UnOp::Not => (b.build_not(x, "")?.into(), t),
                UnOp::Abs if t.is_signed() => {
                    let abs = self.call_intrinsic(
                        "llvm.abs",
                        &[ty.into()],
                        &[x.into(), self.ctx.bool_type().const_zero().into()],
                    )?;
                    (abs, t)
                }
                UnOp::Abs | UnOp::Floor | UnOp::Ceil | UnOp::Round | UnOp::Trunc => (x.into(), t),
                UnOp::Popc => {
                    let c = self.call_intrinsic("llvm.ctpop", &[ty.into()], &[x.into()])?;
                    (to_i32(c.into_int_value())?, ScalarType::I32)
                }
                UnOp::Clz => {
                    let c = self.call_intrinsic(
                        "llvm.ctlz",
                        &[ty.into()],
                        &[x.into(), self.ctx.bool_type().const_zero().into()],
                    )?;
                    (to_i32(c.into_int_value())?, ScalarType::I32)
                }
                UnOp::IsNan | UnOp::IsInf => {
                    (self.ctx.bool_type().const_zero().into(), ScalarType::Bool)
                }
                UnOp::FromBits => {
                    let to = op.result(t);
                    let ft = self.float_type(to)?;
                    (b.build_bit_cast(x, ft, "")?, to)
                }
                _ => return err(format!("{} on {t}", op.name())),
            });
        }
        let BasicValueEnum::FloatValue(x) = x else {
            return err(format!("{} on a non-scalar", op.name()));
        };
        if t == ScalarType::F16 && !matches!(op, UnOp::Neg | UnOp::Abs | UnOp::ToBits) {
            // Through f32 and rounded back once, as the interpreter does.
            let wide = b.build_float_ext(x, self.ctx.f32_type(), "")?;
            let (r, rt) = self.unop(op, wide.into(), ScalarType::F32)?;
            return Ok(if rt == ScalarType::F32 {
                let r = r.into_float_value();
                (b.build_float_trunc(r, self.ctx.f16_type(), "")?.into(), t)
            } else {
                (r, rt)
            });
        }
        let ty: BasicTypeEnum = self.float_type(t)?.into();
        let intr = |name: &str| self.call_intrinsic(name, &[ty], &[x.into()]);
        let v = match op {
            UnOp::Neg => b.build_float_neg(x, "")?.into(),
            UnOp::Abs => intr("llvm.fabs")?,
            UnOp::Sqrt => intr("llvm.sqrt")?,
            // Straight-line f32 versions the vectoriser can widen (`vmath`).
            UnOp::Exp if t == ScalarType::F32 => self.exp_f32(x)?.into(),
            UnOp::Log if t == ScalarType::F32 => self.log_f32(x)?.into(),
            UnOp::Erf if t == ScalarType::F32 => self.erf_f32(x)?.into(),
            UnOp::Exp => intr("llvm.exp")?,
            UnOp::Log => intr("llvm.log")?,
            UnOp::Log2 => intr("llvm.log2")?,
            UnOp::Log10 => intr("llvm.log10")?,
            UnOp::Sin => intr("llvm.sin")?,
            UnOp::Cos => intr("llvm.cos")?,
            UnOp::Floor => intr("llvm.floor")?,
            UnOp::Ceil => intr("llvm.ceil")?,
            UnOp::Round => intr("llvm.roundeven")?,
            UnOp::Trunc => intr("llvm.trunc")?,
            UnOp::Tan => self.call_libm("tan", t, &[x])?,
            UnOp::Asin => self.call_libm("asin", t, &[x])?,
            UnOp::Acos => self.call_libm("acos", t, &[x])?,
            UnOp::Atan => self.call_libm("atan", t, &[x])?,
            UnOp::Sinh => self.call_libm("sinh", t, &[x])?,
            UnOp::Cosh => self.call_libm("cosh", t, &[x])?,
            UnOp::Tanh => self.call_libm("tanh", t, &[x])?,
            UnOp::Erf => self.call_libm("erf", t, &[x])?,
            UnOp::Cbrt => self.call_libm("cbrt", t, &[x])?,
            UnOp::Log1p => self.call_libm("log1p", t, &[x])?,
            UnOp::Expm1 => self.call_libm("expm1", t, &[x])?,
            UnOp::Asinh => self.call_libm("asinh", t, &[x])?,
            UnOp::Acosh => self.call_libm("acosh", t, &[x])?,
            UnOp::Atanh => self.call_libm("atanh", t, &[x])?,
            UnOp::Gamma => self.call_libm("tgamma", t, &[x])?,
            UnOp::Lgamma => self.call_libm("lgamma", t, &[x])?,
            UnOp::Erfc => self.call_libm("erfc", t, &[x])?,
            UnOp::ToBits => {
                let to = op.result(t);
                return Ok((b.build_bit_cast(x, self.reg_type(to), "")?, to));
            }
            UnOp::IsNan => {
                let c = b.build_float_compare(FloatPredicate::UNO, x, x, "")?;
                return Ok((c.into(), ScalarType::Bool));
            }
            UnOp::IsInf => {
                let a = intr("llvm.fabs")?.into_float_value();
                let inf = self.float_type(t)?.const_float(f64::INFINITY);
                let c = b.build_float_compare(FloatPredicate::OEQ, a, inf, "")?;
                return Ok((c.into(), ScalarType::Bool));
            }
            UnOp::Not | UnOp::Popc | UnOp::Clz | UnOp::FromBits => {
                return err(format!("{} on {t}", op.name()))
            }
        };
        Ok((v, t))
    }

    /// Conversions as in section 10 of the language contract.
    fn convert(
        &self,
        x: BasicValueEnum<'ctx>,
        from: ScalarType,
        to: ScalarType,
    ) -> Res<BasicValueEnum<'ctx>> {
        if from == to {
            return Ok(x);
        }
        let b = &self.builder;
        let target = self.reg_type(to);
        match x {
            BasicValueEnum::IntValue(v) => {
                if to == ScalarType::Bool {
                    let zero = v.get_type().const_zero();
                    return Ok(b.build_int_compare(IntPredicate::NE, v, zero, "")?.into());
                }
                let signed = from.is_signed();
                if to == ScalarType::F16 {
                    // Through f64, as the interpreter rounds.
                    let f64t = self.ctx.f64_type();
                    let w = if signed {
                        b.build_signed_int_to_float(v, f64t, "")?
                    } else {
                        b.build_unsigned_int_to_float(v, f64t, "")?
                    };
                    return Ok(b.build_float_trunc(w, self.ctx.f16_type(), "")?.into());
                }
                if to.is_float() {
                    let ft = target.into_float_type();
                    return Ok(if signed {
                        b.build_signed_int_to_float(v, ft, "")?.into()
                    } else {
                        b.build_unsigned_int_to_float(v, ft, "")?.into()
                    });
                }
                // Integer to integer: keep the low bits, extend by the
                // source's signedness (bool is unsigned).
                Ok(
                    b.build_int_cast_sign_flag(v, target.into_int_type(), signed, "")?
                        .into(),
                )
            }
            BasicValueEnum::FloatValue(v) => {
                if to == ScalarType::Bool {
                    let zero = v.get_type().const_zero();
                    return Ok(b
                        .build_float_compare(FloatPredicate::UNE, v, zero, "")?
                        .into());
                }
                if to.is_float() {
                    let ft = target.into_float_type();
                    return Ok(if to.bits() > from.bits() {
                        b.build_float_ext(v, ft, "")?.into()
                    } else {
                        b.build_float_trunc(v, ft, "")?.into()
                    });
                }
                // Truncating, saturating, NaN to 0.
                let name = if to.is_signed() {
                    "llvm.fptosi.sat"
                } else {
                    "llvm.fptoui.sat"
                };
                self.call_intrinsic(name, &[target, v.get_type().into()], &[v.into()])
            }
            _ => err("conversion of a non-scalar"),
        }
    }
}
