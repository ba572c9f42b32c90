//! Scans of arrays over many iterations split across threads: in goes a
//! launched scan nest whose carried values are arrays updated in place
//! (`scan (map2 (+)) (replicate w 0) xss`), out come three kernels that
//! host code runs instead of the column form (`columns`) or the single
//! thread when the shape says so at run time.
//!
//! The iterations are cut into `C` contiguous chunks (`tree_chunks`, at
//! most `sqrt n`, so that the sequential steps of the three kernels are
//! about even): thread `c` of the first (`scan_fold_body`) folds chunk
//! `c` from the neutral element into partial row `c` (the body without its
//! copies into the scan's output); thread `j` of the second
//! (`scan_prefix_body`) turns column `j` of the partial rows into
//! inclusive prefixes in order (row `c` = row `c - 1` op row `c`, the
//! operator cut to one column, so it need not be commutative); thread `c`
//! of the third (`scan_rescan_body`) runs chunk `c`'s whole body again from
//! its carry-in (chunk 0 on the accumulator itself, which still holds the
//! neutral element, so the interpreter's first application is kept; chunk
//! `c` on row `c - 1`, which no other chunk reads), writing the outputs.
//!
//! Errors: the operators cannot fail and no check of the body depends on
//! a scan's accumulator (`harmless`), so a check fails in the same
//! iteration whatever its chunk starts from; each iteration is its own
//! key, as in the single thread, and the earliest recorded wins.

use super::abi::{Grid, Params, OUT, WIDTH};
use super::column_tree::{column_operator, own_writes, ColumnTree};
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::core::ir::{Atom, Type, VarId};
use crate::loopy::ir::{block_vars, Block, LoopNest, Parallelism, Stmt};
use crate::loopy::par::can_fail;
use inkwell::values::BasicValueEnum;
use inkwell::IntPredicate;
use std::collections::{BTreeSet, HashMap, HashSet};

/// A scan nest whose chunks can fold apart from their carry-in.
pub(super) struct ScanChunks {
    /// Each scan's operator on one column.
    tree: ColumnTree,
    /// The nest without its copies into the scans' outputs (the fold).
    fold: LoopNest,
}

/// Whether `nest` is a scan of arrays whose chunks can fold from the
/// neutral element: each scan one array updated in place with an operator
/// on one column that cannot fail, the body writing nothing but its own
/// arrays and the scans' outputs (copies at top level at an index no
/// accumulator decides), and no check or output depending on a scan's
/// accumulator or one scan's on another's.
pub(super) fn scan_chunks_shape(nest: &LoopNest) -> Option<ScanChunks> {
    if nest.par != Parallelism::Scan
        || nest.scans.is_empty()
        || !nest.reductions.is_empty()
        || !nest.compactions.is_empty()
        || !nest.hists.is_empty()
        || !nest.scatters.is_empty()
    {
        return None;
    }
    let mut accs = Vec::new();
    let mut ops = Vec::new();
    let mut outputs = HashSet::new();
    for scan in &nest.scans {
        let [acc] = scan.carried.as_slice() else {
            return None;
        };
        let Type::Array(elem, 1) = acc.var.ty else {
            return None;
        };
        if acc.next != Atom::Var(acc.var.id) {
            return None;
        }
        accs.push(acc.var.id);
        ops.push(column_operator(&scan.op, elem)?);
        outputs.extend(scan.outputs.iter().copied());
    }
    let is_output_copy =
        |s: &Stmt| matches!(s, Stmt::Copy { array, .. } if outputs.contains(array));
    let fold_body: Block = nest
        .body
        .iter()
        .filter(|s| !is_output_copy(s))
        .cloned()
        .collect();
    let (mut uses, mut defs) = (BTreeSet::new(), HashSet::new());
    block_vars(&fold_body, &mut uses, &mut defs);
    if outputs.iter().any(|o| uses.contains(o)) {
        return None;
    }
    let mut own: HashSet<VarId> = accs.iter().copied().collect();
    if !own_writes(&fold_body, &mut own) {
        return None;
    }
    let mut bases = HashMap::new();
    aliases(&nest.body, &mut bases);
    for acc in &accs {
        let tainted = taint(&nest.body, *acc, &bases)?;
        if accs.iter().any(|a| a != acc && tainted.contains(a)) {
            return None;
        }
        let decided = nest.body.iter().any(|s| match s {
            Stmt::Copy { array, index, .. } if outputs.contains(array) => index
                .iter()
                .any(|a| matches!(a, Atom::Var(v) if tainted.contains(v))),
            _ => false,
        });
        if decided {
            return None;
        }
    }
    let mut fold = nest.clone();
    fold.body = fold_body;
    Some(ScanChunks {
        tree: ColumnTree { ops },
        fold,
    })
}

/// Records, at any depth, the array each row, view or in-place update
/// shares memory with.
pub(super) fn aliases(block: &[Stmt], out: &mut HashMap<VarId, VarId>) {
    for s in block {
        match s {
            Stmt::Row { var, array, .. }
            | Stmt::View { var, array, .. }
            | Stmt::InPlace { var, array } => {
                out.insert(var.id, *array);
            }
            _ => s.inner_blocks().into_iter().for_each(|b| aliases(b, out)),
        }
    }
}

/// Marks `array` and every array it is a row or view of.
fn taint_array(array: VarId, tainted: &mut HashSet<VarId>, bases: &HashMap<VarId, VarId>) {
    let mut a = array;
    for _ in 0..=bases.len() {
        tainted.insert(a);
        match bases.get(&a) {
            Some(b) => a = *b,
            None => return,
        }
    }
}

/// The arrays `block` writes or copies into, at any depth.
fn written(block: &[Stmt], out: &mut Vec<VarId>) {
    for s in block {
        match s {
            Stmt::Write { array, .. } | Stmt::Copy { array, .. } => out.push(*array),
            _ => s.inner_blocks().into_iter().for_each(|b| written(b, out)),
        }
    }
}

fn any_tainted(atoms: &[Atom], tainted: &HashSet<VarId>) -> bool {
    atoms
        .iter()
        .any(|a| matches!(a, Atom::Var(v) if tainted.contains(v)))
}

/// What `seed` taints in `block`: `harmless` repeated until nothing more
/// is tainted; None when a check depends on it.
pub(super) fn taint(
    block: &Block,
    seed: VarId,
    bases: &HashMap<VarId, VarId>,
) -> Option<HashSet<VarId>> {
    let mut tainted = HashSet::from([seed]);
    loop {
        let before = tainted.len();
        if !harmless(block, &mut tainted, bases) {
            return None;
        }
        if tainted.len() == before {
            return Some(tainted);
        }
    }
}

/// One pass of the taint of a scan's accumulator through `block` (values
/// computed from it, arrays written with them): false when a check depends
/// on it (a read's bounds depend on its index only; the branches of a
/// condition that does not depend on it are followed apart). `taint` repeats it
/// until nothing more is tainted, which covers reads before writes in
/// program order.
pub(super) fn harmless(
    block: &Block,
    tainted: &mut HashSet<VarId>,
    bases: &HashMap<VarId, VarId>,
) -> bool {
    for s in block {
        match s {
            Stmt::Loop(inner)
                if inner.carried().next().is_none()
                    && inner.scatters.is_empty()
                    && inner.hists.is_empty() =>
            {
                if !harmless(&inner.body, tainted, bases) {
                    return false;
                }
            }
            Stmt::If {
                results,
                cond,
                then_block,
                then_results,
                else_block,
                else_results,
            } if !any_tainted(std::slice::from_ref(cond), tainted) => {
                if !harmless(then_block, tainted, bases) || !harmless(else_block, tainted, bases) {
                    return false;
                }
                for (r, (t, e)) in results.iter().zip(then_results.iter().zip(else_results)) {
                    if any_tainted(&[*t, *e], tainted) {
                        tainted.insert(r.id);
                    }
                }
            }
            Stmt::Read {
                var,
                array,
                index,
                check,
            }
            | Stmt::Row {
                var,
                array,
                index,
                check,
            } => {
                let at = any_tainted(index, tainted);
                if at && check.is_some() {
                    return false;
                }
                if at || tainted.contains(array) {
                    tainted.insert(var.id);
                }
            }
            Stmt::Write {
                array,
                index,
                value,
            } => {
                if any_tainted(index, tainted) || any_tainted(std::slice::from_ref(value), tainted)
                {
                    taint_array(*array, tainted, bases);
                }
            }
            Stmt::Copy { array, index, src } => {
                if any_tainted(index, tainted) || tainted.contains(src) {
                    taint_array(*array, tainted, bases);
                }
            }
            _ => {
                let (mut uses, mut defs) = (BTreeSet::new(), HashSet::new());
                block_vars(std::slice::from_ref(s), &mut uses, &mut defs);
                if !uses.iter().any(|u| tainted.contains(u)) {
                    continue;
                }
                if can_fail(s) {
                    return false;
                }
                tainted.extend(defs);
                let mut arrays = Vec::new();
                written(std::slice::from_ref(s), &mut arrays);
                for a in arrays {
                    taint_array(a, tainted, bases);
                }
            }
        }
    }
    true
}

impl<'ctx> Gen<'ctx, '_> {
    /// Thread `j` of each scan's columns: column `j` of the partial rows
    /// (chunk totals) turned into inclusive prefixes, in chunk order.
    fn scan_prefix_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        tree: &ColumnTree,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let tk = self.tree_parts(nest, tree, kp)?;
        let one = self.const_i64(1);
        for ((rows, _, _, w), op) in tk.parts.iter().zip(&tree.ops) {
            let elem = op.elem;
            self.kernel_loop(fr, tk.gid, *w, tk.threads, &mut |gen, fr, j| {
                fr.vals.insert(
                    op.index,
                    Val::Scalar(j.into(), crate::types::ScalarType::I64),
                );
                gen.kernel_loop(fr, one, tk.chunks, one, &mut |gen, fr, c| {
                    let row_at =
                        |gen: &Self, r: inkwell::values::IntValue<'ctx>| -> Res<Val<'ctx>> {
                            let start = gen.builder.build_int_mul(r, *w, "")?;
                            Ok(Val::Array {
                                ptr: gen.element_ptr(elem, *rows, start)?,
                                elem,
                                shape: vec![*w],
                            })
                        };
                    let before = gen.builder.build_int_sub(c, one, "")?;
                    let this = row_at(gen, c)?;
                    fr.vals.insert(op.params.0, row_at(gen, before)?);
                    fr.vals.insert(op.params.1, this.clone());
                    fr.vals.insert(op.result, this);
                    gen.block(fr, &op.prefix)?;
                    gen.block(fr, &op.body)
                })
            })?;
        }
        Ok(())
    }

    /// Thread `c`: chunk `c` of the whole body, in order, from its carry-in
    /// (chunk 0: the accumulator, still the neutral element; chunk `c`: the
    /// inclusive prefix of the chunks before it, row `c - 1`, in place).
    fn scan_rescan_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        nest: &LoopNest,
        tree: &ColumnTree,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let tk = self.tree_parts(nest, tree, kp)?;
        let n = kp[WIDTH].into_int_value();
        let (zero, one) = (self.const_i64(0), self.const_i64(1));
        let first = self
            .builder
            .build_int_compare(IntPredicate::EQ, tk.gid, zero, "")?;
        let finals: Vec<Val<'ctx>> = tk.parts.iter().map(|(_, acc, _, _)| acc.clone()).collect();
        self.when(fr.func, first, |gen| {
            gen.store_cells(kp[OUT].into_pointer_value(), zero, &finals)
        })?;
        self.kernel_loop(fr, tk.gid, tk.chunks, tk.threads, &mut |gen, fr, c| {
            let head = gen
                .builder
                .build_int_compare(IntPredicate::EQ, c, zero, "")?;
            let before = gen.builder.build_int_sub(c, one, "")?;
            let mut slots = Vec::new();
            for ((rows, _, acc, w), op) in tk.parts.iter().zip(&tree.ops) {
                let start = gen.builder.build_int_mul(before, *w, "")?;
                // Chunk 0 never computes this address.
                let prefix = gen.element_ptr(op.elem, *rows, start)?;
                let row = gen.builder.build_select(head, *acc, prefix, "")?;
                let slot = gen.entry_alloca(fr.func, gen.ptr().into())?;
                gen.builder.build_store(slot, row)?;
                let wslot = gen.entry_alloca(fr.func, gen.i64().into())?;
                gen.builder.build_store(wslot, *w)?;
                slots.push(vec![(slot, gen.ptr().into()), (wslot, gen.i64().into())]);
            }
            let (lo, hi) = gen.slice_of(n, c, tk.chunks)?;
            gen.carried_loop(fr, nest, &slots, lo, hi, true)
        })
    }

    /// Host side: the three kernels of the chunked scan when the shape pays
    /// (`tree_chunks`, at most `sqrt n` chunks), else `otherwise` (the
    /// column form or one thread).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn launch_or_scan_chunks(
        &mut self,
        fr: &Frame<'ctx>,
        nest: &LoopNest,
        chunked: &ScanChunks,
        name: &str,
        params: &Params<'ctx>,
        values: &[BasicValueEnum<'ctx>],
        columns: bool,
        otherwise: &mut dyn FnMut(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let tree = &chunked.tree;
        let fold = self.kernel(
            &format!("{name}_scan_fold"),
            params,
            Vec::new(),
            |gen, kfr, kp| gen.split_fold_body(kfr, &chunked.fold, tree, kp),
        )?;
        let prefix = self.kernel(
            &format!("{name}_scan_prefix"),
            params,
            Vec::new(),
            |gen, kfr, kp| gen.scan_prefix_body(kfr, nest, tree, kp),
        )?;
        let rescan = self.kernel(
            &format!("{name}_scan_rescan"),
            params,
            Vec::new(),
            |gen, kfr, kp| gen.scan_rescan_body(kfr, nest, tree, kp),
        )?;
        let (widths, w) = self.carried_widths(fr, nest)?;
        let n = values[WIDTH].into_int_value();
        // The prefix kernel's steps are `C` per column, the others' about
        // `n / C`: at most `sqrt n` chunks.
        let f64t = self.ctx.f64_type();
        let real = self.builder.build_signed_int_to_float(n, f64t, "")?;
        let root = self.call_intrinsic("llvm.sqrt", &[f64t.into()], &[real.into()])?;
        let root =
            self.builder
                .build_float_to_signed_int(root.into_float_value(), self.i64(), "root")?;
        let chunks = self.tree_chunks(fold, n, w, columns, Some(root))?;
        let split =
            self.builder
                .build_int_compare(IntPredicate::SGT, chunks, self.const_i64(0), "")?;
        let whole = self.builder.build_not(split, "")?;
        self.when(fr.func, split, |gen| {
            let (_, bytes) = gen.regions(tree, chunks, &widths)?;
            let (p, values) = gen.chunk_partials(bytes, chunks, &[], values)?;
            let most = gen.widest(&widths)?;
            gen.reserve_heap(fr, nest, Some(fold), chunks, &[])?;
            gen.launch(fold, Grid::Work, chunks, &params.types, &values, fr)?;
            gen.launch(prefix, Grid::Work, most, &params.types, &values, fr)?;
            gen.reserve_heap(fr, nest, Some(rescan), chunks, &[])?;
            gen.launch(rescan, Grid::Work, chunks, &params.types, &values, fr)?;
            gen.free_partials(p)
        })?;
        self.when(fr.func, whole, |gen| otherwise(gen))
    }
}
