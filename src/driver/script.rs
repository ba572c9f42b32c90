//! `script input { EXPR }` of a test block: the part of FutharkScript that
//! test inputs use, evaluated to the bytes of the arguments of the case's
//! entry point.
//!
//! An expression is a value in the textual format (`100i64`, `[1, 2]`,
//! `true`), a tuple `(e1, e2)` (its components become separate arguments),
//! `let NAME = e1 in e2`, a name bound by `let`, `$loaddata "FILE"` (the
//! values of a data file), `$loadbytes "FILE"` (a file's bytes as `[]u8`),
//! or a call `entry e1 e2 ...` of one of the program's entry points, whose
//! results become the expression's values. Calls run on the backend under
//! test (the interpreter or the compiled program), through `call`.

use crate::runtime::value::{self, ArrayData, ArrayValue, Value};
use std::collections::HashMap;
use std::path::Path;

/// Runs an entry point on argument bytes and returns its results.
pub type Call<'a> = dyn FnMut(&str, &[u8]) -> Result<Vec<Value>, String> + 'a;

/// The arguments `expr` stands for, in the value format (text and binary
/// mixed, one argument after the other). Files are relative to `base`.
pub fn eval(expr: &str, base: &Path, call: &mut Call) -> Result<Vec<u8>, String> {
    let tokens = tokenize(expr)?;
    let mut parser = Parser {
        tokens,
        pos: 0,
        base,
        call,
        scope: HashMap::new(),
    };
    let args = parser.expr()?;
    if parser.pos < parser.tokens.len() {
        return Err(format!(
            "script input: unexpected `{}`",
            parser.tokens[parser.pos]
        ));
    }
    Ok(args.concat())
}

/// One argument's bytes: a value as written, or values in binary.
type Arg = Vec<u8>;

fn tokenize(text: &str) -> Result<Vec<String>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '-' && chars.get(i + 1) == Some(&'-') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '"' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += 1;
            }
            if i == chars.len() {
                return Err("script input: unclosed string".into());
            }
            i += 1;
            tokens.push(chars[start..i].iter().collect());
        } else if c == '[' || (c == 'e' && text_at(&chars, i, "empty(")) {
            // A whole array value, brackets balanced.
            let start = i;
            let mut depth = 0;
            while i < chars.len() {
                match chars[i] {
                    '[' | '(' => depth += 1,
                    ']' | ')' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            if depth != 0 {
                return Err("script input: unbalanced brackets".into());
            }
            tokens.push(chars[start..i].iter().collect());
        } else if matches!(c, '(' | ')' | ',' | '=') {
            tokens.push(c.to_string());
            i += 1;
        } else {
            let start = i;
            while i < chars.len()
                && !chars[i].is_whitespace()
                && !matches!(chars[i], '(' | ')' | ',' | '[' | '"')
            {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        }
    }
    Ok(tokens)
}

fn text_at(chars: &[char], i: usize, word: &str) -> bool {
    word.chars()
        .enumerate()
        .all(|(k, w)| chars.get(i + k) == Some(&w))
}

struct Parser<'a, 'c> {
    tokens: Vec<String>,
    pos: usize,
    base: &'a Path,
    call: &'a mut Call<'c>,
    scope: HashMap<String, Vec<Arg>>,
}

impl Parser<'_, '_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(String::as_str)
    }

    fn next(&mut self) -> Result<String, String> {
        let token = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        token.ok_or_else(|| "script input: unexpected end".to_string())
    }

    fn expect(&mut self, token: &str) -> Result<(), String> {
        let found = self.next()?;
        if found == token {
            Ok(())
        } else {
            Err(format!("script input: expected `{token}`, found `{found}`"))
        }
    }

    fn expr(&mut self) -> Result<Vec<Arg>, String> {
        if self.peek() == Some("let") {
            self.pos += 1;
            let name = self.next()?;
            self.expect("=")?;
            let bound = self.expr()?;
            self.expect("in")?;
            let saved = self.scope.insert(name.clone(), bound);
            let body = self.expr();
            match saved {
                Some(old) => self.scope.insert(name, old),
                None => self.scope.remove(&name),
            };
            return body;
        }
        let head = self.next()?;
        let is_call = head.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && !self.scope.contains_key(&head)
            && !matches!(head.as_str(), "true" | "false")
            && !head.contains('.');
        if !is_call {
            return self.atom_from(head);
        }
        let mut args = Vec::new();
        while self.peek().is_some_and(|t| !matches!(t, ")" | "," | "in")) {
            let token = self.next()?;
            args.extend(self.atom_from(token)?);
        }
        let values = (self.call)(&head, &args.concat())?;
        Ok(values.iter().map(binary).collect())
    }

    /// An atom whose first token has been read.
    fn atom_from(&mut self, token: String) -> Result<Vec<Arg>, String> {
        if token == "(" {
            let mut parts = self.expr()?;
            while self.peek() == Some(",") {
                self.pos += 1;
                parts.extend(self.expr()?);
            }
            self.expect(")")?;
            return Ok(parts);
        }
        if let Some(bound) = self.scope.get(&token) {
            return Ok(bound.clone());
        }
        if token == "$loaddata" || token == "$loadbytes" {
            let file = self.next()?;
            let Some(file) = file.strip_prefix('"').and_then(|f| f.strip_suffix('"')) else {
                return Err(format!("script input: `{token}` needs a file name"));
            };
            let path = self.base.join(file);
            let bytes = std::fs::read(&path)
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
            if token == "$loaddata" {
                return Ok(vec![bytes]);
            }
            let n = bytes.len();
            let data = ArrayData::U8(bytes);
            let array = ArrayValue::new(vec![n], data).expect("shape matches the bytes");
            return Ok(vec![binary(&Value::Array(array))]);
        }
        if token.starts_with('$') {
            return Err(format!(
                "script input: `{token}` is not supported (only $loaddata and $loadbytes)"
            ));
        }
        // A value as written: the entry point's parameter types read it.
        let mut text = token.into_bytes();
        text.push(b'\n');
        Ok(vec![text])
    }
}

fn binary(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    value::write_binary(v, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::scalar::Const;

    /// A stand-in backend: `double` doubles an i64, `pair` returns two.
    fn fake(name: &str, args: &[u8]) -> Result<Vec<Value>, String> {
        let ty = crate::core::ir::Type::Scalar(crate::types::ScalarType::I64);
        match name {
            "double" => {
                let vals = value::read_values(args, &[ty]).map_err(|e| e.to_string())?;
                let Value::Scalar(Const::I64(x)) = vals[0] else {
                    return Err("not an i64".into());
                };
                Ok(vec![Value::Scalar(Const::I64(2 * x))])
            }
            "pair" => Ok(vec![
                Value::Scalar(Const::I64(1)),
                Value::Scalar(Const::I64(2)),
            ]),
            _ => Err(format!("no entry `{name}`")),
        }
    }

    fn values(expr: &str, types: usize) -> Vec<Value> {
        let bytes = eval(expr, Path::new("."), &mut fake).unwrap();
        let ty = crate::core::ir::Type::Scalar(crate::types::ScalarType::I64);
        value::read_values(&bytes, &vec![ty; types]).unwrap()
    }

    #[test]
    fn calls_tuples_and_lets() {
        let i = |x| Value::Scalar(Const::I64(x));
        assert_eq!(values("double 21i64", 1), vec![i(42)]);
        assert_eq!(values("(3, double (double 1))", 2), vec![i(3), i(4)]);
        assert_eq!(values("let x = 5 in double x", 1), vec![i(10)]);
        assert_eq!(values("pair", 2), vec![i(1), i(2)]);
        assert_eq!(values("7i64", 1), vec![i(7)]);
    }

    #[test]
    fn errors_are_reported() {
        let mut call = fake;
        let err = eval("nosuch 1", Path::new("."), &mut call).unwrap_err();
        assert!(err.contains("no entry"), "{err}");
        let err = eval("$foo 1", Path::new("."), &mut call).unwrap_err();
        assert!(err.contains("not supported"), "{err}");
        let err = eval("(1, 2", Path::new("."), &mut call).unwrap_err();
        assert!(err.contains("unexpected end"), "{err}");
    }
}
