//! The `loopy-jam` pass, unroll-and-jam of a nest over an inner search: a
//! `loopy::ir::Function` in, the same out with some nests rewritten so
//! that each iteration handles `lanes` consecutive values of the index.
//!
//! In (the shape of k-means's labelling, `map (\x -> argmin (map (dist x)
//! cs)) xs` or an explicit `loop` over the centres, followed by the
//! histograms that fuse into the same nest):
//!
//! ```text
//! loop map|hist i < n        -- O
//!   P                        -- reads and lets of i that cannot fail
//!   loop reduce k < wk       -- R: scalar reductions whose body branches
//!     body                   --   (a search: argmin, argmax, first match),
//!                            --   or a `for` loop carrying scalars, whose
//!                            --   body branches; either may hold sums and
//!                            --   loops of the same kind (a distance)
//!   S                        -- the rest: writes, histogram updates
//! ```
//!
//! Out (`L = lanes`):
//!
//! ```text
//! loop map|hist t < n / L + (1 if L does not divide n)
//!   if t < n / L then
//!     i_v = t * L + v                              -- v < L
//!     P per i_v
//!     for k < wk: R's accumulators and body per i_v (the loops inside
//!                 R jammed alike: one loop, every lane's accumulators)
//!     S per i_v, in order of v
//!   else
//!     for v < n % L: P, R and S of i = n / L * L + v
//! ```
//!
//! Why: such a reduction is a chain of compares and selects through its
//! accumulators, which the loop vectoriser cannot widen along `k`; the
//! `L` independent chains of the jammed loop are the same operations on
//! `L` values, which LLVM's SLP vectoriser packs into vectors (the
//! elements of the other side, read once per `k`, are broadcast). The
//! k-means benchmark's labelling (1M points, 16 centres) ran several
//! times faster; see docs/performance.md.
//!
//! `R` may also be a plain reduction (no branch) that walks down a column
//! (`walks_columns`: it reads `a[.., k, .., i]`, `k` its index, `i` the
//! nest's, as `map (\c -> sum (map2 (*) c v)) (transpose a)` does). Each
//! step of `k` moves a whole row, so one lane reads one element of a cache
//! line and the line is gone before the next `i` needs it; `columns`
//! lanes (64) read neighbouring elements of the row at each step, which
//! SLP packs into vector loads, and every lane's sum keeps its order, so
//! the results are the same. A 4096^2 `f32` vector-matrix product went
//! from 9.2x to 0.36x the time of a hand-written C loop (8192^2: 18x to
//! about 1.1x).
//! On wide matrices (from 2048 columns per core) such a nest runs with
//! its loops interchanged instead, the rows streamed through a block's
//! sums (`jam::stream`), chosen at run time by the column count; the
//! strips stay in the other branch.
//!
//! Safe because `P` and `R` write nothing and read no memory `S` writes,
//! and only fail alike in every lane (`P` not at all, `R` only where its
//! operands are the same in every lane, outside its branches: a checked
//! row of the centres): running every lane's `P` and `R` before the first
//! lane's `S` computes the same values and fails where the first lane
//! would, and the `S`s run in the original order, so the first error is
//! still the first. The points after the last full block run one by one
//! in the nest's last iteration, after all the others (parallel chunks
//! report the earliest chunk's error).

use super::block::{
    emit_copies, for_loop, i64c, invariant_assert, jammed_reduce, let_bin, rewrite_nests,
    scalar_of_row, scalar_reduction, split, var, I64,
};
use super::ir::{
    block_vars, Block, Function, LoopNest, Parallelism, Param, SeqForm, SeqLoop, SeqParam, Stmt,
};
use super::rename::{fresh_above, Fresh, NameSource, Renaming};
use super::unroll::statements;
use crate::core::ir::{Atom, BinOp, Type, Var, VarId};
use crate::types::ScalarType;
use std::collections::{BTreeSet, HashMap, HashSet};

mod masked;
mod stream;

/// The most statements (at every depth) the copies of one iteration's body
/// may have together.
const MAX_STATEMENTS: usize = 512;

/// How many values of the index a jammed nest runs at a time: `search`
/// where the inner loop is a search or a `for` loop, `masked` where it is a
/// `while` loop run under a mask (`jam::masked`), whose lanes' states are
/// all in registers and stay there at more lanes, `columns` where it is a
/// reduction walking down columns (`walks_columns`), whose lanes read
/// neighbouring elements of one row at each step. Such a nest over at
/// least `stream_from` columns (0: never) runs with its loops interchanged
/// instead (`jam::stream`), in blocks of up to `stream_block` columns, as
/// many blocks as a multiple of `stream_parts` (the threads expected).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JamLanes {
    pub search: usize,
    pub masked: usize,
    pub columns: usize,
    pub stream_from: usize,
    pub stream_block: usize,
    pub stream_parts: usize,
}

/// Jams the nests of `f` that match (see the module comment) by `lanes`.
pub fn jam_searches(f: &mut Function, lanes: JamLanes) {
    let mut edges = HashMap::new();
    super::inplace::alias_edges(&f.body, &mut edges);
    let mut fresh = fresh_above(f);
    rewrite_nests(&mut f.body, &mut fresh, &|o, fresh| {
        jammed(o, lanes, &edges, fresh)
    });
}

/// The split of `o`'s body into `P`, `R` and `S`, if it matches.
fn matches<'a>(
    o: &'a LoopNest,
    edges: &HashMap<VarId, Vec<VarId>>,
) -> Option<(&'a [Stmt], &'a Stmt, &'a [Stmt])> {
    let carries = !o.reductions.is_empty() || !o.scans.is_empty() || !o.compactions.is_empty();
    if carries || !matches!(o.par, Parallelism::Map | Parallelism::Hist) {
        return None;
    }
    let at = o
        .body
        .iter()
        .position(|s| matches!(s, Stmt::Loop(_) | Stmt::SeqLoop(_)))?;
    let (p, r, s) = (&o.body[..at], &o.body[at], &o.body[at + 1..]);
    let mut uses = BTreeSet::new();
    let mut inside = HashSet::new();
    block_vars(&o.body, &mut uses, &mut inside);
    inside.insert(o.index.id);
    let p_ok = p
        .iter()
        .all(|s| scalar_of_row(s) || float_let(s) || invariant_assert(s, &inside));
    let searches = r
        .inner_blocks()
        .iter()
        .any(|b| b.iter().any(|s| matches!(s, Stmt::If { .. })));
    let mut lanes = Lanes {
        inside: &inside,
        same: HashSet::new(),
    };
    let r_ok = ((searches || walks_columns(r, &o.index))
        && lanes.jammable(std::slice::from_ref(r), false))
        || masked::escape_loop(r).is_some();
    if !(p_ok && r_ok && s.iter().all(simple)) {
        return None;
    }
    let mut read = HashSet::new();
    reads(p, &mut read);
    reads(std::slice::from_ref(r), &mut read);
    let mut written = HashSet::new();
    super::peel::writes(s, &mut written);
    let shared = sharing(&written, edges);
    if read.iter().any(|a| shared.contains(a)) {
        return None;
    }
    Some((p, r, s))
}

/// Decides which statements of `R` every lane may run before any lane's
/// `S`: they neither write nor allocate, and any that may fail (a checked
/// read, a division, a check) fails alike in every lane, so that the
/// first error is still the first lane's.
struct Lanes<'a> {
    /// What `o`'s body defines, and its index.
    inside: &'a HashSet<VarId>,
    /// Those of `inside` seen to have the same value in every lane: loop
    /// indices of `R`, and what is computed from them and from outside.
    same: HashSet<VarId>,
}

impl Lanes<'_> {
    fn alike(&self, a: &Atom) -> bool {
        match a {
            Atom::Var(v) => !self.inside.contains(v) || self.same.contains(v),
            Atom::Const(_) => true,
        }
    }

    /// Whether `stmt` reads only values the same in every lane (its own
    /// variables, for a statement without inner blocks).
    fn same_in_every_lane(&self, stmt: &Stmt) -> bool {
        let mut uses = BTreeSet::new();
        block_vars(std::slice::from_ref(stmt), &mut uses, &mut HashSet::new());
        uses.iter().all(|v| self.alike(&Atom::Var(*v)))
    }

    /// Whether `block` may run for every lane ahead of `S` and be jammed
    /// (`jam_block`); `guarded`: it runs under a branch, whose condition
    /// may differ between lanes, so nothing in it may fail.
    fn jammable(&mut self, block: &[Stmt], guarded: bool) -> bool {
        block.iter().all(|stmt| {
            let same = self.same_in_every_lane(stmt);
            let may_fail = match stmt {
                Stmt::Let { exp, .. } => exp.may_fail(),
                Stmt::Read { check, .. } | Stmt::Row { check, .. } => check.is_some(),
                other => other.is_check(),
            };
            if may_fail && (guarded || !same) {
                return false;
            }
            match stmt {
                Stmt::Let { var, .. } | Stmt::Read { var, .. } | Stmt::Row { var, .. } => {
                    if same {
                        self.same.insert(var.id);
                    }
                    true
                }
                Stmt::If {
                    then_block,
                    else_block,
                    ..
                } => self.jammable(then_block, true) && self.jammable(else_block, true),
                Stmt::Loop(r) => {
                    self.same.insert(r.index.id);
                    scalar_reduction(r, self.inside) && self.jammable(&r.body, guarded)
                }
                Stmt::SeqLoop(lp) => {
                    let SeqForm::For { index, bound } = &lp.form else {
                        return false;
                    };
                    self.same.insert(index.id);
                    self.alike(bound)
                        && lp
                            .params
                            .iter()
                            .all(|p| p.shape.is_empty() && scalar(p.var.ty))
                        && self.jammable(&lp.body, guarded)
                }
                other => other.is_check(),
            }
        })
    }
}

/// Whether `r` is a reduce nest whose body reads an array down a column:
/// at `[.., k, .., i]`, `k` its own index and `i` (`index`) the outer
/// nest's, the last index. Each step of `k` then moves a whole row, and
/// the lanes' reads at one `k` share a cache line.
fn walks_columns(r: &Stmt, index: &Var) -> bool {
    let Stmt::Loop(r) = r else {
        return false;
    };
    r.par == Parallelism::Reduce
        && r.body.iter().any(|s| {
            matches!(s, Stmt::Read { index: at, .. }
                if at.len() >= 2
                    && at.last() == Some(&Atom::Var(index.id))
                    && at[..at.len() - 1].contains(&Atom::Var(r.index.id)))
        })
}

/// A float's `let`, which cannot fail (a division gives an infinity or a
/// NaN), although `ScalarExp::may_fail` counts every division.
fn float_let(stmt: &Stmt) -> bool {
    matches!(stmt, Stmt::Let { var, .. } if matches!(var.ty, Type::Scalar(t) if t.is_float()))
}

fn scalar(t: Type) -> bool {
    match t {
        Type::Scalar(t) => {
            t.is_int() || matches!(t, ScalarType::F32 | ScalarType::F64 | ScalarType::Bool)
        }
        Type::Array(..) => false,
    }
}

/// Statements of `S` the rewrite handles: scalars, element reads and
/// writes, checks and branches of those (no allocation, view or loop).
fn simple(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::If {
            then_block,
            else_block,
            ..
        } => then_block.iter().chain(else_block).all(simple),
        Stmt::Alloc { .. }
        | Stmt::Row { .. }
        | Stmt::View { .. }
        | Stmt::Copy { .. }
        | Stmt::Free(_)
        | Stmt::InPlace { .. }
        | Stmt::SeqLoop(_)
        | Stmt::Loop(_) => false,
        _ => true,
    }
}

pub(super) fn reads(block: &[Stmt], out: &mut HashSet<VarId>) {
    for stmt in block {
        if let Stmt::Read { array, .. } | Stmt::Row { array, .. } = stmt {
            out.insert(*array);
        }
        for inner in stmt.inner_blocks() {
            reads(inner, out);
        }
    }
}

/// `arrays` and every variable connected to them by `edges` (either way):
/// whatever may share their memory.
pub(super) fn sharing(
    arrays: &HashSet<VarId>,
    edges: &HashMap<VarId, Vec<VarId>>,
) -> HashSet<VarId> {
    let mut both: HashMap<VarId, Vec<VarId>> = HashMap::new();
    for (from, tos) in edges {
        for to in tos {
            both.entry(*from).or_default().push(*to);
            both.entry(*to).or_default().push(*from);
        }
    }
    let mut seen: HashSet<VarId> = arrays.clone();
    let mut work: Vec<VarId> = arrays.iter().copied().collect();
    while let Some(v) = work.pop() {
        for n in both.get(&v).into_iter().flatten() {
            if seen.insert(*n) {
                work.push(*n);
            }
        }
    }
    seen
}

/// A reduce nest as a `for` loop carrying its accumulators from their
/// initial (neutral) values: the same fold. The code generator emits it in
/// place, where the SLP vectoriser sees the lanes' accumulators together
/// (as a nest it becomes a function of its own, called with them in a
/// struct, which it does not vectorise); run inside a parallel nest's
/// iteration, the nest would have been sequential anyway.
fn sequential(r: LoopNest) -> Stmt {
    let carried = r.reductions.iter().flat_map(|red| &red.carried);
    Stmt::SeqLoop(SeqLoop {
        params: carried
            .clone()
            .map(|c| SeqParam {
                var: c.var.clone(),
                shape: Vec::new(),
                init: c.init,
            })
            .collect(),
        form: SeqForm::For {
            index: r.index,
            bound: r.width,
        },
        body: r.body,
        next: carried.map(|c| c.next).collect(),
        results: r
            .reductions
            .iter()
            .flat_map(|red| &red.results)
            .map(|v| Param {
                var: v.clone(),
                shape: Vec::new(),
            })
            .collect(),
    })
}

/// Appends `stmts` once per renaming in `envs` (`emit_copies`), except
/// that the copies of a loop are one loop (`jammed_reduce`, `sequential`;
/// `jammed_loop`), whose body is jammed the same way: a lane's search and
/// the reductions inside it run beside the other lanes'.
fn jam_block(stmts: &[Stmt], envs: &mut [Renaming], fresh: &mut Fresh, out: &mut Block) {
    let mut seen = Vec::new();
    for stmt in stmts {
        match stmt {
            Stmt::Loop(r) => out.push(sequential(jammed_reduce(r, envs, fresh, &jam_block))),
            Stmt::SeqLoop(
                lp @ SeqLoop {
                    form: SeqForm::For { index, bound },
                    ..
                },
            ) => out.push(Stmt::SeqLoop(jammed_loop(lp, index, bound, envs, fresh))),
            _ => emit_copies(std::slice::from_ref(stmt), envs, fresh, out, &mut seen),
        }
    }
}

/// One `for` loop (over `index < bound`, `lp`'s form) carrying every
/// renaming's parameters, in the order of `envs`, with the jammed body.
fn jammed_loop(
    lp: &SeqLoop,
    index: &Var,
    bound: &Atom,
    envs: &mut [Renaming],
    fresh: &mut Fresh,
) -> SeqLoop {
    let k = fresh.fresh_var(&index.name, index.ty);
    let bound = envs[0].atom(bound);
    let mut params = Vec::new();
    for env in envs.iter_mut() {
        for p in &lp.params {
            let init = env.atom(&p.init);
            params.push(SeqParam {
                var: env.def(fresh, &p.var),
                shape: Vec::new(),
                init,
            });
        }
        env.map.insert(index.id, k.id);
    }
    let mut body = Vec::new();
    jam_block(&lp.body, envs, fresh, &mut body);
    let next = envs.iter().flat_map(|env| env.atoms(&lp.next)).collect();
    let mut results = Vec::new();
    for env in envs.iter_mut() {
        for r in &lp.results {
            results.push(Param {
                var: env.def(fresh, &r.var),
                shape: Vec::new(),
            });
        }
    }
    SeqLoop {
        params,
        form: SeqForm::For { index: k, bound },
        body,
        next,
        results,
    }
}

/// The jammed form of `o`, if it matches.
fn jammed(
    o: &LoopNest,
    lanes: JamLanes,
    edges: &HashMap<VarId, Vec<VarId>>,
    fresh: &mut Fresh,
) -> Option<Vec<Stmt>> {
    let (p, r, s) = matches(o, edges)?;
    let escape = masked::escape_loop(r);
    let per_lane = statements(p)
        .saturating_add(statements(std::slice::from_ref(r)))
        .saturating_add(statements(s));
    let columns = escape.is_none() && walks_columns(r, &o.index);
    let streamed = match columns && lanes.stream_from > 0 {
        true => stream::streamed(o, (p, r, s), lanes, fresh),
        false => None,
    };
    let jam = lanes;
    let lanes = match escape {
        Some(_) => lanes.masked,
        // As many as the statement limit allows, down to a search's.
        None if columns => {
            let mut n = lanes.columns;
            while n > lanes.search && per_lane.saturating_mul(n) > MAX_STATEMENTS {
                n /= 2;
            }
            n
        }
        None => lanes.search,
    };
    if lanes < 2 || per_lane.saturating_mul(lanes) > MAX_STATEMENTS {
        return None;
    }
    let mut out = Vec::new();
    let (full, start, rest) = split(&o.width, lanes, fresh, &mut out);
    let extra = fresh.fresh_var("lane_rest", I64);
    let blocks = fresh.fresh_var("lane_blocks", I64);
    let_bin(&mut out, &extra, BinOp::Min, var(&rest), i64c(1));
    let_bin(&mut out, &blocks, BinOp::Add, var(&full), var(&extra));

    // A block of `lanes` points.
    let t = fresh.fresh_var(&format!("{}_lanes", o.index.name), I64);
    let base = fresh.fresh_var(&format!("{}_base", o.index.name), I64);
    let mut jammed = Vec::new();
    let_bin(&mut jammed, &base, BinOp::Mul, var(&t), i64c(lanes));
    let mut envs = Vec::new();
    for v in 0..lanes {
        let index = fresh.fresh_var(&o.index.name, I64);
        let_bin(&mut jammed, &index, BinOp::Add, var(&base), i64c(v));
        let mut env = Renaming::default();
        env.map.insert(o.index.id, index.id);
        envs.push(env);
    }
    emit_copies(p, &mut envs, fresh, &mut jammed, &mut Vec::new());
    match escape {
        Some(escape) => masked::masked_loop(escape, &mut envs, fresh, &mut jammed),
        None => jam_block(std::slice::from_ref(r), &mut envs, fresh, &mut jammed),
    }
    for env in &mut envs {
        jammed.extend(env.block(fresh, s));
    }

    // The last iteration: the points after the last full block, one by one.
    let v = fresh.fresh_var(&format!("{}_rest", o.index.name), I64);
    let mut env = Renaming::default();
    let index = env.def(fresh, &o.index);
    let mut one = Vec::new();
    let_bin(&mut one, &index, BinOp::Add, var(&start), var(&v));
    one.extend(env.block(fresh, &o.body));
    let rest_loop = for_loop(v, &rest, one);

    let in_full = fresh.fresh_var("full_block", Type::Scalar(ScalarType::Bool));
    let mut body = Vec::new();
    let_bin(&mut body, &in_full, BinOp::Lt, var(&t), var(&full));
    body.push(Stmt::If {
        results: Vec::new(),
        cond: Atom::Var(in_full.id),
        then_block: jammed,
        then_results: Vec::new(),
        else_block: vec![rest_loop],
        else_results: Vec::new(),
    });
    out.push(Stmt::Loop(LoopNest {
        origin: o.origin,
        par: o.par,
        index: t,
        width: var(&blocks),
        reductions: Vec::new(),
        scans: Vec::new(),
        compactions: Vec::new(),
        hists: o.hists.clone(),
        scatters: o.scatters.clone(),
        body,
        launch: o.launch,
        plan: None,
    }));
    let Some(streamed) = streamed else {
        return Some(out);
    };
    // Wide enough (at run time): the rows streamed; else the strips.
    let wide = fresh.fresh_var("rows_streamed", Type::Scalar(ScalarType::Bool));
    let mut choice = Vec::new();
    let_bin(
        &mut choice,
        &wide,
        BinOp::Ge,
        o.width,
        i64c(jam.stream_from),
    );
    choice.push(Stmt::If {
        results: Vec::new(),
        cond: var(&wide),
        then_block: streamed,
        then_results: Vec::new(),
        else_block: out,
        else_results: Vec::new(),
    });
    Some(choice)
}

#[cfg(test)]
mod tests {
    use crate::loopy::tests::greedy_loop_nests_text as lowered;

    #[test]
    fn an_argmin_per_point_is_jammed() {
        let text = lowered(
            "entry main [n] [k] (xs: [n]f32) (cs: [k]f32) : [n]i64 =\n  \
             map (\\x -> argmin (map (\\c -> (x - c) * (x - c)) cs)) xs\n",
        );
        let lanes = crate::codegen::Target::X86_64
            .describe(crate::codegen::Cpu::Native)
            .tuning
            .jam_lanes
            .expect("the CPU jams")
            .search;
        // One loop carrying every lane's pair, each lane's write after it;
        // the last points one by one (with the original reduce nest).
        assert_eq!(text.matches("loop reduce").count(), 1, "{text}");
        let jammed = text.find("seqloop (acc").expect("the jammed loop");
        let line = &text[jammed..text[jammed..].find('\n').expect("a line") + jammed];
        assert_eq!(line.matches(": i64 = -1i64").count(), lanes, "{text}");
        assert_eq!(text.matches(" write ").count(), lanes + 1, "{text}");
        assert!(text.contains("full_block"), "{text}");
    }

    #[test]
    fn a_sum_per_point_is_left_to_the_loop_vectoriser() {
        let text = lowered(
            "entry main [n] [k] (xs: [n]f32) (cs: [k]f32) : [n]f32 =\n  \
             map (\\x -> f32.sum (map (\\c -> x * c) cs)) xs\n",
        );
        assert!(!text.contains("full_block"), "{text}");
    }

    #[test]
    fn an_explicit_loop_over_centres_is_jammed_with_its_sums() {
        let text = lowered(
            "entry main [n] [k] [d] (ps: [n][d]f32) (cs: [k][d]f32) : [n]i64 =\n  \
             map (\\p -> (loop (b, bd) = (0i64, f32.inf) for c < k do\n    \
             let x = f32.sum (map2 (\\x y -> (x - y) * (x - y)) p cs[c])\n    \
             in if x < bd then (c, x) else (b, bd)).0) ps\n",
        );
        let lanes = crate::codegen::Target::X86_64
            .describe(crate::codegen::Cpu::Native)
            .tuning
            .jam_lanes
            .expect("the CPU jams")
            .search;
        assert!(text.contains("full_block"), "{text}");
        // The jammed loop carries every lane's pair, the sum inside it
        // every lane's accumulator; the last points keep the reduce nest.
        let line_of = |at: usize| &text[at..text[at..].find('\n').expect("a line") + at];
        let outer = line_of(text.find("seqloop (b_").expect("the jammed loop"));
        assert_eq!(outer.matches(": f32 = f32.inf").count(), lanes, "{text}");
        let inner = line_of(text.find("seqloop (acc").expect("the jammed sum"));
        assert_eq!(inner.matches(": f32 = 0.0f32").count(), lanes, "{text}");
        assert_eq!(text.matches("loop reduce").count(), 1, "{text}");
    }

    #[test]
    fn a_search_that_may_fail_per_point_is_not_jammed() {
        // `p[c]` is checked against each point's own row: a later point's
        // failure must not come before an earlier point's write.
        let text = lowered(
            "entry main [n] [k] (ps: [n][]f32) (cs: [k]f32) : [n]i64 =\n  \
             map (\\p -> (loop (b, bd) = (0i64, f32.inf) for c < k do\n    \
             let x = (p[c] - cs[c]) * (p[c] - cs[c])\n    \
             in if x < bd then (c, x) else (b, bd)).0) ps\n",
        );
        assert!(!text.contains("full_block"), "{text}");
    }

    #[test]
    fn a_while_loop_per_point_runs_under_a_mask() {
        let text = lowered(
            "entry main [n] (cs: [n]f32) (limit: i32) : [n]i32 =\n  \
             map (\\c -> (loop (z, k) = (0.0f32, 0i32)\n    \
             while k < limit && z * z < 4.0f32 do (z * z + c, k + 1)).1) cs\n",
        );
        let lanes = crate::codegen::Target::X86_64
            .describe(crate::codegen::Cpu::Native)
            .tuning
            .jam_lanes
            .expect("the CPU jams")
            .masked;
        // One loop carrying every lane's state and whether it is still
        // running, going on while any is; the last points one by one.
        assert!(text.contains("full_block"), "{text}");
        assert_eq!(text.matches("or active").count(), 1, "{text}");
        assert_eq!(text.matches("let any_active").count(), lanes - 1, "{text}");
        assert_eq!(text.matches(" write ").count(), lanes + 1, "{text}");
    }
}
