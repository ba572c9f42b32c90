//! `--count-traffic` instrumentation: adds to the runtime's element counters
//! `arr_traffic_reads` / `arr_traffic_writes` (see `arr_runtime.h`).
//!
//! What counts is what `fusion::traffic` models: every element loaded by a
//! `Read`, stored by a `Write`, and moved by a `Copy` (one read and one write
//! each). A top-level (cluster) nest's reduction result is a scalar the model
//! treats as stored to memory: one write when the nest ends, and one read for
//! each later cluster nest that uses it.

use super::{Gen, Res};
use crate::core::ir::{Atom, VarId};
use crate::loopy::ir::{Block, LoopNest, Origin, SeqForm, Stmt};
use inkwell::module::Linkage;
use inkwell::values::IntValue;
use inkwell::{AtomicOrdering, AtomicRMWBinOp};
use std::collections::HashSet;

#[derive(Clone, Copy)]
pub(crate) enum Counter {
    Reads,
    Writes,
}

impl<'ctx> Gen<'ctx, '_> {
    /// Adds `n` to a counter (nothing unless counting), atomically: pool
    /// threads share the counters.
    pub(crate) fn count(&self, counter: Counter, n: IntValue<'ctx>) -> Res<()> {
        if !self.count_traffic || self.mode.uncounted {
            return Ok(());
        }
        let name = match counter {
            Counter::Reads => "arr_traffic_reads",
            Counter::Writes => "arr_traffic_writes",
        };
        let global = match self.module.get_global(name) {
            Some(g) => g,
            None => {
                let g = self.module.add_global(self.i64(), None, name);
                g.set_linkage(Linkage::External);
                g
            }
        };
        self.builder.build_atomicrmw(
            AtomicRMWBinOp::Add,
            global.as_pointer_value(),
            n,
            AtomicOrdering::Monotonic,
        )?;
        Ok(())
    }

    pub(crate) fn count_one(&self, counter: Counter) -> Res<()> {
        self.count(counter, self.const_i64(1))
    }

    /// Before a cluster nest runs: one read per distinct reduction result of
    /// another cluster it uses (in its body, operators, width or initial
    /// values), as the model counts a cluster's free variables.
    pub(crate) fn count_nest_scalar_reads(&self, nest: &LoopNest) -> Res<()> {
        if !self.count_traffic || !matches!(nest.origin, Origin::Cluster(_)) {
            return Ok(());
        }
        let mut used: HashSet<VarId> = nest.free_vars().into_iter().collect();
        let atoms = std::iter::once(&nest.width).chain(nest.carried().map(|c| &c.init));
        used.extend(atoms.filter_map(|a| match a {
            Atom::Var(v) => Some(*v),
            Atom::Const(_) => None,
        }));
        let n = used
            .iter()
            .filter(|v| self.traffic_scalars.contains(v))
            .count();
        if n > 0 {
            self.count(Counter::Reads, self.const_i64(n as i64))?;
        }
        Ok(())
    }

    /// After a cluster nest ran: one write per reduction result.
    pub(crate) fn count_nest_reduction_writes(&self, nest: &LoopNest) -> Res<()> {
        if !self.count_traffic || !matches!(nest.origin, Origin::Cluster(_)) {
            return Ok(());
        }
        let n: usize = nest.reductions.iter().map(|r| r.results.len()).sum();
        if n > 0 {
            self.count(Counter::Writes, self.const_i64(n as i64))?;
        }
        Ok(())
    }
}

/// The reduction results of the cluster nests of `block`, including those in
/// branches and sequential loops (nested SOACs' reductions stay in registers).
pub(crate) fn cluster_reduction_results(block: &Block, out: &mut HashSet<VarId>) {
    for stmt in block {
        match stmt {
            Stmt::Loop(nest) if matches!(nest.origin, Origin::Cluster(_)) => {
                for r in &nest.reductions {
                    out.extend(r.results.iter().map(|v| v.id));
                }
            }
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                cluster_reduction_results(then_block, out);
                cluster_reduction_results(else_block, out);
            }
            Stmt::SeqLoop(lp) => {
                if let SeqForm::While { cond, .. } = &lp.form {
                    cluster_reduction_results(cond, out);
                }
                cluster_reduction_results(&lp.body, out);
            }
            _ => {}
        }
    }
}
