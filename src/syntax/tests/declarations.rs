//! Declarations, comments, spans and the lexer's tokens.

use super::*;

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

#[test]
fn infix_minus_definition_needs_parentheses() {
    // `-` written infix after a parenthesised pattern defines `-` ...
    let program = parse_ok("def (a: t) - (b: t) = a\ndef f x -1 = x\n");
    let names: Vec<(&str, usize)> = program
        .decls
        .iter()
        .map(|d| match d {
            Decl::Def(d) => (d.name.name.as_str(), d.params.len()),
            other => panic!("{other:?}"),
        })
        .collect();
    // ... while after a name, `-1` is a literal parameter pattern.
    assert_eq!(names, [("-", 2), ("f", 2)]);
}
