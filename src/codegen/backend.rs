//! The interface between target-neutral emission (`emit`) and a target
//! (`cpu` now; `gpu` is to implement the same trait): what each target does
//! its own way. `emit` generates every statement and scalar expression and
//! calls a `Backend` for a loop nest, a run-time error, an allocation, and
//! to make and finish the module.
//!
//! A backend's own emission may be written as methods of `Gen` in its
//! folder (as `cpu` does); target-neutral code reaches it only through this
//! trait.

use super::emit::{Frame, Gen, Res};
use crate::core::ir::SrcLoc;
use crate::loopy::ir::{LoopNest, MemSpace, SeqLoop, Stmt};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};

/// A run-time error of the program (LANGUAGE.md section 6), with the
/// `i64` operands its message shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trap {
    /// `index I out of bounds for array of length N`: index, length.
    Bounds,
    /// A bad slice `start:end:stride`: start, end, stride, length.
    Slice,
    /// `size mismatch`: expected, found.
    SizeMismatch,
    DivisionByZero,
    /// A signed integer `**` with an exponent below zero.
    NegativeExponent,
    Assert,
    /// `assertion failed at LOC: Assertion is false: COND`: the number of the
    /// condition's text (`Gen::condition_number`).
    AssertCondition(usize),
    /// `negative size N`: the size.
    NegativeSize,
    /// `Range 0..1..<-2 is invalid`: start, second, end, form
    /// (`core::ir::range_form`).
    Range,
}

impl Trap {
    /// How many `i64` operands the report takes.
    pub(crate) fn operands(self) -> usize {
        match self {
            Trap::Bounds | Trap::SizeMismatch => 2,
            Trap::Slice | Trap::Range => 4,
            Trap::NegativeSize => 1,
            Trap::DivisionByZero
            | Trap::NegativeExponent
            | Trap::Assert
            | Trap::AssertCondition(_) => 0,
        }
    }
}

/// What a target does its own way. Methods that generate code do so at
/// the builder's position of `gen`.
pub(crate) trait Backend {
    /// Runs `nest` (a parallel loop nest of the loopy IR) in `fr`'s
    /// function: binds the nest's results (reductions, compaction counts)
    /// in `fr` and leaves the builder after it.
    fn nest<'ctx>(&self, gen: &mut Gen<'ctx, '_>, fr: &mut Frame<'ctx>, nest: &LoopNest)
        -> Res<()>;

    /// In a block reached only when `trap` happened: reports it with its
    /// `operands` and the source location `loc` (`Gen::loc_string` gives
    /// its C string "FILE:LINE:COL") and ends the block; code after the
    /// block is not reached on this path.
    fn trap<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        trap: Trap,
        operands: &[IntValue<'ctx>],
        loc: SrcLoc,
    ) -> Res<()>;

    /// Memory for an array of `bytes` bytes in `space` (`loopy::memory`
    /// decides it), which the program owns until `free`.
    fn alloc<'ctx>(
        &self,
        gen: &Gen<'ctx, '_>,
        space: MemSpace,
        bytes: IntValue<'ctx>,
    ) -> Res<PointerValue<'ctx>>;

    /// Releases memory from `alloc`, whatever its space (a backend with
    /// several tells them apart itself).
    fn free<'ctx>(&self, gen: &Gen<'ctx, '_>, ptr: PointerValue<'ctx>) -> Res<()>;

    /// A load of `ty` at `ptr` in host code (outside every nest): a GPU's
    /// host cannot dereference device memory and copies the element out.
    fn host_load<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        fr: &Frame<'ctx>,
        ty: BasicTypeEnum<'ctx>,
        ptr: PointerValue<'ctx>,
    ) -> Res<BasicValueEnum<'ctx>> {
        let _ = fr;
        Ok(gen.builder.build_load(ty, ptr, "")?)
    }

    /// A store in host code (see `host_load`).
    fn host_store<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        fr: &Frame<'ctx>,
        ptr: PointerValue<'ctx>,
        value: BasicValueEnum<'ctx>,
    ) -> Res<()> {
        let _ = fr;
        gen.builder.build_store(ptr, value)?;
        Ok(())
    }

    /// A copy of `bytes` bytes between arrays in host code; `spaces`: the
    /// memory of `dst` and of `src` (`Host` or `Device`).
    fn host_copy<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        dst: PointerValue<'ctx>,
        src: PointerValue<'ctx>,
        bytes: IntValue<'ctx>,
        spaces: [MemSpace; 2],
    ) -> Res<()> {
        let _ = spaces;
        gen.builder.build_memmove(dst, 1, src, 1, bytes)?;
        Ok(())
    }

    /// At the end of an iteration of a sequential loop's body, before the
    /// next values are stored.
    fn seq_iteration_end<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        fr: &Frame<'ctx>,
        lp: &SeqLoop,
    ) -> Res<()> {
        let _ = (gen, fr, lp);
        Ok(())
    }

    /// `stmt`, the one statement of an `if` without results or else arm,
    /// under `cond` without a branch, where the target has a way to; whether
    /// it did (else the caller branches).
    fn guarded_write<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        fr: &mut Frame<'ctx>,
        cond: IntValue<'ctx>,
        stmt: &Stmt,
    ) -> Res<bool> {
        let _ = (gen, fr, cond, stmt);
        Ok(false)
    }

    /// At the start of an entry point's body.
    fn entry_start<'ctx>(&self, gen: &mut Gen<'ctx, '_>) -> Res<()> {
        let _ = gen;
        Ok(())
    }

    /// An entry's array argument of `bytes` bytes at `ptr` (caller's
    /// memory) as the program's code addresses it.
    fn entry_param<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        ptr: PointerValue<'ctx>,
        bytes: IntValue<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        let _ = (gen, bytes);
        Ok(ptr)
    }

    /// An entry's array result, which the program owns, as memory the
    /// caller owns and frees with `arr_free`.
    fn entry_result<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        ptr: PointerValue<'ctx>,
        bytes: IntValue<'ctx>,
    ) -> Res<PointerValue<'ctx>> {
        let _ = (gen, bytes);
        Ok(ptr)
    }

    /// At the end of an entry, with what `entry_param` gave.
    fn entry_end<'ctx>(&self, gen: &mut Gen<'ctx, '_>, params: &[PointerValue<'ctx>]) -> Res<()> {
        let _ = (gen, params);
        Ok(())
    }

    /// The machine that modules are optimised and emitted for.
    fn machine(&self) -> Res<TargetMachine>;

    /// What the target sets on a freshly built module before LLVM's
    /// optimisation (attributes on its functions).
    fn prepare(&self, ctx: &Context, module: &Module) -> Res<()>;
}
