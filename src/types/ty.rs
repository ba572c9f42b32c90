//! The types the checker infers and hands to lowering.
//!
//! Sizes are not part of `Type`: two arrays unify whatever their sizes, and
//! sizes the checker cannot prove equal are checked at run time. Declared
//! sizes (`[n]`, `[3]`) travel separately as a `Shape` on patterns and
//! ascriptions, where lowering binds or checks them.

use super::scalar::ScalarType;
use std::fmt;

/// An inference variable; none is left in a `CheckedProgram`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TyVar(pub u32);

/// A local variable (also a size parameter), unique across the checked program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Scalar(ScalarType),
    Array(Box<Type>),
    /// `()` is the empty tuple.
    Tuple(Vec<Type>),
    /// Fields sorted by name.
    Record(Vec<(String, Type)>),
    /// Constructors sorted by name, each with its payload.
    Sum(Vec<(String, Vec<Type>)>),
    Func(Box<Type>, Box<Type>),
    Var(TyVar),
    /// A rigid type parameter `'t`: only while a polymorphic definition is
    /// checked on its own (its uses are checked per instantiation).
    Param(String),
}

impl Type {
    /// Whether values of this type can share memory with another value
    /// (hold an array): what uniqueness and aliasing are about.
    pub fn may_share_memory(&self) -> bool {
        match self {
            Type::Array(_) => true,
            Type::Tuple(ts) => ts.iter().any(Type::may_share_memory),
            Type::Record(fs) => fs.iter().any(|(_, t)| t.may_share_memory()),
            Type::Sum(cs) => cs.iter().flat_map(|(_, ts)| ts).any(Type::may_share_memory),
            _ => false,
        }
    }

    pub fn unit() -> Type {
        Type::Tuple(Vec::new())
    }

    pub fn array(elem: Type) -> Type {
        Type::Array(Box::new(elem))
    }

    pub fn func(param: Type, result: Type) -> Type {
        Type::Func(Box::new(param), Box::new(result))
    }

    /// `p1 -> p2 -> ... -> ret`
    pub fn curried(params: Vec<Type>, ret: Type) -> Type {
        params
            .into_iter()
            .rev()
            .fold(ret, |acc, p| Type::func(p, acc))
    }

    pub fn contains_func(&self) -> bool {
        match self {
            Type::Func(..) => true,
            Type::Array(t) => t.contains_func(),
            Type::Tuple(ts) => ts.iter().any(Type::contains_func),
            Type::Record(fs) => fs.iter().any(|(_, t)| t.contains_func()),
            Type::Sum(cs) => cs.iter().flat_map(|(_, ts)| ts).any(Type::contains_func),
            Type::Scalar(_) | Type::Var(_) | Type::Param(_) => false,
        }
    }

    /// An array whose elements (at any depth) include a function.
    pub fn has_array_of_func(&self) -> bool {
        match self {
            Type::Array(t) => t.contains_func(),
            Type::Func(a, b) => a.has_array_of_func() || b.has_array_of_func(),
            Type::Tuple(ts) => ts.iter().any(Type::has_array_of_func),
            Type::Record(fs) => fs.iter().any(|(_, t)| t.has_array_of_func()),
            Type::Sum(cs) => cs
                .iter()
                .flat_map(|(_, ts)| ts)
                .any(Type::has_array_of_func),
            Type::Scalar(_) | Type::Var(_) | Type::Param(_) => false,
        }
    }

    /// Scalars, arrays of scalars, and tuples of those: what an entry point
    /// may take and return.
    pub fn is_first_order_entry_type(&self) -> bool {
        fn array_of_scalar(t: &Type) -> bool {
            match t {
                Type::Scalar(_) => true,
                Type::Array(e) => array_of_scalar(e),
                _ => false,
            }
        }
        match self {
            Type::Scalar(_) | Type::Array(_) => array_of_scalar(self),
            Type::Tuple(ts) => ts.iter().all(Type::is_first_order_entry_type),
            _ => false,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Scalar(s) => write!(f, "{s}"),
            // `[](a -> b)`: without parentheses it would read as `[]a -> b`.
            Type::Array(t) if matches!(**t, Type::Func(..) | Type::Sum(_)) => write!(f, "[]({t})"),
            Type::Array(t) => write!(f, "[]{t}"),
            Type::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
            Type::Record(fs) => {
                f.write_str("{")?;
                for (i, (name, t)) in fs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{name}: {t}")?;
                }
                f.write_str("}")
            }
            Type::Sum(cs) => {
                for (i, (name, ts)) in cs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" | ")?;
                    }
                    write!(f, "#{name}")?;
                    for t in ts {
                        match t {
                            Type::Scalar(_) | Type::Tuple(_) | Type::Record(_) | Type::Var(_) => {
                                write!(f, " {t}")?
                            }
                            _ => write!(f, " ({t})")?,
                        }
                    }
                }
                Ok(())
            }
            Type::Func(a, b) => {
                if matches!(**a, Type::Func(..)) {
                    write!(f, "({a}) -> {b}")
                } else {
                    write!(f, "{a} -> {b}")
                }
            }
            Type::Var(v) => write!(f, "'t{}", v.0),
            Type::Param(name) => write!(f, "'{name}"),
        }
    }
}

/// A declared size: `[]`, `[3]` or `[n]` (a size parameter or an `i64`
/// variable in scope).
#[derive(Clone, Debug, PartialEq)]
pub enum Dim {
    Any,
    Const(u64),
    Var(LocalId),
    /// `scale * var + offset` (`[2 * k]t`, `[n + 1]t`), `scale` not 0: a
    /// size parameter used only here is solved from the argument's size.
    Linear {
        var: LocalId,
        scale: i64,
        offset: i64,
    },
    /// A global `i64` constant not defined by a literal (`def r = i64.i32
    /// P.r` then `[r]t`): the instance that computes it, checked at run
    /// time.
    Global(usize),
    /// A field of an `i64`-valued tuple or record variable in scope
    /// (`[s.0]t`, `[r.n]t`): the field positions from the outside in,
    /// checked at run time.
    Field {
        var: LocalId,
        path: Vec<usize>,
    },
}

/// The declared sizes of a value, mirroring its type: arrays of tuples are
/// `Array(d, Tuple(..))`, and scalars, functions and type parameters are `Other`.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Other,
    Array(Dim, Box<Shape>),
    /// Also records, in field-name order.
    Tuple(Vec<Shape>),
}

impl Shape {
    /// True when the shape constrains no size at all.
    pub fn is_trivial(&self) -> bool {
        match self {
            Shape::Other => true,
            Shape::Array(Dim::Any, inner) => inner.is_trivial(),
            Shape::Array(..) => false,
            Shape::Tuple(ss) => ss.iter().all(Shape::is_trivial),
        }
    }

    /// Size variables the shape mentions (`linear`: also those inside
    /// `Dim::Linear`).
    pub fn size_vars(&self, linear: bool, out: &mut Vec<LocalId>) {
        match self {
            Shape::Other => {}
            Shape::Array(d, inner) => {
                match d {
                    Dim::Var(id) => out.push(*id),
                    Dim::Linear { var, .. } if linear => out.push(*var),
                    _ => {}
                }
                inner.size_vars(linear, out);
            }
            Shape::Tuple(ss) => ss.iter().for_each(|s| s.size_vars(linear, out)),
        }
    }
}
