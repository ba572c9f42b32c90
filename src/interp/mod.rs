//! `core::ir::Program` plus argument values in, result values out: the
//! reference interpreter every test compares the compiled code against.
//!
//! Arrays are shared, never copied per element: a value is a view (offset
//! and shape) into reference-counted typed storage, so a row of a matrix or
//! a variable bound twice costs no copy. Variables live in a vector indexed
//! by `VarId` (ids are unique within a program and every call is inlined, so
//! no frames are needed).
//!
//! `soacs` runs the SOACs, `arrays` slicing, updates and the other array
//! operations, and `inplace` finds the `with` updates and scatters whose
//! destination is dead afterwards, so that a loop updating an array element
//! by element does not copy it per iteration. `unspecified` is the checking
//! mode that reports where a result depends on what the contract leaves open.

mod arrays;
mod inplace;
pub mod ops;
mod soacs;
mod unspecified;

use crate::core::ir::{
    assert_message, range_message, AssertReport, Atom, BinOp, Body, Exp, Function, Lambda,
    LoopForm, Program, SrcLoc, Stm, Type, UnOp, Var, VarId,
};
use crate::runtime::value::{type_string, ArrayData, ArrayValue, Value};
use crate::types::{Const, ScalarType};
use ops::OpError;
use std::collections::HashSet;
use std::fmt;
use std::rc::Rc;

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// A run-time error of the program (exit code 1); the message names the
    /// source location: `index 10 out of bounds for array of length 5 at
    /// prog.arr:12:7`, `size mismatch: 3 and 4 at ...`, `division by zero
    /// at ...`, `assertion failed at ...`.
    Program(String),
    /// Arguments that do not fit the entry point (exit code 2).
    Argument { arg: usize, message: String },
    /// No entry point of that name (exit code 2).
    UnknownEntry(String),
    /// Malformed IR: a compiler bug rather than the program's fault.
    Internal(String),
    /// In the checking mode (`run_entry_checked`), a result that depends on
    /// behaviour the contract leaves unspecified (`interp::unspecified`).
    Unspecified(String),
}

impl RunError {
    /// The exit code of `arrc run` (and of compiled binaries) for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Argument { .. } | RunError::UnknownEntry(_) => 2,
            RunError::Program(_) | RunError::Internal(_) | RunError::Unspecified(_) => 1,
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Program(m) => f.write_str(m),
            RunError::Argument { arg, message } => write!(f, "argument {arg}: {message}"),
            RunError::UnknownEntry(name) => write!(f, "unknown entry point '{name}'"),
            RunError::Internal(m) => write!(f, "internal error: {m}"),
            RunError::Unspecified(m) => write!(f, "unspecified behaviour: {m}"),
        }
    }
}

impl std::error::Error for RunError {}

/// Runs entry point `entry` of `program` on `args`; one value per result.
/// `ARRC_CHECK_UNSPECIFIED` may turn the checking mode on
/// (`CheckMode::from_env`).
pub fn run_entry(program: &Program, entry: &str, args: Vec<Value>) -> Result<Vec<Value>, RunError> {
    run_entry_checked(program, entry, args, CheckMode::from_env())
}

/// How much of what the contract leaves unspecified a run reports
/// (`interp::unspecified`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CheckMode {
    Off,
    /// Results that depend on the backend or the number of threads.
    On,
    /// Also a neutral element that is not neutral for an element, as the
    /// contract requires, where the result would not depend on it.
    Strict,
}

impl CheckMode {
    /// `ARRC_CHECK_UNSPECIFIED=1` is `On`, `=strict` is `Strict`.
    pub fn from_env() -> CheckMode {
        match std::env::var("ARRC_CHECK_UNSPECIFIED").as_deref() {
            Ok("1") => CheckMode::On,
            Ok("strict") => CheckMode::Strict,
            _ => CheckMode::Off,
        }
    }
}

/// `run_entry` in the checking mode `check`.
pub fn run_entry_checked(
    program: &Program,
    entry: &str,
    args: Vec<Value>,
    check: CheckMode,
) -> Result<Vec<Value>, RunError> {
    let f = program
        .entries
        .iter()
        .find(|f| f.name == entry)
        .ok_or_else(|| RunError::UnknownEntry(entry.to_string()))?;
    let mut interp = Interp {
        files: &program.files,
        env: vec![None; max_var_function(f) as usize + 1],
        consuming: inplace::consuming_statements(f),
        fuel: None,
        check,
    };
    interp.bind_args(f, args)?;
    interp.exec_body(&f.body)?;
    f.body
        .result
        .iter()
        .map(|a| interp.atom(a).map(to_value))
        .collect()
}

/// A view of shared storage: the elements `data[offset..]` in row-major
/// order with shape `shape[skip..]` (skipping outer dimensions is how a row
/// is taken without allocating).
#[derive(Clone, Debug)]
struct Arr {
    data: Rc<ArrayData>,
    offset: usize,
    shape: Rc<[usize]>,
    skip: usize,
}

impl Arr {
    fn whole(data: ArrayData, shape: Vec<usize>) -> Arr {
        Arr {
            data: Rc::new(data),
            offset: 0,
            shape: shape.into(),
            skip: 0,
        }
    }

    fn dims(&self) -> &[usize] {
        self.shape.get(self.skip..).unwrap_or(&[])
    }

    fn outer(&self) -> usize {
        self.dims().first().copied().unwrap_or(0)
    }

    fn row_elems(&self) -> usize {
        self.dims().iter().skip(1).product()
    }

    fn elems(&self) -> usize {
        self.dims().iter().product()
    }

    /// The same elements with other dimensions (their product must be
    /// `elems()`): flatten and unflatten without copying.
    fn reshaped(&self, dims: Vec<usize>) -> Arr {
        Arr {
            data: self.data.clone(),
            offset: self.offset,
            shape: dims.into(),
            skip: 0,
        }
    }

    /// The elements as storage of their own: moved out when this view is
    /// the only user of all of its storage, copied otherwise.
    fn into_data(self) -> ArrayData {
        let n = self.elems();
        match Rc::try_unwrap(self.data) {
            Ok(d) if self.offset == 0 && d.len() == n => d,
            Ok(d) => d.slice(self.offset, n),
            Err(shared) => shared.slice(self.offset, n),
        }
    }

    /// Row `i` (not bounds-checked against the outer size: callers do).
    fn row(&self, i: usize) -> Val {
        if self.dims().len() <= 1 {
            match self.data.get(self.offset + i) {
                Some(c) => Val::Scalar(c),
                None => Val::Scalar(Const::Bool(false)),
            }
        } else {
            Val::Array(Arr {
                data: self.data.clone(),
                offset: self.offset + i * self.row_elems(),
                shape: self.shape.clone(),
                skip: self.skip + 1,
            })
        }
    }
}

#[derive(Clone, Debug)]
enum Val {
    Scalar(Const),
    Array(Arr),
}

fn to_value(v: Val) -> Value {
    match v {
        Val::Scalar(c) => Value::Scalar(c),
        Val::Array(a) => {
            let dims = a.dims().to_vec();
            let data = a.into_data();
            Value::Array(ArrayValue {
                elem: data.elem(),
                shape: dims,
                data,
            })
        }
    }
}

/// Collects the rows of a SOAC result; every row must have the same shape.
struct Builder {
    data: ArrayData,
    row_shape: Option<Vec<usize>>,
    rows: usize,
}

impl Builder {
    fn new(ty: Type, rows: usize) -> Builder {
        let cap = if ty.rank() == 0 { rows } else { 0 };
        Builder {
            data: ArrayData::with_capacity(ty.elem(), cap),
            row_shape: (ty.rank() == 0).then(Vec::new),
            rows: 0,
        }
    }

    fn push(&mut self, v: &Val, interp: &Interp, loc: SrcLoc) -> Result<(), RunError> {
        match v {
            Val::Scalar(c) => {
                if !self.data.push(*c) {
                    return Err(RunError::Internal(format!(
                        "a {} in an array of {}",
                        c.scalar_type(),
                        self.data.elem()
                    )));
                }
            }
            Val::Array(a) => {
                match &self.row_shape {
                    None => self.row_shape = Some(a.dims().to_vec()),
                    Some(s) if s.as_slice() == a.dims() => {}
                    Some(s) => {
                        let (x, y) = first_difference(s, a.dims());
                        return Err(interp.size_mismatch(x, y, loc));
                    }
                }
                if !self.data.extend_from(&a.data, a.offset, a.elems()) {
                    return Err(RunError::Internal("array element type mismatch".into()));
                }
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// The result array; `row_rank` sizes the unknown row shape of zero rows.
    fn finish(self, row_rank: usize) -> Val {
        let mut shape = vec![self.rows];
        shape.extend(self.row_shape.unwrap_or_else(|| vec![0; row_rank]));
        Val::Array(Arr::whole(self.data, shape))
    }

    /// The result array, with rows shaped like `like` when there are none.
    fn finish_like(self, like: &Val) -> Val {
        let mut shape = vec![self.rows];
        shape.extend(self.row_shape.unwrap_or_else(|| match like {
            Val::Array(a) => a.dims().to_vec(),
            Val::Scalar(_) => Vec::new(),
        }));
        Val::Array(Arr::whole(self.data, shape))
    }
}

/// The first pair of sizes where two shapes differ (the ranks if one is a
/// prefix of the other), for `size mismatch` messages.
fn first_difference(a: &[usize], b: &[usize]) -> (i64, i64) {
    a.iter()
        .zip(b)
        .find(|(x, y)| x != y)
        .map(|(x, y)| (*x as i64, *y as i64))
        .unwrap_or((a.len() as i64, b.len() as i64))
}

/// A new array of the rows `rows` of `a`, in that order.
fn gather_rows(a: &Arr, rows: &[usize]) -> Val {
    let row = a.row_elems();
    let mut data = ArrayData::with_capacity(a.data.elem(), rows.len() * row);
    for &i in rows {
        data.extend_from(&a.data, a.offset + i * row, row);
    }
    let mut shape = a.dims().to_vec();
    if let Some(outer) = shape.first_mut() {
        *outer = rows.len();
    }
    Val::Array(Arr::whole(data, shape))
}

struct Interp<'p> {
    files: &'p [String],
    env: Vec<Option<Val>>,
    /// Statements (by address) that may update their operand in place.
    consuming: HashSet<usize>,
    /// During a trial run (see `soacs`), the statements it may still run.
    fuel: Option<u64>,
    /// The checking mode of `unspecified`.
    check: CheckMode,
}

impl Interp<'_> {
    fn loc(&self, loc: SrcLoc) -> String {
        let file = self
            .files
            .get(loc.file as usize)
            .map(String::as_str)
            .unwrap_or("<unknown>");
        format!("{file}:{}:{}", loc.line, loc.col)
    }

    fn internal(&self, what: &str, loc: SrcLoc) -> RunError {
        RunError::Internal(format!("{what} at {}", self.loc(loc)))
    }

    /// In a trial run (see `soacs::trial_rows`), which has fuel.
    fn trial(&self) -> bool {
        self.fuel.is_some()
    }

    fn size_mismatch(&self, a: i64, b: i64, loc: SrcLoc) -> RunError {
        RunError::Program(format!("size mismatch: {a} and {b} at {}", self.loc(loc)))
    }

    fn set(&mut self, id: VarId, v: Val) {
        if let Some(slot) = self.env.get_mut(id.0 as usize) {
            *slot = Some(v);
        }
    }

    fn var(&self, id: VarId) -> Result<&Val, RunError> {
        self.env
            .get(id.0 as usize)
            .and_then(Option::as_ref)
            .ok_or_else(|| RunError::Internal(format!("unbound variable {}", id.0)))
    }

    /// Moves a variable's value out (it must not be read again).
    fn take(&mut self, id: VarId) -> Result<Val, RunError> {
        self.env
            .get_mut(id.0 as usize)
            .and_then(Option::take)
            .ok_or_else(|| RunError::Internal(format!("unbound variable {}", id.0)))
    }

    /// The array `id`, moved out of its variable when `stm` consumes it
    /// (see `inplace`), so that storage used nowhere else can be written.
    fn consume_array(&mut self, stm: &Stm, id: VarId) -> Result<Arr, RunError> {
        let v = if self.consuming.contains(&(stm as *const Stm as usize)) {
            self.take(id)?
        } else {
            self.var(id)?.clone()
        };
        match v {
            Val::Array(a) => Ok(a),
            Val::Scalar(_) => Err(RunError::Internal(format!(
                "variable {} is not an array",
                id.0
            ))),
        }
    }

    fn array(&self, id: VarId) -> Result<&Arr, RunError> {
        match self.var(id)? {
            Val::Array(a) => Ok(a),
            Val::Scalar(_) => Err(RunError::Internal(format!(
                "variable {} is not an array",
                id.0
            ))),
        }
    }

    fn atom(&self, a: &Atom) -> Result<Val, RunError> {
        match a {
            Atom::Const(c) => Ok(Val::Scalar(*c)),
            Atom::Var(v) => self.var(*v).cloned(),
        }
    }

    fn scalar(&self, a: &Atom) -> Result<Const, RunError> {
        match a {
            Atom::Const(c) => Ok(*c),
            Atom::Var(v) => match self.var(*v)? {
                Val::Scalar(c) => Ok(*c),
                Val::Array(_) => Err(RunError::Internal(format!(
                    "variable {} is not a scalar",
                    v.0
                ))),
            },
        }
    }

    /// A size or index operand.
    fn int(&self, a: &Atom) -> Result<i64, RunError> {
        match self.scalar(a)?.as_i128() {
            Some(v) => Ok(v as i64),
            None => Err(RunError::Internal("float used as a size or index".into())),
        }
    }

    /// A size for a new array: negative sizes are errors, and so are sizes
    /// no machine could hold (rather than aborting in the allocator).
    fn size(&self, a: &Atom, loc: SrcLoc) -> Result<usize, RunError> {
        const MAX_ELEMENTS: i64 = 1 << 28;
        let n = self.int(a)?;
        if n > MAX_ELEMENTS {
            return Err(RunError::Program(format!(
                "cannot allocate an array of {n} elements at {}",
                self.loc(loc)
            )));
        }
        match usize::try_from(n) {
            Ok(n) => Ok(n),
            // A trial run (the rows of a map over no rows) only wants
            // shapes: a size its zeros make negative gives no elements.
            Err(_) if self.trial() => Ok(0),
            Err(_) => Err(RunError::Program(format!(
                "negative size {n} at {}",
                self.loc(loc)
            ))),
        }
    }

    fn bind_args(&mut self, f: &Function, args: Vec<Value>) -> Result<(), RunError> {
        if args.len() < f.params.len() {
            let p = &f.params[args.len()];
            return Err(RunError::Argument {
                arg: args.len() + 1,
                message: format!("missing argument of type {}", type_string(p.ty)),
            });
        }
        if args.len() > f.params.len() {
            return Err(RunError::Argument {
                arg: f.params.len() + 1,
                message: format!(
                    "unexpected argument (the entry point takes {})",
                    f.params.len()
                ),
            });
        }
        for (i, (p, v)) in f.params.iter().zip(args).enumerate() {
            let arg = i + 1;
            if v.ty() != p.ty {
                return Err(RunError::Argument {
                    arg,
                    message: format!(
                        "expected {}, found a value of type {}",
                        type_string(p.ty),
                        type_string(v.ty())
                    ),
                });
            }
            let val = match v {
                Value::Scalar(c) => Val::Scalar(c),
                Value::Array(a) => {
                    if ArrayValue::new(a.shape.clone(), a.data.clone()).is_none()
                        || a.elem != a.data.elem()
                    {
                        return Err(RunError::Argument {
                            arg,
                            message: "malformed array: its data does not fit its shape".into(),
                        });
                    }
                    Val::Array(Arr::whole(a.data, a.shape))
                }
            };
            self.set(p.id, val);
        }
        for sp in &f.size_params {
            let dim_of = |interp: &Self, (p, d): (usize, usize)| -> Result<usize, RunError> {
                f.params
                    .get(p)
                    .and_then(|param| match interp.var(param.id) {
                        Ok(Val::Array(a)) => a.dims().get(d).copied(),
                        _ => None,
                    })
                    .ok_or_else(|| {
                        RunError::Internal(format!("size parameter {} has a bad use", sp.var.name))
                    })
            };
            let Some(&first) = sp.uses.first() else {
                return Err(RunError::Internal(format!(
                    "size parameter {} is not bound to a dimension",
                    sp.var.name
                )));
            };
            let n = dim_of(self, first)?;
            if let Some(k) = sp.fixed.filter(|k| *k != n as i64) {
                return Err(RunError::Argument {
                    arg: first.0 + 1,
                    message: format!(
                        "size mismatch: dimension {} is {n}, but the entry point's type says {k}",
                        first.1 + 1
                    ),
                });
            }
            for &(p, d) in &sp.uses[1..] {
                let m = dim_of(self, (p, d))?;
                if m != n {
                    return Err(RunError::Argument {
                        arg: p + 1,
                        message: format!(
                            "size mismatch: dimension {} is {m}, but dimension {} of argument {} is {n}",
                            d + 1,
                            first.1 + 1,
                            first.0 + 1
                        ),
                    });
                }
            }
            self.set(sp.var.id, Val::Scalar(Const::I64(n as i64)));
        }
        Ok(())
    }

    fn exec_body(&mut self, body: &Body) -> Result<(), RunError> {
        for stm in &body.stms {
            self.exec_stm(stm)?;
        }
        Ok(())
    }

    /// The results of a body that just ran, moving out the variables bound
    /// by its own statements (nothing can read them any more): a value
    /// carried through an `if` or a loop then keeps a reference count of 1
    /// and can be updated in place.
    fn take_results(&mut self, body: &Body) -> Result<Vec<Val>, RunError> {
        let mut out: Vec<Val> = Vec::with_capacity(body.result.len());
        for (k, a) in body.result.iter().enumerate() {
            let earlier = body.result[..k].iter().position(|b| b == a);
            let v = match (a, earlier) {
                // Already moved out for an earlier result.
                (_, Some(j)) => out[j].clone(),
                (Atom::Var(id), None)
                    if body.stms.iter().any(|s| s.pat.iter().any(|p| p.id == *id)) =>
                {
                    self.take(*id)?
                }
                _ => self.atom(a)?,
            };
            out.push(v);
        }
        Ok(out)
    }

    fn run_loop(
        &mut self,
        params: &[(Var, Atom)],
        form: &LoopForm,
        body: &Body,
        loc: SrcLoc,
    ) -> Result<Vec<Val>, RunError> {
        if body.result.len() != params.len() {
            return Err(RunError::Internal(format!(
                "loop body results do not fit its parameters at {}",
                self.loc(loc)
            )));
        }
        let init: Vec<Val> = params
            .iter()
            .map(|(_, a)| self.atom(a))
            .collect::<Result<_, _>>()?;
        for ((p, _), v) in params.iter().zip(init) {
            self.set(p.id, v);
        }
        match form {
            LoopForm::For { index, bound } => {
                let n = self.scalar(bound)?.as_i128().ok_or_else(|| {
                    RunError::Internal(format!("float loop bound at {}", self.loc(loc)))
                })?;
                let t = index.ty.elem();
                for i in 0..n.max(0) {
                    self.set(index.id, Val::Scalar(Const::int_wrapping(t, i)));
                    self.loop_iteration(params, body)?;
                }
            }
            LoopForm::While { cond } => loop {
                self.exec_body(cond)?;
                let go = match cond.result.first() {
                    Some(a) if cond.result.len() == 1 => self.scalar(a)?,
                    _ => Const::I32(0),
                };
                match go {
                    Const::Bool(true) => self.loop_iteration(params, body)?,
                    Const::Bool(false) => break,
                    _ => {
                        return Err(RunError::Internal(format!(
                            "loop condition is not one bool at {}",
                            self.loc(loc)
                        )))
                    }
                }
            },
        }
        params.iter().map(|(p, _)| self.take(p.id)).collect()
    }

    fn loop_iteration(&mut self, params: &[(Var, Atom)], body: &Body) -> Result<(), RunError> {
        self.exec_body(body)?;
        let next = self.take_results(body)?;
        for ((p, _), v) in params.iter().zip(next) {
            self.set(p.id, v);
        }
        Ok(())
    }

    fn bind_pat(&mut self, stm: &Stm, vals: Vec<Val>) -> Result<(), RunError> {
        if vals.len() != stm.pat.len() {
            return Err(RunError::Internal(format!(
                "{} values bound to {} variables at {}",
                vals.len(),
                stm.pat.len(),
                self.loc(stm.loc)
            )));
        }
        for (p, v) in stm.pat.iter().zip(vals) {
            self.set(p.id, v);
        }
        Ok(())
    }

    fn op_error(&self, e: OpError, stm: &Stm) -> RunError {
        match e {
            OpError::DivisionByZero => {
                RunError::Program(format!("division by zero at {}", self.loc(stm.loc)))
            }
            OpError::Type => RunError::Internal(format!(
                "operand types do not fit the operator at {}",
                self.loc(stm.loc)
            )),
        }
    }

    fn exec_stm(&mut self, stm: &Stm) -> Result<(), RunError> {
        if let Some(fuel) = &mut self.fuel {
            if *fuel == 0 {
                return Err(self.internal("a trial run out of steps", stm.loc));
            }
            *fuel -= 1;
        }
        let single = |interp: &mut Self, v: Val| -> Result<(), RunError> {
            match stm.pat.first() {
                Some(p) if stm.pat.len() == 1 => {
                    interp.set(p.id, v);
                    Ok(())
                }
                _ => interp.bind_pat(stm, vec![v]),
            }
        };
        match &stm.exp {
            Exp::Atom(a) => {
                let v = self.atom(a)?;
                single(self, v)
            }
            Exp::BinOp(op, a, b) => {
                let (x, y) = (self.scalar(a)?, self.scalar(b)?);
                if *op == BinOp::CopySign && unspecified::exposes_nan_bits(y) && self.checking() {
                    let what = format!("copysign takes the sign of a NaN ({y})");
                    return Err(self.unspecified(what, stm.loc));
                }
                let c = match ops::binop(*op, x, y) {
                    // A trial run only looks for shapes: a zero divisor
                    // in the rows of zeros it runs on gives zero.
                    Err(OpError::DivisionByZero) if self.trial() => Const::zero(x.scalar_type()),
                    other => other.map_err(|e| self.op_error(e, stm))?,
                };
                single(self, Val::Scalar(c))
            }
            Exp::UnOp(op, a) => {
                let x = self.scalar(a)?;
                if *op == UnOp::ToBits && unspecified::exposes_nan_bits(x) && self.checking() {
                    let what = "to_bits of a NaN (its bits differ between backends)".to_string();
                    return Err(self.unspecified(what, stm.loc));
                }
                let c = ops::unop(*op, x).map_err(|e| self.op_error(e, stm))?;
                single(self, Val::Scalar(c))
            }
            Exp::Convert(t, a) => {
                let c = ops::convert(*t, self.scalar(a)?);
                single(self, Val::Scalar(c))
            }
            Exp::Fma(a, b, c) => {
                let (a, b, c) = (self.scalar(a)?, self.scalar(b)?, self.scalar(c)?);
                let r = ops::fma(a, b, c).map_err(|e| self.op_error(e, stm))?;
                single(self, Val::Scalar(r))
            }
            Exp::If {
                cond,
                then_body,
                else_body,
            } => {
                let body = match self.scalar(cond)? {
                    Const::Bool(true) => then_body,
                    Const::Bool(false) => else_body,
                    _ => return Err(RunError::Internal("non-boolean condition".into())),
                };
                self.exec_body(body)?;
                let vals = self.take_results(body)?;
                self.bind_pat(stm, vals)
            }
            Exp::Index { array, indices, .. } => {
                let v = self.index(*array, indices, stm.loc)?;
                single(self, v)
            }
            Exp::Size { array, dim } => {
                let n = self
                    .array(*array)?
                    .dims()
                    .get(*dim)
                    .copied()
                    .ok_or_else(|| {
                        RunError::Internal(format!("no dimension {dim} at {}", self.loc(stm.loc)))
                    })?;
                single(self, Val::Scalar(Const::I64(n as i64)))
            }
            Exp::Iota(n) => {
                let n = self.iota_size(n, stm.loc)?;
                let elem = stm
                    .pat
                    .first()
                    .map(|p| p.ty.elem())
                    .unwrap_or(ScalarType::I64);
                let data = if elem == ScalarType::I64 {
                    ArrayData::I64((0..n as i64).collect())
                } else {
                    let mut d = ArrayData::with_capacity(elem, n);
                    for i in 0..n {
                        d.push(Const::int_wrapping(elem, i as i128));
                    }
                    d
                };
                single(self, Val::Array(Arr::whole(data, vec![n])))
            }
            Exp::Replicate { count, value } => {
                let n = self.size(count, stm.loc)?;
                let v =
                    match self.atom(value)? {
                        Val::Scalar(c) => Arr::whole(ArrayData::filled(c, n), vec![n]),
                        Val::Array(a) => {
                            let elems = a.elems();
                            let total = elems.checked_mul(n).filter(|t| *t <= 1 << 28).ok_or_else(
                                || {
                                    RunError::Program(format!(
                                        "array too large at {}",
                                        self.loc(stm.loc)
                                    ))
                                },
                            )?;
                            let mut d = ArrayData::with_capacity(a.data.elem(), total);
                            for _ in 0..n {
                                d.extend_from(&a.data, a.offset, elems);
                            }
                            let mut shape = vec![n];
                            shape.extend_from_slice(a.dims());
                            Arr::whole(d, shape)
                        }
                    };
                single(self, Val::Array(v))
            }
            Exp::ArrayLit { elem, items } => {
                let mut b = Builder::new(*elem, items.len());
                for item in items {
                    let v = self.atom(item)?;
                    b.push(&v, self, stm.loc)?;
                }
                single(self, b.finish(elem.rank()))
            }
            Exp::AssertEqSizes(a, b) => {
                let (x, y) = (self.int(a)?, self.int(b)?);
                if x != y && !self.trial() {
                    return Err(self.size_mismatch(x, y, stm.loc));
                }
                // The statement may bind the (now checked) size.
                for p in &stm.pat {
                    self.set(p.id, Val::Scalar(Const::I64(x)));
                }
                Ok(())
            }
            Exp::Assert(c, report) => {
                if self.scalar(c)? != Const::Bool(true) && !self.trial() {
                    let what = match report {
                        AssertReport::Plain => {
                            return Err(RunError::Program(assert_message(None, &self.loc(stm.loc))))
                        }
                        AssertReport::Condition(text) => {
                            let message = assert_message(Some(text), &self.loc(stm.loc));
                            return Err(RunError::Program(message));
                        }
                        AssertReport::NegativeExponent => "negative exponent".to_string(),
                        AssertReport::Range(a) => {
                            let mut v = [0i64; 4];
                            for (x, a) in v.iter_mut().zip(a) {
                                *x = self.scalar(a)?.as_i128().unwrap_or(0) as i64;
                            }
                            range_message(v[0], v[1], v[2], v[3])
                        }
                        AssertReport::Slice(a) => {
                            let mut v = [0i64; 4];
                            for (x, a) in v.iter_mut().zip(a) {
                                *x = self.scalar(a)?.as_i128().unwrap_or(0) as i64;
                            }
                            format!(
                                "index {}:{}:{} out of bounds for array of length {}",
                                v[0], v[1], v[2], v[3]
                            )
                        }
                    };
                    return Err(RunError::Program(format!(
                        "{what} at {}",
                        self.loc(stm.loc)
                    )));
                }
                for p in &stm.pat {
                    self.set(p.id, Val::Scalar(Const::Bool(true)));
                }
                Ok(())
            }
            Exp::Soac(soac) => {
                let vals = self.soac(soac, stm)?;
                self.bind_pat(stm, vals)
            }
            Exp::Loop { params, form, body } => {
                let vals = self.run_loop(params, form, body, stm.loc)?;
                self.bind_pat(stm, vals)
            }
            Exp::Slice { array, dims } => {
                let v = self.slice(*array, dims, stm.loc)?;
                single(self, v)
            }
            Exp::Update {
                array,
                indices,
                value,
            } => {
                let v = self.update(stm, *array, indices, value)?;
                single(self, v)
            }
            Exp::Transpose(array) => {
                let v = self.transpose(*array, stm.loc)?;
                single(self, v)
            }
            Exp::Flatten(array) => {
                let v = self.flatten(*array, stm.loc)?;
                single(self, v)
            }
            Exp::Unflatten { array, rows, cols } => {
                let v = self.unflatten(*array, rows, cols, stm.loc)?;
                single(self, v)
            }
            Exp::Reverse(array) => {
                let v = self.reverse(*array, stm.loc)?;
                single(self, v)
            }
            Exp::Rotate { array, amount } => {
                let v = self.rotate(*array, amount, stm.loc)?;
                single(self, v)
            }
            Exp::Concat(arrays) => {
                let v = self.concat(arrays, stm.loc)?;
                single(self, v)
            }
        }
    }

    fn index(&self, array: VarId, indices: &[Atom], loc: SrcLoc) -> Result<Val, RunError> {
        let a = self.array(array)?;
        let dims = a.dims();
        if indices.len() > dims.len() {
            return Err(RunError::Internal(format!(
                "{} indices into an array of rank {} at {}",
                indices.len(),
                dims.len(),
                self.loc(loc)
            )));
        }
        let mut offset = a.offset;
        let mut stride = a.elems();
        for (k, ix) in indices.iter().enumerate() {
            let i = self.int(ix)?;
            let len = dims[k];
            if (i < 0 || i as u64 >= len as u64) && self.trial() {
                // A trial run (the rows of a map over no rows) reads zeros
                // where the rows of zeros it runs on leave an index out of
                // range: only the shapes it makes count.
                let zero = Const::zero(a.data.elem());
                let rest = dims[indices.len().min(dims.len())..].to_vec();
                return Ok(if rest.is_empty() {
                    Val::Scalar(zero)
                } else {
                    let n = rest.iter().product();
                    Val::Array(Arr::whole(ArrayData::filled(zero, n), rest))
                });
            }
            if i < 0 || i as u64 >= len as u64 {
                return Err(RunError::Program(format!(
                    "index {i} out of bounds for array of length {len} at {}",
                    self.loc(loc)
                )));
            }
            stride /= len.max(1);
            offset += i as usize * stride;
        }
        if indices.len() == dims.len() {
            a.data
                .get(offset)
                .map(Val::Scalar)
                .ok_or_else(|| RunError::Internal("array view out of its storage".into()))
        } else {
            Ok(Val::Array(Arr {
                data: a.data.clone(),
                offset,
                shape: a.shape.clone(),
                skip: a.skip + indices.len(),
            }))
        }
    }
}

fn max_var_body(b: &Body) -> u32 {
    b.stms
        .iter()
        .map(|s| {
            let pat = s.pat.iter().map(|v| v.id.0).max().unwrap_or(0);
            let inner = match &s.exp {
                Exp::If {
                    then_body,
                    else_body,
                    ..
                } => max_var_body(then_body).max(max_var_body(else_body)),
                Exp::Soac(soac) => soac.kind.lambda().map_or(0, max_var_lambda),
                Exp::Loop { params, form, body } => {
                    let ps = params.iter().map(|(p, _)| p.id.0).max().unwrap_or(0);
                    let f = match form {
                        LoopForm::For { index, .. } => index.id.0,
                        LoopForm::While { cond } => max_var_body(cond),
                    };
                    ps.max(f).max(max_var_body(body))
                }
                _ => 0,
            };
            pat.max(inner)
        })
        .max()
        .unwrap_or(0)
}

fn max_var_lambda(l: &Lambda) -> u32 {
    let params = l.params.iter().map(|v| v.id.0).max().unwrap_or(0);
    params.max(max_var_body(&l.body))
}

fn max_var_function(f: &Function) -> u32 {
    let params = f.params.iter().map(|v| v.id.0).max().unwrap_or(0);
    let sizes = f.size_params.iter().map(|s| s.var.id.0).max().unwrap_or(0);
    params.max(sizes).max(max_var_body(&f.body))
}

#[cfg(test)]
mod tests;
