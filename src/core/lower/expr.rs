//! Expressions other than applications: lets, conditionals, loops,
//! indexing, slicing and literals.

use super::*;

impl<'a> Lowerer<'a> {
    pub(super) fn expr(&mut self, env: &Env<'a>, e: &'a TExpr) -> Value<'a> {
        let loc = self.loc(e.file, &e.span);
        match &e.kind {
            TExprKind::Literal(lit) => match e.ty {
                Type::Scalar(s) => Value::Leaf(Atom::Const(lit.to_const(s)), CType::Scalar(s)),
                _ => unit(),
            },
            TExprKind::Var(id) => match env.get(*id) {
                Some(v) => v.clone(),
                None => self.default_value(&e.ty, loc),
            },
            TExprKind::Builtin(b) => Value::Func(Rc::new(Closure {
                callee: Callee::Builtin(*b),
                applied: Vec::new(),
            })),
            TExprKind::Lambda(lam) => Value::Func(Rc::new(Closure {
                callee: Callee::Lambda(lam, env.clone()),
                applied: Vec::new(),
            })),
            TExprKind::Tuple(_) | TExprKind::Record(_) if is_unit(&e.ty) => {
                if let TExprKind::Tuple(es) = &e.kind {
                    es.iter().for_each(|x| drop(self.expr(env, x)));
                }
                unit_leaf()
            }
            TExprKind::Tuple(es) => Value::Tuple(es.iter().map(|x| self.expr(env, x)).collect()),
            TExprKind::Record(fs) => {
                Value::Tuple(fs.iter().map(|(_, x)| self.expr(env, x)).collect())
            }
            TExprKind::ArrayLit(items) => self.array_lit(env, &e.ty, items, loc),
            TExprKind::Apply(f, args) => {
                let f = self.expr(env, f);
                if !matches!(f, Value::Func(_)) {
                    // A function payload of a constructor the value does not
                    // hold (`sums`): the call never runs; its result only
                    // gives the branch its shape.
                    return self.default_value(&e.ty, loc);
                }
                let args = args.iter().map(|a| self.expr(env, a)).collect();
                self.apply(f, args, loc)
            }
            TExprKind::BinOp(op, a, b) => self.binop(env, *op, a, b, loc),
            TExprKind::UnOp(op, a) => {
                let (a, t) = Self::scalar(&self.expr(env, a));
                // A negative literal stays a constant (slice strides need it).
                if let (ast::UnOp::Neg, Atom::Const(c)) = (op, a) {
                    let negated = match c {
                        Const::F16(v) => Some(Const::F16(crate::types::half::F16(v.0 ^ 0x8000))),
                        Const::F32(v) => Some(Const::F32(-v)),
                        Const::F64(v) => Some(Const::F64(-v)),
                        Const::Bool(_) => None,
                        _ => c
                            .as_i128()
                            .map(|v| Const::int_wrapping(c.scalar_type(), v.wrapping_neg())),
                    };
                    if let Some(n) = negated {
                        return Value::Leaf(Atom::Const(n), t);
                    }
                }
                let op = match op {
                    ast::UnOp::Neg => UnOp::Neg,
                    ast::UnOp::Not => UnOp::Not,
                };
                Value::Leaf(self.let1("t", t, Exp::UnOp(op, a), loc), t)
            }
            TExprKind::Let(..) => {
                // A loop, not recursion: chains of `let`s nest as deep as
                // they are long.
                let mut env = env.clone();
                let mut cur = e;
                while let TExprKind::Let(p, rhs, body) = &cur.kind {
                    let v = self.expr(&env, rhs);
                    env = self.bind(&env, p, v, self.loc(cur.file, &cur.span));
                    cur = body;
                }
                self.expr(&env, cur)
            }
            TExprKind::If(c, t, f) => {
                let (cond, _) = Self::scalar(&self.expr(env, c));
                self.if_(cond, loc, |s| s.expr(env, t), |s| s.expr(env, f))
            }
            TExprKind::Index(a, idx) => {
                let arr = self.expr(env, a);
                let indices: Vec<Atom> = idx
                    .iter()
                    .map(|i| Self::scalar(&self.expr(env, i)).0)
                    .collect();
                self.index(&arr, indices, loc)
            }
            TExprKind::Field(x, field) => {
                let v = self.expr(env, x);
                let i = match (&x.ty, field) {
                    (Type::Record(fs), Field::Name(n)) => fs.iter().position(|(f, _)| f == n),
                    (_, Field::Index(i)) => Some(*i),
                    _ => None,
                };
                match (v, i) {
                    (Value::Tuple(mut vs), Some(i)) if i < vs.len() => vs.swap_remove(i),
                    _ => self.default_value(&e.ty, loc),
                }
            }
            TExprKind::Ascribe(x, shape) => {
                let v = self.expr(env, x);
                let v = self.shape_empty_literals(env, shape, v, &[], loc);
                self.check_shape(env, shape, &v, 0, loc);
                v
            }
            TExprKind::Assert(c, x) => {
                let (cond, _) = Self::scalar(&self.expr(env, c));
                let report = match self.source_text(c.file, &c.span) {
                    Some(text) => AssertReport::Condition(condition_text(text).into()),
                    None => AssertReport::Plain,
                };
                self.stms.push(Stm {
                    pat: Vec::new(),
                    exp: Exp::Assert(cond, report),
                    loc,
                });
                self.expr(env, x)
            }
            TExprKind::Loop {
                pat,
                init,
                form,
                body,
            } => self.loop_(env, pat, init, form, body, false, loc),
            TExprKind::Attr(attr, x) => self.attributed(env, *attr, x, loc),
            TExprKind::Slice(a, dims) => {
                let arr = self.expr(env, a);
                self.slice(env, &arr, dims, loc)
            }
            TExprKind::Update(a, idx, v) => {
                let arr = self.expr(env, a);
                let indices: Vec<Atom> = idx
                    .iter()
                    .map(|i| Self::scalar(&self.expr(env, i)).0)
                    .collect();
                let v = self.expr(env, v);
                let mut values = leaves(&v).into_iter();
                self.per_array(&arr, loc, |s, id, t| {
                    let value = values.next().map_or(Atom::Const(Const::I64(0)), |x| x.0);
                    let dims = s.known_dims(Atom::Var(id));
                    let exp = Exp::Update {
                        array: id,
                        indices: indices.clone(),
                        value,
                    };
                    (t, exp, dims)
                })
            }
            TExprKind::RecordUpdate(r, path, v) => {
                let record = self.expr(env, r);
                let value = self.expr(env, v);
                replace_at(record, path, value)
            }
            // Instances are closed: they start from an empty scope. A
            // constant is lowered where it is used.
            TExprKind::Instance(id) => match self.instances.get(*id) {
                Some(lam) if lam.params.is_empty() => self.expr(&Env::default(), &lam.body),
                Some(lam) => Value::Func(Rc::new(Closure {
                    callee: Callee::Lambda(lam, Env::default()),
                    applied: Vec::new(),
                })),
                None => self.default_value(&e.ty, loc),
            },
            // The checker resolves these; this keeps lowering total.
            TExprKind::TypeMember(..) | TExprKind::DefUse { .. } => self.default_value(&e.ty, loc),
            TExprKind::Ctor(name, args) => self.ctor(env, &e.ty, name, args, loc),
            TExprKind::Match(x, cases) => {
                let v = self.expr(env, x);
                self.match_cases(env, &v, cases, loc)
            }
            TExprKind::Range {
                start,
                second,
                end,
                kind,
            } => {
                let (x, t) = Self::scalar(&self.expr(env, start));
                let y = second.as_ref().map(|y| Self::scalar(&self.expr(env, y)).0);
                let (z, _) = Self::scalar(&self.expr(env, end));
                self.range(x, y, z, *kind, t.elem(), loc)
            }
        }
    }

    /// Applies `f` to every array leaf of `arr`: `f` gives the result's
    /// type, its expression and its known sizes.
    pub(super) fn per_array(
        &mut self,
        arr: &Value<'a>,
        loc: SrcLoc,
        mut f: impl FnMut(&mut Self, VarId, CType) -> (CType, Exp, Vec<Option<Atom>>),
    ) -> Value<'a> {
        let mut out = Vec::new();
        for (a, t) in leaves(arr) {
            let Atom::Var(id) = a else {
                out.push((a, t));
                continue;
            };
            let (rt, exp, dims) = f(self, id, t);
            let r = self.let1("a", rt, exp, loc);
            self.set_dims(r, dims);
            out.push((r, rt));
        }
        rebuild(arr, &mut out.into_iter())
    }

    /// `#[attr] x`: `#[unroll]` applies to a loop written right after it,
    /// the others to everything lowered inside `x` (called functions too).
    fn attributed(&mut self, env: &Env<'a>, attr: TAttr, x: &'a TExpr, loc: SrcLoc) -> Value<'a> {
        match attr {
            TAttr::Unroll => match &x.kind {
                TExprKind::Loop {
                    pat,
                    init,
                    form,
                    body,
                } => self.loop_(env, pat, init, form, body, true, loc),
                _ => self.expr(env, x),
            },
            TAttr::Sequential => {
                self.sequential += 1;
                let v = self.expr(env, x);
                self.sequential -= 1;
                v
            }
            TAttr::Unsafe => {
                self.unchecked += 1;
                let v = self.expr(env, x);
                self.unchecked -= 1;
                v
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn loop_(
        &mut self,
        env: &Env<'a>,
        pat: &'a TPat,
        init: &'a TExpr,
        form: &'a TLoopForm,
        body: &'a TExpr,
        unroll: bool,
        loc: SrcLoc,
    ) -> Value<'a> {
        let init_v = self.expr(env, init);
        let init_leaves = leaves(&init_v);
        let names = pat_leaf_names(pat);
        let params: Vec<Var> = init_leaves
            .iter()
            .enumerate()
            .map(|(i, (_, t))| self.fresh(names.get(i).map_or("acc", String::as_str), *t))
            .collect();
        let state = rebuild(&init_v, &mut params.iter().map(|v| (Atom::Var(v.id), v.ty)));
        // The bound, or the array iterated over, is computed before the loop.
        let i64_ = CType::Scalar(ScalarType::I64);
        let (index, bound, array) = match form {
            TLoopForm::For { name, bound, .. } => {
                let (b, t) = Self::scalar(&self.expr(env, bound));
                (Some(self.fresh(name, t)), b, None)
            }
            TLoopForm::ForIn { array, .. } => {
                let arr = self.expr(env, array);
                let n = match first_array(&arr) {
                    Some(id) => self.size_of(id, 0, loc),
                    None => Atom::Const(Const::I64(0)),
                };
                (Some(self.fresh("i", i64_)), n, Some(arr))
            }
            TLoopForm::While(_) => (None, Atom::Const(Const::I64(0)), None),
        };
        let trips = match (&index, bound) {
            (Some(_), Atom::Const(c)) if unroll => {
                c.as_i128().filter(|t| (0..=MAX_UNROLL).contains(t))
            }
            _ => None,
        };
        if let (Some(trips), Some(i)) = (trips, &index) {
            return self.unrolled(env, pat, init_v, form, body, (i.ty, trips), array, loc);
        }
        let cond = match form {
            TLoopForm::While(c) => {
                let (stms, c) = self.nested(|s| {
                    let env = s.bind(env, pat, state.clone(), loc);
                    Self::scalar(&s.expr(&env, c)).0
                });
                Some(Body {
                    stms,
                    result: vec![c],
                })
            }
            _ => None,
        };
        let (stms, next) = self.nested(|s| {
            let mut env = s.bind(env, pat, state.clone(), loc);
            match (form, &index) {
                (TLoopForm::For { index: lid, .. }, Some(i)) => {
                    env = env.bind(*lid, Value::Leaf(Atom::Var(i.id), i.ty));
                }
                (TLoopForm::ForIn { pat: xp, .. }, Some(i)) => {
                    let arr = array.clone().unwrap_or_else(unit);
                    let row = s.index(&arr, vec![Atom::Var(i.id)], loc);
                    env = s.bind(&env, xp, row, loc);
                }
                _ => {}
            }
            s.expr(&env, body)
        });
        let core_form = match (cond, index) {
            (Some(cond), _) => LoopForm::While { cond },
            (None, Some(index)) => LoopForm::For { index, bound },
            (None, None) => LoopForm::While {
                cond: Body {
                    stms: Vec::new(),
                    result: vec![Atom::Const(Const::Bool(false))],
                },
            },
        };
        let pat_vars: Vec<Var> = params.iter().map(|p| self.fresh(&p.name, p.ty)).collect();
        let outs: Vec<(Atom, CType)> = pat_vars.iter().map(|v| (Atom::Var(v.id), v.ty)).collect();
        self.stms.push(Stm {
            pat: pat_vars,
            exp: Exp::Loop {
                params: params
                    .into_iter()
                    .zip(init_leaves.iter().map(|(a, _)| *a))
                    .collect(),
                form: core_form,
                body: Body {
                    stms,
                    result: leaves(&next).into_iter().map(|(a, _)| a).collect(),
                },
            },
            loc,
        });
        rebuild(&init_v, &mut outs.into_iter())
    }

    /// `#[unroll]` on a loop of `trips` iterations (a constant): the body
    /// lowered once per iteration, each seeing the previous one's values and
    /// its index as a constant (a `for x in xs` loop: row `k` of `xs`).
    #[allow(clippy::too_many_arguments)]
    fn unrolled(
        &mut self,
        env: &Env<'a>,
        pat: &'a TPat,
        init: Value<'a>,
        form: &'a TLoopForm,
        body: &'a TExpr,
        (index_ty, trips): (CType, i128),
        array: Option<Value<'a>>,
        loc: SrcLoc,
    ) -> Value<'a> {
        let mut state = init;
        for k in 0..trips {
            let mut env = self.bind(env, pat, state, loc);
            let i = Atom::Const(Const::int_wrapping(index_ty.elem(), k));
            match form {
                TLoopForm::For { index: lid, .. } => env = env.bind(*lid, Value::Leaf(i, index_ty)),
                TLoopForm::ForIn { pat: xp, .. } => {
                    let arr = array.clone().unwrap_or_else(unit);
                    let row = self.index(&arr, vec![i], loc);
                    env = self.bind(&env, xp, row, loc);
                }
                TLoopForm::While(_) => {}
            }
            state = self.expr(&env, body);
        }
        state
    }

    pub(super) fn i64_atom(v: i64) -> Atom {
        Atom::Const(Const::I64(v))
    }

    pub(super) fn i64_op(&mut self, op: BinOp, a: Atom, b: Atom, loc: SrcLoc) -> Atom {
        self.let1(
            "t",
            CType::Scalar(ScalarType::I64),
            Exp::BinOp(op, a, b),
            loc,
        )
    }

    /// `a[d0, d1, ...]` with at least one range; Futhark's defaults for a
    /// missing start and end (`n-1` and "before 0" for a negative stride).
    pub(super) fn slice(
        &mut self,
        env: &Env<'a>,
        arr: &Value<'a>,
        dims: &'a [TSlice],
        loc: SrcLoc,
    ) -> Value<'a> {
        let first = first_array(arr);
        let known = first.map_or_else(Vec::new, |f| self.known_dims(Atom::Var(f)));
        let mut slices = Vec::new();
        let mut out_dims = Vec::new();
        let mut fixed = 0;
        for (d, ds) in dims.iter().enumerate() {
            let (start, end, stride) = match ds {
                TSlice::Index(e) => {
                    slices.push(DimSlice::Index(Self::scalar(&self.expr(env, e)).0));
                    fixed += 1;
                    continue;
                }
                TSlice::Range { start, end, stride } => (start, end, stride),
            };
            let part = |s: &mut Self, e: &'a Option<TExpr>| {
                e.as_ref().map(|x| Self::scalar(&s.expr(env, x)).0)
            };
            let (start, end, stride) = (part(self, start), part(self, end), part(self, stride));
            let whole = start.is_none() && end.is_none() && stride.is_none();
            let stride = stride.unwrap_or(Self::i64_atom(1));
            let n = if start.is_none() || end.is_none() {
                match first {
                    Some(f) => self.size_of(f, d, loc),
                    None => Self::i64_atom(0),
                }
            } else {
                Self::i64_atom(0)
            };
            let (start, end) = match stride {
                Atom::Const(c) if c.as_i128().unwrap_or(1) < 0 => {
                    let start = match start {
                        Some(s) => s,
                        None => self.i64_op(BinOp::Sub, n, Self::i64_atom(1), loc),
                    };
                    (start, end.unwrap_or(Self::i64_atom(-1)))
                }
                Atom::Const(_) => (start.unwrap_or(Self::i64_atom(0)), end.unwrap_or(n)),
                Atom::Var(_) => {
                    let neg = if start.is_none() || end.is_none() {
                        self.let1(
                            "neg",
                            CType::Scalar(ScalarType::Bool),
                            Exp::BinOp(BinOp::Lt, stride, Self::i64_atom(0)),
                            loc,
                        )
                    } else {
                        Atom::Const(Const::Bool(false))
                    };
                    let i64_ = CType::Scalar(ScalarType::I64);
                    let pick = |s: &mut Self, given: Option<Atom>, up: Atom, down: bool| {
                        given.unwrap_or_else(|| {
                            let v = s.if_(
                                neg,
                                loc,
                                |s| {
                                    let a = if down {
                                        s.i64_op(BinOp::Sub, n, Self::i64_atom(1), loc)
                                    } else {
                                        Self::i64_atom(-1)
                                    };
                                    Value::Leaf(a, i64_)
                                },
                                |_| Value::Leaf(up, i64_),
                            );
                            Self::scalar(&v).0
                        })
                    };
                    let start = pick(self, start, Self::i64_atom(0), true);
                    let end = pick(self, end, n, false);
                    // The IR requires a non-zero stride; a zero one fails as
                    // a bad slice does (Futhark's `Index [i:j:0] out of
                    // bounds`), not as an `assert`.
                    let ok = self.let1(
                        "ok",
                        CType::Scalar(ScalarType::Bool),
                        Exp::BinOp(BinOp::Neq, stride, Self::i64_atom(0)),
                        loc,
                    );
                    let len = match first {
                        Some(f) => self.size_of(f, d, loc),
                        None => Self::i64_atom(0),
                    };
                    self.stms.push(Stm {
                        pat: Vec::new(),
                        exp: Exp::Assert(ok, AssertReport::Slice([start, end, stride, len])),
                        loc,
                    });
                    (start, end)
                }
            };
            out_dims.push(if whole { Some(n) } else { None });
            slices.push(DimSlice::Range { start, end, stride });
        }
        out_dims.extend(known.iter().skip(dims.len()).cloned());
        self.per_array(arr, loc, |_, id, t| {
            let rank = t.rank().saturating_sub(fixed);
            let rt = if rank == 0 {
                CType::Scalar(t.elem())
            } else {
                CType::Array(t.elem(), rank)
            };
            let exp = Exp::Slice {
                array: id,
                dims: slices.clone(),
            };
            (rt, exp, out_dims.clone())
        })
    }

    pub(super) fn binop(
        &mut self,
        env: &Env<'a>,
        op: ast::BinOp,
        a: &'a TExpr,
        b: &'a TExpr,
        loc: SrcLoc,
    ) -> Value<'a> {
        if op == ast::BinOp::Concat {
            let x = self.expr(env, a);
            let y = self.expr(env, b);
            return self.concat(x, y, loc);
        }
        let compound = matches!(
            a.ty,
            Type::Tuple(_) | Type::Record(_) | Type::Sum(_) | Type::Array(_)
        );
        if compound && matches!(op, ast::BinOp::Eq | ast::BinOp::Neq) {
            let x = self.expr(env, a);
            let y = self.expr(env, b);
            return self.compound_eq(&x, &y, op == ast::BinOp::Neq, loc);
        }
        let (x, t) = Self::scalar(&self.expr(env, a));
        let bool_leaf =
            |v: bool| Value::Leaf(Atom::Const(Const::Bool(v)), CType::Scalar(ScalarType::Bool));
        match op {
            ast::BinOp::LogAnd => self.if_(x, loc, |s| s.expr(env, b), |_| bool_leaf(false)),
            ast::BinOp::LogOr => self.if_(x, loc, |_| bool_leaf(true), |s| s.expr(env, b)),
            _ => {
                let (y, _) = Self::scalar(&self.expr(env, b));
                let Some(cop) = core_binop(op) else {
                    return self.default_value(&Type::Scalar(t.elem()), loc);
                };
                let rt = if cop.is_comparison() {
                    CType::Scalar(ScalarType::Bool)
                } else {
                    t
                };
                if cop == BinOp::Pow {
                    self.check_exponent(t.elem(), y, loc);
                }
                Value::Leaf(self.let1("t", rt, Exp::BinOp(cop, x, y), loc), rt)
            }
        }
    }

    /// Before a signed integer power: the exponent must not be negative
    /// (Futhark's `negative exponent`). `BinOp::Pow` itself never fails.
    pub(super) fn check_exponent(&mut self, t: ScalarType, exponent: Atom, loc: SrcLoc) {
        if !t.is_signed() {
            return;
        }
        let zero = Atom::Const(Const::int_wrapping(t, 0));
        let ok = self.let1(
            "ok",
            CType::Scalar(ScalarType::Bool),
            Exp::BinOp(BinOp::Le, zero, exponent),
            loc,
        );
        self.stms.push(Stm {
            pat: Vec::new(),
            exp: Exp::Assert(ok, AssertReport::NegativeExponent),
            loc,
        });
    }

    pub(super) fn if_(
        &mut self,
        cond: Atom,
        loc: SrcLoc,
        then_branch: impl FnOnce(&mut Self) -> Value<'a>,
        else_branch: impl FnOnce(&mut Self) -> Value<'a>,
    ) -> Value<'a> {
        let (then_stms, tv) = self.nested(then_branch);
        let (else_stms, ev) = self.nested(else_branch);
        let tl = leaves(&tv);
        let el = leaves(&ev);
        let pat: Vec<Var> = tl.iter().map(|(_, t)| self.fresh("r", *t)).collect();
        let results: Vec<(Atom, CType)> = pat.iter().map(|v| (Atom::Var(v.id), v.ty)).collect();
        self.stms.push(Stm {
            pat,
            exp: Exp::If {
                cond,
                then_body: Body {
                    stms: then_stms,
                    result: tl.iter().map(|(a, _)| *a).collect(),
                },
                else_body: Body {
                    stms: else_stms,
                    result: el.iter().map(|(a, _)| *a).collect(),
                },
            },
            loc,
        });
        rebuild(&tv, &mut results.into_iter())
    }

    pub(super) fn index(&mut self, arr: &Value<'a>, indices: Vec<Atom>, loc: SrcLoc) -> Value<'a> {
        let k = indices.len();
        let mut out = Vec::new();
        for (a, t) in leaves(arr) {
            let Atom::Var(id) = a else {
                out.push((a, t));
                continue;
            };
            let rank = t.rank();
            let rt = if rank > k {
                CType::Array(t.elem(), rank - k)
            } else {
                CType::Scalar(t.elem())
            };
            let dims = self.known_dims(a);
            let r = self.let1(
                "elem",
                rt,
                Exp::Index {
                    array: id,
                    indices: indices.clone(),
                    checked: self.unchecked == 0,
                },
                loc,
            );
            if rank > k && dims.len() > k {
                self.set_dims(r, dims[k..].to_vec());
            }
            out.push((r, rt));
        }
        rebuild(arr, &mut out.into_iter())
    }

    pub(super) fn array_lit(
        &mut self,
        env: &Env<'a>,
        ty: &Type,
        items: &'a [TExpr],
        loc: SrcLoc,
    ) -> Value<'a> {
        let Type::Array(elem) = ty else {
            return unit();
        };
        let rows: Vec<Vec<(Atom, CType)>> =
            items.iter().map(|x| leaves(&self.expr(env, x))).collect();
        let blanks: Vec<Vec<bool>> = items.iter().map(|x| blank_leaves(elem, x)).collect();
        let mut elem_tys = Vec::new();
        value_leaves(elem, 0, &mut elem_tys);
        let mut out = Vec::new();
        for (j, et) in elem_tys.into_iter().enumerate() {
            let mut column: Vec<Atom> = rows.iter().filter_map(|r| r.get(j).map(|x| x.0)).collect();
            let blank = |i: usize| blanks.get(i).and_then(|b| b.get(j)).copied() == Some(true);
            // Rows that are arrays must all have one shape: that of the first
            // row holding a value there. A constructor written out leaves the
            // other constructors' payloads blank, and these blanks take that
            // shape (`[#none, #some [1, 2, 3]]`, as in Futhark).
            let owner = (0..column.len()).find(|&i| !blank(i)).unwrap_or(0);
            let mut row_dims = Vec::new();
            if let Some(Atom::Var(first)) = column.get(owner).copied() {
                for d in 0..et.rank() {
                    let want = self.size_of(first, d, loc);
                    for (i, other) in column.iter().enumerate() {
                        if let (Atom::Var(o), false) = (other, i == owner || blank(i)) {
                            let got = self.size_of(*o, d, loc);
                            self.assert_same(want, got, loc);
                        }
                    }
                    row_dims.push(Some(want));
                }
                if !blank(owner) {
                    let dims: Vec<Atom> = row_dims.iter().flatten().copied().collect();
                    for i in (0..column.len()).filter(|&i| blank(i)) {
                        column[i] = self.blank_array(et, &dims, loc);
                    }
                }
            }
            let count = column.len() as i64;
            let empty_rows = count == 0 && et.rank() > 0;
            let r = self.let1(
                "arr",
                et.array_of(),
                Exp::ArrayLit {
                    elem: et,
                    items: column,
                },
                loc,
            );
            let mut dims = vec![Some(Atom::Const(Const::I64(count)))];
            dims.extend(row_dims);
            self.set_dims(r, dims);
            if let (true, Atom::Var(id)) = (empty_rows, r) {
                self.empty_literals.insert(id);
            }
            out.push((r, et.array_of()));
        }
        build_value(ty, &mut out.into_iter())
    }

    /// An array of type `et` of zeros with sizes `dims`.
    fn blank_array(&mut self, et: CType, dims: &[Atom], loc: SrcLoc) -> Atom {
        let CType::Array(s, _) = et else {
            return Atom::Const(Const::zero(et.elem()));
        };
        let (mut value, mut ty) = (Atom::Const(Const::zero(s)), CType::Scalar(s));
        for (k, &count) in dims.iter().enumerate().rev() {
            ty = ty.array_of();
            value = self.let1("blank", ty, Exp::Replicate { count, value }, loc);
            self.set_dims(value, dims[k..].iter().map(|d| Some(*d)).collect());
        }
        value
    }
}

/// For an array literal's item of sum type written as a constructor, which
/// of its leaves are other constructors' blank payloads (the tag first, as
/// `value_leaves` orders them); empty for any other item.
fn blank_leaves(elem: &Type, item: &TExpr) -> Vec<bool> {
    let Type::Sum(cs) = elem else {
        return Vec::new();
    };
    let mut e = item;
    while let TExprKind::Ascribe(inner, _) | TExprKind::Attr(_, inner) = &e.kind {
        e = inner;
    }
    let TExprKind::Ctor(name, _) = &e.kind else {
        return Vec::new();
    };
    let mut out = vec![false];
    for (c, ts) in cs {
        let mut tys = Vec::new();
        ts.iter().for_each(|t| value_leaves(t, 0, &mut tys));
        out.extend(std::iter::repeat_n(c != name, tys.len()));
    }
    out
}
