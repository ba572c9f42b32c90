-- Each global definition is elaborated once per distinct instantiation, and
-- every call inlines that one body: calls of the same instance nest and
-- capture each other's parameters without mixing them up.

-- ==
-- entry: nested_instances
-- input { 1 } output { 70 }
-- input { -6 } output { 0 }

def g (f: (i32 -> i32) -> i32) (x: i32) : i32 = f (\u -> u + x)

-- The inner `g` binds its `x` to 5 while a closure made by the outer `g`
-- (which reads the outer `x`, here `y`) is still to be called.
entry nested_instances (y: i32) : i32 =
  g (\k -> g (\m -> k (m 1) * 10) 5) y

-- ==
-- entry: two_types
-- input { 3 2.5 } output { 5 4.5 }

def twice x = x + x
def add1 x = twice x - x + 1
def add2 x = add1 (add1 x)

entry two_types (a: i32) (b: f64) : (i32, f64) = (add2 a, add2 b)

-- ==
-- entry: constants
-- input { 2.0f32 } output { 3.0f32 7i64 }

def one = 1
def seven : i64 = one + 6

entry constants (x: f32) : (f32, i64) = (x + one, seven)
