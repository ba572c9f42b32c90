-- A size naming a global that is not an `i64` constant.
def f (x: i32) = x

def g (a: [f]i32) = a

entry main (a: []i32) = g a
