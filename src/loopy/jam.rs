//! The `loopy-jam` pass, unroll-and-jam of a nest over an inner search: a
//! `loopy::ir::Function` in, the same out with some nests rewritten so
//! that each iteration handles `lanes` consecutive values of the index.
//!
//! In (the shape of k-means's labelling, `map (\x -> argmin (map (dist x)
//! cs)) xs`, followed by the histograms that fuse into the same nest):
//!
//! ```text
//! loop map|hist i < n        -- O
//!   P                        -- reads and lets of i that cannot fail
//!   loop reduce k < wk       -- R: scalar reductions whose body branches
//!     body                   --   (a search: argmin, argmax, first match)
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
//!     for k < wk: R's accumulators and body per i_v
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
//! Safe because `P` and `R` can neither fail nor write, and read no
//! memory `S` writes: running every lane's `P` and `R` before the first
//! lane's `S` computes the same values, and the `S`s run in the original
//! order, so the first error is still the first. The points after the
//! last full block run one by one in the nest's last iteration, after all
//! the others (parallel chunks report the earliest chunk's error).

use super::block::{
    emit_copies, for_loop, i64c, invariant_assert, jammed_reduce, let_bin, rewrite_nests,
    scalar_of_row, scalar_reduction, split, var, I64,
};
use super::ir::{
    block_vars, Block, Function, LoopNest, Parallelism, Param, SeqForm, SeqLoop, SeqParam, Stmt,
};
use super::rename::{fresh_above, Fresh, NameSource, Renaming};
use super::unroll::statements;
use crate::core::ir::{Atom, BinOp, Type, VarId};
use crate::types::ScalarType;
use std::collections::{BTreeSet, HashMap, HashSet};

/// The most statements (at every depth) the copies of one iteration's body
/// may have together.
const MAX_STATEMENTS: usize = 512;

/// Jams the nests of `f` that match (see the module comment) by `lanes`.
pub fn jam_searches(f: &mut Function, lanes: usize) {
    if lanes < 2 {
        return;
    }
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
) -> Option<(&'a [Stmt], &'a LoopNest, &'a [Stmt])> {
    let carries = !o.reductions.is_empty() || !o.scans.is_empty() || !o.compactions.is_empty();
    if carries || !matches!(o.par, Parallelism::Map | Parallelism::Hist) {
        return None;
    }
    let at = o.body.iter().position(|s| matches!(s, Stmt::Loop(_)))?;
    let Stmt::Loop(r) = &o.body[at] else {
        return None;
    };
    let (p, s) = (&o.body[..at], &o.body[at + 1..]);
    let mut uses = BTreeSet::new();
    let mut inside = HashSet::new();
    block_vars(&o.body, &mut uses, &mut inside);
    inside.insert(o.index.id);
    let p_ok = p
        .iter()
        .all(|s| scalar_of_row(s) || invariant_assert(s, &inside));
    let r_ok = scalar_reduction(r, &inside)
        && pure(&r.body)
        && r.body.iter().any(|s| matches!(s, Stmt::If { .. }));
    if !(p_ok && r_ok && s.iter().all(simple)) {
        return None;
    }
    let mut read = HashSet::new();
    reads(p, &mut read);
    reads(&r.body, &mut read);
    let mut written = HashSet::new();
    super::peel::writes(s, &mut written);
    let shared = sharing(&written, edges);
    if read.iter().any(|a| shared.contains(a)) {
        return None;
    }
    Some((p, r, s))
}

/// Statements that cannot fail or write: non-failing lets, unchecked
/// reads, and branches of those.
fn pure(block: &Block) -> bool {
    block.iter().all(|stmt| match stmt {
        Stmt::Let { exp, .. } => !exp.may_fail(),
        Stmt::Read { check, .. } => check.is_none(),
        Stmt::If {
            then_block,
            else_block,
            ..
        } => pure(then_block) && pure(else_block),
        _ => false,
    })
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

fn reads(block: &[Stmt], out: &mut HashSet<VarId>) {
    for stmt in block {
        match stmt {
            Stmt::Read { array, .. } | Stmt::Row { array, .. } => {
                out.insert(*array);
            }
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                reads(then_block, out);
                reads(else_block, out);
            }
            _ => {}
        }
    }
}

/// `arrays` and every variable connected to them by `edges` (either way):
/// whatever may share their memory.
fn sharing(arrays: &HashSet<VarId>, edges: &HashMap<VarId, Vec<VarId>>) -> HashSet<VarId> {
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

/// The jammed form of `o`, if it matches.
fn jammed(
    o: &LoopNest,
    lanes: usize,
    edges: &HashMap<VarId, Vec<VarId>>,
    fresh: &mut Fresh,
) -> Option<Vec<Stmt>> {
    let (p, r, s) = matches(o, edges)?;
    if statements(p)
        .saturating_add(statements(&r.body))
        .saturating_add(statements(s))
        * lanes
        > MAX_STATEMENTS
    {
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
    jammed.push(sequential(jammed_reduce(r, &mut envs, fresh)));
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
    Some(out)
}

#[cfg(test)]
mod tests {
    use crate::driver::pipeline::{self, Options};
    use crate::fusion::{ast::Strategy, FusionOptions};
    use crate::loopy::print::print_program;

    fn lowered(src: &str) -> String {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("prog.arr");
        std::fs::write(&path, src).expect("write source");
        let core = pipeline::lowered(&path).unwrap_or_else(|e| panic!("front end: {}", e.render()));
        let fused = crate::fusion::fuse(&core, &FusionOptions::new(Strategy::Greedy));
        let program = pipeline::loop_nests(&fused.program, &Options::default())
            .unwrap_or_else(|e| panic!("{}", e.render()));
        print_program(&program)
    }

    #[test]
    fn an_argmin_per_point_is_jammed() {
        let text = lowered(
            "entry main [n] [k] (xs: [n]f32) (cs: [k]f32) : [n]i64 =\n  \
             map (\\x -> argmin (map (\\c -> (x - c) * (x - c)) cs)) xs\n",
        );
        let lanes = crate::codegen::Target::X86_64
            .describe()
            .tuning
            .jam_lanes
            .expect("the CPU jams");
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
}
