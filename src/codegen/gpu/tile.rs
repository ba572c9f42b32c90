//! Tiled kernels for matmul-like nests: a launched map whose body, after
//! binding values, is a map (possibly under more maps: batches) whose body
//! reduces over `k` a function of elements read at `k` (`map (\row -> map
//! (\col -> reduce (+) 0 (map2 (*) row col)) bt) a`, `A * B`, `A * Bᵀ`,
//! batched products, an epilogue applied to each result). Loopy IR in
//! (`tile_shape`); out, one kernel that computes the output in square tiles.
//!
//! The last two maps are the rows `i` and the columns `j` of the output;
//! maps above them are batches. A block of `S x S` threads (`S` from
//! `arr_gpu_tile_side`) computes a tile of `T x T` outputs, `T = S * REG`:
//! thread `(x, y)` holds the `REG x REG` outputs `(i0 + y + S r, j0 + x + S
//! c)` in registers. Over `k` in steps of `S`, the block stages the slice
//! of each operand the tile needs (`T` rows of the `i` operands, `T` of the
//! `j` operands, one of those read at `k` alone) in shared memory, coalesced
//! along the array's last dimension, then a barrier; each thread reads its
//! `REG` values of each operand per `k` and runs the reduction's body for
//! its `REG * REG` outputs; a barrier before the next slice. Each element
//! of an operand is read from global memory once per tile instead of once
//! per output: `k / T` reads per output element and operand instead of `k`.
//! Loads outside the loops' bounds or the arrays' dimensions are skipped
//! (guards, no padding of the arrays).
//!
//! Each output's reduction runs in iteration order on one thread, so any
//! operator keeps its order. The reduction's body may only compute values
//! that cannot fail and read operands; the statements before it (bindings,
//! checks) and after it (the epilogue, the writes) run once per output
//! after the reduction, with the error key of a sequential run (`span`),
//! so the first failing check in sequential order is the one reported.
//! A nest with an empty row or column map runs as a map instead (its
//! outer statements' checks still run).

use super::abi::{Params, WIDTH};
use crate::codegen::emit::{Frame, Gen, Res, Val};
use crate::codegen::runtime::RuntimeFn;
use crate::core::ir::{Atom, Type, VarId};
use crate::loopy::ir::{block_vars, Block, LoopNest, Parallelism, Stmt};
use crate::types::ScalarType;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Outputs a thread computes along each side of its tile.
pub(super) const REG: i64 = 4;
/// Scalar values one output's reduction carries at most (registers).
const MAX_CARRIED: usize = 2;

/// One map level of a tiled nest: its index, width and the statements
/// before the next level.
#[derive(Clone, Debug)]
struct Level {
    index: VarId,
    width: Atom,
    pre: Block,
}

/// One position of an operand's index.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pos {
    Level(usize),
    K,
    Fixed(Atom),
}

/// Which output side an operand's staged rows follow.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Side {
    Rows,
    Cols,
    Neither,
}

/// An array the reduction reads at `k`: from outside the nest, not
/// written by it, at an index of loop indices and values from outside.
#[derive(Clone, Debug)]
struct Operand {
    base: VarId,
    index: Vec<Pos>,
    side: Side,
}

/// A nest the tiled kernel runs (`tile_shape`).
#[derive(Clone, Debug)]
pub(super) struct Tiled {
    levels: Vec<Level>,
    red: LoopNest,
    post: Block,
    operands: Vec<Operand>,
    /// The reduction body's reads of operands: statement -> operand.
    reads: HashMap<usize, usize>,
}

/// Whether a block is straight-line work for one output (no loops, no
/// memory made or released).
fn flat(block: &[Stmt]) -> bool {
    block.iter().all(|s| match s {
        Stmt::If {
            then_block,
            else_block,
            ..
        } => flat(then_block) && flat(else_block),
        Stmt::Loop(_)
        | Stmt::SeqLoop(_)
        | Stmt::Alloc { .. }
        | Stmt::Free(_)
        | Stmt::InPlace { .. } => false,
        _ => true,
    })
}

/// The one nest of a level's body and its position.
fn one_nest(body: &[Stmt]) -> Option<(usize, &LoopNest)> {
    let mut found = None;
    for (at, s) in body.iter().enumerate() {
        match s {
            Stmt::Loop(n) if found.is_none() => found = Some((at, n)),
            Stmt::Loop(_) | Stmt::SeqLoop(_) => return None,
            _ => {}
        }
    }
    found
}

fn plain_map(n: &LoopNest) -> bool {
    n.par == Parallelism::Map
        && n.carried().next().is_none()
        && n.hists.is_empty()
        && n.scatters.is_empty()
}

/// The tiled shape of a launched nest, if it has one.
pub(super) fn tile_shape(nest: &LoopNest) -> Option<Tiled> {
    if !plain_map(nest) {
        return None;
    }
    let free: HashSet<VarId> = nest.free_vars().into_iter().collect();
    let defined = nest.defined_vars();
    let invariant = |a: &Atom| match a {
        Atom::Var(v) => !defined.contains(v),
        Atom::Const(_) => true,
    };
    let mut levels = Vec::new();
    let mut cur = nest;
    let (red, post) = loop {
        let (at, inner) = one_nest(&cur.body)?;
        let pre = cur.body[..at].to_vec();
        if !invariant(&cur.width) || !super::rows::binds_only(&pre) {
            return None;
        }
        levels.push(Level {
            index: cur.index.id,
            width: cur.width,
            pre,
        });
        let post = &cur.body[at + 1..];
        if plain_map(inner) && post.is_empty() {
            cur = inner;
        } else if inner.par == Parallelism::Reduce && flat(post) {
            break (inner, post.to_vec());
        } else {
            return None;
        }
    };
    let n = levels.len();
    let carried: Vec<_> = red.carried().collect();
    let reduction = red.scans.is_empty()
        && red.compactions.is_empty()
        && red.hists.is_empty()
        && red.scatters.is_empty()
        && !red.reductions.is_empty()
        && (1..=MAX_CARRIED).contains(&carried.len())
        && carried.iter().all(|c| matches!(c.var.ty, Type::Scalar(_)))
        && red
            .reductions
            .iter()
            .all(|r| crate::loopy::chunk::infallible(&r.op.body));
    if n < 2 || !reduction || !invariant(&red.width) {
        return None;
    }
    let outside = |a: &Atom| match a {
        Atom::Var(v) => free.contains(v),
        Atom::Const(_) => true,
    };
    if !carried.iter().all(|c| outside(&c.init)) {
        return None;
    }
    // Row views of the levels' statements: view -> (array, index).
    let mut views: HashMap<VarId, (VarId, Vec<Atom>)> = HashMap::new();
    for l in &levels {
        crate::loopy::chunk::for_each_stmt(&l.pre, &mut |s| {
            if let Stmt::Row {
                var, array, index, ..
            } = s
            {
                let (base, mut full) = views
                    .get(array)
                    .cloned()
                    .unwrap_or_else(|| (*array, Vec::new()));
                full.extend(index.iter().copied());
                views.insert(var.id, (base, full));
            }
        });
    }
    let base_of = |v: VarId| views.get(&v).map_or(v, |(b, _)| *b);
    let mut written = HashSet::new();
    crate::loopy::chunk::for_each_stmt(&nest.body, &mut |s| match s {
        Stmt::Write { array, .. } | Stmt::Copy { array, .. } | Stmt::InPlace { array, .. } => {
            written.insert(base_of(*array));
        }
        Stmt::View { array, .. } => {
            // A reshaped view could be written under another name.
            written.insert(base_of(*array));
        }
        _ => {}
    });
    // The reduction's body: values that cannot fail, and operand reads.
    let mut known: HashSet<VarId> = free.clone();
    known.insert(red.index.id);
    known.extend(levels.iter().map(|l| l.index));
    known.extend(carried.iter().map(|c| c.var.id));
    let mut operands: Vec<Operand> = Vec::new();
    let mut reads = HashMap::new();
    for (at, s) in red.body.iter().enumerate() {
        match s {
            Stmt::Let { var, exp, .. } if !exp.may_fail() => {
                let (mut uses, mut defs) = (BTreeSet::new(), HashSet::new());
                block_vars(std::slice::from_ref(s), &mut uses, &mut defs);
                if !uses.iter().all(|v| known.contains(v)) {
                    return None;
                }
                known.insert(var.id);
            }
            Stmt::Read {
                var,
                array,
                index,
                check: None,
            } => {
                let (base, mut full) = views
                    .get(array)
                    .cloned()
                    .unwrap_or_else(|| (*array, Vec::new()));
                full.extend(index.iter().copied());
                if !free.contains(&base) || written.contains(&base) {
                    return None;
                }
                let op = operand(base, &full, red.index.id, &levels, &free)?;
                let k = operands
                    .iter()
                    .position(|o| o.base == op.base && o.index == op.index)
                    .unwrap_or_else(|| {
                        operands.push(op);
                        operands.len() - 1
                    });
                reads.insert(at, k);
                known.insert(var.id);
            }
            _ => return None,
        }
    }
    let computed = |a: &Atom| match a {
        Atom::Var(v) => known.contains(v),
        Atom::Const(_) => true,
    };
    if operands.is_empty() || !carried.iter().all(|c| computed(&c.next)) {
        return None;
    }
    Some(Tiled {
        levels,
        red: red.clone(),
        post,
        operands,
        reads,
    })
}

/// An operand read at `full` of `base`: one position is `k`, the others
/// level indices (the rows' and the columns' not both) or values from
/// outside the nest.
fn operand(
    base: VarId,
    full: &[Atom],
    k: VarId,
    levels: &[Level],
    free: &HashSet<VarId>,
) -> Option<Operand> {
    let n = levels.len();
    let mut index = Vec::new();
    for a in full {
        index.push(match a {
            Atom::Var(v) if *v == k => Pos::K,
            Atom::Var(v) => match levels.iter().position(|l| l.index == *v) {
                Some(l) => Pos::Level(l),
                None if free.contains(v) => Pos::Fixed(*a),
                None => return None,
            },
            Atom::Const(_) => Pos::Fixed(*a),
        });
    }
    let count = |p: Pos| index.iter().filter(|q| **q == p).count();
    let (rows, cols) = (count(Pos::Level(n - 2)), count(Pos::Level(n - 1)));
    if count(Pos::K) != 1 || rows + cols > 1 {
        return None;
    }
    let side = match (rows, cols) {
        (1, _) => Side::Rows,
        (_, 1) => Side::Cols,
        _ => Side::Neither,
    };
    Some(Operand { base, index, side })
}

impl Tiled {
    /// The element type of each operand, in the kernel's or host's frame.
    fn elems<'ctx>(&self, gen: &Gen<'ctx, '_>, fr: &Frame<'ctx>) -> Res<Vec<ScalarType>> {
        self.operands
            .iter()
            .map(|o| Ok(gen.array(fr, o.base)?.1))
            .collect()
    }
}

impl<'ctx> Gen<'ctx, '_> {
    /// Bytes of shared memory a block's staged slices take, with tiles of
    /// side `side` threads: per operand `S` rows of `T + 1` (or 2)
    /// elements, 8-byte aligned. Host code and the kernel compute the same.
    fn tile_regions(
        &self,
        tiled: &Tiled,
        elems: &[ScalarType],
        side: IntValue<'ctx>,
    ) -> Res<(Vec<IntValue<'ctx>>, Vec<IntValue<'ctx>>, IntValue<'ctx>)> {
        let t = self.builder.build_int_mul(side, self.const_i64(REG), "T")?;
        let pitch_t = self.builder.build_int_add(t, self.const_i64(1), "")?;
        let mut offsets = Vec::new();
        let mut pitches = Vec::new();
        let mut at = self.const_i64(0);
        for (o, elem) in tiled.operands.iter().zip(elems) {
            let pitch = match o.side {
                Side::Neither => self.const_i64(1),
                _ => pitch_t,
            };
            offsets.push(at);
            pitches.push(pitch);
            let n = self.builder.build_int_mul(side, pitch, "")?;
            let bytes = self
                .builder
                .build_int_mul(n, self.const_i64(elem.bytes() as i64), "")?;
            let bytes = self.builder.build_int_add(bytes, self.const_i64(7), "")?;
            let bytes = self.builder.build_and(bytes, self.const_i64(-8), "")?;
            at = self.builder.build_int_add(at, bytes, "")?;
        }
        Ok((offsets, pitches, at))
    }

    /// The tiled kernel of `nest` (see the module comment).
    pub(super) fn tiled_body(
        &mut self,
        fr: &mut Frame<'ctx>,
        tiled: &Tiled,
        kp: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let n = tiled.levels.len();
        let mut widths = vec![kp[WIDTH].into_int_value()];
        for l in &tiled.levels[1..] {
            widths.push(self.int(fr, &l.width)?);
        }
        let kw = self.int(fr, &tiled.red.width)?;
        let (x, y, side) = (
            self.sreg("tid.x")?,
            self.sreg("tid.y")?,
            self.sreg("ntid.x")?,
        );
        let lin = self.builder.build_int_mul(y, side, "")?;
        let lin = self.builder.build_int_add(lin, x, "lin")?;
        let threads = self.builder.build_int_mul(side, side, "")?;
        let t = self.builder.build_int_mul(side, self.const_i64(REG), "T")?;
        let (wi, wj) = (widths[n - 2], widths[n - 1]);
        let tiles_i = self.ceil_div(wi, t)?;
        let tiles_j = self.ceil_div(wj, t)?;
        let mut total = self.builder.build_int_mul(tiles_i, tiles_j, "")?;
        for w in &widths[..n - 2] {
            total = self.builder.build_int_mul(total, *w, "")?;
        }
        // Key spans: one iteration of level l covers span[l] keys.
        let mut span = vec![self.const_i64(1); n];
        for l in (0..n - 1).rev() {
            let s = self.builder.build_int_mul(widths[l + 1], span[l + 1], "")?;
            span[l] = self.builder.build_int_add(s, self.const_i64(1), "")?;
        }
        let elems = tiled.elems(self, fr)?;
        let (offsets, pitches, _) = self.tile_regions(tiled, &elems, side)?;
        let shared = self.shared_base()?;
        let regions: Vec<PointerValue<'ctx>> = offsets
            .iter()
            .map(|off| {
                // Safety: host code sized the shared memory for these regions.
                Ok(unsafe {
                    self.builder
                        .build_in_bounds_gep(self.ctx.i8_type(), shared, &[*off], "tile")?
                })
            })
            .collect::<Res<_>>()?;
        // The accumulators: REG x REG outputs, each its carried values.
        let carried: Vec<_> = tiled.red.carried().cloned().collect();
        let mut slots = Vec::new();
        for _ in 0..REG * REG {
            let mut ps = Vec::new();
            for c in &carried {
                let ty = self.field_types(c.var.ty)[0];
                ps.push((self.entry_alloca(fr.func, ty)?, ty));
            }
            slots.push(ps);
        }
        let (ctaid, nctaid) = (self.sreg("ctaid.x")?, self.sreg("nctaid.x")?);
        let tiled = tiled.clone();
        self.kernel_loop(fr, ctaid, total, nctaid, &mut |gen, fr, tile| {
            // The tile's batch, rows and columns.
            let bj = gen.builder.build_int_signed_rem(tile, tiles_j, "")?;
            let q = gen.builder.build_int_signed_div(tile, tiles_j, "")?;
            let bi = gen.builder.build_int_signed_rem(q, tiles_i, "")?;
            let mut bz = gen.builder.build_int_signed_div(q, tiles_i, "")?;
            let mut at = vec![gen.const_i64(0); n];
            for l in (0..n - 2).rev() {
                at[l] = gen.builder.build_int_signed_rem(bz, widths[l], "")?;
                bz = gen.builder.build_int_signed_div(bz, widths[l], "")?;
            }
            let i0 = gen.builder.build_int_mul(bi, t, "i0")?;
            let j0 = gen.builder.build_int_mul(bj, t, "j0")?;
            for (l, v) in at.iter().enumerate().take(n - 2) {
                fr.vals.insert(
                    tiled.levels[l].index,
                    Val::Scalar((*v).into(), ScalarType::I64),
                );
            }
            for ps in &slots {
                for (c, (slot, _)) in carried.iter().zip(ps) {
                    let v = gen.fields(&gen.val(fr, &c.init)?)[0];
                    gen.builder.build_store(*slot, v)?;
                }
            }
            let step = side;
            gen.kernel_loop(fr, gen.const_i64(0), kw, step, &mut |gen, fr, k0| {
                for (o, op) in tiled.operands.iter().enumerate() {
                    let first = match op.side {
                        Side::Rows => i0,
                        Side::Cols => j0,
                        Side::Neither => gen.const_i64(0),
                    };
                    gen.stage_operand(
                        fr,
                        op,
                        elems[o],
                        regions[o],
                        pitches[o],
                        (first, k0, lin, threads, side),
                        &at,
                        (wi, wj, kw),
                    )?;
                }
                gen.barrier()?;
                let left = gen.builder.build_int_sub(kw, k0, "")?;
                let kend = gen.min(left, side)?;
                let one = gen.const_i64(1);
                gen.kernel_loop(fr, gen.const_i64(0), kend, one, &mut |gen, fr, kk| {
                    gen.tile_step(
                        fr,
                        &tiled,
                        &elems,
                        &regions,
                        &pitches,
                        (k0, kk),
                        (x, y, side),
                        (i0, j0),
                        &slots,
                    )
                })?;
                gen.barrier()
            })?;
            // Once per output: the statements around the reduction.
            for r in 0..REG {
                for c in 0..REG {
                    let (i, j) = gen.tile_output(i0, j0, x, y, side, r, c)?;
                    let inside_i = gen
                        .builder
                        .build_int_compare(IntPredicate::SLT, i, wi, "")?;
                    let inside_j = gen
                        .builder
                        .build_int_compare(IntPredicate::SLT, j, wj, "")?;
                    let inside = gen.builder.build_and(inside_i, inside_j, "")?;
                    let mut at = at.clone();
                    at[n - 2] = i;
                    at[n - 1] = j;
                    let slots = &slots[(r * REG + c) as usize];
                    gen.when(fr.func, inside, |gen| {
                        gen.leaving_on_fail(fr, "tile.out", |gen, fr| {
                            gen.tile_epilogue(fr, &tiled, &at, &span, slots)
                        })
                    })?;
                }
            }
            Ok(())
        })
    }

    /// Output `(r, c)` of thread `(x, y)`'s register block.
    #[allow(clippy::too_many_arguments)]
    fn tile_output(
        &self,
        i0: IntValue<'ctx>,
        j0: IntValue<'ctx>,
        x: IntValue<'ctx>,
        y: IntValue<'ctx>,
        side: IntValue<'ctx>,
        r: i64,
        c: i64,
    ) -> Res<(IntValue<'ctx>, IntValue<'ctx>)> {
        let sr = self.builder.build_int_mul(side, self.const_i64(r), "")?;
        let sc = self.builder.build_int_mul(side, self.const_i64(c), "")?;
        let i = self.builder.build_int_add(i0, y, "")?;
        let i = self.builder.build_int_add(i, sr, "i")?;
        let j = self.builder.build_int_add(j0, x, "")?;
        let j = self.builder.build_int_add(j, sc, "j")?;
        Ok((i, j))
    }
}

impl<'ctx> Gen<'ctx, '_> {
    /// Stages operand `op`'s slice for k in `[k0, k0 + S)` into `region`
    /// (row `kk` of `pitch` elements): its `T` rows from `first` (or one),
    /// consecutive threads along the array's last dimension. Elements
    /// outside the loops or the array are not read (zero instead).
    #[allow(clippy::too_many_arguments)]
    fn stage_operand(
        &mut self,
        fr: &mut Frame<'ctx>,
        op: &Operand,
        elem: ScalarType,
        region: PointerValue<'ctx>,
        pitch: IntValue<'ctx>,
        (first, k0, lin, threads, side): (
            IntValue<'ctx>,
            IntValue<'ctx>,
            IntValue<'ctx>,
            IntValue<'ctx>,
            IntValue<'ctx>,
        ),
        at: &[IntValue<'ctx>],
        (wi, wj, kw): (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
    ) -> Res<()> {
        let n = at.len();
        let rows = match op.side {
            Side::Neither => self.const_i64(1),
            _ => self.builder.build_int_mul(side, self.const_i64(REG), "")?,
        };
        let count = self.builder.build_int_mul(rows, side, "")?;
        let k_last = op.index.last() == Some(&Pos::K);
        let (ptr, _, shape) = self.array(fr, op.base)?;
        let ty = self.mem_type(elem);
        let tmp = self.entry_alloca(fr.func, ty)?;
        self.kernel_loop(fr, lin, count, threads, &mut |gen, fr, e| {
            let (kk, row) = if k_last {
                (
                    gen.builder.build_int_signed_rem(e, side, "")?,
                    gen.builder.build_int_signed_div(e, side, "")?,
                )
            } else {
                (
                    gen.builder.build_int_signed_div(e, rows, "")?,
                    gen.builder.build_int_signed_rem(e, rows, "")?,
                )
            };
            let gk = gen.builder.build_int_add(k0, kk, "")?;
            let grow = gen.builder.build_int_add(first, row, "")?;
            let mut ok = gen
                .builder
                .build_int_compare(IntPredicate::SLT, gk, kw, "")?;
            let limit = match op.side {
                Side::Rows => Some(wi),
                Side::Cols => Some(wj),
                Side::Neither => None,
            };
            if let Some(w) = limit {
                let below = gen
                    .builder
                    .build_int_compare(IntPredicate::SLT, grow, w, "")?;
                ok = gen.builder.build_and(ok, below, "")?;
            }
            let mut index = Vec::new();
            for p in &op.index {
                index.push(match p {
                    Pos::K => gk,
                    Pos::Level(l) if *l + 2 >= n => grow,
                    Pos::Level(l) => at[*l],
                    Pos::Fixed(a) => gen.index(fr, a)?,
                });
            }
            for (i, d) in index.iter().zip(&shape) {
                let inside = gen
                    .builder
                    .build_int_compare(IntPredicate::ULT, *i, *d, "")?;
                ok = gen.builder.build_and(ok, inside, "")?;
            }
            gen.builder.build_store(tmp, ty.const_zero())?;
            gen.when(fr.func, ok, |gen| {
                let from = gen.offset_ptr(ptr, elem, &shape, &index)?;
                let v = gen.builder.build_load(ty, from, "")?;
                gen.builder.build_store(tmp, v)?;
                Ok(())
            })?;
            let v = gen.builder.build_load(ty, tmp, "")?;
            let cell = gen.builder.build_int_mul(kk, pitch, "")?;
            let cell = gen.builder.build_int_add(cell, row, "")?;
            // Safety: `kk < S` and `row < pitch`: inside the region.
            let to = unsafe { gen.builder.build_in_bounds_gep(ty, region, &[cell], "")? };
            gen.announce_bytes(to, elem.bytes(), true)?;
            gen.builder.build_store(to, v)?;
            Ok(())
        })
    }

    /// Step `k0 + kk` of the reduction for each of the thread's outputs,
    /// the operands read from their staged slices.
    #[allow(clippy::too_many_arguments)]
    fn tile_step(
        &mut self,
        fr: &mut Frame<'ctx>,
        tiled: &Tiled,
        elems: &[ScalarType],
        regions: &[PointerValue<'ctx>],
        pitches: &[IntValue<'ctx>],
        (k0, kk): (IntValue<'ctx>, IntValue<'ctx>),
        (x, y, side): (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
        (i0, j0): (IntValue<'ctx>, IntValue<'ctx>),
        slots: &[Vec<(PointerValue<'ctx>, inkwell::types::BasicTypeEnum<'ctx>)>],
    ) -> Res<()> {
        let n = tiled.levels.len();
        let k = self.builder.build_int_add(k0, kk, "k")?;
        fr.vals
            .insert(tiled.red.index.id, Val::Scalar(k.into(), ScalarType::I64));
        // Each operand's values for this k: one per row or column.
        let mut values = Vec::new();
        for (o, op) in tiled.operands.iter().enumerate() {
            let ty = self.mem_type(elems[o]);
            let row0 = self.builder.build_int_mul(kk, pitches[o], "")?;
            let (lane, count) = match op.side {
                Side::Rows => (y, REG),
                Side::Cols => (x, REG),
                Side::Neither => (self.const_i64(0), 1),
            };
            let mut vs = Vec::new();
            for r in 0..count {
                let off = self.builder.build_int_mul(side, self.const_i64(r), "")?;
                let cell = self.builder.build_int_add(row0, lane, "")?;
                let cell = self.builder.build_int_add(cell, off, "")?;
                // Safety: inside the operand's region (as staged).
                let p = unsafe {
                    self.builder
                        .build_in_bounds_gep(ty, regions[o], &[cell], "")?
                };
                self.announce_bytes(p, elems[o].bytes(), false)?;
                let v = self.builder.build_load(ty, p, "")?;
                vs.push(self.load_from_mem(v, elems[o])?);
            }
            values.push(vs);
        }
        let carried: Vec<_> = tiled.red.carried().cloned().collect();
        for r in 0..REG {
            for c in 0..REG {
                let (i, j) = self.tile_output(i0, j0, x, y, side, r, c)?;
                fr.vals.insert(
                    tiled.levels[n - 2].index,
                    Val::Scalar(i.into(), ScalarType::I64),
                );
                fr.vals.insert(
                    tiled.levels[n - 1].index,
                    Val::Scalar(j.into(), ScalarType::I64),
                );
                let ps = &slots[(r * REG + c) as usize];
                for (cv, (slot, ty)) in carried.iter().zip(ps) {
                    let v = self.builder.build_load(*ty, *slot, "")?;
                    let v = self.val_of_fields(cv.var.ty, &[v])?;
                    fr.vals.insert(cv.var.id, v);
                }
                for (at, s) in tiled.red.body.iter().enumerate() {
                    match (tiled.reads.get(&at), s) {
                        (Some(&o), Stmt::Read { var, .. }) => {
                            let v = match tiled.operands[o].side {
                                Side::Rows => values[o][r as usize],
                                Side::Cols => values[o][c as usize],
                                Side::Neither => values[o][0],
                            };
                            fr.vals.insert(var.id, Val::Scalar(v, elems[o]));
                        }
                        _ => self.block(fr, &vec![s.clone()])?,
                    }
                }
                for (cv, (slot, _)) in carried.iter().zip(ps) {
                    let v = self.fields(&self.val(fr, &cv.next)?)[0];
                    self.builder.build_store(*slot, v)?;
                }
            }
        }
        Ok(())
    }

    /// One output's statements around its reduction, in sequential order
    /// with the sequential run's error keys: each level's statements,
    /// the reduction's results, the statements after it.
    fn tile_epilogue(
        &mut self,
        fr: &mut Frame<'ctx>,
        tiled: &Tiled,
        at: &[IntValue<'ctx>],
        span: &[IntValue<'ctx>],
        slots: &[(PointerValue<'ctx>, inkwell::types::BasicTypeEnum<'ctx>)],
    ) -> Res<()> {
        let key_slot = self.key_slot()?;
        let mut key = self.builder.build_int_mul(at[0], span[0], "")?;
        for (l, level) in tiled.levels.iter().enumerate() {
            fr.vals
                .insert(level.index, Val::Scalar(at[l].into(), ScalarType::I64));
            if l > 0 {
                let off = self.builder.build_int_mul(at[l], span[l], "")?;
                key = self.builder.build_int_add(key, off, "")?;
                key = self.builder.build_int_add(key, self.const_i64(1), "")?;
            }
            self.builder.build_store(key_slot, key)?;
            self.block(fr, &level.pre)?;
        }
        let mut finals = Vec::new();
        for (c, (slot, ty)) in tiled.red.carried().zip(slots) {
            let v = self.builder.build_load(*ty, *slot, "")?;
            finals.push(self.val_of_fields(c.var.ty, &[v])?);
        }
        self.bind_finals(fr, &tiled.red, finals)?;
        self.block(fr, &tiled.post)
    }

    /// Host side: the tiled kernel `kernel` over the nest's tiles, or,
    /// when a row or column map is empty, its map form `fallback` (whose
    /// outer statements still run).
    pub(super) fn launch_tiled(
        &mut self,
        fr: &Frame<'ctx>,
        tiled: &Tiled,
        kernel: usize,
        fallback: usize,
        params: &Params<'ctx>,
        values: &[BasicValueEnum<'ctx>],
    ) -> Res<()> {
        let n = tiled.levels.len();
        let f = self.runtime(RuntimeFn::GpuTileSide);
        let side = self.call_int(f, &[])?;
        let mut widths = vec![values[WIDTH].into_int_value()];
        for l in &tiled.levels[1..] {
            widths.push(self.int(fr, &l.width)?);
        }
        let zero = self.const_i64(0);
        let mut empty = self.ctx.bool_type().const_zero();
        for w in &widths[1..] {
            let e = self
                .builder
                .build_int_compare(IntPredicate::EQ, *w, zero, "")?;
            empty = self.builder.build_or(empty, e, "")?;
        }
        let t = self.builder.build_int_mul(side, self.const_i64(REG), "")?;
        let mut tiles = self.ceil_div(widths[n - 2], t)?;
        let tj = self.ceil_div(widths[n - 1], t)?;
        tiles = self.builder.build_int_mul(tiles, tj, "")?;
        for w in &widths[..n - 2] {
            tiles = self.builder.build_int_mul(tiles, *w, "")?;
        }
        let elems = tiled.elems(self, fr)?;
        let (_, _, shared) = self.tile_regions(tiled, &elems, side)?;
        let width = widths[0];
        self.when(fr.func, empty, |gen| {
            gen.launch(
                fallback,
                super::abi::Grid::Work,
                width,
                &params.types,
                values,
                fr,
            )
        })?;
        let full = self.builder.build_not(empty, "")?;
        self.when(fr.func, full, |gen| {
            let args = gen.launch_args(&params.types, values, fr)?;
            let k = gen.ctx.i32_type().const_int(kernel as u64, false);
            let launch = gen.runtime(RuntimeFn::GpuLaunchTiles);
            gen.builder.build_call(
                launch,
                &[
                    k.into(),
                    tiles.into(),
                    side.into(),
                    shared.into(),
                    args.into(),
                ],
                "",
            )?;
            Ok(())
        })
    }
}
