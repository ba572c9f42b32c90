//! The GPU targets, `--target nvptx` and `--target nvptx-emu`: host code
//! for x86-64 that launches every nest host code reaches as a kernel of a
//! device module, through the host interface of `arr_gpu.h`
//! (src/runtime/c/gpu/). Loopy IR in; out, the host module (entry points,
//! launches, copies) and the device module (kernels), which `device`
//! turns into PTX (nvptx) or links into the host module with the device
//! ABI lowered to the emulator's calls (nvptx-emu).
//!
//! `kernel` chooses the kernels per nest (see docs/gpu.md, "Kernels") and
//! launches them; `abi` holds the kernels' parameters, prologue and
//! launch arguments, `loops` the loops inside kernels (grid-stride,
//! sequential with carried values), `cells` the 8-byte cells of final
//! values and partial results; `rows` row reductions (a warp or a block
//! per row); `columns` the segmented forms (a thread per element of an
//! array accumulator or a bin row), `column_tree` reductions of arrays
//! cut into chunks of iterations when columns are few, `scan_chunks`
//! scans of arrays so cut, `hist_chunks` histograms of rows into private
//! copies of the bins per chunk, `hist_atomic` histograms of rows by
//! atomics, a thread per iteration and column; `scan` the kernels of scans and
//! compactions, `reduce` the block trees of reductions, `stage` the input
//! tiles scans and non-commutative reductions stage in shared memory,
//! `hist` the locks of histograms without atomic updates, `private`
//! histograms with bins in shared memory; `tile` matmul-like nests in square tiles with their operands staged in
//! shared memory; `heap` sizes the device heap of
//! kernels' scratch arrays; `device` holds the device module's target
//! parts (special registers, run-time errors, libdevice, PTX); `link`
//! writes the program descriptor and links the binary.
//!
//! Memory: an array host code allocates lives in device memory (the pool
//! behind `arr_gpu_alloc`) unless only host code uses it
//! (`loopy::memory`: then `arr_alloc`, and light maps over it run in host
//! code); entry arguments are copied in once and results out once. Host code reads, writes and copies device arrays
//! through the runtime's copies (`host_load` and the others), which the
//! emulator serves as the CUDA driver would, so the emulator runs the
//! same host code as a GPU.

mod abi;
mod cells;
mod column_tree;
mod columns;
pub(crate) mod device;
mod group;
mod group_scan;
mod heap;
mod hist;
mod hist_atomic;
mod hist_chunks;
mod kernel;
pub(crate) mod link;
mod loops;
mod private;
mod private_locked;
mod reduce;
mod rows;
mod scan;
mod scan_chunks;
mod split_rows;
mod split_scan;
mod stage;
mod tile;

use super::backend::{Backend, Trap};
use super::emit::{Frame, Gen, Res};
use super::runtime::RuntimeFn;
use super::Cpu;
use crate::core::ir::SrcLoc;
use crate::loopy::ir::{Launch, LoopNest, MemSpace};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use std::collections::HashMap;

pub(crate) use device::Device;

/// What a GPU build leaves for the link: the kernels' names and parameter
/// counts, the locations of device run-time errors, and the PTX (nvptx).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Artifacts {
    pub emulated: bool,
    pub kernels: Vec<(String, usize)>,
    pub locations: Vec<String>,
    pub ptx: Option<String>,
}

/// The backend of both GPU targets.
pub(crate) struct GpuBackend {
    pub(crate) opt_level: u8,
    pub(crate) cpu: Cpu,
}

/// The program descriptor the glue defines (`arr_gpu_program`).
pub(crate) const DESCRIPTOR: &str = "arr_gpu_desc";

impl Backend for GpuBackend {
    fn nest<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
    ) -> Res<()> {
        if let Some(group) = gen.row_group_for(nest) {
            // A reduction of a row group's statements (`group`).
            return gen.group_reduce(fr, nest, group);
        }
        if gen.mode.nest_depth > 0 || nest.launch == Launch::Inline {
            // Inside a kernel's iteration: that thread runs it; a light map
            // over host memory: host code runs it.
            gen.sequential_nest(fr, nest, false)
        } else {
            gen.launch_nest(fr, nest)
        }
    }

    fn trap<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        trap: Trap,
        operands: &[IntValue<'ctx>],
        loc: SrcLoc,
    ) -> Res<()> {
        if gen.mode.nest_depth > 0 {
            return gen.kernel_trap(trap, operands, loc);
        }
        // A kernel launched before may have failed first: its error wins.
        let sync = gen.runtime(RuntimeFn::GpuSync);
        gen.builder.build_call(sync, &[], "")?;
        super::cpu::host_trap(gen, trap, operands, loc)
    }

    fn alloc<'ctx>(
        &self,
        gen: &Gen<'ctx, '_>,
        space: MemSpace,
        bytes: IntValue<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        if gen.mode.nest_depth > 0 || space == MemSpace::Scratch {
            return gen.device_malloc(bytes);
        }
        if space == MemSpace::Host {
            // Only host code uses it (`loopy::memory`); `Stmt::Free` of a
            // host array calls `arr_free`.
            let f = gen.runtime(RuntimeFn::Alloc);
            let call = gen.builder.build_call(f, &[bytes.into()], "arr")?;
            return match call.try_as_basic_value().basic() {
                Some(BasicValueEnum::PointerValue(p)) => Ok(p),
                _ => super::emit::err("arr_alloc does not return a pointer"),
            };
        }
        let f = gen.runtime(RuntimeFn::GpuAlloc);
        let d = gen.call_int(f, &[bytes.into()])?;
        Ok(gen.builder.build_int_to_ptr(d, gen.ptr(), "dev")?)
    }

    fn free<'ctx>(&self, gen: &Gen<'ctx, '_>, ptr: PointerValue<'ctx>) -> Res<()> {
        if gen.mode.nest_depth > 0 {
            return gen.device_free(ptr);
        }
        let f = gen.runtime(RuntimeFn::GpuFree);
        let d = gen.builder.build_ptr_to_int(ptr, gen.i64(), "")?;
        gen.builder.build_call(f, &[d.into()], "")?;
        Ok(())
    }

    fn host_load<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        fr: &Frame<'ctx>,
        ty: BasicTypeEnum<'ctx>,
        ptr: PointerValue<'ctx>,
    ) -> Res<BasicValueEnum<'ctx>> {
        let slot = gen.entry_alloca(fr.func, ty)?;
        let bytes = gen.type_bytes(ty)?;
        let f = gen.runtime(RuntimeFn::GpuCopyOut);
        let src = gen.builder.build_ptr_to_int(ptr, gen.i64(), "")?;
        gen.builder
            .build_call(f, &[slot.into(), src.into(), bytes.into()], "")?;
        Ok(gen.builder.build_load(ty, slot, "")?)
    }

    fn host_store<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        fr: &Frame<'ctx>,
        ptr: PointerValue<'ctx>,
        value: BasicValueEnum<'ctx>,
    ) -> Res<()> {
        let ty = value.get_type();
        let slot = gen.entry_alloca(fr.func, ty)?;
        gen.builder.build_store(slot, value)?;
        let bytes = gen.type_bytes(ty)?;
        let f = gen.runtime(RuntimeFn::GpuCopyIn);
        let dst = gen.builder.build_ptr_to_int(ptr, gen.i64(), "")?;
        gen.builder
            .build_call(f, &[dst.into(), slot.into(), bytes.into()], "")?;
        Ok(())
    }

    fn host_copy<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        dst: PointerValue<'ctx>,
        src: PointerValue<'ctx>,
        bytes: IntValue<'ctx>,
        spaces: [MemSpace; 2],
    ) -> Res<()> {
        let d = gen.builder.build_ptr_to_int(dst, gen.i64(), "")?;
        let s = gen.builder.build_ptr_to_int(src, gen.i64(), "")?;
        let (f, args) = match spaces {
            [MemSpace::Host, _] => (RuntimeFn::GpuCopyOut, [dst.into(), s.into(), bytes.into()]),
            [_, MemSpace::Host] => (RuntimeFn::GpuCopyIn, [d.into(), src.into(), bytes.into()]),
            _ => (RuntimeFn::GpuCopyWithin, [d.into(), s.into(), bytes.into()]),
        };
        let f = gen.runtime(f);
        gen.builder.build_call(f, &args, "")?;
        Ok(())
    }

    fn entry_start<'ctx>(&self, gen: &mut Gen<'ctx, '_>) -> Res<()> {
        let desc = match gen.module.get_global(DESCRIPTOR) {
            Some(g) => g,
            None => gen.module.add_global(gen.ctx.i8_type(), None, DESCRIPTOR),
        };
        let f = gen.runtime(RuntimeFn::GpuInit);
        gen.builder
            .build_call(f, &[desc.as_pointer_value().into()], "")?;
        Ok(())
    }

    /// An array argument on the device: copied in by the runtime, or, in
    /// a library whose arrays live on the device, the argument itself.
    fn entry_param<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        ptr: PointerValue<'ctx>,
        bytes: IntValue<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        let f = gen.runtime(RuntimeFn::GpuEntryIn);
        let d = gen.call_int(f, &[ptr.into(), bytes.into()])?;
        Ok(gen.builder.build_int_to_ptr(d, gen.ptr(), "arg")?)
    }

    /// An array result as the caller takes it: copied out to host memory
    /// (freeing the device's), or in a library the device array itself.
    fn entry_result<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        ptr: PointerValue<'ctx>,
        bytes: IntValue<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        let d = gen.builder.build_ptr_to_int(ptr, gen.i64(), "")?;
        let out = gen.runtime(RuntimeFn::GpuEntryOut);
        Ok(gen
            .builder
            .build_call(out, &[d.into(), bytes.into()], "result")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| {
                super::CodegenError::Internal("arr_gpu_entry_out returns nothing".into())
            })?
            .into_pointer_value())
    }

    fn entry_end<'ctx>(&self, gen: &mut Gen<'ctx, '_>, params: &[PointerValue<'ctx>]) -> Res<()> {
        let release = gen.runtime(RuntimeFn::GpuEntryRelease);
        for p in params {
            let d = gen.builder.build_ptr_to_int(*p, gen.i64(), "")?;
            gen.builder.build_call(release, &[d.into()], "")?;
        }
        let sync = gen.runtime(RuntimeFn::GpuSync);
        gen.builder.build_call(sync, &[], "")?;
        Ok(())
    }

    fn machine(&self) -> Res<TargetMachine> {
        super::cpu::host_machine(self.opt_level, self.cpu)
    }

    fn prepare(&self, _ctx: &Context, _module: &Module) -> Res<()> {
        Ok(())
    }
}

impl<'ctx> Gen<'ctx, '_> {
    /// Calls `f`, which returns an integer.
    pub(crate) fn call_int(
        &self,
        f: inkwell::values::FunctionValue<'ctx>,
        args: &[inkwell::values::BasicMetadataValueEnum<'ctx>],
    ) -> Res<IntValue<'ctx>> {
        self.builder
            .build_call(f, args, "")?
            .try_as_basic_value()
            .basic()
            .map(|v| v.into_int_value())
            .ok_or_else(|| super::CodegenError::Internal("a call returns nothing".into()))
    }

    /// The store size of `ty` in bytes, as an `i64`.
    pub(crate) fn type_bytes(&self, ty: BasicTypeEnum<'ctx>) -> Res<IntValue<'ctx>> {
        let bits = match ty {
            BasicTypeEnum::IntType(t) => t.get_bit_width().div_ceil(8).max(1) as i64,
            BasicTypeEnum::FloatType(t) if t == self.ctx.f16_type() => 2,
            BasicTypeEnum::FloatType(t) if t == self.ctx.f32_type() => 4,
            BasicTypeEnum::FloatType(_) | BasicTypeEnum::PointerType(_) => 8,
            _ => return super::emit::err("a value of an unexpected type in device memory"),
        };
        Ok(self.const_i64(bits))
    }
}

/// Device run-time error locations, numbered in order of first use.
#[derive(Default)]
pub(crate) struct Locations {
    pub(crate) texts: Vec<String>,
    index: HashMap<String, usize>,
}

impl Locations {
    pub(crate) fn number(&mut self, text: String) -> usize {
        if let Some(&k) = self.index.get(&text) {
            return k;
        }
        self.texts.push(text.clone());
        self.index.insert(text, self.texts.len() - 1);
        self.texts.len() - 1
    }
}
