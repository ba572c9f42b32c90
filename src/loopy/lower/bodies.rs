//! Functions, bodies, `if`s, sequential loops and the core statements
//! outside SOACs.

use super::*;

impl Lowerer {
    // ---- functions and bodies ---------------------------------------------

    pub(super) fn function(&mut self, f: &FusedFunction) -> Function {
        self.nested = f.nested.clone();
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
            sequential: std::mem::take(&mut self.sequential),
            overwritten: Vec::new(),
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

    /// A body inside a SOAC's function: as the fusion stage clustered it
    /// (`FusedFunction::nested`), else statement by statement.
    pub(super) fn core_body(&mut self, body: &core::Body, out: &mut Block) -> Vec<Atom> {
        let first_soac = body.stms.iter().find_map(|s| match &s.exp {
            Exp::Soac(soac) => Some(soac.label),
            _ => None,
        });
        if let Some(fused) = first_soac.and_then(|label| self.nested.get(&label).cloned()) {
            return self.fused_body(&fused, out);
        }
        for stm in &body.stms {
            self.stm(stm, out);
        }
        body.result.iter().map(|a| self.atom(a)).collect()
    }

    pub(super) fn branch(&mut self, branch: Branch, out: &mut Block) -> Vec<Atom> {
        match branch {
            Branch::Core(b) => self.core_body(b, out),
            Branch::Fused(b) => self.fused_body(b, out),
        }
    }

    /// An `if`; each array result also returns its dimensions, so the shape
    /// of the result is known after the `if`. An array result is owned when
    /// either branch allocates it or returns a view of an array it
    /// allocates (which it frees: the view is copied out); the other branch
    /// then returns a copy.
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
                arms.iter().any(|(_, res, frame)| {
                    res.get(j)
                        .is_some_and(|a| self.owned_by(frame, a) || self.views_into(frame, a))
                })
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
                let then_dim = then_shape
                    .as_ref()
                    .and_then(|s| s.get(k))
                    .copied()
                    .unwrap_or(missing);
                let else_dim = else_shape
                    .as_ref()
                    .and_then(|s| s.get(k))
                    .copied()
                    .unwrap_or(missing);
                then_results.push(then_dim);
                else_results.push(else_dim);
                // A size both arms share (defined outside them) is the
                // result's, known without running a row: a `map` over zero
                // rows then still allocates rows of that size.
                if then_dim == else_dim && then_dim != missing {
                    dims.push(then_dim);
                } else {
                    dims.push(Atom::Var(d.id));
                }
                results.push(d);
            }
            self.shapes.insert(results[j].id, dims);
            if own[j] {
                self.adopt(results[j].id);
            } else {
                // An alias of either arm's array (a view of it, perhaps).
                let arms = [then_results.get(j), else_results.get(j)];
                let bases = arms
                    .into_iter()
                    .filter_map(|a| match a {
                        Some(Atom::Var(v)) => Some(*v),
                        _ => None,
                    })
                    .collect();
                self.view_of.insert(results[j].id, bases);
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

    pub(super) fn stm(&mut self, stm: &core::Stm, out: &mut Block) {
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
            Exp::Index {
                array,
                indices,
                checked,
            } => {
                let Some(p) = first else { return };
                let check = checked.then_some(loc);
                let array = self.var(*array);
                let index: Vec<Atom> = indices.iter().map(|a| self.atom(a)).collect();
                let shape = self.array_shape(array);
                let var = self.bind(p);
                if index.len() >= shape.len() {
                    out.push(Stmt::Read {
                        var,
                        array,
                        index,
                        check,
                    });
                } else {
                    self.shapes.insert(var.id, shape[index.len()..].to_vec());
                    out.push(Stmt::Row {
                        var,
                        array,
                        index,
                        check,
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
                self.check_iota(n, loc, out);
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
            Exp::Assert(c, report) => {
                let mut report = report.clone();
                for a in report.atoms_mut() {
                    *a = self.atom(a);
                }
                out.push(Stmt::Assert {
                    cond: self.atom(c),
                    report,
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
                let (var, src) = (self.var(p.id), self.var(*array));
                if var != src && self.shapes.contains_key(&var) {
                    let dim = |dim| Lin::Dim {
                        dim,
                        start: i64c(0),
                        stride: i64c(1),
                    };
                    if self.array_shape(src).len() == 2 {
                        let idx = [dim(1), dim(0)];
                        let depth = Some(self.lambda_depth);
                        self.generated
                            .insert(var, Generated::View { src, idx, depth });
                    }
                }
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
                let Some(&n) = self.array_shape(array).first() else {
                    return;
                };
                let last = self.binop("last", BinOp::Sub, n, i64c(1), out);
                self.permute(p, array, Origin::Reverse, out, |this, i, _, body| {
                    this.binop("j", BinOp::Sub, last, i, body)
                });
                let index = IndexFn::Reverse { last };
                self.permuted(p, array, index);
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
                    this.rotated(i, shift, safe, body)
                });
                let index = IndexFn::Rotate {
                    shift,
                    modulus: safe,
                };
                self.permuted(p, array, index);
            }
            Exp::Concat(arrays) => {
                let Some(p) = first else { return };
                self.concat(p, arrays, loc, out);
            }
        }
    }

    /// Records that `p`, just lowered as a permuted copy of `src`, can be
    /// read through `index` instead (see `Generated::Permuted`).
    pub(super) fn permuted(&mut self, p: &Var, src: VarId, index: IndexFn) {
        let var = self.var(p.id);
        if var != src && self.shapes.contains_key(&var) {
            self.generated
                .insert(var, Generated::Permuted { src, index });
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
    pub(super) fn view(
        &mut self,
        p: &Var,
        array: VarId,
        offset: Atom,
        shape: Vec<Atom>,
        out: &mut Block,
    ) {
        let var = self.bind(p);
        self.shapes.insert(var.id, shape.clone());
        self.view_of.insert(var.id, vec![array]);
        out.push(Stmt::View {
            var,
            array,
            offset,
            shape,
        });
    }
}
