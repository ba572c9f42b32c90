//! Consuming roots and using variables, with their diagnostics: consuming
//! what is not consumable (a parameter without `*`, a top-level constant, a
//! variable bound outside the anonymous function), and a use after
//! consumption. In: roots and the expression consuming or using them; out:
//! the consumption recorded in `Walk`, and diagnostics naming both places
//! (where bound or consumed, and where used).

use super::*;

impl Walk<'_> {
    /// Records that `roots` are consumed by `at`, reporting those that may
    /// not be.
    pub(super) fn consume(&mut self, roots: &[LocalId], at: &TExpr) {
        for &r in roots {
            let name = self.name(r);
            if self.shared_params.contains(&r) {
                let d = Diagnostic::new(
                    at.file,
                    at.span.clone(),
                    format!("consuming `{name}`, which is not consumable"),
                )
                .with_label("consumed here");
                let d = self.with_place(d, r, format!("`{name}` is bound here, without `*`"));
                let note = if self.facts.fn_uniqueness.get(&r).is_some_and(|u| !u.result) {
                    format!(
                        "what `{name}` returns may alias what it captures, as its type does not \
                         declare its result `*`: consume a `copy` of it"
                    )
                } else {
                    format!(
                        "`{name}` is a parameter without a unique type: declare it `*` \
                         or consume a `copy` of it"
                    )
                };
                self.errors.push(d.with_note(note));
            } else if let Some(k) = constant_of(r) {
                let d = Diagnostic::new(
                    at.file,
                    at.span.clone(),
                    format!("consuming `{name}`, a top-level constant, which is not consumable"),
                )
                .with_label("consumed here");
                let d = self.with_definition(d, k, format!("`{name}` is defined here"));
                self.errors.push(d.with_note(format!(
                    "every use of `{name}` shares its memory: consume a `copy` of it"
                )));
            } else if self.bound_at.get(&r).is_some_and(|d| *d < self.depth) {
                self.errors.push(
                    Diagnostic::new(
                        at.file,
                        at.span.clone(),
                        format!(
                            "consuming `{name}`, which is bound outside this anonymous \
                             function, so it is not consumable here"
                        ),
                    )
                    .with_label("consumed here")
                    .with_note("consume a `copy` of it, or pass it as an argument"),
                );
            }
            self.consumptions += 1;
            self.consumed.insert(
                r,
                Consumed {
                    file: at.file,
                    span: at.span.clone(),
                },
            );
        }
    }

    pub(super) fn use_var(&mut self, id: LocalId, e: &TExpr) {
        for r in self.roots_of(id) {
            let Some(c) = self.consumed.get(&r).cloned() else {
                continue;
            };
            let (used, root) = (self.name(id), self.name(r));
            let msg = if used == root {
                format!("`{used}` is used after it was consumed")
            } else {
                format!("`{used}` is used after `{root}`, which it aliases, was consumed")
            };
            let same_place = c.file == e.file && c.span == e.span;
            let msg = if same_place {
                format!("`{root}` is consumed in a loop body and used again by its next iteration")
            } else {
                msg
            };
            let mut d = Diagnostic::new(e.file, e.span.clone(), msg).with_label("used here");
            if same_place {
                d = d.with_label("consumed here, in every iteration");
            } else if c.file == e.file {
                d = d.with_secondary(c.span.clone(), format!("`{root}` is consumed here"));
            } else {
                let (line, col) = self.sources.line_col(c.file, c.span.start);
                let file = self.sources.name(c.file);
                d = d.with_note(format!("`{root}` is consumed at {file}:{line}:{col}"));
            }
            let d = d.with_note(
                "an argument passed to a unique (`*`) parameter, or an array updated by \
                 `let a[i] = v`, may be updated in place; use a `copy` to keep using it",
            );
            self.errors.push(d);
            return;
        }
    }

    /// `d` with the place where instance `k` is defined (its body).
    pub(super) fn with_definition(&self, d: Diagnostic, k: usize, label: String) -> Diagnostic {
        let Some(lam) = self.program.instances.get(k) else {
            return d;
        };
        let (file, span) = (lam.body.file, lam.body.span.clone());
        if file == d.file {
            d.with_secondary(span, label)
        } else {
            let (line, col) = self.sources.line_col(file, span.start);
            let name = self.sources.name(file);
            d.with_note(format!("{label}: {name}:{line}:{col}"))
        }
    }

    /// `d` with the place where `id` is bound (a label when in the same
    /// file, else a note).
    pub(super) fn with_place(&self, d: Diagnostic, id: LocalId, label: String) -> Diagnostic {
        match self.facts.bound.get(&id) {
            Some((file, span)) if *file == d.file => d.with_secondary(span.clone(), label),
            Some((file, span)) => {
                let (line, col) = self.sources.line_col(*file, span.start);
                let name = self.sources.name(*file);
                d.with_note(format!("{label}: {name}:{line}:{col}"))
            }
            None => d,
        }
    }
}
