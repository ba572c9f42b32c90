//! One file's text in, `ast::Program` or syntax diagnostics out. Runs the
//! lexer, checks bracket nesting (so that an unclosed bracket is reported at
//! the bracket itself), then the LALRPOP parser generated from
//! `grammar/arr.lalrpop`. Also holds the tree-building helpers the grammar's
//! actions call.

use super::ast::*;
use super::diagnostic::{Diagnostic, SourceMap};
use super::lexer::{self, LexError, Spanned, Token};
use super::typeparams;
use lalrpop_util::ParseError;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens)]
    grammar,
    "/arr.rs"
);

/// An error raised by a grammar action, e.g. an array size that does not fit
/// in 64 bits.
#[derive(Clone, Debug, PartialEq)]
pub struct ActionError {
    pub span: Span,
    pub message: String,
}

pub(crate) type GrammarError = ParseError<usize, Token, ActionError>;

/// Parses one file of `sources`. Returns every lexical error, or else the
/// first syntax error.
pub fn parse_program(sources: &SourceMap, file: FileId) -> Result<Program, Vec<Diagnostic>> {
    let Some(source) = sources.files.get(file) else {
        return Err(vec![Diagnostic::new(file, 0..0, "no such source file")]);
    };
    let text = source.text.as_str();
    let (tokens, lex_errors) = lexer::lex(text);
    if !lex_errors.is_empty() {
        return Err(lex_errors.iter().map(|e| lex_diagnostic(file, e)).collect());
    }
    if let Some(d) = check_nesting(file, &tokens) {
        return Err(vec![d]);
    }
    let bracket_problem = check_brackets(file, &tokens);
    let stream = tokens.into_iter().map(Ok::<Spanned, ActionError>);
    match grammar::ProgramParser::new().parse(stream) {
        Ok(mut decls) => {
            for decl in &mut decls {
                typeparams::resolve_decl(decl);
            }
            Ok(Program {
                file,
                decls,
                imports: Vec::new(),
            })
        }
        Err(error) => {
            let diagnostic = parse_diagnostic(file, text.len(), error);
            // A bracket problem that starts before the parse error most likely
            // caused it, and pointing at the bracket is more helpful.
            Err(vec![match bracket_problem {
                Some((anchor, d)) if anchor <= diagnostic.span.start => d,
                _ => diagnostic,
            }])
        }
    }
}

fn lex_diagnostic(file: FileId, e: &LexError) -> Diagnostic {
    let d = Diagnostic::new(file, e.span.clone(), e.to_string());
    match e.note() {
        Some(note) => d.with_note(note),
        None => d,
    }
}

fn parse_diagnostic(file: FileId, len: usize, error: GrammarError) -> Diagnostic {
    match error {
        ParseError::UnrecognizedToken {
            token: (l, t, r),
            expected,
        } => unexpected(file, l..r, &t.describe(), &expected),
        // At the end of the last token rather than after trailing comments.
        ParseError::UnrecognizedEof { location, expected } => {
            let at = location.min(len);
            unexpected(file, at..at, "end of file", &expected)
        }
        ParseError::ExtraToken { token: (l, t, r) } => {
            Diagnostic::new(file, l..r, format!("unexpected {}", t.describe()))
                .with_note("expected end of file")
        }
        ParseError::InvalidToken { location } => {
            Diagnostic::new(file, location..location, "invalid token")
        }
        ParseError::User { error } => Diagnostic::new(file, error.span, error.message),
    }
}

fn unexpected(file: FileId, span: Span, what: &str, expected: &[String]) -> Diagnostic {
    let d = Diagnostic::new(file, span, format!("unexpected {what}"));
    match describe_expected(expected) {
        Some(note) => d.with_note(note),
        None => d,
    }
}

/// Turns LALRPOP's terminal names into "expected one of `in`, an operator,
/// an expression": whole families of tokens are summarised by what they
/// start.
fn describe_expected(expected: &[String]) -> Option<String> {
    let names: Vec<String> = expected.iter().map(|t| terminal_name(t)).collect();
    let has = |t: &str| names.iter().any(|n| n == t);
    let has_all = |ts: &[&str]| ts.iter().all(|t| has(t));
    let mut drop: Vec<&str> = Vec::new();
    let mut summaries = Vec::new();
    if has_all(&["+", "*", "=="]) {
        summaries.push("an operator");
        drop.extend(BINARY_OPERATORS);
    }
    if has_all(&["Ident", "_", "("]) && !has("[") {
        // Patterns start with names, literals and constructors too.
        summaries.push("a pattern");
        drop.extend(PATTERN_STARTS);
    } else if has_all(&["Ident", "Int", "("]) {
        summaries.push("an expression");
        drop.extend(ATOM_STARTS);
        drop.extend(["!", "assert", "-"]);
        if has_all(&OPEN_STARTS) {
            drop.extend(OPEN_STARTS);
        }
    } else if has_all(&["Ident", "TyVar", "("]) {
        summaries.push("a type");
        drop.extend(["Ident", "TyVar", "(", "[", "{"]);
    }
    let mut items: Vec<String> = Vec::new();
    for n in &names {
        if drop.contains(&n.as_str()) {
            continue;
        }
        let item = readable(n);
        if !items.contains(&item) {
            items.push(item);
        }
    }
    items.extend(summaries.iter().map(|s| s.to_string()));
    match items.len() {
        0 => None,
        1 => Some(format!("expected {}", items[0])),
        _ => Some(format!("expected one of {}", items.join(", "))),
    }
}

const BINARY_OPERATORS: [&str; 25] = [
    "|>", "<|", "||", "&&", "==", "!=", "<", "<=", ">", ">=", "|", "^", "&", "<<", ">>", ">>>",
    "+", "-", "++", "*", "/", "%", "//", "%%", "**",
];
const ATOM_STARTS: [&str; 12] = [
    "Ident",
    "QualName",
    "Int",
    "Float",
    "Char",
    "Str",
    "Constructor",
    "(",
    "[",
    "{",
    "true",
    "false",
];
const PATTERN_STARTS: [&str; 12] = [
    "Ident",
    "_",
    "(",
    "{",
    "Int",
    "Float",
    "Char",
    "Constructor",
    "true",
    "false",
    "-",
    "#[",
];
const OPEN_STARTS: [&str; 6] = ["let", "if", "loop", "\\", "match", "#["];

/// LALRPOP spells quoted terminals with their quotes and escapes: `"\"in\""`.
fn terminal_name(t: &str) -> String {
    match t.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(inner) => inner.replace("\\\\", "\\").replace("\\\"", "\""),
        None => t.to_string(),
    }
}

fn readable(name: &str) -> String {
    match name {
        "Ident" => "an identifier".into(),
        "QualName" => "a qualified name".into(),
        "TyVar" => "a type variable".into(),
        "Int" => "an integer literal".into(),
        "Float" => "a float literal".into(),
        "Str" => "a string literal".into(),
        "FieldName" | "FieldIndex" => "a field".into(),
        "index[" => "`[`".into(),
        other => format!("`{other}`"),
    }
}

fn is_opener(t: &Token) -> bool {
    matches!(
        t,
        Token::LParen | Token::LBracket | Token::IndexLBracket | Token::LBrace | Token::AttrOpen
    )
}

fn closer_of(t: &Token) -> Token {
    match t {
        Token::LParen => Token::RParen,
        Token::LBrace => Token::RBrace,
        _ => Token::RBracket,
    }
}

/// Deeper bracket nesting than any sensible program has; refusing it keeps
/// the recursive passes after parsing far from the end of the stack.
const MAX_NESTING: usize = 200;

fn check_nesting(file: FileId, tokens: &[Spanned]) -> Option<Diagnostic> {
    let mut depth = 0usize;
    for (l, t, r) in tokens {
        if is_opener(t) {
            depth += 1;
            if depth > MAX_NESTING {
                return Some(
                    Diagnostic::new(file, *l..*r, "brackets nested too deeply")
                        .with_note(format!("at most {MAX_NESTING} levels are allowed")),
                );
            }
        } else if matches!(t, Token::RParen | Token::RBracket | Token::RBrace) {
            depth = depth.saturating_sub(1);
        }
    }
    None
}

/// The first bracket that is unclosed or closed by the wrong kind, with the
/// offset from which the problem is certain (the opening bracket, or a
/// closing one that matches nothing).
fn check_brackets(file: FileId, tokens: &[Spanned]) -> Option<(usize, Diagnostic)> {
    let mut open: Vec<&Spanned> = Vec::new();
    for tok in tokens {
        let (l, t, r) = tok;
        if is_opener(t) {
            open.push(tok);
        } else if matches!(t, Token::RParen | Token::RBracket | Token::RBrace) {
            match open.pop() {
                Some((_, o, _)) if closer_of(o) == *t => {}
                Some((ol, o, or)) => {
                    let d = Diagnostic::new(file, *l..*r, format!("mismatched {}", t.describe()))
                        .with_label(format!("expected {}", closer_of(o).describe()))
                        .with_secondary(*ol..*or, format!("this {} is not closed", o.describe()));
                    return Some((*ol, d));
                }
                None => {
                    let d = Diagnostic::new(file, *l..*r, format!("unexpected {}", t.describe()))
                        .with_label("no matching opening bracket");
                    return Some((*l, d));
                }
            }
        }
    }
    // The innermost unclosed bracket is the one the user most likely forgot.
    open.last().map(|(l, o, r)| {
        let d = Diagnostic::new(file, *l..*r, format!("unclosed {}", o.describe()))
            .with_label(format!("this {} is never closed", o.describe()))
            .with_note(format!("expected {}", closer_of(o).describe()));
        (*l, d)
    })
}
