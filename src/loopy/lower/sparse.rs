//! A filter fused with its family: one nest over the filter's input, the
//! members under the predicate, compactions of what is kept.

use super::*;

impl Lowerer {
    /// A filter fused with its family (`fusion::graph::SparseGroup`): one
    /// loop over the filter's input; the members run under the predicate,
    /// a nested filter's members under both. A reduction's per-element step
    /// is `if p x then op acc x else acc` and its combiner the plain
    /// operator; a nested filter whose outputs are needed compacts under
    /// all the predicates at once; a fused-away filter's kept elements are
    /// counted, for `size` statements on its outputs.
    pub(super) fn sparse_cluster(
        &mut self,
        origin: Origin,
        leaves: &[&SoacStm],
        vertical: &HashSet<VarId>,
        out: &mut Block,
    ) {
        let width = self.atom(&leaves[0].soac.width);
        let index = self.fresh("i", I64);
        let i = Atom::Var(index.id);
        self.frames.push(Vec::new());
        let mut body = Vec::new();
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
        // Values leaving the outermost guards are the accumulators' next values.
        let mut next_of: HashMap<VarId, Atom> = HashMap::new();
        // Elements already read from memory this iteration (loopy ids).
        let mut reads: HashMap<VarId, Atom> = HashMap::new();
        // Producers first: the maps outside any family run on every
        // element, each filter they feed guards its family.
        for (k, leaf) in leaves.iter().enumerate() {
            if st.done.contains(&k) {
                continue;
            }
            st.done.insert(k);
            self.assert_width(&width, &self.atom(&leaf.soac.width), leaf.loc, out);
            let mut args = Vec::new();
            for a in &leaf.soac.args {
                if let Some(e) = st.elems.get(a) {
                    args.push(*e);
                    continue;
                }
                let array = self.var(*a);
                if let Some(e) = reads.get(&array) {
                    args.push(*e);
                    continue;
                }
                let e = self.read_args(&leaf.soac, &[*a], &width, i, leaf.loc, out, &mut body)[0];
                reads.insert(array, e);
                args.push(e);
            }
            match &leaf.soac.kind {
                SoacKind::Map(lam) => {
                    let results = self.inline(lam, &args, &mut body);
                    for (p, r) in leaf.pat.iter().zip(results) {
                        st.elems.insert(p.id, r);
                        if vertical.contains(&p.id) {
                            self.row_shape((&width, &index), &r, leaf.loc, false, out, &mut body);
                        } else {
                            let at = (&width, &index);
                            self.output(p, at, i, r, leaf.loc, out, &mut body);
                        }
                    }
                }
                SoacKind::Filter { .. } => {
                    let routed = self.sparse_guard(leaf, args, leaves, &mut st, out, &mut body);
                    next_of.extend(routed);
                }
                // The fusion stage puts nothing else beside a filter.
                _ => {}
            }
        }
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
        // Arrays the members allocate under the predicate are freed there:
        // those the block's frame gains while `inner` is built (`alloc_outside`
        // puts the family's buffers in the frame around the nest, so a frame
        // of the guard's own would misplace them).
        let mark = self.frames.last().map_or(0, Vec::len);
        // `(id, value inside, value outside when the predicate fails)`.
        let mut routed: Vec<(VarId, Atom, Atom)> = Vec::new();
        let mut family: Vec<VarId> = Vec::new();
        for (p, e) in filter.pat.iter().zip(&args) {
            st.elems.insert(p.id, *e);
            family.push(p.id);
        }
        let manifest = filter.pat.iter().any(|p| !st.vertical.contains(&p.id));
        if manifest {
            let pat = &filter.pat;
            self.sparse_compaction(pat, &args, flag, st, out, &mut inner, &mut routed);
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
                    for (p, r) in leaf.pat.iter().zip(&results) {
                        st.elems.insert(p.id, *r);
                        family.push(p.id);
                    }
                    // Outputs needed outside (a result): compacted like the
                    // kept elements, under every enclosing predicate.
                    if leaf.pat.iter().any(|p| !st.vertical.contains(&p.id)) {
                        let pat = &leaf.pat;
                        self.sparse_compaction(
                            pat,
                            &results,
                            flag,
                            st,
                            out,
                            &mut inner,
                            &mut routed,
                        );
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
                    let op = self.operator(op, false, &self.acc_shapes(&accs));
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
        let frame: Vec<VarId> = match self.frames.last_mut() {
            Some(block) if block.len() > mark => block
                .split_off(mark)
                .into_iter()
                .filter(|v| self.owned.contains(v))
                .collect(),
            _ => Vec::new(),
        };
        let leaving: HashSet<VarId> = routed
            .iter()
            .filter_map(|(_, value, _)| match value {
                Atom::Var(v) => Some(*v),
                Atom::Const(_) => None,
            })
            .collect();
        self.free_frame(&frame, &leaving, &mut inner);
        // An array handed out of the guard is the enclosing block's to free.
        if let Some(enclosing) = self.frames.last_mut() {
            enclosing.extend(frame.into_iter().filter(|v| leaving.contains(v)));
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

    /// The outputs `pat` (with this iteration's values `args`) of a fused
    /// filter, or of a map of its family, that are still needed: stored at
    /// the running count when every enclosing predicate holds.
    #[allow(clippy::too_many_arguments)]
    fn sparse_compaction(
        &mut self,
        pat: &[Var],
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
        for (p, e) in pat.iter().zip(args) {
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
