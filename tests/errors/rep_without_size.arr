-- `rep x` whose size nothing beside it gives (no array of the same
-- `map2`, no ascribed type): arrc says it is not supported here.
entry main (n: i64) : []i32 = map (+ 1) (rep 0)
