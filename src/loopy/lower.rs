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
//! a branch or loop result that is a view or an outer array is copied.
//! Updates, scatter destinations and loop initial values are lowered as
//! fresh copies; `loopy::inplace` then reuses the memory of those whose old
//! array is dead. (Allocating per-iteration buffers once outside a nest is
//! a later optimisation.)
//!
//! Lowering is total: what a later stage cannot handle (a map whose rows'
//! shape is only known inside its loop) shows up as a use of an undefined
//! variable, which `loopy::check` reports.

use super::ir::*;
use crate::core::ir::{
    self as core, Atom, BinOp, DimSlice, Exp, LoopForm, SoacKind, SrcLoc, Type, UnOp, Var, VarId,
};
use crate::fusion::ast::{
    FusedBody, FusedFunction, FusedLoopForm, FusedProgram, FusionTree, Item, SoacStm, Strategy,
};
use crate::types::{Const, ScalarType};
use std::collections::{HashMap, HashSet};

pub fn lower(program: &FusedProgram) -> Program {
    let mut lowerer = Lowerer {
        next_id: max_var_id(program) + 1,
        subst: HashMap::new(),
        shapes: HashMap::new(),
        types: HashMap::new(),
        owned: HashSet::new(),
        frames: Vec::new(),
        carried: HashSet::new(),
        renaming: 0,
        strategy: program.strategy,
        lambda_depth: 0,
        generated: HashMap::new(),
    };
    Program {
        files: program.files.clone(),
        functions: program
            .entries
            .iter()
            .map(|f| {
                let mut f = lowerer.function(f);
                super::generators::drop_unread(&mut f);
                super::bounds::drop_proven_checks(&mut f);
                super::inplace::reuse_dead_copies(&mut f);
                super::rows::write_rows_in_place(&mut f);
                super::hoist::hoist_invariants(&mut f);
                super::block::register_block(&mut f);
                super::tile::tile_transposes(&mut f);
                f
            })
            .collect(),
    }
}

const I64: Type = Type::Scalar(ScalarType::I64);

fn i64c(v: i64) -> Atom {
    Atom::Const(Const::I64(v))
}

struct Lowerer {
    next_id: u32,
    /// Core variable to the loopy atom that holds its value.
    subst: HashMap<VarId, Atom>,
    /// Shape of every loopy array variable, outermost dimension first.
    shapes: HashMap<VarId, Vec<Atom>>,
    types: HashMap<VarId, Type>,
    /// Arrays that own their memory (not parameters or views).
    owned: HashSet<VarId>,
    /// Per open block, the arrays it allocated (see the module comment).
    frames: Vec<Vec<VarId>>,
    /// Values a nest carries from one iteration to the next: bound only in
    /// its body, so a copy run before the nest cannot use them.
    carried: HashSet<VarId>,
    /// Inside an inlined lambda, binders get fresh ids (a lambda may be
    /// inlined more than once: loop body and combine operator).
    renaming: usize,
    /// How the program was fused; lambda bodies with several SOACs are
    /// clustered the same way when they are lowered.
    strategy: Strategy,
    /// How many lambda bodies enclose the code being lowered: their
    /// clusters are nests inside another nest's body.
    lambda_depth: usize,
    /// Arrays made by `iota` (their element type) or by `replicate` of a
    /// scalar (the value): an element read at a loop's own index is
    /// computed instead, and `generators::drop_unread` then removes the
    /// arrays nothing reads (iota and replicate fuse into their readers).
    generated: HashMap<VarId, Generated>,
}

#[derive(Clone, Copy)]
enum Generated {
    Iota(ScalarType),
    Replicate(Atom),
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
        let id = VarId(self.next_id);
        self.next_id += 1;
        self.types.insert(id, ty);
        Var {
            id,
            name: name.to_string(),
            ty,
        }
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
        let shape = self.array_shape(array);
        let rank = ty.rank();
        if let (Some(generated), None, [i]) =
            (self.generated.get(&array).copied(), check, &index[..])
        {
            // In range by the loop bound (unchecked): the element is known.
            return match generated {
                Generated::Replicate(value) => value,
                Generated::Iota(ScalarType::I64) => *i,
                Generated::Iota(elem) => self.let_(name, elem, ScalarExp::Convert(elem, *i), out),
            };
        }
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

    // ---- functions and bodies ---------------------------------------------

    fn function(&mut self, f: &FusedFunction) -> Function {
        let mut params = Vec::new();
        for (pi, p) in f.params.iter().enumerate() {
            let var = self.bind(p);
            let mut shape = Vec::new();
            for dim in 0..p.ty.rank() {
                let size_var = f
                    .size_params
                    .iter()
                    .find(|sp| sp.uses.first() == Some(&(pi, dim)))
                    .map(|sp| sp.var.clone());
                let d = match size_var {
                    Some(sv) => self.bind(&sv),
                    None => self.fresh(&format!("{}_d{dim}", p.name), I64),
                };
                shape.push(d);
            }
            self.shapes
                .insert(var.id, shape.iter().map(|d| Atom::Var(d.id)).collect());
            params.push(Param { var, shape });
        }
        let mut body = Vec::new();
        self.frames.push(Vec::new());
        let results = self.fused_body(&f.body, &mut body);
        let results = self.owned_results(results, &mut body);
        let frame = self.pop_frame();
        let keep = results
            .iter()
            .filter_map(|a| match a {
                Atom::Var(v) => Some(*v),
                Atom::Const(_) => None,
            })
            .collect();
        self.free_frame(&frame, &keep, &mut body);
        Function {
            name: f.name.clone(),
            params,
            size_params: f.size_params.clone(),
            body,
            results,
            ret: f.ret.clone(),
        }
    }

    /// Copies array results that do not own their memory or repeat an
    /// earlier result, so the caller can free each one.
    fn owned_results(&mut self, results: Vec<Atom>, out: &mut Block) -> Vec<Atom> {
        let mut seen = HashSet::new();
        results
            .into_iter()
            .map(|a| match (a, self.type_of(&a)) {
                (Atom::Var(v), Some(ty @ Type::Array(..))) => {
                    if self.owned.contains(&v) && seen.insert(v) {
                        return a;
                    }
                    let copy = self.fresh("result", ty);
                    let shape = self.shape(&a);
                    self.alloc(&copy, shape, out);
                    out.push(Stmt::Copy {
                        array: copy.id,
                        index: Vec::new(),
                        src: v,
                    });
                    seen.insert(copy.id);
                    Atom::Var(copy.id)
                }
                _ => a,
            })
            .collect()
    }

    fn fused_body(&mut self, body: &FusedBody, out: &mut Block) -> Vec<Atom> {
        for item in &body.items {
            match item {
                Item::Stm(stm) => self.stm(stm, out),
                Item::If {
                    pat,
                    cond,
                    then_body,
                    else_body,
                    ..
                } => self.if_stm(
                    pat,
                    cond,
                    Branch::Fused(then_body),
                    Branch::Fused(else_body),
                    out,
                ),
                Item::Loop {
                    pat,
                    params,
                    form,
                    body,
                    ..
                } => {
                    let form = match form {
                        FusedLoopForm::For { index, bound } => Form::For { index, bound },
                        FusedLoopForm::While { cond } => Form::While(Branch::Fused(cond)),
                    };
                    self.seq_loop(pat, params, form, Branch::Fused(body), out)
                }
                Item::Cluster(cluster) => {
                    let origin = if self.lambda_depth > 0 {
                        Origin::Nested(first_label(&cluster.tree))
                    } else {
                        Origin::Cluster(cluster.id)
                    };
                    self.cluster(origin, &cluster.tree, out)
                }
            }
        }
        body.result.iter().map(|a| self.atom(a)).collect()
    }

    fn core_body(&mut self, body: &core::Body, out: &mut Block) -> Vec<Atom> {
        let soacs = body
            .stms
            .iter()
            .filter(|s| matches!(s.exp, Exp::Soac(_)))
            .count();
        if soacs >= 2 && self.strategy != Strategy::None {
            // Nested SOACs fuse like top-level ones: n-body's inner map and
            // its three reductions become one loop with no inner arrays.
            let fused = crate::fusion::fuse_nested(body, self.strategy);
            return self.fused_body(&fused, out);
        }
        for stm in &body.stms {
            self.stm(stm, out);
        }
        body.result.iter().map(|a| self.atom(a)).collect()
    }

    fn branch(&mut self, branch: Branch, out: &mut Block) -> Vec<Atom> {
        match branch {
            Branch::Core(b) => self.core_body(b, out),
            Branch::Fused(b) => self.fused_body(b, out),
        }
    }

    /// An `if`; each array result also returns its dimensions, so the shape
    /// of the result is known after the `if`. An array result is owned when
    /// either branch allocates it; the other branch then returns a copy.
    fn if_stm(&mut self, pat: &[Var], cond: &Atom, then: Branch, els: Branch, out: &mut Block) {
        let cond = self.atom(cond);
        let mut arms = Vec::new();
        for branch in [then, els] {
            self.frames.push(Vec::new());
            let mut block = Vec::new();
            let results = self.branch(branch, &mut block);
            let frame = self.pop_frame();
            arms.push((block, results, frame));
        }
        let n = pat.len();
        let own: Vec<bool> = (0..n)
            .map(|j| {
                arms.iter()
                    .any(|(_, res, frame)| res.get(j).is_some_and(|a| self.owned_by(frame, a)))
            })
            .collect();
        let mut arms_out = Vec::new();
        for (mut block, mut results, frame) in arms {
            let keep = self.escape(&frame, &mut results, &own, &mut block);
            self.free_frame(&frame, &keep, &mut block);
            for v in keep {
                self.owned.remove(&v);
            }
            arms_out.push((block, results));
        }
        let (else_block, mut else_results) = arms_out.pop().unwrap_or_default();
        let (then_block, mut then_results) = arms_out.pop().unwrap_or_default();
        let mut results: Vec<Var> = pat.iter().map(|v| self.bind(v)).collect();
        for j in 0..n {
            let rank = results[j].ty.rank();
            if rank == 0 {
                continue;
            }
            let then_shape = then_results.get(j).map(|a| self.shape(a));
            let else_shape = else_results.get(j).map(|a| self.shape(a));
            let mut dims = Vec::new();
            for k in 0..rank {
                let d = self.fresh(&format!("{}_d{k}", results[j].name), I64);
                let missing = Atom::Var(d.id);
                then_results.push(
                    then_shape
                        .as_ref()
                        .and_then(|s| s.get(k))
                        .copied()
                        .unwrap_or(missing),
                );
                else_results.push(
                    else_shape
                        .as_ref()
                        .and_then(|s| s.get(k))
                        .copied()
                        .unwrap_or(missing),
                );
                dims.push(Atom::Var(d.id));
                results.push(d);
            }
            self.shapes.insert(results[j].id, dims);
            if own[j] {
                self.adopt(results[j].id);
            }
        }
        out.push(Stmt::If {
            results,
            cond,
            then_block,
            then_results,
            else_block,
            else_results,
        });
    }

    /// A sequential loop; see `SeqLoop` for who owns the arrays.
    fn seq_loop(
        &mut self,
        pat: &[Var],
        params: &[(Var, Atom)],
        form: Form,
        body: Branch,
        out: &mut Block,
    ) {
        let inits: Vec<Atom> = params.iter().map(|(_, a)| self.atom(a)).collect();
        let mut seq_params = Vec::new();
        for (p, _) in params {
            let var = self.bind(p);
            let shape: Vec<Var> = (0..p.ty.rank())
                .map(|k| self.fresh(&format!("{}_d{k}", p.name), I64))
                .collect();
            self.shapes
                .insert(var.id, shape.iter().map(|d| Atom::Var(d.id)).collect());
            seq_params.push(SeqParam {
                var,
                shape,
                init: i64c(0),
            });
        }
        let form = match form {
            Form::For { index, bound } => {
                let bound = self.atom(bound);
                let index = self.bind(index);
                SeqForm::For { index, bound }
            }
            Form::While(cond) => {
                let mut result = Atom::Const(Const::Bool(false));
                let block = self.framed(|this, block| {
                    result = this.branch(cond, block).first().copied().unwrap_or(result);
                });
                SeqForm::While {
                    cond: block,
                    result,
                }
            }
        };
        self.frames.push(Vec::new());
        let mut block = Vec::new();
        let mut next = self.branch(body, &mut block);
        next.resize(seq_params.len(), i64c(0));
        let frame = self.pop_frame();
        // A parameter that is its own next value is loop-invariant: it
        // stays its initial value and owns nothing.
        let varying: Vec<bool> = seq_params
            .iter()
            .zip(&next)
            .map(|(p, n)| p.var.ty.rank() > 0 && *n != Atom::Var(p.var.id))
            .collect();
        let keep = self.escape(&frame, &mut next, &varying, &mut block);
        for (p, &v) in seq_params.iter().zip(&varying) {
            if v {
                block.push(Stmt::Free(p.var.id));
            }
        }
        self.free_frame(&frame, &keep, &mut block);
        for v in keep {
            self.owned.remove(&v);
        }
        for ((p, init), &v) in seq_params.iter_mut().zip(&inits).zip(&varying) {
            p.init = if v { self.copy_array(init, out) } else { *init };
            if let Atom::Var(c) = p.init {
                if v {
                    self.owned.remove(&c);
                }
            }
        }
        // A parameter whose next value always has the parameter's own shape
        // ends with its initial value's shape (known before the loop, so a
        // map of such loops can allocate its result).
        let keeps_shape: Vec<bool> = seq_params
            .iter()
            .zip(&next)
            .map(|(p, n)| {
                let own: Vec<Atom> = p.shape.iter().map(|d| Atom::Var(d.id)).collect();
                self.shape(n) == own
            })
            .collect();
        let mut results = Vec::new();
        for (k, (v, &varies)) in pat.iter().zip(&varying).enumerate() {
            let var = self.bind(v);
            let shape: Vec<Var> = (0..v.ty.rank())
                .map(|k| self.fresh(&format!("{}_d{k}", v.name), I64))
                .collect();
            if v.ty.rank() > 0 {
                let known = match (keeps_shape.get(k), inits.get(k)) {
                    (Some(true), Some(init)) => self.shape(init),
                    _ => shape.iter().map(|d| Atom::Var(d.id)).collect(),
                };
                self.shapes.insert(var.id, known);
                if varies {
                    self.adopt(var.id);
                }
            }
            results.push(Param { var, shape });
        }
        out.push(Stmt::SeqLoop(SeqLoop {
            params: seq_params,
            form,
            body: block,
            next,
            results,
        }));
    }

    fn stm(&mut self, stm: &core::Stm, out: &mut Block) {
        let loc = stm.loc;
        let first = stm.pat.first();
        match &stm.exp {
            Exp::Atom(a) => {
                if let Some(p) = first {
                    let a = self.atom(a);
                    self.subst.insert(p.id, a);
                }
            }
            Exp::BinOp(op, a, b) => {
                let exp = ScalarExp::BinOp(*op, self.atom(a), self.atom(b));
                self.let_stm(first, exp, loc, out);
            }
            Exp::UnOp(op, a) => {
                let exp = ScalarExp::UnOp(*op, self.atom(a));
                self.let_stm(first, exp, loc, out);
            }
            Exp::Convert(t, a) => {
                let exp = ScalarExp::Convert(*t, self.atom(a));
                self.let_stm(first, exp, loc, out);
            }
            Exp::Fma(a, b, c) => {
                let exp = ScalarExp::Fma(self.atom(a), self.atom(b), self.atom(c));
                self.let_stm(first, exp, loc, out);
            }
            Exp::If {
                cond,
                then_body,
                else_body,
            } => self.if_stm(
                &stm.pat,
                cond,
                Branch::Core(then_body),
                Branch::Core(else_body),
                out,
            ),
            Exp::Loop { params, form, body } => {
                let form = match form {
                    LoopForm::For { index, bound } => Form::For { index, bound },
                    LoopForm::While { cond } => Form::While(Branch::Core(cond)),
                };
                self.seq_loop(&stm.pat, params, form, Branch::Core(body), out)
            }
            Exp::Index { array, indices } => {
                let Some(p) = first else { return };
                let array = self.var(*array);
                let index: Vec<Atom> = indices.iter().map(|a| self.atom(a)).collect();
                let shape = self.array_shape(array);
                let var = self.bind(p);
                if index.len() >= shape.len() {
                    out.push(Stmt::Read {
                        var,
                        array,
                        index,
                        check: Some(loc),
                    });
                } else {
                    self.shapes.insert(var.id, shape[index.len()..].to_vec());
                    out.push(Stmt::Row {
                        var,
                        array,
                        index,
                        check: Some(loc),
                    });
                }
            }
            Exp::Size { array, dim } => {
                let Some(p) = first else { return };
                let array = self.var(*array);
                if let Some(d) = self.array_shape(array).get(*dim) {
                    self.subst.insert(p.id, *d);
                }
            }
            Exp::Iota(n) => {
                let Some(p) = first else { return };
                let n = self.atom(n);
                self.check_size(n, loc, out);
                let var = self.bind(p);
                self.alloc(&var, vec![n], out);
                let index = self.fresh("i", I64);
                let mut body = Vec::new();
                let elem = p.ty.elem();
                let value = if elem == ScalarType::I64 {
                    Atom::Var(index.id)
                } else {
                    let conv = ScalarExp::Convert(elem, Atom::Var(index.id));
                    self.let_("x", elem, conv, &mut body)
                };
                body.push(Stmt::Write {
                    array: var.id,
                    index: vec![Atom::Var(index.id)],
                    value,
                });
                out.push(simple_loop(Origin::Iota, index, n, body));
                self.generated.insert(var.id, Generated::Iota(elem));
            }
            Exp::Replicate { count, value } => {
                let Some(p) = first else { return };
                let count = self.atom(count);
                self.check_size(count, loc, out);
                let value = self.atom(value);
                let var = self.bind(p);
                let mut shape = vec![count];
                shape.extend(self.shape(&value));
                self.alloc(&var, shape, out);
                let index = self.fresh("i", I64);
                let body = vec![self.store(var.id, vec![Atom::Var(index.id)], value)];
                out.push(simple_loop(Origin::Replicate, index, count, body));
                if p.ty.rank() == 1 {
                    self.generated.insert(var.id, Generated::Replicate(value));
                }
            }
            Exp::ArrayLit { items, .. } => {
                let Some(p) = first else { return };
                let items: Vec<Atom> = items.iter().map(|a| self.atom(a)).collect();
                let var = self.bind(p);
                let row_shape = items.first().map(|a| self.shape(a)).unwrap_or_default();
                for item in items.iter().skip(1) {
                    self.assert_shape(&row_shape, item, loc, out);
                }
                let mut shape = vec![i64c(items.len() as i64)];
                // An empty literal of rows: its row shape is in its type
                // only as a rank; its dimensions are 0.
                if items.is_empty() {
                    shape.extend((1..p.ty.rank()).map(|_| i64c(0)));
                }
                shape.extend(row_shape);
                self.alloc(&var, shape, out);
                for (k, item) in items.iter().enumerate() {
                    let store = self.store(var.id, vec![i64c(k as i64)], *item);
                    out.push(store);
                }
            }
            Exp::AssertEqSizes(a, b) => {
                let (a, b) = (self.atom(a), self.atom(b));
                out.push(Stmt::AssertEq {
                    expected: a,
                    found: b,
                    loc,
                });
                // The statement may bind the (now checked) size.
                for p in &stm.pat {
                    self.subst.insert(p.id, a);
                }
            }
            Exp::Assert(c) => {
                out.push(Stmt::Assert {
                    cond: self.atom(c),
                    loc,
                });
                for p in &stm.pat {
                    self.subst.insert(p.id, Atom::Const(Const::Bool(true)));
                }
            }
            Exp::Soac(soac) => {
                let tree = FusionTree::Leaf(SoacStm {
                    pat: stm.pat.clone(),
                    soac: soac.clone(),
                    loc,
                });
                self.cluster(Origin::Nested(soac.label.0), &tree, out);
            }
            Exp::Slice { array, dims } => {
                let Some(p) = first else { return };
                self.slice(p, array, dims, loc, out);
            }
            Exp::Update {
                array,
                indices,
                value,
            } => {
                let Some(p) = first else { return };
                self.update(p, array, indices, value, loc, out);
            }
            Exp::Transpose(array) => {
                let Some(p) = first else { return };
                self.transpose(p, array, out);
            }
            Exp::Flatten(array) => {
                let Some(p) = first else { return };
                let array = self.var(*array);
                let shape = self.array_shape(array);
                let mut new_shape = Vec::new();
                if shape.len() >= 2 {
                    new_shape.push(self.mul(shape[0], shape[1], out));
                    new_shape.extend_from_slice(&shape[2..]);
                }
                self.view(p, array, i64c(0), new_shape, out);
            }
            Exp::Unflatten { array, rows, cols } => {
                let Some(p) = first else { return };
                let array = self.var(*array);
                let (rows, cols) = (self.atom(rows), self.atom(cols));
                self.check_size(rows, loc, out);
                self.check_size(cols, loc, out);
                let shape = self.array_shape(array);
                let n = shape.first().copied().unwrap_or(i64c(0));
                self.check_unflatten(n, rows, cols, loc, out);
                let mut new_shape = vec![rows, cols];
                new_shape.extend(shape.into_iter().skip(1));
                self.view(p, array, i64c(0), new_shape, out);
            }
            Exp::Reverse(array) => {
                let Some(p) = first else { return };
                let array = self.var(*array);
                self.permute(p, array, Origin::Reverse, out, |this, i, n, body| {
                    let last = this.binop("last", BinOp::Sub, n, i64c(1), body);
                    this.binop("j", BinOp::Sub, last, i, body)
                });
            }
            Exp::Rotate { array, amount } => {
                let Some(p) = first else { return };
                let array = self.var(*array);
                let amount = self.atom(amount);
                let amount = self.as_i64(amount, out);
                let n = self.array_shape(array).first().copied().unwrap_or(i64c(0));
                // `mod` with a divisor of at least 1 (an empty array moves
                // nothing) gives a shift in `0..n`.
                let safe = self.binop("n1", BinOp::Max, n, i64c(1), out);
                let shift = self.binop("shift", BinOp::Mod, amount, safe, out);
                self.permute(p, array, Origin::Rotate, out, |this, i, _, body| {
                    let s = this.binop("s", BinOp::Add, i, shift, body);
                    this.binop("j", BinOp::Rem, s, safe, body)
                });
            }
            Exp::Concat(arrays) => {
                let Some(p) = first else { return };
                self.concat(p, arrays, loc, out);
            }
        }
    }

    fn let_stm(&mut self, pat: Option<&Var>, exp: ScalarExp, loc: SrcLoc, out: &mut Block) {
        if let Some(p) = pat {
            let var = self.bind(p);
            out.push(Stmt::Let { var, exp, loc });
        }
    }

    /// Binds `p` to a view of `array`; at offset 0 of an owned array that
    /// dies here, the view could own it, but `array` may still be used, so
    /// the view stays a view.
    fn view(&mut self, p: &Var, array: VarId, offset: Atom, shape: Vec<Atom>, out: &mut Block) {
        let var = self.bind(p);
        self.shapes.insert(var.id, shape.clone());
        out.push(Stmt::View {
            var,
            array,
            offset,
            shape,
        });
    }

    // ---- array builtins ---------------------------------------------------

    /// `a[d0, d1, ...]`: bounds-checked; a view when the result is
    /// contiguous (fixed indices, then at most one range of stride 1, then
    /// whole dimensions), otherwise a copy made by a nest per range.
    fn slice(&mut self, p: &Var, array: &VarId, dims: &[DimSlice], loc: SrcLoc, out: &mut Block) {
        let array = self.var(*array);
        let shape = self.array_shape(array);
        let dims = &dims[..dims.len().min(shape.len())];
        // Per given dimension: a fixed index, or (start, stride, count).
        enum D {
            Fixed(Atom),
            Range(Atom, Atom, Atom),
        }
        let mut ds = Vec::new();
        let mut fixed = Vec::new();
        for (k, d) in dims.iter().enumerate() {
            match d {
                DimSlice::Index(i) => {
                    let i = self.atom(i);
                    let i = self.as_i64(i, out);
                    fixed.push(i);
                    ds.push(D::Fixed(i));
                    // Checked here, in order with the ranges, unless the
                    // slice is only indices (checked as indexing below).
                    if dims.iter().any(|d| matches!(d, DimSlice::Range { .. })) {
                        out.push(Stmt::IndexCheck {
                            index: i,
                            len: shape[k],
                            loc,
                        });
                    }
                }
                DimSlice::Range { start, end, stride } => {
                    let (start, end, stride) =
                        (self.atom(start), self.atom(end), self.atom(stride));
                    let count = self.slice_count(start, end, stride, out);
                    out.push(Stmt::SliceCheck {
                        start,
                        end,
                        stride,
                        count,
                        len: shape[k],
                        loc,
                    });
                    ds.push(D::Range(start, stride, count));
                }
            }
        }
        if !fixed.is_empty() && fixed.len() == ds.len() {
            // Only fixed indices: an element or a row, checked as indexing.
            let idx: Vec<Atom> = fixed.clone();
            let var = self.bind(p);
            if idx.len() >= shape.len() {
                out.push(Stmt::Read {
                    var,
                    array,
                    index: idx,
                    check: Some(loc),
                });
            } else {
                self.shapes.insert(var.id, shape[idx.len()..].to_vec());
                out.push(Stmt::Row {
                    var,
                    array,
                    index: idx,
                    check: Some(loc),
                });
            }
            return;
        }
        let trailing = shape[ds.len()..].to_vec();
        let mut new_shape: Vec<Atom> = ds
            .iter()
            .filter_map(|d| match d {
                D::Range(_, _, c) => Some(*c),
                D::Fixed(_) => None,
            })
            .collect();
        new_shape.extend(trailing.iter().copied());
        let contiguous = match ds.split_last() {
            Some((D::Range(_, s, _), rest)) => {
                *s == i64c(1) && rest.iter().all(|d| matches!(d, D::Fixed(_)))
            }
            _ => false,
        };
        if contiguous {
            // Linear offset of the first element.
            let mut offset = i64c(0);
            for (k, d) in ds.iter().enumerate() {
                let pos = match d {
                    D::Fixed(i) | D::Range(i, _, _) => *i,
                };
                let scaled = self.mul(offset, shape[k], out);
                offset = self.add(scaled, pos, out);
            }
            let row = self.product(&shape[ds.len()..], out);
            let offset = self.mul(offset, row, out);
            self.view(p, array, offset, new_shape, out);
            return;
        }
        let var = self.bind(p);
        self.alloc(&var, new_shape, out);
        // One nest per range, outermost first; the innermost body moves an
        // element or a row.
        let ranges: Vec<(usize, Atom)> = ds
            .iter()
            .enumerate()
            .filter_map(|(k, d)| match d {
                D::Range(_, _, c) => Some((k, *c)),
                D::Fixed(_) => None,
            })
            .collect();
        let indices: Vec<Var> = ranges.iter().map(|_| self.fresh("j", I64)).collect();
        let mut body = Vec::new();
        let mut src_index = Vec::new();
        let mut r = 0;
        for d in &ds {
            match d {
                D::Fixed(i) => src_index.push(*i),
                D::Range(start, stride, _) => {
                    let j = Atom::Var(indices[r].id);
                    r += 1;
                    let step = self.binop("step", BinOp::Mul, j, *stride, &mut body);
                    let at = self.binop("at", BinOp::Add, *start, step, &mut body);
                    src_index.push(at);
                }
            }
        }
        let dst_index: Vec<Atom> = indices.iter().map(|v| Atom::Var(v.id)).collect();
        let value = self.elem(array, src_index, "x", None, &mut body);
        body.push(self.store(var.id, dst_index, value));
        for ((_, count), index) in ranges.iter().zip(indices).rev() {
            body = vec![simple_loop(Origin::Slice, index, *count, body)];
        }
        out.extend(body);
    }

    /// The element count of `start:end:stride` by Futhark's rule,
    /// `(end - start + stride - sign(stride)) quot stride`; a zero stride
    /// (an error `SliceCheck` reports) divides by 1 instead.
    fn slice_count(&mut self, start: Atom, end: Atom, stride: Atom, out: &mut Block) -> Atom {
        if stride == i64c(1) {
            let n = self.binop("n", BinOp::Sub, end, start, out);
            return n;
        }
        if let Atom::Const(Const::I64(s)) = stride {
            if s != 0 {
                // The same count with the stride's sign known: no select and
                // no division that could fail, so the count can be copied
                // out of a loop body (see `invariant_copy`).
                let diff = self.binop("diff", BinOp::Sub, end, start, out);
                let num = self.binop("num", BinOp::Add, diff, i64c(s - s.signum()), out);
                return self.binop("n", BinOp::Quot, num, stride, out);
            }
        }
        let pos = self.binop("pos", BinOp::Gt, stride, i64c(0), out);
        let neg = self.binop("neg", BinOp::Lt, stride, i64c(0), out);
        let pos = self.let_(
            "p",
            ScalarType::I64,
            ScalarExp::Convert(ScalarType::I64, pos),
            out,
        );
        let neg = self.let_(
            "q",
            ScalarType::I64,
            ScalarExp::Convert(ScalarType::I64, neg),
            out,
        );
        let sign = self.binop("sign", BinOp::Sub, pos, neg, out);
        let diff = self.binop("diff", BinOp::Sub, end, start, out);
        let adj = self.binop("adj", BinOp::Sub, stride, sign, out);
        let num = self.binop("num", BinOp::Add, diff, adj, out);
        let zero = self.binop("zero", BinOp::Eq, stride, i64c(0), out);
        let safe = self.select(zero, i64c(1), stride, ScalarType::I64, out);
        self.binop("n", BinOp::Quot, num, safe, out)
    }

    /// `size mismatch` unless `rows * cols` is exactly `n` with neither
    /// negative (the product may not wrap around).
    fn check_unflatten(&mut self, n: Atom, rows: Atom, cols: Atom, loc: SrcLoc, out: &mut Block) {
        let prod = self.binop("prod", BinOp::Mul, rows, cols, out);
        let r_ok = self.binop("r_ok", BinOp::Ge, rows, i64c(0), out);
        let c_ok = self.binop("c_ok", BinOp::Ge, cols, i64c(0), out);
        let p_ok = self.binop("p_ok", BinOp::Eq, prod, n, out);
        let safe = self.binop("c1", BinOp::Max, cols, i64c(1), out);
        let q = self.binop("q", BinOp::Quot, n, safe, out);
        let q_ok = self.binop("q_ok", BinOp::Eq, q, rows, out);
        let empty = self.binop("empty", BinOp::Eq, cols, i64c(0), out);
        let exact = self.binop("exact", BinOp::Or, q_ok, empty, out);
        let a = self.binop("ok", BinOp::And, r_ok, c_ok, out);
        let b = self.binop("ok", BinOp::And, p_ok, exact, out);
        let ok = self.binop("ok", BinOp::And, a, b, out);
        // Reports the product, or -1 when only a wrap-around made it fit.
        let wrong = self.select(p_ok, i64c(-1), prod, ScalarType::I64, out);
        let expected = self.select(ok, n, wrong, ScalarType::I64, out);
        self.assert_width(&expected, &n, loc, out);
    }

    /// `array with [indices] = value`: a checked copy with one element or
    /// row replaced.
    fn update(
        &mut self,
        p: &Var,
        array: &VarId,
        indices: &[Atom],
        value: &Atom,
        loc: SrcLoc,
        out: &mut Block,
    ) {
        let array = self.var(*array);
        let shape = self.array_shape(array);
        let mut idx = Vec::new();
        for a in indices {
            let a = self.atom(a);
            idx.push(self.as_i64(a, out));
        }
        out.push(Stmt::BoundsCheck {
            array,
            index: idx.clone(),
            loc,
        });
        let value = self.atom(value);
        let row = shape.get(idx.len()..).unwrap_or_default().to_vec();
        self.assert_shape(&row, &value, loc, out);
        let var = self.bind(p);
        self.alloc(&var, shape, out);
        out.push(Stmt::Copy {
            array: var.id,
            index: Vec::new(),
            src: array,
        });
        out.push(self.store(var.id, idx, value));
    }

    fn transpose(&mut self, p: &Var, array: &VarId, out: &mut Block) {
        let array = self.var(*array);
        let shape = self.array_shape(array);
        if shape.len() < 2 {
            return;
        }
        let var = self.bind(p);
        let mut new_shape = vec![shape[1], shape[0]];
        new_shape.extend_from_slice(&shape[2..]);
        self.alloc(&var, new_shape, out);
        let i = self.fresh("i", I64);
        let j = self.fresh("j", I64);
        let (iv, jv) = (Atom::Var(i.id), Atom::Var(j.id));
        let mut inner = Vec::new();
        let x = self.elem(array, vec![jv, iv], "x", None, &mut inner);
        inner.push(self.store(var.id, vec![iv, jv], x));
        let outer = vec![simple_loop(Origin::Transpose, j, shape[0], inner)];
        out.push(simple_loop(Origin::Transpose, i, shape[1], outer));
    }

    /// A copy of `array` whose element `i` is `array[source(i)]`.
    fn permute(
        &mut self,
        p: &Var,
        array: VarId,
        origin: Origin,
        out: &mut Block,
        source: impl FnOnce(&mut Self, Atom, Atom, &mut Block) -> Atom,
    ) {
        let shape = self.array_shape(array);
        let Some(&n) = shape.first() else { return };
        let var = self.bind(p);
        self.alloc(&var, shape, out);
        let i = self.fresh("i", I64);
        let iv = Atom::Var(i.id);
        let mut body = Vec::new();
        let j = source(self, iv, n, &mut body);
        let x = self.elem(array, vec![j], "x", None, &mut body);
        body.push(self.store(var.id, vec![iv], x));
        out.push(simple_loop(origin, i, n, body));
    }

    /// Along the outer dimension: each part is copied into a view of the
    /// result at its offset.
    fn concat(&mut self, p: &Var, arrays: &[VarId], loc: SrcLoc, out: &mut Block) {
        let arrays: Vec<VarId> = arrays.iter().map(|a| self.var(*a)).collect();
        let Some(&first) = arrays.first() else { return };
        let first_shape = self.array_shape(first);
        let inner = first_shape.get(1..).unwrap_or_default().to_vec();
        let mut total = i64c(0);
        for a in &arrays {
            let s = self.array_shape(*a);
            for (e, f) in inner.iter().zip(s.iter().skip(1)) {
                self.assert_width(e, f, loc, out);
            }
            let outer = s.first().copied().unwrap_or(i64c(0));
            total = self.add(total, outer, out);
        }
        let var = self.bind(p);
        let mut shape = vec![total];
        shape.extend(inner.iter().copied());
        self.alloc(&var, shape, out);
        let row = self.product(&inner, out);
        let mut at = i64c(0);
        for a in &arrays {
            let outer = self.array_shape(*a).first().copied().unwrap_or(i64c(0));
            let offset = self.mul(at, row, out);
            let ty = self.type_of(&Atom::Var(var.id)).unwrap_or(p.ty);
            let dst = self.fresh("part", ty);
            let mut dst_shape = vec![outer];
            dst_shape.extend(inner.iter().copied());
            self.shapes.insert(dst.id, dst_shape.clone());
            let dst_id = dst.id;
            out.push(Stmt::View {
                var: dst,
                array: var.id,
                offset,
                shape: dst_shape,
            });
            out.push(Stmt::Copy {
                array: dst_id,
                index: Vec::new(),
                src: *a,
            });
            at = self.add(at, outer, out);
        }
    }

    // ---- SOACs ------------------------------------------------------------

    /// Inlines `lam` applied to `args` into `out`, returning its results.
    fn inline(&mut self, lam: &core::Lambda, args: &[Atom], out: &mut Block) -> Vec<Atom> {
        self.renaming += 1;
        self.lambda_depth += 1;
        for (p, a) in lam.params.iter().zip(args) {
            self.subst.insert(p.id, *a);
        }
        let results = self.core_body(&lam.body, out);
        self.lambda_depth -= 1;
        self.renaming -= 1;
        results
    }

    /// A reduction or scan operator as a function of its own. With
    /// `swapped`, its two groups of operands are exchanged (`scanr`, whose
    /// operator sees them in iteration order).
    fn operator(&mut self, lam: &core::Lambda, swapped: bool) -> Operator {
        let params: Vec<Var> = lam
            .params
            .iter()
            .map(|p| self.fresh(&p.name, p.ty))
            .collect();
        let mut args: Vec<Atom> = params.iter().map(|p| Atom::Var(p.id)).collect();
        let k = args.len() / 2;
        if swapped {
            args.rotate_left(k);
        }
        // Parameters of array type get their shapes as unknowns: operators
        // run only in a parallel backend's combine phase.
        self.frames.push(Vec::new());
        let mut body = Vec::new();
        let results = self.inline(lam, &args, &mut body);
        let frame = self.pop_frame();
        let keep = results
            .iter()
            .filter_map(|a| match a {
                Atom::Var(v) => Some(*v),
                Atom::Const(_) => None,
            })
            .collect();
        self.free_frame(&frame, &keep, &mut body);
        Operator {
            params,
            body,
            results,
        }
    }

    /// The loop nest of a fusion tree: see the module comment.
    fn cluster(&mut self, origin: Origin, tree: &FusionTree, out: &mut Block) {
        let leaves = tree.leaves();
        let Some(first) = leaves.first() else { return };
        let special = |s: &SoacStm| {
            !matches!(
                s.soac.kind,
                SoacKind::Map(_) | SoacKind::Reduce { .. } | SoacKind::Scan { .. }
            )
        };
        let random_access = |s: &SoacStm| {
            matches!(
                s.soac.kind,
                SoacKind::Scatter { .. } | SoacKind::Hist { .. }
            )
        };
        let fused_random_access =
            leaves.len() > 1 && leaves.iter().all(|s| !special(s) || random_access(s));
        if leaves.len() > 1 && matches!(first.soac.kind, SoacKind::Filter { .. }) {
            let vertical = tree.vertically_fused();
            self.sparse_cluster(origin, &leaves, &vertical, out);
            return;
        }
        if leaves.iter().any(|s| special(s)) && !fused_random_access {
            // These have nests of their own; a tree holding one (which the
            // fusion stage does not build) runs leaf by leaf, unfused.
            if leaves.len() > 1 {
                for leaf in leaves {
                    self.cluster(origin, &FusionTree::Leaf((*leaf).clone()), out);
                }
                return;
            }
            self.special_soac(origin, first, out);
            return;
        }
        let vertical = tree.vertically_fused();
        let width = self.atom(&first.soac.width);
        let index = self.fresh("i", I64);
        self.frames.push(Vec::new());
        let mut body = Vec::new();
        // Per-iteration values of the arrays produced in this cluster (core ids).
        let mut elems: HashMap<VarId, Atom> = HashMap::new();
        // Elements already read from an input this iteration (loopy ids).
        let mut reads: HashMap<VarId, Atom> = HashMap::new();
        let mut reductions = Vec::new();
        let mut scans = Vec::new();
        let mut after = Vec::new();
        let mut random = Vec::new();
        for leaf in leaves {
            let w = self.atom(&leaf.soac.width);
            self.assert_width(&width, &w, leaf.loc, out);
            let mut args = Vec::new();
            for a in &leaf.soac.args {
                if let Some(e) = elems.get(a) {
                    args.push(*e);
                    continue;
                }
                let array = self.var(*a);
                if let Some(e) = reads.get(&array) {
                    args.push(*e);
                    continue;
                }
                if let Some(outer) = self.array_shape(array).first() {
                    self.assert_width(&width, outer, leaf.loc, out);
                }
                let name = self
                    .fresh_name_of(*a, &leaf.soac)
                    .unwrap_or_else(|| "x".to_string());
                let e = self.elem(array, vec![Atom::Var(index.id)], &name, None, &mut body);
                reads.insert(array, e);
                args.push(e);
            }
            match &leaf.soac.kind {
                SoacKind::Map(lam) => {
                    let results = self.inline(lam, &args, &mut body);
                    for (p, r) in leaf.pat.iter().zip(results) {
                        elems.insert(p.id, r);
                        if vertical.contains(&p.id) {
                            let at = (&width, &index);
                            self.row_shape(at, &r, leaf.loc, false, out, &mut body);
                        } else {
                            self.output(
                                p,
                                (&width, &index),
                                Atom::Var(index.id),
                                r,
                                leaf.loc,
                                out,
                                &mut body,
                            );
                        }
                    }
                }
                SoacKind::Reduce { op, neutral } => {
                    let accs = self.accumulators(&leaf.pat, neutral, false, out);
                    let (carried, _) = self.combine(&accs, op, &args, false, leaf.loc, &mut body);
                    let results: Vec<Var> = leaf.pat.iter().map(|p| self.bind(p)).collect();
                    for (r, (acc, _, buf)) in results.iter().zip(&accs) {
                        if let Some(buf) = buf {
                            self.shapes.insert(r.id, self.array_shape(acc.id));
                            after.push((*buf, r.id));
                        }
                    }
                    let op = self.operator(op, false);
                    reductions.push(Reduction {
                        carried,
                        results,
                        op,
                    });
                }
                SoacKind::Scan { op, neutral } => {
                    let accs = self.accumulators(&leaf.pat, neutral, true, out);
                    let (carried, next) =
                        self.combine(&accs, op, &args, false, leaf.loc, &mut body);
                    let mut outputs = Vec::new();
                    for (p, r) in leaf.pat.iter().zip(next) {
                        elems.insert(p.id, r);
                        if !vertical.contains(&p.id) {
                            let i = Atom::Var(index.id);
                            outputs.push(self.output(
                                p,
                                (&width, &index),
                                i,
                                r,
                                leaf.loc,
                                out,
                                &mut body,
                            ));
                        }
                    }
                    let op = self.operator(op, false);
                    scans.push(ScanState {
                        carried,
                        outputs,
                        op,
                    });
                }
                SoacKind::Scatter { .. } | SoacKind::Hist { .. } => {
                    let targets = self.random_access_targets(leaf, out);
                    random.push((leaf, targets, args));
                }
                _ => {}
            }
        }
        let mut nest = LoopNest::map(origin, index, width, Vec::new());
        // Updates come after every element they may use is computed.
        for (leaf, targets, args) in random {
            self.random_access_update(leaf, targets, &args, &mut nest, out, &mut body);
        }
        let frame = self.pop_frame();
        self.free_frame(&frame, &HashSet::new(), &mut body);
        nest.body = body;
        nest.reductions = reductions;
        nest.scans = scans;
        nest.par = nest.required_parallelism();
        out.push(Stmt::Loop(nest));
        // Array-valued reductions: the result takes its buffer over.
        for (buf, r) in after {
            self.transfer(buf, r);
        }
    }

    /// A filter fused with its family (`fusion::graph::SparseGroup`): one
    /// loop over the filter's input; the members run under the predicate,
    /// a nested filter's members under both. A reduction's per-element step
    /// is `if p x then op acc x else acc` and its combiner the plain
    /// operator; a nested filter whose outputs are needed compacts under
    /// all the predicates at once; a fused-away filter's kept elements are
    /// counted, for `size` statements on its outputs.
    fn sparse_cluster(
        &mut self,
        origin: Origin,
        leaves: &[&SoacStm],
        vertical: &HashSet<VarId>,
        out: &mut Block,
    ) {
        let root = leaves[0];
        let width = self.atom(&root.soac.width);
        let index = self.fresh("i", I64);
        let i = Atom::Var(index.id);
        self.frames.push(Vec::new());
        let mut body = Vec::new();
        let args = self.read_args(
            &root.soac,
            &root.soac.args,
            &width,
            i,
            root.loc,
            out,
            &mut body,
        );
        let mut st = SparseState {
            vertical,
            width,
            elems: HashMap::new(),
            done: HashSet::new(),
            reductions: Vec::new(),
            compactions: Vec::new(),
            after: Vec::new(),
            posts: Vec::new(),
        };
        st.done.insert(0);
        let routed = self.sparse_guard(root, args, leaves, &mut st, out, &mut body);
        // Values leaving the outermost guard are the accumulators' next values.
        let mut next_of: HashMap<VarId, Atom> = routed.into_iter().collect();
        let frame = self.pop_frame();
        self.free_frame(&frame, &HashSet::new(), &mut body);
        let mut nest = LoopNest::map(origin, index, width, body);
        for (mut carried, results, op) in st.reductions {
            for c in &mut carried {
                c.next = next_of.remove(&c.var.id).unwrap_or(Atom::Var(c.var.id));
            }
            nest.reductions.push(Reduction {
                carried,
                results,
                op,
            });
        }
        for (mut c, flag) in st.compactions {
            c.count.next = next_of
                .remove(&c.count.var.id)
                .unwrap_or(Atom::Var(c.count.var.id));
            c.flag = next_of.remove(&flag).unwrap_or(c.flag);
            nest.compactions.push(c);
        }
        nest.par = nest.required_parallelism();
        out.push(Stmt::Loop(nest));
        for (buf, r) in st.after {
            self.transfer(buf, r);
        }
        for (stmt, buf, var) in st.posts {
            out.push(stmt);
            self.transfer(buf, var);
        }
    }

    /// Evaluates `filter`'s predicate on `args` and, under it, the leaves
    /// that read its family's arrays. Returns the values the guard hands
    /// out: `(carried variable or flag id, value after this iteration)`.
    fn sparse_guard(
        &mut self,
        filter: &SoacStm,
        args: Vec<Atom>,
        leaves: &[&SoacStm],
        st: &mut SparseState,
        out: &mut Block,
        body: &mut Block,
    ) -> Vec<(VarId, Atom)> {
        let SoacKind::Filter { pred } = &filter.soac.kind else {
            return Vec::new();
        };
        let flag = self
            .inline(pred, &args, body)
            .first()
            .copied()
            .unwrap_or(Atom::Const(Const::Bool(false)));
        let mut inner = Vec::new();
        // `(id, value inside, value outside when the predicate fails)`.
        let mut routed: Vec<(VarId, Atom, Atom)> = Vec::new();
        let mut family: Vec<VarId> = Vec::new();
        for (p, e) in filter.pat.iter().zip(&args) {
            st.elems.insert(p.id, *e);
            family.push(p.id);
        }
        let manifest = filter.pat.iter().any(|p| !st.vertical.contains(&p.id));
        if manifest {
            self.sparse_compaction(filter, &args, flag, st, out, &mut inner, &mut routed);
        } else {
            // The kept count: what `size` of an output asks for.
            let count = self.carried_var("count", I64);
            let next = self.add(Atom::Var(count.id), i64c(1), &mut inner);
            routed.push((count.id, next, Atom::Var(count.id)));
            let result = self.fresh("kept_n", I64);
            for p in &filter.pat {
                let var = self.bind(p);
                let mut shape = vec![Atom::Var(result.id)];
                shape.extend(self.shape(&st.elems[&p.id]));
                self.shapes.insert(var.id, shape);
            }
            let op = self.add_operator();
            st.reductions.push((
                vec![Carried {
                    var: count,
                    init: i64c(0),
                    next: i64c(0),
                }],
                vec![result],
                op,
            ));
        }
        for (k, leaf) in leaves.iter().enumerate() {
            if st.done.contains(&k) || !leaf.soac.args.iter().all(|a| family.contains(a)) {
                continue;
            }
            st.done.insert(k);
            let args: Vec<Atom> = leaf.soac.args.iter().map(|a| st.elems[a]).collect();
            match &leaf.soac.kind {
                SoacKind::Map(lam) => {
                    let results = self.inline(lam, &args, &mut inner);
                    for (p, r) in leaf.pat.iter().zip(results) {
                        st.elems.insert(p.id, r);
                        family.push(p.id);
                    }
                }
                SoacKind::Reduce { op, neutral } => {
                    let accs = self.accumulators(&leaf.pat, neutral, false, out);
                    let (carried, _) = self.combine(&accs, op, &args, false, leaf.loc, &mut inner);
                    for c in &carried {
                        if c.next != Atom::Var(c.var.id) {
                            routed.push((c.var.id, c.next, Atom::Var(c.var.id)));
                        }
                    }
                    let results: Vec<Var> = leaf.pat.iter().map(|p| self.bind(p)).collect();
                    for (r, (acc, _, buf)) in results.iter().zip(&accs) {
                        if let Some(buf) = buf {
                            self.shapes.insert(r.id, self.array_shape(acc.id));
                            st.after.push((*buf, r.id));
                        }
                    }
                    let op = self.operator(op, false);
                    st.reductions.push((carried, results, op));
                }
                SoacKind::Filter { .. } => {
                    let handed = self.sparse_guard(leaf, args, leaves, st, out, &mut inner);
                    for (id, value) in handed {
                        let failed = if st.compactions.iter().any(|(_, f)| *f == id) {
                            Atom::Const(Const::Bool(false))
                        } else {
                            Atom::Var(id)
                        };
                        routed.push((id, value, failed));
                    }
                }
                _ => {}
            }
        }
        let mut handed = Vec::new();
        let mut results = Vec::new();
        let mut then_results = Vec::new();
        let mut else_results = Vec::new();
        for (id, value, failed) in routed {
            let ty = self.type_of(&value).unwrap_or(I64);
            let r = self.fresh("g", ty);
            handed.push((id, Atom::Var(r.id)));
            results.push(r);
            then_results.push(value);
            else_results.push(failed);
        }
        body.push(Stmt::If {
            results,
            cond: flag,
            then_block: inner,
            then_results,
            else_block: Vec::new(),
            else_results,
        });
        handed
    }

    /// The outputs of a fused filter that are still needed: stored at the
    /// running count when every enclosing predicate holds.
    #[allow(clippy::too_many_arguments)]
    fn sparse_compaction(
        &mut self,
        filter: &SoacStm,
        args: &[Atom],
        flag: Atom,
        st: &mut SparseState,
        out: &mut Block,
        inner: &mut Block,
        routed: &mut Vec<(VarId, Atom, Atom)>,
    ) {
        let count = self.carried_var("count", I64);
        let mut outputs = Vec::new();
        let result = self.fresh("kept_n", I64);
        for (p, e) in filter.pat.iter().zip(args) {
            let buf = self.fresh("kept", p.ty);
            let row = self.shape(e);
            let mut shape = vec![st.width];
            shape.extend(row.iter().copied());
            self.alloc_outside(&buf, shape, out);
            inner.push(self.store(buf.id, vec![Atom::Var(count.id)], *e));
            outputs.push(buf.id);
            let var = self.bind(p);
            let mut shape = vec![Atom::Var(result.id)];
            shape.extend(row.iter().copied());
            self.shapes.insert(var.id, shape.clone());
            st.posts.push((
                Stmt::View {
                    var: var.clone(),
                    array: buf.id,
                    offset: i64c(0),
                    shape,
                },
                buf.id,
                var.id,
            ));
        }
        let next = self.add(Atom::Var(count.id), i64c(1), inner);
        routed.push((count.id, next, Atom::Var(count.id)));
        // The flag the compaction sees is true only where all predicates
        // hold; the enclosing guards hand it out as false otherwise.
        let all = self.fresh("kept_here", Type::Scalar(ScalarType::Bool));
        routed.push((all.id, flag, Atom::Const(Const::Bool(false))));
        st.compactions.push((
            Compaction {
                count: Carried {
                    var: count,
                    init: i64c(0),
                    next: i64c(0),
                },
                flag,
                outputs,
                result,
            },
            all.id,
        ));
    }

    /// `i64` addition, the combiner of a kept-element count.
    fn add_operator(&mut self) -> Operator {
        let a = self.fresh("a", I64);
        let b = self.fresh("b", I64);
        let mut body = Vec::new();
        let r = self.binop(
            "sum",
            BinOp::Add,
            Atom::Var(a.id),
            Atom::Var(b.id),
            &mut body,
        );
        Operator {
            params: vec![a, b],
            body,
            results: vec![r],
        }
    }

    /// The name of the lambda parameter that receives argument `arg`.
    fn fresh_name_of(&self, arg: VarId, soac: &core::Soac) -> Option<String> {
        let pos = soac.args.iter().position(|a| *a == arg)?;
        match &soac.kind {
            SoacKind::Reduce { op, .. }
            | SoacKind::Scan { op, .. }
            | SoacKind::ScanRight { op, .. } => {
                let k = soac.args.len();
                op.params.get(k + pos).map(|p| p.name.clone())
            }
            SoacKind::Map(lam)
            | SoacKind::Filter { pred: lam }
            | SoacKind::Partition { pred: lam } => lam.params.get(pos).map(|p| p.name.clone()),
            SoacKind::Hist { op, .. } => {
                let k = soac.args.len().saturating_sub(1);
                let at = pos.checked_sub(1)?;
                op.params.get(k + at).map(|p| p.name.clone())
            }
            SoacKind::Scatter { .. } => None,
        }
    }

    /// The accumulators of a reduce or scan whose results bind `pat`, with
    /// their initial values: a scalar starts as its neutral element, an
    /// array in a buffer (allocated before the nest) holding a copy of it.
    fn accumulators(
        &mut self,
        pat: &[Var],
        neutral: &[Atom],
        is_scan: bool,
        out: &mut Block,
    ) -> Vec<(Var, Atom, Option<VarId>)> {
        pat.iter()
            .zip(neutral)
            .map(|(p, ne)| {
                let ty = if is_scan { p.ty.row() } else { p.ty };
                let ne = self.atom(ne);
                let acc = self.carried_var("acc", ty);
                if let (Type::Array(..), Atom::Var(src)) = (ty, ne) {
                    let shape = self.shape(&ne);
                    let buf = self.fresh("acc_buf", ty);
                    self.alloc_outside(&buf, shape.clone(), out);
                    out.push(Stmt::Copy {
                        array: buf.id,
                        index: Vec::new(),
                        src,
                    });
                    self.shapes.insert(acc.id, shape);
                    (acc, Atom::Var(buf.id), Some(buf.id))
                } else {
                    (acc, ne, None)
                }
            })
            .collect()
    }

    /// Applies the operator to the accumulators and this iteration's
    /// elements (the elements first when `elems_first`, for `scanr`);
    /// returns the carried values and their next values. An array
    /// accumulator is overwritten with the combined row (its next value is
    /// itself, see `Operator`).
    fn combine(
        &mut self,
        accs: &[(Var, Atom, Option<VarId>)],
        op: &core::Lambda,
        elems: &[Atom],
        elems_first: bool,
        loc: SrcLoc,
        body: &mut Block,
    ) -> (Vec<Carried>, Vec<Atom>) {
        let acc_atoms: Vec<Atom> = accs.iter().map(|(a, _, _)| Atom::Var(a.id)).collect();
        let op_args: Vec<Atom> = if elems_first {
            elems.iter().chain(&acc_atoms).copied().collect()
        } else {
            acc_atoms.iter().chain(elems).copied().collect()
        };
        let mut next = self.inline(op, &op_args, body);
        next.resize(accs.len(), i64c(0));
        // A combined row that is another accumulator is snapshotted before
        // any accumulator is overwritten.
        for (j, n) in next.iter_mut().enumerate() {
            let other_acc = accs
                .iter()
                .enumerate()
                .any(|(k, (a, _, buf))| k != j && buf.is_some() && *n == Atom::Var(a.id));
            if other_acc {
                *n = self.copy_array(n, body);
                if let Atom::Var(c) = *n {
                    if let Some(frame) = self.frames.last_mut() {
                        frame.push(c);
                    }
                }
            }
        }
        let mut carried = Vec::new();
        for ((acc, init, buf), n) in accs.iter().zip(next.iter_mut()) {
            if buf.is_some() {
                let shape = self.array_shape(acc.id);
                {
                    self.assert_shape(&shape, n, loc, body);
                    if *n != Atom::Var(acc.id) {
                        if let Atom::Var(src) = n {
                            body.push(Stmt::Copy {
                                array: acc.id,
                                index: Vec::new(),
                                src: *src,
                            });
                        }
                    }
                    *n = Atom::Var(acc.id);
                }
            }
            carried.push(Carried {
                var: acc.clone(),
                init: *init,
                next: *n,
            });
        }
        (carried, next)
    }

    /// Stops the program unless `size`, which a new array is to have, is
    /// at least 0; a constant or another array's dimension needs no check.
    fn check_size(&mut self, size: Atom, loc: SrcLoc, out: &mut Block) {
        let known = match size {
            Atom::Const(c) => c.as_i128().is_some_and(|n| n >= 0),
            Atom::Var(_) => self.shapes.values().any(|shape| shape.contains(&size)),
        };
        if !known {
            out.push(Stmt::SizeCheck { size, loc });
        }
    }

    /// Allocates the array bound by `p` before the nest over `index` and
    /// stores this iteration's element `value` into it at `at`; returns the
    /// array.
    #[allow(clippy::too_many_arguments)]
    fn output(
        &mut self,
        p: &Var,
        (width, index): (&Atom, &Var),
        at: Atom,
        value: Atom,
        loc: SrcLoc,
        out: &mut Block,
        body: &mut Block,
    ) -> VarId {
        let var = self.bind(p);
        let mut shape = vec![*width];
        shape.extend(self.row_shape((width, index), &value, loc, true, out, body));
        self.alloc_outside(&var, shape, out);
        body.push(self.store(var.id, vec![at], value));
        var.id
    }

    /// The shape of `value`, a row computed by the body of the nest over
    /// `index`, as seen from `out`. A size the body computes in a way that
    /// may change from row to row is taken from row 0, run ahead (see
    /// `loopy::peel`), and every iteration checks its own against it, so
    /// that irregular rows stop with a size mismatch at `loc` even when
    /// the array they would form is fused away (not `materialised`: then
    /// only the checks are made).
    fn row_shape(
        &mut self,
        (width, index): (&Atom, &Var),
        value: &Atom,
        loc: SrcLoc,
        materialised: bool,
        out: &mut Block,
        body: &mut Block,
    ) -> Vec<Atom> {
        let mut uses = std::collections::BTreeSet::new();
        let mut defined = HashSet::new();
        super::ir::block_vars(body, &mut uses, &mut defined);
        // The index changes from row to row too.
        defined.insert(index.id);
        let mut copies = HashMap::new();
        let mut copied = Vec::new();
        let mut shape = Vec::new();
        for dim in self.shape(value) {
            let copy = self.invariant_copy(dim, body, &defined, &mut copies, &mut copied);
            // A copied size may be negative where the row's own checks
            // (a slice's) would stop the program: allocate nothing then, and
            // let row 0 report it (or no row, for an empty result).
            let from_body = matches!(dim, Atom::Var(v) if defined.contains(&v));
            if from_body && matches!(copy, Atom::Var(c) if !defined.contains(&c)) {
                let clamped = self.binop("row_size", BinOp::Max, copy, i64c(0), &mut copied);
                shape.push(clamped);
            } else {
                shape.push(copy);
            }
        }
        if materialised {
            out.append(&mut copied);
        }
        let varying: Vec<Atom> = shape
            .iter()
            .filter(|d| matches!(d, Atom::Var(v) if defined.contains(v)))
            .copied()
            .collect();
        if varying.is_empty() {
            return shape;
        }
        let owned: Vec<VarId> = self
            .frames
            .last()
            .into_iter()
            .flatten()
            .filter(|v| self.owned.contains(v))
            .copied()
            .collect();
        // Otherwise the lint reports the use of a body's size outside it.
        let carried = std::mem::take(&mut self.carried);
        let peeled = super::peel::first_iteration(body, index, &varying, &owned, &carried, self);
        self.carried = carried;
        let Some((then_block, firsts)) = peeled else {
            return shape;
        };
        let has_rows = self.binop("has_rows", BinOp::Lt, i64c(0), *width, out);
        let results: Vec<Var> = varying
            .iter()
            .map(|_| self.fresh("row_size", I64))
            .collect();
        for (found, expected) in varying.iter().zip(&results) {
            body.push(Stmt::AssertEq {
                expected: Atom::Var(expected.id),
                found: *found,
                loc,
            });
            for d in &mut shape {
                if d == found {
                    *d = Atom::Var(expected.id);
                }
            }
        }
        out.push(Stmt::If {
            results,
            cond: has_rows,
            then_block,
            then_results: firsts,
            else_block: Vec::new(),
            else_results: vec![i64c(0); varying.len()],
        });
        shape
    }

    /// `atom` as seen from `out`, the block around the nest whose `body`
    /// (defining `defined`) is being built. A row's size computed in the
    /// body (`take k r`, `r[1:3]`: the slice's length) is needed outside,
    /// where the result array is allocated: when it is a chain of lets over
    /// values from outside that cannot fail, the chain is copied into `out`
    /// under fresh names (`copies` maps body variables to their copies).
    /// Anything else is returned as it is: a size that changes from row to
    /// row cannot be allocated in advance, and the lint reports its use
    /// outside the body.
    fn invariant_copy(
        &mut self,
        atom: Atom,
        body: &Block,
        defined: &HashSet<VarId>,
        copies: &mut HashMap<VarId, Atom>,
        out: &mut Block,
    ) -> Atom {
        let Atom::Var(v) = atom else { return atom };
        if !defined.contains(&v) {
            return atom;
        }
        if let Some(copy) = copies.get(&v) {
            return *copy;
        }
        let Some((var, exp, loc)) = body.iter().find_map(|s| match s {
            Stmt::Let { var, exp, loc } if var.id == v && !exp.may_fail() => Some((var, exp, *loc)),
            _ => None,
        }) else {
            return atom;
        };
        let mut operand = |a: &Atom| {
            let copied = self.invariant_copy(*a, body, defined, copies, out);
            let local = matches!(copied, Atom::Var(c) if defined.contains(&c));
            (!local).then_some(copied)
        };
        let exp = match exp {
            ScalarExp::Atom(a) => operand(a).map(ScalarExp::Atom),
            ScalarExp::UnOp(op, a) => operand(a).map(|a| ScalarExp::UnOp(*op, a)),
            ScalarExp::Convert(t, a) => operand(a).map(|a| ScalarExp::Convert(*t, a)),
            ScalarExp::BinOp(op, a, b) => match (operand(a), operand(b)) {
                (Some(a), Some(b)) => Some(ScalarExp::BinOp(*op, a, b)),
                _ => None,
            },
            ScalarExp::Fma(a, b, c) => match (operand(a), operand(b), operand(c)) {
                (Some(a), Some(b), Some(c)) => Some(ScalarExp::Fma(a, b, c)),
                _ => None,
            },
        };
        let Some(exp) = exp else { return atom };
        let copy = self.fresh(&var.name, var.ty);
        let id = copy.id;
        out.push(Stmt::Let {
            var: copy,
            exp,
            loc,
        });
        copies.insert(v, Atom::Var(id));
        Atom::Var(id)
    }

    /// Reads element (or row) `at` of each of `arrays` in a nest body, after
    /// checking outside that their outer sizes are `width`.
    #[allow(clippy::too_many_arguments)]
    fn read_args(
        &mut self,
        soac: &core::Soac,
        arrays: &[VarId],
        width: &Atom,
        at: Atom,
        loc: SrcLoc,
        out: &mut Block,
        body: &mut Block,
    ) -> Vec<Atom> {
        let mut elems = Vec::new();
        for a in arrays {
            let array = self.var(*a);
            if let Some(outer) = self.array_shape(array).first() {
                self.assert_width(width, outer, loc, out);
            }
            let name = self
                .fresh_name_of(*a, soac)
                .unwrap_or_else(|| "x".to_string());
            elems.push(self.elem(array, vec![at], &name, None, body));
        }
        elems
    }

    /// `scanr`, `filter`, `partition`, `scatter` and `hist`: one nest each.
    fn special_soac(&mut self, origin: Origin, leaf: &SoacStm, out: &mut Block) {
        let soac = &leaf.soac;
        let loc = leaf.loc;
        let width = self.atom(&soac.width);
        let index = self.fresh("i", I64);
        let i = Atom::Var(index.id);
        let mut nest = LoopNest::map(origin, index.clone(), width, Vec::new());
        self.frames.push(Vec::new());
        let mut body = Vec::new();
        // Statements after the nest, and ownership moving to its results.
        let mut post = Vec::new();
        let mut transfers = Vec::new();
        match &soac.kind {
            SoacKind::ScanRight { op, neutral } => {
                let last = self.binop("last", BinOp::Sub, width, i64c(1), &mut body);
                let at = self.binop("at", BinOp::Sub, last, i, &mut body);
                let elems = self.read_args(soac, &soac.args, &width, at, loc, out, &mut body);
                let accs = self.accumulators(&leaf.pat, neutral, true, out);
                let (carried, next) = self.combine(&accs, op, &elems, true, loc, &mut body);
                let mut outputs = Vec::new();
                for (p, r) in leaf.pat.iter().zip(next) {
                    outputs.push(self.output(p, (&width, &index), at, r, loc, out, &mut body));
                }
                let op = self.operator(op, true);
                nest.scans.push(ScanState {
                    carried,
                    outputs,
                    op,
                });
            }
            SoacKind::Filter { pred } | SoacKind::Partition { pred } => {
                let partition = matches!(soac.kind, SoacKind::Partition { .. });
                let elems = self.read_args(soac, &soac.args, &width, i, loc, out, &mut body);
                let flag = self
                    .inline(pred, &elems, &mut body)
                    .first()
                    .copied()
                    .unwrap_or(Atom::Const(Const::Bool(false)));
                let k = elems.len();
                let groups = if partition { 2 } else { 1 };
                let mut blocks = vec![Vec::new(), Vec::new()];
                let mut flags = vec![flag];
                if partition {
                    let not = ScalarExp::UnOp(UnOp::Not, flag);
                    flags.push(self.let_("rest", ScalarType::Bool, not, &mut body));
                }
                for (g, (block, flag)) in blocks.iter_mut().zip(&flags).take(groups).enumerate() {
                    let count = self.carried_var("count", I64);
                    let mut outputs = Vec::new();
                    let pats = leaf.pat.get(g * k..(g + 1) * k).unwrap_or_default();
                    for (p, e) in pats.iter().zip(&elems) {
                        let buf = self.fresh(if g == 0 { "kept" } else { "rest" }, p.ty);
                        let row = self.shape(e);
                        let mut shape = vec![width];
                        shape.extend(row.iter().copied());
                        self.alloc_outside(&buf, shape, out);
                        block.push(self.store(buf.id, vec![Atom::Var(count.id)], *e));
                        outputs.push(buf.id);
                        let var = self.bind(p);
                        transfers.push((buf.id, var.clone(), row));
                    }
                    let f64_ = ScalarExp::Convert(ScalarType::I64, *flag);
                    let inc = self.let_("inc", ScalarType::I64, f64_, &mut body);
                    let next = self.binop("count", BinOp::Add, Atom::Var(count.id), inc, &mut body);
                    let result = self.fresh("kept_n", I64);
                    for (_, var, row) in transfers.iter().skip(g * k) {
                        let mut shape = vec![Atom::Var(result.id)];
                        shape.extend(row.iter().copied());
                        self.shapes.insert(var.id, shape);
                    }
                    nest.compactions.push(Compaction {
                        count: Carried {
                            var: count,
                            init: i64c(0),
                            next,
                        },
                        flag: *flag,
                        outputs,
                        result,
                    });
                }
                let else_block = if partition {
                    blocks.pop().unwrap_or_default()
                } else {
                    Vec::new()
                };
                let then_block = blocks.swap_remove(0);
                body.push(Stmt::If {
                    results: Vec::new(),
                    cond: flag,
                    then_block,
                    then_results: Vec::new(),
                    else_block,
                    else_results: Vec::new(),
                });
                for (buf, var, _) in &transfers {
                    post.push(Stmt::View {
                        var: var.clone(),
                        array: *buf,
                        offset: i64c(0),
                        shape: self.array_shape(var.id),
                    });
                }
            }
            SoacKind::Scatter { .. } | SoacKind::Hist { .. } => {
                let targets = self.random_access_targets(leaf, out);
                let elems = self.read_args(soac, &soac.args, &width, i, loc, out, &mut body);
                self.random_access_update(leaf, targets, &elems, &mut nest, out, &mut body);
            }
            SoacKind::Map(_) | SoacKind::Reduce { .. } | SoacKind::Scan { .. } => {}
        }
        let frame = self.pop_frame();
        self.free_frame(&frame, &HashSet::new(), &mut body);
        nest.body = body;
        nest.par = nest.required_parallelism();
        out.push(Stmt::Loop(nest));
        out.extend(post);
        for (buf, var, _) in transfers {
            self.transfer(buf, var.id);
        }
    }

    /// The arrays a scatter or hist writes, made before its loop: copies of
    /// the destinations, or bins filled with the neutral elements.
    fn random_access_targets(&mut self, leaf: &SoacStm, out: &mut Block) -> Vec<VarId> {
        let (dest, fill) = match &leaf.soac.kind {
            SoacKind::Scatter { dest } => (Some(dest), None),
            SoacKind::Hist {
                neutral,
                bins,
                dest,
                ..
            } => (dest.as_ref(), Some((neutral, bins))),
            _ => return Vec::new(),
        };
        let mut targets = Vec::new();
        for (j, p) in leaf.pat.iter().enumerate() {
            let var = self.bind(p);
            match (dest.and_then(|d| d.get(j)), fill) {
                (Some(d), _) => {
                    let d = self.var(*d);
                    let shape = self.array_shape(d);
                    self.alloc_outside(&var, shape, out);
                    out.push(Stmt::Copy {
                        array: var.id,
                        index: Vec::new(),
                        src: d,
                    });
                }
                (None, Some((neutral, bins))) => {
                    let nb = self.atom(bins);
                    let nb = self.as_i64(nb, out);
                    self.check_size(nb, leaf.loc, out);
                    let ne = neutral.get(j).map_or(i64c(0), |a| self.atom(a));
                    let mut shape = vec![nb];
                    shape.extend(self.shape(&ne));
                    self.alloc_outside(&var, shape, out);
                    let fill = self.fresh("i", I64);
                    let store = self.store(var.id, vec![Atom::Var(fill.id)], ne);
                    out.push(simple_loop(Origin::Replicate, fill, nb, vec![store]));
                }
                (None, None) => {}
            }
            targets.push(var.id);
        }
        targets
    }

    /// One iteration of a scatter or hist on its argument elements `elems`
    /// (the index first): an in-range index writes its destinations, or
    /// combines the values into its bins; the nest records the targets.
    fn random_access_update(
        &mut self,
        leaf: &SoacStm,
        targets: Vec<VarId>,
        elems: &[Atom],
        nest: &mut LoopNest,
        out: &mut Block,
        body: &mut Block,
    ) {
        let loc = leaf.loc;
        let m = self.first_dim(&targets);
        let Some((&idx, values)) = elems.split_first() else {
            return;
        };
        let idx = self.as_i64(idx, body);
        let ok = self.in_range(idx, m, body);
        let then_block = match &leaf.soac.kind {
            SoacKind::Scatter { .. } => {
                for d in targets.iter().skip(1) {
                    let found = self.array_shape(*d).first().copied().unwrap_or(m);
                    self.assert_width(&m, &found, loc, out);
                }
                let mut then_block = Vec::new();
                for (d, v) in targets.iter().zip(values) {
                    let row = self.array_shape(*d).get(1..).unwrap_or_default().to_vec();
                    self.assert_shape(&row, v, loc, body);
                    then_block.push(self.store(*d, vec![idx], *v));
                }
                nest.scatters.extend(targets);
                then_block
            }
            SoacKind::Hist { op, neutral, .. } => {
                let then_block = self.framed(|this, block| {
                    let mut args = Vec::new();
                    for b in &targets {
                        args.push(this.elem(*b, vec![idx], "old", None, block));
                    }
                    args.extend_from_slice(values);
                    let results = this.inline(op, &args, block);
                    for (b, r) in targets.iter().zip(results) {
                        let row = this.array_shape(*b).get(1..).unwrap_or_default().to_vec();
                        this.assert_shape(&row, &r, loc, block);
                        block.push(this.store(*b, vec![idx], r));
                    }
                });
                nest.hists.push(HistState {
                    bins: targets,
                    neutral: neutral.iter().map(|a| self.atom(a)).collect(),
                    op: self.operator(op, false),
                });
                then_block
            }
            _ => return,
        };
        body.push(Stmt::If {
            results: Vec::new(),
            cond: ok,
            then_block,
            then_results: Vec::new(),
            else_block: Vec::new(),
            else_results: Vec::new(),
        });
    }

    fn first_dim(&self, arrays: &[VarId]) -> Atom {
        arrays
            .first()
            .and_then(|a| self.array_shape(*a).first().copied())
            .unwrap_or(i64c(0))
    }

    /// `0 <= idx < n`.
    fn in_range(&mut self, idx: Atom, n: Atom, out: &mut Block) -> Atom {
        let lo = self.binop("lo", BinOp::Ge, idx, i64c(0), out);
        let hi = self.binop("hi", BinOp::Lt, idx, n, out);
        self.binop("in", BinOp::And, lo, hi, out)
    }
}

/// What a sparse cluster's guards collect for its nest.
struct SparseState<'a> {
    vertical: &'a HashSet<VarId>,
    width: Atom,
    /// This iteration's element of each family array (core ids).
    elems: HashMap<VarId, Atom>,
    /// Leaves already placed.
    done: HashSet<usize>,
    reductions: Vec<(Vec<Carried>, Vec<Var>, Operator)>,
    /// With the id under which the guards hand out the compaction's flag.
    compactions: Vec<(Compaction, VarId)>,
    /// Array-valued reductions: the result takes the buffer over.
    after: Vec<(VarId, VarId)>,
    /// Views of compacted buffers, after the nest.
    posts: Vec<(Stmt, VarId, VarId)>,
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
