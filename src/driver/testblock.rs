//! Test blocks (`-- ==` comment blocks, section 8 of the language contract):
//! source text in, the declared test cases out.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct TestBlock {
    /// `tags { ... }`: classify the whole program (`disable`, `notest`,
    /// `no_python`, `slow`, ...).
    pub tags: Vec<String>,
    pub cases: Vec<TestCase>,
    /// 1-based line of the `-- ==` that opens the block.
    pub line: usize,
    /// `error: REGEX` where a case would start: the program must be rejected
    /// at compile time with a message matching it.
    pub compile_error: Option<String>,
    /// `warning: REGEX`: Futhark's compiler warnings. arrc gives none of
    /// the same kind, so these are read and not checked.
    pub warnings: Vec<String>,
    /// `structure [PIPELINE] { PATH COUNT ... }`, checked by `arrc test -s`.
    pub structure: Vec<Structure>,
    /// `property: NAMES`: property-based tests, read and not run.
    pub properties: Vec<String>,
}

/// Futhark's expectation on how many of each construct remain after a
/// pipeline (`None`: the default one, which fuses), e.g. `/Screma 1`.
#[derive(Clone, Debug, PartialEq)]
pub struct Structure {
    pub pipeline: Option<String>,
    pub counts: Vec<(String, usize)>,
    pub line: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TestCase {
    /// Entry points the case applies to: those of the last `entry:` line
    /// before it in its block (as in Futhark), `main` if none.
    pub entries: Vec<String>,
    /// `"name" input ...`: the dataset's name in benchmark reports.
    pub name: Option<String>,
    /// `nobench input ...`: tested but not timed.
    pub nobench: bool,
    /// `compiled input ...`: never run on the interpreter.
    pub compiled: bool,
    /// Other words before `input` (`no_python`, `notest`, ...): the case's
    /// tags, which `--exclude-tag` matches.
    pub tags: Vec<String>,
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
    /// `script input { EXPR }`: a FutharkScript expression over the entry
    /// points (see `driver::script`).
    Script(String),
    /// `script input @ path`: the expression read from a file.
    ScriptFile(String),
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
    /// Nothing stated, or `auto output`: the run must succeed, and where
    /// both the interpreter and the compiled program run, their results
    /// must agree.
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

/// Whether a program's blocks carry one of `tags` (Futhark: tags of the
/// first block classify the whole program; any block's count here).
pub fn has_tag(blocks: &[TestBlock], tags: &[String]) -> bool {
    blocks
        .iter()
        .any(|b| b.tags.iter().any(|t| tags.contains(t)))
}

/// Whether a program's blocks carry Futhark's `disable` tag: `arrc test`
/// and `arrc bench` skip it.
pub fn disabled(blocks: &[TestBlock]) -> bool {
    has_tag(blocks, &["disable".to_string()])
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

    /// The rest of a `"quoted name"` whose first word, after the opening
    /// quote, is `first`.
    fn quoted(&mut self, first: &str) -> Result<String, BlockError> {
        let mut name = first.to_string();
        if let Some(done) = name.strip_suffix('"') {
            return Ok(done.to_string());
        }
        while let Some(&(_, c)) = self.chars.get(self.pos) {
            self.pos += 1;
            if c == '"' {
                return Ok(name);
            }
            if c == '\n' {
                break;
            }
            name.push(c);
        }
        Err(self.error("unclosed `\"` in a dataset name"))
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

/// A word that may be a tag: letters, digits, `_` and `-`.
fn is_tag(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn parse_block(line: usize, body: &[(usize, &str)]) -> Result<TestBlock, BlockError> {
    let mut cur = Cursor::new(body);
    let mut block = TestBlock {
        tags: Vec::new(),
        cases: Vec::new(),
        line,
        compile_error: None,
        warnings: Vec::new(),
        structure: Vec::new(),
        properties: Vec::new(),
    };
    let mut entries = vec!["main".to_string()];
    while !cur.at_end() {
        let case_line = cur.line();
        let mut word = cur.word();
        match word.as_str() {
            "entry:" => {
                entries = cur
                    .rest_of_line()
                    .split_whitespace()
                    .map(String::from)
                    .collect();
                continue;
            }
            "tags" => {
                block
                    .tags
                    .extend(cur.braced()?.split_whitespace().map(String::from));
                continue;
            }
            "error:" => {
                block.compile_error = Some(cur.rest_of_line());
                continue;
            }
            "warning:" => {
                block.warnings.push(cur.rest_of_line());
                continue;
            }
            "property:" => {
                let names = cur.rest_of_line();
                block
                    .properties
                    .extend(names.split_whitespace().map(String::from));
                continue;
            }
            "structure" => {
                let pipeline = (cur.peek() != Some('{')).then(|| cur.word());
                let counts = parse_structure(&cur.braced()?).map_err(|m| cur.error(m))?;
                block.structure.push(Structure {
                    pipeline,
                    counts,
                    line: case_line,
                });
                continue;
            }
            _ => {}
        }
        // Futhark's prefixes of a case: a dataset name, then tags, among
        // which `nobench`, `compiled`, `random` and `script` have meanings.
        let name = match word.strip_prefix('"') {
            Some(rest) => {
                let name = cur.quoted(rest)?;
                word = cur.word();
                Some(name)
            }
            None => None,
        };
        let (mut nobench, mut compiled, mut random, mut script) = (false, false, false, false);
        let mut tags = Vec::new();
        while word != "input" && word != "output" && is_tag(&word) {
            match word.as_str() {
                "nobench" => nobench = true,
                "compiled" => compiled = true,
                "random" => random = true,
                "script" => script = true,
                _ => tags.push(word.clone()),
            }
            word = cur.word();
        }
        if word != "input" {
            let message = if name.is_some() || nobench || compiled || random || script {
                format!("expected `input`, found `{word}`")
            } else if word.is_empty() {
                "expected `input` after the case's tags".to_string()
            } else {
                format!(
                    "unexpected `{word}`; expected `entry:`, `tags`, `input`, `random input`, \
                     `script input`, `structure`, `error:` or `warning:`"
                )
            };
            return Err(BlockError {
                line: case_line,
                message,
            });
        }
        let input = if random {
            Input::Random(parse_random(&cur.braced()?).map_err(|m| cur.error(m))?)
        } else if script {
            match cur.values()? {
                Input::Text(expr) => Input::Script(expr),
                Input::File(path) => Input::ScriptFile(path),
                other => other,
            }
        } else {
            cur.values()?
        };
        let expect = parse_expect(&mut cur)?;
        block.cases.push(TestCase {
            entries: entries.clone(),
            name,
            nobench,
            compiled,
            tags,
            input,
            expect,
            line: case_line,
        });
    }
    Ok(block)
}

fn parse_expect(cur: &mut Cursor) -> Result<Expect, BlockError> {
    let save = cur.pos;
    match cur.word().as_str() {
        "output" => Ok(Expect::Output(cur.values()?)),
        "auto" => match cur.word().as_str() {
            "output" => Ok(Expect::Agree),
            other => Err(cur.error(format!("expected `output` after `auto`, found `{other}`"))),
        },
        "error:" => Ok(Expect::Error(cur.rest_of_line())),
        _ => {
            cur.pos = save;
            Ok(Expect::Agree)
        }
    }
}

/// `/Screma 1 Index 0 /If/True/Screma 2`: construct paths and counts.
fn parse_structure(text: &str) -> Result<Vec<(String, usize)>, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if !words.len().is_multiple_of(2) {
        return Err("`structure` needs a count after every construct".into());
    }
    words
        .chunks(2)
        .map(|pair| match pair[1].parse::<usize>() {
            Ok(n) => Ok((pair[0].to_string(), n)),
            Err(_) => Err(format!("`{}` is not a count in `structure`", pair[1])),
        })
        .collect()
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
        assert!(b.cases.iter().all(|c| c.entries == ["main", "other"]));
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
        assert_eq!(blocks[0].cases[0].entries, vec!["main"]);
        assert_eq!(blocks[1].cases[0].entries, vec!["f"]);
        assert_eq!(blocks[1].cases[0].expect, Expect::Agree);
    }

    #[test]
    fn entry_lines_apply_to_the_cases_after_them() {
        let src =
            "-- ==\n-- input { 1 }\n-- entry: f g\n-- input { 2 }\n-- entry: h\n-- input { 3 }\n";
        let cases = &parse_blocks(src).unwrap()[0].cases;
        let entries: Vec<_> = cases.iter().map(|c| c.entries.join(" ")).collect();
        assert_eq!(entries, ["main", "f g", "h"]);
    }

    #[test]
    fn futhark_case_prefixes() {
        let src = "-- ==\n-- \"small data\" nobench input { 1 } auto output\n\
                   -- compiled random input { [3]i32 }\n-- nobench compiled input @ x.in\n";
        let cases = &parse_blocks(src).unwrap()[0].cases;
        assert_eq!(cases[0].name.as_deref(), Some("small data"));
        assert!(cases[0].nobench && !cases[1].nobench && cases[2].nobench);
        assert_eq!(cases[0].expect, Expect::Agree);
        assert!(matches!(cases[1].input, Input::Random(_)));
        assert_eq!(cases[2].input, Input::File("x.in".into()));
        let err = parse_blocks("-- ==\n-- nobench output { 1 }\n").unwrap_err();
        assert!(err.message.contains("expected `input`"), "{}", err.message);
    }

    #[test]
    fn futhark_block_lines() {
        let src = "-- ==\n-- tags { slow }\n-- structure { /Screma 1 Index 0 }\n\
                   -- structure gpu-mem { Alloc 2 }\n-- warning: deprecated\n\
                   -- no_python compiled input { 1 } output { 2 }\n\
                   -- script input { mk 3i64 }\n-- script input @ s.fs\n\
                   -- property: prop1 prop2\n\
                   -- ==\n-- error: Consum.*xs\n";
        let blocks = parse_blocks(src).unwrap();
        let b = &blocks[0];
        assert_eq!(b.tags, ["slow"]);
        assert_eq!(b.structure.len(), 2);
        assert_eq!(b.structure[0].pipeline, None);
        assert_eq!(
            b.structure[0].counts,
            vec![("/Screma".to_string(), 1), ("Index".to_string(), 0)]
        );
        assert_eq!(b.structure[1].pipeline.as_deref(), Some("gpu-mem"));
        assert_eq!(b.warnings, ["deprecated"]);
        assert_eq!(b.properties, ["prop1", "prop2"]);
        assert!(b.cases[0].compiled && b.cases[0].tags == ["no_python"]);
        assert!(!b.cases[1].compiled);
        assert_eq!(b.cases[1].input, Input::Script(" mk 3i64 ".into()));
        assert_eq!(b.cases[2].input, Input::ScriptFile("s.fs".into()));
        assert_eq!(blocks[1].compile_error.as_deref(), Some("Consum.*xs"));
        assert!(blocks[1].cases.is_empty());
        let err = parse_blocks("-- ==\n-- structure { Screma }\n").unwrap_err();
        assert!(err.message.contains("count"), "{}", err.message);
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
