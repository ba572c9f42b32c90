//! Statements: blocks, memory, checks, `if`s and sequential loops; a loop
//! nest goes to the backend.

use super::*;

impl<'ctx> Gen<'ctx, '_> {
    pub(crate) fn block(&mut self, fr: &mut Frame<'ctx>, block: &Block) -> Res<()> {
        let mut k = 0;
        while k < block.len() {
            match self.atomic_rmw(fr, &block[k..])? {
                0 => {
                    // GPU histograms' bins are accessed under a lock per
                    // bin; a GPU scan's inputs come from staged tiles; a
                    // row group's shared arrays are written by its first
                    // thread.
                    if !self.locked_access(fr, &block[k])?
                        && !self.staged_read(fr, &block[k])?
                        && !self.group_write(fr, &block[k])?
                    {
                        self.stmt(fr, &block[k])?;
                    }
                    k += 1;
                }
                covered => k += covered,
            }
        }
        Ok(())
    }

    pub(crate) fn stmt(&mut self, fr: &mut Frame<'ctx>, stmt: &Stmt) -> Res<()> {
        match stmt {
            Stmt::Let { var, .. } if self.mode.facts.contains_key(&var.id) => {
                let known = self.mode.facts[&var.id];
                let v = self.ctx.bool_type().const_int(u64::from(known), false);
                fr.vals
                    .insert(var.id, Val::Scalar(v.into(), ScalarType::Bool));
            }
            Stmt::Let { var, exp, loc } => {
                let (v, t) = match self.nan_free_extremum(fr, var.id, exp)? {
                    Some(vt) => vt,
                    None => self.exp(fr, exp, *loc)?,
                };
                self.reassociate_reduction_step(var.id, exp, v)?;
                if self.fast_math {
                    allow_float_rewrites(v)?;
                } else if !self.strict_fp && !self.mode.carried_sums.contains(&var.id) {
                    allow_contraction(v)?;
                }
                fr.vals.insert(var.id, Val::Scalar(v, t));
            }
            Stmt::Alloc { var, shape, space } => {
                let dims = shape
                    .iter()
                    .map(|d| self.int(fr, d))
                    .collect::<Res<Vec<_>>>()?;
                let elem = var.ty.elem();
                let count = self.product(&dims)?;
                let size = self.const_i64(elem.bytes() as i64);
                let bytes = self.builder.build_int_mul(count, size, "")?;
                let ptr = match self.thread_buffers.get(&var.id) {
                    Some(buffer) => *buffer,
                    None => self.alloc_bytes(*space, bytes)?,
                };
                fr.vals.insert(
                    var.id,
                    Val::Array {
                        ptr,
                        elem,
                        shape: dims,
                    },
                );
            }
            Stmt::Read {
                var, array, index, ..
            } if self.mode.atomic_bins.contains(array) => self.cas_read(fr, var, *array, index)?,
            Stmt::Write { array, value, .. } if self.mode.atomic_bins.contains(array) => {
                self.cas_write(fr, value)?
            }
            Stmt::Read {
                var,
                array,
                index,
                check,
            } => {
                let (ptr, elem, shape) = self.array(fr, *array)?;
                let check = check.filter(|_| !self.mode.unchecked.contains(&var.id));
                let index = self.checked_index(fr, &shape, index, check)?;
                let p = self.offset_ptr(ptr, elem, &shape, &index)?;
                let v = if self.mode.nest_depth == 0 && !self.host_arrays.contains(array) {
                    let backend = self.backend;
                    backend.host_load(self, fr, self.mem_type(elem), p)?
                } else {
                    self.builder.build_load(self.mem_type(elem), p, "")?
                };
                self.count_one(Counter::Reads)?;
                let v = self.load_from_mem(v, elem)?;
                fr.vals.insert(var.id, Val::Scalar(v, elem));
            }
            Stmt::Row {
                var,
                array,
                index,
                check,
            } => {
                let (ptr, elem, shape) = self.array(fr, *array)?;
                let idx = self.checked_index(fr, &shape, index, *check)?;
                let p = self.offset_ptr(ptr, elem, &shape, &idx)?;
                let shape = shape.get(index.len()..).unwrap_or_default().to_vec();
                fr.vals.insert(
                    var.id,
                    Val::Array {
                        ptr: p,
                        elem,
                        shape,
                    },
                );
            }
            Stmt::Write {
                array,
                index,
                value,
            } => {
                let (ptr, elem, shape) = self.array(fr, *array)?;
                let index = self.checked_index(fr, &shape, index, None)?;
                let p = self.offset_ptr(ptr, elem, &shape, &index)?;
                let (v, t) = self.scalar(fr, value)?;
                let v = self.store_to_mem(v, t)?;
                if self.mode.nest_depth == 0 && !self.host_arrays.contains(array) {
                    let backend = self.backend;
                    backend.host_store(self, fr, p, v)?;
                } else {
                    self.builder.build_store(p, v)?;
                }
                self.count_one(Counter::Writes)?;
            }
            Stmt::Copy {
                array,
                index,
                src: src_array,
            } => {
                let (ptr, elem, shape) = self.array(fr, *array)?;
                let index = self.checked_index(fr, &shape, index, None)?;
                let dst = self.offset_ptr(ptr, elem, &shape, &index)?;
                let (src, _, src_shape) = self.array(fr, *src_array)?;
                let count = self.product(&src_shape)?;
                let size = self.const_i64(elem.bytes() as i64);
                let bytes = self.builder.build_int_mul(count, size, "")?;
                let space = |a: &VarId| match self.host_arrays.contains(a) {
                    true => MemSpace::Host,
                    false => MemSpace::Device,
                };
                let spaces = [space(array), space(src_array)];
                if self.mode.nest_depth == 0 && spaces != [MemSpace::Host; 2] {
                    let backend = self.backend;
                    backend.host_copy(self, dst, src, bytes, spaces)?;
                } else {
                    self.builder.build_memmove(dst, 1, src, 1, bytes)?;
                }
                self.count(Counter::Reads, count)?;
                self.count(Counter::Writes, count)?;
            }
            Stmt::If {
                results,
                cond,
                then_block,
                then_results,
                else_block,
                else_results,
            } => {
                let cond = self.int(fr, cond)?;
                if let Some(known) = cond.get_zero_extended_constant() {
                    // Known (a peeled loop's fact): only the branch taken.
                    let (block, res) = if known != 0 {
                        (then_block, then_results)
                    } else {
                        (else_block, else_results)
                    };
                    self.block(fr, block)?;
                    for (var, a) in results.iter().zip(res) {
                        let v = self.val(fr, a)?;
                        fr.vals.insert(var.id, v);
                    }
                    return Ok(());
                }
                if let ([write], true, true) = (
                    then_block.as_slice(),
                    else_block.is_empty(),
                    results.is_empty(),
                ) {
                    let backend = self.backend;
                    if backend.guarded_write(self, fr, cond, write)? {
                        return Ok(());
                    }
                }
                let then_bb = self.ctx.append_basic_block(fr.func, "then");
                let else_bb = self.ctx.append_basic_block(fr.func, "else");
                let merge = self.ctx.append_basic_block(fr.func, "endif");
                self.builder
                    .build_conditional_branch(cond, then_bb, else_bb)?;
                let mut arms = Vec::new();
                for (bb, block, res) in [
                    (then_bb, then_block, then_results),
                    (else_bb, else_block, else_results),
                ] {
                    self.builder.position_at_end(bb);
                    self.block(fr, block)?;
                    let vals = res
                        .iter()
                        .map(|a| self.val(fr, a))
                        .collect::<Res<Vec<_>>>()?;
                    let end = self.current_block()?;
                    self.builder.build_unconditional_branch(merge)?;
                    arms.push((end, vals));
                }
                self.builder.position_at_end(merge);
                for (j, var) in results.iter().enumerate() {
                    let (Some(a), Some(b)) = (arms[0].1.get(j), arms[1].1.get(j)) else {
                        return err("if without enough results");
                    };
                    let merged = self.phi(a, arms[0].0, b, arms[1].0)?;
                    fr.vals.insert(var.id, merged);
                }
            }
            Stmt::AssertEq {
                expected,
                found,
                loc,
            } => {
                let e = self.int(fr, expected)?;
                let f = self.int(fr, found)?;
                let bad = self.builder.build_int_compare(IntPredicate::NE, e, f, "")?;
                self.trap_if(fr, bad, Trap::SizeMismatch, &[e, f], *loc)?;
            }
            Stmt::Assert { cond, report, loc } => {
                let c = self.int(fr, cond)?;
                let bad = self.builder.build_not(c, "")?;
                let mut values = Vec::new();
                for a in report.iter() {
                    values.push(self.int(fr, a)?);
                }
                let trap = match report {
                    crate::core::ir::AssertReport::Plain => Trap::Assert,
                    crate::core::ir::AssertReport::Condition(text) => {
                        Trap::AssertCondition(self.condition_number(text))
                    }
                    crate::core::ir::AssertReport::NegativeExponent => Trap::NegativeExponent,
                    crate::core::ir::AssertReport::Range(_) => Trap::Range,
                    crate::core::ir::AssertReport::Slice(_) => Trap::Slice,
                };
                self.trap_if(fr, bad, trap, &values, *loc)?;
            }
            Stmt::IndexCheck { index, len, loc } => {
                let (i, n) = (self.int(fr, index)?, self.int(fr, len)?);
                // Unsigned: a negative index is out of range too.
                let bad = self
                    .builder
                    .build_int_compare(IntPredicate::UGE, i, n, "")?;
                self.trap_if(fr, bad, Trap::Bounds, &[i, n], *loc)?;
            }
            Stmt::SizeCheck { size, loc } => {
                let n = self.int(fr, size)?;
                let zero = self.const_i64(0);
                let bad = self
                    .builder
                    .build_int_compare(IntPredicate::SLT, n, zero, "")?;
                self.trap_if(fr, bad, Trap::NegativeSize, &[n], *loc)?;
            }
            Stmt::BoundsCheck { array, index, loc } => {
                let (_, _, shape) = self.array(fr, *array)?;
                self.checked_index(fr, &shape, index, Some(*loc))?;
            }
            Stmt::SliceCheck {
                start,
                end,
                stride,
                count,
                len,
                loc,
            } => self.slice_check(fr, [start, end, stride, count, len], *loc)?,
            Stmt::View {
                var,
                array,
                offset,
                shape,
            } => {
                let (ptr, elem, _) = self.array(fr, *array)?;
                let offset = self.int(fr, offset)?;
                // Safety: the lowering keeps views inside their array.
                let p = unsafe {
                    self.builder
                        .build_in_bounds_gep(self.mem_type(elem), ptr, &[offset], "")?
                };
                let shape = shape
                    .iter()
                    .map(|d| self.int(fr, d))
                    .collect::<Res<Vec<_>>>()?;
                fr.vals.insert(
                    var.id,
                    Val::Array {
                        ptr: p,
                        elem,
                        shape,
                    },
                );
            }
            Stmt::Free(array) if self.thread_buffers.contains_key(array) => {}
            Stmt::Free(array) if self.host_arrays.contains(array) => {
                // Host memory whatever the backend's own (`loopy::memory`).
                let (ptr, _, _) = self.array(fr, *array)?;
                let f = self.runtime(crate::codegen::runtime::RuntimeFn::Free);
                self.builder.build_call(f, &[ptr.into()], "")?;
            }
            Stmt::Free(array) => {
                let (ptr, _, _) = self.array(fr, *array)?;
                self.free(ptr)?;
            }
            Stmt::InPlace { var, array } => {
                // The same memory under a new name: no code.
                let (ptr, elem, shape) = self.array(fr, *array)?;
                fr.vals.insert(var.id, Val::Array { ptr, elem, shape });
            }
            Stmt::SeqLoop(lp) => self.seq_loop(fr, lp)?,
            Stmt::Loop(nest) => self.nest(fr, nest)?,
        }
        Ok(())
    }

    /// Futhark's slice rule (see `Stmt::SliceCheck`).
    fn slice_check(&mut self, fr: &Frame<'ctx>, atoms: [&Atom; 5], loc: SrcLoc) -> Res<()> {
        let [start, end, stride, count, len] = atoms.map(|a| self.int(fr, a));
        let (start, end, stride, count, len) = (start?, end?, stride?, count?, len?);
        let b = &self.builder;
        let zero = self.const_i64(0);
        let minus_one = self.const_i64(-1);
        let cmp = |p, x, y| b.build_int_compare(p, x, y, "");
        let nonzero = cmp(IntPredicate::NE, stride, zero)?;
        let empty = cmp(IntPredicate::EQ, count, zero)?;
        let backwards = cmp(IntPredicate::SLT, stride, zero)?;
        let one = self.const_i64(1);
        let m = b.build_int_sub(count, one, "")?;
        let steps = b.build_int_mul(m, stride, "")?;
        let last = b.build_int_add(start, steps, "")?;
        let last_lo = cmp(IntPredicate::SLE, zero, last)?;
        let last_hi = cmp(IntPredicate::SLT, last, len)?;
        let last_ok = b.build_and(last_lo, last_hi, "")?;
        let f1 = cmp(IntPredicate::SLE, zero, start)?;
        let f2 = cmp(IntPredicate::SLE, start, end)?;
        let fwd = b.build_and(b.build_and(f1, f2, "")?, last_ok, "")?;
        let b1 = cmp(IntPredicate::SLE, minus_one, end)?;
        let b2 = cmp(IntPredicate::SLE, end, start)?;
        // Backwards, the first element is the largest index.
        let b3 = cmp(IntPredicate::SLT, start, len)?;
        let bwd = b.build_and(b.build_and(b1, b2, "")?, last_ok, "")?;
        let bwd = b.build_and(bwd, b3, "")?;
        let dir_ok = b.build_select(backwards, bwd, fwd, "")?.into_int_value();
        let fine = b.build_or(empty, dir_ok, "")?;
        let ok = b.build_and(nonzero, fine, "")?;
        let bad = b.build_not(ok, "")?;
        self.trap_if(fr, bad, Trap::Slice, &[start, end, stride, len], loc)
    }

    fn phi(
        &self,
        a: &Val<'ctx>,
        a_bb: BasicBlock<'ctx>,
        b: &Val<'ctx>,
        b_bb: BasicBlock<'ctx>,
    ) -> Res<Val<'ctx>> {
        let one = |x: BasicValueEnum<'ctx>, y: BasicValueEnum<'ctx>| -> Res<BasicValueEnum<'ctx>> {
            let phi = self.builder.build_phi(x.get_type(), "")?;
            phi.add_incoming(&[(&x, a_bb), (&y, b_bb)]);
            Ok(phi.as_basic_value())
        };
        match (a, b) {
            (Val::Scalar(x, t), Val::Scalar(y, _)) => Ok(Val::Scalar(one(*x, *y)?, *t)),
            (
                Val::Array {
                    ptr: p,
                    elem,
                    shape: s,
                },
                Val::Array {
                    ptr: q, shape: r, ..
                },
            ) => {
                let ptr = one((*p).into(), (*q).into())?.into_pointer_value();
                let shape = s
                    .iter()
                    .zip(r)
                    .map(|(x, y)| Ok(one((*x).into(), (*y).into())?.into_int_value()))
                    .collect::<Res<Vec<_>>>()?;
                Ok(Val::Array {
                    ptr,
                    elem: *elem,
                    shape,
                })
            }
            _ => err("if branches disagree on a result's kind"),
        }
    }

    /// A sequential loop in the current function, versioned when one test
    /// before it proves reads of its body in range
    /// (`loopy::chunk::seq_in_range_reads`): then a copy without their
    /// checks runs, otherwise the checked loop meets the first bad index
    /// as before. A CSR row's `vals[start + k]` and `cols[start + k]`.
    pub(crate) fn seq_loop(&mut self, fr: &mut Frame<'ctx>, lp: &SeqLoop) -> Res<()> {
        let proven = crate::loopy::chunk::seq_in_range_reads(lp);
        let SeqForm::For { bound, .. } = &lp.form else {
            return self.seq_loop_once(fr, lp);
        };
        if proven.is_empty() {
            return self.seq_loop_once(fr, lp);
        }
        let bound = self.int(fr, bound)?;
        let safe = self.seq_reads_in_range(fr, &proven, bound)?;
        let fast = self.ctx.append_basic_block(fr.func, "seq.unchecked");
        let slow = self.ctx.append_basic_block(fr.func, "seq.checked");
        let join = self.ctx.append_basic_block(fr.func, "seq.join");
        self.builder.build_conditional_branch(safe, fast, slow)?;
        let mut ends = Vec::new();
        for (block, unchecked) in [(fast, true), (slow, false)] {
            self.builder.position_at_end(block);
            let mut mode = self.mode.clone();
            if unchecked {
                mode.unchecked.extend(proven.iter().map(|r| r.var));
            }
            self.with_mode(mode, |g| g.seq_loop_once(fr, lp))?;
            let mut fields = Vec::new();
            for r in &lp.results {
                fields.push(self.fields(&self.val(fr, &Atom::Var(r.var.id))?));
            }
            ends.push((self.current_block()?, fields));
            self.builder.build_unconditional_branch(join)?;
        }
        self.builder.position_at_end(join);
        for (k, r) in lp.results.iter().enumerate() {
            let mut merged = Vec::new();
            for f in 0..ends[0].1[k].len() {
                let ty = ends[0].1[k][f].get_type();
                let phi = self.builder.build_phi(ty, "")?;
                for (block, fields) in &ends {
                    phi.add_incoming(&[(&fields[k][f], *block)]);
                }
                merged.push(phi.as_basic_value());
            }
            let val = self.val_of_fields(r.var.ty, &merged)?;
            bind_shape(fr, &val, &r.shape);
            fr.vals.insert(r.var.id, val);
        }
        Ok(())
    }

    /// Whether every read of `reads` is in range for all iterations of a
    /// loop with `bound` iterations (true when it has none).
    fn seq_reads_in_range(
        &self,
        fr: &Frame<'ctx>,
        reads: &[crate::loopy::chunk::SeqRead],
        bound: IntValue<'ctx>,
    ) -> Res<IntValue<'ctx>> {
        use crate::loopy::chunk::SeqDim;
        let b = &self.builder;
        let zero = self.const_i64(0);
        let mut ok = b.build_int_compare(IntPredicate::SLE, bound, zero, "")?;
        let mut all = self.ctx.bool_type().const_all_ones();
        // Offsets `c` with the lengths of every dimension they index: one
        // test per offset against the shortest (a CSR row's `vals` and
        // `cols` share `start`).
        let mut offsets: Vec<(&Atom, IntValue<'ctx>)> = Vec::new();
        for read in reads {
            let (_, _, shape) = self.array(fr, read.array)?;
            for (dim, len) in read.dims.iter().zip(&shape) {
                match dim {
                    SeqDim::Offset(c) => match offsets.iter_mut().find(|(o, _)| *o == c) {
                        Some((_, shortest)) => {
                            let less =
                                b.build_int_compare(IntPredicate::SLT, *len, *shortest, "")?;
                            *shortest = b.build_select(less, *len, *shortest, "")?.into_int_value();
                        }
                        None => offsets.push((c, *len)),
                    },
                    SeqDim::Invariant(a) => {
                        let v = self.index(fr, a)?;
                        let in_range = b.build_int_compare(IntPredicate::ULT, v, *len, "")?;
                        all = b.build_and(all, in_range, "")?;
                    }
                }
            }
        }
        // c >= 0 and bound - 1 < len - c (no overflow); with bound >= 1 the
        // latter gives c < len, and bound <= 0 passes anyway.
        let last = b.build_int_sub(bound, self.const_i64(1), "")?;
        for (c, len) in offsets {
            let c = self.int(fr, c)?;
            let lo = b.build_int_compare(IntPredicate::SGE, c, zero, "")?;
            let room = b.build_int_sub(len, c, "")?;
            let fits = b.build_int_compare(IntPredicate::SLT, last, room, "")?;
            all = b.build_and(all, b.build_and(lo, fits, "")?, "")?;
        }
        ok = b.build_or(ok, all, "")?;
        Ok(ok)
    }

    /// A sequential loop in the current function: the parameters live in
    /// stack slots (promoted to registers by LLVM), one per field.
    fn seq_loop_once(&mut self, fr: &mut Frame<'ctx>, lp: &SeqLoop) -> Res<()> {
        let mut slots = Vec::new();
        for p in &lp.params {
            let init = self.val(fr, &p.init)?;
            let mut ps = Vec::new();
            for v in self.fields(&init) {
                let slot = self.entry_alloca(fr.func, v.get_type())?;
                self.builder.build_store(slot, v)?;
                ps.push((slot, v.get_type()));
            }
            slots.push(ps);
        }
        let counter = match &lp.form {
            SeqForm::For { bound, .. } => {
                let (b, t) = self.scalar(fr, bound)?;
                let slot = self.entry_alloca(fr.func, b.get_type())?;
                self.builder
                    .build_store(slot, b.get_type().into_int_type().const_zero())?;
                Some((slot, b.into_int_value(), t))
            }
            SeqForm::While { .. } => None,
        };
        let header = self.ctx.append_basic_block(fr.func, "seqloop");
        let body = self.ctx.append_basic_block(fr.func, "seqbody");
        let exit = self.ctx.append_basic_block(fr.func, "seqexit");
        self.builder.build_unconditional_branch(header)?;
        self.builder.position_at_end(header);
        let mut current = Vec::new();
        for (p, ps) in lp.params.iter().zip(&slots) {
            let mut loaded = Vec::new();
            for (slot, ty) in ps {
                loaded.push(self.builder.build_load(*ty, *slot, "")?);
            }
            let val = self.val_of_fields(p.var.ty, &loaded)?;
            bind_shape(fr, &val, &p.shape);
            fr.vals.insert(p.var.id, val.clone());
            current.push(val);
        }
        let more = match (&lp.form, counter) {
            (SeqForm::For { index, .. }, Some((slot, bound, t))) => {
                let i = self
                    .builder
                    .build_load(bound.get_type(), slot, "")?
                    .into_int_value();
                fr.vals.insert(index.id, Val::Scalar(i.into(), t));
                let pred = if t.is_signed() {
                    IntPredicate::SLT
                } else {
                    IntPredicate::ULT
                };
                self.builder.build_int_compare(pred, i, bound, "")?
            }
            (SeqForm::While { cond, result }, _) => {
                self.block(fr, cond)?;
                self.int(fr, result)?
            }
            _ => return err("a `for` loop without a counter"),
        };
        self.builder.build_conditional_branch(more, body, exit)?;
        self.builder.position_at_end(body);
        let mut mode = self.mode.clone();
        mode.carried_sums.extend(carried_sums(lp));
        self.with_mode(mode, |g| g.block(fr, &lp.body))?;
        let backend = self.backend;
        backend.seq_iteration_end(self, fr, lp)?;
        let mut nexts = Vec::new();
        for a in &lp.next {
            nexts.push(self.fields(&self.val(fr, a)?));
        }
        for (vals, ps) in nexts.iter().zip(&slots) {
            for (v, (slot, _)) in vals.iter().zip(ps) {
                self.builder.build_store(*slot, *v)?;
            }
        }
        if let (SeqForm::For { index, .. }, Some((slot, bound, _))) = (&lp.form, counter) {
            let i = self.int(fr, &Atom::Var(index.id))?;
            let one = bound.get_type().const_int(1, false);
            let n = self.builder.build_int_add(i, one, "")?;
            self.builder.build_store(slot, n)?;
        }
        self.builder.build_unconditional_branch(header)?;
        // After the loop the parameters' values from the last test are final.
        self.builder.position_at_end(exit);
        for (r, val) in lp.results.iter().zip(current) {
            bind_shape(fr, &val, &r.shape);
            fr.vals.insert(r.var.id, val);
        }
        Ok(())
    }
}
