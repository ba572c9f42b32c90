//! The lint of the loop-nest IR: checks the invariants listed in `ir` (every
//! variable defined once and before its uses, in scope; types consistent;
//! each nest's parallelism matching what it carries). Tests run it after
//! every lowering; codegen runs it before trusting its input.

use super::ir::*;
use crate::core::ir::{Atom, BinOp, Type, Var, VarId};
use crate::types::ScalarType;
use std::collections::{HashMap, HashSet};

pub fn check(program: &Program) -> Result<(), String> {
    for f in &program.functions {
        check_function(f).map_err(|e| format!("loopy lint, entry `{}`: {e}", f.name))?;
    }
    Ok(())
}

const I64: Type = Type::Scalar(ScalarType::I64);
const BOOL: Type = Type::Scalar(ScalarType::Bool);

struct Checker {
    /// Every variable defined so far, anywhere: definitions are unique.
    defined: HashSet<VarId>,
    /// A `View` or `Row` to the array it shares memory with.
    views: HashMap<VarId, VarId>,
}

/// The variables in scope with their types.
type Scope = HashMap<VarId, Type>;

fn show(v: &Var) -> String {
    format!("{}_{}", v.name, v.id.0)
}

fn check_function(f: &Function) -> Result<(), String> {
    let mut ck = Checker {
        defined: HashSet::new(),
        views: HashMap::new(),
    };
    let mut scope = Scope::new();
    for p in &f.params {
        ck.define(&mut scope, &p.var)?;
        if p.shape.len() != p.var.ty.rank() {
            return Err(format!(
                "parameter {} has a shape of wrong rank",
                show(&p.var)
            ));
        }
        for d in &p.shape {
            if d.ty != I64 {
                return Err(format!("dimension {} is not i64", show(d)));
            }
            ck.define(&mut scope, d)?;
        }
    }
    for sp in &f.size_params {
        if scope.get(&sp.var.id) != Some(&I64) {
            return Err(format!(
                "size parameter {} is not a parameter dimension",
                show(&sp.var)
            ));
        }
    }
    ck.block(&mut scope, &f.body)?;
    if f.results.len() != f.ret.len() {
        return Err("number of results differs from the return type".into());
    }
    for (a, t) in f.results.iter().zip(&f.ret) {
        expect(&scope, a, *t, "result")?;
    }
    Ok(())
}

fn atom_type(scope: &Scope, a: &Atom) -> Result<Type, String> {
    match a {
        Atom::Const(c) => Ok(Type::Scalar(c.scalar_type())),
        Atom::Var(v) => scope.get(v).copied().ok_or_else(|| {
            format!(
                "variable v_{} used outside the scope of its definition",
                v.0
            )
        }),
    }
}

fn expect(scope: &Scope, a: &Atom, t: Type, what: &str) -> Result<(), String> {
    let found = atom_type(scope, a)?;
    if found == t {
        Ok(())
    } else {
        Err(format!("{what} has type {found:?}, expected {t:?}"))
    }
}

fn array_type(scope: &Scope, v: VarId) -> Result<(ScalarType, usize), String> {
    match atom_type(scope, &Atom::Var(v))? {
        Type::Array(t, r) => Ok((t, r)),
        Type::Scalar(_) => Err(format!("v_{} is used as an array but is a scalar", v.0)),
    }
}

fn indices(scope: &Scope, index: &[Atom]) -> Result<(), String> {
    for a in index {
        match atom_type(scope, a)? {
            Type::Scalar(t) if t.is_int() => {}
            t => return Err(format!("index of type {t:?}")),
        }
    }
    Ok(())
}

fn scalar(scope: &Scope, a: &Atom) -> Result<ScalarType, String> {
    match atom_type(scope, a)? {
        Type::Scalar(t) => Ok(t),
        t => Err(format!("array of type {t:?} where a scalar is expected")),
    }
}

fn exp_type(scope: &Scope, exp: &ScalarExp) -> Result<ScalarType, String> {
    Ok(match exp {
        ScalarExp::Atom(a) => scalar(scope, a)?,
        ScalarExp::BinOp(op, a, b) => {
            let (ta, tb) = (scalar(scope, a)?, scalar(scope, b)?);
            if ta != tb {
                return Err(format!("operands of {} differ: {ta} and {tb}", op.name()));
            }
            if op.is_comparison() {
                ScalarType::Bool
            } else {
                if matches!(op, BinOp::Atan2) && !ta.is_float() {
                    return Err(format!("atan2 on {ta}"));
                }
                ta
            }
        }
        ScalarExp::UnOp(op, a) => op.result(scalar(scope, a)?),
        ScalarExp::Convert(t, a) => {
            scalar(scope, a)?;
            *t
        }
        ScalarExp::Fma(a, b, c) => {
            let ts = [scalar(scope, a)?, scalar(scope, b)?, scalar(scope, c)?];
            if !ts[0].is_float() || ts.iter().any(|t| *t != ts[0]) {
                return Err(format!("fma on {}, {} and {}", ts[0], ts[1], ts[2]));
            }
            ts[0]
        }
    })
}

impl Checker {
    /// Whether `v` is `base` or a view (of a view...) of it.
    fn based_on(&self, mut v: VarId, base: VarId) -> bool {
        // Definitions are unique and precede their uses, so chains are
        // acyclic; the bound only guards against malformed input.
        for _ in 0..=self.views.len() {
            if v == base {
                return true;
            }
            match self.views.get(&v) {
                Some(next) => v = *next,
                None => return false,
            }
        }
        false
    }

    fn define(&mut self, scope: &mut Scope, v: &Var) -> Result<(), String> {
        if !self.defined.insert(v.id) {
            return Err(format!("{} is defined twice", show(v)));
        }
        scope.insert(v.id, v.ty);
        Ok(())
    }

    fn block(&mut self, scope: &mut Scope, block: &Block) -> Result<(), String> {
        for stmt in block {
            self.stmt(scope, stmt)?;
        }
        Ok(())
    }

    fn stmt(&mut self, scope: &mut Scope, stmt: &Stmt) -> Result<(), String> {
        match stmt {
            Stmt::Let { var, exp, .. } => {
                let t = exp_type(scope, exp)?;
                if var.ty != Type::Scalar(t) {
                    return Err(format!("{} bound to a value of type {t}", show(var)));
                }
                self.define(scope, var)
            }
            Stmt::Alloc { var, shape, .. } => {
                if var.ty.rank() != shape.len() || var.ty.rank() == 0 {
                    return Err(format!(
                        "allocation {} with a shape of wrong rank",
                        show(var)
                    ));
                }
                for d in shape {
                    expect(scope, d, I64, "dimension")?;
                }
                self.define(scope, var)
            }
            Stmt::Read {
                var, array, index, ..
            } => {
                let (elem, rank) = array_type(scope, *array)?;
                if index.len() != rank {
                    return Err(format!("read {} with {} indices", show(var), index.len()));
                }
                indices(scope, index)?;
                if var.ty != Type::Scalar(elem) {
                    return Err(format!("read {} of element type {elem}", show(var)));
                }
                self.define(scope, var)
            }
            Stmt::Row {
                var, array, index, ..
            } => {
                let (elem, rank) = array_type(scope, *array)?;
                if index.is_empty() || index.len() >= rank {
                    return Err(format!("row {} with {} indices", show(var), index.len()));
                }
                indices(scope, index)?;
                if var.ty != Type::Array(elem, rank - index.len()) {
                    return Err(format!("row {} has the wrong type", show(var)));
                }
                self.views.insert(var.id, *array);
                self.define(scope, var)
            }
            Stmt::Write {
                array,
                index,
                value,
            } => {
                let (elem, rank) = array_type(scope, *array)?;
                if index.len() != rank {
                    return Err(format!(
                        "write to v_{} with {} indices",
                        array.0,
                        index.len()
                    ));
                }
                indices(scope, index)?;
                expect(scope, value, Type::Scalar(elem), "written value")
            }
            Stmt::Copy { array, index, src } => {
                let (elem, rank) = array_type(scope, *array)?;
                let (src_elem, src_rank) = array_type(scope, *src)?;
                indices(scope, index)?;
                if elem != src_elem || index.len() + src_rank != rank {
                    return Err(format!("copy of v_{} into v_{} mismatches", src.0, array.0));
                }
                Ok(())
            }
            Stmt::If {
                results,
                cond,
                then_block,
                then_results,
                else_block,
                else_results,
            } => {
                expect(scope, cond, BOOL, "condition")?;
                for (block, res) in [(then_block, then_results), (else_block, else_results)] {
                    let mut inner = scope.clone();
                    self.block(&mut inner, block)?;
                    if res.len() != results.len() {
                        return Err("if branch with the wrong number of results".into());
                    }
                    for (a, v) in res.iter().zip(results) {
                        expect(&inner, a, v.ty, "branch result")?;
                    }
                }
                for v in results {
                    self.define(scope, v)?;
                }
                Ok(())
            }
            Stmt::AssertEq {
                expected, found, ..
            } => {
                expect(scope, expected, I64, "size")?;
                expect(scope, found, I64, "size")
            }
            Stmt::Assert { cond, report, .. } => {
                for a in report.iter() {
                    expect(scope, a, I64, "range report")?;
                }
                expect(scope, cond, BOOL, "assertion")
            }
            Stmt::SizeCheck { size, .. } => expect(scope, size, I64, "size check"),
            Stmt::IndexCheck { index, len, .. } => {
                expect(scope, index, I64, "index check")?;
                expect(scope, len, I64, "index check")
            }
            Stmt::BoundsCheck { array, index, .. } => {
                let (_, rank) = array_type(scope, *array)?;
                if index.is_empty() || index.len() > rank {
                    return Err(format!(
                        "bounds check on v_{} with {} indices",
                        array.0,
                        index.len()
                    ));
                }
                indices(scope, index)
            }
            Stmt::SliceCheck {
                start,
                end,
                stride,
                count,
                len,
                ..
            } => {
                for a in [start, end, stride, count, len] {
                    expect(scope, a, I64, "slice bound")?;
                }
                Ok(())
            }
            Stmt::View {
                var,
                array,
                offset,
                shape,
            } => {
                let (elem, _) = array_type(scope, *array)?;
                expect(scope, offset, I64, "view offset")?;
                for d in shape {
                    expect(scope, d, I64, "dimension")?;
                }
                if var.ty != Type::Array(elem, shape.len()) {
                    return Err(format!("view {} has the wrong type", show(var)));
                }
                self.views.insert(var.id, *array);
                self.define(scope, var)
            }
            Stmt::Free(array) => {
                array_type(scope, *array)?;
                // Any later use is then reported as out of scope.
                scope.remove(array);
                Ok(())
            }
            Stmt::InPlace { var, array } => {
                let t = atom_type(scope, &Atom::Var(*array))?;
                if var.ty != t || t.rank() == 0 {
                    return Err(format!("update in place {} has the wrong type", show(var)));
                }
                // The old array and every view of it are dead: their memory
                // now belongs to `var` and is about to be written.
                let dead: Vec<VarId> = scope
                    .keys()
                    .copied()
                    .filter(|v| self.based_on(*v, *array))
                    .collect();
                for v in dead {
                    scope.remove(&v);
                }
                self.define(scope, var)
            }
            Stmt::SeqLoop(lp) => self.seq_loop(scope, lp),
            Stmt::Loop(nest) => self.nest(scope, nest),
        }
    }

    /// Defines an array or scalar together with its dimension variables.
    fn define_shaped(&mut self, scope: &mut Scope, var: &Var, shape: &[Var]) -> Result<(), String> {
        if shape.len() != var.ty.rank() {
            return Err(format!("{} has a shape of wrong rank", show(var)));
        }
        self.define(scope, var)?;
        for d in shape {
            if d.ty != I64 {
                return Err(format!("dimension {} is not i64", show(d)));
            }
            self.define(scope, d)?;
        }
        Ok(())
    }

    fn seq_loop(&mut self, scope: &mut Scope, lp: &SeqLoop) -> Result<(), String> {
        for p in &lp.params {
            expect(scope, &p.init, p.var.ty, "loop initial value")?;
        }
        let mut inner = scope.clone();
        for p in &lp.params {
            self.define_shaped(&mut inner, &p.var, &p.shape)?;
        }
        match &lp.form {
            SeqForm::For { index, bound } => {
                let t = scalar(scope, bound)?;
                if !t.is_int() || index.ty != Type::Scalar(t) {
                    return Err(format!("loop index {} does not fit its bound", show(index)));
                }
                self.define(&mut inner, index)?;
            }
            SeqForm::While { cond, result } => {
                self.block(&mut inner, cond)?;
                expect(&inner, result, BOOL, "loop condition")?;
            }
        }
        self.block(&mut inner, &lp.body)?;
        if lp.next.len() != lp.params.len() || lp.results.len() != lp.params.len() {
            return Err("loop with the wrong number of next values or results".into());
        }
        for (a, p) in lp.next.iter().zip(&lp.params) {
            expect(&inner, a, p.var.ty, "loop next value")?;
        }
        for (r, p) in lp.results.iter().zip(&lp.params) {
            if r.var.ty != p.var.ty {
                return Err(format!("loop result {} has the wrong type", show(&r.var)));
            }
            self.define_shaped(scope, &r.var, &r.shape)?;
        }
        Ok(())
    }

    fn nest(&mut self, scope: &mut Scope, nest: &LoopNest) -> Result<(), String> {
        expect(scope, &nest.width, I64, "loop width")?;
        if nest.index.ty != I64 {
            return Err(format!("loop index {} is not i64", show(&nest.index)));
        }
        if nest.par != nest.required_parallelism() {
            return Err(format!(
                "loop {} is marked {} but needs {}",
                show(&nest.index),
                nest.par.name(),
                nest.required_parallelism().name()
            ));
        }
        for c in nest.carried() {
            expect(scope, &c.init, c.var.ty, "initial value")?;
        }
        let outputs = nest.scans.iter().flat_map(|s| s.outputs.iter());
        let outputs = outputs
            .chain(nest.compactions.iter().flat_map(|c| c.outputs.iter()))
            .chain(nest.hists.iter().flat_map(|h| h.bins.iter()))
            .chain(nest.scatters.iter());
        for o in outputs {
            array_type(scope, *o)?;
        }
        for c in &nest.compactions {
            if c.count.var.ty != I64 || c.result.ty != I64 {
                return Err(format!(
                    "compaction count {} is not i64",
                    show(&c.count.var)
                ));
            }
        }
        let ops = nest.reductions.iter().map(|r| (&r.op, &r.carried));
        for (op, carried) in ops.chain(nest.scans.iter().map(|s| (&s.op, &s.carried))) {
            self.operator(scope, op, carried)?;
        }
        for h in &nest.hists {
            self.hist(scope, h)?;
        }
        let mut inner = scope.clone();
        self.define(&mut inner, &nest.index)?;
        for c in nest.carried() {
            self.define(&mut inner, &c.var)?;
        }
        self.block(&mut inner, &nest.body)?;
        for c in nest.carried() {
            expect(&inner, &c.next, c.var.ty, "next value")?;
        }
        for c in &nest.compactions {
            expect(&inner, &c.flag, BOOL, "compaction flag")?;
        }
        for r in &nest.reductions {
            if r.results.len() != r.carried.len() {
                return Err("reduction with the wrong number of results".into());
            }
            for (v, c) in r.results.iter().zip(&r.carried) {
                if v.ty != c.var.ty {
                    return Err(format!("reduction result {} has the wrong type", show(v)));
                }
                self.define(scope, v)?;
            }
        }
        for c in &nest.compactions {
            self.define(scope, &c.result)?;
        }
        Ok(())
    }

    /// A histogram's operator combines a bin's element with a value.
    fn hist(&mut self, scope: &Scope, h: &HistState) -> Result<(), String> {
        let k = h.bins.len();
        if h.neutral.len() != k || h.op.params.len() != 2 * k || h.op.results.len() != k {
            return Err("histogram operator of the wrong arity".into());
        }
        let mut inner = scope.clone();
        let mut rows = Vec::new();
        for (b, ne) in h.bins.iter().zip(&h.neutral) {
            let (elem, rank) = array_type(scope, *b)?;
            let row = Type::Array(elem, rank).row();
            expect(scope, ne, row, "histogram neutral element")?;
            rows.push(row);
        }
        for (p, t) in h.op.params.iter().zip(rows.iter().chain(&rows)) {
            if p.ty != *t {
                return Err(format!("operator parameter {} has the wrong type", show(p)));
            }
            self.define(&mut inner, p)?;
        }
        self.block(&mut inner, &h.op.body)?;
        for (a, t) in h.op.results.iter().zip(&rows) {
            expect(&inner, a, *t, "operator result")?;
        }
        Ok(())
    }

    /// An operator sees what the loop sees from outside; it combines two
    /// groups of carried values.
    fn operator(
        &mut self,
        scope: &Scope,
        op: &Operator,
        carried: &[Carried],
    ) -> Result<(), String> {
        let mut inner = scope.clone();
        if op.params.len() != 2 * carried.len() || op.results.len() != carried.len() {
            return Err("operator of the wrong arity".into());
        }
        for (p, c) in op.params.iter().zip(carried.iter().chain(carried)) {
            if p.ty != c.var.ty {
                return Err(format!("operator parameter {} has the wrong type", show(p)));
            }
            self.define(&mut inner, p)?;
        }
        self.block(&mut inner, &op.body)?;
        for (a, c) in op.results.iter().zip(carried) {
            expect(&inner, a, c.var.ty, "operator result")?;
        }
        Ok(())
    }
}
