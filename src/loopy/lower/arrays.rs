//! The array builtins: slices, updates, transposes and other permutations,
//! concatenation (views where the result is contiguous, copies by nests
//! otherwise).

use super::*;

impl Lowerer {
    // ---- array builtins ---------------------------------------------------

    /// `a[d0, d1, ...]`: bounds-checked; a view when the result is
    /// contiguous (fixed indices, then at most one range of stride 1, then
    /// whole dimensions), otherwise a copy made by a nest per range.
    pub(super) fn slice(
        &mut self,
        p: &Var,
        array: &VarId,
        dims: &[DimSlice],
        loc: SrcLoc,
        out: &mut Block,
    ) {
        let array = self.var(*array);
        let shape = self.array_shape(array);
        let dims = &dims[..dims.len().min(shape.len())];
        // Per given dimension: a fixed index, or (start, stride, count).
        enum D {
            Fixed(Atom),
            Range(Atom, Atom, Atom),
        }
        let mut ds = Vec::new();
        let mut fixed = Vec::new();
        for (k, d) in dims.iter().enumerate() {
            match d {
                DimSlice::Index(i) => {
                    let i = self.atom(i);
                    let i = self.as_i64(i, out);
                    fixed.push(i);
                    ds.push(D::Fixed(i));
                    // Checked here, in order with the ranges, unless the
                    // slice is only indices (checked as indexing below).
                    if dims.iter().any(|d| matches!(d, DimSlice::Range { .. })) {
                        out.push(Stmt::IndexCheck {
                            index: i,
                            len: shape[k],
                            loc,
                        });
                    }
                }
                DimSlice::Range { start, end, stride } => {
                    let (start, end, stride) =
                        (self.atom(start), self.atom(end), self.atom(stride));
                    let count = self.slice_count(start, end, stride, out);
                    out.push(Stmt::SliceCheck {
                        start,
                        end,
                        stride,
                        count,
                        len: shape[k],
                        loc,
                    });
                    ds.push(D::Range(start, stride, count));
                }
            }
        }
        if !fixed.is_empty() && fixed.len() == ds.len() {
            // Only fixed indices: an element or a row, checked as indexing.
            let idx: Vec<Atom> = fixed.clone();
            let var = self.bind(p);
            if idx.len() >= shape.len() {
                out.push(Stmt::Read {
                    var,
                    array,
                    index: idx,
                    check: Some(loc),
                });
            } else {
                self.shapes.insert(var.id, shape[idx.len()..].to_vec());
                out.push(Stmt::Row {
                    var,
                    array,
                    index: idx,
                    check: Some(loc),
                });
            }
            return;
        }
        let trailing = shape[ds.len()..].to_vec();
        let mut new_shape: Vec<Atom> = ds
            .iter()
            .filter_map(|d| match d {
                D::Range(_, _, c) => Some(*c),
                D::Fixed(_) => None,
            })
            .collect();
        new_shape.extend(trailing.iter().copied());
        let contiguous = match ds.split_last() {
            Some((D::Range(_, s, _), rest)) => {
                *s == i64c(1) && rest.iter().all(|d| matches!(d, D::Fixed(_)))
            }
            _ => false,
        };
        if contiguous {
            // Linear offset of the first element.
            let mut offset = i64c(0);
            for (k, d) in ds.iter().enumerate() {
                let pos = match d {
                    D::Fixed(i) | D::Range(i, _, _) => *i,
                };
                let scaled = self.mul(offset, shape[k], out);
                offset = self.add(scaled, pos, out);
            }
            let row = self.product(&shape[ds.len()..], out);
            let offset = self.mul(offset, row, out);
            self.view(p, array, offset, new_shape, out);
            return;
        }
        let var = self.bind(p);
        self.alloc(&var, new_shape, out);
        // One nest per range, outermost first; the innermost body moves an
        // element or a row.
        let ranges: Vec<(usize, Atom)> = ds
            .iter()
            .enumerate()
            .filter_map(|(k, d)| match d {
                D::Range(_, _, c) => Some((k, *c)),
                D::Fixed(_) => None,
            })
            .collect();
        let indices: Vec<Var> = ranges.iter().map(|_| self.fresh("j", I64)).collect();
        let mut body = Vec::new();
        let mut src_index = Vec::new();
        let mut r = 0;
        for d in &ds {
            match d {
                D::Fixed(i) => src_index.push(*i),
                D::Range(start, stride, _) => {
                    let j = Atom::Var(indices[r].id);
                    r += 1;
                    let step = self.binop("step", BinOp::Mul, j, *stride, &mut body);
                    let at = self.binop("at", BinOp::Add, *start, step, &mut body);
                    src_index.push(at);
                }
            }
        }
        let dst_index: Vec<Atom> = indices.iter().map(|v| Atom::Var(v.id)).collect();
        let value = self.elem(array, src_index, "x", None, &mut body);
        body.push(self.store(var.id, dst_index, value));
        for ((_, count), index) in ranges.iter().zip(indices).rev() {
            body = vec![simple_loop(Origin::Slice, index, *count, body)];
        }
        out.extend(body);
        // One strided range over the outer dimension: readers at their own
        // index read the source instead (checked above by `SliceCheck`).
        if let [D::Range(start, stride, _)] = ds[..] {
            self.permuted(p, array, IndexFn::Strided { start, stride });
        }
        // Over both dimensions of a matrix: a strided view (a loop reading
        // it at its own index reads the source).
        if let ([a, b], 2) = (&ds[..], shape.len()) {
            let mut dim = 0;
            let mut lin = |d: &D| match d {
                D::Fixed(i) => Lin::Fixed(*i),
                D::Range(start, stride, _) => {
                    dim += 1;
                    Lin::Dim {
                        dim: dim - 1,
                        start: *start,
                        stride: *stride,
                    }
                }
            };
            let idx = [lin(a), lin(b)];
            let var = self.var(p.id);
            if var != array && self.shapes.contains_key(&var) {
                let depth = Some(self.lambda_depth);
                self.generated.insert(
                    var,
                    Generated::View {
                        src: array,
                        idx,
                        depth,
                    },
                );
            }
        }
    }

    /// The element count of `start:end:stride` by Futhark's rule,
    /// `(end - start + stride - sign(stride)) quot stride`; a zero stride
    /// (an error `SliceCheck` reports) divides by 1 instead.
    fn slice_count(&mut self, start: Atom, end: Atom, stride: Atom, out: &mut Block) -> Atom {
        if stride == i64c(1) {
            // `xs[:k]`: the count is `k` itself, so later passes see the
            // same variable (a bound `k` proves `i < k` in range).
            if start == i64c(0) {
                return end;
            }
            return self.binop("n", BinOp::Sub, end, start, out);
        }
        if let Atom::Const(Const::I64(s)) = stride {
            if s != 0 {
                // The same count with the stride's sign known: no select and
                // no division that could fail, so the count can be copied
                // out of a loop body (see `invariant_copy`).
                let diff = self.binop("diff", BinOp::Sub, end, start, out);
                let num = self.binop("num", BinOp::Add, diff, i64c(s - s.signum()), out);
                return self.binop("n", BinOp::Quot, num, stride, out);
            }
        }
        let pos = self.binop("pos", BinOp::Gt, stride, i64c(0), out);
        let neg = self.binop("neg", BinOp::Lt, stride, i64c(0), out);
        let pos = self.let_(
            "p",
            ScalarType::I64,
            ScalarExp::Convert(ScalarType::I64, pos),
            out,
        );
        let neg = self.let_(
            "q",
            ScalarType::I64,
            ScalarExp::Convert(ScalarType::I64, neg),
            out,
        );
        let sign = self.binop("sign", BinOp::Sub, pos, neg, out);
        let diff = self.binop("diff", BinOp::Sub, end, start, out);
        let adj = self.binop("adj", BinOp::Sub, stride, sign, out);
        let num = self.binop("num", BinOp::Add, diff, adj, out);
        let zero = self.binop("zero", BinOp::Eq, stride, i64c(0), out);
        let safe = self.select(zero, i64c(1), stride, ScalarType::I64, out);
        self.binop("n", BinOp::Quot, num, safe, out)
    }

    /// `size mismatch` unless `rows * cols` is exactly `n` with neither
    /// negative (the product may not wrap around).
    pub(super) fn check_unflatten(
        &mut self,
        n: Atom,
        rows: Atom,
        cols: Atom,
        loc: SrcLoc,
        out: &mut Block,
    ) {
        let prod = self.binop("prod", BinOp::Mul, rows, cols, out);
        let r_ok = self.binop("r_ok", BinOp::Ge, rows, i64c(0), out);
        let c_ok = self.binop("c_ok", BinOp::Ge, cols, i64c(0), out);
        let p_ok = self.binop("p_ok", BinOp::Eq, prod, n, out);
        let safe = self.binop("c1", BinOp::Max, cols, i64c(1), out);
        let q = self.binop("q", BinOp::Quot, n, safe, out);
        let q_ok = self.binop("q_ok", BinOp::Eq, q, rows, out);
        let empty = self.binop("empty", BinOp::Eq, cols, i64c(0), out);
        let exact = self.binop("exact", BinOp::Or, q_ok, empty, out);
        let a = self.binop("ok", BinOp::And, r_ok, c_ok, out);
        let b = self.binop("ok", BinOp::And, p_ok, exact, out);
        let ok = self.binop("ok", BinOp::And, a, b, out);
        // Reports the product, or -1 when only a wrap-around made it fit.
        let wrong = self.select(p_ok, i64c(-1), prod, ScalarType::I64, out);
        let expected = self.select(ok, n, wrong, ScalarType::I64, out);
        self.assert_width(&expected, &n, loc, out);
    }

    /// `array with [indices] = value`: a checked copy with one element or
    /// row replaced.
    pub(super) fn update(
        &mut self,
        p: &Var,
        array: &VarId,
        indices: &[Atom],
        value: &Atom,
        loc: SrcLoc,
        out: &mut Block,
    ) {
        let array = self.var(*array);
        let shape = self.array_shape(array);
        let mut idx = Vec::new();
        for a in indices {
            let a = self.atom(a);
            idx.push(self.as_i64(a, out));
        }
        out.push(Stmt::BoundsCheck {
            array,
            index: idx.clone(),
            loc,
        });
        let value = self.atom(value);
        let row = shape.get(idx.len()..).unwrap_or_default().to_vec();
        self.assert_shape(&row, &value, loc, out);
        let var = self.bind(p);
        self.alloc(&var, shape, out);
        out.push(Stmt::Copy {
            array: var.id,
            index: Vec::new(),
            src: array,
        });
        out.push(self.store(var.id, idx, value));
    }

    pub(super) fn transpose(&mut self, p: &Var, array: &VarId, out: &mut Block) {
        let array = self.var(*array);
        let shape = self.array_shape(array);
        if shape.len() < 2 {
            return;
        }
        let var = self.bind(p);
        let mut new_shape = vec![shape[1], shape[0]];
        new_shape.extend_from_slice(&shape[2..]);
        self.alloc(&var, new_shape, out);
        let i = self.fresh("i", I64);
        let j = self.fresh("j", I64);
        let (iv, jv) = (Atom::Var(i.id), Atom::Var(j.id));
        let mut inner = Vec::new();
        let x = self.elem(array, vec![jv, iv], "x", None, &mut inner);
        inner.push(self.store(var.id, vec![iv, jv], x));
        let outer = vec![simple_loop(Origin::Transpose, j, shape[0], inner)];
        out.push(simple_loop(Origin::Transpose, i, shape[1], outer));
    }

    /// A copy of `array` whose element `i` is `array[source(i)]`.
    pub(super) fn permute(
        &mut self,
        p: &Var,
        array: VarId,
        origin: Origin,
        out: &mut Block,
        source: impl FnOnce(&mut Self, Atom, Atom, &mut Block) -> Atom,
    ) {
        let shape = self.array_shape(array);
        let Some(&n) = shape.first() else { return };
        let var = self.bind(p);
        self.alloc(&var, shape, out);
        let i = self.fresh("i", I64);
        let iv = Atom::Var(i.id);
        let mut body = Vec::new();
        let j = source(self, iv, n, &mut body);
        let x = self.elem(array, vec![j], "x", None, &mut body);
        body.push(self.store(var.id, vec![iv], x));
        out.push(simple_loop(origin, i, n, body));
    }

    /// Along the outer dimension: each part is copied into a view of the
    /// result at its offset.
    pub(super) fn concat(&mut self, p: &Var, arrays: &[VarId], loc: SrcLoc, out: &mut Block) {
        let arrays: Vec<VarId> = arrays.iter().map(|a| self.var(*a)).collect();
        let Some(&first) = arrays.first() else { return };
        let first_shape = self.array_shape(first);
        let inner = first_shape.get(1..).unwrap_or_default().to_vec();
        for a in &arrays {
            let s = self.array_shape(*a);
            for (e, f) in inner.iter().zip(s.iter().skip(1)) {
                self.assert_width(e, f, loc, out);
            }
        }
        if let &[first, second] = &arrays[..] {
            return self.concat_two(p, first, second, out);
        }
        let mut total = i64c(0);
        for a in &arrays {
            let s = self.array_shape(*a);
            let outer = s.first().copied().unwrap_or(i64c(0));
            total = self.add(total, outer, out);
        }
        let var = self.bind(p);
        let mut shape = vec![total];
        shape.extend(inner.iter().copied());
        self.alloc(&var, shape, out);
        let row = self.product(&inner, out);
        let mut at = i64c(0);
        for a in &arrays {
            let outer = self.array_shape(*a).first().copied().unwrap_or(i64c(0));
            let offset = self.mul(at, row, out);
            let ty = self.type_of(&Atom::Var(var.id)).unwrap_or(p.ty);
            let dst = self.fresh("part", ty);
            let mut dst_shape = vec![outer];
            dst_shape.extend(inner.iter().copied());
            self.shapes.insert(dst.id, dst_shape.clone());
            let dst_id = dst.id;
            out.push(Stmt::View {
                var: dst,
                array: var.id,
                offset,
                shape: dst_shape,
            });
            out.push(Stmt::Copy {
                array: dst_id,
                index: Vec::new(),
                src: *a,
            });
            at = self.add(at, outer, out);
        }
    }

    /// `first ++ second`: a loop per part writing its elements (or rows,
    /// whose widths `concat` checked) at its offset. Readers at their own
    /// index read the parts instead (see `Generated::Concat`), so the loops
    /// go when nothing else reads it.
    fn concat_two(&mut self, p: &Var, first: VarId, second: VarId, out: &mut Block) {
        let len = |this: &Self, a: VarId| this.array_shape(a).first().copied().unwrap_or(i64c(0));
        let (split, rest) = (len(self, first), len(self, second));
        let total = self.add(split, rest, out);
        let var = self.bind(p);
        let mut shape = vec![total];
        shape.extend(self.array_shape(first).into_iter().skip(1));
        self.alloc(&var, shape, out);
        for (part, offset, n) in [(first, i64c(0), split), (second, split, rest)] {
            let i = self.fresh("i", I64);
            let iv = Atom::Var(i.id);
            let mut body = Vec::new();
            let x = self.elem(part, vec![iv], "x", None, &mut body);
            let at = self.add(iv, offset, &mut body);
            body.push(self.store(var.id, vec![at], x));
            out.push(simple_loop(Origin::Concat, i, n, body));
        }
        self.generated.insert(
            var.id,
            Generated::Concat {
                first,
                second,
                split,
            },
        );
    }
}
