//! Test blocks (`-- ==` comment blocks, section 8 of the language contract):
//! source text in, the declared test cases out.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct TestBlock {
    /// Entry points the cases apply to (default `main`).
    pub entries: Vec<String>,
    pub tags: Vec<String>,
    pub cases: Vec<TestCase>,
    /// 1-based line of the `-- ==` that opens the block.
    pub line: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TestCase {
    pub input: Input,
    pub expect: Expect,
    /// 1-based source line where the case starts.
    pub line: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// Values in the textual format, as written between the braces.
    Text(String),
    /// `@ path`, relative to the program's directory; text or binary.
    File(String),
    /// `random input { [n]t ... }`: one type per argument.
    Random(Vec<RandomSpec>),
}

/// One argument of a `random input`: random values of a shape and type, or
/// a constant written in the block (passed on as text).
#[derive(Clone, Debug, PartialEq)]
pub enum RandomSpec {
    Random {
        shape: Vec<usize>,
        elem: crate::types::ScalarType,
    },
    Constant(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    Output(Input),
    /// `error: REGEX`: the run must fail with a message matching it.
    Error(String),
    /// Nothing stated: the backends must agree with the interpreter.
    Agree,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BlockError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for BlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "test block, line {}: {}", self.line, self.message)
    }
}

/// Finds and parses every test block of a source file.
pub fn parse_blocks(source: &str) -> Result<Vec<TestBlock>, BlockError> {
    let lines: Vec<&str> = source.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "-- ==" {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        // The block is the run of comment lines after `-- ==`, each with its line number.
        let mut body = Vec::new();
        while i < lines.len() {
            let Some(rest) = lines[i].trim_start().strip_prefix("--") else {
                break;
            };
            if rest.trim() == "==" {
                break;
            }
            body.push((i + 1, rest));
            i += 1;
        }
        blocks.push(parse_block(start + 1, &body)?);
    }
    Ok(blocks)
}

/// A cursor over the block's text that remembers line numbers.
struct Cursor<'a> {
    chars: Vec<(usize, char)>,
    pos: usize,
    _text: std::marker::PhantomData<&'a ()>,
}

impl Cursor<'_> {
    fn new(body: &[(usize, &str)]) -> Self {
        let mut chars = Vec::new();
        for (line, text) in body {
            chars.extend(text.chars().map(|c| (*line, c)));
            chars.push((*line, '\n'));
        }
        Cursor {
            chars,
            pos: 0,
            _text: std::marker::PhantomData,
        }
    }

    fn line(&self) -> usize {
        self.chars
            .get(self.pos)
            .or(self.chars.last())
            .map_or(0, |c| c.0)
    }

    fn skip_space(&mut self) {
        while self.pos < self.chars.len() && self.chars[self.pos].1.is_whitespace() {
            self.pos += 1;
        }
    }

    fn at_end(&mut self) -> bool {
        self.skip_space();
        self.pos >= self.chars.len()
    }

    fn word(&mut self) -> String {
        self.skip_space();
        let mut word = String::new();
        while let Some(&(_, c)) = self.chars.get(self.pos) {
            if c.is_whitespace() || c == '{' || c == '@' {
                break;
            }
            word.push(c);
            self.pos += 1;
            if c == ':' {
                break;
            }
        }
        word
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.chars.get(self.pos).map(|c| c.1)
    }

    /// The rest of the current line, trimmed.
    fn rest_of_line(&mut self) -> String {
        let mut text = String::new();
        while let Some(&(_, c)) = self.chars.get(self.pos) {
            self.pos += 1;
            if c == '\n' {
                break;
            }
            text.push(c);
        }
        text.trim().to_string()
    }

    fn error(&self, message: impl Into<String>) -> BlockError {
        BlockError {
            line: self.line(),
            message: message.into(),
        }
    }

    /// `{ ... }`, returning the text inside (line breaks kept).
    fn braced(&mut self) -> Result<String, BlockError> {
        if self.peek() != Some('{') {
            return Err(self.error("expected `{`"));
        }
        let open_line = self.line();
        self.pos += 1;
        let mut text = String::new();
        while let Some(&(_, c)) = self.chars.get(self.pos) {
            self.pos += 1;
            if c == '}' {
                return Ok(text);
            }
            text.push(c);
        }
        Err(BlockError {
            line: open_line,
            message: "unclosed `{`".into(),
        })
    }

    /// `{ ... }` or `@ path`.
    fn values(&mut self) -> Result<Input, BlockError> {
        match self.peek() {
            Some('@') => {
                self.pos += 1;
                let path = self.word();
                if path.is_empty() {
                    return Err(self.error("expected a file name after `@`"));
                }
                Ok(Input::File(path))
            }
            _ => Ok(Input::Text(self.braced()?)),
        }
    }
}

fn parse_block(line: usize, body: &[(usize, &str)]) -> Result<TestBlock, BlockError> {
    let mut cur = Cursor::new(body);
    let mut block = TestBlock {
        entries: Vec::new(),
        tags: Vec::new(),
        cases: Vec::new(),
        line,
    };
    while !cur.at_end() {
        let case_line = cur.line();
        let word = cur.word();
        match word.as_str() {
            "entry:" => block
                .entries
                .extend(cur.rest_of_line().split_whitespace().map(String::from)),
            "tags" => block
                .tags
                .extend(cur.braced()?.split_whitespace().map(String::from)),
            "input" | "random" | "compiled" => {
                let input = match word.as_str() {
                    "random" => {
                        if cur.word() != "input" {
                            return Err(cur.error("expected `input` after `random`"));
                        }
                        Input::Random(parse_random(&cur.braced()?).map_err(|m| cur.error(m))?)
                    }
                    "compiled" => {
                        if cur.word() != "input" {
                            return Err(cur.error("expected `input` after `compiled`"));
                        }
                        cur.values()?
                    }
                    _ => cur.values()?,
                };
                let expect = parse_expect(&mut cur)?;
                block.cases.push(TestCase {
                    input,
                    expect,
                    line: case_line,
                });
            }
            other => {
                return Err(BlockError {
                    line: case_line,
                    message: format!(
                        "unexpected `{other}`; expected `entry:`, `tags`, `input`, `random input`"
                    ),
                })
            }
        }
    }
    if block.entries.is_empty() {
        block.entries.push("main".into());
    }
    Ok(block)
}

fn parse_expect(cur: &mut Cursor) -> Result<Expect, BlockError> {
    let save = cur.pos;
    match cur.word().as_str() {
        "output" => Ok(Expect::Output(cur.values()?)),
        "error:" => Ok(Expect::Error(cur.rest_of_line())),
        _ => {
            cur.pos = save;
            Ok(Expect::Agree)
        }
    }
}

/// `[1000]f32 [10][3]i64 i32 3i64 [1, 2]`: types are random arguments,
/// anything else a constant value.
fn parse_random(text: &str) -> Result<Vec<RandomSpec>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut specs = Vec::new();
    let mut pos = 0;
    while pos < chars.len() {
        if chars[pos].is_whitespace() {
            pos += 1;
            continue;
        }
        // One argument: up to whitespace outside brackets and parentheses.
        let start = pos;
        let mut depth = 0i32;
        while pos < chars.len() && (depth > 0 || !chars[pos].is_whitespace()) {
            match chars[pos] {
                '[' | '(' => depth += 1,
                ']' | ')' => depth -= 1,
                _ => {}
            }
            pos += 1;
        }
        let word: String = chars[start..pos].iter().collect();
        specs.push(random_type(&word)?.unwrap_or(RandomSpec::Constant(word)));
    }
    Ok(specs)
}

/// `Some` when `word` is a type such as `[10][3]i64`.
fn random_type(word: &str) -> Result<Option<RandomSpec>, String> {
    let mut rest = word;
    let mut shape = Vec::new();
    while let Some(after) = rest.strip_prefix('[') {
        let Some(close) = after.find(']') else {
            return Ok(None);
        };
        let Ok(n) = after[..close].replace('_', "").parse::<usize>() else {
            return Ok(None);
        };
        shape.push(n);
        rest = &after[close + 1..];
    }
    match crate::types::ScalarType::from_name(rest) {
        Some(elem) => Ok(Some(RandomSpec::Random { shape, elem })),
        None if shape.is_empty() || rest.is_empty() => Ok(None),
        None => Err(format!("unknown element type in `{word}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ScalarType;

    #[test]
    fn parses_every_kind_of_case() {
        let src = "\
-- Dot product.
-- ==
-- entry: main other
-- input { [1, 2, 3]
--         [4, 5, 6] } output { 32 }
-- input { [1, 2] [3] } error: size
-- random input { [1000]f32 [10][2]i64 }
-- input @ data/big.in output @ data/big.out
-- tags { bench slow }
entry main (xs: []i32) (ys: []i32) = 0
";
        let blocks = parse_blocks(src).unwrap();
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!(b.line, 2);
        assert_eq!(b.entries, vec!["main", "other"]);
        assert_eq!(b.tags, vec!["bench", "slow"]);
        assert_eq!(b.cases.len(), 4);
        assert_eq!(
            b.cases[0].input,
            Input::Text(" [1, 2, 3]\n         [4, 5, 6] ".into())
        );
        assert_eq!(
            b.cases[0].expect,
            Expect::Output(Input::Text(" 32 ".into()))
        );
        assert_eq!(b.cases[0].line, 4);
        assert_eq!(b.cases[1].expect, Expect::Error("size".into()));
        assert_eq!(
            b.cases[2].input,
            Input::Random(vec![
                RandomSpec::Random {
                    shape: vec![1000],
                    elem: ScalarType::F32
                },
                RandomSpec::Random {
                    shape: vec![10, 2],
                    elem: ScalarType::I64
                }
            ])
        );
        assert_eq!(b.cases[2].expect, Expect::Agree);
        assert_eq!(b.cases[3].input, Input::File("data/big.in".into()));
        assert_eq!(
            b.cases[3].expect,
            Expect::Output(Input::File("data/big.out".into()))
        );
    }

    #[test]
    fn several_blocks_and_default_entry() {
        let src =
            "-- ==\n-- input { 1 } output { 2 }\ndef x = 1\n-- ==\n-- entry: f\n-- input { 3 }\n";
        let blocks = parse_blocks(src).unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].entries, vec!["main"]);
        assert_eq!(blocks[1].entries, vec!["f"]);
        assert_eq!(blocks[1].cases[0].expect, Expect::Agree);
    }

    #[test]
    fn reports_errors_with_lines() {
        let err = parse_blocks("-- ==\n-- input { 1 \n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("unclosed"));
        let err = parse_blocks("-- ==\n-- input { 1 }\n-- bogus\n").unwrap_err();
        assert_eq!(err.line, 3);
        let err = parse_blocks("-- ==\n-- random input { [3]f33 }\n").unwrap_err();
        assert!(err.message.contains("unknown element type"));
    }

    #[test]
    fn random_input_mixes_constants() {
        let blocks =
            parse_blocks("-- ==\n-- random input { 3i64 [4]f32 [1, 2] empty([0]i32) }\n").unwrap();
        assert_eq!(
            blocks[0].cases[0].input,
            Input::Random(vec![
                RandomSpec::Constant("3i64".into()),
                RandomSpec::Random {
                    shape: vec![4],
                    elem: ScalarType::F32
                },
                RandomSpec::Constant("[1, 2]".into()),
                RandomSpec::Constant("empty([0]i32)".into()),
            ])
        );
    }
}
