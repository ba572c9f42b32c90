//! SOACs with nests of their own: `scanr`, `filter`, `partition`,
//! `scatter` and `hist`.

use super::*;

impl Lowerer {
    /// `scanr`, `filter`, `partition`, `scatter` and `hist`: one nest each.
    pub(super) fn special_soac(&mut self, origin: Origin, leaf: &SoacStm, out: &mut Block) {
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
                let op = self.operator(op, true, &self.acc_shapes(&accs));
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
                let targets = self.random_access_targets(leaf, &HashSet::new(), out);
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
    pub(super) fn random_access_targets(
        &mut self,
        leaf: &SoacStm,
        chained: &HashSet<VarId>,
        out: &mut Block,
    ) -> Vec<VarId> {
        let (dest, fill) = match &leaf.soac.kind {
            SoacKind::Scatter { dest, .. } => (Some(dest), None),
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
            // A destination that an earlier scatter of this loop writes
            // (`fusion::graph`'s scatter chains) is that scatter's buffer.
            if let Some(d) = dest.and_then(|d| d.get(j)).filter(|d| chained.contains(d)) {
                let buf = self.var(*d);
                self.subst.insert(p.id, Atom::Var(buf));
                targets.push(buf);
                continue;
            }
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
    pub(super) fn random_access_update(
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
                for d in targets {
                    if !nest.scatters.contains(&d) {
                        nest.scatters.push(d);
                    }
                }
                then_block
            }
            SoacKind::Hist { op, neutral, .. } => {
                let rows: Vec<Vec<Atom>> = targets
                    .iter()
                    .map(|b| self.array_shape(*b).get(1..).unwrap_or_default().to_vec())
                    .collect();
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
                    op: self.operator(op, false, &rows),
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
