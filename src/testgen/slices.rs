//! Slices for the generator: of one-dimensional arrays with and without
//! strides (negative ones too), of every dimension of rank-2 and rank-3
//! arrays, and `with` updates of a slice by a map over the same slice;
//! in range unless risky.

use super::ast::{Expr, Ty};
use super::gen::{Env, Gen, Made};
use super::ranked::ranked;
use crate::types::ScalarType;

impl Gen {
    /// Slices with and without strides, negative ones too; in range unless risky.
    pub(super) fn slice(&mut self, env: &Env, t: ScalarType, d: u32) -> Made {
        let ty = Ty::arr(Ty::S(t));
        let (src, _) = self.array1(env, t, d, None);
        let (wrap, v) = self.shared(env, src);
        let text = if self.risky() {
            let a = self.rng.range(-1, 4);
            let b = self.rng.range(-1, 6);
            let s = *self.rng.pick(&[-2, -1, 1, 2, 3]);
            format!("{v}[{a}:{b}:{s}]")
        } else {
            let k = self.rng.range(0, 3);
            match self.rng.below(7) {
                0 => format!("{v}[i64.min {k} (length {v}):]"),
                1 => format!("{v}[:i64.min {k} (length {v})]"),
                2 => format!("{v}[::2]"),
                3 => format!("{v}[::-1]"),
                4 => format!("{v}[::-3]"),
                5 => format!("{v}[i64.min {k} (length {v}):length {v}:2]"),
                _ => format!("{v}[length {v} - 1:-1:-2]"),
            }
        };
        Some((
            wrap(Expr::node(ty).t(&format!("({text})"))),
            self.new_size(),
        ))
    }

    /// `v with [R] = map f v[R]` for a slice `R` of `v` (strided too):
    /// the same length, and `v`'s own length class.
    pub(super) fn slice_update(
        &mut self,
        env: &Env,
        t: ScalarType,
        d: u32,
        want: Option<u32>,
    ) -> Made {
        let ty = Ty::arr(Ty::S(t));
        let (src, size) = self.array1(env, t, d, want);
        let (wrap, v) = self.shared(env, src);
        if self.risky() {
            // Bounds out of range or a value of the wrong length.
            let a = self.rng.range(-1, 3);
            let b = self.rng.range(-1, 5);
            let n = self.rng.range(0, 3);
            let x = self.scalar(env, t, d);
            let e = Expr::node(ty)
                .t(&format!("({v} with [{a}:{b}] = replicate {n}i64 "))
                .e(x)
                .t(")");
            return Some((wrap(e), size));
        }
        let k = self.rng.range(0, 3);
        let range = match self.rng.below(6) {
            0 => format!("i64.min {k} (length {v}):"),
            1 => format!(":i64.min {k} (length {v})"),
            2 => "::2".to_string(),
            3 => "::-1".to_string(),
            4 => format!("i64.min {k} (length {v})::3"),
            _ => "::-2".to_string(),
        };
        let (inner, x) = self.bind(env, "e", Ty::S(t), 0);
        let body = self.scalar(&inner, t, d);
        let e = Expr::node(ty)
            .t(&format!("({v} with [{range}] = map (\\{x} -> "))
            .e(body)
            .t(&format!(") {v}[{range}])"));
        Some((wrap(e), size))
    }

    /// A slice of a rank-2 or rank-3 array with a stride in some
    /// dimension; its rank stays.
    pub(super) fn slice_n(&mut self, rank: usize, env: &Env, t: ScalarType, d: u32) -> Made {
        let (a, _) = if rank == 2 {
            self.array2(env, t, d, None)
        } else {
            self.array3(env, t, d, None)
        };
        let (wrap, v) = self.shared(env, a);
        let dims: Vec<String> = if self.risky() {
            vec!["1:3".into(), "0:2".into()]
        } else {
            let k = self.rng.range(0, 2);
            (0..rank)
                .map(|r| {
                    let opts = ["", "::2", "::-1", "::-2", "1::2"];
                    let o = *self.rng.pick(&opts);
                    // The outer dimension may also start past a prefix.
                    if r == 0 && o == "1::2" {
                        format!("i64.min {k} (length {v})::2")
                    } else if o.is_empty() || o == "1::2" {
                        ":".to_string()
                    } else {
                        o.to_string()
                    }
                })
                .collect()
        };
        let e = Expr::node(ranked(t, rank)).t(&format!("({v}[{}])", dims.join(", ")));
        Some((wrap(e), self.new_size()))
    }
}
