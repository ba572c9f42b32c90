//! Software prefetching of the streams of vectorised loops: an optimised
//! LLVM module in, the same module with a prefetch ahead of every cache
//! line a vectorised loop body loads out (`PREFETCH_BYTES`, less where the
//! body reads more than two streams: `prefetch_distance`), and of the input
//! a histogram's loop over private bins reads (scalar, so no
//! `vector.body`: a load indexed by the loop's counter is its stream).
//!
//! Why: the hardware prefetchers of this machine's cores stop at every
//! 4 KiB page, so a loop that reads one or two streams and computes little
//! (a sum of squares, a dot product) waits for memory at the start of
//! every page. Measured in hand-written C on this machine (50M `f32`,
//! 2 threads): a sum of squares took 13.3–15.4 ms without prefetches and
//! 9.6–9.9 ms with one per cache line 4 KiB ahead (1 KiB ahead: 10.8–11.0
//! ms, 8 KiB: 9.8–10.0, 32 KiB: 11.0–11.3). A vector load of a vectorised loop (LLVM names its body
//! `vector.body`) reads consecutive elements, iteration after iteration,
//! so it is a stream by construction; loads that are not (gathers,
//! invariant scalars) are not vector loads there.
//!
//! One prefetch per cache line, not per load: LLVM's unrolled body loads a
//! stream as `p`, `p + 32`, `p + 64`, ... (`getelementptr i8` off the first
//! load's address); only the loads at multiples of 64 bytes from `p` get
//! one. Their addresses, iteration after iteration, are at most 64 bytes
//! apart, so every line of the stream is still prefetched. A loop that
//! widens `f32` to `f64` (a dot product summed in `f64`) loads 32-byte
//! vectors and had issued two prefetches per line.
//!
//! Not in a body that reads several streams and computes much per vector
//! it loads (`compute_bound`; a loop that reads one stream, as an `exp` of
//! every element does, is left prefetched): its lines come from caches, not memory (a
//! matrix product's 4 x 4 block reads 8 rows, kept in L1 and L2, and
//! computes 32 operations on them), and a prefetch per load only takes
//! load slots from the arithmetic. matmul (1024^2 `f32`) ran at 0.88x
//! without them (interleaved, 4 rounds of 10 runs, `chrt -f 20`); the
//! streaming loops above compute 1 or 2 operations per vector.
//!
//! A private-bins histogram loop (one increment per element, the bins in
//! L1) waits on the same page starts: on the Intel Xeon (2 MiB L2), 50M
//! `i32` into 256 bins on one thread took 46 ms in hand-written C and 25
//! ms with a prefetch 4 KiB ahead per 16 elements.
//!
//! Prefetches never fault, so running ahead of the end of an array is
//! harmless; the address is computed without `inbounds` for that reason.

use crate::codegen::CodegenError;
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, InstructionOpcode, InstructionValue,
};

/// How far ahead of a load its prefetch reads, in a loop that reads one or
/// two streams.
pub const PREFETCH_BYTES: u64 = 4096;

/// How far ahead all the streams of one loop body read together: a body
/// reading more than two streams prefetches each `PREFETCH_TOTAL_BYTES /
/// streams` ahead (a cache line's multiple, at least `PREFETCH_MIN_BYTES`).
/// A dot product's split loop reads four (two halves of two arrays): 4 KiB
/// ahead of each (16 KiB in all per core) took 1.05x the time of 2 KiB on
/// the Intel Xeon (docs/performance.md, twenty-second session), while a
/// sum of squares' two streams read as fast at 1 KiB as at 4 KiB.
const PREFETCH_TOTAL_BYTES: u64 = 8192;
/// Nearer than this, a prefetch comes too late (the dot product at 1 KiB
/// was already slower than at 1.5 or 2 KiB).
const PREFETCH_MIN_BYTES: u64 = 1024;

/// The prefetch distance of each stream of a body reading `streams`.
fn prefetch_distance(streams: usize) -> u64 {
    let share = PREFETCH_TOTAL_BYTES / streams.max(1) as u64 / 64 * 64;
    share.clamp(PREFETCH_MIN_BYTES, PREFETCH_BYTES)
}

/// Adds the prefetches; see the module comment.
pub fn prefetch_streams(context: &Context, module: &Module) -> Result<(), CodegenError> {
    let builder = context.create_builder();
    let mut function = module.get_first_function();
    while let Some(f) = function {
        function = f.get_next_function();
        let private_hist = f
            .get_name()
            .to_str()
            .is_ok_and(|n| n.ends_with(PRIVATE_HIST_SUFFIX));
        for block in f.get_basic_blocks() {
            let (loads, streams) = streamed_loads(block, private_hist);
            let distance = prefetch_distance(streams);
            for load in loads {
                prefetch_ahead(context, module, &builder, load, distance)?;
            }
        }
    }
    Ok(())
}

/// The loads of `block` that stream through memory and earn a prefetch, and
/// how many streams they read: in a private histogram's loop every load its
/// induction variable indexes (the loop is scalar, so the vector-body rule
/// below never sees it; counted as one stream); in a vectorised body the
/// vector loads, unless the body is compute-bound or a load is a sibling of
/// another within one cache line.
fn streamed_loads(block: BasicBlock, private_hist: bool) -> (Vec<InstructionValue>, usize) {
    let loads = instructions(block.get_first_instruction())
        .filter(|i| i.get_opcode() == InstructionOpcode::Load);
    if private_hist && loops_to_itself(block) {
        return (loads.filter(|i| indexed_by_phi_of(i, block)).collect(), 1);
    }
    let is_vector_body = block
        .get_name()
        .to_str()
        .is_ok_and(|n| n.starts_with("vector.body"));
    if !is_vector_body {
        return (Vec::new(), 0);
    }
    let vector_loads: Vec<InstructionValue> = loads.filter(loads_vector).collect();
    let streams = stream_count(&vector_loads);
    if compute_bound(block.get_first_instruction(), &vector_loads, streams) {
        return (Vec::new(), 0);
    }
    let prefetched = vector_loads
        .iter()
        .copied()
        .filter(|load| {
            load.get_operand(0)
                .and_then(|o| o.value())
                .is_some_and(|address| {
                    sibling_offset(&address, &vector_loads).is_none_or(|c| c % 64 == 0)
                })
        })
        .collect();
    (prefetched, streams)
}

/// The streams `loads` read: loads at a constant offset from another's
/// address are one stream (an unrolled loop's).
fn stream_count(loads: &[InstructionValue]) -> usize {
    loads
        .iter()
        .filter_map(|l| l.get_operand(0).and_then(|o| o.value()))
        .filter(|a| sibling_offset(a, loads).is_none())
        .count()
}

/// The name's end of a histogram nest's loop over private bins
/// (`cpu::nest`).
pub const PRIVATE_HIST_SUFFIX: &str = ".private";

/// A block whose terminator may branch back to itself: a loop's body.
fn loops_to_itself(block: BasicBlock) -> bool {
    block.get_terminator().is_some_and(|t| {
        (0..t.get_num_operands())
            .filter_map(|k| t.get_operand(k).and_then(|o| o.block()))
            .any(|b| b == block)
    })
}

/// A load of `getelementptr T, BASE, I` with `I` a phi of `block`: the
/// current element of a stream the loop walks (the first of an unrolled
/// body's, whose others are at `I + 1`, ...). A bin's load is indexed by a
/// value read from memory, not by a phi, and gets no prefetch.
fn indexed_by_phi_of(load: &InstructionValue, block: BasicBlock) -> bool {
    let Some(gep) = load
        .get_operand(0)
        .and_then(|o| o.value())
        .and_then(|a| a.as_instruction_value())
    else {
        return false;
    };
    if gep.get_opcode() != InstructionOpcode::GetElementPtr || gep.get_num_operands() != 2 {
        return false;
    }
    let by_phi = gep
        .get_operand(1)
        .and_then(|o| o.value())
        .and_then(|i| i.as_instruction_value())
        .is_some_and(|i| i.get_opcode() == InstructionOpcode::Phi && i.get_parent() == Some(block));
    // An unrolled body reads element `I + k` as `getelementptr T, (BASE + k
    // * size), I`: one prefetch per cache line of those offsets.
    let line_offset = gep
        .get_operand(0)
        .and_then(|o| o.value())
        .and_then(|b| constant_byte_offset(&b))
        .unwrap_or(0);
    by_phi && line_offset % 64 == 0
}

/// `(BASE, C)` where `address` is `getelementptr i8, BASE, C`.
fn byte_offset_from<'ctx>(address: &BasicValueEnum<'ctx>) -> Option<(BasicValueEnum<'ctx>, i64)> {
    let gep = address.as_instruction_value()?;
    if gep.get_opcode() != InstructionOpcode::GetElementPtr || gep.get_num_operands() != 2 {
        return None;
    }
    let bytes = gep
        .get_gep_source_element_type()
        .is_ok_and(|t| t.is_int_type() && t.into_int_type().get_bit_width() == 8);
    if !bytes {
        return None;
    }
    let base = gep.get_operand(0).and_then(|o| o.value())?;
    let offset = gep
        .get_operand(1)
        .and_then(|o| o.value())?
        .into_int_value()
        .get_sign_extended_constant()?;
    Some((base, offset))
}

/// `C` where `address` is `getelementptr i8, BASE, C`.
fn constant_byte_offset(address: &BasicValueEnum) -> Option<i64> {
    byte_offset_from(address).map(|(_, c)| c)
}

/// Before `load`: a prefetch `distance` bytes past its address (read, kept
/// in all cache levels, data).
fn prefetch_ahead(
    context: &Context,
    module: &Module,
    builder: &Builder,
    load: InstructionValue,
    distance: u64,
) -> Result<(), CodegenError> {
    let fail = |what: &str| CodegenError::Internal(format!("prefetch: {what}"));
    let Some(address) = load.get_operand(0).and_then(|o| o.value()) else {
        return Ok(());
    };
    let ptr = context.ptr_type(Default::default());
    let prefetch = Intrinsic::find("llvm.prefetch")
        .and_then(|p| p.get_declaration(module, &[BasicTypeEnum::from(ptr)]))
        .ok_or_else(|| fail("no llvm.prefetch"))?;
    let i32t = context.i32_type();
    let ahead = context.i64_type().const_int(distance, false);
    builder.position_before(&load);
    // SAFETY: a plain (not `inbounds`) byte offset from a pointer is
    // defined for any offset; it is only prefetched.
    let target = unsafe {
        builder.build_gep(
            context.i8_type(),
            address.into_pointer_value(),
            &[ahead],
            "ahead",
        )
    }
    .map_err(|e| fail(&e.to_string()))?;
    let args: Vec<BasicMetadataValueEnum> = [
        target.into(),
        i32t.const_int(0, false).into(),
        i32t.const_int(3, false).into(),
        i32t.const_int(1, false).into(),
    ]
    .into();
    builder
        .build_call(prefetch, &args, "")
        .map_err(|e| fail(&e.to_string()))?;
    Ok(())
}

fn instructions<'ctx>(
    first: Option<InstructionValue<'ctx>>,
) -> impl Iterator<Item = InstructionValue<'ctx>> {
    std::iter::successors(first, |i| i.get_next_instruction())
}

/// A body whose vector loads read at least `MANY_STREAMS` streams and that
/// computes at least `OPS_PER_LOAD` floating-point operations (multiplies,
/// adds, subtracts, divisions; a contracted pair counts as two) per vector
/// load.
fn compute_bound(
    first: Option<InstructionValue>,
    loads: &[InstructionValue],
    streams: usize,
) -> bool {
    const MANY_STREAMS: usize = 4;
    const OPS_PER_LOAD: usize = 3;
    let ops = instructions(first)
        .filter(|i| {
            matches!(
                i.get_opcode(),
                InstructionOpcode::FMul
                    | InstructionOpcode::FAdd
                    | InstructionOpcode::FSub
                    | InstructionOpcode::FDiv
            )
        })
        .count();
    streams >= MANY_STREAMS && ops >= OPS_PER_LOAD * loads.len()
}

fn loads_vector(load: &InstructionValue) -> bool {
    load.get_type().is_vector_type()
}

/// `C` where `address` is `getelementptr i8, BASE, C` with BASE the
/// address of another vector load of the block: the same stream as that
/// load. Where `C` is not a multiple of a cache line, that load's prefetch,
/// with those of the loads at multiples of 64 bytes from BASE, already
/// covers every line of the stream.
fn sibling_offset(address: &BasicValueEnum, loads: &[InstructionValue]) -> Option<i64> {
    let (base, c) = byte_offset_from(address)?;
    loads
        .iter()
        .any(|l| l.get_operand(0).and_then(|o| o.value()) == Some(base))
        .then_some(c)
}
