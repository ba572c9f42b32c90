module M = {
  def one : i32 = 1
}

entry main (x: i32) : i32 = x + M.two
