-- `update` may modify what `make` returns; the function given returns
-- its captured `row`, which the caller keeps.
def update (make: () -> *[3]i32) : *[3]i32 =
  let r = make ()
  let r[0] = 1
  in r

entry main (row: [3]i32) : [3]i32 =
  let get () : [3]i32 = row
  in update get
