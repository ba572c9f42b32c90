//! Fresh variables and renamed copies of loopy code: a pass that
//! duplicates statements (register blocking, tiling, peeling the first
//! iteration of a nest) gives every definition in the copy a new variable,
//! since the loopy IR defines each variable once.

use super::ir::{
    block_vars, Block, Carried, Compaction, Function, HistState, LoopNest, Operator, Param,
    Reduction, ScalarExp, ScanState, SeqForm, SeqLoop, SeqParam, Stmt,
};
use crate::core::ir::{Atom, Type, Var, VarId};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Where new variables come from.
pub(super) trait NameSource {
    fn fresh_var(&mut self, name: &str, ty: Type) -> Var;
}

pub(super) use crate::core::fresh::Fresh;

/// New variables numbered above every variable of `f`.
pub(super) fn fresh_above(f: &Function) -> Fresh {
    let mut uses = BTreeSet::new();
    let mut defs = HashSet::new();
    block_vars(&f.body, &mut uses, &mut defs);
    let mut fresh = Fresh::starting_at(0, 0);
    for p in &f.params {
        fresh.see(p.var.id);
        p.shape.iter().for_each(|d| fresh.see(d.id));
    }
    for sp in &f.size_params {
        fresh.see(sp.var.id);
    }
    uses.iter().chain(defs.iter()).for_each(|v| fresh.see(*v));
    for a in &f.results {
        if let Atom::Var(v) = a {
            fresh.see(*v);
        }
    }
    fresh
}

impl NameSource for Fresh {
    fn fresh_var(&mut self, name: &str, ty: Type) -> Var {
        self.var(name, ty)
    }
}

/// Copies of code with fresh variables for its definitions: `map` takes
/// each variable defined so far (or substituted, like an index) to its
/// replacement; variables not in it are used as they are.
#[derive(Clone, Default)]
pub(super) struct Renaming {
    pub(super) map: HashMap<VarId, VarId>,
}

impl Renaming {
    pub(super) fn id(&self, v: VarId) -> VarId {
        self.map.get(&v).copied().unwrap_or(v)
    }

    pub(super) fn ids(&self, vs: &[VarId]) -> Vec<VarId> {
        vs.iter().map(|v| self.id(*v)).collect()
    }

    pub(super) fn atom(&self, a: &Atom) -> Atom {
        match a {
            Atom::Var(v) => Atom::Var(self.id(*v)),
            Atom::Const(_) => *a,
        }
    }

    pub(super) fn atoms(&self, atoms: &[Atom]) -> Vec<Atom> {
        atoms.iter().map(|a| self.atom(a)).collect()
    }

    pub(super) fn def(&mut self, fresh: &mut impl NameSource, v: &Var) -> Var {
        let new = fresh.fresh_var(&v.name, v.ty);
        self.map.insert(v.id, new.id);
        new
    }

    pub(super) fn defs(&mut self, fresh: &mut impl NameSource, vs: &[Var]) -> Vec<Var> {
        vs.iter().map(|v| self.def(fresh, v)).collect()
    }

    pub(super) fn block(&mut self, fresh: &mut impl NameSource, stmts: &[Stmt]) -> Block {
        stmts.iter().map(|s| self.stmt(fresh, s)).collect()
    }

    pub(super) fn exp(&self, exp: &ScalarExp) -> ScalarExp {
        match exp {
            ScalarExp::Atom(a) => ScalarExp::Atom(self.atom(a)),
            ScalarExp::BinOp(op, a, b) => ScalarExp::BinOp(*op, self.atom(a), self.atom(b)),
            ScalarExp::UnOp(op, a) => ScalarExp::UnOp(*op, self.atom(a)),
            ScalarExp::Convert(t, a) => ScalarExp::Convert(*t, self.atom(a)),
            ScalarExp::Fma(a, b, c) => ScalarExp::Fma(self.atom(a), self.atom(b), self.atom(c)),
        }
    }

    pub(super) fn stmt(&mut self, fresh: &mut impl NameSource, stmt: &Stmt) -> Stmt {
        match stmt {
            Stmt::Let { var, exp, loc } => {
                let exp = self.exp(exp);
                Stmt::Let {
                    var: self.def(fresh, var),
                    exp,
                    loc: *loc,
                }
            }
            Stmt::Alloc { var, shape, space } => {
                let shape = self.atoms(shape);
                Stmt::Alloc {
                    var: self.def(fresh, var),
                    shape,
                    space: *space,
                }
            }
            Stmt::Read {
                var,
                array,
                index,
                check,
            } => {
                let (array, index) = (self.id(*array), self.atoms(index));
                Stmt::Read {
                    var: self.def(fresh, var),
                    array,
                    index,
                    check: *check,
                }
            }
            Stmt::Write {
                array,
                index,
                value,
            } => Stmt::Write {
                array: self.id(*array),
                index: self.atoms(index),
                value: self.atom(value),
            },
            Stmt::Row {
                var,
                array,
                index,
                check,
            } => {
                let (array, index) = (self.id(*array), self.atoms(index));
                Stmt::Row {
                    var: self.def(fresh, var),
                    array,
                    index,
                    check: *check,
                }
            }
            Stmt::Copy { array, index, src } => Stmt::Copy {
                array: self.id(*array),
                index: self.atoms(index),
                src: self.id(*src),
            },
            Stmt::If {
                results,
                cond,
                then_block,
                then_results,
                else_block,
                else_results,
            } => {
                let cond = self.atom(cond);
                let then_block = self.block(fresh, then_block);
                let then_results = self.atoms(then_results);
                let else_block = self.block(fresh, else_block);
                let else_results = self.atoms(else_results);
                Stmt::If {
                    results: self.defs(fresh, results),
                    cond,
                    then_block,
                    then_results,
                    else_block,
                    else_results,
                }
            }
            Stmt::AssertEq {
                expected,
                found,
                loc,
            } => Stmt::AssertEq {
                expected: self.atom(expected),
                found: self.atom(found),
                loc: *loc,
            },
            Stmt::Assert { cond, report, loc } => {
                let mut report = report.clone();
                for a in report.atoms_mut() {
                    *a = self.atom(a);
                }
                Stmt::Assert {
                    cond: self.atom(cond),
                    report,
                    loc: *loc,
                }
            }
            Stmt::IndexCheck { index, len, loc } => Stmt::IndexCheck {
                index: self.atom(index),
                len: self.atom(len),
                loc: *loc,
            },
            Stmt::SizeCheck { size, loc } => Stmt::SizeCheck {
                size: self.atom(size),
                loc: *loc,
            },
            Stmt::BoundsCheck { array, index, loc } => Stmt::BoundsCheck {
                array: self.id(*array),
                index: self.atoms(index),
                loc: *loc,
            },
            Stmt::SliceCheck {
                start,
                end,
                stride,
                count,
                len,
                loc,
            } => Stmt::SliceCheck {
                start: self.atom(start),
                end: self.atom(end),
                stride: self.atom(stride),
                count: self.atom(count),
                len: self.atom(len),
                loc: *loc,
            },
            Stmt::View {
                var,
                array,
                offset,
                shape,
            } => {
                let (array, offset, shape) =
                    (self.id(*array), self.atom(offset), self.atoms(shape));
                Stmt::View {
                    var: self.def(fresh, var),
                    array,
                    offset,
                    shape,
                }
            }
            Stmt::Free(array) => Stmt::Free(self.id(*array)),
            Stmt::InPlace { var, array } => {
                let array = self.id(*array);
                Stmt::InPlace {
                    var: self.def(fresh, var),
                    array,
                }
            }
            Stmt::SeqLoop(lp) => Stmt::SeqLoop(self.seq_loop(fresh, lp)),
            Stmt::Loop(nest) => Stmt::Loop(self.nest(fresh, nest)),
        }
    }

    pub(super) fn param(&mut self, fresh: &mut impl NameSource, p: &Param) -> Param {
        Param {
            var: self.def(fresh, &p.var),
            shape: self.defs(fresh, &p.shape),
        }
    }

    pub(super) fn seq_loop(&mut self, fresh: &mut impl NameSource, lp: &SeqLoop) -> SeqLoop {
        let inits = self.atoms(&lp.params.iter().map(|p| p.init).collect::<Vec<_>>());
        let params = lp
            .params
            .iter()
            .zip(inits)
            .map(|(p, init)| SeqParam {
                var: self.def(fresh, &p.var),
                shape: self.defs(fresh, &p.shape),
                init,
            })
            .collect();
        let form = match &lp.form {
            SeqForm::For { index, bound } => {
                let bound = self.atom(bound);
                SeqForm::For {
                    index: self.def(fresh, index),
                    bound,
                }
            }
            SeqForm::While { cond, result } => SeqForm::While {
                cond: self.block(fresh, cond),
                result: self.atom(result),
            },
        };
        let body = self.block(fresh, &lp.body);
        let next = self.atoms(&lp.next);
        let results = lp.results.iter().map(|r| self.param(fresh, r)).collect();
        SeqLoop {
            params,
            form,
            body,
            next,
            results,
        }
    }

    pub(super) fn operator(&mut self, fresh: &mut impl NameSource, op: &Operator) -> Operator {
        let params = self.defs(fresh, &op.params);
        let body = self.block(fresh, &op.body);
        Operator {
            params,
            body,
            results: self.atoms(&op.results),
        }
    }

    /// Carried values with `var` renamed and `init` substituted; `next`
    /// is left for after the body.
    pub(super) fn carried(&mut self, fresh: &mut impl NameSource, c: &Carried) -> Carried {
        let init = self.atom(&c.init);
        Carried {
            var: self.def(fresh, &c.var),
            init,
            next: c.next,
        }
    }

    pub(super) fn nest(&mut self, fresh: &mut impl NameSource, nest: &LoopNest) -> LoopNest {
        let width = self.atom(&nest.width);
        let index = self.def(fresh, &nest.index);
        let mut reductions: Vec<Reduction> = nest
            .reductions
            .iter()
            .map(|r| Reduction {
                carried: r.carried.iter().map(|c| self.carried(fresh, c)).collect(),
                results: r.results.clone(),
                op: self.operator(fresh, &r.op),
            })
            .collect();
        let mut scans: Vec<ScanState> = nest
            .scans
            .iter()
            .map(|s| ScanState {
                carried: s.carried.iter().map(|c| self.carried(fresh, c)).collect(),
                outputs: self.ids(&s.outputs),
                op: self.operator(fresh, &s.op),
            })
            .collect();
        let mut compactions: Vec<Compaction> = nest
            .compactions
            .iter()
            .map(|c| Compaction {
                count: self.carried(fresh, &c.count),
                flag: c.flag,
                outputs: self.ids(&c.outputs),
                result: c.result.clone(),
            })
            .collect();
        let hists = nest
            .hists
            .iter()
            .map(|h| HistState {
                bins: self.ids(&h.bins),
                neutral: self.atoms(&h.neutral),
                op: self.operator(fresh, &h.op),
            })
            .collect();
        let scatters = self.ids(&nest.scatters);
        let body = self.block(fresh, &nest.body);
        for c in reductions
            .iter_mut()
            .flat_map(|r| r.carried.iter_mut())
            .chain(scans.iter_mut().flat_map(|s| s.carried.iter_mut()))
            .chain(compactions.iter_mut().map(|c| &mut c.count))
        {
            c.next = self.atom(&c.next);
        }
        for c in &mut compactions {
            c.flag = self.atom(&c.flag);
        }
        for r in &mut reductions {
            r.results = self.defs(fresh, &r.results);
        }
        for c in &mut compactions {
            c.result = self.def(fresh, &c.result);
        }
        LoopNest {
            origin: nest.origin,
            par: nest.par,
            index,
            width,
            reductions,
            scans,
            compactions,
            hists,
            scatters,
            body,
            launch: nest.launch,
            plan: None,
        }
    }
}
