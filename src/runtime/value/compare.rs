//! The tolerant comparison of actual and expected values (section 10).

use super::*;

/// Section 10's rule: floats within `0.002 * max(1, largest finite |y| in
/// the expected value)`, NaN matches NaN, infinities agree in sign; shapes,
/// integers and bools exactly. An expected `i32` or `f64` value (what
/// unsuffixed literals read as) also matches another numeric type with the
/// same numbers. The error names the first difference.
pub fn compare(actual: &Value, expected: &Value) -> Result<(), String> {
    let (at, et) = (actual.ty(), expected.ty());
    let numeric = |t: ScalarType| t != ScalarType::Bool;
    let lenient = matches!(et.elem(), ScalarType::I32 | ScalarType::F64)
        && numeric(at.elem())
        && at.rank() == et.rank();
    if at != et && !lenient {
        return Err(format!(
            "got a value of type {} where {} was expected",
            type_string(at),
            type_string(et)
        ));
    }
    match (actual, expected) {
        (Value::Scalar(x), Value::Scalar(y)) => {
            let tol = 0.002 * y.as_f64().abs().max(1.0);
            if scalars_match(*x, *y, tol) {
                Ok(())
            } else {
                Err(format!("got {} where {} was expected", x, y))
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.shape != y.shape {
                let shape = |s: &[usize]| s.iter().map(|d| format!("[{d}]")).collect::<String>();
                return Err(format!(
                    "got an array of shape {} where {} was expected",
                    shape(&x.shape),
                    shape(&y.shape)
                ));
            }
            let largest = (0..y.len())
                .filter_map(|i| y.get(i))
                .map(|c| c.as_f64().abs())
                .filter(|v| v.is_finite())
                .fold(1.0f64, f64::max);
            let tol = 0.002 * largest;
            for i in 0..y.len() {
                let (Some(a), Some(e)) = (x.get(i), y.get(i)) else {
                    return Err("array data does not match its shape".to_string());
                };
                if !scalars_match(a, e, tol) {
                    let mut index = String::new();
                    let mut rest = i;
                    let mut stride: usize = y.shape.iter().product();
                    for &d in &y.shape {
                        stride /= d.max(1);
                        index.push_str(&format!("[{}]", rest / stride.max(1)));
                        rest %= stride.max(1);
                    }
                    return Err(format!(
                        "at index {index}: got {} where {} was expected",
                        a, e
                    ));
                }
            }
            Ok(())
        }
        _ => Err(format!(
            "got a value of type {} where {} was expected",
            type_string(at),
            type_string(et)
        )),
    }
}

fn scalars_match(a: Const, e: Const, tol: f64) -> bool {
    match (a, e) {
        (Const::Bool(x), Const::Bool(y)) => x == y,
        _ if a.scalar_type().is_float() || e.scalar_type().is_float() => {
            let (x, y) = (a.as_f64(), e.as_f64());
            if x.is_nan() || y.is_nan() {
                x.is_nan() && y.is_nan()
            } else if x.is_infinite() || y.is_infinite() {
                x == y
            } else {
                (x - y).abs() <= tol
            }
        }
        _ => a.as_i128().is_some() && a.as_i128() == e.as_i128(),
    }
}
