//! Entry points, patterns and declared sizes.

use super::sums::ctor_index;
use super::*;

impl<'a> Lowerer<'a> {
    pub(super) fn entry(&mut self, e: &'a Entry) -> Function {
        self.stms.clear();
        self.dims.clear();
        let loc = self.loc(e.file, &e.span);
        let mut env = Env::default();
        let mut size_vars = Vec::new();
        for (i, (id, name)) in e.size_params.iter().enumerate() {
            let v = self.fresh(name, CType::Scalar(ScalarType::I64));
            env = env.bind(*id, Value::Leaf(Atom::Var(v.id), v.ty));
            self.entry_sizes.insert(*id, i);
            size_vars.push(v);
        }
        self.entry_uses = vec![Vec::new(); size_vars.len()];
        let mut params = Vec::new();
        let mut values = Vec::new();
        for p in &e.params {
            let mut tys = Vec::new();
            marked_leaves(p.ty(), 0, &mut tys);
            let names = pat_leaf_names(p);
            let mut atoms = Vec::new();
            for (i, (ty, is_unit)) in tys.into_iter().enumerate() {
                if is_unit && ty.rank() == 0 {
                    // Not read: `type_leaves`.
                    atoms.push((Atom::Const(Const::Bool(false)), ty));
                    continue;
                }
                let name = names.get(i).map_or("p", String::as_str);
                let v = self.fresh(name, ty);
                self.param_index.insert(v.id, params.len());
                atoms.push((Atom::Var(v.id), ty));
                params.push(v);
            }
            values.push(build_value(p.ty(), &mut atoms.into_iter()));
        }
        for (p, v) in e.params.iter().zip(values) {
            env = self.bind(&env, p, v, loc);
        }
        self.entry_sizes.clear();
        self.param_index.clear();
        let uses = std::mem::take(&mut self.entry_uses);
        let result = self.expr(&env, &e.body);
        let mut ret = Vec::new();
        type_leaves(&e.ret, 0, &mut ret);
        let mut marked = Vec::new();
        marked_leaves(&e.ret, 0, &mut marked);
        let printed = marked.iter().map(|&(t, unit)| !(unit && t.rank() == 0));
        Function {
            name: e.name.clone(),
            params,
            size_params: size_vars
                .into_iter()
                .zip(uses)
                .map(|(var, uses)| SizeParam {
                    var,
                    uses,
                    fixed: None,
                })
                .chain(std::mem::take(&mut self.entry_fixed))
                .collect(),
            body: Body {
                stms: std::mem::take(&mut self.stms),
                result: leaves(&result)
                    .into_iter()
                    .zip(printed)
                    .filter(|(_, printed)| *printed)
                    .map(|((a, _), _)| a)
                    .collect(),
            },
            ret,
        }
    }

    pub(super) fn bind(
        &mut self,
        env: &Env<'a>,
        p: &'a TPat,
        v: Value<'a>,
        loc: SrcLoc,
    ) -> Env<'a> {
        match p {
            TPat::Var { id, name, .. } => {
                self.name_results(&v, name);
                env.bind(*id, v)
            }
            TPat::Wildcard(_) => env.clone(),
            TPat::Tuple(ps, _) => {
                let vs = match v {
                    Value::Tuple(vs) if vs.len() == ps.len() => vs,
                    _ => vec![unit(); ps.len()],
                };
                let mut env = env.clone();
                for (q, w) in ps.iter().zip(vs) {
                    env = self.bind(&env, q, w, loc);
                }
                env
            }
            TPat::Ascribed(q, shape) => {
                let v = self.shape_empty_literals(env, shape, v, &[], loc);
                let env = self.check_shape(env, shape, &v, 0, loc);
                self.bind(&env, q, v, loc)
            }
            // The payload of the constructor (a `match` has tested the tag).
            TPat::Ctor(name, ps, ty) => {
                let payload = match (ctor_index(ty, name), v) {
                    (Some(i), Value::Tuple(mut parts)) if i + 1 < parts.len() => {
                        std::mem::replace(&mut parts[i + 1], unit())
                    }
                    _ => unit(),
                };
                let vs = match payload {
                    Value::Tuple(vs) if vs.len() == ps.len() => vs,
                    _ => vec![unit(); ps.len()],
                };
                let mut env = env.clone();
                for (q, w) in ps.iter().zip(vs) {
                    env = self.bind(&env, q, w, loc);
                }
                env
            }
            TPat::Lit(_) => env.clone(),
        }
    }

    /// Gives the variables just computed for a `let` the name it binds.
    pub(super) fn name_results(&mut self, v: &Value, name: &str) {
        let ids: Vec<VarId> = leaves(v)
            .into_iter()
            .filter_map(|(a, _)| match a {
                Atom::Var(id) => Some(id),
                Atom::Const(_) => None,
            })
            .collect();
        if let Some(stm) = self.stms.last_mut() {
            for var in &mut stm.pat {
                if ids.contains(&var.id) {
                    var.name = name.to_string();
                }
            }
        }
    }

    /// Rebuilds the empty literals in `v` (`[]` of rank >= 2) with the row
    /// shape `shape` gives them, as Futhark does (`[] : [0][n]t` has rows of
    /// `n` elements); `outer` holds the sizes of the enclosing dimensions.
    /// A literal whose row sizes are not all known here keeps empty rows.
    pub(super) fn shape_empty_literals(
        &mut self,
        env: &Env<'a>,
        shape: &Shape,
        v: Value<'a>,
        outer: &[Option<Atom>],
        loc: SrcLoc,
    ) -> Value<'a> {
        match (shape, v) {
            (Shape::Array(dim, inner), v) => {
                let mut dims = outer.to_vec();
                dims.push(self.known_dim(env, dim, loc));
                self.shape_empty_literals(env, inner, v, &dims, loc)
            }
            (Shape::Tuple(shapes), Value::Tuple(vs)) if shapes.len() == vs.len() => Value::Tuple(
                shapes
                    .iter()
                    .zip(vs)
                    .map(|(s, w)| self.shape_empty_literals(env, s, w, outer, loc))
                    .collect(),
            ),
            // A unit element's shape is the empty tuple; its array one leaf.
            (Shape::Other | Shape::Tuple(_), Value::Leaf(Atom::Var(id), ty))
                if self.empty_literals.contains(&id) && ty.rank() == outer.len() =>
            {
                let Some(rows) = outer[1..].iter().copied().collect::<Option<Vec<Atom>>>() else {
                    return Value::Leaf(Atom::Var(id), ty);
                };
                let zero = Self::i64_atom(0);
                let flat_ty = CType::Array(ty.elem(), 1);
                let mut array = self.let1(
                    "empty",
                    flat_ty,
                    Exp::ArrayLit {
                        elem: CType::Scalar(ty.elem()),
                        items: Vec::new(),
                    },
                    loc,
                );
                // Innermost rows first: [0] -> [0][d_k] -> ... -> [0][d_1]..[d_k].
                for (k, &cols) in rows.iter().enumerate().rev() {
                    let Atom::Var(inner) = array else {
                        return Value::Leaf(Atom::Var(id), ty);
                    };
                    array = self.let1(
                        "empty",
                        CType::Array(ty.elem(), rows.len() + 1 - k),
                        Exp::Unflatten {
                            array: inner,
                            rows: zero,
                            cols,
                        },
                        loc,
                    );
                }
                let mut dims = vec![Some(zero)];
                dims.extend(rows.into_iter().map(Some));
                self.set_dims(array, dims);
                Value::Leaf(array, ty)
            }
            (_, v) => v,
        }
    }

    /// The size `dim` stands for where it is already known.
    fn known_dim(&mut self, env: &Env<'a>, dim: &Dim, loc: SrcLoc) -> Option<Atom> {
        match dim {
            Dim::Any => None,
            Dim::Const(k) => Some(Self::i64_atom(*k as i64)),
            Dim::Var(id) => match env.get(*id) {
                Some(Value::Leaf(n, _)) => Some(*n),
                _ => None,
            },
            Dim::Global(inst) => self.global_size(*inst),
            Dim::Field { var, path } => Self::field_size(env, *var, path),
            Dim::Linear { var, scale, offset } => match env.get(*var) {
                Some(Value::Leaf(n, _)) => {
                    let n = *n;
                    let scaled = self.i64_op(BinOp::Mul, n, Self::i64_atom(*scale), loc);
                    Some(self.i64_op(BinOp::Add, scaled, Self::i64_atom(*offset), loc))
                }
                _ => None,
            },
        }
    }

    /// The value of a global `i64` constant used as a size (lowered where
    /// it is used, as every constant is).
    fn global_size(&mut self, inst: usize) -> Option<Atom> {
        let lam = self.instances.get(inst)?;
        if !lam.params.is_empty() {
            return None;
        }
        match self.expr(&Env::default(), &lam.body) {
            Value::Leaf(a, _) => Some(a),
            _ => None,
        }
    }

    /// The `i64` at `path` in the tuple or record bound to `var`.
    fn field_size(env: &Env<'a>, var: LocalId, path: &[usize]) -> Option<Atom> {
        let mut v = env.get(var)?;
        for &i in path {
            match v {
                Value::Tuple(parts) => v = parts.get(i)?,
                _ => return None,
            }
        }
        match v {
            Value::Leaf(n, _) => Some(*n),
            _ => None,
        }
    }

    /// Binds the size variables of `shape` not yet bound, and checks the others.
    pub(super) fn check_shape(
        &mut self,
        env: &Env<'a>,
        shape: &Shape,
        v: &Value<'a>,
        depth: usize,
        loc: SrcLoc,
    ) -> Env<'a> {
        match shape {
            Shape::Other => env.clone(),
            Shape::Tuple(shapes) => match v {
                Value::Tuple(vs) if vs.len() == shapes.len() => {
                    let mut env = env.clone();
                    for (s, w) in shapes.iter().zip(vs) {
                        env = self.check_shape(&env, s, w, depth, loc);
                    }
                    env
                }
                _ => env.clone(),
            },
            Shape::Array(dim, inner) => {
                let env = match first_array(v) {
                    Some(arr) => self.check_dim(env, dim, arr, depth, loc),
                    None => env.clone(),
                };
                self.check_shape(&env, inner, v, depth + 1, loc)
            }
        }
    }

    pub(super) fn check_dim(
        &mut self,
        env: &Env<'a>,
        dim: &Dim,
        arr: VarId,
        depth: usize,
        loc: SrcLoc,
    ) -> Env<'a> {
        match dim {
            Dim::Any => env.clone(),
            Dim::Const(k) => {
                if let Some(&p) = self.param_index.get(&arr) {
                    // An entry parameter's: the caller checks it.
                    let var = self.fresh("fixed", CType::Scalar(ScalarType::I64));
                    self.entry_fixed.push(SizeParam {
                        var,
                        uses: vec![(p, depth)],
                        fixed: Some(*k as i64),
                    });
                    let known = self.dims.entry(arr).or_default();
                    if known.len() <= depth {
                        known.resize(depth + 1, None);
                    }
                    known[depth] = Some(Atom::Const(Const::I64(*k as i64)));
                    return env.clone();
                }
                let actual = self.size_of(arr, depth, loc);
                self.assert_same(actual, Atom::Const(Const::I64(*k as i64)), loc);
                env.clone()
            }
            Dim::Var(id) => {
                let entry_size = self.entry_sizes.get(id).copied();
                let param = self.param_index.get(&arr).copied();
                if let (Some(s), Some(p), Some(Value::Leaf(n, _))) =
                    (entry_size, param, env.get(*id))
                {
                    // The entry's caller checks these; the body may rely on them.
                    let n = *n;
                    self.entry_uses[s].push((p, depth));
                    let known = self.dims.entry(arr).or_default();
                    if known.len() <= depth {
                        known.resize(depth + 1, None);
                    }
                    known[depth] = Some(n);
                    return env.clone();
                }
                let actual = self.size_of(arr, depth, loc);
                match env.get(*id) {
                    Some(Value::Leaf(n, _)) => {
                        let n = *n;
                        self.assert_same(n, actual, loc);
                        env.clone()
                    }
                    _ => env.bind(*id, Value::Leaf(actual, CType::Scalar(ScalarType::I64))),
                }
            }
            Dim::Field { var, path } => {
                if let Some(expected) = Self::field_size(env, *var, path) {
                    let actual = self.size_of(arr, depth, loc);
                    self.assert_same(expected, actual, loc);
                }
                env.clone()
            }
            Dim::Global(inst) => {
                if let Some(expected) = self.global_size(*inst) {
                    let actual = self.size_of(arr, depth, loc);
                    self.assert_same(expected, actual, loc);
                }
                env.clone()
            }
            // `[scale * k + offset]`: `k` solved from the size when unknown,
            // and the size checked against it.
            Dim::Linear { var, scale, offset } => {
                let actual = self.size_of(arr, depth, loc);
                let (offset, scale) = (Self::i64_atom(*offset), Self::i64_atom(*scale));
                let (k, solved) = match env.get(*var) {
                    Some(Value::Leaf(n, _)) => (*n, false),
                    _ => {
                        let d = self.i64_op(BinOp::Sub, actual, offset, loc);
                        (self.i64_op(BinOp::Div, d, scale, loc), true)
                    }
                };
                let scaled = self.i64_op(BinOp::Mul, k, scale, loc);
                let expected = self.i64_op(BinOp::Add, scaled, offset, loc);
                self.assert_same(expected, actual, loc);
                if solved {
                    env.bind(*var, Value::Leaf(k, CType::Scalar(ScalarType::I64)))
                } else {
                    env.clone()
                }
            }
        }
    }
}
