//! The loop-nest IR: target-neutral imperative code in which every parallel
//! loop is a `LoopNest` over `0..width` that stands for one fusion cluster (or
//! one array-building builtin such as `iota`).
//!
//! Invariants (asserted by `loopy::check`):
//! - every variable is defined once, before its uses, and is visible only in
//!   the block that defines it and the blocks nested in it;
//! - arrays are defined by a function parameter (with one `i64` variable per
//!   dimension), `Alloc`, `Row` or `View` (views of part of another array),
//!   an `InPlace`, an `If`, a `SeqLoop` or a nest's carried state; they are
//!   written only through `Write` and `Copy`;
//! - memory: an array defined by `Alloc` is owned by exactly one variable at
//!   a time (a `View` at offset 0, an `InPlace`, an `If`/`SeqLoop` result or
//!   a reduction result may take ownership over); `Free` ends it, and nothing uses the
//!   freed variable afterwards. The lowering frees what a loop iteration
//!   allocates before the iteration ends, so long loops do not leak;
//! - a loop nest's body sees its index, the current value of each carried
//!   variable, and everything defined before the nest; it ends each iteration
//!   by giving every carried variable its `next` value;
//! - `LoopNest::par` agrees with what the nest carries (see
//!   `LoopNest::required_parallelism`).

use crate::core::ir::{AssertReport, Atom, BinOp, SizeParam, SrcLoc, Type, UnOp, Var, VarId};
use crate::fusion::ast::ClusterId;
use crate::types::{Const, ScalarType};

pub(crate) use super::vars::block_vars;
pub use super::vars::for_each_binder;
use super::vars::nest_inner_vars;

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Source file names, indexed by `SrcLoc::file`.
    pub files: Vec<String>,
    /// One per entry point, in source order.
    pub functions: Vec<Function>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    /// The entry's size parameters; each `var` is also the shape variable of
    /// the first dimension listed in its `uses`.
    pub size_params: Vec<SizeParam>,
    pub body: Block,
    /// Array results are never parameters, views or each other: each owns
    /// its memory, so the caller may free every one, except the memory of
    /// an `overwritten` parameter, which stays the caller's.
    pub results: Vec<Atom>,
    pub ret: Vec<Type>,
    /// Nests that run in one thread whatever their kind: those made of a
    /// `#[sequential]` SOAC (their `origin`s).
    pub sequential: Vec<Origin>,
    /// Array parameters whose memory the entry overwrites (the caller gave
    /// them up: `loopy::donate`); their memory stays the caller's to free.
    pub overwritten: Vec<VarId>,
}

/// A parameter; an array comes with one `i64` variable per dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub var: Var,
    pub shape: Vec<Var>,
}

pub type Block = Vec<Stmt>;

/// Scalar computations.
#[derive(Clone, Debug, PartialEq)]
pub enum ScalarExp {
    Atom(Atom),
    BinOp(BinOp, Atom, Atom),
    UnOp(UnOp, Atom),
    Convert(ScalarType, Atom),
    /// `a * b + c` on floats, rounded once.
    Fma(Atom, Atom, Atom),
}

impl ScalarExp {
    /// Evaluating it may stop the program (an integer division by zero):
    /// a division whose divisor is not a constant other than zero.
    pub fn may_fail(&self) -> bool {
        match self {
            ScalarExp::BinOp(op, _, divisor) if op.may_fail() => !matches!(
                divisor,
                Atom::Const(c) if !matches!(
                    c,
                    Const::I8(0)
                        | Const::I16(0)
                        | Const::I32(0)
                        | Const::I64(0)
                        | Const::U8(0)
                        | Const::U16(0)
                        | Const::U32(0)
                        | Const::U64(0)
                )
            ),
            _ => false,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// A scalar; `loc` names the expression for traps (division by zero).
    Let {
        var: Var,
        exp: ScalarExp,
        loc: SrcLoc,
    },
    /// A fresh row-major array of the given shape, contents undefined, in
    /// memory `space`.
    Alloc {
        var: Var,
        shape: Vec<Atom>,
        space: MemSpace,
    },
    /// One element; `index` has one atom per dimension. `check` is `Some`
    /// where the index may be out of range, `None` where the enclosing loop
    /// bound proves it in range.
    Read {
        var: Var,
        array: VarId,
        index: Vec<Atom>,
        check: Option<SrcLoc>,
    },
    /// `array[index] = value`, one element.
    Write {
        array: VarId,
        index: Vec<Atom>,
        value: Atom,
    },
    /// A view of the sub-array at `index` (fewer indices than the rank),
    /// sharing memory with `array`; checked like `Read`.
    Row {
        var: Var,
        array: VarId,
        index: Vec<Atom>,
        check: Option<SrcLoc>,
    },
    /// Copies all of `src` into the sub-array of `array` at `index` (the
    /// whole of `array` when `index` is empty); shapes agree by construction.
    Copy {
        array: VarId,
        index: Vec<Atom>,
        src: VarId,
    },
    If {
        results: Vec<Var>,
        cond: Atom,
        then_block: Block,
        then_results: Vec<Atom>,
        else_block: Block,
        else_results: Vec<Atom>,
    },
    /// Stops with `size mismatch` unless the two `i64`s are equal.
    AssertEq {
        expected: Atom,
        found: Atom,
        loc: SrcLoc,
    },
    /// Stops unless the `bool` holds, with what the report says
    /// (`assertion failed`, or an invalid range and its values).
    Assert {
        cond: Atom,
        report: AssertReport,
        loc: SrcLoc,
    },
    /// Stops with `negative size N` unless the `i64` is at least 0: a
    /// size the program computed, before an array of that size is made.
    SizeCheck {
        size: Atom,
        loc: SrcLoc,
    },
    /// Stops with `index I out of bounds for array of length N` unless
    /// `0 <= index < len`: an index into one dimension of a slice
    /// (`m[:, j]`), where `BoundsCheck`'s leading dimensions do not fit.
    IndexCheck {
        index: Atom,
        len: Atom,
        loc: SrcLoc,
    },
    /// Stops with `index I out of bounds` unless every index is within its
    /// dimension of `array` (for writes, which are never checked).
    BoundsCheck {
        array: VarId,
        index: Vec<Atom>,
        loc: SrcLoc,
    },
    /// Stops with `index [start:end:stride] out of bounds` unless the slice
    /// of `count` elements is valid for a dimension of length `len` by
    /// Futhark's rules: the stride is not 0 and, unless `count` is 0,
    /// `0 <= start <= end` (forwards) or `-1 <= end <= start < len`
    /// (backwards), and the last element `start + (count - 1) * stride` is
    /// in range.
    SliceCheck {
        start: Atom,
        end: Atom,
        stride: Atom,
        count: Atom,
        len: Atom,
        loc: SrcLoc,
    },
    /// A view of `product(shape)` consecutive elements of `array` starting
    /// at element `offset` (row-major), with a shape of its own; in range by
    /// construction. Shares memory with `array`.
    View {
        var: Var,
        array: VarId,
        offset: Atom,
        shape: Vec<Atom>,
    },
    /// Releases the memory `array` owns; `array` is not used afterwards.
    Free(VarId),
    /// `var` takes over the memory and shape of `array`, which is dead from
    /// here on (nothing uses it or any view of it): the first half of an
    /// update in place, whose write into `var` follows (see
    /// `loopy::inplace`).
    InPlace {
        var: Var,
        array: VarId,
    },
    /// A sequential loop (`loop` in the source), run in the current thread.
    SeqLoop(SeqLoop),
    Loop(LoopNest),
}

impl Stmt {
    /// The blocks directly inside the statement that run as part of it: an
    /// `If`'s branches, a sequential loop's `while` condition and body, a
    /// nest's body. A nest's operators are not among them (they combine
    /// iterations' values outside any one iteration; see
    /// `LoopNest::operators`).
    pub fn inner_blocks(&self) -> Vec<&Block> {
        match self {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => vec![then_block, else_block],
            Stmt::SeqLoop(lp) => match &lp.form {
                SeqForm::While { cond, .. } => vec![cond, &lp.body],
                SeqForm::For { .. } => vec![&lp.body],
            },
            Stmt::Loop(nest) => vec![&nest.body],
            _ => Vec::new(),
        }
    }

    /// `inner_blocks`, mutable.
    pub fn inner_blocks_mut(&mut self) -> Vec<&mut Block> {
        match self {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => vec![then_block, else_block],
            Stmt::SeqLoop(lp) => match &mut lp.form {
                SeqForm::While { cond, .. } => vec![cond, &mut lp.body],
                SeqForm::For { .. } => vec![&mut lp.body],
            },
            Stmt::Loop(nest) => vec![&mut nest.body],
            _ => Vec::new(),
        }
    }

    /// Whether the statement only checks a condition (stopping the program
    /// with an error when it fails): it binds and writes nothing.
    pub fn is_check(&self) -> bool {
        matches!(
            self,
            Stmt::AssertEq { .. }
                | Stmt::Assert { .. }
                | Stmt::SizeCheck { .. }
                | Stmt::IndexCheck { .. }
                | Stmt::BoundsCheck { .. }
                | Stmt::SliceCheck { .. }
        )
    }

    /// The statement with `rewrite` applied to each of its `inner_blocks`.
    pub fn map_inner_blocks(&self, mut rewrite: impl FnMut(&Block) -> Block) -> Stmt {
        let mut stmt = self.clone();
        for block in stmt.inner_blocks_mut() {
            *block = rewrite(block);
        }
        stmt
    }
}

/// A sequential loop. `params` are bound in `form`'s condition and in
/// `body`; `next` gives their values for the next iteration, and `results`
/// receive the final values after the loop.
///
/// An array parameter owns its memory unless its `next` is the parameter
/// itself (loop-invariant): then it is just its initial value. Otherwise the
/// lowering copies the initial value, and each iteration either keeps the
/// array, or frees it after making `next` an array the body owns.
#[derive(Clone, Debug, PartialEq)]
pub struct SeqLoop {
    pub params: Vec<SeqParam>,
    pub form: SeqForm,
    pub body: Block,
    pub next: Vec<Atom>,
    /// One per parameter, with a variable per dimension as for parameters.
    pub results: Vec<Param>,
}

/// A loop-carried variable: an array comes with one `i64` variable per
/// dimension, bound with it.
#[derive(Clone, Debug, PartialEq)]
pub struct SeqParam {
    pub var: Var,
    pub shape: Vec<Var>,
    pub init: Atom,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SeqForm {
    /// `index` runs from 0 while below `bound` (both of `bound`'s type).
    For { index: Var, bound: Atom },
    /// `cond` runs before every iteration; the loop goes on while `result`.
    While { cond: Block, result: Atom },
}

/// Where an allocation's memory lives; `loopy::memory` decides (the
/// lowering allocates everything in `Host`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemSpace {
    /// Used by host code only.
    Host,
    /// Read or written by a nest that host code launches (on a GPU, device
    /// memory, where arrays stay from one kernel to the next).
    Device,
    /// Allocated inside a nest's iteration, for that iteration alone (on a
    /// GPU, a thread's scratch).
    Scratch,
    /// Scratch whose shape does not change from one iteration of the
    /// enclosing nest to the next and whose memory the iteration frees
    /// (`loopy::scratch`): each thread allocates it once per run of the
    /// nest (per chunk of iterations) and every iteration reuses it; a
    /// small constant size lives on the stack, in registers once LLVM
    /// unrolls the loops over it. A GPU kernel, which cannot allocate,
    /// gets such memory before the launch, one slice per thread.
    Thread,
}

impl MemSpace {
    pub fn name(self) -> &'static str {
        match self {
            MemSpace::Host => "host",
            MemSpace::Device => "device",
            MemSpace::Scratch => "scratch",
            MemSpace::Thread => "thread",
        }
    }
}

/// The boundary between host code and parallel code: who starts a nest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launch {
    /// Host code (a function's body, a branch, a sequential loop outside
    /// any nest): the nest is launched, a kernel on a GPU, the thread pool
    /// on the CPU.
    Host,
    /// An iteration of another nest, which runs it in its own thread.
    Nested,
    /// Host code itself, in sequential order: a light map over host memory
    /// on a GPU target (`loopy::memory`).
    Inline,
}

/// Why a loop nest exists (for dumps and, later, for profiling).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A fusion cluster.
    Cluster(ClusterId),
    /// A SOAC nested in a lambda (clusters exist only at the top of bodies).
    Nested(u32),
    Iota,
    Replicate,
    /// Array builtins of the core IR (a copy with elements moved).
    Transpose,
    Reverse,
    Rotate,
    Slice,
    /// One part of a concatenation of vectors.
    Concat,
}

impl Origin {
    /// `cluster 3`, `soac 7`, `iota`...; `sep` goes between a kind and its
    /// number (a space in dumps, nothing in symbol names).
    pub fn describe(self, sep: &str) -> String {
        match self {
            Origin::Cluster(c) => format!("cluster{sep}{}", c.0),
            Origin::Nested(label) => format!("soac{sep}{label}"),
            Origin::Iota => "iota".to_string(),
            Origin::Replicate => "replicate".to_string(),
            Origin::Transpose => "transpose".to_string(),
            Origin::Reverse => "reverse".to_string(),
            Origin::Rotate => "rotate".to_string(),
            Origin::Slice => "slice".to_string(),
            Origin::Concat => "concat".to_string(),
        }
    }
}

/// How the iterations of a nest may be spread over threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parallelism {
    /// Iterations are independent.
    Map,
    /// Per-thread partial results combined with each reduction's operator.
    Reduce,
    /// A multi-phase scan: per-chunk totals, a scan of them, then a pass
    /// with each chunk's carry-in.
    Scan,
    /// Filter and partition: per-chunk counts of kept elements, an
    /// exclusive scan of them, then a pass writing each chunk at its offset
    /// (see `Compaction`).
    Compact,
    /// A histogram: per-thread private bins combined with the operator
    /// afterwards, or atomic updates (see `HistState`).
    Hist,
    /// Independent iterations writing at data-dependent indices (scatter):
    /// a map, except that two iterations may write the same element, and
    /// either value may win.
    Scatter,
}

impl Parallelism {
    pub fn name(self) -> &'static str {
        match self {
            Parallelism::Map => "map",
            Parallelism::Reduce => "reduce",
            Parallelism::Scan => "scan",
            Parallelism::Compact => "compact",
            Parallelism::Hist => "hist",
            Parallelism::Scatter => "scatter",
        }
    }
}

/// One parallel loop `for index in 0..width`.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopNest {
    pub origin: Origin,
    pub par: Parallelism,
    /// `i64`, bound in `body` only.
    pub index: Var,
    pub width: Atom,
    pub reductions: Vec<Reduction>,
    pub scans: Vec<ScanState>,
    pub compactions: Vec<Compaction>,
    pub hists: Vec<HistState>,
    /// Arrays the body writes at data-dependent indices (scatter).
    pub scatters: Vec<VarId>,
    pub body: Block,
    /// Who starts the nest (set by `loopy::memory`).
    pub launch: Launch,
    /// How a parallel backend runs it (set by `loopy::par::plan_nests`,
    /// the last loop-nest pass; `None` before).
    pub plan: Option<Box<NestPlan>>,
}

/// How a nest runs in parallel: printed by `--emit loopy`, and run by the
/// code generator as printed.
#[derive(Clone, Debug, PartialEq)]
pub struct NestPlan {
    pub strategy: ParPlan,
    /// Iterations worth one parallel task (`None`: the target does not cut
    /// nests into tasks).
    pub grain: Option<i64>,
    /// The loop over a task's iterations of the body.
    pub body: LoopShape,
    /// The same for the totals of a `TwoPhase` nest.
    pub totals: Option<LoopShape>,
}

/// The execution strategy of one nest.
#[derive(Clone, Debug, PartialEq)]
pub enum ParPlan {
    Chunked,
    Partials,
    /// Look-back scan or compaction, with the body's totals slice.
    TwoPhase {
        totals: Block,
    },
    /// Histogram updates; `atomic` when every update can be one atomic
    /// operation on a scalar bin (otherwise only private bins are used).
    Hist {
        atomic: bool,
        private: bool,
    },
    Sequential(&'static str),
}

/// How the loop over a range of a nest's iterations is generated (see
/// `loopy::chunk`).
#[derive(Clone, Debug, PartialEq)]
pub enum LoopShape {
    /// One loop, every check in place.
    Plain,
    /// Two copies: one test before the loop proves these reads in range for
    /// the whole range, and the copy without their checks runs; otherwise
    /// the checked copy.
    Versioned(Vec<ProvenRead>),
    /// The first and the last iteration run apart: in the iterations
    /// between, every condition holds its `apart` value (checked once), so
    /// the branches they decide fold away and `middle` (more reads than
    /// `reads`) are proven in range there. Otherwise the whole range runs
    /// `Versioned(reads)`.
    Peeled {
        conditions: Vec<IndexCondition>,
        reads: Vec<ProvenRead>,
        middle: Vec<ProvenRead>,
    },
    /// The range cut where conditions on the index change (a rotated
    /// read's wrap-around): in each piece every condition is known, the
    /// branches and selects it decides fold away, and the piece runs
    /// `Versioned` with the reads then proven. Otherwise (bounds so large
    /// that the index plus a shift could overflow) the whole range runs
    /// as one loop.
    Cut(Vec<CutCondition>),
    /// A float scan's body in interleaved lanes (no iteration can fail).
    Lanes,
    /// A selection reduction's body (`loopy::select`: argmax, argmin) in
    /// interleaved lanes, lane `v` taking iterations `start + t * L + v`,
    /// combined after the loop: the operator is commutative.
    Strided,
}

/// A checked read of an array from outside the nest whose every index is
/// the nest's index plus a constant, or the same in every iteration: one
/// test before a loop proves it in range for the loop's range.
#[derive(Clone, Debug, PartialEq)]
pub struct ProvenRead {
    /// The variable the read defines.
    pub var: VarId,
    pub array: VarId,
    pub dims: Vec<ReadDim>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ReadDim {
    /// The nest's index plus this.
    Affine(i64),
    Invariant(Atom),
}

/// A condition `index == value` (or `index != value`) of a nest's body with
/// `value` the same in every iteration; `apart` is what it is when the
/// index differs from `value`.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexCondition {
    pub var: VarId,
    pub value: Atom,
    pub apart: bool,
}

/// A condition `index + shift >= bound + extra` of a nest's body (`after`
/// true) or its negation (`after` false), with `shift` and `bound` the same
/// in every iteration and `extra` 0 or 1: it is `!after` below
/// `bound - shift + extra` and `after` from there on.
#[derive(Clone, Debug, PartialEq)]
pub struct CutCondition {
    pub var: VarId,
    pub shift: Atom,
    pub bound: Atom,
    pub extra: i64,
    pub after: bool,
}

/// A value carried from one iteration to the next.
#[derive(Clone, Debug, PartialEq)]
pub struct Carried {
    /// The value at the start of an iteration (bound in the body).
    pub var: Var,
    /// Its value before the first iteration; evaluated outside the loop.
    pub init: Atom,
    /// Its value at the end of an iteration (defined by the body).
    pub next: Atom,
}

/// A reduction: initialised before the loop, combined inside, and its final
/// value bound to `results` after the loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduction {
    pub carried: Vec<Carried>,
    /// Bound after the loop, one per carried value.
    pub results: Vec<Var>,
    /// The associative operator, to combine per-thread partial results.
    pub op: Operator,
}

/// An inclusive scan: the carried value after each iteration is that
/// element's result, which the body writes to `outputs` (unless fused away).
/// A right-to-left scan (`scanr`) iterates from the end: its body reads and
/// writes at `width - 1 - index`, and its `op` takes its operands in
/// iteration order, so chunks combine exactly as for a forward scan.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanState {
    pub carried: Vec<Carried>,
    /// The arrays the body writes scan results to (those a parallel scan
    /// must fix up with a carry-in).
    pub outputs: Vec<VarId>,
    pub op: Operator,
}

/// An order-keeping compaction (filter, or one half of a partition): the
/// carried `count` is the number of elements kept before this iteration
/// (an exclusive scan of the flags); when `flag` (defined in the body)
/// holds, the body writes this iteration's elements to `outputs` at
/// `count`. After the loop `result` holds the number kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Compaction {
    /// `i64`, from 0; `next` is `count + i64(flag)`.
    pub count: Carried,
    pub flag: Atom,
    pub outputs: Vec<VarId>,
    pub result: Var,
}

/// A histogram: before the loop every bin of `bins` holds `neutral` (or a
/// destination's copy); the body combines values into bins with `op`. A
/// parallel backend may give each thread private bins starting at
/// `neutral` and combine them with `op` afterwards.
#[derive(Clone, Debug, PartialEq)]
pub struct HistState {
    pub bins: Vec<VarId>,
    pub neutral: Vec<Atom>,
    pub op: Operator,
}

/// An associative operator kept apart from the loop body: `params` are the
/// left operands followed by the right ones.
///
/// A carried array (reduce or scan over rows) lives in a buffer allocated
/// before the nest: the body copies the combined row into the carried
/// variable itself, so `next` is the variable, and after the loop the
/// reduction's result takes the buffer over.
#[derive(Clone, Debug, PartialEq)]
pub struct Operator {
    pub params: Vec<Var>,
    pub body: Block,
    pub results: Vec<Atom>,
}

impl LoopNest {
    /// A map nest with nothing carried (the lowering adds what its SOACs
    /// carry and sets `par` from it).
    pub fn map(origin: Origin, index: Var, width: Atom, body: Block) -> LoopNest {
        LoopNest {
            origin,
            par: Parallelism::Map,
            index,
            width,
            reductions: Vec::new(),
            scans: Vec::new(),
            compactions: Vec::new(),
            hists: Vec::new(),
            scatters: Vec::new(),
            body,
            launch: Launch::Host,
            plan: None,
        }
    }

    /// The operators of its reductions, scans and histograms.
    pub fn operators(&self) -> impl Iterator<Item = &Operator> {
        let reductions = self.reductions.iter().map(|r| &r.op);
        reductions
            .chain(self.scans.iter().map(|s| &s.op))
            .chain(self.hists.iter().map(|h| &h.op))
    }

    pub fn operators_mut(&mut self) -> impl Iterator<Item = &mut Operator> {
        let reductions = self.reductions.iter_mut().map(|r| &mut r.op);
        reductions
            .chain(self.scans.iter_mut().map(|s| &mut s.op))
            .chain(self.hists.iter_mut().map(|h| &mut h.op))
    }

    /// All carried values: reductions, scans, then compaction counts.
    pub fn carried(&self) -> impl Iterator<Item = &Carried> {
        self.reductions
            .iter()
            .flat_map(|r| r.carried.iter())
            .chain(self.scans.iter().flat_map(|s| s.carried.iter()))
            .chain(self.compactions.iter().map(|c| &c.count))
    }

    /// What the carried state demands; the most demanding wins.
    pub fn required_parallelism(&self) -> Parallelism {
        if !self.compactions.is_empty() {
            Parallelism::Compact
        } else if !self.scans.is_empty() {
            Parallelism::Scan
        } else if !self.hists.is_empty() {
            Parallelism::Hist
        } else if !self.reductions.is_empty() {
            Parallelism::Reduce
        } else if !self.scatters.is_empty() {
            Parallelism::Scatter
        } else {
            Parallelism::Map
        }
    }

    /// Variables the nest uses but does not define, in increasing id order:
    /// what an outlined loop function needs in its environment. `width` and
    /// the carried `init`s are evaluated by the caller and are not included.
    /// The variables the nest binds: its index, carried values, results
    /// and everything its body and operators define.
    pub fn defined_vars(&self) -> std::collections::HashSet<VarId> {
        let mut uses = std::collections::BTreeSet::new();
        let mut defs = std::collections::HashSet::new();
        nest_inner_vars(self, &mut uses, &mut defs);
        defs
    }

    pub fn free_vars(&self) -> Vec<VarId> {
        let mut uses = std::collections::BTreeSet::new();
        let mut defs = std::collections::HashSet::new();
        nest_inner_vars(self, &mut uses, &mut defs);
        uses.into_iter().filter(|v| !defs.contains(v)).collect()
    }
}
