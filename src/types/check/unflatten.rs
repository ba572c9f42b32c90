//! Futhark's newer `unflatten xs`, whose sizes come from the type: as
//! Futhark does, the sizes are read off the argument's size when that is a
//! product `n * m` written in the program (a parameter's type `[n * m]t`,
//! `sized (n * m) xs`, `replicate (n * m) x`, `iota`, `take`, a `:>`
//! coercion, a `map` or `scatter` over such an array, or a name bound to
//! one), and the call becomes arrc's `unflatten n m xs`.

use super::*;
use crate::types::builtins::builtin_type;

impl<'a> Checker<'a> {
    /// `e` as `a * b`.
    fn product(e: &'a Expr) -> Option<(&'a Expr, &'a Expr)> {
        match &e.kind {
            ExprKind::BinOp(BinOp::Mul, a, b) => Some((a, b)),
            _ => None,
        }
    }

    /// The product a written type's outer size is.
    pub(super) fn type_product(t: &'a TypeExpr) -> Option<(&'a Expr, &'a Expr)> {
        match t {
            TypeExpr::Array(SizeExpr::Expr(e), _, _) => Self::product(e),
            TypeExpr::Unique(t, _) => Self::type_product(t),
            _ => None,
        }
    }

    /// The product the outer size of `e`'s value is written as, if any.
    pub(super) fn size_product(&self, e: &'a Expr) -> Option<(&'a Expr, &'a Expr)> {
        match &e.kind {
            ExprKind::Var {
                qualifier: None,
                name,
            } => match self.lookup_local(&name.name) {
                Some(Binding::Local { id, .. }) => self.products.get(id).copied(),
                _ => None,
            },
            ExprKind::Ascribe(x, t) | ExprKind::Coerce(x, t) => {
                Self::type_product(t).or_else(|| self.size_product(x))
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
                    ("sized" | "replicate" | "iota" | "take", [n, ..]) => Self::product(n),
                    ("scatter" | "copy", [dest, ..]) => self.size_product(dest),
                    ("hist", [_, _, k, ..]) => Self::product(k),
                    ("reduce_by_index", [dest, ..]) => self.size_product(dest),
                    ("map" | "map2" | "map3" | "map4" | "map5", [.., last]) => {
                        self.size_product(last)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Remembers that the names `p` binds to a value whose size is a
    /// written product: its type says so, or `rhs` (a `let`'s) does.
    pub(super) fn note_product(
        &mut self,
        p: &'a Pattern,
        rhs: Option<&'a Expr>,
        binds: &[(String, Span, LocalId, Type)],
    ) {
        let (name, found) = match p {
            Pattern::Id(n) => (n, rhs.and_then(|r| self.size_product(r))),
            Pattern::Ascribed(q, t, _) => match &**q {
                Pattern::Id(n) => (
                    n,
                    Self::type_product(t).or_else(|| rhs.and_then(|r| self.size_product(r))),
                ),
                _ => return,
            },
            _ => return,
        };
        if let (Some(found), Some((_, _, id, _))) = (found, binds.iter().find(|b| b.0 == name.name))
        {
            self.products.insert(*id, found);
        }
    }

    /// `unflatten xs` with the sizes read off `xs`, as `unflatten n m xs`.
    pub(super) fn unflatten_one(
        &mut self,
        head: &'a Expr,
        whole: &Span,
        xs: &'a Expr,
    ) -> Option<Result<TExpr>> {
        let (n, m) = self.size_product(xs)?;
        let args = [n, m, xs];
        Some(self.check_plain_args(&args).and_then(|targs| {
            let ty = builtin_type(&mut self.inf, Builtin::Unflatten);
            let head_te = self.node(TExprKind::Builtin(Builtin::Unflatten), ty, &head.span);
            self.apply_generic(head_te, whole, &args, targs, Some(("unflatten", 0)))
        }))
    }
}
