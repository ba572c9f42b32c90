//! Non-temporal stores for large outputs written in order: a map nest's
//! loop function gets a second copy, its stream variant, which the caller
//! picks when the arrays the nest writes are larger than the last-level
//! cache; after LLVM's optimisation, the vector stores of that copy's
//! vectorised loop that LLVM proved aligned become non-temporal
//! (`mark_nontemporal`).
//!
//! Why: an ordinary store first reads its cache line from memory (for
//! ownership), so writing a fresh array moves each of its bytes twice; a
//! non-temporal store writes whole lines without reading them. The STREAM
//! triad (`a = b + s * c`, 50M `f32`) then moves 600 MB instead of 800.
//! An output that would stay in the cache would be evicted by them, so
//! the caller picks the variant at run time by the arrays' size: the
//! outputs and the arrays the nest reads in order at its own index, which
//! pass through the same cache. With inputs and outputs together larger
//! than the cache, the output's first lines are gone by the time the
//! nest ends. On an Intel Xeon VM whose sysfs lists a 480 MiB L3 (the
//! whole socket's, shared with other machines), the triad's 200 MB output
//! alone stayed below it and got plain stores: 18.7-19.1 ms median against
//! 13.7 with non-temporal ones (3 interleaved rounds of 8 runs).
//!
//! Safety: x86's non-temporal vector stores fault on an address that is not
//! a multiple of their width. The stream variant starts with a test that
//! every written array starts on a 64-byte boundary and that the chunk's
//! first iteration is a multiple of 16 (the runtime cuts chunks of large
//! nests at multiples of 16 iterations, arr_parallel.c); if not, it calls
//! the plain variant. After the test it masks the pointers and the start
//! to those multiples (no change to their values), from which LLVM derives
//! the alignment of the stores it vectorises, and
//! only stores whose proven alignment covers their width are marked. Non-
//! temporal stores are weakly ordered: the variant ends with `sfence`, so
//! that the pool's release of the job publishes them.

use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::CodegenError;
use crate::core::ir::{Atom, VarId};
use crate::loopy::ir::{LoopNest, ParPlan, Stmt};
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{FunctionValue, InstructionOpcode, IntValue};
use inkwell::IntPredicate;

/// Chunks of a large nest start at multiples of this many iterations
/// (`arr_run_nest`); with elements of 4 bytes or more, at 64-byte
/// boundaries of an aligned array.
const CHUNK_MULTIPLE: u64 = 16;

/// The arrays a map nest writes, when it may have a stream variant: a top-
/// level nest run in parallel chunks, carrying nothing, with no nest
/// inside, whose only writes are `a[i]` at its own index in its body's top
/// level (outputs written in order).
pub(super) fn streamed_outputs(nest: &LoopNest, nest_depth: usize) -> Vec<VarId> {
    let chunked = matches!(
        nest.plan.as_deref().map(|p| &p.strategy),
        Some(ParPlan::Chunked)
    );
    if nest_depth > 0 || !chunked || nest.carried().next().is_some() || !nest.scatters.is_empty() {
        return Vec::new();
    }
    let mut outputs = Vec::new();
    for stmt in &nest.body {
        match stmt {
            Stmt::Write { array, index, .. } if matches!(index.as_slice(), [Atom::Var(i)] if *i == nest.index.id) =>
            {
                outputs.push(*array);
            }
            _ if writes_or_nests(stmt) => return Vec::new(),
            _ => {}
        }
    }
    outputs.sort_unstable();
    outputs.dedup();
    // Writes into an array the body binds (a view) leave it plain.
    let outside = nest.free_vars();
    if !outputs.iter().all(|a| outside.contains(a)) {
        return Vec::new();
    }
    outputs
}

/// The arrays a stream variant's nest reads at its own index in its
/// body's top level (its inputs read in order), outputs left out. Only
/// arrays bound outside the nest: their sizes are what the caller tests,
/// and a view the body makes of them (`flatten`, kept in the body at -O0)
/// has no value there.
pub(super) fn streamed_inputs(nest: &LoopNest, outputs: &[VarId]) -> Vec<VarId> {
    let outside = nest.free_vars();
    let mut inputs: Vec<VarId> = nest
        .body
        .iter()
        .filter_map(|stmt| match stmt {
            Stmt::Read { array, index, .. }
                if matches!(index.as_slice(), [Atom::Var(i)] if *i == nest.index.id)
                    && !outputs.contains(array)
                    && outside.contains(array) =>
            {
                Some(*array)
            }
            _ => None,
        })
        .collect();
    inputs.sort_unstable();
    inputs.dedup();
    inputs
}

fn writes_or_nests(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Write { .. } | Stmt::Loop(_) | Stmt::Copy { .. } => true,
        Stmt::If {
            then_block,
            else_block,
            ..
        } => then_block.iter().chain(else_block).any(writes_or_nests),
        Stmt::SeqLoop(lp) => lp.body.iter().any(writes_or_nests),
        _ => false,
    }
}

/// The last-level cache of the processor compiling (the one the program
/// runs on), from sysfs; 32 MiB where it cannot be read. Outputs whose
/// nest streams at least this many bytes (outputs and inputs read in
/// order) are written with non-temporal stores. `ARRC_STREAM_MIN_BYTES`
/// at compile time overrides it (tests run the stream variants on small
/// arrays with it).
pub(super) fn stream_threshold_bytes() -> u64 {
    std::env::var("ARRC_STREAM_MIN_BYTES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or_else(|| super::cache_bytes(3).unwrap_or(32 << 20) as u64)
}

impl<'ctx> Gen<'ctx, '_> {
    /// The start of a stream variant (see the module comment): unless every
    /// array of `outputs` is 64-byte aligned and `start` a multiple of
    /// `CHUNK_MULTIPLE`, runs `plain` on the same arguments and returns;
    /// otherwise goes on with the arrays' pointers and `start` masked to
    /// those multiples (the same values, now with low bits LLVM knows to
    /// be zero: an `assume` of the test would be dropped as implied by the
    /// branch). Returns the masked `start`.
    pub(super) fn stream_guard(
        &mut self,
        inner: &mut Frame<'ctx>,
        func: FunctionValue<'ctx>,
        plain: FunctionValue<'ctx>,
        start: IntValue<'ctx>,
        outputs: &[VarId],
    ) -> Res<IntValue<'ctx>> {
        let b = &self.builder;
        let i64t = self.ctx.i64_type();
        let zero = i64t.const_zero();
        let start_mask = i64t.const_int(CHUNK_MULTIPLE - 1, false);
        let mut misaligned = b.build_and(start, start_mask, "")?;
        let mut pointers = Vec::new();
        for a in outputs {
            let Some(Val::Array { ptr, elem, shape }) = inner.vals.get(a).cloned() else {
                return Err(CodegenError::Internal(
                    "a stream variant's output is not an array".into(),
                ));
            };
            let addr = b.build_ptr_to_int(ptr, i64t, "")?;
            let low = b.build_and(addr, i64t.const_int(63, false), "")?;
            misaligned = b.build_or(misaligned, low, "")?;
            pointers.push((*a, ptr, elem, shape));
        }
        let aligned = b.build_int_compare(IntPredicate::EQ, misaligned, zero, "")?;
        let fast = self.ctx.append_basic_block(func, "stream.aligned");
        let slow = self.ctx.append_basic_block(func, "stream.plain");
        b.build_conditional_branch(aligned, fast, slow)?;
        b.position_at_end(slow);
        let args: Vec<_> = func.get_param_iter().map(|p| p.into()).collect();
        b.build_call(plain, &args, "")?;
        b.build_return(None)?;
        b.position_at_end(fast);
        let ptrmask = Intrinsic::find("llvm.ptrmask")
            .and_then(|f| f.get_declaration(&self.module, &[self.ptr().into(), i64t.into()]))
            .ok_or_else(|| CodegenError::Internal("no llvm.ptrmask".into()))?;
        let keep = i64t.const_int(!63u64, false);
        for (a, ptr, elem, shape) in pointers {
            let masked = self
                .builder
                .build_call(ptrmask, &[ptr.into(), keep.into()], "aligned")?
                .try_as_basic_value()
                .basic()
                .ok_or_else(|| CodegenError::Internal("llvm.ptrmask without a value".into()))?
                .into_pointer_value();
            inner.vals.insert(
                a,
                Val::Array {
                    ptr: masked,
                    elem,
                    shape,
                },
            );
        }
        let keep = i64t.const_int(!(CHUNK_MULTIPLE - 1), false);
        Ok(self.builder.build_and(start, keep, "start")?)
    }

    /// `sfence`: the stream variant's non-temporal stores are ordered
    /// before whatever follows (the pool's release of the job).
    pub(super) fn store_fence(&mut self) -> Res<()> {
        let sfence = Intrinsic::find("llvm.x86.sse.sfence")
            .and_then(|f| f.get_declaration(&self.module, &[]))
            .ok_or_else(|| CodegenError::Internal("no llvm.x86.sse.sfence".into()))?;
        self.builder.build_call(sfence, &[], "")?;
        Ok(())
    }
}

/// Marks non-temporal the vector stores of the vectorised loops (LLVM's
/// `vector.body` blocks) of the stream variants (named `*.stream`) whose
/// alignment, as LLVM proved it, is at least their width (or 64 bytes).
pub fn mark_nontemporal(context: &Context, module: &Module) -> Result<(), CodegenError> {
    let fail = |e: &str| CodegenError::Internal(format!("non-temporal stores: {e}"));
    let kind = context.get_kind_id("nontemporal");
    let one = context.metadata_node(&[context.i32_type().const_int(1, false).into()]);
    let data = |f: &FunctionValue| f.get_name().to_str().is_ok_and(|n| n.ends_with(".stream"));
    for f in module.get_functions().filter(data) {
        for block in f.get_basic_blocks() {
            if !block
                .get_name()
                .to_str()
                .is_ok_and(|n| n.starts_with("vector.body"))
            {
                continue;
            }
            let mut inst = block.get_first_instruction();
            while let Some(i) = inst {
                inst = i.get_next_instruction();
                if i.get_opcode() != InstructionOpcode::Store {
                    continue;
                }
                let Some(value) = i.get_operand(0).and_then(|o| o.value()) else {
                    continue;
                };
                let BasicTypeEnum::VectorType(ty) = value.get_type() else {
                    continue;
                };
                let width =
                    u64::from(ty.get_size()) * element_bytes(context, ty.get_element_type());
                let align = u64::from(i.get_alignment().map_err(|e| fail(&e.to_string()))?);
                if width >= 16 && align >= width.min(64) {
                    i.set_metadata(one, kind)
                        .map_err(|e| fail(&e.to_string()))?;
                }
            }
        }
    }
    Ok(())
}

/// The bytes of a vector's element (0 for a kind arrc does not store).
fn element_bytes(context: &Context, t: BasicTypeEnum) -> u64 {
    match t {
        BasicTypeEnum::IntType(i) => u64::from(i.get_bit_width()).div_ceil(8),
        BasicTypeEnum::FloatType(f) if f == context.f64_type() => 8,
        BasicTypeEnum::FloatType(f) if f == context.f32_type() => 4,
        BasicTypeEnum::FloatType(f) if f == context.f16_type() => 2,
        BasicTypeEnum::PointerType(_) => 8,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::{streamed_inputs, streamed_outputs};
    use crate::driver::pipeline::{compile, Goal, Options, Output, Session};
    use crate::loopy::ir::Stmt;

    /// The nest of saxpy's map streams its two inputs besides its output:
    /// all three pass through the cache, so all three count against it.
    #[test]
    fn a_map_streams_the_inputs_it_reads_at_its_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("saxpy.arr");
        std::fs::write(
            &path,
            "entry main (a: f32) (xs: []f32) (ys: []f32) : []f32 =\n  \
             map2 (\\x y -> a * x + y) xs ys\n",
        )
        .unwrap();
        // The inputs as parameters: none overwritten (`loopy::donate`).
        let options = Options {
            donate: false,
            ..Options::default()
        };
        let Ok(Output::Loopy(program)) =
            compile(&path, &options, Goal::Loopy, &mut Session::new(None))
        else {
            panic!("no loop nests");
        };
        let function = &program.functions[0];
        let nest = function
            .body
            .iter()
            .find_map(|s| match s {
                Stmt::Loop(n) => Some(n),
                _ => None,
            })
            .expect("a nest");
        let outputs = streamed_outputs(nest, 0);
        assert_eq!(outputs.len(), 1);
        let params: Vec<_> = function.params[1..].iter().map(|p| p.var.id).collect();
        assert_eq!(streamed_inputs(nest, &outputs), params);
    }
}
