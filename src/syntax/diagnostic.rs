//! Compile errors with source spans, rendered by ariadne.

use super::ast::{FileId, Span};
use ariadne::{Color, Label, Report, ReportKind, Source};

/// The source files of one compilation, indexed by `FileId`.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub files: Vec<SourceFile>,
}

#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as given by the user (or derived from an import).
    pub name: String,
    pub text: String,
    /// Byte offset of the start of every line, for `line_col`.
    line_starts: Vec<usize>,
}

impl SourceMap {
    pub fn add(&mut self, name: String, text: String) -> FileId {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        self.files.push(SourceFile {
            name,
            text,
            line_starts,
        });
        self.files.len() - 1
    }

    pub fn name(&self, file: FileId) -> &str {
        &self.files[file].name
    }

    /// 1-based line and column (in characters) of a byte offset; a binary
    /// search over the line starts, as every statement asks for its location.
    pub fn line_col(&self, file: FileId, offset: usize) -> (u32, u32) {
        let f = &self.files[file];
        let offset = floor_char_boundary(&f.text, offset.min(f.text.len()));
        let line = f.line_starts.partition_point(|&s| s <= offset).max(1);
        let line_start = f.line_starts[line - 1];
        let col = f.text[line_start..offset].chars().count() as u32 + 1;
        (line as u32, col)
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub file: FileId,
    pub span: Span,
    /// The headline, e.g. "type mismatch".
    pub message: String,
    /// Text of the primary label at `span`.
    pub label: String,
    /// Further labelled spans in the same file.
    pub secondary: Vec<(Span, String)>,
    /// Help lines, e.g. "did you mean `length`?".
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(file: FileId, span: Span, message: impl Into<String>) -> Self {
        let message = message.into();
        Diagnostic {
            file,
            span,
            label: message.clone(),
            message,
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push((span, label.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Renders the report as plain text (no colours): stable for golden tests.
    pub fn render(&self, sources: &SourceMap) -> String {
        self.render_with(sources, false)
    }

    pub fn render_with(&self, sources: &SourceMap, colour: bool) -> String {
        let file = &sources.files[self.file];
        let name = file.name.as_str();
        // Spans are byte offsets (see the config below).
        let clamp = |s: &Span| {
            let end = s.end.min(file.text.len());
            s.start.min(end)..end
        };
        let primary = clamp(&self.span);
        let mut report = Report::build(ReportKind::Error, (name, primary.clone()))
            .with_config(
                ariadne::Config::default()
                    .with_color(colour)
                    .with_index_type(ariadne::IndexType::Byte),
            )
            .with_message(&self.message)
            .with_label(
                Label::new((name, primary))
                    .with_message(&self.label)
                    .with_color(Color::Red),
            );
        for (span, text) in &self.secondary {
            report = report.with_label(
                Label::new((name, clamp(span)))
                    .with_message(text)
                    .with_color(Color::Blue),
            );
        }
        for note in &self.notes {
            report = report.with_help(note);
        }
        let mut out = Vec::new();
        report
            .finish()
            .write((name, Source::from(file.text.as_str())), &mut out)
            .expect("writing to a Vec cannot fail");
        String::from_utf8_lossy(&out).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::SourceMap;

    #[test]
    fn line_and_column_of_offsets() {
        let mut sources = SourceMap::default();
        let f = sources.add("t.arr".into(), "ab\n\nxé z\n".into());
        assert_eq!(sources.line_col(f, 0), (1, 1));
        assert_eq!(sources.line_col(f, 2), (1, 3));
        assert_eq!(sources.line_col(f, 3), (2, 1));
        assert_eq!(sources.line_col(f, 4), (3, 1));
        // Columns count characters; an offset inside one rounds down.
        assert_eq!(sources.line_col(f, 7), (3, 3));
        assert_eq!(sources.line_col(f, 6), (3, 2));
        assert_eq!(sources.line_col(f, 100), (4, 1));
    }
}
