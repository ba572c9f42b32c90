-- A function's result may not alias a top-level constant: a caller could
-- consume the result, and with it the constant.
def table : ([]i32, i32) = ([1, 2, 3], 3)

def lookup (use_table: bool) : []i32 =
  if use_table then table.0 else [0]

entry main (b: bool) : i32 = (lookup b)[0]
