//! The core IR: A-normal form, every SOAC a labelled statement whose array
//! arguments are variables and whose functions are lambdas over scalars.
//!
//! Tuples and records are gone: a value of tuple type is a list of variables,
//! and an array of tuples is one array per component (struct of arrays). Every
//! `def` has been inlined, so a program is a list of entry points.

use crate::types::{Const, ScalarType};

/// Unique within a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// Label of a SOAC node: the node identity the fusion graph is built on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SoacId(pub u32);

/// Arrays hold scalars only (struct of arrays); `rank >= 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Scalar(ScalarType),
    Array(ScalarType, usize),
}

impl Type {
    pub fn elem(self) -> ScalarType {
        match self {
            Type::Scalar(t) | Type::Array(t, _) => t,
        }
    }
    pub fn rank(self) -> usize {
        match self {
            Type::Scalar(_) => 0,
            Type::Array(_, r) => r,
        }
    }
    /// The type of one element of the outer dimension.
    pub fn row(self) -> Type {
        match self {
            Type::Array(t, 1) => Type::Scalar(t),
            Type::Array(t, r) => Type::Array(t, r - 1),
            Type::Scalar(t) => Type::Scalar(t),
        }
    }
    /// An array of `n` of these.
    pub fn array_of(self) -> Type {
        match self {
            Type::Scalar(t) => Type::Array(t, 1),
            Type::Array(t, r) => Type::Array(t, r + 1),
        }
    }
}

/// A binding occurrence: identity, a name for printing, and a type.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub id: VarId,
    /// Source name or a generated hint; printed as `name_id`.
    pub name: String,
    pub ty: Type,
}

/// What a failed assertion reports besides its location.
#[derive(Clone, Debug, PartialEq)]
pub enum AssertReport {
    /// `assertion failed`: a check the compiler made, without source text.
    Plain,
    /// `assertion failed at LOC: Assertion is false: COND`: a user's `assert`, with
    /// its condition as written (`assert_message`; `condition_text` makes it).
    Condition(std::sync::Arc<str>),
    /// Futhark's `Range START..SECOND..<END is invalid`: the range's start,
    /// second element and end as `i64`, and its form as an `i64` constant
    /// (`range_form`).
    Range([Atom; 4]),
    /// `index START:END:STRIDE out of bounds for array of length LEN`: a
    /// slice whose stride is 0 (the slice's own check needs a non-zero one).
    Slice([Atom; 4]),
    /// `negative exponent`: a signed integer `**` whose exponent is below
    /// zero (Futhark's check before its integer power).
    NegativeExponent,
}

impl AssertReport {
    /// The values the report prints.
    pub fn atoms(&self) -> &[Atom] {
        match self {
            AssertReport::Plain | AssertReport::Condition(_) | AssertReport::NegativeExponent => {
                &[]
            }
            AssertReport::Range(a) | AssertReport::Slice(a) => a,
        }
    }

    pub fn atoms_mut(&mut self) -> &mut [Atom] {
        match self {
            AssertReport::Plain | AssertReport::Condition(_) | AssertReport::NegativeExponent => {
                &mut []
            }
            AssertReport::Range(a) | AssertReport::Slice(a) => a,
        }
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Atom> {
        self.atoms().iter()
    }

    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Atom> {
        self.atoms_mut().iter_mut()
    }
}

/// The most bytes of a condition's text a message shows: with the rest of
/// the line it stays within the runtime's message buffer.
const MAX_CONDITION: usize = 200;

/// The text `AssertReport::Condition` keeps of a condition written as
/// `source`: one line (runs of white space as one space), without one pair
/// of enclosing parentheses, cut at `MAX_CONDITION` bytes (then `...`).
pub fn condition_text(source: &str) -> String {
    let mut text = source.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.starts_with('(') && text.ends_with(')') && encloses(&text) {
        text = text[1..text.len() - 1].trim().to_string();
    }
    text = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.len() > MAX_CONDITION {
        let mut cut = MAX_CONDITION;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("...");
    }
    text
}

/// Whether the `(` that starts `text` is closed by its last character.
fn encloses(text: &str) -> bool {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i == text.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// A failed assertion's message after `Error: `, at location `loc`, with
/// its condition's text `cond` (the runtime's `arr_fail_assert*` print the
/// same): the condition after the location, so that `assertion failed at
/// LOC` reads as before and Futhark's `Assertion is false: COND` follows.
pub fn assert_message(cond: Option<&str>, loc: &str) -> String {
    match cond {
        Some(c) => format!("assertion failed at {loc}: Assertion is false: {c}"),
        None => format!("assertion failed at {loc}"),
    }
}

/// The form of a range for its report: 0 for `a..<b`, 1 for `a..>b`, 2 for
/// `a...b`, plus 4 when the second element is written (`a..s..<b`).
pub fn range_form(end: u8, with_second: bool) -> i64 {
    i64::from(end) + if with_second { 4 } else { 0 }
}

/// Futhark's message for an invalid range of form `range_form`.
pub fn range_message(start: i64, second: i64, end: i64, form: i64) -> String {
    let second = if form & 4 != 0 {
        format!("..{second}")
    } else {
        String::new()
    };
    let op = match form & 3 {
        0 => "..<",
        1 => "..>",
        _ => "...",
    };
    format!("Range {start}{second}{op}{end} is invalid")
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Atom {
    Var(VarId),
    Const(Const),
}

/// Where in the source an expression came from: for run-time error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SrcLoc {
    /// Index into `Program::files`.
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Source file names as given to the compiler (for error locations).
    pub files: Vec<String>,
    pub entries: Vec<Function>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Var>,
    /// Size parameters: each is also bound to a dimension of some parameter.
    pub size_params: Vec<SizeParam>,
    pub body: Body,
    /// One type per result (a tuple result is several).
    pub ret: Vec<Type>,
}

/// `[n]` on an entry point: `var` is bound to the first of `uses`, a
/// dimension of a parameter (parameter index, dimension index); every other
/// dimension written `n` must be equal to it. A constant dimension (`[3]`)
/// is one of these too, with one use and its `fixed` size: the caller
/// checks it like any other (bad input, not an error of the program).
#[derive(Clone, Debug, PartialEq)]
pub struct SizeParam {
    pub var: Var,
    pub uses: Vec<(usize, usize)>,
    pub fixed: Option<i64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    pub stms: Vec<Stm>,
    pub result: Vec<Atom>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stm {
    pub pat: Vec<Var>,
    pub exp: Exp,
    pub loc: SrcLoc,
}

/// Operators on scalars. Integer arithmetic wraps; `Div`/`Mod` round towards
/// negative infinity and `Quot`/`Rem` towards zero (both trap on zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Quot,
    Rem,
    Pow,
    Min,
    Max,
    Eq,
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    /// Bitwise on integers, logical (not short-circuit) on bool.
    And,
    Or,
    Xor,
    Shl,
    Shr,
    UShr,
    Atan2,
    Hypot,
    /// The high half of the double-width product (signed or unsigned by
    /// the type): Futhark's `mul_hi`.
    MulHi,
    /// The next float after the first operand in the second's direction.
    NextAfter,
    /// The first operand's magnitude with the second's sign.
    CopySign,
}

impl BinOp {
    /// Division and remainder, which stop the program on an integer zero
    /// divisor (treated as able to fail whatever the operand type).
    pub fn may_fail(self) -> bool {
        matches!(self, BinOp::Div | BinOp::Mod | BinOp::Quot | BinOp::Rem)
    }
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Neq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
    /// Operand order does not matter (for CSE's canonical order).
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            BinOp::Add
                | BinOp::Mul
                | BinOp::MulHi
                | BinOp::Min
                | BinOp::Max
                | BinOp::Eq
                | BinOp::Neq
                | BinOp::And
                | BinOp::Or
                | BinOp::Xor
        )
    }
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::Mod => "mod",
            BinOp::Quot => "quot",
            BinOp::Rem => "rem",
            BinOp::Pow => "pow",
            BinOp::Min => "min",
            BinOp::Max => "max",
            BinOp::Eq => "eq",
            BinOp::Neq => "neq",
            BinOp::Lt => "lt",
            BinOp::Le => "le",
            BinOp::Gt => "gt",
            BinOp::Ge => "ge",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Shl => "shl",
            BinOp::Shr => "shr",
            BinOp::UShr => "ushr",
            BinOp::Atan2 => "atan2",
            BinOp::Hypot => "hypot",
            BinOp::MulHi => "mul_hi",
            BinOp::NextAfter => "nextafter",
            BinOp::CopySign => "copysign",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    /// Logical on bool, bitwise complement on integers.
    Not,
    Abs,
    Sqrt,
    Exp,
    Log,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Floor,
    Ceil,
    /// Halves to even.
    Round,
    Trunc,
    Erf,
    IsNan,
    IsInf,
    /// Result `i32`.
    Popc,
    /// Result `i32`.
    Clz,
    Cbrt,
    Log1p,
    Expm1,
    Asinh,
    Acosh,
    Atanh,
    /// A float's bits as the unsigned integer of its width.
    ToBits,
    /// An unsigned integer's bits as the float of its width.
    FromBits,
    /// C's `tgamma`.
    Gamma,
    /// C's `lgamma`: the logarithm of the absolute value of gamma.
    Lgamma,
    Erfc,
}

impl UnOp {
    /// The result type on an operand of type `t`.
    pub fn result(self, t: ScalarType) -> ScalarType {
        match self {
            UnOp::Popc | UnOp::Clz => ScalarType::I32,
            UnOp::IsNan | UnOp::IsInf => ScalarType::Bool,
            UnOp::ToBits => t.bits_type(),
            UnOp::FromBits if t.bits() == 16 => ScalarType::F16,
            UnOp::FromBits if t.bits() == 32 => ScalarType::F32,
            UnOp::FromBits => ScalarType::F64,
            _ => t,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            UnOp::Neg => "neg",
            UnOp::Not => "not",
            UnOp::Abs => "abs",
            UnOp::Sqrt => "sqrt",
            UnOp::Exp => "exp",
            UnOp::Log => "log",
            UnOp::Log2 => "log2",
            UnOp::Log10 => "log10",
            UnOp::Sin => "sin",
            UnOp::Cos => "cos",
            UnOp::Tan => "tan",
            UnOp::Asin => "asin",
            UnOp::Acos => "acos",
            UnOp::Atan => "atan",
            UnOp::Sinh => "sinh",
            UnOp::Cosh => "cosh",
            UnOp::Tanh => "tanh",
            UnOp::Floor => "floor",
            UnOp::Ceil => "ceil",
            UnOp::Round => "round",
            UnOp::Trunc => "trunc",
            UnOp::Erf => "erf",
            UnOp::IsNan => "isnan",
            UnOp::IsInf => "isinf",
            UnOp::Popc => "popc",
            UnOp::Clz => "clz",
            UnOp::Cbrt => "cbrt",
            UnOp::Log1p => "log1p",
            UnOp::Expm1 => "expm1",
            UnOp::Asinh => "asinh",
            UnOp::Acosh => "acosh",
            UnOp::Atanh => "atanh",
            UnOp::ToBits => "to_bits",
            UnOp::FromBits => "from_bits",
            UnOp::Gamma => "gamma",
            UnOp::Lgamma => "lgamma",
            UnOp::Erfc => "erfc",
        }
    }
}

/// A function over scalars (and, through free variables, earlier arrays:
/// indexing one inside a lambda is a gather).
#[derive(Clone, Debug, PartialEq)]
pub struct Lambda {
    pub params: Vec<Var>,
    pub body: Body,
    pub ret: Vec<Type>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SoacKind {
    /// `map f xs ys ...`: one result array per lambda result.
    Map(Lambda),
    /// `reduce op ne xs`: `op` takes `2k` parameters (accumulators, then
    /// elements) for `k` arrays; one scalar result per array.
    Reduce { op: Lambda, neutral: Vec<Atom> },
    /// Inclusive left-to-right scan, same operator shape as `Reduce`.
    Scan { op: Lambda, neutral: Vec<Atom> },
    /// Inclusive right-to-left scan: element `i` combines `xs[i..n)`.
    ScanRight { op: Lambda, neutral: Vec<Atom> },
    /// Keeps the elements (rows) of all `k` argument arrays where `pred`
    /// (over one element of each) holds; `k` results of a new size, in order.
    Filter { pred: Lambda },
    /// `2k` results: the `k` arrays of matches, then the `k` arrays of the rest.
    Partition { pred: Lambda },
    /// Args `[indices, values_1, ..., values_k]`: copies of the `k` arrays in
    /// `dest` with `values_j[i]` written at `indices[i]`; out-of-range indices
    /// are ignored, and of duplicates one value is stored. With `continues`
    /// it continues the scatter that made its destinations, as later parts
    /// of one scatter (`simplify::scatter_split`): of an index both write,
    /// either value may be stored, so the two may run in one loop.
    Scatter { dest: Vec<VarId>, continues: bool },
    /// Args `[indices, values_1, ..., values_k]`: `k` arrays of `bins` elements
    /// (or, with `dest`, of the destination's size, starting from it) where
    /// each value is combined into its bin with `op`; bins start at `neutral`;
    /// out-of-range indices are ignored. `hist` and `reduce_by_index`.
    Hist {
        op: Lambda,
        neutral: Vec<Atom>,
        bins: Atom,
        dest: Option<Vec<VarId>>,
    },
}

impl SoacKind {
    pub fn name(&self) -> &'static str {
        match self {
            SoacKind::Map(_) => "map",
            SoacKind::Reduce { .. } => "reduce",
            SoacKind::Scan { .. } => "scan",
            SoacKind::ScanRight { .. } => "scanr",
            SoacKind::Filter { .. } => "filter",
            SoacKind::Partition { .. } => "partition",
            SoacKind::Scatter { .. } => "scatter",
            SoacKind::Hist { .. } => "hist",
        }
    }

    /// The SOAC's function, if it has one.
    pub fn lambda(&self) -> Option<&Lambda> {
        match self {
            SoacKind::Map(lam) => Some(lam),
            SoacKind::Reduce { op, .. }
            | SoacKind::Scan { op, .. }
            | SoacKind::ScanRight { op, .. }
            | SoacKind::Hist { op, .. } => Some(op),
            SoacKind::Filter { pred } | SoacKind::Partition { pred } => Some(pred),
            SoacKind::Scatter { .. } => None,
        }
    }

    pub fn neutral(&self) -> Option<&[Atom]> {
        match self {
            SoacKind::Reduce { neutral, .. }
            | SoacKind::Scan { neutral, .. }
            | SoacKind::ScanRight { neutral, .. }
            | SoacKind::Hist { neutral, .. } => Some(neutral),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Soac {
    pub label: SoacId,
    /// Iteration count: the outer size of every argument array (checked).
    pub width: Atom,
    pub kind: SoacKind,
    pub args: Vec<VarId>,
    /// `#[sequential]`: the nest it becomes runs in one thread.
    pub sequential: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Exp {
    Atom(Atom),
    BinOp(BinOp, Atom, Atom),
    UnOp(UnOp, Atom),
    /// Scalar conversion (section 10 of the language contract).
    Convert(ScalarType, Atom),
    /// `a * b + c` on floats, rounded once (`f32.fma`).
    Fma(Atom, Atom, Atom),
    If {
        cond: Atom,
        then_body: Body,
        else_body: Body,
    },
    /// Indexing; fewer indices than the rank gives a row. Bounds-checked
    /// unless `checked` is false (`#[unsafe]`: out of range is undefined).
    Index {
        array: VarId,
        indices: Vec<Atom>,
        checked: bool,
    },
    /// Size of dimension `dim` of an array, as `i64`.
    Size {
        array: VarId,
        dim: usize,
    },
    Iota(Atom),
    Replicate {
        count: Atom,
        value: Atom,
    },
    /// Literal array of scalars (rank 1) or of equally shaped rows.
    ArrayLit {
        elem: Type,
        items: Vec<Atom>,
    },
    /// Stops with `size mismatch` unless the two `i64`s are equal.
    AssertEqSizes(Atom, Atom),
    /// Stops unless the `bool` is true, with what the report says.
    Assert(Atom, AssertReport),
    Soac(Soac),
    /// A sequential loop. `params` are the loop-carried variables with their
    /// initial values; the body's results are their next values, and the
    /// statement's pattern receives their final values.
    Loop {
        params: Vec<(Var, Atom)>,
        form: LoopForm,
        body: Body,
    },
    /// `a[d0, d1, ...]` with a fixed index or a strided range per dimension
    /// (missing trailing dimensions are taken whole). Bounds-checked.
    Slice {
        array: VarId,
        dims: Vec<DimSlice>,
    },
    /// A copy of `array` with the element (or row) at `indices` replaced by
    /// `value` (in place when `array` is not used afterwards). Bounds-checked:
    /// an index out of range is an error, unlike `scatter`.
    Update {
        array: VarId,
        indices: Vec<Atom>,
        value: Atom,
    },
    /// Swaps the two outer dimensions.
    Transpose(VarId),
    /// Merges the two outer dimensions.
    Flatten(VarId),
    /// Splits the outer dimension into `rows` by `cols`; `size mismatch`
    /// unless `rows * cols` is the outer size.
    Unflatten {
        array: VarId,
        rows: Atom,
        cols: Atom,
    },
    Reverse(VarId),
    /// Element `i` of the result is `array[(i + amount) mod n]`, for any amount.
    Rotate {
        array: VarId,
        amount: Atom,
    },
    /// Along the outer dimension; inner dimensions must agree (`size mismatch`).
    Concat(Vec<VarId>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum LoopForm {
    /// `for i < bound`: `index` runs from 0 to `bound - 1` (same type as `bound`).
    For { index: Var, bound: Atom },
    /// `while cond`: `cond` is evaluated with the loop parameters in scope
    /// before every iteration; its single result is a `bool`.
    While { cond: Body },
}

/// One dimension of a slice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DimSlice {
    /// A fixed index: the dimension disappears.
    Index(Atom),
    /// Elements `start, start + stride, ...` while before `end` (exclusive;
    /// above `end` for a negative stride). All `i64`; the stride is not 0.
    Range {
        start: Atom,
        end: Atom,
        stride: Atom,
    },
}
