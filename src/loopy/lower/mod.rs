//! Fusion AST to loop nests.
//!
//! Each cluster becomes one `LoopNest` over the common width of its SOACs.
//! Walking the leaves producers first, every SOAC's lambda is inlined into
//! the loop body with fresh variables: an array fused vertically is then only
//! a per-iteration value, one fused diagonally is that value plus a write, and
//! horizontally fused SOACs share the loop and the reads of common inputs.
//! Reductions and scans become carried values; filter and partition
//! compactions, histograms and scatters get nests of their own. A SOAC inside
//! a lambda becomes a nest inside the body of the outer one (run
//! sequentially by each outer iteration). `iota`, `replicate`, array literals
//! and the array builtins (slices, updates, transpose, ...) get loops, views
//! or copies of their own; `loop` becomes a `SeqLoop`.
//!
//! Memory: every block that runs repeatedly or conditionally (a nest body, a
//! sequential loop's body and condition, an `if` branch) has a frame listing
//! the arrays it allocated; at the block's end those that do not escape are
//! freed, so long loops do not leak. Arrays escape only as owned values:
//! a branch or loop result that is a view or an outer array is copied
//! (for an `if`: when either arm allocates the result or returns a view of
//! an array it allocates, through views and inner `if`s; `view_of`).
//! Updates, scatter destinations and loop initial values are lowered as
//! fresh copies; `loopy::inplace` then reuses the memory of those whose old
//! array is dead. (Allocating per-iteration buffers once outside a nest is
//! a later optimisation.)
//!
//! Lowering is total: what a later stage cannot handle (a map whose rows'
//! shape is only known inside its loop) shows up as a use of an undefined
//! variable, which `loopy::check` reports.
//!
//! Files: this one holds the `Lowerer` (names, shapes, memory frames, small
//! emitters); `bodies` functions, bodies and plain statements; `arrays` the
//! array builtins; `soacs` clusters of maps, reductions and scans; `sparse`
//! filters fused with their families; `special` the SOACs with nests of
//! their own.

mod arrays;
mod bodies;
mod soacs;
mod sparse;
mod special;

use super::ir::*;
use crate::core::fresh::Fresh;
use crate::core::ir::{
    self as core, Atom, BinOp, DimSlice, Exp, LoopForm, SoacId, SoacKind, SrcLoc, Type, UnOp, Var,
    VarId,
};
use crate::fusion::ast::{
    FusedBody, FusedFunction, FusedLoopForm, FusedProgram, FusionTree, Item, SoacStm,
};
use crate::types::{Const, ScalarType};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Lowers every entry; the loop-nest passes that follow are run by the pass
/// list (`driver::pipeline`).
pub fn lower(program: &FusedProgram) -> Program {
    let mut lowerer = Lowerer {
        names: Fresh::starting_at(max_var_id(program) + 1, 0),
        subst: HashMap::new(),
        shapes: HashMap::new(),
        types: HashMap::new(),
        owned: HashSet::new(),
        closed: HashSet::new(),
        view_of: HashMap::new(),
        frames: Vec::new(),
        carried: HashSet::new(),
        renaming: 0,
        nested: BTreeMap::new(),
        lambda_depth: 0,
        generated: HashMap::new(),
        sequential: Vec::new(),
    };
    Program {
        files: program.files.clone(),
        functions: program
            .entries
            .iter()
            .map(|f| lowerer.function(f))
            .collect(),
    }
}

const I64: Type = Type::Scalar(ScalarType::I64);

fn i64c(v: i64) -> Atom {
    Atom::Const(Const::I64(v))
}

struct Lowerer {
    /// New variables, above every variable of the fusion AST.
    names: Fresh,
    /// Core variable to the loopy atom that holds its value.
    subst: HashMap<VarId, Atom>,
    /// Shape of every loopy array variable, outermost dimension first.
    shapes: HashMap<VarId, Vec<Atom>>,
    types: HashMap<VarId, Type>,
    /// Arrays that own their memory (not parameters or views).
    owned: HashSet<VarId>,
    /// Arrays allocated in blocks now closed: their dimensions were
    /// checked there (perhaps in no iteration), not before what follows.
    closed: HashSet<VarId>,
    /// The arrays whose memory a view made by `view` (or an unowned `if`
    /// result) may look into, so that a block returning such a view of
    /// memory it frees copies it out first.
    view_of: HashMap<VarId, Vec<VarId>>,
    /// Per open block, the arrays it allocated (see the module comment).
    frames: Vec<Vec<VarId>>,
    /// Values a nest carries from one iteration to the next: bound only in
    /// its body, so a copy run before the nest cannot use them.
    carried: HashSet<VarId>,
    /// Inside an inlined lambda, binders get fresh ids (a lambda may be
    /// inlined more than once: loop body and combine operator).
    renaming: usize,
    /// The clustered bodies inside SOACs' functions of the entry being
    /// lowered (`FusedFunction::nested`).
    nested: BTreeMap<SoacId, FusedBody>,
    /// How many lambda bodies enclose the code being lowered: their
    /// clusters are nests inside another nest's body.
    lambda_depth: usize,
    /// Arrays made by `iota` (their element type) or by `replicate` of a
    /// scalar (the value): an element read at a loop's own index is
    /// computed instead, and `generators::drop_unread` then removes the
    /// arrays nothing reads (iota and replicate fuse into their readers).
    generated: HashMap<VarId, Generated>,
    /// The nests of the function being lowered that hold a
    /// `#[sequential]` SOAC (`Function::sequential`).
    sequential: Vec<Origin>,
}

#[derive(Clone, Copy)]
enum Generated {
    Iota(ScalarType),
    Replicate(Atom),
    /// A permutation of the outer dimension of `src` (`reverse`, `rotate`,
    /// a strided slice): an element (or row) read at a loop's own index is
    /// read from `src` at the composed index instead, so the permuted copy
    /// is only made when something else reads it (index functions fused
    /// into the consumer).
    Permuted {
        src: VarId,
        index: IndexFn,
    },
    /// A strided view of a matrix `src` made as a copy (`transpose`, a
    /// slice over its inner dimension): element `[i][j]` is `src` at the
    /// two positions `idx` gives. Read at a loop's own index, a row is a
    /// view again (over the row of the copy, used when something reads it
    /// otherwise) and an element is read from `src`, so the copy is only
    /// made when something else reads it.
    /// `depth`: a view made by a statement is read in place only by loops
    /// at its own lambda depth (each element once); a loop nested deeper
    /// reads it again in every iteration of the enclosing one, where the
    /// contiguous copy pays (a matrix product's transposed operand).
    View {
        src: VarId,
        idx: [Lin; 2],
        depth: Option<usize>,
    },
    /// `first ++ second`: element (or row) `i` is `first[i]` below
    /// `split` (the first's length), else `second[i - split]`.
    Concat {
        first: VarId,
        second: VarId,
        split: Atom,
    },
}

/// One of a `Generated::View`'s two source positions.
#[derive(Clone, Copy)]
enum Lin {
    Fixed(Atom),
    /// `start + stride * i` for the view's index `i` of dimension `dim`.
    Dim {
        dim: u8,
        start: Atom,
        stride: Atom,
    },
}

/// Element `i` of a permuted array is element `f(i)` of its source.
#[derive(Clone, Copy)]
enum IndexFn {
    /// `last - i`.
    Reverse { last: Atom },
    /// `(i + shift) rem modulus`, with `shift` in `0..modulus`.
    Rotate { shift: Atom, modulus: Atom },
    /// `start + i * stride`.
    Strided { start: Atom, stride: Atom },
}

/// A body to lower: core statements inside lambdas, fused items outside.
#[derive(Clone, Copy)]
enum Branch<'a> {
    Core(&'a core::Body),
    Fused(&'a FusedBody),
}

/// A loop's form, from the core IR or the fusion AST.
enum Form<'a> {
    For { index: &'a Var, bound: &'a Atom },
    While(Branch<'a>),
}

impl super::rename::NameSource for Lowerer {
    fn fresh_var(&mut self, name: &str, ty: Type) -> Var {
        self.fresh(name, ty)
    }
}

impl Lowerer {
    fn fresh(&mut self, name: &str, ty: Type) -> Var {
        let var = self.names.var(name, ty);
        self.types.insert(var.id, ty);
        var
    }

    fn carried_var(&mut self, name: &str, ty: Type) -> Var {
        let var = self.fresh(name, ty);
        self.carried.insert(var.id);
        var
    }

    /// The loopy variable for a core binder.
    fn bind(&mut self, v: &Var) -> Var {
        let new = if self.renaming > 0 {
            self.fresh(&v.name, v.ty)
        } else {
            self.types.insert(v.id, v.ty);
            v.clone()
        };
        self.subst.insert(v.id, Atom::Var(new.id));
        new
    }

    fn atom(&self, a: &Atom) -> Atom {
        match a {
            Atom::Var(v) => self.subst.get(v).copied().unwrap_or(*a),
            Atom::Const(_) => *a,
        }
    }

    fn var(&self, v: VarId) -> VarId {
        match self.atom(&Atom::Var(v)) {
            Atom::Var(id) => id,
            // A constant standing for an array cannot occur in well-typed
            // input; keeping the id makes `check` report it.
            Atom::Const(_) => v,
        }
    }

    fn type_of(&self, a: &Atom) -> Option<Type> {
        match a {
            Atom::Var(v) => self.types.get(v).copied(),
            Atom::Const(c) => Some(Type::Scalar(c.scalar_type())),
        }
    }

    fn is_array(&self, a: &Atom) -> bool {
        matches!(self.type_of(a), Some(Type::Array(..)))
    }

    /// The shape of an array atom; empty for scalars.
    fn shape(&self, a: &Atom) -> Vec<Atom> {
        match a {
            Atom::Var(v) => self.shapes.get(v).cloned().unwrap_or_default(),
            Atom::Const(_) => Vec::new(),
        }
    }

    fn array_shape(&self, v: VarId) -> Vec<Atom> {
        self.shape(&Atom::Var(v))
    }

    // ---- memory ---------------------------------------------------------

    /// Allocates `var`, owned by the innermost open block.
    fn alloc(&mut self, var: &Var, shape: Vec<Atom>, out: &mut Block) {
        self.alloc_raw(var, shape, out);
        if let Some(frame) = self.frames.last_mut() {
            frame.push(var.id);
        }
    }

    /// Allocates `var` in the block around the innermost one (the block a
    /// nest whose body is being built runs in).
    fn alloc_outside(&mut self, var: &Var, shape: Vec<Atom>, out: &mut Block) {
        self.alloc_raw(var, shape, out);
        let n = self.frames.len();
        if let Some(frame) = self.frames.get_mut(n.wrapping_sub(2)) {
            frame.push(var.id);
        }
    }

    /// Allocates `var`, owned but in no frame yet.
    fn alloc_raw(&mut self, var: &Var, shape: Vec<Atom>, out: &mut Block) {
        self.shapes.insert(var.id, shape.clone());
        self.owned.insert(var.id);
        out.push(Stmt::Alloc {
            var: var.clone(),
            shape,
            space: MemSpace::Host,
        });
    }

    /// `to` (a view at offset 0 or an alias of `from`) takes over the
    /// memory `from` owns.
    fn transfer(&mut self, from: VarId, to: VarId) {
        if !self.owned.remove(&from) {
            return;
        }
        self.owned.insert(to);
        for frame in self.frames.iter_mut().rev() {
            if let Some(slot) = frame.iter_mut().find(|v| **v == from) {
                *slot = to;
                return;
            }
        }
    }

    /// Makes `var` owned by the innermost open block.
    fn adopt(&mut self, var: VarId) {
        self.owned.insert(var);
        if let Some(frame) = self.frames.last_mut() {
            frame.push(var);
        }
    }

    /// Closes the innermost block: returns the arrays it still owns.
    fn pop_frame(&mut self) -> Vec<VarId> {
        let frame = self.frames.pop().unwrap_or_default();
        self.closed.extend(frame.iter().copied());
        frame
            .into_iter()
            .filter(|v| self.owned.contains(v))
            .collect()
    }

    /// Frees the arrays of `frame` that are not in `keep`.
    fn free_frame(&mut self, frame: &[VarId], keep: &HashSet<VarId>, out: &mut Block) {
        for v in frame {
            if !keep.contains(v) && self.owned.remove(v) {
                out.push(Stmt::Free(*v));
            }
        }
    }

    /// Lowers `f` into a block of its own whose allocations are all freed at
    /// its end.
    fn framed(&mut self, f: impl FnOnce(&mut Self, &mut Block)) -> Block {
        self.frames.push(Vec::new());
        let mut block = Vec::new();
        f(self, &mut block);
        let frame = self.pop_frame();
        self.free_frame(&frame, &HashSet::new(), &mut block);
        block
    }

    /// A fresh array with a copy of `a`, owned but in no frame.
    fn copy_array(&mut self, a: &Atom, out: &mut Block) -> Atom {
        let (Atom::Var(src), Some(ty)) = (a, self.type_of(a)) else {
            return *a;
        };
        let copy = self.fresh("copy", ty);
        let shape = self.shape(a);
        self.alloc_raw(&copy, shape, out);
        out.push(Stmt::Copy {
            array: copy.id,
            index: Vec::new(),
            src: *src,
        });
        Atom::Var(copy.id)
    }

    /// Makes the array results of a block that closes with `frame` owned:
    /// each must be an array the block owns (and returns once); any other
    /// is copied when `copy` is set for it. Returns the arrays that escape.
    fn escape(
        &mut self,
        frame: &[VarId],
        results: &mut [Atom],
        copy: &[bool],
        out: &mut Block,
    ) -> HashSet<VarId> {
        let mut taken = HashSet::new();
        for (r, &c) in results.iter_mut().zip(copy) {
            if !c || !self.is_array(r) {
                continue;
            }
            match r {
                Atom::Var(v) if frame.contains(v) && !taken.contains(v) => {
                    taken.insert(*v);
                }
                _ => {
                    *r = self.copy_array(r, out);
                    if let Atom::Var(v) = r {
                        taken.insert(*v);
                    }
                }
            }
        }
        taken
    }

    fn owned_by(&self, frame: &[VarId], a: &Atom) -> bool {
        matches!(a, Atom::Var(v) if frame.contains(v) && self.owned.contains(v))
    }

    /// Whether `a` is a view (through any chain of views) of an array
    /// `frame` owns: it dies with the frame unless copied out.
    fn views_into(&self, frame: &[VarId], a: &Atom) -> bool {
        let Atom::Var(v) = *a else { return false };
        let mut todo = vec![v];
        let mut seen = HashSet::new();
        while let Some(v) = todo.pop() {
            for &base in self.view_of.get(&v).into_iter().flatten() {
                if self.owned_by(frame, &Atom::Var(base)) {
                    return true;
                }
                if seen.insert(base) {
                    todo.push(base);
                }
            }
        }
        false
    }

    // ---- small emitters -------------------------------------------------

    fn let_(&mut self, name: &str, t: ScalarType, exp: ScalarExp, out: &mut Block) -> Atom {
        let var = self.fresh(name, Type::Scalar(t));
        let id = var.id;
        out.push(Stmt::Let {
            var,
            exp,
            loc: SrcLoc::default(),
        });
        Atom::Var(id)
    }

    fn binop(&mut self, name: &str, op: BinOp, a: Atom, b: Atom, out: &mut Block) -> Atom {
        let t = if op.is_comparison() {
            ScalarType::Bool
        } else {
            self.type_of(&a)
                .map(|t| t.elem())
                .unwrap_or(ScalarType::I64)
        };
        self.let_(name, t, ScalarExp::BinOp(op, a, b), out)
    }

    /// `(i + shift) rem modulus` for `i` and `shift` in `0..modulus` (an
    /// index in range of the rotated array, and `IndexFn::Rotate`'s
    /// shift): the sum is below `2 * modulus`, so one conditional
    /// subtraction wraps it, without the division `rem` costs (an integer
    /// division per element made a 5-point stencil by `rotate` twice as
    /// slow as C).
    fn rotated(&mut self, i: Atom, shift: Atom, modulus: Atom, out: &mut Block) -> Atom {
        let s = self.binop("s", BinOp::Add, i, shift, out);
        let wraps = self.binop("wraps", BinOp::Ge, s, modulus, out);
        let wrap = self.let_(
            "wrap",
            ScalarType::I64,
            ScalarExp::Convert(ScalarType::I64, wraps),
            out,
        );
        let back = self.binop("back", BinOp::Mul, wrap, modulus, out);
        self.binop("j", BinOp::Sub, s, back, out)
    }

    /// `a + b` on `i64`, folding constants.
    fn add(&mut self, a: Atom, b: Atom, out: &mut Block) -> Atom {
        match (a, b) {
            (Atom::Const(Const::I64(0)), x) | (x, Atom::Const(Const::I64(0))) => x,
            (Atom::Const(Const::I64(x)), Atom::Const(Const::I64(y))) => i64c(x.wrapping_add(y)),
            _ => self.binop("sum", BinOp::Add, a, b, out),
        }
    }

    /// `a * b` on `i64`, folding constants.
    fn mul(&mut self, a: Atom, b: Atom, out: &mut Block) -> Atom {
        match (a, b) {
            (Atom::Const(Const::I64(1)), x) | (x, Atom::Const(Const::I64(1))) => x,
            (zero @ Atom::Const(Const::I64(0)), _) | (_, zero @ Atom::Const(Const::I64(0))) => zero,
            (Atom::Const(Const::I64(x)), Atom::Const(Const::I64(y))) => i64c(x.wrapping_mul(y)),
            _ => self.binop("prod", BinOp::Mul, a, b, out),
        }
    }

    fn product(&mut self, dims: &[Atom], out: &mut Block) -> Atom {
        let mut n = i64c(1);
        for d in dims {
            n = self.mul(n, *d, out);
        }
        n
    }

    /// An integer atom as `i64` (sign- or zero-extended by its type).
    fn as_i64(&mut self, a: Atom, out: &mut Block) -> Atom {
        match self.type_of(&a) {
            Some(Type::Scalar(ScalarType::I64)) | None => a,
            Some(_) => self.let_(
                "ix",
                ScalarType::I64,
                ScalarExp::Convert(ScalarType::I64, a),
                out,
            ),
        }
    }

    /// `if cond then a else b` on scalars of type `t`.
    fn select(&mut self, cond: Atom, a: Atom, b: Atom, t: ScalarType, out: &mut Block) -> Atom {
        let var = self.fresh("sel", Type::Scalar(t));
        let id = var.id;
        out.push(Stmt::If {
            results: vec![var],
            cond,
            then_block: Vec::new(),
            then_results: vec![a],
            else_block: Vec::new(),
            else_results: vec![b],
        });
        Atom::Var(id)
    }

    /// Stores `value` at `index`: a write for a scalar, a copy for a row.
    fn store(&self, array: VarId, index: Vec<Atom>, value: Atom) -> Stmt {
        match (value, self.type_of(&value)) {
            (Atom::Var(src), Some(Type::Array(..))) => Stmt::Copy { array, index, src },
            _ => Stmt::Write {
                array,
                index,
                value,
            },
        }
    }

    /// Checks that a row about to be stored has the shape `expected`
    /// (copies move whole rows, so a mismatch would be out of bounds).
    fn assert_shape(&self, expected: &[Atom], value: &Atom, loc: SrcLoc, out: &mut Block) {
        for (e, f) in expected.iter().zip(self.shape(value)) {
            self.assert_width(e, &f, loc, out);
        }
    }

    /// Emits a size assertion unless `found` is syntactically `expected`.
    fn assert_width(&self, expected: &Atom, found: &Atom, loc: SrcLoc, out: &mut Block) {
        if expected != found {
            out.push(Stmt::AssertEq {
                expected: *expected,
                found: *found,
                loc,
            });
        }
    }

    /// Element (or row) `index` of `array`, read without a check unless
    /// `check` is given.
    fn elem(
        &mut self,
        array: VarId,
        index: Vec<Atom>,
        name: &str,
        check: Option<SrcLoc>,
        out: &mut Block,
    ) -> Atom {
        let ty = self
            .type_of(&Atom::Var(array))
            .unwrap_or(Type::Array(ScalarType::I64, 1));
        let generated = match self.generated.get(&array).copied() {
            Some(Generated::View { depth: Some(d), .. }) if d != self.lambda_depth => None,
            other => other,
        };
        if let (Some(generated), None, [i]) = (generated, check, &index[..]) {
            // In range by the loop bound (unchecked): the element is known.
            return match generated {
                Generated::Replicate(value) => value,
                Generated::Iota(ScalarType::I64) => *i,
                Generated::Iota(elem) => self.let_(name, elem, ScalarExp::Convert(elem, *i), out),
                Generated::Permuted { src, index } => {
                    let j = match index {
                        IndexFn::Reverse { last } => self.binop("j", BinOp::Sub, last, *i, out),
                        IndexFn::Rotate { shift, modulus } => self.rotated(*i, shift, modulus, out),
                        IndexFn::Strided { start, stride } => {
                            let step = self.mul(*i, stride, out);
                            self.add(start, step, out)
                        }
                    };
                    self.elem(src, vec![j], name, None, out)
                }
                Generated::View { src, idx, .. } => {
                    // The outer dimension is fixed at `i`.
                    let mut rest = idx;
                    for lin in &mut rest {
                        *lin = match *lin {
                            Lin::Dim {
                                dim: 0,
                                start,
                                stride,
                            } => {
                                let step = self.mul(*i, stride, out);
                                Lin::Fixed(self.add(start, step, out))
                            }
                            Lin::Dim { dim, start, stride } => Lin::Dim {
                                dim: dim - 1,
                                start,
                                stride,
                            },
                            fixed => fixed,
                        };
                    }
                    if let [Lin::Fixed(a), Lin::Fixed(b)] = rest {
                        return self.elem(src, vec![a, b], name, None, out);
                    }
                    let row = self.raw_elem(array, index, name, None, out);
                    if let Atom::Var(id) = row {
                        self.generated.insert(
                            id,
                            Generated::View {
                                src,
                                idx: rest,
                                depth: None,
                            },
                        );
                    }
                    row
                }
                Generated::Concat {
                    first,
                    second,
                    split,
                } => {
                    let below = self.binop("below", BinOp::Lt, *i, split, out);
                    let mut then_block = Vec::new();
                    let a = self.elem(first, vec![*i], name, None, &mut then_block);
                    let mut else_block = Vec::new();
                    let j = self.binop("j", BinOp::Sub, *i, split, &mut else_block);
                    let b = self.elem(second, vec![j], name, None, &mut else_block);
                    // A row of a matrix: one part's row, of the first's
                    // width (`concat` checked the second's).
                    let var = match ty.rank() {
                        0 | 1 => self.fresh(name, Type::Scalar(ty.elem())),
                        rank => {
                            let row = self.fresh(name, Type::Array(ty.elem(), rank - 1));
                            let inner = self.array_shape(first).into_iter().skip(1).collect();
                            self.shapes.insert(row.id, inner);
                            row
                        }
                    };
                    let id = var.id;
                    out.push(Stmt::If {
                        results: vec![var],
                        cond: below,
                        then_block,
                        then_results: vec![a],
                        else_block,
                        else_results: vec![b],
                    });
                    Atom::Var(id)
                }
            };
        }
        self.raw_elem(array, index, name, check, out)
    }

    /// Element (or row) `index` of `array` as stored.
    fn raw_elem(
        &mut self,
        array: VarId,
        index: Vec<Atom>,
        name: &str,
        check: Option<SrcLoc>,
        out: &mut Block,
    ) -> Atom {
        let ty = self
            .type_of(&Atom::Var(array))
            .unwrap_or(Type::Array(ScalarType::I64, 1));
        let shape = self.array_shape(array);
        let rank = ty.rank();
        if index.len() >= rank {
            let var = self.fresh(name, Type::Scalar(ty.elem()));
            let id = var.id;
            out.push(Stmt::Read {
                var,
                array,
                index,
                check,
            });
            Atom::Var(id)
        } else {
            let var = self.fresh(name, Type::Array(ty.elem(), rank - index.len()));
            let id = var.id;
            self.shapes
                .insert(id, shape.get(index.len()..).unwrap_or_default().to_vec());
            out.push(Stmt::Row {
                var,
                array,
                index,
                check,
            });
            Atom::Var(id)
        }
    }
}

/// The label of a tree's first SOAC (names a nested cluster's nest).
fn first_label(tree: &FusionTree) -> u32 {
    tree.leaves().first().map(|l| l.soac.label.0).unwrap_or(0)
}

fn simple_loop(origin: Origin, index: Var, width: Atom, body: Block) -> Stmt {
    Stmt::Loop(LoopNest::map(origin, index, width, body))
}

fn max_var_id(program: &FusedProgram) -> u32 {
    let mut max = 0;
    for f in &program.entries {
        for p in &f.params {
            max = max.max(p.id.0);
        }
        for sp in &f.size_params {
            max = max.max(sp.var.id.0);
        }
        max = max.max(max_in_fused(&f.body));
    }
    max
}

fn max_in_fused(body: &FusedBody) -> u32 {
    let mut max = 0;
    for item in &body.items {
        let m = match item {
            Item::Stm(stm) => max_in_stm(stm),
            Item::If {
                pat,
                then_body,
                else_body,
                ..
            } => pat
                .iter()
                .map(|v| v.id.0)
                .chain([max_in_fused(then_body), max_in_fused(else_body)])
                .max()
                .unwrap_or(0),
            Item::Cluster(c) => c
                .tree
                .leaves()
                .into_iter()
                .map(|s| max_in_stm(&s.clone().into_stm()))
                .max()
                .unwrap_or(0),
            Item::Loop { .. } => item.to_core().iter().map(max_in_stm).max().unwrap_or(0),
        };
        max = max.max(m);
    }
    max
}

fn max_in_stm(stm: &core::Stm) -> u32 {
    let mut max = stm.pat.iter().map(|v| v.id.0).max().unwrap_or(0);
    crate::core::print::visit_nested(&stm.exp, |body, params| {
        for p in params {
            max = max.max(p.id.0);
        }
        for s in &body.stms {
            max = max.max(max_in_stm(s));
        }
    });
    max
}
