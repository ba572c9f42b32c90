//! The generated program as a tree the shrinker can cut: every expression
//! is text with typed holes, so a new construct needs only a line in the
//! generator, and the shrinker replaces any hole by something of its type.

use crate::types::ScalarType;
use std::fmt::Write;

/// Types of generated values: scalars, arrays, tuples and records (whose
/// fields are named `a`, `b`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    S(ScalarType),
    Arr(Box<Ty>),
    Tup(Vec<Ty>),
    Rec(Vec<(String, Ty)>),
}

impl Ty {
    pub fn arr(elem: Ty) -> Ty {
        Ty::Arr(Box::new(elem))
    }

    /// The scalar type at the bottom of an array type, and the rank.
    pub fn scalar_rank(&self) -> Option<(ScalarType, usize)> {
        match self {
            Ty::S(t) => Some((*t, 0)),
            Ty::Arr(e) => e.scalar_rank().map(|(t, r)| (t, r + 1)),
            _ => None,
        }
    }

    /// Entry points take and give scalars and arrays of scalars.
    pub fn first_order(&self) -> bool {
        self.scalar_rank().is_some()
    }

    pub fn elem(&self) -> Option<&Ty> {
        match self {
            Ty::Arr(e) => Some(e),
            _ => None,
        }
    }

    pub fn core(&self) -> Option<crate::core::ir::Type> {
        use crate::core::ir::Type;
        match self.scalar_rank()? {
            (t, 0) => Some(Type::Scalar(t)),
            (t, r) => Some(Type::Array(t, r)),
        }
    }
}

impl std::fmt::Display for Ty {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Ty::S(t) => write!(f, "{}", t.name()),
            Ty::Arr(e) => write!(f, "[]{e}"),
            Ty::Tup(ts) => {
                let parts: Vec<String> = ts.iter().map(|t| t.to_string()).collect();
                write!(f, "({})", parts.join(", "))
            }
            Ty::Rec(fs) => {
                let parts: Vec<String> = fs.iter().map(|(n, t)| format!("{n}: {t}")).collect();
                write!(f, "{{{}}}", parts.join(", "))
            }
        }
    }
}

/// A piece of an expression's text.
#[derive(Clone, Debug)]
pub enum Part {
    Text(String),
    Hole(Expr),
}

/// An expression: its type, whether its value may legitimately differ
/// between backends (it depends on a float reduction, scan or histogram,
/// whose order a parallel run may change, or on a libm function), and its
/// text with holes.
#[derive(Clone, Debug)]
pub struct Expr {
    pub ty: Ty,
    pub inexact: bool,
    pub parts: Vec<Part>,
}

impl Expr {
    pub fn leaf(ty: Ty, text: impl Into<String>) -> Expr {
        Expr {
            ty,
            inexact: false,
            parts: vec![Part::Text(text.into())],
        }
    }

    /// An empty node to fill with `t` and `e`.
    pub fn node(ty: Ty) -> Expr {
        Expr {
            ty,
            inexact: false,
            parts: Vec::new(),
        }
    }

    /// The parenthesised call `(f a b ...)` of a function named in full
    /// (`f32.max`).
    pub fn call(ty: Ty, function: &str, args: impl IntoIterator<Item = Expr>) -> Expr {
        let mut call = Expr::node(ty).t(&format!("({function}"));
        for arg in args {
            call = call.t(" ").e(arg);
        }
        call.t(")")
    }

    /// `(if c then a else b)`, of type `ty`.
    pub fn if_then_else(ty: Ty, c: Expr, a: Expr, b: Expr) -> Expr {
        Expr::node(ty)
            .t("(if ")
            .e(c)
            .t(" then ")
            .e(a)
            .t(" else ")
            .e(b)
            .t(")")
    }

    pub fn t(mut self, text: &str) -> Expr {
        match self.parts.last_mut() {
            Some(Part::Text(s)) => s.push_str(text),
            _ => self.parts.push(Part::Text(text.to_string())),
        }
        self
    }

    pub fn e(mut self, child: Expr) -> Expr {
        self.inexact |= child.inexact;
        self.parts.push(Part::Hole(child));
        self
    }

    pub fn inexact(mut self, yes: bool) -> Expr {
        self.inexact |= yes;
        self
    }

    pub fn children(&self) -> impl Iterator<Item = &Expr> {
        self.parts.iter().filter_map(|p| match p {
            Part::Hole(e) => Some(e),
            Part::Text(_) => None,
        })
    }

    pub fn print(&self, out: &mut String) {
        for p in &self.parts {
            match p {
                Part::Text(s) => out.push_str(s),
                Part::Hole(e) => e.print(out),
            }
        }
    }

    pub fn text(&self) -> String {
        let mut s = String::new();
        self.print(&mut s);
        s
    }

    /// Paths (child indices) of every node, parents before children.
    pub fn paths(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new()];
        for (i, c) in self.children().enumerate() {
            for mut p in c.paths() {
                p.insert(0, i);
                out.push(p);
            }
        }
        out
    }

    pub fn at(&self, path: &[usize]) -> &Expr {
        match path.split_first() {
            None => self,
            Some((i, rest)) => self.children().nth(*i).expect("valid path").at(rest),
        }
    }

    /// A copy with the node at `path` replaced.
    pub fn replaced(&self, path: &[usize], new: Expr) -> Expr {
        let Some((i, rest)) = path.split_first() else {
            return new;
        };
        let mut out = self.clone();
        let mut k = 0;
        for p in &mut out.parts {
            if let Part::Hole(e) = p {
                if k == *i {
                    *e = e.replaced(rest, new);
                    break;
                }
                k += 1;
            }
        }
        out
    }
}

/// `let PATTERN = EXPR`; `vars` are the names the pattern binds, with their
/// types and whether they are inexact.
#[derive(Clone, Debug)]
pub struct Stm {
    pub pattern: String,
    pub vars: Vec<Var>,
    pub exp: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub ty: Ty,
    pub inexact: bool,
    /// Arrays: which length class the outer dimension belongs to; arrays of
    /// one class have the same length on every input.
    pub size: u32,
}

/// A generated program: definitions it uses, one entry point `main` whose
/// body is a chain of `let`s, and the inputs to run it on (one text line
/// per argument each).
#[derive(Clone, Debug)]
pub struct Prog {
    pub defs: Vec<String>,
    pub params: Vec<Var>,
    pub stms: Vec<Stm>,
    pub results: Vec<Var>,
    pub inputs: Vec<Vec<String>>,
}

impl Prog {
    pub fn source(&self) -> String {
        // A definition is kept when the body or a later kept definition
        // names it (definitions use only earlier ones).
        let body: Vec<String> = self.stms.iter().map(|st| st.exp.text()).collect();
        let mut kept = vec![false; self.defs.len()];
        for i in (0..self.defs.len()).rev() {
            let name = def_name(&self.defs[i]);
            kept[i] = body.iter().any(|b| mentions(b, name))
                || (i + 1..self.defs.len()).any(|j| kept[j] && mentions(&self.defs[j], name));
        }
        let mut s = String::new();
        for (d, _) in self.defs.iter().zip(&kept).filter(|(_, k)| **k) {
            s.push_str(d);
            s.push('\n');
        }
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| {
                // A parameter a statement rebinds is consumed by it
                // (`consume.rs`).
                let rebound = self
                    .stms
                    .iter()
                    .any(|st| st.vars.iter().any(|v| v.name == p.name));
                let star = if rebound { "*" } else { "" };
                format!("({}: {star}{})", p.name, p.ty)
            })
            .collect();
        let rets: Vec<String> = self.results.iter().map(|r| r.ty.to_string()).collect();
        let _ = writeln!(
            s,
            "entry main {} : ({}) =",
            params.join(" "),
            rets.join(", ")
        );
        for st in &self.stms {
            let _ = writeln!(s, "  let {} = {}", st.pattern, st.exp.text());
        }
        let names: Vec<&str> = self.results.iter().map(|r| r.name.as_str()).collect();
        let _ = writeln!(s, "  in ({})", names.join(", "));
        s
    }

    /// Variables in scope before statement `i`.
    pub fn scope(&self, i: usize) -> Vec<Var> {
        let mut out = self.params.clone();
        for st in &self.stms[..i] {
            out.extend(st.vars.iter().cloned());
        }
        out
    }
}

/// The name a definition binds: `def f`, `type t`, `module m`, `module
/// type mt`.
fn def_name(def: &str) -> &str {
    let mut words = def.split_whitespace().skip(1);
    match words.next() {
        Some("type") => words.next().unwrap_or(""),
        Some(w) => w,
        None => "",
    }
}

/// Whether `text` uses the identifier `name` (not as part of a longer one).
pub fn mentions(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '\'';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(|c| ident(c) || c == '.') && !after.is_some_and(ident)
    })
}
