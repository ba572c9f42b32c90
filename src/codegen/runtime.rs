//! The C runtime functions generated code calls (src/runtime/c:
//! `arr_runtime.h` for the host-common ones, `arr_parallel.h` for the
//! multicore scheduler's), each with its LLVM signature: one typed table,
//! declared on first use.

use super::emit::Gen;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Linkage;
use inkwell::types::{BasicMetadataTypeEnum, FunctionType};
use inkwell::values::FunctionValue;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RuntimeFn {
    /// `void *arr_alloc(int64_t bytes)`
    Alloc,
    /// `void arr_free(void *ptr)`
    Free,
    /// `void arr_fail_bounds(int64_t index, int64_t length, const char *loc)`
    FailBounds,
    /// `void arr_fail_slice(int64_t start, int64_t end, int64_t stride,
    /// int64_t length, const char *loc)`
    FailSlice,
    /// `void arr_fail_size_mismatch(int64_t expected, int64_t found, const char *loc)`
    FailSizeMismatch,
    /// `void arr_fail_division_by_zero(const char *loc)`
    FailDivisionByZero,
    /// `void arr_fail_negative_exponent(const char *loc)`
    FailNegativeExponent,
    /// `void arr_fail_assert(const char *loc)`
    FailAssert,
    /// `void arr_fail_assert_condition(const char *cond, const char *loc)`
    FailAssertCondition,
    /// `void arr_fail_negative_size(int64_t size, const char *loc)`
    FailNegativeSize,
    /// `void arr_fail_range(int64_t start, int64_t second, int64_t end,
    /// int64_t form, const char *loc)`
    FailRange,
    /// `void arr_run_nest(const arr_nest *nest, void *env, int64_t width, void *carry)`
    RunNest,
    /// `int arr_in_parallel(void)`
    InParallel,
    /// `void arr_gpu_init(const arr_gpu_program *program)` (arr_gpu.h)
    GpuInit,
    /// `arr_dptr arr_gpu_alloc(int64_t bytes)`
    GpuAlloc,
    /// `void arr_gpu_free(arr_dptr ptr)`
    GpuFree,
    /// `void arr_gpu_copy_in(arr_dptr dst, const void *src, int64_t bytes)`
    GpuCopyIn,
    /// `void arr_gpu_copy_out(void *dst, arr_dptr src, int64_t bytes)`
    GpuCopyOut,
    /// `void arr_gpu_copy_within(arr_dptr dst, arr_dptr src, int64_t bytes)`
    GpuCopyWithin,
    /// `int64_t arr_gpu_threads(int kernel, int64_t work)`
    GpuThreads,
    /// `void arr_gpu_launch_work(int kernel, int64_t work, void **args)`
    GpuLaunchWork,
    /// `void arr_gpu_launch_one(int kernel, void **args)`
    GpuLaunchOne,
    /// `void arr_gpu_sync(void)`
    GpuSync,
    /// `void arr_gpu_reserve_heap(int64_t bytes)`
    GpuReserveHeap,
    GpuScratch,
    /// `int64_t arr_gpu_lookback_tiles(int kernel, int64_t work, int64_t shared, int64_t per_thread, int64_t items)`
    GpuLookbackTiles,
    /// `int64_t arr_gpu_lookback_chunks(int kernel, int64_t work, int64_t shared, int64_t per_thread, int64_t items)`
    GpuLookbackChunks,
    /// `void arr_gpu_launch_shared_block(int kernel, int64_t work, int64_t shared, int64_t per_thread, void **args)`
    GpuLaunchSharedBlock,
    /// `int64_t arr_gpu_blocks_shared(int kernel, int64_t work, int64_t per_thread)`
    GpuBlocksShared,
    /// `void arr_gpu_launch_shared(int kernel, int64_t work, int64_t per_thread, void **args)`
    GpuLaunchShared,
    /// `void arr_gpu_fill32(arr_dptr dst, uint32_t value, int64_t count)`
    GpuFill32,
    /// `int64_t arr_gpu_tile_side(void)`
    GpuTileSide,
    /// `int64_t arr_gpu_fan_in(void)`
    GpuFanIn,
    /// `void arr_gpu_launch_tiles(int kernel, int64_t tiles, int64_t side, int64_t shared, void **args)`
    GpuLaunchTiles,
    /// `arr_dptr arr_gpu_entry_in(const void *data, int64_t bytes)`
    GpuEntryIn,
    /// `void *arr_gpu_entry_out(arr_dptr src, int64_t bytes)`
    GpuEntryOut,
    /// `void arr_gpu_entry_release(arr_dptr arg)`
    GpuEntryRelease,
}

/// A parameter or result type of a runtime function.
#[derive(Clone, Copy)]
enum Ty {
    I32,
    I64,
    Ptr,
}

impl RuntimeFn {
    pub(crate) fn name(self) -> &'static str {
        match self {
            RuntimeFn::Alloc => "arr_alloc",
            RuntimeFn::Free => "arr_free",
            RuntimeFn::FailBounds => "arr_fail_bounds",
            RuntimeFn::FailSlice => "arr_fail_slice",
            RuntimeFn::FailSizeMismatch => "arr_fail_size_mismatch",
            RuntimeFn::FailDivisionByZero => "arr_fail_division_by_zero",
            RuntimeFn::FailNegativeExponent => "arr_fail_negative_exponent",
            RuntimeFn::FailAssert => "arr_fail_assert",
            RuntimeFn::FailAssertCondition => "arr_fail_assert_condition",
            RuntimeFn::FailNegativeSize => "arr_fail_negative_size",
            RuntimeFn::FailRange => "arr_fail_range",
            RuntimeFn::RunNest => "arr_run_nest",
            RuntimeFn::InParallel => "arr_in_parallel",
            RuntimeFn::GpuInit => "arr_gpu_init",
            RuntimeFn::GpuAlloc => "arr_gpu_alloc",
            RuntimeFn::GpuFree => "arr_gpu_free",
            RuntimeFn::GpuCopyIn => "arr_gpu_copy_in",
            RuntimeFn::GpuCopyOut => "arr_gpu_copy_out",
            RuntimeFn::GpuCopyWithin => "arr_gpu_copy_within",
            RuntimeFn::GpuThreads => "arr_gpu_threads",
            RuntimeFn::GpuLaunchWork => "arr_gpu_launch_work",
            RuntimeFn::GpuLaunchOne => "arr_gpu_launch_one",
            RuntimeFn::GpuSync => "arr_gpu_sync",
            RuntimeFn::GpuReserveHeap => "arr_gpu_reserve_heap",
            RuntimeFn::GpuScratch => "arr_gpu_scratch",
            RuntimeFn::GpuLookbackTiles => "arr_gpu_lookback_tiles",
            RuntimeFn::GpuLookbackChunks => "arr_gpu_lookback_chunks",
            RuntimeFn::GpuLaunchSharedBlock => "arr_gpu_launch_shared_block",
            RuntimeFn::GpuBlocksShared => "arr_gpu_blocks_shared",
            RuntimeFn::GpuLaunchShared => "arr_gpu_launch_shared",
            RuntimeFn::GpuFill32 => "arr_gpu_fill32",
            RuntimeFn::GpuTileSide => "arr_gpu_tile_side",
            RuntimeFn::GpuFanIn => "arr_gpu_fan_in",
            RuntimeFn::GpuLaunchTiles => "arr_gpu_launch_tiles",
            RuntimeFn::GpuEntryIn => "arr_gpu_entry_in",
            RuntimeFn::GpuEntryOut => "arr_gpu_entry_out",
            RuntimeFn::GpuEntryRelease => "arr_gpu_entry_release",
        }
    }

    /// The result (`None`: void) and the parameters.
    fn signature(self) -> (Option<Ty>, &'static [Ty]) {
        use Ty::*;
        match self {
            RuntimeFn::Alloc => (Some(Ptr), &[I64]),
            RuntimeFn::Free => (None, &[Ptr]),
            RuntimeFn::FailBounds | RuntimeFn::FailSizeMismatch => (None, &[I64, I64, Ptr]),
            RuntimeFn::FailSlice | RuntimeFn::FailRange => (None, &[I64, I64, I64, I64, Ptr]),
            RuntimeFn::FailDivisionByZero
            | RuntimeFn::FailNegativeExponent
            | RuntimeFn::FailAssert => (None, &[Ptr]),
            RuntimeFn::FailNegativeSize => (None, &[I64, Ptr]),
            RuntimeFn::FailAssertCondition => (None, &[Ptr, Ptr]),
            RuntimeFn::RunNest => (None, &[Ptr, Ptr, I64, Ptr]),
            RuntimeFn::InParallel => (Some(I32), &[]),
            RuntimeFn::GpuInit => (None, &[Ptr]),
            RuntimeFn::GpuAlloc => (Some(I64), &[I64]),
            RuntimeFn::GpuFree => (None, &[I64]),
            RuntimeFn::GpuCopyIn => (None, &[I64, Ptr, I64]),
            RuntimeFn::GpuCopyOut => (None, &[Ptr, I64, I64]),
            RuntimeFn::GpuCopyWithin => (None, &[I64, I64, I64]),
            RuntimeFn::GpuThreads => (Some(I64), &[I32, I64]),
            RuntimeFn::GpuLaunchWork => (None, &[I32, I64, Ptr]),
            RuntimeFn::GpuLaunchOne => (None, &[I32, Ptr]),
            RuntimeFn::GpuSync => (None, &[]),
            RuntimeFn::GpuReserveHeap => (None, &[I64]),
            RuntimeFn::GpuScratch => (None, &[I32, I64]),
            RuntimeFn::GpuLookbackTiles => (Some(I64), &[I32, I64, I64, I64, I64]),
            RuntimeFn::GpuLookbackChunks => (Some(I64), &[I32, I64, I64, I64, I64]),
            RuntimeFn::GpuLaunchSharedBlock => (None, &[I32, I64, I64, I64, Ptr]),
            RuntimeFn::GpuBlocksShared => (Some(I64), &[I32, I64, I64]),
            RuntimeFn::GpuLaunchShared => (None, &[I32, I64, I64, Ptr]),
            RuntimeFn::GpuFill32 => (None, &[I64, I32, I64]),
            RuntimeFn::GpuTileSide => (Some(I64), &[]),
            RuntimeFn::GpuFanIn => (Some(I64), &[]),
            RuntimeFn::GpuLaunchTiles => (None, &[I32, I64, I64, I64, Ptr]),
            RuntimeFn::GpuEntryIn => (Some(I64), &[Ptr, I64]),
            RuntimeFn::GpuEntryOut => (Some(Ptr), &[I64, I64]),
            RuntimeFn::GpuEntryRelease => (None, &[I64]),
        }
    }

    /// The `arr_fail_*` functions print a message and exit.
    fn never_returns(self) -> bool {
        matches!(
            self,
            RuntimeFn::FailBounds
                | RuntimeFn::FailSlice
                | RuntimeFn::FailSizeMismatch
                | RuntimeFn::FailDivisionByZero
                | RuntimeFn::FailNegativeExponent
                | RuntimeFn::FailAssert
                | RuntimeFn::FailAssertCondition
                | RuntimeFn::FailNegativeSize
                | RuntimeFn::FailRange
        )
    }
}

impl<'ctx> Gen<'ctx, '_> {
    fn runtime_type(&self, f: RuntimeFn) -> FunctionType<'ctx> {
        let (result, params) = f.signature();
        let basic = |t: Ty| -> inkwell::types::BasicTypeEnum<'ctx> {
            match t {
                Ty::I32 => self.ctx.i32_type().into(),
                Ty::I64 => self.i64().into(),
                Ty::Ptr => self.ptr().into(),
            }
        };
        let params: Vec<BasicMetadataTypeEnum> = params.iter().map(|t| basic(*t).into()).collect();
        match result {
            Some(Ty::I32) => self.ctx.i32_type().fn_type(&params, false),
            Some(Ty::I64) => self.i64().fn_type(&params, false),
            Some(Ty::Ptr) => self.ptr().fn_type(&params, false),
            None => self.ctx.void_type().fn_type(&params, false),
        }
    }

    /// The declaration of `f` in the module being generated.
    pub(crate) fn runtime(&self, f: RuntimeFn) -> FunctionValue<'ctx> {
        if let Some(declared) = self.module.get_function(f.name()) {
            return declared;
        }
        let func =
            self.module
                .add_function(f.name(), self.runtime_type(f), Some(Linkage::External));
        if f.never_returns() {
            for attr in ["noreturn", "cold", "nounwind"] {
                let kind = Attribute::get_named_enum_kind_id(attr);
                func.add_attribute(
                    AttributeLoc::Function,
                    self.ctx.create_enum_attribute(kind, 0),
                );
            }
        }
        func
    }
}
