//! Kernels per nest, and their launch from host code.
//!
//! A nest that host code reaches becomes one kernel or several, by its
//! `Parallelism` (docs/gpu.md, "Kernels"):
//!
//! - map and scatter, and histograms whose every update is one atomic
//!   operation: a grid-stride loop, one iteration per thread at a time
//!   (histograms' bins in shared memory per block when they fit,
//!   `private`);
//!   histograms whose updates are not: the same under a lock per bin
//!   (`hist`);
//! - reduce (scalar accumulators): each thread folds a contiguous slice
//!   of the iterations, a tree per block combines the threads' results
//!   (`reduce`), and levels of a combining kernel the blocks', in order,
//!   so non-commutative operators keep their order;
//! - scans, filters and partitions (look-back plan), with reductions
//!   beside them or not: one kernel over tiles, each tile's carry-in by
//!   decoupled look-back over the earlier tiles' statuses (`scan`);
//! - everything else (reductions and scans of arrays, histograms of rows):
//!   one thread runs the nest in sequential order (docs/gpu.md, "What
//!   remains").
//!
//! Inside a kernel, a nest of an iteration runs sequentially in that
//! iteration's thread (`sequential_nest`). A kernel's parameters after
//! `err` and `seq` are its width, the device buffer its carried values'
//! final values go to (one 8-byte cell a field), the buffer of per-thread
//! partial results, the nest's free variables and the carried values'
//! initial values. A check that fails records the error with the current
//! iteration as its key and ends the thread.

use super::device::nounwind;
use crate::codegen::emit::{val_type, Frame, Gen, Mode, Res, Val};
use crate::codegen::runtime::RuntimeFn;
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, Type, VarId};
use crate::loopy::ir::{Carried, LoopNest, ParPlan, Parallelism};
use crate::types::ScalarType;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::IntPredicate;
use std::collections::HashMap;

/// How a launched nest's iterations are spread over threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    GridStride,
    Partials,
    /// Scans and compactions: one kernel over tiles by decoupled
    /// look-back (`scan`).
    Scan,
    /// Histograms without atomic updates: grid-stride, each update under
    /// a lock per bin (`hist`).
    Locked,
    Single,
}

/// The threads of a launch: as planned for the work, or one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Grid {
    Work,
    One,
    /// As planned for the work with these bytes of shared memory a thread.
    Shared(usize),
}

/// The parameters of a nest's kernels after `err` and `seq`, as values in
/// host code and types at the kernel ABI (`bool` as `i8`).
pub(super) struct Params<'ctx> {
    free: Vec<(VarId, Val<'ctx>)>,
    /// Field values: width, out, partials, free variables, initial values.
    values: Vec<BasicValueEnum<'ctx>>,
    pub(super) types: Vec<BasicTypeEnum<'ctx>>,
    /// Carried values' types, in `LoopNest::carried` order.
    carried: Vec<Type>,
}

pub(super) const WIDTH: usize = 0;
pub(super) const OUT: usize = 1;
pub(super) const PARTIALS: usize = 2;
const FIXED: usize = 3;

impl<'ctx> Gen<'ctx, '_> {
    fn form(&self, nest: &LoopNest) -> Form {
        let scalar_carried = nest.carried().all(|c| matches!(c.var.ty, Type::Scalar(_)));
        match nest.par {
            Parallelism::Map | Parallelism::Scatter => Form::GridStride,
            Parallelism::Reduce if scalar_carried => Form::Partials,
            Parallelism::Scan | Parallelism::Compact
                if scalar_carried
                    && nest.hists.is_empty()
                    && matches!(
                        nest.plan.as_ref().map(|p| &p.strategy),
                        Some(ParPlan::TwoPhase { .. })
                    ) =>
            {
                Form::Scan
            }
            _ => Form::Single,
        }
    }

    /// A nest host code reaches: its kernels, launched.
    pub(crate) fn launch_nest(&mut self, fr: &mut Frame<'ctx>, nest: &LoopNest) -> Res<()> {
        let form = match nest.par {
            Parallelism::Hist => {
                // Atomic updates on bins of 4 or 8 bytes, the widths every
                // GPU has atomics of; otherwise one thread.
                let atomic = matches!(
                    nest.plan.as_ref().map(|p| &p.strategy),
                    Some(ParPlan::Hist { atomic: true, .. })
                );
                let planned = matches!(
                    nest.plan.as_ref().map(|p| &p.strategy),
                    Some(ParPlan::Hist { .. })
                );
                let (mut wide, mut rank1) = (true, true);
                for h in &nest.hists {
                    for b in &h.bins {
                        match self.val(fr, &Atom::Var(*b))? {
                            Val::Array { elem, shape, .. } => {
                                rank1 &= shape.len() == 1;
                                wide &= elem.bytes() >= 4 && elem != ScalarType::Bool
                            }
                            Val::Scalar(..) => rank1 = false,
                        }
                    }
                }
                if !planned || !rank1 {
                    Form::Single
                } else if atomic && wide {
                    Form::GridStride
                } else if super::hist::lockable(nest) {
                    Form::Locked
                } else {
                    Form::Single
                }
            }
            _ => self.form(nest),
        };
        let name = format!(
            "{}_k{}_{}",
            self.prefix,
            self.nests,
            nest.origin.describe("")
        );
        self.nests += 1;
        let params = self.params(fr, nest)?;
        let fields: usize = params
            .carried
            .iter()
            .map(|t| self.field_types(*t).len())
            .sum();
        let width = params.values[WIDTH].into_int_value();

        // Host side: the result buffer and, for partials, one per thread.
        let alloc = self.runtime(RuntimeFn::GpuAlloc);
        // The final carried values, and a scan's first failed slice.
        let cells = self.const_i64(((fields + 1) * 8) as i64);
        let out = self.call_int(alloc, &[cells.into()])?;
        let mut values = params.values.clone();
        values[OUT] = self.builder.build_int_to_ptr(out, self.ptr(), "")?.into();

        let atomic_bins: Vec<VarId> = if nest.par == Parallelism::Hist && form == Form::GridStride {
            nest.hists
                .iter()
                .flat_map(|h| h.bins.iter().copied())
                .collect()
        } else {
            Vec::new()
        };
        // Reductions: a tree per block in shared memory when it fits.
        let tree = form == Form::Partials && super::reduce::tree_ok(nest, fields);
        // Histograms of atomic updates: bins in shared memory when they fit.
        let private = !atomic_bins.is_empty()
            && super::private::privatisable(nest, &|b| match self.val(fr, &Atom::Var(b)) {
                Ok(Val::Array { elem, shape, .. }) if shape.len() == 1 => Some(elem),
                _ => None,
            });
        let main = self.kernel(&name, &params, atomic_bins, |gen, kfr, kp| match form {
            Form::GridStride if private => gen.private_hist_body(kfr, nest, kp),
            Form::GridStride => gen.grid_stride_body(kfr, nest, kp),
            Form::Partials if tree => gen.tree_body(kfr, nest, kp),
            Form::Partials => gen.partials_body(kfr, nest, kp),
            Form::Scan => gen.lookback_body(kfr, nest, kp),
            Form::Locked => {
                gen.set_locks(kfr, nest, kp[PARTIALS].into_pointer_value())?;
                gen.grid_stride_body(kfr, nest, kp)
            }
            Form::Single => gen.single_body(kfr, nest, kp),
        })?;
        self.reserve_heap(fr, nest, (form != Form::Single).then_some(main), width)?;
        let mut partials = None;
        // Where the final carried values are (device address).
        let mut finals_at = out;
        let mut spare = None;
        // A scan's reductions: where their combined results are.
        let mut reductions_at = None;
        match form {
            Form::GridStride if private => {
                // Private bins when they fit the block's shared memory
                // (a non-null `partials` tells the kernel), else global.
                let bytes = self.private_bytes(fr, nest)?;
                let limit = self.const_i64(super::private::PRIVATE_BYTES);
                let fits = self
                    .builder
                    .build_int_compare(IntPredicate::SLE, bytes, limit, "")?;
                let shared = self
                    .builder
                    .build_select(fits, bytes, self.const_i64(0), "")?
                    .into_int_value();
                let null = self.ptr().const_null();
                let marker = self
                    .builder
                    .build_select(fits, values[OUT], null.into(), "")?;
                values[PARTIALS] = marker;
                let launch = self.runtime(RuntimeFn::GpuLaunchSharedBlock);
                let k = self.ctx.i32_type().const_int(main as u64, false);
                let args = self.launch_args(&params.types, &values, fr)?;
                let none = self.const_i64(0);
                self.builder.build_call(
                    launch,
                    &[
                        k.into(),
                        width.into(),
                        shared.into(),
                        none.into(),
                        args.into(),
                    ],
                    "",
                )?;
            }
            Form::GridStride | Form::Single => self.launch(
                main,
                if form == Form::Single {
                    Grid::One
                } else {
                    Grid::Work
                },
                width,
                &params.types,
                &values,
                fr,
            )?,
            Form::Locked => {
                let count = self.lock_count(fr, nest)?;
                let words = self.builder.build_int_add(count, self.const_i64(1), "")?;
                let bytes = self.builder.build_int_mul(words, self.const_i64(4), "")?;
                let p = self.call_int(alloc, &[bytes.into()])?;
                let fill = self.runtime(RuntimeFn::GpuFill32);
                let zero = self.ctx.i32_type().const_zero();
                self.builder
                    .build_call(fill, &[p.into(), zero.into(), count.into()], "")?;
                partials = Some(p);
                values[PARTIALS] = self.builder.build_int_to_ptr(p, self.ptr(), "")?.into();
                self.launch(main, Grid::Work, width, &params.types, &values, fr)?;
            }
            Form::Scan => {
                // One kernel (decoupled look-back); its buffer: the ticket,
                // a status, an aggregate and an inclusive prefix per tile,
                // then (with reductions) a partial per thread and tile.
                // Staged input tiles take shared memory per thread.
                let (staged, items) = self.staging(fr, nest, super::scan::TILE_ITEMS)?;
                let per_thread = Self::staged_bytes(&staged, items);
                let shared = self.const_i64(super::scan::lookback_shared(fields) as i64);
                let per_thread = self.const_i64(per_thread);
                let items = self.const_i64(items);
                let k = self.ctx.i32_type().const_int(main as u64, false);
                let plan_args = [
                    k.into(),
                    width.into(),
                    shared.into(),
                    per_thread.into(),
                    items.into(),
                ];
                let tiles_fn = self.runtime(RuntimeFn::GpuLookbackTiles);
                let tiles = self.call_int(tiles_fn, &plan_args)?;
                let chunks_fn = self.runtime(RuntimeFn::GpuLookbackChunks);
                let chunks = self.call_int(chunks_fn, &plan_args)?;
                let reductions = super::scan::reduction_values(nest) > 0;
                let per_tile = self.const_i64((2 * fields + 1) as i64);
                let cells = self.builder.build_int_mul(tiles, per_tile, "")?;
                let cells = self.builder.build_int_add(cells, self.const_i64(1), "")?;
                let red_at = self.builder.build_int_mul(cells, self.const_i64(8), "")?;
                let cells = if reductions {
                    let more =
                        self.builder
                            .build_int_mul(chunks, self.const_i64(fields as i64), "")?;
                    self.builder.build_int_add(cells, more, "")?
                } else {
                    cells
                };
                let bytes = self.builder.build_int_mul(cells, self.const_i64(8), "")?;
                let p = self.call_int(alloc, &[bytes.into()])?;
                // The ticket and the statuses start at 0.
                let fill = self.runtime(RuntimeFn::GpuFill32);
                let words = self.builder.build_int_add(tiles, self.const_i64(1), "")?;
                let words = self.builder.build_int_mul(words, self.const_i64(2), "")?;
                let zero32 = self.ctx.i32_type().const_zero();
                self.builder
                    .build_call(fill, &[p.into(), zero32.into(), words.into()], "")?;
                partials = Some(p);
                values[PARTIALS] = self.builder.build_int_to_ptr(p, self.ptr(), "")?.into();
                let launch = self.runtime(RuntimeFn::GpuLaunchSharedBlock);
                let args = self.launch_args(&params.types, &values, fr)?;
                self.builder.build_call(
                    launch,
                    &[
                        k.into(),
                        width.into(),
                        shared.into(),
                        per_thread.into(),
                        args.into(),
                    ],
                    "",
                )?;
                if reductions {
                    let combine = self.kernel(
                        &format!("{name}_combine"),
                        &params,
                        Vec::new(),
                        |gen, kfr, kp| gen.combine_body(kfr, nest, kp),
                    )?;
                    let red = self.builder.build_int_add(p, red_at, "")?;
                    let (result, other) =
                        self.combine_levels(combine, chunks, red, fields, &params, &values, fr)?;
                    reductions_at = Some(result);
                    spare = Some(other);
                }
            }
            Form::Partials => {
                let k = self.ctx.i32_type().const_int(main as u64, false);
                // A partial per block (tree) or per thread.
                let shared = self.const_i64((fields * 8) as i64);
                let threads = if tree {
                    let f = self.runtime(RuntimeFn::GpuBlocksShared);
                    self.call_int(f, &[k.into(), width.into(), shared.into()])?
                } else {
                    let threads_fn = self.runtime(RuntimeFn::GpuThreads);
                    self.call_int(threads_fn, &[k.into(), width.into()])?
                };
                let cell = self.const_i64((fields.max(1) * 8) as i64);
                let bytes = self.builder.build_int_mul(threads, cell, "")?;
                let p = self.call_int(alloc, &[bytes.into()])?;
                partials = Some(p);
                values[PARTIALS] = self.builder.build_int_to_ptr(p, self.ptr(), "")?.into();
                let grid = if tree {
                    Grid::Shared(fields * 8)
                } else {
                    Grid::Work
                };
                self.launch(main, grid, width, &params.types, &values, fr)?;
                let combine = self.kernel(
                    &format!("{name}_combine"),
                    &params,
                    Vec::new(),
                    |gen, kfr, kp| gen.combine_body(kfr, nest, kp),
                )?;
                let (result, other) =
                    self.combine_levels(combine, threads, p, fields, &params, &values, fr)?;
                finals_at = result;
                spare = Some(other);
            }
        }
        let free = self.runtime(RuntimeFn::GpuFree);
        if fields > 0 {
            // Final carried values: reductions' results, compaction counts.
            let slot_ty = self.i64().array_type(fields as u32);
            let slot = self.entry_alloca(fr.func, slot_ty.into())?;
            let copy_out = self.runtime(RuntimeFn::GpuCopyOut);
            let bytes = self.const_i64((fields * 8) as i64);
            self.builder.build_call(
                copy_out,
                &[slot.into(), finals_at.into(), bytes.into()],
                "",
            )?;
            let mut finals = self.load_cells(slot, &params.carried)?;
            if let Some(at) = reductions_at {
                // The reductions' results come from their combination.
                let r = super::scan::reduction_values(nest);
                self.builder
                    .build_call(copy_out, &[slot.into(), at.into(), bytes.into()], "")?;
                let combined = self.load_cells(slot, &params.carried)?;
                finals.splice(..r, combined.into_iter().take(r));
            }
            self.bind_finals(fr, nest, finals)?;
        }
        self.builder.build_call(free, &[out.into()], "")?;
        for p in partials.into_iter().chain(spare) {
            self.builder.build_call(free, &[p.into()], "")?;
        }
        Ok(())
    }

    /// Launches kernel `kernel` over `width` items (or one thread).
    pub(super) fn launch(
        &mut self,
        kernel: usize,
        grid: Grid,
        width: IntValue<'ctx>,
        types: &[BasicTypeEnum<'ctx>],
        values: &[BasicValueEnum<'ctx>],
        fr: &Frame<'ctx>,
    ) -> Res<()> {
        let args = self.launch_args(types, values, fr)?;
        let k = self.ctx.i32_type().const_int(kernel as u64, false);
        if grid == Grid::One {
            let f = self.runtime(RuntimeFn::GpuLaunchOne);
            self.builder.build_call(f, &[k.into(), args.into()], "")?;
        } else if let Grid::Shared(bytes) = grid {
            let f = self.runtime(RuntimeFn::GpuLaunchShared);
            let b = self.const_i64(bytes as i64);
            self.builder
                .build_call(f, &[k.into(), width.into(), b.into(), args.into()], "")?;
        } else {
            let f = self.runtime(RuntimeFn::GpuLaunchWork);
            self.builder
                .build_call(f, &[k.into(), width.into(), args.into()], "")?;
        }
        Ok(())
    }

    /// The `void **` array of a launch's parameters (after `err` and `seq`).
    fn launch_args(
        &self,
        types: &[BasicTypeEnum<'ctx>],
        values: &[BasicValueEnum<'ctx>],
        fr: &Frame<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        let n = values.len();
        let array_ty = self.ptr().array_type(n.max(1) as u32);
        let args = self.entry_alloca(fr.func, array_ty.into())?;
        for (k, (v, ty)) in values.iter().zip(types).enumerate() {
            let slot = self.entry_alloca(fr.func, *ty)?;
            let v = self.to_abi(*v, *ty)?;
            self.builder.build_store(slot, v)?;
            // Safety: `k` is below the array's length.
            let at = unsafe {
                self.builder.build_in_bounds_gep(
                    array_ty,
                    args,
                    &[self.const_i64(0), self.const_i64(k as i64)],
                    "",
                )?
            };
            self.builder.build_store(at, slot)?;
        }
        Ok(args)
    }

    /// `bool` (`i1`) as `i8` where the kernel ABI has it.
    fn to_abi(
        &self,
        v: BasicValueEnum<'ctx>,
        ty: BasicTypeEnum<'ctx>,
    ) -> Res<BasicValueEnum<'ctx>> {
        match (v, ty) {
            (BasicValueEnum::IntValue(i), BasicTypeEnum::IntType(t))
                if i.get_type().get_bit_width() == 1 && t.get_bit_width() == 8 =>
            {
                Ok(self.builder.build_int_z_extend(i, t, "")?.into())
            }
            _ => Ok(v),
        }
    }

    fn abi_to_reg(
        &self,
        v: BasicValueEnum<'ctx>,
        ty: BasicTypeEnum<'ctx>,
    ) -> Res<BasicValueEnum<'ctx>> {
        match (v, ty) {
            (BasicValueEnum::IntValue(i), BasicTypeEnum::IntType(t))
                if t.get_bit_width() == 1 && i.get_type().get_bit_width() != 1 =>
            {
                let zero = i.get_type().const_zero();
                Ok(self
                    .builder
                    .build_int_compare(IntPredicate::NE, i, zero, "")?
                    .into())
            }
            _ => Ok(v),
        }
    }

    fn abi_type(&self, ty: BasicTypeEnum<'ctx>) -> BasicTypeEnum<'ctx> {
        match ty {
            BasicTypeEnum::IntType(t) if t.get_bit_width() == 1 => self.ctx.i8_type().into(),
            t => t,
        }
    }

    fn params(&self, fr: &Frame<'ctx>, nest: &LoopNest) -> Res<Params<'ctx>> {
        let free: Vec<(VarId, Val<'ctx>)> = nest
            .free_vars()
            .into_iter()
            .map(|v| Ok((v, self.val(fr, &Atom::Var(v))?)))
            .collect::<Res<_>>()?;
        let null = self.ptr().const_null();
        let mut values: Vec<BasicValueEnum<'ctx>> =
            vec![self.int(fr, &nest.width)?.into(), null.into(), null.into()];
        for (_, val) in &free {
            values.extend(self.fields(val));
        }
        let mut carried = Vec::new();
        for c in nest.carried() {
            let init = self.val(fr, &c.init)?;
            values.extend(self.fields(&init));
            carried.push(c.var.ty);
        }
        let types = values.iter().map(|v| self.abi_type(v.get_type())).collect();
        Ok(Params {
            free,
            values,
            types,
            carried,
        })
    }

    /// A kernel `name` over `params`, its body generated by `body` in a
    /// frame holding the free variables, with the parameter values (ABI
    /// conversions undone). Returns its index.
    fn kernel(
        &mut self,
        name: &str,
        params: &Params<'ctx>,
        atomic_bins: Vec<VarId>,
        body: impl FnOnce(&mut Self, &mut Frame<'ctx>, &[BasicValueEnum<'ctx>]) -> Res<()>,
    ) -> Res<usize> {
        let caller = self.current_block()?;
        self.swap_modules()?;
        let result = self.kernel_in_device(name, params, atomic_bins, body);
        self.swap_modules()?;
        self.builder.position_at_end(caller);
        let f = result?;
        let device = self
            .device
            .as_mut()
            .ok_or_else(|| CodegenError::Internal("a kernel without a device".into()))?;
        device.current = None;
        device.locks = None;
        device.kernels.push((name.to_string(), params.types.len()));
        let _ = f;
        Ok(device.kernels.len() - 1)
    }

    fn swap_modules(&mut self) -> Res<()> {
        let device = self
            .device
            .as_mut()
            .ok_or_else(|| CodegenError::Internal("GPU code without a device module".into()))?;
        std::mem::swap(&mut self.module, &mut device.module);
        Ok(())
    }

    fn kernel_in_device(
        &mut self,
        name: &str,
        params: &Params<'ctx>,
        atomic_bins: Vec<VarId>,
        body: impl FnOnce(&mut Self, &mut Frame<'ctx>, &[BasicValueEnum<'ctx>]) -> Res<()>,
    ) -> Res<FunctionValue<'ctx>> {
        let emulated = self.emulated()?;
        let mut all: Vec<BasicTypeEnum<'ctx>> = vec![self.ptr().into(), self.i64().into()];
        all.extend(params.types.iter().copied());
        let meta: Vec<_> = all.iter().map(|t| (*t).into()).collect();
        let fn_ty = self.ctx.void_type().fn_type(&meta, false);
        let (symbol, linkage) = if emulated {
            (
                format!("{name}.body"),
                Some(inkwell::module::Linkage::Internal),
            )
        } else {
            (name.to_string(), None)
        };
        let func = self.module.add_function(&symbol, fn_ty, linkage);
        nounwind(self.ctx, func);
        let entry = self.ctx.append_basic_block(func, "entry");
        self.builder.position_at_end(entry);
        let key = self.builder.build_alloca(self.i64(), "key")?;
        self.builder.build_store(key, self.const_i64(0))?;
        let param = |k: u32| {
            func.get_nth_param(k)
                .ok_or_else(|| CodegenError::Internal("kernel without its parameters".into()))
        };
        let state = super::device::KernelState {
            err: param(0)?.into_pointer_value(),
            seq: param(1)?.into_int_value(),
            key,
            flag: None,
            on_fail: None,
        };
        if let Some(d) = self.device.as_mut() {
            d.current = Some(state);
        }
        let mut values = Vec::new();
        for (k, (ty, host)) in params.types.iter().zip(&params.values).enumerate() {
            let v = param(k as u32 + 2)?;
            values.push(self.abi_to_reg(v, host.get_type())?);
            let _ = ty;
        }
        let mut frame = Frame {
            func,
            vals: HashMap::new(),
            in_parallel: None,
        };
        let mut at = FIXED;
        for (v, val) in &params.free {
            let ty = val_type(val);
            let n = self.field_types(ty).len();
            let fields = values.get(at..at + n).ok_or_else(|| {
                CodegenError::Internal("kernel parameters do not fit the nest".into())
            })?;
            frame.vals.insert(*v, self.val_of_fields(ty, fields)?);
            at += n;
        }
        let mode = Mode {
            nest_depth: 1,
            atomic_bins,
            ..Mode::default()
        };
        self.with_mode(mode, |gen| body(gen, &mut frame, &values))?;
        self.builder.build_return(None)?;
        self.mark_kernel(func, name, &all[2..])?;
        Ok(func)
    }

    /// The carried values' initial values among a kernel's parameters.
    pub(super) fn inits(
        &self,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<Vec<Vec<BasicValueEnum<'ctx>>>> {
        let carried: Vec<&Carried> = nest.carried().collect();
        let total: usize = carried
            .iter()
            .map(|c| self.field_types(c.var.ty).len())
            .sum();
        let mut at = kp.len().checked_sub(total).ok_or_else(|| {
            CodegenError::Internal("kernel parameters without the initial values".into())
        })?;
        let mut out = Vec::new();
        for c in carried {
            let n = self.field_types(c.var.ty).len();
            out.push(kp[at..at + n].to_vec());
            at += n;
        }
        Ok(out)
    }

    pub(super) fn key_slot(&self) -> Res<PointerValue<'ctx>> {
        self.device
            .as_ref()
            .and_then(|d| d.current)
            .map(|k| k.key)
            .ok_or_else(|| CodegenError::Internal("no kernel is being generated".into()))
    }

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
    fn iteration(&mut self, fr: &mut Frame<'ctx>, nest: &LoopNest, i: IntValue<'ctx>) -> Res<()> {
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
        // unrolled), the others from the device heap.
        let saved = std::mem::take(&mut self.thread_buffers);
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
        let carried: Vec<&Carried> = nest.carried().collect();
        let (lo, hi, step) = range;
        // Small per-thread scratch on the stack (kept for the nests inside).
        let saved = self.thread_buffers.clone();
        self.stack_scratch(fr, body)?;
        self.kernel_loop(fr, lo, hi, step, &mut |gen, fr, i| {
            if set_key {
                let key = gen.key_slot()?;
                gen.builder.build_store(key, i)?;
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
    fn bind_finals(
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

    fn single_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let inits = self.inits(nest, kp)?;
        let slots = self.carried_slots(fr, &inits)?;
        let zero = self.const_i64(0);
        let width = kp[WIDTH].into_int_value();
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
        let one = self.const_i64(1);
        let up = self.builder.build_int_add(width, threads, "")?;
        let up = self.builder.build_int_sub(up, one, "")?;
        let chunk = self.builder.build_int_signed_div(up, threads, "chunk")?;
        let lo = self.builder.build_int_mul(gid, chunk, "")?;
        let lo = self.min(lo, width)?;
        let hi = self.builder.build_int_add(lo, chunk, "")?;
        let hi = self.min(hi, width)?;
        Ok((gid, lo, hi))
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

    pub(super) fn cell_ptr(
        &self,
        base: PointerValue<'ctx>,
        k: IntValue<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        // Safety: the buffers have a cell per field (and per thread).
        Ok(unsafe {
            self.builder
                .build_in_bounds_gep(self.i64(), base, &[k], "")?
        })
    }

    /// Stores the fields of `vals` in consecutive 8-byte cells from cell
    /// `first` (`bool` as a byte).
    pub(super) fn store_cells(
        &self,
        base: PointerValue<'ctx>,
        first: IntValue<'ctx>,
        vals: &[Val<'ctx>],
    ) -> Res<()> {
        self.store_cells_with(base, first, vals, false)
    }

    /// `store_cells`, volatile where other blocks read the cells while
    /// this kernel runs (no stale L1 line on either side).
    pub(super) fn store_cells_with(
        &self,
        base: PointerValue<'ctx>,
        first: IntValue<'ctx>,
        vals: &[Val<'ctx>],
        volatile: bool,
    ) -> Res<()> {
        let mut k = 0i64;
        for v in vals {
            for f in self.fields(v) {
                let at = self.builder.build_int_add(first, self.const_i64(k), "")?;
                let p = self.cell_ptr(base, at)?;
                let f = self.to_abi(f, self.abi_type(f.get_type()))?;
                let store = self.builder.build_store(p, f)?;
                if volatile {
                    store
                        .set_volatile(true)
                        .map_err(|e| CodegenError::Internal(format!("volatile store: {e}")))?;
                }
                k += 1;
            }
        }
        Ok(())
    }

    pub(super) fn read_cells(
        &self,
        base: PointerValue<'ctx>,
        first: IntValue<'ctx>,
        types: &[Type],
    ) -> Res<Vec<Val<'ctx>>> {
        self.read_cells_with(base, first, types, false)
    }

    pub(super) fn read_cells_with(
        &self,
        base: PointerValue<'ctx>,
        first: IntValue<'ctx>,
        types: &[Type],
        volatile: bool,
    ) -> Res<Vec<Val<'ctx>>> {
        let mut k = 0i64;
        let mut out = Vec::new();
        for t in types {
            let mut fields = Vec::new();
            for ft in self.field_types(*t) {
                let at = self.builder.build_int_add(first, self.const_i64(k), "")?;
                let p = self.cell_ptr(base, at)?;
                let v = self.builder.build_load(self.abi_type(ft), p, "")?;
                if volatile {
                    if let Some(inst) = inkwell::values::BasicValue::as_instruction_value(&v) {
                        inst.set_volatile(true)
                            .map_err(|e| CodegenError::Internal(format!("volatile load: {e}")))?;
                    }
                }
                fields.push(self.abi_to_reg(v, ft)?);
                k += 1;
            }
            out.push(self.val_of_fields(*t, &fields)?);
        }
        Ok(out)
    }

    /// Host side: the final carried values copied into `slot`.
    fn load_cells(&self, slot: PointerValue<'ctx>, types: &[Type]) -> Res<Vec<Val<'ctx>>> {
        self.read_cells(slot, self.const_i64(0), types)
    }
}
