//! Names and types of the built-in functions and scalar module members.

use super::infer::{Infer, Mask, FLOAT, INT, NUM, SCALAR};
use super::scalar::{Const, ScalarType, F16};
use super::ty::Type;
use super::typed::{Builtin, Literal, ScalarFn};

/// Unqualified built-in functions the compiler implements.
pub const ARRAY_BUILTINS: &[(&str, Builtin)] = &[
    ("length", Builtin::Length),
    ("iota", Builtin::Iota),
    ("replicate", Builtin::Replicate),
    ("map", Builtin::Map(1)),
    ("map2", Builtin::Map(2)),
    ("map3", Builtin::Map(3)),
    ("map4", Builtin::Map(4)),
    ("map5", Builtin::Map(5)),
    ("reduce", Builtin::Reduce),
    ("reduce_comm", Builtin::ReduceComm),
    ("scan", Builtin::Scan),
    ("zip", Builtin::Zip(2)),
    ("zip3", Builtin::Zip(3)),
    ("unzip", Builtin::Unzip(2)),
    ("unzip3", Builtin::Unzip(3)),
    ("zip4", Builtin::Zip(4)),
    ("zip5", Builtin::Zip(5)),
    ("unzip4", Builtin::Unzip(4)),
    ("unzip5", Builtin::Unzip(5)),
    ("tabulate", Builtin::Tabulate(1)),
    ("tabulate_2d", Builtin::Tabulate(2)),
    ("tabulate_3d", Builtin::Tabulate(3)),
    ("scanr", Builtin::ScanRight),
    ("filter", Builtin::Filter),
    ("partition", Builtin::Partition),
    ("scatter", Builtin::Scatter),
    ("hist", Builtin::Hist),
    ("reduce_by_index", Builtin::ReduceByIndex),
    ("transpose", Builtin::Transpose),
    ("flatten", Builtin::Flatten),
    ("unflatten", Builtin::Unflatten),
    ("reverse", Builtin::Reverse),
    ("rotate", Builtin::Rotate),
    ("concat", Builtin::Concat),
];

pub fn array_builtin(name: &str) -> Option<Builtin> {
    ARRAY_BUILTINS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| *b)
}

/// A fresh instance of a builtin's type.
pub fn builtin_type(inf: &mut Infer, b: Builtin) -> Type {
    let i64_ = Type::Scalar(ScalarType::I64);
    match b {
        Builtin::Length => Type::func(Type::array(inf.fresh()), i64_),
        Builtin::Iota => Type::func(i64_.clone(), Type::array(i64_)),
        Builtin::Replicate => {
            let a = inf.fresh();
            Type::curried(vec![i64_, a.clone()], Type::array(a))
        }
        Builtin::Map(k) => {
            let elems: Vec<Type> = (0..k).map(|_| inf.fresh()).collect();
            let out = inf.fresh();
            let f = Type::curried(elems.clone(), out.clone());
            let mut params = vec![f];
            params.extend(elems.into_iter().map(Type::array));
            Type::curried(params, Type::array(out))
        }
        Builtin::Reduce | Builtin::ReduceComm => {
            let a = inf.fresh();
            let op = Type::curried(vec![a.clone(), a.clone()], a.clone());
            Type::curried(vec![op, a.clone(), Type::array(a.clone())], a)
        }
        Builtin::Scan | Builtin::ScanRight => {
            let a = inf.fresh();
            let op = Type::curried(vec![a.clone(), a.clone()], a.clone());
            Type::curried(vec![op, a.clone(), Type::array(a.clone())], Type::array(a))
        }
        Builtin::Tabulate(k) => {
            let a = inf.fresh();
            let f = Type::curried(vec![i64_.clone(); k as usize], a.clone());
            let mut params = vec![i64_; k as usize];
            params.push(f);
            let mut ret = a;
            for _ in 0..k {
                ret = Type::array(ret);
            }
            Type::curried(params, ret)
        }
        Builtin::Filter | Builtin::Partition => {
            let a = inf.fresh();
            let pred = Type::func(a.clone(), Type::Scalar(ScalarType::Bool));
            let arr = Type::array(a);
            let ret = if b == Builtin::Filter {
                arr.clone()
            } else {
                Type::Tuple(vec![arr.clone(), arr.clone()])
            };
            Type::curried(vec![pred, arr], ret)
        }
        Builtin::Scatter => {
            let arr = Type::array(inf.fresh());
            let is = Type::array(i64_);
            Type::curried(vec![arr.clone(), is, arr.clone()], arr)
        }
        Builtin::Hist | Builtin::ReduceByIndex => {
            let a = inf.fresh();
            let op = Type::curried(vec![a.clone(), a.clone()], a.clone());
            let arr = Type::array(a.clone());
            let is = Type::array(i64_.clone());
            let params = if b == Builtin::Hist {
                vec![op, a, i64_, is, arr.clone()]
            } else {
                vec![arr.clone(), op, a, is, arr.clone()]
            };
            Type::curried(params, arr)
        }
        Builtin::Transpose => {
            let m = Type::array(Type::array(inf.fresh()));
            Type::func(m.clone(), m)
        }
        Builtin::Flatten => {
            let a = inf.fresh();
            Type::func(Type::array(Type::array(a.clone())), Type::array(a))
        }
        Builtin::Unflatten => {
            let a = inf.fresh();
            Type::curried(
                vec![i64_.clone(), i64_, Type::array(a.clone())],
                Type::array(Type::array(a)),
            )
        }
        Builtin::Reverse => {
            let arr = Type::array(inf.fresh());
            Type::func(arr.clone(), arr)
        }
        Builtin::Rotate => {
            let arr = Type::array(inf.fresh());
            Type::curried(vec![i64_, arr.clone()], arr)
        }
        Builtin::Concat => {
            let arr = Type::array(inf.fresh());
            Type::curried(vec![arr.clone(), arr.clone()], arr)
        }
        Builtin::Zip(k) => {
            let elems: Vec<Type> = (0..k).map(|_| inf.fresh()).collect();
            let params = elems.iter().cloned().map(Type::array).collect();
            Type::curried(params, Type::array(Type::Tuple(elems)))
        }
        Builtin::Unzip(k) => {
            let elems: Vec<Type> = (0..k).map(|_| inf.fresh()).collect();
            let results = elems.iter().cloned().map(Type::array).collect();
            Type::func(Type::array(Type::Tuple(elems)), Type::Tuple(results))
        }
        Builtin::Scalar(t, f) => {
            let params = f.params(t).into_iter().map(Type::Scalar).collect();
            Type::curried(params, Type::Scalar(f.result(t)))
        }
    }
}

/// A member of a scalar module: a function or a constant.
pub enum Member {
    Func(Builtin),
    Const(Literal),
}

const FLOAT_FNS: &[(&str, ScalarFn)] = &[
    ("sqrt", ScalarFn::Sqrt),
    ("exp", ScalarFn::Exp),
    ("log", ScalarFn::Log),
    ("log2", ScalarFn::Log2),
    ("log10", ScalarFn::Log10),
    ("sin", ScalarFn::Sin),
    ("cos", ScalarFn::Cos),
    ("tan", ScalarFn::Tan),
    ("asin", ScalarFn::Asin),
    ("acos", ScalarFn::Acos),
    ("atan", ScalarFn::Atan),
    ("atan2", ScalarFn::Atan2),
    ("sinh", ScalarFn::Sinh),
    ("cosh", ScalarFn::Cosh),
    ("tanh", ScalarFn::Tanh),
    ("pow", ScalarFn::Pow),
    ("floor", ScalarFn::Floor),
    ("ceil", ScalarFn::Ceil),
    ("round", ScalarFn::Round),
    ("trunc", ScalarFn::Trunc),
    ("erf", ScalarFn::Erf),
    ("isnan", ScalarFn::IsNan),
    ("isinf", ScalarFn::IsInf),
    // Beyond the contract's list: Futhark's, for its users' programs.
    ("isfinite", ScalarFn::IsFinite),
    ("cbrt", ScalarFn::Cbrt),
    ("log1p", ScalarFn::Log1p),
    ("expm1", ScalarFn::Expm1),
    ("asinh", ScalarFn::Asinh),
    ("acosh", ScalarFn::Acosh),
    ("atanh", ScalarFn::Atanh),
    ("hypot", ScalarFn::Hypot),
    ("mad", ScalarFn::Mad),
    ("lerp", ScalarFn::Lerp),
    ("to_bits", ScalarFn::ToBits),
    ("from_bits", ScalarFn::FromBits),
    ("to_f64", ScalarFn::ToF64),
    ("from_fraction", ScalarFn::FromFraction),
    ("recip", ScalarFn::Recip),
    ("rsqrt", ScalarFn::Rsqrt),
    ("sinpi", ScalarFn::SinPi),
    ("cospi", ScalarFn::CosPi),
    ("tanpi", ScalarFn::TanPi),
    ("asinpi", ScalarFn::AsinPi),
    ("acospi", ScalarFn::AcosPi),
    ("atanpi", ScalarFn::AtanPi),
    ("atan2pi", ScalarFn::Atan2Pi),
    ("gamma", ScalarFn::Gamma),
    ("lgamma", ScalarFn::Lgamma),
    ("erfc", ScalarFn::Erfc),
    ("fma", ScalarFn::Fma),
    ("nextafter", ScalarFn::NextAfter),
    ("ldexp", ScalarFn::Ldexp),
    ("copysign", ScalarFn::CopySign),
    ("set_bit", ScalarFn::SetBit),
];

const NUM_FNS: &[(&str, ScalarFn)] = &[
    ("min", ScalarFn::Min),
    ("max", ScalarFn::Max),
    ("abs", ScalarFn::Abs),
    ("sgn", ScalarFn::Sgn),
    ("neg", ScalarFn::Neg),
    ("get_bit", ScalarFn::GetBit),
    ("to_i64", ScalarFn::ToI64),
];

const INT_FNS: &[(&str, ScalarFn)] = &[
    ("popc", ScalarFn::Popc),
    ("clz", ScalarFn::Clz),
    ("ctz", ScalarFn::Ctz),
    ("set_bit", ScalarFn::SetBit),
    ("not", ScalarFn::Not),
    ("mul_hi", ScalarFn::MulHi),
    ("mad_hi", ScalarFn::MadHi),
    ("to_i32", ScalarFn::ToI32),
    ("sign", ScalarFn::Sign),
    ("unsign", ScalarFn::Unsign),
];

/// Looks up `module.name`, e.g. `f32.sqrt` or `i64.f32`.
pub fn scalar_member(module: ScalarType, name: &str) -> Option<Member> {
    if let Some(from) = ScalarType::from_name(name) {
        return Some(Member::Func(Builtin::Scalar(
            module,
            ScalarFn::Convert(from),
        )));
    }
    let mut fns: Vec<&(&str, ScalarFn)> = Vec::new();
    if module != ScalarType::Bool {
        fns.extend(NUM_FNS);
    }
    if module.is_float() {
        fns.extend(FLOAT_FNS);
    }
    if module.is_int() {
        fns.extend(INT_FNS);
    }
    if let Some((_, f)) = fns.iter().find(|(n, _)| *n == name) {
        return Some(Member::Func(Builtin::Scalar(module, *f)));
    }
    scalar_constant(module, name).map(Member::Const)
}

fn scalar_constant(module: ScalarType, name: &str) -> Option<Literal> {
    let c = match (module, name) {
        (ScalarType::F32, "highest" | "inf") => Const::F32(f32::INFINITY),
        (ScalarType::F32, "lowest") => Const::F32(f32::NEG_INFINITY),
        (ScalarType::F32, "nan") => Const::F32(f32::NAN),
        (ScalarType::F32, "pi") => Const::F32(std::f32::consts::PI),
        (ScalarType::F32, "e") => Const::F32(std::f32::consts::E),
        (ScalarType::F64, "highest" | "inf") => Const::F64(f64::INFINITY),
        (ScalarType::F64, "lowest") => Const::F64(f64::NEG_INFINITY),
        (ScalarType::F64, "nan") => Const::F64(f64::NAN),
        (ScalarType::F64, "pi") => Const::F64(std::f64::consts::PI),
        (ScalarType::F64, "e") => Const::F64(std::f64::consts::E),
        (ScalarType::F32, "epsilon") => Const::F32(f32::EPSILON),
        (ScalarType::F16, "highest" | "inf") => Const::F16(F16::INFINITY),
        (ScalarType::F16, "lowest") => Const::F16(F16::NEG_INFINITY),
        (ScalarType::F16, "nan") => Const::F16(F16::NAN),
        (ScalarType::F16, "pi") => Const::F16(F16::from_f64(std::f64::consts::PI)),
        (ScalarType::F16, "e") => Const::F16(F16::from_f64(std::f64::consts::E)),
        // Futhark's value: f32's epsilon, which is 2^-23 (a subnormal half),
        // not the half's own 2^-10.
        (ScalarType::F16, "epsilon") => Const::F16(F16::from_f64(f32::EPSILON as f64)),
        (ScalarType::F64, "epsilon") => Const::F64(f64::EPSILON),
        (t, "num_bits") if t != ScalarType::Bool => Const::I32(t.bits() as i32),
        (t, "highest") if t.is_int() => int_limit(t, true),
        (t, "lowest") if t.is_int() => int_limit(t, false),
        _ => return None,
    };
    Some(Literal::Const(c))
}

fn int_limit(t: ScalarType, highest: bool) -> Const {
    let bits = t.bits();
    let v: i128 = match (t.is_signed(), highest) {
        (true, true) => (1i128 << (bits - 1)) - 1,
        (true, false) => -(1i128 << (bits - 1)),
        (false, true) => (1i128 << bits) - 1,
        (false, false) => 0,
    };
    Const::int_wrapping(t, v)
}

/// Every member name of a scalar module (for suggestions).
pub fn scalar_member_names(module: ScalarType) -> Vec<String> {
    let mut names: Vec<&str> = ScalarType::ALL.iter().map(|t| t.name()).collect();
    names.extend(NUM_FNS.iter().map(|(n, _)| *n));
    names.extend(FLOAT_FNS.iter().map(|(n, _)| *n));
    names.extend(INT_FNS.iter().map(|(n, _)| *n));
    names.extend([
        "highest", "lowest", "inf", "nan", "pi", "e", "epsilon", "num_bits",
    ]);
    names
        .into_iter()
        .filter(|n| scalar_member(module, n).is_some())
        .map(str::to_string)
        .collect()
}

/// Member `name` of the module of a type parameter `t` (`t.lowest`, `t.max`,
/// `t.i64`, ...): the scalar types `t` must be one of, and the member's type.
/// It is resolved to the scalar module's member once `t` is known.
pub fn type_member(t: &Type, name: &str) -> Option<(Mask, Type)> {
    let bool_ = Type::Scalar(ScalarType::Bool);
    let i32_ = Type::Scalar(ScalarType::I32);
    let un = |r: Type| Type::func(t.clone(), r);
    let bin = Type::curried(vec![t.clone(), t.clone()], t.clone());
    if let Some(from) = ScalarType::from_name(name) {
        return Some((SCALAR, Type::func(Type::Scalar(from), t.clone())));
    }
    Some(match name {
        "highest" | "lowest" => (NUM, t.clone()),
        "inf" | "nan" | "pi" | "e" | "epsilon" => (FLOAT, t.clone()),
        "num_bits" => (NUM, i32_.clone()),
        "min" | "max" => (NUM, bin),
        "abs" | "sgn" | "neg" => (NUM, un(t.clone())),
        "get_bit" => (NUM, Type::curried(vec![i32_.clone(), t.clone()], i32_)),
        "popc" | "clz" | "ctz" => (INT, un(i32_)),
        "set_bit" => (
            NUM,
            Type::curried(vec![i32_.clone(), t.clone(), i32_], t.clone()),
        ),
        "to_i64" => (NUM, un(Type::Scalar(ScalarType::I64))),
        "not" => (INT, un(t.clone())),
        "to_i32" => (INT, un(i32_)),
        "mul_hi" => (INT, bin),
        "mad_hi" => (INT, Type::curried(vec![t.clone(); 3], t.clone())),
        "isnan" | "isinf" | "isfinite" => (FLOAT, un(bool_)),
        "pow" | "atan2" | "hypot" | "atan2pi" | "nextafter" | "copysign" => (FLOAT, bin),
        "mad" | "lerp" | "fma" => (FLOAT, Type::curried(vec![t.clone(); 3], t.clone())),
        "to_f64" => (FLOAT, un(Type::Scalar(ScalarType::F64))),
        "from_fraction" => (
            FLOAT,
            Type::curried(vec![Type::Scalar(ScalarType::I64); 2], t.clone()),
        ),
        "ldexp" => (FLOAT, Type::curried(vec![t.clone(), i32_], t.clone())),
        // Their types depend on the width: only on a known type.
        "to_bits" | "from_bits" | "sign" | "unsign" => return None,
        _ if FLOAT_FNS.iter().any(|(n, _)| *n == name) => (FLOAT, un(t.clone())),
        _ => return None,
    })
}
