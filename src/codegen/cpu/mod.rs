//! The multicore x86-64 target: loop nests as outlined functions run by the
//! runtime's thread pool (`nest`, `loops`, `combine`), run-time errors and
//! memory through the host runtime (`arr_fail_*`, `arr_alloc`), a host
//! target machine tuned for `--cpu`, software prefetching after LLVM's
//! optimisation (`prefetch`), branch-free guarded stores (`masked`), and the
//! link with `cc` (`link`).

mod combine;
mod cut;
mod gather;
pub(crate) mod link;
mod loops;
pub(crate) mod masked;
mod nest;
mod outer;
pub(crate) mod prefetch;
pub(crate) mod stream;

use super::backend::{Backend, Trap};
use super::emit::{err, Frame, Gen, Res};
use super::runtime::RuntimeFn;
use super::{CodegenError, Cpu, Sanitizer};
use crate::core::ir::SrcLoc;
use crate::loopy::block::Blocking;
use crate::loopy::ir::{LoopNest, MemSpace};
use crate::loopy::jam::JamLanes;
use crate::loopy::par::Grain;
use crate::loopy::Tuning;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::{
    CodeModel, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine,
};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, IntValue, PointerValue};
use inkwell::OptimizationLevel;

/// What the loop-nest passes tune for on the CPU `cpu`: products blocked
/// as `blocking` says, transposes in 16 x 16 tiles (measured in
/// `loopy::tile`), and tasks of at least 32,768 statements and at most
/// 4,096 iterations.
pub(crate) fn tuning(cpu: Cpu) -> Tuning {
    Tuning {
        block: Some(blocking(cpu)),
        transpose_tile: Some(16),
        jam_lanes: Some(jam_lanes(cpu)),
        merge_hists: true,
        grain: Some(Grain {
            task_cost: 32_768,
            max_iterations: 4096,
        }),
        host_nests: false,
    }
}

/// How products are blocked for `cpu`: the shape and groups of
/// `default_blocking` (`ARRC_REGISTER_BLOCK=RxC` or `RxC,G,M` overrides
/// them: rows, columns, row blocks per group and the parallel iterations
/// wanted, so that dumps are the same on every machine and shapes can be
/// tried), over tiles of a quarter of this processor's per-core L2 cache
/// of the `j` side (`l2_bytes`; on the AMD EPYC with 1 MiB per core,
/// 1024^3 `f32` matmul under load: 128 KiB tiles 53-61 ms at best, 256 KiB
/// 36-43, 512 KiB 39-44, 1 MiB 44-52).
fn blocking(cpu: Cpu) -> Blocking {
    let shape = std::env::var("ARRC_REGISTER_BLOCK")
        .ok()
        .and_then(|v| parse_register_block(&v))
        .unwrap_or_else(|| {
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
            default_blocking(cpu.vectors(), threads)
        });
    Blocking {
        rows: shape.rows,
        cols: shape.cols,
        tile_bytes: l2_bytes() / 4,
        group: shape.group,
        min_groups: shape.min_groups,
        outer: shape.outer,
    }
}

/// A block's shape and groups, as `loopy::block::Blocking` takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BlockShape {
    rows: usize,
    cols: usize,
    group: usize,
    min_groups: usize,
    outer: bool,
}

/// Row blocks per group, and parallel iterations wanted, where nothing
/// else is said: groups of 8 blocks of 4 rows, and at least 32 iterations.
const GROUPS: (usize, usize) = (8, 32);

/// The vector registers a CPU has, as far as the choice of a product's
/// blocks goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Vectors {
    /// 32 registers of 512 bits (AVX-512).
    Zmm32,
    /// 16 registers of 256 bits with fused multiply-adds (AVX2 and FMA).
    Ymm16,
    /// Narrower ones, or no fused multiply-add.
    Narrow,
}

/// Rows, columns, row blocks per group and parallel iterations wanted, for
/// a CPU with `vectors` and `threads` cores: outer products of 10 rows by
/// a panel of 2 registers' worth of `f32` columns where there are 32
/// vector registers (10 x 32 on AVX-512: 20 sums, 2 panel vectors, a
/// broadcast), of 6 rows by 2 registers' worth where there are 16 (6 x 16
/// on AVX2: 12 sums, 2 panel vectors, a broadcast; `f64` panels have half
/// the columns), in
/// groups of 32 row blocks and 4 iterations per core; elsewhere 4 x 4 dot
/// products in groups of 8 (32 rows) and 32 iterations.
///
/// The choice follows the registers, not the vendor: the AMD EPYC's
/// cores (AVX2, or AVX-512 on Zen 4 and 5) take the same kernels as
/// Intel's, as BLAS libraries' kernels for them do; their timings there
/// have not been measured.
///
/// On the Intel Xeon (family 6 model 167, 2 MiB L2, 2 threads; 1024^3
/// `f32`, interleaved under `chrt -f 20`): AVX-512 6 x 64 6.2 ms (numpy
/// 6.8), 4 x 4 dot products 8.1 (twelfth session); 10 x 32 0.96-0.98x
/// of 6 x 64 (perf22b: half the panel bytes per multiply-add from L2;
/// 12 x 32 and 14 x 32 were no faster, 8 x 32 and 9 x 32 slower). Built for AVX2 only
/// (`--cpu x86-64-v3`) on the same machine: 6 x 16 10.0-10.5 ms (numpy's
/// OpenBLAS held to its Haswell kernels 9.4-9.5), 4 x 16 11.3, 8 x 8 11.7,
/// 6 x 32 (24 sums, spilled) 20.6, 4 x 4 dot products 14.4-15.5; groups of
/// 8 to 128 row blocks within 10%. See docs/performance.md.
///
/// The dot products' groups: a step of the blocked `k` loop loads `rows`
/// vectors of the `i` side, which stay in L1, and `cols` of the tile of the
/// `j` side, which come from L2, for `rows * cols` multiply-adds; a tile
/// comes from L3 once per group and serves its rows (on the Intel Xeon,
/// hand-written AVX-512 C of the same loops on two threads took 10.2 ms in
/// groups of 32 rows, 8.5 in groups of 128; larger blocks than 4 x 4 were
/// no faster in groups of 128).
fn default_blocking(vectors: Vectors, threads: usize) -> BlockShape {
    let outer = |rows, cols| BlockShape {
        rows,
        cols,
        group: 32,
        min_groups: 4 * threads.max(1),
        outer: true,
    };
    match vectors {
        Vectors::Zmm32 => outer(10, 32),
        Vectors::Ymm16 => outer(6, 16),
        Vectors::Narrow => BlockShape {
            rows: 4,
            cols: 4,
            group: GROUPS.0,
            min_groups: GROUPS.1,
            outer: false,
        },
    }
}

/// `RxC` or `RxC,G,M`: rows and columns from 1 to 8, at most 32
/// accumulators, and row blocks per group and parallel iterations wanted
/// from 1 to 4,096 (8 and 32 when not given). `oRxC` (and `oRxC,G,M`):
/// outer products of `R` rows (1 to 16) by panels of `C` columns (a
/// power of two up to 128; `loopy::outer`).
fn parse_register_block(text: &str) -> Option<BlockShape> {
    let text = text.trim();
    let (outer, text) = match text.strip_prefix('o') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut parts = text.split(',');
    let (rows, cols) = parts.next()?.split_once('x')?;
    let size = |t: &str, most: usize| t.parse::<usize>().ok().filter(|n| (1..=most).contains(n));
    let (rows, cols) = match outer {
        true => (
            size(rows, 16)?,
            size(cols, 128).filter(|c| c.is_power_of_two())?,
        ),
        false => (size(rows, 8)?, size(cols, 8)?),
    };
    let groups = match (parts.next(), parts.next(), parts.next()) {
        (None, None, None) => GROUPS,
        (Some(g), Some(m), None) => (size(g, 4096)?, size(m, 4096)?),
        _ => return None,
    };
    (outer || rows * cols <= 32).then_some(BlockShape {
        rows,
        cols,
        group: groups.0,
        min_groups: groups.1,
        outer,
    })
}

/// Lanes of `loopy::jam`'s searches: eight `f32` distances and their
/// `i64` indices fill a 256-bit and a 512-bit register.
const JAM_LANES: usize = 8;

/// Lanes of `loopy::jam` for a reduction down columns (`map (\\c -> sum
/// (map2 (*) c v)) (transpose a)`): each step of the jammed loop reads 64
/// neighbouring elements of a row, four cache lines of `f32`, which the
/// adjacent-line prefetcher fetches together. A 4096^2 `f32` vector-matrix
/// product on 2 threads took 88 ms at 8 lanes, 52 at 16, 28 at 32 and 21
/// at 64 (docs/performance.md).
const COLUMN_LANES: usize = 64;

/// Lanes of `loopy::jam`: `JAM_LANES` for searches; for `while` loops under
/// a mask (mandelbrot's escape loop), 16 where there are 32 registers of
/// 512 bits (AVX-512: each `f32` state is one zmm, each flag one mask
/// register), else 8 (AVX2: 16 lanes would take twice the ymm registers
/// and spill). `ARRC_MASKED_LANES=N` (2 to 64) overrides it, so that both
/// can be measured on one machine. Measured in docs/performance.md.
fn jam_lanes(cpu: Cpu) -> JamLanes {
    let masked = std::env::var("ARRC_MASKED_LANES")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| (2..=64).contains(n))
        .unwrap_or_else(|| masked_lanes(cpu.vectors()));
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    JamLanes {
        search: JAM_LANES,
        masked,
        columns: COLUMN_LANES,
        stream_from: env_usize("ARRC_STREAM_FROM").unwrap_or(threads * STREAM_BLOCK / 2),
        stream_block: env_usize("ARRC_STREAM_BLOCK")
            .filter(|&n| n > 0)
            .unwrap_or(STREAM_BLOCK),
        stream_parts: threads,
    }
}

/// Column reductions stream the rows (`loopy::jam::stream`) in blocks of
/// up to this many columns, once there are enough columns for a block of
/// at least half as many per core (fewer leaves cores idle: the strips of
/// 64 columns keep them all busy); `ARRC_STREAM_FROM=N` (0: never) and
/// `ARRC_STREAM_BLOCK=N` override the two, so that both forms can be
/// measured on one machine and tested on small inputs. Blocks of at most
/// 4096 against 2048 and 1024 in docs/performance.md (shorter blocks read
/// shorter runs of each row and were slower; two blocks of 2048 still beat
/// the strips at 4096 columns).
const STREAM_BLOCK: usize = 4096;

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.trim().parse().ok()
}

fn masked_lanes(vectors: Vectors) -> usize {
    match vectors {
        Vectors::Zmm32 => 16,
        Vectors::Ymm16 | Vectors::Narrow => JAM_LANES,
    }
}

/// The per-core L2 cache of the processor compiling (the one the program
/// runs on: code is generated for the host CPU); 1 MiB where it cannot be
/// read. `ARRC_L2_BYTES` overrides it, so that dumps of tiled nests are the
/// same on every machine (the golden dump test sets it).
fn l2_bytes() -> usize {
    std::env::var("ARRC_L2_BYTES")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&b| (1 << 16..=1 << 30).contains(&b))
        .or_else(|| cache_bytes(2))
        .unwrap_or(1 << 20)
}

/// The size of the first cache of `level` that Linux's sysfs lists for
/// CPU 0 (per core for L2, shared for L3), within 64 KiB to 1 GiB.
fn cache_bytes(level: u32) -> Option<usize> {
    let read = |name: &str| {
        std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu0/cache/{name}")).ok()
    };
    (0..8)
        .find_map(|k| {
            let l = read(&format!("index{k}/level"))?;
            if l.trim() != level.to_string() {
                return None;
            }
            let size = read(&format!("index{k}/size"))?;
            let size = size.trim();
            let (digits, scale) = match size.strip_suffix('K') {
                Some(d) => (d, 1 << 10),
                None => match size.strip_suffix('M') {
                    Some(d) => (d, 1 << 20),
                    None => (size, 1),
                },
            };
            digits.parse::<usize>().ok().map(|n| n * scale)
        })
        .filter(|&b| (1 << 16..=1 << 30).contains(&b))
}

/// The CPU backend for one build.
pub(crate) struct CpuBackend {
    pub(crate) opt_level: u8,
    pub(crate) cpu: Cpu,
    pub(crate) sanitize: Option<Sanitizer>,
}

impl Backend for CpuBackend {
    /// Prefetches for the loop's gathers through an index array
    /// (`cpu::gather`).
    fn seq_iteration_end<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        fr: &Frame<'ctx>,
        lp: &crate::loopy::ir::SeqLoop,
    ) -> Res<()> {
        gen.prefetch_gathers(fr, lp)
    }

    fn nest<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
    ) -> Res<()> {
        gen.cpu_nest(fr, nest)
    }

    /// A masked store where the processor has AVX-512 (`cpu::masked`).
    fn guarded_write<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        fr: &mut Frame<'ctx>,
        cond: IntValue<'ctx>,
        stmt: &crate::loopy::ir::Stmt,
    ) -> Res<bool> {
        if !self.cpu.has_avx512() {
            return Ok(false);
        }
        gen.masked_write(fr, cond, stmt)
    }

    /// Calls the runtime's `arr_fail_*`, which prints the error and exits
    /// (or, inside a parallel chunk, records it for the thread pool).
    fn trap<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        trap: Trap,
        operands: &[IntValue<'ctx>],
        loc: SrcLoc,
    ) -> Res<()> {
        host_trap(gen, trap, operands, loc)
    }

    /// One memory for every space: the runtime's `arr_alloc`.
    fn alloc<'ctx>(
        &self,
        gen: &Gen<'ctx, '_>,
        _space: MemSpace,
        bytes: IntValue<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        let f = gen.runtime(RuntimeFn::Alloc);
        let call = gen.builder.build_call(f, &[bytes.into()], "arr")?;
        match call.try_as_basic_value().basic() {
            Some(BasicValueEnum::PointerValue(p)) => Ok(p),
            _ => err("arr_alloc does not return a pointer"),
        }
    }

    fn free<'ctx>(&self, gen: &Gen<'ctx, '_>, ptr: PointerValue<'ctx>) -> Res<()> {
        let f = gen.runtime(RuntimeFn::Free);
        gen.builder.build_call(f, &[ptr.into()], "")?;
        Ok(())
    }

    fn machine(&self) -> Res<TargetMachine> {
        host_machine(self.opt_level, self.cpu)
    }

    fn prepare(&self, ctx: &Context, module: &Module) -> Res<()> {
        if self.cpu.has_avx512() {
            prefer_512_bit_vectors(ctx, module);
        }
        let attribute = match self.sanitize {
            Some(Sanitizer::Address) => Some("sanitize_address"),
            Some(Sanitizer::Thread) => Some("sanitize_thread"),
            Some(Sanitizer::Alloc) | None => None,
        };
        if let Some(name) = attribute {
            // The instrumentation passes touch only functions marked so.
            let kind = inkwell::attributes::Attribute::get_named_enum_kind_id(name);
            for f in module
                .get_functions()
                .filter(|f| f.count_basic_blocks() > 0)
            {
                f.add_attribute(
                    inkwell::attributes::AttributeLoc::Function,
                    ctx.create_enum_attribute(kind, 0),
                );
            }
        }
        Ok(())
    }
}

/// Reports `trap` through the host runtime's `arr_fail_*` (see
/// `Backend::trap`).
pub(crate) fn host_trap<'ctx>(
    gen: &mut Gen<'ctx, '_>,
    trap: Trap,
    operands: &[IntValue<'ctx>],
    loc: SrcLoc,
) -> Res<()> {
    let loc = gen.loc_string(loc);
    if operands.len() != trap.operands() {
        return err(format!(
            "{trap:?} reported with {} operands",
            operands.len()
        ));
    }
    let f = gen.runtime(match trap {
        Trap::Bounds => RuntimeFn::FailBounds,
        Trap::Slice => RuntimeFn::FailSlice,
        Trap::SizeMismatch => RuntimeFn::FailSizeMismatch,
        Trap::DivisionByZero => RuntimeFn::FailDivisionByZero,
        Trap::NegativeExponent => RuntimeFn::FailNegativeExponent,
        Trap::Assert => RuntimeFn::FailAssert,
        Trap::AssertCondition(_) => RuntimeFn::FailAssertCondition,
        Trap::NegativeSize => RuntimeFn::FailNegativeSize,
        Trap::Range => RuntimeFn::FailRange,
    });
    let mut args: Vec<BasicMetadataValueEnum> = operands.iter().map(|v| (*v).into()).collect();
    if let Trap::AssertCondition(number) = trap {
        let text = gen.condition(number)?;
        args.push(gen.c_string(&text, &format!("cond.{number}")).into());
    }
    args.push(loc.into());
    gen.builder.build_call(f, &args, "")?;
    gen.builder.build_unreachable()?;
    Ok(())
}

impl Cpu {
    fn llvm_name(self) -> String {
        match self {
            Cpu::Native => TargetMachine::get_host_cpu_name().to_string(),
            Cpu::Level(1) => "x86-64".to_string(),
            Cpu::Level(n) => format!("x86-64-v{n}"),
        }
    }

    /// Whether the CPU has 512-bit vector registers.
    fn has_avx512(self) -> bool {
        self.vectors() == Vectors::Zmm32
    }

    /// The CPU's vector registers: from the host's features for `Native`,
    /// else from the level (3: AVX2 and FMA, 4: AVX-512).
    fn vectors(self) -> Vectors {
        let (zmm, ymm) = match self {
            Cpu::Native => {
                let features = TargetMachine::get_host_cpu_features().to_string();
                let has = |name: &str| features.split(',').any(|f| f == name);
                (has("+avx512f"), has("+avx2") && has("+fma"))
            }
            Cpu::Level(n) => (n >= 4, n >= 3),
        };
        match (zmm, ymm) {
            (true, _) => Vectors::Zmm32,
            (false, true) => Vectors::Ymm16,
            (false, false) => Vectors::Narrow,
        }
    }

    fn llvm_features(self) -> String {
        match self {
            Cpu::Native => TargetMachine::get_host_cpu_features().to_string(),
            Cpu::Level(_) => String::new(),
        }
    }
}

/// LLVM vectorises with 256-bit vectors even where 512-bit ones exist,
/// because early AVX-512 cores lower their clock for wide code. Measured
/// on this project's machine (2 threads), 512-bit loops run Black-Scholes
/// in 64 ms instead of 97 and matmul in 22 ms instead of 24.5, and no
/// benchmark got slower, so arrc asks for them.
fn prefer_512_bit_vectors(context: &Context, module: &inkwell::module::Module) {
    let attribute = context.create_string_attribute("prefer-vector-width", "512");
    let mut function = module.get_first_function();
    while let Some(f) = function {
        f.add_attribute(inkwell::attributes::AttributeLoc::Function, attribute);
        function = f.get_next_function();
    }
}

/// A target machine for x86-64 tuned for `cpu`.
pub(crate) fn host_machine(opt_level: u8, cpu: Cpu) -> Result<TargetMachine, CodegenError> {
    LlvmTarget::initialize_x86(&InitializationConfig::default());
    let triple = TargetMachine::get_default_triple();
    let target = LlvmTarget::from_triple(&triple)
        .map_err(|e| CodegenError::Internal(format!("unknown target {triple}: {e}")))?;
    let level = match opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    let features = cpu.llvm_features();
    let cpu = cpu.llvm_name();
    target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            level,
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| CodegenError::Internal(format!("LLVM has no target machine for {triple}")))
}

#[cfg(test)]
mod tests {
    use super::Vectors::{Narrow, Ymm16, Zmm32};
    use super::{default_blocking, masked_lanes, parse_register_block, BlockShape};
    use crate::codegen::Cpu;

    fn shape(rows: usize, cols: usize, group: usize, min_groups: usize, outer: bool) -> BlockShape {
        BlockShape {
            rows,
            cols,
            group,
            min_groups,
            outer,
        }
    }

    #[test]
    fn panels_fill_the_vector_registers_and_narrow_ones_take_dot_products() {
        assert_eq!(default_blocking(Zmm32, 2), shape(10, 32, 32, 8, true));
        assert_eq!(default_blocking(Zmm32, 16), shape(10, 32, 32, 64, true));
        assert_eq!(default_blocking(Ymm16, 2), shape(6, 16, 32, 8, true));
        assert_eq!(default_blocking(Narrow, 2), shape(4, 4, 8, 32, false));
        assert_eq!(default_blocking(Narrow, 64), shape(4, 4, 8, 32, false));
        assert_eq!(Cpu::Level(4).vectors(), Zmm32);
        assert_eq!(Cpu::Level(3).vectors(), Ymm16);
        assert_eq!(Cpu::Level(2).vectors(), Narrow);
    }

    #[test]
    fn while_loops_jam_sixteen_lanes_only_with_avx512() {
        assert_eq!(masked_lanes(Cpu::Level(4).vectors()), 16);
        assert_eq!(masked_lanes(Cpu::Level(3).vectors()), 8);
        assert_eq!(masked_lanes(Narrow), 8);
    }

    #[test]
    fn register_block_overrides_are_rows_x_columns() {
        assert_eq!(parse_register_block("8x2"), Some(shape(8, 2, 8, 32, false)));
        assert_eq!(
            parse_register_block(" 5x3\n"),
            Some(shape(5, 3, 8, 32, false))
        );
        assert_eq!(
            parse_register_block("8x2,16,8"),
            Some(shape(8, 2, 16, 8, false))
        );
        assert_eq!(
            parse_register_block("o6x64"),
            Some(shape(6, 64, 8, 32, true))
        );
        assert_eq!(
            parse_register_block("o12x32,8,2"),
            Some(shape(12, 32, 8, 2, true))
        );
        assert_eq!(parse_register_block("o6x48"), None);
        assert_eq!(parse_register_block("o17x64"), None);
        for bad in [
            "",
            "8",
            "0x4",
            "9x1",
            "8x8",
            "4x",
            "x4",
            "4*4",
            "-1x2",
            "4x4,8",
            "4x4,0,8",
            "4x4,8,8,8",
        ] {
            assert_eq!(parse_register_block(bad), None, "{bad:?}");
        }
    }
}
