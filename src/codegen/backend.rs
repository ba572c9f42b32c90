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
use crate::loopy::ir::{LoopNest, MemSpace};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use inkwell::values::{IntValue, PointerValue};

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
    Assert,
    /// `negative size N`: the size.
    NegativeSize,
}

impl Trap {
    /// How many `i64` operands the report takes.
    pub(crate) fn operands(self) -> usize {
        match self {
            Trap::Bounds | Trap::SizeMismatch => 2,
            Trap::Slice => 4,
            Trap::NegativeSize => 1,
            Trap::DivisionByZero | Trap::Assert => 0,
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
    /// `operands` and the source location `loc` (a C string
    /// "FILE:LINE:COL") and ends the block; code after the block is not
    /// reached on this path.
    fn trap<'ctx>(
        &self,
        gen: &mut Gen<'ctx, '_>,
        trap: Trap,
        operands: &[IntValue<'ctx>],
        loc: PointerValue<'ctx>,
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

    /// The machine that modules are optimised and emitted for.
    fn machine(&self) -> Res<TargetMachine>;

    /// What the target sets on a freshly built module before LLVM's
    /// optimisation (attributes on its functions).
    fn prepare(&self, ctx: &Context, module: &Module) -> Res<()>;
}
