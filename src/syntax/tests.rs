//! Parser tests. Expressions are compared through a compact S-expression
//! rendering so that precedence and associativity are visible at a glance.

use super::ast::*;
use super::lexer::{lex, Token};
use super::{parse_program, Diagnostic, SourceMap};
use crate::types::ScalarType;

fn parse(src: &str) -> Result<Program, Vec<Diagnostic>> {
    let mut sources = SourceMap::default();
    let file = sources.add("test.arr".into(), src.into());
    parse_program(&sources, file)
}

fn parse_ok(src: &str) -> Program {
    match parse(src) {
        Ok(p) => p,
        Err(ds) => panic!("parse of {src:?} failed: {ds:#?}"),
    }
}

fn parse_err(src: &str) -> Diagnostic {
    match parse(src) {
        Ok(p) => panic!("parse of {src:?} should fail, got {p:#?}"),
        Err(mut ds) => {
            assert!(!ds.is_empty());
            ds.remove(0)
        }
    }
}

/// The body of `def x = <src>`.
fn parse_expr(src: &str) -> Expr {
    let program = parse_ok(&format!("def x = {src}"));
    match program.decls.into_iter().next() {
        Some(Decl::Def(d)) => d.body,
        other => panic!("expected a def, got {other:?}"),
    }
}

fn sexp_expr(src: &str) -> String {
    sexp(&parse_expr(src))
}

fn op_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Mod => "%",
        BinOp::Quot => "//",
        BinOp::Rem => "%%",
        BinOp::Pow => "**",
        BinOp::Eq => "==",
        BinOp::Neq => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::LogAnd => "&&",
        BinOp::LogOr => "||",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::UShr => ">>>",
        BinOp::Concat => "++",
    }
}

fn list(items: impl IntoIterator<Item = String>) -> String {
    items.into_iter().collect::<Vec<_>>().join(" ")
}

fn sexp(e: &Expr) -> String {
    match &e.kind {
        ExprKind::IntLit(v, t) => format!("{v}{}", t.map_or("", |t| t.name())),
        ExprKind::FloatLit(v, t) => format!("{v:?}{}", t.map_or("", |t| t.name())),
        ExprKind::BoolLit(b) => b.to_string(),
        ExprKind::Var { qualifier, name } => match qualifier {
            Some(q) => format!("{q}.{}", name.name),
            None => name.name.clone(),
        },
        ExprKind::Tuple(es) => format!("(tuple {})", list(es.iter().map(sexp))),
        ExprKind::Record(fs) => format!(
            "(record {})",
            list(fs.iter().map(|(n, e)| format!("{}={}", n.name, sexp(e))))
        ),
        ExprKind::ArrayLit(es) => format!("[{}]", list(es.iter().map(sexp))),
        ExprKind::Apply(f, args) => format!("({} {})", sexp(f), list(args.iter().map(sexp))),
        ExprKind::BinOp(op, a, b) => format!("({} {} {})", op_name(*op), sexp(a), sexp(b)),
        ExprKind::UnOp(UnOp::Neg, a) => format!("(neg {})", sexp(a)),
        ExprKind::UnOp(UnOp::Not, a) => format!("(not {})", sexp(a)),
        ExprKind::OpSection(op) => format!("(section {})", op_name(*op)),
        ExprKind::LeftSection(op, a) => format!("(section {} {})", sexp(a), op_name(*op)),
        ExprKind::RightSection(op, b) => format!("(section {} {})", op_name(*op), sexp(b)),
        ExprKind::Lambda(ps, ret, body) => format!(
            "(fn [{}]{} {})",
            list(ps.iter().map(pat)),
            ret.as_ref()
                .map_or(String::new(), |t| format!(" : {}", ty(t))),
            sexp(body)
        ),
        ExprKind::Let(p, rhs, body) => {
            format!("(let {} {} {})", pat(p), sexp(rhs), sexp(body))
        }
        ExprKind::LetFun {
            name,
            type_params,
            params,
            ret,
            rhs,
            body,
        } => format!(
            "(letfun {} [{}] [{}]{} {} {})",
            name.name,
            list(type_params.iter().map(type_param)),
            list(params.iter().map(pat)),
            ret.as_ref()
                .map_or(String::new(), |t| format!(" : {}", ty(t))),
            sexp(rhs),
            sexp(body)
        ),
        ExprKind::If(c, t, f) => format!("(if {} {} {})", sexp(c), sexp(t), sexp(f)),
        ExprKind::Loop {
            pat: p,
            init,
            form,
            body,
        } => {
            let form = match form {
                LoopForm::For(i, n) => format!("for {} < {}", i.name, sexp(n)),
                LoopForm::ForIn(p, xs) => format!("for {} in {}", pat(p), sexp(xs)),
                LoopForm::While(c) => format!("while {}", sexp(c)),
            };
            let init = init.as_ref().map_or("_".to_string(), |e| sexp(e));
            format!("(loop {} {} {} {})", pat(p), init, form, sexp(body))
        }
        ExprKind::Index(a, idx) => format!("(index {} {})", sexp(a), indices(idx)),
        ExprKind::Update(a, idx, v, _) => {
            format!("(update {} {} {})", sexp(a), indices(idx), sexp(v))
        }
        ExprKind::Field(a, Field::Name(n)) => format!("(field {} {n})", sexp(a)),
        ExprKind::Field(a, Field::Index(i)) => format!("(field {} {i})", sexp(a)),
        ExprKind::Ascribe(e, t) => format!("(: {} {})", sexp(e), ty(t)),
        ExprKind::Assert(c, e) => format!("(assert {} {})", sexp(c), sexp(e)),
        ExprKind::RecordUpdate(r, path, v) => {
            let path: Vec<String> = path
                .iter()
                .map(|f| match f {
                    Field::Name(n) => n.clone(),
                    Field::Index(i) => i.to_string(),
                })
                .collect();
            format!("(record-update {} {} {})", sexp(r), path.join("."), sexp(v))
        }
        ExprKind::Coerce(e, t) => format!("(:> {} {})", sexp(e), ty(t)),
        ExprKind::Constructor(c, args) if args.is_empty() => format!("#{}", c.name),
        ExprKind::Constructor(c, args) => {
            format!("(#{} {})", c.name, list(args.iter().map(sexp)))
        }
        ExprKind::Match(e, cases) => format!(
            "(match {} {})",
            sexp(e),
            list(
                cases
                    .iter()
                    .map(|(p, b)| format!("(case {} {})", pat(p), sexp(b)))
            )
        ),
        ExprKind::Range {
            start,
            second,
            end,
            kind,
        } => {
            let k = match kind {
                RangeKind::Inclusive => "...",
                RangeKind::UpTo => "..<",
                RangeKind::DownTo => "..>",
            };
            match second {
                Some(s) => format!("(range {} {} {k} {})", sexp(start), sexp(s), sexp(end)),
                None => format!("(range {} {k} {})", sexp(start), sexp(end)),
            }
        }
        ExprKind::Attr(a, e) => format!("(#[{}] {})", a.name, sexp(e)),
        ExprKind::OpenIn(m, e) => format!("(open {} {})", m.text(), sexp(e)),
        ExprKind::LetSizes(ns, p, rhs, body) => format!(
            "(let [{}] {} {} {})",
            list(ns.iter().map(|n| n.name.clone())),
            pat(p),
            sexp(rhs),
            sexp(body)
        ),
    }
}

fn indices(idx: &[IndexArg]) -> String {
    let opt = |e: &Option<Expr>| e.as_ref().map_or(String::new(), sexp);
    let parts = idx.iter().map(|i| match i {
        IndexArg::Index(e) => sexp(e),
        IndexArg::Slice(a, b, None) => format!("{}:{}", opt(a), opt(b)),
        IndexArg::Slice(a, b, Some(s)) => format!("{}:{}:{}", opt(a), opt(b), sexp(s)),
    });
    format!("[{}]", parts.collect::<Vec<_>>().join(", "))
}

fn pat(p: &Pattern) -> String {
    match p {
        Pattern::Id(i) => i.name.clone(),
        Pattern::Wildcard(_) => "_".into(),
        Pattern::Tuple(ps, _) => format!("(tuple {})", list(ps.iter().map(pat))),
        Pattern::Record(fs, _) => format!(
            "(record {})",
            list(fs.iter().map(|(n, p)| format!("{}={}", n.name, pat(p))))
        ),
        Pattern::Ascribed(p, t, _) => format!("(: {} {})", pat(p), ty(t)),
        Pattern::Constructor(c, ps, _) if ps.is_empty() => format!("#{}", c.name),
        Pattern::Constructor(c, ps, _) => format!("(#{} {})", c.name, list(ps.iter().map(pat))),
        Pattern::Literal(e) => sexp(e),
    }
}

fn type_param(tp: &TypeParam) -> String {
    match tp {
        TypeParam::Size(n) => format!("[{}]", n.name),
        TypeParam::Type(n) => format!("'{}", n.name),
    }
}

fn ty(t: &TypeExpr) -> String {
    match t {
        TypeExpr::Scalar(s, _) => s.name().to_string(),
        TypeExpr::Named(n) => format!("@{}", n.text()),
        TypeExpr::Var(n) => format!("'{}", n.name),
        TypeExpr::Array(s, elem, _) => {
            let size = match s {
                SizeExpr::Named(n) => n.name.clone(),
                SizeExpr::Const(c, _) => c.to_string(),
                SizeExpr::Any(_) => String::new(),
                SizeExpr::Expr(e) => sexp(e),
            };
            format!("[{size}]{}", ty(elem))
        }
        TypeExpr::Tuple(ts, _) => format!("({})", ts.iter().map(ty).collect::<Vec<_>>().join(", ")),
        TypeExpr::Record(fs, _) => format!(
            "{{{}}}",
            fs.iter()
                .map(|(n, t)| format!("{}: {}", n.name, ty(t)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TypeExpr::Func(_, a, b, _) => format!("({} -> {})", ty(a), ty(b)),
        TypeExpr::Apply(n, args, _) => {
            let args = args.iter().map(|a| match a {
                TypeArg::Type(t) => ty(t),
                TypeArg::Size(SizeExpr::Named(n)) => format!("[{}]", n.name),
                TypeArg::Size(SizeExpr::Const(c, _)) => format!("[{c}]"),
                TypeArg::Size(SizeExpr::Any(_)) => "[]".into(),
                TypeArg::Size(SizeExpr::Expr(e)) => format!("[{}]", sexp(e)),
            });
            format!("(@{} {})", n.text(), list(args))
        }
        TypeExpr::Unique(t, _) => format!("*{}", ty(t)),
        TypeExpr::Sum(alts, _) => alts
            .iter()
            .map(|(c, ts)| {
                let mut s = format!("#{}", c.name);
                for t in ts {
                    s += &format!(" {}", ty(t));
                }
                s
            })
            .collect::<Vec<_>>()
            .join(" | "),
        TypeExpr::Exists(ns, t, _) => format!(
            "?{}.{}",
            ns.iter()
                .map(|n| format!("[{}]", n.name))
                .collect::<String>(),
            ty(t)
        ),
    }
}

// ---------------------------------------------------------------- precedence

#[test]
fn arithmetic_precedence() {
    assert_eq!(sexp_expr("a + b * c"), "(+ a (* b c))");
    assert_eq!(sexp_expr("a * b + c"), "(+ (* a b) c)");
    assert_eq!(sexp_expr("1 - 2 - 3"), "(- (- 1 2) 3)");
    assert_eq!(
        sexp_expr("a / b // c % d %% e"),
        "(%% (% (// (/ a b) c) d) e)"
    );
    assert_eq!(sexp_expr("a ++ b ++ c"), "(++ (++ a b) c)");
    assert_eq!(sexp_expr("a + b ++ c"), "(++ (+ a b) c)");
}

#[test]
fn power_and_prefix() {
    assert_eq!(sexp_expr("-a ** 2"), "(neg (** a 2))");
    assert_eq!(sexp_expr("a ** b ** c"), "(** a (** b c))");
    assert_eq!(sexp_expr("a ** -b"), "(** a (neg b))");
    assert_eq!(sexp_expr("-a * b"), "(* (neg a) b)");
    assert_eq!(sexp_expr("- - a"), "(neg (neg a))");
    assert_eq!(sexp_expr("!a && b"), "(&& (not a) b)");
    assert_eq!(sexp_expr("-f x"), "(neg (f x))");
    assert_eq!(sexp_expr("f -1"), "(- f 1)");
    assert_eq!(sexp_expr("f (-1)"), "(f (neg 1))");
    assert_eq!(sexp_expr("2 * f x ** 2"), "(* 2 (** (f x) 2))");
}

#[test]
fn logic_and_comparison_precedence() {
    assert_eq!(sexp_expr("a == b && c || d"), "(|| (&& (== a b) c) d)");
    assert_eq!(sexp_expr("a || b && c"), "(|| a (&& b c))");
    assert_eq!(sexp_expr("a < b + 1"), "(< a (+ b 1))");
    assert_eq!(sexp_expr("a != b == c"), "(== (!= a b) c)");
    assert_eq!(sexp_expr("a <= b || a >= c"), "(|| (<= a b) (>= a c))");
}

#[test]
fn bitwise_and_shift_precedence() {
    assert_eq!(sexp_expr("a & b | c ^ d"), "(| (& a b) (^ c d))");
    assert_eq!(sexp_expr("a | b ^ c & d"), "(| a (^ b (& c d)))");
    assert_eq!(sexp_expr("a << 1 + 2"), "(<< a (+ 1 2))");
    assert_eq!(sexp_expr("a >> b >>> c"), "(>>> (>> a b) c)");
    assert_eq!(sexp_expr("a & 1 == 0"), "(== (& a 1) 0)");
    assert_eq!(sexp_expr("x << 2 & m"), "(& (<< x 2) m)");
}

#[test]
fn pipes() {
    assert_eq!(sexp_expr("x |> f |> g"), "(g (f x))");
    assert_eq!(sexp_expr("xs |> map f"), "(map f xs)");
    assert_eq!(sexp_expr("f <| g <| x"), "(f (g x))");
    assert_eq!(sexp_expr("x + 1 |> f"), "(f (+ x 1))");
    assert_eq!(sexp_expr("a || b |> f"), "(f (|| a b))");
    assert_eq!(
        sexp_expr("map f <| \\x -> x + 1"),
        "(map f (fn [x] (+ x 1)))"
    );
    assert_eq!(
        sexp_expr("xs |> map (\\x -> x * 2) |> reduce (+) 0"),
        "(reduce (section +) 0 (map (fn [x] (* x 2)) xs))"
    );
}

// ---------------------------------------------------------------- application, indexing, fields

#[test]
fn indexing_versus_application() {
    assert_eq!(sexp_expr("a[i]"), "(index a [i])");
    assert_eq!(sexp_expr("f a [1]"), "(f a [1])");
    assert_eq!(sexp_expr("f a[1]"), "(f (index a [1]))");
    assert_eq!(sexp_expr("f [1, 2] [3]"), "(f [1 2] [3])");
    assert_eq!(sexp_expr("a[i][j]"), "(index (index a [i]) [j])");
    assert_eq!(sexp_expr("a[i, j]"), "(index a [i, j])");
    assert_eq!(sexp_expr("(f x)[0]"), "(index (f x) [0])");
    assert_eq!(sexp_expr("[1, 2][0]"), "(index [1 2] [0])");
    assert_eq!(sexp_expr("a[i + 1] * 2"), "(* (index a [(+ i 1)]) 2)");
    assert_eq!(sexp_expr("a[-1]"), "(index a [(neg 1)])");
}

#[test]
fn slices() {
    assert_eq!(sexp_expr("a[i:j]"), "(index a [i:j])");
    assert_eq!(sexp_expr("a[i:j:s]"), "(index a [i:j:s])");
    assert_eq!(sexp_expr("a[:, j]"), "(index a [:, j])");
    assert_eq!(sexp_expr("a[i, :]"), "(index a [i, :])");
    assert_eq!(sexp_expr("a[i:]"), "(index a [i:])");
    assert_eq!(sexp_expr("a[:j]"), "(index a [:j])");
    assert_eq!(sexp_expr("a[j:i:-1]"), "(index a [j:i:(neg 1)])");
    assert_eq!(sexp_expr("m[1:3, 1:3]"), "(index m [1:3, 1:3])");
    assert_eq!(sexp_expr("a[::2]"), "(index a [::2])");
}

#[test]
fn field_access() {
    assert_eq!(sexp_expr("t.0.1"), "(field (field t 0) 1)");
    assert_eq!(sexp_expr("r.x"), "(field r x)");
    assert_eq!(sexp_expr("r.x.y"), "(field (field r x) y)");
    assert_eq!(sexp_expr("(a, b).1"), "(field (tuple a b) 1)");
    assert_eq!(sexp_expr("xs[0].1"), "(field (index xs [0]) 1)");
    assert_eq!(sexp_expr("r.xs[2]"), "(index (field r xs) [2])");
    assert_eq!(sexp_expr("f p.x"), "(f (field p x))");
    assert_eq!(sexp_expr("t.10"), "(field t 10)");
}

#[test]
fn qualified_names() {
    assert_eq!(sexp_expr("f32.sqrt x"), "(f32.sqrt x)");
    assert_eq!(sexp_expr("i64.i32 3"), "(i64.i32 3)");
    assert_eq!(sexp_expr("f64.pi * 2"), "(* f64.pi 2)");
    assert_eq!(sexp_expr("bool.i32 1"), "(bool.i32 1)");
    // Not a scalar module: field access.
    assert_eq!(sexp_expr("vec.x"), "(field vec x)");
    let e = parse_expr("f32.sqrt");
    match e.kind {
        ExprKind::Var { qualifier, name } => {
            assert_eq!(qualifier.as_deref(), Some("f32"));
            assert_eq!(name.name, "sqrt");
            assert_eq!(name.span, 12..16);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn sections() {
    assert_eq!(sexp_expr("(+)"), "(section +)");
    assert_eq!(sexp_expr("(-)"), "(section -)");
    assert_eq!(sexp_expr("(**)"), "(section **)");
    assert_eq!(sexp_expr("(==)"), "(section ==)");
    assert_eq!(sexp_expr("(+ 1)"), "(section + 1)");
    assert_eq!(sexp_expr("(1 +)"), "(section 1 +)");
    assert_eq!(sexp_expr("(x -)"), "(section x -)");
    assert_eq!(sexp_expr("(* 2)"), "(section * 2)");
    assert_eq!(sexp_expr("(a * b +)"), "(section (* a b) +)");
    assert_eq!(sexp_expr("(< 3)"), "(section < 3)");
    assert_eq!(sexp_expr("(** 2)"), "(section ** 2)");
    assert_eq!(sexp_expr("(2 **)"), "(section 2 **)");
    assert_eq!(sexp_expr("(&& b)"), "(section && b)");
    // Negation, not sections.
    assert_eq!(sexp_expr("(- x)"), "(neg x)");
    assert_eq!(sexp_expr("(-x)"), "(neg x)");
    assert_eq!(sexp_expr("map (+ 1) xs"), "(map (section + 1) xs)");
    assert_eq!(sexp_expr("map (.0) ps"), "(map (fn [#x] (field #x 0)) ps)");
    assert_eq!(sexp_expr("(.x.1)"), "(fn [#x] (field (field #x x) 1))");
}

// ---------------------------------------------------------------- expression forms

#[test]
fn literals() {
    assert_eq!(sexp_expr("42"), "42");
    assert_eq!(sexp_expr("0x2A"), "42");
    assert_eq!(sexp_expr("0b101010"), "42");
    assert_eq!(sexp_expr("1_000_000"), "1000000");
    assert_eq!(sexp_expr("42i64"), "42i64");
    assert_eq!(sexp_expr("0xffu8"), "255u8");
    assert_eq!(sexp_expr("255u8"), "255u8");
    assert_eq!(sexp_expr("1.5"), "1.5");
    assert_eq!(sexp_expr("1e-3"), "0.001");
    assert_eq!(sexp_expr("2.5e10"), "25000000000.0");
    assert_eq!(sexp_expr("1E+2"), "100.0");
    assert_eq!(sexp_expr("2.5f32"), "2.5f32");
    assert_eq!(sexp_expr("3f64"), "3.0f64");
    assert_eq!(sexp_expr("1_0.2_5"), "10.25");
    assert_eq!(sexp_expr("true"), "true");
    assert_eq!(sexp_expr("false"), "false");
    assert_eq!(
        sexp_expr("340282366920938463463374607431768211455"),
        u128::MAX.to_string()
    );
    // An f32 literal is parsed at f32 precision.
    match parse_expr("0.1f32").kind {
        ExprKind::FloatLit(v, Some(ScalarType::F32)) => assert_eq!(v, f64::from(0.1f32)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn tuples_records_arrays() {
    assert_eq!(sexp_expr("()"), "(tuple )");
    assert_eq!(sexp_expr("(a, b, c)"), "(tuple a b c)");
    assert_eq!(sexp_expr("(a)"), "a");
    assert_eq!(sexp_expr("{x = 1, y = 2}"), "(record x=1 y=2)");
    assert_eq!(sexp_expr("{x, y = 2}"), "(record x=x y=2)");
    assert_eq!(sexp_expr("[1, 2, 3]"), "[1 2 3]");
    assert_eq!(sexp_expr("[[1, 2], [3, 4]]"), "[[1 2] [3 4]]");
    assert_eq!(sexp_expr("[]"), "[]");
}

#[test]
fn lambdas() {
    assert_eq!(sexp_expr("\\x y -> x + y"), "(fn [x y] (+ x y))");
    assert_eq!(sexp_expr("\\(a, b) -> a"), "(fn [(tuple a b)] a)");
    assert_eq!(sexp_expr("\\(x: f32) -> x"), "(fn [(: x f32)] x)");
    assert_eq!(sexp_expr("\\x : i32 -> x"), "(fn [x] : i32 x)");
    assert_eq!(sexp_expr("\\_ -> 0"), "(fn [_] 0)");
    assert_eq!(sexp_expr("\\{x, y} -> x"), "(fn [(record x=x y=y)] x)");
    assert_eq!(
        sexp_expr("map (\\x -> x + 1) xs"),
        "(map (fn [x] (+ x 1)) xs)"
    );
}

#[test]
fn lets() {
    assert_eq!(sexp_expr("let x = 1 in x"), "(let x 1 x)");
    assert_eq!(
        sexp_expr("let a = 1 let b = 2 in a + b"),
        "(let a 1 (let b 2 (+ a b)))"
    );
    assert_eq!(sexp_expr("let (a, b) = p in a"), "(let (tuple a b) p a)");
    assert_eq!(
        sexp_expr("let {lo = l, hi = h} = r in l"),
        "(let (record lo=l hi=h) r l)"
    );
    assert_eq!(
        sexp_expr("let {lo, hi} = r in lo"),
        "(let (record lo=lo hi=hi) r lo)"
    );
    assert_eq!(sexp_expr("let x: i32 = 1 in x"), "(let (: x i32) 1 x)");
    assert_eq!(sexp_expr("let _ = 1 in 2"), "(let _ 1 2)");
    assert_eq!(
        sexp_expr("let f x y = x + y in f 1 2"),
        "(letfun f [] [x y] (+ x y) (f 1 2))"
    );
    assert_eq!(
        sexp_expr("let f [n] 't (xs: [n]t) : t = xs[0] in f"),
        "(letfun f [[n] 't] [(: xs [n]'t)] : 't (index xs [0]) f)"
    );
    assert_eq!(sexp_expr("let a[i] = 5 in a"), "(let a (update a [i] 5) a)");
    assert_eq!(
        sexp_expr("let x = if c then 1 else 2 let y = x in y"),
        "(let x (if c 1 2) (let y x y))"
    );
}

#[test]
fn open_forms_as_last_operand() {
    assert_eq!(sexp_expr("1 + if c then 2 else 3"), "(+ 1 (if c 2 3))");
    assert_eq!(
        sexp_expr("a * b + if c then 2 else 3 + 4"),
        "(+ (* a b) (if c 2 (+ 3 4)))"
    );
    assert_eq!(sexp_expr("-\\x -> x"), "(neg (fn [x] x))");
    assert_eq!(sexp_expr("a || let b = c in b"), "(|| a (let b c b))");
    assert_eq!(
        sexp_expr("2 ** loop x = 1 while x < 9 do x * 2"),
        "(** 2 (loop x 1 while (< x 9) (* x 2)))"
    );
    assert_eq!(
        sexp_expr("f <| g <| \\x -> x + 1"),
        "(f (g (fn [x] (+ x 1))))"
    );
    assert_eq!(
        sexp_expr("f <| 1 + if a then b else c"),
        "(f (+ 1 (if a b c)))"
    );
}

#[test]
fn conditionals_and_loops() {
    assert_eq!(sexp_expr("if a then b else c"), "(if a b c)");
    assert_eq!(
        sexp_expr("if a then b else if c then d else e + 1"),
        "(if a b (if c d (+ e 1)))"
    );
    assert_eq!(
        sexp_expr("loop acc = 0 for i < n do acc + i"),
        "(loop acc 0 for i < n (+ acc i))"
    );
    assert_eq!(
        sexp_expr("loop acc = 0 for x in xs do acc + x"),
        "(loop acc 0 for x in xs (+ acc x))"
    );
    assert_eq!(
        sexp_expr("loop x = 1 while x < 100 do x * 2"),
        "(loop x 1 while (< x 100) (* x 2))"
    );
    assert_eq!(
        sexp_expr("loop acc for i < n do acc"),
        "(loop acc _ for i < n acc)"
    );
    assert_eq!(
        sexp_expr("loop (a, b) = (0, 1) for i < 10 do (b, a + b)"),
        "(loop (tuple a b) (tuple 0 1) for i < 10 (tuple b (+ a b)))"
    );
    assert_eq!(
        sexp_expr("loop (s: f32) = 0 for (x, y) in zip xs ys do s + x * y"),
        "(loop (: s f32) 0 for (tuple x y) in (zip xs ys) (+ s (* x y)))"
    );
}

#[test]
fn updates_ascription_assert() {
    assert_eq!(sexp_expr("a with [i] = v"), "(update a [i] v)");
    assert_eq!(
        sexp_expr("a with [i, j] = v + 1"),
        "(update a [i, j] (+ v 1))"
    );
    // A slice update is a `scatter` over the slice's positions.
    assert_eq!(
        sexp_expr("a with [i:j] = v"),
        "(let #a a (let #v v (scatter #a (index (iota (length #a)) [i:j]) #v)))"
    );
    // Paths chain indices and fields, innermost first.
    assert_eq!(
        sexp_expr("a with [0].f = v"),
        "(let #p0 a (update #p0 [0] (record-update (index #p0 [0]) f v)))"
    );
    // A module's operator written infix applies it.
    assert_eq!(sexp_expr("x vec3.+ y * z"), "(vec3.+ x (* y z))");
    assert_eq!(sexp_expr("(.a[0])"), "(fn [#x] (index (field #x a) [0]))");
    assert_eq!(
        sexp_expr("a with [0] = 1 with [1] = 2"),
        "(update (update a [0] 1) [1] 2)"
    );
    assert_eq!(
        sexp_expr("a with [0] = if c then 1 else 2"),
        "(update a [0] (if c 1 2))"
    );
    assert_eq!(
        sexp_expr("let b = a with [0] = 1 in b"),
        "(let b (update a [0] 1) b)"
    );
    assert_eq!(sexp_expr("x : i64"), "(: x i64)");
    assert_eq!(sexp_expr("(1 + 2 : f32)"), "(: (+ 1 2) f32)");
    assert_eq!(sexp_expr("assert (n > 0) (f n)"), "(assert (> n 0) (f n))");
    assert_eq!(sexp_expr("assert c x + 1"), "(+ (assert c x) 1)");
}

#[test]
fn types() {
    let program = parse_ok(
        "def f 't [n] (a: [n]t) (b: [3]f32) (c: []i64) (d: [n][m]f32) (e: (i32, bool)) \
         (g: ()) (h: {x: f32, y: f32}) (k: t -> t -> t) (v: vec3) (w: pair f32 i32) \
         (z: [n](i32, f32)) (q: 'u) : (f32, [n]t) = 0",
    );
    let Some(Decl::Def(d)) = program.decls.first() else {
        panic!("no def");
    };
    let params: Vec<String> = d.params.iter().map(pat).collect();
    assert_eq!(
        params,
        [
            "(: a [n]'t)",
            "(: b [3]f32)",
            "(: c []i64)",
            "(: d [n][m]f32)",
            "(: e (i32, bool))",
            "(: g ())",
            "(: h {x: f32, y: f32})",
            "(: k ('t -> ('t -> 't)))",
            "(: v @vec3)",
            "(: w (@pair f32 i32))",
            "(: z [n](i32, f32))",
            "(: q 'u)",
        ]
    );
    assert_eq!(d.ret.as_ref().map(ty).as_deref(), Some("(f32, [n]'t)"));
    assert_eq!(
        d.type_params.iter().map(type_param).collect::<Vec<_>>(),
        ["'t", "[n]"]
    );
}

// ---------------------------------------------------------------- declarations

#[test]
fn type_parameters_are_scoped() {
    let program = parse_ok(
        "type t = i32\n\
         def f 't (x: t) (y: u) : t = let g 'u (z: u) : (t, u) = (x, z) in (x : t)\n\
         def h (x: t) = x\n",
    );
    let Some(Decl::Def(f)) = program.decls.get(1) else {
        panic!("no def f");
    };
    assert_eq!(pat(&f.params[0]), "(: x 't)");
    // `u` is not a parameter of `f`.
    assert_eq!(pat(&f.params[1]), "(: y @u)");
    assert_eq!(
        sexp(&f.body),
        "(letfun g ['u] [(: z 'u)] : ('t, 'u) (tuple x z) (: x 't))"
    );
    let Some(Decl::Def(h)) = program.decls.get(2) else {
        panic!("no def h");
    };
    assert_eq!(pat(&h.params[0]), "(: x @t)");
}

#[test]
fn declarations() {
    let program = parse_ok(
        "import \"lib/vec3\"\n\
         type vec3 = (f32, f32, f32)\n\
         type pair 'a 'b = (a, b)\n\
         def f [n] 't (x: [n]t) : t = x[0]\n\
         def g x y = x + y\n\
         def h[n] (xs: [n]i32) = xs\n\
         entry main [n] (xs: [n]f32) (ys: [n]f32) : f32 = reduce (+) 0 (map2 (*) xs ys)\n\
         def answer : i32 = 42\n",
    );
    assert_eq!(program.decls.len(), 8);
    match &program.decls[0] {
        Decl::Import(path, span) => {
            assert_eq!(path, "lib/vec3");
            assert_eq!(*span, 0..17);
        }
        other => panic!("{other:?}"),
    }
    match &program.decls[2] {
        Decl::Type(t) => {
            assert_eq!(t.name.name, "pair");
            assert_eq!(t.params.len(), 2);
            assert_eq!(ty(&t.ty), "('a, 'b)");
        }
        other => panic!("{other:?}"),
    }
    match &program.decls[3] {
        Decl::Def(d) => {
            assert!(!d.is_entry);
            assert_eq!(d.name.name, "f");
            assert_eq!(
                d.type_params.iter().map(type_param).collect::<Vec<_>>(),
                ["[n]", "'t"]
            );
            assert_eq!(sexp(&d.body), "(index x [0])");
        }
        other => panic!("{other:?}"),
    }
    match &program.decls[5] {
        Decl::Def(d) => assert_eq!(d.type_params.len(), 1),
        other => panic!("{other:?}"),
    }
    match &program.decls[6] {
        Decl::Def(d) => {
            assert!(d.is_entry);
            assert_eq!(d.params.len(), 2);
            assert_eq!(
                sexp(&d.body),
                "(reduce (section +) 0 (map2 (section *) xs ys))"
            );
        }
        other => panic!("{other:?}"),
    }
    match &program.decls[7] {
        Decl::Def(d) => {
            assert!(d.params.is_empty());
            assert_eq!(d.ret.as_ref().map(ty).as_deref(), Some("i32"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn comments_are_skipped() {
    let program = parse_ok("-- a comment\ndef x = 1 -- trailing\n-- ==\n-- input { 1 }\n");
    assert_eq!(program.decls.len(), 1);
}

// ---------------------------------------------------------------- spans

#[test]
fn spans() {
    let src = "def f x = a + b * c";
    let program = parse_ok(src);
    let Some(Decl::Def(d)) = program.decls.first() else {
        panic!("no def");
    };
    assert_eq!(d.span, 0..src.len());
    assert_eq!(&src[d.body.span.clone()], "a + b * c");
    let ExprKind::BinOp(_, _, rhs) = &d.body.kind else {
        panic!("not a binop");
    };
    assert_eq!(&src[rhs.span.clone()], "b * c");

    let src = "def g = f a  b[1] |> h";
    let program = parse_ok(src);
    let Some(Decl::Def(d)) = program.decls.first() else {
        panic!("no def");
    };
    assert_eq!(&src[d.body.span.clone()], "f a  b[1] |> h");
    let ExprKind::Apply(_, args) = &d.body.kind else {
        panic!("not an application");
    };
    assert_eq!(&src[args[0].span.clone()], "f a  b[1]");

    let src = "def t = t.0.1";
    let program = parse_ok(src);
    let Some(Decl::Def(d)) = program.decls.first() else {
        panic!("no def");
    };
    assert_eq!(&src[d.body.span.clone()], "t.0.1");
}

#[test]
fn lexer_tokens() {
    let (tokens, errors) = lex("a[i] f [1] x' 'a t.0.1 f32.sqrt >>> |> //");
    assert!(errors.is_empty());
    let kinds: Vec<Token> = tokens.into_iter().map(|(_, t, _)| t).collect();
    assert_eq!(
        kinds,
        [
            Token::Ident("a".into()),
            Token::IndexLBracket,
            Token::Ident("i".into()),
            Token::RBracket,
            Token::Ident("f".into()),
            Token::LBracket,
            Token::Int((1, None)),
            Token::RBracket,
            Token::Ident("x'".into()),
            Token::TyVar("a".into()),
            Token::Ident("t".into()),
            Token::FieldIndex(0),
            Token::FieldIndex(1),
            Token::QualName(("f32".into(), "sqrt".into())),
            Token::UShr,
            Token::PipeRight,
            Token::SlashSlash,
        ]
    );
}

// ---------------------------------------------------------------- errors

#[test]
fn bad_literals() {
    let d = parse_err("def x = 12i33");
    assert_eq!(d.span, 8..13);
    assert!(d.message.contains("invalid suffix `i33`"), "{}", d.message);

    let d = parse_err("def x = 0x");
    assert_eq!(d.span, 8..10);
    assert!(d.message.contains("no digits"), "{}", d.message);

    let d = parse_err("def x = 1.5i32");
    assert_eq!(d.span, 8..14);
    assert!(d.message.contains("integer suffix"), "{}", d.message);

    let d = parse_err("def x = 340282366920938463463374607431768211456");
    assert!(d.message.contains("too large"), "{}", d.message);
    assert_eq!(d.span, 8..47);

    let d = parse_err("def x = 0b12");
    assert!(
        d.message.contains("invalid digit `2` in binary literal"),
        "{}",
        d.message
    );
}

#[test]
fn lexer_reports_every_error() {
    let ds = parse("def x = 1 # 2 $ 3").unwrap_err();
    assert_eq!(ds.len(), 2);
    assert_eq!(ds[0].span, 10..11);
    assert_eq!(ds[0].message, "invalid character `#`");
    assert_eq!(ds[1].span, 14..15);

    let ds = parse("def é = 1").unwrap_err();
    assert_eq!(ds[0].message, "invalid character `é`");
    assert_eq!(ds[0].span, 4..6);
}

#[test]
fn unterminated_string() {
    let d = parse_err("import \"lib/vec3\ndef x = 1");
    assert_eq!(d.message, "unterminated string literal");
    assert_eq!(d.span, 7..16);
}

#[test]
fn unclosed_brackets() {
    let d = parse_err("def x = (1 + 2");
    assert_eq!(d.message, "unclosed `(`");
    assert_eq!(d.span, 8..9);

    let d = parse_err("def x = f [1, 2\ndef y = 3");
    assert_eq!(d.message, "unclosed `[`");
    assert_eq!(d.span, 10..11);

    let d = parse_err("def x = {a = 1");
    assert_eq!(d.message, "unclosed `{`");

    let d = parse_err("def x = (1, 2]");
    assert_eq!(d.message, "mismatched `]`");
    assert_eq!(d.span, 13..14);
    assert_eq!(d.secondary[0].0, 8..9);

    let d = parse_err("def x = 1)");
    assert_eq!(d.message, "unexpected `)`");
    assert_eq!(d.span, 9..10);
}

#[test]
fn unexpected_tokens() {
    let d = parse_err("def x = 1 + * 2");
    assert_eq!(d.message, "unexpected `*`");
    assert_eq!(d.span, 12..13);
    assert_eq!(d.notes, ["expected an expression"]);

    let d = parse_err("def x = let y = 1 y + 1\ndef z = 2");
    assert_eq!(d.message, "unexpected `def`");
    assert!(d.notes[0].contains("`in`"), "{:?}", d.notes);

    let d = parse_err("def x = if a then b");
    assert_eq!(d.message, "unexpected end of file");
    assert_eq!(d.span, 19..19);
    assert!(d.notes[0].contains("`else`"), "{:?}", d.notes);

    let d = parse_err("def x = 1 +\n-- trailing comment\n");
    assert_eq!(d.span, 11..11);

    let d = parse_err("def x =");
    assert_eq!(d.message, "unexpected end of file");
    assert_eq!(d.notes, ["expected an expression"]);

    let d = parse_err("def = 1");
    assert_eq!(d.message, "unexpected `=`");
    assert_eq!(d.notes, ["expected a pattern"]);

    let d = parse_err("def f (x: ) = 1");
    assert_eq!(d.message, "unexpected `)`");
    assert!(d.notes[0].contains("a type"), "{:?}", d.notes);

    // `a.` may start a qualified name or a field access.
    let d = parse_err("def x = a.");
    assert_eq!(d.message, "unexpected end of file");
    let d = parse_err("def x = a.)");
    assert_eq!(d.message, "unexpected `)`");
}

#[test]
fn diagnostics_render() {
    let mut sources = SourceMap::default();
    let file = sources.add("bad.arr".into(), "def x = (1 + 2\n".into());
    let ds = parse_program(&sources, file).unwrap_err();
    let text = ds[0].render(&sources);
    assert!(text.contains("unclosed `(`"), "{text}");
    assert!(text.contains("bad.arr"), "{text}");
}

// ---------------------------------------------------------------- robustness

const PROGRAMS: [&str; 3] = [
    "-- sum of squares\n\
     def sq (x: f32) : f32 = x * x\n\
     entry main [n] (xs: [n]f32) : (f32, []f32) =\n\
       let ys = map sq xs\n\
       let s = reduce (+) 0f32 ys\n\
       in (s, scan (+) 0 ys |> map (\\y -> y / s))\n",
    "type vec = {x: f32, y: f32}\n\
     import \"lib/v\"\n\
     def f 't [n] (op: t -> t -> t) (ne: t) (a: [n]t) : t =\n\
       loop acc = ne for i < n do op acc a[i]\n\
     def g (m: [][]i64) = m[1:3, :] with [0, 0] = 0x2A_i64 ** 2\n\
     def h p = let {x, y = yy} = p in if x > 1.5e3 then (x, yy).0 else f32.sqrt (-x)\n",
    "def w (xs: []i32) = loop (s, i) = (0, 0) while i < length xs do (s + xs[i] % 3, i + 1)\n\
     def r = (+ 1) >-> 2 |> (2 **) <| assert true [1, 2][0]\n\
     entry e (b: bool) = !b && true || 1 << 2 >>> 1 != 0\n",
];

#[test]
fn no_panic_on_any_prefix() {
    for program in PROGRAMS {
        for (i, _) in program.char_indices().chain([(program.len(), ' ')]) {
            // Parses or fails, but never panics.
            let _ = parse(&program[..i]);
        }
    }
    for program in &PROGRAMS[..2] {
        parse_ok(program);
    }
}

#[test]
fn no_panic_on_odd_input() {
    for src in [
        "",
        "'",
        "\"",
        "0x_",
        "0b",
        "1e",
        "1e+",
        "1.",
        ".5",
        "t.",
        "t.99999999999999999999999",
        "def x = [",
        "def x = ]",
        "\u{0}",
        "def 🦀 = 1",
        "def x = 1__i32",
        "((((",
        "def x = a[",
        "def x = (+",
        "def x = \\",
        "def f [99999999999999999999999] = 1",
        "def f (x: [18446744073709551616]i32) = x",
    ] {
        let _ = parse(src);
    }
}

#[test]
fn deep_nesting_is_an_error() {
    let deep = format!("def x = {}1{}", "(".repeat(5000), ")".repeat(5000));
    let d = parse_err(&deep);
    assert_eq!(d.message, "brackets nested too deeply");
    let ok = format!("def x = {}1{}", "[".repeat(100), "]".repeat(100));
    parse_ok(&ok);
}

#[test]
fn repository_programs_parse() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["examples", "tests/programs", "stdlib"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "arr") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                if let Err(ds) = parse(&text) {
                    panic!("{}: {:#?}", path.display(), ds);
                }
            }
        }
    }
}
