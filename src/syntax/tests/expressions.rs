//! Expressions: precedence, application and indexing, the expression forms
//! and types.

use super::*;

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
    // Futhark's hexadecimal floats; without the exponent `0x1.8` stays an
    // integer followed by a field access.
    assert_eq!(sexp_expr("0x1.8p1"), "3.0");
    assert_eq!(sexp_expr("0X1_0.4P-2f32"), "4.0625f32");
    assert_eq!(sexp_expr("0x1.0p+10f64"), "1024.0f64");
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
    // A lambda as the last argument takes the rest of the expression.
    assert_eq!(
        sexp_expr("tabulate n \\i -> i + 1"),
        "(tabulate n (fn [i] (+ i 1)))"
    );
    assert_eq!(sexp_expr("f \\x -> x"), "(f (fn [x] x))");
    assert_eq!(
        sexp_expr("g a \\x -> if x then a else b"),
        "(g a (fn [x] (if x a b)))"
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
