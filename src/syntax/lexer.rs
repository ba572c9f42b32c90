//! Source text in, a vector of spanned tokens out (the external lexer of the
//! LALRPOP grammar). Logos does the bulk of the work; a small pass on top
//! decides what depends on adjacency: `a[i]` (indexing, no space before `[`)
//! versus `f a [1]`, field access `t.0.1` (so `0.1` there is not a float), and
//! qualified names `f32.sqrt`.

use super::ast::Span;
use crate::types::ScalarType;
use logos::Logos;
use std::fmt;

/// A token with its byte range, in the shape LALRPOP's external lexers use.
pub type Spanned = (usize, Token, usize);

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexErrorKind)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"--[^\n]*", allow_greedy = true))]
pub enum Token {
    #[token("def")]
    Def,
    #[token("entry")]
    Entry,
    #[token("type")]
    #[token("type^")]
    #[token("type~")]
    Type,
    #[token("let")]
    Let,
    #[token("in")]
    In,
    #[token("if")]
    If,
    #[token("then")]
    Then,
    #[token("else")]
    Else,
    #[token("loop")]
    Loop,
    #[token("for")]
    For,
    #[token("while")]
    While,
    #[token("do")]
    Do,
    #[token("with")]
    With,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("import")]
    Import,
    #[token("assert")]
    Assert,
    #[token("module")]
    Module,
    #[token("open")]
    Open,
    #[token("include")]
    Include,
    #[token("local")]
    Local,
    #[token("val")]
    Val,
    #[token("match")]
    Match,
    #[token("case")]
    Case,

    #[regex(r"[A-Za-z_][A-Za-z0-9_']*", |lex| lex.slice().to_string())]
    Ident(String),
    /// `f32.sqrt`: (module, name). Made by the pass after logos.
    QualName((String, String)),
    /// `'t`, without the quote; `'^t` and `'~t` (lifted type parameters)
    /// too, which arrc treats as `'t`.
    #[regex(r"'[\^~]?[A-Za-z_][A-Za-z0-9_']*", |lex| lex.slice()[1..].trim_start_matches(['^', '~']).to_string())]
    TyVar(String),
    /// `'a'`, `'\n'`: the character's code point.
    #[regex(r"'([^'\\\n]|\\[^\n])'", char_literal, priority = 10)]
    Char(u32),
    /// `#foo`: a sum type constructor, without the `#`.
    #[regex(r"#[A-Za-z_][A-Za-z0-9_']*", |lex| lex.slice()[1..].to_string())]
    Constructor(String),
    /// `#[`, which starts an attribute.
    #[token("#[")]
    AttrOpen,
    /// Where logos starts a numeric literal; `lex_number` always replaces
    /// it by `Int` or `Float`, so the parser never sees it.
    #[regex(r"[0-9]", lex_number)]
    Number,
    /// Value as written (non-negative) and optional suffix.
    Int((u128, Option<ScalarType>)),
    Float((f64, Option<ScalarType>)),
    /// String contents, without the quotes.
    #[regex(r#""([^"\\\n]|\\[^\n])*""#, string_literal)]
    Str(String),
    /// A `"` with no closing one on its line; always reported as an error.
    #[regex(r#""[^"\n]*"#, unterminated_string)]
    UnterminatedStr,
    /// `.x` after an expression. Made by the pass after logos.
    FieldName(String),
    /// `.0` after an expression. Made by the pass after logos.
    FieldIndex(usize),

    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    /// A `[` directly after an identifier, literal, `)`, `]` or field: indexing.
    IndexLBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token(":>")]
    ColonGt,
    #[token("..")]
    DotDot,
    #[token("...")]
    DotDotDot,
    #[token("..<")]
    DotDotLt,
    #[token("..>")]
    DotDotGt,
    #[token("?")]
    Question,
    #[token("`")]
    Backtick,
    #[token(".")]
    Dot,
    #[token("\\")]
    Backslash,
    #[token("->")]
    Arrow,
    #[token("=")]
    Equals,
    #[token("_", priority = 10)]
    Underscore,

    #[token("|>")]
    PipeRight,
    #[token("<|")]
    PipeLeft,
    #[token("||")]
    OrOr,
    #[token("&&")]
    AndAnd,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("|")]
    Bar,
    #[token("^")]
    Caret,
    #[token("&")]
    Amp,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token(">>>")]
    UShr,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("++")]
    PlusPlus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("//")]
    SlashSlash,
    #[token("%%")]
    PercentPercent,
    #[token("!")]
    Bang,
    #[token("**")]
    StarStar,

    /// An operator the program defines (`+^`, `>>=`): the longest run of
    /// operator characters that is not a built-in operator. Its precedence
    /// is that of the longest built-in operator it starts with, which is
    /// what the token says.
    #[regex(r"[-+*/%=!<>&^|]+", user_operator, priority = 1)]
    UserOp((OpLevel, String)),
    /// A module's operator written infix, `x vec3.- y` or `a M.N.+ b`: the
    /// whole text and the operator's level. Made by the pass after logos.
    QualOp((OpLevel, String)),
}

/// The precedence level of an operator the program defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpLevel {
    PipeRight,
    PipeLeft,
    Or,
    And,
    Cmp,
    BitOr,
    BitXor,
    BitAnd,
    Shift,
    Add,
    Mul,
    Pow,
}

/// A run of operator characters that no fixed token matched: an operator
/// the program defines, at the level of its longest built-in prefix.
fn user_operator(lex: &mut logos::Lexer<'_, Token>) -> Result<(OpLevel, String), LexErrorKind> {
    let text = lex.slice();
    Ok((op_level(text), text.to_string()))
}

/// An operator's precedence level, from the longest built-in operator its
/// text starts with (as in Futhark).
pub fn op_level(text: &str) -> OpLevel {
    [
        ("|>", OpLevel::PipeRight),
        ("<|", OpLevel::PipeLeft),
        ("||", OpLevel::Or),
        ("&&", OpLevel::And),
        ("**", OpLevel::Pow),
        ("<<", OpLevel::Shift),
        (">>", OpLevel::Shift),
        ("==", OpLevel::Cmp),
        ("!=", OpLevel::Cmp),
        ("<=", OpLevel::Cmp),
        (">=", OpLevel::Cmp),
        ("//", OpLevel::Mul),
        ("%%", OpLevel::Mul),
        ("<", OpLevel::Cmp),
        (">", OpLevel::Cmp),
        ("=", OpLevel::Cmp),
        ("!", OpLevel::Cmp),
        ("|", OpLevel::BitOr),
        ("^", OpLevel::BitXor),
        ("&", OpLevel::BitAnd),
        ("+", OpLevel::Add),
        ("-", OpLevel::Add),
        ("*", OpLevel::Mul),
        ("/", OpLevel::Mul),
        ("%", OpLevel::Mul),
    ]
    .into_iter()
    .find(|(prefix, _)| text.starts_with(prefix))
    .map_or(OpLevel::Cmp, |(_, level)| level)
}

/// The character of a literal `'c'` (with `\n`, `\t`, `\\`, `\'`, `\"`,
/// `\0`, `\r` escapes).
fn char_literal(lex: &mut logos::Lexer<'_, Token>) -> Result<u32, LexErrorKind> {
    let s = lex.slice();
    let inner = &s[1..s.len() - 1];
    let text = unescape(inner).ok_or(LexErrorKind::InvalidCharacter)?;
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c as u32),
        _ => Err(LexErrorKind::InvalidCharacter),
    }
}

fn string_literal(lex: &mut logos::Lexer<'_, Token>) -> Result<String, LexErrorKind> {
    let s = lex.slice();
    unescape(&s[1..s.len() - 1]).ok_or(LexErrorKind::InvalidCharacter)
}

/// Text with its backslash escapes replaced; `None` for an unknown escape.
fn unescape(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '0' => '\0',
            c @ ('\\' | '\'' | '"') => c,
            _ => return None,
        });
    }
    Some(out)
}

impl Token {
    /// Whether a `[` right after this token (no space) indexes it.
    fn ends_operand(&self) -> bool {
        matches!(
            self,
            Token::Ident(_)
                | Token::QualName(_)
                | Token::Int(_)
                | Token::Float(_)
                | Token::True
                | Token::False
                | Token::RParen
                | Token::RBracket
                | Token::FieldName(_)
                | Token::FieldIndex(_)
                | Token::Str(_)
                | Token::Char(_)
        )
    }

    /// How the token is written, for error messages.
    pub fn describe(&self) -> String {
        match self {
            Token::Ident(s) => format!("`{s}`"),
            Token::QualName((m, n)) => format!("`{m}.{n}`"),
            Token::TyVar(s) => format!("`'{s}`"),
            Token::Int(_) | Token::Number => "integer literal".into(),
            Token::Float(_) => "float literal".into(),
            Token::Str(_) | Token::UnterminatedStr => "string literal".into(),
            Token::FieldName(s) => format!("`.{s}`"),
            Token::FieldIndex(i) => format!("`.{i}`"),
            Token::IndexLBracket => "`[`".into(),
            Token::Char(_) => "character literal".into(),
            Token::Constructor(c) => format!("`#{c}`"),
            Token::UserOp((_, op)) | Token::QualOp((_, op)) => format!("`{op}`"),
            other => format!("`{}`", other.fixed_text().unwrap_or("?")),
        }
    }

    /// The text of tokens that are always spelled the same way.
    pub fn fixed_text(&self) -> Option<&'static str> {
        Some(match self {
            Token::Def => "def",
            Token::Entry => "entry",
            Token::Type => "type",
            Token::Let => "let",
            Token::In => "in",
            Token::If => "if",
            Token::Then => "then",
            Token::Else => "else",
            Token::Loop => "loop",
            Token::For => "for",
            Token::While => "while",
            Token::Do => "do",
            Token::With => "with",
            Token::True => "true",
            Token::False => "false",
            Token::Import => "import",
            Token::Assert => "assert",
            Token::Module => "module",
            Token::Open => "open",
            Token::Include => "include",
            Token::Local => "local",
            Token::Val => "val",
            Token::Match => "match",
            Token::Case => "case",
            Token::AttrOpen => "#[",
            Token::ColonGt => ":>",
            Token::DotDot => "..",
            Token::DotDotDot => "...",
            Token::DotDotLt => "..<",
            Token::DotDotGt => "..>",
            Token::Question => "?",
            Token::Backtick => "`",
            Token::LParen => "(",
            Token::RParen => ")",
            Token::LBracket | Token::IndexLBracket => "[",
            Token::RBracket => "]",
            Token::LBrace => "{",
            Token::RBrace => "}",
            Token::Comma => ",",
            Token::Colon => ":",
            Token::Dot => ".",
            Token::Backslash => "\\",
            Token::Arrow => "->",
            Token::Equals => "=",
            Token::Underscore => "_",
            Token::PipeRight => "|>",
            Token::PipeLeft => "<|",
            Token::OrOr => "||",
            Token::AndAnd => "&&",
            Token::EqEq => "==",
            Token::NotEq => "!=",
            Token::Lt => "<",
            Token::Le => "<=",
            Token::Gt => ">",
            Token::Ge => ">=",
            Token::Bar => "|",
            Token::Caret => "^",
            Token::Amp => "&",
            Token::Shl => "<<",
            Token::Shr => ">>",
            Token::UShr => ">>>",
            Token::Plus => "+",
            Token::Minus => "-",
            Token::PlusPlus => "++",
            Token::Star => "*",
            Token::Slash => "/",
            Token::Percent => "%",
            Token::SlashSlash => "//",
            Token::PercentPercent => "%%",
            Token::Bang => "!",
            Token::StarStar => "**",
            _ => return None,
        })
    }
}

/// What went wrong while lexing; `LexError` adds the span.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LexErrorKind {
    #[default]
    InvalidCharacter,
    UnterminatedString,
    /// `0x` or `0b` with no digits.
    MissingDigits,
    /// A suffix that is not a scalar type, e.g. `12i33`.
    InvalidSuffix(String),
    /// `0b102`: a digit the literal's base does not have.
    InvalidDigit(char, u32),
    /// `1.5i32`
    FloatWithIntSuffix(String),
    /// A binary or hexadecimal literal with a float suffix.
    RadixFloat,
    /// More than 128 bits.
    IntTooLarge,
    /// `t.99999999999999999999999`
    FieldIndexTooLarge,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LexError {
    pub span: Span,
    pub kind: LexErrorKind,
    /// The offending text.
    pub text: String,
}

impl fmt::Display for LexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.text;
        match &self.kind {
            LexErrorKind::InvalidCharacter => write!(f, "invalid character `{t}`"),
            LexErrorKind::UnterminatedString => write!(f, "unterminated string literal"),
            LexErrorKind::MissingDigits => write!(f, "integer literal `{t}` has no digits"),
            LexErrorKind::InvalidSuffix(s) => {
                write!(f, "invalid suffix `{s}` on numeric literal `{t}`")
            }
            LexErrorKind::InvalidDigit(d, radix) => {
                let base = if *radix == 2 { "binary" } else { "hexadecimal" };
                write!(f, "invalid digit `{d}` in {base} literal `{t}`")
            }
            LexErrorKind::FloatWithIntSuffix(s) => {
                write!(f, "float literal `{t}` has integer suffix `{s}`")
            }
            LexErrorKind::RadixFloat => {
                write!(
                    f,
                    "binary or hexadecimal literal `{t}` cannot have a float suffix"
                )
            }
            LexErrorKind::IntTooLarge => write!(f, "integer literal `{t}` is too large"),
            LexErrorKind::FieldIndexTooLarge => write!(f, "field index `{t}` is too large"),
        }
    }
}

impl LexError {
    /// A help line for the diagnostic, where one is useful.
    pub fn note(&self) -> Option<String> {
        match &self.kind {
            LexErrorKind::InvalidSuffix(_) | LexErrorKind::FloatWithIntSuffix(_) => Some(
                "numeric suffixes are i8 i16 i32 i64 u8 u16 u32 u64 (integers) and f16 f32 f64"
                    .into(),
            ),
            LexErrorKind::UnterminatedString => Some("add a closing `\"` on the same line".into()),
            LexErrorKind::IntTooLarge => Some("integer literals must fit in 128 bits".into()),
            _ => None,
        }
    }
}

fn unterminated_string(_: &mut logos::Lexer<'_, Token>) -> Result<logos::Skip, LexErrorKind> {
    Err(LexErrorKind::UnterminatedString)
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'\''
}

/// Callback for a token starting with a digit: scans the whole numeric
/// literal (radix prefix, digits, fraction, exponent, suffix) by hand, since a
/// single regex cannot tell `1e-3` from `1 e - 3` without backtracking.
fn lex_number(lex: &mut logos::Lexer<'_, Token>) -> Result<Token, LexErrorKind> {
    let start = lex.span().start;
    let (len, result) = scan_number(&lex.source().as_bytes()[start..]);
    lex.bump(len.saturating_sub(lex.slice().len()));
    Ok(match result? {
        Number::Int(v, t) => Token::Int((v, t)),
        Number::Float(v, t) => Token::Float((v, t)),
    })
}

enum Number {
    Int(u128, Option<ScalarType>),
    Float(f64, Option<ScalarType>),
}

/// Scans a numeric literal at the start of `s`; returns its length in bytes
/// and its value. The length is right even when the literal is malformed, so
/// that lexing resumes after it.
fn scan_number(s: &[u8]) -> (usize, Result<Number, LexErrorKind>) {
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let radix = match (at(0), at(1)) {
        (b'0', b'x' | b'X') => 16,
        (b'0', b'b' | b'B') => 2,
        _ => 10,
    };
    let mut i = if radix == 10 { 0 } else { 2 };
    let digits_start = i;
    while at(i) == b'_' || (at(i) as char).is_digit(radix) {
        i += 1;
    }
    let digits = &s[digits_start..i];
    let mut is_float = false;
    // Futhark's hexadecimal float: `0x1.8p3`, a fraction and a binary
    // exponent, both required.
    let mut hex_float = None;
    if radix == 16 && at(i) == b'.' && at(i + 1).is_ascii_hexdigit() {
        let frac_start = i + 1;
        let mut j = frac_start;
        while at(j) == b'_' || at(j).is_ascii_hexdigit() {
            j += 1;
        }
        let sign = usize::from(matches!(at(j + 1), b'+' | b'-'));
        if matches!(at(j), b'p' | b'P') && at(j + 1 + sign).is_ascii_digit() {
            let exp_start = j + 1;
            let mut k = exp_start + sign;
            while at(k) == b'_' || at(k).is_ascii_digit() {
                k += 1;
            }
            hex_float = Some((frac_start, j, exp_start, k));
            is_float = true;
            i = k;
        }
    }
    if radix == 10 {
        if at(i) == b'.' && at(i + 1).is_ascii_digit() {
            is_float = true;
            i += 1;
            while at(i) == b'_' || at(i).is_ascii_digit() {
                i += 1;
            }
        }
        let exp_digit = if matches!(at(i + 1), b'+' | b'-') {
            i + 2
        } else {
            i + 1
        };
        if matches!(at(i), b'e' | b'E') && at(exp_digit).is_ascii_digit() {
            is_float = true;
            i = exp_digit;
            while at(i) == b'_' || at(i).is_ascii_digit() {
                i += 1;
            }
        }
    }
    let number_end = i;
    while is_ident_continue(at(i)) {
        i += 1;
    }
    let len = i;
    // All of `s[..len]` is ASCII, so these conversions cannot fail.
    let text = |r: std::ops::Range<usize>| String::from_utf8_lossy(&s[r]).replace('_', "");
    let suffix_text = String::from_utf8_lossy(&s[number_end..len]).into_owned();
    if !digits.iter().any(|b| *b != b'_') {
        return (len, Err(LexErrorKind::MissingDigits));
    }
    // A decimal digit right after a binary literal's digits is a bad digit,
    // not a suffix.
    if let Some(d) = suffix_text.chars().next().filter(char::is_ascii_digit) {
        if radix == 2 {
            return (len, Err(LexErrorKind::InvalidDigit(d, radix)));
        }
    }
    let suffix = if suffix_text.is_empty() {
        None
    } else {
        match ScalarType::from_name(&suffix_text) {
            Some(t) if t != ScalarType::Bool => Some(t),
            _ => return (len, Err(LexErrorKind::InvalidSuffix(suffix_text))),
        }
    };
    let float_suffix = suffix.is_some_and(ScalarType::is_float);
    if is_float && suffix.is_some() && !float_suffix {
        return (len, Err(LexErrorKind::FloatWithIntSuffix(suffix_text)));
    }
    if radix != 10 && float_suffix && hex_float.is_none() {
        return (len, Err(LexErrorKind::RadixFloat));
    }
    if let Some((frac_start, frac_end, exp_start, exp_end)) = hex_float {
        let value = hex_float_value(
            &text(digits_start..frac_start - 1),
            &text(frac_start..frac_end),
            &text(exp_start..exp_end),
            suffix == Some(ScalarType::F32),
        );
        return match value {
            Some(v) => (len, Ok(Number::Float(v, suffix))),
            None => (len, Err(LexErrorKind::IntTooLarge)),
        };
    }
    if is_float || float_suffix {
        let t = text(0..number_end);
        // Parse at the suffix's precision so that no double rounding happens.
        let value = if suffix == Some(ScalarType::F32) {
            t.parse::<f32>().map(f64::from).ok()
        } else {
            t.parse::<f64>().ok()
        };
        return match value {
            Some(v) => (len, Ok(Number::Float(v, suffix))),
            None => (len, Err(LexErrorKind::InvalidSuffix(suffix_text))),
        };
    }
    match u128::from_str_radix(&text(digits_start..number_end), radix) {
        Ok(v) => (len, Ok(Number::Int(v, suffix))),
        Err(_) => (len, Err(LexErrorKind::IntTooLarge)),
    }
}

/// The value of the hexadecimal float `0xINT.FRACpEXP` (digits without
/// `_`), rounded once to `f32` when `single`, else to `f64`; `None` when the
/// digits do not fit 128 bits.
fn hex_float_value(int: &str, frac: &str, exp: &str, single: bool) -> Option<f64> {
    let mantissa = u128::from_str_radix(&format!("{int}{frac}"), 16).ok()?;
    let exp: i64 = exp.parse().ok()?;
    let scale = exp.checked_sub(4 * frac.len() as i64)?;
    // Scaling by a power of two is exact until the result leaves the
    // normal range, so the one rounding is the mantissa's.
    let scaled = |m: f64| {
        let e = scale.clamp(-2200, 2200) as i32;
        let half = e / 2;
        m * 2f64.powi(half) * 2f64.powi(e - half)
    };
    Some(if single {
        f64::from(scaled(f64::from(mantissa as f32)) as f32)
    } else {
        scaled(mantissa as f64)
    })
}

/// Lexes a whole file. Returns every token it could make and every error it
/// found; the tokens are only meaningful to the parser when there are no
/// errors.
pub fn lex(text: &str) -> (Vec<Spanned>, Vec<LexError>) {
    let mut tokens: Vec<Spanned> = Vec::new();
    let mut errors = Vec::new();
    let mut lexer = Token::lexer(text);
    while let Some(result) = lexer.next() {
        let span = lexer.span();
        let token = match result {
            Ok(t) => t,
            Err(kind) => {
                errors.push(lex_error(text, span, kind));
                continue;
            }
        };
        match token {
            Token::Dot => {
                let (field, len) = field_after_dot(&text.as_bytes()[span.end..]);
                let end = span.end + len;
                lexer.bump(len);
                let token = match field {
                    None => Token::Dot,
                    Some(Ok(f)) => f,
                    Some(Err(kind)) => {
                        errors.push(lex_error(text, span.start..end, kind));
                        continue;
                    }
                };
                let qualified = match (&token, tokens.last()) {
                    (Token::FieldName(name), Some((qs, Token::Ident(q), qe)))
                        if *qe == span.start && ScalarType::from_name(q).is_some() =>
                    {
                        Some((*qs, (q.clone(), name.clone())))
                    }
                    _ => None,
                };
                match qualified {
                    Some((qs, pair)) => {
                        tokens.pop();
                        tokens.push((qs, Token::QualName(pair), end));
                    }
                    None => tokens.push((span.start, token, end)),
                }
            }
            Token::LBracket => {
                let adjacent = tokens
                    .last()
                    .is_some_and(|(_, t, e)| *e == span.start && t.ends_operand());
                let t = if adjacent {
                    Token::IndexLBracket
                } else {
                    Token::LBracket
                };
                tokens.push((span.start, t, span.end));
            }
            t => match qualified_operator(text, &mut tokens, &t, span.clone()) {
                Some(q) => tokens.push(q),
                None => tokens.push((span.start, t, span.end)),
            },
        }
    }
    (tokens, errors)
}

/// `vec3.-` and `M.N.+`: an operator right after a module path and a `.`
/// (no spaces) is that module's operator; the path's tokens are taken off
/// `tokens` and the whole is returned as one token.
fn qualified_operator(
    text: &str,
    tokens: &mut Vec<Spanned>,
    t: &Token,
    span: Span,
) -> Option<Spanned> {
    let op = match t {
        Token::UserOp((_, op)) => op.as_str(),
        Token::PipeRight | Token::PipeLeft => return None,
        other => other.fixed_text().filter(|s| is_operator_text(s))?,
    };
    let n = tokens.len();
    let (ds, Token::Dot, de) = tokens.get(n.checked_sub(1)?)? else {
        return None;
    };
    if *de != span.start {
        return None;
    }
    // Back over `.N` fields to the path's first name, all adjacent.
    let mut end = *ds;
    let mut i = n - 1;
    let start = loop {
        i = i.checked_sub(1)?;
        match &tokens[i] {
            (s, Token::FieldName(_), e) if *e == end => end = *s,
            (s, Token::Ident(_), e) if *e == end => break *s,
            _ => return None,
        }
    };
    tokens.truncate(i);
    let whole = text.get(start..span.end)?.to_string();
    Some((start, Token::QualOp((op_level(op), whole)), span.end))
}

fn is_operator_text(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b"-+*/%=!<>&^|".contains(&b))
}

fn lex_error(text: &str, span: Span, kind: LexErrorKind) -> LexError {
    let mut text = text.get(span.clone()).unwrap_or("").to_string();
    if kind == LexErrorKind::UnterminatedString {
        text.truncate(20);
    }
    LexError { span, kind, text }
}

/// The field name or index right after a `.`, with its length in bytes.
fn field_after_dot(s: &[u8]) -> (Option<Result<Token, LexErrorKind>>, usize) {
    let first = s.first().copied().unwrap_or(0);
    if first.is_ascii_digit() {
        let len = s.iter().take_while(|b| b.is_ascii_digit()).count();
        let digits = String::from_utf8_lossy(&s[..len]);
        let field = digits
            .parse::<usize>()
            .map(Token::FieldIndex)
            .map_err(|_| LexErrorKind::FieldIndexTooLarge);
        (Some(field), len)
    } else if first.is_ascii_alphabetic() || first == b'_' {
        let len = s.iter().take_while(|b| is_ident_continue(**b)).count();
        let name = String::from_utf8_lossy(&s[..len]).into_owned();
        (Some(Ok(Token::FieldName(name))), len)
    } else {
        (None, 0)
    }
}
