//! Register blocking (unroll-and-jam) of map-map-reduce nests: a pass over
//! lowered functions that rewrites a parallel map `O` over `i` whose body
//! is a map `J` over `j` whose body is one reduce nest `R` over `k` so that
//! each iteration of the new nests computes a `ROWS` x `COLS` block of
//! results (the target's `Blocking`): one `k` loop with `ROWS * COLS`
//! reductions.
//!
//! In, the shape of a dense matrix product (`map (\x -> map (\y -> reduce
//! (+) 0 (map2 (*) x y)) bt) a`):
//!
//! ```text
//! loop map i < wi            -- O
//!   P                        -- rows and scalars of i (`row x = a[i]`)
//!   loop map j < wj          -- J
//!     Q                      -- rows and scalars of j, size assertions
//!     loop reduce k < wk     -- R: only reductions of scalars
//!       body                 -- unchecked reads and non-failing lets
//!     S                      -- size assertions, `write row_of_P[j] = ..`
//! ```
//!
//! Out (`nb_i = wi / ROWS` blocks of rows, `nb_j = wj / COLS` blocks of
//! columns; `G` and `T` below):
//!
//! ```text
//! loop map t < ceil(nb_i / G)                  -- O'': a group of row blocks
//!   for jt < ceil(nb_j / T)                    -- a tile of column blocks
//!     for g < min(G, nb_i - t * G)             -- the group's row blocks
//!       P per i = (t * G + g) * ROWS + v       -- (v < ROWS)
//!       loop map jj < min(T, nb_j - jt * T)    -- J'
//!         Q per j = (jt * T + jj) * COLS + u   -- (u < COLS)
//!         loop reduce k < wk                   -- R': R's reductions and
//!           copies of R's body                 --   body per (v, u)
//!         S per (v, u)
//!   for g < min(G, nb_i - t * G)
//!     P per i as above
//!     per v: J over the last wj % COLS values of j
//! O over the last wi % ROWS values of i
//! ```
//!
//! Copies that compute the same thing (a read of the same element, the
//! same assertion) are emitted once.
//!
//! Why: in `R` each multiply-add loads two elements, and the whole of the
//! `j` side is streamed from memory once per `i`. In `R'` a step loads
//! `ROWS + COLS` elements for `ROWS * COLS` multiply-adds; the code
//! generator vectorises the `k` loop, keeping the accumulators in
//! registers (floating-point reductions are reassociable). A block's
//! `ROWS` rows of the `i` side stay in the L1 cache while `J'` runs over a
//! tile; the tile's `T * COLS` rows of the `j` side (about `tile_bytes`, the target's:
//! `T` is computed at run time from `wk` and the element size) come from
//! memory once per group and stay in the L2 cache for the group's other
//! `G - 1` row blocks. Without groups and tiles, every block of rows
//! streamed the whole `j` side (4 MiB for 1024^2 `f32`, more than a
//! core's L2) from L3. `G = clamp(nb_i / MIN_GROUPS, 1, GROUP)` (the
//! target's `min_groups` and `group`) keeps at least `MIN_GROUPS` iterations in the parallel nest when there are that
//! many row blocks, and all of them when there are fewer; with `G = 1`
//! there is nothing to reuse, and `T = nb_j` (one tile, `J'` as long as
//! without tiles, for the cores to share when `O''` is too narrow).
//!
//! Only nests that match exactly are rewritten: the iterations of `O` and
//! `J` are independent (they are maps), so running them in another order
//! and in groups is safe; the reduce nest's body can neither fail nor
//! write, so merging `ROWS * COLS` copies of it only interleaves pure
//! computations. Each result is still one reduction over all of `k` (the
//! tiles split `j`, never `k`), so results do not change. Measured on
//! 1024^3 `f32` (`benches/programs/matmul.arr`, 2 cores, 512-bit vectors,
//! the best of interleaved runs): 4 x 4 blocks alone 44 ms with 1 thread
//! and 21 ms with 2; with groups and tiles 34 ms and 17 ms, about 4.5 ms
//! of the 34 being the program's transpose of `b` (since tiled by
//! `loopy::tile`).

use super::ir::{
    block_vars, Block, Carried, Function, LoopNest, Operator, Parallelism, Reduction, ScalarExp,
    SeqForm, SeqLoop, Stmt,
};
pub(super) use super::rename::{fresh_above, Fresh};
use super::rename::{NameSource, Renaming};
use crate::core::ir::{Atom, BinOp, SrcLoc, Type, Var, VarId};
use crate::types::{Const, ScalarType};
use std::collections::{BTreeSet, HashSet};

/// How a target blocks products: `rows` values of the outer index by
/// `cols` of the inner one per block (`rows * cols` accumulators and
/// `rows + cols` vector loads per step, which must fit the vector
/// registers); tiles of about `tile_bytes` of `j` rows (meant to stay in a
/// core's L2 cache), each read by the at most `group` row blocks of a
/// group; and groups made smaller where the parallel nest would have fewer
/// than `min_groups` iterations.
///
/// With `outer`, a block is instead `rows` values of `i` by a panel of
/// `cols` values of `j` computed as outer products (`loopy::outer`);
/// `cols` counts 4-byte elements, and a panel of 8-byte ones has half as
/// many columns (the same registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocking {
    pub rows: usize,
    pub cols: usize,
    pub tile_bytes: usize,
    pub group: usize,
    pub min_groups: usize,
    pub outer: bool,
}

pub(super) const I64: Type = Type::Scalar(ScalarType::I64);

/// Register-blocks the map-map-reduce nests of `f` as `blocking` says;
/// see the module comment.
pub fn register_block(f: &mut Function, blocking: Blocking) {
    let mut fresh = fresh_above(f);
    if blocking.outer {
        super::outer::outer_products(f, &mut fresh, blocking);
        return;
    }
    rewrite_nests(&mut f.body, &mut fresh, &|o, fresh| {
        blocked(o, fresh, blocking)
    });
}

/// Replaces every loop nest of `stmts`, at any depth, for which `rewrite`
/// gives statements; the nests it leaves alone are searched inside.
pub(super) fn rewrite_nests(
    stmts: &mut Block,
    fresh: &mut Fresh,
    rewrite: &dyn Fn(&LoopNest, &mut Fresh) -> Option<Vec<Stmt>>,
) {
    let mut k = 0;
    while k < stmts.len() {
        let replacement = match &mut stmts[k] {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                rewrite_nests(then_block, fresh, rewrite);
                rewrite_nests(else_block, fresh, rewrite);
                None
            }
            Stmt::SeqLoop(lp) => {
                if let SeqForm::While { cond, .. } = &mut lp.form {
                    rewrite_nests(cond, fresh, rewrite);
                }
                rewrite_nests(&mut lp.body, fresh, rewrite);
                None
            }
            Stmt::Loop(nest) => match rewrite(nest, fresh) {
                Some(stmts) => Some(stmts),
                None => {
                    rewrite_nests(&mut nest.body, fresh, rewrite);
                    None
                }
            },
            _ => None,
        };
        match replacement {
            Some(new) => {
                let count = new.len();
                stmts.splice(k..k + 1, new);
                k += count;
            }
            None => k += 1,
        }
    }
}

/// The parts of a nest that matches (see the module comment).
#[derive(Clone, Copy)]
pub(super) struct Shape<'a> {
    pub(super) o: &'a LoopNest,
    pub(super) p: &'a [Stmt],
    pub(super) j: &'a LoopNest,
    pub(super) q: &'a [Stmt],
    pub(super) r: &'a LoopNest,
    pub(super) s: &'a [Stmt],
}

pub(super) fn only_maps(nest: &LoopNest) -> bool {
    nest.par == Parallelism::Map
        && nest.reductions.is_empty()
        && nest.scans.is_empty()
        && nest.compactions.is_empty()
        && nest.hists.is_empty()
        && nest.scatters.is_empty()
}

pub(super) fn outside(a: &Atom, inside: &HashSet<VarId>) -> bool {
    match a {
        Atom::Var(v) => !inside.contains(v),
        Atom::Const(_) => true,
    }
}

/// A size assertion or assertion on values from outside the nest.
pub(super) fn invariant_assert(stmt: &Stmt, inside: &HashSet<VarId>) -> bool {
    match stmt {
        Stmt::AssertEq {
            expected, found, ..
        } => outside(expected, inside) && outside(found, inside),
        Stmt::Assert { cond, report, .. } => {
            outside(cond, inside) && report.iter().all(|a| outside(a, inside))
        }
        _ => false,
    }
}

/// A statement of `P` or `Q` that cannot fail: blocking runs those of
/// several rows and columns before any of their reductions, so a failing
/// one could report another error than a sequential run's first.
pub(super) fn scalar_of_row(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Let { exp, .. } => !exp.may_fail(),
        Stmt::Row { check, .. } | Stmt::Read { check, .. } => check.is_none(),
        _ => false,
    }
}

pub(super) fn matches(o: &LoopNest) -> Option<Shape<'_>> {
    if !only_maps(o) {
        return None;
    }
    let (Stmt::Loop(j), p) = o.body.split_last()? else {
        return None;
    };
    if !only_maps(j) || !p.iter().all(scalar_of_row) {
        return None;
    }
    let mut uses = BTreeSet::new();
    let mut inside = HashSet::new();
    block_vars(&o.body, &mut uses, &mut inside);
    inside.insert(o.index.id);
    if !outside(&j.width, &inside) {
        return None;
    }
    let mut loops = j.body.iter().enumerate().filter(|(_, s)| {
        matches!(
            s,
            Stmt::Loop(_) | Stmt::SeqLoop(_) | Stmt::If { .. } | Stmt::Alloc { .. }
        )
    });
    let (at, Stmt::Loop(r)) = loops.next()? else {
        return None;
    };
    if loops.next().is_some() {
        return None;
    }
    let (q, s) = (&j.body[..at], &j.body[at + 1..]);
    if !q
        .iter()
        .all(|s| scalar_of_row(s) || invariant_assert(s, &inside))
    {
        return None;
    }
    let row_of_p: HashSet<VarId> = p
        .iter()
        .filter_map(|s| match s {
            Stmt::Row { var, .. } => Some(var.id),
            _ => None,
        })
        .collect();
    let s_ok = s.iter().all(|stmt| match stmt {
        Stmt::Let { exp, .. } => !exp.may_fail(),
        Stmt::Write { array, index, .. } => {
            row_of_p.contains(array) && index == &[Atom::Var(j.index.id)]
        }
        _ => invariant_assert(stmt, &inside),
    });
    let r_ok = scalar_reduction(r, &inside)
        && r.body.iter().all(|stmt| match stmt {
            Stmt::Let { exp, .. } => !exp.may_fail(),
            Stmt::Read { check, .. } => check.is_none(),
            _ => false,
        });
    (s_ok && r_ok).then_some(Shape { o, p, j, q, r, s })
}

/// A reduce nest of integer and float scalars only (no scan, compaction
/// or histogram), whose width is defined outside `inside`: the same in
/// every iteration of the nest around it.
pub(super) fn scalar_reduction(r: &LoopNest, inside: &HashSet<VarId>) -> bool {
    r.par == Parallelism::Reduce
        && !r.reductions.is_empty()
        && r.scans.is_empty()
        && r.compactions.is_empty()
        && r.hists.is_empty()
        && r.scatters.is_empty()
        && outside(&r.width, inside)
        && r.reductions.iter().all(|red| {
            red.carried.iter().all(|c| match c.var.ty {
                Type::Scalar(t) => t.is_int() || matches!(t, ScalarType::F32 | ScalarType::F64),
                Type::Array(..) => false,
            })
        })
}

pub(super) fn loc0() -> SrcLoc {
    SrcLoc {
        file: 0,
        line: 0,
        col: 0,
    }
}

pub(super) fn var(v: &Var) -> Atom {
    Atom::Var(v.id)
}

pub(super) fn i64c(x: usize) -> Atom {
    Atom::Const(Const::I64(x as i64))
}

pub(super) fn let_bin(out: &mut Block, var: &Var, op: BinOp, a: Atom, b: Atom) {
    out.push(Stmt::Let {
        var: var.clone(),
        exp: ScalarExp::BinOp(op, a, b),
        loc: loc0(),
    });
}

/// `blocks = width / factor`, `start = blocks * factor` (the first index
/// of the remainder) and `rest = width - start`.
pub(super) fn split(
    width: &Atom,
    factor: usize,
    fresh: &mut Fresh,
    out: &mut Block,
) -> (Var, Var, Var) {
    let blocks = fresh.fresh_var("blocks", I64);
    let start = fresh.fresh_var("rest_from", I64);
    let rest = fresh.fresh_var("rest", I64);
    let_bin(out, &blocks, BinOp::Quot, *width, i64c(factor));
    let_bin(out, &start, BinOp::Mul, Atom::Var(blocks.id), i64c(factor));
    let_bin(out, &rest, BinOp::Sub, *width, Atom::Var(start.id));
    (blocks, start, rest)
}

/// `original` over `start..start + rest`: a copy of `original`'s body
/// after `index = offset + start`, renamed by `env`.
pub(super) fn remainder(
    original: &LoopNest,
    start: &Var,
    rest: &Var,
    mut env: Renaming,
    fresh: &mut Fresh,
) -> Stmt {
    let offset = fresh.fresh_var(&original.index.name, I64);
    let index = env.def(fresh, &original.index);
    let mut body = Vec::new();
    let_bin(
        &mut body,
        &index,
        BinOp::Add,
        Atom::Var(offset.id),
        Atom::Var(start.id),
    );
    body.extend(env.block(fresh, &original.body));
    Stmt::Loop(LoopNest::map(
        original.origin,
        offset,
        Atom::Var(rest.id),
        body,
    ))
}

/// Defines `index_n = blocked * factor + n` in `out` for each `n <
/// factor`: the values of `original` in a block.
pub(super) fn block_indices(
    original: &Var,
    blocked: &Var,
    factor: usize,
    fresh: &mut Fresh,
    out: &mut Block,
) -> Vec<Var> {
    let base = fresh.fresh_var(&format!("{}_block", original.name), I64);
    let_bin(out, &base, BinOp::Mul, Atom::Var(blocked.id), i64c(factor));
    (0..factor)
        .map(|n| {
            let index = fresh.fresh_var(&original.name, I64);
            let_bin(out, &index, BinOp::Add, Atom::Var(base.id), i64c(n));
            index
        })
        .collect()
}

/// The blocked form of `o`, if it matches (see the module comment).
pub(super) fn blocked(o: &LoopNest, fresh: &mut Fresh, blocking: Blocking) -> Option<Vec<Stmt>> {
    let shape = matches(o)?;
    let (o, j) = (shape.o, shape.j);
    let mut out = Vec::new();
    let (blocks_i, start_i, rest_i) = split(&o.width, blocking.rows, fresh, &mut out);
    let (blocks_j, start_j, rest_j) = split(&j.width, blocking.cols, fresh, &mut out);
    let (group, groups) = group_size(&blocks_i, blocking, fresh, &mut out);
    let (tile, tiles) = tile_size(&shape, blocking, &group, &blocks_j, fresh, &mut out);

    // O'': the row blocks of group `t`.
    let t = fresh.fresh_var(&format!("{}_groups", o.index.name), I64);
    let mut o_body = Vec::new();
    let (first_i, count_i) = range_of(&t, var(&group), var(&blocks_i), fresh, &mut o_body);

    // Per tile of column blocks, per row block of the group: P and J'.
    let jt = fresh.fresh_var(&format!("{}_tiles", j.index.name), I64);
    let mut tile_body = Vec::new();
    let (first_j, count_j) = range_of(&jt, var(&tile), var(&blocks_j), fresh, &mut tile_body);
    let (g, mut g_body, row_envs) = row_block(&shape, blocking.rows, &first_i, fresh);
    let columns = block_columns(&shape, blocking.cols, row_envs, &first_j, &count_j, fresh);
    g_body.push(Stmt::Loop(columns));
    tile_body.push(for_loop(g, &count_i, g_body));
    o_body.push(for_loop(jt, &tiles, tile_body));

    // The last columns, per row block of the group and row of the block.
    let (g, mut g_body, row_envs) = row_block(&shape, blocking.rows, &first_i, fresh);
    for env in row_envs {
        g_body.push(remainder(j, &start_j, &rest_j, env, fresh));
    }
    o_body.push(for_loop(g, &count_i, g_body));
    out.push(Stmt::Loop(LoopNest::map(o.origin, t, var(&groups), o_body)));

    // The last rows.
    out.push(remainder(o, &start_i, &rest_i, Renaming::default(), fresh));
    Some(out)
}

/// `group`, the number of row blocks per iteration of the parallel nest,
/// and `groups = ceil(blocks / group)`, the width of that nest: `group =
/// clamp(blocks / blocking.min_groups, 1, blocking.group)`, so that small
/// products keep their parallelism.
pub(super) fn group_size(
    blocks: &Var,
    blocking: Blocking,
    fresh: &mut Fresh,
    out: &mut Block,
) -> (Var, Var) {
    let wanted = fresh.fresh_var("group_want", I64);
    let at_least = fresh.fresh_var("group_min", I64);
    let group = fresh.fresh_var("group", I64);
    let_bin(
        out,
        &wanted,
        BinOp::Quot,
        var(blocks),
        i64c(blocking.min_groups.max(1)),
    );
    let_bin(out, &at_least, BinOp::Max, var(&wanted), i64c(1));
    let_bin(
        out,
        &group,
        BinOp::Min,
        var(&at_least),
        i64c(blocking.group.max(1)),
    );
    let groups = ceil_quot(var(blocks), var(&group), "groups", fresh, out);
    (group, groups)
}

/// `tile`, the number of column blocks per tile, and `tiles =
/// ceil(blocks / tile)`. With more than one row block per group, as many
/// column blocks as have `j` rows that fit in `tile_bytes` at the run-time
/// width of the reduction (at least 1); with one, all of them: a tile
/// read by one row block saves nothing, and a product with few row blocks
/// leaves the cores to `J'`, which should not be cut short.
pub(super) fn tile_size(
    shape: &Shape,
    blocking: Blocking,
    group: &Var,
    blocks: &Var,
    fresh: &mut Fresh,
    out: &mut Block,
) -> (Var, Var) {
    let per_k = blocking.cols * j_bytes_per_step(shape).max(1);
    let bytes = fresh.fresh_var("tile_k_bytes", I64);
    let at_least = fresh.fresh_var("tile_k_bytes", I64);
    let fitting = fresh.fresh_var("tile_fit", I64);
    let fitting_1 = fresh.fresh_var("tile_fit", I64);
    let all = fresh.fresh_var("tile_all", I64);
    let grouped = fresh.fresh_var("grouped", Type::Scalar(ScalarType::Bool));
    let tile = fresh.fresh_var("tile", I64);
    let_bin(out, &bytes, BinOp::Mul, shape.r.width, i64c(per_k));
    let_bin(out, &at_least, BinOp::Max, var(&bytes), i64c(1));
    let_bin(
        out,
        &fitting,
        BinOp::Quot,
        i64c(blocking.tile_bytes),
        var(&at_least),
    );
    let_bin(out, &fitting_1, BinOp::Max, var(&fitting), i64c(1));
    let_bin(out, &all, BinOp::Max, var(blocks), i64c(1));
    let_bin(out, &grouped, BinOp::Gt, var(group), i64c(1));
    out.push(Stmt::If {
        results: vec![tile.clone()],
        cond: var(&grouped),
        then_block: Vec::new(),
        then_results: vec![var(&fitting_1)],
        else_block: Vec::new(),
        else_results: vec![var(&all)],
    });
    let tiles = ceil_quot(var(blocks), var(&tile), "tiles", fresh, out);
    (tile, tiles)
}

/// The bytes the reduction's body reads per step from arrays of `j` (rows
/// defined by `Q`, or indexed by `j` or by values of `Q`): for a product,
/// one element of a `j` row.
fn j_bytes_per_step(shape: &Shape) -> usize {
    let mut uses = BTreeSet::new();
    let mut of_j = HashSet::new();
    block_vars(shape.q, &mut uses, &mut of_j);
    of_j.insert(shape.j.index.id);
    let reads_j = |array: &VarId, index: &[Atom]| {
        of_j.contains(array) || index.iter().any(|a| !outside(a, &of_j))
    };
    shape
        .r
        .body
        .iter()
        .map(|stmt| match stmt {
            Stmt::Read {
                var:
                    Var {
                        ty: Type::Scalar(t),
                        ..
                    },
                array,
                index,
                ..
            } if reads_j(array, index) => t.bytes(),
            _ => 0,
        })
        .sum()
}

/// `ceil(a / b)` for `a >= 0`, `b >= 1`.
pub(super) fn ceil_quot(a: Atom, b: Atom, name: &str, fresh: &mut Fresh, out: &mut Block) -> Var {
    let bumped = fresh.fresh_var(name, I64);
    let less = fresh.fresh_var(name, I64);
    let result = fresh.fresh_var(name, I64);
    let_bin(out, &bumped, BinOp::Add, a, b);
    let_bin(out, &less, BinOp::Sub, var(&bumped), i64c(1));
    let_bin(out, &result, BinOp::Quot, var(&less), b);
    result
}

/// The first element of part `index` of `0..len` cut into parts of
/// `size`, and how many elements that part has.
pub(super) fn range_of(
    index: &Var,
    size: Atom,
    len: Atom,
    fresh: &mut Fresh,
    out: &mut Block,
) -> (Var, Var) {
    let first = fresh.fresh_var(&format!("{}_first", index.name), I64);
    let left = fresh.fresh_var("left", I64);
    let count = fresh.fresh_var(&format!("{}_count", index.name), I64);
    let_bin(out, &first, BinOp::Mul, var(index), size);
    let_bin(out, &left, BinOp::Sub, len, var(&first));
    let_bin(out, &count, BinOp::Min, size, var(&left));
    (first, count)
}

/// `for index < bound do body` (sequential, nothing carried).
pub(super) fn for_loop(index: Var, bound: &Var, body: Block) -> Stmt {
    Stmt::SeqLoop(SeqLoop {
        params: Vec::new(),
        form: SeqForm::For {
            index,
            bound: var(bound),
        },
        body,
        next: Vec::new(),
        results: Vec::new(),
    })
}

/// The index `g` of a loop over the row blocks of a group and the start of
/// its body: the row block `first + g`, its `rows` values of `i` and `P`
/// per value, whose renamings are returned.
pub(super) fn row_block(
    shape: &Shape,
    rows: usize,
    first: &Var,
    fresh: &mut Fresh,
) -> (Var, Block, Vec<Renaming>) {
    let o = shape.o;
    let g = fresh.fresh_var(&format!("{}_in_group", o.index.name), I64);
    let ii = fresh.fresh_var(&format!("{}_blocks", o.index.name), I64);
    let mut body = Vec::new();
    let_bin(&mut body, &ii, BinOp::Add, var(first), var(&g));
    let is = block_indices(&o.index, &ii, rows, fresh, &mut body);
    let mut row_envs = cross_envs(&[Renaming::default()], o.index.id, &is);
    emit_copies(shape.p, &mut row_envs, fresh, &mut body, &mut Vec::new());
    (g, body, row_envs)
}

/// `J'` over the `count` column blocks from `first`: `Q`, `R'` and `S` per
/// element of a block of the rows of `row_envs` by `cols` columns.
fn block_columns(
    shape: &Shape,
    cols: usize,
    row_envs: Vec<Renaming>,
    first: &Var,
    count: &Var,
    fresh: &mut Fresh,
) -> LoopNest {
    let j = shape.j;
    let local = fresh.fresh_var(&format!("{}_blocks", j.index.name), I64);
    let jj = fresh.fresh_var(&format!("{}_blocks", j.index.name), I64);
    let mut body = Vec::new();
    let_bin(&mut body, &jj, BinOp::Add, var(first), var(&local));
    let js = block_indices(&j.index, &jj, cols, fresh, &mut body);
    let mut envs = cross_envs(&row_envs, j.index.id, &js);
    let mut seen = Vec::new();
    emit_copies(shape.q, &mut envs, fresh, &mut body, &mut seen);
    body.push(Stmt::Loop(jammed_reduce(
        shape.r,
        &mut envs,
        fresh,
        &|stmts, envs, fresh, out| emit_copies(stmts, envs, fresh, out, &mut Vec::new()),
    )));
    emit_copies(shape.s, &mut envs, fresh, &mut body, &mut seen);
    LoopNest::map(j.origin, local, var(count), body)
}

/// How a jamming pass copies a body once per renaming (`emit_copies`, or
/// `loopy::jam`'s, which jams the loops inside too).
pub(super) type Copier<'a> = &'a dyn Fn(&[Stmt], &mut [Renaming], &mut Fresh, &mut Block);

/// One reduce nest with a copy of every reduction and of the body of `r`
/// per renaming in `envs` (the body's copies made by `copies`).
pub(super) fn jammed_reduce(
    r: &LoopNest,
    envs: &mut [Renaming],
    fresh: &mut Fresh,
    copies: Copier,
) -> LoopNest {
    let k = fresh.fresh_var(&r.index.name, r.index.ty);
    let width = envs[0].atom(&r.width);
    // Per renaming and reduction: its carried values (next still to be
    // renamed) and its operator.
    let mut started: Vec<Vec<(Vec<Carried>, Operator)>> = Vec::new();
    for env in envs.iter_mut() {
        env.map.insert(r.index.id, k.id);
        let mut reds = Vec::new();
        for red in &r.reductions {
            let carried = red.carried.iter().map(|c| env.carried(fresh, c)).collect();
            reds.push((carried, env.operator(fresh, &red.op)));
        }
        started.push(reds);
    }
    let mut body = Vec::new();
    copies(&r.body, envs, fresh, &mut body);
    let mut reductions = Vec::new();
    for (env, reds) in envs.iter_mut().zip(started) {
        for (red, (mut carried, op)) in r.reductions.iter().zip(reds) {
            for c in &mut carried {
                c.next = env.atom(&c.next);
            }
            let results = red.results.iter().map(|v| env.def(fresh, v)).collect();
            reductions.push(Reduction {
                carried,
                results,
                op,
            });
        }
    }
    LoopNest {
        origin: r.origin,
        par: Parallelism::Reduce,
        index: k,
        width,
        reductions,
        scans: Vec::new(),
        compactions: Vec::new(),
        hists: Vec::new(),
        scatters: Vec::new(),
        body,
        launch: r.launch,
        plan: None,
    }
}

/// A statement without the variable it defines, and that variable, when
/// two copies computing the same may be merged: lets, reads, rows (which
/// only read memory, and only memory no copy writes) and checks.
fn merge_key(stmt: &Stmt) -> Option<(Stmt, Option<VarId>)> {
    let anon = |v: &Var| Var {
        id: VarId(0),
        name: String::new(),
        ty: v.ty,
    };
    let mut key = stmt.clone();
    let def = match &mut key {
        Stmt::Let { var, .. } | Stmt::Read { var, .. } | Stmt::Row { var, .. } => {
            let id = var.id;
            *var = anon(var);
            Some(id)
        }
        Stmt::AssertEq { .. }
        | Stmt::Assert { .. }
        | Stmt::SizeCheck { .. }
        | Stmt::IndexCheck { .. }
        | Stmt::BoundsCheck { .. }
        | Stmt::SliceCheck { .. } => None,
        _ => return None,
    };
    Some((key, def))
}

/// One renaming per (row, column) of a register block: each of the rows'
/// renamings with the index `j` renamed to each of `cols` (from one empty
/// renaming: one per row of a block).
pub(super) fn cross_envs(row_envs: &[Renaming], j: VarId, cols: &[Var]) -> Vec<Renaming> {
    row_envs
        .iter()
        .flat_map(|env| {
            cols.iter().map(move |c| {
                let mut env = env.clone();
                env.map.insert(j, c.id);
                env
            })
        })
        .collect()
}

/// Appends to `out` a copy of `stmts` per renaming in `envs`, statement by
/// statement (the copies of the first statement, then of the second...);
/// a copy equal to one in `seen` is left out, its variable standing for
/// the earlier one's.
pub(super) fn emit_copies(
    stmts: &[Stmt],
    envs: &mut [Renaming],
    fresh: &mut Fresh,
    out: &mut Block,
    seen: &mut Vec<(Stmt, Option<VarId>)>,
) {
    for stmt in stmts {
        for env in envs.iter_mut() {
            let copy = env.stmt(fresh, stmt);
            let Some((key, def)) = merge_key(&copy) else {
                out.push(copy);
                continue;
            };
            match seen.iter().find(|(k, _)| *k == key) {
                Some((_, earlier)) => {
                    if let (Some(earlier), Some(original)) = (earlier, defined_var(stmt)) {
                        env.map.insert(original, *earlier);
                    }
                }
                None => {
                    seen.push((key, def));
                    out.push(copy);
                }
            }
        }
    }
}

fn defined_var(stmt: &Stmt) -> Option<VarId> {
    match stmt {
        Stmt::Let { var, .. } | Stmt::Read { var, .. } | Stmt::Row { var, .. } => Some(var.id),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::codegen::Cpu;
    use crate::driver::pipeline::{self, Options};
    use crate::fusion::{ast::Strategy, FusionOptions};
    use crate::loopy::print::print_program;

    fn lowered_fused(src: &str) -> crate::loopy::ir::Program {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("prog.arr");
        std::fs::write(&path, src).expect("write source");
        let core = pipeline::lowered(&path).unwrap_or_else(|e| panic!("front end: {}", e.render()));
        let fused = crate::fusion::fuse(&core, &FusionOptions::new(Strategy::Greedy));
        pipeline::loop_nests(&fused.program, &options())
            .unwrap_or_else(|e| panic!("{}", e.render()))
    }

    /// Code for SSE4.2 (no fused multiply-add), whose 4 x 4 blocks do not
    /// depend on the host.
    fn options() -> Options {
        let mut options = Options::default();
        options.codegen.cpu = Cpu::Level(2);
        options
    }

    #[test]
    fn matrix_product_is_blocked_four_by_four() {
        let program = lowered_fused(
            "entry main [n] [k] [m] (a: [n][k]f32) (bt: [m][k]f32) : [n][m]f32 =\n  \
             map (\\x -> map (\\y -> reduce (+) 0.0f32 (map2 (*) x y)) bt) a\n",
        );
        let text = print_program(&program);
        // One reduce nest with sixteen accumulators, and the unblocked
        // nests for the remainders: the last columns of each of the four
        // rows of a block, and the last rows.
        assert_eq!(text.matches("loop reduce").count(), 6, "{text}");
        let blocked = text.find("loop reduce").expect("a reduce nest");
        let line = text[..blocked].rfind('\n').expect("a line") + 1;
        let end = format!("\n{}end", &text[line..blocked]);
        let body = &text[blocked..];
        let body = &body[..body.find(&end).expect("end of the nest")];
        assert_eq!(body.matches(" reduce (acc").count(), 16, "{text}");
        // Each row of the block is read once per step: 4 + 4 reads, 16
        // multiplications.
        assert_eq!(body.matches(" read ").count(), 8, "{text}");
        assert_eq!(body.matches(" mul ").count(), 16, "{text}");
        assert!(text.contains("quot n_"), "{text}");
    }

    #[test]
    fn blocks_are_grouped_and_columns_tiled() {
        let program = lowered_fused(
            "entry main [n] [k] [m] (a: [n][k]f32) (bt: [m][k]f32) : [n][m]f32 =\n  \
             map (\\x -> map (\\y -> reduce (+) 0.0f32 (map2 (*) x y)) bt) a\n",
        );
        let text = print_program(&program);
        // The parallel nest runs over groups of row blocks; in it a loop
        // over the tiles of column blocks, then one over the group's row
        // blocks for the last columns.
        let outer = text
            .find("loop map [chunked] (cluster")
            .expect("the outer nest");
        let tiles = text.find("seqloop () for i_tiles").expect("the tile loop");
        let rows = text
            .find("seqloop () for i_in_group")
            .expect("the group loop");
        assert!(outer < tiles && tiles < rows, "{text}");
        assert_eq!(
            text.matches("seqloop () for i_in_group").count(),
            2,
            "{text}"
        );
        // The tile is sized from the reduction's width: 4 columns of 4
        // bytes per step.
        assert!(text.contains("= mul k_1 16i64\n"), "{text}");
        let tuning = crate::codegen::Target::X86_64
            .describe(Cpu::Level(2))
            .tuning;
        let blocking = tuning.block.expect("the CPU blocks products");
        assert_eq!((blocking.rows, blocking.cols), (4, 4));
        let budget = format!("quot {}i64 tile_k_bytes", blocking.tile_bytes);
        assert!(text.contains(&budget), "{text}");
        assert!(text.contains("min group_min_"), "{text}");
        // With one row block per group, one tile of all columns.
        assert!(text.contains("bool = gt group_"), "{text}");
    }

    #[test]
    fn nests_of_another_shape_are_left_alone() {
        // The shape of a matrix product, but the reduction's body may fail
        // (integer division): its iterations must not be merged.
        let program = lowered_fused(
            "entry main [n] [k] [m] (a: [n][k]i32) (bt: [m][k]i32) : [n][m]i32 =\n  \
             map (\\x -> map (\\y -> reduce (+) 0 (map2 (/) x y)) bt) a\n",
        );
        let text = print_program(&program);
        assert_eq!(text.matches("loop reduce").count(), 1, "{text}");
        assert!(!text.contains("quot"), "{text}");
    }
}
