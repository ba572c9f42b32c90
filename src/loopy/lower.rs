//! Fusion AST to loop nests.
//!
//! Each cluster becomes one `LoopNest` over the common width of its SOACs.
//! Walking the leaves producers first, every SOAC's lambda is inlined into
//! the loop body with fresh variables: an array fused vertically is then only
//! a per-iteration value, one fused diagonally is that value plus a write, and
//! horizontally fused SOACs share the loop and the reads of common inputs.
//! Reductions and scans become carried values. `iota`, `replicate` and array
//! literals get loops or writes of their own.
//!
//! Lowering is total: what a later stage cannot handle yet (a map whose rows'
//! shape is only known inside its loop) shows up as a use of an undefined
//! variable, which `loopy::check` reports.

use super::ir::*;
use crate::core::ir::{self as core, Atom, Exp, SoacKind, SrcLoc, Type, Var, VarId};
use crate::fusion::ast::{FusedBody, FusedFunction, FusedProgram, FusionTree, Item, SoacStm};
use crate::types::{Const, ScalarType};
use std::collections::{HashMap, HashSet};

pub fn lower(program: &FusedProgram) -> Program {
    let mut lowerer = Lowerer {
        next_id: max_var_id(program) + 1,
        subst: HashMap::new(),
        shapes: HashMap::new(),
        types: HashMap::new(),
        owned: HashSet::new(),
        renaming: 0,
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

struct Lowerer {
    next_id: u32,
    /// Core variable to the loopy atom that holds its value.
    subst: HashMap<VarId, Atom>,
    /// Shape of every loopy array variable, outermost dimension first.
    shapes: HashMap<VarId, Vec<Atom>>,
    types: HashMap<VarId, Type>,
    /// Arrays with memory of their own (not parameters or views).
    owned: HashSet<VarId>,
    /// Inside an inlined lambda, binders get fresh ids (a lambda may be
    /// inlined more than once: loop body and combine operator).
    renaming: usize,
}

/// A branch of an `if`: core statements inside lambdas, fused items outside.
enum Branch<'a> {
    Core(&'a core::Body),
    Fused(&'a FusedBody),
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

    /// The shape of an array atom; empty for scalars.
    fn shape(&self, a: &Atom) -> Vec<Atom> {
        match a {
            Atom::Var(v) => self.shapes.get(v).cloned().unwrap_or_default(),
            Atom::Const(_) => Vec::new(),
        }
    }

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
        let results = self.fused_body(&f.body, &mut body);
        let results = self.owned_results(results, &mut body);
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

    fn alloc(&mut self, var: &Var, shape: Vec<Atom>, out: &mut Block) {
        self.shapes.insert(var.id, shape.clone());
        self.owned.insert(var.id);
        out.push(Stmt::Alloc {
            var: var.clone(),
            shape,
        });
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
                Item::Cluster(cluster) => {
                    self.cluster(Origin::Cluster(cluster.id), &cluster.tree, out)
                }
            }
        }
        body.result.iter().map(|a| self.atom(a)).collect()
    }

    fn core_body(&mut self, body: &core::Body, out: &mut Block) -> Vec<Atom> {
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
    /// of the result is known after the `if`.
    fn if_stm(&mut self, pat: &[Var], cond: &Atom, then: Branch, els: Branch, out: &mut Block) {
        let cond = self.atom(cond);
        let mut then_block = Vec::new();
        let mut then_results = self.branch(then, &mut then_block);
        let mut else_block = Vec::new();
        let mut else_results = self.branch(els, &mut else_block);
        let mut results: Vec<Var> = pat.iter().map(|v| self.bind(v)).collect();
        for j in 0..results.len() {
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
            Exp::Index { array, indices } => {
                let Some(p) = first else { return };
                let array = self.var(*array);
                let index: Vec<Atom> = indices.iter().map(|a| self.atom(a)).collect();
                let shape = self.shape(&Atom::Var(array));
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
                if let Some(d) = self.shape(&Atom::Var(array)).get(*dim) {
                    self.subst.insert(p.id, *d);
                }
            }
            Exp::Iota(n) => {
                let Some(p) = first else { return };
                let n = self.atom(n);
                let var = self.bind(p);
                self.alloc(&var, vec![n], out);
                let index = self.fresh("i", I64);
                let body = vec![Stmt::Write {
                    array: var.id,
                    index: vec![Atom::Var(index.id)],
                    value: Atom::Var(index.id),
                }];
                out.push(simple_loop(Origin::Iota, index, n, body));
            }
            Exp::Replicate { count, value } => {
                let Some(p) = first else { return };
                let count = self.atom(count);
                let value = self.atom(value);
                let var = self.bind(p);
                let mut shape = vec![count];
                shape.extend(self.shape(&value));
                self.alloc(&var, shape, out);
                let index = self.fresh("i", I64);
                let body = vec![self.store(var.id, vec![Atom::Var(index.id)], value)];
                out.push(simple_loop(Origin::Replicate, index, count, body));
            }
            Exp::ArrayLit { items, .. } => {
                let Some(p) = first else { return };
                let items: Vec<Atom> = items.iter().map(|a| self.atom(a)).collect();
                let var = self.bind(p);
                let row_shape = items.first().map(|a| self.shape(a)).unwrap_or_default();
                for item in items.iter().skip(1) {
                    for (expected, found) in row_shape.iter().zip(self.shape(item)) {
                        if *expected != found {
                            out.push(Stmt::AssertEq {
                                expected: *expected,
                                found,
                                loc,
                            });
                        }
                    }
                }
                let mut shape = vec![Atom::Const(Const::I64(items.len() as i64))];
                shape.extend(row_shape);
                self.alloc(&var, shape, out);
                for (k, item) in items.iter().enumerate() {
                    let store = self.store(var.id, vec![Atom::Const(Const::I64(k as i64))], *item);
                    out.push(store);
                }
            }
            Exp::AssertEqSizes(a, b) => out.push(Stmt::AssertEq {
                expected: self.atom(a),
                found: self.atom(b),
                loc,
            }),
            Exp::Assert(c) => out.push(Stmt::Assert {
                cond: self.atom(c),
                loc,
            }),
            Exp::Soac(soac) => {
                let tree = FusionTree::Leaf(SoacStm {
                    pat: stm.pat.clone(),
                    soac: soac.clone(),
                    loc,
                });
                self.cluster(Origin::Nested(soac.label.0), &tree, out);
            }
        }
    }

    fn let_stm(&mut self, pat: Option<&Var>, exp: ScalarExp, loc: SrcLoc, out: &mut Block) {
        if let Some(p) = pat {
            let var = self.bind(p);
            out.push(Stmt::Let { var, exp, loc });
        }
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

    /// Inlines `lam` applied to `args` into `out`, returning its results.
    fn inline(&mut self, lam: &core::Lambda, args: &[Atom], out: &mut Block) -> Vec<Atom> {
        self.renaming += 1;
        for (p, a) in lam.params.iter().zip(args) {
            self.subst.insert(p.id, *a);
        }
        let results = self.core_body(&lam.body, out);
        self.renaming -= 1;
        results
    }

    /// A reduction or scan operator as a function of its own.
    fn operator(&mut self, lam: &core::Lambda) -> Operator {
        let params: Vec<Var> = lam
            .params
            .iter()
            .map(|p| self.fresh(&p.name, p.ty))
            .collect();
        let args: Vec<Atom> = params.iter().map(|p| Atom::Var(p.id)).collect();
        let mut body = Vec::new();
        let results = self.inline(lam, &args, &mut body);
        Operator {
            params,
            body,
            results,
        }
    }

    /// One loop nest for a fusion tree: see the module comment.
    fn cluster(&mut self, origin: Origin, tree: &FusionTree, out: &mut Block) {
        let leaves = tree.leaves();
        let Some(first) = leaves.first() else { return };
        let mut vertical = HashSet::new();
        collect_vertical(tree, &mut vertical);
        let width = self.atom(&first.soac.width);
        let index = self.fresh("i", I64);
        let mut body = Vec::new();
        // Per-iteration values of the arrays produced in this cluster (core ids).
        let mut elems: HashMap<VarId, Atom> = HashMap::new();
        // Elements already read from an input this iteration (loopy ids).
        let mut reads: HashMap<VarId, Atom> = HashMap::new();
        let mut reductions = Vec::new();
        let mut scans = Vec::new();
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
                let shape = self.shape(&Atom::Var(array));
                if let Some(outer) = shape.first() {
                    self.assert_width(&width, outer, leaf.loc, out);
                }
                let ty = self
                    .type_of(&Atom::Var(array))
                    .unwrap_or(Type::Array(ScalarType::I64, 1));
                let name = self
                    .fresh_name_of(*a, &leaf.soac)
                    .unwrap_or_else(|| "x".to_string());
                let var = self.fresh(&name, ty.row());
                let index = vec![Atom::Var(index.id)];
                if ty.rank() > 1 {
                    self.shapes
                        .insert(var.id, shape.get(1..).unwrap_or_default().to_vec());
                    body.push(Stmt::Row {
                        var: var.clone(),
                        array,
                        index,
                        check: None,
                    });
                } else {
                    body.push(Stmt::Read {
                        var: var.clone(),
                        array,
                        index,
                        check: None,
                    });
                }
                reads.insert(array, Atom::Var(var.id));
                args.push(Atom::Var(var.id));
            }
            match &leaf.soac.kind {
                SoacKind::Map(lam) => {
                    let results = self.inline(lam, &args, &mut body);
                    for (p, r) in leaf.pat.iter().zip(results) {
                        elems.insert(p.id, r);
                        if !vertical.contains(&p.id) {
                            self.output(p, &width, &index, r, out, &mut body);
                        }
                    }
                }
                SoacKind::Reduce { op, neutral } => {
                    let (carried, _) =
                        self.carried(&leaf.pat, neutral, op, &args, false, &mut body);
                    let results = leaf.pat.iter().map(|p| self.bind(p)).collect();
                    let op = self.operator(op);
                    reductions.push(Reduction {
                        carried,
                        results,
                        op,
                    });
                }
                SoacKind::Scan { op, neutral } => {
                    let (carried, next) =
                        self.carried(&leaf.pat, neutral, op, &args, true, &mut body);
                    let mut outputs = Vec::new();
                    for (p, r) in leaf.pat.iter().zip(next) {
                        elems.insert(p.id, r);
                        if !vertical.contains(&p.id) {
                            outputs.push(self.output(p, &width, &index, r, out, &mut body));
                        }
                    }
                    let op = self.operator(op);
                    scans.push(ScanState {
                        carried,
                        outputs,
                        op,
                    });
                }
            }
        }
        let mut nest = LoopNest {
            origin,
            par: Parallelism::Map,
            index,
            width,
            reductions,
            scans,
            body,
        };
        nest.par = nest.required_parallelism();
        out.push(Stmt::Loop(nest));
    }

    /// The name of the lambda parameter that receives argument `arg`.
    fn fresh_name_of(&self, arg: VarId, soac: &core::Soac) -> Option<String> {
        let lam = match &soac.kind {
            SoacKind::Map(lam) => lam,
            SoacKind::Reduce { op, .. } | SoacKind::Scan { op, .. } => {
                let k = soac.args.len();
                let pos = soac.args.iter().position(|a| *a == arg)?;
                return op.params.get(k + pos).map(|p| p.name.clone());
            }
        };
        let pos = soac.args.iter().position(|a| *a == arg)?;
        lam.params.get(pos).map(|p| p.name.clone())
    }

    /// Carried values for a reduce or scan whose results bind `pat`: the
    /// operator is applied to the carried values and this iteration's
    /// elements; returns the carried values and the operator's results.
    fn carried(
        &mut self,
        pat: &[Var],
        neutral: &[Atom],
        op: &core::Lambda,
        args: &[Atom],
        is_scan: bool,
        body: &mut Block,
    ) -> (Vec<Carried>, Vec<Atom>) {
        let accs: Vec<Var> = pat
            .iter()
            .map(|p| {
                let ty = if is_scan { p.ty.row() } else { p.ty };
                self.fresh("acc", ty)
            })
            .collect();
        let mut op_args: Vec<Atom> = accs.iter().map(|a| Atom::Var(a.id)).collect();
        op_args.extend_from_slice(args);
        let next = self.inline(op, &op_args, body);
        let carried = accs
            .into_iter()
            .zip(neutral)
            .zip(&next)
            .map(|((var, init), next)| Carried {
                var,
                init: self.atom(init),
                next: *next,
            })
            .collect();
        (carried, next)
    }

    /// Allocates the array bound by `p` before the loop and stores this
    /// iteration's element `value` into it; returns the array.
    fn output(
        &mut self,
        p: &Var,
        width: &Atom,
        index: &Var,
        value: Atom,
        out: &mut Block,
        body: &mut Block,
    ) -> VarId {
        let var = self.bind(p);
        let mut shape = vec![*width];
        shape.extend(self.shape(&value));
        self.alloc(&var, shape, out);
        body.push(self.store(var.id, vec![Atom::Var(index.id)], value));
        var.id
    }
}

fn simple_loop(origin: Origin, index: Var, width: Atom, body: Block) -> Stmt {
    Stmt::Loop(LoopNest {
        origin,
        par: Parallelism::Map,
        index,
        width,
        reductions: Vec::new(),
        scans: Vec::new(),
        body,
    })
}

/// The arrays a tree fuses away entirely (vertical fusion).
fn collect_vertical(tree: &FusionTree, out: &mut HashSet<VarId>) {
    match tree {
        FusionTree::Leaf(_) => {}
        FusionTree::Vertical {
            producer,
            consumer,
            fused,
        } => {
            out.extend(fused.iter().copied());
            collect_vertical(producer, out);
            collect_vertical(consumer, out);
        }
        FusionTree::Diagonal {
            producer, consumer, ..
        } => {
            collect_vertical(producer, out);
            collect_vertical(consumer, out);
        }
        FusionTree::Horizontal(a, b) => {
            collect_vertical(a, out);
            collect_vertical(b, out);
        }
    }
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
