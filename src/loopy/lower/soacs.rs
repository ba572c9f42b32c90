//! Fusion clusters of maps, reductions and scans: lambdas inlined into
//! one nest body, carried values, operators and outputs.

use super::*;

impl Lowerer {
    // ---- SOACs ------------------------------------------------------------

    /// Inlines `lam` applied to `args` into `out`, returning its results.
    pub(super) fn inline(
        &mut self,
        lam: &core::Lambda,
        args: &[Atom],
        out: &mut Block,
    ) -> Vec<Atom> {
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
    /// `shapes` holds the shape of each operand of one group (an
    /// accumulator's): both groups' parameters take them, so an `if` that
    /// picks an operand knows its result's shape.
    pub(super) fn operator(
        &mut self,
        lam: &core::Lambda,
        swapped: bool,
        shapes: &[Vec<Atom>],
    ) -> Operator {
        let params: Vec<Var> = lam
            .params
            .iter()
            .map(|p| self.fresh(&p.name, p.ty))
            .collect();
        let mut args: Vec<Atom> = params.iter().map(|p| Atom::Var(p.id)).collect();
        let k = args.len() / 2;
        for (i, p) in params.iter().enumerate() {
            let shape = shapes.get(i.checked_rem(k).unwrap_or(0));
            if let Some(shape) = shape.filter(|s| s.len() == p.ty.rank()) {
                self.shapes.insert(p.id, shape.clone());
            }
        }
        if swapped {
            args.rotate_left(k);
        }
        // Operators run only in a parallel backend's combine phase.
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
    pub(super) fn cluster(&mut self, origin: Origin, tree: &FusionTree, out: &mut Block) {
        let leaves = tree.leaves();
        let Some(first) = leaves.first() else { return };
        if leaves.iter().any(|s| s.soac.sequential) && !self.sequential.contains(&origin) {
            self.sequential.push(origin);
        }
        // A `scanr` alone has a nest of its own; with others it is a scan
        // of a right-to-left cluster.
        let fused_scanr =
            |s: &SoacStm| leaves.len() > 1 && matches!(s.soac.kind, SoacKind::ScanRight { .. });
        let special = |s: &SoacStm| {
            let plain = matches!(
                s.soac.kind,
                SoacKind::Map(_) | SoacKind::Reduce { .. } | SoacKind::Scan { .. }
            );
            !plain && !fused_scanr(s)
        };
        let random_access = |s: &SoacStm| {
            matches!(
                s.soac.kind,
                SoacKind::Scatter { .. } | SoacKind::Hist { .. }
            )
        };
        let fused_random_access =
            leaves.len() > 1 && leaves.iter().all(|s| !special(s) || random_access(s));
        let filter = |s: &&SoacStm| matches!(s.soac.kind, SoacKind::Filter { .. });
        if leaves.len() > 1 && leaves.iter().any(filter) {
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
        // A cluster with a `scanr` walks its elements right to left: the
        // iteration `i` handles position `width - 1 - i`, and reductions
        // combine each element in front of their accumulator (the fusion
        // stage never puts a left-to-right scan beside it).
        let right_to_left = leaves
            .iter()
            .any(|l| matches!(l.soac.kind, SoacKind::ScanRight { .. }));
        let at = if right_to_left {
            let last = self.binop("last", BinOp::Sub, width, i64c(1), out);
            self.binop("at", BinOp::Sub, last, Atom::Var(index.id), &mut body)
        } else {
            Atom::Var(index.id)
        };
        // Per-iteration values of the arrays produced in this cluster (core ids).
        let mut elems: HashMap<VarId, Atom> = HashMap::new();
        // Elements already read from an input this iteration (loopy ids).
        let mut reads: HashMap<VarId, Atom> = HashMap::new();
        let mut reductions = Vec::new();
        let mut scans = Vec::new();
        let mut after = Vec::new();
        let mut random = Vec::new();
        let mut scattered = HashSet::new();
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
                let e = self.elem(array, vec![at], &name, None, &mut body);
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
                            self.output(p, (&width, &index), at, r, leaf.loc, out, &mut body);
                        }
                    }
                }
                SoacKind::Reduce { op, neutral } => {
                    let accs = self.accumulators(&leaf.pat, neutral, false, out);
                    let (carried, _) =
                        self.combine(&accs, op, &args, right_to_left, leaf.loc, &mut body);
                    let results: Vec<Var> = leaf.pat.iter().map(|p| self.bind(p)).collect();
                    for (r, (acc, _, buf)) in results.iter().zip(&accs) {
                        if let Some(buf) = buf {
                            self.shapes.insert(r.id, self.array_shape(acc.id));
                            after.push((*buf, r.id));
                        }
                    }
                    let op = self.operator(op, right_to_left, &self.acc_shapes(&accs));
                    reductions.push(Reduction {
                        carried,
                        results,
                        op,
                    });
                }
                SoacKind::Scan { op, neutral } | SoacKind::ScanRight { op, neutral } => {
                    let accs = self.accumulators(&leaf.pat, neutral, true, out);
                    let (carried, next) =
                        self.combine(&accs, op, &args, right_to_left, leaf.loc, &mut body);
                    let mut outputs = Vec::new();
                    for (p, r) in leaf.pat.iter().zip(next) {
                        elems.insert(p.id, r);
                        if !vertical.contains(&p.id) {
                            outputs.push(self.output(
                                p,
                                (&width, &index),
                                at,
                                r,
                                leaf.loc,
                                out,
                                &mut body,
                            ));
                        }
                    }
                    let op = self.operator(op, right_to_left, &self.acc_shapes(&accs));
                    scans.push(ScanState {
                        carried,
                        outputs,
                        op,
                    });
                }
                SoacKind::Scatter { .. } | SoacKind::Hist { .. } => {
                    let targets = self.random_access_targets(leaf, &scattered, out);
                    if matches!(leaf.soac.kind, SoacKind::Scatter { .. }) {
                        scattered.extend(leaf.pat.iter().map(|p| p.id));
                    }
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

    /// `i64` addition, the combiner of a kept-element count.
    pub(super) fn add_operator(&mut self) -> Operator {
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

    /// The shapes of accumulators, for their operator's parameters.
    pub(super) fn acc_shapes(&self, accs: &[(Var, Atom, Option<VarId>)]) -> Vec<Vec<Atom>> {
        accs.iter()
            .map(|(acc, _, _)| self.array_shape(acc.id))
            .collect()
    }

    /// The accumulators of a reduce or scan whose results bind `pat`, with
    /// their initial values: a scalar starts as its neutral element, an
    /// array in a buffer (allocated before the nest) holding a copy of it.
    pub(super) fn accumulators(
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
    pub(super) fn combine(
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
    pub(super) fn check_size(&mut self, size: Atom, loc: SrcLoc, out: &mut Block) {
        if !self.known_size_outside(size, &HashSet::new()) {
            out.push(Stmt::SizeCheck { size, loc });
        }
    }

    /// `size` is known to be at least 0: a constant, or the dimension of
    /// an array (so checked, or a parameter's) neither defined in `inside`
    /// nor allocated in a closed block (a nest's body that may not have
    /// run).
    fn known_size_outside(&self, size: Atom, inside: &HashSet<VarId>) -> bool {
        match size {
            Atom::Const(c) => c.as_i128().is_some_and(|n| n >= 0),
            Atom::Var(_) => self.shapes.iter().any(|(v, shape)| {
                !inside.contains(v) && !self.closed.contains(v) && shape.contains(&size)
            }),
        }
    }

    /// `check_size` for `iota n`, with Futhark's message: its `iota n` is
    /// the range `0..1..<n` (its prelude's definition), invalid when `n`
    /// is negative.
    pub(super) fn check_iota(&mut self, n: Atom, loc: SrcLoc, out: &mut Block) {
        let mut sizes = Block::new();
        self.check_size(n, loc, &mut sizes);
        if sizes.is_empty() {
            return;
        }
        let zero = Atom::Const(Const::I64(0));
        let cond = self.binop("valid", BinOp::Ge, n, zero, out);
        let form = crate::core::ir::range_form(0, true);
        let (one, form) = (Const::I64(1), Const::I64(form));
        out.push(Stmt::Assert {
            cond,
            report: crate::core::ir::AssertReport::Range([
                zero,
                Atom::Const(one),
                n,
                Atom::Const(form),
            ]),
            loc,
        });
    }

    /// Allocates the array bound by `p` before the nest over `index` and
    /// stores this iteration's element `value` into it at `at`; returns the
    /// array.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn output(
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
    pub(super) fn row_shape(
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
        crate::loopy::ir::block_vars(body, &mut uses, &mut defined);
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
            // So may a size from outside the body that only the body
            // checks (`replicate (k + 1)` with `k + 1` hoisted out).
            let from_body = matches!(dim, Atom::Var(v) if defined.contains(&v));
            let unchecked = !from_body && !self.known_size_outside(dim, &defined);
            if (from_body || unchecked) && matches!(copy, Atom::Var(c) if !defined.contains(&c)) {
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
        let peeled =
            crate::loopy::peel::first_iteration(body, index, &varying, &owned, &carried, self);
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
        // Without rows, sizes that arithmetic on sizes alone gives are
        // still row 0's (the interpreter's trial run finds them); others
        // are 0. A negative one gives no elements, as in the trial; with
        // rows, row 0's own check (`iota`'s, a slice's) then stops the
        // program, not the allocation.
        let (mut else_block, mut else_results) = (Vec::new(), vec![i64c(0); varying.len()]);
        if let Some((block, sizes)) = crate::loopy::peel::sizes_alone(&then_block, &firsts, self) {
            else_block = block;
            else_results = sizes
                .into_iter()
                .map(|size| self.binop("row_size", BinOp::Max, size, i64c(0), &mut else_block))
                .collect();
        }
        let mut then_block = then_block;
        let then_results = firsts
            .into_iter()
            .map(|size| self.binop("row_size", BinOp::Max, size, i64c(0), &mut then_block))
            .collect();
        out.push(Stmt::If {
            results,
            cond: has_rows,
            then_block,
            then_results,
            else_block,
            else_results,
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
    pub(super) fn invariant_copy(
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
    pub(super) fn read_args(
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
}
