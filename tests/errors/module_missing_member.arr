module type has_zero = {
  type t
  val zero : t
}

module M : has_zero = {
  type t = i32
}

entry main (x: i32) : i32 = x
