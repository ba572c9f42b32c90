//! The one source of new names: variable ids and SOAC labels above every
//! one a program already uses. The simplifier, fusion (recomputed maps),
//! the loop-nest lowering and its passes (`loopy::rename`) and the tests'
//! IR builders all take new variables from a `Fresh`.

use super::ir::{Body, Program, SoacId, Type, Var, VarId};
use super::print::visit_nested;

pub struct Fresh {
    next_var: u32,
    next_soac: u32,
}

impl Fresh {
    /// Variables from `first_var` on, labels from `first_soac` on.
    pub fn starting_at(first_var: u32, first_soac: u32) -> Fresh {
        Fresh {
            next_var: first_var,
            next_soac: first_soac,
        }
    }

    /// Above every variable and label of a core program.
    pub fn for_program(p: &Program) -> Fresh {
        let mut fresh = Fresh::starting_at(0, 0);
        for f in &p.entries {
            for v in &f.params {
                fresh.see(v.id);
            }
            for sp in &f.size_params {
                fresh.see(sp.var.id);
            }
            fresh.see_body(&f.body);
        }
        fresh
    }

    /// Makes `v` and everything below it taken.
    pub fn see(&mut self, v: VarId) {
        self.next_var = self.next_var.max(v.0.saturating_add(1));
    }

    fn see_body(&mut self, body: &Body) {
        for stm in &body.stms {
            for v in &stm.pat {
                self.see(v.id);
            }
            if let super::ir::Exp::Soac(soac) = &stm.exp {
                self.next_soac = self.next_soac.max(soac.label.0.saturating_add(1));
            }
            visit_nested(&stm.exp, |inner, bound| {
                for v in bound {
                    self.see(v.id);
                }
                self.see_body(inner);
            });
        }
    }

    pub fn id(&mut self) -> VarId {
        let v = VarId(self.next_var);
        self.next_var = self.next_var.saturating_add(1);
        v
    }

    /// A new variable named `name` (printed `name_id`).
    pub fn var(&mut self, name: &str, ty: Type) -> Var {
        Var {
            id: self.id(),
            name: name.to_string(),
            ty,
        }
    }

    pub fn soac(&mut self) -> SoacId {
        let s = SoacId(self.next_soac);
        self.next_soac = self.next_soac.saturating_add(1);
        s
    }
}
