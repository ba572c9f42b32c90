-- A size is evaluated wherever it is checked: it may not consume.
def first (xs: *[]i64) : i64 = xs[0]

def pick [n] (ns: *[n]i64) (ys: [first ns]f32) : f32 = ys[0]

entry main (ys: []f32) : f32 = ys[0]
