//! Applications: closures applied by inlining, builtins, and the SOACs
//! they become.

use super::*;

impl<'a> Lowerer<'a> {
    pub(super) fn apply(&mut self, f: Value<'a>, args: Vec<Value<'a>>, loc: SrcLoc) -> Value<'a> {
        if args.is_empty() {
            return f;
        }
        let Value::Func(closure) = f else {
            return unit();
        };
        let mut applied = closure.applied.clone();
        applied.extend(args);
        let arity = match &closure.callee {
            Callee::Lambda(lam, _) => lam.params.len(),
            Callee::Builtin(b) => b.arity(),
        };
        if applied.len() < arity {
            return Value::Func(Rc::new(Closure {
                callee: closure.callee.clone(),
                applied,
            }));
        }
        let rest = applied.split_off(arity);
        let result = match &closure.callee {
            Callee::Lambda(lam, env) => {
                let mut env = env.clone();
                for (p, v) in lam.params.iter().zip(applied) {
                    env = self.bind(&env, p, v, loc);
                }
                self.expr(&env, &lam.body)
            }
            Callee::Builtin(b) => self.builtin(*b, applied, loc),
        };
        self.apply(result, rest, loc)
    }

    /// Fresh variables for one element of each array in `arrays`.
    pub(super) fn row_params(&mut self, arrays: &[Value<'a>]) -> (Vec<Value<'a>>, Vec<Var>) {
        let mut vars = Vec::new();
        let mut values = Vec::new();
        for arr in arrays {
            let mut rows = Vec::new();
            for (_, t) in leaves(arr) {
                let v = self.fresh("x", t.row());
                rows.push((Atom::Var(v.id), v.ty));
                vars.push(v);
            }
            values.push(rebuild(arr, &mut rows.into_iter()));
        }
        (values, vars)
    }

    /// Builds a SOAC's function: `body` computes its result in a new body
    /// with `params` bound.
    pub(super) fn lambda_with(
        &mut self,
        params: Vec<Var>,
        body: impl FnOnce(&mut Self) -> Value<'a>,
    ) -> (Lambda, Value<'a>) {
        let (stms, result) = self.nested(body);
        let res = leaves(&result);
        let lambda = Lambda {
            params,
            body: Body {
                stms,
                result: res.iter().map(|(a, _)| *a).collect(),
            },
            ret: res.iter().map(|(_, t)| *t).collect(),
        };
        (lambda, result)
    }

    pub(super) fn soac(
        &mut self,
        width: Atom,
        kind: SoacKind,
        args: Vec<VarId>,
        pat: Vec<Var>,
        loc: SrcLoc,
    ) {
        let label = SoacId(self.next_soac);
        self.next_soac += 1;
        self.stms.push(Stm {
            pat,
            exp: Exp::Soac(Soac {
                label,
                width,
                kind,
                args,
                sequential: self.sequential > 0,
            }),
            loc,
        });
    }

    pub(super) fn array_vars(arrays: &[Value]) -> Vec<VarId> {
        arrays
            .iter()
            .flat_map(leaves)
            .filter_map(|(a, _)| match a {
                Atom::Var(id) => Some(id),
                Atom::Const(_) => None,
            })
            .collect()
    }

    /// The common outer size of `arrays`, checked at run time unless known.
    pub(super) fn common_width(&mut self, arrays: &[Value], loc: SrcLoc) -> Atom {
        let firsts: Vec<VarId> = arrays.iter().filter_map(first_array).collect();
        let Some(&first) = firsts.first() else {
            return Atom::Const(Const::I64(0));
        };
        let width = self.size_of(first, 0, loc);
        for &other in &firsts[1..] {
            let n = self.size_of(other, 0, loc);
            self.assert_same(width, n, loc);
        }
        width
    }

    /// Fresh variables of the given types, as a value shaped like `like`.
    pub(super) fn fresh_like(
        &mut self,
        name: &str,
        tys: &[CType],
        like: &Value<'a>,
    ) -> (Vec<Var>, Value<'a>) {
        let vars: Vec<Var> = tys.iter().map(|t| self.fresh(name, *t)).collect();
        let value = rebuild(like, &mut vars.iter().map(|v| (Atom::Var(v.id), v.ty)));
        (vars, value)
    }

    /// A `map` of `width` over `arrays` whose function `body` makes from
    /// one row of each.
    pub(super) fn map_with(
        &mut self,
        width: Atom,
        arrays: &[Value<'a>],
        loc: SrcLoc,
        body: impl FnOnce(&mut Self, Vec<Value<'a>>) -> Value<'a>,
    ) -> Value<'a> {
        let (rows, params) = self.row_params(arrays);
        let (lambda, result) = self.lambda_with(params, |s| body(s, rows));
        let tys: Vec<CType> = lambda.ret.iter().map(|t| t.array_of()).collect();
        let (pat, value) = self.fresh_like("m", &tys, &result);
        for v in &pat {
            self.set_dims(Atom::Var(v.id), vec![Some(width)]);
        }
        let args = Self::array_vars(arrays);
        self.soac(width, SoacKind::Map(lambda), args, pat, loc);
        value
    }

    pub(super) fn map(&mut self, f: Value<'a>, arrays: Vec<Value<'a>>, loc: SrcLoc) -> Value<'a> {
        let width = self.common_width(&arrays, loc);
        self.map_with(width, &arrays, loc, |s, rows| s.apply(f, rows, loc))
    }

    /// `tabulate_kd n1 .. nk f`: nested maps over `iota`s made up front.
    pub(super) fn tabulate(&mut self, sizes: Vec<Atom>, f: Value<'a>, loc: SrcLoc) -> Value<'a> {
        let arr = CType::Array(ScalarType::I64, 1);
        let iotas: Vec<Value<'a>> = sizes
            .iter()
            .map(|n| {
                let r = self.let1("iota", arr, Exp::Iota(*n), loc);
                self.set_dims(r, vec![Some(*n)]);
                Value::Leaf(r, arr)
            })
            .collect();
        let result = self.tabulate_level(&sizes, &iotas, Vec::new(), f, loc);
        for (a, _) in leaves(&result) {
            let mut dims: Vec<Option<Atom>> = sizes.iter().map(|n| Some(*n)).collect();
            dims.extend(self.known_dims(a).into_iter().skip(1));
            self.set_dims(a, dims);
        }
        result
    }

    pub(super) fn tabulate_level(
        &mut self,
        sizes: &[Atom],
        iotas: &[Value<'a>],
        indices: Vec<Value<'a>>,
        f: Value<'a>,
        loc: SrcLoc,
    ) -> Value<'a> {
        let level = indices.len();
        match (sizes.get(level), iotas.get(level)) {
            (Some(n), Some(iota)) => {
                let arrays = [iota.clone()];
                self.map_with(*n, &arrays, loc, |s, rows| {
                    let mut indices = indices;
                    indices.extend(rows);
                    s.tabulate_level(sizes, iotas, indices, f, loc)
                })
            }
            _ => self.apply(f, indices, loc),
        }
    }

    /// An operator's function: accumulators, then elements, for `arr`'s rows.
    pub(super) fn operator(
        &mut self,
        op: Value<'a>,
        arr: &Value<'a>,
        loc: SrcLoc,
    ) -> (Lambda, Value<'a>) {
        let arrays = [arr.clone()];
        let (mut accs, mut acc_vars) = self.row_params(&arrays);
        let (elems, elem_vars) = self.row_params(&arrays);
        acc_vars.extend(elem_vars);
        let acc = accs.pop().unwrap_or_else(unit);
        let elem = elems.into_iter().next().unwrap_or_else(unit);
        let (lambda, _) = self.lambda_with(acc_vars, |s| s.apply(op, vec![acc.clone(), elem], loc));
        (lambda, acc)
    }

    pub(super) fn reduce_or_scan(
        &mut self,
        op: Value<'a>,
        neutral: Value<'a>,
        arr: Value<'a>,
        kind: Builtin,
        loc: SrcLoc,
    ) -> Value<'a> {
        let width = self.common_width(std::slice::from_ref(&arr), loc);
        let (lambda, acc) = self.operator(op, &arr, loc);
        let scan = matches!(kind, Builtin::Scan | Builtin::ScanRight);
        let tys: Vec<CType> = lambda
            .ret
            .iter()
            .map(|t| if scan { t.array_of() } else { *t })
            .collect();
        let (pat, value) = self.fresh_like(if scan { "s" } else { "r" }, &tys, &acc);
        if scan {
            for v in &pat {
                self.set_dims(Atom::Var(v.id), vec![Some(width)]);
            }
        }
        let neutral = leaves(&neutral).into_iter().map(|(a, _)| a).collect();
        let args = Self::array_vars(&[arr]);
        let kind = match kind {
            Builtin::Scan => SoacKind::Scan {
                op: lambda,
                neutral,
            },
            Builtin::ScanRight => SoacKind::ScanRight {
                op: lambda,
                neutral,
            },
            _ => SoacKind::Reduce {
                op: lambda,
                neutral,
            },
        };
        self.soac(width, kind, args, pat, loc);
        value
    }

    /// `filter` (one group of results) and `partition` (two).
    pub(super) fn filter(
        &mut self,
        pred: Value<'a>,
        arr: Value<'a>,
        partition: bool,
        loc: SrcLoc,
    ) -> Value<'a> {
        let arrays = [arr];
        let width = self.common_width(&arrays, loc);
        let (rows, params) = self.row_params(&arrays);
        let (pred, _) = self.lambda_with(params, |s| s.apply(pred, rows, loc));
        let [arr] = arrays;
        let tys: Vec<CType> = leaves(&arr).into_iter().map(|(_, t)| t).collect();
        let (matches, first) = self.fresh_like("f", &tys, &arr);
        let (rest, second) = self.fresh_like("f", &tys, &arr);
        let mut pat = matches;
        let kind = if partition {
            pat.extend(rest);
            SoacKind::Partition { pred }
        } else {
            SoacKind::Filter { pred }
        };
        let args = Self::array_vars(std::slice::from_ref(&arr));
        self.soac(width, kind, args, pat, loc);
        // The arrays of one group share their size: read it once.
        for group in [&first, &second].iter().take(if partition { 2 } else { 1 }) {
            let ids: Vec<Atom> = leaves(group).into_iter().map(|(a, _)| a).collect();
            if let (Some(Atom::Var(f)), true) = (ids.first().copied(), ids.len() > 1) {
                let n = self.size_of(f, 0, loc);
                for a in &ids[1..] {
                    self.set_dims(*a, vec![Some(n)]);
                }
            }
        }
        if partition {
            Value::Tuple(vec![first, second])
        } else {
            first
        }
    }

    pub(super) fn scatter(
        &mut self,
        dest: Value<'a>,
        is: Value<'a>,
        vs: Value<'a>,
        loc: SrcLoc,
    ) -> Value<'a> {
        let width = self.common_width(&[is.clone(), vs.clone()], loc);
        let dest_ids = Self::array_vars(std::slice::from_ref(&dest));
        let tys: Vec<CType> = leaves(&dest).into_iter().map(|(_, t)| t).collect();
        let (pat, value) = self.fresh_like("sc", &tys, &dest);
        for (v, d) in pat.iter().zip(&dest_ids) {
            let dims = self.known_dims(Atom::Var(*d));
            self.set_dims(Atom::Var(v.id), dims);
        }
        let args = Self::array_vars(&[is, vs]);
        self.soac(
            width,
            SoacKind::Scatter {
                dest: dest_ids,
                continues: false,
            },
            args,
            pat,
            loc,
        );
        value
    }

    /// `hist op ne m is vs`, and with `dest` `reduce_by_index dest op ne is vs`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn hist(
        &mut self,
        dest: Option<Value<'a>>,
        op: Value<'a>,
        neutral: Value<'a>,
        bins: Atom,
        is: Value<'a>,
        vs: Value<'a>,
        loc: SrcLoc,
    ) -> Value<'a> {
        let width = self.common_width(&[is.clone(), vs.clone()], loc);
        let (lambda, acc) = self.operator(op, &vs, loc);
        let (bins, dest_ids) = match &dest {
            Some(d) => {
                let bins = match first_array(d) {
                    Some(f) => self.size_of(f, 0, loc),
                    None => Self::i64_atom(0),
                };
                (bins, Some(Self::array_vars(std::slice::from_ref(d))))
            }
            None => (bins, None),
        };
        let tys: Vec<CType> = lambda.ret.iter().map(|t| t.array_of()).collect();
        let (pat, value) = self.fresh_like("h", &tys, &acc);
        for v in &pat {
            self.set_dims(Atom::Var(v.id), vec![Some(bins)]);
        }
        let neutral = leaves(&neutral).into_iter().map(|(a, _)| a).collect();
        let args = Self::array_vars(&[is, vs]);
        let kind = SoacKind::Hist {
            op: lambda,
            neutral,
            bins,
            dest: dest_ids,
        };
        self.soac(width, kind, args, pat, loc);
        value
    }

    pub(super) fn concat(&mut self, x: Value<'a>, y: Value<'a>, loc: SrcLoc) -> Value<'a> {
        let mut ys = leaves(&y).into_iter();
        self.per_array(&x, loc, |s, id, t| {
            let mut parts = vec![id];
            if let Some((Atom::Var(other), _)) = ys.next() {
                parts.push(other);
            }
            let mut dims = vec![None];
            dims.extend(s.known_dims(Atom::Var(id)).into_iter().skip(1));
            (t, Exp::Concat(parts), dims)
        })
    }

    /// Transpose, flatten, unflatten, reverse and rotate: one statement per
    /// array leaf.
    pub(super) fn reshape(&mut self, b: Builtin, args: &[Value<'a>], loc: SrcLoc) -> Value<'a> {
        let scalar_arg = |i: usize| args.get(i).map_or(Self::i64_atom(0), |v| Self::scalar(v).0);
        let arr = args.last().cloned().unwrap_or_else(unit);
        match b {
            Builtin::Transpose => self.per_array(&arr, loc, |s, id, t| {
                let mut dims = s.known_dims(Atom::Var(id));
                dims.resize(t.rank().max(2), None);
                dims.swap(0, 1);
                (t, Exp::Transpose(id), dims)
            }),
            Builtin::Flatten => self.per_array(&arr, loc, |s, id, t| {
                let known = s.known_dims(Atom::Var(id));
                let mut dims = vec![match (known.first(), known.get(1)) {
                    (Some(Some(a)), Some(Some(b))) => Some(s.i64_op(BinOp::Mul, *a, *b, loc)),
                    _ => None,
                }];
                dims.extend(known.into_iter().skip(2));
                let rt = CType::Array(t.elem(), t.rank().saturating_sub(1).max(1));
                (rt, Exp::Flatten(id), dims)
            }),
            Builtin::Unflatten => {
                let (rows, cols) = (scalar_arg(0), scalar_arg(1));
                self.per_array(&arr, loc, |s, id, t| {
                    let mut dims = vec![Some(rows), Some(cols)];
                    dims.extend(s.known_dims(Atom::Var(id)).into_iter().skip(1));
                    let exp = Exp::Unflatten {
                        array: id,
                        rows,
                        cols,
                    };
                    (t.array_of(), exp, dims)
                })
            }
            Builtin::Reverse => self.per_array(&arr, loc, |s, id, t| {
                (t, Exp::Reverse(id), s.known_dims(Atom::Var(id)))
            }),
            _ => {
                let amount = scalar_arg(0);
                self.per_array(&arr, loc, |s, id, t| {
                    let exp = Exp::Rotate { array: id, amount };
                    (t, exp, s.known_dims(Atom::Var(id)))
                })
            }
        }
    }

    pub(super) fn builtin(
        &mut self,
        b: Builtin,
        mut args: Vec<Value<'a>>,
        loc: SrcLoc,
    ) -> Value<'a> {
        let i64_ = CType::Scalar(ScalarType::I64);
        let mut take = |i: usize| {
            args.get_mut(i)
                .map_or_else(unit, |v| std::mem::replace(v, unit()))
        };
        match b {
            Builtin::Length => match first_array(&take(0)) {
                Some(arr) => Value::Leaf(self.size_of(arr, 0, loc), i64_),
                None => Value::Leaf(Atom::Const(Const::I64(0)), i64_),
            },
            Builtin::Iota => {
                let (n, _) = Self::scalar(&take(0));
                let r = self.let1("iota", CType::Array(ScalarType::I64, 1), Exp::Iota(n), loc);
                self.set_dims(r, vec![Some(n)]);
                Value::Leaf(r, CType::Array(ScalarType::I64, 1))
            }
            Builtin::Replicate => {
                let (n, _) = Self::scalar(&take(0));
                let v = take(1);
                let mut outs = Vec::new();
                for (a, t) in leaves(&v) {
                    let r = self.let1(
                        "rep",
                        t.array_of(),
                        Exp::Replicate { count: n, value: a },
                        loc,
                    );
                    let mut dims = vec![Some(n)];
                    dims.extend(self.known_dims(a));
                    self.set_dims(r, dims);
                    outs.push((r, t.array_of()));
                }
                rebuild(&v, &mut outs.into_iter())
            }
            Builtin::Map(_) => {
                let f = take(0);
                args.remove(0);
                self.map(f, args, loc)
            }
            Builtin::Tabulate(k) => {
                let k = k as usize;
                let sizes = (0..k).map(|i| Self::scalar(&take(i)).0).collect();
                let f = take(k);
                self.tabulate(sizes, f, loc)
            }
            Builtin::Reduce | Builtin::ReduceComm | Builtin::Scan | Builtin::ScanRight => {
                let (op, neutral, arr) = (take(0), take(1), take(2));
                self.reduce_or_scan(op, neutral, arr, b, loc)
            }
            Builtin::Filter | Builtin::Partition => {
                let (pred, arr) = (take(0), take(1));
                self.filter(pred, arr, b == Builtin::Partition, loc)
            }
            Builtin::Scatter => {
                let (dest, is, vs) = (take(0), take(1), take(2));
                self.scatter(dest, is, vs, loc)
            }
            Builtin::Hist => {
                let (op, ne, m, is, vs) = (take(0), take(1), take(2), take(3), take(4));
                let bins = Self::scalar(&m).0;
                self.hist(None, op, ne, bins, is, vs, loc)
            }
            Builtin::ReduceByIndex => {
                let (dest, op, ne, is, vs) = (take(0), take(1), take(2), take(3), take(4));
                self.hist(Some(dest), op, ne, Self::i64_atom(0), is, vs, loc)
            }
            Builtin::Concat => {
                let (x, y) = (take(0), take(1));
                self.concat(x, y, loc)
            }
            Builtin::Transpose
            | Builtin::Flatten
            | Builtin::Unflatten
            | Builtin::Reverse
            | Builtin::Rotate => self.reshape(b, &args, loc),
            Builtin::Zip(_) => {
                self.common_width(&args, loc);
                Value::Tuple(args)
            }
            Builtin::Unzip(_) => take(0),
            Builtin::Scalar(t, f) => {
                let xs: Vec<Atom> = (0..f.arity()).map(|i| Self::scalar(&take(i)).0).collect();
                self.scalar_fn(t, f, &xs, loc)
            }
        }
    }
}
