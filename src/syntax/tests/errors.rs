//! Syntax errors and their diagnostics, and robustness: no panic on any
//! input, deep nesting, the repository's programs.

use super::*;

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

    let d = parse_err("def x = 0x1.8p1i32");
    assert_eq!(d.span, 8..18);
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
