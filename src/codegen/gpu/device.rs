//! The device module and what differs between its two targets: special
//! registers, run-time errors, scratch memory, how a kernel is marked
//! (nvptx: `nvvm.annotations`; emulator: a trampoline over the parameter
//! array), and the end of the build (nvptx: the device library and
//! libdevice linked, LLVM's NVPTX back end to PTX; emulator: the module
//! linked into the host module, compiled for x86-64).

use super::{Artifacts, Locations};
use crate::codegen::backend::Trap;
use crate::codegen::emit::{err, Gen, Res};
use crate::codegen::CodegenError;
use crate::core::ir::SrcLoc;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{FlagBehavior, Linkage, Module};
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine,
    TargetTriple,
};
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, OptimizationLevel};

const TRIPLE: &str = "nvptx64-nvidia-cuda";

/// `ARR_GPU_ERR_HEAP` of arr_gpu.h: a scratch array the device heap could
/// not hold.
const HEAP_FULL: u64 = 7;

/// The device module being generated, with its kernels.
pub(crate) struct Device<'ctx> {
    pub(crate) module: Module<'ctx>,
    pub(crate) emulated: bool,
    /// Name and parameter count (after `err` and `seq`) of every kernel, in
    /// the order of their indices.
    pub(crate) kernels: Vec<(String, usize)>,
    pub(crate) locations: Locations,
    /// The kernel being generated.
    pub(crate) current: Option<KernelState<'ctx>>,
    /// Its histograms' locks, when it updates bins under locks.
    pub(crate) locks: Option<super::hist::Locks<'ctx>>,
    /// The input tiles a look-back scan's reads take while a tile runs.
    pub(crate) staged: Vec<super::stage::Staged<'ctx>>,
    /// The row group whose reductions the kernel's statements meet
    /// (`group`).
    pub(crate) rows: Option<super::group::RowGroup<'ctx>>,
    /// The per-thread scratch arrays the next kernel takes from its
    /// per-nest scratch buffer (`heap`), not from the device heap.
    pub(crate) pooled: Vec<super::heap::Pooled>,
}

/// What code inside a kernel needs of its kernel.
#[derive(Clone, Copy)]
pub(crate) struct KernelState<'ctx> {
    pub(crate) err: PointerValue<'ctx>,
    pub(crate) seq: IntValue<'ctx>,
    /// The current iteration's position in sequential order (`key` of
    /// `arr_gpu_error`).
    pub(crate) key: PointerValue<'ctx>,
    /// Where a check that fails only marks its thread's slice as failed
    /// (an `i64` 1) instead of recording the error, then goes on at
    /// `on_fail` (or ends the thread): the totals pass of a scan, whose
    /// failing slice the body pass runs again to report it.
    pub(crate) flag: Option<PointerValue<'ctx>>,
    /// Where a check that fails goes on after recording its error, instead
    /// of ending the thread: the end of a block reduction's fold, whose
    /// thread must still reach the block's barriers.
    pub(crate) on_fail: Option<inkwell::basic_block::BasicBlock<'ctx>>,
}

impl<'ctx> Device<'ctx> {
    /// A device module with `machine`'s triple and data layout (the host's
    /// under the emulator).
    pub(crate) fn new(ctx: &'ctx Context, emulated: bool, machine: &TargetMachine) -> Device<'ctx> {
        let module = ctx.create_module("arr_device");
        module.set_triple(&machine.get_triple());
        module.set_data_layout(&machine.get_target_data().get_data_layout());
        Device {
            module,
            emulated,
            kernels: Vec::new(),
            locations: Locations::default(),
            current: None,
            locks: None,
            staged: Vec::new(),
            rows: None,
            pooled: Vec::new(),
        }
    }
}

/// The NVPTX target machine for `sm_{arch}`: PTX ISA 7.5 (CUDA 11.5)
/// serves sm_70 and sm_80, sm_90 needs 7.8.
pub(crate) fn nvptx_machine(arch: u32, opt_level: u8) -> Res<TargetMachine> {
    LlvmTarget::initialize_nvptx(&InitializationConfig::default());
    let triple = TargetTriple::create(TRIPLE);
    let target = LlvmTarget::from_triple(&triple)
        .map_err(|e| CodegenError::Internal(format!("LLVM has no NVPTX target: {e}")))?;
    let features = if arch >= 90 { "+ptx78" } else { "+ptx75" };
    let level = match opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    target
        .create_target_machine(
            &triple,
            &format!("sm_{arch}"),
            features,
            level,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| CodegenError::Internal("no NVPTX target machine".into()))
}

impl<'ctx> Gen<'ctx, '_> {
    fn device_ref(&self) -> Res<&Device<'ctx>> {
        self.device
            .as_ref()
            .ok_or_else(|| CodegenError::Internal("GPU code without a device module".into()))
    }

    pub(crate) fn emulated(&self) -> Res<bool> {
        Ok(self.device_ref()?.emulated)
    }

    /// A function of the module being generated, declared on first use.
    pub(crate) fn declare(
        &self,
        name: &str,
        ret: Option<BasicTypeEnum<'ctx>>,
        params: &[BasicTypeEnum<'ctx>],
    ) -> FunctionValue<'ctx> {
        if let Some(f) = self.module.get_function(name) {
            return f;
        }
        let params: Vec<BasicMetadataTypeEnum> = params.iter().map(|t| (*t).into()).collect();
        let ty = match ret {
            Some(BasicTypeEnum::IntType(r)) => r.fn_type(&params, false),
            Some(BasicTypeEnum::FloatType(r)) => r.fn_type(&params, false),
            Some(r) => r.into_pointer_type().fn_type(&params, false),
            None => self.ctx.void_type().fn_type(&params, false),
        };
        self.module.add_function(name, ty, Some(Linkage::External))
    }

    /// A special register (`tid.x`, `ntid.x`, `ctaid.x`, `nctaid.x`) as an
    /// `i64`.
    pub(crate) fn sreg(&self, name: &str) -> Res<IntValue<'ctx>> {
        let i32t = self.ctx.i32_type();
        let symbol = if self.emulated()? {
            format!("arr_emu_{}", name.replace('.', "_"))
        } else {
            format!("llvm.nvvm.read.ptx.sreg.{name}")
        };
        let f = self.declare(&symbol, Some(i32t.into()), &[]);
        let v = self.call_int(f, &[])?;
        Ok(self.builder.build_int_z_extend(v, self.i64(), name)?)
    }

    /// Scratch memory of a thread: `malloc` of the device heap (on the
    /// emulator `arr_emu_malloc`, which has the GPU's heap size). A null
    /// result is a run-time error (`ARR_GPU_ERR_HEAP`, the bytes asked
    /// for) that ends the thread, never a crash.
    pub(crate) fn device_malloc(&self, bytes: IntValue<'ctx>) -> Res<PointerValue<'ctx>> {
        let in_kernel = self.device_ref()?.current.is_some();
        let name = if self.emulated()? && in_kernel {
            "arr_emu_malloc"
        } else {
            "malloc"
        };
        let f = self.declare(name, Some(self.ptr().into()), &[self.i64().into()]);
        let p = self
            .builder
            .build_call(f, &[bytes.into()], "scratch")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| CodegenError::Internal("malloc returns nothing".into()))?
            .into_pointer_value();
        if !in_kernel {
            return Ok(p);
        }
        let func = self
            .current_block()?
            .get_parent()
            .ok_or_else(|| CodegenError::Internal("malloc outside a function".into()))?;
        let failed = self.builder.build_is_null(p, "")?;
        let fail = self.ctx.append_basic_block(func, "heap.full");
        let ok = self.ctx.append_basic_block(func, "heap.ok");
        self.builder.build_conditional_branch(failed, fail, ok)?;
        self.builder.position_at_end(fail);
        self.record_failure(HEAP_FULL, 0, &[bytes])?;
        self.builder.position_at_end(ok);
        Ok(p)
    }

    pub(crate) fn device_free(&self, ptr: PointerValue<'ctx>) -> Res<()> {
        let in_kernel = self.device_ref()?.current.is_some();
        let name = if self.emulated()? && in_kernel {
            "arr_emu_free"
        } else {
            "free"
        };
        let f = self.declare(name, None, &[self.ptr().into()]);
        self.builder.build_call(f, &[ptr.into()], "")?;
        Ok(())
    }

    /// In a kernel: records `trap` in the error record with the current
    /// iteration as its key, and ends the thread (kernels have no barrier
    /// after a check).
    pub(crate) fn kernel_trap(
        &mut self,
        trap: Trap,
        operands: &[IntValue<'ctx>],
        loc: SrcLoc,
    ) -> Res<()> {
        if operands.len() != trap.operands() {
            return err(format!(
                "{trap:?} reported with {} operands",
                operands.len()
            ));
        }
        let text = self.loc_text(loc);
        let condition = match trap {
            Trap::AssertCondition(number) => Some(self.condition(number)?.to_string()),
            _ => None,
        };
        let device = self
            .device
            .as_mut()
            .ok_or_else(|| CodegenError::Internal("a kernel without a device".into()))?;
        let loc_index = device.locations.number(text);
        // The condition's text goes in the table of locations too; its
        // number is the report's operand.
        if let Some(condition) = condition {
            let number = device.locations.number(condition);
            let operand = self.const_i64(number as i64);
            return self.record_failure(10, loc_index as u64, &[operand]);
        }
        let kind = match trap {
            Trap::Bounds => 1,
            Trap::Slice => 2,
            Trap::SizeMismatch => 3,
            Trap::DivisionByZero => 4,
            Trap::Assert | Trap::AssertCondition(_) => 5,
            Trap::NegativeSize => 6,
            Trap::Range => 8,
            Trap::NegativeExponent => 9,
        };
        self.record_failure(kind, loc_index as u64, operands)
    }

    /// Records error `kind` (`ARR_GPU_ERR_*`) at location `loc_index` with
    /// the current iteration as its key and ends the thread, releasing
    /// the histogram lock it holds (or, in a scan's totals pass, only
    /// flags the slice).
    fn record_failure(&self, kind: u64, loc_index: u64, operands: &[IntValue<'ctx>]) -> Res<()> {
        let emulated = self.emulated()?;
        let Some(k) = self.device.as_ref().and_then(|d| d.current) else {
            return err("a device check outside a kernel");
        };
        let (i32t, i64t) = (self.ctx.i32_type(), self.i64());
        self.release_held()?;
        if let Some(flag) = k.flag {
            self.builder.build_store(flag, i64t.const_int(1, false))?;
            match k.on_fail {
                Some(next) => self.builder.build_unconditional_branch(next)?,
                None => self.builder.build_return(None)?,
            };
            return Ok(());
        }
        let err_ty: BasicTypeEnum = if emulated {
            self.ptr().into()
        } else {
            self.ctx.ptr_type(AddressSpace::from(1)).into()
        };
        let name = if emulated {
            "arr_emu_fail"
        } else {
            "arr_gpu_fail"
        };
        let params = [
            err_ty,
            i64t.into(),
            i64t.into(),
            i32t.into(),
            i32t.into(),
            i64t.into(),
            i64t.into(),
            i64t.into(),
            i64t.into(),
        ];
        let f = self.declare(name, None, &params);
        let err_ptr = if emulated {
            k.err
        } else {
            self.builder.build_address_space_cast(
                k.err,
                self.ctx.ptr_type(AddressSpace::from(1)),
                "",
            )?
        };
        let key = self.builder.build_load(i64t, k.key, "key")?;
        let mut args: Vec<BasicMetadataValueEnum> = vec![
            err_ptr.into(),
            k.seq.into(),
            key.into(),
            i32t.const_int(kind, false).into(),
            i32t.const_int(loc_index, false).into(),
        ];
        for j in 0..4 {
            args.push(operands.get(j).copied().unwrap_or(i64t.const_zero()).into());
        }
        self.builder.build_call(f, &args, "")?;
        match k.on_fail {
            Some(next) => self.builder.build_unconditional_branch(next)?,
            None => self.builder.build_return(None)?,
        };
        Ok(())
    }

    /// Marks `f` (in the device module) as a kernel of `params` parameter
    /// types after `err` and `seq`: on nvptx by `nvvm.annotations`; on the
    /// emulator `f` is the body, and an external trampoline `name(void
    /// **params)` loads each parameter and calls it.
    pub(crate) fn mark_kernel(
        &self,
        f: FunctionValue<'ctx>,
        name: &str,
        params: &[BasicTypeEnum<'ctx>],
    ) -> Res<()> {
        if !self.emulated()? {
            let node = self.ctx.metadata_node(&[
                f.as_global_value().as_pointer_value().into(),
                self.ctx.metadata_string("kernel").into(),
                self.ctx.i32_type().const_int(1, false).into(),
            ]);
            self.module
                .add_global_metadata("nvvm.annotations", &node)
                .map_err(|e| CodegenError::Internal(format!("nvvm.annotations: {e}")))?;
            return Ok(());
        }
        let ptr = self.ptr();
        let tramp = self.module.add_function(
            name,
            self.ctx.void_type().fn_type(&[ptr.into()], false),
            Some(Linkage::External),
        );
        let b = self.ctx.create_builder();
        let entry = self.ctx.append_basic_block(tramp, "entry");
        b.position_at_end(entry);
        let array = tramp
            .get_nth_param(0)
            .ok_or_else(|| CodegenError::Internal("trampoline without parameters".into()))?
            .into_pointer_value();
        let all: Vec<BasicTypeEnum> = [ptr.into(), self.i64().into()]
            .into_iter()
            .chain(params.iter().copied())
            .collect();
        let mut args: Vec<BasicMetadataValueEnum> = Vec::new();
        for (k, ty) in all.iter().enumerate() {
            // Safety: the runtime passes one pointer per parameter.
            let slot =
                unsafe { b.build_in_bounds_gep(ptr, array, &[self.const_i64(k as i64)], "")? };
            let p = b.build_load(ptr, slot, "")?.into_pointer_value();
            args.push(b.build_load(*ty, p, "")?.into());
        }
        b.build_call(f, &args, "")?;
        b.build_return(None)?;
        Ok(())
    }
}

/// Adds `nounwind` to a function.
pub(crate) fn nounwind(ctx: &Context, f: FunctionValue) {
    let kind = Attribute::get_named_enum_kind_id("nounwind");
    f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(kind, 0));
}

/// The libm functions and LLVM intrinsics kernels may call, with
/// libdevice's names for them (`f32` then `f64`).
const MATH: &[(&str, &str, &str)] = &[
    ("exp", "__nv_expf", "__nv_exp"),
    ("log", "__nv_logf", "__nv_log"),
    ("log2", "__nv_log2f", "__nv_log2"),
    ("log10", "__nv_log10f", "__nv_log10"),
    ("sin", "__nv_sinf", "__nv_sin"),
    ("cos", "__nv_cosf", "__nv_cos"),
    ("tan", "__nv_tanf", "__nv_tan"),
    ("asin", "__nv_asinf", "__nv_asin"),
    ("acos", "__nv_acosf", "__nv_acos"),
    ("atan", "__nv_atanf", "__nv_atan"),
    ("atan2", "__nv_atan2f", "__nv_atan2"),
    ("sinh", "__nv_sinhf", "__nv_sinh"),
    ("cosh", "__nv_coshf", "__nv_cosh"),
    ("tanh", "__nv_tanhf", "__nv_tanh"),
    ("asinh", "__nv_asinhf", "__nv_asinh"),
    ("acosh", "__nv_acoshf", "__nv_acosh"),
    ("atanh", "__nv_atanhf", "__nv_atanh"),
    ("erf", "__nv_erff", "__nv_erf"),
    ("erfc", "__nv_erfcf", "__nv_erfc"),
    ("nextafter", "__nv_nextafterf", "__nv_nextafter"),
    ("cbrt", "__nv_cbrtf", "__nv_cbrt"),
    ("log1p", "__nv_log1pf", "__nv_log1p"),
    ("expm1", "__nv_expm1f", "__nv_expm1"),
    ("pow", "__nv_powf", "__nv_pow"),
    ("fmod", "__nv_fmodf", "__nv_fmod"),
    ("hypot", "__nv_hypotf", "__nv_hypot"),
    ("lgamma", "__nv_lgammaf", "__nv_lgamma"),
    ("tgamma", "__nv_tgammaf", "__nv_tgamma"),
    ("exp2", "__nv_exp2f", "__nv_exp2"),
    ("exp10", "__nv_exp10f", "__nv_exp10"),
];

/// The device module's text with every call of a libm function or of an
/// LLVM math intrinsic the NVPTX back end cannot select renamed to
/// libdevice's function, and each declaration left once.
fn libdevice_names(text: &str) -> String {
    let mut renames: Vec<(String, &str)> = Vec::new();
    for (base, f32_name, f64_name) in MATH {
        renames.push((format!("@llvm.{base}.f32("), f32_name));
        renames.push((format!("@llvm.{base}.f64("), f64_name));
        renames.push((format!("@{base}f("), f32_name));
        renames.push((format!("@{base}("), f64_name));
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = String::new();
    for line in text.lines() {
        let mut line = line.to_string();
        for (from, to) in &renames {
            if line.contains(from.as_str()) {
                line = line.replace(from.as_str(), &format!("@{to}("));
            }
        }
        if line.starts_with("declare ") {
            if !seen.insert(line.clone()) {
                continue;
            }
            // Intrinsic attributes (`#N`) are left off libdevice's functions.
            if let Some(at) = line.find(" #") {
                if line.contains("@__nv_") {
                    line.truncate(at);
                }
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The end of a GPU build. Emulator: the device module, lowered to the
/// emulator's calls already, goes into the host module. nvptx: the device
/// module, with the device library and libdevice linked, is optimised and
/// emitted as PTX (`artifacts.ptx`); it is returned for `--emit llvm`.
pub(crate) fn finish<'ctx>(
    ctx: &'ctx Context,
    host: &Module<'ctx>,
    device: Device<'ctx>,
    arch: u32,
    opt_level: u8,
) -> Res<(Artifacts, Option<Module<'ctx>>)> {
    let mut artifacts = Artifacts {
        emulated: device.emulated,
        kernels: device.kernels.clone(),
        locations: device.locations.texts.clone(),
        ptx: None,
    };
    if device.emulated {
        device.module.set_triple(&host.get_triple());
        device.module.set_data_layout(&host.get_data_layout());
        host.link_in_module(device.module)
            .map_err(|e| CodegenError::Internal(format!("linking the kernels: {e}")))?;
        return Ok((artifacts, None));
    }
    let tm = nvptx_machine(arch, opt_level)?;
    let text = libdevice_names(&device.module.print_to_string().to_string());
    let module = ctx
        .create_module_from_ir(MemoryBuffer::create_from_memory_range_copy(
            text.as_bytes(),
            "arr_device",
        ))
        .map_err(|e| CodegenError::Internal(format!("the device module does not parse: {e}")))?;
    module.set_triple(&TargetTriple::create(TRIPLE));
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    // Flush-to-zero off: IEEE subnormals, as on the CPU.
    module.add_basic_value_flag(
        "nvvm-reflect-ftz",
        FlagBehavior::Override,
        ctx.i32_type().const_zero(),
    );
    let library = ctx
        .create_module_from_ir(MemoryBuffer::create_from_memory_range_copy(
            crate::runtime::gpu::DEVICE_LIBRARY_LL.as_bytes(),
            "arr_gpu_device",
        ))
        .map_err(|e| CodegenError::Internal(format!("arr_gpu_device.ll: {e}")))?;
    module
        .link_in_module(library)
        .map_err(|e| CodegenError::Internal(format!("linking the device library: {e}")))?;
    let uses_libdevice = {
        let mut f = module.get_first_function();
        let mut any = false;
        while let Some(func) = f {
            any |= func.count_basic_blocks() == 0
                && func.get_name().to_string_lossy().starts_with("__nv_");
            f = func.get_next_function();
        }
        any
    };
    if uses_libdevice {
        let tools = crate::runtime::ptx::find().ok_or_else(|| {
            CodegenError::Refused(
                "this program's kernels call math functions from libdevice, which was not \
                 found (pip install nvidia-cuda-nvcc-cu12, or set ARRC_LIBDEVICE)"
                    .into(),
            )
        })?;
        let path = tools.libdevice.ok_or_else(|| {
            CodegenError::Refused(
                "libdevice.10.bc not found (pip install nvidia-cuda-nvcc-cu12, or set \
                 ARRC_LIBDEVICE)"
                    .into(),
            )
        })?;
        let lib = Module::parse_bitcode_from_path(&path, ctx)
            .map_err(|e| CodegenError::Refused(format!("libdevice does not load: {e}")))?;
        lib.set_triple(&TargetTriple::create(TRIPLE));
        lib.set_data_layout(&tm.get_target_data().get_data_layout());
        module
            .link_in_module(lib)
            .map_err(|e| CodegenError::Internal(format!("linking libdevice: {e}")))?;
    }
    // Only kernels stay visible, so that the optimiser drops the rest.
    let kernels: std::collections::HashSet<&str> =
        artifacts.kernels.iter().map(|(n, _)| n.as_str()).collect();
    let mut f = module.get_first_function();
    while let Some(func) = f {
        let name = func.get_name().to_string_lossy().into_owned();
        if func.count_basic_blocks() > 0 && !kernels.contains(name.as_str()) {
            func.set_linkage(Linkage::Internal);
        }
        f = func.get_next_function();
    }
    module
        .verify()
        .map_err(|e| CodegenError::Internal(format!("invalid device module: {e}")))?;
    let passes = format!("default<O{}>", opt_level.clamp(1, 3));
    module
        .run_passes(&passes, &tm, PassBuilderOptions::create())
        .map_err(|e| CodegenError::Internal(format!("device optimisation failed: {e}")))?;
    let buffer = tm
        .write_to_memory_buffer(&module, FileType::Assembly)
        .map_err(|e| CodegenError::Internal(format!("LLVM could not emit PTX: {e}")))?;
    artifacts.ptx = Some(String::from_utf8_lossy(buffer.as_slice()).into_owned());
    Ok((artifacts, Some(module)))
}
