//! Kernels per nest, and their launch from host code.
//!
//! A nest that host code reaches becomes one kernel or several, by its
//! `Parallelism` (docs/gpu.md, "Kernels"):
//!
//! - map and scatter, and histograms whose every update is one atomic
//!   operation: a grid-stride loop, one iteration per thread at a time
//!   (histograms' bins in shared memory per block when they fit,
//!   `private`);
//!   histograms whose updates are not: the same under a lock per bin
//!   (`hist`);
//! - reduce (scalar accumulators): each thread folds a contiguous slice
//!   of the iterations, a tree per block combines the threads' results
//!   (`reduce`), and levels of a combining kernel the blocks', in order,
//!   so non-commutative operators keep their order;
//! - scans, filters and partitions (look-back plan), with reductions
//!   beside them or not: one kernel over tiles, each tile's carry-in by
//!   decoupled look-back over the earlier tiles' statuses (`scan`);
//! - maps of maps of reductions of elements read at the reduction's index
//!   (matmul-like): square tiles of the output per block, the operands'
//!   slices staged in shared memory (`tile`);
//! - reductions and scans of arrays, histograms of rows: a thread per
//!   column (`columns`); reductions of arrays over few columns and many
//!   iterations: chunks of iterations, then a thread per column combining
//!   them (`column_tree`); scans of arrays likewise, the chunks' totals
//!   scanned per column, then each chunk again from its prefix
//!   (`scan_chunks`); histograms of rows into private copies of the bins
//!   per chunk, combined after (`hist_chunks`), or, with an atomic
//!   operator, a thread per iteration and column (`hist_atomic`); as host
//!   code picks by shape;
//! - everything else: one thread runs the nest in sequential order
//!   (docs/gpu.md, "What remains").
//!
//! Inside a kernel, a nest of an iteration runs sequentially in that
//! iteration's thread (`sequential_nest`, `loops`). The kernels'
//! parameters and launches are in `abi`, their buffers' cells in `cells`.

use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::runtime::RuntimeFn;
use crate::core::ir::{Atom, Type, VarId};
use crate::loopy::ir::{LoopNest, ParPlan, Parallelism};
use inkwell::IntPredicate;

/// How a launched nest's iterations are spread over threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    GridStride,
    Partials,
    /// Scans and compactions: one kernel over tiles by decoupled
    /// look-back (`scan`).
    Scan,
    /// Histograms without atomic updates: grid-stride, each update under
    /// a lock per bin (`hist`).
    Locked,
    /// A map whose iterations reduce rows, statement `at` of its body: a
    /// warp or a block per row (`rows`).
    Rows {
        at: usize,
    },
    /// Reductions and scans of arrays, histograms of rows: a thread per
    /// column (`columns`), or one thread when there are no columns.
    Columns,
    /// Matmul-like nests: square tiles of the output per block, operands
    /// staged in shared memory (`tile`).
    Tiled,
    Single,
}

pub(super) use super::abi::{Grid, Params, OUT, PARTIALS, WIDTH};

impl<'ctx> Gen<'ctx, '_> {
    fn form(&self, nest: &LoopNest) -> Form {
        let scalar_carried = nest.carried().all(|c| matches!(c.var.ty, Type::Scalar(_)));
        if let Some(at) = super::rows::rows_shape(nest) {
            return Form::Rows { at };
        }
        match nest.par {
            Parallelism::Map | Parallelism::Scatter => Form::GridStride,
            Parallelism::Reduce if scalar_carried => Form::Partials,
            Parallelism::Scan | Parallelism::Compact
                if scalar_carried
                    && nest.hists.is_empty()
                    && matches!(
                        nest.plan.as_ref().map(|p| &p.strategy),
                        Some(ParPlan::TwoPhase { .. })
                    ) =>
            {
                Form::Scan
            }
            _ => Form::Single,
        }
    }

    /// A nest host code reaches: its kernels, launched.
    pub(crate) fn launch_nest(&mut self, fr: &mut Frame<'ctx>, nest: &LoopNest) -> Res<()> {
        let form = match nest.par {
            Parallelism::Hist => {
                // Atomic updates (`private::atomic_bins`); otherwise locks
                // or one thread.
                let atomic = matches!(
                    nest.plan.as_ref().map(|p| &p.strategy),
                    Some(ParPlan::Hist { atomic: true, .. })
                );
                let planned = matches!(
                    nest.plan.as_ref().map(|p| &p.strategy),
                    Some(ParPlan::Hist { .. })
                );
                let (mut wide, mut rank1) = (true, true);
                for h in &nest.hists {
                    for b in &h.bins {
                        match self.val(fr, &Atom::Var(*b))? {
                            Val::Array { elem, shape, .. } => {
                                rank1 &= shape.len() == 1;
                                wide &= super::private::atomic_bins(elem)
                            }
                            Val::Scalar(..) => rank1 = false,
                        }
                    }
                }
                if !planned || !rank1 {
                    Form::Single
                } else if atomic && wide {
                    Form::GridStride
                } else if super::hist::lockable(nest) {
                    Form::Locked
                } else {
                    Form::Single
                }
            }
            _ => self.form(nest),
        };
        // Reductions and scans of arrays, histograms of rows: a thread per
        // column where the body allows.
        let columns = match form {
            Form::Single => super::columns::columns_shape(nest),
            _ => None,
        };
        let form = if columns.is_some() {
            Form::Columns
        } else {
            form
        };
        // Matmul-like maps: tiles in shared memory.
        let tiled = match form {
            Form::GridStride if nest.par == Parallelism::Map => super::tile::tile_shape(nest),
            _ => None,
        };
        let form = if tiled.is_some() { Form::Tiled } else { form };
        let name = format!(
            "{}_k{}_{}",
            self.prefix,
            self.nests,
            nest.origin.describe("")
        );
        self.nests += 1;
        let params = self.params(fr, nest)?;
        let fields: usize = params
            .carried
            .iter()
            .map(|t| self.field_types(*t).len())
            .sum();
        let width = params.values[WIDTH].into_int_value();

        // Host side: the result buffer and, for partials, one per thread.
        let alloc = self.runtime(RuntimeFn::GpuAlloc);
        // The final carried values, and a scan's first failed slice.
        let cells = self.const_i64(((fields + 1) * 8) as i64);
        let out = self.call_int(alloc, &[cells.into()])?;
        let mut values = params.values.clone();
        values[OUT] = self.builder.build_int_to_ptr(out, self.ptr(), "")?.into();

        let atomic_bins: Vec<VarId> = if nest.par == Parallelism::Hist && form == Form::GridStride {
            nest.hists
                .iter()
                .flat_map(|h| h.bins.iter().copied())
                .collect()
        } else {
            Vec::new()
        };
        // Reductions: a tree per block in shared memory when it fits.
        let tree = form == Form::Partials && super::reduce::tree_ok(fields);
        // Histograms of atomic updates: bins in shared memory when they fit.
        let private = !atomic_bins.is_empty()
            && super::private::privatisable(nest, &|b| match self.val(fr, &Atom::Var(b)) {
                Ok(Val::Array { elem, shape, .. }) if shape.len() == 1 => Some(elem),
                _ => None,
            });
        // Per-thread scratch of sizes host code knows from the pool, where
        // each thread runs its iterations in order (`heap`).
        let pooled = match form {
            Form::GridStride | Form::Locked | Form::Partials | Form::Scan | Form::Single => {
                self.pooled_scratch(fr, nest)
            }
            Form::Rows { .. } | Form::Columns | Form::Tiled => Vec::new(),
        };
        if let Some(d) = self.device.as_mut() {
            d.pooled = pooled.clone();
        }
        let main = self.kernel(&name, &params, atomic_bins, |gen, kfr, kp| match form {
            Form::GridStride if private => gen.private_hist_body(kfr, nest, kp),
            Form::GridStride => gen.grid_stride_body(kfr, nest, kp),
            Form::Partials if tree => gen.tree_body(kfr, nest, kp),
            Form::Partials => gen.partials_body(kfr, nest, kp),
            Form::Scan => gen.lookback_body(kfr, nest, kp),
            Form::Locked => gen.locked_hist_body(kfr, nest, kp),
            Form::Rows { at } => gen.rows_body(kfr, nest, at, kp),
            Form::Columns => match &columns {
                Some(cols) => gen.columns_body(kfr, nest, cols, kp),
                None => gen.single_body(kfr, nest, kp),
            },
            Form::Tiled => match &tiled {
                Some(t) => gen.tiled_body(kfr, t, kp),
                None => gen.grid_stride_body(kfr, nest, kp),
            },
            Form::Single => gen.single_body(kfr, nest, kp),
        })?;
        let one_thread = matches!(form, Form::Single | Form::Columns);
        if !pooled.is_empty() {
            self.reserve_pooled(fr, main, &pooled)?;
        }
        // The rest: scratch of the forms the per-nest scratch does not
        // serve, and arrays whose size the iteration checks.
        self.reserve_heap(fr, nest, (!one_thread).then_some(main), width, &pooled)?;
        let mut partials = None;
        // Where the final carried values are (device address).
        let mut finals_at = out;
        let mut spare = None;
        // A scan's reductions: where their combined results are.
        let mut reductions_at = None;
        match form {
            Form::GridStride if private => {
                // Private bins when they fit the block's shared memory
                // (a non-null `partials` tells the kernel), else global.
                let bytes = self.private_bytes(fr, nest)?;
                let limit = self.const_i64(super::private::PRIVATE_BYTES);
                let fits = self
                    .builder
                    .build_int_compare(IntPredicate::SLE, bytes, limit, "")?;
                let shared = self
                    .builder
                    .build_select(fits, bytes, self.const_i64(0), "")?
                    .into_int_value();
                let null = self.ptr().const_null();
                let marker = self
                    .builder
                    .build_select(fits, values[OUT], null.into(), "")?;
                values[PARTIALS] = marker;
                let none = self.const_i64(0);
                self.launch_shared_block(main, width, shared, none, &params.types, &values, fr)?;
            }
            Form::GridStride => self.launch(main, Grid::Work, width, &params.types, &values, fr)?,
            Form::Single => {
                // Histograms of rows of a constant width with native
                // atomics: a thread per iteration where chunks do not pay.
                let atomic = super::hist_atomic::hist_atomic_shape(nest, None);
                self.launch_or_tree(fr, nest, &name, &params, &values, false, &mut |gen| {
                    let mut plain = |gen: &mut Self| {
                        gen.launch(main, Grid::One, width, &params.types, &values, fr)
                    };
                    match &atomic {
                        Some(ha) => gen.launch_or_atomic_hist(
                            fr, nest, ha, &name, &params, &values, &mut plain,
                        ),
                        None => plain(gen),
                    }
                })?
            }
            Form::Rows { at } => self.launch_rows(fr, nest, at, main, &params, &mut values)?,
            Form::Tiled => {
                let map = self.kernel(
                    &format!("{name}_map"),
                    &params,
                    Vec::new(),
                    |gen, kfr, kp| gen.grid_stride_body(kfr, nest, kp),
                )?;
                if let Some(t) = &tiled {
                    self.launch_tiled(fr, t, main, map, &params, &values)?;
                }
            }
            Form::Columns => {
                let single = self.kernel(
                    &format!("{name}_single"),
                    &params,
                    Vec::new(),
                    |gen, kfr, kp| gen.single_body(kfr, nest, kp),
                )?;
                if let Some(cols) = &columns {
                    // Histograms of rows with native atomics: a thread per
                    // iteration and column where chunks do not pay.
                    let atomic = super::hist_atomic::hist_atomic_shape(nest, Some(cols));
                    self.launch_or_tree(fr, nest, &name, &params, &values, true, &mut |gen| {
                        let mut plain = |gen: &mut Self| {
                            gen.launch_columns(fr, cols, main, single, &params, &values)
                        };
                        match &atomic {
                            Some(ha) => gen.launch_or_atomic_hist(
                                fr, nest, ha, &name, &params, &values, &mut plain,
                            ),
                            None => plain(gen),
                        }
                    })?;
                }
            }
            Form::Locked => {
                let count = self.lock_count(fr, nest)?;
                let words = self.builder.build_int_add(count, self.const_i64(1), "")?;
                let bytes = self.builder.build_int_mul(words, self.const_i64(4), "")?;
                let p = self.call_int(alloc, &[bytes.into()])?;
                let fill = self.runtime(RuntimeFn::GpuFill32);
                let zero = self.ctx.i32_type().const_zero();
                self.builder
                    .build_call(fill, &[p.into(), zero.into(), count.into()], "")?;
                partials = Some(p);
                values[PARTIALS] = self.builder.build_int_to_ptr(p, self.ptr(), "")?.into();
                // Private bins and locks when they fit a block's shared
                // memory: the word after the locks tells the kernel.
                let bytes = self.locked_private_bytes(fr, nest)?;
                let limit = self.const_i64(super::private::PRIVATE_BYTES);
                let fits = self
                    .builder
                    .build_int_compare(IntPredicate::SLE, bytes, limit, "")?;
                let shared = self
                    .builder
                    .build_select(fits, bytes, self.const_i64(0), "")?
                    .into_int_value();
                let mark = self.builder.build_int_mul(count, self.const_i64(4), "")?;
                let mark = self.builder.build_int_add(p, mark, "")?;
                let flag = self
                    .builder
                    .build_int_z_extend(fits, self.ctx.i32_type(), "")?;
                let one = self.const_i64(1);
                self.builder
                    .build_call(fill, &[mark.into(), flag.into(), one.into()], "")?;
                let none = self.const_i64(0);
                self.launch_shared_block(main, width, shared, none, &params.types, &values, fr)?;
            }
            Form::Scan => {
                // One kernel (decoupled look-back); its buffer: the ticket,
                // a status, an aggregate and an inclusive prefix per tile,
                // then (with reductions) a partial per thread and tile.
                // Staged input tiles take shared memory per thread.
                let (staged, items) = self.staging(fr, nest, super::scan::TILE_ITEMS)?;
                let per_thread = Self::staged_bytes(&staged, items);
                let shared = self.const_i64(super::scan::lookback_shared(fields) as i64);
                let per_thread = self.const_i64(per_thread);
                let items = self.const_i64(items);
                let k = self.ctx.i32_type().const_int(main as u64, false);
                let plan_args = [
                    k.into(),
                    width.into(),
                    shared.into(),
                    per_thread.into(),
                    items.into(),
                ];
                let tiles_fn = self.runtime(RuntimeFn::GpuLookbackTiles);
                let tiles = self.call_int(tiles_fn, &plan_args)?;
                let chunks_fn = self.runtime(RuntimeFn::GpuLookbackChunks);
                let chunks = self.call_int(chunks_fn, &plan_args)?;
                let reductions = super::scan::reduction_values(nest) > 0;
                let per_tile = self.const_i64((2 * fields + 1) as i64);
                let cells = self.builder.build_int_mul(tiles, per_tile, "")?;
                let cells = self.builder.build_int_add(cells, self.const_i64(1), "")?;
                let red_at = self.builder.build_int_mul(cells, self.const_i64(8), "")?;
                let cells = if reductions {
                    let more =
                        self.builder
                            .build_int_mul(chunks, self.const_i64(fields as i64), "")?;
                    self.builder.build_int_add(cells, more, "")?
                } else {
                    cells
                };
                let bytes = self.builder.build_int_mul(cells, self.const_i64(8), "")?;
                let p = self.call_int(alloc, &[bytes.into()])?;
                // The ticket and the statuses start at 0.
                let fill = self.runtime(RuntimeFn::GpuFill32);
                let words = self.builder.build_int_add(tiles, self.const_i64(1), "")?;
                let words = self.builder.build_int_mul(words, self.const_i64(2), "")?;
                let zero32 = self.ctx.i32_type().const_zero();
                self.builder
                    .build_call(fill, &[p.into(), zero32.into(), words.into()], "")?;
                partials = Some(p);
                values[PARTIALS] = self.builder.build_int_to_ptr(p, self.ptr(), "")?.into();
                self.launch_shared_block(
                    main,
                    width,
                    shared,
                    per_thread,
                    &params.types,
                    &values,
                    fr,
                )?;
                if reductions {
                    let combine = self.kernel(
                        &format!("{name}_combine"),
                        &params,
                        Vec::new(),
                        |gen, kfr, kp| gen.combine_body(kfr, nest, kp),
                    )?;
                    let red = self.builder.build_int_add(p, red_at, "")?;
                    let (result, other) =
                        self.combine_levels(combine, chunks, red, fields, &params, &values, fr)?;
                    reductions_at = Some(result);
                    spare = Some(other);
                }
            }
            Form::Partials => {
                let k = self.ctx.i32_type().const_int(main as u64, false);
                // A partial per block (tree) or per thread; a tree's cells
                // and its staged input tiles in shared memory.
                let mut per_thread = fields * 8;
                if let (true, Some((staged, items))) = (tree, self.reduce_staging(fr, nest)?) {
                    per_thread += Self::staged_bytes(&staged, items) as usize;
                }
                let shared = self.const_i64(per_thread as i64);
                let threads = if tree {
                    let f = self.runtime(RuntimeFn::GpuBlocksShared);
                    self.call_int(f, &[k.into(), width.into(), shared.into()])?
                } else {
                    let threads_fn = self.runtime(RuntimeFn::GpuThreads);
                    self.call_int(threads_fn, &[k.into(), width.into()])?
                };
                let cell = self.const_i64((fields.max(1) * 8) as i64);
                let bytes = self.builder.build_int_mul(threads, cell, "")?;
                let p = self.call_int(alloc, &[bytes.into()])?;
                partials = Some(p);
                values[PARTIALS] = self.builder.build_int_to_ptr(p, self.ptr(), "")?.into();
                let grid = if tree {
                    Grid::Shared(per_thread)
                } else {
                    Grid::Work
                };
                self.launch(main, grid, width, &params.types, &values, fr)?;
                let combine = self.kernel(
                    &format!("{name}_combine"),
                    &params,
                    Vec::new(),
                    |gen, kfr, kp| gen.combine_body(kfr, nest, kp),
                )?;
                // No iteration: the partials are all the neutral element,
                // and the first is the result (the interpreter applies no
                // operator, which might fail).
                let none = self.builder.build_int_compare(
                    IntPredicate::SLE,
                    width,
                    self.const_i64(0),
                    "",
                )?;
                // A partial per thread (no tree): only those of threads
                // that folded something, ceil(width / c) for slices of c =
                // ceil(width / threads); the others hold the neutral
                // element, which the operator must not meet beside another
                // value (the interpreter applies it to the neutral element
                // only with the first element). A tree's blocks all fold.
                let counted = if tree {
                    threads
                } else {
                    let chunk = self.ceil_div(width, threads)?;
                    // At least 1: no division by zero without iterations.
                    let small = self.builder.build_int_compare(
                        IntPredicate::SLT,
                        chunk,
                        self.const_i64(1),
                        "",
                    )?;
                    let chunk = self
                        .builder
                        .build_select(small, self.const_i64(1), chunk, "")?
                        .into_int_value();
                    self.ceil_div(width, chunk)?
                };
                let levels = self
                    .builder
                    .build_select(none, self.const_i64(1), counted, "")?
                    .into_int_value();
                let (result, other) =
                    self.combine_levels(combine, levels, p, fields, &params, &values, fr)?;
                finals_at = result;
                spare = Some(other);
            }
        }
        let free = self.runtime(RuntimeFn::GpuFree);
        if fields > 0 {
            // Final carried values: reductions' results, compaction counts.
            let slot_ty = self.i64().array_type(fields as u32);
            let slot = self.entry_alloca(fr.func, slot_ty.into())?;
            let copy_out = self.runtime(RuntimeFn::GpuCopyOut);
            let bytes = self.const_i64((fields * 8) as i64);
            self.builder.build_call(
                copy_out,
                &[slot.into(), finals_at.into(), bytes.into()],
                "",
            )?;
            let mut finals = self.load_cells(slot, &params.carried)?;
            if let Some(at) = reductions_at {
                // The reductions' results come from their combination.
                let r = super::scan::reduction_values(nest);
                self.builder
                    .build_call(copy_out, &[slot.into(), at.into(), bytes.into()], "")?;
                let combined = self.load_cells(slot, &params.carried)?;
                finals.splice(..r, combined.into_iter().take(r));
            }
            self.bind_finals(fr, nest, finals)?;
        }
        self.builder.build_call(free, &[out.into()], "")?;
        for p in partials.into_iter().chain(spare) {
            self.builder.build_call(free, &[p.into()], "")?;
        }
        Ok(())
    }
}
