//! The kernel ABI: a nest's kernel parameters (`Params`), the kernel
//! function's prologue in the device module (the error state and the free
//! variables bound from the parameters), and launches from host code (the
//! `void **` argument array, `bool` as `i8` at the boundary).
//!
//! A kernel's parameters after `err` and `seq` are its width, the device
//! buffer its carried values' final values go to (one 8-byte cell a
//! field), the buffer of per-thread partial results, the per-nest
//! scratch buffer (set by the runtime at launch, `heap`), the nest's free
//! variables and the carried values' initial values.

use super::device::nounwind;
use crate::codegen::emit::{val_type, Frame, Gen, Mode, Res, Val};
use crate::codegen::runtime::RuntimeFn;
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, Type, VarId};
use crate::loopy::ir::{Carried, LoopNest};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::IntPredicate;
use std::collections::HashMap;

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
    pub(super) free: Vec<(VarId, Val<'ctx>)>,
    /// Field values: width, out, partials, scratch, free variables,
    /// initial values.
    pub(super) values: Vec<BasicValueEnum<'ctx>>,
    pub(super) types: Vec<BasicTypeEnum<'ctx>>,
    /// Carried values' types, in `LoopNest::carried` order.
    pub(super) carried: Vec<Type>,
}

pub(super) const WIDTH: usize = 0;
pub(super) const OUT: usize = 1;
pub(super) const PARTIALS: usize = 2;
/// Per-nest scratch from the pool (`arr_gpu_scratch`): the runtime sets it
/// at each launch of the kernel that has it.
pub(super) const SCRATCH: usize = 3;
const FIXED: usize = 4;

impl<'ctx> Gen<'ctx, '_> {
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

    /// Launches kernel `kernel` over `width` items in blocks that take
    /// `shared` bytes of dynamic shared memory each, plus `per_thread`
    /// bytes per thread (`GpuLaunchSharedBlock`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch_shared_block(
        &mut self,
        kernel: usize,
        width: IntValue<'ctx>,
        shared: IntValue<'ctx>,
        per_thread: IntValue<'ctx>,
        types: &[BasicTypeEnum<'ctx>],
        values: &[BasicValueEnum<'ctx>],
        fr: &Frame<'ctx>,
    ) -> Res<()> {
        let launch = self.runtime(RuntimeFn::GpuLaunchSharedBlock);
        let k = self.ctx.i32_type().const_int(kernel as u64, false);
        let args = self.launch_args(types, values, fr)?;
        let call_args = [
            k.into(),
            width.into(),
            shared.into(),
            per_thread.into(),
            args.into(),
        ];
        self.builder.build_call(launch, &call_args, "")?;
        Ok(())
    }

    /// The `void **` array of a launch's parameters (after `err` and `seq`).
    pub(super) fn launch_args(
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
    pub(super) fn to_abi(
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

    pub(super) fn abi_to_reg(
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

    pub(super) fn abi_type(&self, ty: BasicTypeEnum<'ctx>) -> BasicTypeEnum<'ctx> {
        match ty {
            BasicTypeEnum::IntType(t) if t.get_bit_width() == 1 => self.ctx.i8_type().into(),
            t => t,
        }
    }

    pub(super) fn params(&self, fr: &Frame<'ctx>, nest: &LoopNest) -> Res<Params<'ctx>> {
        let free: Vec<(VarId, Val<'ctx>)> = nest
            .free_vars()
            .into_iter()
            .map(|v| Ok((v, self.val(fr, &Atom::Var(v))?)))
            .collect::<Res<_>>()?;
        let null = self.ptr().const_null();
        let mut values: Vec<BasicValueEnum<'ctx>> = vec![
            self.int(fr, &nest.width)?.into(),
            null.into(),
            null.into(),
            null.into(),
        ];
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
    pub(super) fn kernel(
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
        // The kernel's own scratch arrays only: those of the per-nest
        // scratch when host code planned them for this kernel.
        let pooled = self
            .device
            .as_mut()
            .map(|d| std::mem::take(&mut d.pooled))
            .unwrap_or_default();
        let saved = std::mem::take(&mut self.thread_buffers);
        let result = self.with_mode(mode, |gen| {
            if !pooled.is_empty() {
                let scratch = values[SCRATCH].into_pointer_value();
                gen.pooled_buffers(&frame, &pooled, scratch)?;
            }
            body(gen, &mut frame, &values)
        });
        self.thread_buffers = saved;
        result?;
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
}
