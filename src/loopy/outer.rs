//! Outer-product blocking of matrix products, part of the `loopy-block`
//! pass where the target's `Blocking` asks for it (`outer`): in, a nest of
//! the shape `loopy::block` matches whose reduction is a dot product
//! (`acc + x[k] * y[k]`, `x` a row of the `i` side, `y` a row `bt[j]` of a
//! two-dimensional array `bt`); out, the same results computed from a
//! packed copy of `bt`.
//!
//! ```text
//! alloc panel: [np][wk][NR]                    -- np = wj / NR
//! loop map jp < np (none when wi = 0)          -- the pack
//!   Q's invariant assertions
//!   loop map kk < wk
//!     panel[jp, kk, u] = bt[jp * NR + u, kk]   -- (u < NR)
//! loop map t < ceil(nb_i / G)                  -- as in `loopy::block`
//!   for jt < ceil(np / T)
//!     for g < min(G, nb_i - t * G)
//!       P per i = (t * G + g) * MR + v         -- (v < MR)
//!       loop map jj < min(T, np - jt * T)
//!         row pv = panel[jt * T + jj]
//!         Q per (v, u) but the row of bt
//!         loop reduce k < wk                   -- MR * NR sums
//!           read x_v = row_v[k]; read p_u = pv[k, u]
//!           acc_vu + x_v * p_u
//!         S per (v, u)
//!   for g < ...: per v, J over the last wj % NR values of j
//! O over the last wi % MR values of i
//! free panel
//! ```
//!
//! Why: in `loopy::block`'s blocks every result is a dot product of two
//! rows, so a vector of `k` values holds parts of one sum, and a block
//! ends with one horizontal sum per result; each step loads `ROWS + COLS`
//! vectors for `ROWS * COLS` multiply-adds, the `COLS` from L2. Here a
//! vector holds `NR / lanes` neighbouring results of one row: a step loads
//! `NR / lanes` vectors of the panel (contiguous, `NR` values of `j` at one
//! `k`) and broadcasts `MR` values of the `i` side, for `MR * NR / lanes`
//! multiply-adds, with no sum across lanes at the end: what BLAS kernels
//! do. The CPU code generator emits such a reduce nest as vector code
//! (`codegen::cpu::outer`); each sum still runs over `k` in order, so the
//! results are those of the sequential nest.
//!
//! Where `bt` is the transpose of an array `b` made by a nest at the top
//! of the function (`let bt = transpose b`), the pack reads `b[kk, jp * NR
//! + u]`, `NR` contiguous values, and the transpose is dropped when
//! nothing else reads `bt`.

use super::block::{
    blocked, ceil_quot, cross_envs, emit_copies, for_loop, i64c, invariant_assert, jammed_reduce,
    let_bin, matches, range_of, rewrite_nests, split, tile_size, var, Blocking, Fresh, Shape, I64,
};
use super::ir::{Block, Function, LoopNest, MemSpace, Origin, ScalarExp, Stmt};
use super::rename::{NameSource, Renaming};
use crate::core::ir::{Atom, BinOp, Type, Var, VarId};
use crate::types::ScalarType;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Rewrites the matrix products of `f` as outer products (see the module
/// comment), and drops the transposes only they read.
pub(super) fn outer_products(f: &mut Function, fresh: &mut Fresh, blocking: Blocking) {
    let sources = transposed_sources(&f.body);
    // Other products keep `loopy::block`'s 4 x 4 dot products.
    let dots = Blocking {
        rows: 4,
        cols: 4,
        outer: false,
        ..blocking
    };
    let guards = RefCell::new(HashMap::new());
    rewrite_nests(&mut f.body, fresh, &|o, fresh| {
        outer_blocked(o, fresh, blocking, &sources, &guards).or_else(|| blocked(o, fresh, dots))
    });
    guard_transposes(&mut f.body, &guards.into_inner());
}

/// A transpose at the top of a function: `bt[i, j] = b[j, i]`.
#[derive(Clone, Copy)]
struct Transpose {
    bt: VarId,
    b: VarId,
}

/// The transpose nest `stmt` is, if it is one.
fn transpose_of(stmt: &Stmt) -> Option<Transpose> {
    let Stmt::Loop(outer) = stmt else {
        return None;
    };
    let [Stmt::Loop(inner)] = outer.body.as_slice() else {
        return None;
    };
    if outer.origin != Origin::Transpose || inner.origin != Origin::Transpose {
        return None;
    }
    let (i, j) = (Atom::Var(outer.index.id), Atom::Var(inner.index.id));
    match inner.body.as_slice() {
        [Stmt::Read {
            var: x,
            array: b,
            index: read_at,
            check: None,
        }, Stmt::Write {
            array: bt,
            index: written_at,
            value: Atom::Var(value),
        }] if *read_at == [j, i] && *written_at == [i, j] && *value == x.id => {
            Some(Transpose { bt: *bt, b: *b })
        }
        _ => None,
    }
}

/// Per product at the top of `body` (by the index of its outer nest) whose
/// `j` rows come from a transpose earlier in `body`, that transpose, when
/// no statement between the two mentions either array: the product may
/// then read `b` where it read `bt`.
fn transposed_sources(body: &Block) -> HashMap<VarId, Transpose> {
    let mut found = HashMap::new();
    for (at, stmt) in body.iter().enumerate() {
        let Some(t) = transpose_of(stmt) else {
            continue;
        };
        for later in &body[at + 1..] {
            if let Stmt::Loop(o) = later {
                if matches(o)
                    .and_then(|s| product(&s))
                    .is_some_and(|p| p.bt == t.bt)
                {
                    found.insert(o.index.id, t);
                    continue;
                }
            }
            let mut uses = BTreeSet::new();
            let mut defs = HashSet::new();
            super::ir::block_vars(std::slice::from_ref(later), &mut uses, &mut defs);
            if uses.contains(&t.bt) || uses.contains(&t.b) {
                break;
            }
        }
    }
    found
}

/// Runs each transpose of `guards` (by its result) only where the
/// product that reads it runs as it was (`small`, defined just before the
/// product): the outer-product form reads the transpose's source. Left
/// alone where anything else reads the result, or where `small` is defined
/// too late.
fn guard_transposes(body: &mut Block, guards: &HashMap<VarId, Var>) {
    for (bt, small) in guards {
        let Some(at) = body
            .iter()
            .position(|s| transpose_of(s).is_some_and(|t| t.bt == *bt))
        else {
            continue;
        };
        // `small` and what it is computed from, copied before the transpose.
        let Some(defined) = body
            .iter()
            .position(|s| matches!(s, Stmt::Let { var, .. } if var.id == small.id))
        else {
            continue;
        };
        let condition: Vec<Stmt> = body[defined - 2..=defined].to_vec();
        let mut uses = BTreeSet::new();
        let mut defs = HashSet::new();
        super::ir::block_vars(&condition, &mut uses, &mut defs);
        let mut between_defs = HashSet::new();
        super::ir::block_vars(
            &body[at..defined - 2],
            &mut BTreeSet::new(),
            &mut between_defs,
        );
        if uses.iter().any(|u| between_defs.contains(u)) {
            continue;
        }
        let mut readers = BTreeSet::new();
        let others: Vec<Stmt> = body
            .iter()
            .enumerate()
            .filter(|(n, s)| {
                *n != at
                    && *n != defined + 1
                    && !matches!(s, Stmt::Alloc { var, .. } if var.id == *bt)
                    && !matches!(s, Stmt::Free(v) if v == bt)
            })
            .map(|(_, s)| s.clone())
            .collect();
        super::ir::block_vars(&others, &mut readers, &mut HashSet::new());
        if readers.contains(bt) {
            continue;
        }
        let transpose = body.remove(at);
        let guarded = Stmt::If {
            results: Vec::new(),
            cond: var(small),
            then_block: vec![transpose],
            then_results: Vec::new(),
            else_block: Vec::new(),
            else_results: Vec::new(),
        };
        // The condition moves up to the transpose.
        let condition: Vec<Stmt> = body.drain(defined - 3..defined).collect();
        let mut before = condition;
        before.push(guarded);
        body.splice(at..at, before);
    }
}

/// The parts of a dot product `acc + x[k] * y[k]`.
struct Product<'a> {
    /// The read of the `j` side's row, `y[k]`.
    j_read: &'a Var,
    /// The row `y = bt[j]` in `Q`.
    j_row: VarId,
    bt: VarId,
    elem: ScalarType,
}

/// The dot product `shape`'s reduction computes, if it is one.
fn product<'a>(shape: &Shape<'a>) -> Option<Product<'a>> {
    let r = shape.r;
    let [red] = r.reductions.as_slice() else {
        return None;
    };
    let [acc] = red.carried.as_slice() else {
        return None;
    };
    let elem = match acc.var.ty {
        Type::Scalar(t @ (ScalarType::F32 | ScalarType::F64)) => t,
        _ => return None,
    };
    let k = Atom::Var(r.index.id);
    let [Stmt::Read {
        var: x0,
        array: a0,
        index: i0,
        check: None,
    }, Stmt::Read {
        var: x1,
        array: a1,
        index: i1,
        check: None,
    }, Stmt::Let {
        var: t,
        exp: ScalarExp::BinOp(BinOp::Mul, m0, m1),
        ..
    }, Stmt::Let {
        var: sum,
        exp: ScalarExp::BinOp(BinOp::Add, s0, s1),
        ..
    }] = r.body.as_slice()
    else {
        return None;
    };
    let (v0, v1) = (Atom::Var(x0.id), Atom::Var(x1.id));
    let (t_atom, acc_atom) = (Atom::Var(t.id), Atom::Var(acc.var.id));
    let is_product = (*m0 == v0 && *m1 == v1) || (*m0 == v1 && *m1 == v0);
    let is_sum = (*s0 == acc_atom && *s1 == t_atom) || (*s0 == t_atom && *s1 == acc_atom);
    if *i0 != [k] || *i1 != [k] || !is_product || !is_sum || acc.next != Atom::Var(sum.id) {
        return None;
    }
    if x0.ty != acc.var.ty || x1.ty != acc.var.ty {
        return None;
    }
    let p_rows = rows_in(shape.p);
    let q_rows = rows_in(shape.q);
    let (j_read, j_row) = match (
        p_rows.get(a0),
        q_rows.get(a1),
        p_rows.get(a1),
        q_rows.get(a0),
    ) {
        (Some(_), Some(_), _, _) => (x1, *a1),
        (_, _, Some(_), Some(_)) => (x0, *a0),
        _ => return None,
    };
    let (bt, at) = &q_rows[&j_row];
    if *at != [Atom::Var(shape.j.index.id)] {
        return None;
    }
    // The row of `bt` serves that read alone.
    let mut uses = BTreeSet::new();
    let mut defs = HashSet::new();
    let rest: Vec<Stmt> = shape
        .q
        .iter()
        .chain(shape.s)
        .filter(|s| !matches!(s, Stmt::Row { var, .. } if var.id == j_row))
        .cloned()
        .collect();
    super::ir::block_vars(&rest, &mut uses, &mut defs);
    if uses.contains(&j_row) {
        return None;
    }
    Some(Product {
        j_read,
        j_row,
        bt: *bt,
        elem,
    })
}

/// The unchecked rows `block` defines: the array and index of each.
fn rows_in(block: &[Stmt]) -> HashMap<VarId, (VarId, Vec<Atom>)> {
    block
        .iter()
        .filter_map(|s| match s {
            Stmt::Row {
                var,
                array,
                index,
                check: None,
            } => Some((var.id, (*array, index.clone()))),
            _ => None,
        })
        .collect()
}

/// The outer-product form of `o`, if it is a matrix product: when there
/// are at least `MR` rows and `NR` columns, row blocks from `min(b * MR,
/// wi - MR)` and panels from `min(p * NR, wj - NR)` (the last of each
/// overlaps the one before, which computes the same values again, so
/// there is no remainder to run apart), else `o` as it is.
fn outer_blocked(
    o: &LoopNest,
    fresh: &mut Fresh,
    blocking: Blocking,
    sources: &HashMap<VarId, Transpose>,
    guards: &RefCell<HashMap<VarId, Var>>,
) -> Option<Vec<Stmt>> {
    let shape = matches(o)?;
    let prod = product(&shape)?;
    let source = sources.get(&o.index.id).copied();
    let (j, r) = (shape.j, shape.r);
    let nr = panel_columns(blocking.cols, prod.elem);
    let blocking = Blocking {
        cols: nr,
        ..blocking
    };
    let mr = blocking.rows;
    let mut out = Vec::new();
    let small = too_small(o.width, j.width, mr, nr, fresh, &mut out);
    if let Some(t) = source {
        guards.borrow_mut().insert(t.bt, small.clone());
    }
    let mut then_block = Vec::new();
    let b = &mut then_block;
    let (blocks_i, _, rest_i) = split(&o.width, mr, fresh, b);
    let last_i = fresh.fresh_var("last_row_block", I64);
    let_bin(b, &last_i, BinOp::Sub, o.width, i64c(mr));
    let panels = ceil_quot(j.width, i64c(nr), "panels", fresh, b);
    let last_j = fresh.fresh_var("last_panel", I64);
    let_bin(b, &last_j, BinOp::Sub, j.width, i64c(nr));

    let panel = fresh.fresh_var("panel", Type::Array(prod.elem, 3));
    b.push(Stmt::Alloc {
        var: panel.clone(),
        shape: vec![var(&panels), r.width, i64c(nr)],
        space: MemSpace::Host,
    });
    b.push(pack(
        &shape, &prod, source, &panel, &panels, &last_j, nr, fresh,
    ));

    let (group, groups) = balanced_groups(&blocks_i, blocking, fresh, b);
    let (tile, tiles) = tile_size(&shape, blocking, &group, &panels, fresh, b);
    let columns = Columns {
        shape: &shape,
        prod: &prod,
        panel: &panel,
        nr,
        last: &last_j,
    };
    let t = fresh.fresh_var(&format!("{}_groups", o.index.name), I64);
    let mut o_body = Vec::new();
    let (first_i, count_i) = range_of(&t, var(&group), var(&blocks_i), fresh, &mut o_body);
    let jt = fresh.fresh_var(&format!("{}_tiles", j.index.name), I64);
    let mut tile_body = Vec::new();
    let (first_j, count_j) = range_of(&jt, var(&tile), var(&panels), fresh, &mut tile_body);
    let g = fresh.fresh_var(&format!("{}_in_group", o.index.name), I64);
    let mut g_body = Vec::new();
    let ii = fresh.fresh_var(&format!("{}_blocks", o.index.name), I64);
    let_bin(&mut g_body, &ii, BinOp::Add, var(&first_i), var(&g));
    let row_envs = rows_of_block(&shape, &ii, mr, &last_i, fresh, &mut g_body);
    g_body.push(Stmt::Loop(
        columns.nest(row_envs, &first_j, &count_j, fresh),
    ));
    tile_body.push(for_loop(g, &count_i, g_body));
    o_body.push(for_loop(jt, &tiles, tile_body));
    b.push(Stmt::Loop(LoopNest::map(o.origin, t, var(&groups), o_body)));

    // The last rows, in one more block from `wi - MR`, on one thread: its
    // last panel overlaps the one before it.
    let extra = fresh.fresh_var("last_rows", I64);
    let_bin(b, &extra, BinOp::Min, var(&rest_i), i64c(1));
    let e = fresh.fresh_var(&format!("{}_last", o.index.name), I64);
    let mut e_body = Vec::new();
    let ii = fresh.fresh_var(&format!("{}_blocks", o.index.name), I64);
    let_bin(&mut e_body, &ii, BinOp::Add, var(&blocks_i), var(&e));
    let row_envs = rows_of_block(&shape, &ii, mr, &last_i, fresh, &mut e_body);
    let zero = fresh.fresh_var("first_panel", I64);
    let_bin(&mut e_body, &zero, BinOp::Mul, var(&e), i64c(0));
    e_body.push(Stmt::Loop(columns.nest(row_envs, &zero, &panels, fresh)));
    b.push(Stmt::Loop(LoopNest::map(o.origin, e, var(&extra), e_body)));
    b.push(Stmt::Free(panel.id));

    out.push(Stmt::If {
        results: Vec::new(),
        cond: var(&small),
        then_block: vec![Stmt::Loop(o.clone())],
        then_results: Vec::new(),
        else_block: then_block,
        else_results: Vec::new(),
    });
    Some(out)
}

/// The columns of a panel of `elem` values that fills the registers a
/// panel of `cols` 4-byte values does: 6 x 64 `f64` sums would need 48
/// 512-bit registers of AVX-512's 32 (1024^3 `f64` on the Intel Xeon: 27.9
/// ms at 6 x 64, 13.4 at 6 x 32, 17.2 in 4 x 4 dot products).
fn panel_columns(cols: usize, elem: ScalarType) -> usize {
    (cols * 4 / elem.bytes()).max(1)
}

/// `P` per row of the block from `min(block * rows, last)`: a renaming per
/// row.
fn rows_of_block(
    shape: &Shape,
    block: &Var,
    rows: usize,
    last: &Var,
    fresh: &mut Fresh,
    out: &mut Block,
) -> Vec<Renaming> {
    let o = shape.o;
    let is = clamped_indices(&o.index, block, rows, last, fresh, out);
    let mut envs = cross_envs(&[Renaming::default()], o.index.id, &is);
    emit_copies(shape.p, &mut envs, fresh, out, &mut Vec::new());
    envs
}

/// `group`, row blocks per iteration of the parallel nest, and `groups`,
/// its width: the fewest groups of at most `blocking.group` blocks, rounded
/// up to a multiple of `blocking.min_groups` (so that the cores get equal
/// shares: 170 blocks in 9 groups of 19 leave one core 5 groups and the
/// other 4), then as few blocks per group as that many groups need.
fn balanced_groups(
    blocks: &Var,
    blocking: Blocking,
    fresh: &mut Fresh,
    out: &mut Block,
) -> (Var, Var) {
    let multiple = blocking.min_groups.max(1);
    let fewest = ceil_quot(
        var(blocks),
        i64c(blocking.group.max(1)),
        "groups_fewest",
        fresh,
        out,
    );
    let rounds = ceil_quot(var(&fewest), i64c(multiple), "groups_rounds", fresh, out);
    let wanted = fresh.fresh_var("groups_wanted", I64);
    let_bin(out, &wanted, BinOp::Mul, var(&rounds), i64c(multiple));
    let per = ceil_quot(var(blocks), var(&wanted), "group_blocks", fresh, out);
    let group = fresh.fresh_var("group", I64);
    let_bin(out, &group, BinOp::Max, var(&per), i64c(1));
    let groups = ceil_quot(var(blocks), var(&group), "groups", fresh, out);
    (group, groups)
}

/// `small = wi < mr || wj < nr`.
fn too_small(wi: Atom, wj: Atom, mr: usize, nr: usize, fresh: &mut Fresh, out: &mut Block) -> Var {
    let few_rows = fresh.fresh_var("few_rows", BOOL);
    let few_cols = fresh.fresh_var("few_columns", BOOL);
    let small = fresh.fresh_var("small", BOOL);
    let_bin(out, &few_rows, BinOp::Lt, wi, i64c(mr));
    let_bin(out, &few_cols, BinOp::Lt, wj, i64c(nr));
    let_bin(out, &small, BinOp::Or, var(&few_rows), var(&few_cols));
    small
}

const BOOL: Type = Type::Scalar(ScalarType::Bool);

/// `index_n = min(blocked * factor, last) + n` for each `n < factor`.
fn clamped_indices(
    original: &Var,
    blocked: &Var,
    factor: usize,
    last: &Var,
    fresh: &mut Fresh,
    out: &mut Block,
) -> Vec<Var> {
    let from = fresh.fresh_var(&format!("{}_from", original.name), I64);
    let base = fresh.fresh_var(&format!("{}_block", original.name), I64);
    let_bin(out, &from, BinOp::Mul, var(blocked), i64c(factor));
    let_bin(out, &base, BinOp::Min, var(&from), var(last));
    (0..factor)
        .map(|n| {
            let index = fresh.fresh_var(&original.name, I64);
            let_bin(out, &index, BinOp::Add, var(&base), i64c(n));
            index
        })
        .collect()
}

/// `loop map jp < count`: `Q`'s invariant assertions, then `panel[jp, kk,
/// u] = bt[first + u, kk]` for every `kk` and `u < nr`, where `first =
/// min(jp * nr, last)` (from `b[kk, first + u]` when `source` has `bt` as
/// `b`'s transpose).
#[allow(clippy::too_many_arguments)]
fn pack(
    shape: &Shape,
    prod: &Product,
    source: Option<Transpose>,
    panel: &Var,
    count: &Var,
    last: &Var,
    nr: usize,
    fresh: &mut Fresh,
) -> Stmt {
    let mut inside = HashSet::new();
    let mut uses = BTreeSet::new();
    super::ir::block_vars(&shape.o.body, &mut uses, &mut inside);
    inside.insert(shape.o.index.id);
    let jp = fresh.fresh_var("panel", I64);
    let mut body: Block = shape
        .q
        .iter()
        .filter(|s| invariant_assert(s, &inside))
        .cloned()
        .collect();
    let from = fresh.fresh_var("panel_from", I64);
    let first = fresh.fresh_var("panel_first", I64);
    let_bin(&mut body, &from, BinOp::Mul, var(&jp), i64c(nr));
    let_bin(&mut body, &first, BinOp::Min, var(&from), var(last));
    let kk = fresh.fresh_var("k", I64);
    let mut inner = Vec::new();
    let source_row = source.map(|t| {
        let row = fresh.fresh_var("row", Type::Array(prod.elem, 1));
        inner.push(Stmt::Row {
            var: row.clone(),
            array: t.b,
            index: vec![var(&kk)],
            check: None,
        });
        row
    });
    // All reads before all writes: LLVM's SLP vectoriser then makes vector
    // loads and stores of them without proving that they do not alias.
    let mut writes = Vec::new();
    for u in 0..nr {
        let ju = fresh.fresh_var("j", I64);
        let_bin(&mut inner, &ju, BinOp::Add, var(&first), i64c(u));
        let y = fresh.fresh_var("y", Type::Scalar(prod.elem));
        let (array, index) = match &source_row {
            Some(row) => (row.id, vec![var(&ju)]),
            None => (prod.bt, vec![var(&ju), var(&kk)]),
        };
        inner.push(Stmt::Read {
            var: y.clone(),
            array,
            index,
            check: None,
        });
        writes.push(Stmt::Write {
            array: panel.id,
            index: vec![var(&jp), var(&kk), i64c(u)],
            value: var(&y),
        });
    }
    inner.extend(writes);
    body.push(Stmt::Loop(LoopNest::map(
        shape.j.origin,
        kk,
        shape.r.width,
        inner,
    )));
    Stmt::Loop(LoopNest::map(shape.o.origin, jp, var(count), body))
}

/// What `J'` over panels needs: the product, the panel array, its width
/// and the first column of the last panel.
struct Columns<'a> {
    shape: &'a Shape<'a>,
    prod: &'a Product<'a>,
    panel: &'a Var,
    nr: usize,
    last: &'a Var,
}

impl Columns<'_> {
    /// `J'` over the `count` panels from `first`: `Q` (but the row of `bt`),
    /// the outer-product reduction and `S` per element of a block of the rows
    /// of `row_envs` by the `nr` columns of a panel.
    fn nest(
        &self,
        row_envs: Vec<Renaming>,
        first: &Var,
        count: &Var,
        fresh: &mut Fresh,
    ) -> LoopNest {
        let (shape, prod, panel, nr) = (self.shape, self.prod, self.panel, self.nr);
        let j = shape.j;
        let local = fresh.fresh_var(&format!("{}_panels", j.index.name), I64);
        let jp = fresh.fresh_var(&format!("{}_panel", j.index.name), I64);
        let mut body = Vec::new();
        let_bin(&mut body, &jp, BinOp::Add, var(first), var(&local));
        let pv = fresh.fresh_var("panel_row", Type::Array(prod.elem, 2));
        body.push(Stmt::Row {
            var: pv.clone(),
            array: panel.id,
            index: vec![var(&jp)],
            check: None,
        });
        let js = clamped_indices(&j.index, &jp, nr, self.last, fresh, &mut body);
        let mut envs = cross_envs(&row_envs, j.index.id, &js);
        let q: Vec<Stmt> = shape
            .q
            .iter()
            .filter(|s| !matches!(s, Stmt::Row { var, .. } if var.id == prod.j_row))
            .cloned()
            .collect();
        let mut seen = Vec::new();
        emit_copies(&q, &mut envs, fresh, &mut body, &mut seen);
        let j_read = prod.j_read.id;
        let r_index = shape.r.index.id;
        let copier = |stmts: &[Stmt], envs: &mut [Renaming], fresh: &mut Fresh, out: &mut Block| {
            let mut seen = Vec::new();
            for stmt in stmts {
                if !matches!(stmt, Stmt::Read { var, .. } if var.id == j_read) {
                    emit_copies(std::slice::from_ref(stmt), envs, fresh, out, &mut seen);
                    continue;
                }
                let k = envs[0].id(r_index);
                for u in 0..nr {
                    let p = fresh.fresh_var("p", Type::Scalar(prod.elem));
                    out.push(Stmt::Read {
                        var: p.clone(),
                        array: pv.id,
                        index: vec![Atom::Var(k), i64c(u)],
                        check: None,
                    });
                    for env in envs.iter_mut().skip(u).step_by(nr) {
                        env.map.insert(j_read, p.id);
                    }
                }
            }
        };
        body.push(Stmt::Loop(jammed_reduce(
            shape.r, &mut envs, fresh, &copier,
        )));
        emit_copies(shape.s, &mut envs, fresh, &mut body, &mut seen);
        LoopNest::map(j.origin, local, var(count), body)
    }
}
