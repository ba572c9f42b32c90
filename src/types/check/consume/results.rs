//! What a function returns and what a unique parameter receives: a result
//! declared unique (`: *t`, or components of `: (*t, u)`, also of anonymous
//! functions) aliases neither a parameter without `*` nor another
//! component; no function's result aliases a top-level constant; the
//! components of a tuple given for a unique parameter do not alias each
//! other. In: the roots `Walk` found for each part of a result or an
//! argument; out: diagnostics naming both places.

use super::*;

impl Walk<'_> {
    /// Checks a result declared unique (`flags`: one per component of a
    /// tuple written as one, else one) against its parts' roots.
    pub(super) fn check_unique_result(&mut self, flags: &[bool], parts: &[(Roots, &TExpr)]) {
        let separate = flags.len() > 1 && flags.len() == parts.len();
        let parts: Vec<(Roots, &TExpr)> = if flags.len() == parts.len() {
            parts.to_vec()
        } else {
            // A tuple result not written out: its roots as one.
            let all = parts
                .iter()
                .fold(Vec::new(), |a, (r, _)| union(a, r.clone()));
            match parts.last() {
                Some((_, e)) => vec![(all, *e); flags.len()],
                None => return,
            }
        };
        for (i, (&unique, (roots, e))) in flags.iter().zip(&parts).enumerate() {
            if !unique {
                continue;
            }
            if let Some(&p) = roots.iter().find(|r| self.shared_params.contains(r)) {
                let name = self.name(p);
                let mut d = Diagnostic::new(
                    e.file,
                    e.span.clone(),
                    format!(
                        "a unique result is aliased to `{name}`, a parameter without a unique \
                         type, which is not consumable"
                    ),
                )
                .with_label("returned here");
                d = self.with_place(d, p, format!("`{name}` is bound here, without `*`"));
                self.errors.push(d.with_note(
                    "a result declared `*` must not share memory with what the caller keeps: \
                     return a `copy`, or declare the parameter `*`",
                ));
                continue;
            }
            if !separate {
                if self.joint_in_unique_result(flags, i, roots, e) {
                    break;
                }
                continue;
            }
            // Names destructured from one value stand for themselves (their
            // roots are the whole value's), as when they are consumed.
            let roots = self.precise(e, roots.clone());
            for (j, (other, f)) in parts.iter().enumerate() {
                if j == i || (j < i && flags[j]) {
                    continue;
                }
                let other = self.precise(f, other.clone());
                if let Some(&r) = roots.iter().find(|r| other.contains(r)) {
                    let name = self.name(r);
                    let mut d = Diagnostic::new(
                        e.file,
                        e.span.clone(),
                        format!(
                            "component {} of a result declared unique is aliased to some other \
                             component (both share `{name}`)",
                            i + 1
                        ),
                    )
                    .with_label("this component");
                    if f.file == e.file && f.span != e.span {
                        d = d.with_secondary(f.span.clone(), format!("component {}", j + 1));
                    }
                    self.errors.push(d.with_note(
                        "a unique component must be the only reference to its memory: return a \
                         `copy` in one of them",
                    ));
                    break;
                }
            }
        }
    }

    /// A tuple result not written out (`dup (copy xs)`) whose unique
    /// component `i` aliases another through a joint root: reported, and
    /// true.
    fn joint_in_unique_result(
        &mut self,
        flags: &[bool],
        i: usize,
        roots: &[LocalId],
        e: &TExpr,
    ) -> bool {
        let found = roots.iter().find_map(|r| {
            let joint = self.joints.get(r)?;
            (flags.len() > 1 && joint.parts.len() > 1 && joint.parts.contains(&i))
                .then(|| (*r, joint.clone()))
        });
        let Some((r, joint)) = found else {
            return false;
        };
        let name = self.name(r);
        let mut d = Diagnostic::new(
            e.file,
            e.span.clone(),
            format!(
                "component {} of a result declared unique is aliased to some other component \
                 (both share `{name}`)",
                i + 1
            ),
        )
        .with_label("this value's components alias each other");
        if joint.file == e.file && joint.span != e.span {
            d = d.with_secondary(joint.span, "where they come to share memory");
        }
        self.errors.push(d.with_note(
            "a unique component must be the only reference to its memory: return a `copy` in \
             one of them",
        ));
        true
    }

    /// The new values a loop's body gives its consumed parameters (`loop
    /// (xs: *[]t, ys: *[]t)`) may not alias the others, as in Futhark: the
    /// next iteration would own one array twice.
    pub(super) fn loop_results_apart(&mut self, pat: &TPat, parts: &[(Roots, &TExpr)]) {
        let Some(flags) = self.unique_fields(pat) else {
            return;
        };
        if flags.len() != parts.len() {
            return;
        }
        let roots: Vec<Roots> = parts
            .iter()
            .map(|(r, e)| self.precise(e, r.clone()))
            .collect();
        for (i, mine) in roots.iter().enumerate().filter(|(i, _)| flags[*i]) {
            for (j, other) in roots.iter().enumerate().filter(|(j, _)| *j != i) {
                let Some(&r) = mine.iter().find(|r| other.contains(r)) else {
                    continue;
                };
                let (e, f) = (parts[i].1, parts[j].1);
                let name = self.name(r);
                let mut d = Diagnostic::new(
                    e.file,
                    e.span.clone(),
                    format!(
                        "the new value of consumed loop parameter {} aliases other loop \
                         parameter {} (both share `{name}`)",
                        i + 1,
                        j + 1
                    ),
                )
                .with_label("given for a loop parameter declared `*`");
                if f.file == e.file && f.span != e.span {
                    d = d.with_secondary(f.span.clone(), "aliases this one");
                }
                self.errors.push(d.with_note(
                    "a unique loop parameter owns its value in the next iteration: give a \
                     `copy` for one of them",
                ));
                return;
            }
        }
    }

    /// Walks the body of anonymous function `e` (its parameters bound);
    /// returns its roots. A result declared unique (`\(xs: []t) : *[]t ->
    /// ...`) may not alias a parameter without `*`, as for a `def`.
    pub(super) fn lambda_body(&mut self, e: &TExpr, lam: &TLambda) -> Roots {
        let parts = self.expr_parts(&lam.body);
        if let Some(flags) = self.facts.lambda_unique_ret.get(&(e.file, e.span.clone())) {
            let mut shared = Vec::new();
            for p in lam.params.iter().filter(|p| !is_unique(p, self.unique)) {
                pat_vars(p, &mut shared);
            }
            shared.retain(|v| self.shared_params.insert(*v));
            self.check_unique_result(flags, &parts);
            for v in &shared {
                self.shared_params.remove(v);
            }
        }
        parts.into_iter().fold(Vec::new(), |a, (r, _)| union(a, r))
    }

    /// For a tuple pattern with components declared unique, which are.
    pub(super) fn unique_fields(&self, p: &TPat) -> Option<Vec<bool>> {
        match p {
            TPat::Tuple(ps, _) => {
                let flags: Vec<bool> = ps.iter().map(|q| is_unique(q, self.unique)).collect();
                flags.iter().any(|u| *u).then_some(flags)
            }
            TPat::Ascribed(q, _) => self.unique_fields(q),
            // `t: ([]i32, *[]i32)`.
            TPat::Var { id, .. } => self.facts.unique_parts.get(id).cloned(),
            _ => None,
        }
    }

    /// The components of a tuple given for a unique parameter may not
    /// alias each other (`g (a[0], a)`): the callee would own one array
    /// twice.
    pub(super) fn unique_parts_apart(&mut self, parts: &[(Roots, &TExpr)]) {
        for (i, (roots, e)) in parts.iter().enumerate() {
            let roots = self.precise(e, roots.clone());
            for (other, f) in &parts[i + 1..] {
                let other = self.precise(f, other.clone());
                if let Some(&r) = roots.iter().find(|r| other.contains(r)) {
                    let name = self.name(r);
                    let mut d = Diagnostic::new(
                        f.file,
                        f.span.clone(),
                        format!(
                            "an argument given for a unique parameter is self-aliased: two of \
                             its components share `{name}`"
                        ),
                    )
                    .with_label("this component");
                    if e.file == f.file {
                        d = d.with_secondary(e.span.clone(), "aliases this one");
                    }
                    self.errors.push(d.with_note(
                        "a unique parameter owns its whole argument: pass a `copy` of one \
                         component",
                    ));
                    return;
                }
            }
        }
    }

    /// The roots of a use of instance `k`: a constant (no parameters)
    /// holding arrays is one root of its own, shared by every use.
    pub(super) fn constant_roots(&mut self, k: usize) -> Roots {
        match self.program.instances.get(k) {
            Some(lam) if lam.params.is_empty() && lam.body.ty.may_share_memory() => {
                let root = constant_root(k);
                let name = lam.name.clone().unwrap_or_else(|| "a constant".into());
                self.names.insert(root, name);
                vec![root]
            }
            _ => Vec::new(),
        }
    }

    /// A function's result may not alias a top-level constant, as in
    /// Futhark: the caller could then consume the constant through it.
    pub(super) fn check_constant_result(&mut self, parts: &[(Roots, &TExpr)]) {
        for (roots, e) in parts {
            let Some((r, k)) = roots.iter().find_map(|&r| Some((r, constant_of(r)?))) else {
                continue;
            };
            let name = self.name(r);
            let d = Diagnostic::new(
                e.file,
                e.span.clone(),
                format!("a function's result aliases the top-level constant `{name}`"),
            )
            .with_label("returned here");
            let d = self.with_definition(d, k, format!("`{name}` is defined here"));
            self.errors.push(d.with_note(format!(
                "a caller could consume the result and so `{name}`: return a `copy` of it"
            )));
            return;
        }
    }
}
