//! Futhark's newer `unflatten xs`, `unflatten_3d xs` and `split xs`, whose
//! sizes come from the type: as Futhark's size unification does, the sizes
//! are read off the argument's outer size when the program writes it as a
//! product `n * m` (`n * m * l`) or a sum `n + m` (a parameter's type
//! `[n * m]t`, `sized (n * m) xs`, `replicate`, `iota`, `take`, a `:>`
//! coercion, a `map` or `scatter` over such an array, or a name bound to
//! one), and the call becomes arrc's `unflatten n m xs`, `unflatten_3d n m l
//! xs` or `split n xs`.

use super::*;
use crate::types::builtins::builtin_type;

impl<'a> Checker<'a> {
    /// `e` as `a op b`.
    fn parts(e: &'a Expr, op: BinOp) -> Option<(&'a Expr, &'a Expr)> {
        match &e.kind {
            ExprKind::BinOp(o, a, b) if *o == op => Some((a, b)),
            _ => None,
        }
    }

    /// The expression a written type's outer size is.
    pub(super) fn type_size(t: &'a TypeExpr) -> Option<&'a Expr> {
        match t {
            TypeExpr::Array(SizeExpr::Expr(e), _, _) => Some(e),
            TypeExpr::Unique(t, _) => Self::type_size(t),
            _ => None,
        }
    }

    /// The expression the outer size of `e`'s value is written as, if any.
    pub(super) fn size_written(&self, e: &'a Expr) -> Option<&'a Expr> {
        match &e.kind {
            ExprKind::Var {
                qualifier: None,
                name,
            } => match self.lookup_local(&name.name) {
                Some(Binding::Local { id, .. }) => self.sizes_written.get(id).copied(),
                _ => None,
            },
            ExprKind::Ascribe(x, t) | ExprKind::Coerce(x, t) => {
                Self::type_size(t).or_else(|| self.size_written(x))
            }
            ExprKind::Apply(..) => {
                let (head, args) = flatten_apply(e);
                let ExprKind::Var {
                    qualifier: None,
                    name,
                } = &head.kind
                else {
                    return None;
                };
                if self.lookup_local(&name.name).is_some() {
                    return None;
                }
                match (name.name.as_str(), args.as_slice()) {
                    ("sized" | "replicate" | "iota" | "take", [n, ..]) => Some(n),
                    ("scatter" | "copy", [dest, ..]) => self.size_written(dest),
                    ("hist", [_, _, k, ..]) => Some(k),
                    ("reduce_by_index", [dest, ..]) => self.size_written(dest),
                    ("map" | "map2" | "map3" | "map4" | "map5", [.., last]) => {
                        self.size_written(last)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Remembers the size expression of the value the names `p` binds: its
    /// type writes one, or `rhs` (a `let`'s) does.
    pub(super) fn note_size(
        &mut self,
        p: &'a Pattern,
        rhs: Option<&'a Expr>,
        binds: &[(String, Span, LocalId, Type)],
    ) {
        let (name, found) = match p {
            Pattern::Id(n) => (n, rhs.and_then(|r| self.size_written(r))),
            Pattern::Ascribed(q, t, _) => match &**q {
                Pattern::Id(n) => (
                    n,
                    Self::type_size(t).or_else(|| rhs.and_then(|r| self.size_written(r))),
                ),
                _ => return,
            },
            _ => return,
        };
        if let (Some(found), Some((_, _, id, _))) = (found, binds.iter().find(|b| b.0 == name.name))
        {
            self.sizes_written.insert(*id, found);
        }
    }

    /// `unflatten xs` with the sizes read off `xs`, as `unflatten n m xs`.
    pub(super) fn unflatten_one(
        &mut self,
        head: &'a Expr,
        whole: &Span,
        xs: &'a Expr,
    ) -> Option<Result<TExpr>> {
        let (n, m) = Self::parts(self.size_written(xs)?, BinOp::Mul)?;
        let args = [n, m, xs];
        Some(self.check_plain_args(&args).and_then(|targs| {
            let ty = builtin_type(&mut self.inf, Builtin::Unflatten);
            let head_te = self.node(TExprKind::Builtin(Builtin::Unflatten), ty, &head.span);
            self.apply_generic(head_te, whole, &args, targs, Some(("unflatten", 0)))
        }))
    }

    /// The arguments of the prelude's `unflatten_3d n m l xs` or `split n
    /// xs` for a call `unflatten_3d xs` or `split xs` (a template of that
    /// name taking one more argument than given), read off `xs`'s size.
    pub(super) fn sizes_from_type(
        &self,
        t: &Template<'a>,
        args: &[&'a Expr],
    ) -> Option<Vec<&'a Expr>> {
        let [xs] = args else { return None };
        let size = || self.size_written(xs);
        match (t.name.name.as_str(), t.params.len()) {
            ("unflatten_3d", 4) => {
                let (nm, l) = Self::parts(size()?, BinOp::Mul)?;
                let (n, m) = Self::parts(nm, BinOp::Mul)?;
                Some(vec![n, m, l, xs])
            }
            ("split", 2) => {
                let (n, _) = Self::parts(size()?, BinOp::Add)?;
                Some(vec![n, xs])
            }
            _ => None,
        }
    }
}
