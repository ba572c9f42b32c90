-- A top-level constant cannot be unique: every use shares one value.
def zeros : *[]i64 = replicate 4 0

entry main (i: i64) : []i64 = map (+ i) zeros
