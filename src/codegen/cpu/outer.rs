//! Outer-product reduce nests as vector code: in, a reduce nest inside a
//! loop function (the kernel `loopy::outer` makes) whose every sum is
//! `acc + x_v[k] * p[k, u]`, `x_v` one of `R` rows and `p` a row-major
//! array of `L` columns; out, one loop over `k` keeping per row a vector of
//! its `L` sums, which loads `p[k, 0..L]` once and broadcasts each
//! `x_v[k]` (`R` vectors of `L` lanes, split by LLVM into registers of the
//! target's width; `L` a power of two, which LLVM splits without
//! remainder).
//!
//! LLVM's loop vectoriser would vectorise over `k` instead, `R * L` sums
//! across the lanes of one register each; the sums here run over `k` in
//! order, as the nest's sequential loop does, with the multiply and add
//! contracted into fused multiply-adds unless `--strict-fp`.

use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::core::ir::{Atom, BinOp, Type, VarId};
use crate::loopy::ir::{LoopNest, Parallelism, ScalarExp, Stmt};
use crate::types::{Const, ScalarType};
use inkwell::values::{BasicValue, BasicValueEnum, VectorValue};
use std::collections::HashMap;

/// A reduce nest of outer products: per row, its array and its sums by
/// column (indices into the nest's reductions).
pub(super) struct OuterKernel {
    rows: Vec<(VarId, Vec<usize>)>,
    panel: VarId,
    elem: ScalarType,
}

/// The outer-product kernel `nest` is, if it is one.
pub(super) fn outer_kernel(nest: &LoopNest) -> Option<OuterKernel> {
    if nest.par != Parallelism::Reduce
        || !nest.scans.is_empty()
        || !nest.compactions.is_empty()
        || !nest.hists.is_empty()
        || !nest.scatters.is_empty()
        || nest.reductions.iter().any(|r| r.carried.len() != 1)
    {
        return None;
    }
    let k = Atom::Var(nest.index.id);
    // What the body defines: row reads (array), panel reads (array, column),
    // products and sums (operands).
    let mut row_reads: HashMap<VarId, VarId> = HashMap::new();
    let mut panel_reads: HashMap<VarId, (VarId, usize)> = HashMap::new();
    let mut products: HashMap<VarId, (Atom, Atom)> = HashMap::new();
    let mut sums: HashMap<VarId, (Atom, Atom)> = HashMap::new();
    let mut elem = None;
    for stmt in &nest.body {
        match stmt {
            Stmt::Read {
                var, array, index, ..
            } => match index.as_slice() {
                [i] if *i == k => {
                    row_reads.insert(var.id, *array);
                }
                [i, Atom::Const(Const::I64(u))] if *i == k && *u >= 0 => {
                    panel_reads.insert(var.id, (*array, *u as usize));
                }
                _ => return None,
            },
            Stmt::Let {
                var,
                exp: ScalarExp::BinOp(op, a, b),
                ..
            } => {
                let Type::Scalar(t @ (ScalarType::F32 | ScalarType::F64)) = var.ty else {
                    return None;
                };
                if elem.replace(t).is_some_and(|e| e != t) {
                    return None;
                }
                match op {
                    BinOp::Mul => products.insert(var.id, (*a, *b)),
                    BinOp::Add => sums.insert(var.id, (*a, *b)),
                    _ => return None,
                };
            }
            _ => return None,
        }
    }
    let elem = elem?;
    let mut panel = None;
    let mut by_row: HashMap<VarId, Vec<Option<usize>>> = HashMap::new();
    let mut order = Vec::new();
    for (n, red) in nest.reductions.iter().enumerate() {
        let c = &red.carried[0];
        if c.var.ty != Type::Scalar(elem) {
            return None;
        }
        let Atom::Var(sum) = c.next else {
            return None;
        };
        let acc = Atom::Var(c.var.id);
        let product = match sums.get(&sum)? {
            (a, Atom::Var(p)) if *a == acc => *p,
            (Atom::Var(p), b) if *b == acc => *p,
            _ => return None,
        };
        let (row, (array, u)) = match products.get(&product)? {
            (Atom::Var(x), Atom::Var(y)) => match (row_reads.get(x), panel_reads.get(y)) {
                (Some(_), Some(p)) => (*x, *p),
                _ => (*y, *panel_reads.get(x)?),
            },
            _ => return None,
        };
        row_reads.get(&row)?;
        if panel.replace(array).is_some_and(|p| p != array) {
            return None;
        }
        let columns = by_row.entry(row).or_insert_with(|| {
            order.push(row);
            Vec::new()
        });
        if columns.len() <= u {
            columns.resize(u + 1, None);
        }
        if columns[u].replace(n).is_some() {
            return None;
        }
    }
    // Every row has the same columns, all of them, and the body nothing else.
    let lanes = by_row.values().next()?.len();
    if lanes < 2
        || !lanes.is_power_of_two()
        || nest.body.len() != by_row.len() + lanes + 2 * nest.reductions.len()
        || row_reads.len() != by_row.len()
        || panel_reads.len() != lanes
    {
        return None;
    }
    let mut rows = Vec::new();
    for row in order {
        let columns: Option<Vec<usize>> = by_row[&row].iter().copied().collect();
        let columns = columns.filter(|c| c.len() == lanes)?;
        rows.push((row_reads[&row], columns));
    }
    Some(OuterKernel {
        rows,
        panel: panel?,
        elem,
    })
}

impl<'ctx> Gen<'ctx, '_> {
    /// `nest`, the kernel `kernel`, in the current function (see the
    /// module comment): its reductions' results bound in `fr`.
    pub(super) fn outer_kernel_loop(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        kernel: &OuterKernel,
    ) -> Res<()> {
        let lanes = kernel.rows[0].1.len();
        let scalar_ty = self.mem_type(kernel.elem).into_float_type();
        let vector_ty = scalar_ty.vec_type(lanes as u32);
        let i32t = self.ctx.i32_type();
        let width = self.int(fr, &nest.width)?;
        let (panel, _, panel_shape) = self.array(fr, kernel.panel)?;
        let mut rows = Vec::new();
        for (array, columns) in &kernel.rows {
            let (ptr, _, shape) = self.array(fr, *array)?;
            let mut init = vector_ty.get_poison();
            for (u, &n) in columns.iter().enumerate() {
                let (v, _) = self.scalar(fr, &nest.reductions[n].carried[0].init)?;
                let lane = i32t.const_int(u as u64, false);
                init = self.builder.build_insert_element(init, v, lane, "")?;
            }
            rows.push((ptr, shape, init));
        }
        let func = fr.func;
        let before = self.current_block()?;
        let head = self.ctx.append_basic_block(func, "outer.head");
        let body = self.ctx.append_basic_block(func, "outer.body");
        let done = self.ctx.append_basic_block(func, "outer.done");
        self.builder.build_unconditional_branch(head)?;
        self.builder.position_at_end(head);
        let k = self.builder.build_phi(self.i64(), "k")?;
        let mut accs = Vec::new();
        for (_, _, init) in &rows {
            let phi = self.builder.build_phi(vector_ty, "acc")?;
            phi.add_incoming(&[(init as &dyn BasicValue, before)]);
            accs.push(phi);
        }
        let zero = self.const_i64(0);
        k.add_incoming(&[(&zero, before)]);
        let kv = k.as_basic_value().into_int_value();
        let more = self
            .builder
            .build_int_compare(inkwell::IntPredicate::SLT, kv, width, "")?;
        self.builder.build_conditional_branch(more, body, done)?;

        self.builder.position_at_end(body);
        let at = self.offset_ptr(panel, kernel.elem, &panel_shape, &[kv, zero])?;
        let loaded = self.builder.build_load(vector_ty, at, "panel")?;
        if let Some(inst) = loaded.as_instruction_value() {
            inst.set_alignment(kernel.elem.bytes() as u32)
                .map_err(|e| crate::codegen::CodegenError::Internal(e.to_string()))?;
        }
        let p = loaded.into_vector_value();
        let splat_mask = i32t.vec_type(lanes as u32).const_zero();
        let mut nexts = Vec::new();
        for ((ptr, shape, _), acc) in rows.iter().zip(&accs) {
            let at = self.offset_ptr(*ptr, kernel.elem, shape, &[kv])?;
            let x = self.builder.build_load(scalar_ty, at, "")?;
            let one = self.builder.build_insert_element(
                vector_ty.get_poison(),
                x,
                i32t.const_zero(),
                "",
            )?;
            let xs =
                self.builder
                    .build_shuffle_vector(one, vector_ty.get_poison(), splat_mask, "")?;
            let product = self.builder.build_float_mul(xs, p, "")?;
            let acc_v: VectorValue = acc.as_basic_value().into_vector_value();
            let sum = self.builder.build_float_add(acc_v, product, "")?;
            self.float_step_flags(product.into())?;
            self.float_step_flags(sum.into())?;
            nexts.push(sum);
        }
        let step = self.builder.build_int_add(kv, self.const_i64(1), "")?;
        let latch = self.current_block()?;
        k.add_incoming(&[(&step, latch)]);
        for (acc, next) in accs.iter().zip(&nexts) {
            acc.add_incoming(&[(next as &dyn BasicValue, latch)]);
        }
        self.builder.build_unconditional_branch(head)?;

        self.builder.position_at_end(done);
        for ((_, columns), acc) in kernel.rows.iter().zip(&accs) {
            let acc_v = acc.as_basic_value().into_vector_value();
            for (u, &n) in columns.iter().enumerate() {
                let lane = i32t.const_int(u as u64, false);
                let v: BasicValueEnum = self.builder.build_extract_element(acc_v, lane, "")?;
                for result in &nest.reductions[n].results {
                    fr.vals.insert(result.id, Val::Scalar(v, kernel.elem));
                }
            }
        }
        Ok(())
    }
}
